/* The power logs' fast paths, in C (optional: checker/loaders/compiled.py finds them; each stands for Python
 * code that gives the same answer, which runs where this is not built or MLPC_PURE_PYTHON is set):
 *   spl_records  the records of a spl.txt, as checker.metrics.power._parse_spl_numpy reads them;
 *   ptd_lines    the lines of a ptd_logs.txt the PTD walk looks at, as checker.metrics.ptd_read._read_numpy
 *                finds them, grouped by their text after the stamp;
 *   epochs, window  a group's stamps as epochs, and split by a time window, as checker.metrics.ptd_read's
 *                PtdLog.epochs and checker.metrics.ptd_log's walk do with numpy.
 * spl_records and ptd_lines take a file's bytes whole, or return None, having read nothing, when the file is not of the common
 * form (the Python reading then decides): ASCII, no line break but "\n" and "\r\n" (ptd_lines: no NUL).
 * They read only inside the bytes they are given and never raise on any input but for what a callback
 * raises or memory errors.
 *
 * A stamp is `MM-DD-YYYY HH:MM:SS?fff` (digits and separators in place, any byte at offset 19); its minute,
 * the first 16 bytes, is read by checker.metrics.power.minute_epoch once per run of stamps with the same
 * minute (a log is in time order: one run per minute).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* SSE2 (every x86-64) reads 16 bytes at a time where a loop would read one, AVX2 where the CPU has it 32 in
 * the form test; elsewhere 8-byte words do. The tests run every way (use_vectors, use_avx2: _simd.h). */
#include "_simd.h"

#if defined(__GNUC__) || defined(__clang__)
#define LOWEST_BIT(m) __builtin_ctz(m)
#else
static int lowest_bit(unsigned m)
{
    int n = 0;
    while (!(m & 1u)) {
        m >>= 1;
        n++;
    }
    return n;
}
#define LOWEST_BIT(m) lowest_bit(m)
#endif

#define STAMP ((Py_ssize_t)23)   /* len("07-25-2024 18:26:24.892") */
#define MINUTE ((size_t)16)      /* len("07-25-2024 18:26") */
#define SPL_HEAD ((Py_ssize_t)29) /* len("Time,") + STAMP + len(",") */

/* ------------------------------------------------------------------ stamps, eight bytes at a time
 *
 * The stamp is read as three 8-byte words at its offsets 0, 8 and 15. Per word: the bytes that must be
 * digits (their high nibble, 0x3, must stay 0x3 when 6 is added: 0x30-0x39) and the separators. The masks
 * are laid out as bytes and loaded as the stamp is (memcpy), so they hold on any byte order; the addition
 * carries into no other byte once every digit byte is 0x30-0x3F.
 */
static const char SHAPE[] = "dd-dd-dddd dd:dd:dd?ddd";
static const int WORD_AT[3] = {0, 8, 15};
static struct {
    uint64_t high[3], want[3], six[3], punct[3], fixed[3];
} masks;

static void make_masks(void)
{
    for (int w = 0; w < 3; w++) {
        unsigned char high[8], want[8], add[8], punct[8], fixed[8];
        for (int b = 0; b < 8; b++) {
            char c = SHAPE[WORD_AT[w] + b];
            int digit = c == 'd', sep = c != 'd' && c != '?';
            high[b] = digit ? 0xF0 : 0;
            want[b] = digit ? 0x30 : 0;
            add[b] = digit ? 0x06 : 0;
            punct[b] = sep ? 0xFF : 0;
            fixed[b] = sep ? (unsigned char)c : 0;
        }
        memcpy(&masks.high[w], high, 8);
        memcpy(&masks.want[w], want, 8);
        memcpy(&masks.six[w], add, 8);
        memcpy(&masks.punct[w], punct, 8);
        memcpy(&masks.fixed[w], fixed, 8);
    }
}

#if defined(__GNUC__) || defined(__clang__)
#define INLINE static inline __attribute__((always_inline))
#else
#define INLINE static inline
#endif

/* the word w of the stamp at p has its shape */
INLINE int word_shaped(const unsigned char *p, int w)
{
    uint64_t word;
    memcpy(&word, p + WORD_AT[w], 8);
    return (word & masks.high[w]) == masks.want[w] && ((word + masks.six[w]) & masks.high[w]) == masks.want[w]
           && (word & masks.punct[w]) == masks.fixed[w];
}

