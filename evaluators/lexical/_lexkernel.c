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
 *   long_words(text, limit)  terms.long_words_py ([A-Za-z]{4,} matches, capped)
 *   term_chain(units, seed, probe, stopwords), term_chain_spans(text, spans, ...)
 *       terms.term_chain_py: relevance's topic chain and overlap counts
 *       over the units' content terms, in one pass (see below).
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
#include <stdint.h>
#include <string.h>

#define KERNEL static inline __attribute__((always_inline))

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Every str is ready from 3.12 on, where PyUnicode_READY is deprecated. */
#if PY_VERSION_HEX < 0x030C0000
#define TEXT_READY(t) PyUnicode_READY(t)
#else
#define TEXT_READY(t) 0
#endif

#define IS_UPPER(c) ((c) >= 'A' && (c) <= 'Z')
#define IS_LOWER(c) ((c) >= 'a' && (c) <= 'z')
#define IS_LETTER(c) (IS_UPPER(c) || IS_LOWER(c))
#define IS_DIGIT(c) ((c) >= '0' && (c) <= '9')
#define IS_WORD_CHAR(c) (IS_LETTER(c) || IS_DIGIT(c) || (c) == '\'')
/* IS_LETTER and IS_WORD_CHAR by a table, for the token scans' inner loops:
 * one load in place of three or four range tests (filled at import from the
 * macros above, so the two cannot disagree). A 1-byte character needs no
 * bound test. */
enum { CLASS_LETTER = 1, CLASS_WORD = 2 };
static unsigned char char_class[256];
#define CLASS_OF(c) ((c) < 256 ? char_class[(c)] : 0)
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

/* The longest item of the abbreviation set split_sentences was last given,
 * when that set is a frozenset of exact strs (a strong reference to it):
 * then no key longer than that can be in it, and the test of a long last
 * word - most words that end a sentence - makes no str and hashes nothing.
 * With any other set every key is looked up, as before.
 *
 * The set's ASCII items are also kept as bytes (abbrev_items): an ASCII key
 * equals a str exactly when that str is ASCII with the same bytes, so
 * ``key in abbrev`` for an ASCII key is a comparison with those, and the
 * short last words (most of them: "boot.", "days.") make no str either. A
 * frozenset cannot change, and a reference to it is held, so the copies
 * stay right for as long as it is the known set. */
static PyObject *abbrev_known = NULL;
static Py_ssize_t abbrev_longest = -1;
#define ABBREV_ITEMS_MAX 256
#define ABBREV_ITEM_LEN 16
static char abbrev_items[ABBREV_ITEMS_MAX][ABBREV_ITEM_LEN];
static unsigned char abbrev_item_len[ABBREV_ITEMS_MAX];
/* how many items abbrev_items holds, or -1 when the known set's ASCII items
 * did not all fit (then ascii_abbrev answers -1: look the key up) */
static Py_ssize_t abbrev_n_items = -1;

/* The length bound for ``abbrev`` (see above), or -1 for "none known". */
static Py_ssize_t abbrev_bound(PyObject *abbrev) {
    if (!PyFrozenSet_CheckExact(abbrev)) return -1;
    if (abbrev == abbrev_known) return abbrev_longest;
    Py_ssize_t longest = 0, items = 0;
    /* iterating a frozenset runs no Python code (public API only: no
     * _PySet_NextEntry, which later versions keep internal) */
    PyObject *it = PyObject_GetIter(abbrev), *item;
    if (it == NULL) {
        PyErr_Clear(); /* no bound, then: every key is looked up */
        return -1;
    }
    while ((item = PyIter_Next(it)) != NULL) {
        if (longest >= 0) {
            if (!PyUnicode_CheckExact(item)) {
                longest = -1;
            } else {
                Py_ssize_t len = PyUnicode_GET_LENGTH(item);
                if (len > longest) longest = len;
                if (items >= 0 && PyUnicode_IS_ASCII(item)) {
                    if (items < ABBREV_ITEMS_MAX && len < ABBREV_ITEM_LEN) {
                        memcpy(abbrev_items[items], PyUnicode_1BYTE_DATA(item), (size_t)len);
                        abbrev_item_len[items] = (unsigned char)len;
                        items++;
                    } else {
                        items = -1; /* too many or too long: look keys up */
                    }
                }
            }
        }
        Py_DECREF(item);
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return -1;
    }
    Py_INCREF(abbrev);
    Py_XSETREF(abbrev_known, abbrev);
    abbrev_longest = longest;
    abbrev_n_items = longest < 0 ? -1 : items;
    return longest;
}

/* ``key in abbrev`` for the ASCII key buf[0:m], when abbrev is the known
 * set and its ASCII items were all kept: 1 or 0; -1 when they were not. */
KERNEL int ascii_abbrev(const char *buf, Py_ssize_t m) {
    if (abbrev_n_items < 0) return -1;
    for (Py_ssize_t k = 0; k < abbrev_n_items; k++)
        if (abbrev_item_len[k] == m && memcmp(abbrev_items[k], buf, (size_t)m) == 0) return 1;
    return 0;
}

/* The abbreviation test of split_sentences for a lone '.' at ``stop``:
 * last = text[start:stop].rsplit(None, 1)[-1] (or ""), lowered and stripped
 * of trailing dots. 1 when the dot ends an abbreviation or an initial (no
 * split), 0 when it ends a sentence, -1 on error. */
KERNEL int ends_abbreviation(PyObject *text, int kind, const void *data, Py_ssize_t start,
                             Py_ssize_t stop, PyObject *abbrev, Py_ssize_t longest) {
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
        if (longest >= 0 && m > longest) return 0; /* longer than every abbreviation */
        if (longest >= 0) { /* abbrev is the known set (abbrev_bound) */
            int known = ascii_abbrev(buf, m);
            if (known >= 0) return known;
        }
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

/* The first i' >= i with text[i'] in [.!?], or n: the scan between
 * sentence ends, which is most of split_sentences' reading. On 1-byte text
 * (nearly every output) sixteen characters are compared at a time. */
KERNEL Py_ssize_t next_end(int kind, const void *data, Py_ssize_t i, Py_ssize_t n) {
#if defined(__SSE2__)
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *p = (const Py_UCS1 *)data;
        const __m128i dot = _mm_set1_epi8('.'), bang = _mm_set1_epi8('!'),
                      ask = _mm_set1_epi8('?');
        for (; i + 16 <= n; i += 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
            __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, dot), _mm_cmpeq_epi8(v, bang)),
                                       _mm_cmpeq_epi8(v, ask));
            int bits = _mm_movemask_epi8(hit);
            if (bits) return i + __builtin_ctz((unsigned)bits);
        }
    }
#endif
    while (i < n && !IS_END(PyUnicode_READ(kind, data, i))) i++;
    return i;
}

