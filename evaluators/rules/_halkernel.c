/*
 * evaluators.rules._halkernel: the material-side scans of
 * no_hallucination_markers (evaluators/rules/hallucination_grounded.py), in C.
 *
 * Ten functions, each equal to a pure-Python reference in
 * hallucination_grounded.py, which stays the fallback:
 *
 *   any_in(hay, literals) -> bool                  ``_any_in_reference``
 *   has_digit(text) -> bool                        ``_has_digit_reference``
 *   digit_sign_digit(text, sign, most) -> bool     ``_digit_sign_digit_reference``
 *   month_stems(low) -> (stems, viable)            ``_month_stems_reference``
 *   assign_runs(text, value_after) -> list[int]    ``_assign_runs_reference``
 *   assign_settings(text, value_after) -> list | None  ``_assign_settings_reference``
 *   csv_row_possible(text, most) -> bool           ``_csv_row_possible_reference``
 *   key_starts(text, word) -> list[int]            ``_key_starts_reference``
 *   occurrences(text, literals) -> list[int]       ``_occurrences_reference``
 *   matches_at_some(match, hay, literals) -> bool  ``_matches_at_some_reference``
 *
 * Why this exists: the flag pass (``_AssignStarts``) reversed the whole
 * material, found each ``:``/``=`` with ``str.find`` and ran two regex
 * matches per sign; the date pass made twelve ``str.find`` walks for the
 * month stems and a Python call per stem; the digit tests were Python loops
 * over ``str.find``. Together about a fifth of the rule on the bench cases.
 * Here each is one pass over the characters.
 *
 * Character classes are the ones ``re`` and ``str`` use: ``\d`` and
 * ``str.isdecimal`` are Py_UNICODE_ISDECIMAL, ``\w`` is Py_UNICODE_ISALNUM
 * or ``_``, ``\s`` and ``str.isspace`` are Py_UNICODE_ISSPACE,
 * ``str.isalnum`` is Py_UNICODE_ISALNUM. Every PyUnicode kind (1, 2, 4
 * bytes) is read through PyUnicode_READ. The one test that depends on
 * re.IGNORECASE folding (the flag value after a sign) is decided here only
 * when the characters it compares are ASCII; otherwise the compiled Python
 * pattern passed in decides, so no folding rule is guessed.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t n;
} text_t;

static inline Py_UCS4 at(const text_t *t, Py_ssize_t i) {
    return PyUnicode_READ(t->kind, t->data, i);
}

static inline int is_decimal(Py_UCS4 c) {
    return c < 128 ? (c >= '0' && c <= '9') : Py_UNICODE_ISDECIMAL(c);
}

static inline int is_space(Py_UCS4 c) { return Py_UNICODE_ISSPACE(c); }

static inline int is_word(Py_UCS4 c) {
    if (c < 128) /* ASCII: str.isalnum is [0-9A-Za-z] (no table call) */
        return c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
    return Py_UNICODE_ISALNUM(c);
}

/* The first ``c`` at or after ``i``, or -1: ``text.find(c, i)``. By memchr on
 * 1-byte text (most text), where a sign the scans look for is a few
 * characters in a hundred. */
static inline Py_ssize_t find_char(const text_t *t, Py_UCS4 c, Py_ssize_t i) {
    if (i >= t->n) return -1;
    if (t->kind == PyUnicode_1BYTE_KIND) {
        if (c > 0xFF) return -1; /* no such character in 1-byte text */
        const Py_UCS1 *d = (const Py_UCS1 *)t->data;
        const Py_UCS1 *p = memchr(d + i, (int)c, (size_t)(t->n - i));
        return p == NULL ? -1 : p - d;
    }
    for (; i < t->n; i++)
        if (at(t, i) == c) return i;
    return -1;
}

