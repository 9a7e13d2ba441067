/*
 * evaluators.lexical._lexkernel: the lexical layer's text passes, in C.
 *
 * Why this exists: every evaluation splits its output into sentences and
 * tokens several times over (sentence counts, keyword overlap, ask coverage,
 * topic consistency). In Python each pass is a regex scan plus a loop step
 * per sentence or token, ~80-200 us on a 2.5 KB output; one linear C scan is
 * a few microseconds. The Python functions in sentences.py and terms.py stay
 * the reference: these kernels must return exactly what they return, on
 * every str (any of the 1/2/4-byte kinds, lone surrogates included), and the
 * package falls back to them when this module was not built.
 *
 * What is duplicated here, and so must follow the Python source:
 *
 *   split_sentences(text, abbrev) -> list[tuple[int, int]]
 *       sentences.split_sentences: the _END regex (a run of [.!?] followed
 *       by \s, a quote or bracket, the end, or - after a lowercase letter -
 *       a capitalised word), the abbreviation test and the whitespace trim.
 *       ``abbrev`` is sentences._ABBREV (the set stays in Python).
 *   tokens(text) -> set[str]          terms.distinct_tokens
 *   words(text) -> list[str]          terms.words (_WORD, then _CAMEL)
 *   content_terms(text, stopwords) -> list[str]
 *       the uncached body of terms.content_terms: strip_fences, words, the
 *       length and stopword filter, and terms.stem (SUFFIXES below is
 *       terms._SUFFIXES; a test checks that the two agree).
 *
 * Every regex class involved is ASCII ([A-Za-z], [0-9], [.!?]) except \s
 * and the str methods (strip, rsplit, isalpha), which read the same Unicode
 * tables as Py_UNICODE_ISSPACE / Py_UNICODE_ISALPHA. The one place where
 * Unicode case mapping matters - ``word.lower()`` in the abbreviation test,
 * where e.g. 'N\u212a'.lower() is 'nk' - calls str.lower itself for any
 * word that is not plain ASCII.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define KERNEL static inline __attribute__((always_inline))

#define IS_UPPER(c) ((c) >= 'A' && (c) <= 'Z')
#define IS_LOWER(c) ((c) >= 'a' && (c) <= 'z')
#define IS_LETTER(c) (IS_UPPER(c) || IS_LOWER(c))
#define IS_DIGIT(c) ((c) >= '0' && (c) <= '9')
#define IS_WORD_CHAR(c) (IS_LETTER(c) || IS_DIGIT(c) || (c) == '\'')
#define IS_END(c) ((c) == '.' || (c) == '!' || (c) == '?')
/* the characters sentences._NOT_CONTENT names: a stretch of only these is no sentence */
#define IS_NOT_CONTENT(c) \
    ((c) == ' ' || (c) == '\t' || (c) == '\r' || (c) == '\n' || IS_END(c))
#define LOWER_ASCII(c) (IS_UPPER(c) ? (c) + ('a' - 'A') : (c))

/* ------------------------------------------------------------------------ */
/* Sentences                                                                 */
/* ------------------------------------------------------------------------ */

/* Appends (s, e) to ``spans``; 0 on success, -1 with an exception set. */
static int append_span(PyObject *spans, Py_ssize_t s, Py_ssize_t e) {
    PyObject *a = PyLong_FromSsize_t(s);
    if (a == NULL) return -1;
    PyObject *b = PyLong_FromSsize_t(e);
    if (b == NULL) {
        Py_DECREF(a);
        return -1;
    }
    PyObject *t = PyTuple_New(2);
    if (t == NULL) {
        Py_DECREF(a);
        Py_DECREF(b);
        return -1;
    }
    PyTuple_SET_ITEM(t, 0, a); /* steals */
    PyTuple_SET_ITEM(t, 1, b);
    int rc = PyList_Append(spans, t);
    Py_DECREF(t);
    return rc;
}

/* The stretch text[s:e] as a sentence: appended trimmed of Unicode
 * whitespace (str.strip) when it holds a character outside _NOT_CONTENT. */
