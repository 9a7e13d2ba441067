/*
 * evaluators.text._scankernel: the detectors' literal scans, in C.
 *
 * Why this exists: a detector family (the injection lexicon: ~30 gated
 * patterns, ~450 literals) asked, per text, "which gate literals occur in the
 * space-free text" (one RE2 pass over a copy of the text with its spaces
 * removed) and then, pattern by pattern, "where does each start literal
 * occur, allowing one space between two of its characters" (a str.find or a
 * regex search per literal). The Python overhead of those few hundred small
 * steps was most of the detector's cost. Here one walk over the text answers
 * both questions for every literal and every pattern at once.
 *
 * The reference implementation, with the exact contract, is
 * ``evaluators.detectors.gates.GateFamily.scan_reference``; the property
 * tests compare the two on arbitrary text.
 *
 * compile(literals, groups) -> capsule
 *   ``literals``: tuple of distinct, non-empty ASCII strings without a space.
 *   ``groups``: tuple of (gates, heads, tolerant, not_after, not_before):
 *     gates      tuple of tuples of literal indices; the group is live when
 *                every gate has a literal that occurs in the text with its
 *                spaces (U+0020) removed;
 *     heads      tuple of literal indices whose occurrences are the places;
 *     tolerant   an occurrence may have one space between two characters
 *                (else the literal must occur as is);
 *     not_after  ASCII characters a place may not follow;
 *     not_before ASCII characters an occurrence may not be followed by.
 *
 * scan(family, text) -> list
 *   One item per group: None when a gate fails, else the sorted, distinct
 *   start offsets of the heads' occurrences that pass the group's filters.
 *
 * fold_ascii(text, table) -> str | None
 *   ``text`` with each ASCII character c replaced by table[c] (``table`` is
 *   128 bytes, each < 128); other characters are kept. None when the text
 *   holds a lone surrogate (the Python route, through UTF-8, raises there,
 *   so the caller takes it to keep that behaviour).
 *
 * run_bounds(text, table, i) -> (start, end)
 *   The maximal run of characters c with c < 128 and table[c] != 0 around
 *   offset i: ``start`` <= i is where the run ending just before i begins,
 *   ``end`` >= i where the run starting at i ends (``table`` is 128 bytes).
 *   A character >= 128 is in no run (callers pass ASCII text).
 *
 * Every kind of str (1, 2 and 4 bytes a character) is read with
 * PyUnicode_READ; a character >= 128 is never part of a literal.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CAPSULE_NAME "evaluators.text._scankernel.family"

/* Before 3.12 a str made by the legacy API may not be "ready" (no compact
 * data yet); from 3.12 every str is. */
#if PY_VERSION_HEX < 0x030C0000
#define ENSURE_READY(s) PyUnicode_READY(s)
#else
#define ENSURE_READY(s) 0
#endif

typedef struct {
    Py_ssize_t start; /* offset of the first character */
    Py_ssize_t end;   /* offset just past the last character */
    int32_t lit;
    int plain; /* no space inside */
} occurrence;

typedef struct {
    uint8_t sym[128];  /* ASCII character -> symbol (0: in no literal) */
    Py_ssize_t n_syms; /* symbols + 1 */
    Py_ssize_t n_nodes;
    /* n_nodes * n_syms: the trie's children while building (0 = none: the
     * root is no one's child); then (see renumber) n_nodes * width: each
     * row the transitions as row offsets, and the node's output column */
    int32_t *delta;
    Py_ssize_t width;
    int32_t *term;     /* per node: the literal ending there, or -1 */
    int32_t *out_link; /* per node: the nearest proper suffix node with a term (0: none) */
    Py_ssize_t n_lits;
    Py_ssize_t *lit_len;  /* per literal */
    Py_ssize_t max_len;   /* longest literal */
    Py_ssize_t ring_mask; /* ring of compact positions: a power of two > max_len, less one */
    uint8_t *is_head; /* per literal: some group wants its occurrences */
    Py_ssize_t n_groups;
    Py_ssize_t *group_gate_off; /* n_groups + 1, into gate_lit_off */
    Py_ssize_t *gate_lit_off;   /* n_gates + 1, into gate_lits */
    int32_t *gate_lits;
    Py_ssize_t *lit_group_off; /* n_lits + 1, into lit_groups */
    int32_t *lit_groups;
    uint8_t *tolerant;   /* per group */
    uint8_t *not_after;  /* n_groups * 128 */
    uint8_t *not_before; /* n_groups * 128 */
} family;

