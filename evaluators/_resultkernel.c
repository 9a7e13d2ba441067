/*
 * evaluators._resultkernel: one built-in rule result dict, in C.
 *
 * One function, equal to the built-in branch of ``_result_dict_py`` in
 * evaluators/engine.py, which stays the reference and the fallback:
 *
 *   fill(template, judged, uncertainty, max_evidence) -> dict
 *
 * and ``round4(x)``, equal to ``round(x, 4)`` (evaluators/stats.py ``r4``),
 * and ``with_outcome(proto, outcome)``, a copy of the slotted ``Judged``
 * ``proto`` whose ``outcome`` slot holds ``outcome`` (see below).
 *
 * The planned assembly of evaluators/engine.py (``_assemble_planned``) uses
 * four more, each equal to its ``engine._*_py`` reference: ``signature``
 * (the outcomes' part of a plan key), ``copy_json`` (a copy of a cached
 * result skeleton), ``refill`` (the outcome-valued fields of its rule
 * results), ``refill_values`` (the same, for results kept apart from
 * their descriptions), ``weighted`` (a weighted mean score) and ``means``
 * (several, rounded).
 *
 * * ``template``: the rule's metadata fields in publication order
 *   (``_builtin_template``), read-only: it is copied, never changed;
 * * ``judged``: the ``Judged`` (its ``classes``, ``rule_id``, ``asked`` and
 *   ``outcome`` are read; ``asked`` is a property, called as Python would);
 * * ``uncertainty``: the rule's uncertainty (``_uncertainty_template``),
 *   read-only: nested dicts of scalars, copied dict by dict so every result
 *   owns its dicts, as when each was built afresh;
 * * ``max_evidence``: how many evidence items a result keeps.
 *
 * Why this exists: an evaluation publishes 26 of these; in Python each was a
 * template copy, ten item stores, a rounding call and the copy of five small
 * dicts, ~8 us, about a tenth of a whole evaluation. The same steps here
 * cost a fraction of that. Key order, value types (``round`` is the score's
 * own ``__round__``, so an int score stays an int) and the optional keys'
 * conditions mirror the Python line by line.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>

static PyObject *s_outcome, *s_classes, *s_rule_id, *s_asked;
static PyObject *s_skipped, *s_passed, *s_score, *s_message, *s_saw, *s_evidence;
static PyObject *s_skip_class, *s_skip_reason, *s_lacked, *s_budget_exceeded;
static PyObject *s_config_invalid, *s_value, *s_round;
static PyObject *k_verdict, *k_passed, *k_skipped, *k_score, *k_message, *k_classes, *k_saw;
static PyObject *k_evidence, *k_uncertainty, *k_ruleId, *k_skipClass, *k_skipReason;
static PyObject *k_lacked, *k_budgetExceeded, *k_configInvalid, *k_value, *k_asked;
static PyObject *v_skipped, *v_pass, *v_fail, *four;
static PyObject *s_get, *k_type, *k_thresholdSource, *v_count, *v_default;

/* ``round(x, 4)`` without the decimal conversion CPython's float rounding
 * makes (~0.7 us: a dtoa, a format, a strtod), where that conversion cannot
 * change the answer. y = x * 1e4 is within 2**-53 * |y| of the true product;
 * for |y| < 2**40 that is under 1.3e-4, so when y is more than 1e-3 away
 * from a half-way point, the true x * 10**4 rounds to the same integer r as
 * y does, and the correctly rounded quotient r / 1e4 (both exact doubles) is
 * the double nearest to r / 10**4: what ``round`` returns. Signed zeros come
 * out as ``round`` gives them (r keeps the sign of y). Any other value
 * (ints, huge, not finite, near a half) takes ``round`` itself. */
static PyObject *round4_obj(PyObject *x) {
    if (PyFloat_CheckExact(x)) {
        double v = PyFloat_AS_DOUBLE(x);
        double y = v * 1e4;
        if (fabs(y) < 1099511627776.0) { /* 2**40; false for NaN */
            double r = nearbyint(y);
            if (fabs(y - r) < 0.499)
                return PyFloat_FromDouble(r / 1e4);
        }
    }
    return PyObject_CallMethodOneArg(x, s_round, four);
}

static PyObject *round4(PyObject *Py_UNUSED(self), PyObject *x) { return round4_obj(x); }

/* A copy of ``d`` in which every dict value (at any depth) is a copy too. */
static PyObject *copy_tree(PyObject *d) {
    PyObject *out = PyDict_Copy(d);
    if (out == NULL)
        return NULL;
    Py_ssize_t pos = 0;
    PyObject *key, *val;
    while (PyDict_Next(d, &pos, &key, &val)) {
        if (!PyDict_CheckExact(val))
            continue;
        PyObject *sub = copy_tree(val);
        if (sub == NULL || PyDict_SetItem(out, key, sub) < 0) {
            Py_XDECREF(sub);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(sub);
    }
    return out;
}

/* d[key] = value, stealing the reference to value (NULL: an error is set). */
static int put(PyObject *d, PyObject *key, PyObject *value) {
    if (value == NULL)
        return -1;
    int rc = PyDict_SetItem(d, key, value);
    Py_DECREF(value);
    return rc;
}

/* d[key] = getattr(obj, name), when that is truthy (skipped when falsy). */
static int put_if_true(PyObject *d, PyObject *key, PyObject *obj, PyObject *name,
                       PyObject *(*conv)(PyObject *)) {
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v == NULL)
        return -1;
    int t = PyObject_IsTrue(v);
    int rc = 0;
    if (t < 0)
        rc = -1;
    else if (t) {
        if (conv != NULL) {
            PyObject *c = conv(v);
            rc = put(d, key, c);
        } else
            rc = PyDict_SetItem(d, key, v);
    }
    Py_DECREF(v);
    return rc;
}