KERNEL int emit_piece(PyObject *spans, int kind, const void *data, Py_ssize_t s, Py_ssize_t e) {
    Py_ssize_t k = s;
    while (k < e && IS_NOT_CONTENT(PyUnicode_READ(kind, data, k))) k++;
    if (k == e) return 0;
    while (s < e && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, s))) s++;
    while (e > s && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, e - 1))) e--;
    return append_span(spans, s, e);
}

/* ``last in abbrev or (len(last) == 1 and last.isalpha())`` for ``last``
 * already lowered, as the first ``n`` characters of ``low`` (rstrip('.')
 * done by the caller). 1 yes, 0 no, -1 error. */
static int abbrev_or_initial(PyObject *low, Py_ssize_t n, PyObject *abbrev) {
    if (n == 1 && Py_UNICODE_ISALPHA(PyUnicode_READ_CHAR(low, 0))) return 1;
    PyObject *key = PyUnicode_Substring(low, 0, n);
    if (key == NULL) return -1;
    int found = PySet_Contains(abbrev, key);
    Py_DECREF(key);
    return found;
}

/* The abbreviation test of split_sentences for a lone '.' at ``stop``:
 * last = text[start:stop].rsplit(None, 1)[-1] (or ""), lowered and stripped
 * of trailing dots. 1 when the dot ends an abbreviation or an initial (no
 * split), 0 when it ends a sentence, -1 on error. */
KERNEL int ends_abbreviation(PyObject *text, int kind, const void *data, Py_ssize_t start,
                             Py_ssize_t stop, PyObject *abbrev) {
    Py_ssize_t e = stop;
    while (e > start && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, e - 1))) e--;
    Py_ssize_t s = e;
    while (s > start && !Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, s - 1))) s--;
    Py_ssize_t n = e - s;
    int ascii = 1;
    for (Py_ssize_t k = s; k < e; k++) {
        if (PyUnicode_READ(kind, data, k) > 127) {
            ascii = 0;
            break;
        }
    }
    if (ascii && n <= 64) {
        /* ASCII lowers to ASCII of the same length: done here */
        char buf[64];
        for (Py_ssize_t k = 0; k < n; k++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, s + k);
            buf[k] = (char)LOWER_ASCII(c);
        }
        Py_ssize_t m = n;
        while (m > 0 && buf[m - 1] == '.') m--;
        if (m == 1 && IS_LETTER(buf[0])) return 1;
        PyObject *key = PyUnicode_FromStringAndSize(buf, m);
        if (key == NULL) return -1;
        int found = PySet_Contains(abbrev, key);
        Py_DECREF(key);
        return found;
    }
    /* Anything else goes through str.lower, whose full case mapping may
     * change lengths ('\u0130') or land in ASCII ('\u212a'). */
    PyObject *word = PyUnicode_Substring(text, s, e);
    if (word == NULL) return -1;
    PyObject *low = PyObject_CallMethod(word, "lower", NULL);
    Py_DECREF(word);
    if (low == NULL) return -1;
    if (!PyUnicode_Check(low)) {
        Py_DECREF(low);
        PyErr_SetString(PyExc_TypeError, "str.lower returned a non-str");
        return -1;
    }
    Py_ssize_t m = PyUnicode_GET_LENGTH(low);
    while (m > 0 && PyUnicode_READ_CHAR(low, m - 1) == '.') m--;
    int found = abbrev_or_initial(low, m, abbrev);
    Py_DECREF(low);
    return found;
}

KERNEL PyObject *split_kind(PyObject *text, int kind, PyObject *abbrev) {
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *spans = PyList_New(0);
    if (spans == NULL) return NULL;
    Py_ssize_t start = 0, i = 0;
    while (i < n) {
        if (!IS_END(PyUnicode_READ(kind, data, i))) {
            i++;
            continue;
        }
        /* A maximal run of [.!?]: only the whole run can satisfy _END's
         * lookahead (a shorter one is followed by one of [.!?]), and a
         * match starting inside the run would end at the same place. */
        Py_ssize_t a = i;
        while (i < n && IS_END(PyUnicode_READ(kind, data, i))) i++;
        Py_ssize_t b = i;
        if (b < n) {
            Py_UCS4 d = PyUnicode_READ(kind, data, b);
            int ok = Py_UNICODE_ISSPACE(d) || d == '"' || d == '\'' || d == ')' || d == ']';
            if (!ok && IS_UPPER(d) && b + 1 < n && IS_LOWER(PyUnicode_READ(kind, data, b + 1)) &&
                b >= 2 && IS_LOWER(PyUnicode_READ(kind, data, b - 2)))
                ok = 1; /* (?<=[a-z][.!?])[A-Z][a-z]: text[b-1] is in the run */
            if (!ok) continue;
        }
        if (b - a == 1 && PyUnicode_READ(kind, data, a) == '.') {
            int r = ends_abbreviation(text, kind, data, start, a, abbrev);
            if (r < 0) goto error;
            if (r) continue;
        }
        if (emit_piece(spans, kind, data, start, b) < 0) goto error;
        start = b;
    }
    if (emit_piece(spans, kind, data, start, n) < 0) goto error;
    return spans;
error:
    Py_DECREF(spans);
    return NULL;
}

