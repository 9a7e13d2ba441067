/*
 * evaluators.rules._keykernel: the JSON text forms of a tool step's input,
 * in C, for plain JSON values.
 *
 * Three functions, each equal to a pure-Python reference that stays the
 * fallback:
 *
 * ``norm_input(value)`` is ``completeness._norm_input_reference(value)``, the
 * loop key's input normalisation (no_tool_loop's per-step key, tool_sequence's
 * exact-argument match): ``"\x00none"`` for None; otherwise the value as
 * ``canonical(_drop_none(value))`` (a str as itself), whitespace collapsed
 * (``" ".join(s.split())``) and capped at 500 characters plus ``#<length>``.
 *
 * ``sorted_text(value)`` is ``jsontext.sorted_text(value)``, that is
 * ``json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)``:
 * what ``context.as_text`` gives a step's non-str input or output; and
 * ``sorted_ascii(value)``, ``jsontext.sorted_ascii(value)`` (the same with
 * ensure_ascii on): valid_tool_arguments' key for a compiled schema.
 *
 * Each returns None, and the caller runs the reference, for any value that
 * is not a tree of exact dicts with str keys, exact lists, exact str, exact
 * int, exact float, True, False and None, or that nests deeper than
 * MAX_DEPTH (so a circular value, a subclass with its own behaviour, a
 * tuple, an object ``default=str`` would convert and every error case are
 * decided by the reference, with its exceptions). An error met while
 * writing (an int too long for ``str()``) is cleared and answered None too.
 *
 * Why: a step input is nearly always a small flat dict ({"path": ...}), and
 * for that the reference's Python layers (``_drop_none`` rebuilding the
 * dict, the encoder call, the split and join) cost several times the text.
 *
 * The text is the json C encoder's (Modules/_json.c, Python 3.11) for these
 * types: ``null``/``true``/``false``; an int by ``int.__repr__``; a float by
 * ``float.__repr__`` when finite, else ``NaN``/``Infinity``/``-Infinity``
 * (allow_nan); a str quoted with ``"``, ``\``, ``\n``, ``\r``, ``\t``,
 * ``\b``, ``\f`` escaped and every other code point below 0x20 as
 * ``\u00xx`` (lowercase hex), everything else written as is (ensure_ascii
 * off); a list as ``[`` items joined by the item separator ``]``; a dict as
 * ``{`` key, key separator, value, joined by the item separator ``}``, keys
 * sorted (sort_keys sorts the items; str keys are distinct, so that is the
 * order of the keys by code point). ``_drop_none`` drops a dict item whose
 * value is None, at every depth, and keeps None inside a list.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

#define MAX_DEPTH 64
#define NORM_CAP 500

typedef struct {
    const char *item_sep;
    const char *key_sep;
    int drop_none;
    int ensure_ascii;
} style_t;

static const style_t CANONICAL = {",", ":", 1, 0}; /* canonical(_drop_none(v)) */
static const style_t SORTED_TEXT = {", ", ": ", 0, 0}; /* sorted_text(v) */
static const style_t SORTED_ASCII = {", ", ": ", 0, 1}; /* sorted_ascii(v) */

static int write_ascii(_PyUnicodeWriter *w, const char *s) {
    return _PyUnicodeWriter_WriteASCIIString(w, s, (Py_ssize_t)strlen(s));
}

static int write_u(_PyUnicodeWriter *w, Py_UCS4 c) { /* \uxxxx, lowercase hex */
    static const char hex[] = "0123456789abcdef";
    char esc[7] = {'\\', 'u', hex[(c >> 12) & 0xf], hex[(c >> 8) & 0xf], hex[(c >> 4) & 0xf],
                   hex[c & 0xf], 0};
    return write_ascii(w, esc);
}

/* encode_basestring(s) (ensure_ascii off) or encode_basestring_ascii(s)
 * (on): the json string literal of s. With ensure_ascii every character
 * outside ' '..'~' is escaped too, as \uxxxx, a non-BMP one as its UTF-16
 * surrogate pair (Modules/_json.c ascii_escape_unichar). */