static PyObject *to_true(PyObject *Py_UNUSED(v)) { Py_RETURN_TRUE; }

/* One result: the body of ``_result_dict_py`` for a built-in rule, given the
 * Judged's ``outcome``, ``classes``, ``rule_id`` and ``asked`` (each already
 * read: ``fill`` reads them off the Judged). ``asked`` is any object;
 * only its truth is used, as ``if j.asked:`` does. */
static PyObject *fill_one(PyObject *tmpl, PyObject *o, PyObject *classes, PyObject *rule_id,
                          PyObject *asked, PyObject *unc, Py_ssize_t max_ev) {
    PyObject *d = PyDict_Copy(tmpl);
    PyObject *skipped = NULL, *passed = NULL, *score = NULL;
    if (d == NULL)
        goto fail;
    skipped = PyObject_GetAttr(o, s_skipped);
    passed = PyObject_GetAttr(o, s_passed);
    if (skipped == NULL || passed == NULL)
        goto fail;
    int is_skipped = PyObject_IsTrue(skipped);
    int is_passed = PyObject_IsTrue(passed);
    if (is_skipped < 0 || is_passed < 0)
        goto fail;

    /* d["verdict"] = "skipped" if skipped else ("pass" if o.passed else "fail") */
    if (PyDict_SetItem(d, k_verdict, is_skipped ? v_skipped : (is_passed ? v_pass : v_fail)) < 0)
        goto fail;
    /* d["passed"] = bool(o.passed) if not skipped else False */
    if (PyDict_SetItem(d, k_passed, (!is_skipped && is_passed) ? Py_True : Py_False) < 0)
        goto fail;
    if (PyDict_SetItem(d, k_skipped, skipped) < 0)
        goto fail;
    /* d["score"] = round(o.score, 4) */
    score = PyObject_GetAttr(o, s_score);
    if (score == NULL)
        goto fail;
    if (put(d, k_score, round4_obj(score)) < 0)
        goto fail;
    if (put(d, k_message, PyObject_GetAttr(o, s_message)) < 0)
        goto fail;
    /* d["classes"] = list(j.classes); d["saw"] = list(o.saw) */
    if (put(d, k_classes, PySequence_List(classes)) < 0)
        goto fail;
    PyObject *saw = PyObject_GetAttr(o, s_saw);
    if (saw == NULL)
        goto fail;
    int rc = put(d, k_saw, PySequence_List(saw));
    Py_DECREF(saw);
    if (rc < 0)
        goto fail;
    /* d["evidence"] = o.evidence[:max_evidence] */
    PyObject *ev = PyObject_GetAttr(o, s_evidence);
    if (ev == NULL)
        goto fail;
    rc = put(d, k_evidence, PySequence_GetSlice(ev, 0, max_ev));
    Py_DECREF(ev);
    if (rc < 0)
        goto fail;
    if (put(d, k_uncertainty, copy_tree(unc)) < 0)
        goto fail;
    /* if j.rule_id: d["ruleId"] = j.rule_id */
    int t = PyObject_IsTrue(rule_id);
    if (t < 0 || (t && PyDict_SetItem(d, k_ruleId, rule_id) < 0))
        goto fail;
    if (is_skipped) {
        if (put(d, k_skipClass, PyObject_GetAttr(o, s_skip_class)) < 0)
            goto fail;
        if (put(d, k_skipReason, PyObject_GetAttr(o, s_skip_reason)) < 0)
            goto fail;
        if (put_if_true(d, k_lacked, o, s_lacked, PySequence_List) < 0)
            goto fail;
    }
    if (put_if_true(d, k_budgetExceeded, o, s_budget_exceeded, to_true) < 0)
        goto fail;
    if (put_if_true(d, k_configInvalid, o, s_config_invalid, to_true) < 0)
        goto fail;
    /* if o.value is not None: d["value"] = o.value */
    PyObject *value = PyObject_GetAttr(o, s_value);
    if (value == NULL)
        goto fail;
    rc = value != Py_None ? PyDict_SetItem(d, k_value, value) : 0;
    Py_DECREF(value);
    if (rc < 0)
        goto fail;
    /* if j.asked: d["asked"] = True */
    t = PyObject_IsTrue(asked);
    if (t < 0 || (t && PyDict_SetItem(d, k_asked, Py_True) < 0))
        goto fail;

    Py_DECREF(skipped);
    Py_DECREF(passed);
    Py_DECREF(score);
    return d;
fail:
    Py_XDECREF(d);
    Py_XDECREF(skipped);
    Py_XDECREF(passed);
    Py_XDECREF(score);
    return NULL;
}

static PyObject *fill(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 || !PyDict_Check(args[0]) || !PyDict_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError,
                        "fill(template: dict, judged, uncertainty: dict, max_evidence: int)");
        return NULL;
    }
    PyObject *j = args[1];
    Py_ssize_t max_ev = PyLong_AsSsize_t(args[3]);
    if (max_ev == -1 && PyErr_Occurred())
        return NULL;
    /* the Judged's fields in the order the Python reads them: outcome and
     * classes first; rule_id and the ``asked`` property as Python reads
     * them, after the outcome's fields (a property may see the result so far
     * only through the Judged, which nothing here changes) */
    PyObject *o = PyObject_GetAttr(j, s_outcome);
    PyObject *classes = o ? PyObject_GetAttr(j, s_classes) : NULL;
    PyObject *rule_id = classes ? PyObject_GetAttr(j, s_rule_id) : NULL;
    PyObject *asked = rule_id ? PyObject_GetAttr(j, s_asked) : NULL;
    PyObject *d = asked ? fill_one(args[0], o, classes, rule_id, asked, args[2], max_ev) : NULL;
    Py_XDECREF(o);
    Py_XDECREF(classes);
    Py_XDECREF(rule_id);
    Py_XDECREF(asked);
    return d;
}

