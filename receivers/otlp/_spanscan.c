/*
 * receivers.otlp._spanscan: the OTLP ingest path's span scanner, in C.
 *
 * Why this exists: at ingest, Iris needs only a span's ids, name, kind, times,
 * status, a handful of attributes (``INGEST_ATTRIBUTE_KEYS``) and its wire
 * bytes; everything else stays protobuf until a worker reads the span back.
 * Reading those fields through upb's Python objects costs ~25 us a span on a
 * 2 GHz core (one wrapper object per attribute); walking the wire format here
 * costs well under one.
 *
 * Contract: the body has already been parsed successfully by upb
 * (``ExportTraceServiceRequest.FromString``), so it is well-formed protobuf
 * with valid UTF-8 strings. The scanner still checks every length against the
 * buffer and raises ValueError rather than read out of bounds. Field semantics
 * follow protobuf parsing exactly: the last occurrence of a scalar wins, a
 * field with an unexpected wire type is an unknown field (ignored), a
 * repeated occurrence of a sub-message merges into it.
 *
 * Three functions: ``scan`` for the request path (below), ``expand`` for
 * readers of stored spans and ``scan_stored`` for the worker, which reads a
 * stored batch's spans whole (both further down).
 *
 * scan(body: bytes, wanted: tuple[str, ...]) -> list
 *   One list per ResourceSpans, holding one list per ScopeSpans, holding one
 *   tuple per span, in wire order (the order of upb's repeated fields):
 *     valid ids:   (trace_hex, span_hex, parent_hex | None, name, kind,
 *                   start_ns, end_ns, status_code, status_message | None,
 *                   span_bytes, attrs)
 *     invalid ids: (None, raw_trace_id, raw_span_id, raw_parent_span_id)
 *   ``attrs`` maps each wanted key present to its value, converted as
 *   ``expand`` converts values (below). Ids are valid as OTLP defines them: a 16-byte non-zero
 *   trace id, an 8-byte non-zero span id, an empty or 8-byte parent (all
 *   zeros meaning no parent).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_SGROUP = 3, WT_EGROUP = 4, WT_I32 = 5 };

typedef struct {
    const uint8_t *p;
    const uint8_t *end;
} reader;

typedef struct {
    const uint8_t *p;
    Py_ssize_t n;
} slice;

#define MAX_WANTED 64

typedef struct {
    slice keys[MAX_WANTED];
    PyObject *names[MAX_WANTED]; /* the same keys as str (borrowed, hash cached) */
    Py_ssize_t count;
    int full; /* every attribute, and the events (``scan_stored``) */
} wanted_keys;

static int fail(const char *what) {
    PyErr_Format(PyExc_ValueError, "OTLP span scan: %s", what);
    return -1;
}

static int read_varint(reader *r, uint64_t *out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end) return fail("truncated varint");
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return fail("varint longer than 10 bytes");
}

/* Reads one tag; returns 1 with field and wire type set, 0 at the end, -1 on error. */
static int read_tag(reader *r, uint32_t *field, int *wire) {
    if (r->p >= r->end) return 0;
    uint64_t tag;
    if (read_varint(r, &tag) < 0) return -1;
    *field = (uint32_t)(tag >> 3);
    *wire = (int)(tag & 7);
    if (*field == 0) return fail("field number 0");
    return 1;
}

static int read_len(reader *r, slice *out) {
    uint64_t n;
    if (read_varint(r, &n) < 0) return -1;
    if (n > (uint64_t)(r->end - r->p)) return fail("length past the end of the buffer");
    out->p = r->p;
    out->n = (Py_ssize_t)n;
    r->p += n;
    return 0;
}

static int skip_group(reader *r, uint32_t field, int depth);

/* Skips the value of a field whose tag was just read. */
static int skip_value(reader *r, uint32_t field, int wire, int depth) {
    uint64_t dummy;
    slice s;
    switch (wire) {
    case WT_VARINT:
        return read_varint(r, &dummy);
    case WT_I64:
        if (r->end - r->p < 8) return fail("truncated fixed64");
        r->p += 8;
        return 0;
    case WT_LEN:
        return read_len(r, &s);
    case WT_I32:
        if (r->end - r->p < 4) return fail("truncated fixed32");
        r->p += 4;
        return 0;
    case WT_SGROUP:
        return skip_group(r, field, depth + 1);
    default:
        return fail("unexpected wire type");
    }
}