static void family_free(family *f) {
    if (f == NULL) return;
    free(f->delta);
    free(f->term);
    free(f->out_link);
    free(f->lit_len);
    free(f->is_head);
    free(f->group_gate_off);
    free(f->gate_lit_off);
    free(f->gate_lits);
    free(f->lit_group_off);
    free(f->lit_groups);
    free(f->tolerant);
    free(f->not_after);
    free(f->not_before);
    free(f);
}

static void capsule_free(PyObject *capsule) {
    family_free((family *)PyCapsule_GetPointer(capsule, CAPSULE_NAME));
}

/* calloc that fails (with MemoryError) on overflow or exhaustion; never returns
 * NULL for a zero count. */
static void *alloc_zeroed(Py_ssize_t count, size_t size) {
    if (count < 0 || (size != 0 && (size_t)count > SIZE_MAX / size)) {
        PyErr_NoMemory();
        return NULL;
    }
    void *p = calloc(count > 0 ? (size_t)count : 1, size > 0 ? size : 1);
    if (p == NULL) PyErr_NoMemory();
    return p;
}

static int fail(const char *what) {
    PyErr_Format(PyExc_ValueError, "scan kernel: %s", what);
    return -1;
}

/* Reads a literal index out of ``item``; -1 with an exception set on error. */
static int32_t literal_index(PyObject *item, Py_ssize_t n_lits) {
    Py_ssize_t v = PyLong_AsSsize_t(item);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0 || v >= n_lits) {
        fail("literal index out of range");
        return -1;
    }
    return (int32_t)v;
}

/* Marks the ASCII characters of ``chars`` (a str) in ``table``. */
static int char_table(PyObject *chars, uint8_t *table) {
    if (!PyUnicode_Check(chars)) return fail("a character set must be a str");
    if (ENSURE_READY(chars) < 0) return -1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(chars);
    int kind = PyUnicode_KIND(chars);
    const void *data = PyUnicode_DATA(chars);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c >= 128) return fail("a character set must be ASCII");
        table[c] = 1;
    }
    return 0;
}

/* Lays the automaton out for the scan: nodes renumbered breadth first (the
 * shallow states a text mostly visits sit together), each transition stored
 * as the offset of its row (no multiply on the scan's critical path) shifted
 * left once, its low bit set when the target ends a literal or has a suffix
 * that does (so the scan reads one entry per character, not two), and a last
 * column per row holding the node's number in that case, else -1. ``order`` lists the nodes but the root in
 * breadth-first order. */
static int renumber(family *f, const int32_t *order) {
    const Py_ssize_t k = f->n_syms, width = k + 1;
    if (f->n_nodes > INT32_MAX / (2 * width)) return fail("automaton too large");
    int32_t *new_id = alloc_zeroed(f->n_nodes, sizeof(int32_t));
    int32_t *delta = alloc_zeroed(f->n_nodes * width, sizeof(int32_t));
    int32_t *term = alloc_zeroed(f->n_nodes, sizeof(int32_t));
    int32_t *out_link = alloc_zeroed(f->n_nodes, sizeof(int32_t));
    if (new_id == NULL || delta == NULL || term == NULL || out_link == NULL) {
        free(new_id);
        free(delta);
        free(term);
        free(out_link);
        return -1;
    }
    new_id[0] = 0;
    for (Py_ssize_t r = 1; r < f->n_nodes; r++) new_id[order[r - 1]] = (int32_t)r;
    for (Py_ssize_t u = 0; u < f->n_nodes; u++) {
        int32_t v = new_id[u];
        int32_t *row = delta + (Py_ssize_t)v * width;
        for (Py_ssize_t s = 0; s < k; s++) {
            int32_t child = f->delta[u * k + s];
            int32_t has_out = f->term[child] >= 0 || f->out_link[child] != 0;
            row[s] = ((new_id[child] * (int32_t)width) << 1) | has_out;
        }
        term[v] = f->term[u];
        out_link[v] = new_id[f->out_link[u]];
        row[k] = (f->term[u] >= 0 || f->out_link[u] != 0) ? v : -1;
    }
    free(new_id);
    free(f->delta);
    free(f->term);
    free(f->out_link);
    f->delta = delta;
    f->term = term;
    f->out_link = out_link;
    f->width = width;
    return 0;
}