static PyObject *split_sentences(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "split_sentences(text, abbrev) takes 2 arguments");
        return NULL;
    }
    PyObject *text = args[0], *abbrev = args[1];
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "split_sentences: text must be str");
        return NULL;
    }
    if (!PyAnySet_Check(abbrev)) {
        PyErr_SetString(PyExc_TypeError, "split_sentences: abbrev must be a set or frozenset");
        return NULL;
    }
    if (PyUnicode_READY(text) < 0) return NULL;
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        return split_kind(text, PyUnicode_1BYTE_KIND, abbrev);
    case PyUnicode_2BYTE_KIND:
        return split_kind(text, PyUnicode_2BYTE_KIND, abbrev);
    default:
        return split_kind(text, PyUnicode_4BYTE_KIND, abbrev);
    }
}

/* ------------------------------------------------------------------------ */
/* Tokens, words, content terms                                              */
/* ------------------------------------------------------------------------ */

/* terms._SUFFIXES, in the same order (the first that fits is removed). */
static const char *const SUFFIXES[] = {
    "ational", "ations", "ation", "ators", "ator", "ities", "ity", "ingly",
    "ings",    "ing",    "ments", "ment",  "ness", "ions",  "ion", "ers",
    "er",      "ies",    "ied",   "ed",    "es",   "ly",    "s",
};
#define N_SUFFIXES ((Py_ssize_t)(sizeof(SUFFIXES) / sizeof(SUFFIXES[0])))
static Py_ssize_t SUFFIX_LEN[N_SUFFIXES];

/* terms.stem on a lowercase ASCII word: the length of the stem, which is
 * always a prefix of the word (every step only drops characters). */
static Py_ssize_t stem_length(const Py_UCS1 *w, Py_ssize_t n) {
    for (Py_ssize_t k = 0; k < N_SUFFIXES; k++) {
        Py_ssize_t sl = SUFFIX_LEN[k];
        if (n - sl >= 3 && memcmp(w + n - sl, SUFFIXES[k], (size_t)sl) == 0) {
            n -= sl;
            break;
        }
    }
    if (n > 3 && w[n - 1] == 'e') n--;
    if (n > 3 && w[n - 1] == w[n - 2] && strchr("aeiouls", w[n - 1]) == NULL) n--;
    return n;
}

/* A new ASCII str holding text[s:e] lowered (the caller knows the stretch
 * is ASCII letters and digits). */
KERNEL PyObject *lowered(int kind, const void *data, Py_ssize_t s, Py_ssize_t e) {
    PyObject *out = PyUnicode_New(e - s, 127);
    if (out == NULL) return NULL;
    Py_UCS1 *dst = PyUnicode_1BYTE_DATA(out);
    for (Py_ssize_t k = s; k < e; k++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, k);
        dst[k - s] = (Py_UCS1)LOWER_ASCII(c);
    }
    return out;
}

enum { MODE_WORDS = 0, MODE_TERMS = 1 };

/* One word of a token: appended lowered (MODE_WORDS), or - if longer than
 * two letters and no stopword - appended stemmed (MODE_TERMS). */