static int skip_group(reader *r, uint32_t field, int depth) {
    if (depth > 100) return fail("groups nested too deep");
    for (;;) {
        uint32_t f;
        int w;
        int got = read_tag(r, &f, &w);
        if (got < 0) return -1;
        if (got == 0) return fail("unterminated group");
        if (w == WT_EGROUP) return f == field ? 0 : fail("mismatched end of group");
        if (skip_value(r, f, w, depth) < 0) return -1;
    }
}

static int read_fixed64(reader *r, uint64_t *out) {
    if (r->end - r->p < 8) return fail("truncated fixed64");
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | r->p[i];
    r->p += 8;
    *out = v;
    return 0;
}

static const char HEX[] = "0123456789abcdef";

static PyObject *hex_of(slice s) {
    PyObject *out = PyUnicode_New(s.n * 2, 127);
    if (out == NULL) return NULL;
    Py_UCS1 *d = PyUnicode_1BYTE_DATA(out);
    for (Py_ssize_t i = 0; i < s.n; i++) {
        d[2 * i] = (Py_UCS1)HEX[s.p[i] >> 4];
        d[2 * i + 1] = (Py_UCS1)HEX[s.p[i] & 15];
    }
    return out;
}

static int all_zero(slice s) {
    for (Py_ssize_t i = 0; i < s.n; i++)
        if (s.p[i]) return 0;
    return 1;
}

static PyObject *text_of(slice s) {
    return PyUnicode_DecodeUTF8((const char *)s.p, s.n, "strict");
}

static int full_key_value(slice kv, PyObject *into, int depth, PyObject *known_name);
static PyObject *full_event(slice e, const void *unused);

/* Adds the KeyValue ``kv`` to ``attrs`` when its key is wanted, its value
   converted as ``expand`` converts every value. The key is the caller's str
   equal to it (its hash already computed), not a new one decoded per span. */
static int wanted_attribute(slice kv, const wanted_keys *wk, PyObject **attrs) {
    reader r = {kv.p, kv.p + kv.n};
    uint32_t field;
    int wire, got;
    slice key = {(const uint8_t *)"", 0};
    while ((got = read_tag(&r, &field, &wire)) == 1) {
        int rc = field == 1 && wire == WT_LEN ? read_len(&r, &key) : skip_value(&r, field, wire, 0);
        if (rc < 0) return -1;
    }
    if (got < 0) return -1;
    for (Py_ssize_t i = 0; i < wk->count; i++) {
        if (wk->keys[i].n != key.n || memcmp(wk->keys[i].p, key.p, (size_t)key.n) != 0) continue;
        if (*attrs == NULL && (*attrs = PyDict_New()) == NULL) return -1;
        return full_key_value(kv, *attrs, 0, wk->names[i]);
    }
    return 0;
}

/* Status: message (2) and code (3); a repeated occurrence merges in order. */
static int read_status(slice s, slice *message, uint64_t *code) {
    reader r = {s.p, s.p + s.n};
    uint32_t field;
    int wire, got;
    while ((got = read_tag(&r, &field, &wire)) == 1) {
        if (field == 2 && wire == WT_LEN) {
            if (read_len(&r, message) < 0) return -1;
        } else if (field == 3 && wire == WT_VARINT) {
            if (read_varint(&r, code) < 0) return -1;
        } else if (skip_value(&r, field, wire, 0) < 0) {
            return -1;
        }
    }
    return got;
}

