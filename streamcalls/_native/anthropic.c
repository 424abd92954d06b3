/* Anthropic Messages events, the common shapes (streamcalls/providers/anthropic/reader.py: the
 * reference).
 *
 * Read here: ``ping``, and ``content_block_delta`` with ``input_json_delta`` (a fragment of a call
 * that has started), ``text_delta`` or ``thinking_delta``, in a stream that has started and not
 * finished.  Left to the adapter: every other event type (a block's start and stop, the message's
 * start, delta and stop, errors), ``signature_delta``, and every field of a type the adapter's
 * view would not decode.
 */
#include "speedups.h"

typedef struct {
    int type;
    Str type_s;
    long long index;
    int delta; /* J_ABSENT, J_NULL or J_OBJ */
    int delta_type;
    Str delta_type_s;
    int text, partial_json, thinking;
    Str text_s, partial_json_s, thinking_s;
} Event;

static int read_delta(Cur *c, Event *e)
{
    Str key, ignored;
    int first = 1, r, kind;
    unsigned seen = 0;
    if (j_at(c, 'n')) {
        e->delta = J_NULL;
        return j_null(c);
    }
    e->delta = J_OBJ;
    if (j_obj_open(c) < 0) {
        return -1;
    }
    while ((r = j_obj_next(c, &first, &key)) == 1) {
        unsigned bit = 0;
        int bad;
        if (KEY(&key, "type")) {
            bit = 1;
            e->delta_type = J_STR;
            bad = j_at(c, '"') ? j_string(c, &e->delta_type_s) : -1; /* (a str field: null is refused) */
        }
        else if (KEY(&key, "text")) {
            bit = 2;
            bad = j_opt_string(c, &e->text, &e->text_s);
        }
        else if (KEY(&key, "partial_json")) {
            bit = 4;
            bad = j_opt_string(c, &e->partial_json, &e->partial_json_s);
        }
        else if (KEY(&key, "thinking")) {
            bit = 8;
            bad = j_opt_string(c, &e->thinking, &e->thinking_s);
        }
        else if (KEY(&key, "signature") || KEY(&key, "stop_reason")) {
            bit = KEY(&key, "signature") ? 16 : 32;
            bad = j_opt_string(c, &kind, &ignored);
        }
        else {
            bad = j_skip(c, 1);
        }
        if (bad < 0 || (seen & bit)) {
            return -1;
        }
        seen |= bit;
    }
    return r;
}

static int read_event(const char *p, Py_ssize_t n, Event *e)
{
    Cur c = {p, p + n};
    Str key;
    int first = 1, r;
    unsigned seen = 0;
    memset(e, 0, sizeof(*e));
    if (j_obj_open(&c) < 0) {
        return -1;
    }
    while ((r = j_obj_next(&c, &first, &key)) == 1) {
        unsigned bit = 0;
        int bad;
        if (KEY(&key, "type")) {
            bit = 1;
            e->type = J_STR;
            bad = j_at(&c, '"') ? j_string(&c, &e->type_s) : -1;
        }
        else if (KEY(&key, "index")) {
            bit = 2;
            bad = j_int(&c, &e->index);
        }
        else if (KEY(&key, "delta")) {
            bit = 4;
            bad = read_delta(&c, e);
        }
        else if (KEY(&key, "content_block") || KEY(&key, "message") || KEY(&key, "usage") ||
                 KEY(&key, "error")) {
            bit = KEY(&key, "content_block") ? 8 : KEY(&key, "message") ? 16 : KEY(&key, "usage") ? 32 : 64;
            bad = j_null(&c);
        }
        else {
            bad = j_skip(&c, 0);
        }
        if (bad < 0 || (seen & bit)) {
            return -1;
        }
        seen |= bit;
    }
    return r < 0 ? -1 : j_end(&c);
}

/* The Messages API writes its deltas compactly, in one order of fields: those are read by matching
 * the text around the two values; a record that departs from it in a byte is read field by field
 * (read_event), which reads the same Event from it.  0, or -1: not in this form. */
#define LIT(text) text, (sizeof(text) - 1)

static int match(Cur *c, const char *text, Py_ssize_t len)
{
    if (c->end - c->p < len || memcmp(c->p, text, (size_t)len) != 0) {
        return -1;
    }
    c->p += len;
    return 0;
}