static int text_of(PyObject *obj, text_t *t, const char *fn) {
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: expected str", fn);
        return -1;
    }
    if (PyUnicode_READY(obj) < 0) return -1;
    t->kind = PyUnicode_KIND(obj);
    t->data = PyUnicode_DATA(obj);
    t->n = PyUnicode_GET_LENGTH(obj);
    return 0;
}

/* -- has_digit: ``_ANY_DIGIT.search(text) is not None`` ------------------ */

static PyObject *has_digit(PyObject *self, PyObject *arg) {
    (void)self;
    text_t t;
    if (text_of(arg, &t, "has_digit") < 0) return NULL;
    for (Py_ssize_t i = 0; i < t.n; i++)
        if (is_decimal(at(&t, i))) Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* -- digit_sign_digit (mirrors ``_digit_sign_digit``) ---------------------
 *
 * Walks the occurrences of ``sign`` (one character) in order: True at the
 * first one with a decimal character on each side, or once ``most`` of them
 * have been seen; False when they run out. */

static PyObject *digit_sign_digit(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "digit_sign_digit(text, sign, most) takes 3 arguments");
        return NULL;
    }
    text_t t;
    if (text_of(args[0], &t, "digit_sign_digit") < 0) return NULL;
    if (!PyUnicode_Check(args[1]) || PyUnicode_GET_LENGTH(args[1]) != 1) {
        PyErr_SetString(PyExc_TypeError, "digit_sign_digit: sign must be one character");
        return NULL;
    }
    Py_UCS4 sign = PyUnicode_READ_CHAR(args[1], 0);
    Py_ssize_t most = PyLong_AsSsize_t(args[2]);
    if (most == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t seen = 0;
    for (Py_ssize_t i = find_char(&t, sign, 0); i >= 0; i = find_char(&t, sign, i + 1)) {
        /* ``i and text[i-1].isdecimal() and text[i+1:i+2].isdecimal()`` */
        if (i > 0 && is_decimal(at(&t, i - 1)) && i + 1 < t.n && is_decimal(at(&t, i + 1)))
            Py_RETURN_TRUE;
        seen++;
        if (seen >= most) Py_RETURN_TRUE;
    }
    Py_RETURN_FALSE;
}

/* -- month_stems (mirrors the stem loop of ``_named_date_matches``) --------
 *
 * ``low`` is lowered ASCII text. For each stem of ``_MONTH_STEMS`` in order,
 * each occurrence (overlaps included) whose previous character is none or
 * neither ``str.isalnum`` nor ``_`` is listed; ``viable`` is whether any
 * listed stem passes ``_named_from`` or (after whitespace) ``_day_before``.
 * The text is ASCII, so every character is one byte of a 1-byte kind; other
 * kinds are still read correctly (through ``at``), only never occur. */

static const char *const STEMS[12] = {"jan", "feb", "mar", "apr", "may", "jun",
                                      "jul", "aug", "sep", "oct", "nov", "dec"};

static inline int is_lower(Py_UCS4 c) { return c >= 'a' && c <= 'z'; }

/* ``_named_from(low, i)``: stem[a-z]{0,6}\.?\s+\d from i */
static int named_from(const text_t *t, Py_ssize_t i) {
    Py_ssize_t n = t->n, j = i + 3;
    Py_ssize_t stop = j + 6 < n ? j + 6 : n;
    while (j < stop && is_lower(at(t, j))) j++;
    if (j < n && is_lower(at(t, j))) return 0;
    if (j < n && at(t, j) == '.') j++;
    if (j >= n || !is_space(at(t, j))) return 0;
    while (j < n && is_space(at(t, j))) j++;
    return j < n && is_decimal(at(t, j));
}

/* ``_day_at(low, k)``: a day (a digit, or a digit and an ordinal suffix) ends at k */
static int day_at(const text_t *t, Py_ssize_t k) {
    if (k < 0) return 0;
    Py_UCS4 c = at(t, k);
    if (is_decimal(c)) return 1;
    if (k < 2) return 0;
    Py_UCS4 a = at(t, k - 1);
    int suffix = (a == 's' && c == 't') || (a == 'n' && c == 'd') || (a == 'r' && c == 'd') ||
                 (a == 't' && c == 'h');
    return suffix && is_decimal(at(t, k - 2));
}

