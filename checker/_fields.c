/* The frozen dataclasses' fast __init__, in C (optional: checker/loaders/compiled.py finds it; checker/fast_init.py
 * keeps the __init__ dataclasses wrote where it is not built or MLPC_PURE_PYTHON is set):
 *   set_fields(obj, names, *values)  sets obj.<names[i]> to values[i] as object.__setattr__(obj, names[i],
 *                                    values[i]) does (PyObject_GenericSetAttr, past the class's __setattr__),
 *                                    in one call instead of one call through a wrapper descriptor a field.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *set_fields(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs < 2 || !PyTuple_Check(args[1]) || PyTuple_GET_SIZE(args[1]) != nargs - 2) {
        PyErr_SetString(PyExc_TypeError, "set_fields(obj, names, *values): a tuple of names, one value a name");
        return NULL;
    }
    PyObject *obj = args[0], *names = args[1];
    for (Py_ssize_t i = 2; i < nargs; i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i - 2);
        if (!PyUnicode_Check(name)) {
            PyErr_SetString(PyExc_TypeError, "set_fields(): a field name must be a str");
            return NULL;
        }
        if (PyObject_GenericSetAttr(obj, name, args[i]) < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"set_fields", (PyCFunction)(void (*)(void))set_fields, METH_FASTCALL,
     "set_fields(obj, names, *values) -> None: object.__setattr__(obj, name, value) of each name and value"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "checker._fields",
                                    "The frozen dataclasses' fast __init__ (see checker/fast_init.py).", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fields(void)
{
    return PyModule_Create(&module);
}
