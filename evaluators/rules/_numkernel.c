/*
 * evaluators.rules._numkernel: the text scans of the grounded rules
 * (no_hallucination_markers, grounded_in_reads), in C.
 *
 * Twelve functions, each equal to a pure-Python reference that stays the
 * fallback: ``numbers`` (figures, below), ``locations`` and ``ground_add``
 * (grounding.py's cited locations and the ground they are checked against),
 * ``file_spans`` and ``version_spans`` (file names and versions), and
 * ``loose`` (the loop that drops estimates, years and grounded figures) and
 * ``grounded_loose`` (that loop with the grounding test done here too), and
 * ``pair_derivations`` (the material's derived figures), and ``unsupported``
 * (grounding.py's decision of which cited locations nothing read supports),
 * and ``twin_tables`` (the material's figures by digits, for near misses),
 * and ``near_misses`` (the output's figures with a twin there of another value),
 * and ``twin_candidates`` (the output's figures those signals could read at all).
 * Each section below states its contract and why the scan is the pattern's.
 *
 * Why this exists: ``hallucination_grounded.numbers`` reads every figure of
 * the output (and of the material) with a regex match per candidate start,
 * a unit lookup and an estimate-word test, then builds one ``Num`` each.
 * On a 2.5 KB output with two dozen figures that was ~170 us of the rule's
 * ~600; one pass over the characters here costs a few.
 *
 * Contract: ``numbers(text, num_type, unit_words, approx_words)`` returns
 * exactly what the pure-Python reference ``_numbers_reference`` returns: a
 * list of ``num_type`` tuples ``(value, scaled, pct, unit, approx, start,
 * end, digits)``, one per match of the reference pattern ``_NUM_UNIT``
 * (finditer order). The character classes are the ones ``re`` uses for a str
 * pattern without flags: ``\d`` is Py_UNICODE_ISDECIMAL, ``\w`` is
 * Py_UNICODE_ISALNUM or ``_``, ``\s`` is Py_UNICODE_ISSPACE; ``[A-Za-z]``
 * is ASCII. Values are parsed as ``float()`` parses them: ASCII digits by
 * the same PyOS_string_to_double call float() ends in (``ascii_value``, no
 * str built), other digits by PyFloat_FromString itself, so non-ASCII
 * digits and overflow behave as in the reference. Every PyUnicode
 * kind is read through PyUnicode_READ; the one place where Unicode case
 * folding matters (the estimate-word test on a window holding a non-ASCII
 * character) calls ``str.lower`` rather than guess.
 *
 * The pattern, and why a straight scan is the same matcher:
 *
 *   (?<![\w.])(?P<cur>[$€£])?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)
 *   (?P<suf>[kKMB](?![a-zA-Z]))?(?P<pct>\s?%)?(?=(?:\s?-?\s?(?P<unit>[A-Za-z][A-Za-z/-]*))?)
 *
 * Everything after ``num`` is optional, so once ``num`` matches the match
 * succeeds with the greedy choice of each optional part. The first
 * alternative of ``num`` needs a digit run of at most three followed by a
 * comma (a longer run meets a digit where the comma must be, at every
 * backtrack), then as many ``,ddd`` groups as follow; otherwise the second
 * alternative takes the whole digit run. In the unit lookahead each optional
 * part takes a class (space, dash) the letter after it cannot be, so the
 * greedy path is the only one that can reach a letter.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>

/* The shape of a ``Num`` (hallucination_grounded.Num, a NamedTuple of 8):
 * a float value first and, when ``digits`` is asked for, its digit string
 * last. Every function taking Nums checks them with this. */
static inline int is_num(PyObject *o, int digits) {
    return PyTuple_Check(o) && PyTuple_GET_SIZE(o) == 8 && PyFloat_Check(PyTuple_GET_ITEM(o, 0)) &&
           (!digits || PyUnicode_Check(PyTuple_GET_ITEM(o, 7)));
}

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t n;
} text_t;

static inline Py_UCS4 at(const text_t *t, Py_ssize_t i) {
    return PyUnicode_READ(t->kind, t->data, i);
}

/* Character classes of the first 256 code points, filled at import from the
 * same predicates the other code points use (so the two cannot disagree). */
enum { C_WORD = 1, C_DIGIT = 2, C_SPACE = 4, C_LETTER = 8, C_PATH = 16, C_NUMSTART = 32 };
static unsigned char CLASS[256];

static void fill_classes(void) {
    for (Py_UCS4 c = 0; c < 256; c++) {
        unsigned char k = 0;
        if (Py_UNICODE_ISALNUM(c) || c == '_') k |= C_WORD;
        if (Py_UNICODE_ISDECIMAL(c)) k |= C_DIGIT;
        if (Py_UNICODE_ISSPACE(c)) k |= C_SPACE;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) k |= C_LETTER;
        if ((k & C_LETTER) || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' ||
            c == '/')
            k |= C_PATH;
        if ((k & C_DIGIT) || c == '$' || c == 0xA3) k |= C_NUMSTART; /* [$€£\d] below 256 */
        CLASS[c] = k;
    }
}

static inline int is_digit(Py_UCS4 c) {
    return c < 256 ? (CLASS[c] & C_DIGIT) != 0 : Py_UNICODE_ISDECIMAL(c);
}

static inline int is_word(Py_UCS4 c) {
    return c < 256 ? (CLASS[c] & C_WORD) != 0 : (Py_UNICODE_ISALNUM(c) != 0);
}

static inline int is_space(Py_UCS4 c) {
    return c < 256 ? (CLASS[c] & C_SPACE) != 0 : Py_UNICODE_ISSPACE(c);
}

static inline int is_ascii_letter(Py_UCS4 c) { return c < 256 && (CLASS[c] & C_LETTER); }

static inline int is_currency(Py_UCS4 c) { return c == '$' || c == 0x20AC || c == 0xA3; }

/* End of the run of digits starting at i (i itself when there is none). */
static Py_ssize_t digit_run(const text_t *t, Py_ssize_t i) {
    while (i < t->n && is_digit(at(t, i))) i++;
    return i;
}

/* The next ``ch`` (ASCII) at or after i, or -1 (memchr on 1-byte text). */
static Py_ssize_t next_char(const text_t *t, char ch, Py_ssize_t i) {
    if (i < 0 || i >= t->n) return -1;
    if (t->kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *d = (const Py_UCS1 *)t->data;
        const Py_UCS1 *hit = memchr(d + i, ch, (size_t)(t->n - i));
        return hit ? hit - d : -1;
    }
    for (; i < t->n; i++)
        if (at(t, i) == (Py_UCS4)ch) return i;
    return -1;
}

/* One match of the pattern, as offsets into the text. */
typedef struct {
    Py_ssize_t start, num_start, num_end, end;
    int has_comma, has_suf, has_pct;
    Py_UCS4 suf;
    Py_ssize_t unit_start, unit_end; /* unit_start < 0: no unit word */
} match_t;

/* Tries the pattern at c (a currency sign or a digit); 1 on a match. */
static int match_at(const text_t *t, Py_ssize_t c, match_t *m) {
    Py_ssize_t n = t->n;
    if (c > 0) {
        Py_UCS4 prev = at(t, c - 1);
        if (prev == '.' || is_word(prev)) return 0;
    }
    Py_ssize_t p = c;
    if (is_currency(at(t, p))) p++;
    if (p >= n || !is_digit(at(t, p))) return 0;
    m->start = c;
    m->num_start = p;
    m->has_comma = 0;
    Py_ssize_t run_end = digit_run(t, p);
    Py_ssize_t q = run_end;
    if (run_end - p <= 3) {
        /* first alternative: 1-3 digits, then one or more ",ddd" */
        Py_ssize_t g = run_end;
        while (g + 3 < n && at(t, g) == ',' && is_digit(at(t, g + 1)) && is_digit(at(t, g + 2)) &&
               is_digit(at(t, g + 3)))
            g += 4;
        if (g > run_end) {
            q = g;
            m->has_comma = 1;
        }
    }
    if (q + 1 < n && at(t, q) == '.' && is_digit(at(t, q + 1))) q = digit_run(t, q + 1);
    m->num_end = q;
    m->has_suf = 0;
    m->suf = 0;
    if (q < n) {
        Py_UCS4 s = at(t, q);
        if ((s == 'k' || s == 'K' || s == 'M' || s == 'B') &&
            !(q + 1 < n && is_ascii_letter(at(t, q + 1)))) {
            m->has_suf = 1;
            m->suf = s;
            q++;
        }
    }
    m->has_pct = 0;
    if (q < n) {
        if (is_space(at(t, q)) && q + 1 < n && at(t, q + 1) == '%') {
            m->has_pct = 1;
            q += 2;
        } else if (at(t, q) == '%') {
            m->has_pct = 1;
            q++;
        }
    }
    m->end = q;
    m->unit_start = -1;
    m->unit_end = -1;
    Py_ssize_t u = q;
    if (u < n && is_space(at(t, u))) u++;
    if (u < n && at(t, u) == '-') u++;
    if (u < n && is_space(at(t, u))) u++;
    if (u < n && is_ascii_letter(at(t, u))) {
        Py_ssize_t v = u + 1;
        while (v < n) {
            Py_UCS4 ch = at(t, v);
            if (!(is_ascii_letter(ch) || ch == '/' || ch == '-')) break;
            v++;
        }
        m->unit_start = u;
        m->unit_end = v;
    }
    return 1;
}

/* unit_words.get(key) for the ASCII characters key[0:len]: a new reference,
 * Py_None when absent, NULL on error. */
static PyObject *lookup_ascii(PyObject *unit_words, const Py_UCS1 *key, Py_ssize_t len) {
    PyObject *k = PyUnicode_New(len, 127);
    if (k == NULL) return NULL;
    memcpy(PyUnicode_1BYTE_DATA(k), key, (size_t)len);
    PyObject *v = PyDict_GetItemWithError(unit_words, k);
    Py_DECREF(k);
    if (v == NULL) {
        if (PyErr_Occurred()) return NULL;
        Py_RETURN_NONE;
    }
    Py_INCREF(v);
    return v;
}

/* The reference's ``_unit_of(word)``: the word lowered, trailing slashes
 * stripped, looked up whole and then up to its first dash. The unit word is
 * ASCII (letters, slash, dash), so lowering is per byte. */