/* ``_day_before(low, k)`` */
static int day_before(const text_t *t, Py_ssize_t k) {
    while (k >= 0 && is_space(at(t, k))) k--;
    if (day_at(t, k)) return 1;
    if (k >= 2 && at(t, k - 1) == 'o' && at(t, k) == 'f' && is_space(at(t, k - 2))) {
        k -= 2;
        while (k >= 0 && is_space(at(t, k))) k--;
        return day_at(t, k);
    }
    return 0;
}

/* Whether some stem opens with the ASCII character c: most characters of a
 * text are not one of "jfmasond", and are passed over on this one test. */
static inline int stem_first(Py_UCS4 c) {
    switch (c) {
    case 'j': case 'f': case 'm': case 'a': case 's': case 'o': case 'n': case 'd':
        return 1;
    default:
        return 0;
    }
}

/* The index in STEMS of the stem starting at i, or -1. */
static int stem_index(const text_t *t, Py_ssize_t i) {
    if (i + 3 > t->n) return -1;
    Py_UCS4 a = at(t, i);
    if (!stem_first(a)) return -1;
    for (int s = 0; s < 12; s++)
        if ((Py_UCS4)STEMS[s][0] == a && at(t, i + 1) == (Py_UCS4)STEMS[s][1] &&
            at(t, i + 2) == (Py_UCS4)STEMS[s][2])
            return s;
    return -1;
}

