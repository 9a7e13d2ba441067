/*
 * evaluators.text._matchkernel: a small backtracking matcher for bounded
 * patterns, and the injection detector's phrase tier on top of it.
 *
 * Why this exists: the injection lexicon's phrase patterns (one optional
 * space between any two letters, long ordered alternations) cost Python's
 * ``re`` 3-5 µs at every place they are tried. The same pattern, compiled
 * by ``evaluators.text.backtrack.program`` from its own parse tree into a
 * few hundred instructions, runs here in a fraction of that.
 *
 * A program is a flat array of (op, a, b) triples:
 *   MATCH                 the match ends here
 *   CHAR a                the character is a
 *   CLASS a               the character is in character set a
 *   SPLIT a b             try a; when that fails, b (the pattern's order)
 *   JMP a                 go on at a
 *   NOT_AHEAD a / AHEAD a the part at a (ending in MATCH) does not / does
 *                         match here
 *   NOT_BEHIND a b / BEHIND a b
 *                         the part at a (b characters wide) does not / does
 *                         match b characters back (none there: it does not)
 *   REPEAT a b            up to b characters of set a, as many as there are,
 *                         with no way back (the compiler emits it only where
 *                         fewer could not lead to a match: see
 *                         backtrack._Emitter.possessive)
 * Taking each choice in order and backtracking to the latest untried one
 * gives the match ``re`` gives (leftmost, first by priority); lookarounds
 * are not backtracked into, as in ``re``. An attempt that runs past its step
 * budget is handed to the pattern itself (``rx.match``), so no text is
 * slower to try here than with ``re`` by more than that constant.
 *
 * compile(code, classes) -> capsule
 * match(program, text, pos, budget=STEP_BUDGET) -> int
 *   End of the match at ``pos``, -1 for none, -2 when the budget ran out.
 * tried(program, rx, text, places, budget=STEP_BUDGET) -> list[tuple[int, int]]
 *   The spans of ``evaluators.text.starts.tried_at(rx, text, places)``
 *   (an attempt past ``budget`` steps asks ``rx``: the tests use a small one).
 * candidates(programs, rxs, text, found, labels, covers, cand_type) -> list
 *   ``evaluators.detectors.injection._phrases_reference``: for pattern k
 *   (programs[k], rxs[k]) the matches tried at found[k], in pattern order,
 *   each kept unless ``covers(start, end)`` is true (``covers`` None: none
 *   is covered) and built as cand_type(kind, category, start, end, detail,
 *   priority) from labels[k] = (kind, category, detail, priority).
 *
 * Every kind of str (1, 2 and 4 bytes a character) is read with
 * PyUnicode_READ, one instantiation of the matcher per kind.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CAPSULE_NAME "evaluators.text._matchkernel.program"
#define STEP_BUDGET 200000L

#if PY_VERSION_HEX < 0x030C0000
#define ENSURE_READY(s) PyUnicode_READY(s)
#else
#define ENSURE_READY(s) 0
#endif

/* Mirrors the instruction codes of evaluators/text/backtrack.py. */
enum { OP_MATCH, OP_CHAR, OP_CLASS, OP_SPLIT, OP_JMP, OP_NOT_AHEAD, OP_AHEAD, OP_NOT_BEHIND,
       OP_BEHIND, OP_REPEAT, OP_COUNT };

typedef struct {
    uint8_t table[128]; /* ASCII membership, negation applied */
    int negate;
    Py_ssize_t n_ranges;
    Py_UCS4 *ranges; /* lo, hi pairs before negation */
} charset;

/* The characters a part can begin with: a SPLIT whose first branch cannot
 * begin with the character at hand goes straight to its second one, with
 * no choice point pushed (the branch would fail at its first test). */
typedef struct {
    uint8_t table[128]; /* ASCII characters the part can begin with */
    uint8_t other;      /* it may begin with a character >= 128 */
} first_set;

typedef struct {
    Py_ssize_t n_code; /* instructions */
    int32_t *code;     /* 3 per instruction */
    Py_ssize_t n_classes;
    charset *classes;
    int32_t *guard;    /* per instruction: index into guards, or -1 (no guard) */
    first_set *guards;
} program;