static PyObject *scan_span(slice span, const wanted_keys *wk) {
    reader r = {span.p, span.p + span.n};
    slice trace = {(const uint8_t *)"", 0}, sid = {(const uint8_t *)"", 0};
    slice parent = {(const uint8_t *)"", 0}, name = {(const uint8_t *)"", 0};
    slice message = {(const uint8_t *)"", 0}, tmp;
    uint64_t kind = 0, start = 0, end = 0, code = 0;
    PyObject *attrs = NULL, *events = NULL;
    uint32_t field;
    int wire, got;
    while ((got = read_tag(&r, &field, &wire)) == 1) {
        int rc;
        switch (field) {
        case 1: rc = wire == WT_LEN ? read_len(&r, &trace) : skip_value(&r, field, wire, 0); break;
        case 2: rc = wire == WT_LEN ? read_len(&r, &sid) : skip_value(&r, field, wire, 0); break;
        case 4: rc = wire == WT_LEN ? read_len(&r, &parent) : skip_value(&r, field, wire, 0); break;
        case 5: rc = wire == WT_LEN ? read_len(&r, &name) : skip_value(&r, field, wire, 0); break;
        case 6: rc = wire == WT_VARINT ? read_varint(&r, &kind) : skip_value(&r, field, wire, 0); break;
        case 7: rc = wire == WT_I64 ? read_fixed64(&r, &start) : skip_value(&r, field, wire, 0); break;
        case 8: rc = wire == WT_I64 ? read_fixed64(&r, &end) : skip_value(&r, field, wire, 0); break;
        case 9:
            if (wire != WT_LEN) {
                rc = skip_value(&r, field, wire, 0);
            } else {
                rc = read_len(&r, &tmp);
                if (rc == 0 && wk->full) {
                    if (attrs == NULL && (attrs = PyDict_New()) == NULL) rc = -1;
                    else rc = full_key_value(tmp, attrs, 0, NULL);
                } else if (rc == 0 && wk->count) {
                    rc = wanted_attribute(tmp, wk, &attrs);
                }
            }
            break;
        case 11: /* Span.events, read only for ``scan_stored`` */
            if (wire != WT_LEN || !wk->full) {
                rc = skip_value(&r, field, wire, 0);
            } else {
                rc = read_len(&r, &tmp);
                if (rc == 0 && events == NULL && (events = PyList_New(0)) == NULL) rc = -1;
                if (rc == 0) {
                    PyObject *event = full_event(tmp, NULL);
                    rc = event == NULL ? -1 : PyList_Append(events, event);
                    Py_XDECREF(event);
                }
            }
            break;
        case 15:
            if (wire != WT_LEN) {
                rc = skip_value(&r, field, wire, 0);
            } else {
                rc = read_len(&r, &tmp);
                if (rc == 0) rc = read_status(tmp, &message, &code);
            }
            break;
        default:
            rc = skip_value(&r, field, wire, 0);
        }
        if (rc < 0) {
            Py_XDECREF(attrs);
            Py_XDECREF(events);
            return NULL;
        }
    }
    if (got < 0) {
        Py_XDECREF(attrs);
        Py_XDECREF(events);
        return NULL;
    }
    int valid = trace.n == 16 && !all_zero(trace) && sid.n == 8 && !all_zero(sid) &&
                (parent.n == 0 || parent.n == 8);
    if (!valid) {
        Py_XDECREF(attrs);
        Py_XDECREF(events);
        return Py_BuildValue("(Oy#y#y#)", Py_None, (const char *)trace.p, trace.n,
                             (const char *)sid.p, sid.n, (const char *)parent.p, parent.n);
    }
    PyObject *items[11] = {NULL};
    items[0] = hex_of(trace);
    items[1] = hex_of(sid);
    if (parent.n == 0 || all_zero(parent)) {
        items[2] = Py_None;
        Py_INCREF(Py_None);
    } else {
        items[2] = hex_of(parent);
    }
    items[3] = text_of(name);
    /* enum fields are int32 on the wire: truncate as protobuf does */
    items[4] = PyLong_FromLong((long)(int32_t)(uint32_t)kind);
    items[5] = PyLong_FromUnsignedLongLong(start);
    items[6] = PyLong_FromUnsignedLongLong(end);
    items[7] = PyLong_FromLong((long)(int32_t)(uint32_t)code);
    if (message.n == 0) {
        items[8] = Py_None;
        Py_INCREF(Py_None);
    } else {
        items[8] = text_of(message);
    }
    if (wk->full) {
        items[9] = events != NULL ? events : PyList_New(0);
    } else {
        items[9] = PyBytes_FromStringAndSize((const char *)span.p, span.n);
    }
    if (attrs == NULL) attrs = PyDict_New();
    items[10] = attrs;
    PyObject *out = PyTuple_New(11);
    for (int i = 0; i < 11; i++) {
        if (items[i] == NULL || out == NULL) {
            for (int j = 0; j < 11; j++) Py_XDECREF(items[j]);
            Py_XDECREF(out);
            return NULL;
        }
    }
    for (int i = 0; i < 11; i++) PyTuple_SET_ITEM(out, i, items[i]);
    return out;
}

/* A list with ``inner(occurrence, ctx)`` for each occurrence of the repeated
   sub-message field ``want`` of message ``s``, in wire order. */
typedef PyObject *(*inner_fn)(slice, const void *ctx);