KERNEL PyObject *split_kind(PyObject *text, int kind, PyObject *abbrev) {
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    Py_ssize_t longest = abbrev_bound(abbrev);
    PyObject *spans = PyList_New(0);
    if (spans == NULL) return NULL;
    Py_ssize_t start = 0, i = 0;
    while (i < n) {
        i = next_end(kind, data, i, n);
        if (i >= n) break;
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
            int r = ends_abbreviation(text, kind, data, start, a, abbrev, longest);
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
    if (TEXT_READY(text) < 0) return NULL;
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
    if (n > 3 && w[n - 1] == w[n - 2]) {
        Py_UCS1 c = w[n - 1];
        if (c != 'a' && c != 'e' && c != 'i' && c != 'o' && c != 'u' && c != 'l' && c != 's') n--;
    }
    return n;
}

/* Appends text[s:e] lowered, as a new ASCII str, to ``out``. */
static int append_lowered(PyObject *out, const Py_UCS1 *src, Py_ssize_t s, Py_ssize_t e) {
    PyObject *w = PyUnicode_New(e - s, 127);
    if (w == NULL) return -1;
    Py_UCS1 *dst = PyUnicode_1BYTE_DATA(w);
    for (Py_ssize_t k = s; k < e; k++) dst[k - s] = (Py_UCS1)LOWER_ASCII(src[k]);
    int rc = PyList_Append(out, w);
    Py_DECREF(w);
    return rc;
}

/* terms._split_token of a _WORD token (an ASCII str) as a new tuple: strip
 * apostrophes, then _CAMEL's alternatives at each position, lowered, digit
 * runs dropped. (The Python shortcut for a plain or capitalised word gives
 * what _CAMEL gives.) */
static PyObject *token_words(PyObject *token) {
    const Py_UCS1 *t = PyUnicode_1BYTE_DATA(token);
    Py_ssize_t s = 0, e = PyUnicode_GET_LENGTH(token);
    while (s < e && t[s] == '\'') s++;
    while (e > s && t[e - 1] == '\'') e--;
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    Py_ssize_t p = s;
    while (p < e) {
        Py_UCS1 c = t[p];
        Py_ssize_t q = p + 1;
        if (IS_UPPER(c)) {
            while (q < e && IS_UPPER(t[q])) q++;
            int lower_next = q < e && IS_LOWER(t[q]);
            if (q - p >= 2 && lower_next) {
                q--; /* [A-Z]+(?=[A-Z][a-z]): the last capital starts the next word */
            } else if (q - p == 1 && lower_next) {
                while (q < e && IS_LOWER(t[q])) q++; /* [A-Z]?[a-z]+ */
            } /* else [A-Z]+ */
        } else if (IS_LOWER(c)) {
            while (q < e && IS_LOWER(t[q])) q++;
        } else {
            /* [0-9]+ matches and isdigit drops it; at an apostrophe no
             * alternative starts */
            p = q;
            continue;
        }
        if (append_lowered(out, t, p, q) < 0) {
            Py_DECREF(out);
            return NULL;
        }
        p = q;
    }
    PyObject *tuple = PyList_AsTuple(out);
    Py_DECREF(out);
    return tuple;
}

/* The stemmed content terms of a words tuple (terms.word_term_set's step):
 * longer than two letters, not a stopword. A new tuple. */
static PyObject *word_terms(PyObject *words, PyObject *stopwords) {
    Py_ssize_t n = PyTuple_GET_SIZE(words);
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *w = PyTuple_GET_ITEM(words, k); /* borrowed */
        Py_ssize_t len = PyUnicode_GET_LENGTH(w);
        if (len <= 2) continue;
        int stop = PySet_Contains(stopwords, w);
        if (stop < 0) goto error;
        if (stop) continue;
        Py_ssize_t m = stem_length(PyUnicode_1BYTE_DATA(w), len);
        PyObject *term;
        if (m == len) {
            Py_INCREF(w);
            term = w;
        } else {
            term = PyUnicode_Substring(w, 0, m);
            if (term == NULL) goto error;
        }
        int rc = PyList_Append(out, term);
        Py_DECREF(term);
        if (rc < 0) goto error;
    }
    PyObject *tuple = PyList_AsTuple(out);
    Py_DECREF(out);
    return tuple;
error:
    Py_DECREF(out);
    return NULL;
}

/* Token -> its words and terms, once per process (terms._TOKEN_WORDS and
 * _TOKEN_TERMS in C): natural text repeats a small vocabulary, and making
 * a str per occurrence was most of a scan's cost. Open addressing, at most
 * half full; bounded like the Python caches (later tokens are not kept).
 * Slots are only ever filled, so an entry pointer stays valid. */
typedef struct {
    PyObject *token; /* the token str (ASCII); NULL marks an empty slot */
    PyObject *words; /* tuple, or NULL until asked for */
    PyObject *terms; /* tuple, or NULL until asked for */
    size_t hash;
    uint64_t seen;  /* the set-building scan that last added its items */
    uint64_t chain; /* the term_chain call the marks belong to */
    unsigned marks; /* CHAIN_* facts about this token's terms in that call */
    /* Its terms' ids (term_id, below) for the id chain: ntid is 0 until
     * they are read, then 1 + how many (at most TIDS_INLINE), or TIDS_MANY
     * for a token with more terms (those are looked up at each use). Reset
     * with the terms tuple when the stopword set changes. */
    uint8_t ntid;
    uint16_t tid[4];
    Py_ssize_t len; /* the token's length */
    /* Its first HEAD_BYTES bytes, zero-padded, as the scan's words hold them
     * (see scan_kind): find_slot compares a token with these, not with the
     * str, which is then only read for a longer token. An evaluation meets
     * a hundred distinct tokens or so, each entry a cache miss of its own;
     * the str would be another. */
    uint64_t head[2];
} entry;
#define HEAD_BYTES 16

#define CACHE_SLOTS ((size_t)1 << 17)
#define CACHE_MAX (CACHE_SLOTS / 2)
#define CACHED_TOKEN_MAX 48 /* longer tokens are rare: made afresh each time */

static entry *cache = NULL; /* NULL when it could not be allocated */
static size_t cache_used = 0;
/* The stopword set the cached terms were filtered by (a strong reference):
 * another set empties every cached terms tuple first. */
static PyObject *cache_stopwords = NULL;
/* Numbers the set-building scans, so that a repeated token skips PySet_Add. */
static uint64_t scan_number = 0;

/* The hash of a cached token of n bytes (n <= CACHED_TOKEN_MAX) given as
 * words: wv[k] holds bytes 8k..8k+7, byte 8k+q in bits 8q..8q+7, zero past
 * the token. (It was FNV-1a folded in per character, a multiply chain as
 * long as the token; and words built in registers are never re-read from
 * bytes just stored, which stalls.) Only the cache's slots depend on it,
 * never a result. */
KERNEL size_t token_hash(const uint64_t *wv, Py_ssize_t n) {
    uint64_t h = (uint64_t)n * 0x9E3779B97F4A7C15ULL;
    for (Py_ssize_t k = 0; 8 * k < n; k++) {
        h = (h ^ wv[k]) * 0xFF51AFD7ED558CCDULL;
        h ^= h >> 32;
    }
    return (size_t)(h ^ (h >> 29));
}

/* The slot holding the token b[0:n], or the empty slot where it goes. */
/* The token b[0:n], wv its words as token_hash reads them (wv[1] set, zero
 * for a token of eight bytes or fewer). */
static entry *find_slot(const Py_UCS1 *b, const uint64_t *wv, Py_ssize_t n, size_t h) {
    size_t mask = CACHE_SLOTS - 1, k = h & mask;
    while (cache[k].token != NULL) {
        entry *e = &cache[k];
        if (e->hash == h && e->len == n && e->head[0] == wv[0] && e->head[1] == wv[1] &&
            (n <= HEAD_BYTES || memcmp(PyUnicode_1BYTE_DATA(e->token) + HEAD_BYTES, b + HEAD_BYTES,
                                       (size_t)(n - HEAD_BYTES)) == 0))
            return e;
        k = (k + 1) & mask;
    }
    return &cache[k];
}

/* Whether content terms may be cached for this stopword set: 1 yes, 0 no.
 * Only a frozenset (immutable) of exact strs is remembered: looking a str
 * up in it then runs no Python code that could re-enter the kernel and
 * change the cache in the middle of a scan. */