typedef struct {
    int32_t pc;
    Py_ssize_t pos;
} choice;

typedef struct {
    choice *items;
    Py_ssize_t len;
    Py_ssize_t cap;
} stack;

static void program_free(program *p) {
    if (p == NULL) return;
    if (p->classes != NULL) {
        for (Py_ssize_t i = 0; i < p->n_classes; i++) free(p->classes[i].ranges);
    }
    free(p->classes);
    free(p->code);
    free(p->guard);
    free(p->guards);
    free(p);
}

static void capsule_free(PyObject *capsule) {
    program_free((program *)PyCapsule_GetPointer(capsule, CAPSULE_NAME));
}

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
    PyErr_Format(PyExc_ValueError, "match kernel: %s", what);
    return -1;
}

/* Reads an int in [lo, hi] from a tuple item; -1 with an exception on error. */
static int read_int(PyObject *tuple, Py_ssize_t i, long lo, long hi, long *out) {
    long v = PyLong_AsLong(PyTuple_GET_ITEM(tuple, i));
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < lo || v > hi) return fail("value out of range");
    *out = v;
    return 0;
}

static int read_class(PyObject *item, charset *cs) {
    PyObject *table, *negate, *ranges;
    if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3) return fail("a class is a 3-tuple");
    table = PyTuple_GET_ITEM(item, 0);
    negate = PyTuple_GET_ITEM(item, 1);
    ranges = PyTuple_GET_ITEM(item, 2);
    if (!PyBytes_Check(table) || PyBytes_GET_SIZE(table) != 128) {
        return fail("a class table is 128 bytes");
    }
    if (!PyTuple_Check(ranges) || PyTuple_GET_SIZE(ranges) % 2 != 0) {
        return fail("class ranges are lo, hi pairs");
    }
    memcpy(cs->table, PyBytes_AS_STRING(table), 128);
    int neg = PyObject_IsTrue(negate);
    if (neg < 0) return -1;
    cs->negate = neg;
    cs->n_ranges = PyTuple_GET_SIZE(ranges) / 2;
    cs->ranges = alloc_zeroed(2 * cs->n_ranges, sizeof(Py_UCS4));
    if (cs->ranges == NULL) return -1;
    for (Py_ssize_t i = 0; i < 2 * cs->n_ranges; i++) {
        long v;
        if (read_int(ranges, i, 0, 0x10FFFF, &v) < 0) return -1;
        cs->ranges[i] = (Py_UCS4)v;
    }
    return 0;
}

/* Adds to ``fs`` the characters the part at ``pc`` can begin with; 0 when
 * it may begin with no character test (a MATCH, a lookaround, a cycle or a
 * part too deep to follow), which leaves the SPLIT unguarded. */
static int first_chars(const program *p, int32_t pc, first_set *fs, int depth) {
    if (depth > 64) return 0;
    const int32_t *ins = p->code + 3 * (Py_ssize_t)pc;
    switch (ins[0]) {
    case OP_CHAR:
        if (ins[1] < 128) fs->table[ins[1]] = 1;
        else fs->other = 1;
        return 1;
    case OP_CLASS: {
        const charset *cs = &p->classes[ins[1]];
        for (int c = 0; c < 128; c++) fs->table[c] |= cs->table[c];
        fs->other = 1; /* conservative: the set may hold characters >= 128 */
        return 1;
    }
    case OP_REPEAT: { /* it may take no character: then the part after it begins */
        const charset *cs = &p->classes[ins[1]];
        for (int c = 0; c < 128; c++) fs->table[c] |= cs->table[c];
        fs->other = 1;
        return pc + 1 < p->n_code && first_chars(p, pc + 1, fs, depth + 1);
    }
    case OP_SPLIT:
        return first_chars(p, ins[1], fs, depth + 1) && first_chars(p, ins[2], fs, depth + 1);
    case OP_JMP:
        if (ins[1] <= pc) return 0; /* a backward jump: do not follow */
        return first_chars(p, ins[1], fs, depth + 1);
    default:
        return 0;
    }
}