static PyObject *month_stems(PyObject *self, PyObject *arg) {
    (void)self;
    text_t t;
    if (text_of(arg, &t, "month_stems") < 0) return NULL;
    /* one pass finds the stems at a word start; the reference lists them stem
     * by stem (each in text order), so they are bucketed by stem first */
    Py_ssize_t cap = 16, used = 0;
    Py_ssize_t *found = PyMem_Malloc((size_t)cap * sizeof(Py_ssize_t));
    unsigned char *which = PyMem_Malloc((size_t)cap);
    PyObject *stems = NULL, *res = NULL;
    int viable = 0;
    if (found == NULL || which == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i + 3 <= t.n; i++) {
        int s = stem_index(&t, i);
        if (s < 0) continue;
        if (i > 0) {
            Py_UCS4 before = at(&t, i - 1);
            if (before == '_' || Py_UNICODE_ISALNUM(before)) continue;
        }
        if (used == cap) {
            cap *= 2;
            Py_ssize_t *f2 = PyMem_Realloc(found, (size_t)cap * sizeof(Py_ssize_t));
            if (f2 == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            found = f2;
            unsigned char *w2 = PyMem_Realloc(which, (size_t)cap);
            if (w2 == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            which = w2;
        }
        found[used] = i;
        which[used] = (unsigned char)s;
        used++;
        /* ``_named_from(low, i) or (before.isspace() and _day_before(low, i - 1))`` */
        if (!viable)
            viable = named_from(&t, i) || (i > 0 && is_space(at(&t, i - 1)) &&
                                           day_before(&t, i - 1));
    }
    stems = PyList_New(used);
    if (stems == NULL) goto done;
    Py_ssize_t k = 0;
    for (int s = 0; s < 12; s++) {
        for (Py_ssize_t j = 0; j < used; j++) {
            if (which[j] != s) continue;
            PyObject *pos = PyLong_FromSsize_t(found[j]);
            if (pos == NULL) goto done;
            PyList_SET_ITEM(stems, k, pos);
            k++;
        }
    }
    res = PyTuple_Pack(2, stems, viable ? Py_True : Py_False);
done:
    Py_XDECREF(stems);
    PyMem_Free(found);
    PyMem_Free(which);
    return res;
}

/* -- assign_runs (mirrors ``_AssignStarts.__init__``) ---------------------
 *
 * For every ``:`` or ``=`` of the text, ascending: when ``_VALUE_AFTER``
 * (``\s*"?(?:true|false|on|off|enabled|disabled)\b``, re.I) matches just
 * after it, the start of the ``[\w.-]`` run that ``_ASSIGN_BEFORE``
 * (``\s*"?([\w.-]+)``) reads back from just before it, if there is one.
 *
 * The value test: whitespace, an optional quote, then one of the six words
 * compared without case, then no word character. Backtracking cannot find
 * another match (the quote is optional but no word starts with a quote, and
 * the words have distinct letters where they differ), so each word is
 * tried at the one place. Case folding is exact here when every compared
 * character is ASCII (re.I folds ASCII letters to ASCII letters only); when
 * one is not, ``value_after(text, sign + 1)`` (the compiled pattern's match)
 * decides. The read back is case-free: spaces, one optional quote, then the
 * maximal run; it needs at least one run character. */

static const char *const VALUES[6] = {"true", "false", "on", "off", "enabled", "disabled"};

/* 1 when the value pattern matches at p, 0 when not, 2 when undecided here */
static int value_at(const text_t *t, Py_ssize_t p) {
    Py_ssize_t n = t->n;
    while (p < n && is_space(at(t, p))) p++;
    if (p < n && at(t, p) == '"') p++;
    for (int v = 0; v < 6; v++) {
        const char *w = VALUES[v];
        Py_ssize_t len = (Py_ssize_t)strlen(w), k = 0;
        for (; k < len; k++) {
            if (p + k >= n) break;
            Py_UCS4 c = at(t, p + k);
            if (c >= 128) return 2;
            if (c >= 'A' && c <= 'Z') c += 32;
            if (c != (Py_UCS4)w[k]) break;
        }
        if (k < len) continue;
        if (p + len < n && is_word(at(t, p + len))) continue; /* \b after a letter */
        return 1;
    }
    return 0;
}

static inline int is_run(Py_UCS4 c) { return c == '.' || c == '-' || is_word(c); }

static PyObject *assign_runs(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "assign_runs(text, value_after) takes 2 arguments");
        return NULL;
    }
    text_t t;
    PyObject *text = args[0], *value_after = args[1];
    if (text_of(text, &t, "assign_runs") < 0) return NULL;
    PyObject *runs = PyList_New(0);
    if (runs == NULL) return NULL;
    for (Py_ssize_t sign = 0; sign < t.n; sign++) {
        Py_UCS4 c = at(&t, sign);
        if (c != ':' && c != '=') continue;
        int ok = value_at(&t, sign + 1);
        if (ok == 2) {
            PyObject *m = PyObject_CallFunction(value_after, "On", text, sign + 1);
            if (m == NULL) goto error;
            ok = m != Py_None;
            Py_DECREF(m);
        }
        if (!ok) continue;
        Py_ssize_t k = sign - 1;
        while (k >= 0 && is_space(at(&t, k))) k--;
        if (k >= 0 && at(&t, k) == '"') k--;
        if (k < 0 || !is_run(at(&t, k))) continue; /* no run: the match fails */
        while (k >= 0 && is_run(at(&t, k))) k--;
        PyObject *pos = PyLong_FromSsize_t(k + 1);
        if (pos == NULL || PyList_Append(runs, pos) < 0) {
            Py_XDECREF(pos);
            goto error;
        }
        Py_DECREF(pos);
    }
    return runs;
error:
    Py_DECREF(runs);
    return NULL;
}