static int use_terms_cache(PyObject *stopwords) {
    if (cache == NULL || !PyFrozenSet_CheckExact(stopwords)) return 0;
    if (stopwords != cache_stopwords) {
        /* iterating a frozenset runs no Python code either */
        PyObject *it = PyObject_GetIter(stopwords);
        if (it == NULL) {
            PyErr_Clear(); /* not cached, then: the scan still works */
            return 0;
        }
        PyObject *item;
        int all_str = 1;
        while (all_str && (item = PyIter_Next(it)) != NULL) {
            all_str = PyUnicode_CheckExact(item);
            Py_DECREF(item);
        }
        Py_DECREF(it);
        if (PyErr_Occurred()) PyErr_Clear();
        if (!all_str) return 0;
        for (size_t k = 0; k < CACHE_SLOTS; k++) {
            Py_CLEAR(cache[k].terms);
            cache[k].ntid = 0;
        }
        Py_INCREF(stopwords);
        Py_XSETREF(cache_stopwords, stopwords);
    }
    return 1;
}

/* What a scan collects of each token: the token, its words or its terms. */
enum { MODE_TOKENS = 0, MODE_WORDS = 1, MODE_TERMS = 2 };

struct chain_state; /* term_chain's (below) */
static int chain_token(struct chain_state *st, entry *e, PyObject *terms);

typedef struct {
    int mode;
    int fences;            /* skip ``` fences, as strip_fences does */
    int cache_terms;       /* use_terms_cache(stopwords) said yes */
    PyObject *stopwords;   /* MODE_TERMS */
    int unique;            /* a list gets each token's items once per scan */
    struct chain_state *chain; /* MODE_TERMS: hand each token's terms to the chain, not to out */
    struct id_chain *idc;      /* MODE_TERMS: hand each token's term ids to this chain instead */
} scan_spec;

static int idc_token(struct id_chain *c, entry *e, PyObject *words, PyObject *stopwords,
                     int cached);

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

/* Adds the items of ``tuple`` to ``out``, a list or a set. */
static int extend(PyObject *out, PyObject *tuple) {
    Py_ssize_t n = PyTuple_GET_SIZE(tuple);
    int is_list = PyList_CheckExact(out);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *item = PyTuple_GET_ITEM(tuple, k);
        if ((is_list ? PyList_Append(out, item) : PySet_Add(out, item)) < 0) return -1;
    }
    return 0;
}

/* One scan over the _WORD tokens of text ([A-Za-z][A-Za-z0-9']*, maximal:
 * nothing after the first letter can end a match early), adding each
 * token's token, words or terms (spec->mode) to ``out``, a list (in order,
 * repeats kept) or a set. 0 on success, -1 with an exception set. */
KERNEL int scan_kind(PyObject *text, int kind, const scan_spec *spec, PyObject *out,
                     Py_ssize_t start, Py_ssize_t end) {
    const void *data = PyUnicode_DATA(text);
    /* text[start:end] is scanned as if it were the whole text */
    Py_ssize_t n = end;
    const int mode = spec->mode;
    PyObject *stopwords = spec->stopwords;
    int as_set = !PyList_CheckExact(out);
    /* in a set (or a list when spec->unique), a token's items are added
     * once per scan */
    int unique = as_set || spec->unique;
    uint64_t scan_id = unique ? ++scan_number : 0;
    Py_ssize_t i = start;
    while (i < n) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (!(CLASS_OF(c) & CLASS_LETTER)) {
            /* strip_fences puts a space where a fence was: a separator */
            if (spec->fences && c == '`' && opens_fence(kind, data, n, i))
                i = fence_end(kind, data, n, i);
            else
                i++;
            continue;
        }
        /* read the token into buf and into the words wv (see token_hash),
         * as far as buf goes; w is the word being filled */
        Py_UCS1 buf[CACHED_TOKEN_MAX];
        uint64_t wv[CACHED_TOKEN_MAX / 8];
        uint64_t w = (uint64_t)c;
        buf[0] = (Py_UCS1)c;
        Py_ssize_t j = i + 1;
        for (; j < n; j++) {
            Py_UCS4 d = PyUnicode_READ(kind, data, j);
            if (!(CLASS_OF(d) & CLASS_WORD)) break;
            Py_ssize_t q = j - i;
            if (q < CACHED_TOKEN_MAX) {
                buf[q] = (Py_UCS1)d;
                if ((q & 7) == 0) {
                    wv[(q >> 3) - 1] = w;
                    w = 0;
                }
                w |= (uint64_t)d << (8 * (q & 7));
            }
        }
        Py_ssize_t len = j - i;
        if (len <= CACHED_TOKEN_MAX) {
            wv[(len - 1) >> 3] = w;
            if (len <= 8) wv[1] = 0;
        }
        entry own; /* a token the cache does not keep: set up only when used */
        own.token = NULL;
        own.words = NULL;
        entry *e = &own;
        if (cache != NULL && len <= CACHED_TOKEN_MAX) {
            size_t h = token_hash(wv, len);
            entry *slot = find_slot(buf, wv, len, h);
            if (slot->token != NULL) {
                e = slot;
            } else {
                PyObject *tok = PyUnicode_New(len, 127);
                if (tok == NULL) return -1;
                memcpy(PyUnicode_1BYTE_DATA(tok), buf, (size_t)len);
                if (cache_used < CACHE_MAX) {
                    slot->token = tok;
                    slot->hash = h;
                    slot->len = len;
                    slot->head[0] = wv[0];
                    slot->head[1] = wv[1];
                    cache_used++;
                    e = slot;
                } else {
                    own.token = tok;
                }
            }
        } else {
            own.token = PyUnicode_New(len, 127);
            if (own.token == NULL) return -1;
            Py_UCS1 *dst = PyUnicode_1BYTE_DATA(own.token);
            for (Py_ssize_t k = 0; k < len; k++) dst[k] = (Py_UCS1)PyUnicode_READ(kind, data, i + k);
        }
        int rc;
        if (unique && e != &own && e->seen == scan_id) {
            rc = 0; /* this scan added its items already */
        } else if (mode == MODE_TOKENS) {
            rc = as_set ? PySet_Add(out, e->token) : PyList_Append(out, e->token);
        } else {
            if (e->words == NULL) e->words = token_words(e->token);
            if (e->words == NULL) {
                rc = -1;
            } else if (spec->idc != NULL) {
                rc = idc_token(spec->idc, e != &own ? e : NULL, e->words, stopwords,
                               e != &own && spec->cache_terms);
            } else if (mode == MODE_WORDS) {
                rc = extend(out, e->words);
            } else if (e != &own && spec->cache_terms) {
                if (e->terms == NULL) e->terms = word_terms(e->words, stopwords);
                rc = e->terms == NULL     ? -1
                     : spec->chain != NULL ? chain_token(spec->chain, e, e->terms)
                                           : extend(out, e->terms);
            } else {
                PyObject *terms = word_terms(e->words, stopwords);
                rc = terms == NULL        ? -1
                     : spec->chain != NULL ? chain_token(spec->chain, NULL, terms)
                                           : extend(out, terms);
                Py_XDECREF(terms);
            }
        }
        e->seen = scan_id;
        Py_XDECREF(own.token);
        Py_XDECREF(own.words);
        if (rc < 0) return -1;
        i = j;
    }
    return 0;
}