/* the 23 bytes at p have the shape of a stamp (offset 19 not looked at) */
static int shaped(const unsigned char *p)
{
    return word_shaped(p, 0) && word_shaped(p, 1) && word_shaped(p, 2);
}

/* shaped(p), where `minute` is NULL or a stamp that has the shape: *same tells whether p's minute (its first 16
 * bytes) is that stamp's, and then only the word at offset 15 is left to test (the two before are the same) */
INLINE int shaped_after(const unsigned char *p, const unsigned char *minute, int *same)
{
    *same = 0;
    if (minute != NULL) {
        uint64_t a, b, x, y;
        memcpy(&a, p, 8);
        memcpy(&b, p + 8, 8);
        memcpy(&x, minute, 8);
        memcpy(&y, minute + 8, 8);
        *same = a == x && b == y;
    }
    return *same ? word_shaped(p, 2) : shaped(p);
}

static int seconds(const unsigned char *p) { return (p[17] - '0') * 10 + (p[18] - '0'); }
static int millis(const unsigned char *p) { return (p[20] - '0') * 100 + (p[21] - '0') * 10 + (p[22] - '0'); }

/* ------------------------------------------------------------------ the form both readings take
 *
 * s[:n] is ASCII, without a line break str.splitlines knows but "\n" ("\x0b", "\x0c", "\x1c", "\x1d",
 * "\x1e"; the others are not ASCII), each "\r" followed by "\n" inside s[:n], and (``nul`` 0) without NUL.
 */
static unsigned char refused[256];  /* 1: a byte the form refuses; 2: "\r"; 3: NUL */

static void make_refused(void)
{
    for (int c = 0x80; c < 256; c++)
        refused[c] = 1;
    refused[0x0b] = refused[0x0c] = refused[0x1c] = refused[0x1d] = refused[0x1e] = 1;
    refused['\r'] = 2;
    refused[0x00] = 3;
}

#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

INLINE int clean_byte(const char *s, Py_ssize_t i, Py_ssize_t n, int nul)
{
    unsigned char r = refused[(unsigned char)s[i]];
    return r == 0 || (r == 2 && i + 1 < n && s[i + 1] == '\n') || (r == 3 && nul);
}

static int clean_words(const char *s, Py_ssize_t n, int nul)
{
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t word;
        memcpy(&word, s + i, 8);
        if ((((word - 0x20 * ONES) & ~word) | word) & HIGHS) {
            for (Py_ssize_t j = i; j < i + 8; j++)
                if (!clean_byte(s, j, n, nul))
                    return 0;
        }
    }
    for (; i < n; i++)
        if (!clean_byte(s, i, n, nul))
            return 0;
    return 1;
}

#if HAVE_AVX2
/* clean_vectors' scan of the whole 32-byte blocks of s[0:n], 32 bytes at a time: 0 at a byte the form refuses,
 * else 1 with *done the end of the blocks */
__attribute__((target("avx2"))) static int clean_avx2(const char *s, Py_ssize_t n, int nul, Py_ssize_t *done)
{
    const __m256i space = _mm256_set1_epi8(0x20), newline = _mm256_set1_epi8('\n');
    Py_ssize_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(s + i));
        unsigned m = (unsigned)_mm256_movemask_epi8(
            _mm256_andnot_si256(_mm256_cmpeq_epi8(v, newline), _mm256_cmpgt_epi8(space, v)));
        for (; m; m &= m - 1)
            if (!clean_byte(s, i + LOWEST_BIT(m), n, nul))
                return 0;
    }
    *done = i;
    return 1;
}
#endif

#if HAVE_SSE2
/* the same, 16 bytes at a time (32 with AVX2): the bytes under 0x20 or over 0x7F (under 0x20 as signed bytes) but
 * "\n" (which the form takes) are looked at one by one ("\r" of "\r\n", and what the form refuses) */
