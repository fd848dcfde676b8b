/* checker._accuracy_scan: the long-line blocks of an accuracy log in C (see checker.loaders.accuracy_entries).
 *
 * long_lines(buf, end, long_bytes): None when the lines of buf[:end] (split at "\n") are long on average no
 * more than ``long_bytes`` bytes (end <= long_bytes * (lines)): the short-line reading takes the block then.
 * Otherwise the lines read as accuracy_entries._take_long reads them: a line that is exactly
 *   { "seq_id" : N, "qsl_idx" : N, "data" : "HEX"[, "token_data" : "HEX"][, "token_count" : [-]N] }[,]
 * with an even number of data digits is a row (qsl_idx, memoryview of the data digits in buf, token_data
 * or None, token_count or None, the data decoded); any other line is an event (rows before it, its number
 * from 1, its bytes, whether a row came since the previous event) for the careful reading in Python.
 * Returns (rows, events, lines, whether a row came after the last event), the form of
 * checker._detail_scan.entry_lines. Reads only inside buf[:end]; never raises but for memory errors.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "_entry_grammar.h"

static signed char HEXVAL[256];  /* a hex digit's value; -1: not a hex digit */

/* SSE2 (every x86-64) decodes 32 digits at a time where a loop decodes two, AVX2 where the CPU has it 64;
 * elsewhere the loop does it all. The tests run every way (use_vectors, use_avx2: _simd.h). */
#include "_simd.h"

#if HAVE_SSE2
/* the values of the 16 hex digits v (pairs in 16-bit lanes: first digit in the low byte) as (first << 4) |
   second in the low byte of each lane; `good` keeps only the lanes whose bytes are hex digits. A range test
   is one add and one signed compare: the add moves the range's first byte to -128. */
static inline __m128i pairs16(__m128i v, __m128i *good)
{
    const __m128i to_digits = _mm_set1_epi8((char)(0x80 - '0')), digits_end = _mm_set1_epi8((char)(-128 + 10));
    const __m128i case_bit = _mm_set1_epi8(0x20), to_letters = _mm_set1_epi8((char)(0x80 - 'a'));
    const __m128i letters_end = _mm_set1_epi8((char)(-128 + 6)), nibble = _mm_set1_epi8(0x0f);
    const __m128i nine = _mm_set1_epi8(9), low_byte = _mm_set1_epi16(0x00ff);
    __m128i digit = _mm_cmpgt_epi8(digits_end, _mm_add_epi8(v, to_digits));
    /* "A"-"F" and "a"-"f" (and no other byte) are "a"-"f" with the case bit set */
    __m128i letter = _mm_cmpgt_epi8(letters_end, _mm_add_epi8(_mm_or_si128(v, case_bit), to_letters));
    *good = _mm_and_si128(*good, _mm_or_si128(digit, letter));
    __m128i value = _mm_add_epi8(_mm_and_si128(v, nibble), _mm_and_si128(letter, nine));
    return _mm_or_si128(_mm_and_si128(_mm_slli_epi16(value, 4), low_byte), _mm_srli_epi16(value, 8));
}
#endif

#if HAVE_AVX2
/* pairs16 on 32 digits */
__attribute__((target("avx2"))) static inline __m256i pairs32(__m256i v, __m256i *good)
{
    const __m256i to_digits = _mm256_set1_epi8((char)(0x80 - '0')), digits_end = _mm256_set1_epi8((char)(-128 + 10));
    const __m256i case_bit = _mm256_set1_epi8(0x20), to_letters = _mm256_set1_epi8((char)(0x80 - 'a'));
    const __m256i letters_end = _mm256_set1_epi8((char)(-128 + 6)), nibble = _mm256_set1_epi8(0x0f);
    const __m256i nine = _mm256_set1_epi8(9), low_byte = _mm256_set1_epi16(0x00ff);
    __m256i digit = _mm256_cmpgt_epi8(digits_end, _mm256_add_epi8(v, to_digits));
    __m256i letter = _mm256_cmpgt_epi8(letters_end, _mm256_add_epi8(_mm256_or_si256(v, case_bit), to_letters));
    *good = _mm256_and_si256(*good, _mm256_or_si256(digit, letter));
    __m256i value = _mm256_add_epi8(_mm256_and_si256(v, nibble), _mm256_and_si256(letter, nine));
    return _mm256_or_si256(_mm256_and_si256(_mm256_slli_epi16(value, 4), low_byte), _mm256_srli_epi16(value, 8));
}

