/* The log readers' fast paths, in C (optional: checker/loaders/compiled.py finds them; each stands for Python
 * code that gives the same answer, which runs where this is not built or MLPC_PURE_PYTHON is set):
 *   scan         the line walk of checker.loaders.loadgen_log.parse_detail_text, for the logs it takes whole;
 *   values       the values of a detail log's lines decoded at once, as DetailLog.get decodes each alone;
 *   tail_ok      the test of a detail-log line's tail that reading a value alone relies on (_LINE_TAIL);
 *   summary      the pairs of an mlperf_log_summary.txt (checker.loaders.loadgen_log.parse_summary_text);
 *   entry_lines  the entry lines of a block of an accuracy log (checker.loaders.accuracy_entries._LINE_RE);
 *   lookup       many values of a detail log at once (DetailLog.get_many);
 *   agree        the fields of a summary log that plainly agree with the detail log's values (log_digest);
 * All of them read only inside the text or bytes they are given and never raise on any input but for what a
 * callback raises or memory errors.
 *
 * scan(text, raw, duplicates, slow) walks the lines of ``text`` exactly as the Python walk does and fills
 * ``raw`` (key -> its line's number, where the Python walk puts (text, start, last, number): the (start, last)
 * of each line are in the ``spans`` it returns) and ``duplicates`` (keys met again) in the same order; a line
 * the Python walk hands to ``_slow_line`` (flagged as an error or warning, no closing quote after its key, a
 * backslash in its key) is handed to ``slow(payload, number)`` at the same point of the walk, but for a flagged
 * line of a plain value and LoadGen's tail when the log's ``errors``, ``warnings`` and ``cache`` are given: it is
 * read here as _slow_line reads it (flagged_entry). ``text`` is a
 * str, or the bytes of a log file, which the walk takes when they are all ASCII (then they are the str their
 * UTF-8 decoding gives, character for character: the entries hold the bytes, keys and payloads are str).
 * It returns (lines, marker lines, spans), or None, having changed nothing, when the text is not one it takes:
 * a str of wider characters than one byte, bytes that are not all ASCII, an empty text, or any line that
 * is neither empty nor a ``:::MLLOG {"key": "`` line (a foreign line, a marker further in, a blank line of
 * spaces): the Python walk then reads the whole log.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "_simd.h"
#include "_quote_scan.h"

static const char PREFIX[] = ":::MLLOG {\"key\": \"";   /* MARKER + " " + '{"key": "' */
#define PREFIX_LEN ((Py_ssize_t)(sizeof(PREFIX) - 1))
#define HEAD ((Py_ssize_t)9)                              /* len(":::MLLOG ") */
#define WINDOW ((Py_ssize_t)300)                          /* flags sit in the last 300 characters */

static Py_ssize_t line_end(const char *s, Py_ssize_t pos, Py_ssize_t size)
{
    const char *nl = memchr(s + pos, '\n', (size_t)(size - pos));
    return nl == NULL ? size : nl - s;
}

/* The line ends of s[0:size] (the index of each "\n", or size for a last line without one), when every line
 * is empty or a marker line (one that starts with PREFIX): 1 with *ends (PyMem_Malloc'd, for the caller to
 * free) and *count set; 0 when a line is neither; -1 on a memory error. */
static int takes(const char *s, Py_ssize_t size, Py_ssize_t **ends, Py_ssize_t *count)
{
    Py_ssize_t pos = 0, n = 0, room = 256;
    Py_ssize_t *found = PyMem_Malloc((size_t)room * sizeof(Py_ssize_t));
    if (found == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    while (pos < size) {
        Py_ssize_t end = line_end(s, pos, size);
        if (end > pos && (end - pos < PREFIX_LEN || memcmp(s + pos, PREFIX, (size_t)PREFIX_LEN) != 0)) {
            PyMem_Free(found);
            return 0;
        }
        if (n == room) {
            Py_ssize_t *more = PyMem_Realloc(found, (size_t)(room *= 2) * sizeof(Py_ssize_t));
            if (more == NULL) {
                PyMem_Free(found);
                PyErr_NoMemory();
                return -1;
            }
            found = more;
        }
        found[n++] = end;
        pos = end + 1;
    }
    *ends = found;
    *count = n;
    return 1;
}

/* what str.rstrip() removes from a line end, "\n" excepted, among one-byte characters */
static int trailing_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == 0x0b || c == 0x0c || (c >= 0x1c && c <= 0x1f) || c == 0x85
           || c == 0xa0;
}

/* AVX2, where the CPU has it (_simd.h), reads 128 bytes at a time where SSE2 reads 64. The tests run both
 * (use_avx2). */
#if HAVE_AVX2

/* the end of the run of whole 128-byte blocks of p[0:size] that hold no byte above 0x7f, or NULL when one does */
__attribute__((target("avx2"))) static const unsigned char *ascii_blocks_avx2(const unsigned char *p, Py_ssize_t size)
{
    const unsigned char *stop = p + size;
    __m256i seen = _mm256_setzero_si256();
    while (stop - p >= 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)p), b = _mm256_loadu_si256((const __m256i *)(p + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(p + 64)), d = _mm256_loadu_si256((const __m256i *)(p + 96));
        seen = _mm256_or_si256(seen, _mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d)));
        p += 128;
    }
    return _mm256_movemask_epi8(seen) != 0 ? NULL : p;
}
#endif

/* whether s[0:size] is all ASCII */
static int is_ascii(const char *s, Py_ssize_t size)
{
    const unsigned char *p = (const unsigned char *)s, *stop = p + size;
#if HAVE_AVX2
    if (avx2 && size >= 128 && (p = ascii_blocks_avx2(p, size)) == NULL)
        return 0;
#endif
#if defined(__SSE2__)
    __m128i seen16 = _mm_setzero_si128();
    while (stop - p >= 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)p), b = _mm_loadu_si128((const __m128i *)(p + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(p + 32)), d = _mm_loadu_si128((const __m128i *)(p + 48));
        seen16 = _mm_or_si128(seen16, _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)));
        p += 64;
    }
    if (_mm_movemask_epi8(seen16) != 0)
        return 0;
#endif
    uint64_t seen = 0;
    while (stop - p >= 8) {
        uint64_t a;
        memcpy(&a, p, 8);
        seen |= a;
        p += 8;
    }
    while (p < stop)
        seen |= *p++;
    return (seen & UINT64_C(0x8080808080808080)) == 0;
}