static int clean_vectors(const char *s, Py_ssize_t n, int nul)
{
    const __m128i space = _mm_set1_epi8(0x20), newline = _mm_set1_epi8('\n');
    Py_ssize_t i = 0;
#if HAVE_AVX2
    if (avx2 && !clean_avx2(s, n, nul, &i))
        return 0;
#endif
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_andnot_si128(_mm_cmpeq_epi8(v, newline), _mm_cmplt_epi8(v, space)));
        for (; m; m &= m - 1)
            if (!clean_byte(s, i + LOWEST_BIT(m), n, nul))
                return 0;
    }
    for (; i < n; i++)
        if (!clean_byte(s, i, n, nul))
            return 0;
    return 1;
}
#endif

static int clean(const char *s, Py_ssize_t n, int nul)
{
#if HAVE_SSE2
    if (vectors)
        return clean_vectors(s, n, nul);
#endif
    return clean_words(s, n, nul);
}

/* ------------------------------------------------------------------ spl.txt
 *
 * spl_records(data, minute_epoch) -> (us, watts, ordered) or None. The line breaks at the end of ``data``
 * aside (PTD ends the file with a blank line), every line must be a record
 * `Time,<stamp>,<field>,<watts>[,...]` with a "." before the milliseconds and seconds 00-59, each minute
 * one minute_epoch does not refuse (None), and watts a number float() reads: else None. ``us`` (a tuple of
 * int) is each stamp in microseconds since the epoch, read as UTC; ``watts`` (a tuple of float) what
 * float() gives for each watts field; ``ordered`` whether the stamps never go back.
 */

/* 1, 10, ... 1e15: exact doubles */
static const double TENS[16] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

/* float() of the field that starts at p and runs to the next comma or ``end``: digits with at most one "."
 * (at least one digit, at most 15) are read as an integer divided by a power of ten, both exact, which the
 * division rounds as float() does; anything else goes to float() itself. NULL with no error set when
 * float() refuses it (ValueError). */
static PyObject *watts_value(const char *p, const char *end)
{
    uint64_t value = 0;  /* (wraps past 19 digits: those go to float()) */
    const char *q = p, *dot = NULL;
    for (;;) {  /* the digits, then the digits after a first "." */
        for (; q < end; q++) {
            unsigned d = (unsigned char)*q - (unsigned)'0';
            if (d > 9)
                break;
            value = value * 10 + d;
        }
        if (q < end && *q == '.' && dot == NULL) {
            dot = q++;
            continue;
        }
        break;
    }
    Py_ssize_t count = (q - p) - (dot != NULL);
    if ((q < end && *q != ',') || count == 0 || count > 15)
        goto general;
    return PyFloat_FromDouble((double)(int64_t)value / TENS[dot == NULL ? 0 : q - 1 - dot]);
general:;
    const char *comma = memchr(p, ',', (size_t)(end - p));
    PyObject *field = PyBytes_FromStringAndSize(p, (comma == NULL ? end : comma) - p);
    if (field == NULL)
        return NULL;
    PyObject *out = PyFloat_FromString(field);
    Py_DECREF(field);
    if (out == NULL && PyErr_ExceptionMatches(PyExc_ValueError))
        PyErr_Clear();
    return out;
}

/* minute_epoch(text of the 16 bytes at p) as whole seconds into *out; 0 when it gives None (or not a float),
 * -1 on an error it raised */
static int minute_of(PyObject *minute_epoch, const char *p, int64_t *out)
{
    PyObject *text = PyUnicode_DecodeASCII(p, (Py_ssize_t)MINUTE, NULL);
    if (text == NULL)
        return -1;
    PyObject *epoch = PyObject_CallOneArg(minute_epoch, text);
    Py_DECREF(text);
    if (epoch == NULL)
        return -1;
    int ok = PyFloat_Check(epoch);
    if (ok)
        *out = (int64_t)PyFloat_AS_DOUBLE(epoch);  /* a whole number of seconds (numpy's astype(int64)) */
    Py_DECREF(epoch);
    return ok;
}

