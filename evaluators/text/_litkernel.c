/*
 * evaluators.text._litkernel: which of a fixed set of ASCII literals occur in a text.
 *
 * ``compile(literals)`` takes ``LiteralSet.literals`` (a tuple of non-empty
 * ASCII str, sorted and distinct) and returns an opaque matcher;
 * ``present(matcher, text)`` returns exactly what
 * ``LiteralSet._present_reference(text)`` returns (the RE2 ``Set`` pass):
 * ``frozenset(lit for lit in literals if lit in text)``, for a text of any
 * str kind (code points are compared, so the RE2 pass's UTF-8 reading and
 * this one agree: an ASCII literal occurs in a str exactly when it occurs in
 * its UTF-8 bytes). The frozenset is built in literal order; every caller
 * reads it as a set (membership, ``isdisjoint``, ``&``, truth), never by
 * iteration order.
 *
 * Why: the literal gates (the lowered output's family, the tool-failure and
 * directive tables, the secret locators) are asked a dozen times an
 * evaluation; the RE2 set costs a Python wrapper, an encode and a DFA whose
 * ~2 KB states are cold by the time the next rule asks. Here a 4 KB trigram
 * filter rejects almost every position in a few instructions, and only
 * positions whose first three characters hash like a literal's are compared.
 *
 * Scan (``present_impl``): a hash of the last three characters is rolled
 * along the text (each step shifts the older characters out by five bits,
 * so after three steps a character has left the 15-bit mask); where its bit
 * is set in ``tri`` the literals of three or more characters chained under
 * the hash's low bits are compared there. Literals of one
 * or two characters are few (a line break, "#", "//"): each is looked for on
 * its own (``short_in``: memchr for its first character on 1-byte text).
 * The scan stops once every long literal has been found.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define RD(i) PyUnicode_READ(kind, data, (i))
#define KERNEL static inline Py_ALWAYS_INLINE
#define CAPSULE_NAME "evaluators.text._litkernel.matcher"

#define TRI_MASK 0x7FFFu
#define QUAD_MASK 0xFFFFu
#define TRI_BUCKETS 4096u /* chains keyed by the low bits of the trigram hash */

typedef struct {
    PyObject *literals; /* the tuple (owned reference) */
    Py_ssize_t count;
    Py_ssize_t n_long; /* literals of three or more characters */
    const Py_UCS1 **chars;
    Py_ssize_t *lens;
    int *next;  /* next literal of its length class (3, more) in its trigram bucket, or -1 */
    int *shorts; /* indices of the literals shorter than three characters */
    Py_ssize_t n_short;
    int head3[TRI_BUCKETS]; /* first three-character literal of each trigram bucket, or -1 */
    int head4[TRI_BUCKETS]; /* first longer literal of each trigram bucket, or -1 */
    unsigned char tri[(TRI_MASK + 1) / 8];   /* first three characters of each long literal */
    unsigned char quad[(QUAD_MASK + 1) / 8]; /* first four characters of each longer literal */
} matcher;

static inline unsigned tri_step(unsigned h, Py_UCS4 c) { return ((h << 5) ^ (unsigned)c) & TRI_MASK; }
/* The first four characters of a place (ASCII, else no literal is there). */
static inline unsigned quad_hash(Py_UCS4 a, Py_UCS4 b, Py_UCS4 c, Py_UCS4 d) {
    uint32_t x = (uint32_t)a | (uint32_t)b << 8 | (uint32_t)c << 16 | (uint32_t)d << 24;
    return (x * 0x9E3779B1u) >> 16;
}

static void matcher_free(matcher *m) {
    if (m == NULL)
        return;
    Py_XDECREF(m->literals);
    PyMem_Free(m->chars);
    PyMem_Free(m->lens);
    PyMem_Free(m->next);
    PyMem_Free(m->shorts);
    PyMem_Free(m);
}

static void capsule_free(PyObject *capsule) {
    matcher_free((matcher *)PyCapsule_GetPointer(capsule, CAPSULE_NAME));
}