/* Scans text[start:end] (a ready str) into out (see scan_kind). */
static int scan_range(PyObject *text, const scan_spec *spec, PyObject *out, Py_ssize_t start,
                      Py_ssize_t end) {
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        return scan_kind(text, PyUnicode_1BYTE_KIND, spec, out, start, end);
    case PyUnicode_2BYTE_KIND:
        return scan_kind(text, PyUnicode_2BYTE_KIND, spec, out, start, end);
    default:
        return scan_kind(text, PyUnicode_4BYTE_KIND, spec, out, start, end);
    }
}

/* Scans text into out (see scan_kind). */
static int scan(PyObject *text, const scan_spec *spec, PyObject *out) {
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "lexical kernel: text must be str");
        return -1;
    }
    if (TEXT_READY(text) < 0) return -1;
    return scan_range(text, spec, out, 0, PyUnicode_GET_LENGTH(text));
}

/* A new list (as_set 0) or set (1) of what spec collects from text. */
static PyObject *scan_new(PyObject *text, const scan_spec *spec, int as_set) {
    PyObject *out = as_set ? PySet_New(NULL) : PyList_New(0);
    if (out == NULL) return NULL;
    if (scan(text, spec, out) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

/* Reads the (text, stopwords) arguments of the term functions. */
static int term_args(PyObject *const *args, Py_ssize_t nargs, const char *fn, scan_spec *spec) {
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s takes 2 arguments", fn);
        return -1;
    }
    if (!PyAnySet_Check(args[1])) {
        PyErr_Format(PyExc_TypeError, "%s: stopwords must be a set or frozenset", fn);
        return -1;
    }
    spec->mode = MODE_TERMS;
    spec->unique = 0;
    spec->chain = NULL;
    spec->idc = NULL;
    spec->stopwords = args[1];
    spec->cache_terms = use_terms_cache(args[1]);
    return 0;
}

static PyObject *tokens(PyObject *self, PyObject *text) {
    (void)self;
    scan_spec spec = {MODE_TOKENS, 0, 0, NULL, 0, NULL, NULL};
    return scan_new(text, &spec, 1);
}

static PyObject *words(PyObject *self, PyObject *text) {
    (void)self;
    scan_spec spec = {MODE_WORDS, 0, 0, NULL, 0, NULL, NULL};
    return scan_new(text, &spec, 0);
}

static PyObject *word_set(PyObject *self, PyObject *text) {
    (void)self;
    scan_spec spec = {MODE_WORDS, 0, 0, NULL, 0, NULL, NULL};
    return scan_new(text, &spec, 1);
}

static PyObject *content_terms(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    scan_spec spec;
    if (term_args(args, nargs, "content_terms", &spec) < 0) return NULL;
    spec.fences = 1;
    return scan_new(args[0], &spec, 0);
}

static PyObject *word_term_set(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    scan_spec spec;
    if (term_args(args, nargs, "word_term_set", &spec) < 0) return NULL;
    spec.fences = 0;
    return scan_new(args[0], &spec, 1);
}

static PyObject *content_term_sets(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    scan_spec spec;
    if (term_args(args, nargs, "content_term_sets", &spec) < 0) return NULL;
    spec.fences = 1;
    /* a tuple copy: nothing can change its length or drop an item while
     * the texts are scanned */
    PyObject *texts = PySequence_Tuple(args[0]);
    if (texts == NULL) return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(texts);
    PyObject *out = PyList_New(n);
    if (out == NULL) {
        Py_DECREF(texts);
        return NULL;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *set = scan_new(PyTuple_GET_ITEM(texts, k), &spec, 1);
        if (set == NULL) {
            Py_DECREF(out); /* the unset items are NULL, which list dealloc skips */
            Py_DECREF(texts);
            return NULL;
        }
        PyList_SET_ITEM(out, k, set); /* steals */
    }
    Py_DECREF(texts);
    return out;
}

/* ------------------------------------------------------------------------ */
/* Long words                                                                */
/* ------------------------------------------------------------------------ */

/* long_words(text, limit) -> int: terms.long_words_py, the matches of
 * [A-Za-z]{4,} (one per maximal run of four or more ASCII letters) counted
 * no further than limit (0 for a limit below 1). */
KERNEL Py_ssize_t long_words_kind(int kind, const void *data, Py_ssize_t n, Py_ssize_t limit) {
    Py_ssize_t count = 0, run = 0;
    for (Py_ssize_t i = 0; i < n && count < limit; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (!IS_LETTER(c))
            run = 0;
        else if (++run == 4)
            count++; /* the run is a match from here on, whatever its length */
    }
    return count;
}

static PyObject *long_words(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "long_words(text, limit) takes 2 arguments");
        return NULL;
    }
    PyObject *text = args[0];
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "long_words: text must be str");
        return NULL;
    }
    Py_ssize_t limit = PyNumber_AsSsize_t(args[1], NULL); /* clamps a huge int */
    if (limit == -1 && PyErr_Occurred()) return NULL;
    if (TEXT_READY(text) < 0) return NULL;
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), count;
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        count = long_words_kind(PyUnicode_1BYTE_KIND, data, n, limit);
        break;
    case PyUnicode_2BYTE_KIND:
        count = long_words_kind(PyUnicode_2BYTE_KIND, data, n, limit);
        break;
    default:
        count = long_words_kind(PyUnicode_4BYTE_KIND, data, n, limit);
    }
    return PyLong_FromSsize_t(count);
}

/* ------------------------------------------------------------------------ */
/* Topic chains                                                              */
/* ------------------------------------------------------------------------ */

/* term_chain(units, seed, probe, stopwords)
 *     -> (connected, total, found, outside, probed)
 * term_chain_spans(text, spans, seed, probe, stopwords) -> the same, for the units
 *     text[s:e] of each (s, e) in spans (0 <= s <= e <= len(text), else
 *     ValueError), without making the slices.
 *
 * Mirrors terms.term_chain_py, where ``sets`` is content_term_sets(units):
 *   total     the units with at least one content term;
 *   connected those of them sharing a term with the topic, which starts as
 *             set(seed) and takes in every connected unit's terms, in order
 *             (relevance._continuity's loop);
 *   found     len(seed & union(sets))   (relevance.overlap's count);
 *   outside   not union(sets) <= seed   (answers_the_ask's hand-back test);
 *   probed    len(probe & union(sets))  (answers_the_ask's field hits).
 * Each unit is read by the same scan as content_term_sets (fences skipped
 * within the unit), into one reused list instead of a new set per unit. */
/* A token's facts within one term_chain call (entry.marks, valid while
 * entry.chain is the call's number). Natural text repeats its vocabulary, so
 * most of a unit's tokens were met in an earlier unit: their set work is
 * done. Every fact only ever becomes true as the topic grows, so a mark is
 * never stale; a token without marks (uncached, or its marks lost to a
 * nested call) just takes the set lookups again, which repeat safely. */
#define CHAIN_HITS 1u    /* one of its terms is in the topic */
#define CHAIN_ADDED 2u   /* all of its terms are in the topic */
#define CHAIN_COUNTED 4u /* its terms went through the seed/probe counts */

static uint64_t chain_number = 0;

typedef struct chain_state {
    PyObject *seed;     /* the caller's set, only read */
    PyObject *topic;    /* set(seed), grown by the connected units */
    PyObject *missing;  /* set(seed) less every term seen so far */
    PyObject *unprobed; /* set(probe) less every term seen so far */
    PyObject *buf;      /* an empty list: the scan's ``out``, which chain mode leaves alone */
    PyObject **terms;   /* the current unit's tokens' terms tuples (strong refs) */
    entry **ents;       /* their cache entries (NULL: an uncached token) */
    Py_ssize_t n_ents, cap_ents;
    uint64_t id; /* this call's number, for entry.chain */
    Py_ssize_t connected, total, n_seed, n_probe;
    int outside; /* a term outside seed was seen */
} chain_state;