static PyObject *unit_of(const text_t *t, Py_ssize_t a, Py_ssize_t b, PyObject *unit_words) {
    Py_ssize_t len = b - a;
    Py_UCS1 small[64];
    Py_UCS1 *buf = small;
    if (len > (Py_ssize_t)sizeof(small)) {
        buf = PyMem_Malloc((size_t)len);
        if (buf == NULL) return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        Py_UCS4 ch = at(t, a + i);
        buf[i] = (Py_UCS1)((ch >= 'A' && ch <= 'Z') ? ch + 32 : ch);
    }
    while (len > 0 && buf[len - 1] == '/') len--;
    PyObject *v = lookup_ascii(unit_words, buf, len);
    if (v != NULL) {
        int found = PyObject_IsTrue(v); /* ``get(word) or get(head)`` */
        if (found <= 0) {
            Py_DECREF(v);
            v = NULL;
        }
        if (found == 0) {
            Py_ssize_t dash = 0;
            while (dash < len && buf[dash] != '-') dash++;
            v = lookup_ascii(unit_words, buf, dash);
        }
    }
    if (buf != small) PyMem_Free(buf);
    return v;
}

/* The reference's estimate test: the (at most) 24 characters before the
 * number, right-stripped and lowered, end with one of ``approx_words``.
 * Returns 1, 0, or -1 on error. */
static int approx_before(PyObject *text, const text_t *t, Py_ssize_t start, PyObject *words,
                         int text_ascii) {
    Py_ssize_t lo = start > 24 ? start - 24 : 0;
    Py_ssize_t w = start;
    while (w > lo && is_space(at(t, w - 1))) w--;
    int ascii = 1;
    for (Py_ssize_t i = lo; i < w && !text_ascii; i++) { /* an ASCII text needs no look */
        if (at(t, i) >= 128) {
            ascii = 0;
            break;
        }
    }
    Py_ssize_t nwords = PyTuple_GET_SIZE(words);
    if (ascii) {
        if (w == lo) { /* an empty window ends with the empty word only */
            for (Py_ssize_t j = 0; j < nwords; j++)
                if (PyUnicode_GET_LENGTH(PyTuple_GET_ITEM(words, j)) == 0) return 1;
            return 0;
        }
        Py_UCS4 last = at(t, w - 1); /* the window's last character, lowered */
        if (last >= 'A' && last <= 'Z') last += 32;
        for (Py_ssize_t j = 0; j < nwords; j++) {
            PyObject *word = PyTuple_GET_ITEM(words, j);
            Py_ssize_t wl = PyUnicode_GET_LENGTH(word);
            if (wl > w - lo) continue;
            /* most words differ from the window at its last character: test it first */
            if (wl > 0 && PyUnicode_READ_CHAR(word, wl - 1) != last) continue;
            int wk = PyUnicode_KIND(word);
            const void *wd = PyUnicode_DATA(word);
            Py_ssize_t k = wl; /* compared from the end: most words differ there */
            while (k > 0) {
                Py_UCS4 ch = at(t, w - wl + k - 1);
                if (ch >= 'A' && ch <= 'Z') ch += 32;
                if (ch != PyUnicode_READ(wk, wd, k - 1)) break;
                k--;
            }
            if (k == 0) return 1;
        }
        return 0;
    }
    /* str.lower may change the length and folds non-ASCII letters: ask it */
    PyObject *window = PyUnicode_Substring(text, lo, w);
    if (window == NULL) return -1;
    PyObject *low = PyObject_CallMethod(window, "lower", NULL);
    Py_DECREF(window);
    if (low == NULL) return -1;
    if (!PyUnicode_Check(low)) {
        Py_DECREF(low);
        PyErr_SetString(PyExc_TypeError, "str.lower returned a non-str");
        return -1;
    }
    int found = 0;
    for (Py_ssize_t j = 0; j < nwords && !found; j++) {
        Py_ssize_t r = PyUnicode_Tailmatch(low, PyTuple_GET_ITEM(words, j), 0, PY_SSIZE_T_MAX, 1);
        if (r < 0) {
            Py_DECREF(low);
            return -1;
        }
        found = r > 0;
    }
    Py_DECREF(low);
    return found;
}

/* digits with the commas taken out, as a new str */
static PyObject *without_commas(const text_t *t, Py_ssize_t a, Py_ssize_t b) {
    Py_ssize_t len = 0;
    Py_UCS4 maxchar = 0;
    for (Py_ssize_t i = a; i < b; i++) {
        Py_UCS4 ch = at(t, i);
        if (ch == ',') continue;
        len++;
        if (ch > maxchar) maxchar = ch;
    }
    PyObject *s = PyUnicode_New(len, maxchar);
    if (s == NULL) return NULL;
    Py_ssize_t j = 0;
    for (Py_ssize_t i = a; i < b; i++) {
        Py_UCS4 ch = at(t, i);
        if (ch == ',') continue;
        PyUnicode_WRITE(PyUnicode_KIND(s), PyUnicode_DATA(s), j, ch);
        j++;
    }
    return s;
}

/* The value of the ASCII digits (commas skipped) at [a, b): what float()
 * makes of them, without building the str it parses. float() on a str of
 * ASCII digits and at most one dot strips nothing and finds no underscore,
 * then calls PyOS_string_to_double with no overflow exception (a huge
 * figure is inf), as here. NULL with *ascii = 0 when a character is not
 * ASCII (float() then runs on the str); NULL with an error set on failure. */
static PyObject *ascii_value(const text_t *t, Py_ssize_t a, Py_ssize_t b, int *ascii) {
    char small[64];
    char *buf = small;
    *ascii = 1;
    for (Py_ssize_t i = a; i < b; i++) {
        if (at(t, i) >= 128) {
            *ascii = 0;
            return NULL;
        }
    }
    /* A run of at most 15 ASCII digits (commas aside) and no dot is an
     * integer below 2**53: float() of it is that integer exactly (every such
     * integer is a double, and correct rounding returns it), so it is summed
     * here without the string-to-double parse. Longer runs, and decimals,
     * which need rounding, take the parse below. */
    {
        long long acc = 0;
        int ndig = 0, plain = 1;
        for (Py_ssize_t i = a; i < b && plain; i++) {
            Py_UCS4 ch = at(t, i);
            if (ch == ',') continue;
            if (ch < '0' || ch > '9' || ++ndig > 15) plain = 0;
            else acc = acc * 10 + (long long)(ch - '0');
        }
        if (plain && ndig > 0) return PyFloat_FromDouble((double)acc);
    }
    if (b - a + 1 > (Py_ssize_t)sizeof(small)) {
        buf = PyMem_Malloc((size_t)(b - a + 1));
        if (buf == NULL) return PyErr_NoMemory();
    }
    Py_ssize_t len = 0;
    for (Py_ssize_t i = a; i < b; i++) {
        Py_UCS4 ch = at(t, i);
        if (ch != ',') buf[len++] = (char)ch;
    }
    buf[len] = '\0';
    char *end = NULL;
    double x = PyOS_string_to_double(buf, &end, NULL);
    PyObject *v = NULL;
    if (!(x == -1.0 && PyErr_Occurred())) {
        if (end == buf + len) {
            v = PyFloat_FromDouble(x);
        } else { /* cannot happen for digits and a dot; float() decides */
            *ascii = 0;
        }
    }
    if (buf != small) PyMem_Free(buf);
    return v;
}

/* One num_type tuple for a match; a new reference or NULL. */
static PyObject *build_num(PyObject *text, const text_t *t, const match_t *m,
                           PyTypeObject *num_type, PyObject *unit_words, PyObject *words) {
    PyObject *digits = NULL, *value = NULL, *scaled = NULL, *unit = NULL, *item;
    digits = PyUnicode_Substring(text, m->num_start, m->num_end);
    if (digits == NULL) goto error;
    int ascii = 0;
    value = ascii_value(t, m->num_start, m->num_end, &ascii);
    if (value == NULL) {
        if (ascii) goto error;
        /* non-ASCII digits: float() itself reads them */
        if (m->has_comma) {
            PyObject *plain = without_commas(t, m->num_start, m->num_end);
            if (plain == NULL) goto error;
            value = PyFloat_FromString(plain);
            Py_DECREF(plain);
        } else {
            value = PyFloat_FromString(digits);
        }
        if (value == NULL) goto error;
    }
    if (m->has_suf) {
        double scale = m->suf == 'M' ? 1e6 : m->suf == 'B' ? 1e9 : 1e3;
        scaled = PyFloat_FromDouble(PyFloat_AS_DOUBLE(value) * scale);
        if (scaled == NULL) goto error;
    } else {
        Py_INCREF(value);
        scaled = value;
    }
    if (m->has_pct) {
        unit = PyUnicode_FromStringAndSize("%", 1);
        if (unit == NULL) goto error;
    } else if (m->unit_start >= 0) {
        unit = unit_of(t, m->unit_start, m->unit_end, unit_words);
        if (unit == NULL) goto error;
    } else {
        Py_INCREF(Py_None);
        unit = Py_None;
    }
    int approx = approx_before(text, t, m->start, words, PyUnicode_IS_ASCII(text));
    if (approx < 0) goto error;
    PyObject *start = PyLong_FromSsize_t(m->start);
    if (start == NULL) goto error;
    PyObject *end = PyLong_FromSsize_t(m->end);
    if (end == NULL) {
        Py_DECREF(start);
        goto error;
    }
    /* what tuple.__new__(num_type, ...) builds: the checks in numbers() make
     * the subtype's layout a plain tuple's */
    item = num_type->tp_alloc(num_type, 8);
    if (item == NULL) {
        Py_DECREF(start);
        Py_DECREF(end);
        goto error;
    }
    PyObject *pct = m->has_pct ? Py_True : Py_False;
    PyObject *apx = approx ? Py_True : Py_False;
    Py_INCREF(pct);
    Py_INCREF(apx);
    PyTuple_SET_ITEM(item, 0, value);
    PyTuple_SET_ITEM(item, 1, scaled);
    PyTuple_SET_ITEM(item, 2, pct);
    PyTuple_SET_ITEM(item, 3, unit);
    PyTuple_SET_ITEM(item, 4, apx);
    PyTuple_SET_ITEM(item, 5, start);
    PyTuple_SET_ITEM(item, 6, end);
    PyTuple_SET_ITEM(item, 7, digits);
    return item;
error:
    Py_XDECREF(digits);
    Py_XDECREF(value);
    Py_XDECREF(scaled);
    Py_XDECREF(unit);
    return NULL;
}

