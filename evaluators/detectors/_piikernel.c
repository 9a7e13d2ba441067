/*
 * evaluators.detectors._piikernel: the candidate scans of the no_pii
 * detector, in C, and two passes the detectors share: the plain-ASCII
 * normalised view (findings.normalized, first used by no_pii) and the
 * blocklist's space-free gate.
 *
 * Why this exists: ``find_pii`` walks a 2-4 KB normalised output a dozen
 * times in Python or in regexes tried at every character (digit runs, the
 * characters around each '@', IPv4 shapes, IBAN starts, literal gates).
 * Almost every one of those walks finds nothing worth validating, yet each
 * costs 5-80 us. Here each walk is one tight loop; what survives (a handful
 * of spans per text) is handed back to Python, which keeps the validation
 * (checksums, reserved domains, number shapes, address ranges) and stays the
 * reference implementation: every function below has a pure-Python twin in
 * personal.py / secrets.py (findings.py, blocklist.py for the shared passes)
 * that returns the same value on every string, and the property tests hold
 * the two to that.
 *
 * Every function reads the text through PyUnicode_READ, so all three
 * PyUnicode kinds (1, 2 and 4 bytes per character) are handled; the per-kind
 * loops are the same inline function specialised by a constant kind. Python
 * regex classes are matched exactly: ``\d`` is Py_UNICODE_ISDECIMAL, ``\s``
 * is Py_UNICODE_ISSPACE, and the detectors' own classes ([a-z0-9] etc.) are
 * ASCII only.
 *
 * emails(t) -> list[tuple[int, int, str, str]]
 *     personal._email_shapes: (start, end, local part, domain) per '@'.
 * numbers(t, min_digits) -> list[tuple[str, list[tuple[int, int, int]]]]
 *     personal._number_clusters: (prefix, [(start, end, sep_start), ...]).
 * ipv4(t) -> list[tuple[int, int]]
 *     personal._ipv4_spans: the spans of personal._IPV4_RE.finditer(t), less
 *     those find_ips certainly rejects before its address checks.
 * ipv6_gates(t) -> list[int]
 *     starts of personal._IPV6_GATE_RE.finditer(t).
 * iban_starts(t) -> list[int]
 *     personal._iban_starts.
 * five_digit_starts(t) -> list[int]
 *     starts of personal._FIVE_DIGITS_RE.finditer(t).
 * scan(t, min_digits) -> tuple of the six lists above
 *     (emails, numbers, iban_starts, ipv4, ipv6_gates, five_digit_starts), in one call.
 * present(t, literals) -> frozenset[str]
 *     the literals that occur in t (``lit in t`` for each).
 * spaceless_present(t, gates) -> list[str]
 *     blocklist._spaceless_present: the gates that occur in t with its spaces
 *     removed, in gates order.
 * near(t, literals, chars, reach) -> list[int]
 *     secrets._near_reference: the sorted, distinct starts of the literals'
 *     occurrences with one of ``chars`` in t[p:p + reach].
 * ascii_fold(raw) -> str | None
 *     findings._ascii_view: the normalised text of a plain-ASCII ``raw`` whose
 *     view is the identity (evaluators.text.normalize's first branch), else None.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define RD(i) PyUnicode_READ(kind, data, (i))
#define KERNEL static inline Py_ALWAYS_INLINE

/* Dispatch a kernel body on the text's kind with the kind as a constant, so
 * the compiler drops the per-character kind switch inside PyUnicode_READ. */
#define BY_KIND(call_1, call_2, call_4)                                                            \
    switch (kind) {                                                                                \
    case PyUnicode_1BYTE_KIND:                                                                     \
        rc = call_1;                                                                               \
        break;                                                                                     \
    case PyUnicode_2BYTE_KIND:                                                                     \
        rc = call_2;                                                                               \
        break;                                                                                     \
    default:                                                                                       \
        rc = call_4;                                                                               \
        break;                                                                                     \
    }

/* --- character classes --------------------------------------------------------------------- */

static inline int is_lower(Py_UCS4 c) { return c >= 'a' && c <= 'z'; }
static inline int is_adigit(Py_UCS4 c) { return c >= '0' && c <= '9'; }
/* scan.ALNUM */
static inline int is_alnum(Py_UCS4 c) { return is_lower(c) || is_adigit(c); }
/* personal._LOCAL: abcdefghijklmnopqrstuvwxyz0123456789._%+-' */
static inline int is_local(Py_UCS4 c) {
    return is_alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-' || c == '\'';
}
/* personal._DOMAIN: abcdefghijklmnopqrstuvwxyz0123456789.- */
static inline int is_domain(Py_UCS4 c) { return is_alnum(c) || c == '.' || c == '-'; }
/* regex \d on str patterns */
static inline int is_dec(Py_UCS4 c) { return c < 128 ? is_adigit(c) : Py_UNICODE_ISDECIMAL(c); }
/* regex \s on str patterns */
static inline int is_space(Py_UCS4 c) { return Py_UNICODE_ISSPACE(c); }
/* personal._SEP_CHARS: " -.()" */
static inline int is_sep(Py_UCS4 c) {
    return c == ' ' || c == '-' || c == '.' || c == '(' || c == ')';
}

/* \d for a text of kind ``kind``: Latin-1 holds no decimal digit but 0-9. */
#define KDEC(c) (kind == PyUnicode_1BYTE_KIND ? is_adigit(c) : is_dec(c))

/* The first \d at or after ``i`` (``n`` if none). Digits are rare in prose, so
 * this loop's branch is predictable; the scans below start from digits. */
#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

/* Whether one of the eight bytes of ``x`` is an ASCII digit: per byte b < 128,
 * (127 + ':' - b) has its high bit set exactly when b < ':' and (b + 127 - '/')
 * exactly when b > '/', neither carrying into the next byte; ~x drops the
 * bytes >= 128. */
static inline int has_digit8(uint64_t x) {
    uint64_t low = x & (ONES * 127);
    return ((ONES * (127 + ':') - low) & ~x & (low + ONES * (127 - '/')) & HIGHS) != 0;
}

KERNEL Py_ssize_t next_digit(const void *data, int kind, Py_ssize_t i, Py_ssize_t n) {
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *d = (const Py_UCS1 *)data;
        /* eight bytes at a time while none is a digit */
        while (i + 8 <= n) {
            uint64_t x;
            memcpy(&x, d + i, 8);
            if (has_digit8(x))
                break;
            i += 8;
        }
        while (i < n && (Py_UCS1)(d[i] - '0') > 9)
            i++;
        return i;
    }
    while (i < n && !is_dec(RD(i)))
        i++;
    return i;
}