static int write_str(_PyUnicodeWriter *w, PyObject *s, int ensure_ascii) {
    int kind = PyUnicode_KIND(s);
    const void *d = PyUnicode_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s), run = 0;
    if (_PyUnicodeWriter_WriteChar(w, '"') < 0) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, d, i);
        if (c >= 0x20 && c != '"' && c != '\\' && (!ensure_ascii || c <= '~')) continue;
        if (i > run && _PyUnicodeWriter_WriteSubstring(w, s, run, i) < 0) return -1;
        run = i + 1;
        if (c > '~') { /* ensure_ascii */
            if (c >= 0x10000) {
                Py_UCS4 v = c - 0x10000;
                if (write_u(w, 0xd800 | ((v >> 10) & 0x3ff)) < 0) return -1;
                c = 0xdc00 | (v & 0x3ff);
            }
            if (write_u(w, c) < 0) return -1;
            continue;
        }
        if (i > run && _PyUnicodeWriter_WriteSubstring(w, s, run, i) < 0) return -1;
        run = i + 1;
        char esc[7] = {'\\', 0, 0, 0, 0, 0, 0};
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        default:
            esc[1] = 'u';
            esc[2] = '0';
            esc[3] = '0';
            esc[4] = "0123456789abcdef"[(c >> 4) & 0xf];
            esc[5] = "0123456789abcdef"[c & 0xf];
        }
        if (write_ascii(w, esc) < 0) return -1;
    }
    if (n > run && _PyUnicodeWriter_WriteSubstring(w, s, run, n) < 0) return -1;
    return _PyUnicodeWriter_WriteChar(w, '"');
}

static int write_repr(_PyUnicodeWriter *w, PyObject *v, reprfunc repr) {
    PyObject *r = repr(v);
    if (r == NULL) return -1;
    int rc = _PyUnicodeWriter_WriteStr(w, r);
    Py_DECREF(r);
    return rc;
}

/* 1 written, 0 not a plain value (nothing to use), -1 error. */
static int write_value(_PyUnicodeWriter *w, PyObject *v, const style_t *st, int depth) {
    if (depth > MAX_DEPTH) return 0;
    if (v == Py_None) return write_ascii(w, "null") < 0 ? -1 : 1;
    if (v == Py_True) return write_ascii(w, "true") < 0 ? -1 : 1;
    if (v == Py_False) return write_ascii(w, "false") < 0 ? -1 : 1;
    if (PyUnicode_CheckExact(v)) {
        if (PyUnicode_READY(v) < 0) return -1;
        return write_str(w, v, st->ensure_ascii) < 0 ? -1 : 1;
    }
    if (PyLong_CheckExact(v)) return write_repr(w, v, PyLong_Type.tp_repr) < 0 ? -1 : 1;
    if (PyFloat_CheckExact(v)) {
        double x = PyFloat_AS_DOUBLE(v);
        if (isfinite(x)) return write_repr(w, v, PyFloat_Type.tp_repr) < 0 ? -1 : 1;
        const char *lit = isnan(x) ? "NaN" : (x > 0 ? "Infinity" : "-Infinity");
        return write_ascii(w, lit) < 0 ? -1 : 1;
    }
    if (PyList_CheckExact(v)) {
        if (_PyUnicodeWriter_WriteChar(w, '[') < 0) return -1;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(v); i++) {
            if (i && write_ascii(w, st->item_sep) < 0) return -1;
            int r = write_value(w, PyList_GET_ITEM(v, i), st, depth + 1);
            if (r <= 0) return r;
        }
        return _PyUnicodeWriter_WriteChar(w, ']') < 0 ? -1 : 1;
    }
    if (PyDict_CheckExact(v)) {
        PyObject *keys = PyList_New(0);
        if (keys == NULL) return -1;
        PyObject *k, *x;
        Py_ssize_t pos = 0;
        int result = -1;
        while (PyDict_Next(v, &pos, &k, &x)) {
            if (!PyUnicode_CheckExact(k)) {
                result = 0;
                goto done;
            }
            if (st->drop_none && x == Py_None) continue;
            if (PyList_Append(keys, k) < 0) goto done;
        }
        /* exact str keys compare without running Python code */
        if (PyList_Sort(keys) < 0) goto done;
        if (_PyUnicodeWriter_WriteChar(w, '{') < 0) goto done;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(keys); i++) {
            k = PyList_GET_ITEM(keys, i);
            x = PyDict_GetItemWithError(v, k); /* borrowed */
            if (x == NULL) {
                if (!PyErr_Occurred()) result = 0;
                goto done;
            }
            if (i && write_ascii(w, st->item_sep) < 0) goto done;
            if (PyUnicode_READY(k) < 0 || write_str(w, k, st->ensure_ascii) < 0) goto done;
            if (write_ascii(w, st->key_sep) < 0) goto done;
            int r = write_value(w, x, st, depth + 1);
            if (r <= 0) {
                result = r;
                goto done;
            }
        }
        result = _PyUnicodeWriter_WriteChar(w, '}') < 0 ? -1 : 1;
    done:
        Py_DECREF(keys);
        return result;
    }
    return 0;
}