/* Turns the trie in ``delta`` into the Aho-Corasick automaton: breadth first,
 * each node's failure link is the longest proper suffix of its path that is
 * also a trie path, a missing transition is the failure link's, and
 * ``out_link`` chains the suffixes that end a literal. Symbol 0 (a character
 * in no literal) leads back to the root from everywhere. */
static int build_automaton(family *f) {
    const Py_ssize_t k = f->n_syms;
    int32_t *fail_of = alloc_zeroed(f->n_nodes, sizeof(int32_t));
    int32_t *queue = alloc_zeroed(f->n_nodes, sizeof(int32_t));
    if (fail_of == NULL || queue == NULL) {
        free(fail_of);
        free(queue);
        return -1;
    }
    Py_ssize_t head = 0, tail = 0;
    for (Py_ssize_t s = 1; s < k; s++) {
        int32_t c = f->delta[s];
        if (c != 0) {
            fail_of[c] = 0;
            f->out_link[c] = 0;
            queue[tail++] = c;
        }
    }
    while (head < tail) {
        int32_t node = queue[head++];
        int32_t *row = f->delta + (Py_ssize_t)node * k;
        const int32_t *fail_row = f->delta + (Py_ssize_t)fail_of[node] * k;
        row[0] = 0;
        for (Py_ssize_t s = 1; s < k; s++) {
            int32_t c = row[s];
            if (c == 0) {
                row[s] = fail_row[s];
                continue;
            }
            int32_t fc = fail_row[s];
            fail_of[c] = fc;
            f->out_link[c] = f->term[fc] >= 0 ? fc : f->out_link[fc];
            if (tail >= f->n_nodes) {
                free(fail_of);
                free(queue);
                return fail("automaton queue overflow");
            }
            queue[tail++] = c;
        }
    }
    free(fail_of);
    int rc = tail == f->n_nodes - 1 ? renumber(f, queue) : fail("automaton lost a node");
    free(queue);
    return rc;
}

/* Builds the trie of the literals, then the automaton. */
static int build_trie(family *f, PyObject *lits) {
    Py_ssize_t total = 0;
    uint8_t seen[128] = {0};
    for (Py_ssize_t k = 0; k < f->n_lits; k++) {
        PyObject *lit = PyTuple_GET_ITEM(lits, k);
        if (!PyUnicode_Check(lit)) return fail("literals must be str");
        if (ENSURE_READY(lit) < 0) return -1;
        Py_ssize_t n = PyUnicode_GET_LENGTH(lit);
        if (n == 0) return fail("a literal is empty");
        if (!PyUnicode_IS_ASCII(lit)) return fail("literals must be ASCII");
        const Py_UCS1 *s = PyUnicode_1BYTE_DATA(lit);
        for (Py_ssize_t i = 0; i < n; i++) {
            if (s[i] == ' ') return fail("a literal holds a space");
            seen[s[i]] = 1;
        }
        if (total > PY_SSIZE_T_MAX - n) return fail("literals too long");
        total += n;
    }
    f->n_syms = 1;
    for (int c = 0; c < 128; c++) {
        if (seen[c]) f->sym[c] = (uint8_t)f->n_syms++;
    }
    if (total >= INT32_MAX) return fail("literals too long");
    Py_ssize_t max_nodes = total + 1;
    if (max_nodes > PY_SSIZE_T_MAX / f->n_syms) return fail("literals too long");
    f->delta = alloc_zeroed(max_nodes * f->n_syms, sizeof(int32_t));
    f->term = alloc_zeroed(max_nodes, sizeof(int32_t));
    f->out_link = alloc_zeroed(max_nodes, sizeof(int32_t));
    f->lit_len = alloc_zeroed(f->n_lits, sizeof(Py_ssize_t));
    if (f->delta == NULL || f->term == NULL || f->out_link == NULL || f->lit_len == NULL) {
        return -1;
    }
    f->term[0] = -1;
    f->n_nodes = 1;
    for (Py_ssize_t k = 0; k < f->n_lits; k++) {
        PyObject *lit = PyTuple_GET_ITEM(lits, k);
        Py_ssize_t n = PyUnicode_GET_LENGTH(lit);
        const Py_UCS1 *s = PyUnicode_1BYTE_DATA(lit);
        int32_t node = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_ssize_t slot = (Py_ssize_t)node * f->n_syms + f->sym[s[i]];
            if (f->delta[slot] == 0) {
                if (f->n_nodes >= max_nodes) return fail("trie overflow");
                f->term[f->n_nodes] = -1;
                f->delta[slot] = (int32_t)f->n_nodes++;
            }
            node = f->delta[slot];
        }
        if (f->term[node] >= 0) return fail("a literal is listed twice");
        f->term[node] = (int32_t)k;
        f->lit_len[k] = n;
        if (n > f->max_len) f->max_len = n;
    }
    Py_ssize_t ring = 1;
    while (ring <= f->max_len) {
        if (ring > PY_SSIZE_T_MAX / 2) return fail("literals too long");
        ring *= 2;
    }
    f->ring_mask = ring - 1;
    return build_automaton(f);
}