/* with_outcome(proto, outcome): a new object of proto's type with every slot
 * holding what proto's holds, except ``outcome``. Equal to building the
 * ``Judged`` with the same field values (``Judged(*fields, outcome)``):
 * the dataclass ``__init__`` only stores its arguments, and this stores the
 * same objects without running sixteen Python attribute stores. Why: the
 * engine makes 26 of these per evaluation. Only for a type whose every
 * field is an object slot (no ``__dict__``, no weak references), which is
 * what ``@dataclass(slots=True)`` makes; anything else is refused. */
static PyTypeObject *wo_type = NULL; /* the type whose layout was checked */
static Py_ssize_t wo_outcome = -1;   /* offset of its ``outcome`` slot */

static int wo_prepare(PyTypeObject *t) {
    if (t == wo_type)
        return 0;
    if (t->tp_dictoffset != 0 || t->tp_weaklistoffset != 0 || t->tp_members == NULL ||
        t->tp_base != &PyBaseObject_Type) {
        PyErr_SetString(PyExc_TypeError, "with_outcome: proto must be a plain slotted object");
        return -1;
    }
    Py_ssize_t off = -1;
    for (PyMemberDef *m = t->tp_members; m->name != NULL; m++) {
        if (m->type != T_OBJECT_EX) {
            PyErr_SetString(PyExc_TypeError, "with_outcome: every slot must be an object slot");
            return -1;
        }
        if (strcmp(m->name, "outcome") == 0)
            off = m->offset;
    }
    if (off < 0) {
        PyErr_SetString(PyExc_TypeError, "with_outcome: proto has no outcome slot");
        return -1;
    }
    Py_XDECREF(wo_type);
    Py_INCREF(t);
    wo_type = t;
    wo_outcome = off;
    return 0;
}

static PyObject *with_outcome(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "with_outcome(proto, outcome)");
        return NULL;
    }
    PyObject *proto = args[0];
    PyTypeObject *t = Py_TYPE(proto);
    if (wo_prepare(t) < 0)
        return NULL;
    PyObject *obj = t->tp_alloc(t, 0);
    if (obj == NULL)
        return NULL;
    for (PyMemberDef *m = t->tp_members; m->name != NULL; m++) {
        PyObject *v = m->offset == wo_outcome ? args[1] : *(PyObject **)((char *)proto + m->offset);
        Py_XINCREF(v);
        *(PyObject **)((char *)obj + m->offset) = v;
    }
    return obj;
}

/* ---- outcome fields, read off their slots --------------------------------
 *
 * ``oget(o, F_x)`` is ``getattr(o, "x")``. The planned path reads a dozen
 * fields of 26 outcomes per evaluation; a generic attribute read walks the
 * type's MRO cache and calls the member descriptor each time. For a type
 * whose every such field is a plain object slot (``@dataclass(slots=True)``,
 * as ``Outcome`` is) and whose attribute lookup is the generic one, the
 * descriptor's answer is the slot's content, or AttributeError when empty:
 * so the slot is read directly while the type is unchanged (its version tag
 * is the one seen when the offsets were taken), and anything else (another
 * type, a modified type, an empty slot) takes PyObject_GetAttr. */
enum {
    F_PASSED, F_SCORE, F_MESSAGE, F_EVIDENCE, F_SKIPPED, F_SKIP_CLASS, F_SKIP_REASON,
    F_SAW, F_VALUE, F_BUDGET_EXCEEDED, F_CONFIG_INVALID, F_LACKED, F_ASKED, NF
};
static PyObject **f_names[NF] = {&s_passed, &s_score, &s_message, &s_evidence, &s_skipped,
                                 &s_skip_class, &s_skip_reason, &s_saw, &s_value,
                                 &s_budget_exceeded, &s_config_invalid, &s_lacked, &s_asked};
static PyTypeObject *oc_type = NULL; /* the type the offsets are of (borrowed; see below) */
static unsigned int oc_version = 0;  /* its version tag then; 0: not readable directly */
static Py_ssize_t oc_off[NF];

static void oc_prepare(PyTypeObject *t) {
    /* the type is kept by identity only while its tag matches: a type that
     * is freed and another allocated at its address gets a new tag */
    oc_type = t;
    oc_version = 0;
    if (t->tp_getattro != PyObject_GenericGetAttr)
        return;
    Py_ssize_t off[NF];
    for (int f = 0; f < NF; f++) {
        PyObject *d = _PyType_Lookup(t, *f_names[f]); /* borrowed; assigns the tag */
        if (d == NULL || !Py_IS_TYPE(d, &PyMemberDescr_Type))
            return;
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        if (m->type != T_OBJECT_EX || (m->flags & READ_RESTRICTED))
            return;
        off[f] = m->offset;
    }
    if (!PyType_HasFeature(t, Py_TPFLAGS_VALID_VERSION_TAG) || t->tp_version_tag == 0)
        return;
    memcpy(oc_off, off, sizeof off);
    oc_version = t->tp_version_tag;
}

