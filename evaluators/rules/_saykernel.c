/*
 * evaluators.rules._saykernel: the letter-run counts and the repeated-sentence
 * count of says_something, in C.
 *
 * Two functions, each equal to a pure-Python reference in
 * evaluators/rules/completeness.py, which stays the fallback:
 *
 *   letter_stats(low, words[, fold]) -> (runs, hits, nonspace)
 *                                                          ``_letter_stats_py``
 *       (fold true: the counts of the text with its ASCII capitals lowered,
 *       so an ASCII text need not be lowered into a copy first)
 *   most_repeated(body, spans[, min_count]) -> (sentence, count)
 *                                                          ``_most_repeated_py``
 *                                                    (described further down)
 *
 * letter_stats:
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
/* The classes with the ASCII capitals as run characters too, for the
 * folded scan (letter_stats' ``fold``): a capital reads as its lowercase. */
static unsigned char classes_fold[256];


static void fill_classes(void) {
    for (Py_UCS4 c = 0; c < 256; c++) {
        classes[c] =
            (unsigned char)((Py_UNICODE_ISSPACE(c) ? C_SPACE : 0) | (run_char(c) ? C_RUN : 0));
        classes_fold[c] = (unsigned char)(classes[c] | ((c >= 'A' && c <= 'Z') ? C_RUN : 0));
    }
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
            unsigned char k = c < 256 ? cls[c] : classify(c);                     \
            spaces += k & C_SPACE;                                                \
            if (k & C_RUN) {                                                      \
                if (run_len == 0)                                                 \
                    runs++;                                                       \
                if (run_len < maxlen)                                             \
                    buf[run_len] = (char)(c <= 'Z' && c >= 'A' ? c + 32 : c);      \
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
    if (nargs != 2 && nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "letter_stats(low, words[, fold]) takes two or three arguments");
        return NULL;
    }
    PyObject *text = args[0], *tuple = args[1];
    int fold = 0;
    if (nargs == 3) {
        fold = PyObject_IsTrue(args[2]);
        if (fold < 0)
            return NULL;
    }
    /* a capital is a run character only when folding (classes has none) */
    const unsigned char *cls = fold ? classes_fold : classes;
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

/* ------------------------------------------------------------------------
 * most_repeated(body, spans[, min_count]) -> (sentence, count)
 *
 * With min_count > 0 on ASCII text, ("", 0) at once when no min_count spans
 * strip to alike stretches (see too_few_alike): says_something
 * only asks whether a sentence occurs five times, and most outputs' sentence
 * lengths rule that out before any lowering or hashing. Otherwise:
 * Equal to ``_most_repeated_py`` in completeness.py: among the sentences
 * ``body[s:e].strip().lower()`` of the spans, those of three words or more
 * (``len(sent.split(None, 2)) >= 3``), the one that occurs most often, the
 * first to occur on a tie, with its count; ``("", 0)`` when there is none.
 *
 * Why: the Python version slices every sentence into a new str, counts the
 * slices with a Counter and strips, lowers and splits each distinct one:
 * ~40 us on a 40-sentence output, and says_something runs it on every
 * output of five sentences or more. Here the stripped stretches are hashed
 * and compared in place; only the answer is built as a str.
 *
 * The stretches are grouped by content: on ASCII text by their lowered
 * bytes (lowering ASCII is per byte, so each group is one sentence); on any
 * other text by their code units as they are (a substring of a str has the
 * str's kind, so equal stretches have equal bytes), and each distinct
 * stretch is then lowered by str.lower() itself (full case mapping, which
 * can lengthen a stretch) and the groups merged by the lowered str. Groups
 * are kept in order of first occurrence, which is the order in which the
 * Python version first meets each sentence, so the first of equal counts
 * is the same one. Spans must satisfy 0 <= s <= e <= len(body), as
 * split_sentences returns them; others raise ValueError.
 * --------------------------------------------------------------------- */

typedef struct {
    Py_ssize_t a, b;  /* the stripped stretch */
    Py_ssize_t count; /* how many spans strip to it */
    uint64_t hash;
} group_t;

/* The hash a stretch is grouped by, eight bytes at a time (it was FNV-1a,
 * a multiply per byte in one dependency chain: most of the call's time on a
 * long output). Only the grouping table's slots depend on it: equal
 * stretches are still told apart by length and memcmp. */
static uint64_t stretch_hash(const unsigned char *p, size_t len) {
    uint64_t h = (uint64_t)len * 0x9E3779B97F4A7C15ULL;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDULL;
        h ^= h >> 32;
    }
    uint64_t tail = 0;
    for (size_t k = 0; i + k < len; k++) tail |= (uint64_t)p[i + k] << (8 * k);
    h = (h ^ tail) * 0xC4CEB9FE1A85EC53ULL;
    return h ^ (h >> 29);
}