static int build_guards(program *p) {
    p->guard = alloc_zeroed(p->n_code, sizeof(int32_t));
    p->guards = alloc_zeroed(p->n_code, sizeof(first_set));
    if (p->guard == NULL || p->guards == NULL) return -1;
    int32_t used = 0;
    for (Py_ssize_t i = 0; i < p->n_code; i++) {
        p->guard[i] = -1;
        if (p->code[3 * i] != OP_SPLIT) continue;
        first_set fs;
        memset(&fs, 0, sizeof fs);
        if (first_chars(p, p->code[3 * i + 1], &fs, 0)) {
            p->guards[used] = fs;
            p->guard[i] = used++;
        }
    }
    return 0;
}

static PyObject *compile(PyObject *self, PyObject *args) {
    PyObject *code, *classes;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!", &PyTuple_Type, &code, &PyTuple_Type, &classes)) {
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(code);
    if (n == 0 || n % 3 != 0 || n / 3 >= INT32_MAX) {
        fail("code is a non-empty sequence of (op, a, b) triples");
        return NULL;
    }
    program *p = alloc_zeroed(1, sizeof(program));
    if (p == NULL) return NULL;
    p->n_code = n / 3;
    p->n_classes = PyTuple_GET_SIZE(classes);
    p->code = alloc_zeroed(n, sizeof(int32_t));
    p->classes = alloc_zeroed(p->n_classes, sizeof(charset));
    if (p->code == NULL || p->classes == NULL) goto error;
    for (Py_ssize_t i = 0; i < p->n_classes; i++) {
        if (read_class(PyTuple_GET_ITEM(classes, i), &p->classes[i]) < 0) goto error;
    }
    for (Py_ssize_t i = 0; i < p->n_code; i++) {
        long op, a, b;
        if (read_int(code, 3 * i, 0, OP_COUNT - 1, &op) < 0) goto error;
        if (read_int(code, 3 * i + 1, 0, 0x10FFFF > p->n_code ? 0x10FFFF : p->n_code, &a) < 0 ||
            read_int(code, 3 * i + 2, 0, p->n_code, &b) < 0) {
            goto error;
        }
        /* every jump target is an instruction; every class exists */
        int bad = 0;
        switch (op) {
        case OP_CLASS:
        case OP_REPEAT: bad = a >= p->n_classes; break;
        case OP_SPLIT: bad = a >= p->n_code || b >= p->n_code; break;
        case OP_JMP:
        case OP_NOT_AHEAD:
        case OP_AHEAD:
        case OP_NOT_BEHIND:
        case OP_BEHIND: bad = a >= p->n_code; break;
        default: break;
        }
        if (bad) {
            fail("a jump or class index is out of range");
            goto error;
        }
        p->code[3 * i] = (int32_t)op;
        p->code[3 * i + 1] = (int32_t)a;
        p->code[3 * i + 2] = (int32_t)b;
    }
    /* the last instruction may not run off the end */
    int32_t last = p->code[3 * (p->n_code - 1)];
    if (last != OP_MATCH && last != OP_JMP && last != OP_SPLIT) {
        fail("the program does not end in MATCH");
        goto error;
    }
    if (build_guards(p) < 0) goto error;
    PyObject *capsule = PyCapsule_New(p, CAPSULE_NAME, capsule_free);
    if (capsule == NULL) program_free(p);
    return capsule;
error:
    program_free(p);
    return NULL;
}

static int stack_push(stack *st, int32_t pc, Py_ssize_t pos) {
    if (st->len == st->cap) {
        Py_ssize_t cap = st->cap ? st->cap * 2 : 256;
        if (cap > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(choice)) return -1;
        choice *items = realloc(st->items, (size_t)cap * sizeof(choice));
        if (items == NULL) return -1;
        st->items = items;
        st->cap = cap;
    }
    st->items[st->len].pc = pc;
    st->items[st->len].pos = pos;
    st->len++;
    return 0;
}

static inline int in_class(const charset *cs, Py_UCS4 c) {
    if (c < 128) return cs->table[c];
    int inside = 0;
    for (Py_ssize_t k = 0; k < cs->n_ranges; k++) {
        if (cs->ranges[2 * k] <= c && c <= cs->ranges[2 * k + 1]) {
            inside = 1;
            break;
        }
    }
    return inside != cs->negate;
}

