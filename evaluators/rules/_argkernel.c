/*
 * evaluators.rules._argkernel: valid_tool_arguments' plain schema check, in C.
 *
 * One function, equal to the pure-Python reference ``_plainly_valid_py`` in
 * evaluators/rules/completeness.py, which stays the fallback:
 *
 *   plainly_valid(schema, value, keywords) -> True | False | None
 *
 * ``keywords`` is the frozenset ``_PLAIN_KEYWORDS``. True and False are the
 * reference's answers (True: the value certainly validates; False: not
 * proven, and jsonschema decides). None means "not decided here": the walk
 * met a schema part whose behaviour a subclass could change (a dict, list or
 * str subclass where the reference indexes, iterates or hashes it), and the
 * caller then runs the reference itself. Errors the reference raises (an
 * unhashable ``required`` entry) are raised the same way.
 *
 * Why this exists: the reference is a few dozen bytecodes per schema level
 * and is called for every checked tool call; catalogue schemas are almost
 * always a few typed properties, which this walks without the interpreter.
 *
 * Each block below names the line of the reference it mirrors.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define MAX_DEPTH 16 /* the reference's ``depth > 16`` */

enum { NOT_PROVEN = 0, VALID = 1, UNDECIDED = 2, FAILED = -1 };

static PyObject *s_type, *s_enum, *s_properties, *s_required, *s_additional;
static PyObject *s_object, *s_array, *s_string, *s_number, *s_integer, *s_boolean, *s_null;

/* ``vt in _PLAIN_TYPES[name]``: 1 yes, 0 no, -1 unknown name (the reference
 * then answers False), 2 undecided (a str subclass: its hash and equality
 * decide the reference's dict lookup). */
static int type_matches(PyObject *name, PyTypeObject *vt) {
    if (!PyUnicode_Check(name))
        return -1; /* ``_PLAIN_TYPES.get(n) if isinstance(n, str) else None`` */
    if (!PyUnicode_CheckExact(name))
        return 2;
    if (PyUnicode_Compare(name, s_object) == 0)
        return vt == &PyDict_Type;
    if (PyUnicode_Compare(name, s_array) == 0)
        return vt == &PyList_Type;
    if (PyUnicode_Compare(name, s_string) == 0)
        return vt == &PyUnicode_Type;
    if (PyUnicode_Compare(name, s_number) == 0) /* (int, float): bool is its own type */
        return vt == &PyLong_Type || vt == &PyFloat_Type;
    if (PyUnicode_Compare(name, s_integer) == 0)
        return vt == &PyLong_Type;
    if (PyUnicode_Compare(name, s_boolean) == 0)
        return vt == &PyBool_Type;
    if (PyUnicode_Compare(name, s_null) == 0)
        return vt == Py_TYPE(Py_None);
    return -1;
}

