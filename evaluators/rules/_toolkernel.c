/*
 * evaluators.rules._toolkernel: the failure verdict of a string tool output.
 *
 * One function, equal to the pure-Python reference ``_string_failure_reference``
 * in evaluators/rules/tool_failure.py, which stays the fallback:
 *
 *   string_failure(text, prefixes, phrases) -> str | None | False
 *
 * It reads the first non-blank line of ``text[:400]`` (``_first_line``),
 * lowercases it and decides as the reference does, in the same order:
 *
 * 1. the line starts with one of ``prefixes`` (ERROR_LINE_PREFIXES, table
 *    order) -> "first line starts with 'p.strip()'";
 * 2. the token before the first colon (stripped, after its last space and
 *    its last dot) ends with error/exception/fault, is not "error"/"errors"
 *    and is an identifier -> "first line names a throwable (<as written>)";
 * 3. the line starts with "exit code " or "exit status " and the next word is
 *    a non-zero integer -> "exit code <word>";
 * 4. the line holds one of ``phrases`` (ERROR_LINE_PHRASES, table order)
 *    -> "first line says 'ph'".
 *
 * Why: grounded_in_reads and no_silent_tool_failure ask for every string
 * step's verdict; the reference builds five strings (slice, strip, split,
 * lower, rsplit twice) and runs a dozen Python-level tests per output.
 *
 * It only decides an ASCII line reached through ASCII whitespace: any other
 * character before the end of the first line (where ``str.strip`` and
 * ``str.lower`` follow Unicode rules, "İ" lowering to two characters) makes
 * it return False, and the caller runs the reference. So does a number the
 * reference's ``int()`` refuses ("--5"), which the reference raises on.
 * ASCII whitespace is what ``str.isspace`` accepts below 128: \t \n \v \f \r,
 * \x1c-\x1f and the space. Every PyUnicode kind is read (PyUnicode_READ).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define HEAD 400 /* _string_failure reads text[:400] */