/* Whether the first branch of the SPLIT at ``pc`` (which has a guard) can
 * begin with the character at hand (``have``: there is one, ``c``). */
static inline int guard_passes(const program *p, int32_t pc, int have, Py_UCS4 c) {
    const first_set *fs = &p->guards[p->guard[pc]];
    if (!have) return 0;
    return c < 128 ? fs->table[c] : fs->other;
}

/* Result codes of run() besides a match end (>= 0). */
#define NO_MATCH (-1)
#define OVER_BUDGET (-2)
#define NO_MEMORY (-3)

/* The matcher: the end of the first match (by the pattern's priority) of the
 * part starting at ``pc``, anchored at ``pos``; choice points live on ``st``
 * above its length at entry, which is restored on return. One instantiation
 * per string kind. */
#define DEFINE_RUN(NAME, KIND)                                                                     \
    static Py_ssize_t NAME(const program *p, const void *data, Py_ssize_t n, int32_t pc,         \
                           Py_ssize_t pos, stack *st, long *budget) {                            \
        const Py_ssize_t base = st->len;                                                           \
        const int32_t *code = p->code;                                                             \
        Py_ssize_t r;                                                                              \
        for (;;) {                                                                                 \
            if (--*budget < 0) {                                                                   \
                st->len = base;                                                                    \
                return OVER_BUDGET;                                                                \
            }                                                                                      \
            const int32_t *ins = code + 3 * (Py_ssize_t)pc;                                        \
            switch (ins[0]) {                                                                      \
            case OP_MATCH: st->len = base; return pos;                                             \
            case OP_CHAR:                                                                          \
                if (pos < n && PyUnicode_READ(KIND, data, pos) == (Py_UCS4)ins[1]) {               \
                    pc++;                                                                          \
                    pos++;                                                                         \
                    continue;                                                                      \
                }                                                                                  \
                goto backtrack;                                                                    \
            case OP_CLASS:                                                                         \
                if (pos < n && in_class(&p->classes[ins[1]], PyUnicode_READ(KIND, data, pos))) {   \
                    pc++;                                                                          \
                    pos++;                                                                         \
                    continue;                                                                      \
                }                                                                                  \
                goto backtrack;                                                                    \
            case OP_REPEAT: {                                                                      \
                const charset *cs = &p->classes[ins[1]];                                           \
                Py_ssize_t stop = n - pos < ins[2] ? n : pos + ins[2];                             \
                while (pos < stop && in_class(cs, PyUnicode_READ(KIND, data, pos))) pos++;         \
                pc++;                                                                              \
                continue;                                                                          \
            }                                                                                      \
            case OP_SPLIT:                                                                         \
                if (p->guard[pc] >= 0) {                                                           \
                    /* the first branch cannot begin here: go to the second, and on along */     \
                    /* a chain of guarded SPLITs (an alternation) to the first that can */        \
                    Py_UCS4 c = pos < n ? PyUnicode_READ(KIND, data, pos) : 0;                     \
                    int32_t at = pc;                                                               \
                    while (p->guard[at] >= 0 && !guard_passes(p, at, pos < n, c)) {                \
                        at = code[3 * (Py_ssize_t)at + 2];                                         \
                        if (code[3 * (Py_ssize_t)at] != OP_SPLIT) break;                           \
                    }                                                                              \
                    if (at != pc) {                                                                \
                        pc = at;                                                                   \
                        continue;                                                                  \
                    }                                                                              \
                    ins = code + 3 * (Py_ssize_t)pc;                                               \
                }                                                                                  \
                if (stack_push(st, ins[2], pos) < 0) {                                             \
                    st->len = base;                                                                \
                    return NO_MEMORY;                                                              \
                }                                                                                  \
                pc = ins[1];                                                                       \
                continue;                                                                          \
            case OP_JMP: pc = ins[1]; continue;                                                    \
            case OP_NOT_AHEAD:                                                                     \
            case OP_AHEAD:                                                                         \
                r = NAME(p, data, n, ins[1], pos, st, budget);                                     \
                if (r <= OVER_BUDGET) {                                                            \
                    st->len = base;                                                                \
                    return r;                                                                      \
                }                                                                                  \
                if ((r >= 0) == (ins[0] == OP_AHEAD)) {                                            \
                    pc++;                                                                          \
                    continue;                                                                      \
                }                                                                                  \
                goto backtrack;                                                                    \
            case OP_NOT_BEHIND:                                                                    \
            case OP_BEHIND:                                                                        \
                r = NO_MATCH;                                                                      \
                if (pos >= ins[2]) {                                                               \
                    r = NAME(p, data, n, ins[1], pos - ins[2], st, budget);                        \
                    if (r <= OVER_BUDGET) {                                                        \
                        st->len = base;                                                            \
                        return r;                                                                  \
                    }                                                                              \
                }                                                                                  \
                if ((r >= 0) == (ins[0] == OP_BEHIND)) {                                           \
                    pc++;                                                                          \
                    continue;                                                                      \
                }                                                                                  \
                goto backtrack;                                                                    \
            default: st->len = base; return NO_MATCH; /* not reached: compile() checks */        \
            }                                                                                      \
        backtrack:                                                                                 \
            if (st->len == base) return NO_MATCH;                                                  \
            st->len--;                                                                             \
            pc = st->items[st->len].pc;                                                            \
            pos = st->items[st->len].pos;                                                          \
        }                                                                                          \
    }