/* The first ``ch`` (ASCII) at or after ``i`` (``n`` if none). */
KERNEL Py_ssize_t next_char(const void *data, int kind, Py_ssize_t i, Py_ssize_t n, char ch) {
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *d = (const Py_UCS1 *)data;
        const void *hit = i < n ? memchr(d + i, ch, (size_t)(n - i)) : NULL;
        return hit == NULL ? n : (const Py_UCS1 *)hit - d;
    }
    while (i < n && RD(i) != (Py_UCS4)ch)
        i++;
    return i;
}

/* Append a new reference to ``list`` and drop it; -1 (exception set) on failure. */
static int append_new(PyObject *list, PyObject *item) {
    if (item == NULL)
        return -1;
    int rc = PyList_Append(list, item);
    Py_DECREF(item);
    return rc;
}

/* --- emails -------------------------------------------------------------------------------- */

#define LOCAL_MAX 64
#define DOMAIN_MAX 253
/* A local part holds at most two LOCAL_MAX runs and one space; a domain at most
 * DOMAIN_MAX characters plus the joined part (also bounded by DOMAIN_MAX). */
#define LOCAL_BUF (2 * LOCAL_MAX + 8)
#define DOMAIN_BUF (2 * DOMAIN_MAX + 8)

/* personal._domain_valid on an ASCII buffer of [a-z0-9.-] characters. */
static int domain_valid(const char *d, Py_ssize_t len) {
    Py_ssize_t labels = 1, label_len = 0, last_alpha = 1;
    for (Py_ssize_t i = 0; i < len; i++) {
        if (d[i] == '.') {
            if (label_len == 0)
                return 0;
            labels++;
            label_len = 0;
            last_alpha = 1;
        } else {
            label_len++;
            if (!is_lower((Py_UCS4)(unsigned char)d[i]))
                last_alpha = 0;
        }
    }
    return labels >= 2 && label_len >= 2 && last_alpha;
}

/* scan.scan_left over personal._LOCAL. */
KERNEL Py_ssize_t scan_left_local(const void *data, int kind, Py_ssize_t i, Py_ssize_t max_len) {
    Py_ssize_t j = i, stop = i - max_len > 0 ? i - max_len : 0;
    while (j > stop && is_local(RD(j - 1)))
        j--;
    return j;
}

static int overflow(void) {
    PyErr_SetString(PyExc_RuntimeError, "_piikernel: buffer bound exceeded");
    return -1;
}

KERNEL int emails_impl(const void *data, int kind, Py_ssize_t n, PyObject *out) {
    char lbuf[LOCAL_BUF], dbuf[DOMAIN_BUF];
    for (Py_ssize_t at = next_char(data, kind, 0, n, '@'); at < n;
         at = next_char(data, kind, at + 1, n, '@')) {
        Py_ssize_t left_end = at;
        if (at >= 2 && RD(at - 1) == ' ' && is_local(RD(at - 2)))
            left_end = at - 1;
        Py_ssize_t ls = scan_left_local(data, kind, left_end, LOCAL_MAX);
        if (ls == left_end)
            continue;
        if (left_end - ls <= 2 && ls >= 2 && RD(ls - 1) == ' ' && is_local(RD(ls - 2)))
            ls = scan_left_local(data, kind, ls - 1, LOCAL_MAX);
        /* local = t[ls:left_end].replace(" ", "").strip(".'") */
        Py_ssize_t llen = 0;
        for (Py_ssize_t i = ls; i < left_end; i++) {
            Py_UCS4 c = RD(i);
            if (c == ' ')
                continue;
            if (llen >= LOCAL_BUF || c > 127)
                return overflow();
            lbuf[llen++] = (char)c;
        }
        Py_ssize_t lo = 0, hi = llen;
        while (lo < hi && (lbuf[lo] == '.' || lbuf[lo] == '\''))
            lo++;
        while (hi > lo && (lbuf[hi - 1] == '.' || lbuf[hi - 1] == '\''))
            hi--;
        /* the domain run after '@', one leading space bridged */
        Py_ssize_t ds = at + 1;
        if (ds + 1 < n && RD(ds) == ' ' && is_domain(RD(ds + 1)))
            ds++;
        Py_ssize_t de = ds;
        while (de < n && de - ds < DOMAIN_MAX && is_domain(RD(de)))
            de++;
        Py_ssize_t dlen = 0;
        for (Py_ssize_t i = ds; i < de; i++) {
            if (dlen >= DOMAIN_BUF)
                return overflow();
            dbuf[dlen++] = (char)RD(i); /* is_domain: ASCII */
        }
        while (dlen > 0 && (dbuf[dlen - 1] == '.' || dbuf[dlen - 1] == '-'))
            dlen--;
        de = ds + dlen;
        if (!domain_valid(dbuf, dlen) && de + 1 < n && RD(de) == ' ' && is_domain(RD(de + 1))) {
            Py_ssize_t k = de + 1;
            while (k < n && k - ds < DOMAIN_MAX && is_domain(RD(k)))
                k++;
            Py_ssize_t jlen = dlen;
            for (Py_ssize_t i = de + 1; i < k; i++) {
                if (jlen >= DOMAIN_BUF)
                    return overflow();
                dbuf[jlen++] = (char)RD(i);
            }
            while (jlen > 0 && (dbuf[jlen - 1] == '.' || dbuf[jlen - 1] == '-'))
                jlen--;
            if (domain_valid(dbuf, jlen)) {
                de = de + 1 + jlen - dlen;
                dlen = jlen;
            }
        }
        if (hi == lo || !domain_valid(dbuf, dlen))
            continue;
        while (ls < at && (RD(ls) == '.' || RD(ls) == '\''))
            ls++;
        if (append_new(out, Py_BuildValue("(nns#s#)", ls, de, lbuf + lo, hi - lo, dbuf, dlen)) < 0)
            return -1;
    }
    return 0;
}