static PyObject *spl_records(PyObject *self, PyObject *args)
{
    Py_buffer view;
    PyObject *minute_epoch, *us = NULL, *watts = NULL, *out = NULL;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*O", &view, &minute_epoch))
        return NULL;
    const char *s = (const char *)view.buf;
    Py_ssize_t size = view.len, lines = 1;
    while (size > 0 && (s[size - 1] == '\n' || s[size - 1] == '\r'))
        size--;
    if (size == 0 || !clean(s, size, 1))
        goto none_or_error;
    for (const char *at = s; (at = memchr(at, '\n', (size_t)(s + size - at))) != NULL; at++)
        lines++;
    if ((us = PyTuple_New(lines)) == NULL || (watts = PyTuple_New(lines)) == NULL)
        goto none_or_error;

    const char *minute = NULL;  /* the minute of the run the last stamp is in */
    int64_t base = 0, last = INT64_MIN;
    int ordered = 1;
    Py_ssize_t pos = 0;
    for (Py_ssize_t i = 0; i < lines; i++) {
        const char *nl = memchr(s + pos, '\n', (size_t)(size - pos));
        Py_ssize_t end = nl == NULL ? size : nl - s, next = end + 1;
        if (nl != NULL && end > pos && s[end - 1] == '\r')
            end--;  /* "\r\n" */
        const unsigned char *stamp = (const unsigned char *)s + pos + 5;
        int same;  /* the minute is the last stamp's */
        if (end - pos < SPL_HEAD || memcmp(s + pos, "Time,", 5) != 0 || stamp[19] != '.' || stamp[23] != ','
            || !shaped_after(stamp, (const unsigned char *)minute, &same) || seconds(stamp) > 59)
            goto none_or_error;
        if (!same) {
            int got = minute_of(minute_epoch, (const char *)stamp, &base);
            if (got <= 0)
                goto none_or_error;
            minute = (const char *)stamp;
        }
        int64_t t = base * 1000000 + seconds(stamp) * 1000000 + millis(stamp) * 1000;
        ordered = ordered && t >= last;
        last = t;
        /* field 2 runs to the next comma on the line; watts from there to the comma after or the line end */
        const char *comma = s + pos + SPL_HEAD, *line_end = s + end;
        while (comma < line_end && *comma != ',')
            comma++;
        if (comma == line_end)
            goto none_or_error;
        PyObject *value = watts_value(comma + 1, line_end);
        if (value == NULL)
            goto none_or_error;
        PyTuple_SET_ITEM(watts, i, value);
        PyObject *when = PyLong_FromLongLong(t);
        if (when == NULL)
            goto none_or_error;
        PyTuple_SET_ITEM(us, i, when);
        pos = next;
    }
    out = Py_BuildValue("(OOO)", us, watts, ordered ? Py_True : Py_False);
    goto done;
none_or_error:
    if (!PyErr_Occurred())
        out = Py_NewRef(Py_None);
done:
    Py_XDECREF(us);
    Py_XDECREF(watts);
    PyBuffer_Release(&view);
    return out;
}

/* ------------------------------------------------------------------ ptd_logs.txt
 *
 * ptd_lines(data) -> (lines, minutes, unstamped, groups) or None. Lines are cut at "\n" ("\r\n" ends a
 * line before its "\r"; a final "\n" ends the last line); an empty ``data`` gives None. A line of 23
 * bytes or more that starts with the shape of a stamp is stamped: its stamp must have a "." at offset 19
 * and seconds 00-61, else None. ``minutes`` holds the text of the minute of each run of stamped lines with
 * the same minute (the caller reads them; a run index below points into it). The lines that hold a keyword
 * (KEYWORDS) are the ones returned: ``unstamped``, a list of (line number, bytes of the line) for those
 * without a stamp; ``groups``, for the stamped ones, a list of (bytes after the stamp, line numbers, run
 * indices, seconds * 1000 + milliseconds), one per distinct text after the stamp in the order they first
 * come, the last three as native int32 arrays (bytes) in line order.
 */
static const char *const KEYWORDS[] = {"WARNING:", "ERROR:", "Go with mark", "Completed test", "Uncertainty"};
#define KEYWORD_COUNT 5
#define SHORTEST_KEYWORD ((Py_ssize_t)6)
static signed char keyword_of[256];  /* first byte -> index in KEYWORDS + 1, or 0 */
static size_t keyword_len[KEYWORD_COUNT];