static PyObject *numbers(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError,
                        "numbers(text, num_type, unit_words, approx_words) takes 4 arguments");
        return NULL;
    }
    PyObject *text = args[0], *type = args[1], *unit_words = args[2], *words = args[3];
    if (!PyUnicode_Check(text) || !PyDict_Check(unit_words) || !PyTuple_Check(words)) {
        PyErr_SetString(PyExc_TypeError, "numbers: expected (str, type, dict, tuple)");
        return NULL;
    }
    if (!PyType_Check(type) || !PyType_IsSubtype((PyTypeObject *)type, &PyTuple_Type) ||
        ((PyTypeObject *)type)->tp_basicsize != PyTuple_Type.tp_basicsize ||
        ((PyTypeObject *)type)->tp_itemsize != PyTuple_Type.tp_itemsize) {
        PyErr_SetString(PyExc_TypeError, "numbers: num_type must be a slot-less tuple subclass");
        return NULL;
    }
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(words); j++) {
        if (!PyUnicode_Check(PyTuple_GET_ITEM(words, j))) {
            PyErr_SetString(PyExc_TypeError, "numbers: approx_words must hold str");
            return NULL;
        }
    }
    if (PyUnicode_READY(text) < 0) return NULL;
    text_t t = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)};
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    Py_ssize_t pos = 0;
    while (pos < t.n) {
        if (t.kind == PyUnicode_1BYTE_KIND) { /* skip to a possible start by table */
            const Py_UCS1 *d = (const Py_UCS1 *)t.data;
            while (pos < t.n && !(CLASS[d[pos]] & C_NUMSTART)) pos++;
            if (pos >= t.n) break;
        }
        Py_UCS4 ch = at(&t, pos);
        if (!(is_digit(ch) || is_currency(ch))) {
            pos++;
            continue;
        }
        match_t m;
        if (!match_at(&t, pos, &m)) {
            pos++;
            continue;
        }
        PyObject *item = build_num(text, &t, &m, (PyTypeObject *)type, unit_words, words);
        if (item == NULL || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(item);
        pos = m.end;
    }
    return out;
}

/* -- locations (grounding.extract_claims) -------------------------------
 *
 * ``locations(text, extensions)`` returns what ``extract_claims_reference``
 * returns: ``(start, end, location)`` for every URL with a path (pattern
 * ``https?://[^\s<>()"'`\]]+``, trailing punctuation stripped), then for every
 * path-like token (``_PATHISH``) outside those URLs that names a file with a
 * known extension or a relative directory.
 *
 * ``_PATHISH`` is ``(?<![\w@/.-])(?=[A-Za-z0-9_.\-/]*[./])(?:\.{0,2}/)?
 * [A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.\-]+)*\/?``. Its lookbehind refuses every
 * character of its (ASCII) class, so a match starts only where a run of the
 * class starts, and lies inside that run. Its prefix matches only "/", "./"
 * or "../" (with more dots, or no slash after them, every backtrack meets a
 * dot where the slash must be); when no segment character follows the
 * prefix the pattern falls back to a segment from the run start; everything
 * after the first segment is optional, so the greedy choices stand.
 */

static inline int is_path(Py_UCS4 c) { /* [A-Za-z0-9_./-] */
    return c < 256 && (CLASS[c] & C_PATH);
}

static inline int is_seg(Py_UCS4 c) { return c != '/' && is_path(c); }

static inline int is_trail(Py_UCS4 c) { /* grounding._TRAIL */
    switch (c) {
    case '.': case ',': case ';': case ':': case ')': case ']': case '}': case '\'': case '"':
    case '`': case '!': case '?':
        return 1;
    default:
        return 0;
    }
}

static inline int url_char(Py_UCS4 c) { /* [^\s<>()"'`\]] */
    switch (c) {
    case '<': case '>': case '(': case ')': case '"': case '\'': case '`': case ']':
        return 0;
    default:
        return !is_space(c);
    }
}

static Py_ssize_t seg_run(const text_t *t, Py_ssize_t i) {
    while (i < t->n && is_seg(at(t, i))) i++;
    return i;
}

/* Where a URL match at i ends, or -1. */
static Py_ssize_t url_at(const text_t *t, Py_ssize_t i) {
    Py_ssize_t n = t->n, p = i;
    if (p + 4 > n || at(t, p) != 'h' || at(t, p + 1) != 't' || at(t, p + 2) != 't' ||
        at(t, p + 3) != 'p')
        return -1;
    p += 4;
    if (p < n && at(t, p) == 's') p++;
    if (p + 3 > n || at(t, p) != ':' || at(t, p + 1) != '/' || at(t, p + 2) != '/') return -1;
    p += 3;
    Py_ssize_t q = p;
    while (q < n && url_char(at(t, q))) q++;
    return q > p ? q : -1;
}

/* The reference's ``_has_ext(text[a:b])`` (``b`` past a non-dot character). */
static int has_ext(PyObject *text, const text_t *t, Py_ssize_t a, Py_ssize_t b, PyObject *exts) {
    Py_ssize_t lo = a;
    while (lo < b && at(t, lo) == '.') lo++;
    Py_ssize_t dot = b - 1;
    while (dot >= lo && at(t, dot) != '.') dot--;
    if (dot < lo) return 0; /* no dot once the leading dots are stripped */
    PyObject *ext = PyUnicode_Substring(text, dot + 1, b);
    if (ext == NULL) return -1;
    int r = PySet_Contains(exts, ext);
    Py_DECREF(ext);
    return r;
}

static int add_location(PyObject *out, PyObject *text, Py_ssize_t a, Py_ssize_t b) {
    PyObject *loc = PyUnicode_Substring(text, a, b);
    if (loc == NULL) return -1;
    PyObject *item = Py_BuildValue("(nnN)", a, b, loc);
    if (item == NULL) return -1;
    int r = PyList_Append(out, item);
    Py_DECREF(item);
    return r;
}

/* Is the path token text[c:e] (a _PATHISH match) a location? Appends it. */
static int path_token(PyObject *out, PyObject *text, const text_t *t, Py_ssize_t c, Py_ssize_t e,
                      PyObject *exts) {
    while (e > c && at(t, e - 1) == '.') e--; /* tok: only "." of _TRAIL is in the class */
    if (e == c) return 0;
    /* the last non-empty "/" segment of tok, its trailing dots stripped */
    Py_ssize_t b = e;
    while (b > c && at(t, b - 1) == '/') b--;
    if (b == c) return 0; /* only slashes: no segment */
    Py_ssize_t a = b;
    while (a > c && at(t, a - 1) != '/') a--;
    Py_ssize_t last_end = b;
    while (last_end > a && at(t, last_end - 1) == '.') last_end--;
    int loc = has_ext(text, t, a, last_end, exts);
    if (loc < 0) return -1;
    if (!loc && at(t, e - 1) == '/' && at(t, c) != '/') {
        for (Py_ssize_t i = c; i < e; i++) {
            if (is_ascii_letter(at(t, i))) {
                loc = 1;
                break;
            }
        }
    }
    return loc ? add_location(out, text, c, e) : 0;
}

static PyObject *locations(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyAnySet_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "locations(text: str, extensions: frozenset)");
        return NULL;
    }
    PyObject *text = args[0], *exts = args[1];
    if (PyUnicode_READY(text) < 0) return NULL;
    text_t t = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)};
    Py_ssize_t n = t.n;
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    /* URLs that have a path, and the spans they take */
    Py_ssize_t ntaken = 0, cap = 0;
    Py_ssize_t *taken = NULL;
    Py_ssize_t i = 0;
    while ((i = next_char(&t, 'h', i)) >= 0) {
        Py_ssize_t q = url_at(&t, i);
        if (q < 0) {
            i++;
            continue;
        }
        Py_ssize_t u = q;
        while (u > i && is_trail(at(&t, u - 1))) u--;
        /* rest = url after "://"; a path is a "/" followed by something not "/" */
        Py_ssize_t r = i + 4;
        if (at(&t, r) == 's') r++;
        r += 3;
        while (r < u && at(&t, r) != '/') r++;
        int path = 0;
        for (Py_ssize_t k = r + 1; k < u; k++) {
            if (at(&t, k) != '/') {
                path = 1;
                break;
            }
        }
        if (path) {
            if (add_location(out, text, i, u) < 0) goto error;
            if (ntaken == cap) {
                Py_ssize_t grown = cap ? cap * 2 : 8;
                Py_ssize_t *more = PyMem_Realloc(taken, (size_t)grown * 2 * sizeof(Py_ssize_t));
                if (more == NULL) {
                    PyErr_NoMemory();
                    goto error;
                }
                taken = more;
                cap = grown;
            }
            taken[2 * ntaken] = i;
            taken[2 * ntaken + 1] = q;
            ntaken++;
        }
        i = q;
    }
    /* path-like tokens, tried once per run of the class that holds a dot or
     * a slash (the lookahead's anchor), found from that anchor */
    Py_ssize_t scan = 0, next_dot_at = -2, next_slash_at = -2;
    for (;;) {
        if (next_dot_at != -1 && next_dot_at < scan) next_dot_at = next_char(&t, '.', scan);
        if (next_slash_at != -1 && next_slash_at < scan) next_slash_at = next_char(&t, '/', scan);
        Py_ssize_t a = next_dot_at;
        if (a < 0 || (next_slash_at >= 0 && next_slash_at < a)) a = next_slash_at;
        if (a < 0) break;
        Py_ssize_t c = a, run_end = a;
        while (c > 0 && is_path(at(&t, c - 1))) c--;
        while (run_end < n && is_path(at(&t, run_end))) run_end++;
        scan = run_end;
        if (c > 0) {
            Py_UCS4 prev = at(&t, c - 1);
            if (prev == '@' || is_word(prev)) continue; /* '/', '.', '-' are in the run */
        }
        Py_ssize_t p = -1, d = 0;
        while (d < 2 && c + d < n && at(&t, c + d) == '.') d++;
        if (c + d < n && at(&t, c + d) == '/' && c + d + 1 < n && is_seg(at(&t, c + d + 1)))
            p = c + d + 1;
        else if (is_seg(at(&t, c)))
            p = c;
        if (p < 0) continue;
        Py_ssize_t q = seg_run(&t, p);
        while (q + 1 < n && at(&t, q) == '/' && is_seg(at(&t, q + 1))) q = seg_run(&t, q + 1);
        if (q < n && at(&t, q) == '/') q++;
        int inside = 0;
        for (Py_ssize_t k = 0; k < ntaken; k++) {
            if (taken[2 * k] <= c && c < taken[2 * k + 1]) {
                inside = 1;
                break;
            }
        }
        if (!inside && path_token(out, text, &t, c, q, exts) < 0) goto error;
    }
    PyMem_Free(taken);
    return out;