KERNEL int emit_word(PyObject *out, int mode, PyObject *stopwords, int kind, const void *data,
                     Py_ssize_t s, Py_ssize_t e) {
    if (mode == MODE_TERMS && e - s <= 2) return 0;
    PyObject *w = lowered(kind, data, s, e);
    if (w == NULL) return -1;
    if (mode == MODE_TERMS) {
        int stop = PySet_Contains(stopwords, w);
        if (stop != 0) {
            Py_DECREF(w);
            return stop < 0 ? -1 : 0;
        }
        Py_ssize_t m = stem_length(PyUnicode_1BYTE_DATA(w), e - s);
        if (m < e - s) {
            PyObject *st = PyUnicode_Substring(w, 0, m);
            Py_DECREF(w);
            if (st == NULL) return -1;
            w = st;
        }
    }
    int rc = PyList_Append(out, w);
    Py_DECREF(w);
    return rc;
}

/* terms._split_token on the _WORD token text[s:e]: strip apostrophes, then
 * _CAMEL's alternatives at each position, digit runs dropped. (The Python
 * shortcut for a plain or capitalised word gives what _CAMEL gives.) */
KERNEL int emit_token_words(PyObject *out, int mode, PyObject *stopwords, int kind,
                            const void *data, Py_ssize_t s, Py_ssize_t e) {
    while (s < e && PyUnicode_READ(kind, data, s) == '\'') s++;
    while (e > s && PyUnicode_READ(kind, data, e - 1) == '\'') e--;
    Py_ssize_t p = s;
    while (p < e) {
        Py_UCS4 c = PyUnicode_READ(kind, data, p);
        Py_ssize_t q = p + 1;
        if (IS_UPPER(c)) {
            while (q < e && IS_UPPER(PyUnicode_READ(kind, data, q))) q++;
            int lower_next = q < e && IS_LOWER(PyUnicode_READ(kind, data, q));
            if (q - p >= 2 && lower_next) {
                q--; /* [A-Z]+(?=[A-Z][a-z]): the last capital starts the next word */
            } else if (q - p == 1 && lower_next) {
                while (q < e && IS_LOWER(PyUnicode_READ(kind, data, q))) q++; /* [A-Z]?[a-z]+ */
            }                                                                 /* else [A-Z]+ */
        } else if (IS_LOWER(c)) {
            while (q < e && IS_LOWER(PyUnicode_READ(kind, data, q))) q++;
        } else if (IS_DIGIT(c)) {
            while (q < e && IS_DIGIT(PyUnicode_READ(kind, data, q))) q++;
            p = q; /* [0-9]+ matches, and isdigit drops it */
            continue;
        } else {
            p = q; /* an apostrophe inside the token: no alternative starts here */
            continue;
        }
        if (emit_word(out, mode, stopwords, kind, data, p, q) < 0) return -1;
        p = q;
    }
    return 0;
}

/* The end of a ``` fence that opens at i: just past the next ``` after the
 * opening one, or the end of the text (_FENCE is ```.*?(?:```|\Z)). */
KERNEL Py_ssize_t fence_end(int kind, const void *data, Py_ssize_t n, Py_ssize_t i) {
    Py_ssize_t k = i + 3;
    Py_ssize_t run = 0;
    while (k < n) {
        if (PyUnicode_READ(kind, data, k) == '`') {
            if (++run == 3) return k + 1;
        } else {
            run = 0;
        }
        k++;
    }
    return n;
}

KERNEL int opens_fence(int kind, const void *data, Py_ssize_t n, Py_ssize_t i) {
    return i + 2 < n && PyUnicode_READ(kind, data, i) == '`' &&
           PyUnicode_READ(kind, data, i + 1) == '`' && PyUnicode_READ(kind, data, i + 2) == '`';
}

/* words (MODE_WORDS) or content terms (MODE_TERMS, fences skipped) of text. */
KERNEL PyObject *scan_kind(PyObject *text, int kind, int mode, PyObject *stopwords) {
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    Py_ssize_t i = 0;
    while (i < n) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (!IS_LETTER(c)) {
            /* strip_fences puts a space where a fence was: a separator */
            if (mode == MODE_TERMS && c == '`' && opens_fence(kind, data, n, i))
                i = fence_end(kind, data, n, i);
            else
                i++;
            continue;
        }
        Py_ssize_t j = i + 1;
        while (j < n && IS_WORD_CHAR(PyUnicode_READ(kind, data, j))) j++;
        if (emit_token_words(out, mode, stopwords, kind, data, i, j) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        i = j;
    }
    return out;
}