static PyObject *oget(PyObject *o, int f) {
    PyTypeObject *t = Py_TYPE(o);
    if (t != oc_type || !PyType_HasFeature(t, Py_TPFLAGS_VALID_VERSION_TAG) ||
        t->tp_version_tag != oc_version)
        oc_prepare(t);
    if (oc_version != 0 && t->tp_version_tag == oc_version) {
        PyObject *v = *(PyObject **)((char *)o + oc_off[f]);
        if (v != NULL) {
            Py_INCREF(v);
            return v;
        }
    }
    return PyObject_GetAttr(o, *f_names[f]);
}

/* ---- new_outcome: an Outcome built without its Python __init__ ----------
 *
 * ``new_outcome(cls, passed, score, message, evidence, skipped, skip_class,
 * skip_reason, saw, value, budget_exceeded, config_invalid, lacked, asked,
 * notes)`` is ``cls(passed, ..., notes)`` (``rules.base._outcome``, the
 * reference) for ``cls`` = ``Outcome``: the ``__init__`` that
 * ``@dataclass(slots=True)`` writes only stores each argument in its slot,
 * and this stores the same objects. Why: every rule returns a new outcome
 * on every evaluation (~21 a trace), and the class call (a type call, an
 * interpreted ``__init__`` frame, fourteen slot stores) was ~1,300
 * instructions of each. Only for a plain slotted type (base ``object``, no
 * ``__dict__``, no weak references, object's allocator and ``__new__``)
 * whose slots are exactly the fourteen fields, each an object slot of the
 * type itself; the offsets are taken once per type version (any change to
 * the type re-checks them). Any other class is simply called. */
#define NO_FIELDS (NF + 1) /* the outcome fields above, then notes */
static PyObject *s_notes;
static PyTypeObject *no_type = NULL; /* the type the offsets are of (borrowed, see oc_type) */
static unsigned int no_version = 0;  /* its version tag then; 0: call the class */
static Py_ssize_t no_off[NO_FIELDS];

static void no_prepare(PyTypeObject *t) {
    no_type = t;
    no_version = 0;
    if (t->tp_base != &PyBaseObject_Type || t->tp_dictoffset != 0 || t->tp_weaklistoffset != 0 ||
        t->tp_alloc != PyType_GenericAlloc || t->tp_new != PyBaseObject_Type.tp_new ||
        t->tp_members == NULL)
        return;
    Py_ssize_t n = 0;
    for (PyMemberDef *m = t->tp_members; m->name != NULL; m++)
        n++;
    if (n != NO_FIELDS)
        return;
    Py_ssize_t off[NO_FIELDS];
    for (int f = 0; f < NO_FIELDS; f++) {
        PyObject *d = _PyType_Lookup(t, f < NF ? *f_names[f] : s_notes); /* borrowed */
        if (d == NULL || !Py_IS_TYPE(d, &PyMemberDescr_Type) ||
            ((PyDescrObject *)d)->d_type != t)
            return;
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        if (m->type != T_OBJECT_EX || (m->flags & READONLY))
            return;
        for (int g = 0; g < f; g++)
            if (off[g] == m->offset) /* two fields, one slot */
                return;
        off[f] = m->offset;
    }
    if (!PyType_HasFeature(t, Py_TPFLAGS_VALID_VERSION_TAG) || t->tp_version_tag == 0)
        return;
    memcpy(no_off, off, sizeof off);
    no_version = t->tp_version_tag;
}

static PyObject *new_outcome(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != NO_FIELDS + 1 || !PyType_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "new_outcome(cls, passed, ..., notes): 15 arguments");
        return NULL;
    }
    PyTypeObject *t = (PyTypeObject *)args[0];
    if (t != no_type || !PyType_HasFeature(t, Py_TPFLAGS_VALID_VERSION_TAG) ||
        t->tp_version_tag != no_version)
        no_prepare(t);
    if (no_version == 0 || t->tp_version_tag != no_version)
        return PyObject_Vectorcall(args[0], args + 1, NO_FIELDS, NULL);
    PyObject *obj = t->tp_alloc(t, 0);
    if (obj == NULL)
        return NULL;
    for (int f = 0; f < NO_FIELDS; f++) {
        PyObject *v = args[f + 1];
        Py_INCREF(v);
        *(PyObject **)((char *)obj + no_off[f]) = v;
    }
    return obj;
}

/* ---- evaluate()'s plan path (engine.py ``_assemble_planned``) ------------ */

/* copy_json(obj): ``_copy_json_py``: a copy of a tree of exact dicts and
 * lists in which every dict and list is new; any other value is shared (the
 * cached skeletons hold only str, int, float, bool, None and tuples of
 * them besides). Why: a planned result starts as a copy of its cached
 * skeleton, ~150 containers, which Python copies at ~0.3 us each. */
static PyObject *copy_json_obj(PyObject *v) {
    if (PyDict_CheckExact(v)) {
        /* PyDict_Copy clones the key table of a compact dict in one go;
         * then only the container values are replaced by their copies (a
         * store over an existing key keeps the order) */
        PyObject *out = PyDict_Copy(v);
        if (out == NULL)
            return NULL;
        Py_ssize_t pos = 0;
        PyObject *key, *val;
        while (PyDict_Next(v, &pos, &key, &val)) {
            if (!PyDict_CheckExact(val) && !PyList_CheckExact(val))
                continue;
            PyObject *c = copy_json_obj(val);
            if (c == NULL || PyDict_SetItem(out, key, c) < 0) {
                Py_XDECREF(c);
                Py_DECREF(out);
                return NULL;
            }
            Py_DECREF(c);
        }
        return out;
    }
    if (PyList_CheckExact(v)) {
        Py_ssize_t n = PyList_GET_SIZE(v);
        PyObject *out = PyList_New(n);
        if (out == NULL)
            return NULL;
        for (Py_ssize_t i = 0; i < n; i++) {
            /* the list cannot change under us: copying runs no Python code */
            PyObject *c = copy_json_obj(PyList_GET_ITEM(v, i));
            if (c == NULL) {
                Py_DECREF(out);
                return NULL;
            }
            PyList_SET_ITEM(out, i, c);
        }
        return out;
    }
    Py_INCREF(v);
    return v;
}