error:
    PyMem_Free(taken);
    Py_DECREF(out);
    return NULL;
}

/* -- the ground (grounding._ground_add) -----------------------------------
 *
 * ``ground_add(ground, text, add_token)`` does what the reference
 * ``_ground_add_reference(ground, text)`` does: splits the text at
 * whitespace and at the separator characters ``"'`,()[]{}=``, and adds each
 * token's folded location (or, for a token with a slash, every trailing run
 * of its folded path segments) to the set. An ASCII token is folded here
 * (``fold_location``: cut at "#" and "?", trailing punctuation and slashes
 * stripped, lowered, scheme dropped, "_" as "-"); any other token is handed
 * to ``add_token(ground, token)``, the reference's own per-token step, since
 * ``str.lower`` folds and lengthens non-ASCII letters.
 */

static inline int is_separator(Py_UCS4 c) {
    switch (c) {
    case '"': case '\'': case '`': case ',': case '(': case ')': case '[': case ']': case '{':
    case '}': case '=':
        return 1;
    default:
        return is_space(c);
    }
}

static int add_ascii(PyObject *ground, const char *s, Py_ssize_t len) {
    PyObject *k = PyUnicode_New(len, 127);
    if (k == NULL) return -1;
    memcpy(PyUnicode_1BYTE_DATA(k), s, (size_t)len);
    int r = PySet_Add(ground, k);
    Py_DECREF(k);
    return r;
}

/* Folds the ASCII token text[a:b] into buf; returns the folded length. */
static Py_ssize_t fold_ascii(const text_t *t, Py_ssize_t a, Py_ssize_t b, char *buf) {
    Py_ssize_t e = a;
    while (e < b) {
        Py_UCS4 ch = at(t, e);
        if (ch == '#' || ch == '?') break;
        e++;
    }
    while (e > a && is_trail(at(t, e - 1))) e--;
    while (e > a && at(t, e - 1) == '/') e--;
    Py_ssize_t len = 0;
    for (Py_ssize_t i = a; i < e; i++) {
        Py_UCS4 ch = at(t, i);
        buf[len++] = (char)((ch >= 'A' && ch <= 'Z') ? ch + 32 : ch);
    }
    for (Py_ssize_t i = 0; i + 2 < len; i++) {
        if (buf[i] == ':' && buf[i + 1] == '/' && buf[i + 2] == '/') {
            memmove(buf, buf + i + 3, (size_t)(len - i - 3));
            len -= i + 3;
            break;
        }
    }
    for (Py_ssize_t i = 0; i < len; i++)
        if (buf[i] == '_') buf[i] = '-';
    return len;
}

/* The reference's step for one ASCII token text[a:b]; buf holds b - a bytes. */
static int ground_token(PyObject *ground, const text_t *t, Py_ssize_t a, Py_ssize_t b, char *buf) {
    int slash = 0;
    for (Py_ssize_t i = a; i < b; i++) {
        if (at(t, i) == '/') {
            slash = 1;
            break;
        }
    }
    Py_ssize_t len = fold_ascii(t, a, b, buf);
    if (!slash) {
        if (len == 0 || (len == 1 && buf[0] == '.')) return 0;
        return add_ascii(ground, buf, len);
    }
    /* segments: the folded path split at "/", without "" and "."; each
     * trailing run of them, joined by "/", is added. A segment's start is
     * where its suffix starts, its own separators kept when they are single */
    Py_ssize_t i = 0;
    while (i < len) {
        while (i < len && buf[i] == '/') i++;
        if (i >= len) break;
        Py_ssize_t j = i;
        while (j < len && buf[j] != '/') j++;
        if (!(j - i == 1 && buf[i] == '.')) {
            /* "/".join(segs[k:]) from this segment: the rest of the path with
             * empty and "." segments dropped */
            Py_ssize_t n = 0;
            char *out = buf + len; /* scratch after the folded text */
            Py_ssize_t p = i;
            while (p < len) {
                while (p < len && buf[p] == '/') p++;
                if (p >= len) break;
                Py_ssize_t q = p;
                while (q < len && buf[q] != '/') q++;
                if (!(q - p == 1 && buf[p] == '.')) {
                    if (n) out[n++] = '/';
                    memcpy(out + n, buf + p, (size_t)(q - p));
                    n += q - p;
                }
                p = q;
            }
            if (add_ascii(ground, out, n) < 0) return -1;
        }
        i = j;
    }
    return 0;
}

static PyObject *ground_add(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3 || !PySet_Check(args[0]) || !PyUnicode_Check(args[1]) ||
        !PyCallable_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "ground_add(ground: set, text: str, add_token)");
        return NULL;
    }
    PyObject *ground = args[0], *text = args[1], *add_token = args[2];
    if (PyUnicode_READY(text) < 0) return NULL;
    text_t t = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)};
    char small[512];
    char *buf = small;
    Py_ssize_t cap = (Py_ssize_t)sizeof(small);
    Py_ssize_t i = 0;
    while (i < t.n) {
        if (is_separator(at(&t, i))) {
            i++;
            continue;
        }
        Py_ssize_t a = i;
        int ascii = 1;
        while (i < t.n) {
            Py_UCS4 ch = at(&t, i);
            if (is_separator(ch)) break;
            if (ch >= 128) ascii = 0;
            i++;
        }
        if (ascii) {
            if (2 * (i - a) > cap) { /* the folded token and the joined segments */
                char *grown = PyMem_Malloc((size_t)(2 * (i - a)));
                if (grown == NULL) {
                    PyErr_NoMemory();
                    goto error;
                }
                if (buf != small) PyMem_Free(buf);
                buf = grown;
                cap = 2 * (i - a);
            }
            if (ground_token(ground, &t, a, i, buf) < 0) goto error;
        } else {
            PyObject *tok = PyUnicode_Substring(text, a, i);
            if (tok == NULL) goto error;
            PyObject *r = PyObject_CallFunctionObjArgs(add_token, ground, tok, NULL);
            Py_DECREF(tok);
            if (r == NULL) goto error;
            Py_DECREF(r);
        }
    }
    if (buf != small) PyMem_Free(buf);
    Py_RETURN_NONE;
error:
    if (buf != small) PyMem_Free(buf);
    return NULL;
}

/* -- unsupported locations (grounding._unsupported_claims_reference) -------
 *
 * ``unsupported(claims, tokens, tails, ubiquitous, fold)`` returns the claims
 * (the same ``(start, end, location)`` tuples, in order, repeats kept) whose
 * location ``_unsupported_in`` calls unsupported: its fold is neither empty
 * nor ubiquitous, neither the fold nor its last segment is in the ground,
 * and no read's long tail is a proper prefix of that last segment.
 *
 * ``tokens()`` is ``_Ground.tokens`` (the ground set, built on first use);
 * it is called only once a location is neither empty nor ubiquitous, as the
 * reference calls it. The long tails (``_Ground.long_tails``: each of
 * ``tails`` folded, its last "/" segment, kept at three characters or more)
 * are computed here, once, when a location is not in the ground. An ASCII
 * location or tail is folded by ``fold_ascii`` (``fold_location`` on ASCII);
 * any other is handed to ``fold`` (``fold_location`` itself), since
 * ``str.lower`` folds and lengthens non-ASCII letters. Each distinct
 * location is decided once (the reference's per-rule memo).
 */

/* fold_location(s): fold_ascii on ASCII, the Python function otherwise. */
static PyObject *fold_loc(PyObject *s, PyObject *fold) {
    if (PyUnicode_READY(s) < 0) return NULL;
    if (!PyUnicode_IS_ASCII(s)) {
        PyObject *r = PyObject_CallOneArg(fold, s);
        if (r != NULL && !PyUnicode_Check(r)) {
            Py_DECREF(r);
            PyErr_SetString(PyExc_TypeError, "fold must return a str");
            return NULL;
        }
        return r;
    }
    text_t t = {PyUnicode_KIND(s), PyUnicode_DATA(s), PyUnicode_GET_LENGTH(s)};
    char small[256];
    char *buf = small;
    if (t.n > (Py_ssize_t)sizeof(small)) {
        buf = PyMem_Malloc((size_t)t.n);
        if (buf == NULL) return PyErr_NoMemory();
    }
    Py_ssize_t len = fold_ascii(&t, 0, t.n, buf);
    PyObject *r = PyUnicode_New(len, 127);
    if (r != NULL) memcpy(PyUnicode_1BYTE_DATA(r), buf, (size_t)len);
    if (buf != small) PyMem_Free(buf);
    return r;
}

/* [s for s in folded.split("/") if s and s != "."][-1], or folded itself
 * when there is no such segment (a new reference). */
static PyObject *last_segment(PyObject *folded) {
    int kind = PyUnicode_KIND(folded);
    const void *d = PyUnicode_DATA(folded);
    Py_ssize_t e = PyUnicode_GET_LENGTH(folded);
    while (e > 0) {
        Py_ssize_t a = e;
        while (a > 0 && PyUnicode_READ(kind, d, a - 1) != '/') a--;
        if (e - a > 1 || (e - a == 1 && PyUnicode_READ(kind, d, a) != '.'))
            return PyUnicode_Substring(folded, a, e);
        e = a - 1; /* past the "/" before this empty or "." segment */
    }
    Py_INCREF(folded);
    return folded;
}

/* _Ground.long_tails: each tail folded, its last "/" segment if 3+ long. */
static PyObject *long_tails_of(PyObject *tails, PyObject *fold) {
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(tails);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *tail = PyList_GET_ITEM(tails, i);
        if (!PyUnicode_Check(tail)) {
            PyErr_SetString(PyExc_TypeError, "tails must be a list of str");
            goto error;
        }
        PyObject *folded = fold_loc(tail, fold);
        if (folded == NULL) goto error;
        Py_ssize_t len = PyUnicode_GET_LENGTH(folded);
        Py_ssize_t slash = PyUnicode_FindChar(folded, '/', 0, len, -1);
        if (slash == -2) {
            Py_DECREF(folded);
            goto error;
        }
        if (len - (slash + 1) >= 3) {
            PyObject *seg = slash < 0 ? (Py_INCREF(folded), folded)
                                      : PyUnicode_Substring(folded, slash + 1, len);
            if (seg == NULL || PyList_Append(out, seg) < 0) {
                Py_XDECREF(seg);
                Py_DECREF(folded);
                goto error;
            }
            Py_DECREF(seg);
        }
        Py_DECREF(folded);
    }
    return out;