/* Reads the groups (see the header comment). */
static int build_groups(family *f, PyObject *groups) {
    Py_ssize_t n_gates = 0, n_gate_lits = 0, n_heads = 0;
    for (Py_ssize_t g = 0; g < f->n_groups; g++) {
        PyObject *grp = PyTuple_GET_ITEM(groups, g);
        if (!PyTuple_Check(grp) || PyTuple_GET_SIZE(grp) != 5) {
            return fail("a group is a 5-tuple");
        }
        PyObject *gates = PyTuple_GET_ITEM(grp, 0);
        PyObject *heads = PyTuple_GET_ITEM(grp, 1);
        if (!PyTuple_Check(gates) || !PyTuple_Check(heads)) {
            return fail("gates and heads are tuples");
        }
        n_gates += PyTuple_GET_SIZE(gates);
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(gates); k++) {
            PyObject *gate = PyTuple_GET_ITEM(gates, k);
            if (!PyTuple_Check(gate)) return fail("a gate is a tuple");
            n_gate_lits += PyTuple_GET_SIZE(gate);
        }
        n_heads += PyTuple_GET_SIZE(heads);
    }
    if (n_heads >= INT32_MAX) return fail("too many heads");
    f->group_gate_off = alloc_zeroed(f->n_groups + 1, sizeof(Py_ssize_t));
    f->gate_lit_off = alloc_zeroed(n_gates + 1, sizeof(Py_ssize_t));
    f->gate_lits = alloc_zeroed(n_gate_lits, sizeof(int32_t));
    f->lit_group_off = alloc_zeroed(f->n_lits + 1, sizeof(Py_ssize_t));
    f->lit_groups = alloc_zeroed(n_heads, sizeof(int32_t));
    f->is_head = alloc_zeroed(f->n_lits, 1);
    f->tolerant = alloc_zeroed(f->n_groups, 1);
    f->not_after = alloc_zeroed(f->n_groups, 128);
    f->not_before = alloc_zeroed(f->n_groups, 128);
    if (f->group_gate_off == NULL || f->gate_lit_off == NULL || f->gate_lits == NULL ||
        f->lit_group_off == NULL || f->lit_groups == NULL || f->is_head == NULL ||
        f->tolerant == NULL || f->not_after == NULL || f->not_before == NULL) {
        return -1;
    }
    /* counts per literal first (lit_group_off[lit + 1]), then prefix sums */
    Py_ssize_t gate_at = 0, lit_at = 0;
    for (Py_ssize_t g = 0; g < f->n_groups; g++) {
        PyObject *grp = PyTuple_GET_ITEM(groups, g);
        PyObject *gates = PyTuple_GET_ITEM(grp, 0);
        PyObject *heads = PyTuple_GET_ITEM(grp, 1);
        f->group_gate_off[g] = gate_at;
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(gates); k++) {
            PyObject *gate = PyTuple_GET_ITEM(gates, k);
            f->gate_lit_off[gate_at++] = lit_at;
            for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(gate); j++) {
                int32_t lit = literal_index(PyTuple_GET_ITEM(gate, j), f->n_lits);
                if (lit < 0) return -1;
                f->gate_lits[lit_at++] = lit;
            }
        }
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(heads); j++) {
            int32_t lit = literal_index(PyTuple_GET_ITEM(heads, j), f->n_lits);
            if (lit < 0) return -1;
            f->is_head[lit] = 1;
            f->lit_group_off[lit + 1]++;
        }
        int tolerant = PyObject_IsTrue(PyTuple_GET_ITEM(grp, 2));
        if (tolerant < 0) return -1;
        f->tolerant[g] = (uint8_t)tolerant;
        if (char_table(PyTuple_GET_ITEM(grp, 3), f->not_after + g * 128) < 0) return -1;
        if (char_table(PyTuple_GET_ITEM(grp, 4), f->not_before + g * 128) < 0) return -1;
    }
    f->group_gate_off[f->n_groups] = gate_at;
    f->gate_lit_off[gate_at] = lit_at;
    for (Py_ssize_t k = 0; k < f->n_lits; k++) f->lit_group_off[k + 1] += f->lit_group_off[k];
    /* fill, in group order, so a literal's groups are ascending */
    Py_ssize_t *fill = alloc_zeroed(f->n_lits, sizeof(Py_ssize_t));
    if (fill == NULL) return -1;
    for (Py_ssize_t g = 0; g < f->n_groups; g++) {
        PyObject *heads = PyTuple_GET_ITEM(PyTuple_GET_ITEM(groups, g), 1);
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(heads); j++) {
            /* indices were validated in the first pass */
            Py_ssize_t lit = PyLong_AsSsize_t(PyTuple_GET_ITEM(heads, j));
            Py_ssize_t slot = f->lit_group_off[lit] + fill[lit]++;
            if (slot >= f->lit_group_off[lit + 1]) {
                free(fill);
                return fail("head table overflow");
            }
            f->lit_groups[slot] = (int32_t)g;
        }
    }
    free(fill);
    return 0;
}