DEFINE_RUN(run1, PyUnicode_1BYTE_KIND)
DEFINE_RUN(run2, PyUnicode_2BYTE_KIND)
DEFINE_RUN(run4, PyUnicode_4BYTE_KIND)

typedef struct {
    int kind;
    const void *data;
    Py_ssize_t n;
} text_view;

static Py_ssize_t run(const program *p, const text_view *tv, Py_ssize_t pos, stack *st,
                      long budget) {
    switch (tv->kind) {
    case PyUnicode_1BYTE_KIND: return run1(p, tv->data, tv->n, 0, pos, st, &budget);
    case PyUnicode_2BYTE_KIND: return run2(p, tv->data, tv->n, 0, pos, st, &budget);
    default: return run4(p, tv->data, tv->n, 0, pos, st, &budget);
    }
}

/* End of the match of ``rx`` at ``pos`` by ``rx.match(text, pos)``: -1 for
 * none, -4 with an exception set on error. */
static Py_ssize_t re_match_end(PyObject *rx, PyObject *text, Py_ssize_t pos) {
    PyObject *m = PyObject_CallMethod(rx, "match", "On", text, pos);
    if (m == NULL) return -4;
    if (m == Py_None) {
        Py_DECREF(m);
        return NO_MATCH;
    }
    PyObject *end = PyObject_CallMethod(m, "end", NULL);
    Py_DECREF(m);
    if (end == NULL) return -4;
    Py_ssize_t e = PyLong_AsSsize_t(end);
    Py_DECREF(end);
    if (e == -1 && PyErr_Occurred()) return -4;
    if (e < pos) {
        PyErr_SetString(PyExc_ValueError, "match kernel: a match ends before it starts");
        return -4;
    }
    return e;
}

/* The match end at ``pos``: the program's, or (past the budget) the pattern's.
 * -1 for none; -4 with an exception set on error. */
static Py_ssize_t match_at(const program *p, PyObject *rx, PyObject *text, const text_view *tv,
                           Py_ssize_t pos, stack *st, long budget) {
    Py_ssize_t r = run(p, tv, pos, st, budget);
    if (r == OVER_BUDGET) return re_match_end(rx, text, pos);
    if (r == NO_MEMORY) {
        PyErr_NoMemory();
        return -4;
    }
    return r;
}

static const program *get_program(PyObject *capsule) {
    return (const program *)PyCapsule_GetPointer(capsule, CAPSULE_NAME);
}

static PyObject *match(PyObject *self, PyObject *args) {
    PyObject *capsule, *text;
    Py_ssize_t pos;
    long budget = STEP_BUDGET;
    (void)self;
    if (!PyArg_ParseTuple(args, "OUn|l", &capsule, &text, &pos, &budget)) return NULL;
    const program *p = get_program(capsule);
    if (p == NULL || ENSURE_READY(text) < 0) return NULL;
    text_view tv = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)};
    if (pos < 0 || pos > tv.n) {
        PyErr_SetString(PyExc_IndexError, "match: position out of range");
        return NULL;
    }
    stack st = {NULL, 0, 0};
    Py_ssize_t r = run(p, &tv, pos, &st, budget < 0 ? 0 : budget);
    free(st.items);
    if (r == NO_MEMORY) return PyErr_NoMemory();
    return PyLong_FromSsize_t(r);
}