/* unhex of the first n - n % 32 bytes, 64 digits at a time: how many were decoded, or -1 when a digit is not
   hex */
__attribute__((target("avx2"))) static Py_ssize_t unhex_avx2(const unsigned char *src, Py_ssize_t n, unsigned char *dst)
{
    __m256i good = _mm256_set1_epi8(-1);
    Py_ssize_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i a = pairs32(_mm256_loadu_si256((const __m256i *)(src + 2 * i)), &good);
        __m256i b = pairs32(_mm256_loadu_si256((const __m256i *)(src + 2 * i + 32)), &good);
        /* (the pack works in 128-bit halves: its quarters come out a0 b0 a1 b1) */
        __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xD8);
        _mm256_storeu_si256((__m256i *)(dst + i), packed);
    }
    return _mm256_movemask_epi8(good) != -1 ? -1 : i;
}
#endif

/* dst[0:n] = the bytes of the 2n hex digits at src; 0 when every one is a hex digit (HEXVAL), else -1 (dst
   then holds garbage) */
static int unhex(const unsigned char *src, Py_ssize_t n, unsigned char *dst)
{
    Py_ssize_t i = 0;
    int acc = 0;
#if HAVE_AVX2
    if (avx2 && vectors && n >= 32 && (i = unhex_avx2(src, n, dst)) < 0)
        return -1;
#endif
#if HAVE_SSE2
    if (vectors && n >= 16) {
        __m128i good = _mm_set1_epi8(-1);
        for (; i + 16 <= n; i += 16) {
            __m128i a = pairs16(_mm_loadu_si128((const __m128i *)(src + 2 * i)), &good);
            __m128i b = pairs16(_mm_loadu_si128((const __m128i *)(src + 2 * i + 16)), &good);
            _mm_storeu_si128((__m128i *)(dst + i), _mm_packus_epi16(a, b));
        }
        if (_mm_movemask_epi8(good) != 0xffff)
            return -1;
    }
#endif
    for (; i < n; i++) {
        int hi = HEXVAL[src[2 * i]], lo = HEXVAL[src[2 * i + 1]];
        acc |= hi | lo;
        dst[i] = (unsigned char)((hi << 4) | (lo & 0x0f));
    }
    return acc < 0 ? -1 : 0;
}

/* the data s[from:to] decoded (an even number of hex digits), NULL without an error set when it is not hex */
static PyObject *decoded(const char *s, Py_ssize_t from, Py_ssize_t to, int *bad)
{
    *bad = 0;
    if ((to - from) & 1) {
        *bad = 1;
        return NULL;
    }
    PyObject *out = PyBytes_FromStringAndSize(NULL, (to - from) / 2);
    if (out == NULL)
        return NULL;
    if (unhex((const unsigned char *)s + from, (to - from) / 2, (unsigned char *)PyBytes_AS_STRING(out)) < 0) {
        Py_DECREF(out);
        *bad = 1;
        return NULL;
    }
    return out;
}

/* whether end <= long_bytes * (the number of lines of s[:end]), as accuracy_entries._take tests it; counts no
   further than it must */
static int short_block(const char *s, Py_ssize_t end, Py_ssize_t long_bytes)
{
    Py_ssize_t lines = 1, pos = 0;
    for (;;) {
        if (end <= long_bytes * lines)
            return 1;
        const char *nl = memchr(s + pos, '\n', (size_t)(end - pos));
        if (nl == NULL)
            return 0;
        lines++;
        pos = nl - s + 1;
    }
}

