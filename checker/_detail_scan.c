/* The log readers' fast paths, in C (optional: checker/loaders/compiled.py finds them; each stands for Python
 * code that gives the same answer, which runs where this is not built or MLPC_PURE_PYTHON is set):
 *   scan         the line walk of checker.loaders.loadgen_log.parse_detail_text, for the logs it takes whole;
 *   tail_ok      the test of a detail-log line's tail that reading a value alone relies on (_LINE_TAIL);
 *   entry_lines  the entry lines of a block of an accuracy log (checker.loaders.accuracy_entries._LINE_RE).
 * All three read only inside the text or bytes they are given and never raise on any input but for what a
 * callback raises or memory errors.
 *
 * scan(text, raw, duplicates, slow) walks the lines of ``text`` (a str) exactly as the Python walk does and
 * fills ``raw`` (key -> (text, start, last, number)) and ``duplicates`` (keys met again) in the same order;
 * a line the Python walk hands to ``_slow_line`` (flagged as an error or warning, no closing quote after
 * its key, a backslash in its key) is handed to ``slow(payload, number)`` at the same point of the walk.
 * It returns (lines, marker lines), or None, having changed nothing, when the text is not one it takes:
 * a str of wider characters than one byte, an empty text, or any line that is neither empty nor a
 * ``:::MLLOG {"key": "`` line (a foreign line, a marker further in, a blank line of spaces): the Python
 * walk then reads the whole log.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

static const char PREFIX[] = ":::MLLOG {\"key\": \"";   /* MARKER + " " + '{"key": "' */
#define PREFIX_LEN ((Py_ssize_t)(sizeof(PREFIX) - 1))
#define HEAD ((Py_ssize_t)9)                              /* len(":::MLLOG ") */
#define WINDOW ((Py_ssize_t)300)                          /* flags sit in the last 300 characters */

/* index of ``needle`` in s[from:to], or -1 */
static Py_ssize_t find_in(const char *s, Py_ssize_t from, Py_ssize_t to, const char *needle, Py_ssize_t n)
{
    if (n == 0)
        return from <= to ? from : -1;
    for (Py_ssize_t i = from; i + n <= to; i++) {
        const char *hit = memchr(s + i, needle[0], (size_t)(to - n + 1 - i));
        if (hit == NULL)
            return -1;
        i = hit - s;
        if (memcmp(hit, needle, (size_t)n) == 0)
            return i;
    }
    return -1;
}

static Py_ssize_t line_end(const char *s, Py_ssize_t pos, Py_ssize_t size)
{
    const char *nl = memchr(s + pos, '\n', (size_t)(size - pos));
    return nl == NULL ? size : nl - s;
}

/* every line empty or a marker line (one that starts with PREFIX) */
static int takes(const char *s, Py_ssize_t size)
{
    Py_ssize_t pos = 0;
    while (pos < size) {
        Py_ssize_t end = line_end(s, pos, size);
        if (end > pos && (end - pos < PREFIX_LEN || memcmp(s + pos, PREFIX, (size_t)PREFIX_LEN) != 0))
            return 0;
        pos = end + 1;
    }
    return 1;
}

/* what str.rstrip() removes from a line end, "\n" excepted, among one-byte characters */
static int trailing_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == 0x0b || c == 0x0c || (c >= 0x1c && c <= 0x1f) || c == 0x85
           || c == 0xa0;
}

static PyObject *entry(PyObject *text, Py_ssize_t start, Py_ssize_t last, Py_ssize_t number)
{
    PyObject *a = PyLong_FromSsize_t(start), *b = PyLong_FromSsize_t(last), *c = PyLong_FromSsize_t(number);
    PyObject *out = (a && b && c) ? PyTuple_Pack(4, text, a, b, c) : NULL;
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(c);
    return out;
}

static PyObject *scan(PyObject *self, PyObject *args)
{
    PyObject *text, *raw, *duplicates, *slow;
    (void)self;
    if (!PyArg_ParseTuple(args, "UO!O!O", &text, &PyDict_Type, &raw, &PyList_Type, &duplicates, &slow))
        return NULL;
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0)
        return NULL;
