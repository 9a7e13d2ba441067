/*
 * evaluators.detectors._findkernel: the detectors' findings, from candidates
 * to the rule's evidence, in C.
 *
 * Why this exists: once the scans found what they found (a few to a few
 * dozen spans per text), what was left in Python was glue, run on every
 * evaluation of the critical rules no_pii, no_injection_patterns and
 * no_blocklist_words: a sweep over the candidates sorted by start that keeps a
 * non-overlapping subset (findings.resolve_overlaps), a Finding built per
 * survivor (findings.finalize on the identity view), then the evidence dicts
 * and kind counts of the rule result (rules/detected._from_findings). That
 * glue cost as much as the scans. Each function below mirrors one Python
 * function, which stays the reference (and the fallback without the build);
 * the property tests hold the two to the same values.
 *
 * resolve(cands, cand_type) -> list | None
 *     findings.resolve_overlaps(cands): ``cands`` a list of exactly
 *     ``cand_type`` tuples (kind, category, start, end, detail, priority)
 *     whose start, end and priority are exact ints below 2**61 in magnitude.
 *     None when a candidate is not of that shape (the caller then runs the
 *     reference, which raises or compares as Python does).
 * spans(kept, raw, finding_type) -> list
 *     the identity branch of findings.finalize: finding_type(kind, category,
 *     s, e, raw[s:e], detail) per kept candidate, built as tuple.__new__
 *     builds it (``finding_type`` a tuple subclass without instance fields).
 *     The caller has checked the spans lie in ``raw``.
 * evidence(findings, finding_type, with_names) -> (list[dict], list[tuple], str | None) | None
 *     detected._evidence_reference: the span dicts of the first 15 findings,
 *     then the pattern dicts of the five first kinds, the sorted (kind,
 *     count) pairs, and (``with_names``) the message's "kind ×count, ..."
 *     list, else None. None when an item is not exactly a ``finding_type``.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>

/* Interned dict keys and values of the evidence records (module lifetime). */
static PyObject *K_TYPE, *K_SOURCE, *K_START, *K_END, *K_LABEL, *K_NAME, *K_COUNT;
static PyObject *V_SPAN, *V_OUTPUT, *V_PATTERN;
/* The pieces of the kind list of the rule's message: "k ×n" joined by ", ". */
static PyObject *S_TIMES, *S_COMMA, *S_EMPTY;

/* --- resolve_overlaps ---------------------------------------------------------------------- */

typedef struct {
    long long start, end, priority;
    Py_ssize_t index; /* position in ``cands``: the sort's tie-break, so it is stable */
} cand_key;

static int by_start_then_index(const void *x, const void *y) {
    const cand_key *a = x, *b = y;
    if (a->start != b->start) return (a->start > b->start) - (a->start < b->start);
    return (a->index > b->index) - (a->index < b->index);
}

/* Bound on the ints the sweep takes: a difference of two stays in range. */
#define SMALL_INT_MAX (1LL << 61)

/* An exact int of magnitude below SMALL_INT_MAX into ``*out``: 1; anything
 * else: 0 (no exception left set). */
static int small_int(PyObject *v, long long *out) {
    if (!PyLong_CheckExact(v)) return 0;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow || (x == -1 && PyErr_Occurred()) || x >= SMALL_INT_MAX || x <= -SMALL_INT_MAX) {
        PyErr_Clear();
        return 0;
    }
    *out = x;
    return 1;
}

/* Mirrors findings.resolve_overlaps: sorted(cands, key=start) (stable), then
 * one sweep keeping a non-empty span unless it overlaps the last kept one; an
 * overlapping span replaces that one when its (priority, length) is greater. */
