/* The JSON readers' fast path, in C (optional: checker/loaders/compiled.py finds it; the Python code it stands
 * for runs where it is not built or MLPC_PURE_PYTHON is set):
 *   shape  what checker.loaders.json_keys needs to know of a JSON text before it is decoded: whether no object
 *          of it can hold a key twice (then json.loads alone gives the value and the duplicate keys are none)
 *          and how deep its brackets nest.
 * It reads only inside the str it is given and never raises on any input but for memory errors.
 *
 * shape(text) -> (unique, depth) for an all-ASCII str, None for any other str. The walk goes over the text as
 * a JSON reader does: a string runs from a quote to the next quote not escaped by a backslash; a string is a
 * key when the next character after it that is not JSON whitespace is a colon; '{' and '[' outside strings
 * open a level, '}' and ']' close the innermost one. ``depth`` is the deepest level met (0: no bracket
 * outside a string). ``unique`` is True when every object's keys are written with different characters and
 * none holds a backslash (an escape could spell one key in two ways): then no object holds a key twice, as
 * json.loads would read them. Whatever the text (invalid JSON included) the answer is one of these; for a
 * text json.loads does not take, the caller reports what json.loads says.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include "_quote_scan.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct {
    Py_ssize_t start, len;  /* a key's characters (between its quotes) */
} Key;

typedef struct {
    Py_ssize_t first;  /* index in keys of the level's first key */
    int object;
} Level;

typedef struct {
    void *items;
    Py_ssize_t count, room, size;  /* items used, items allocated, bytes per item */
} Stack;

static int push(Stack *st, const void *item)
{
    if (st->count == st->room) {
        Py_ssize_t room = st->room ? st->room * 2 : 64;
        void *more = PyMem_Realloc(st->items, (size_t)(room * st->size));
        if (more == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        st->items = more;
        st->room = room;
    }
    memcpy((char *)st->items + st->count * st->size, item, (size_t)st->size);
    st->count++;
    return 0;
}

static uint64_t key_hash(const char *s, Py_ssize_t n)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (Py_ssize_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * UINT64_C(1099511628211);
    return h;
}

/* whether two of keys[0:n] (spans of s) have the same characters: pairwise for a few, else with a hash table;
 * -1 on a memory error */
static int repeated(const char *s, const Key *keys, Py_ssize_t n)
{
    if (n < 2)
        return 0;
    if (n <= 16) {
        for (Py_ssize_t i = 1; i < n; i++)
            for (Py_ssize_t j = 0; j < i; j++)
                if (keys[i].len == keys[j].len && memcmp(s + keys[i].start, s + keys[j].start, (size_t)keys[i].len) == 0)
                    return 1;
        return 0;
    }
    Py_ssize_t slots = 32;
    while (slots < 2 * n)
        slots *= 2;
    Py_ssize_t *table = PyMem_Malloc((size_t)slots * sizeof(Py_ssize_t));
    if (table == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < slots; i++)
        table[i] = -1;
    int found = 0;
    for (Py_ssize_t i = 0; i < n && !found; i++) {
        Py_ssize_t slot = (Py_ssize_t)(key_hash(s + keys[i].start, keys[i].len) & (uint64_t)(slots - 1));
        while (table[slot] >= 0) {
            const Key *other = &keys[table[slot]];
            if (other->len == keys[i].len && memcmp(s + other->start, s + keys[i].start, (size_t)keys[i].len) == 0) {
                found = 1;
                break;
            }
            slot = (slot + 1) & (slots - 1);
        }
        table[slot] = i;
    }
    PyMem_Free(table);
    return found;
}

static int is_space(char c)  /* JSON whitespace */
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* the characters the walk stops at outside strings */
static const unsigned char STOP[256] = {['"'] = 1, ['{'] = 1, ['}'] = 1, ['['] = 1, [']'] = 1};

/* the first i in [from, to) with s[i] one of STOP, or to: 16 bytes at a time with SSE2 ('[' and '{', ']' and
 * '}' differ in the bit 0x20 alone: with that bit set, each pair is one comparison, and no other byte is either) */
static inline Py_ssize_t next_stop(const char *s, Py_ssize_t i, Py_ssize_t to)
{
#if defined(__SSE2__) && defined(__GNUC__)
    const __m128i quote = _mm_set1_epi8('"'), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}');
    const __m128i bit = _mm_set1_epi8(0x20);
    while (to - i >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i w = _mm_or_si128(v, bit);
        __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, quote),
                                   _mm_or_si128(_mm_cmpeq_epi8(w, open), _mm_cmpeq_epi8(w, close)));
        unsigned m = (unsigned)_mm_movemask_epi8(hit);
        if (m)
            return i + __builtin_ctz(m);
        i += 16;
    }
