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
 *
 *   ppv_interval(s_draws, sp_draws, pi, lo_index, hi_index)
 *       -> (ppv_lo, ppv_hi, miss_lo, miss_hi) or None
 *
 * equal to ``risk._ppv_quantiles_py`` (one detector's published interval):
 *
 *   pv = sorted(ppv(a, b, pi) for a, b in zip(s_draws, sp_draws))
 *   mr = sorted(miss_rate(a, b, pi) for a, b in zip(s_draws, sp_draws))
 *   return pv[lo_index], pv[hi_index], mr[lo_index], mr[hi_index]
 *
 * with ``evaluators.stats``' ppv and miss_rate spelled out in the same double
 * operations. None (the caller runs the reference) when an argument is not
 * exactly that shape of floats or a value is NaN, where the two sorts could
 * differ. Why: a worker pays it once per detector and prior, ~10 million
 * instructions each in Python (4,000 calls and two sorts of 2,000 floats);
 * thirteen of them fell on a fresh worker's first 500 traces.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>

/* ppv's ``num + (1 - sp) * (1 - prior)`` must stay a product then a sum, as
 * Python computes it: no fused multiply-add, whatever -march says. */
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

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

/* The doubles of a tuple of exact floats; 0 when it is not one (or on a
 * length other than ``d``). */
static int floats_of(PyObject *t, Py_ssize_t d, double *out) {
    if (!PyTuple_CheckExact(t) || PyTuple_GET_SIZE(t) != d)
        return 0;
    for (Py_ssize_t i = 0; i < d; i++) {
        PyObject *v = PyTuple_GET_ITEM(t, i);
        if (!PyFloat_CheckExact(v))
            return 0;
        out[i] = PyFloat_AS_DOUBLE(v);
    }
    return 1;
}

static PyObject *ppv_interval(PyObject *Py_UNUSED(self), PyObject *const *args,
                              Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "ppv_interval(s_draws, sp_draws, pi, lo_index, hi_index)");
        return NULL;
    }
    Py_ssize_t lo_i = PyLong_AsSsize_t(args[3]);
    if (lo_i == -1 && PyErr_Occurred())
        return NULL;
    Py_ssize_t hi_i = PyLong_AsSsize_t(args[4]);
    if (hi_i == -1 && PyErr_Occurred())
        return NULL;
    if (!PyTuple_CheckExact(args[0]) || !PyFloat_CheckExact(args[2]))
        Py_RETURN_NONE;
    Py_ssize_t d = PyTuple_GET_SIZE(args[0]);
    if (lo_i < 0 || hi_i < 0 || lo_i >= d || hi_i >= d)
        Py_RETURN_NONE;
    double prior = PyFloat_AS_DOUBLE(args[2]);
    double *buf = PyMem_Malloc((size_t)d * 4 * sizeof(double));
    if (buf == NULL)
        return PyErr_NoMemory();
    double *s = buf, *sp = buf + d, *pv = buf + 2 * d, *mr = buf + 3 * d;
    PyObject *out = NULL;
    if (!floats_of(args[0], d, s) || !floats_of(args[1], d, sp)) {
        out = Py_NewRef(Py_None);
        goto done;
    }
    for (Py_ssize_t i = 0; i < d; i++) {
        double num = s[i] * prior; /* stats.ppv */
        double den = num + (1.0 - sp[i]) * (1.0 - prior);
        pv[i] = den > 0 ? num / den : 0.0;
        double mnum = (1.0 - s[i]) * prior; /* stats.miss_rate */
        double mden = mnum + sp[i] * (1.0 - prior);
        mr[i] = mden > 0 ? mnum / mden : 0.0;
        if (isnan(pv[i]) || isnan(mr[i])) {
            out = Py_NewRef(Py_None);
            goto done;
        }
    }
    qsort(pv, (size_t)d, sizeof(double), cmp_double);
    qsort(mr, (size_t)d, sizeof(double), cmp_double);
    out = Py_BuildValue("(dddd)", pv[lo_i], pv[hi_i], mr[lo_i], mr[hi_i]);
done:
    PyMem_Free(buf);
    return out;
}

static PyMethodDef methods[] = {
    {"ppv_interval", (PyCFunction)(void (*)(void))ppv_interval, METH_FASTCALL,
     "ppv_interval(s_draws, sp_draws, pi, lo_index, hi_index) -> sorted ppv and miss rate "
     "at the two indices, or None"},
    {"noisy_or_interval", (PyCFunction)(void (*)(void))noisy_or_interval, METH_FASTCALL,
     "noisy_or_interval(groups, lo_index, hi_index) -> (lo, hi) of the sorted per-draw noisy-OR"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_riskkernel", "The sampled risk interval's arithmetic, in C.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__riskkernel(void) { return PyModule_Create(&module); }