static PyObject *resolve(PyObject *self, PyObject *args) {
    PyObject *cands, *type;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O:resolve", &PyList_Type, &cands, &type)) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(cands);
    if (n > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(cand_key)) return PyErr_NoMemory();
    cand_key *keys = malloc((size_t)(n > 0 ? n : 1) * sizeof(cand_key));
    if (keys == NULL) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PyList_GET_ITEM(cands, i);
        if (Py_TYPE(c) != (PyTypeObject *)type || PyTuple_GET_SIZE(c) != 6 ||
            !small_int(PyTuple_GET_ITEM(c, 2), &keys[i].start) ||
            !small_int(PyTuple_GET_ITEM(c, 3), &keys[i].end) ||
            !small_int(PyTuple_GET_ITEM(c, 5), &keys[i].priority)) {
            free(keys);
            Py_RETURN_NONE;
        }
        keys[i].index = i;
    }
    if (n > 1) qsort(keys, (size_t)n, sizeof(cand_key), by_start_then_index);
    /* the sweep keeps indices in place: keys[0..kept) */
    Py_ssize_t kept = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        cand_key c = keys[i];
        if (c.end <= c.start) continue;
        if (kept > 0 && c.start < keys[kept - 1].end) {
            const cand_key *last = &keys[kept - 1];
            /* (c.priority, end - start) > (last.priority, last.end - last.start),
             * as Python compares the tuples; the bound on the ints keeps the
             * differences from overflowing */
            long long len_c = c.end - c.start, len_l = last->end - last->start;
            int better = c.priority > last->priority ||
                         (c.priority == last->priority && len_c > len_l);
            if (better) keys[kept - 1] = c;
            continue;
        }
        keys[kept++] = c;
    }
    PyObject *out = PyList_New(kept);
    if (out != NULL) {
        for (Py_ssize_t i = 0; i < kept; i++) {
            PyObject *c = PyList_GET_ITEM(cands, keys[i].index);
            Py_INCREF(c);
            PyList_SET_ITEM(out, i, c);
        }
    }
    free(keys);
    return out;
}

/* --- the identity view's findings ---------------------------------------------------------- */

/* A tuple subclass adding no instance fields (a NamedTuple): its instances
 * can be allocated and filled as tuple.__new__ fills them. */
static int plain_tuple_type(PyObject *type) {
    if (!PyType_Check(type) || !PyType_IsSubtype((PyTypeObject *)type, &PyTuple_Type) ||
        ((PyTypeObject *)type)->tp_basicsize != PyTuple_Type.tp_basicsize ||
        ((PyTypeObject *)type)->tp_itemsize != PyTuple_Type.tp_itemsize) {
        PyErr_SetString(PyExc_TypeError, "finding_type must be a tuple subclass without fields");
        return 0;
    }
    return 1;
}

/* Mirrors the list comprehension of findings.finalize's identity branch:
 * ``tuple.__new__(Finding, (kind, category, s, e, raw[s:e], detail))``. */
static PyObject *spans(PyObject *self, PyObject *args) {
    PyObject *kept, *raw, *type;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!UO:spans", &PyList_Type, &kept, &raw, &type)) return NULL;
    if (!plain_tuple_type(type)) return NULL;
    PyTypeObject *ftype = (PyTypeObject *)type;
    Py_ssize_t n = PyList_GET_SIZE(kept), len = PyUnicode_GET_LENGTH(raw);
    PyObject *out = PyList_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = PyList_GET_ITEM(kept, i);
        if (!PyTuple_Check(c) || PyTuple_GET_SIZE(c) != 6) {
            PyErr_SetString(PyExc_ValueError, "spans(): a candidate is a 6-tuple");
            goto error;
        }
        PyObject *s_obj = PyTuple_GET_ITEM(c, 2), *e_obj = PyTuple_GET_ITEM(c, 3);
        Py_ssize_t s = PyLong_AsSsize_t(s_obj);
        if (s == -1 && PyErr_Occurred()) goto error;
        Py_ssize_t e = PyLong_AsSsize_t(e_obj);
        if (e == -1 && PyErr_Occurred()) goto error;
        if (s < 0 || e > len || e < s) {
            PyErr_SetString(PyExc_ValueError, "spans(): a span lies outside the text");
            goto error;
        }
        PyObject *matched = PyUnicode_Substring(raw, s, e);
        if (matched == NULL) goto error;
        PyObject *f = ftype->tp_alloc(ftype, 6);
        if (f == NULL) {
            Py_DECREF(matched);
            goto error;
        }
        PyObject *items[6] = {PyTuple_GET_ITEM(c, 0), PyTuple_GET_ITEM(c, 1), s_obj, e_obj,
                              matched, PyTuple_GET_ITEM(c, 4)};
        for (int k = 0; k < 6; k++) {
            if (k != 4) Py_INCREF(items[k]); /* ``matched`` is already a new reference */
            PyTuple_SET_ITEM(f, k, items[k]);
        }
        PyList_SET_ITEM(out, i, f);
    }
    return out;