static PyObject *repeated_list(slice s, uint32_t want, inner_fn inner, const void *ctx) {
    reader r = {s.p, s.p + s.n};
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    uint32_t field;
    int wire, got;
    while ((got = read_tag(&r, &field, &wire)) == 1) {
        if (field == want && wire == WT_LEN) {
            slice sub;
            if (read_len(&r, &sub) < 0) goto error;
            PyObject *item = inner(sub, ctx);
            if (item == NULL) goto error;
            int rc = PyList_Append(out, item);
            Py_DECREF(item);
            if (rc < 0) goto error;
        } else if (skip_value(&r, field, wire, 0) < 0) {
            goto error;
        }
    }
    if (got == 0) return out;
error:
    Py_DECREF(out);
    return NULL;
}

static PyObject *scan_span_ctx(slice s, const void *wk) { return scan_span(s, wk); }

static PyObject *scan_scope_spans(slice s, const void *wk) {
    return repeated_list(s, 2, scan_span_ctx, wk); /* ScopeSpans.spans = 2 */
}

static PyObject *scan_resource_spans(slice s, const void *wk) {
    return repeated_list(s, 2, scan_scope_spans, wk); /* ResourceSpans.scope_spans = 2 */
}

static PyObject *scan(PyObject *self, PyObject *args) {
    Py_buffer body;
    PyObject *wanted;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*O!", &body, &PyTuple_Type, &wanted)) return NULL;
    wanted_keys wk;
    wk.full = 0;
    wk.count = PyTuple_GET_SIZE(wanted);
    if (wk.count > MAX_WANTED) {
        PyBuffer_Release(&body);
        PyErr_SetString(PyExc_ValueError, "OTLP span scan: too many wanted keys");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < wk.count; i++) {
        PyObject *k = PyTuple_GET_ITEM(wanted, i);
        if (!PyUnicode_Check(k)) {
            PyBuffer_Release(&body);
            PyErr_SetString(PyExc_TypeError, "OTLP span scan: wanted keys must be str");
            return NULL;
        }
        const char *utf8 = PyUnicode_AsUTF8AndSize(k, &wk.keys[i].n);
        if (utf8 == NULL) {
            PyBuffer_Release(&body);
            return NULL;
        }
        wk.keys[i].p = (const uint8_t *)utf8;
        wk.names[i] = k;
    }
    slice all = {(const uint8_t *)body.buf, body.len};
    /* ExportTraceServiceRequest.resource_spans = 1 */
    PyObject *out = repeated_list(all, 1, scan_resource_spans, &wk);
    PyBuffer_Release(&body);
    return out;
}

/* scan_stored(resource_spans: bytes) -> list
 *   A stored span batch (a serialized ResourceSpans without its resource,
 *   ``storage.spans``) read in one pass for a worker: one list per
 *   ScopeSpans, one tuple per span, as ``scan`` gives but with the span's
 *   events (a list of ``expand``'s event tuples) in place of its bytes and
 *   every attribute, both exactly as ``expand`` converts them. */
static PyObject *scan_stored(PyObject *self, PyObject *args) {
    Py_buffer body;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*", &body)) return NULL;
    wanted_keys wk;
    wk.full = 1;
    wk.count = 0;
    slice all = {(const uint8_t *)body.buf, body.len};
    PyObject *out = scan_resource_spans(all, &wk);
    PyBuffer_Release(&body);
    return out;
}

/* ------------------------------------------------------------------------
 * expand(span_bytes) -> (attributes, events): a stored span's attributes and
 * events as the full decoder converts them (receivers.otlp.values.pb_any):
 * str, int, bool, float, list (array), dict (key-value list), bytes as UTF-8
 * text or else hex, None for an unset value; a repeated key keeps its first
 * position and its last value. Events are (name, time_unix_nano, attributes).
 *
 * A sub-message field that occurs more than once is merged, as protobuf
 * parsing does, by reading its occurrences as one concatenated message.
 */

#define MAX_DEPTH 120

typedef struct {
    slice *parts;
    Py_ssize_t count, cap;
    slice inline_parts[2];
} parts;

static void parts_init(parts *p) {
    p->parts = p->inline_parts;
    p->count = 0;
    p->cap = 2;
}

static void parts_free(parts *p) {
    if (p->parts != p->inline_parts) PyMem_Free(p->parts);
    parts_init(p);
}

static int parts_add(parts *p, slice s) {
    if (p->count == p->cap) {
        Py_ssize_t cap = p->cap * 2;
        slice *grown = PyMem_Malloc((size_t)cap * sizeof(slice));
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(grown, p->parts, (size_t)p->count * sizeof(slice));
        if (p->parts != p->inline_parts) PyMem_Free(p->parts);
        p->parts = grown;
        p->cap = cap;
    }
    p->parts[p->count++] = s;
    return 0;
}