/* Whether the code units kind-wide at s[0:len] hold three non-space runs:
 * ``len(x.split(None, 2)) >= 3`` (str.split() splits on Py_UNICODE_ISSPACE). */
static int three_words(int kind, const void *data, Py_ssize_t a, Py_ssize_t b) {
    int words = 0, in_word = 0;
    for (Py_ssize_t i = a; i < b; i++) {
        int sp = Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i));
        if (!sp && !in_word && ++words >= 3)
            return 1;
        in_word = !sp;
    }
    return 0;
}

/* Read the spans into starts/ends (ValueError unless 0 <= s <= e <= n). */
static int read_spans(PyObject *seq, Py_ssize_t n, Py_ssize_t count, Py_ssize_t *starts,
                      Py_ssize_t *ends) {
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *t = items[i];
        if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 2) {
            PyErr_SetString(PyExc_TypeError, "most_repeated: spans must be (start, end) tuples");
            return -1;
        }
        Py_ssize_t s = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 0));
        if (s == -1 && PyErr_Occurred())
            return -1;
        Py_ssize_t e = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 1));
        if (e == -1 && PyErr_Occurred())
            return -1;
        if (s < 0 || s > e || e > n) {
            PyErr_SetString(PyExc_ValueError, "most_repeated: a span is outside the text");
            return -1;
        }
        starts[i] = s;
        ends[i] = e;
    }
    return 0;
}

/* Non-ASCII text: lower each group's stretch with str.lower() and merge the
 * groups by the lowered str, in first-occurrence order. */
static PyObject *merge_lowered(PyObject *body, const group_t *groups, Py_ssize_t ngroups) {
    PyObject *index = PyDict_New(); /* lowered sentence -> position in sents */
    PyObject **sents = PyMem_Malloc(sizeof(PyObject *) * (size_t)(ngroups ? ngroups : 1));
    Py_ssize_t *counts = PyMem_Malloc(sizeof(Py_ssize_t) * (size_t)(ngroups ? ngroups : 1));
    Py_ssize_t nsents = 0, best = -1;
    PyObject *result = NULL;
    if (index == NULL || sents == NULL || counts == NULL) {
        if (index != NULL)
            PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t g = 0; g < ngroups; g++) {
        PyObject *piece = PyUnicode_Substring(body, groups[g].a, groups[g].b);
        if (piece == NULL)
            goto done;
        PyObject *sent = PyObject_CallMethod(piece, "lower", NULL);
        Py_DECREF(piece);
        if (sent == NULL)
            goto done;
        if (PyUnicode_READY(sent) < 0 ||
            !three_words(PyUnicode_KIND(sent), PyUnicode_DATA(sent), 0, PyUnicode_GET_LENGTH(sent))) {
            Py_DECREF(sent);
            if (PyErr_Occurred())
                goto done;
            continue;
        }
        PyObject *at = PyDict_GetItemWithError(index, sent); /* borrowed */
        if (at != NULL) {
            counts[PyLong_AsSsize_t(at)] += groups[g].count;
            Py_DECREF(sent);
            continue;
        }
        if (PyErr_Occurred()) {
            Py_DECREF(sent);
            goto done;
        }
        PyObject *pos = PyLong_FromSsize_t(nsents);
        if (pos == NULL || PyDict_SetItem(index, sent, pos) < 0) {
            Py_XDECREF(pos);
            Py_DECREF(sent);
            goto done;
        }
        Py_DECREF(pos);
        sents[nsents] = sent; /* owned */
        counts[nsents] = groups[g].count;
        nsents++;
    }
    for (Py_ssize_t k = 0; k < nsents; k++) /* max(): the first of equal counts */
        if (best < 0 || counts[k] > counts[best])
            best = k;
    if (best < 0)
        result = Py_BuildValue("(sn)", "", (Py_ssize_t)0);
    else
        result = Py_BuildValue("(On)", sents[best], counts[best]);
done:
    for (Py_ssize_t k = 0; k < nsents; k++)
        Py_DECREF(sents[k]);
    PyMem_Free(sents);
    PyMem_Free(counts);
    Py_XDECREF(index);
    return result;
}