#endif
    while (i < to && !STOP[(unsigned char)s[i]])
        i++;
    return i;
}

static PyObject *shape(PyObject *self, PyObject *args)
{
    PyObject *text;
    (void)self;
    if (!PyArg_ParseTuple(args, "U", &text))
        return NULL;
    if (!PyUnicode_IS_ASCII(text))
        Py_RETURN_NONE;
    const char *s = (const char *)PyUnicode_1BYTE_DATA(text);
    Py_ssize_t size = PyUnicode_GET_LENGTH(text), depth = 0;
    Stack levels = {NULL, 0, 0, sizeof(Level)}, keys = {NULL, 0, 0, sizeof(Key)};
    int unique = 1, failed = 0;
    for (Py_ssize_t i = 0; i < size && unique && !failed; i++) {
        i = next_stop(s, i, size);
        if (i >= size)
            break;
        char c = s[i];
        if (c == '"') {
            Py_ssize_t start = i + 1, j = quote_or_backslash(s, start, size);
            int escaped = 0;
            while (j < size && s[j] == '\\') {
                escaped = 1;
                j = quote_or_backslash(s, j + 2, size);  /* (past the escaped character, a quote included) */
            }
            if (j >= size)
                break;  /* (an unterminated string: json.loads says so) */
            i = j;
            Py_ssize_t k = j + 1;
            while (k < size && is_space(s[k]))
                k++;
            if (k < size && s[k] == ':' && levels.count > 0 && ((Level *)levels.items)[levels.count - 1].object) {
                if (escaped) {
                    unique = 0;
                    break;
                }
                Key key = {start, j - start};
                failed = push(&keys, &key) < 0;
            }
        } else if (c == '{' || c == '[') {
            Level level = {keys.count, c == '{'};
            failed = push(&levels, &level) < 0;
            if (levels.count > depth)
                depth = levels.count;
        } else if (c == '}' || c == ']') {
            if (levels.count == 0)
                continue;  /* (unbalanced: json.loads says so) */
            Level *level = &((Level *)levels.items)[levels.count - 1];
            if (level->object) {
                int twice = repeated(s, (Key *)keys.items + level->first, keys.count - level->first);
                failed = twice < 0;
                unique = twice == 0;
                keys.count = level->first;
            }
            levels.count--;
        }
    }
    /* an object left open (invalid JSON) is looked at too: the answer stays one of the two for any text */
    for (Py_ssize_t l = levels.count - 1; l >= 0 && unique && !failed; l--) {
        Level *level = &((Level *)levels.items)[l];
        if (level->object) {
            int twice = repeated(s, (Key *)keys.items + level->first, keys.count - level->first);
            failed = twice < 0;
            unique = twice == 0;
            keys.count = level->first;
        }
    }
    PyMem_Free(levels.items);
    PyMem_Free(keys.items);
    if (failed)
        return NULL;
    return Py_BuildValue("(On)", unique ? Py_True : Py_False, depth);
}

static PyMethodDef methods[] = {
    {"shape", shape, METH_VARARGS, "shape(text) -> (unique keys, bracket depth) of an ASCII JSON text, or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "checker._json_scan",
                                    "The JSON readers' fast path (see checker/loaders/json_keys.py).", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__json_scan(void)
{
    return PyModule_Create(&module);
}