/* One message from its occurrences: the only one as it is, several joined
   into ``*owned`` (freed by the caller). */
static int parts_join(const parts *p, slice *out, PyObject **owned) {
    *owned = NULL;
    if (p->count == 1) {
        *out = p->parts[0];
        return 0;
    }
    Py_ssize_t n = 0;
    for (Py_ssize_t i = 0; i < p->count; i++) n += p->parts[i].n;
    *owned = PyBytes_FromStringAndSize(NULL, n);
    if (*owned == NULL) return -1;
    char *d = PyBytes_AS_STRING(*owned);
    for (Py_ssize_t i = 0; i < p->count; i++) {
        memcpy(d, p->parts[i].p, (size_t)p->parts[i].n);
        d += p->parts[i].n;
    }
    out->p = (const uint8_t *)PyBytes_AS_STRING(*owned);
    out->n = n;
    return 0;
}

static PyObject *bytes_text_or_hex(slice s) {
    PyObject *text = PyUnicode_DecodeUTF8((const char *)s.p, s.n, "strict");
    if (text != NULL || !PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) return text;
    PyErr_Clear();
    return hex_of(s);
}

static PyObject *full_value(slice v, int depth);
static int full_attributes(slice container, uint32_t field_number, PyObject *into, int depth);

static PyObject *full_value_ctx(slice v, const void *depth) {
    return full_value(v, *(const int *)depth);
}

/* ArrayValue (values = 1) as a list. */
static PyObject *full_array(slice a, int depth) {
    int next = depth + 1;
    return repeated_list(a, 1, full_value_ctx, &next);
}

/* An AnyValue (see the header of this section). */
static PyObject *full_value(slice v, int depth) {
    if (depth > MAX_DEPTH) {
        fail("values nested too deep");
        return NULL;
    }
    reader r = {v.p, v.p + v.n};
    uint32_t field, last = 0;
    int wire, got;
    slice str = {NULL, 0};
    uint64_t num = 0;
    parts msg; /* occurrences of the current array or key-value list member */
    parts_init(&msg);
    while ((got = read_tag(&r, &field, &wire)) == 1) {
        int expected;
        switch (field) {
        case 1: case 5: case 6: case 7: expected = WT_LEN; break;
        case 2: case 3: expected = WT_VARINT; break;
        case 4: expected = WT_I64; break;
        default: expected = -1;
        }
        if (wire != expected) {
            if (skip_value(&r, field, wire, 0) < 0) goto error;
            continue;
        }
        if (field != last) msg.count = 0; /* another member: the oneof starts over */
        last = field;
        if (wire == WT_LEN) {
            if (read_len(&r, &str) < 0) goto error;
            if ((field == 5 || field == 6) && parts_add(&msg, str) < 0) goto error;
        } else if (wire == WT_VARINT) {
            if (read_varint(&r, &num) < 0) goto error;
        } else if (read_fixed64(&r, &num) < 0) {
            goto error;
        }
    }
    if (got < 0) goto error;
    PyObject *out;
    switch (last) {
    case 0:
        out = Py_None;
        Py_INCREF(out);
        break;
    case 1:
        out = text_of(str);
        break;
    case 2:
        out = PyBool_FromLong(num != 0);
        break;
    case 3:
        out = PyLong_FromLongLong((long long)(int64_t)num);
        break;
    case 4: {
        double d;
        memcpy(&d, &num, sizeof d);
        out = PyFloat_FromDouble(d);
        break;
    }
    case 7:
        out = bytes_text_or_hex(str);
        break;
    default: { /* 5 array, 6 key-value list */
        slice joined;
        PyObject *owned;
        if (parts_join(&msg, &joined, &owned) < 0) goto error;
        if (last == 5) {
            out = full_array(joined, depth);
        } else {
            out = PyDict_New();
            if (out != NULL && full_attributes(joined, 1, out, depth + 1) < 0) Py_CLEAR(out);
        }
        Py_XDECREF(owned);
    }
    }
    parts_free(&msg);
    return out;
error:
    parts_free(&msg);
    return NULL;
}

/* One KeyValue into ``into``; its key is ``known_name`` when given (a str
   equal to the key's text), else the key decoded. */