error:
    Py_DECREF(out);
    return NULL;
}

/* --- the rule's evidence ------------------------------------------------------------------- */

/* The span record's shape, {"type": "span", "source": "output", "start": None,
 * "end": None, "label": None}, made at import: copying it and setting the last
 * three values builds the same dict (same keys, same order) with one table
 * copy instead of five inserts into a table that grows on the first. */
static PyObject *SPAN_TEMPLATE;

/* A new span record for (start, end, label), values borrowed. */
static PyObject *span_record(PyObject *start, PyObject *end, PyObject *label) {
    PyObject *d = PyDict_Copy(SPAN_TEMPLATE);
    if (d == NULL) return NULL;
    if (PyDict_SetItem(d, K_START, start) < 0 || PyDict_SetItem(d, K_END, end) < 0 ||
        PyDict_SetItem(d, K_LABEL, label) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* A new dict of ``n`` key/value pairs (values borrowed), in order. */
static PyObject *record(PyObject *const *keys, PyObject *const *values, int n) {
    PyObject *d = PyDict_New();
    if (d == NULL) return NULL;
    for (int k = 0; k < n; k++) {
        if (PyDict_SetItem(d, keys[k], values[k]) < 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    return d;
}

/* Mirrors the message's kind list in detected._from_findings:
 * ", ".join([f"{k} ×{n}" for k, n in counts]). */
static PyObject *kind_list(PyObject *counts) {
    Py_ssize_t n = PyList_GET_SIZE(counts);
    PyObject *pieces = PyList_New(n);
    if (pieces == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pair = PyList_GET_ITEM(counts, i);
        PyObject *k = PyObject_Format(PyTuple_GET_ITEM(pair, 0), S_EMPTY);
        PyObject *c = k == NULL ? NULL : PyObject_Format(PyTuple_GET_ITEM(pair, 1), S_EMPTY);
        PyObject *head = c == NULL ? NULL : PyUnicode_Concat(k, S_TIMES);
        PyObject *piece = head == NULL ? NULL : PyUnicode_Concat(head, c);
        Py_XDECREF(k);
        Py_XDECREF(c);
        Py_XDECREF(head);
        if (piece == NULL) {
            Py_DECREF(pieces);
            return NULL;
        }
        PyList_SET_ITEM(pieces, i, piece);
    }
    PyObject *joined = PyUnicode_Join(S_COMMA, pieces);
    Py_DECREF(pieces);
    return joined;
}

/* Mirrors detected._evidence_reference: kinds counted in a dict (first-seen
 * order), {"type": "span", "source": "output", "start", "end", "label"} for
 * each of the first 15 findings, sorted(kinds.items()), then {"type":
 * "pattern", "name", "count"} for the first five of those. */
static PyObject *evidence(PyObject *self, PyObject *args) {
    PyObject *findings, *type;
    int with_names;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!Op:evidence", &PyList_Type, &findings, &type, &with_names))
        return NULL;
    if (!plain_tuple_type(type)) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(findings);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *f = PyList_GET_ITEM(findings, i);
        if (Py_TYPE(f) != (PyTypeObject *)type || PyTuple_GET_SIZE(f) != 6) Py_RETURN_NONE;
    }
    PyObject *kinds = PyDict_New(), *ev = NULL, *counts = NULL, *result = NULL;
    if (kinds == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *kind = PyTuple_GET_ITEM(PyList_GET_ITEM(findings, i), 0);
        PyObject *seen = PyDict_GetItemWithError(kinds, kind); /* borrowed */
        if (seen == NULL && PyErr_Occurred()) goto done;
        /* kinds[kind] = kinds.get(kind, 0) + 1: the counts are ints made here */
        Py_ssize_t before = seen == NULL ? 0 : PyLong_AsSsize_t(seen);
        if (before == -1 && PyErr_Occurred()) goto done;
        PyObject *count = PyLong_FromSsize_t(before + 1);
        if (count == NULL) goto done;
        int rc = PyDict_SetItem(kinds, kind, count);
        Py_DECREF(count);
        if (rc < 0) goto done;
    }
    Py_ssize_t n_spans = n < 15 ? n : 15;
    ev = PyList_New(0);
    if (ev == NULL) goto done;
    for (Py_ssize_t i = 0; i < n_spans; i++) {
        PyObject *f = PyList_GET_ITEM(findings, i);
        PyObject *d =
            span_record(PyTuple_GET_ITEM(f, 2), PyTuple_GET_ITEM(f, 3), PyTuple_GET_ITEM(f, 0));
        if (d == NULL) goto done;
        int rc = PyList_Append(ev, d);
        Py_DECREF(d);
        if (rc < 0) goto done;
    }
    counts = PyDict_Items(kinds);
    if (counts == NULL || PyList_Sort(counts) < 0) goto done;
    Py_ssize_t n_kinds = PyList_GET_SIZE(counts);
    for (Py_ssize_t i = 0; i < n_kinds && i < 5; i++) {
        PyObject *pair = PyList_GET_ITEM(counts, i);
        PyObject *keys[3] = {K_TYPE, K_NAME, K_COUNT};
        PyObject *values[3] = {V_PATTERN, PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1)};
        PyObject *d = record(keys, values, 3);
        if (d == NULL) goto done;
        int rc = PyList_Append(ev, d);
        Py_DECREF(d);
        if (rc < 0) goto done;
    }
    if (with_names) {
        PyObject *names = kind_list(counts);
        if (names == NULL) goto done;
        result = PyTuple_Pack(3, ev, counts, names);
        Py_DECREF(names);
    } else {
        result = PyTuple_Pack(3, ev, counts, Py_None);
    }
done:
    Py_DECREF(kinds);
    Py_XDECREF(ev);
    Py_XDECREF(counts);
    return result;
}

/* --- module -------------------------------------------------------------------------------- */

static PyMethodDef methods[] = {
    {"resolve", resolve, METH_VARARGS,
     "resolve(cands, cand_type) -> findings.resolve_overlaps(cands), or None for an odd one."},
    {"spans", spans, METH_VARARGS,
     "spans(kept, raw, finding_type) -> the identity view's findings (findings.finalize)."},
    {"evidence", evidence, METH_VARARGS,
     "evidence(findings, finding_type, with_names) -> (dicts, kind counts, names) or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "evaluators.detectors._findkernel",
    "The detectors' findings and their evidence (see evaluators/detectors/findings.py).", -1,
    methods, NULL, NULL, NULL, NULL,
};

static int intern(PyObject **slot, const char *s) {
    *slot = PyUnicode_InternFromString(s);
    return *slot == NULL ? -1 : 0;
}

PyMODINIT_FUNC PyInit__findkernel(void) {
    if (intern(&K_TYPE, "type") < 0 || intern(&K_SOURCE, "source") < 0 ||
        intern(&K_START, "start") < 0 || intern(&K_END, "end") < 0 ||
        intern(&K_LABEL, "label") < 0 || intern(&K_NAME, "name") < 0 ||
        intern(&K_COUNT, "count") < 0 || intern(&V_SPAN, "span") < 0 ||
        intern(&V_OUTPUT, "output") < 0 || intern(&V_PATTERN, "pattern") < 0 ||
        intern(&S_COMMA, ", ") < 0 || intern(&S_EMPTY, "") < 0) {
        return NULL;
    }
    S_TIMES = PyUnicode_FromString(" \xc3\x97"); /* " ×" (U+00D7), UTF-8 */
    if (S_TIMES == NULL) return NULL;
    PyObject *keys[5] = {K_TYPE, K_SOURCE, K_START, K_END, K_LABEL};
    PyObject *values[5] = {V_SPAN, V_OUTPUT, Py_None, Py_None, Py_None};
    SPAN_TEMPLATE = record(keys, values, 5);
    if (SPAN_TEMPLATE == NULL) return NULL;
    return PyModule_Create(&module);
}