static PyObject *compile(PyObject *self, PyObject *args) {
    PyObject *lits, *groups;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!", &PyTuple_Type, &lits, &PyTuple_Type, &groups)) {
        return NULL;
    }
    family *f = alloc_zeroed(1, sizeof(family));
    if (f == NULL) return NULL;
    f->n_lits = PyTuple_GET_SIZE(lits);
    f->n_groups = PyTuple_GET_SIZE(groups);
    if (f->n_lits >= INT32_MAX || f->n_groups >= INT32_MAX) {
        fail("too many literals or groups");
        family_free(f);
        return NULL;
    }
    if (build_trie(f, lits) < 0 || build_groups(f, groups) < 0) {
        family_free(f);
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(f, CAPSULE_NAME, capsule_free);
    if (capsule == NULL) family_free(f);
    return capsule;
}

typedef struct {
    occurrence *items;
    Py_ssize_t len;
    Py_ssize_t cap;
} occurrences;

static int push(occurrences *o, Py_ssize_t start, Py_ssize_t end, int32_t lit, int plain) {
    if (o->len == o->cap) {
        Py_ssize_t cap = o->cap ? o->cap * 2 : 64;
        if (cap > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(occurrence)) {
            PyErr_NoMemory();
            return -1;
        }
        occurrence *items = realloc(o->items, (size_t)cap * sizeof(occurrence));
        if (items == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        o->items = items;
        o->cap = cap;
    }
    o->items[o->len++] = (occurrence){start, end, lit, plain};
    return 0;
}

/* Runs the automaton over the text with its spaces removed (the compact
 * text): marks each literal that occurs there in ``present`` and records the
 * head literals' occurrences whose characters are at most one space apart in
 * the text itself (tolerant; ``plain`` when none is), in end order.
 *
 * ``ring`` holds the text offset of the last compact characters (enough for
 * the longest literal); ``last_gap`` / ``last_wide`` are the latest compact
 * index whose character follows one space or more / two spaces or more. A
 * literal ending at compact index j starts at j - len + 1 = a; it is
 * tolerant when no wide gap falls after its first character (last_wide <= a)
 * and plain when no gap does (last_gap <= a).
 * Inlined once per string kind, so each loop reads its kind directly. */
static inline int walk_kind(const family *f, const int kind, const void *data, Py_ssize_t n,
                            uint8_t *present, occurrences *out, Py_ssize_t *ring) {
    const uint8_t *sym = f->sym;
    const int32_t *delta = f->delta;
    const int32_t *term = f->term;
    const Py_ssize_t out_col = f->width - 1;
    const Py_ssize_t mask = f->ring_mask;
    int32_t state = 0;
    Py_ssize_t j = -1;         /* compact index of the last character read */
    Py_ssize_t last_gap = -1, last_wide = -1;
    Py_ssize_t spaces = 0;     /* spaces since the last character */
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        if (c == ' ') {
            spaces++;
            continue;
        }
        j++;
        ring[j & mask] = i;
        if (spaces) {
            last_gap = j;
            if (spaces > 1) last_wide = j;
            spaces = 0;
        }
        int32_t step = delta[state + (c < 128 ? sym[c] : 0)];
        state = step >> 1;
        if (!(step & 1)) continue; /* the usual case: nothing ends here */
        int32_t node = delta[state + out_col];
        if (node < 0) continue;
        if (term[node] < 0) node = f->out_link[node];
        while (node != 0) {
            int32_t lit = term[node];
            present[lit] = 1;
            if (f->is_head[lit]) {
                Py_ssize_t a = j - f->lit_len[lit] + 1;
                if (last_wide <= a && push(out, ring[a & mask], i + 1, lit, last_gap <= a) < 0) {
                    return -1;
                }
            }
            node = f->out_link[node];
        }
    }
    return 0;
}