static inline int ascii_space(Py_UCS4 c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* Whether low[0:n] starts with the ASCII str lit (no lowering: lit is lower). */
static int starts_with(const char *low, Py_ssize_t n, PyObject *lit) {
    Py_ssize_t m;
    const char *s = PyUnicode_AsUTF8AndSize(lit, &m);
    return s != NULL && m <= n && memcmp(low, s, (size_t)m) == 0;
}

static int contains(const char *low, Py_ssize_t n, const char *s, Py_ssize_t m) {
    if (m == 0)
        return 1;
    for (Py_ssize_t i = 0; i + m <= n; i++)
        if (low[i] == s[0] && memcmp(low + i, s, (size_t)m) == 0)
            return 1;
    return 0;
}

/* ``p.strip()`` of an ASCII literal, as a new str. */
static PyObject *stripped(PyObject *lit) {
    Py_ssize_t m;
    const char *s = PyUnicode_AsUTF8AndSize(lit, &m);
    if (s == NULL)
        return NULL;
    Py_ssize_t a = 0, b = m;
    while (a < b && ascii_space((unsigned char)s[a]))
        a++;
    while (b > a && ascii_space((unsigned char)s[b - 1]))
        b--;
    return PyUnicode_FromStringAndSize(s + a, b - a);
}

static int ends_with(const char *s, Py_ssize_t n, const char *suf) {
    Py_ssize_t m = (Py_ssize_t)strlen(suf);
    return n >= m && memcmp(s + n - m, suf, (size_t)m) == 0;
}

/* Mirrors the colon test of _string_failure_reference on the lowered line:
 * head_tok = low[:colon].strip().rsplit(" ", 1)[-1].rsplit(".", 1)[-1]. */
static int names_throwable(const char *low, Py_ssize_t colon) {
    Py_ssize_t a = 0, b = colon;
    while (a < b && ascii_space((unsigned char)low[a]))
        a++;
    while (b > a && ascii_space((unsigned char)low[b - 1]))
        b--;
    for (Py_ssize_t i = b; i > a; i--)
        if (low[i - 1] == ' ') {
            a = i;
            break;
        }
    for (Py_ssize_t i = b; i > a; i--)
        if (low[i - 1] == '.') {
            a = i;
            break;
        }
    const char *t = low + a;
    Py_ssize_t n = b - a;
    if (!(ends_with(t, n, "error") || ends_with(t, n, "exception") || ends_with(t, n, "fault")))
        return 0;
    if ((n == 5 && memcmp(t, "error", 5) == 0) || (n == 6 && memcmp(t, "errors", 6) == 0))
        return 0;
    /* str.isidentifier on lowercase ASCII: [a-z_][a-z0-9_]* (n >= 5 here) */
    if (!((t[0] >= 'a' && t[0] <= 'z') || t[0] == '_'))
        return 0;
    for (Py_ssize_t i = 1; i < n; i++) {
        char c = t[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return 0;
    }
    return 1;
}

static PyObject *string_failure(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3 || !PyUnicode_Check(args[0]) || !PyTuple_Check(args[1]) ||
        !PyTuple_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "string_failure(text: str, prefixes: tuple, phrases: tuple)");
        return NULL;
    }
    PyObject *text = args[0], *prefixes = args[1], *phrases = args[2];
    for (int t = 1; t <= 2; t++)
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(args[t]); k++) {
            PyObject *lit = PyTuple_GET_ITEM(args[t], k);
            if (!PyUnicode_Check(lit) || !PyUnicode_IS_ASCII(lit)) {
                PyErr_SetString(PyExc_TypeError, "the tables hold ASCII str");
                return NULL;
            }
        }
    if (PyUnicode_READY(text) < 0)
        return NULL;
    const int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    if (len > HEAD)
        len = HEAD;

    /* _first_line: head.lstrip().split("\n", 1)[0].rstrip() */
    Py_ssize_t a = 0;
    while (a < len) {
        Py_UCS4 c = PyUnicode_READ(kind, data, a);
        if (c >= 128)
            Py_RETURN_FALSE; /* Unicode whitespace or a letter: the reference decides */
        if (!ascii_space(c))
            break;
        a++;
    }
    Py_ssize_t b = a;
    while (b < len) {
        Py_UCS4 c = PyUnicode_READ(kind, data, b);
        if (c >= 128)
            Py_RETURN_FALSE;
        if (c == '\n')
            break;
        b++;
    }
    while (b > a && ascii_space(PyUnicode_READ(kind, data, b - 1)))
        b--;
    Py_ssize_t n = b - a;
    if (n == 0)
        Py_RETURN_NONE; /* no non-blank line */
    char first[HEAD], low[HEAD];
    for (Py_ssize_t i = 0; i < n; i++) {
        char c = (char)PyUnicode_READ(kind, data, a + i);
        first[i] = c;
        low[i] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
    }

    /* 1. prefixes, in table order */
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(prefixes); k++) {
        PyObject *p = PyTuple_GET_ITEM(prefixes, k);
        if (starts_with(low, n, p)) {
            PyObject *s = stripped(p);
            if (s == NULL)
                return NULL;
            PyObject *out = PyUnicode_FromFormat("first line starts with %R", s);
            Py_DECREF(s);
            return out;
        }
    }
    /* 2. a throwable named before the first colon */
    const char *colon_at = memchr(low, ':', (size_t)n);
    Py_ssize_t colon = colon_at ? colon_at - low : -1;
    if (colon > 0 && names_throwable(low, colon)) {
        Py_ssize_t x = 0, y = colon; /* first[:colon].strip() */
        while (x < y && ascii_space((unsigned char)first[x]))
            x++;
        while (y > x && ascii_space((unsigned char)first[y - 1]))
            y--;
        PyObject *name = PyUnicode_FromStringAndSize(first + x, y - x);
        if (name == NULL)
            return NULL;
        PyObject *out = PyUnicode_FromFormat("first line names a throwable (%U)", name);
        Py_DECREF(name);
        return out;
    }
    /* 3. "exit code N" / "exit status N" at the start, N a non-zero integer */
    static const char *const pres[2] = {"exit code ", "exit status "};
    for (int k = 0; k < 2; k++) {
        Py_ssize_t m = (Py_ssize_t)strlen(pres[k]);
        if (n < m || memcmp(low, pres[k], (size_t)m) != 0)
            continue;
        Py_ssize_t i = m; /* num = low[m:].split()[0] */
        while (i < n && ascii_space((unsigned char)low[i]))
            i++;
        Py_ssize_t j = i;
        while (j < n && !ascii_space((unsigned char)low[j]))
            j++;
        Py_ssize_t d = i; /* num.lstrip("-").isdigit() */
        while (d < j && low[d] == '-')
            d++;
        if (d == j)
            continue; /* "" or only dashes: not digits */
        int digits = 1, nonzero = 0;
        for (Py_ssize_t q = d; q < j; q++) {
            if (low[q] < '0' || low[q] > '9') {
                digits = 0;
                break;
            }
            nonzero |= low[q] != '0';
        }
        if (!digits)
            continue;
        if (d - i > 1)
            Py_RETURN_FALSE; /* int("--5") raises: the reference raises it */
        if (!nonzero)
            continue;
        char msg[HEAD + 16]; /* f"{pre.strip()} {num}" */
        memcpy(msg, pres[k], (size_t)m); /* pre ends with its one space */
        memcpy(msg + m, low + i, (size_t)(j - i));
        return PyUnicode_FromStringAndSize(msg, m + (j - i));
    }
    /* 4. phrases, in table order */
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(phrases); k++) {
        PyObject *ph = PyTuple_GET_ITEM(phrases, k);
        Py_ssize_t m;
        const char *s = PyUnicode_AsUTF8AndSize(ph, &m);
        if (s == NULL)
            return NULL;
        if (contains(low, n, s, m))
            return PyUnicode_FromFormat("first line says %R", ph);
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"string_failure", (PyCFunction)(void (*)(void))string_failure, METH_FASTCALL,
     "string_failure(text, prefixes, phrases) -> reason, None, or False (undecided)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "evaluators.rules._toolkernel",
    "The failure verdict of a string tool output (see evaluators/rules/tool_failure.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__toolkernel(void) { return PyModule_Create(&module); }