static PyObject *compile(PyObject *self, PyObject *arg) {
    (void)self;
    if (!PyTuple_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "compile(literals: tuple[str, ...])");
        return NULL;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(arg);
    if (count > 1000000) {
        PyErr_SetString(PyExc_ValueError, "compile(): too many literals");
        return NULL;
    }
    matcher *m = PyMem_Calloc(1, sizeof(matcher));
    if (m == NULL)
        return PyErr_NoMemory();
    Py_INCREF(arg);
    m->literals = arg;
    m->count = count;
    size_t slots = count > 0 ? (size_t)count : 1;
    m->chars = PyMem_Calloc(slots, sizeof(const Py_UCS1 *));
    m->lens = PyMem_Calloc(slots, sizeof(Py_ssize_t));
    m->next = PyMem_Calloc(slots, sizeof(int));
    m->shorts = PyMem_Calloc(slots, sizeof(int));
    if (m->chars == NULL || m->lens == NULL || m->next == NULL || m->shorts == NULL) {
        matcher_free(m);
        return PyErr_NoMemory();
    }
    for (unsigned b = 0; b < TRI_BUCKETS; b++)
        m->head3[b] = m->head4[b] = -1;
    /* chain in reverse so each bucket lists its literals in tuple order */
    for (Py_ssize_t k = count - 1; k >= 0; k--) {
        PyObject *lit = PyTuple_GET_ITEM(arg, k);
        if (!PyUnicode_Check(lit) || PyUnicode_READY(lit) < 0 || !PyUnicode_IS_ASCII(lit) ||
            PyUnicode_GET_LENGTH(lit) == 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "compile(): literals are non-empty ASCII str");
            matcher_free(m);
            return NULL;
        }
        const Py_UCS1 *chars = PyUnicode_1BYTE_DATA(lit);
        Py_ssize_t len = PyUnicode_GET_LENGTH(lit);
        m->chars[k] = chars;
        m->lens[k] = len;
        m->next[k] = -1;
        if (len < 3)
            continue;
        unsigned h = tri_step(tri_step(tri_step(0, chars[0]), chars[1]), chars[2]);
        m->tri[h >> 3] |= (unsigned char)(1u << (h & 7));
        int *head = len == 3 ? m->head3 : m->head4;
        m->next[k] = head[h & (TRI_BUCKETS - 1)];
        head[h & (TRI_BUCKETS - 1)] = (int)k;
        m->n_long++;
        if (len > 3) {
            unsigned q = quad_hash(chars[0], chars[1], chars[2], chars[3]);
            m->quad[q >> 3] |= (unsigned char)(1u << (q & 7));
        }
    }
    for (Py_ssize_t k = 0; k < count; k++)
        if (m->lens[k] < 3)
            m->shorts[m->n_short++] = (int)k;
    PyObject *capsule = PyCapsule_New(m, CAPSULE_NAME, capsule_free);
    if (capsule == NULL)
        matcher_free(m);
    return capsule;
}

/* Whether the literal ``k`` occurs at ``i`` (its first characters are only
 * known to hash as the literal's do). */
KERNEL int literal_at(const void *data, int kind, Py_ssize_t n, const matcher *m, int k,
                      Py_ssize_t i) {
    Py_ssize_t len = m->lens[k];
    if (len > n - i)
        return 0;
    const Py_UCS1 *chars = m->chars[k];
    Py_ssize_t j = 0;
    while (j < len && RD(i + j) == chars[j])
        j++;
    return j == len;
}

/* Compares the literals of the chain starting at ``k`` with position ``i``,
 * marking those found; returns how many are still unfound. */
KERNEL Py_ssize_t try_chain(const void *data, int kind, Py_ssize_t n, const matcher *m, int k,
                            Py_ssize_t i, char *found, Py_ssize_t left) {
    for (; k >= 0; k = m->next[k]) {
        if (!found[k] && literal_at(data, kind, n, m, k, i)) {
            found[k] = 1;
            if (--left == 0)
                return 0;
        }
    }
    return left;
}

/* Marks ``found[k]`` for each literal of three or more characters that
 * occurs in the text. A hash of the last three characters is rolled along
 * the text (each step shifts the older characters out by five bits, so
 * after three steps a character has left the 15-bit mask); only where its
 * bit is marked in ``tri`` (the literals' first three characters) are the
 * literals chained under that hash's low bits compared (a literal is
 * compared character by character, so a non-ASCII character fails there);
 * literals of four or more characters only where a hash of the first four
 * is marked in ``quad`` too.
 * One load and one well-predicted branch per character: on these
 * machines that beat every branch-free or prefiltered variant tried. */