static void make_keywords(void)
{
    for (int k = 0; k < KEYWORD_COUNT; k++) {
        keyword_len[k] = strlen(KEYWORDS[k]);
        keyword_of[(unsigned char)KEYWORDS[k][0]] = (signed char)(k + 1);
    }
}

/* The keywords' first bytes (C, E, G, U, W) share these bits, which only A, Q and S share too: eight bytes
 * at a time, a word with no such byte is skipped. */
#define FIRST_MASK UINT64_C(0xE9E9E9E9E9E9E9E9)
#define FIRST_BITS UINT64_C(0x4141414141414141)
static inline int keyword_at(const char *s, Py_ssize_t i, Py_ssize_t to)
{
    int k = keyword_of[(unsigned char)s[i]] - 1;
    if (k < 0)
        return 0;
    size_t len = keyword_len[k];
    return (size_t)(to - i) >= len && s[i + 1] == KEYWORDS[k][1] && memcmp(s + i, KEYWORDS[k], len) == 0;
}

/* s[from:to] holds a keyword */
static int has_keyword_words(const char *s, Py_ssize_t from, Py_ssize_t to)
{
    Py_ssize_t i = from;
    for (; i + 8 <= to; i += 8) {
        uint64_t word;
        memcpy(&word, s + i, 8);
        uint64_t x = (word & FIRST_MASK) ^ FIRST_BITS;  /* a zero byte where a keyword may start */
        if (((x - ONES) & ~x & HIGHS) == 0)
            continue;
        for (Py_ssize_t j = i; j < i + 8; j++)
            if (keyword_at(s, j, to))
                return 1;
    }
    for (; i < to; i++)
        if (keyword_at(s, i, to))
            return 1;
    return 0;
}

#if HAVE_SSE2
/* the same, 16 bytes at a time (the last block ends at ``to``, its bytes already read left out) */
static int has_keyword_vectors(const char *s, Py_ssize_t from, Py_ssize_t to)
{
    if (to - from < 16)
        return has_keyword_words(s, from, to);
    const __m128i mask = _mm_set1_epi8((char)(FIRST_MASK & 0xFF)), bits = _mm_set1_epi8((char)(FIRST_BITS & 0xFF));
    for (Py_ssize_t i = from, done = 0; !done; i += 16) {
        unsigned skip = 0;
        if (i + 16 >= to) {
            skip = (unsigned)(i - (to - 16));
            i = to - 16;
            done = 1;
        }
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(v, mask), bits)) >> skip << skip;
        for (; m; m &= m - 1)
            if (keyword_at(s, i + LOWEST_BIT(m), to))
                return 1;
    }
    return 0;
}
#endif

static int has_keyword(const char *s, Py_ssize_t from, Py_ssize_t to)
{
#if HAVE_SSE2
    if (vectors)
        return has_keyword_vectors(s, from, to);
#endif
    return has_keyword_words(s, from, to);
}

typedef struct {
    Py_ssize_t start, len;  /* of the first line's text after its stamp */
    Py_ssize_t count, cap;
    int32_t *cols;  /* cap rows of (line number, run index, milli) */
} Group;

typedef struct {
    Group *groups;
    Py_ssize_t count, cap;
    PyObject *index;  /* bytes of a text after the stamp -> group index */
} Groups;

static void groups_free(Groups *g)
{
    for (Py_ssize_t i = 0; i < g->count; i++)
        PyMem_Free(g->groups[i].cols);
    PyMem_Free(g->groups);
    Py_XDECREF(g->index);
}