static int walk(const family *f, int kind, const void *data, Py_ssize_t n, uint8_t *present,
                occurrences *out, Py_ssize_t *ring) {
    switch (kind) {
    case PyUnicode_1BYTE_KIND:
        return walk_kind(f, PyUnicode_1BYTE_KIND, data, n, present, out, ring);
    case PyUnicode_2BYTE_KIND:
        return walk_kind(f, PyUnicode_2BYTE_KIND, data, n, present, out, ring);
    default:
        return walk_kind(f, PyUnicode_4BYTE_KIND, data, n, present, out, ring);
    }
}

static int by_start(const void *x, const void *y) {
    Py_ssize_t a = ((const occurrence *)x)->start, b = ((const occurrence *)y)->start;
    return (a > b) - (a < b);
}

static int gates_pass(const family *f, Py_ssize_t g, const uint8_t *present) {
    for (Py_ssize_t k = f->group_gate_off[g]; k < f->group_gate_off[g + 1]; k++) {
        int any = 0;
        for (Py_ssize_t j = f->gate_lit_off[k]; j < f->gate_lit_off[k + 1]; j++) {
            if (present[f->gate_lits[j]]) {
                any = 1;
                break;
            }
        }
        if (!any) return 0;
    }
    return 1;
}

static PyObject *scan(PyObject *self, PyObject *args) {
    PyObject *capsule, *text;
    (void)self;
    if (!PyArg_ParseTuple(args, "OU", &capsule, &text)) return NULL;
    const family *f = PyCapsule_GetPointer(capsule, CAPSULE_NAME);
    if (f == NULL || ENSURE_READY(text) < 0) return NULL;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);

    PyObject *result = NULL;
    occurrences occ = {NULL, 0, 0};
    uint8_t *present = alloc_zeroed(f->n_lits, 1);
    uint8_t *live = alloc_zeroed(f->n_groups, 1);
    Py_ssize_t *last = alloc_zeroed(f->n_groups, sizeof(Py_ssize_t));
    Py_ssize_t *ring = alloc_zeroed(f->ring_mask + 1, sizeof(Py_ssize_t));
    if (present == NULL || live == NULL || last == NULL || ring == NULL) goto done;
    if (walk(f, kind, data, n, present, &occ, ring) < 0) goto done;
    /* found in end order; each group's places are wanted in start order */
    if (occ.len > 1) qsort(occ.items, (size_t)occ.len, sizeof(occurrence), by_start);

    result = PyList_New(f->n_groups);
    if (result == NULL) goto done;
    for (Py_ssize_t g = 0; g < f->n_groups; g++) {
        PyObject *item;
        last[g] = -1;
        if (gates_pass(f, g, present)) {
            live[g] = 1;
            item = PyList_New(0);
            if (item == NULL) goto error;
        } else {
            item = Py_None;
            Py_INCREF(item);
        }
        PyList_SET_ITEM(result, g, item); /* steals the reference */
    }
    for (Py_ssize_t k = 0; k < occ.len; k++) {
        const occurrence *o = &occ.items[k];
        Py_UCS4 before = o->start > 0 ? PyUnicode_READ(kind, data, o->start - 1) : 128;
        Py_UCS4 after = o->end < n ? PyUnicode_READ(kind, data, o->end) : 128;
        for (Py_ssize_t j = f->lit_group_off[o->lit]; j < f->lit_group_off[o->lit + 1]; j++) {
            int32_t g = f->lit_groups[j];
            if (!live[g] || last[g] == o->start) continue;
            if (!o->plain && !f->tolerant[g]) continue;
            if (before < 128 && f->not_after[(Py_ssize_t)g * 128 + before]) continue;
            if (after < 128 && f->not_before[(Py_ssize_t)g * 128 + after]) continue;
            PyObject *pos = PyLong_FromSsize_t(o->start);
            if (pos == NULL) goto error;
            int rc = PyList_Append(PyList_GET_ITEM(result, g), pos);
            Py_DECREF(pos);
            if (rc < 0) goto error;
            last[g] = o->start;
        }
    }
    goto done;