/* Drops the current unit's terms tuples. */
static void chain_release(chain_state *st) {
    for (Py_ssize_t k = 0; k < st->n_ents; k++) Py_DECREF(st->terms[k]);
    st->n_ents = 0;
}

static void chain_clear(chain_state *st) {
    chain_release(st);
    Py_CLEAR(st->topic);
    Py_CLEAR(st->missing);
    Py_CLEAR(st->unprobed);
    Py_CLEAR(st->buf);
    PyMem_Free(st->ents);
    st->ents = NULL;
    PyMem_Free(st->terms);
    st->terms = NULL;
}

/* Sets up st for seed and probe; 0, or -1 with an exception set (st cleared). */
static int chain_begin(chain_state *st, PyObject *seed, PyObject *probe) {
    st->seed = seed;
    st->connected = st->total = 0;
    st->outside = 0;
    st->n_ents = st->cap_ents = 0;
    st->ents = NULL;
    st->terms = NULL;
    st->id = ++chain_number;
    st->topic = PySet_New(seed);
    st->missing = PySet_New(seed);
    st->unprobed = PySet_New(probe);
    st->buf = PyList_New(0);
    if (st->topic == NULL || st->missing == NULL || st->unprobed == NULL || st->buf == NULL) {
        chain_clear(st);
        return -1;
    }
    st->n_seed = PySet_GET_SIZE(st->missing);
    st->n_probe = PySet_GET_SIZE(st->unprobed);
    return 0;
}

/* A token of the current unit (once per unit: the scan is ``unique``) and
 * its terms tuple; e is its cache entry, or NULL. 0, or -1 with an exception. */