/* qsort's order for stretch keys. */
static int cmp_key(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static inline uint64_t low_byte(const unsigned char *p, Py_ssize_t i) {
    unsigned char c = p[i];
    return (c >= 'A' && c <= 'Z') ? (uint64_t)(c + 32) : (uint64_t)c;
}

/* Whether, on ASCII text, no min_count spans strip to alike stretches -
 * the same length, and the same lowered first, middle and last characters:
 * then no sentence occurs min_count times (equal lowered sentences are
 * alike), which a caller asking for min_count occurrences can be told
 * without lowering and hashing the whole text. ``keys`` is scratch room for
 * nspans keys. Mirrors the gate of ``_most_repeated_py`` (its ``_alike_key``). */
static int too_few_alike(const unsigned char *p, const Py_ssize_t *starts, const Py_ssize_t *ends,
                         Py_ssize_t nspans, Py_ssize_t min_count, uint64_t *keys) {
    if (nspans < min_count)
        return 1;
    for (Py_ssize_t i = 0; i < nspans; i++) {
        Py_ssize_t a = starts[i], b = ends[i];
        /* str.strip(): on ASCII text Py_UNICODE_ISSPACE is the classes' C_SPACE */
        while (a < b && (classes[p[a]] & C_SPACE))
            a++;
        while (b > a && (classes[p[b - 1]] & C_SPACE))
            b--;
        Py_ssize_t len = b - a;
        keys[i] = len == 0 ? 0
                           : ((uint64_t)len << 24) | (low_byte(p, a) << 16) |
                                 (low_byte(p, a + len / 2) << 8) | low_byte(p, b - 1);
    }
    qsort(keys, (size_t)nspans, sizeof(uint64_t), cmp_key);
    Py_ssize_t run = 0;
    for (Py_ssize_t i = 0; i < nspans; i++) {
        run = (i > 0 && keys[i] == keys[i - 1]) ? run + 1 : 1;
        if (run >= min_count)
            return 0;
    }
    return 1;
}

static PyObject *most_repeated(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 && nargs != 3) {
        PyErr_SetString(PyExc_TypeError,
                        "most_repeated(body, spans[, min_count]) takes two or three arguments");
        return NULL;
    }
    Py_ssize_t min_count = 0;
    if (nargs == 3) {
        min_count = PyNumber_AsSsize_t(args[2], NULL); /* clamps a huge int */
        if (min_count == -1 && PyErr_Occurred())
            return NULL;
    }
    PyObject *body = args[0];
    if (!PyUnicode_Check(body)) {
        PyErr_SetString(PyExc_TypeError, "most_repeated: body must be a str");
        return NULL;
    }
    if (PyUnicode_READY(body) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(args[1], "most_repeated: spans must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PyUnicode_GET_LENGTH(body), nspans = PySequence_Fast_GET_SIZE(seq);
    int kind = PyUnicode_KIND(body), ascii = PyUnicode_IS_ASCII(body);
    const void *data = PyUnicode_DATA(body);
    size_t cap = 8;
    while (cap < 2 * (size_t)nspans)
        cap <<= 1;
    size_t nalloc = (size_t)(nspans ? nspans : 1);
    Py_ssize_t *starts = PyMem_Malloc(sizeof(Py_ssize_t) * nalloc);
    Py_ssize_t *ends = PyMem_Malloc(sizeof(Py_ssize_t) * nalloc);
    group_t *groups = PyMem_Malloc(sizeof(group_t) * nalloc);
    Py_ssize_t *table = PyMem_Malloc(sizeof(Py_ssize_t) * cap); /* group + 1, 0 = free */
    unsigned char *low = ascii ? PyMem_Malloc((size_t)(n ? n : 1)) : NULL;
    PyObject *result = NULL;
    if (starts == NULL || ends == NULL || groups == NULL || table == NULL || (ascii && !low)) {
        PyErr_NoMemory();
        goto done;
    }
    if (read_spans(seq, n, nspans, starts, ends) < 0)
        goto done;
    /* (groups is free scratch room until the grouping below) */
    if (ascii && min_count > 0 &&
        too_few_alike((const unsigned char *)data, starts, ends, nspans, min_count,
                      (uint64_t *)groups)) {
        result = Py_BuildValue("(sn)", "", (Py_ssize_t)0);
        goto done;
    }
    memset(table, 0, sizeof(Py_ssize_t) * cap);
    /* the bytes the stretches are compared by: lowered ASCII, or as they are */
    const unsigned char *src = (const unsigned char *)data;
    size_t width = (size_t)kind;
    if (ascii) {
        for (Py_ssize_t i = 0; i < n; i++) {
            unsigned char c = ((const unsigned char *)data)[i];
            low[i] = (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
        }
        src = low;
        width = 1;
    }
    Py_ssize_t ngroups = 0;
    for (Py_ssize_t i = 0; i < nspans; i++) {
        Py_ssize_t a = starts[i], b = ends[i];
        /* str.strip(): Py_UNICODE_ISSPACE from both ends */
        while (a < b && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, a)))
            a++;
        while (b > a && Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, b - 1)))
            b--;
        size_t len = (size_t)(b - a) * width;
        const unsigned char *p = src + (size_t)a * width;
        uint64_t h = stretch_hash(p, len);
        size_t slot = (size_t)h & (cap - 1);
        for (;;) {
            Py_ssize_t g = table[slot] - 1;
            if (g < 0) { /* a new stretch */
                groups[ngroups].a = a;
                groups[ngroups].b = b;
                groups[ngroups].count = 1;
                groups[ngroups].hash = h;
                table[slot] = ++ngroups;
                break;
            }
            const group_t *gr = &groups[g];
            if (gr->hash == h && gr->b - gr->a == b - a &&
                memcmp(src + (size_t)gr->a * width, p, len) == 0) {
                groups[g].count++;
                break;
            }
            slot = (slot + 1) & (cap - 1);
        }
    }
    if (!ascii) {
        result = merge_lowered(body, groups, ngroups);
        goto done;
    }
    Py_ssize_t best = -1;
    for (Py_ssize_t g = 0; g < ngroups; g++) /* max(): the first of equal counts */
        if ((best < 0 || groups[g].count > groups[best].count) &&
            three_words(PyUnicode_1BYTE_KIND, low, groups[g].a, groups[g].b))
            best = g;
    if (best < 0) {
        result = Py_BuildValue("(sn)", "", (Py_ssize_t)0);
    } else {
        Py_ssize_t len = groups[best].b - groups[best].a;
        PyObject *sent = PyUnicode_New(len, 127);
        if (sent != NULL) {
            memcpy(PyUnicode_1BYTE_DATA(sent), low + groups[best].a, (size_t)len);
            result = Py_BuildValue("(Nn)", sent, groups[best].count);
        }
    }
done:
    PyMem_Free(low);
    PyMem_Free(table);
    PyMem_Free(groups);
    PyMem_Free(ends);
    PyMem_Free(starts);
    Py_DECREF(seq);
    return result;
}

static PyMethodDef methods[] = {
    {"letter_stats", (PyCFunction)(void (*)(void))letter_stats, METH_FASTCALL,
     "letter_stats(low, words[, fold]) -> (letter runs, runs among words, non-space "
     "characters); fold: of the text with its ASCII capitals lowered."},
    {"most_repeated", (PyCFunction)(void (*)(void))most_repeated, METH_FASTCALL,
     "most_repeated(body, spans[, min_count]) -> (the most repeated sentence of three words, "
     "its count); ('', 0) early on ASCII text where no sentence can occur min_count times."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "evaluators.rules._saykernel",
    "The letter-run counts and the repeated-sentence count of the says_something "
    "rule (see "
    "evaluators/rules/completeness.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__saykernel(void) {
    fill_classes();
    return PyModule_Create(&module);
}