static PyObject *copy_json(PyObject *Py_UNUSED(self), PyObject *v) {
    if (Py_EnterRecursiveCall(" in copy_json"))
        return NULL;
    PyObject *out = copy_json_obj(v);
    Py_LeaveRecursiveCall();
    return out;
}

/* refill(results, outcomes, max_evidence): ``_refill_py``: the rule results
 * of a planned evaluation are a copy of the plan's, whose fields the plan key
 * decides (verdict, passed, the skip class, lacked, the flags and which keys
 * there are); this sets, in place, the fields the outcome's own values give,
 * as ``_fill_py`` sets them: skipped (the object itself), the score rounded,
 * message, saw, the evidence cut, and skipReason / value where the row has
 * that key (a skipped row; an outcome with a value). Key order is the
 * copy's: every key set here is there already. */
static int set_attr(PyObject *d, PyObject *key, PyObject *o, int field,
                    PyObject *(*conv)(PyObject *)) {
    PyObject *v = oget(o, field);
    if (v == NULL)
        return -1;
    if (conv != NULL) {
        PyObject *c = conv(v);
        Py_DECREF(v);
        return put(d, key, c);
    }
    return put(d, key, v);
}

static PyObject *refill(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyList_CheckExact(args[0]) || !PyList_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "refill(results: list, outcomes: list, max_evidence: int)");
        return NULL;
    }
    PyObject *res = args[0], *outs = args[1];
    Py_ssize_t max_ev = PyLong_AsSsize_t(args[2]);
    if (max_ev == -1 && PyErr_Occurred())
        return NULL;
    if (PyList_GET_SIZE(res) != PyList_GET_SIZE(outs)) {
        PyErr_SetString(PyExc_ValueError, "refill: one outcome per result");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(res) && i < PyList_GET_SIZE(outs); i++) {
        PyObject *d = PyList_GET_ITEM(res, i), *o = PyList_GET_ITEM(outs, i);
        if (!PyDict_CheckExact(d)) {
            PyErr_SetString(PyExc_TypeError, "refill: a result is a dict");
            return NULL;
        }
        Py_INCREF(d);
        Py_INCREF(o);
        int rc = -1;
        PyObject *ev = NULL, *score = NULL;
        if (set_attr(d, k_skipped, o, F_SKIPPED, NULL) < 0)
            goto done;
        /* d["score"] = round(o.score, 4) */
        score = oget(o, F_SCORE);
        if (score == NULL || put(d, k_score, round4_obj(score)) < 0)
            goto done;
        if (set_attr(d, k_message, o, F_MESSAGE, NULL) < 0)
            goto done;
        /* d["saw"] = list(o.saw); d["evidence"] = o.evidence[:max_evidence] */
        if (set_attr(d, k_saw, o, F_SAW, PySequence_List) < 0)
            goto done;
        ev = oget(o, F_EVIDENCE);
        if (ev == NULL || put(d, k_evidence, PySequence_GetSlice(ev, 0, max_ev)) < 0)
            goto done;
        int has = PyDict_Contains(d, k_skipReason);
        if (has < 0 || (has && set_attr(d, k_skipReason, o, F_SKIP_REASON, NULL) < 0))
            goto done;
        has = PyDict_Contains(d, k_value);
        if (has < 0 || (has && set_attr(d, k_value, o, F_VALUE, NULL) < 0))
            goto done;
        rc = 0;
    done:
        Py_XDECREF(ev);
        Py_XDECREF(score);
        Py_DECREF(o);
        Py_DECREF(d);
        if (rc < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

/* refill_values(templates, slots, outcomes, max_evidence): ``_refill_values_py``:
 * the values a storing caller keeps of each rule result of a planned
 * evaluation (``engine._assemble_split``), apart from its description: per
 * rule a new list, a copy of its template, with the values the outcome gives
 * set at the positions ``slots`` names (skipped, score, message, saw,
 * evidence, skipReason, value; the last two -1 where the result has no such
 * key), each as ``refill`` sets it in a whole result. */
static int set_at(PyObject *list, PyObject *slots, Py_ssize_t k, PyObject *value) {
    if (value == NULL)
        return -1;
    Py_ssize_t i = PyLong_AsSsize_t(PyTuple_GET_ITEM(slots, k));
    if (i == -1 && PyErr_Occurred()) {
        Py_DECREF(value);
        return -1;
    }
    if (i < 0 || i >= PyList_GET_SIZE(list)) {
        Py_DECREF(value);
        PyErr_SetString(PyExc_IndexError, "refill_values: a slot is out of its template");
        return -1;
    }
    PyList_SetItem(list, i, value); /* steals value, drops the template's */
    return 0;
}

static int has_slot(PyObject *slots, Py_ssize_t k) {
    Py_ssize_t i = PyLong_AsSsize_t(PyTuple_GET_ITEM(slots, k));
    if (i == -1 && PyErr_Occurred())
        return -1;
    return i >= 0;
}

static PyObject *refill_values(PyObject *Py_UNUSED(self), PyObject *const *args,
                               Py_ssize_t nargs) {
    if (nargs != 4 || !PyTuple_CheckExact(args[0]) || !PyTuple_CheckExact(args[1]) ||
        !PyList_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError,
                        "refill_values(templates: tuple, slots: tuple, outcomes: list, "
                        "max_evidence: int)");
        return NULL;
    }
    PyObject *tpls = args[0], *slots_all = args[1], *outs = args[2];
    Py_ssize_t n = PyTuple_GET_SIZE(tpls);
    Py_ssize_t max_ev = PyLong_AsSsize_t(args[3]);
    if (max_ev == -1 && PyErr_Occurred())
        return NULL;
    if (PyTuple_GET_SIZE(slots_all) != n || PyList_GET_SIZE(outs) != n) {
        PyErr_SetString(PyExc_ValueError, "refill_values: one template and slots per outcome");
        return NULL;
    }
    PyObject *result = PyList_New(n);
    if (result == NULL)
        return NULL;
    for (Py_ssize_t r = 0; r < n; r++) {
        PyObject *t = PyTuple_GET_ITEM(tpls, r), *sl = PyTuple_GET_ITEM(slots_all, r);
        if (!PyList_CheckExact(t) || !PyTuple_CheckExact(sl) || PyTuple_GET_SIZE(sl) != 7) {
            PyErr_SetString(PyExc_TypeError,
                            "refill_values: a template is a list, its slots a 7-tuple");
            goto fail;
        }
        PyObject *o = PyList_GET_ITEM(outs, r);
        PyObject *v = PyList_GetSlice(t, 0, PyList_GET_SIZE(t));
        if (v == NULL)
            goto fail;
        PyList_SET_ITEM(result, r, v); /* owned by result from here */
        PyObject *score = oget(o, F_SCORE), *ev = NULL, *saw = NULL;
        if (score == NULL)
            goto fail;
        int rc = set_at(v, sl, 1, round4_obj(score));
        Py_DECREF(score);
        if (rc < 0 || set_at(v, sl, 0, oget(o, F_SKIPPED)) < 0 ||
            set_at(v, sl, 2, oget(o, F_MESSAGE)) < 0)
            goto fail;
        if ((saw = oget(o, F_SAW)) == NULL)
            goto fail;
        rc = set_at(v, sl, 3, PySequence_List(saw));
        Py_DECREF(saw);
        if (rc < 0 || (ev = oget(o, F_EVIDENCE)) == NULL)
            goto fail;
        rc = set_at(v, sl, 4, PySequence_GetSlice(ev, 0, max_ev));
        Py_DECREF(ev);
        if (rc < 0)
            goto fail;
        int has = has_slot(sl, 5);
        if (has < 0 || (has && set_at(v, sl, 5, oget(o, F_SKIP_REASON)) < 0))
            goto fail;
        has = has_slot(sl, 6);
        if (has < 0 || (has && set_at(v, sl, 6, oget(o, F_VALUE)) < 0))
            goto fail;
    }
    return result;
fail:
    Py_DECREF(result);
    return NULL;
}

/* weighted(outcomes, idx, weights, wsum): ``_weighted_py``: the weighted
 * mean of outcomes[i].score over i in idx, summed as evaluate() and
 * categories() sum it (from int 0, left to right, with Python's own ``*``,
 * ``+=`` and ``/``, so ints stay ints and every float step is the same). */
static PyObject *weighted_mean(PyObject *outs, PyObject *idx, PyObject *ws, PyObject *wsum) {
    if (!PyTuple_CheckExact(idx) || !PyTuple_CheckExact(ws) ||
        PyTuple_GET_SIZE(idx) != PyTuple_GET_SIZE(ws)) {
        PyErr_SetString(PyExc_TypeError, "weighted: idx and weights are tuples of one length");
        return NULL;
    }
    PyObject *acc = PyLong_FromLong(0);
    if (acc == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(idx); k++) {
        Py_ssize_t i = PyLong_AsSsize_t(PyTuple_GET_ITEM(idx, k));
        if (i == -1 && PyErr_Occurred())
            goto fail;
        if (i < 0 || i >= PyList_GET_SIZE(outs)) {
            PyErr_SetString(PyExc_IndexError, "weighted: row index out of range");
            goto fail;
        }
        PyObject *score = oget(PyList_GET_ITEM(outs, i), F_SCORE);
        if (score == NULL)
            goto fail;
        PyObject *prod = PyNumber_Multiply(score, PyTuple_GET_ITEM(ws, k));
        Py_DECREF(score);
        if (prod == NULL)
            goto fail;
        PyObject *sum = PyNumber_InPlaceAdd(acc, prod);
        Py_DECREF(prod);
        if (sum == NULL)
            goto fail;
        Py_DECREF(acc);
        acc = sum;
    }
    PyObject *mean = PyNumber_TrueDivide(acc, wsum);
    Py_DECREF(acc);
    return mean;
fail:
    Py_DECREF(acc);
    return NULL;
}

static PyObject *weighted(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4 || !PyList_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError,
                        "weighted(outcomes: list, idx: tuple, weights: tuple, wsum)");
        return NULL;
    }
    return weighted_mean(args[0], args[1], args[2], args[3]);
}