static int chain_token(chain_state *st, entry *e, PyObject *terms) {
    if (PyTuple_GET_SIZE(terms) == 0) return 0; /* stopwords and short words only */
    if (st->n_ents == st->cap_ents) {
        Py_ssize_t cap = st->cap_ents ? 2 * st->cap_ents : 64;
        entry **grown = PyMem_Realloc(st->ents, (size_t)cap * sizeof(entry *));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        st->ents = grown;
        PyObject **more = PyMem_Realloc(st->terms, (size_t)cap * sizeof(PyObject *));
        if (more == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        st->terms = more;
        st->cap_ents = cap;
    }
    Py_INCREF(terms);
    st->terms[st->n_ents] = terms;
    if (e != NULL && e->chain != st->id) {
        e->chain = st->id;
        e->marks = 0;
    }
    st->ents[st->n_ents++] = e;
    return 0;
}

/* Whether token k of the unit has the mark (false for an uncached one). */
KERNEL int marked(const chain_state *st, Py_ssize_t k, unsigned mark) {
    const entry *e = st->ents[k];
    return e != NULL && e->chain == st->id && (e->marks & mark);
}

KERNEL void mark(const chain_state *st, Py_ssize_t k, unsigned mark) {
    entry *e = st->ents[k];
    if (e != NULL && e->chain == st->id) e->marks |= mark;
}

/* One unit of the chain, its tokens' terms in st->terms: the body of
 * _continuity's loop (``if not topic.isdisjoint(terms): connected += 1;
 * topic |= terms``) plus the overlap bookkeeping. Empties the unit.
 * 0, or -1 with an exception. */
static int chain_unit(chain_state *st) {
    Py_ssize_t m = st->n_ents;
    if (m == 0) return 0; /* filter(None, ...): no content term, not counted */
    st->total++;
    int hit = 0;
    for (Py_ssize_t k = 0; k < m && !hit; k++) hit = marked(st, k, CHAIN_HITS);
    for (Py_ssize_t k = 0; k < m && !hit; k++) {
        PyObject *terms = st->terms[k];
        for (Py_ssize_t q = 0; q < PyTuple_GET_SIZE(terms) && !hit; q++) {
            hit = PySet_Contains(st->topic, PyTuple_GET_ITEM(terms, q));
            if (hit < 0) return -1;
        }
        if (hit) mark(st, k, CHAIN_HITS);
    }
    if (hit) {
        st->connected++;
        for (Py_ssize_t k = 0; k < m; k++) {
            if (marked(st, k, CHAIN_ADDED)) continue;
            PyObject *terms = st->terms[k];
            for (Py_ssize_t q = 0; q < PyTuple_GET_SIZE(terms); q++)
                if (PySet_Add(st->topic, PyTuple_GET_ITEM(terms, q)) < 0) return -1;
            mark(st, k, CHAIN_ADDED | CHAIN_HITS);
        }
    }
    for (Py_ssize_t k = 0; k < m; k++) {
        if (marked(st, k, CHAIN_COUNTED)) continue;
        PyObject *terms = st->terms[k];
        for (Py_ssize_t q = 0; q < PyTuple_GET_SIZE(terms); q++) {
            PyObject *t = PyTuple_GET_ITEM(terms, q);
            /* found and outside: one seed lookup, while either can change */
            if (PySet_GET_SIZE(st->missing) || !st->outside) {
                int in_seed = PySet_Contains(st->seed, t);
                if (in_seed < 0) return -1;
                if (!in_seed)
                    st->outside = 1;
                else if (PySet_GET_SIZE(st->missing) && PySet_Discard(st->missing, t) < 0)
                    return -1;
            }
            if (PySet_GET_SIZE(st->unprobed) && PySet_Discard(st->unprobed, t) < 0) return -1;
        }
        mark(st, k, CHAIN_COUNTED);
    }
    chain_release(st);
    return 0;
}

/* The (connected, total, found, outside, probed) tuple; clears st either way. */
static PyObject *chain_result(chain_state *st) {
    PyObject *out = Py_BuildValue("(nnnOn)", st->connected, st->total,
                                  st->n_seed - PySet_GET_SIZE(st->missing),
                                  st->outside ? Py_True : Py_False,
                                  st->n_probe - PySet_GET_SIZE(st->unprobed));
    chain_clear(st);
    return out;
}

/* The seed, probe and stopwords arguments, and the scan every unit is read
 * by: content_term_sets' (terms, fences skipped), one item per token. */
static int chain_args(PyObject *seed, PyObject *probe, PyObject *stopwords, const char *fn,
                      scan_spec *spec) {
    if (!PyAnySet_Check(seed) || !PyAnySet_Check(probe)) {
        PyErr_Format(PyExc_TypeError, "%s: seed and probe must be sets or frozensets", fn);
        return -1;
    }
    if (!PyAnySet_Check(stopwords)) {
        PyErr_Format(PyExc_TypeError, "%s: stopwords must be a set or frozenset", fn);
        return -1;
    }
    spec->mode = MODE_TERMS;
    spec->fences = 1;
    spec->unique = 1;
    spec->chain = NULL; /* set once the chain state exists */
    spec->idc = NULL;
    spec->stopwords = stopwords;
    spec->cache_terms = use_terms_cache(stopwords);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* The chain by term ids                                                     */
/* ------------------------------------------------------------------------ */

/* Why: the chain above keeps its topic, the missing seed terms and the
 * unprobed probe terms in Python sets, so every distinct token of a unit
 * reads its terms tuple and each term str (for its hash) as well as its
 * cache entry: three or four cache misses a token when the chain runs
 * after the other rules (the figure in the engine was twice the one of a
 * warm loop). Here each distinct term string has a small integer id, kept
 * in the token's cache entry, and the chain's sets are flags by id in one
 * 64 KB table: a token costs its entry, and the answer is the same.
 *
 * Ids: term_table interns term strs by content (an ASCII exact str: every
 * term a token yields is one; a seed or probe item that is another exact
 * str equals no such term). An id is a slot of the table, which only ever
 * fills (bounded like the token cache), so an id stays right for as long
 * as the process runs. The flags are cleared after every call (touched). A
 * call the ids cannot serve - a seed or probe item that is no exact str,
 * stopwords the token cache does not keep, a full table - answers 0, and
 * the set chain above runs instead, from the start. No Python code runs in
 * here: the stopword set is a frozenset of exact strs (use_terms_cache). */
#define TERM_SLOTS ((size_t)1 << 16)
#define TERM_MAX (TERM_SLOTS / 2)
#define TIDS_INLINE 4
#define TIDS_MANY 0xFF

typedef struct {
    PyObject *str; /* the interned term (a strong reference); NULL: empty */
    uint64_t hash;
} term_slot;
static term_slot *term_table = NULL; /* NULL when it could not be allocated */
static size_t term_used = 0;

enum { F_TOPIC = 1, F_SEED = 2, F_FOUND = 4, F_PROBE = 8, F_PROBED = 16 };
static uint8_t term_flags[TERM_SLOTS]; /* all zero between calls */

typedef struct id_chain {
    uint16_t *unit; /* the current unit's term ids */
    Py_ssize_t n_unit, cap_unit;
    uint16_t *touched; /* ids whose flags this call set */
    Py_ssize_t n_touched, cap_touched;
    Py_ssize_t connected, total, found, probed;
    int outside;
    int full; /* the table filled up: the call is answered by the set chain */
} id_chain;

static uint64_t term_hash(const Py_UCS1 *b, Py_ssize_t n) {
    uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)n;
    for (Py_ssize_t k = 0; k < n; k++) h = (h ^ b[k]) * 0x100000001b3ULL;
    return h ^ (h >> 31);
}

/* The id of the term str s: its slot, added when new. -2 when s is no
 * ASCII exact str (no term equals it), -1 when the table is full. */
static Py_ssize_t term_id(PyObject *s) {
    if (!PyUnicode_CheckExact(s) || TEXT_READY(s) < 0) {
        PyErr_Clear();
        return -2;
    }
    if (!PyUnicode_IS_ASCII(s)) return -2;
    const Py_UCS1 *b = PyUnicode_1BYTE_DATA(s);
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    uint64_t h = term_hash(b, n);
    size_t mask = TERM_SLOTS - 1, k = (size_t)h & mask;
    while (term_table[k].str != NULL) {
        PyObject *t = term_table[k].str;
        if (term_table[k].hash == h && PyUnicode_GET_LENGTH(t) == n &&
            memcmp(PyUnicode_1BYTE_DATA(t), b, (size_t)n) == 0)
            return (Py_ssize_t)k;
        k = (k + 1) & mask;
    }
    if (term_used >= TERM_MAX) return -1;
    Py_INCREF(s);
    term_table[k].str = s;
    term_table[k].hash = h;
    term_used++;
    return (Py_ssize_t)k;
}

static int grow16(uint16_t **arr, Py_ssize_t *cap) {
    Py_ssize_t want = *cap ? 2 * *cap : 64;
    uint16_t *more = PyMem_Realloc(*arr, (size_t)want * sizeof(uint16_t));
    if (more == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *arr = more;
    *cap = want;
    return 0;
}

/* Sets flag f of id (recording the id when it had none). 0, or -1. */
KERNEL int idc_flag(id_chain *c, uint16_t id, uint8_t f) {
    if (term_flags[id] == 0) {
        if (c->n_touched == c->cap_touched && grow16(&c->touched, &c->cap_touched) < 0) return -1;
        c->touched[c->n_touched++] = id;
    }
    term_flags[id] |= f;
    return 0;
}

/* Appends id to the current unit. 0, or -1. */
KERNEL int idc_push(id_chain *c, uint16_t id) {
    if (c->n_unit == c->cap_unit && grow16(&c->unit, &c->cap_unit) < 0) return -1;
    c->unit[c->n_unit++] = id;
    return 0;
}

/* Appends the ids of a terms tuple (every item an ASCII str: word_terms). */
static int idc_push_terms(id_chain *c, PyObject *terms) {
    for (Py_ssize_t q = 0; q < PyTuple_GET_SIZE(terms); q++) {
        Py_ssize_t id = term_id(PyTuple_GET_ITEM(terms, q));
        if (id < 0) {
            c->full = 1; /* (-2 cannot happen for a term) */
            return 0;
        }
        if (idc_push(c, (uint16_t)id) < 0) return -1;
    }
    return 0;
}

/* A token of the current unit (once per unit: the scan is ``unique``): its
 * term ids go to the unit. e is its cache entry when ``cached`` (terms kept
 * there for these stopwords), else the terms are made for this use. */
static int idc_token(id_chain *c, entry *e, PyObject *words, PyObject *stopwords, int cached) {
    if (c->full) return 0;
    if (!cached) {
        PyObject *terms = word_terms(words, stopwords);
        if (terms == NULL) return -1;
        int rc = idc_push_terms(c, terms);
        Py_DECREF(terms);
        return rc;
    }
    if (e->ntid == 0) {
        if (e->terms == NULL) e->terms = word_terms(words, stopwords);
        if (e->terms == NULL) return -1;
        Py_ssize_t m = PyTuple_GET_SIZE(e->terms);
        if (m > TIDS_INLINE) {
            e->ntid = TIDS_MANY;
        } else {
            for (Py_ssize_t q = 0; q < m; q++) {
                Py_ssize_t id = term_id(PyTuple_GET_ITEM(e->terms, q));
                if (id < 0) {
                    c->full = 1;
                    return 0;
                }
                e->tid[q] = (uint16_t)id;
            }
            e->ntid = (uint8_t)(1 + m);
        }
    }
    if (e->ntid == TIDS_MANY) return idc_push_terms(c, e->terms);
    for (int q = 0; q < e->ntid - 1; q++)
        if (idc_push(c, e->tid[q]) < 0) return -1;
    return 0;
}

/* One unit: chain_unit's counts by flags. Empties the unit. 0, or -1. */
static int idc_unit(id_chain *c) {
    Py_ssize_t m = c->n_unit;
    if (m == 0 || c->full) {
        c->n_unit = 0;
        return 0;
    }
    c->total++;
    int hit = 0;
    for (Py_ssize_t k = 0; k < m && !hit; k++) hit = term_flags[c->unit[k]] & F_TOPIC;
    for (Py_ssize_t k = 0; k < m; k++) {
        uint16_t id = c->unit[k];
        uint8_t f = term_flags[id];
        if (hit && !(f & F_TOPIC) && idc_flag(c, id, F_TOPIC) < 0) return -1;
        if (f & F_SEED) {
            if (!(f & F_FOUND)) {
                term_flags[id] |= F_FOUND; /* (touched: it has F_SEED) */
                c->found++;
            }
        } else {
            c->outside = 1;
        }
        if ((f & F_PROBE) && !(f & F_PROBED)) {
            term_flags[id] |= F_PROBED;
            c->probed++;
        }
    }
    if (hit) c->connected++;
    c->n_unit = 0;
    return 0;
}

/* Flags every item of a seed (F_SEED | F_TOPIC) or probe (F_PROBE) set.
 * 1 done, 0 an item the ids cannot stand for (no exact str) or a full
 * table, -1 error. */
static int idc_mark_set(id_chain *c, PyObject *set, uint8_t f) {
    PyObject *it = PyObject_GetIter(set), *item;
    if (it == NULL) return -1;
    int ok = 1;
    while (ok == 1 && (item = PyIter_Next(it)) != NULL) {
        if (!PyUnicode_CheckExact(item)) {
            ok = 0;
        } else {
            Py_ssize_t id = term_id(item);
            if (id == -1) ok = 0;
            else if (id >= 0 && idc_flag(c, (uint16_t)id, f) < 0) ok = -1;
        }
        Py_DECREF(item);
    }
    Py_DECREF(it);
    if (ok == 1 && PyErr_Occurred()) ok = -1;
    return ok;
}

static void idc_clear(id_chain *c) {
    for (Py_ssize_t k = 0; k < c->n_touched; k++) term_flags[c->touched[k]] = 0;
    PyMem_Free(c->touched);
    PyMem_Free(c->unit);
}

/* term_chain (units, spans NULL) or term_chain_spans (text and spans, read
 * as read_span does) by ids: 1 with *result set, 0 when the set chain must
 * answer instead, -1 with an exception. */
static int read_span(PyObject *item, Py_ssize_t n, Py_ssize_t *s, Py_ssize_t *e);
static int idc_run(PyObject *text, PyObject *items, PyObject *seed, PyObject *probe,
                   scan_spec *spec, PyObject **result) {
    if (term_table == NULL || !spec->cache_terms) return 0;
    /* a set the scan could change under us is none of ours: seed and probe
     * are only iterated here, before the scan, and no Python code runs */
    if (!PyAnySet_Check(seed) || !PyAnySet_Check(probe)) return 0;
    id_chain c;
    memset(&c, 0, sizeof c);
    int rc = idc_mark_set(&c, seed, F_SEED | F_TOPIC);
    if (rc == 1) rc = idc_mark_set(&c, probe, F_PROBE);
    if (rc != 1) {
        idc_clear(&c);
        return rc;
    }
    spec->idc = &c;
    Py_ssize_t n = PyTuple_GET_SIZE(items);
    Py_ssize_t len = text != NULL ? PyUnicode_GET_LENGTH(text) : 0;
    PyObject *buf = PyList_New(0); /* the scan's ``out``, left alone in chain mode */
    rc = buf == NULL ? -1 : 1;
    for (Py_ssize_t k = 0; rc == 1 && k < n && !c.full; k++) {
        PyObject *item = PyTuple_GET_ITEM(items, k);
        if (text != NULL) {
            Py_ssize_t s, e;
            if (read_span(item, len, &s, &e) < 0 || scan_range(text, spec, buf, s, e) < 0)
                rc = -1;
        } else if (scan(item, spec, buf) < 0) {
            rc = -1;
        }
        if (rc == 1 && idc_unit(&c) < 0) rc = -1;
    }
    spec->idc = NULL;
    Py_XDECREF(buf);
    if (rc == 1 && c.full) rc = 0;
    if (rc == 1) {
        *result = Py_BuildValue("(nnnOn)", c.connected, c.total, c.found,
                                c.outside ? Py_True : Py_False, c.probed);
        if (*result == NULL) rc = -1;
    }
    idc_clear(&c);
    return rc;
}

static PyObject *term_chain(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError,
                        "term_chain(units, seed, probe, stopwords) takes 4 arguments");
        return NULL;
    }
    scan_spec spec;
    if (chain_args(args[1], args[2], args[3], "term_chain", &spec) < 0) return NULL;
    /* a tuple copy, as in content_term_sets */
    PyObject *units = PySequence_Tuple(args[0]);
    if (units == NULL) return NULL;
    PyObject *answer = NULL;
    int by_ids = idc_run(NULL, units, args[1], args[2], &spec, &answer);
    if (by_ids != 0) {
        Py_DECREF(units);
        return by_ids > 0 ? answer : NULL;
    }
    chain_state st;
    if (chain_begin(&st, args[1], args[2]) < 0) {
        Py_DECREF(units);
        return NULL;
    }
    spec.chain = &st;
    Py_ssize_t n = PyTuple_GET_SIZE(units);
    for (Py_ssize_t k = 0; k < n; k++) {
        if (scan(PyTuple_GET_ITEM(units, k), &spec, st.buf) < 0 || chain_unit(&st) < 0) {
            chain_clear(&st);
            Py_DECREF(units);
            return NULL;
        }
    }
    Py_DECREF(units);
    return chain_result(&st);
}