error:
    Py_DECREF(out);
    return NULL;
}

/* _unsupported_in(loc, ground): 1, 0, or -1 on error. *ground and *long_tails
 * are filled on first need (new references the caller releases). */
static int unsupported_loc(PyObject *loc, PyObject *tokens_fn, PyObject *tails, PyObject *ubiq,
                           PyObject *fold, PyObject **ground, PyObject **long_tails) {
    int result = -1;
    PyObject *last = NULL;
    PyObject *folded = fold_loc(loc, fold);
    if (folded == NULL) return -1;
    if (PyUnicode_GET_LENGTH(folded) == 0) {
        result = 0;
        goto done;
    }
    int r = PySet_Contains(ubiq, folded);
    if (r != 0) {
        result = r < 0 ? -1 : 0;
        goto done;
    }
    last = last_segment(folded);
    if (last == NULL) goto done;
    if (*ground == NULL) {
        *ground = PyObject_CallNoArgs(tokens_fn);
        if (*ground == NULL) goto done;
        if (!PyAnySet_Check(*ground)) {
            PyErr_SetString(PyExc_TypeError, "tokens() must return a set");
            goto done;
        }
    }
    r = PySet_Contains(*ground, folded);
    if (r == 0) r = PySet_Contains(*ground, last);
    if (r != 0) {
        result = r < 0 ? -1 : 0;
        goto done;
    }
    if (*long_tails == NULL) {
        *long_tails = long_tails_of(tails, fold);
        if (*long_tails == NULL) goto done;
    }
    Py_ssize_t last_len = PyUnicode_GET_LENGTH(last);
    result = 1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(*long_tails); i++) {
        PyObject *t = PyList_GET_ITEM(*long_tails, i);
        /* last.startswith(t) and t != last: a proper prefix */
        if (PyUnicode_GET_LENGTH(t) < last_len) {
            Py_ssize_t m = PyUnicode_Tailmatch(last, t, 0, PY_SSIZE_T_MAX, -1);
            if (m < 0) {
                result = -1;
                break;
            }
            if (m) {
                result = 0;
                break;
            }
        }
    }
done:
    Py_XDECREF(last);
    Py_DECREF(folded);
    return result;
}

static PyObject *unsupported(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 5 || !PyList_Check(args[0]) || !PyCallable_Check(args[1]) ||
        !PyList_Check(args[2]) || !PyAnySet_Check(args[3]) || !PyCallable_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError,
                        "unsupported(claims: list, tokens, tails: list, ubiquitous: frozenset, fold)");
        return NULL;
    }
    PyObject *claims = args[0], *tokens_fn = args[1], *tails = args[2], *ubiq = args[3],
             *fold = args[4];
    PyObject *ground = NULL, *long_tails = NULL;
    PyObject *memo = PyDict_New();
    PyObject *out = PyList_New(0);
    if (memo == NULL || out == NULL) goto error;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(claims); i++) {
        PyObject *claim = PyList_GET_ITEM(claims, i);
        if (!PyTuple_Check(claim) || PyTuple_GET_SIZE(claim) != 3 ||
            !PyUnicode_Check(PyTuple_GET_ITEM(claim, 2))) {
            PyErr_SetString(PyExc_TypeError, "claims must be (start, end, location) tuples");
            goto error;
        }
        PyObject *loc = PyTuple_GET_ITEM(claim, 2);
        PyObject *known = PyDict_GetItemWithError(memo, loc); /* borrowed */
        int need;
        if (known != NULL) {
            need = known == Py_True;
        } else {
            if (PyErr_Occurred()) goto error;
            need = unsupported_loc(loc, tokens_fn, tails, ubiq, fold, &ground, &long_tails);
            if (need < 0) goto error;
            if (PyDict_SetItem(memo, loc, need ? Py_True : Py_False) < 0) goto error;
        }
        if (need && PyList_Append(out, claim) < 0) goto error;
    }
    Py_XDECREF(ground);
    Py_XDECREF(long_tails);
    Py_DECREF(memo);
    return out;
error:
    Py_XDECREF(ground);
    Py_XDECREF(long_tails);
    Py_XDECREF(memo);
    Py_XDECREF(out);
    return NULL;
}

/* -- the material's twin tables (hallucination_grounded._twin_tables_reference)
 *
 * ``twin_tables(nums)`` returns ``(src_keys, src_sig)`` exactly as the
 * reference builds them from the material's ``Num`` tuples: years aside
 * (``_is_year``: no unit, no percent, no "." or "," in the digits, value in
 * [1900, 2100]), a figure of three digits or more (its digits without "," and
 * ".") under ``_digit_key`` (its ``str.isdigit`` characters, sorted by code
 * point), and a figure of ten or more or with a decimal point under
 * ``_sig_digits`` (``format(value, ".6g")`` without its ".", leading zeros
 * and trailing zeros, or "0"), the first figure kept per key. The ".6g"
 * text is PyOS_double_to_string(value, 'g', 6, 0), the call float.__format__
 * makes for that spec.
 */

static PyObject *digit_key(PyObject *digits) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(digits), m = 0;
    int kind = PyUnicode_KIND(digits);
    const void *d = PyUnicode_DATA(digits);
    Py_UCS4 small[64];
    Py_UCS4 *buf = n <= 64 ? small : PyMem_Malloc((size_t)n * sizeof(Py_UCS4));
    if (buf == NULL) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, d, i);
        if (Py_UNICODE_ISDIGIT(c)) {
            Py_ssize_t j = m++; /* insertion sort: a figure holds a few digits */
            while (j > 0 && buf[j - 1] > c) {
                buf[j] = buf[j - 1];
                j--;
            }
            buf[j] = c;
        }
    }
    /* (no digit: the empty str, without handing an unwritten buffer over) */
    PyObject *r = m ? PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, m) : PyUnicode_New(0, 0);
    if (buf != small) PyMem_Free(buf);
    return r;
}

static PyObject *sig_digits(double v) {
    char *g = PyOS_double_to_string(v, 'g', 6, 0, NULL);
    if (g == NULL) return NULL;
    char out[64];
    size_t m = 0;
    for (const char *p = g; *p && m < sizeof(out) - 1; p++)
        if (*p != '.') out[m++] = *p;
    PyMem_Free(g);
    size_t a = 0;
    while (a < m && out[a] == '0') a++; /* lstrip("0") */
    while (m > a && out[m - 1] == '0') m--; /* rstrip("0") */
    if (m == a) return PyUnicode_FromStringAndSize("0", 1);
    return PyUnicode_FromStringAndSize(out + a, (Py_ssize_t)(m - a));
}

static int set_default(PyObject *dict, PyObject *key, PyObject *value) {
    if (key == NULL) return -1;
    PyObject *had = PyDict_SetDefault(dict, key, value); /* borrowed */
    Py_DECREF(key);
    return had == NULL ? -1 : 0;
}

static PyObject *twin_tables(PyObject *self, PyObject *nums) {
    (void)self;
    if (!PyList_Check(nums)) {
        PyErr_SetString(PyExc_TypeError, "twin_tables(nums: list)");
        return NULL;
    }
    PyObject *keys = PyDict_New(), *sig = PyDict_New();
    if (keys == NULL || sig == NULL) goto error;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(nums); i++) {
        PyObject *num = PyList_GET_ITEM(nums, i);
        if (!is_num(num, 1)) {
            PyErr_SetString(PyExc_TypeError, "nums must be Num tuples");
            goto error;
        }
        double value = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(num, 0));
        PyObject *digits = PyTuple_GET_ITEM(num, 7);
        if (PyUnicode_READY(digits) < 0) goto error;
        int pct = PyObject_IsTrue(PyTuple_GET_ITEM(num, 2));
        if (pct < 0) goto error;
        Py_ssize_t n = PyUnicode_GET_LENGTH(digits), marks = 0;
        int dot = 0;
        for (Py_ssize_t j = 0; j < n; j++) {
            Py_UCS4 c = PyUnicode_READ_CHAR(digits, j);
            if (c == '.') dot = 1;
            if (c == '.' || c == ',') marks++;
        }
        if (PyTuple_GET_ITEM(num, 3) == Py_None && !pct && marks == 0 && 1900 <= value &&
            value <= 2100)
            continue; /* _is_year */
        if (n - marks >= 3 && set_default(keys, digit_key(digits), num) < 0) goto error;
        if ((value >= 10 || dot) && set_default(sig, sig_digits(value), num) < 0) goto error;
    }
    PyObject *out = PyTuple_Pack(2, keys, sig);
    Py_DECREF(keys);
    Py_DECREF(sig);
    return out;
error:
    Py_XDECREF(keys);
    Py_XDECREF(sig);
    return NULL;
}

/* -- near misses (hallucination_grounded._near_miss_numbers) ---------------
 *
 * ``near_misses(out, nums, src_keys, src_sig)`` returns the list of signals
 * ``_near_miss_numbers_reference(out, nums, src_keys, src_sig)`` yields, in
 * order: for each output figure (a ``Num`` tuple) its twin in the material's
 * tables (``twin_tables`` above) by sorted digits when it holds three or
 * more characters other than "," and ".", else by significant digits when
 * it is 100 or more or has a decimal point (a twin with another value, not a
 * fraction read as a percentage), and a ``figure_not_in_material`` signal
 * when the twin's value differs. The keys are made by ``digit_key`` and
 * ``sig_digits`` above, the same calls the tables were built with. Why here:
 * the Python loop built two key strings per figure (a sort, a format) and
 * was the rule's costliest step on the varied cases (~60 us of ~240).
 */