/* The json text of v in style st (a new reference), Py_None when v is not a
 * plain value, NULL on error. */
static PyObject *dumps(PyObject *v, const style_t *st) {
    _PyUnicodeWriter w;
    _PyUnicodeWriter_Init(&w);
    w.overallocate = 1;
    int r = write_value(&w, v, st, 0);
    if (r <= 0) {
        _PyUnicodeWriter_Dealloc(&w);
        /* an error here (an int too long for str(), no memory) is the
         * reference's to raise or answer, as it does on its own path */
        if (r < 0) PyErr_Clear();
        Py_RETURN_NONE;
    }
    return _PyUnicodeWriter_Finish(&w);
}

static PyObject *sorted_text(PyObject *self, PyObject *value) {
    (void)self;
    return dumps(value, &SORTED_TEXT);
}

static PyObject *sorted_ascii(PyObject *self, PyObject *value) {
    (void)self;
    return dumps(value, &SORTED_ASCII);
}

/* " ".join(s.split()), then capped as norm_input caps: s[:500] + "#" + len. */
static PyObject *collapse_and_cap(PyObject *s) {
    if (PyUnicode_READY(s) < 0) return NULL;
    int kind = PyUnicode_KIND(s);
    const void *d = PyUnicode_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    _PyUnicodeWriter w;
    _PyUnicodeWriter_Init(&w);
    w.overallocate = 1;
    Py_ssize_t i = 0, len = 0;
    while (i < n) {
        while (i < n && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, d, i))) i++;
        if (i >= n) break;
        Py_ssize_t a = i;
        while (i < n && !Py_UNICODE_ISSPACE(PyUnicode_READ(kind, d, i))) i++;
        if (len && _PyUnicodeWriter_WriteChar(&w, ' ') < 0) goto error;
        if (_PyUnicodeWriter_WriteSubstring(&w, s, a, i) < 0) goto error;
        len += (len ? 1 : 0) + (i - a);
    }
    PyObject *joined = _PyUnicodeWriter_Finish(&w);
    if (joined == NULL || len <= NORM_CAP) return joined;
    PyObject *head = PyUnicode_Substring(joined, 0, NORM_CAP);
    Py_DECREF(joined);
    if (head == NULL) return NULL;
    PyObject *out = PyUnicode_FromFormat("%U#%zd", head, len);
    Py_DECREF(head);
    return out;
error:
    _PyUnicodeWriter_Dealloc(&w);
    return NULL;
}

static PyObject *norm_input(PyObject *self, PyObject *value) {
    (void)self;
    if (value == Py_None) return PyUnicode_FromStringAndSize("\0none", 5);
    if (PyUnicode_Check(value)) return collapse_and_cap(value);
    PyObject *s = dumps(value, &CANONICAL);
    if (s == NULL || s == Py_None) return s;
    PyObject *out = collapse_and_cap(s);
    Py_DECREF(s);
    return out;
}

static PyMethodDef methods[] = {
    {"norm_input", norm_input, METH_O,
     "norm_input(value) -> the loop key's input text, or None for the reference to decide."},
    {"sorted_text", sorted_text, METH_O,
     "sorted_text(value) -> json.dumps(value, sort_keys=True, ensure_ascii=False), or None."},
    {"sorted_ascii", sorted_ascii, METH_O,
     "sorted_ascii(value) -> json.dumps(value, sort_keys=True), or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "evaluators.rules._keykernel",
    "The JSON text forms of a tool step's input (see evaluators/rules/completeness.py "
    "norm_input and evaluators/context.py as_text).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__keykernel(void) { return PyModule_Create(&module); }