/* Reads spans[k] as (s, e) with 0 <= s <= e <= n. 0, or -1 with an exception. */
static int read_span(PyObject *item, Py_ssize_t n, Py_ssize_t *s, Py_ssize_t *e) {
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 2) {
        PyErr_SetString(PyExc_TypeError, "term_chain_spans: a span must be a (start, end) tuple");
        return -1;
    }
    *s = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 0));
    if (*s == -1 && PyErr_Occurred()) return -1;
    *e = PyLong_AsSsize_t(PyTuple_GET_ITEM(item, 1));
    if (*e == -1 && PyErr_Occurred()) return -1;
    if (*s < 0 || *s > *e || *e > n) {
        PyErr_SetString(PyExc_ValueError, "term_chain_spans: span outside the text");
        return -1;
    }
    return 0;
}

static PyObject *term_chain_spans(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError,
                        "term_chain_spans(text, spans, seed, probe, stopwords) takes 5 arguments");
        return NULL;
    }
    PyObject *text = args[0];
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "term_chain_spans: text must be str");
        return NULL;
    }
    if (TEXT_READY(text) < 0) return NULL;
    scan_spec spec;
    if (chain_args(args[2], args[3], args[4], "term_chain_spans", &spec) < 0) return NULL;
    PyObject *spans = PySequence_Tuple(args[1]);
    if (spans == NULL) return NULL;
    PyObject *answer = NULL;
    int by_ids = idc_run(text, spans, args[2], args[3], &spec, &answer);
    if (by_ids != 0) {
        Py_DECREF(spans);
        return by_ids > 0 ? answer : NULL;
    }
    chain_state st;
    if (chain_begin(&st, args[2], args[3]) < 0) {
        Py_DECREF(spans);
        return NULL;
    }
    spec.chain = &st;
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    Py_ssize_t n = PyTuple_GET_SIZE(spans);
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_ssize_t s, e;
        if (read_span(PyTuple_GET_ITEM(spans, k), len, &s, &e) < 0 ||
            scan_range(text, &spec, st.buf, s, e) < 0 || chain_unit(&st) < 0) {
            chain_clear(&st);
            Py_DECREF(spans);
            return NULL;
        }
    }
    Py_DECREF(spans);
    return chain_result(&st);
}

/* ------------------------------------------------------------------------ */
/* Engaged terms                                                             */
/* ------------------------------------------------------------------------ */

/* engaged(terms, words, limit) -> int | None
 *
 * asks.engaged_terms(terms, words, {stem(w) for w in words},
 * {w[:4] for w in words if len(w) >= 4}) counted no further than limit:
 * how many distinct terms are a word, share their stem with some word's
 * stem, or (four letters or more) share their first four letters with a
 * word of four or more. ask_coverage asks "two or more?" of every declared
 * part against the output's words and the tool calls' words; in Python the
 * stem and prefix tests cost a pass over the joined words.
 *
 * Only lowercase ASCII exact strs are read (what terms.words yields, so
 * every word and term ask_coverage has): there terms.stem is stem_length,
 * as it never lowers anything. Anything else - a set that is no set or
 * frozenset, an item of another type, an uppercase or non-ASCII character -
 * returns None, and the caller runs the Python reference. */
typedef struct {
    const Py_UCS1 *chars;
    Py_ssize_t len, stem;
} vocab_word;