/* -- assign_settings (mirrors the assignment loop of ``_flag_settings``) --
 *
 * ``assign_settings(text, value_after)`` returns the ``(key, value)`` pairs
 * that the middle (assignment) loop of ``_flag_settings`` yields, in order,
 * or None when a step depends on re.IGNORECASE folding a non-ASCII character
 * (then the Python loop, ``_assign_settings_reference``, runs instead).
 *
 * The loop: from ``pos`` (0 at first), a match is ``_BOOL_ASSIGN_HERE`` at
 * ``pos`` when ``pos`` > 0, else the first run start (``assign_runs``) at or
 * after ``pos`` where ``_BOOL_ASSIGN`` matches (from the quote before the run
 * when there is one after ``pos``). The key is the run from its first
 * ``[A-Za-z]`` (re.I); a run without one moves ``pos`` to the run's end,
 * otherwise the pair is listed and ``pos`` moves to the match end.
 *
 * One match, ``"?(?<![\w.-])(?P<run>[\w.-]++)"?\s*[:=]\s*"?(?P<val>...)\b``
 * (the lookbehind only in ``_BOOL_ASSIGN``): each optional quote is taken
 * when present, since without it the next item would have to match a quote
 * (a run character, a space, a sign and a value letter never is one); the
 * run is possessive; spaces are never signs nor value letters. So the match
 * is the one greedy path. ``[A-Za-z]`` under re.I also takes non-ASCII
 * letters that fold into it, so a non-ASCII character met before the key's
 * first ASCII letter defers too. */

typedef struct {
    Py_ssize_t run_start, run_end, val_start, val_end;
} assign_t;

enum { NO_MATCH = 0, MATCHED = 1, DEFER = 2 };

static int assign_at(const text_t *t, Py_ssize_t p, int lookbehind, assign_t *m) {
    Py_ssize_t n = t->n, q = p;
    if (q < n && at(t, q) == '"') q++;
    if (lookbehind && q > 0 && is_run(at(t, q - 1))) return NO_MATCH;
    m->run_start = q;
    while (q < n && is_run(at(t, q))) q++;
    if (q == m->run_start) return NO_MATCH;
    m->run_end = q;
    if (q < n && at(t, q) == '"') q++;
    while (q < n && is_space(at(t, q))) q++;
    if (q >= n || (at(t, q) != ':' && at(t, q) != '=')) return NO_MATCH;
    q++;
    while (q < n && is_space(at(t, q))) q++;
    if (q < n && at(t, q) == '"') q++;
    for (int v = 0; v < 6; v++) {
        const char *w = VALUES[v];
        Py_ssize_t len = (Py_ssize_t)strlen(w), k = 0;
        for (; k < len; k++) {
            if (q + k >= n) break;
            Py_UCS4 c = at(t, q + k);
            if (c >= 128) return DEFER;
            if (c >= 'A' && c <= 'Z') c += 32;
            if (c != (Py_UCS4)w[k]) break;
        }
        if (k < len) continue;
        if (q + len < n && is_word(at(t, q + len))) continue;
        m->val_start = q;
        m->val_end = q + len;
        return MATCHED;
    }
    return NO_MATCH;
}

static int append_pair(PyObject *out, PyObject *text, Py_ssize_t a, Py_ssize_t b, Py_ssize_t c,
                       Py_ssize_t d) {
    PyObject *key = PyUnicode_Substring(text, a, b);
    if (key == NULL) return -1;
    PyObject *val = PyUnicode_Substring(text, c, d);
    if (val == NULL) {
        Py_DECREF(key);
        return -1;
    }
    PyObject *pair = PyTuple_Pack(2, key, val);
    Py_DECREF(key);
    Py_DECREF(val);
    if (pair == NULL) return -1;
    int r = PyList_Append(out, pair);
    Py_DECREF(pair);
    return r;
}