/* whether s[from:to] holds "is_error": true or "is_warning": true (the "u" of "true" is rare in a line's
 * tail: the search goes from one "u" to the next) */
static int flagged(const char *s, Py_ssize_t from, Py_ssize_t to)
{
    static const char error[] = "\"is_error\": true", warning[] = "\"is_warning\": true";
    const Py_ssize_t ne = (Py_ssize_t)sizeof(error) - 1, nw = (Py_ssize_t)sizeof(warning) - 1;
    for (Py_ssize_t at = from; at < to;) {
        const char *u = memchr(s + at, 'u', (size_t)(to - at));
        if (u == NULL)
            return 0;
        Py_ssize_t p = u - s;  /* the "u" of "true": two characters before the end of either phrase */
        if (p + 2 <= to && ((p + 2 - ne >= from && memcmp(s + p + 2 - ne, error, (size_t)ne) == 0)
                            || (p + 2 - nw >= from && memcmp(s + p + 2 - nw, warning, (size_t)nw) == 0)))
            return 1;
        at = p + 1;
    }
    return 0;
}

/* Short ASCII strings met again and again (the keys of detail and summary logs: a few hundred names), kept
 * interned: the walks give the same str object for the same characters, whose hash is known and which a
 * dict finds by identity (a check's literal key is the same object). At most KNOWN_SLOTS / 2 are kept, the
 * first ones met; any other string is made anew. */
#define KNOWN_SLOTS 4096
#define KNOWN_LONGEST 64
static struct {
    PyObject *str;
    uint64_t hash;
} known[KNOWN_SLOTS];
static Py_ssize_t known_count;

static PyObject *ascii_str(const char *s, Py_ssize_t n)  /* s[0:n], all ASCII, as a str */
{
    if (n > KNOWN_LONGEST)
        return PyUnicode_DecodeASCII(s, n, NULL);
    uint64_t hash = (uint64_t)n, word;  /* eight bytes at a time, the last ones read again */
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&word, s + i, 8);
        hash = (hash ^ word) * UINT64_C(0x9e3779b97f4a7c15);
        hash ^= hash >> 29;
    }
    if (i < n) {
        word = 0;
        memcpy(&word, s + i, (size_t)(n - i));
        hash = (hash ^ word) * UINT64_C(0x9e3779b97f4a7c15);
        hash ^= hash >> 29;
    }
    size_t slot = (size_t)(hash ^ (hash >> 32)) & (KNOWN_SLOTS - 1);
    while (known[slot].str != NULL) {
        PyObject *str = known[slot].str;
        if (known[slot].hash == hash && PyUnicode_GET_LENGTH(str) == n
            && memcmp(PyUnicode_1BYTE_DATA(str), s, (size_t)n) == 0) {
            Py_INCREF(str);
            return str;
        }
        slot = (slot + 1) & (KNOWN_SLOTS - 1);
    }
    PyObject *str = PyUnicode_DecodeASCII(s, n, NULL);
    if (str != NULL && known_count < KNOWN_SLOTS / 2) {
        PyUnicode_InternInPlace(&str);
        Py_INCREF(str);
        known[slot].str = str;
        known[slot].hash = hash;
        known_count++;
    }
    return str;
}

/* text[from:to] as a str: a substring of a str, or ASCII bytes decoded */
static PyObject *cut(PyObject *text, const char *s, int is_bytes, Py_ssize_t from, Py_ssize_t to)
{
    return is_bytes ? PyUnicode_DecodeASCII(s + from, to - from, NULL) : PyUnicode_Substring(text, from, to);
}

/* a key of text[from:to]: as cut(), interned when it is short ASCII */
static PyObject *cut_key(PyObject *text, const char *s, int is_bytes, Py_ssize_t from, Py_ssize_t to)
{
    if (!is_bytes && !is_ascii(s + from, to - from))
        return PyUnicode_Substring(text, from, to);
    return ascii_str(s + from, to - from);
}

/* the lists and dict of a log that a flagged line read here goes to (scan()'s optional arguments) */
typedef struct {
    PyObject *errors, *warnings, *cache;
} Flagged;

static Py_ssize_t walk(PyObject *text, const char *s, int is_bytes, const Py_ssize_t *ends, Py_ssize_t lines,
                       PyObject *raw, PyObject *duplicates, PyObject *slow, Py_ssize_t *spans, const Flagged *flags);
static int flagged_entry(PyObject *text, const char *s, int is_bytes, Py_ssize_t key_at, Py_ssize_t close,
                         Py_ssize_t start, Py_ssize_t last, Py_ssize_t number, PyObject *raw, PyObject *duplicates,
                         Py_ssize_t *span, const Flagged *flags);