static PyObject *long_lines(PyObject *self, PyObject *args)
{
    PyObject *buf;
    Py_ssize_t end, long_bytes;
    (void)self;
    if (!PyArg_ParseTuple(args, "Snn", &buf, &end, &long_bytes))
        return NULL;
    const char *s = PyBytes_AS_STRING(buf);
    if (end < 0 || end > PyBytes_GET_SIZE(buf))
        end = end < 0 ? 0 : PyBytes_GET_SIZE(buf);
    if (short_block(s, end, long_bytes))
        Py_RETURN_NONE;
    PyObject *rows = PyList_New(0), *events = PyList_New(0), *view = PyMemoryView_FromObject(buf), *out = NULL;
    Py_ssize_t pos = 0, number = 0;
    int fresh = 0;
    if (rows == NULL || events == NULL || view == NULL)
        goto done;
    for (;;) {
        const char *nl = memchr(s + pos, '\n', (size_t)(end - pos));
        Py_ssize_t stop = nl == NULL ? end : nl - s;
        Py_ssize_t qsl[2], span[4];
        Bytes c = {s, pos, stop};
        PyObject *item = NULL;
        number++;
        if (entry_head(&c, qsl)) {
            Py_ssize_t start = c.at;
            const char *quote = memchr(s + start, '"', (size_t)(stop - start));
            if (quote != NULL) {
                Py_ssize_t close = quote - s;
                Bytes t = {s, close + 1, stop};
                if (entry_tail(&t, span)) {
                    int bad;
                    PyObject *raw = decoded(s, start, close, &bad);
                    if (raw == NULL && !bad)
                        goto done;
                    if (raw != NULL) {
                        PyObject *n = number_at(s, qsl[0], qsl[1]);
                        PyObject *data = PySequence_GetSlice(view, start, close);
                        PyObject *token = span[0] >= 0 && span[1] > span[0]
                                              ? PyBytes_FromStringAndSize(s + span[0], span[1] - span[0])
                                              : (Py_INCREF(Py_None), Py_None);
                        PyObject *count = span[2] >= 0 ? number_at(s, span[2], span[3]) : (Py_INCREF(Py_None), Py_None);
                        item = (n && data && token && count) ? PyTuple_Pack(5, n, data, token, count, raw) : NULL;
                        Py_XDECREF(n);
                        Py_XDECREF(data);
                        Py_XDECREF(token);
                        Py_XDECREF(count);
                        Py_DECREF(raw);
                        if (item == NULL)
                            goto done;
                    }
                }
            }
        }
        if (add_line(rows, events, item, number, s + pos, stop - pos, &fresh) < 0)
            goto done;
        if (nl == NULL)
            break;
        pos = stop + 1;
    }
    out = Py_BuildValue("(OOnO)", rows, events, number, fresh ? Py_True : Py_False);
done:
    Py_XDECREF(rows);
    Py_XDECREF(events);
    Py_XDECREF(view);
    return out;
}

static PyMethodDef methods[] = {
    {"use_avx2", use_avx2, METH_O, "use_avx2(on) -> whether the 64-digit decoding is used from now on"},
    {"use_vectors", use_vectors, METH_O, "use_vectors(on) -> whether the 32-digit decoding is used from now on"},
    {"long_lines", long_lines, METH_VARARGS,
     "long_lines(buf, end, long_bytes) -> None (a short-line block) or (rows, events, lines, fresh)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "checker._accuracy_scan",
                                    "The long-line blocks of accuracy logs in C (see checker.loaders.accuracy_entries).",
                                    -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__accuracy_scan(void)
{
    simd_init();
    memset(HEXVAL, -1, sizeof(HEXVAL));
    for (int i = 0; i < 10; i++)
        HEXVAL['0' + i] = (signed char)i;
    for (int i = 0; i < 6; i++) {
        HEXVAL['a' + i] = (signed char)(10 + i);
        HEXVAL['A' + i] = (signed char)(10 + i);
    }
    return PyModule_Create(&module);
}