/* the index of the group of the text s[start:start+len], made when new; -1 on a memory error */
static Py_ssize_t group_of(Groups *g, const char *s, Py_ssize_t start, Py_ssize_t len, Py_ssize_t *recent)
{
    for (int r = 0; r < 2; r++) {  /* the texts of the last two keyword lines (WARNING / ERROR pairs) */
        Py_ssize_t k = recent[r];
        if (k >= 0 && g->groups[k].len == len && memcmp(s + g->groups[k].start, s + start, (size_t)len) == 0)
            return k;
    }
    PyObject *key = PyBytes_FromStringAndSize(s + start, len);
    if (key == NULL)
        return -1;
    PyObject *known = PyDict_GetItemWithError(g->index, key);
    Py_ssize_t k;
    if (known != NULL) {
        k = PyLong_AsSsize_t(known);
    } else if (PyErr_Occurred()) {
        k = -1;
    } else {
        if (g->count == g->cap) {
            Py_ssize_t cap = g->cap ? 2 * g->cap : 16;
            Group *more = PyMem_Realloc(g->groups, (size_t)cap * sizeof(Group));
            if (more == NULL) {
                Py_DECREF(key);
                PyErr_NoMemory();
                return -1;
            }
            g->groups = more;
            g->cap = cap;
        }
        k = g->count;
        PyObject *value = PyLong_FromSsize_t(k);
        if (value == NULL || PyDict_SetItem(g->index, key, value) < 0) {
            Py_XDECREF(value);
            Py_DECREF(key);
            return -1;
        }
        Py_DECREF(value);
        g->groups[k] = (Group){start, len, 0, 0, NULL};
        g->count++;
    }
    Py_DECREF(key);
    if (k >= 0 && recent[0] != k) {
        recent[1] = recent[0];
        recent[0] = k;
    }
    return k;
}