static int by_value(const void *x, const void *y) {
    Py_ssize_t a = *(const Py_ssize_t *)x, b = *(const Py_ssize_t *)y;
    return (a > b) - (a < b);
}

/* Reads ``places`` (a list of ints) sorted into a fresh array; NULL with an
 * exception on error (``*count`` 0 and a non-NULL array for none). */
static Py_ssize_t *sorted_places(PyObject *places, Py_ssize_t *count) {
    PyObject *seq = PySequence_Fast(places, "places must be a sequence of ints");
    if (seq == NULL) return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    Py_ssize_t *out = alloc_zeroed(k, sizeof(Py_ssize_t));
    if (out == NULL) {
        Py_DECREF(seq);
        return NULL;
    }
    int sorted = 1;
    for (Py_ssize_t i = 0; i < k; i++) {
        Py_ssize_t v = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            free(out);
            return NULL;
        }
        out[i] = v;
        if (i > 0 && out[i - 1] > v) sorted = 0;
    }
    Py_DECREF(seq);
    if (!sorted) qsort(out, (size_t)k, sizeof(Py_ssize_t), by_value);
    *count = k;
    return out;
}

/* Mirrors evaluators.text.starts.tried_at: each distinct place in order,
 * skipping those before the resume point (the end of the last match, or one
 * past its start when it was empty). Calls ``emit(ctx, start, end)`` per
 * match; returns -1 with an exception on error (a place outside the text
 * is one: every caller passes places found in it). */
typedef int (*emit_fn)(void *ctx, Py_ssize_t start, Py_ssize_t end);

static int tried_loop(const program *p, PyObject *rx, PyObject *text, const text_view *tv,
                      PyObject *places, stack *st, long budget, emit_fn emit, void *ctx) {
    Py_ssize_t k = 0;
    Py_ssize_t *at = sorted_places(places, &k);
    if (at == NULL) return -1;
    Py_ssize_t resume = 0;
    int rc = 0;
    for (Py_ssize_t i = 0; i < k; i++) {
        Py_ssize_t pl = at[i];
        if (pl < resume || (i > 0 && at[i - 1] == pl)) continue;
        if (pl < 0 || pl > tv->n) {
            PyErr_SetString(PyExc_ValueError, "match kernel: a place outside the text");
            rc = -1;
            break;
        }
        Py_ssize_t e = match_at(p, rx, text, tv, pl, st, budget);
        if (e == -4) {
            rc = -1;
            break;
        }
        if (e < 0) continue;
        if (emit(ctx, pl, e) < 0) {
            rc = -1;
            break;
        }
        resume = e > pl + 1 ? e : pl + 1;
    }
    free(at);
    return rc;
}

static int emit_span(void *ctx, Py_ssize_t start, Py_ssize_t end) {
    PyObject *span = Py_BuildValue("(nn)", start, end);
    if (span == NULL) return -1;
    int rc = PyList_Append((PyObject *)ctx, span);
    Py_DECREF(span);
    return rc;
}

static PyObject *tried(PyObject *self, PyObject *args) {
    PyObject *capsule, *rx, *text, *places;
    long budget = STEP_BUDGET;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOUO|l", &capsule, &rx, &text, &places, &budget)) return NULL;
    if (budget < 0) budget = 0;
    const program *p = get_program(capsule);
    if (p == NULL || ENSURE_READY(text) < 0) return NULL;
    text_view tv = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)};
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    stack st = {NULL, 0, 0};
    if (tried_loop(p, rx, text, &tv, places, &st, budget, emit_span, out) < 0) Py_CLEAR(out);
    free(st.items);
    return out;
}

typedef struct {
    PyObject *out;       /* list of candidates */
    PyObject *covers;    /* callable or NULL */
    PyTypeObject *type;  /* the Candidate tuple subclass */
    PyObject *label;     /* (kind, category, detail, priority) */
} cand_ctx;