static PyObject *assign_settings(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "assign_settings(text, value_after) takes 2 arguments");
        return NULL;
    }
    PyObject *text = args[0];
    text_t t;
    if (text_of(text, &t, "assign_settings") < 0) return NULL;
    PyObject *runs = assign_runs(self, args, nargs);
    if (runs == NULL) return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL) goto error;
    Py_ssize_t nruns = PyList_GET_SIZE(runs), next = 0, pos = 0;
    for (;;) {
        assign_t m;
        int r = NO_MATCH;
        if (pos > 0) r = assign_at(&t, pos, 0, &m);
        if (r == NO_MATCH) {
            /* ``starts.search(pos)``: the runs are ascending, and ``pos`` only grows */
            while (next < nruns && PyLong_AsSsize_t(PyList_GET_ITEM(runs, next)) < pos) next++;
            for (Py_ssize_t i = next; i < nruns && r == NO_MATCH; i++) {
                Py_ssize_t run = PyLong_AsSsize_t(PyList_GET_ITEM(runs, i));
                int quoted = run > pos && at(&t, run - 1) == '"';
                r = assign_at(&t, quoted ? run - 1 : run, 1, &m);
            }
        }
        if (r == DEFER) goto defer;
        if (r == NO_MATCH) break;
        /* ``_KEY_START.search(run)`` */
        Py_ssize_t key = -1;
        for (Py_ssize_t i = m.run_start; i < m.run_end; i++) {
            Py_UCS4 c = at(&t, i);
            if (c >= 128) goto defer;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
                key = i;
                break;
            }
        }
        if (key < 0) {
            pos = m.run_end;
            continue;
        }
        if (append_pair(out, text, key, m.run_end, m.val_start, m.val_end) < 0) goto error;
        pos = m.val_end;
    }
    Py_DECREF(runs);
    return out;
defer:
    Py_DECREF(runs);
    Py_DECREF(out);
    Py_RETURN_NONE;
error:
    Py_DECREF(runs);
    Py_XDECREF(out);
    return NULL;
}

/* -- csv_row_possible (mirrors ``_csv_row_possible_reference``) -----------
 *
 * Walks the commas in order. From each it reads back over the class of
 * ``_CSV_BACK`` (``[\w .'&\s-]``: a word character, a space, ``.``, ``'``,
 * ``&``, whitespace or ``-``) as that pattern does on the reversed text;
 * True when the stretch reaches the text start or holds a newline (a
 * newline is whitespace, so it is inside the stretch whenever it lies in
 * ``text[b:c]``), or once more than ``most`` commas have been seen. The
 * comma is outside the class, so the stretches do not overlap: one pass. */

static inline int csv_back(Py_UCS4 c) {
    return c == ' ' || c == '.' || c == '\'' || c == '&' || c == '-' || is_word(c) || is_space(c);
}

static PyObject *csv_row_possible(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "csv_row_possible(text, most) takes 2 arguments");
        return NULL;
    }
    text_t t;
    if (text_of(args[0], &t, "csv_row_possible") < 0) return NULL;
    Py_ssize_t most = PyLong_AsSsize_t(args[1]);
    if (most == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t seen = 0;
    for (Py_ssize_t c = find_char(&t, ',', 0); c >= 0; c = find_char(&t, ',', c + 1)) {
        seen++;
        if (seen > most) Py_RETURN_TRUE;
        Py_ssize_t j = c - 1;
        while (j >= 0) {
            Py_UCS4 ch = at(&t, j);
            if (!csv_back(ch)) break;
            if (ch == '\n') Py_RETURN_TRUE;
            j--;
        }
        if (j < 0) Py_RETURN_TRUE; /* b == 0: the stretch starts the text */
    }
    Py_RETURN_FALSE;
}

/* -- any_in: ``any(lit in hay for lit in literals)`` -------------------------
 *
 * The material gates of the signals (``_any_in``): one call instead of a
 * generator frame per gate. ``PyUnicode_Contains`` is what ``in`` runs. */

static PyObject *any_in(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "any_in(hay: str, literals: tuple) takes 2 arguments");
        return NULL;
    }
    PyObject *hay = args[0], *lits = args[1];
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(lits); i++) {
        PyObject *lit = PyTuple_GET_ITEM(lits, i);
        if (!PyUnicode_Check(lit)) {
            PyErr_SetString(PyExc_TypeError, "any_in: literals must be str");
            return NULL;
        }
        int r = PyUnicode_Contains(hay, lit);
        if (r < 0) return NULL;
        if (r) Py_RETURN_TRUE;
    }
    Py_RETURN_FALSE;
}

