/*
 * evaluators.rules._saykernel: the letter-run counts of says_something, in C.
 *
 * One function, equal to the pure-Python reference ``_letter_stats_py`` in
 * evaluators/rules/completeness.py, which stays the fallback:
 *
 *   letter_stats(low, words) -> (runs, hits, nonspace)
 *
 * * ``runs``: ``len(re.findall(r"[a-z']+", low))``, the maximal runs of the
 *   ASCII characters a-z and the apostrophe;
 * * ``hits``: how many of those runs equal one of ``words`` (a tuple of str);
 * * ``nonspace``: ``sum(map(len, low.split()))``, the characters that are not
 *   whitespace as ``str.split()`` sees it (Py_UNICODE_ISSPACE).
 *
 * Why this exists: says_something tokenised the whole lowered output into a
 * list of letter runs (a translate and a split, ~40 us on a 3 KB output)
 * only to count them and count the lorem-ipsum words among them, and counted
 * the non-space characters twice more with ten ``str.count`` passes. One
 * pass over the characters here counts all three without building a string.
 *
 * Every PyUnicode kind is read (1, 2 and 4 bytes, through one macro): the
 * run characters are ASCII code points, so a run means the same in each.
 * A run is only compared with the words when it is no longer than the
 * longest word; its characters are copied into a fixed buffer of that size.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

/* Words longer than this are refused: the lorem list is a dozen letters. */
#define MAX_WORD 64

typedef struct {
    Py_ssize_t len;
    const char *chars; /* ASCII, borrowed from the word's str */
} word_t;

static inline int run_char(Py_UCS4 c) { return (c >= 'a' && c <= 'z') || c == '\''; }

/* Whether the run buf[0:len] equals one of words[0:nwords]. */
static int is_word(const char *buf, Py_ssize_t len, const word_t *words, Py_ssize_t nwords) {
    for (Py_ssize_t k = 0; k < nwords; k++) {
        if (words[k].len == len && words[k].chars[0] == buf[0] &&
            memcmp(words[k].chars, buf, (size_t)len) == 0)
            return 1;
    }
    return 0;
}

/* The scan, for one PyUnicode kind: T is the code unit type. */
#define SCAN(T)                                                                   \
    do {                                                                          \
        const T *p = (const T *)data;                                             \
        for (Py_ssize_t i = 0; i < n; i++) {                                      \
            Py_UCS4 c = (Py_UCS4)p[i];                                            \
            if (!Py_UNICODE_ISSPACE(c))                                           \
                nonspace++;                                                       \
            if (run_char(c)) {                                                    \
                if (run_len == 0)                                                 \
                    runs++;                                                       \
                if (run_len < maxlen)                                             \
                    buf[run_len] = (char)c;                                       \
                run_len++;                                                        \
            } else if (run_len) {                                                 \
                if (run_len <= maxlen && is_word(buf, run_len, words, nwords))    \
                    hits++;                                                       \
                run_len = 0;                                                      \
            }                                                                     \
        }                                                                         \
    } while (0)

static PyObject *letter_stats(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "letter_stats(low, words) takes two arguments");
        return NULL;
    }
    PyObject *text = args[0], *tuple = args[1];
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "letter_stats: low must be a str");
        return NULL;
    }
    if (!PyTuple_Check(tuple)) {
        PyErr_SetString(PyExc_TypeError, "letter_stats: words must be a tuple of str");
        return NULL;
    }
    if (PyUnicode_READY(text) < 0)
        return NULL;
    Py_ssize_t ntuple = PyTuple_GET_SIZE(tuple);
    word_t *words = PyMem_Malloc(sizeof(word_t) * (size_t)(ntuple > 0 ? ntuple : 1));
    if (words == NULL)
        return PyErr_NoMemory();
    Py_ssize_t nwords = 0, maxlen = 0;
    for (Py_ssize_t k = 0; k < ntuple; k++) {
        PyObject *w = PyTuple_GET_ITEM(tuple, k);
        if (!PyUnicode_Check(w)) {
            PyMem_Free(words);
            PyErr_SetString(PyExc_TypeError, "letter_stats: words must be a tuple of str");
            return NULL;
        }
        if (PyUnicode_READY(w) < 0) {
            PyMem_Free(words);
            return NULL;
        }
        Py_ssize_t len = PyUnicode_GET_LENGTH(w);
        if (len > MAX_WORD) {
            PyMem_Free(words);
            PyErr_SetString(PyExc_ValueError, "letter_stats: a word is longer than 64");
            return NULL;
        }
        /* an empty or non-ASCII word equals no run: leave it out */
        if (len == 0 || !PyUnicode_IS_ASCII(w))
            continue;
        words[nwords].len = len;
        words[nwords].chars = (const char *)PyUnicode_1BYTE_DATA(w);
        nwords++;
        if (len > maxlen)
            maxlen = len;
    }
    char buf[MAX_WORD];
    Py_ssize_t runs = 0, hits = 0, nonspace = 0, run_len = 0;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    const void *data = PyUnicode_DATA(text);
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        SCAN(Py_UCS1);
        break;
    case PyUnicode_2BYTE_KIND:
        SCAN(Py_UCS2);
        break;
    default:
        SCAN(Py_UCS4);
        break;
    }
    if (run_len && run_len <= maxlen && is_word(buf, run_len, words, nwords))
        hits++;
    PyMem_Free(words);
    return Py_BuildValue("(nnn)", runs, hits, nonspace);
}

static PyMethodDef methods[] = {
    {"letter_stats", (PyCFunction)(void (*)(void))letter_stats, METH_FASTCALL,
     "letter_stats(low, words) -> (letter runs, runs among words, non-space characters)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "evaluators.rules._saykernel",
    "The letter-run counts of the says_something rule (see "
    "evaluators/rules/completeness.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__saykernel(void) { return PyModule_Create(&module); }
