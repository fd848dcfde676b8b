/* The walk of a submitter folder, in C (optional: checker/loaders/compiled.py finds it; it stands for the
 * scandir loop of checker.loaders.tree._walk_submitter, which runs where this is not built, where
 * MLPC_PURE_PYTHON is set, and wherever this declines):
 *
 *   walk(path, rel, limit) -> (known, hidden, spaced, pycache, empty, large) or None
 *   snapshots(paths, max_folders) -> [snapshot or None, ...]      (the reading of walk(), ahead of time)
 *   build(snapshot, rel, limit) -> what walk(path, rel, limit) gives, from a snapshot of path
 *   stop_snapshots()                                               (ends a snapshots() call in another thread)
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
 *
 * A walk reads first (every folder's sorted entries, in the order of the walk: a snapshot, C memory only, read
 * without holding the GIL) and builds its Python answer after. snapshots() reads many folders that way, in a
 * thread of the command line while the main thread imports the checker (checker/loaders/prewalk.py); a
 * snapshot is a capsule that frees its memory with it, and build() gives the answer walk() would have given
 * at the time of the reading.
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
    char *sub;    /* the folder's path below the walked folder ("" for the folder itself) */
    Entry *e;     /* its entries, sorted by name */
    Py_ssize_t n;
} Folder;

typedef struct {
    Folder *folders; /* in the order of the walk */
    Py_ssize_t n, cap;
} Snapshot;

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

