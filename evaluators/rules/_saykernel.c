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
 * longest word; its characters are copied into a fixed buffer of that size,
 * and only the words with its first letter and its length are compared
 * (two bit masks over the first 64 words; any further words one by one).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* Words longer than this are refused: the lorem list is a dozen letters. */
#define MAX_WORD 64

typedef struct {
    Py_ssize_t len;
    const char *chars; /* ASCII, borrowed from the word's str */
} word_t;

static inline int run_char(Py_UCS4 c) { return (c >= 'a' && c <= 'z') || c == '\''; }

/* Character classes of the first 256 code points, filled at import from
 * the predicates the other code points use (so the two cannot disagree). */
enum { C_SPACE = 1, C_RUN = 2 };
static unsigned char classes[256];

static void fill_classes(void) {
    for (Py_UCS4 c = 0; c < 256; c++)
        classes[c] =
            (unsigned char)((Py_UNICODE_ISSPACE(c) ? C_SPACE : 0) | (run_char(c) ? C_RUN : 0));
}

static inline unsigned char classify(Py_UCS4 c) {
    if (c < 256)
        return classes[c];
    return Py_UNICODE_ISSPACE(c) ? C_SPACE : 0; /* every run character is ASCII */
}

/* The words, with the candidates for a run found by two bit masks: the words
 * (of the first 64) starting with a letter, and those of a length. */
typedef struct {
    const word_t *words;
    Py_ssize_t nwords;
    uint64_t by_first[128];
    uint64_t by_len[MAX_WORD + 1];
} lookup_t;

/* Whether the run buf[0:len] (1 <= len <= MAX_WORD, ASCII) equals a word. */
static int is_word(const lookup_t *lk, const char *buf, Py_ssize_t len) {
    uint64_t cand = lk->by_first[(unsigned char)buf[0] & 127] & lk->by_len[len];
    while (cand) {
        int k = __builtin_ctzll(cand);
        cand &= cand - 1;
        if (memcmp(lk->words[k].chars, buf, (size_t)len) == 0)
            return 1;
    }
    for (Py_ssize_t k = 64; k < lk->nwords; k++) { /* past the masks: one by one */
        if (lk->words[k].len == len && memcmp(lk->words[k].chars, buf, (size_t)len) == 0)
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
            unsigned char k = classify(c);                                        \
            spaces += k & C_SPACE;                                                \
            if (k & C_RUN) {                                                      \
                if (run_len == 0)                                                 \
                    runs++;                                                       \
                if (run_len < maxlen)                                             \
                    buf[run_len] = (char)c;                                       \
                run_len++;                                                        \
            } else if (run_len) {                                                 \
                if (run_len <= maxlen && is_word(lk, buf, run_len))               \
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
    lookup_t *lk = PyMem_Malloc(sizeof(lookup_t));
    if (lk == NULL) {
        PyMem_Free(words);
        return PyErr_NoMemory();
    }
    memset(lk, 0, sizeof(lookup_t));
    lk->words = words;
    lk->nwords = nwords;
    for (Py_ssize_t k = 0; k < nwords && k < 64; k++) {
        lk->by_first[(unsigned char)words[k].chars[0] & 127] |= (uint64_t)1 << k;
        lk->by_len[words[k].len] |= (uint64_t)1 << k;
    }
    char buf[MAX_WORD];
    Py_ssize_t runs = 0, hits = 0, spaces = 0, run_len = 0;
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
    if (run_len && run_len <= maxlen && is_word(lk, buf, run_len))
        hits++;
    PyMem_Free(lk);
    PyMem_Free(words);
    return Py_BuildValue("(nnn)", runs, hits, n - spaces);
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

PyMODINIT_FUNC PyInit__saykernel(void) {
    fill_classes();
    return PyModule_Create(&module);
}