static PyObject *near_misses(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4 || !PyUnicode_Check(args[0]) || !PyList_Check(args[1]) ||
        !PyDict_Check(args[2]) || !PyDict_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError,
                        "near_misses(out: str, nums: list, src_keys: dict, src_sig: dict)");
        return NULL;
    }
    PyObject *text = args[0], *nums = args[1], *keys = args[2], *sig = args[3];
    PyObject *found = PyList_New(0);
    if (found == NULL) return NULL;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(nums); i++) {
        PyObject *num = PyList_GET_ITEM(nums, i);
        if (!is_num(num, 1)) {
            PyErr_SetString(PyExc_TypeError, "nums must be Num tuples");
            goto error;
        }
        Py_INCREF(num); /* held while Python code (dict keys' __eq__ is str's) may run */
        double value = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(num, 0));
        PyObject *digits = PyTuple_GET_ITEM(num, 7);
        if (PyUnicode_READY(digits) < 0) goto error_num;
        Py_ssize_t n = PyUnicode_GET_LENGTH(digits), marks = 0;
        int dot = 0;
        for (Py_ssize_t j = 0; j < n; j++) {
            Py_UCS4 c = PyUnicode_READ_CHAR(digits, j);
            if (c == '.') dot = 1;
            if (c == '.' || c == ',') marks++;
        }
        PyObject *twin = NULL; /* borrowed from a table */
        if (n - marks >= 3) { /* len(plain) >= 3: the sorted-digit table */
            PyObject *key = digit_key(digits);
            if (key == NULL) goto error_num;
            twin = PyDict_GetItemWithError(keys, key);
            Py_DECREF(key);
            if (twin == NULL && PyErr_Occurred()) goto error_num;
        }
        if (twin == NULL && (value >= 100 || dot)) { /* the significant-digit table */
            PyObject *key = sig_digits(value);
            if (key == NULL) goto error_num;
            PyObject *cand = PyDict_GetItemWithError(sig, key);
            Py_DECREF(key);
            if (cand == NULL && PyErr_Occurred()) goto error_num;
            if (cand != NULL) {
                if (!is_num(cand, 0)) {
                    PyErr_SetString(PyExc_TypeError, "src_sig values must be Num tuples");
                    goto error_num;
                }
                double cv = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(cand, 0));
                int pct = PyObject_IsTrue(PyTuple_GET_ITEM(num, 2));
                if (pct < 0) goto error_num;
                if (cv != value && !(pct && cv < 1)) twin = cand;
            }
        }
        if (twin != NULL) {
            if (!is_num(twin, 0)) {
                PyErr_SetString(PyExc_TypeError, "table values must be Num tuples");
                goto error_num;
            }
            if (PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(twin, 0)) != value) {
                /* ("figure_not_in_material", n.start, n.end,
                 *  f"{out[n.start : n.end]} does not appear in the material, which states "
                 *  f"{twin.digits}") */
                PyObject *start = PyTuple_GET_ITEM(num, 5), *end = PyTuple_GET_ITEM(num, 6);
                PyObject *tdigits = PyTuple_GET_ITEM(twin, 7);
                if (!PyUnicode_CheckExact(tdigits)) {
                    PyErr_SetString(PyExc_TypeError, "a Num's digits must be a str");
                    goto error_num;
                }
                PyObject *slice = PySlice_New(start, end, NULL);
                if (slice == NULL) goto error_num;
                PyObject *written = PyObject_GetItem(text, slice);
                Py_DECREF(slice);
                if (written == NULL) goto error_num;
                PyObject *detail = PyUnicode_FromFormat(
                    "%U does not appear in the material, which states %U", written, tdigits);
                Py_DECREF(written);
                if (detail == NULL) goto error_num;
                PyObject *item = PyTuple_New(4);
                if (item == NULL) {
                    Py_DECREF(detail);
                    goto error_num;
                }
                PyObject *name = PyUnicode_InternFromString("figure_not_in_material");
                if (name == NULL) {
                    Py_DECREF(detail);
                    Py_DECREF(item);
                    goto error_num;
                }
                Py_INCREF(start);
                Py_INCREF(end);
                PyTuple_SET_ITEM(item, 0, name);
                PyTuple_SET_ITEM(item, 1, start);
                PyTuple_SET_ITEM(item, 2, end);
                PyTuple_SET_ITEM(item, 3, detail);
                int rc = PyList_Append(found, item);
                Py_DECREF(item);
                if (rc < 0) goto error_num;
            }
        }
        Py_DECREF(num);
        continue;
    error_num:
        Py_DECREF(num);
        goto error;
    }
    return found;
error:
    Py_DECREF(found);
    return NULL;
}

/* -- twin candidates (hallucination_grounded._twin_candidates_reference) ----
 *
 * ``twin_candidates(nums, src_keys, src_sig, units)`` returns, in order, the
 * output figures (``Num`` tuples) some figure signal could read: one whose
 * table lookup in ``near_misses`` above finds an entry (the same keys under
 * the same conditions: sorted digits when it holds three or more characters
 * other than "," and ".", significant digits when it is 100 or more or has
 * a decimal point; a superset of the figures it flags, as it also compares
 * values), or whose unit is one of ``units`` (the material's, which
 * ``_unit_mismatch`` reads). Why: the figures are grounded against the
 * material (its pairwise derivations sorted once) before those signals run,
 * and on the varied cases 3 of ~8,700 output figures could be read by them;
 * the filter first leaves the grounding nearly nothing to do.
 */

static PyObject *twin_candidates(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4 || !PyList_Check(args[0]) || !PyDict_Check(args[1]) ||
        !PyDict_Check(args[2]) || !PyAnySet_Check(args[3])) {
        PyErr_SetString(PyExc_TypeError,
                        "twin_candidates(nums: list, src_keys: dict, src_sig: dict, units: set)");
        return NULL;
    }
    PyObject *nums = args[0], *keys = args[1], *sig = args[2], *units = args[3];
    PyObject *kept = PyList_New(0);
    if (kept == NULL) return NULL;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(nums); i++) {
        PyObject *num = PyList_GET_ITEM(nums, i);
        if (!is_num(num, 1)) {
            PyErr_SetString(PyExc_TypeError, "nums must be Num tuples");
            goto error;
        }
        Py_INCREF(num); /* held while Python code (a key's __eq__, a unit's __hash__) may run */
        double value = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(num, 0));
        PyObject *digits = PyTuple_GET_ITEM(num, 7);
        if (PyUnicode_READY(digits) < 0) goto error_num;
        Py_ssize_t n = PyUnicode_GET_LENGTH(digits), marks = 0;
        int dot = 0;
        for (Py_ssize_t j = 0; j < n; j++) {
            Py_UCS4 c = PyUnicode_READ_CHAR(digits, j);
            if (c == '.') dot = 1;
            if (c == '.' || c == ',') marks++;
        }
        int found = 0;
        if (n - marks >= 3 && PyDict_GET_SIZE(keys)) { /* the sorted-digit table */
            PyObject *key = digit_key(digits);
            if (key == NULL) goto error_num;
            found = PyDict_Contains(keys, key);
            Py_DECREF(key);
            if (found < 0) goto error_num;
        }
        if (!found && (value >= 100 || dot) && PyDict_GET_SIZE(sig)) { /* significant digits */
            PyObject *key = sig_digits(value);
            if (key == NULL) goto error_num;
            found = PyDict_Contains(sig, key);
            Py_DECREF(key);
            if (found < 0) goto error_num;
        }
        if (!found) { /* a unit the material measures in */
            PyObject *unit = PyTuple_GET_ITEM(num, 3);
            if (unit != Py_None) {
                found = PySet_Contains(units, unit);
                if (found < 0) goto error_num;
            }
        }
        if (found && PyList_Append(kept, num) < 0) goto error_num;
        Py_DECREF(num);
        continue;
    error_num:
        Py_DECREF(num);
        goto error;
    }
    return kept;
error:
    Py_DECREF(kept);
    return NULL;
}

/* -- file names and versions (hallucination_grounded._files, _versions) ----
 *
 * ``file_spans(text)`` and ``version_spans(text)`` return the ``(start,
 * end)`` of every match of ``_FILE_TOKEN`` and of ``_VERSION_ANY``, in
 * finditer order (what ``_file_matches`` and ``_version_matches`` yield).
 *
 * ``_FILE_TOKEN`` is ``(?<![\w./-])\.?[A-Za-z0-9][\w-]*(?:\.[A-Za-z][\w-]*)+``
 * ``(?![\w/-]|\.[A-Za-z])``. Each part takes a maximal run, so the greedy end
 * can only fail the lookahead on a "/"; every shorter end stops before a
 * word character, a dash or a dot-letter, which the lookahead refuses too,
 * so then there is no match at that start.
 *
 * ``_VERSION_ANY`` is ``(?<![\w.])v?\d+\.\d+\.\d+(?:[-+][\w.]+)?(?![\w.])``
 * or ``(?<![\w.])v\d+\.\d+(?![\w.])``: the digit runs are maximal (a shorter
 * one meets a digit where a dot or the lookahead's non-word must be), and a
 * suffix, once started, runs to a character the lookahead accepts.
 */

static inline int is_word_or(Py_UCS4 c, Py_UCS4 a, Py_UCS4 b) { return c == a || c == b || is_word(c); }

static int add_span(PyObject *out, Py_ssize_t a, Py_ssize_t b) {
    PyObject *item = Py_BuildValue("(nn)", a, b);
    if (item == NULL) return -1;
    int r = PyList_Append(out, item);
    Py_DECREF(item);
    return r;
}

/* Where a _FILE_TOKEN match starting at c ends, or -1. */
static Py_ssize_t file_at(const text_t *t, Py_ssize_t c) {
    Py_ssize_t n = t->n;
    if (c > 0) {
        Py_UCS4 prev = at(t, c - 1);
        if (prev == '.' || prev == '/' || prev == '-' || is_word(prev)) return -1;
    }
    Py_ssize_t p = c;
    if (at(t, p) == '.') p++;
    if (p >= n) return -1;
    Py_UCS4 first = at(t, p);
    if (!(is_ascii_letter(first) || (first >= '0' && first <= '9'))) return -1;
    p++;
    while (p < n && is_word_or(at(t, p), '-', '-')) p++;
    int groups = 0;
    while (p + 1 < n && at(t, p) == '.' && is_ascii_letter(at(t, p + 1))) {
        p += 2;
        while (p < n && is_word_or(at(t, p), '-', '-')) p++;
        groups++;
    }
    if (!groups || (p < n && at(t, p) == '/')) return -1;
    return p;
}

static Py_ssize_t digits_from(const text_t *t, Py_ssize_t i) { return digit_run(t, i); }

