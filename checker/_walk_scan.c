/* The walk of a submitter folder, in C (optional: checker/loaders/compiled.py finds it; it stands for the
 * scandir loop of checker.loaders.tree._walk_submitter, which runs where this is not built, where
 * MLPC_PURE_PYTHON is set, and wherever this declines):
 *
 *   walk(path, rel, limit) -> (known, hidden, spaced, pycache, empty, large) or None
 *
 * `path`: the folder's path (bytes); `rel`: its path relative to the submission root (str), which begins every
 * path returned. Folders are visited as the Python walk visits them: from a stack, each folder's entries
 * sorted by name, its sub-folders pushed in that order. Returned: `known`, {folder: ({file: size}, frozenset of
 * sub-folders)} for every folder; the paths of names starting with "." and of names holding a space; the
 * folders named __pycache__ that are not empty; the empty folders; and (path, size) of every file larger than
 * `limit`, in the order the walk meets them.
 *
 * None where the Python walk has more to say or would sort differently: a symbolic link; a fifo, socket or
 * device; a folder it cannot open or read, or an entry it cannot stat; a name that is not UTF-8 (Python sorts
 * its surrogate escapes after every other character, which sorting the bytes would not). POSIX only: elsewhere
 * walk() always returns None.
 *
 * A folder is opened with openat() below the walked one. On Linux its entries come from the getdents64
 * system call on that descriptor (two calls for most folders: the entries, then the end); elsewhere (and
 * where MLPC_WALK_READDIR is defined) from fdopendir/readdir, which on Linux adds an fstat and two fcntl
 * calls per folder. Either way the same entries, "." and ".." left out, each of unknown type stat'ed.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#if defined(__unix__) || defined(__APPLE__)
#define HAVE_WALK 1
#if defined(__linux__)
#include <stdint.h>
#include <sys/syscall.h>
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif
#else
#define HAVE_WALK 0
#endif

#if HAVE_WALK

#define DECLINE 1 /* the Python walk takes over */

typedef struct {
    char *name;
    int kind; /* 'f' plain file, 'd' folder, 'x' anything else */
    long long size;
} Entry;

typedef struct {
    PyObject *rel; /* str: the folder's path from the submission root */
    char *sub;     /* its path below the walked folder ("" for the folder itself) */
} Pending;

static int by_name(const void *a, const void *b)
{
    return strcmp(((const Entry *)a)->name, ((const Entry *)b)->name);
}

static void entries_free(Entry *e, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        free(e[i].name);
    free(e);
}

/* Adds the entry `name` (of type `type`, a DT_* value, in the folder open as `fd`) to e[0:*n] (room for
 * *cap): stat'ed where the type does not say what it is or it is a file. 0, or an errno value (ENOMEM: out of
 * memory; else: decline). "." and ".." are left out. */
static int add_entry(int fd, const char *name, unsigned char type, Entry **e, Py_ssize_t *n, Py_ssize_t *cap)
{
    if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
        return 0;
    if (*n == *cap) {
        Entry *more = realloc(*e, (size_t)(2 * *cap) * sizeof(Entry));
        if (more == NULL)
            return ENOMEM;
        *e = more;
        *cap *= 2;
    }
    Entry *it = &(*e)[*n];
    it->size = 0;
    it->kind = type == DT_DIR ? 'd' : type == DT_REG ? 'f' : 'x';
    if (type == DT_REG || type == DT_UNKNOWN) {
        struct stat st;
        if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            return errno ? errno : EIO;
        it->kind = S_ISREG(st.st_mode) ? 'f' : S_ISDIR(st.st_mode) ? 'd' : 'x';
        it->size = (long long)st.st_size;
    }
    if ((it->name = strdup(name)) == NULL)
        return ENOMEM;
    (*n)++;
    return 0;
}

#if defined(__linux__) && defined(SYS_getdents64) && !defined(MLPC_WALK_READDIR)
/* On Linux the entries come from the getdents64 system call on the folder's descriptor: the same entries
 * readdir gives (it calls the same), without the fstat and the two fcntl calls fdopendir makes per folder. */
#define DIRENT_ROOM 32768 /* the buffer glibc's readdir uses for most folders */