#endif
    if (PyUnicode_KIND(text) != PyUnicode_1BYTE_KIND)
        Py_RETURN_NONE;
    const char *s = (const char *)PyUnicode_1BYTE_DATA(text);
    Py_ssize_t size = PyUnicode_GET_LENGTH(text);
    if (size == 0 || !takes(s, size))
        Py_RETURN_NONE;

    Py_ssize_t pos = 0, number = 0, markers = 0;
    while (pos < size) {
        Py_ssize_t end = line_end(s, pos, size);
        number++;
        if (end > pos) {  /* (takes(): a marker line) */
            markers++;
            Py_ssize_t start = pos + HEAD, key_at = pos + PREFIX_LEN, last = end;
            const char *quote = memchr(s + key_at, '"', (size_t)(end - key_at));
            Py_ssize_t close = quote == NULL ? -1 : quote - s;
            int plain = close > key_at && memchr(s + key_at, '\\', (size_t)(close - key_at)) == NULL;
            if (s[last - 1] != '}') {  /* (the official parser strips the line: a CRLF log's lines end in "\r") */
                while (last > pos && trailing_space((unsigned char)s[last - 1]))
                    last--;
                plain = plain && s[last - 1] == '}';
            }
            if (plain) {
                Py_ssize_t window = last - WINDOW < start ? start : last - WINDOW;
                if (find_in(s, window, last, "\": true", 7) >= 0
                    && (find_in(s, window, last, "\"is_error\": true", 16) >= 0
                        || find_in(s, window, last, "\"is_warning\": true", 18) >= 0))
                    plain = 0;
            }
            if (!plain) {
                PyObject *payload = PyUnicode_Substring(text, start, last);
                if (payload == NULL)
                    return NULL;
                PyObject *done = PyObject_CallFunction(slow, "On", payload, number);
                Py_DECREF(payload);
                if (done == NULL)
                    return NULL;
                Py_DECREF(done);
            } else {
                PyObject *key = PyUnicode_Substring(text, key_at, close);
                if (key == NULL)
                    return NULL;
                int known = PyDict_Contains(raw, key);
                int failed = known < 0;
                if (known == 1) {
                    failed = PyList_Append(duplicates, key) < 0;
                } else if (known == 0) {
                    PyObject *value = entry(text, start, last, number);
                    failed = value == NULL || PyDict_SetItem(raw, key, value) < 0;
                    Py_XDECREF(value);
                }
                Py_DECREF(key);
                if (failed)
                    return NULL;
            }
        }
        pos = end + 1;
    }
    return Py_BuildValue("(nn)", number, markers);
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
    const void *data;
    int kind;
    Py_ssize_t at, end;
} Cursor;

static Py_UCS4 peek(const Cursor *c)
{
    return c->at < c->end ? PyUnicode_READ(c->kind, c->data, c->at) : (Py_UCS4)-1;
}

static int literal(Cursor *c, const char *word)
{
    for (; *word; word++, c->at++)
        if (peek(c) != (Py_UCS4)(unsigned char)*word)
            return 0;
    return 1;
}

static int digits(Cursor *c)  /* [0-9]+ */
{
    Py_ssize_t from = c->at;
    while (peek(c) >= '0' && peek(c) <= '9')
        c->at++;
    return c->at > from;
}

static int integer(Cursor *c)  /* -?(?:0|[1-9][0-9]*) */
{
    if (peek(c) == '-')
        c->at++;
    if (peek(c) == '0') {
        c->at++;
        return 1;
    }
    if (peek(c) < '1' || peek(c) > '9')
        return 0;
    return digits(c);
}

static int number(Cursor *c)  /* integer(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)? */
{
    if (!integer(c))
        return 0;
    if (peek(c) == '.') {
        c->at++;
        if (!digits(c))
            return 0;
    }
    if (peek(c) == 'e' || peek(c) == 'E') {
        c->at++;
        if (peek(c) == '-' || peek(c) == '+')
            c->at++;
        if (!digits(c))
            return 0;
    }
    return 1;
}

