/*
 * evaluators.rules._stubkernel: no_stub_output's marker-word scan, in C.
 *
 * ``marker_hits(output, word_pairs, found)`` returns exactly what
 * ``stub._marker_hits_reference(output, found)`` returns for
 * ``word_pairs = stub._WORD_PAIRS``: ``(start, end, lowered word)`` of each
 * occurrence of a marker word (``str.find`` on the output, word by word in
 * table order, each word only when its lowered form is in ``found``) with a
 * word boundary on both sides (the character before and the one after, when
 * there is one, is not ``re``'s ``\w``: Py_UNICODE_ISALNUM or "_", as
 * ``str.isalnum`` decides a single character), sorted when there are two or
 * more. Every str kind is read with PyUnicode_READ.
 *
 * Why: outputs that keep a TODO list hold a dozen markers, and the
 * reference's per-occurrence Python (a find, two character tests, a tuple)
 * was the larger part of the rule on them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static inline int word_char(Py_UCS4 c) { return c == '_' || Py_UNICODE_ISALNUM(c); }

static PyObject *marker_hits(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3 || !PyUnicode_Check(args[0]) || !PyTuple_Check(args[1]) ||
        !PyAnySet_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "marker_hits(output: str, word_pairs: tuple, found: set)");
        return NULL;
    }
    PyObject *output = args[0], *pairs = args[1], *found = args[2];
    if (PyUnicode_READY(output) < 0) return NULL;
    int kind = PyUnicode_KIND(output);
    const void *d = PyUnicode_DATA(output);
    Py_ssize_t n = PyUnicode_GET_LENGTH(output);
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (Py_ssize_t p = 0; p < PyTuple_GET_SIZE(pairs); p++) {
        PyObject *pair = PyTuple_GET_ITEM(pairs, p);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 ||
            !PyUnicode_Check(PyTuple_GET_ITEM(pair, 0))) {
            PyErr_SetString(PyExc_TypeError, "word_pairs must be (word, lowered) pairs");
            goto error;
        }
        PyObject *w = PyTuple_GET_ITEM(pair, 0), *lw = PyTuple_GET_ITEM(pair, 1);
        int has = PySet_Contains(found, lw);
        if (has < 0) goto error;
        if (!has) continue;
        Py_ssize_t size = PyUnicode_GET_LENGTH(w);
        Py_ssize_t i = PyUnicode_Find(output, w, 0, n, 1);
        while (i >= 0) {
            Py_ssize_t e = i + size;
            if ((i == 0 || !word_char(PyUnicode_READ(kind, d, i - 1))) &&
                (e == n || !word_char(PyUnicode_READ(kind, d, e)))) {
                PyObject *hit = Py_BuildValue("(nnO)", i, e, lw);
                if (hit == NULL) goto error;
                int r = PyList_Append(out, hit);
                Py_DECREF(hit);
                if (r < 0) goto error;
            }
            /* output.find(w, i + 1); an empty word is found at every place */
            if (i + 1 > n) break;
            i = PyUnicode_Find(output, w, i + 1, n, 1);
        }
        if (i == -2) goto error;
    }
    if (PyList_GET_SIZE(out) > 1 && PyList_Sort(out) < 0) goto error;
    return out;
error:
    Py_DECREF(out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"marker_hits", (PyCFunction)(void (*)(void))marker_hits, METH_FASTCALL,
     "marker_hits(output, word_pairs, found) -> sorted (start, end, word) of each marker word."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "evaluators.rules._stubkernel",
    "The marker-word scan of no_stub_output (see evaluators/rules/stub.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__stubkernel(void) { return PyModule_Create(&module); }