error:
    Py_CLEAR(result);
done:
    free(occ.items);
    free(present);
    free(live);
    free(last);
    free(ring);
    return result;
}

static PyObject *fold_ascii(PyObject *self, PyObject *args) {
    PyObject *text;
    Py_buffer table;
    (void)self;
    if (!PyArg_ParseTuple(args, "Uy*", &text, &table)) return NULL;
    PyObject *out = NULL;
    if (ENSURE_READY(text) < 0) goto done;
    if (table.len != 128) {
        fail("the table is 128 bytes");
        goto done;
    }
    const uint8_t *map = (const uint8_t *)table.buf;
    for (int c = 0; c < 128; c++) {
        if (map[c] >= 128) {
            fail("the table maps to ASCII only");
            goto done;
        }
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (kind != PyUnicode_1BYTE_KIND) {
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (c >= 0xD800 && c <= 0xDFFF) {
                out = Py_None;
                Py_INCREF(out);
                goto done;
            }
        }
    }
    /* The same characters >= 128 survive, so the widest kind is the text's. */
    out = PyUnicode_New(n, PyUnicode_MAX_CHAR_VALUE(text));
    if (out == NULL) goto done;
    int okind = PyUnicode_KIND(out);
    void *odata = PyUnicode_DATA(out);
    if (okind != kind) {
        Py_CLEAR(out);
        fail("unexpected string kind");
        goto done;
    }
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *src = (const Py_UCS1 *)data;
        Py_UCS1 *dst = (Py_UCS1 *)odata;
        for (Py_ssize_t i = 0; i < n; i++) dst[i] = src[i] < 128 ? map[src[i]] : src[i];
    } else {
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            PyUnicode_WRITE(okind, odata, i, c < 128 ? map[c] : c);
        }
    }
done:
    PyBuffer_Release(&table);
    return out;
}

static PyObject *run_bounds(PyObject *self, PyObject *args) {
    PyObject *text;
    Py_buffer table;
    Py_ssize_t i;
    (void)self;
    if (!PyArg_ParseTuple(args, "Uy*n", &text, &table, &i)) return NULL;
    PyObject *out = NULL;
    if (ENSURE_READY(text) < 0) goto done;
    if (table.len != 128) {
        fail("the table is 128 bytes");
        goto done;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (i < 0 || i > n) {
        PyErr_SetString(PyExc_IndexError, "run_bounds: offset out of range");
        goto done;
    }
    const uint8_t *in_run = (const uint8_t *)table.buf;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t start = i, end = i;
    while (start > 0) {
        Py_UCS4 c = PyUnicode_READ(kind, data, start - 1);
        if (c >= 128 || !in_run[c]) break;
        start--;
    }
    while (end < n) {
        Py_UCS4 c = PyUnicode_READ(kind, data, end);
        if (c >= 128 || !in_run[c]) break;
        end++;
    }
    out = Py_BuildValue("(nn)", start, end);
done:
    PyBuffer_Release(&table);
    return out;
}

static PyMethodDef methods[] = {
    {"compile", compile, METH_VARARGS,
     "compile(literals, groups) -> a family to scan texts with (see the module source)."},
    {"scan", scan, METH_VARARGS,
     "scan(family, text) -> per group, None or the sorted places of its head literals."},
    {"fold_ascii", fold_ascii, METH_VARARGS,
     "fold_ascii(text, table) -> text with ASCII characters mapped, or None (lone surrogate)."},
    {"run_bounds", run_bounds, METH_VARARGS,
     "run_bounds(text, table, i) -> (start, end) of the table's character run around i."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "evaluators.text._scankernel",
    "The detectors' literal scans (see evaluators/detectors/gates.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__scankernel(void) { return PyModule_Create(&module); }