/* -- key_starts: ``_key_starts_reference`` ----------------------------------
 *
 * The offsets at which ``word`` occurs in ``text``, overlaps
 * included, where a flag key's opening ``(?<![\w-])`` holds: at the text
 * start or after a character that is neither ``str.isalnum``
 * (Py_UNICODE_ISALNUM), ``_`` nor ``-``. Each occurrence is found by
 * PyUnicode_Find, the search ``str.find`` runs, from one past the last, as
 * the reference loop does; a short key ("ok") mostly occurs inside other
 * words ("token", "look"), and that loop was a Python step per occurrence. */

static PyObject *key_starts(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "key_starts(text: str, word: str) takes 2 arguments");
        return NULL;
    }
    PyObject *text = args[0], *word = args[1];
    text_t t;
    if (text_of(text, &t, "key_starts") < 0) return NULL;
    if (PyUnicode_READY(word) < 0) return NULL;
    PyObject *found = PyList_New(0);
    if (found == NULL) return NULL;
    Py_ssize_t i = PyUnicode_Find(text, word, 0, t.n, 1);
    while (i >= 0) {
        Py_UCS4 c = i ? at(&t, i - 1) : 0;
        if (!i || !(Py_UNICODE_ISALNUM(c) || c == '_' || c == '-')) {
            PyObject *at_i = PyLong_FromSsize_t(i);
            if (at_i == NULL || PyList_Append(found, at_i) < 0) {
                Py_XDECREF(at_i);
                Py_DECREF(found);
                return NULL;
            }
            Py_DECREF(at_i);
        }
        if (i + 1 > t.n) break; /* str.find past the end: -1 (an empty word gets here) */
        i = PyUnicode_Find(text, word, i + 1, t.n, 1);
    }
    if (i == -2) { /* PyUnicode_Find failed */
        Py_DECREF(found);
        return NULL;
    }
    return found;
}

/* -- occurrences: ``_occurrences_reference`` --------------------------------
 *
 * Where each of ``literals`` occurs in ``text``, overlaps included, literal
 * by literal, each in text order: PyUnicode_Find (``str.find``) from one
 * past the last occurrence, as the reference loop does. Why: the status and
 * prohibition signals list the occurrences of nine leads in every material,
 * a Python ``find`` and ``append`` per lead and occurrence. */

static int append_index(PyObject *list, Py_ssize_t i) {
    PyObject *v = PyLong_FromSsize_t(i);
    if (v == NULL) return -1;
    int r = PyList_Append(list, v);
    Py_DECREF(v);
    return r;
}

static PyObject *occurrences(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 || !PyUnicode_Check(args[0]) || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "occurrences(text: str, literals: tuple) takes 2 arguments");
        return NULL;
    }
    PyObject *text = args[0], *lits = args[1];
    if (PyUnicode_READY(text) < 0) return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *found = PyList_New(0);
    if (found == NULL) return NULL;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(lits); k++) {
        PyObject *lit = PyTuple_GET_ITEM(lits, k);
        if (!PyUnicode_Check(lit)) {
            PyErr_SetString(PyExc_TypeError, "occurrences: literals must be str");
            Py_DECREF(found);
            return NULL;
        }
        Py_ssize_t i = PyUnicode_Find(text, lit, 0, n, 1);
        while (i >= 0) {
            if (append_index(found, i) < 0) {
                Py_DECREF(found);
                return NULL;
            }
            if (i + 1 > n) break; /* str.find past the end: -1 (an empty literal gets here) */
            i = PyUnicode_Find(text, lit, i + 1, n, 1);
        }
        if (i == -2) {
            Py_DECREF(found);
            return NULL;
        }
    }
    return found;
}