/* means(outcomes, groups): ``_means_py``: for each (idx, weights, wsum) of
 * the tuple ``groups``, ``round(weighted(outcomes, idx, weights, wsum), 4)``
 * — a planned result's score and its bundles' scores, in one call. */
static PyObject *means(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyList_CheckExact(args[0]) || !PyTuple_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "means(outcomes: list, groups: tuple)");
        return NULL;
    }
    PyObject *groups = args[1];
    Py_ssize_t n = PyTuple_GET_SIZE(groups);
    PyObject *out = PyList_New(n);
    if (out == NULL)
        return NULL;
    for (Py_ssize_t g = 0; g < n; g++) {
        PyObject *grp = PyTuple_GET_ITEM(groups, g);
        if (!PyTuple_CheckExact(grp) || PyTuple_GET_SIZE(grp) != 3) {
            PyErr_SetString(PyExc_TypeError, "means: a group is (idx, weights, wsum)");
            Py_DECREF(out);
            return NULL;
        }
        PyObject *m = weighted_mean(args[0], PyTuple_GET_ITEM(grp, 0), PyTuple_GET_ITEM(grp, 1),
                                    PyTuple_GET_ITEM(grp, 2));
        PyObject *r = m ? round4_obj(m) : NULL;
        Py_XDECREF(m);
        if (r == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, g, r);
    }
    return out;
}