static int read_compact(const char *p, Py_ssize_t n, Event *e)
{
    static const char *const types[] = {"input_json_delta", "text_delta", "thinking_delta"};
    static const char *const fields[] = {"partial_json", "text", "thinking"};
    Cur c = {p, p + n};
    if (match(&c, LIT("{\"type\":\"content_block_delta\",\"index\":")) < 0 || j_int(&c, &e->index) < 0 ||
        match(&c, LIT(",\"delta\":{\"type\":\"")) < 0) {
        return -1;
    }
    const char *type = c.p;
    for (int i = 0; i < 3; i++) {
        Py_ssize_t type_len = (Py_ssize_t)strlen(types[i]), field_len = (Py_ssize_t)strlen(fields[i]);
        c.p = type;
        Str value;
        if (match(&c, types[i], type_len) < 0 || match(&c, LIT("\",\"")) < 0 ||
            match(&c, fields[i], field_len) < 0 || match(&c, LIT("\":")) < 0) {
            continue;
        }
        if (!j_at(&c, '"') || j_string(&c, &value) < 0 || match(&c, LIT("}}")) < 0 || j_end(&c) < 0) {
            return -1;
        }
        e->text = e->partial_json = e->thinking = J_ABSENT; /* (the Event is not cleared before) */
        e->type = J_STR;
        e->type_s = (Str){p + 9, 19, 0}; /* content_block_delta */
        e->delta = J_OBJ;
        e->delta_type = J_STR;
        e->delta_type_s = (Str){type, type_len, 0};
        int *kind = i == 0 ? &e->partial_json : i == 1 ? &e->text : &e->thinking;
        Str *str = i == 0 ? &e->partial_json_s : i == 1 ? &e->text_s : &e->thinking_s;
        *kind = J_STR;
        *str = value;
        return 0;
    }
    return -1;
}

/* The adapter's block kind at ``index`` (its _blocks, a dict or None), as a kind: -1 none, -2 an
 * error is set, -3 a value this does not know. */
static long block_kind(const Kind *kind, PyObject *sink, PyObject *index)
{
    long result = -1;
    PyObject *blocks = slot_get(sink, &kind->d);
    if (blocks == NULL || blocks == Py_None) {
        Py_XDECREF(blocks);
        return -1;
    }
    if (!PyDict_CheckExact(blocks)) {
        Py_DECREF(blocks);
        return -3;
    }
    PyObject *value = PyDict_GetItemWithError(blocks, index);
    if (value != NULL && PyLong_CheckExact(value)) {
        result = PyLong_AsLong(value);
    }
    else if (value != NULL) {
        result = -3;
    }
    if (PyErr_Occurred()) {
        result = -2;
    }
    Py_DECREF(blocks);
    return result;
}

/* The call of the tool_use block at ``index``: the adapter's last one (_call at _call_index), else
 * one in its _calls (a dict, or None).  A new reference, or NULL (*error set if an exception is). */
static PyObject *call_at(const Kind *kind, PyObject *sink, long long index, PyObject *key, int *error)
{
    int ok = 1;
    *error = 0;
    Py_ssize_t last = slot_ssize(sink, &kind->b, &ok);
    if (ok && last == index) {
        PyObject *call = slot_get(sink, &kind->a);
        if (call == Py_None) {
            Py_CLEAR(call);
        }
        return call;
    }
    if (!ok) {
        *error = 1; /* (not an int: the adapter's business) */
        return NULL;
    }
    PyObject *calls = slot_get(sink, &kind->c);
    PyObject *call = NULL;
    if (calls != NULL && PyDict_CheckExact(calls)) {
        call = PyDict_GetItemWithError(calls, key);
        Py_XINCREF(call);
    }
    else if (calls != NULL && calls != Py_None) {
        *error = 1;
    }
    Py_XDECREF(calls);
    if (PyErr_Occurred()) {
        *error = 2;
    }
    return call;
}