static PyObject *emails(PyObject *self, PyObject *arg) {
    (void)self;
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "emails() takes a str");
        return NULL;
    }
    if (PyUnicode_READY(arg) < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    int kind = PyUnicode_KIND(arg), rc;
    const void *data = PyUnicode_DATA(arg);
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg);
    BY_KIND(emails_impl(data, PyUnicode_1BYTE_KIND, n, out),
            emails_impl(data, PyUnicode_2BYTE_KIND, n, out),
            emails_impl(data, PyUnicode_4BYTE_KIND, n, out));
    if (rc < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

/* --- digit clusters ------------------------------------------------------------------------ */

typedef struct {
    Py_ssize_t start, end, sep_start;
} group;

typedef struct {
    group *items;
    Py_ssize_t len, cap;
} groups;

static int groups_push(groups *g, Py_ssize_t start, Py_ssize_t end, Py_ssize_t sep_start) {
    if (g->len == g->cap) {
        Py_ssize_t cap = g->cap ? 2 * g->cap : 16;
        if (cap > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(group)) {
            PyErr_NoMemory();
            return -1;
        }
        group *items = PyMem_Realloc(g->items, (size_t)cap * sizeof(group));
        if (items == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        g->items = items;
        g->cap = cap;
    }
    g->items[g->len].start = start;
    g->items[g->len].end = end;
    g->items[g->len].sep_start = sep_start;
    g->len++;
    return 0;
}

enum { PFX_NONE = 0, PFX_PLUS = 1, PFX_GLUED = 2 };

/* The end of _classify_run's preamble: drop a glued first group and a glued
 * last group, skip clusters with fewer than ``min_digits`` digits, and append
 * (prefix, [(start, end, sep_start), ...]) for the rest. */
KERNEL int flush_cluster(const void *data, int kind, Py_ssize_t n, const groups *g, int prefix,
                         Py_ssize_t min_digits, PyObject *out) {
    Py_ssize_t first = 0, last = g->len - 1;
    if (prefix == PFX_GLUED) {
        first = 1;
        prefix = PFX_NONE;
    }
    if (first > last)
        return 0;
    Py_ssize_t le = g->items[last].end;
    if (le < n) {
        Py_UCS4 c = RD(le);
        if (is_alnum(c) || ((c == '-' || c == '.') && le + 1 < n && is_alnum(RD(le + 1))))
            last--;
    }
    Py_ssize_t digits = 0;
    for (Py_ssize_t i = first; i <= last; i++)
        digits += g->items[i].end - g->items[i].start;
    if (digits < min_digits)
        return 0;
    PyObject *spans = PyList_New(0);
    if (spans == NULL)
        return -1;
    for (Py_ssize_t i = first; i <= last; i++) {
        const group *it = &g->items[i];
        if (append_new(spans, Py_BuildValue("(nnn)", it->start, it->end, it->sep_start)) < 0) {
            Py_DECREF(spans);
            return -1;
        }
    }
    int rc = append_new(out, Py_BuildValue("(sO)", prefix == PFX_PLUS ? "+" : "", spans));
    Py_DECREF(spans);
    return rc;
}

/* personal._clusters(t, lo, hi), each cluster handed to flush_cluster. */
KERNEL int run_clusters(const void *data, int kind, Py_ssize_t n, Py_ssize_t lo, Py_ssize_t hi,
                        Py_ssize_t min_digits, groups *g, PyObject *out) {
    int prefix = PFX_NONE;
    Py_ssize_t prev_end = -10;
    g->len = 0;
    Py_ssize_t s = lo;
    while (s < hi) {
        if (!KDEC(RD(s))) {
            s++;
            continue;
        }
        Py_ssize_t e = s;
        while (e < hi && KDEC(RD(e)))
            e++;
        int joins = 0;
        if (g->len > 0 && s - prev_end <= 3) {
            int spaces = 0;
            joins = 1;
            for (Py_ssize_t i = prev_end; i < s; i++) {
                Py_UCS4 c = RD(i);
                if (!is_sep(c))
                    joins = 0;
                spaces += c == ' ';
            }
            if (spaces > 2)
                joins = 0;
        }
        if (joins) {
            if (groups_push(g, s, e, prev_end) < 0)
                return -1;
        } else {
            if (g->len > 0 && flush_cluster(data, kind, n, g, prefix, min_digits, out) < 0)
                return -1;
            g->len = 0;
            if (groups_push(g, s, e, s) < 0)
                return -1;
            Py_ssize_t j = s;
            while (j > 0 && RD(j - 1) == '(')
                j--;
            prefix = (j > 0 && RD(j - 1) == '+') ? PFX_PLUS : PFX_NONE;
            if (s > 0) {
                Py_UCS4 c = RD(s - 1);
                if (is_alnum(c) || c == '_' || c == '/' || c == ':' || c == '$' || c == '#' ||
                    ((c == '-' || c == '.') && s > 1 && is_alnum(RD(s - 2))))
                    prefix = PFX_GLUED;
            }
        }
        prev_end = e;
        s = e;
    }
    if (g->len > 0 && flush_cluster(data, kind, n, g, prefix, min_digits, out) < 0)
        return -1;
    return 0;
}

/* Runs of personal._NUMBER_RUN_RE (\d[\d .()\-]{7,}), each split into clusters. */
KERNEL int numbers_impl(const void *data, int kind, Py_ssize_t n, Py_ssize_t min_digits,
                        PyObject *out) {
    groups g = {NULL, 0, 0};
    int rc = 0;
    /* A match runs from the first digit of a maximal [\d .()-] run to the run's
     * end. Searching on from the end of the last run, the next digit is the
     * first of its run (the characters between are not in the class). */
    Py_ssize_t i = 0;
    while ((i = next_digit(data, kind, i, n)) < n) {
        Py_ssize_t p = i;
        while (i < n && (KDEC(RD(i)) || is_sep(RD(i))))
            i++;
        if (i - p >= 8 && run_clusters(data, kind, n, p, i, min_digits, &g, out) < 0) {
            rc = -1;
            break;
        }
    }
    PyMem_Free(g.items);
    return rc;
}

static PyObject *numbers(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *t;
    Py_ssize_t min_digits;
    if (!PyArg_ParseTuple(args, "Un:numbers", &t, &min_digits))
        return NULL;
    if (PyUnicode_READY(t) < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    int kind = PyUnicode_KIND(t), rc;
    const void *data = PyUnicode_DATA(t);
    Py_ssize_t n = PyUnicode_GET_LENGTH(t);
    BY_KIND(numbers_impl(data, PyUnicode_1BYTE_KIND, n, min_digits, out),
            numbers_impl(data, PyUnicode_2BYTE_KIND, n, min_digits, out),
            numbers_impl(data, PyUnicode_4BYTE_KIND, n, min_digits, out));
    if (rc < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

/* --- IPv4 ---------------------------------------------------------------------------------- */

/* How many \d characters (at most ``most``) start at ``i``. */
KERNEL Py_ssize_t digits_at(const void *data, int kind, Py_ssize_t n, Py_ssize_t i,
                            Py_ssize_t most) {
    Py_ssize_t k = 0;
    while (k < most && i + k < n && KDEC(RD(i + k)))
        k++;
    return k;
}

/* The end of a match of
 *     \d{1,3}\.\d{1,3}\.?\s?\d{0,3}\.\s?\d{1,3}(?:\.\d{1,3})?
 * at ``p`` (the lookbehind is the caller's), or -1. The loops try the
 * alternatives in the order the regex engine backtracks through them
 * (greedy: most repetitions first, an optional item present before absent),
 * so the first success is the regex's match. */
KERNEL Py_ssize_t ipv4_at(const void *data, int kind, Py_ssize_t n, Py_ssize_t p) {
    for (Py_ssize_t a = digits_at(data, kind, n, p, 3); a >= 1; a--) {
        Py_ssize_t q = p + a;
        if (q >= n || RD(q) != '.')
            continue;
        q++;
        for (Py_ssize_t b = digits_at(data, kind, n, q, 3); b >= 1; b--) {
            Py_ssize_t q2 = q + b;
            int dot = q2 < n && RD(q2) == '.';
            for (int od = dot; od >= 0; od--) {
                Py_ssize_t q3 = q2 + od;
                int sp = q3 < n && is_space(RD(q3));
                for (int os = sp; os >= 0; os--) {
                    Py_ssize_t q4 = q3 + os;
                    for (Py_ssize_t c = digits_at(data, kind, n, q4, 3); c >= 0; c--) {
                        Py_ssize_t q5 = q4 + c;
                        if (q5 >= n || RD(q5) != '.')
                            continue;
                        Py_ssize_t q6 = q5 + 1;
                        int sp2 = q6 < n && is_space(RD(q6));
                        for (int os2 = sp2; os2 >= 0; os2--) {
                            Py_ssize_t q7 = q6 + os2;
                            Py_ssize_t d = digits_at(data, kind, n, q7, 3);
                            if (d == 0)
                                continue;
                            Py_ssize_t q8 = q7 + d;
                            if (q8 < n && RD(q8) == '.') {
                                Py_ssize_t e = digits_at(data, kind, n, q8 + 1, 3);
                                if (e > 0)
                                    return q8 + 1 + e;
                            }
                            return q8;
                        }
                    }
                }
            }
        }
    }
    return -1;
}

/* Whether find_ips certainly rejects the match ``t[s:e]`` before it reaches
 * ipaddress: only decided for a match of ASCII digits, dots and spaces (where
 * none of find_ips's checks can raise, so their order does not matter); any
 * other match is kept for Python to judge. The checks, as in find_ips: four
 * non-empty dot-separated parts once spaces are dropped, at most one space,
 * not glued to a following word or number, every part <= 255, no "version"
 * or "v" just before, and not in 10/8 or 127/8. */
KERNEL int ipv4_rejected(const void *data, int kind, Py_ssize_t n, Py_ssize_t s, Py_ssize_t e) {
    long part[4] = {0, 0, 0, 0};
    int parts = 1, spaces = 0, empty = 0, digits_in_part = 0;
    for (Py_ssize_t i = s; i < e; i++) {
        Py_UCS4 c = RD(i);
        if (c == ' ') {
            spaces++;
        } else if (c == '.') {
            if (digits_in_part == 0)
                empty = 1;
            digits_in_part = 0;
            parts++;
        } else if (is_adigit(c)) {
            if (parts <= 4 && part[parts - 1] < 100000)
                part[parts - 1] = part[parts - 1] * 10 + (long)(c - '0');
            digits_in_part++;
        } else {
            return 0; /* another digit or space character: Python decides */
        }
    }
    if (digits_in_part == 0)
        empty = 1;
    if (parts != 4 || empty || spaces > 1)
        return 1;
    if (e < n) {
        Py_UCS4 c = RD(e);
        if (is_alnum(c) || (c == '.' && e + 1 < n && Py_UNICODE_ISDIGIT(RD(e + 1))))
            return 1;
    }
    for (int k = 0; k < 4; k++)
        if (part[k] > 255)
            return 1;
    /* before = t[max(0, s - 12):s]: "version" in it, or it ends with "v" / "v " */
    Py_ssize_t b = s - 12 > 0 ? s - 12 : 0;
    static const char version[] = "version";
    for (Py_ssize_t i = b; i + 7 <= s; i++) {
        Py_ssize_t k = 0;
        while (k < 7 && RD(i + k) == (Py_UCS4)version[k])
            k++;
        if (k == 7)
            return 1;
    }
    if (s - b >= 1 && RD(s - 1) == 'v')
        return 1;
    if (s - b >= 2 && RD(s - 2) == 'v' && RD(s - 1) == ' ')
        return 1;
    return part[0] == 10 || part[0] == 127;
}

KERNEL int ipv4_impl(const void *data, int kind, Py_ssize_t n, PyObject *out) {
    Py_ssize_t p = 0;
    while ((p = next_digit(data, kind, p, n)) < n) {
        /* (?<![0-9a-z.]) */
        int lone = p == 0 || !(is_alnum(RD(p - 1)) || RD(p - 1) == '.');
        Py_ssize_t e = lone ? ipv4_at(data, kind, n, p) : -1;
        if (e > p) {
            if (!ipv4_rejected(data, kind, n, p, e) &&
                append_new(out, Py_BuildValue("(nn)", p, e)) < 0)
                return -1;
            p = e;
        } else {
            p++;
        }
    }
    return 0;
}

static PyObject *ipv4(PyObject *self, PyObject *arg) {
    (void)self;
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "ipv4() takes a str");
        return NULL;
    }
    if (PyUnicode_READY(arg) < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    int kind = PyUnicode_KIND(arg), rc;
    const void *data = PyUnicode_DATA(arg);
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg);
    BY_KIND(ipv4_impl(data, PyUnicode_1BYTE_KIND, n, out),
            ipv4_impl(data, PyUnicode_2BYTE_KIND, n, out),
            ipv4_impl(data, PyUnicode_4BYTE_KIND, n, out));
    if (rc < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

/* --- IPv6 gates ----------------------------------------------------------------------------- */

static inline int is_hex(Py_UCS4 c) { return is_adigit(c) || (c >= 'a' && c <= 'f'); }

/* Starts of personal._IPV6_GATE_RE (:[0-9a-f]{0,4}:) matches, left to right
 * without overlap: a colon, at most four hex digits (a fifth one would leave
 * no colon after any shorter count), then a colon, which the match consumes. */
KERNEL int gates6_impl(const void *data, int kind, Py_ssize_t n, PyObject *out) {
    Py_ssize_t i = next_char(data, kind, 0, n, ':');
    while (i < n) {
        Py_ssize_t k = 0;
        while (k < 5 && i + 1 + k < n && is_hex(RD(i + 1 + k)))
            k++;
        Py_ssize_t close = i + 1 + k;
        if (k <= 4 && close < n && RD(close) == ':') {
            if (append_new(out, PyLong_FromSsize_t(i)) < 0)
                return -1;
            i = next_char(data, kind, close + 1, n, ':');
        } else {
            i = next_char(data, kind, i + 1, n, ':');
        }
    }
    return 0;
}

static PyObject *ipv6_gates(PyObject *self, PyObject *arg) {
    (void)self;
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "ipv6_gates() takes a str");
        return NULL;
    }
    if (PyUnicode_READY(arg) < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    int kind = PyUnicode_KIND(arg), rc;
    const void *data = PyUnicode_DATA(arg);
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg);
    BY_KIND(gates6_impl(data, PyUnicode_1BYTE_KIND, n, out),
            gates6_impl(data, PyUnicode_2BYTE_KIND, n, out),
            gates6_impl(data, PyUnicode_4BYTE_KIND, n, out));
    if (rc < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

/* --- IBAN starts and five-digit starts ----------------------------------------------------- */

/* (?<![a-z0-9])[a-z]{2}\d\d(?=[a-z0-9 ]{11}) */
KERNEL int iban_impl(const void *data, int kind, Py_ssize_t n, PyObject *out) {
    /* led by the digits, which are rare: c + 2 is a digit */
    for (Py_ssize_t i = next_digit(data, kind, 2, n); i < n; i = next_digit(data, kind, i + 1, n)) {
        Py_ssize_t c = i - 2;
        if (c + 15 > n)
            break;
        if (!KDEC(RD(c + 3)) || !is_lower(RD(c + 1)) || !is_lower(RD(c)))
            continue;
        if (c > 0 && is_alnum(RD(c - 1)))
            continue;
        int ok = 1;
        for (Py_ssize_t k = c + 4; k < c + 15; k++) {
            Py_UCS4 ch = RD(k);
            if (!(is_alnum(ch) || ch == ' ')) {
                ok = 0;
                break;
            }
        }
        if (ok && append_new(out, PyLong_FromSsize_t(c)) < 0)
            return -1;
    }
    return 0;
}

/* Starts of \d{5} matches, left to right without overlap. */
KERNEL int fives_impl(const void *data, int kind, Py_ssize_t n, PyObject *out) {
    Py_ssize_t i = 0;
    while ((i = next_digit(data, kind, i, n)) < n) {
        Py_ssize_t e = i;
        while (e < n && KDEC(RD(e)))
            e++;
        for (; e - i >= 5; i += 5)
            if (append_new(out, PyLong_FromSsize_t(i)) < 0)
                return -1;
        i = e;
    }
    return 0;
}

static PyObject *iban_starts(PyObject *self, PyObject *arg) {
    (void)self;
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "iban_starts() takes a str");
        return NULL;
    }
    if (PyUnicode_READY(arg) < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    int kind = PyUnicode_KIND(arg), rc;
    const void *data = PyUnicode_DATA(arg);
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg);
    BY_KIND(iban_impl(data, PyUnicode_1BYTE_KIND, n, out),
            iban_impl(data, PyUnicode_2BYTE_KIND, n, out),
            iban_impl(data, PyUnicode_4BYTE_KIND, n, out));
    if (rc < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

static PyObject *five_digit_starts(PyObject *self, PyObject *arg) {
    (void)self;
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "five_digit_starts() takes a str");
        return NULL;
    }
    if (PyUnicode_READY(arg) < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    if (out == NULL)
        return NULL;
    int kind = PyUnicode_KIND(arg), rc;
    const void *data = PyUnicode_DATA(arg);
    Py_ssize_t n = PyUnicode_GET_LENGTH(arg);
    BY_KIND(fives_impl(data, PyUnicode_1BYTE_KIND, n, out),
            fives_impl(data, PyUnicode_2BYTE_KIND, n, out),
            fives_impl(data, PyUnicode_4BYTE_KIND, n, out));
    if (rc < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

/* --- all scans at once ------------------------------------------------------------------- */

KERNEL int scan_impl(const void *data, int kind, Py_ssize_t n, Py_ssize_t min_digits,
                     PyObject **lists) {
    if (emails_impl(data, kind, n, lists[0]) < 0 ||
        numbers_impl(data, kind, n, min_digits, lists[1]) < 0 ||
        iban_impl(data, kind, n, lists[2]) < 0 || ipv4_impl(data, kind, n, lists[3]) < 0 ||
        gates6_impl(data, kind, n, lists[4]) < 0 || fives_impl(data, kind, n, lists[5]) < 0)
        return -1;
    return 0;
}

#define SCAN_LISTS 6

static PyObject *scan(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *t;
    Py_ssize_t min_digits;
    if (!PyArg_ParseTuple(args, "Un:scan", &t, &min_digits))
        return NULL;
    if (PyUnicode_READY(t) < 0)
        return NULL;
    PyObject *out = PyTuple_New(SCAN_LISTS);
    if (out == NULL)
        return NULL;
    PyObject *lists[SCAN_LISTS];
    for (int k = 0; k < SCAN_LISTS; k++) {
        lists[k] = PyList_New(0);
        if (lists[k] == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, k, lists[k]); /* the tuple owns it; lists[k] is borrowed */
    }
    int kind = PyUnicode_KIND(t), rc;
    const void *data = PyUnicode_DATA(t);
    Py_ssize_t n = PyUnicode_GET_LENGTH(t);
    BY_KIND(scan_impl(data, PyUnicode_1BYTE_KIND, n, min_digits, lists),
            scan_impl(data, PyUnicode_2BYTE_KIND, n, min_digits, lists),
            scan_impl(data, PyUnicode_4BYTE_KIND, n, min_digits, lists));
    if (rc < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

/* --- literal presence ---------------------------------------------------------------------- */

#define MAX_LITERALS 256
/* The trigram filter: one bit per hash of the first three characters of a
 * literal. The hash is rolled along the text (each step shifts the previous
 * characters out by five bits, so after three steps a character has left the
 * mask), and a position is compared with the literals only where its bit is
 * set: for a few dozen literals a small share of positions, so the scan is a
 * few instructions a character with a predictable branch. Literals shorter
 * than three characters are tested with ``in`` (PySequence_Contains). */
#define TRI_MASK 0x7FFFu

typedef struct {
    const Py_UCS1 *chars; /* ASCII */
    Py_ssize_t len;
    int next; /* next literal with the same first character, or -1 */
} literal;

static inline unsigned tri_step(unsigned h, Py_UCS4 c) { return ((h << 5) ^ (unsigned)c) & TRI_MASK; }

/* Whether ``lit`` occurs at ``i``. */
KERNEL int literal_at(const void *data, int kind, Py_ssize_t n, const literal *lit,
                      Py_ssize_t i) {
    if (lit->len > n - i)
        return 0;
    Py_ssize_t j = 0;
    while (j < lit->len && RD(i + j) == lit->chars[j])
        j++;
    return j == lit->len;
}

/* Marks ``found[k]`` for each literal of three or more characters that occurs
 * in the text; ``head[c]`` is the first such literal starting with ASCII
 * character ``c`` (-1 for none); ``left`` is how many are still unfound. */
KERNEL void present_impl(const void *data, int kind, Py_ssize_t n, const literal *lits,
                         const int *head, const unsigned char *tri, char *found, int left) {
    unsigned h = 0;
    for (Py_ssize_t i = 0; i < n && left > 0; i++) {
        h = tri_step(h, RD(i));
        if (!(tri[h >> 3] & (1u << (h & 7))) || i < 2)
            continue;
        Py_UCS4 a = RD(i - 2);
        if (a >= 128)
            continue;
        for (int k = head[a]; k >= 0; k = lits[k].next)
            if (!found[k] && literal_at(data, kind, n, &lits[k], i - 2)) {
                found[k] = 1;
                left--;
            }
    }
}

static PyObject *present(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *t, *literals;
    if (!PyArg_ParseTuple(args, "UO!:present", &t, &PyTuple_Type, &literals))
        return NULL;
    if (PyUnicode_READY(t) < 0)
        return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(literals);
    if (count > MAX_LITERALS) {
        PyErr_SetString(PyExc_ValueError, "present(): too many literals");
        return NULL;
    }
    literal lits[MAX_LITERALS];
    char found[MAX_LITERALS];
    int head[128], left = 0;
    unsigned char tri[(TRI_MASK + 1) / 8];
    memset(tri, 0, sizeof tri);
    for (int c = 0; c < 128; c++)
        head[c] = -1;
    /* chain in reverse so each bucket lists literals in tuple order */
    for (Py_ssize_t k = count - 1; k >= 0; k--) {
        PyObject *lit = PyTuple_GET_ITEM(literals, k);
        if (!PyUnicode_Check(lit) || PyUnicode_READY(lit) < 0 || !PyUnicode_IS_ASCII(lit) ||
            PyUnicode_GET_LENGTH(lit) == 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "present(): literals are non-empty ASCII str");
            return NULL;
        }
        const Py_UCS1 *chars = PyUnicode_1BYTE_DATA(lit);
        Py_ssize_t len = PyUnicode_GET_LENGTH(lit);
        lits[k].chars = chars;
        lits[k].len = len;
        lits[k].next = -1;
        found[k] = 0;
        if (len < 3) {
            int has = PySequence_Contains(t, lit);
            if (has < 0)
                return NULL;
            found[k] = (char)has;
            continue;
        }
        lits[k].next = head[chars[0]];
        head[chars[0]] = (int)k;
        left++;
        unsigned h = tri_step(tri_step(tri_step(0, chars[0]), chars[1]), chars[2]);
        tri[h >> 3] |= (unsigned char)(1u << (h & 7));
    }
    int kind = PyUnicode_KIND(t);
    const void *data = PyUnicode_DATA(t);
    Py_ssize_t n = PyUnicode_GET_LENGTH(t);
    switch (kind) {
    case PyUnicode_1BYTE_KIND:
        present_impl(data, PyUnicode_1BYTE_KIND, n, lits, head, tri, found, left);
        break;
    case PyUnicode_2BYTE_KIND:
        present_impl(data, PyUnicode_2BYTE_KIND, n, lits, head, tri, found, left);
        break;
    default:
        present_impl(data, PyUnicode_4BYTE_KIND, n, lits, head, tri, found, left);
        break;
    }
    PyObject *hits = PyList_New(0);
    if (hits == NULL)
        return NULL;
    for (Py_ssize_t k = 0; k < count; k++) {
        if (found[k] && PyList_Append(hits, PyTuple_GET_ITEM(literals, k)) < 0) {
            Py_DECREF(hits);
            return NULL;
        }
    }
    PyObject *set = PyFrozenSet_New(hits);
    Py_DECREF(hits);
    return set;
}

/* --- literal places with a character close after them -------------------------------------- */

/* The first index >= i (and < n) holding a character c < 128 with want[c]
 * set, or n. On 1-byte text each wanted character is found with memchr (at
 * most ``n_chars`` of them, ``chars`` listing them), as str.find would. */
KERNEL Py_ssize_t next_wanted(const void *data, int kind, Py_ssize_t i, Py_ssize_t n,
                              const unsigned char *want, const Py_UCS1 *chars,
                              Py_ssize_t n_chars) {
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *b = (const Py_UCS1 *)data;
        Py_ssize_t best = n;
        for (Py_ssize_t k = 0; k < n_chars && i < best; k++) {
            const void *hit = memchr(b + i, chars[k], (size_t)(best - i));
            if (hit != NULL)
                best = (const Py_UCS1 *)hit - b;
        }
        return best;
    }
    while (i < n) {
        Py_UCS4 c = RD(i);
        if (c < 128 && want[c])
            return i;
        i++;
    }
    return n;
}

/* Mirrors secrets._near_reference: appends to ``out`` each start p (in order,
 * once) of an occurrence of a literal (lits[k], lens[k]) such that
 * t[p:p + reach] holds a wanted character. Such a p lies within reach - 1
 * before a wanted character w (p <= w < p + reach), so only those stretches
 * are read: linear in the text, and most text is never compared at all. */
KERNEL int near_impl(const void *data, int kind, Py_ssize_t n, const Py_UCS1 *const *lits,
                     const Py_ssize_t *lens, Py_ssize_t count, const unsigned char *want,
                     const Py_UCS1 *chars, Py_ssize_t n_chars, Py_ssize_t reach, PyObject *out) {
    unsigned char first[128] = {0}; /* first[c]: some literal starts with c */
    for (Py_ssize_t k = 0; k < count; k++)
        first[lits[k][0]] = 1;
    Py_ssize_t done = 0; /* every p < done has been decided */
    for (Py_ssize_t w = next_wanted(data, kind, 0, n, want, chars, n_chars); w < n;
         w = next_wanted(data, kind, w + 1, n, want, chars, n_chars)) {
        Py_ssize_t p = w - reach + 1;
        if (p < done)
            p = done;
        for (; p <= w; p++) {
            Py_UCS4 c = RD(p);
            if (c >= 128 || !first[c])
                continue; /* the usual case: no literal starts with c */
            int hit = 0;
            for (Py_ssize_t k = 0; k < count && !hit; k++) {
                const Py_UCS1 *lit = lits[k];
                Py_ssize_t len = lens[k];
                if (c != lit[0] || p + len > n)
                    continue;
                Py_ssize_t j = 1;
                while (j < len && RD(p + j) == lit[j])
                    j++;
                hit = j == len;
            }
            if (hit) {
                PyObject *pos = PyLong_FromSsize_t(p);
                if (pos == NULL)
                    return -1;
                int rc = PyList_Append(out, pos);
                Py_DECREF(pos);
                if (rc < 0)
                    return -1;
            }
        }
        done = w + 1;
    }
    return 0;
}

#define MAX_NEAR_LITERALS 64
#define MAX_NEAR_CHARS 16

/* near(t, literals, chars, reach) -> list[int]: secrets._near_reference. */
static PyObject *near(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *t, *literals, *chars;
    Py_ssize_t reach;
    if (!PyArg_ParseTuple(args, "UO!Un:near", &t, &PyTuple_Type, &literals, &chars, &reach))
        return NULL;
    if (PyUnicode_READY(t) < 0 || PyUnicode_READY(chars) < 0)
        return NULL;
    if (reach < 0) {
        PyErr_SetString(PyExc_ValueError, "near(): reach must not be negative");
        return NULL;
    }
    Py_ssize_t n_chars = PyUnicode_GET_LENGTH(chars);
    if (!PyUnicode_IS_ASCII(chars) || n_chars > MAX_NEAR_CHARS) {
        PyErr_SetString(PyExc_ValueError, "near(): chars must be at most 16 ASCII characters");
        return NULL;
    }
    unsigned char want[128] = {0};
    const Py_UCS1 *cs = PyUnicode_1BYTE_DATA(chars);
    for (Py_ssize_t i = 0; i < n_chars; i++)
        want[cs[i]] = 1;
    Py_ssize_t count = PyTuple_GET_SIZE(literals);
    if (count > MAX_NEAR_LITERALS) {
        PyErr_SetString(PyExc_ValueError, "near(): too many literals");
        return NULL;
    }
    const Py_UCS1 *lits[MAX_NEAR_LITERALS];
    Py_ssize_t lens[MAX_NEAR_LITERALS];
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *lit = PyTuple_GET_ITEM(literals, k);
        if (!PyUnicode_Check(lit) || PyUnicode_READY(lit) < 0 || !PyUnicode_IS_ASCII(lit) ||
            PyUnicode_GET_LENGTH(lit) == 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "near(): literals are non-empty ASCII str");
            return NULL;
        }
        lits[k] = PyUnicode_1BYTE_DATA(lit);
        lens[k] = PyUnicode_GET_LENGTH(lit);
    }
    PyObject *out = PyList_New(0);
    if (out == NULL || reach <= 0 || count == 0 || n_chars == 0)
        return out;
    int kind = PyUnicode_KIND(t);
    const void *data = PyUnicode_DATA(t);
    Py_ssize_t n = PyUnicode_GET_LENGTH(t);
    int rc;
    BY_KIND(near_impl(data, PyUnicode_1BYTE_KIND, n, lits, lens, count, want, cs, n_chars, reach,
                      out),
            near_impl(data, PyUnicode_2BYTE_KIND, n, lits, lens, count, want, cs, n_chars, reach,
                      out),
            near_impl(data, PyUnicode_4BYTE_KIND, n, lits, lens, count, want, cs, n_chars, reach,
                      out))
    if (rc < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

/* --- literals in the text with its spaces removed -------------------------------------------- */

/* Mirrors blocklist._spaceless_present: ``[g for g in gates if g in
 * t.replace(" ", "")]``. One pass marks in a bitset the trigram hashes
 * (tri_step, as ``present`` uses) of the space-free text; a gate can occur
 * there only if every run of three of its characters is marked, and only
 * such a gate is searched for, with PyUnicode_Find on the space-free copy
 * (built once, when the first gate needs it): the search ``in`` runs, so the
 * answer is the reference's and each search stays linear in the text. Gates
 * shorter than three characters are always searched. */
KERNEL Py_ssize_t spaceless_trigrams(const void *data, int kind, Py_ssize_t n,
                                     unsigned char *tri) {
    unsigned h = 0;
    Py_ssize_t j = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = RD(i);
        if (c == ' ')
            continue;
        h = tri_step(h, c);
        if (++j >= 3)
            tri[h >> 3] |= (unsigned char)(1u << (h & 7));
    }
    return j;
}

/* ``t`` without its spaces, ``m`` characters long, of t's kind. */
KERNEL PyObject *spaceless_copy(PyObject *t, const void *data, int kind, Py_ssize_t n,
                                Py_ssize_t m) {
    PyObject *compact = PyUnicode_New(m, PyUnicode_MAX_CHAR_VALUE(t));
    if (compact == NULL)
        return NULL;
    /* removing spaces keeps t's widest character (or the text stays ASCII),
     * so the copy has t's kind */
    void *cdata = PyUnicode_DATA(compact);
    for (Py_ssize_t i = 0, j = 0; i < n; i++) {
        Py_UCS4 c = RD(i);
        if (c != ' ')
            PyUnicode_WRITE(kind, cdata, j++, c);
    }
    return compact;
}

/* Whether every run of three characters of ``g`` is marked in ``tri``. */
static int trigrams_marked(PyObject *g, const unsigned char *tri) {
    int kind = PyUnicode_KIND(g);
    const void *data = PyUnicode_DATA(g);
    Py_ssize_t len = PyUnicode_GET_LENGTH(g);
    unsigned h = 0;
    for (Py_ssize_t i = 0; i < len; i++) {
        h = tri_step(h, RD(i));
        if (i >= 2 && !(tri[h >> 3] & (1u << (h & 7))))
            return 0;
    }
    return 1;
}

static PyObject *spaceless_present(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *t, *gates;
    if (!PyArg_ParseTuple(args, "UO!:spaceless_present", &t, &PyTuple_Type, &gates))
        return NULL;
    if (PyUnicode_READY(t) < 0)
        return NULL;
    Py_ssize_t count = PyTuple_GET_SIZE(gates);
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *g = PyTuple_GET_ITEM(gates, k);
        if (!PyUnicode_Check(g) || PyUnicode_READY(g) < 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "spaceless_present(): gates are str");
            return NULL;
        }
    }
    PyObject *hits = PyList_New(0);
    if (hits == NULL || count == 0)
        return hits;
    int kind = PyUnicode_KIND(t);
    const void *data = PyUnicode_DATA(t);
    Py_ssize_t n = PyUnicode_GET_LENGTH(t), m;
    unsigned char tri[(TRI_MASK + 1) / 8];
    memset(tri, 0, sizeof tri);
    switch (kind) {
    case PyUnicode_1BYTE_KIND:
        m = spaceless_trigrams(data, PyUnicode_1BYTE_KIND, n, tri);
        break;
    case PyUnicode_2BYTE_KIND:
        m = spaceless_trigrams(data, PyUnicode_2BYTE_KIND, n, tri);
        break;
    default:
        m = spaceless_trigrams(data, PyUnicode_4BYTE_KIND, n, tri);
        break;
    }
    PyObject *compact = NULL;
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *g = PyTuple_GET_ITEM(gates, k);
        if (PyUnicode_GET_LENGTH(g) > m || !trigrams_marked(g, tri))
            continue;
        if (compact == NULL) {
            switch (kind) {
            case PyUnicode_1BYTE_KIND:
                compact = spaceless_copy(t, data, PyUnicode_1BYTE_KIND, n, m);
                break;
            case PyUnicode_2BYTE_KIND:
                compact = spaceless_copy(t, data, PyUnicode_2BYTE_KIND, n, m);
                break;
            default:
                compact = spaceless_copy(t, data, PyUnicode_4BYTE_KIND, n, m);
                break;
            }
            if (compact == NULL) {
                Py_DECREF(hits);
                return NULL;
            }
        }
        Py_ssize_t at = PyUnicode_Find(compact, g, 0, m, 1);
        if (at == -2 || (at >= 0 && PyList_Append(hits, g) < 0)) {
            Py_DECREF(compact);
            Py_DECREF(hits);
            return NULL;
        }
    }
    Py_XDECREF(compact);
    return hits;
}

/* --- the plain-ASCII normalised view ------------------------------------------------------ */

/* Mirrors the first branch of evaluators.text.normalize.normalize (and its
 * Python twin findings._ascii_view): when every character of ``raw`` is
 * printable ASCII (0x20-0x7e) or ASCII whitespace (\t \n \r \x0b \x0c), the
 * view is ``raw.lower()`` with those five whitespace characters turned into
 * spaces, and it is the identity view when it holds no two spaces in a row.
 * Returns that text, or None when ``raw`` is not plain or the folded text
 * has a run of spaces (the caller then runs the full normalisation). One pass
 * over the bytes instead of isascii + encode + translate + lower + five
 * replaces + a search. */
/* FOLD[c]: what the view holds for ASCII character ``c`` (0: not plain). */
static Py_UCS1 FOLD[128];

static void fold_init(void) {
    for (int c = 0x20; c < 0x7f; c++)
        FOLD[c] = (Py_UCS1)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    FOLD['\t'] = FOLD['\n'] = FOLD['\r'] = FOLD[0x0b] = FOLD[0x0c] = ' ';
}

/* Per byte b < 128 of ``x``: the high bit set when b >= ``k`` (k <= 128).
 * (b | 0x80) - k never borrows from the next byte. */
#define GE8(x, k) ((((x) | HIGHS) - ONES * (uint64_t)(k)) & HIGHS)

/* FOLD on eight ASCII bytes at once (little-endian word ``x``): capitals
 * lowered, the five whitespace characters turned into ' '. The high bit of
 * each byte that is not plain (FOLD[b] == 0: a control other than \t \n \r
 * \x0b \x0c, or DEL) is or-ed into ``*bad``; ``*space`` gets the high bit of
 * each byte that folds to ' '. */
static inline uint64_t fold8(uint64_t x, uint64_t *bad, uint64_t *space) {
    uint64_t ctrl = ~GE8(x, 0x20) & HIGHS;
    uint64_t ws = GE8(x, '\t') & ~GE8(x, 0x0e);
    uint64_t del = GE8(x, 0x7f);
    uint64_t upper = GE8(x, 'A') & ~GE8(x, 'Z' + 1);
    *bad |= (ctrl & ~ws) | del;
    /* ws bytes cleared then set to 0x20 (ws >> 2 is 0x20 per marked byte);
     * a capital gets 0x20 added, which never carries ('Z' + 32 < 128) */
    uint64_t y = ((x & ~((ws >> 7) * 0xFF)) | (ws >> 2)) + (upper >> 2);
    *space = GE8(y, 0x20) & ~GE8(y, 0x21);
    return y;
}

static PyObject *ascii_fold(PyObject *self, PyObject *raw) {
    (void)self;
    if (!PyUnicode_Check(raw)) {
        PyErr_SetString(PyExc_TypeError, "ascii_fold() argument must be str");
        return NULL;
    }
    if (PyUnicode_READY(raw) < 0)
        return NULL;
    if (!PyUnicode_IS_ASCII(raw))
        Py_RETURN_NONE;
    Py_ssize_t n = PyUnicode_GET_LENGTH(raw);
    const Py_UCS1 *src = PyUnicode_1BYTE_DATA(raw);
    PyObject *out = PyUnicode_New(n, 127);
    if (out == NULL)
        return NULL;
    Py_UCS1 *dst = PyUnicode_1BYTE_DATA(out);
    /* eight characters a word (fold8), the rest by the table; the flags are
     * checked once per 256 characters */
    unsigned bad = 0, pair = 0;
    Py_UCS1 prev = 0;
    Py_ssize_t i = 0;
    uint64_t prev_space = 0; /* high bit of the last word's top byte: it folded to ' ' */
    uint64_t bad8 = 0, pair8 = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; i + 8 <= n; i += 8) {
        uint64_t x, space;
        memcpy(&x, src + i, 8);
        uint64_t y = fold8(x, &bad8, &space);
        /* a space right after a space: within the word (byte k and k + 1,
         * little-endian: k + 1 is the next higher byte) or across the words */
        pair8 |= (space & (space << 8)) | (space & prev_space);
        prev_space = (space >> 56) & 0x80;
        memcpy(dst + i, &y, 8);
        if ((i & 255) == 248 && (bad8 | pair8))
            break;
    }
#endif
    if (bad8 | pair8) {
        Py_DECREF(out);
        Py_RETURN_NONE;
    }
    prev = i > 0 ? dst[i - 1] : 0;
    for (; i < n; i++) {
        Py_UCS1 c = FOLD[src[i]]; /* src[i] < 128: the string is ASCII */
        bad |= c == 0;
        pair |= (c == ' ') & (prev == ' ');
        prev = c;
        dst[i] = c;
        if ((i & 255) == 255 && (bad | pair))
            break;
    }
    if (bad | pair) {
        Py_DECREF(out);
        Py_RETURN_NONE;
    }
    return out;
}

/* --- module -------------------------------------------------------------------------------- */

static PyMethodDef methods[] = {
    {"emails", emails, METH_O,
     "emails(t) -> [(start, end, local, domain)]: personal._email_shapes(t)."},
    {"numbers", numbers, METH_VARARGS,
     "numbers(t, min_digits) -> [(prefix, [(start, end, sep_start)])]: "
     "personal._number_clusters(t, min_digits)."},
    {"ipv4", ipv4, METH_O,
     "ipv4(t) -> [(start, end)]: the spans of personal._IPV4_RE.finditer(t) that find_ips "
     "may accept."},
    {"ipv6_gates", ipv6_gates, METH_O,
     "ipv6_gates(t) -> [int]: the starts of personal._IPV6_GATE_RE.finditer(t)."},
    {"iban_starts", iban_starts, METH_O, "iban_starts(t) -> [int]: personal._iban_starts(t)."},
    {"five_digit_starts", five_digit_starts, METH_O,
     "five_digit_starts(t) -> [int]: the starts of personal._FIVE_DIGITS_RE.finditer(t)."},
    {"scan", scan, METH_VARARGS,
     "scan(t, min_digits) -> (emails(t), numbers(t, min_digits), iban_starts(t), ipv4(t), "
     "ipv6_gates(t), five_digit_starts(t)), from one call."},
    {"present", present, METH_VARARGS,
     "present(t, literals) -> frozenset: the literals (non-empty ASCII) that occur in t."},
    {"spaceless_present", spaceless_present, METH_VARARGS,
     "spaceless_present(t, gates) -> [str]: the gates (a tuple of str) that occur in t with its "
     "spaces removed, in order."},
    {"near", near, METH_VARARGS,
     "near(t, literals, chars, reach) -> [int]: secrets._near_reference(t, literals, chars, "
     "reach), the literal places with one of chars within reach."},
    {"ascii_fold", ascii_fold, METH_O,
     "ascii_fold(raw) -> str | None: findings._ascii_view(raw), the identity view's text."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "evaluators.detectors._piikernel",
    "The no_pii detector's candidate scans (see evaluators/detectors/personal.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__piikernel(void) {
    fold_init();
    return PyModule_Create(&module);
}
