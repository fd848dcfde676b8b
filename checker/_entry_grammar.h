/* The entry-line grammar of an accuracy log, shared by checker/_detail_scan.c (short-line blocks) and
 * checker/_accuracy_scan.c (long-line blocks): a line that is exactly
 *   { "seq_id" : N, "qsl_idx" : N, "data" : "HEX"[, "token_data" : "HEX"][, "token_count" : [-]N] }[,]
 * read left to right without going back, as checker.loaders.accuracy_entries._LINE_RE reads it.
 * Everything here is static inline: each extension compiles the functions it uses.
 */
#ifndef MLPC_ENTRY_GRAMMAR_H
#define MLPC_ENTRY_GRAMMAR_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

typedef struct {
    const char *s;
    Py_ssize_t at, end;
} Bytes;

static inline int b_literal(Bytes *c, const char *word, size_t n)
{
    if ((size_t)(c->end - c->at) < n || memcmp(c->s + c->at, word, n) != 0)
        return 0;
    c->at += (Py_ssize_t)n;
    return 1;
}
#define LIT(c, w) b_literal((c), (w), sizeof(w) - 1)

static inline int b_digit(const Bytes *c)
{
    return c->at < c->end && c->s[c->at] >= '0' && c->s[c->at] <= '9';
}

static inline int b_natural(Bytes *c)  /* 0|[1-9][0-9]* */
{
    if (!b_digit(c))
        return 0;
    if (c->s[c->at++] == '0')
        return 1;
    while (b_digit(c))
        c->at++;
    return 1;
}

static inline int is_hex_digit(char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

static inline void b_hex_digits(Bytes *c)  /* [0-9A-Fa-f]* */
{
    while (c->at < c->end && is_hex_digit(c->s[c->at]))
        c->at++;
}

static inline int b_hex(Bytes *c)  /* "[0-9A-Fa-f]*" */
{
    if (!LIT(c, "\""))
        return 0;
    b_hex_digits(c);
    return LIT(c, "\"");
}

/* the head of an entry line, up to the data's opening quote: spans of qsl_idx; 0 when it is not one */
static inline int entry_head(Bytes *c, Py_ssize_t span[2])
{
    if (!LIT(c, "{ \"seq_id\" : ") || !b_natural(c) || !LIT(c, ", \"qsl_idx\" : "))
        return 0;
    span[0] = c->at;
    if (!b_natural(c))
        return 0;
    span[1] = c->at;
    return LIT(c, ", \"data\" : \"");
}

/* what follows the data's closing quote to the line's end: spans of token_data's digits and of token_count
   (-1 when absent); 0 when it is not the entry's tail */
static inline int entry_tail(Bytes *c, Py_ssize_t span[4])
{
    span[0] = span[1] = span[2] = span[3] = -1;
    if (LIT(c, ", \"token_data\" : ")) {
        span[0] = c->at + 1;
        if (!b_hex(c))
            return 0;
        span[1] = c->at - 1;
    }
    if (LIT(c, ", \"token_count\" : ")) {
        span[2] = c->at;
        if (c->at < c->end && c->s[c->at] == '-')
            c->at++;
        if (!b_natural(c))
            return 0;
        span[3] = c->at;
    }
    if (!LIT(c, " }"))
        return 0;
    if (c->at < c->end && c->s[c->at] == ',')
        c->at++;
    return c->at == c->end;
}

/* int(s[from:to]) for a run of digits (with a sign) */
static inline PyObject *number_at(const char *s, Py_ssize_t from, Py_ssize_t to)
{
    char small[32];
    if (to - from < (Py_ssize_t)sizeof(small)) {
        memcpy(small, s + from, (size_t)(to - from));
        small[to - from] = '\0';
        return PyLong_FromString(small, NULL, 10);
    }
    PyObject *text = PyUnicode_FromStringAndSize(s + from, to - from);
    if (text == NULL)
        return NULL;
    PyObject *out = PyLong_FromUnicodeObject(text, 10);
    Py_DECREF(text);
    return out;
}

/* a line of a block that is not a row, for the careful reading in Python: (rows before it, its number from 1,
   its bytes, whether a row came since the previous such line) appended to ``events``; -1 on a memory error */
static inline int add_event(PyObject *events, PyObject *rows, Py_ssize_t number, const char *line, Py_ssize_t len,
                            int fresh)
{
    PyObject *event = Py_BuildValue("(nny#O)", PyList_GET_SIZE(rows), number, line, len, fresh ? Py_True : Py_False);
    if (event == NULL)
        return -1;
    int failed = PyList_Append(events, event) < 0;
    Py_DECREF(event);
    return failed ? -1 : 0;
}

/* what one line of a block became: ``item`` (a new reference, which this takes) appended to ``rows``; or, where
   ``item`` is NULL (the line is not a row), the line appended to ``events`` (add_event). ``*fresh``: whether a row
   came since the last event. -1 on a memory error */
static inline int add_line(PyObject *rows, PyObject *events, PyObject *item, Py_ssize_t number, const char *line,
                           Py_ssize_t len, int *fresh)
{
    if (item != NULL) {
        int failed = PyList_Append(rows, item) < 0;
        Py_DECREF(item);
        *fresh = 1;
        return failed ? -1 : 0;
    }
    if (add_event(events, rows, number, line, len, *fresh) < 0)
        return -1;
    *fresh = 0;
    return 0;
}

#endif