static int group_add(Group *group, Py_ssize_t number, Py_ssize_t run, int milli)
{
    if (group->count == group->cap) {
        Py_ssize_t cap = group->cap ? 2 * group->cap : 64;
        int32_t *more = PyMem_Realloc(group->cols, (size_t)cap * 3 * sizeof(int32_t));
        if (more == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        group->cols = more;
        group->cap = cap;
    }
    int32_t *row = group->cols + 3 * group->count++;
    row[0] = (int32_t)number;
    row[1] = (int32_t)run;
    row[2] = milli;
    return 0;
}

/* one column of a group as the bytes of an int32 array */
static PyObject *column(const Group *group, int c)
{
    PyObject *out = PyBytes_FromStringAndSize(NULL, group->count * (Py_ssize_t)sizeof(int32_t));
    if (out == NULL)
        return NULL;
    int32_t *to = (int32_t *)PyBytes_AS_STRING(out);
    for (Py_ssize_t i = 0; i < group->count; i++)
        to[i] = group->cols[3 * i + c];
    return out;
}

static PyObject *ptd_lines(PyObject *self, PyObject *args)
{
    Py_buffer view;
    PyObject *minutes = NULL, *unstamped = NULL, *grouped = NULL, *out = NULL;
    Groups g = {NULL, 0, 0, NULL};
    (void)self;
    if (!PyArg_ParseTuple(args, "y*", &view))
        return NULL;
    const char *s = (const char *)view.buf;
    Py_ssize_t size = view.len;
    if (size == 0 || !clean(s, size, 0))
        goto none_or_error;
    if ((minutes = PyList_New(0)) == NULL || (unstamped = PyList_New(0)) == NULL
        || (g.index = PyDict_New()) == NULL)
        goto none_or_error;

    const unsigned char *minute = NULL;  /* the minute of the last stamped line */
    Py_ssize_t run = -1, number = 0, pos = 0, recent[2] = {-1, -1};
    while (pos < size) {
        const char *nl = memchr(s + pos, '\n', (size_t)(size - pos));
        Py_ssize_t end = nl == NULL ? size : nl - s, next = end + 1;
        if (end > pos && s[end - 1] == '\r')
            end--;
        number++;
        const unsigned char *stamp = (const unsigned char *)s + pos;
        int same = 0;  /* the minute is the last stamped line's */
        int stamped = end - pos >= STAMP && shaped_after(stamp, minute, &same);
        if (stamped) {
            if (stamp[19] != '.' || seconds(stamp) > 61)
                goto none_or_error;  /* an impossible stamp, or one a line's text could not be rebuilt from */
            if (!same) {
                PyObject *text = PyUnicode_DecodeASCII((const char *)stamp, (Py_ssize_t)MINUTE, NULL);
                if (text == NULL || PyList_Append(minutes, text) < 0) {
                    Py_XDECREF(text);
                    goto none_or_error;
                }
                Py_DECREF(text);
                minute = stamp;
                run++;
            }
        }
        Py_ssize_t from = pos + (stamped ? STAMP : 0);
        /* (most keywords begin a line's message, after the stamp's ": ": that place is looked at first) */
        if (end - from >= SHORTEST_KEYWORD
            && (keyword_at(s, from + (stamped ? 2 : 0), end) || has_keyword(s, from, end))) {
            if (!stamped) {
                PyObject *line = Py_BuildValue("(ny#)", number, s + pos, end - pos);
                if (line == NULL || PyList_Append(unstamped, line) < 0) {
                    Py_XDECREF(line);
                    goto none_or_error;
                }
                Py_DECREF(line);
            } else {
                Py_ssize_t k = group_of(&g, s, from, end - from, recent);
                if (k < 0 || group_add(&g.groups[k], number, run, seconds(stamp) * 1000 + millis(stamp)) < 0)
                    goto none_or_error;
            }
        }
        pos = next;
    }
    if ((grouped = PyList_New(g.count)) == NULL)
        goto none_or_error;
    for (Py_ssize_t k = 0; k < g.count; k++) {
        Group *group = &g.groups[k];
        PyObject *a = column(group, 0), *b = column(group, 1), *c = column(group, 2);
        PyObject *item = (a && b && c) ? Py_BuildValue("(y#OOO)", s + group->start, group->len, a, b, c) : NULL;
        Py_XDECREF(a);
        Py_XDECREF(b);
        Py_XDECREF(c);
        if (item == NULL)
            goto none_or_error;
        PyList_SET_ITEM(grouped, k, item);
    }
    out = Py_BuildValue("(nOOO)", number, minutes, unstamped, grouped);
    goto done;
none_or_error:
    if (!PyErr_Occurred())
        out = Py_NewRef(Py_None);
done:
    Py_XDECREF(minutes);
    Py_XDECREF(unstamped);
    Py_XDECREF(grouped);
    groups_free(&g);
    PyBuffer_Release(&view);
    return out;
}

/* ------------------------------------------------------------------ a group's stamps against a window
 *
 * A group's columns as ptd_lines returns them (int32 bytes of minute-run indices and seconds * 1000 +
 * milliseconds) with the runs' UTC epochs (`bases`): the stamps' epochs are added in the order the
 * line-by-line reading adds them, (base + seconds) + milliseconds / 1000, then `offset`; so they are the
 * same doubles.
 */
typedef struct {
    Py_buffer runs, millis;
    double *bases;
    Py_ssize_t count, nbases;
} Columns;

static void columns_free(Columns *c)
{
    if (c->runs.obj != NULL)
        PyBuffer_Release(&c->runs);
    if (c->millis.obj != NULL)
        PyBuffer_Release(&c->millis);
    PyMem_Free(c->bases);
}

/* 0, or -1 with an exception: the columns must be int32 bytes of one length, every run index a base */
static int columns_open(Columns *c, PyObject *runs, PyObject *millis, PyObject *bases)
{
    memset(c, 0, sizeof(*c));
    if (PyObject_GetBuffer(runs, &c->runs, PyBUF_SIMPLE) < 0 || PyObject_GetBuffer(millis, &c->millis, PyBUF_SIMPLE) < 0)
        return -1;
    if (c->runs.len != c->millis.len || c->runs.len % (Py_ssize_t)sizeof(int32_t) != 0) {
        PyErr_SetString(PyExc_ValueError, "the columns must be int32 bytes of the same length");
        return -1;
    }
    c->count = c->runs.len / (Py_ssize_t)sizeof(int32_t);
    PyObject *seq = PySequence_Fast(bases, "bases must be a sequence of floats");
    if (seq == NULL)
        return -1;
    c->nbases = PySequence_Fast_GET_SIZE(seq);
    c->bases = PyMem_Malloc((size_t)(c->nbases ? c->nbases : 1) * sizeof(double));
    if (c->bases == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < c->nbases; i++) {
        c->bases[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
        if (c->bases[i] == -1.0 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    const int32_t *run = (const int32_t *)c->runs.buf, *milli = (const int32_t *)c->millis.buf;
    for (Py_ssize_t i = 0; i < c->count; i++) {
        if (run[i] < 0 || run[i] >= c->nbases || milli[i] < 0) {
            PyErr_SetString(PyExc_ValueError, "a run index without a base, or negative milliseconds");
            return -1;
        }
    }
    return 0;
}

static double epoch_at(const Columns *c, Py_ssize_t i, double offset)
{
    int32_t run = ((const int32_t *)c->runs.buf)[i], milli = ((const int32_t *)c->millis.buf)[i];
    double t = (c->bases[run] + (double)(milli / 1000)) + (double)(milli % 1000) / 1000.0;
    return t + offset;
}

/* epochs(runs, millis, bases, offset) -> list of the stamps' epochs plus offset */
static PyObject *epochs(PyObject *self, PyObject *args)
{
    PyObject *runs, *millis, *bases, *out = NULL;
    double offset;
    Columns c;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOd", &runs, &millis, &bases, &offset))
        return NULL;
    if (columns_open(&c, runs, millis, bases) == 0 && (out = PyList_New(c.count)) != NULL) {
        for (Py_ssize_t i = 0; i < c.count; i++) {
            PyObject *t = PyFloat_FromDouble(epoch_at(&c, i, offset));
            if (t == NULL) {
                Py_CLEAR(out);
                break;
            }
            PyList_SET_ITEM(out, i, t);
        }
    }
    columns_free(&c);
    return out;
}

/* window(runs, millis, bases, offset, lo, hi, keep_in, keep_out) -> (inside, outside): the lines whose
 * epoch t (plus offset) has lo < t < hi, and the others (a NaN bound: every line is outside); a side kept
 * is a list of (index, t), a side not kept is its count */
static PyObject *window(PyObject *self, PyObject *args)
{
    PyObject *runs, *millis, *bases, *side[2] = {NULL, NULL}, *out = NULL;
    double offset, lo, hi;
    int keep[2];
    Py_ssize_t count[2] = {0, 0};
    Columns c;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOdddpp", &runs, &millis, &bases, &offset, &lo, &hi, &keep[0], &keep[1]))
        return NULL;
    if (columns_open(&c, runs, millis, bases) < 0)
        goto done;
    for (int k = 0; k < 2; k++)
        if (keep[k] && (side[k] = PyList_New(0)) == NULL)
            goto done;
    for (Py_ssize_t i = 0; i < c.count; i++) {
        double t = epoch_at(&c, i, offset);
        int k = (lo < t && t < hi) ? 0 : 1;
        count[k]++;
        if (!keep[k])
            continue;
        PyObject *pair = Py_BuildValue("(nd)", i, t);
        if (pair == NULL || PyList_Append(side[k], pair) < 0) {
            Py_XDECREF(pair);
            goto done;
        }
        Py_DECREF(pair);
    }
    out = Py_BuildValue("(NN)", keep[0] ? Py_NewRef(side[0]) : PyLong_FromSsize_t(count[0]),
                        keep[1] ? Py_NewRef(side[1]) : PyLong_FromSsize_t(count[1]));
done:
    Py_XDECREF(side[0]);
    Py_XDECREF(side[1]);
    columns_free(&c);
    return out;
}

static PyMethodDef methods[] = {
    {"spl_records", spl_records, METH_VARARGS, "spl_records(body, minute_epoch) -> (us, watts, ordered) or None"},
    {"ptd_lines", ptd_lines, METH_VARARGS, "ptd_lines(data) -> (lines, minutes, unstamped, groups) or None"},
    {"epochs", epochs, METH_VARARGS, "epochs(runs, millis, bases, offset) -> the epochs of a group's stamps"},
    {"window", window, METH_VARARGS,
     "window(runs, millis, bases, offset, lo, hi, keep_in, keep_out) -> (inside, outside) of lo < t < hi"},
    {"use_avx2", use_avx2, METH_O, "use_avx2(on) -> whether the 32-byte form test is used from now on"},
    {"use_vectors", use_vectors, METH_O, "use_vectors(on) -> whether the 16-byte reading is used from now on"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "checker._power_scan",
                                    "The spl.txt and ptd_logs.txt readings in C (see checker.metrics.power and "
                                    "checker.metrics.ptd_read).", -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__power_scan(void)
{
    simd_init();
    make_masks();
    make_refused();
    make_keywords();
    return PyModule_Create(&module);
}