static int hex(Py_UCS4 ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

static int string(Cursor *c)  /* a JSON string: no control characters, only JSON's escapes */
{
    if (peek(c) != '"')
        return 0;
    c->at++;
    for (;;) {
        Py_UCS4 ch = peek(c);
        if (ch == (Py_UCS4)-1 || ch < 0x20)
            return 0;
        c->at++;
        if (ch == '"')
            return 1;
        if (ch == '\\') {
            Py_UCS4 e = peek(c);
            c->at++;
            if (e == 'u') {
                for (int i = 0; i < 4; i++, c->at++)
                    if (!hex(peek(c)))
                        return 0;
            } else if (!(e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r'
                         || e == 't')) {
                return 0;
            }
        }
    }
}

static int boolean(Cursor *c)
{
    return peek(c) == 't' ? literal(c, "true") : literal(c, "false");
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
    Cursor c = {PyUnicode_DATA(text), PyUnicode_KIND(text), stop, end};
    int ok = literal(&c, ", \"time_ms\": ") && number(&c) && literal(&c, ", \"namespace\": ") && string(&c)
             && literal(&c, ", \"event_type\": ") && string(&c) && literal(&c, ", \"metadata\": {\"is_error\": ")
             && boolean(&c) && literal(&c, ", \"is_warning\": ") && boolean(&c) && literal(&c, ", \"file\": ")
             && string(&c) && literal(&c, ", \"line_no\": ") && integer(&c) && literal(&c, ", \"pid\": ")
             && integer(&c) && literal(&c, ", \"tid\": ") && integer(&c) && literal(&c, "}}") && c.at == c.end;
    return PyBool_FromLong(ok);
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
typedef struct {
    const char *s;
    Py_ssize_t at, end;
} Bytes;

static int b_literal(Bytes *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->at) < n || memcmp(c->s + c->at, word, n) != 0)
        return 0;
    c->at += (Py_ssize_t)n;
    return 1;
}

static int b_digit(const Bytes *c)
{
    return c->at < c->end && c->s[c->at] >= '0' && c->s[c->at] <= '9';
}

static int b_natural(Bytes *c)  /* 0|[1-9][0-9]* */
{
    if (!b_digit(c))
        return 0;
    if (c->s[c->at++] == '0')
        return 1;
    while (b_digit(c))
        c->at++;
    return 1;
}

static int b_hex(Bytes *c)  /* "[0-9A-Fa-f]*" */
{
    if (!b_literal(c, "\""))
        return 0;
    while (c->at < c->end) {
        char ch = c->s[c->at];
        if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F')))
            break;
        c->at++;
    }
    return b_literal(c, "\"");
}

/* parse one entry line; on success fill the spans and return 1 */
static int entry_line(Bytes *c, Py_ssize_t span[8])
{
    if (!b_literal(c, "{ \"seq_id\" : ") || !b_natural(c) || !b_literal(c, ", \"qsl_idx\" : "))
        return 0;
    span[0] = c->at;
    if (!b_natural(c))
        return 0;
    span[1] = c->at;
    if (!b_literal(c, ", \"data\" : "))
        return 0;
    span[2] = c->at + 1;
    if (!b_hex(c))
        return 0;
    span[3] = c->at - 1;
    span[4] = span[5] = span[6] = span[7] = -1;
    if (b_literal(c, ", \"token_data\" : ")) {
        span[4] = c->at + 1;
        if (!b_hex(c))
            return 0;
        span[5] = c->at - 1;
    }
    if (b_literal(c, ", \"token_count\" : ")) {
        span[6] = c->at;
        if (c->at < c->end && c->s[c->at] == '-')
            c->at++;
        if (!b_natural(c))
            return 0;
        span[7] = c->at;
    }
    if (!b_literal(c, " }"))
        return 0;
    if (c->at < c->end && c->s[c->at] == ',')
        c->at++;
    return c->at == c->end;
}

static PyObject *number_at(const char *s, Py_ssize_t from, Py_ssize_t to)
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
        if (entry_line(&c, span) && ((span[3] - span[2]) & 1) == 0) {
            PyObject *item = row(s, span);
            if (item == NULL || PyList_Append(rows, item) < 0) {
                Py_XDECREF(item);
                goto done;
            }
            Py_DECREF(item);
            fresh = 1;
        } else {
            PyObject *event = Py_BuildValue("(nny#O)", PyList_GET_SIZE(rows), number, s + pos, stop - pos,
                                            fresh ? Py_True : Py_False);
            if (event == NULL || PyList_Append(events, event) < 0) {
                Py_XDECREF(event);
                goto done;
            }
            Py_DECREF(event);
            fresh = 0;
        }
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
    {"scan", scan, METH_VARARGS, "scan(text, raw, duplicates, slow) -> (lines, markers) or None"},
    {"entry_lines", entry_lines, METH_VARARGS, "entry_lines(buf, end) -> (rows, events, lines, fresh)"},
    {"tail_ok", tail_ok, METH_VARARGS, "tail_ok(text, stop, end) -> whether text[stop:end] is LoadGen's line tail"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "checker._detail_scan",
                                    "The detail-log line walk and line-tail test in C (see checker.loaders.loadgen_log).", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__detail_scan(void)
{
    return PyModule_Create(&module);
}