static int full_key_value(slice kv, PyObject *into, int depth, PyObject *known_name) {
    reader r = {kv.p, kv.p + kv.n};
    uint32_t field;
    int wire, got, rc = -1;
    slice key = {(const uint8_t *)"", 0}, value;
    parts values;
    parts_init(&values);
    while ((got = read_tag(&r, &field, &wire)) == 1) {
        if (field == 1 && wire == WT_LEN) {
            if (read_len(&r, &key) < 0) goto done;
        } else if (field == 2 && wire == WT_LEN) {
            if (read_len(&r, &value) < 0 || parts_add(&values, value) < 0) goto done;
        } else if (skip_value(&r, field, wire, 0) < 0) {
            goto done;
        }
    }
    if (got < 0) goto done;
    PyObject *name;
    if (known_name != NULL) {
        name = known_name;
        Py_INCREF(name);
    } else {
        name = text_of(key);
    }
    if (name == NULL) goto done;
    PyObject *val;
    if (values.count == 0) {
        val = Py_None;
        Py_INCREF(val);
    } else {
        slice joined;
        PyObject *owned;
        if (parts_join(&values, &joined, &owned) < 0) {
            Py_DECREF(name);
            goto done;
        }
        val = full_value(joined, depth);
        Py_XDECREF(owned);
    }
    if (val != NULL) {
        rc = PyDict_SetItem(into, name, val);
        Py_DECREF(val);
    }
    Py_DECREF(name);
done:
    parts_free(&values);
    return rc;
}

/* Every KeyValue of repeated field ``field_number`` of ``container`` into ``into``. */
static int full_attributes(slice container, uint32_t field_number, PyObject *into, int depth) {
    if (depth > MAX_DEPTH) return fail("values nested too deep");
    reader r = {container.p, container.p + container.n};
    uint32_t field;
    int wire, got;
    while ((got = read_tag(&r, &field, &wire)) == 1) {
        if (field == field_number && wire == WT_LEN) {
            slice kv;
            if (read_len(&r, &kv) < 0 || full_key_value(kv, into, depth, NULL) < 0) return -1;
        } else if (skip_value(&r, field, wire, 0) < 0) {
            return -1;
        }
    }
    return got;
}

/* Span.Event: time (1, fixed64), name (2), attributes (3). */
static PyObject *full_event(slice e, const void *unused) {
    (void)unused;
    reader r = {e.p, e.p + e.n};
    uint32_t field;
    int wire, got;
    uint64_t time = 0;
    slice name = {(const uint8_t *)"", 0};
    while ((got = read_tag(&r, &field, &wire)) == 1) {
        int rc;
        if (field == 1 && wire == WT_I64) rc = read_fixed64(&r, &time);
        else if (field == 2 && wire == WT_LEN) rc = read_len(&r, &name);
        else rc = skip_value(&r, field, wire, 0);
        if (rc < 0) return NULL;
    }
    if (got < 0) return NULL;
    PyObject *attrs = PyDict_New();
    if (attrs == NULL) return NULL;
    if (full_attributes(e, 3, attrs, 0) < 0) {
        Py_DECREF(attrs);
        return NULL;
    }
    PyObject *text = text_of(name);
    if (text == NULL) {
        Py_DECREF(attrs);
        return NULL;
    }
    return Py_BuildValue("(NKN)", text, (unsigned long long)time, attrs);
}

static PyObject *expand(PyObject *self, PyObject *args) {
    Py_buffer span;
    (void)self;
    if (!PyArg_ParseTuple(args, "y*", &span)) return NULL;
    slice all = {(const uint8_t *)span.buf, span.len};
    PyObject *attrs = PyDict_New();
    PyObject *events = NULL;
    if (attrs == NULL || full_attributes(all, 9, attrs, 0) < 0) goto error; /* Span.attributes */
    events = repeated_list(all, 11, full_event, NULL); /* Span.events */
    if (events == NULL) goto error;
    PyBuffer_Release(&span);
    return Py_BuildValue("(NN)", attrs, events);
error:
    PyBuffer_Release(&span);
    Py_XDECREF(attrs);
    Py_XDECREF(events);
    return NULL;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_VARARGS,
     "scan(body, wanted) -> per ResourceSpans, per ScopeSpans, one tuple per span."},
    {"scan_stored", scan_stored, METH_VARARGS,
     "scan_stored(resource_spans) -> per ScopeSpans, one tuple per span, events and all attributes."},
    {"expand", expand, METH_VARARGS,
     "expand(span_bytes) -> (attributes, events) as the full decoder converts them."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "receivers.otlp._spanscan",
    "The OTLP ingest path's span scanner (see receivers/otlp/decode.py).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__spanscan(void) { return PyModule_Create(&module); }