/* Where a _VERSION_ANY match starting at c ends, or -1. */
static Py_ssize_t version_at(const text_t *t, Py_ssize_t c) {
    Py_ssize_t n = t->n;
    if (c > 0 && is_word_or(at(t, c - 1), '.', '.')) return -1;
    int v = at(t, c) == 'v';
    Py_ssize_t p = c + v;
    Py_ssize_t d1 = digits_from(t, p);
    if (d1 == p || d1 + 1 >= n || at(t, d1) != '.') return -1;
    Py_ssize_t d2 = digits_from(t, d1 + 1);
    if (d2 == d1 + 1) return -1;
    if (d2 + 1 < n && at(t, d2) == '.') {
        Py_ssize_t d3 = digits_from(t, d2 + 1);
        if (d3 > d2 + 1) { /* the three-part form */
            if (d3 + 1 < n && (at(t, d3) == '-' || at(t, d3) == '+') &&
                is_word_or(at(t, d3 + 1), '.', '.')) {
                Py_ssize_t q = d3 + 1;
                while (q < n && is_word_or(at(t, q), '.', '.')) q++;
                return q;
            }
            if (!(d3 < n && is_word_or(at(t, d3), '.', '.'))) return d3;
        }
    }
    /* the two-part form needs the "v"; d2 is followed by a dot here or by
     * whatever the three-part form refused */
    if (v && !(d2 < n && is_word_or(at(t, d2), '.', '.'))) return d2;
    return -1;
}

/* The run class of each scan: ``[\w.]`` for versions, ``[\w./-]`` for files. */
static inline int in_run(Py_UCS4 r, int versions) {
    return versions ? is_word_or(r, '.', '.') : (r == '/' || r == '-' || is_word_or(r, '.', '.'));
}

static PyObject *spans(PyObject *args_text, int versions) {
    if (!PyUnicode_Check(args_text)) {
        PyErr_SetString(PyExc_TypeError, "expected a str");
        return NULL;
    }
    if (PyUnicode_READY(args_text) < 0) return NULL;
    text_t t = {PyUnicode_KIND(args_text), PyUnicode_DATA(args_text),
                PyUnicode_GET_LENGTH(args_text)};
    Py_ssize_t n = t.n;
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    /* Both lookbehinds refuse every character of the run class, which holds
     * every character a match can start with: a match starts only at the
     * first character of a run. Every match also holds an anchor inside that
     * run (a dot before an ASCII letter; a digit, a dot, a digit), so only
     * the runs holding an anchor are tried, once each, at their start. */
    Py_ssize_t scan = 0, d;
    while ((d = next_char(&t, '.', scan)) >= 0) {
        int anchor = versions ? (d > 0 && d + 1 < n && is_digit(at(&t, d - 1)) &&
                                 is_digit(at(&t, d + 1)))
                              : (d + 1 < n && is_ascii_letter(at(&t, d + 1)));
        if (!anchor) {
            scan = d + 1;
            continue;
        }
        Py_ssize_t c = d;
        while (c > 0 && in_run(at(&t, c - 1), versions)) c--;
        Py_UCS4 ch = at(&t, c);
        Py_ssize_t e = -1;
        if (versions) {
            if (ch == 'v' || is_digit(ch)) e = version_at(&t, c);
        } else if (ch == '.' || is_ascii_letter(ch) || (ch >= '0' && ch <= '9')) {
            e = file_at(&t, c);
        }
        Py_ssize_t r = d;
        if (e >= 0) {
            if (add_span(out, c, e) < 0) {
                Py_DECREF(out);
                return NULL;
            }
            if (e > r) r = e;
        }
        /* the rest of the run (past the anchor, or past the match) is refused */
        while (r < n && in_run(at(&t, r), versions)) r++;
        scan = r > d ? r : d + 1;
    }
    return out;
}

static PyObject *file_spans(PyObject *self, PyObject *text) {
    (void)self;
    return spans(text, 0);
}

static PyObject *version_spans(PyObject *self, PyObject *text) {
    (void)self;
    return spans(text, 1);
}

/* -- loose figures (hallucination_grounded._loose) -------------------------
 *
 * ``loose(nums, memo, grounds)`` returns what ``_loose_reference`` returns:
 * the numbers (``Num`` tuples as ``numbers`` builds them) that are not
 * estimates, not years (no unit, no percent, digits without "." or ",",
 * value in [1900, 2100]) and not grounded, where ``grounds(n)`` is asked once
 * per ``(pct, digits, scaled)`` key and remembered in ``memo`` (the
 * material's ``_grounded``). Only the loop is here: grounding itself stays
 * in Python.
 */

static int has_char(PyObject *s, Py_UCS4 ch) {
    Py_ssize_t r = PyUnicode_FindChar(s, ch, 0, PyUnicode_GET_LENGTH(s), 1);
    return r == -2 ? -1 : r >= 0;
}

static PyObject *loose(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3 || !PyList_Check(args[0]) || !PyDict_Check(args[1]) ||
        !PyCallable_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "loose(nums: list, memo: dict, grounds)");
        return NULL;
    }
    PyObject *nums = args[0], *memo = args[1], *grounds = args[2];
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(nums); i++) {
        PyObject *n = PyList_GET_ITEM(nums, i);
        if (!is_num(n, 1)) {
            PyErr_SetString(PyExc_TypeError, "loose: nums must hold Num tuples");
            goto error;
        }
        Py_INCREF(n); /* held across the calls below, which run Python code */
        PyObject *value = PyTuple_GET_ITEM(n, 0), *scaled = PyTuple_GET_ITEM(n, 1);
        PyObject *pct = PyTuple_GET_ITEM(n, 2), *unit = PyTuple_GET_ITEM(n, 3);
        PyObject *approx = PyTuple_GET_ITEM(n, 4), *digits = PyTuple_GET_ITEM(n, 7);
        int skip = PyObject_IsTrue(approx);
        if (skip < 0) goto error_n;
        if (!skip && unit == Py_None) {
            int is_pct = PyObject_IsTrue(pct);
            if (is_pct < 0) goto error_n;
            if (!is_pct) {
                int dot = has_char(digits, '.'), comma = has_char(digits, ',');
                if (dot < 0 || comma < 0) goto error_n;
                double v = PyFloat_AS_DOUBLE(value);
                skip = !dot && !comma && 1900.0 <= v && v <= 2100.0; /* a year */
            }
        }
        if (!skip) {
            PyObject *key = PyTuple_Pack(3, pct, digits, scaled);
            if (key == NULL) goto error_n;
            PyObject *hit = PyDict_GetItemWithError(memo, key); /* borrowed */
            if (hit != NULL && hit != Py_None) {
                Py_INCREF(hit);
            } else if (PyErr_Occurred()) {
                Py_DECREF(key);
                goto error_n;
            } else {
                hit = PyObject_CallOneArg(grounds, n);
                if (hit == NULL || PyDict_SetItem(memo, key, hit) < 0) {
                    Py_XDECREF(hit);
                    Py_DECREF(key);
                    goto error_n;
                }
            }
            Py_DECREF(key);
            int grounded = PyObject_IsTrue(hit);
            Py_DECREF(hit);
            if (grounded < 0) goto error_n;
            if (!grounded && PyList_Append(out, n) < 0) goto error_n;
        }
        Py_DECREF(n);
        continue;
    error_n:
        Py_DECREF(n);
        goto error;
    }
    return out;
error:
    Py_DECREF(out);
    return NULL;
}

/* -- grounded loose figures (hallucination_grounded._loose, Material.grounds)
 *
 * ``grounded_loose(nums, material, memo)`` returns what ``_loose_reference``
 * returns with ``grounds = material.grounds``: the same loop as ``loose``
 * above, with ``Material.grounds`` itself done here instead of called back
 * into Python per distinct figure (each call built a frame and read three
 * lazy fields; on the bench that was most of the loop's cost). The memo is
 * the material's ``_grounded`` dict, read and filled as the reference does
 * for percentages only: their test scans every number of the material, while
 * a plain figure's is a few bisects, cheaper than building and looking up its
 * key. ``grounds`` is pure, so asking it again returns what the memo held.
 *
 * The material's lists are read as the reference reads them: ``nums`` (Num
 * tuples), ``sorted_values`` and ``sorted_derived`` (lists of float, sorted
 * by Python), each fetched by attribute only when the reference would first
 * touch it (they are lazy and pure, so this only saves work). The binary
 * search is ``bisect_left`` step for step over the same list, comparing the
 * same doubles, so a list holding NaN (a derived inf - inf) is searched
 * exactly as bisect searches it. The tolerance is computed with the same
 * double operations as ``0.5 * 10.0 ** (-n.decimals) + 1e-9`` (float ``**``
 * is libm ``pow``; an underflow is 0.0 there as here).
 */

/* ``item < bound`` (op Py_LT) or ``item <= bound`` (Py_LE) as Python decides
 * it: plain doubles for a float (what float_richcompare does), Python's own
 * comparison otherwise (``derived`` starts with ``sum(...)``, the int 0 when
 * nothing is summed). 1, 0, or -1 on error. */
static int item_cmp(PyObject *item, double bound, int op) {
    if (PyFloat_Check(item)) {
        double v = PyFloat_AS_DOUBLE(item);
        return op == Py_LT ? v < bound : v <= bound;
    }
    PyObject *b = PyFloat_FromDouble(bound);
    if (b == NULL) return -1;
    Py_INCREF(item); /* a comparison may run Python code */
    int r = PyObject_RichCompareBool(item, b, op);
    Py_DECREF(item);
    Py_DECREF(b);
    return r;
}

/* The reference's ``_within(vals, x, tol)``: 1, 0, or -1 on error. */
static int within(PyObject *vals, double x, double tol) {
    if (!PyList_Check(vals)) {
        PyErr_SetString(PyExc_TypeError, "grounded_loose: material lists must be lists");
        return -1;
    }
    double lo_x = x - tol;
    Py_ssize_t lo = 0, hi = PyList_GET_SIZE(vals);
    while (lo < hi) { /* bisect_left(vals, x - tol), as _bisect does it */
        Py_ssize_t mid = ((size_t)lo + hi) / 2;
        int lt = item_cmp(PyList_GET_ITEM(vals, mid), lo_x, Py_LT);
        if (lt < 0) return -1;
        if (lt)
            lo = mid + 1;
        else
            hi = mid;
        if (hi > PyList_GET_SIZE(vals)) hi = PyList_GET_SIZE(vals);
    }
    if (lo >= PyList_GET_SIZE(vals)) return 0;
    return item_cmp(PyList_GET_ITEM(vals, lo), x + tol, Py_LE);
}

/* The material's lazy lists, fetched on first use (owned references). */
typedef struct {
    PyObject *material, *nums, *values, *derived;
} ground_t;