/* Mirrors the body of injection._phrases' loops: keep the span unless a
 * prose quotation covers it, as Candidate(kind, category, s, e, detail, priority). */
static int emit_candidate(void *vctx, Py_ssize_t start, Py_ssize_t end) {
    cand_ctx *c = vctx;
    if (c->covers != NULL) {
        PyObject *r = PyObject_CallFunction(c->covers, "nn", start, end);
        if (r == NULL) return -1;
        int covered = PyObject_IsTrue(r);
        Py_DECREF(r);
        if (covered < 0) return -1;
        if (covered) return 0;
    }
    PyObject *fields = Py_BuildValue("(OOnnOO)", PyTuple_GET_ITEM(c->label, 0),
                                     PyTuple_GET_ITEM(c->label, 1), start, end,
                                     PyTuple_GET_ITEM(c->label, 2), PyTuple_GET_ITEM(c->label, 3));
    if (fields == NULL) return -1;
    /* tuple.__new__(cand_type, fields): the NamedTuple without its Python __new__ */
    PyObject *targs = PyTuple_Pack(1, fields);
    Py_DECREF(fields);
    if (targs == NULL) return -1;
    PyObject *cand = PyTuple_Type.tp_new(c->type, targs, NULL);
    Py_DECREF(targs);
    if (cand == NULL) return -1;
    int rc = PyList_Append(c->out, cand);
    Py_DECREF(cand);
    return rc;
}

static PyObject *candidates(PyObject *self, PyObject *args) {
    PyObject *progs, *rxs, *text, *found, *labels, *covers, *type;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!UO!O!OO!", &PyTuple_Type, &progs, &PyTuple_Type, &rxs,
                          &text, &PyList_Type, &found, &PyTuple_Type, &labels, &covers,
                          &PyType_Type, &type)) {
        return NULL;
    }
    Py_ssize_t k = PyTuple_GET_SIZE(progs);
    if (PyTuple_GET_SIZE(rxs) != k || PyTuple_GET_SIZE(labels) != k ||
        PyList_GET_SIZE(found) < k) {
        fail("programs, patterns and labels differ in number, or found is short");
        return NULL;
    }
    if (!PyType_IsSubtype((PyTypeObject *)type, &PyTuple_Type)) {
        fail("the candidate type is a tuple subclass");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *label = PyTuple_GET_ITEM(labels, i);
        if (!PyTuple_Check(label) || PyTuple_GET_SIZE(label) != 4) {
            fail("a label is (kind, category, detail, priority)");
            return NULL;
        }
    }
    if (ENSURE_READY(text) < 0) return NULL;
    text_view tv = {PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text)};
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    stack st = {NULL, 0, 0};
    cand_ctx ctx = {out, covers == Py_None ? NULL : covers, (PyTypeObject *)type, NULL};
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *places = PyList_GET_ITEM(found, i);
        if (places == Py_None) continue;
        int truth = PyObject_IsTrue(places);
        if (truth < 0) goto error;
        if (!truth) continue;
        const program *p = get_program(PyTuple_GET_ITEM(progs, i));
        if (p == NULL) goto error;
        ctx.label = PyTuple_GET_ITEM(labels, i);
        if (tried_loop(p, PyTuple_GET_ITEM(rxs, i), text, &tv, places, &st, STEP_BUDGET,
                       emit_candidate, &ctx) < 0) {
            goto error;
        }
    }
    free(st.items);
    return out;
error:
    free(st.items);
    Py_DECREF(out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"compile", compile, METH_VARARGS,
     "compile(code, classes) -> a program (see evaluators/text/backtrack.py)."},
    {"match", match, METH_VARARGS,
     "match(program, text, pos, budget=...) -> match end, -1 for none, -2 over budget."},
    {"tried", tried, METH_VARARGS,
     "tried(program, rx, text, places, budget=...) -> the spans of starts.tried_at(...)."},
    {"candidates", candidates, METH_VARARGS,
     "candidates(programs, rxs, text, found, labels, covers, cand_type) -> the phrase tier."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "evaluators.text._matchkernel",
    "A backtracking matcher for bounded patterns (see evaluators/text/backtrack.py).", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__matchkernel(void) { return PyModule_Create(&module); }