struct dirent64_record { /* the kernel's linux_dirent64 */
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* the entries of the folder open as `fd` added to e[0:*n] (add_entry), and the folder closed: 0 or an errno value */
static int read_entries(int fd, char *room, Entry **e, Py_ssize_t *n, Py_ssize_t *cap)
{
    int failed = 0;
    for (;;) {
        long got = syscall(SYS_getdents64, fd, room, (size_t)DIRENT_ROOM);
        if (got <= 0) {
            if (got < 0)
                failed = errno ? errno : EIO;
            break;
        }
        for (long at = 0; at < got && !failed;) {
            const struct dirent64_record *d = (const struct dirent64_record *)(room + at);
            failed = add_entry(fd, d->d_name, d->d_type, e, n, cap);
            at += d->d_reclen;
        }
        if (failed)
            break;
    }
    close(fd);
    return failed;
}
#else
#define DIRENT_ROOM 0

static int read_entries(int fd, char *room, Entry **e, Py_ssize_t *n, Py_ssize_t *cap)
{
    (void)room;
    DIR *dir = fdopendir(fd);
    if (dir == NULL) {
        int failed = errno ? errno : EIO;
        close(fd);
        return failed;
    }
    int failed = 0;
    for (;;) {
        errno = 0;
        struct dirent *d = readdir(dir);
        if (d == NULL) {
            failed = errno;
            break;
        }
        if ((failed = add_entry(dirfd(dir), d->d_name, d->d_type, e, n, cap)) != 0)
            break;
    }
    closedir(dir); /* (closes fd) */
    return failed;
}
#endif

/* The entries of folder `sub` below `top` (sorted by name, each stat'ed where the folder's listing does not
 * say what it is or it is a file; `room`: DIRENT_ROOM bytes for the listing): their number, or -1 with errno
 * set (ENOMEM: out of memory; else: decline). */
static Py_ssize_t read_folder(int top, const char *sub, char *room, Entry **out)
{
    int fd = openat(top, *sub ? sub : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    Py_ssize_t n = 0, cap = 16;
    Entry *e = malloc((size_t)cap * sizeof(Entry));
    int failed = ENOMEM;
    if (e != NULL)
        failed = read_entries(fd, room, &e, &n, &cap); /* (closes fd) */
    else
        close(fd);
    if (failed) {
        entries_free(e, n);
        errno = failed;
        return -1;
    }
    qsort(e, (size_t)n, sizeof(Entry), by_name);
    *out = e;
    return n;
}

static int append_new(PyObject *list, PyObject *item)
{
    if (item == NULL)
        return -1;
    int r = PyList_Append(list, item);
    Py_DECREF(item);
    return r;
}

static char *sub_path(const char *sub, const char *name)
{
    size_t a = strlen(sub), b = strlen(name);
    char *out = malloc(a + b + 2);
    if (out == NULL)
        return NULL;
    if (a) {
        memcpy(out, sub, a);
        out[a++] = '/';
    }
    memcpy(out + a, name, b + 1);
    return out;
}

typedef struct {
    PyObject *known, *hidden, *spaced, *pycache, *empty, *large;
    Pending *stack;
    Py_ssize_t depth, cap;
    long long limit;
    int top;
    char *room; /* DIRENT_ROOM bytes for a folder's listing (NULL where it is 0) */
} Walk;

static int push(Walk *w, PyObject *rel, char *sub)
{
    if (w->depth == w->cap) {
        Py_ssize_t cap = w->cap ? 2 * w->cap : 32;
        Pending *more = realloc(w->stack, (size_t)cap * sizeof(Pending));
        if (more == NULL)
            return -1;
        w->stack = more;
        w->cap = cap;
    }
    w->stack[w->depth].rel = rel;
    w->stack[w->depth].sub = sub;
    w->depth++;
    return 0;
}

/* One folder (its rel and sub are the walk's, released here): 0, DECLINE, or -1 with an exception. */
static int visit(Walk *w, PyObject *rel, char *sub)
{
    Entry *e = NULL;
    Py_ssize_t n = read_folder(w->top, sub, w->room, &e);
    int result = -1;
    PyObject *files = NULL, *dirs = NULL, *entry = NULL;
    if (n < 0) {
        if (errno == ENOMEM)
            PyErr_NoMemory();
        else
            result = DECLINE;
        e = NULL;
        n = 0;
        goto done;
    }
    if ((files = PyDict_New()) == NULL || (dirs = PyList_New(0)) == NULL)
        goto done;
    if (n == 0) {
        if (PyList_Append(w->empty, rel) < 0)
            goto done;
    } else {
        const char *text = PyUnicode_AsUTF8(rel), *base;
        if (text == NULL)
            goto done;
        base = strrchr(text, '/');
        if (strcmp(base ? base + 1 : text, "__pycache__") == 0 && PyList_Append(w->pycache, rel) < 0)
            goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Entry *it = &e[i];
        if (it->kind == 'x') {
            result = DECLINE;
            goto done;
        }
        PyObject *name = PyUnicode_DecodeUTF8(it->name, (Py_ssize_t)strlen(it->name), NULL);
        if (name == NULL) {
            if (PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
                PyErr_Clear();
                result = DECLINE;
            }
            goto done;
        }
        PyObject *path = PyUnicode_FromFormat("%U/%U", rel, name);
        int ok = path != NULL;
        if (ok && it->name[0] == '.')
            ok = PyList_Append(w->hidden, path) == 0;
        if (ok && strchr(it->name, ' ') != NULL)
            ok = PyList_Append(w->spaced, path) == 0;
        if (ok && it->kind == 'd') {
            char *below = sub_path(sub, it->name);
            ok = below != NULL && PyList_Append(dirs, name) == 0;
            if (ok && push(w, path, below) == 0) {
                path = NULL; /* the stack holds it now */
            } else {
                free(below);
                if (ok)
                    PyErr_NoMemory();
                ok = 0;
            }
        } else if (ok) {
            PyObject *size = PyLong_FromLongLong(it->size);
            ok = size != NULL && PyDict_SetItem(files, name, size) == 0;
            if (ok && it->size > w->limit)
                ok = append_new(w->large, Py_BuildValue("(OO)", path, size)) == 0;
            Py_XDECREF(size);
        }
        Py_XDECREF(path);
        Py_DECREF(name);
        if (!ok)
            goto done;
    }
    PyObject *names = PyFrozenSet_New(dirs);
    entry = names != NULL ? PyTuple_Pack(2, files, names) : NULL;
    Py_XDECREF(names);
    if (entry == NULL || PyDict_SetItem(w->known, rel, entry) < 0)
        goto done;
    result = 0;
done:
    Py_XDECREF(entry);
    Py_XDECREF(files);
    Py_XDECREF(dirs);
    Py_DECREF(rel);
    free(sub);
    if (e != NULL)
        entries_free(e, n);
    return result;
}

static PyObject *walk(PyObject *self, PyObject *args)
{
    Py_buffer path;
    PyObject *rel, *out = NULL;
    long long limit;
    Walk w;
    (void)self;
    memset(&w, 0, sizeof(w));
    if (!PyArg_ParseTuple(args, "y*UL", &path, &rel, &limit))
        return NULL;
    w.limit = limit;
    w.top = -1;
    if (memchr(path.buf, '\0', (size_t)path.len) != NULL) {
        PyBuffer_Release(&path);
        Py_RETURN_NONE;
    }
    char *top = malloc((size_t)path.len + 1);
    if (top == NULL) {
        PyBuffer_Release(&path);
        return PyErr_NoMemory();
    }
    memcpy(top, path.buf, (size_t)path.len);
    top[path.len] = '\0';
    PyBuffer_Release(&path);
    w.top = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(top);
    int result = w.top < 0 ? DECLINE : 0;
    if (result == 0 && ((w.known = PyDict_New()) == NULL || (w.hidden = PyList_New(0)) == NULL
                        || (w.spaced = PyList_New(0)) == NULL || (w.pycache = PyList_New(0)) == NULL
                        || (w.empty = PyList_New(0)) == NULL || (w.large = PyList_New(0)) == NULL))
        result = -1;
    if (result == 0 && DIRENT_ROOM > 0 && (w.room = malloc(DIRENT_ROOM > 0 ? DIRENT_ROOM : 1)) == NULL) {
        PyErr_NoMemory();
        result = -1;
    }
    char *sub = result == 0 ? calloc(1, 1) : NULL;
    if (result == 0 && (sub == NULL || push(&w, rel, sub) < 0)) {
        free(sub);
        PyErr_NoMemory();
        result = -1;
    } else if (result == 0) {
        Py_INCREF(rel); /* the stack's reference */
    }
    while (result == 0 && w.depth > 0) {
        w.depth--;
        result = visit(&w, w.stack[w.depth].rel, w.stack[w.depth].sub);
    }
    while (w.depth > 0) { /* what a decline or an error left on the stack */
        w.depth--;
        Py_DECREF(w.stack[w.depth].rel);
        free(w.stack[w.depth].sub);
    }
    free(w.stack);
    free(w.room);
    if (w.top >= 0)
        close(w.top);
    if (result == 0)
        out = PyTuple_Pack(6, w.known, w.hidden, w.spaced, w.pycache, w.empty, w.large);
    else if (result == DECLINE)
        out = Py_NewRef(Py_None);
    Py_XDECREF(w.known);
    Py_XDECREF(w.hidden);
    Py_XDECREF(w.spaced);
    Py_XDECREF(w.pycache);
    Py_XDECREF(w.empty);
    Py_XDECREF(w.large);
    return out;
}

#else /* no POSIX folders: the Python walk does it all */

static PyObject *walk(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    Py_RETURN_NONE;
}

#endif

static PyMethodDef methods[] = {
    {"walk", walk, METH_VARARGS, "walk(path, rel, limit) -> (known, hidden, spaced, pycache, empty, large) or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "checker._walk_scan",
                                    "The walk of a submitter folder in C (see checker.loaders.tree).", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__walk_scan(void)
{
    return PyModule_Create(&module);
}
