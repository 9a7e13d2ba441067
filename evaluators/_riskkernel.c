/*
 * evaluators._riskkernel: the sampled risk interval's arithmetic, in C.
 *
 *   noisy_or_interval(groups, lo_index, hi_index) -> (lo, hi)
 *
 * equal to the tail of evaluators/risk.py, which stays the reference and the
 * fallback (``_sampled_points`` then a sort):
 *
 *   keep = [1.0] * D
 *   for vals in groups:                       # one tuple of D floats a class
 *       keep = [k * (1 - v) for k, v in zip(keep, vals)]
 *   samples = sorted(1 - k for k in keep)
 *   return samples[lo_index], samples[hi_index]
 *
 * The same double operations in the same order give the same doubles (no
 * reassociation: this file is built without -ffast-math, and a product of a
 * difference has nothing to contract into a fused multiply-add). Which of
 * several equal samples a sort puts first cannot change a value read at an
 * index, so qsort stands in for Python's sort.
 *
 * Why: the estimate of a combination of fired detectors not seen before
 * (the risk layer caches each) cost ~2.5-5 ms, eleven Python list passes of
 * 2,000 draws and a sort; a first evaluation paid it in full.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static PyObject *noisy_or_interval(PyObject *Py_UNUSED(self), PyObject *const *args,
                                   Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "noisy_or_interval(groups, lo_index, hi_index)");
        return NULL;
    }
    Py_ssize_t lo_i = PyLong_AsSsize_t(args[1]);
    if (lo_i == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t hi_i = PyLong_AsSsize_t(args[2]);
    if (hi_i == -1 && PyErr_Occurred())
        return NULL;
    PyObject *groups = PySequence_Fast(args[0], "groups must be a sequence of float tuples");
    if (groups == NULL)
        return NULL;
    Py_ssize_t ng = PySequence_Fast_GET_SIZE(groups);
    if (ng == 0) {
        Py_DECREF(groups);
        PyErr_SetString(PyExc_ValueError, "noisy_or_interval: no groups");
        return NULL;
    }
    PyObject **gs = PySequence_Fast_ITEMS(groups);
    if (!PyTuple_Check(gs[0])) {
        Py_DECREF(groups);
        PyErr_SetString(PyExc_TypeError, "noisy_or_interval: each group must be a tuple");
        return NULL;
    }
    Py_ssize_t d = PyTuple_GET_SIZE(gs[0]);
    if (lo_i < 0 || hi_i < 0 || lo_i >= d || hi_i >= d) {
        Py_DECREF(groups);
        PyErr_SetString(PyExc_IndexError, "noisy_or_interval: index out of range");
        return NULL;
    }
    double *keep = PyMem_Malloc((size_t)d * sizeof(double));
    if (keep == NULL) {
        Py_DECREF(groups);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < d; i++)
        keep[i] = 1.0;
    for (Py_ssize_t g = 0; g < ng; g++) {
        PyObject *vals = gs[g];
        if (!PyTuple_Check(vals) || PyTuple_GET_SIZE(vals) != d) {
            PyErr_SetString(PyExc_ValueError,
                            "noisy_or_interval: every group must be a tuple of the same length");
            goto fail;
        }
        for (Py_ssize_t i = 0; i < d; i++) {
            PyObject *v = PyTuple_GET_ITEM(vals, i);
            double x = PyFloat_CheckExact(v) ? PyFloat_AS_DOUBLE(v) : PyFloat_AsDouble(v);
            if (x == -1.0 && PyErr_Occurred())
                goto fail;
            keep[i] = keep[i] * (1.0 - x);
        }
    }
    for (Py_ssize_t i = 0; i < d; i++)
        keep[i] = 1.0 - keep[i];
    qsort(keep, (size_t)d, sizeof(double), cmp_double);
    PyObject *out = Py_BuildValue("(dd)", keep[lo_i], keep[hi_i]);
    PyMem_Free(keep);
    Py_DECREF(groups);
    return out;
fail:
    PyMem_Free(keep);
    Py_DECREF(groups);
    return NULL;
}

static PyMethodDef methods[] = {
    {"noisy_or_interval", (PyCFunction)(void (*)(void))noisy_or_interval, METH_FASTCALL,
     "noisy_or_interval(groups, lo_index, hi_index) -> (lo, hi) of the sorted per-draw noisy-OR"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_riskkernel", "The sampled risk interval's arithmetic, in C.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__riskkernel(void) { return PyModule_Create(&module); }