static void snapshot_free(Snapshot *s)
{
    if (s == NULL)
        return;
    for (Py_ssize_t i = 0; i < s->n; i++) {
        free(s->folders[i].sub);
        entries_free(s->folders[i].e, s->folders[i].n);
    }
    free(s->folders);
    free(s);
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

/* Reads every folder below `path` (itself included) into *out, in the order of the walk: from a stack, the
 * sub-folders of each folder pushed in the order of their names. 0, DECLINE (a link or special file, a folder
 * that cannot be opened or read, an entry that cannot be stat'ed) or ENOMEM. Touches no Python object: called
 * without the GIL. */
static int take_snapshot(const char *path, Snapshot **out)
{
    *out = NULL;
    int top = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (top < 0)
        return DECLINE;
    Snapshot *s = calloc(1, sizeof(Snapshot));
    char *room = DIRENT_ROOM > 0 ? malloc(DIRENT_ROOM > 0 ? DIRENT_ROOM : 1) : NULL;
    Py_ssize_t depth = 0, cap = 32;
    char **stack = malloc((size_t)cap * sizeof(char *));
    int result = s == NULL || stack == NULL || (DIRENT_ROOM > 0 && room == NULL) ? ENOMEM : 0;
    if (result == 0 && (stack[0] = calloc(1, 1)) == NULL)
        result = ENOMEM;
    else if (result == 0)
        depth = 1;
    while (result == 0 && depth > 0) {
        char *sub = stack[--depth];
        Entry *e = NULL;
        Py_ssize_t n = read_folder(top, sub, room, &e);
        if (n < 0) {
            result = errno == ENOMEM ? ENOMEM : DECLINE;
            free(sub);
            break;
        }
        if (s->n == s->cap) {
            Py_ssize_t more_cap = s->cap ? 2 * s->cap : 64;
            Folder *more = realloc(s->folders, (size_t)more_cap * sizeof(Folder));
            if (more == NULL) {
                entries_free(e, n);
                free(sub);
                result = ENOMEM;
                break;
            }
            s->folders = more;
            s->cap = more_cap;
        }
        s->folders[s->n].sub = sub;
        s->folders[s->n].e = e;
        s->folders[s->n].n = n;
        s->n++;
        for (Py_ssize_t i = 0; i < n && result == 0; i++) {
            if (e[i].kind == 'x') {
                result = DECLINE;
            } else if (e[i].kind == 'd') {
                if (depth == cap) {
                    char **more = realloc(stack, (size_t)(2 * cap) * sizeof(char *));
                    if (more == NULL) {
                        result = ENOMEM;
                        break;
                    }
                    stack = more;
                    cap *= 2;
                }
                if ((stack[depth] = sub_path(sub, e[i].name)) == NULL)
                    result = ENOMEM;
                else
                    depth++;
            }
        }
    }
    while (depth > 0)
        free(stack[--depth]);
    free(stack);
    free(room);
    close(top);
    if (result != 0) {
        snapshot_free(s);
        return result;
    }
    *out = s;
    return 0;
}

typedef struct {
    PyObject *known, *hidden, *spaced, *pycache, *empty, *large;
    long long limit;
} Answer;

/* Adds one folder of a snapshot (`rel`: its path from the submission root) to the answer: 0, DECLINE (a name
 * that is not UTF-8), or -1 with an exception. */
static int build_folder(Answer *w, PyObject *rel, const Folder *f)
{
    int result = -1;
    PyObject *files = NULL, *dirs = NULL, *entry = NULL;
    if ((files = PyDict_New()) == NULL || (dirs = PyList_New(0)) == NULL)
        goto done;
    if (f->n == 0) {
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
    for (Py_ssize_t i = 0; i < f->n; i++) {
        const Entry *it = &f->e[i];
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
            ok = PyList_Append(dirs, name) == 0;
        } else if (ok) {
            PyObject *size = PyLong_FromLongLong(it->size);
            ok = size != NULL && PyDict_SetItem(files, name, size) == 0;
            if (ok && it->size > w->limit) {
                PyObject *large = Py_BuildValue("(OO)", path, size);
                ok = large != NULL && PyList_Append(w->large, large) == 0;
                Py_XDECREF(large);
            }
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
    return result;
}

/* walk()'s answer from a snapshot of the folder whose path from the submission root is `rel`: the tuple,
 * None (decline), or NULL with an exception. */
static PyObject *answer(const Snapshot *s, PyObject *rel, long long limit)
{
    Answer w = {NULL, NULL, NULL, NULL, NULL, NULL, limit};
    PyObject *out = NULL;
    int result = -1;
    if ((w.known = PyDict_New()) != NULL && (w.hidden = PyList_New(0)) != NULL && (w.spaced = PyList_New(0)) != NULL
        && (w.pycache = PyList_New(0)) != NULL && (w.empty = PyList_New(0)) != NULL
        && (w.large = PyList_New(0)) != NULL)
        result = 0;
    for (Py_ssize_t i = 0; i < s->n && result == 0; i++) {
        const Folder *f = &s->folders[i];
        PyObject *folder_rel;
        if (f->sub[0] == '\0') {
            folder_rel = Py_NewRef(rel);
        } else { /* (each name on the way was decoded as an entry of the folder above: UTF-8) */
            PyObject *below = PyUnicode_DecodeUTF8(f->sub, (Py_ssize_t)strlen(f->sub), NULL);
            folder_rel = below != NULL ? PyUnicode_FromFormat("%U/%U", rel, below) : NULL;
            Py_XDECREF(below);
        }
        if (folder_rel == NULL) {
            if (PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
                PyErr_Clear();
                result = DECLINE;
            } else {
                result = -1;
            }
            break;
        }
        result = build_folder(&w, folder_rel, f);
        Py_DECREF(folder_rel);
    }
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

/* A copy of a bytes path as a C string; NULL (no exception) where it holds a NUL byte, NULL with MemoryError
 * where memory is out. */
static char *c_path(const char *buf, Py_ssize_t len)
{
    if (memchr(buf, '\0', (size_t)len) != NULL)
        return NULL;
    char *out = malloc((size_t)len + 1);
    if (out == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    memcpy(out, buf, (size_t)len);
    out[len] = '\0';
    return out;
}

static PyObject *walk(PyObject *self, PyObject *args)
{
    Py_buffer path;
    PyObject *rel, *out;
    long long limit;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*UL", &path, &rel, &limit))
        return NULL;
    char *top = c_path(path.buf, path.len);
    PyBuffer_Release(&path);
    if (top == NULL)
        return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    Snapshot *s;
    int taken;
    Py_BEGIN_ALLOW_THREADS
    taken = take_snapshot(top, &s);
    Py_END_ALLOW_THREADS
    free(top);
    if (taken == ENOMEM)
        return PyErr_NoMemory();
    if (taken != 0)
        Py_RETURN_NONE;
    out = answer(s, rel, limit);
    snapshot_free(s);
    return out;
}

#define SNAPSHOT_NAME "checker._walk_scan.snapshot"

static volatile int stop_requested = 0; /* set by stop_snapshots(), read by snapshots() between folders */

static void snapshot_capsule_free(PyObject *capsule)
{
    snapshot_free(PyCapsule_GetPointer(capsule, SNAPSHOT_NAME));
}

static PyObject *snapshots(PyObject *self, PyObject *args)
{
    PyObject *paths, *out = NULL;
    Py_ssize_t max_folders;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!n", &PyList_Type, &paths, &max_folders))
        return NULL;
    Py_ssize_t count = PyList_GET_SIZE(paths);
    char **tops = calloc((size_t)(count ? count : 1), sizeof(char *));
    Snapshot **taken = calloc((size_t)(count ? count : 1), sizeof(Snapshot *));
    if (tops == NULL || taken == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = PyList_GET_ITEM(paths, i);
        if (!PyBytes_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "snapshots() takes a list of bytes paths");
            goto done;
        }
        tops[i] = c_path(PyBytes_AS_STRING(item), PyBytes_GET_SIZE(item));
        if (tops[i] == NULL && PyErr_Occurred())
            goto done;
    }
    stop_requested = 0;
    Py_BEGIN_ALLOW_THREADS
    Py_ssize_t folders = 0;
    for (Py_ssize_t i = 0; i < count && !stop_requested && folders < max_folders; i++) {
        if (tops[i] != NULL && take_snapshot(tops[i], &taken[i]) == 0)
            folders += taken[i]->n;
    }
    Py_END_ALLOW_THREADS
    if ((out = PyList_New(count)) == NULL)
        goto done;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *item = taken[i] != NULL ? PyCapsule_New(taken[i], SNAPSHOT_NAME, snapshot_capsule_free)
                                          : Py_NewRef(Py_None);
        if (item == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        taken[i] = NULL; /* the capsule holds it */
        PyList_SET_ITEM(out, i, item);
    }
done:
    for (Py_ssize_t i = 0; tops != NULL && i < count; i++)
        free(tops[i]);
    for (Py_ssize_t i = 0; taken != NULL && i < count; i++)
        snapshot_free(taken[i]);
    free(tops);
    free(taken);
    return out;
}

static PyObject *stop_snapshots(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    stop_requested = 1;
    Py_RETURN_NONE;
}

static PyObject *build(PyObject *self, PyObject *args)
{
    PyObject *capsule, *rel;
    long long limit;
    (void)self;
    if (!PyArg_ParseTuple(args, "OUL", &capsule, &rel, &limit))
        return NULL;
    Snapshot *s = PyCapsule_GetPointer(capsule, SNAPSHOT_NAME);
    if (s == NULL)
        return NULL;
    return answer(s, rel, limit);
}

#else /* no POSIX folders: the Python walk does it all */

static PyObject *walk(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    Py_RETURN_NONE;
}

static PyObject *snapshots(PyObject *self, PyObject *args)
{
    PyObject *paths;
    Py_ssize_t max_folders;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!n", &PyList_Type, &paths, &max_folders))
        return NULL;
    PyObject *out = PyList_New(PyList_GET_SIZE(paths));
    for (Py_ssize_t i = 0; out != NULL && i < PyList_GET_SIZE(paths); i++)
        PyList_SET_ITEM(out, i, Py_NewRef(Py_None));
    return out;
}

static PyObject *stop_snapshots(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    Py_RETURN_NONE;
}

static PyObject *build(PyObject *self, PyObject *args)
{
    (void)self;
    (void)args;
    Py_RETURN_NONE;
}

#endif

static PyMethodDef methods[] = {
    {"walk", walk, METH_VARARGS, "walk(path, rel, limit) -> (known, hidden, spaced, pycache, empty, large) or None"},
    {"snapshots", snapshots, METH_VARARGS, "snapshots(paths, max_folders) -> [snapshot or None, ...]"},
    {"build", build, METH_VARARGS, "build(snapshot, rel, limit) -> what walk(path, rel, limit) gives"},
    {"stop_snapshots", stop_snapshots, METH_NOARGS, "stop_snapshots(): end a snapshots() call in another thread"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "checker._walk_scan",
                                    "The walk of a submitter folder in C (see checker.loaders.tree).", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__walk_scan(void)
{
    return PyModule_Create(&module);
}