static int json_delta(const Kind *kind, PyObject *sink, PyObject *emit, const Event *e, PyObject *key,
                      Buf *scratch)
{
    int error, result = NOT_MINE;
    if (e->partial_json != J_STR || e->partial_json_s.n == 0) {
        return HANDLED; /* nothing to add */
    }
    PyObject *call = call_at(kind, sink, e->index, key, &error);
    if (call == NULL) {
        return error == 2 ? -1 : error ? NOT_MINE : HANDLED; /* no call at that index: dropped */
    }
    const char *frag = e->partial_json_s.s;
    Py_ssize_t n = e->partial_json_s.n;
    if (e->partial_json_s.escaped) {
        if (j_unescape(frag, n, scratch) < 0) {
            result = -1;
            goto done;
        }
        frag = scratch->data;
        n = scratch->len;
    }
    result = feed_fragment(emit, call, frag, n); /* (NOT_MINE too for a call that is not open) */
done:
    Py_DECREF(call);
    return result;
}

/* text_delta and thinking_delta: through emit.text / emit.reasoning, as the adapter calls them. */
static int text_delta(const Kind *kind, PyObject *sink, PyObject *emit, PyObject *index, const Str *text,
                      int thinking, Buf *scratch)
{
    long block = block_kind(kind, sink, index);
    if (block == -2) {
        return -1;
    }
    if (block == -3) {
        return NOT_MINE;
    }
    if (thinking ? block != ANTHROPIC_THINKING : block == ANTHROPIC_IGNORED) {
        return HANDLED;
    }
    PyObject *value = j_str(text, scratch);
    if (value == NULL) {
        return PyErr_Occurred() ? -1 : NOT_MINE;
    }
    int result = call_method1(emit, thinking ? S.str_reasoning : S.str_text, value);
    Py_DECREF(value);
    if (result < 0 || !thinking) {
        return result;
    }
    /* _apart_from_calls: a thinking block over an open call's block ends at once. */
    PyObject *last = slot_get(sink, &kind->a), *calls = slot_get(sink, &kind->c);
    int open = last != NULL && last != Py_None;
    if (!open && calls != NULL) {
        open = PyObject_IsTrue(calls);
    }
    Py_XDECREF(last);
    Py_XDECREF(calls);
    if (open < 0) {
        return -1;
    }
    if (open) {
        PyObject *ended = PyObject_CallMethodObjArgs(emit, S.str_reasoning_end, NULL);
        if (ended == NULL) {
            return -1;
        }
        Py_DECREF(ended);
    }
    return HANDLED;
}

int read_anthropic(const Kind *kind, PyObject *sink, const char *p, Py_ssize_t n, Buf *scratch)
{
    Event e;
    int result = NOT_MINE;
    PyObject *steady = NULL, *index = NULL;
    /* (read_compact sets every field it is read for; read_event clears the Event first: a memset
     * of the whole Event for every record was a measurable part of it) */
    if ((read_compact(p, n, &e) < 0 && read_event(p, n, &e) < 0) || e.type != J_STR) {
        return NOT_MINE;
    }
    int ping = KEY(&e.type_s, "ping");
    if (!ping && !KEY(&e.type_s, "content_block_delta")) {
        return NOT_MINE;
    }
    PyObject *emit = slot_get(sink, &kind->emit);
    if (emit == NULL || !PyObject_TypeCheck(emit, (PyTypeObject *)S.emitter_type)) {
        goto done;
    }
    steady = slot_get(emit, &S.emit_steady);
    if (steady != Py_True) {
        goto done; /* the first record, or one after the end */
    }
    if (ping || e.delta != J_OBJ) {
        result = HANDLED;
        goto done;
    }
    const Str *dtype = &e.delta_type_s;
    if (e.delta_type != J_STR || KEY(dtype, "signature_delta")) {
        goto done;
    }
    int json = KEY(dtype, "input_json_delta"), plain = KEY(dtype, "text_delta");
    int thinking = KEY(dtype, "thinking_delta");
    if (!json && !plain && !thinking) {
        result = HANDLED; /* citations_delta and the like: nothing the adapter reads */
        goto done;
    }
    const Str *text = plain ? &e.text_s : &e.thinking_s;
    if (!json && (plain ? e.text : e.thinking) != J_STR) {
        result = HANDLED;
        goto done;
    }
    if (!json && text->n == 0) {
        result = HANDLED;
        goto done;
    }
    index = PyLong_FromLongLong(e.index);
    if (index == NULL) {
        result = -1;
        goto done;
    }
    if (json) {
        result = json_delta(kind, sink, emit, &e, index, scratch);
    }
    else {
        result = text_delta(kind, sink, emit, index, text, thinking, scratch);
    }
done:
    Py_XDECREF(emit);
    Py_XDECREF(steady);
    Py_XDECREF(index);
    return result;
}