static PyObject *ground_field(ground_t *g, PyObject **slot, const char *name) {
    if (*slot == NULL) *slot = PyObject_GetAttrString(g->material, name);
    return *slot;
}

/* The reference's ``Material.grounds(n)`` for a checked Num tuple: 1, 0, -1. */
static int grounds_num(ground_t *g, PyObject *n, int is_pct) {
    PyObject *digits = PyTuple_GET_ITEM(n, 7);
    double value = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(n, 0));
    Py_ssize_t len = PyUnicode_GET_LENGTH(digits);
    Py_ssize_t dot = PyUnicode_FindChar(digits, '.', 0, len, 1);
    if (dot == -2) return -1;
    Py_ssize_t decimals = dot >= 0 ? len - dot - 1 : 0; /* Num.decimals */
    double tol = 0.5 * pow(10.0, -(double)decimals) + 1e-9;
    int r;
    if (is_pct) {
        PyObject *nums = ground_field(g, &g->nums, "nums");
        if (nums == NULL) return -1;
        if (!PyList_Check(nums)) {
            PyErr_SetString(PyExc_TypeError, "grounded_loose: material.nums must be a list");
            return -1;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(nums); i++) {
            PyObject *s = PyList_GET_ITEM(nums, i);
            if (!is_num(s, 0)) {
                PyErr_SetString(PyExc_TypeError, "grounded_loose: material.nums must hold Nums");
                return -1;
            }
            double sv = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(s, 0));
            int s_pct = PyObject_IsTrue(PyTuple_GET_ITEM(s, 2));
            if (s_pct < 0) return -1;
            if (s_pct && fabs(sv - value) <= tol) return 1;
            if (!s_pct && sv < 1 && fabs(sv * 100 - value) <= tol) return 1;
        }
        PyObject *derived = ground_field(g, &g->derived, "sorted_derived");
        if (derived == NULL) return -1;
        return within(derived, value, tol);
    }
    PyObject *scaled_o = PyTuple_GET_ITEM(n, 1);
    if (!PyFloat_Check(scaled_o)) {
        PyErr_SetString(PyExc_TypeError, "grounded_loose: nums must hold Num tuples");
        return -1;
    }
    double scaled = PyFloat_AS_DOUBLE(scaled_o);
    PyObject *vals = ground_field(g, &g->values, "sorted_values");
    if (vals == NULL) return -1;
    if ((r = within(vals, value, tol)) != 0) return r;
    if ((r = within(vals, scaled, tol)) != 0) return r;
    if (scaled >= 1000 && (r = within(vals, scaled, 0.05 * scaled)) != 0) return r;
    PyObject *derived = ground_field(g, &g->derived, "sorted_derived");
    if (derived == NULL) return -1;
    return within(derived, scaled, tol);
}

static PyObject *grounded_loose(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3 || !PyList_Check(args[0]) || !PyDict_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "grounded_loose(nums: list, material, memo: dict)");
        return NULL;
    }
    PyObject *nums = args[0], *memo = args[2];
    ground_t g = {args[1], NULL, NULL, NULL};
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    /* nums is the caller's list, never changed while this runs (the only
     * Python code run here is the material's lazy fields) */
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(nums); i++) {
        PyObject *n = PyList_GET_ITEM(nums, i);
        if (!is_num(n, 1)) {
            PyErr_SetString(PyExc_TypeError, "grounded_loose: nums must hold Num tuples");
            goto error;
        }
        PyObject *value = PyTuple_GET_ITEM(n, 0), *scaled = PyTuple_GET_ITEM(n, 1);
        PyObject *pct = PyTuple_GET_ITEM(n, 2), *unit = PyTuple_GET_ITEM(n, 3);
        PyObject *approx = PyTuple_GET_ITEM(n, 4), *digits = PyTuple_GET_ITEM(n, 7);
        int skip = PyObject_IsTrue(approx);
        if (skip < 0) goto error;
        if (skip) continue;
        int is_pct = PyObject_IsTrue(pct);
        if (is_pct < 0) goto error;
        if (unit == Py_None && !is_pct) { /* _is_year(n) */
            int dot = has_char(digits, '.'), comma = has_char(digits, ',');
            if (dot < 0 || comma < 0) goto error;
            double v = PyFloat_AS_DOUBLE(value);
            if (!dot && !comma && 1900.0 <= v && v <= 2100.0) continue;
        }
        int grounded;
        if (!is_pct) {
            /* a few bisects: cheaper than the memo's key tuple and lookup */
            grounded = grounds_num(&g, n, 0);
            if (grounded < 0) goto error;
        } else {
            /* a percentage scans the material's numbers: asked once per key */
            PyObject *key = PyTuple_Pack(3, pct, digits, scaled); /* grounds_once(n) */
            if (key == NULL) goto error;
            PyObject *hit = PyDict_GetItemWithError(memo, key); /* borrowed */
            if (hit != NULL && hit != Py_None) {
                grounded = PyObject_IsTrue(hit);
            } else if (PyErr_Occurred()) {
                grounded = -1;
            } else {
                grounded = grounds_num(&g, n, 1);
                if (grounded >= 0 &&
                    PyDict_SetItem(memo, key, grounded ? Py_True : Py_False) < 0)
                    grounded = -1;
            }
            Py_DECREF(key);
            if (grounded < 0) goto error;
        }
        if (!grounded && PyList_Append(out, n) < 0) goto error;
    }
    Py_XDECREF(g.nums);
    Py_XDECREF(g.values);
    Py_XDECREF(g.derived);
    return out;
error:
    Py_XDECREF(g.nums);
    Py_XDECREF(g.values);
    Py_XDECREF(g.derived);
    Py_DECREF(out);
    return NULL;
}

/* -- pairwise derivations (hallucination_grounded.Material.derived) --------
 *
 * ``pair_derivations(base, out)`` appends to ``out`` what the reference loop
 * ``_pair_derivations_reference`` appends: for each pair a = base[i],
 * b = base[j], i < j, in that order, ``a + b, b - a``, then ``b / a * 100,
 * (b - a) / a * 100`` when a is not 0, then ``a / b * 100, (b - a) / b * 100``
 * when b is not 0. Python's float operators are these C double operations
 * (its division only adds the zero check the ``if`` already makes), so the
 * values are the same bits, NaN from inf - inf included; the list order is
 * the same, so ``sorted()`` of it is too. ``base`` must hold floats (the
 * material's scaled values).
 */
static PyObject *pair_derivations(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 || !PyList_Check(args[0]) || !PyList_Check(args[1]) || args[0] == args[1]) {
        PyErr_SetString(PyExc_TypeError, "pair_derivations(base: list, out: list)");
        return NULL;
    }
    PyObject *base = args[0], *out = args[1];
    Py_ssize_t k = PyList_GET_SIZE(base);
    double small[64];
    double *v = small;
    if (k > (Py_ssize_t)(sizeof(small) / sizeof(small[0]))) {
        v = PyMem_Malloc((size_t)k * sizeof(double));
        if (v == NULL) return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *item = PyList_GET_ITEM(base, i);
        if (!PyFloat_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "pair_derivations: base must hold floats");
            goto error;
        }
        v[i] = PyFloat_AS_DOUBLE(item);
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        double a = v[i];
        for (Py_ssize_t j = i + 1; j < k; j++) {
            double b = v[j], found[6];
            int m = 0;
            found[m++] = a + b;
            found[m++] = b - a;
            if (a != 0.0) { /* ``if a:`` (NaN is true) */
                found[m++] = b / a * 100;
                found[m++] = (b - a) / a * 100;
            }
            if (b != 0.0) {
                found[m++] = a / b * 100;
                found[m++] = (b - a) / b * 100;
            }
            for (int q = 0; q < m; q++) {
                PyObject *f = PyFloat_FromDouble(found[q]);
                if (f == NULL) goto error;
                int r = PyList_Append(out, f);
                Py_DECREF(f);
                if (r < 0) goto error;
            }
        }
    }
    if (v != small) PyMem_Free(v);
    Py_RETURN_NONE;
error:
    if (v != small) PyMem_Free(v);
    return NULL;
}

static PyMethodDef methods[] = {
    {"numbers", (PyCFunction)(void (*)(void))numbers, METH_FASTCALL,
     "numbers(text, num_type, unit_words, approx_words) -> list of num_type tuples."},
    {"locations", (PyCFunction)(void (*)(void))locations, METH_FASTCALL,
     "locations(text, extensions) -> list of (start, end, location) the text cites."},
    {"ground_add", (PyCFunction)(void (*)(void))ground_add, METH_FASTCALL,
     "ground_add(ground, text, add_token) -> None; adds the text's folded locations."},
    {"loose", (PyCFunction)(void (*)(void))loose, METH_FASTCALL,
     "loose(nums, memo, grounds) -> the numbers that are no estimate, year or grounded figure."},
    {"grounded_loose", (PyCFunction)(void (*)(void))grounded_loose, METH_FASTCALL,
     "grounded_loose(nums, material, memo) -> loose(nums, memo, material.grounds), grounded here."},
    {"pair_derivations", (PyCFunction)(void (*)(void))pair_derivations, METH_FASTCALL,
     "pair_derivations(base, out) -> None; appends the pairwise sums, differences, ratios."},
    {"unsupported", (PyCFunction)(void (*)(void))unsupported, METH_FASTCALL,
     "unsupported(claims, tokens, tails, ubiquitous, fold) -> the claims nothing read supports."},
    {"twin_tables", twin_tables, METH_O,
     "twin_tables(nums) -> (figures by sorted digits, figures by significant digits)."},
    {"near_misses", (PyCFunction)(void (*)(void))near_misses, METH_FASTCALL,
     "near_misses(out, nums, src_keys, src_sig) -> the figure_not_in_material signals."},
    {"twin_candidates", (PyCFunction)(void (*)(void))twin_candidates, METH_FASTCALL,
     "twin_candidates(nums, src_keys, src_sig, units) -> the figures a figure signal could read."},
    {"file_spans", file_spans, METH_O, "file_spans(text) -> (start, end) of each file name."},
    {"version_spans", version_spans, METH_O, "version_spans(text) -> (start, end) of each version."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "evaluators.rules._numkernel",
    "The number scan of the grounded-hallucination rule (see "
    "evaluators/rules/hallucination_grounded.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__numkernel(void) {
    fill_classes();
    return PyModule_Create(&module);
}