static PyObject *scan(PyObject *self, PyObject *args)
{
    PyObject *text, *raw, *duplicates, *slow;
    Flagged flags = {NULL, NULL, NULL};
    (void)self;
    if (!PyArg_ParseTuple(args, "OO!O!O|O!O!O!", &text, &PyDict_Type, &raw, &PyList_Type, &duplicates, &slow,
                          &PyList_Type, &flags.errors, &PyList_Type, &flags.warnings, &PyDict_Type, &flags.cache))
        return NULL;
    const char *s;
    Py_ssize_t size;
    int is_bytes = PyBytes_Check(text);
    if (is_bytes) {
        s = PyBytes_AS_STRING(text);
        size = PyBytes_GET_SIZE(text);
        if (!is_ascii(s, size))
            Py_RETURN_NONE;
    } else if (PyUnicode_Check(text)) {
#if PY_VERSION_HEX < 0x030C0000
        if (PyUnicode_READY(text) < 0)
            return NULL;
#endif
        if (PyUnicode_KIND(text) != PyUnicode_1BYTE_KIND)
            Py_RETURN_NONE;
        s = (const char *)PyUnicode_1BYTE_DATA(text);
        size = PyUnicode_GET_LENGTH(text);
    } else {
        PyErr_SetString(PyExc_TypeError, "scan() takes a str or bytes");
        return NULL;
    }
    Py_ssize_t *ends = NULL, lines = 0;
    int taken = size == 0 ? 0 : takes(s, size, &ends, &lines);
    if (taken <= 0) {
        if (taken < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    /* (start, last) of each line's entry, by its number: zeros for the lines without one (blank, slow, repeated) */
    PyObject *spans = PyBytes_FromStringAndSize(NULL, lines * 2 * (Py_ssize_t)sizeof(Py_ssize_t));
    if (spans == NULL) {
        PyMem_Free(ends);
        return NULL;
    }
    Py_ssize_t *span = (Py_ssize_t *)PyBytes_AS_STRING(spans);
    memset(span, 0, (size_t)lines * 2 * sizeof(Py_ssize_t));
    Py_ssize_t markers = walk(text, s, is_bytes, ends, lines, raw, duplicates, slow, span,
                              flags.cache != NULL ? &flags : NULL);
    PyMem_Free(ends);
    if (markers < 0) {
        Py_DECREF(spans);
        return NULL;
    }
    return Py_BuildValue("(nnN)", lines, markers, spans);
}

/* scan()'s walk of the lines of a text it takes, ending at ``ends``: the number of marker lines, or -1 with an
 * exception set. An entry is its line's number (a small int: no object is made for it below 257), and its
 * line's (start, last) go to spans[2 * (number - 1)]: the log keeps the text and the spans (DetailLog._spans). */
static Py_ssize_t walk(PyObject *text, const char *s, int is_bytes, const Py_ssize_t *ends, Py_ssize_t lines,
                       PyObject *raw, PyObject *duplicates, PyObject *slow, Py_ssize_t *spans, const Flagged *flags)
{
    Py_ssize_t pos = 0, number = 0, markers = 0;
    for (Py_ssize_t line = 0; line < lines; line++) {
        Py_ssize_t end = ends[line];
        number++;
        if (end > pos) {  /* (takes(): a marker line) */
            markers++;
            Py_ssize_t start = pos + HEAD, key_at = pos + PREFIX_LEN, last = end;
            /* the key ends at the first quote; a backslash before it sends the line to the slow walk */
            Py_ssize_t close = quote_or_backslash(s, key_at, end);
            int plain = close < end && s[close] == '"' && close > key_at;
            if (s[last - 1] != '}') {  /* (the official parser strips the line: a CRLF log's lines end in "\r") */
                while (last > pos && trailing_space((unsigned char)s[last - 1]))
                    last--;
                plain = plain && s[last - 1] == '}';
            }
            if (plain && flagged(s, last - WINDOW < start ? start : last - WINDOW, last)) {
                int done = flags == NULL ? 0 : flagged_entry(text, s, is_bytes, key_at, close, start, last, number,
                                                             raw, duplicates, spans + 2 * line, flags);
                if (done < 0)
                    return -1;
                if (done) {
                    pos = end + 1;
                    continue;
                }
                plain = 0;
            }
            if (!plain) {
                PyObject *payload = cut(text, s, is_bytes, start, last);
                if (payload == NULL)
                    return -1;
                PyObject *done = PyObject_CallFunction(slow, "On", payload, number);
                Py_DECREF(payload);
                if (done == NULL)
                    return -1;
                Py_DECREF(done);
            } else {
                PyObject *key = cut_key(text, s, is_bytes, key_at, close);
                if (key == NULL)
                    return -1;
                int known = PyDict_Contains(raw, key);
                int failed = known < 0;
                if (known == 1) {
                    failed = PyList_Append(duplicates, key) < 0;
                } else if (known == 0) {
                    PyObject *value = PyLong_FromSsize_t(number);
                    failed = value == NULL || PyDict_SetItem(raw, key, value) < 0;
                    Py_XDECREF(value);
                    spans[2 * line] = start;
                    spans[2 * line + 1] = last;
                }
                Py_DECREF(key);
                if (failed)
                    return -1;
            }
        }
        pos = end + 1;
    }
    return markers;
}

/* ------------------------------------------------------------------ the tail of a line as LoadGen writes it
 *
 * tail_ok(text, stop, end): whether text[stop:end] is exactly what LoadGen writes after a line's value,
 *   , "time_ms": N, "namespace": S, "event_type": S, "metadata": {"is_error": B, "is_warning": B,
 *   "file": S, "line_no": I, "pid": I, "tid": I}}
 * as loadgen_log._LINE_TAIL.fullmatch(text, stop, end) tells it (that grammar reads left to right without
 * going back, so one greedy pass gives its answer): strictly valid JSON, so the value alone is what a
 * decoder of the whole line gives.
 */
typedef struct {
    const unsigned char *s;  /* one byte per character (a wider str is narrowed first: see tail_ok) */
    Py_ssize_t at, end;
} Cursor;

#if defined(__GNUC__)
#define INLINE static inline __attribute__((always_inline))
#else
#define INLINE static inline
#endif

/* whether a[0:n] == b[0:n]: eight bytes at a time, the last eight read again where n is not a multiple */
INLINE int same_bytes(const unsigned char *a, const char *b, Py_ssize_t n)
{
    uint64_t diff = 0, x, y;
    Py_ssize_t i = 0;
    if (n < 8) {
        for (; i < n; i++)
            diff |= (uint64_t)(a[i] ^ (unsigned char)b[i]);
        return diff == 0;
    }
    for (; i + 8 <= n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        diff |= x ^ y;
    }
    if (i < n) {
        memcpy(&x, a + n - 8, 8);
        memcpy(&y, b + n - 8, 8);
        diff |= x ^ y;
    }
    return diff == 0;
}

/* (always inlined: each literal's length is then a constant, and its comparison a few word compares) */
INLINE int literal_n(Cursor *c, const char *word, Py_ssize_t n)
{
    if (c->end - c->at < n || !same_bytes(c->s + c->at, word, n))
        return 0;
    c->at += n;
    return 1;
}

#define literal(c, word) literal_n((c), (word), (Py_ssize_t)(sizeof(word) - 1))
#define IS_DIGIT(ch) ((unsigned)((ch) - '0') < 10u)

#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WORD_SCAN 1  /* the first byte marked in a word is found by counting its trailing zero bits */
#endif

INLINE int digits(Cursor *c)  /* [0-9]+ */
{
    Py_ssize_t from = c->at;
#ifdef WORD_SCAN
    while (c->end - c->at >= 8) {  /* eight bytes at a time: each byte in '0'..'9' is marked, exactly */
        uint64_t x, low, digit;
        memcpy(&x, c->s + c->at, 8);
        low = x & ~HIGHS;
        digit = (ONES * (127 + '9' + 1) - low) & (low + ONES * (127 - ('0' - 1))) & ~x & HIGHS;
        if (digit != HIGHS) {
            c->at += __builtin_ctzll(~digit & HIGHS) >> 3;
            return c->at > from;
        }
        c->at += 8;
    }
#endif
    while (c->at < c->end && IS_DIGIT(c->s[c->at]))
        c->at++;
    return c->at > from;
}

INLINE int integer(Cursor *c)  /* -?(?:0|[1-9][0-9]*) */
{
    if (c->at < c->end && c->s[c->at] == '-')
        c->at++;
    if (c->at >= c->end)
        return 0;
    if (c->s[c->at] == '0') {
        c->at++;
        return 1;
    }
    if (c->s[c->at] < '1' || c->s[c->at] > '9')
        return 0;
    return digits(c);
}

INLINE int number(Cursor *c)  /* integer(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)? */
{
    if (!integer(c))
        return 0;
    if (c->at < c->end && c->s[c->at] == '.') {
        c->at++;
        if (!digits(c))
            return 0;
    }
    if (c->at < c->end && (c->s[c->at] == 'e' || c->s[c->at] == 'E')) {
        c->at++;
        if (c->at < c->end && (c->s[c->at] == '-' || c->s[c->at] == '+'))
            c->at++;
        if (!digits(c))
            return 0;
    }
    return 1;
}

static inline int hex(unsigned char ch)
{
    return IS_DIGIT(ch) || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* the first i >= from with s[i] a quote, a backslash or a control character (below 0x20), or end; eight
 * bytes at a time while none of them is one (a word test that never misses one, then byte by byte) */
static inline Py_ssize_t plain_run(const unsigned char *s, Py_ssize_t i, Py_ssize_t end)
{
    while (end - i >= 8) {
        uint64_t x, q, b, hit;
        memcpy(&x, s + i, 8);
        q = x ^ (ONES * '"');
        b = x ^ (ONES * '\\');
        hit = (((q - ONES) & ~q) | ((b - ONES) & ~b) | ((x - ONES * 0x20) & ~x)) & HIGHS;
        if (hit) {
#ifdef WORD_SCAN
            /* the lowest byte marked is the first one sought (a borrow marks only bytes after it) */
            return i + (__builtin_ctzll(hit) >> 3);
#else
            break;
#endif
        }
        i += 8;
    }
    while (i < end && s[i] != '"' && s[i] != '\\' && s[i] >= 0x20)
        i++;
    return i;
}

INLINE int string(Cursor *c)  /* a JSON string: no control characters, only JSON's escapes */
{
    const unsigned char *s = c->s;
    Py_ssize_t i = c->at, end = c->end;
    if (i >= end || s[i] != '"')
        return 0;
    i++;
    for (;;) {
        i = plain_run(s, i, end);
        if (i >= end || s[i] < 0x20)
            return 0;
        if (s[i] == '"') {
            c->at = i + 1;
            return 1;
        }
        if (++i >= end)  /* (a backslash) */
            return 0;
        unsigned char e = s[i++];
        if (e == 'u') {
            for (int k = 0; k < 4; k++, i++)
                if (i >= end || !hex(s[i]))
                    return 0;
        } else if (!(e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't')) {
            return 0;
        }
    }
}

INLINE int boolean(Cursor *c)
{
    return c->at < c->end && c->s[c->at] == 't' ? literal(c, "true") : literal(c, "false");
}

/* Two parts of a tail are most often the same on line after line of a log: from the end of time_ms to the
 * end of the file string (namespace, event_type, the flags and the file), and from the end of line_no to
 * the end (pid and tid). The last of each the grammar took is kept: a tail whose next bytes are those same
 * bytes (for the last part: all its remaining bytes) takes them at once, as each piece of the grammar
 * decides on the bytes it takes alone, so the same bytes are taken the same way; any other is read piece
 * by piece, and its part kept in turn. */
#define PART_ROOM 512
typedef struct {
    Py_ssize_t len;  /* 0: none kept */
    unsigned char bytes[PART_ROOM];
} Part;
static Part middle_seen, end_seen;

INLINE int part_again(const Part *part, const unsigned char *s, Py_ssize_t at, Py_ssize_t room)
{
    return part->len > 0 && room >= part->len && memcmp(s + at, part->bytes, (size_t)part->len) == 0;
}

INLINE void part_keep(Part *part, const unsigned char *s, Py_ssize_t from, Py_ssize_t to)
{
    if (to - from <= PART_ROOM) {
        memcpy(part->bytes, s + from, (size_t)(to - from));
        part->len = to - from;
    }
}

/* whether s[at:end] is the tail LoadGen writes after a value */
static int tail_at(const unsigned char *s, Py_ssize_t at, Py_ssize_t end)
{
    Cursor cursor = {s, at, end}, *c = &cursor;
    if (!(literal(c, ", \"time_ms\": ") && number(c)))
        return 0;
    Py_ssize_t from = c->at;
    if (part_again(&middle_seen, s, from, end - from)) {
        c->at += middle_seen.len;
    } else {
        if (!(literal(c, ", \"namespace\": ") && string(c) && literal(c, ", \"event_type\": ") && string(c)
              && literal(c, ", \"metadata\": {\"is_error\": ") && boolean(c) && literal(c, ", \"is_warning\": ")
              && boolean(c) && literal(c, ", \"file\": ") && string(c)))
            return 0;
        part_keep(&middle_seen, s, from, c->at);
    }
    if (!(literal(c, ", \"line_no\": ") && integer(c)))
        return 0;
    from = c->at;
    if (end - from == end_seen.len && part_again(&end_seen, s, from, end - from))
        return 1;
    if (!(literal(c, ", \"pid\": ") && integer(c) && literal(c, ", \"tid\": ") && integer(c) && literal(c, "}}")
          && c->at == c->end))
        return 0;
    part_keep(&end_seen, s, from, end);
    return 1;
}

static PyObject *tail_ok(PyObject *self, PyObject *args)
{
    PyObject *text;
    Py_ssize_t stop, end;
    (void)self;
    if (!PyArg_ParseTuple(args, "Unn", &text, &stop, &end))
        return NULL;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0)
        return NULL;
#endif
    Py_ssize_t size = PyUnicode_GET_LENGTH(text);
    if (stop < 0 || end > size || stop > end)
        Py_RETURN_FALSE;
    int kind = PyUnicode_KIND(text);
    if (kind == PyUnicode_1BYTE_KIND)
        return PyBool_FromLong(tail_at(PyUnicode_1BYTE_DATA(text), stop, end));
    /* wider characters, narrowed: the grammar tells apart only ASCII characters, and takes any other one
     * where it takes a character above 0x7f (inside a string), so 0xff stands for each of them */
    const void *data = PyUnicode_DATA(text);
    unsigned char *narrow = PyMem_Malloc((size_t)(end - stop) + 1);
    if (narrow == NULL)
        return PyErr_NoMemory();
    for (Py_ssize_t i = stop; i < end; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        narrow[i - stop] = ch > 0xff ? 0xff : (unsigned char)ch;
    }
    int ok = tail_at(narrow, 0, end - stop);
    PyMem_Free(narrow);
    return PyBool_FromLong(ok);
}

/* ------------------------------------------------------------------ the values of a detail log at once
 *
 * values(raw, cache, text, spans): for each entry of ``raw`` (key -> (text, start, end, number), or a line
 * number of ``text`` whose (start, end) ``spans`` holds, as the walks make them) whose key is not in ``cache``,
 * the value DetailLog.get would decode alone, put in ``cache``, when it is a
 * string without escapes, a number, true, false or null (json.JSONDecoder.raw_decode gives the same
 * object for those: the same grammar, and ints and floats made by the same functions); any other entry
 * (an array or object, an escape, wider characters, a line whose value or tail is not the plain one) is
 * left for DetailLog.get to decode when it is asked (and to report if it is not valid JSON).
 */

/* the value at s[p:] of a text of ``size`` characters (one byte each; ``ascii``: bytes, whose strings must be
 * ASCII); 1 with *out and *stop set, 0 when it is not one taken here, -1 on a memory error */
static int scalar(const unsigned char *s, Py_ssize_t size, Py_ssize_t p, int ascii, PyObject **out, Py_ssize_t *stop)
{
    if (p >= size)
        return 0;
    unsigned char c0 = s[p];
    if (c0 == '"') {
        Py_ssize_t q = plain_run(s, p + 1, size);
        if (q >= size || s[q] != '"')
            return 0;
        if (ascii && !is_ascii((const char *)s + p + 1, q - p - 1))
            return 0;
        *out = PyUnicode_FromKindAndData(PyUnicode_1BYTE_KIND, s + p + 1, q - p - 1);
        *stop = q + 1;
        return *out == NULL ? -1 : 1;
    }
    if (c0 == 't' || c0 == 'f' || c0 == 'n') {
        static const char *const words[] = {"true", "false", "null"};
        const char *word = words[c0 == 't' ? 0 : c0 == 'f' ? 1 : 2];
        Py_ssize_t n = (Py_ssize_t)strlen(word);
        if (size - p <= n - 1 || memcmp(s + p, word, (size_t)n) != 0)
            return 0;
        *out = c0 == 't' ? Py_True : c0 == 'f' ? Py_False : Py_None;
        Py_INCREF(*out);
        *stop = p + n;
        return 1;
    }
    if (c0 != '-' && !IS_DIGIT(c0))
        return 0;
    Cursor c = {s, p, size};
    if (!integer(&c))
        return 0;
    int is_float = 0;  /* as json's scanner: a fraction needs a digit after the point, an exponent a digit */
    if (c.at + 1 < size && s[c.at] == '.' && IS_DIGIT(s[c.at + 1])) {
        is_float = 1;
        c.at++;
        digits(&c);
    }
    if (c.at < size && (s[c.at] == 'e' || s[c.at] == 'E')) {
        Py_ssize_t back = c.at;
        c.at++;
        if (c.at < size && (s[c.at] == '-' || s[c.at] == '+'))
            c.at++;
        if (digits(&c))
            is_float = 1;
        else
            c.at = back;
    }
    Py_ssize_t n = c.at - p;
    if (!is_float && n <= 20) {  /* (up to 20 characters: the digits fit in 64 bits unless the sum overflows) */
        int negative = s[p] == '-';
        uint64_t v = 0;
        int over = 0;
        for (Py_ssize_t i = p + negative; i < c.at && !over; i++) {
            uint64_t digit = (uint64_t)(s[i] - '0');
            over = v > UINT64_MAX / 10 || (v == UINT64_MAX / 10 && digit > UINT64_MAX % 10);
            v = v * 10 + digit;
        }
        if (!over && (!negative || v <= (uint64_t)1 << 63)) {
            *out = !negative ? PyLong_FromUnsignedLongLong(v)
                   : v == (uint64_t)1 << 63 ? PyLong_FromLongLong(LLONG_MIN) : PyLong_FromLongLong(-(long long)v);
            *stop = c.at;
            return *out == NULL ? -1 : 1;
        }
    }
    char buf[64];
    if (n >= (Py_ssize_t)sizeof(buf))
        return 0;  /* (a long number: left to the decoder, with its limits) */
    memcpy(buf, s + p, (size_t)n);
    buf[n] = '\0';
    if (is_float) {
        double x = PyOS_string_to_double(buf, NULL, NULL);
        if (x == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        *out = PyFloat_FromDouble(x);
    } else {
        *out = PyLong_FromString(buf, NULL, 10);
        if (*out == NULL) {
            PyErr_Clear();
            return 0;
        }
    }
    *stop = c.at;
    return *out == NULL ? -1 : 1;
}

/* str.isprintable() */
static int printable(PyObject *key)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(key);
    if (PyUnicode_IS_ASCII(key)) {
        const Py_UCS1 *k = PyUnicode_1BYTE_DATA(key);
        Py_ssize_t i = 0;
        /* eight bytes at a time (all below 0x80): a byte below 0x20 or 0x7f marks its high bit, and a borrow
           marks one only after such a byte, so a word with none marked has none */
        for (; i + 8 <= n; i += 8) {
            uint64_t x, d;
            memcpy(&x, k + i, 8);
            d = x ^ (ONES * 0x7f);
            if ((((x - ONES * 0x20) & ~x) | ((d - ONES) & ~d)) & HIGHS)
                return 0;
        }
        for (; i < n; i++)
            if (k[i] < 0x20 || k[i] == 0x7f)
                return 0;
        return 1;
    }
    int kind = PyUnicode_KIND(key);
    const void *data = PyUnicode_DATA(key);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!Py_UNICODE_ISPRINTABLE(PyUnicode_READ(kind, data, i)))
            return 0;
    return 1;
}

static const char KEY_TO_VALUE[] = "\", \"value\": ";  /* between a line's key and its value */
#define KEY_TO_VALUE_LEN ((Py_ssize_t)(sizeof(KEY_TO_VALUE) - 1))
#define KEY_PREFIX_LEN ((Py_ssize_t)9)                  /* len('{"key": "') */

static PyObject *values(PyObject *self, PyObject *args)
{
    PyObject *raw, *cache, *key, *item, *log_text = Py_None, *spans = Py_None;
    Py_ssize_t pos = 0;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!|OO", &PyDict_Type, &raw, &PyDict_Type, &cache, &log_text, &spans))
        return NULL;
    const Py_ssize_t *span = PyBytes_Check(spans) ? (const Py_ssize_t *)PyBytes_AS_STRING(spans) : NULL;
    Py_ssize_t spanned = span == NULL ? 0 : PyBytes_GET_SIZE(spans) / (Py_ssize_t)(2 * sizeof(Py_ssize_t));
    while (PyDict_Next(raw, &pos, &key, &item)) {
        PyObject *text;
        Py_ssize_t start, end;
        if (!PyUnicode_Check(key))
            continue;
        if (PyLong_CheckExact(item)) {  /* a line of the log's own text (scan) */
            Py_ssize_t number = PyLong_AsSsize_t(item);
            if (number < 1 || number > spanned) {
                if (number == -1 && PyErr_Occurred())
                    PyErr_Clear();
                continue;
            }
            text = log_text;
            start = span[2 * (number - 1)];
            end = span[2 * (number - 1) + 1];
        } else if (PyTuple_Check(item) && PyTuple_GET_SIZE(item) == 4) {
            text = PyTuple_GET_ITEM(item, 0);
            start = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 1));
            end = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 2));
            if ((start == -1 || end == -1) && PyErr_Occurred()) {
                PyErr_Clear();
                continue;
            }
        } else {
            continue;
        }
        int known = PyDict_Contains(cache, key);
        if (known < 0)
            return NULL;
        if (known)
            continue;
        const unsigned char *s;
        Py_ssize_t size;
        int ascii = PyBytes_Check(text);
        if (ascii) {
            s = (const unsigned char *)PyBytes_AS_STRING(text);
            size = PyBytes_GET_SIZE(text);
        } else if (PyUnicode_Check(text) && PyUnicode_KIND(text) == PyUnicode_1BYTE_KIND) {
            s = PyUnicode_1BYTE_DATA(text);
            size = PyUnicode_GET_LENGTH(text);
        } else {
            continue;
        }
        /* as DetailLog.get: text.startswith('", "value": ', at) and key.isprintable(), then the value alone */
        Py_ssize_t at = start + KEY_PREFIX_LEN + PyUnicode_GET_LENGTH(key);
        if (start < 0 || at > size - KEY_TO_VALUE_LEN || memcmp(s + at, KEY_TO_VALUE, (size_t)KEY_TO_VALUE_LEN) != 0
            || !printable(key))
            continue;
        PyObject *value = NULL;
        Py_ssize_t stop = 0;
        int got = scalar(s, size, at + KEY_TO_VALUE_LEN, ascii, &value, &stop);
        if (got < 0)
            return NULL;
        if (got == 0)
            continue;
        int ok = stop <= end && end <= size && tail_at(s, stop, end);
        if (ok && PyDict_SetItem(cache, key, value) < 0) {
            Py_DECREF(value);
            return NULL;
        }
        Py_DECREF(value);
    }
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ a flagged line read here
 *
 * flagged_entry(): a line flagged as an error or a warning whose key is printable, whose value is one values()
 * takes and whose tail is the one LoadGen writes (tail_at: strictly valid JSON, the flags the only
 * '{"is_error": ' of the line, as no string of it holds a quote) is what _slow_line makes of it, without
 * decoding the whole line in Python: (key, value, number) appended to errors (is_error true) or else to warnings
 * (is_warning true), then the key to duplicates when raw has it, else the entry (its line number and span, as a
 * plain line's) to raw and its value to cache. 1 when done, 0 for a line left to _slow_line, -1 on an error. */
static int flagged_entry(PyObject *text, const char *s, int is_bytes, Py_ssize_t key_at, Py_ssize_t close,
                         Py_ssize_t start, Py_ssize_t last, Py_ssize_t number, PyObject *raw, PyObject *duplicates,
                         Py_ssize_t *span, const Flagged *flags)
{
    static const char metadata[] = "{\"is_error\": ", warning[] = ", \"is_warning\": ";
    const Py_ssize_t nm = (Py_ssize_t)sizeof(metadata) - 1, nw = (Py_ssize_t)sizeof(warning) - 1;
    const unsigned char *u = (const unsigned char *)s;
    Py_ssize_t at;
    if (last - close < KEY_TO_VALUE_LEN || memcmp(s + close, KEY_TO_VALUE, (size_t)KEY_TO_VALUE_LEN) != 0)
        return 0;
    PyObject *value = NULL;
    Py_ssize_t stop = 0;
    int got = scalar(u, last, close + KEY_TO_VALUE_LEN, is_bytes, &value, &stop);
    if (got <= 0)
        return got;
    if (!tail_at(u, stop, last)) {
        Py_DECREF(value);
        return 0;
    }
    for (at = stop;; at++) {  /* (tail_at: the tail holds it, once) */
        const char *brace = memchr(s + at, '{', (size_t)(last - at));
        if (brace == NULL) {
            Py_DECREF(value);
            return 0;
        }
        at = brace - s;
        if (last - at >= nm && memcmp(s + at, metadata, (size_t)nm) == 0)
            break;
    }
    at += nm;
    int is_error = s[at] == 't';
    at += is_error ? 4 : 5;
    int is_warning = last - at > nw && s[at + nw] == 't';
    PyObject *key = cut_key(text, s, is_bytes, key_at, close);
    if (key == NULL) {
        Py_DECREF(value);
        return -1;
    }
    int failed = 0, known;
    if (!printable(key)) {
        Py_DECREF(key);
        Py_DECREF(value);
        return 0;
    }
    if (is_error || is_warning) {
        PyObject *row = Py_BuildValue("(OOn)", key, value, number);
        failed = row == NULL || PyList_Append(is_error ? flags->errors : flags->warnings, row) < 0;
        Py_XDECREF(row);
    }
    if (!failed) {
        known = PyDict_Contains(raw, key);
        failed = known < 0;
        if (known == 1) {
            failed = PyList_Append(duplicates, key) < 0;
        } else if (known == 0) {
            PyObject *line = PyLong_FromSsize_t(number);
            failed = line == NULL || PyDict_SetItem(raw, key, line) < 0 || PyDict_SetItem(flags->cache, key, value) < 0;
            Py_XDECREF(line);
            span[0] = start;
            span[1] = last;
        }
    }
    Py_DECREF(key);
    Py_DECREF(value);
    return failed ? -1 : 1;
}

/* ------------------------------------------------------------------ many values of a log at once
 *
 * lookup(cache, keys, undecoded): [cache.get(key) for key in keys] (DetailLog.get_many once the plain values
 * are decoded), or None when a key is in the set ``undecoded`` (an entry of the log not decoded yet: the caller
 * decodes it).
 */
static PyObject *lookup(PyObject *self, PyObject *args)
{
    PyObject *cache, *keys, *undecoded;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!OO!", &PyDict_Type, &cache, &keys, &PySet_Type, &undecoded))
        return NULL;
    PyObject *seq = PySequence_Fast(keys, "lookup(): keys must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject *out = PyList_New(n);
    if (out == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    int empty = PySet_GET_SIZE(undecoded) == 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!empty) {
            int found = PySet_Contains(undecoded, items[i]);
            if (found != 0) {
                Py_DECREF(seq);
                Py_DECREF(out);
                if (found < 0)
                    return NULL;
                Py_RETURN_NONE;
            }
        }
        PyObject *value = PyDict_GetItemWithError(cache, items[i]);
        if (value == NULL) {
            if (PyErr_Occurred()) {
                Py_DECREF(seq);
                Py_DECREF(out);
                return NULL;
            }
            value = Py_None;
        }
        Py_INCREF(value);
        PyList_SET_ITEM(out, i, value);
    }
    Py_DECREF(seq);
    return out;
}

/* ------------------------------------------------------------------ a summary against its detail log
 *
 * agree(texts, values): the indices i at which the text texts[i] of a summary's field is not plainly the detail
 * log's value values[i], as checker.metrics.log_digest.disagreements tests a field before anything else: a
 * value of None (nothing to compare), an int whose str() is the text, a str equal to the text, True and "Yes",
 * False and "No"; a (per-query, per-sample) pair of a MultiStream field: both None, or either one of them so.
 * The fields at the other indices (floats, rates, anything else) are compared in Python.
 */

/* whether ``text`` (a str) is ``value`` (not None) written plainly */
static int plainly(PyObject *text, PyObject *value)
{
    if (value == Py_True || value == Py_False)
        return PyUnicode_CompareWithASCIIString(text, value == Py_True ? "Yes" : "No") == 0;
    if (PyUnicode_CheckExact(value))
        return PyUnicode_Compare(text, value) == 0;
    if (PyLong_CheckExact(value)) {
        int overflow = 0, negative;
        unsigned long long u;
        long long x = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (overflow > 0) {  /* (past 2**63: a seed up to 2**64 - 1) */
            u = PyLong_AsUnsignedLongLong(value);
            if (u == (unsigned long long)-1 && PyErr_Occurred()) {
                PyErr_Clear();
                return 0;  /* (a longer int: compared in Python) */
            }
            negative = 0;
        } else if (overflow < 0 || (x == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return 0;
        } else {
            negative = x < 0;
            u = negative ? 0ULL - (unsigned long long)x : (unsigned long long)x;
        }
        char digits[24], *end = digits + sizeof(digits), *p = end;
        do {
            *--p = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (negative)
            *--p = '-';
        Py_ssize_t n = end - p;
        return PyUnicode_IS_ASCII(text) && PyUnicode_GET_LENGTH(text) == n
               && memcmp(PyUnicode_1BYTE_DATA(text), p, (size_t)n) == 0;
    }
    return 0;
}

static PyObject *agree(PyObject *self, PyObject *args)
{
    PyObject *texts, *values;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!", &PyTuple_Type, &texts, &PyList_Type, &values))
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(texts);
    if (PyList_GET_SIZE(values) != n) {
        PyErr_SetString(PyExc_ValueError, "agree(): as many values as texts");
        return NULL;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *text = PyTuple_GET_ITEM(texts, i), *value = PyList_GET_ITEM(values, i);
        int plain;
        if (value == Py_None) {
            plain = 1;
        } else if (!PyUnicode_Check(text)) {
            plain = 0;
        } else if (PyTuple_CheckExact(value) && PyTuple_GET_SIZE(value) == 2) {
            PyObject *first = PyTuple_GET_ITEM(value, 0), *second = PyTuple_GET_ITEM(value, 1);
            plain = (first == Py_None && second == Py_None) || (first != Py_None && plainly(text, first))
                    || (second != Py_None && plainly(text, second));
        } else {
            plain = plainly(text, value);
        }
        if (!plain) {
            PyObject *index = PyLong_FromSsize_t(i);
            if (index == NULL || PyList_Append(out, index) < 0) {
                Py_XDECREF(index);
                Py_DECREF(out);
                return NULL;
            }
            Py_DECREF(index);
        }
    }
    return out;
}

/* ------------------------------------------------------------------ summary logs
 *
 * summary(text): the pairs of a summary log as parse_summary_text reads them (its lines as str.splitlines
 * cuts them, each stripped, a leading "* " removed, split at its first ":", key and value stripped, the
 * first occurrence of a key kept), for a str of one-byte characters; None for any other str.
 */

/* what str.splitlines() cuts at (1) and what str.strip() removes (2), among one-byte characters */
static const unsigned char CLASS[256] = {
    ['\t'] = 2, ['\n'] = 3, [0x0b] = 3, [0x0c] = 3, ['\r'] = 3, [0x1c] = 3, [0x1d] = 3, [0x1e] = 3, [0x1f] = 2,
    [' '] = 2, [0x85] = 3, [0xa0] = 2,
};
#define LINE_BREAK(c) (CLASS[(c)] & 1)
#define SPACE(c) (CLASS[(c)] & 2)

/* the first i >= b with s[i] a line break (LINE_BREAK), or size: 16 bytes at a time with SSE2, the bytes
   under 0x20 or over 0x7f (under 0x20 as signed bytes: every line break is one) looked at one by one */
static inline Py_ssize_t line_break_at(const unsigned char *s, Py_ssize_t b, Py_ssize_t size)
{
#if defined(__SSE2__) && defined(__GNUC__)
    const __m128i space = _mm_set1_epi8(0x20);
    while (size - b >= 16) {
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmplt_epi8(_mm_loadu_si128((const __m128i *)(s + b)), space));
        for (; m; m &= m - 1)
            if (LINE_BREAK(s[b + __builtin_ctz(m)]))
                return b + __builtin_ctz(m);
        b += 16;
    }
#endif
    while (b < size && !LINE_BREAK(s[b]))
        b++;
    return b;
}

static PyObject *summary(PyObject *self, PyObject *args)
{
    PyObject *text;
    (void)self;
    if (!PyArg_ParseTuple(args, "U", &text))
        return NULL;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0)
        return NULL;
#endif
    if (PyUnicode_KIND(text) != PyUnicode_1BYTE_KIND)
        Py_RETURN_NONE;
    const unsigned char *s = PyUnicode_1BYTE_DATA(text);
    Py_ssize_t size = PyUnicode_GET_LENGTH(text), pos = 0;
    PyObject *pairs = PyDict_New();
    if (pairs == NULL)
        return NULL;
    while (pos < size) {
        Py_ssize_t a = pos, b = line_break_at(s, pos, size);
        pos = b + (b + 1 < size && s[b] == '\r' && s[b + 1] == '\n' ? 2 : 1);
        while (a < b && SPACE(s[a]))
            a++;
        while (b > a && SPACE(s[b - 1]))
            b--;
        if (b - a >= 2 && s[a] == '*' && s[a + 1] == ' ')
            a += 2;
        const unsigned char *colon = a < b ? memchr(s + a, ':', (size_t)(b - a)) : NULL;
        if (colon == NULL)
            continue;
        Py_ssize_t k0 = a, k1 = colon - s, v0 = k1 + 1, v1 = b;
        while (k0 < k1 && SPACE(s[k0]))
            k0++;
        while (k1 > k0 && SPACE(s[k1 - 1]))
            k1--;
        if (k1 == k0)
            continue;
        while (v0 < v1 && SPACE(s[v0]))
            v0++;
        while (v1 > v0 && SPACE(s[v1 - 1]))
            v1--;
        PyObject *key = is_ascii((const char *)s + k0, k1 - k0) ? ascii_str((const char *)s + k0, k1 - k0)
                                                               : PyUnicode_Substring(text, k0, k1);
        PyObject *value = key == NULL ? NULL : PyUnicode_Substring(text, v0, v1);
        PyObject *kept = value == NULL ? NULL : PyDict_SetDefault(pairs, key, value);
        Py_XDECREF(key);
        Py_XDECREF(value);
        if (kept == NULL) {
            Py_DECREF(pairs);
            return NULL;
        }
    }
    return pairs;
}

/* ------------------------------------------------------------------ accuracy-log entry lines
 *
 * entry_lines(buf, end): the lines of buf[:end] (split at "\n") read as loader.accuracy_entries._LINE_RE
 * reads them: a line that is exactly
 *   { "seq_id" : N, "qsl_idx" : N, "data" : "HEX"[, "token_data" : "HEX"][, "token_count" : [-]N] }[,]
 * with an even number of data digits is a row (qsl_idx, data, token_data or None, token_count or None,
 * None); any other line is an event (rows before it, its number from 1, its bytes, whether a row came
 * since the previous event) for the careful reading in Python. Returns (rows, events, lines, whether a
 * row came after the last event). The grammar reads left to right without going back, as the regular
 * expression does on these lines.
 */
#include "_entry_grammar.h"

/* parse one entry line; on success fill the spans (qsl_idx, data's digits, token_data's digits, token_count)
   and return 1 */
static int entry_line(Bytes *c, Py_ssize_t span[8])
{
    if (!entry_head(c, span))
        return 0;
    span[2] = c->at;
    b_hex_digits(c);
    span[3] = c->at;
    return LIT(c, "\"") && entry_tail(c, span + 4);
}


static PyObject *row(const char *s, const Py_ssize_t span[8])
{
    PyObject *qsl = number_at(s, span[0], span[1]);
    PyObject *data = PyBytes_FromStringAndSize(s + span[2], span[3] - span[2]);
    PyObject *token = span[4] >= 0 && span[5] > span[4] ? PyBytes_FromStringAndSize(s + span[4], span[5] - span[4])
                                                         : (Py_INCREF(Py_None), Py_None);
    PyObject *count = span[6] >= 0 ? number_at(s, span[6], span[7]) : (Py_INCREF(Py_None), Py_None);
    PyObject *out = (qsl && data && token && count) ? PyTuple_Pack(5, qsl, data, token, count, Py_None) : NULL;
    Py_XDECREF(qsl);
    Py_XDECREF(data);
    Py_XDECREF(token);
    Py_XDECREF(count);
    return out;
}

static PyObject *entry_lines(PyObject *self, PyObject *args)
{
    Py_buffer view;
    Py_ssize_t end;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*n", &view, &end))
        return NULL;
    const char *s = (const char *)view.buf;
    if (end < 0 || end > view.len)
        end = end < 0 ? 0 : view.len;
    PyObject *rows = PyList_New(0), *events = PyList_New(0), *out = NULL;
    Py_ssize_t pos = 0, number = 0;
    int fresh = 0;
    if (rows == NULL || events == NULL)
        goto done;
    for (;;) {
        const char *nl = memchr(s + pos, '\n', (size_t)(end - pos));
        Py_ssize_t stop = nl == NULL ? end : nl - s;
        Py_ssize_t span[8];
        Bytes c = {s, pos, stop};
        number++;
        PyObject *item = NULL;  /* the row, where the line is one */
        if (entry_line(&c, span) && ((span[3] - span[2]) & 1) == 0 && (item = row(s, span)) == NULL)
            goto done;
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
    PyBuffer_Release(&view);
    return out;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS,
     "scan(text, raw, duplicates, slow[, errors, warnings, cache]) -> (lines, markers, spans) or None"},
    {"entry_lines", entry_lines, METH_VARARGS, "entry_lines(buf, end) -> (rows, events, lines, fresh)"},
    {"tail_ok", tail_ok, METH_VARARGS, "tail_ok(text, stop, end) -> whether text[stop:end] is LoadGen's line tail"},
    {"values", values, METH_VARARGS,
     "values(raw, cache[, text, spans]) -> None: the plain values of a detail log's entries into cache"},
    {"summary", summary, METH_VARARGS, "summary(text) -> the key/value pairs of a summary log, or None"},
    {"agree", agree, METH_VARARGS, "agree(texts, values) -> the indices of the texts that are not plainly their values"},
    {"lookup", lookup, METH_VARARGS, "lookup(cache, keys, undecoded) -> [cache.get(key) ...], or None for an undecoded key"},
    {"use_avx2", use_avx2, METH_O, "use_avx2(on) -> whether the AVX2 reading is used from now on"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "checker._detail_scan",
                                    "The log readers' fast paths in C (see checker.loaders.loadgen_log and checker.loaders.accuracy_entries).", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__detail_scan(void)
{
    simd_init();
    return PyModule_Create(&module);
}