/* Whether ``s`` is an exact str of lowercase ASCII (no A-Z, nothing past 127). */
static int lower_ascii_str(PyObject *s) {
    if (!PyUnicode_CheckExact(s) || !PyUnicode_IS_ASCII(s)) return 0;
    const Py_UCS1 *c = PyUnicode_1BYTE_DATA(s);
    for (Py_ssize_t k = 0, n = PyUnicode_GET_LENGTH(s); k < n; k++)
        if (IS_UPPER(c[k])) return 0;
    return 1;
}

static PyObject *engaged(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "engaged(terms, words, limit) takes 3 arguments");
        return NULL;
    }
    PyObject *words = args[1];
    if (!PyAnySet_CheckExact(words)) Py_RETURN_NONE;
    Py_ssize_t limit = PyNumber_AsSsize_t(args[2], NULL);
    if (limit == -1 && PyErr_Occurred()) return NULL;
    /* a tuple: nothing a lookup might run can change it under us */
    PyObject *seq = PySequence_Tuple(args[0]);
    if (seq == NULL) return NULL;
    Py_ssize_t nterms = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    PyObject *result = NULL;
    vocab_word *vocab = NULL;
    Py_ssize_t nvocab = -1; /* read on first need */
    for (Py_ssize_t k = 0; k < nterms; k++)
        if (!lower_ascii_str(items[k])) {
            result = Py_None;
            goto done;
        }
    /* 1 for a term to test: the first of its equals (a term counts once,
     * as in set(part_terms)) and not yet found among the words */
    unsigned char *open_ = PyMem_Malloc((size_t)(nterms ? nterms : 1));
    if (open_ == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t hit = 0;
    for (Py_ssize_t k = 0; k < nterms; k++) {
        PyObject *t = items[k];
        int dup = 0;
        for (Py_ssize_t q = 0; q < k && !dup; q++)
            dup = PyUnicode_GET_LENGTH(items[q]) == PyUnicode_GET_LENGTH(t) &&
                  memcmp(PyUnicode_1BYTE_DATA(items[q]), PyUnicode_1BYTE_DATA(t),
                         (size_t)PyUnicode_GET_LENGTH(t)) == 0;
        open_[k] = !dup;
        if (dup || hit >= limit) continue;
        int in = PySet_Contains(words, t); /* first: most terms are words */
        if (in < 0) {
            PyMem_Free(open_);
            goto done;
        }
        if (in) {
            hit++;
            open_[k] = 0;
        }
    }
    for (Py_ssize_t k = 0; k < nterms && hit < limit; k++) {
        if (!open_[k]) continue;
        if (nvocab < 0) {
            /* every word, with its stem; from here on no Python code runs */
            Py_ssize_t size = PySet_GET_SIZE(words);
            vocab = PyMem_Malloc(sizeof(vocab_word) * (size_t)(size ? size : 1));
            PyObject *it = vocab == NULL ? NULL : PyObject_GetIter(words), *w;
            if (it == NULL) {
                if (vocab == NULL) PyErr_NoMemory();
                PyMem_Free(open_);
                goto done;
            }
            nvocab = 0;
            int odd = 0;
            /* the items stay alive in the set: borrowed pointers are kept */
            while ((w = PyIter_Next(it)) != NULL) {
                if (!odd && (!lower_ascii_str(w) || nvocab >= size)) odd = 1;
                if (!odd) {
                    vocab[nvocab].chars = PyUnicode_1BYTE_DATA(w);
                    vocab[nvocab].len = PyUnicode_GET_LENGTH(w);
                    vocab[nvocab].stem = stem_length(vocab[nvocab].chars, vocab[nvocab].len);
                    nvocab++;
                }
                Py_DECREF(w);
            }
            Py_DECREF(it);
            if (PyErr_Occurred()) {
                PyMem_Free(open_);
                goto done;
            }
            if (odd) {
                result = Py_None;
                PyMem_Free(open_);
                goto done;
            }
        }
        /* stem(t) in {stem(w)}, or t[:4] in {w[:4]} */
        PyObject *t = items[k];
        const Py_UCS1 *tc = PyUnicode_1BYTE_DATA(t);
        Py_ssize_t tl = PyUnicode_GET_LENGTH(t), ts = stem_length(tc, tl);
        int in = 0;
        for (Py_ssize_t v = 0; v < nvocab && !in; v++) {
            const vocab_word *w = &vocab[v];
            in = (w->stem == ts && memcmp(w->chars, tc, (size_t)ts) == 0) ||
                 (tl >= 4 && w->len >= 4 && memcmp(w->chars, tc, 4) == 0);
        }
        hit += in;
    }
    PyMem_Free(open_);
    result = PyLong_FromSsize_t(hit);
done:
    if (result == Py_None) Py_INCREF(result);
    PyMem_Free(vocab);
    Py_DECREF(seq);
    return result;
}

/* ------------------------------------------------------------------------ */

static PyMethodDef methods[] = {
    {"split_sentences", (PyCFunction)(void (*)(void))split_sentences, METH_FASTCALL,
     "split_sentences(text, abbrev) -> list of (start, end) sentence spans"},
    {"tokens", tokens, METH_O, "tokens(text) -> set of _WORD tokens"},
    {"words", words, METH_O, "words(text) -> list of lowercase words"},
    {"word_set", word_set, METH_O, "word_set(text) -> set of lowercase words"},
    {"content_terms", (PyCFunction)(void (*)(void))content_terms, METH_FASTCALL,
     "content_terms(text, stopwords) -> list of stemmed content terms, fences skipped"},
    {"word_term_set", (PyCFunction)(void (*)(void))word_term_set, METH_FASTCALL,
     "word_term_set(text, stopwords) -> set of stemmed content terms, fences kept"},
    {"content_term_sets", (PyCFunction)(void (*)(void))content_term_sets, METH_FASTCALL,
     "content_term_sets(texts, stopwords) -> [set(content_terms(t)) for t in texts]"},
    {"long_words", (PyCFunction)(void (*)(void))long_words, METH_FASTCALL,
     "long_words(text, limit) -> [A-Za-z]{4,} matches, counted no further than limit"},
    {"term_chain", (PyCFunction)(void (*)(void))term_chain, METH_FASTCALL,
     "term_chain(units, seed, probe, stopwords) -> (connected, total, found, outside, probed)"},
    {"term_chain_spans", (PyCFunction)(void (*)(void))term_chain_spans, METH_FASTCALL,
     "term_chain_spans(text, spans, seed, probe, stopwords) -> term_chain of the span slices"},
    {"engaged", (PyCFunction)(void (*)(void))engaged, METH_FASTCALL,
     "engaged(terms, words, limit) -> asks.engaged_terms counted to limit, or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_lexkernel",
    "The lexical layer's sentence and token scans (see the C source).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__lexkernel(void) {
    for (Py_ssize_t k = 0; k < N_SUFFIXES; k++) SUFFIX_LEN[k] = (Py_ssize_t)strlen(SUFFIXES[k]);
    for (int c = 0; c < 256; c++)
        char_class[c] = (unsigned char)((IS_LETTER(c) ? CLASS_LETTER : 0) |
                                        (IS_WORD_CHAR(c) ? CLASS_WORD : 0));
    /* Without the token cache every scan still works, only slower; a
     * re-import of the module keeps the one it has. */
    if (cache == NULL) cache = PyMem_RawCalloc(CACHE_SLOTS, sizeof(entry));
    /* without it the chain runs on sets only (idc_run answers 0) */
    if (term_table == NULL) term_table = PyMem_RawCalloc(TERM_SLOTS, sizeof(term_slot));
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