static int walk(PyObject *schema, PyObject *value, PyObject *keywords, int depth) {
    /* if schema is True: return True */
    if (schema == Py_True)
        return VALID;
    /* if not isinstance(schema, dict) or depth > 16 or not issuperset: False */
    if (!PyDict_Check(schema) || depth > MAX_DEPTH)
        return NOT_PROVEN;
    if (!PyDict_CheckExact(schema))
        return UNDECIDED;
    {
        Py_ssize_t pos = 0;
        PyObject *key, *unused;
        while (PyDict_Next(schema, &pos, &key, &unused)) {
            int in = PySet_Contains(keywords, key);
            if (in < 0)
                return FAILED;
            if (!in)
                return NOT_PROVEN;
        }
    }
    PyTypeObject *vt = Py_TYPE(value);
    /* ``vt in types`` compares type objects; only a metaclass could make
     * that anything but identity */
    if (Py_TYPE(vt) != &PyType_Type)
        return UNDECIDED;
    /* if "type" in schema: names = schema["type"] ... for n in names: ... */
    PyObject *names = PyDict_GetItemWithError(schema, s_type);
    if (names == NULL && PyErr_Occurred())
        return FAILED;
    if (names != NULL) {
        if (PyUnicode_Check(names)) {
            int m = type_matches(names, vt);
            if (m == 2)
                return UNDECIDED;
            if (m != 1) /* unknown name, or the for loop's else */
                return NOT_PROVEN;
        } else if (!PyList_Check(names)) {
            return NOT_PROVEN;
        } else if (!PyList_CheckExact(names)) {
            return UNDECIDED;
        } else {
            int matched = 0;
            for (Py_ssize_t i = 0; i < PyList_GET_SIZE(names) && !matched; i++) {
                int m = type_matches(PyList_GET_ITEM(names, i), vt);
                if (m == 2)
                    return UNDECIDED;
                if (m == -1)
                    return NOT_PROVEN;
                matched = m;
            }
            if (!matched)
                return NOT_PROVEN;
        }
    }
    /* if "enum" in schema: options must be a list holding a str equal to value */
    PyObject *options = PyDict_GetItemWithError(schema, s_enum);
    if (options == NULL && PyErr_Occurred())
        return FAILED;
    if (options != NULL) {
        if (vt != &PyUnicode_Type || !PyList_Check(options))
            return NOT_PROVEN;
        if (!PyList_CheckExact(options))
            return UNDECIDED;
        int found = 0;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(options) && !found; i++) {
            PyObject *o = PyList_GET_ITEM(options, i);
            if (Py_TYPE(o) == &PyUnicode_Type) /* type(o) is str and o == value */
                found = PyUnicode_Compare(o, value) == 0;
        }
        if (!found)
            return NOT_PROVEN;
    }
    /* if type(value) is not dict: return True */
    if (vt != &PyDict_Type)
        return VALID;
    /* props = schema.get("properties", {}); must be a dict */
    PyObject *props = PyDict_GetItemWithError(schema, s_properties);
    if (props == NULL && PyErr_Occurred())
        return FAILED;
    if (props != NULL && !PyDict_Check(props))
        return NOT_PROVEN;
    if (props != NULL && !PyDict_CheckExact(props))
        return UNDECIDED;
    /* required = schema.get("required", []); a list, each entry in value */
    PyObject *required = PyDict_GetItemWithError(schema, s_required);
    if (required == NULL && PyErr_Occurred())
        return FAILED;
    if (required != NULL) {
        if (!PyList_Check(required))
            return NOT_PROVEN;
        if (!PyList_CheckExact(required))
            return UNDECIDED;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(required); i++) {
            int in = PyDict_Contains(value, PyList_GET_ITEM(required, i));
            if (in < 0)
                return FAILED;
            if (!in)
                return NOT_PROVEN;
        }
    }
    /* extra = schema.get("additionalProperties", True): True, or False with
     * every key of value among props */
    PyObject *extra = PyDict_GetItemWithError(schema, s_additional);
    if (extra == NULL && PyErr_Occurred())
        return FAILED;
    if (extra != NULL && extra != Py_True) {
        if (extra != Py_False)
            return NOT_PROVEN;
        Py_ssize_t pos = 0;
        PyObject *key, *unused;
        while (PyDict_Next(value, &pos, &key, &unused)) {
            int in = props == NULL ? 0 : PyDict_Contains(props, key);
            if (in < 0)
                return FAILED;
            if (!in)
                return NOT_PROVEN;
        }
    }
    /* for k, sub in props.items(): if k in value and not _plainly_valid(...) */
    if (props != NULL) {
        Py_ssize_t pos = 0;
        PyObject *key, *sub;
        while (PyDict_Next(props, &pos, &key, &sub)) {
            PyObject *item = PyDict_GetItemWithError(value, key);
            if (item == NULL) {
                if (PyErr_Occurred())
                    return FAILED;
                continue;
            }
            /* the walk may run arbitrary code nowhere (exact types only), so
             * the borrowed references stay valid */
            int r = walk(sub, item, keywords, depth + 1);
            if (r != VALID)
                return r;
        }
    }
    return VALID;
}

static PyObject *plainly_valid(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError,
                        "plainly_valid(schema, value, keywords) takes three arguments");
        return NULL;
    }
    if (!PyFrozenSet_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "plainly_valid: keywords must be a frozenset");
        return NULL;
    }
    switch (walk(args[0], args[1], args[2], 0)) {
    case VALID:
        Py_RETURN_TRUE;
    case NOT_PROVEN:
        Py_RETURN_FALSE;
    case UNDECIDED:
        Py_RETURN_NONE;
    default:
        return NULL;
    }
}

static PyMethodDef methods[] = {
    {"plainly_valid", (PyCFunction)(void (*)(void))plainly_valid, METH_FASTCALL,
     "plainly_valid(schema, value, keywords) -> True, False, or None (ask the reference)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "evaluators.rules._argkernel",
    "valid_tool_arguments' plain schema check (see evaluators/rules/completeness.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

static int intern(PyObject **slot, const char *text) {
    *slot = PyUnicode_InternFromString(text);
    return *slot == NULL ? -1 : 0;
}

PyMODINIT_FUNC PyInit__argkernel(void) {
    if (intern(&s_type, "type") < 0 || intern(&s_enum, "enum") < 0 ||
        intern(&s_properties, "properties") < 0 || intern(&s_required, "required") < 0 ||
        intern(&s_additional, "additionalProperties") < 0 || intern(&s_object, "object") < 0 ||
        intern(&s_array, "array") < 0 || intern(&s_string, "string") < 0 ||
        intern(&s_number, "number") < 0 || intern(&s_integer, "integer") < 0 ||
        intern(&s_boolean, "boolean") < 0 || intern(&s_null, "null") < 0)
        return NULL;
    return PyModule_Create(&module);
}