KERNEL void present_impl(const void *data, int kind, Py_ssize_t n, const matcher *m, char *found) {
    Py_ssize_t left = m->n_long;
    const unsigned char *tri = m->tri;
    unsigned h = 0;
    for (Py_ssize_t i = 0; i < n && left > 0; i++) {
        h = tri_step(h, RD(i));
        if (!(tri[h >> 3] & (1u << (h & 7))) || i < 2)
            continue;
        unsigned b = h & (TRI_BUCKETS - 1);
        if (m->head3[b] >= 0)
            left = try_chain(data, kind, n, m, m->head3[b], i - 2, found, left);
        if (m->head4[b] < 0 || i + 1 >= n || left == 0)
            continue;
        /* a longer literal is tried only where the first four characters
         * hash like one's: "the" opens a literal, "the " (most of them) none */
        Py_UCS4 a = RD(i - 2), bb = RD(i - 1), c = RD(i), d = RD(i + 1);
        if ((a | bb | c | d) >= 128)
            continue;
        unsigned q = quad_hash(a, bb, c, d);
        if (m->quad[q >> 3] & (1u << (q & 7)))
            left = try_chain(data, kind, n, m, m->head4[b], i - 2, found, left);
    }
}

/* Whether the literal ``chars`` of one or two characters occurs in the text
 * (``lit in text``). On 1-byte text its first character is found with
 * memchr: CPython's ``in`` for a two-character needle walks the text at
 * about a nanosecond a character, which for the comment-mark gates ("--",
 * "//", slash-star) cost more than the whole trigram scan. */
static int short_in(const void *data, int kind, Py_ssize_t n, const Py_UCS1 *chars,
                    Py_ssize_t len) {
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *b = (const Py_UCS1 *)data, *end = b + n;
        const Py_UCS1 *p = n > 0 ? memchr(b, chars[0], (size_t)n) : NULL;
        while (p != NULL) {
            if (len == 1 || (p + 1 < end && p[1] == chars[1]))
                return 1;
            p = p + 1 < end ? memchr(p + 1, chars[0], (size_t)(end - p - 1)) : NULL;
        }
        return 0;
    }
    for (Py_ssize_t i = 0; i + len <= n; i++) {
        if (PyUnicode_READ(kind, data, i) == chars[0] &&
            (len == 1 || PyUnicode_READ(kind, data, i + 1) == chars[1]))
            return 1;
    }
    return 0;
}

static PyObject *present(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 2 || !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "present(matcher, text: str)");
        return NULL;
    }
    const matcher *m = PyCapsule_GetPointer(args[0], CAPSULE_NAME);
    if (m == NULL)
        return NULL;
    PyObject *t = args[1];
    if (PyUnicode_READY(t) < 0)
        return NULL;
    char stack[256];
    char *found = m->count <= (Py_ssize_t)sizeof stack ? stack : PyMem_Malloc((size_t)m->count);
    if (found == NULL)
        return PyErr_NoMemory();
    memset(found, 0, (size_t)m->count);
    PyObject *result = NULL, *hits = NULL;
    int kind = PyUnicode_KIND(t);
    const void *data = PyUnicode_DATA(t);
    Py_ssize_t n = PyUnicode_GET_LENGTH(t);
    for (Py_ssize_t s = 0; s < m->n_short; s++) {
        int k = m->shorts[s];
        found[k] = (char)short_in(data, kind, n, m->chars[k], m->lens[k]);
    }
    switch (kind) {
    case PyUnicode_1BYTE_KIND:
        present_impl(data, PyUnicode_1BYTE_KIND, n, m, found);
        break;
    case PyUnicode_2BYTE_KIND:
        present_impl(data, PyUnicode_2BYTE_KIND, n, m, found);
        break;
    default:
        present_impl(data, PyUnicode_4BYTE_KIND, n, m, found);
        break;
    }
    Py_ssize_t n_found = 0;
    for (Py_ssize_t k = 0; k < m->count; k++)
        n_found += found[k];
    if (n_found == 0) {
        result = PyFrozenSet_New(NULL);
        goto done;
    }
    hits = PyTuple_New(n_found);
    if (hits == NULL)
        goto done;
    for (Py_ssize_t k = 0, j = 0; k < m->count; k++) {
        if (found[k]) {
            PyObject *lit = PyTuple_GET_ITEM(m->literals, k);
            Py_INCREF(lit);
            PyTuple_SET_ITEM(hits, j++, lit);
        }
    }
    result = PyFrozenSet_New(hits);
done:
    Py_XDECREF(hits);
    if (found != stack)
        PyMem_Free(found);
    return result;
}

static PyMethodDef methods[] = {
    {"compile", compile, METH_O,
     "compile(literals) -> matcher: the literals (non-empty ASCII str) for present()."},
    {"present", (PyCFunction)(void (*)(void))present, METH_FASTCALL,
     "present(matcher, text) -> frozenset: the matcher's literals that occur in text."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "evaluators.text._litkernel",
    "Which of a fixed set of ASCII literals occur in a text (LiteralSet.present).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__litkernel(void) { return PyModule_Create(&module); }