KERNEL PyObject *tokens_kind(PyObject *text, int kind) {
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    PyObject *out = PySet_New(NULL);
    if (out == NULL) return NULL;
    Py_ssize_t i = 0;
    while (i < n) {
        if (!IS_LETTER(PyUnicode_READ(kind, data, i))) {
            i++;
            continue;
        }
        Py_ssize_t j = i + 1;
        while (j < n && IS_WORD_CHAR(PyUnicode_READ(kind, data, j))) j++;
        PyObject *tok = PyUnicode_New(j - i, 127);
        if (tok == NULL) goto error;
        Py_UCS1 *dst = PyUnicode_1BYTE_DATA(tok);
        for (Py_ssize_t k = i; k < j; k++) dst[k - i] = (Py_UCS1)PyUnicode_READ(kind, data, k);
        int rc = PySet_Add(out, tok);
        Py_DECREF(tok);
        if (rc < 0) goto error;
        i = j;
    }
    return out;
error:
    Py_DECREF(out);
    return NULL;
}

static int check_text(PyObject *text, const char *fn) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "%s: text must be str", fn);
        return -1;
    }
    return PyUnicode_READY(text);
}

static PyObject *scan(PyObject *text, int mode, PyObject *stopwords) {
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        return scan_kind(text, PyUnicode_1BYTE_KIND, mode, stopwords);
    case PyUnicode_2BYTE_KIND:
        return scan_kind(text, PyUnicode_2BYTE_KIND, mode, stopwords);
    default:
        return scan_kind(text, PyUnicode_4BYTE_KIND, mode, stopwords);
    }
}

static PyObject *words(PyObject *self, PyObject *text) {
    (void)self;
    if (check_text(text, "words") < 0) return NULL;
    return scan(text, MODE_WORDS, NULL);
}

static PyObject *content_terms(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "content_terms(text, stopwords) takes 2 arguments");
        return NULL;
    }
    if (check_text(args[0], "content_terms") < 0) return NULL;
    if (!PyAnySet_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "content_terms: stopwords must be a set or frozenset");
        return NULL;
    }
    return scan(args[0], MODE_TERMS, args[1]);
}

static PyObject *tokens(PyObject *self, PyObject *text) {
    (void)self;
    if (check_text(text, "tokens") < 0) return NULL;
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        return tokens_kind(text, PyUnicode_1BYTE_KIND);
    case PyUnicode_2BYTE_KIND:
        return tokens_kind(text, PyUnicode_2BYTE_KIND);
    default:
        return tokens_kind(text, PyUnicode_4BYTE_KIND);
    }
}

/* ------------------------------------------------------------------------ */

static PyMethodDef methods[] = {
    {"split_sentences", (PyCFunction)(void (*)(void))split_sentences, METH_FASTCALL,
     "split_sentences(text, abbrev) -> list of (start, end) sentence spans"},
    {"tokens", tokens, METH_O, "tokens(text) -> set of _WORD tokens"},
    {"words", words, METH_O, "words(text) -> list of lowercase words"},
    {"content_terms", (PyCFunction)(void (*)(void))content_terms, METH_FASTCALL,
     "content_terms(text, stopwords) -> list of stemmed content terms, fences skipped"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_lexkernel",
    "The lexical layer's sentence and token scans (see the C source).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__lexkernel(void) {
    for (Py_ssize_t k = 0; k < N_SUFFIXES; k++) SUFFIX_LEN[k] = (Py_ssize_t)strlen(SUFFIXES[k]);
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    PyObject *suffixes = PyTuple_New(N_SUFFIXES);
    if (suffixes == NULL) {
        Py_DECREF(m);
        return NULL;
    }
    for (Py_ssize_t k = 0; k < N_SUFFIXES; k++) {
        PyObject *s = PyUnicode_FromString(SUFFIXES[k]);
        if (s == NULL) {
            Py_DECREF(suffixes);
            Py_DECREF(m);
            return NULL;
        }
        PyTuple_SET_ITEM(suffixes, k, s);
    }
    if (PyModule_AddObject(m, "SUFFIXES", suffixes) < 0) { /* steals only on success */
        Py_DECREF(suffixes);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