/* -- matches_at_some: ``_matches_at_some_reference`` ------------------------
 *
 * Whether ``match(hay, i)`` is not None at some occurrence ``i`` of one of
 * ``literals`` (literal by literal, each occurrence in text order, stopping
 * at the first match): ``match`` is a compiled pattern's bound ``match``,
 * called as the reference calls it. Why: the failure-evidence gates try the
 * status pattern at each "status", "state" and "result" of every material
 * holding one, a Python ``find`` and call per occurrence. */

static PyObject *matches_at_some(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3 || !PyCallable_Check(args[0]) || !PyUnicode_Check(args[1]) ||
        !PyTuple_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError,
                        "matches_at_some(match, hay: str, literals: tuple) takes 3 arguments");
        return NULL;
    }
    PyObject *match = args[0], *hay = args[1], *lits = args[2];
    if (PyUnicode_READY(hay) < 0) return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(hay);
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(lits); k++) {
        PyObject *lit = PyTuple_GET_ITEM(lits, k);
        if (!PyUnicode_Check(lit)) {
            PyErr_SetString(PyExc_TypeError, "matches_at_some: literals must be str");
            return NULL;
        }
        Py_ssize_t i = PyUnicode_Find(hay, lit, 0, n, 1);
        while (i >= 0) {
            PyObject *pos = PyLong_FromSsize_t(i);
            if (pos == NULL) return NULL;
            PyObject *call[2] = {hay, pos};
            PyObject *m = PyObject_Vectorcall(match, call, 2, NULL);
            Py_DECREF(pos);
            if (m == NULL) return NULL;
            int hit = m != Py_None;
            Py_DECREF(m);
            if (hit) Py_RETURN_TRUE;
            if (i + 1 > n) break;
            i = PyUnicode_Find(hay, lit, i + 1, n, 1);
        }
        if (i == -2) return NULL;
    }
    Py_RETURN_FALSE;
}

static PyMethodDef methods[] = {
    {"csv_row_possible", (PyCFunction)(void (*)(void))csv_row_possible, METH_FASTCALL,
     "csv_row_possible(text, most) -> whether some comma may end a CSV row's label."},
    {"any_in", (PyCFunction)(void (*)(void))any_in, METH_FASTCALL,
     "any_in(hay, literals) -> any(lit in hay for lit in literals)."},
    {"has_digit", (PyCFunction)has_digit, METH_O,
     "has_digit(text) -> whether text holds a decimal character (re's \\d)."},
    {"digit_sign_digit", (PyCFunction)(void (*)(void))digit_sign_digit, METH_FASTCALL,
     "digit_sign_digit(text, sign, most) -> whether text may hold \\d sign \\d."},
    {"month_stems", (PyCFunction)month_stems, METH_O,
     "month_stems(low) -> (month stems at a word start, whether one can open a date)."},
    {"assign_runs", (PyCFunction)(void (*)(void))assign_runs, METH_FASTCALL,
     "assign_runs(text, value_after) -> the starts of the runs a flag assignment can key."},
    {"assign_settings", (PyCFunction)(void (*)(void))assign_settings, METH_FASTCALL,
     "assign_settings(text, value_after) -> the (key, value) flag assignments, or None."},
    {"key_starts", (PyCFunction)(void (*)(void))key_starts, METH_FASTCALL,
     "key_starts(text, word) -> where word occurs with no word character or dash before."},
    {"occurrences", (PyCFunction)(void (*)(void))occurrences, METH_FASTCALL,
     "occurrences(text, literals) -> where each literal occurs, overlaps included."},
    {"matches_at_some", (PyCFunction)(void (*)(void))matches_at_some, METH_FASTCALL,
     "matches_at_some(match, hay, literals) -> whether match(hay, i) holds at some occurrence."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "evaluators.rules._halkernel",
    "The material-side scans of no_hallucination_markers (see "
    "evaluators/rules/hallucination_grounded.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__halkernel(void) { return PyModule_Create(&module); }