/* uses_default_threshold(evidence): ``Judged.uses_default_threshold``:
 * any(e.get("type") == "count" and e.get("thresholdSource") == "default"
 * for e in evidence), with ``get`` called as Python calls it on anything
 * that is not an exact dict. 1, 0 or -1 (an error set). */
static int get_eq(PyObject *e, PyObject *key, PyObject *want) {
    PyObject *v;
    if (PyDict_CheckExact(e)) {
        v = PyDict_GetItemWithError(e, key);
        if (v == NULL) {
            if (PyErr_Occurred())
                return -1;
            v = Py_None;
        }
        Py_INCREF(v);
    } else {
        v = PyObject_CallMethodOneArg(e, s_get, key);
        if (v == NULL)
            return -1;
    }
    PyObject *eq = PyObject_RichCompare(v, want, Py_EQ);
    Py_DECREF(v);
    if (eq == NULL)
        return -1;
    int t = PyObject_IsTrue(eq);
    Py_DECREF(eq);
    return t;
}

static int uses_default(PyObject *evidence) {
    PyObject *it = PyObject_GetIter(evidence);
    if (it == NULL)
        return -1;
    PyObject *e;
    int found = 0;
    while ((e = PyIter_Next(it)) != NULL) {
        int t = get_eq(e, k_type, v_count);
        if (t > 0)
            t = get_eq(e, k_thresholdSource, v_default);
        Py_DECREF(e);
        if (t != 0) {
            found = t;
            break;
        }
    }
    Py_DECREF(it);
    if (found == 0 && PyErr_Occurred())
        return -1;
    return found;
}

/* signature(outcomes, udt_rows, want_saw): ``_signature_py``: what of each
 * built-in outcome the assembly reads besides the values it copies: per row
 * a code (1 skipped, 2 passed and not skipped, 4 asked, 8 uses a default
 * threshold: only asked of rows where compose asks it, udt_rows[i] true;
 * 16 budget exceeded, 32 config invalid, 64 has a value: which keys a
 * result has),
 * then for a skipped row its skip_class and lacked, for another its saw
 * when want_saw (the config requires evidence). A flat tuple: each code
 * says which items follow it. */
static PyObject *signature(PyObject *Py_UNUSED(self), PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !PyList_CheckExact(args[0]) || !PyTuple_CheckExact(args[1]) ||
        PyTuple_GET_SIZE(args[1]) != PyList_GET_SIZE(args[0])) {
        PyErr_SetString(PyExc_TypeError, "signature(outcomes: list, udt_rows: tuple, want_saw)");
        return NULL;
    }
    PyObject *outs = args[0], *udt = args[1];
    int want_saw = PyObject_IsTrue(args[2]);
    if (want_saw < 0)
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(outs);
    PyObject *sig = PyList_New(0);
    if (sig == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n && i < PyList_GET_SIZE(outs); i++) {
        PyObject *o = PyList_GET_ITEM(outs, i);
        Py_INCREF(o);
        long code = 0;
        PyObject *a = NULL, *b = NULL;
        int t = -1;
        PyObject *v = oget(o, F_SKIPPED);
        if (v == NULL)
            goto fail_o;
        int skipped = PyObject_IsTrue(v);
        Py_DECREF(v);
        if (skipped < 0)
            goto fail_o;
        if (skipped)
            code |= 1;
        else {
            v = oget(o, F_PASSED);
            if (v == NULL)
                goto fail_o;
            t = PyObject_IsTrue(v);
            Py_DECREF(v);
            if (t < 0)
                goto fail_o;
            if (t)
                code |= 2;
        }
        v = oget(o, F_ASKED);
        if (v == NULL)
            goto fail_o;
        t = PyObject_IsTrue(v);
        Py_DECREF(v);
        if (t < 0)
            goto fail_o;
        if (t)
            code |= 4;
        t = PyObject_IsTrue(PyTuple_GET_ITEM(udt, i));
        if (t < 0)
            goto fail_o;
        if (t) {
            v = oget(o, F_EVIDENCE);
            if (v == NULL)
                goto fail_o;
            t = uses_default(v);
            Py_DECREF(v);
            if (t < 0)
                goto fail_o;
            if (t)
                code |= 8;
        }
        /* 16 budget_exceeded, 32 config_invalid, 64 a value (not None) */
        v = oget(o, F_BUDGET_EXCEEDED);
        t = v ? PyObject_IsTrue(v) : -1;
        Py_XDECREF(v);
        if (t < 0)
            goto fail_o;
        if (t)
            code |= 16;
        v = oget(o, F_CONFIG_INVALID);
        t = v ? PyObject_IsTrue(v) : -1;
        Py_XDECREF(v);
        if (t < 0)
            goto fail_o;
        if (t)
            code |= 32;
        v = oget(o, F_VALUE);
        if (v == NULL)
            goto fail_o;
        if (v != Py_None)
            code |= 64;
        Py_DECREF(v);
        if (skipped) {
            a = oget(o, F_SKIP_CLASS);
            b = a ? oget(o, F_LACKED) : NULL;
            if (b == NULL)
                goto fail_o;
        } else if (want_saw) {
            a = oget(o, F_SAW);
            if (a == NULL)
                goto fail_o;
        }
        Py_DECREF(o);
        o = NULL;
        v = PyLong_FromLong(code);
        if (v == NULL || PyList_Append(sig, v) < 0 || (a && PyList_Append(sig, a) < 0) ||
            (b && PyList_Append(sig, b) < 0)) {
            Py_XDECREF(v);
            Py_XDECREF(a);
            Py_XDECREF(b);
            goto fail;
        }
        Py_DECREF(v);
        Py_XDECREF(a);
        Py_XDECREF(b);
        continue;
    fail_o:
        Py_XDECREF(a);
        Py_XDECREF(b);
        Py_DECREF(o);
        goto fail;
    }
    PyObject *tup = PyList_AsTuple(sig);
    Py_DECREF(sig);
    return tup;
fail:
    Py_DECREF(sig);
    return NULL;
}

static PyMethodDef methods[] = {
    {"fill", (PyCFunction)(void (*)(void))fill, METH_FASTCALL,
     "fill(template, judged, uncertainty, max_evidence) -> one built-in rule result dict"},
    {"with_outcome", (PyCFunction)(void (*)(void))with_outcome, METH_FASTCALL,
     "with_outcome(proto, outcome) -> a copy of the slotted proto with its outcome slot replaced"},
    {"copy_json", copy_json, METH_O, "copy_json(tree) -> a copy whose every dict and list is new"},
    {"refill", (PyCFunction)(void (*)(void))refill, METH_FASTCALL,
     "refill(results, outcomes, max_evidence) -> None; sets the outcome-valued fields of a planned evaluation's rule results"},
    {"refill_values", (PyCFunction)(void (*)(void))refill_values, METH_FASTCALL,
     "refill_values(templates, slots, outcomes, max_evidence) -> per rule its values, the outcome's set"},
    {"means", (PyCFunction)(void (*)(void))means, METH_FASTCALL,
     "means(outcomes, groups) -> the rounded weighted mean score of each group"},
    {"weighted", (PyCFunction)(void (*)(void))weighted, METH_FASTCALL,
     "weighted(outcomes, idx, weights, wsum) -> the weighted mean score of the rows idx"},
    {"signature", (PyCFunction)(void (*)(void))signature, METH_FASTCALL,
     "signature(outcomes, udt_rows, want_saw) -> the plan key part the outcomes give"},
    {"new_outcome", (PyCFunction)(void (*)(void))new_outcome, METH_FASTCALL,
     "new_outcome(cls, passed, ..., notes) -> cls(passed, ..., notes), its slots stored directly"},
    {"round4", round4, METH_O, "round4(x) -> round(x, 4), without a decimal conversion when none can matter"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_resultkernel", "Built-in rule result dicts, in C.", -1, methods,
    NULL, NULL, NULL, NULL,
};

#define INTERN(var, text)                                                                  \
    do {                                                                                   \
        if ((var = PyUnicode_InternFromString(text)) == NULL)                              \
            return NULL;                                                                   \
    } while (0)

PyMODINIT_FUNC PyInit__resultkernel(void) {
    INTERN(s_outcome, "outcome");
    INTERN(s_classes, "classes");
    INTERN(s_rule_id, "rule_id");
    INTERN(s_asked, "asked");
    INTERN(s_skipped, "skipped");
    INTERN(s_passed, "passed");
    INTERN(s_score, "score");
    INTERN(s_message, "message");
    INTERN(s_saw, "saw");
    INTERN(s_evidence, "evidence");
    INTERN(s_skip_class, "skip_class");
    INTERN(s_skip_reason, "skip_reason");
    INTERN(s_lacked, "lacked");
    INTERN(s_budget_exceeded, "budget_exceeded");
    INTERN(s_config_invalid, "config_invalid");
    INTERN(s_value, "value");
    INTERN(s_notes, "notes");
    INTERN(s_round, "__round__");
    INTERN(k_verdict, "verdict");
    INTERN(k_passed, "passed");
    INTERN(k_skipped, "skipped");
    INTERN(k_score, "score");
    INTERN(k_message, "message");
    INTERN(k_classes, "classes");
    INTERN(k_saw, "saw");
    INTERN(k_evidence, "evidence");
    INTERN(k_uncertainty, "uncertainty");
    INTERN(k_ruleId, "ruleId");
    INTERN(k_skipClass, "skipClass");
    INTERN(k_skipReason, "skipReason");
    INTERN(k_lacked, "lacked");
    INTERN(k_budgetExceeded, "budgetExceeded");
    INTERN(k_configInvalid, "configInvalid");
    INTERN(k_value, "value");
    INTERN(k_asked, "asked");
    INTERN(v_skipped, "skipped");
    INTERN(v_pass, "pass");
    INTERN(v_fail, "fail");
    INTERN(s_get, "get");
    INTERN(k_type, "type");
    INTERN(k_thresholdSource, "thresholdSource");
    INTERN(v_count, "count");
    INTERN(v_default, "default");
    if ((four = PyLong_FromLong(4)) == NULL)
        return NULL;
    return PyModule_Create(&module);
}
