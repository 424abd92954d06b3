/* The native SSEFramer: streamcalls/framing/_sse.py and _lines.py (the reference), byte for byte.
 *
 * Lines end at CR, LF or CRLF (a CR that ends one chunk and an LF that starts the next are one
 * line end); a line over max_line_bytes is reported in its place and skipped; ``data`` lines are
 * joined by LF, an event over max_event_bytes is reported and dropped; a blank line dispatches.
 * What cannot be framed goes to ``sink.on_framing_error``, in its place among the records.
 * A dispatched record goes to the sink's native reader when its class declares one, and to
 * ``sink.on_record(name, data)`` whenever that reader does not take it.  Each chunk's bytes are
 * looked at once; the unfinished line waits in ``tail``, the event's data in ``data`` -- or, while
 * the event has one data line that lies in the chunk being fed, nowhere: it is read in place.
 */
#include "speedups.h"

typedef struct {
    PyObject_HEAD
    PyObject *sink;
    PyObject *last_event_id;
    Py_ssize_t max_line, max_event;
    Buf tail; /* the unfinished line */
    Buf data; /* the event's data lines, joined by LF (unless held in place: pend) */
    Buf event; /* the event type's bytes (unless held in place: event_at) */
    const char *event_at; /* the event type, still in the chunk being fed */
    Head head; /* the OpenAI reader's: the last chunk's members before "choices" */
    const char *pend; /* the event's only data line, still in the chunk being fed */
    Py_ssize_t pend_len;
    Py_ssize_t lines; /* data lines of the event */
    Py_ssize_t first_len; /* the first one's length: an overflow's preview */
    Py_ssize_t size; /* bytes of data values, for max_event_bytes */
    Py_ssize_t event_len;
    int has_event, skip_lf, discarding, busy;
} Framer;

/* sink.on_framing_error(message, raw), in its place among the records. */
static int report(Framer *self, PyObject *message, const char *raw, Py_ssize_t len)
{
    PyObject *bytes = message ? PyBytes_FromStringAndSize(raw, len) : NULL;
    PyObject *sink = bytes ? Py_NewRef(self->sink) : NULL;
    PyObject *done =
        sink ? PyObject_CallMethodObjArgs(sink, S.str_on_framing_error, message, bytes, NULL) : NULL;
    Py_XDECREF(message);
    Py_XDECREF(bytes);
    Py_XDECREF(sink);
    if (done == NULL) {
        return -1;
    }
    Py_DECREF(done);
    return 0;
}

static int report_long(Framer *self, const char *line, Py_ssize_t len)
{
    PyObject *message = PyUnicode_FromFormat(
        "SSE line exceeds max_line_bytes=%zd; skipped to the next line", self->max_line);
    /* Its start: as many bytes as arrive before it is known to be too long, however it is cut
     * (LineBuffer's _shown). */
    Py_ssize_t shown = self->max_line < 200 ? self->max_line + 1 : 201;
    return report(self, message, line, len > shown ? shown : len);
}

/* The event's first data line is held in place no longer: copy it into ``data``. */
static int keep_pending(Framer *self)
{
    if (self->pend == NULL) {
        return 0;
    }
    const char *pend = self->pend;
    self->pend = NULL;
    self->data.len = 0;
    return buf_add(&self->data, pend, self->pend_len);
}

/* The event type is held in place no longer: copy it into ``event``. */
static int keep_event(Framer *self)
{
    if (self->event_at == NULL) {
        return 0;
    }
    const char *at = self->event_at;
    self->event_at = NULL;
    self->event.len = 0;
    return buf_add(&self->event, at, self->event_len);
}

static void clear_event(Framer *self)
{
    self->pend = NULL;
    self->data.len = 0;
    self->lines = 0;
    self->size = 0;
    self->has_event = 0;
    self->event_at = NULL;
}

static int add_data(Framer *self, const char *value, Py_ssize_t len, int in_chunk)
{
    if (self->lines == 0) {
        self->first_len = len;
        self->data.len = 0;
        if (in_chunk) {
            self->pend = value;
            self->pend_len = len;
        }
        else if (buf_add(&self->data, value, len) < 0) {
            return -1;
        }
    }
    else if (keep_pending(self) < 0 || buf_add(&self->data, "\n", 1) < 0 ||
             buf_add(&self->data, value, len) < 0) {
        return -1;
    }
    self->lines++;
    return 0;
}

static int overflow_event(Framer *self)
{
    PyObject *message = PyUnicode_FromFormat("SSE event data exceeds max_event_bytes=%zd; event dropped",
                                             self->max_event);
    const char *first = self->pend ? self->pend : self->data.data;
    int result = report(self, message, first, self->first_len); /* the event's first data line */
    clear_event(self);
    return result;
}

/* One record: the sink's native reader, else sink.on_record(name, data). */
static int deliver(Framer *self, const char *payload, Py_ssize_t len, int has_event)
{
    PyObject *sink = Py_NewRef(self->sink);
    const Kind *kind = kind_of(Py_TYPE(sink));
    int result = NOT_MINE;
    /* The readers' decoded strings: on the stack, unless one is long (a parser holds none). */
    char room[512];
    Buf scratch = {room, 0, sizeof(room), 1};
    if (kind->which == KIND_OPENAI) {
        result = read_openai(kind, sink, payload, len, &scratch, &self->head);
    }
    else if (kind->which == KIND_ANTHROPIC) {
        result = read_anthropic(kind, sink, payload, len, &scratch);
    }
    buf_free(&scratch);
    if (result == HANDLED) {
        records_native++;
    }
    else if (result == NOT_MINE) {
        records_pure++;
        PyObject *name = !has_event        ? Py_NewRef(Py_None)
                         : self->event_at ? PyUnicode_DecodeUTF8(self->event_at, self->event_len, "replace")
                                          : PyUnicode_DecodeUTF8(self->event.data, self->event.len, "replace");
        PyObject *data = name ? PyBytes_FromStringAndSize(payload, len) : NULL;
        PyObject *done = data ? PyObject_CallMethodObjArgs(sink, S.str_on_record, name, data, NULL) : NULL;
        result = done ? 0 : -1;
        Py_XDECREF(name);
        Py_XDECREF(data);
        Py_XDECREF(done);
    }
    Py_DECREF(sink);
    return result < 0 ? -1 : 0;
}

static int dispatch(Framer *self)
{
    int has_event = self->has_event;
    self->has_event = 0;
    if (self->lines == 0) {
        return 0;
    }
    const char *payload = self->pend ? self->pend : self->data.data;
    Py_ssize_t len = self->pend ? self->pend_len : self->data.len;
    int result;
    self->lines = 0;
    self->size = 0;
    if (len == 6 && memcmp(payload, "[DONE]", 6) == 0) {
        PyObject *done = PyObject_CallMethodObjArgs(self->sink, S.str_on_done, NULL);
        result = done ? 0 : -1;
        Py_XDECREF(done);
    }
    else {
        result = deliver(self, payload, len, has_event);
    }
    self->pend = NULL;
    self->event_at = NULL;
    self->data.len = 0;
    return result;
}

static int field(Framer *self, const char *line, Py_ssize_t len, int in_chunk)
{
    const char *colon = memchr(line, ':', (size_t)len);
    Py_ssize_t name_len = colon ? colon - line : len;
    const char *value = colon ? colon + 1 : line + len;
    Py_ssize_t value_len = line + len - value;
    if (value_len > 0 && *value == ' ') {
        value++;
        value_len--;
    }
    if (name_len == 5 && memcmp(line, "event", 5) == 0) {
        self->has_event = 1;
        if (in_chunk) {
            self->event_at = value;
            self->event_len = value_len;
            return 0;
        }
        self->event_at = NULL;
        self->event.len = 0;
        return buf_add(&self->event, value, value_len);
    }
    if (name_len == 4 && memcmp(line, "data", 4) == 0) {
        return add_data(self, value, value_len, in_chunk); /* "data" without a colon: "" */
    }
    if (name_len == 2 && memcmp(line, "id", 2) == 0 && memchr(value, '\0', (size_t)value_len) == NULL) {
        PyObject *id = PyUnicode_DecodeUTF8(value, value_len, "replace");
        if (id == NULL) {
            return -1;
        }
        Py_SETREF(self->last_event_id, id);
    }
    return 0; /* "retry" and unknown fields are ignored */
}

static int line_in(Framer *self, const char *line, Py_ssize_t len, int in_chunk)
{
    if (len > self->max_line) {
        return report_long(self, line, len);
    }
    if (len == 0) {
        return dispatch(self);
    }
    if (len >= 5 && memcmp(line, "data:", 5) == 0) {
        Py_ssize_t skip = (len > 5 && line[5] == ' ') ? 6 : 5;
        if (add_data(self, line + skip, len - skip, in_chunk) < 0) {
            return -1;
        }
        self->size += len - skip;
        return self->size > self->max_event ? overflow_event(self) : 0;
    }
    if (line[0] == ':') {
        return 0; /* a comment */
    }
    return field(self, line, len, in_chunk);
}

/* The rest of a chunk, no line end in it: the unfinished line. */
static int rest_in(Framer *self, const char *p, Py_ssize_t n)
{
    if (n == 0 || self->discarding) {
        return 0;
    }
    if (buf_add(&self->tail, p, n) < 0) {
        return -1;
    }
    if (self->tail.len > self->max_line) {
        int result = report_long(self, self->tail.data, self->tail.len);
        self->tail.len = 0;
        self->discarding = 1; /* until the line's end */
        return result;
    }
    return 0;
}

/* The common chunk, one whole event -- a "data: " line, after an "event: " line or not, then the
 * blank line -- when nothing is held from the chunks before: read at once, as the line by line
 * reading would read it (no CR, no other line, within both limits).  1: read; 0: not that chunk. */
static int whole_event(Framer *self, const char *p, Py_ssize_t n, int has_cr, int *result)
{
    if (has_cr || n < 8 || self->tail.len || self->discarding || self->skip_lf || self->lines ||
        n > self->max_line || n > self->max_event || p[n - 1] != '\n' || p[n - 2] != '\n') {
        return 0;
    }
    const char *q = p, *end = p + n - 2, *name = NULL;
    Py_ssize_t name_len = 0;
    if (memcmp(q, "event: ", 7) == 0) {
        const char *lf = memchr(q, '\n', (size_t)(end - q));
        if (lf == NULL) {
            return 0;
        }
        name = q + 7;
        name_len = lf - name;
        q = lf + 1;
    }
    if (end - q < 6 || memcmp(q, "data: ", 6) != 0 || memchr(q + 6, '\n', (size_t)(end - q - 6)) != NULL) {
        return 0;
    }
    if (name != NULL) {
        self->has_event = 1;
        self->event_at = name;
        self->event_len = name_len;
    }
    self->pend = q + 6;
    self->pend_len = self->first_len = self->size = end - self->pend;
    self->lines = 1;
    *result = dispatch(self);
    return 1;
}

static int feed_bytes(Framer *self, const char *p, Py_ssize_t n)
{
    Py_ssize_t i = 0;
    int has_cr = memchr(p, '\r', (size_t)n) != NULL; /* (most streams have none: one look per chunk) */
    int result;
    if (whole_event(self, p, n, has_cr, &result)) {
        return result;
    }
    if (self->skip_lf && n > 0) {
        self->skip_lf = 0;
        if (p[0] == '\n') {
            i = 1;
        }
    }
    while (i < n) {
        const char *lf = memchr(p + i, '\n', (size_t)(n - i));
        Py_ssize_t j = lf ? lf - p : n;
        const char *cr = has_cr ? memchr(p + i, '\r', (size_t)(j - i)) : NULL;
        if (cr != NULL) {
            j = cr - p;
        }
        if (j == n) {
            return rest_in(self, p + i, n - i);
        }
        Py_ssize_t next = j + 1;
        if (p[j] == '\r') {
            if (j + 1 < n) {
                next = p[j + 1] == '\n' ? j + 2 : j + 1;
            }
            else {
                self->skip_lf = 1;
            }
        }
        int result;
        if (self->discarding) {
            self->discarding = 0; /* the end of the line that was over the limit */
            result = 0;
        }
        else if (self->tail.len > 0) {
            if (buf_add(&self->tail, p + i, j - i) < 0) {
                return -1;
            }
            result = line_in(self, self->tail.data, self->tail.len, 0);
            self->tail.len = 0;
        }
        else {
            result = line_in(self, p + i, j - i, 1);
        }
        if (result < 0) {
            return -1;
        }
        i = next;
    }
    return 0;
}

static int enter(Framer *self)
{
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "SSEFramer fed again while it was delivering a record");
        return -1;
    }
    self->busy = 1;
    return 0;
}

static int feed_view(Framer *self, const char *p, Py_ssize_t n)
{
    if (enter(self) < 0) {
        return -1;
    }
    int result = feed_bytes(self, p, n);
    /* The chunk is the caller's: what is still held in it is copied before feed returns. */
    if (keep_pending(self) < 0 || keep_event(self) < 0) {
        result = -1;
    }
    self->busy = 0;
    return result;
}

int sse_feed(PyObject *framer, PyObject *data)
{
    char *p;
    Py_ssize_t n;
    if (PyBytes_AsStringAndSize(data, &p, &n) < 0) {
        return -1;
    }
    return feed_view((Framer *)framer, p, n);
}

static PyObject *feed(Framer *self, PyObject *arg)
{
    int result;
    if (PyBytes_Check(arg)) {
        result = sse_feed((PyObject *)self, arg);
    }
    else {
        PyObject *data = PyBytes_FromObject(arg); /* (a bytearray, a memoryview: copied) */
        if (data == NULL) {
            return NULL;
        }
        result = sse_feed((PyObject *)self, data);
        Py_DECREF(data);
    }
    if (result < 0) {
        return NULL;
    }
    Py_RETURN_NONE; /* (an SSE framer hands over to no other) */
}

static PyObject *close_(Framer *self, PyObject *unused)
{
    if (enter(self) < 0) {
        return NULL;
    }
    int result = 0;
    self->discarding = 0;
    if (self->tail.len > 0) {
        /* The unfinished last line: read as if its line end had come (see _sse.py). */
        Buf rest = self->tail;
        self->tail = (Buf){NULL, 0, 0};
        result = line_in(self, rest.data, rest.len, 0);
        buf_free(&rest);
    }
    if (result == 0) {
        result = dispatch(self);
    }
    self->busy = 0;
    if (result < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static int init(Framer *self, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"sink", "max_line_bytes", "max_event_bytes", NULL};
    PyObject *sink;
    Py_ssize_t max_line, max_event;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Onn", names, &sink, &max_line, &max_event)) {
        return -1;
    }
    if (!S.configured) {
        PyErr_SetString(PyExc_RuntimeError, "streamcalls._native._speedups is not configured");
        return -1;
    }
    Py_XSETREF(self->sink, Py_NewRef(sink));
    Py_XSETREF(self->last_event_id, PyUnicode_FromStringAndSize("", 0));
    self->max_line = max_line;
    self->max_event = max_event;
    return self->last_event_id ? 0 : -1;
}

static int traverse(Framer *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(self->sink);
    return 0;
}

static int clear(Framer *self)
{
    Py_CLEAR(self->sink);
    Py_CLEAR(self->last_event_id);
    return 0;
}

static void dealloc(Framer *self)
{
    PyObject_GC_UnTrack(self);
    clear(self);
    buf_free(&self->tail);
    buf_free(&self->data);
    buf_free(&self->event);
    buf_free(&self->head.bytes);
    PyTypeObject *type = Py_TYPE(self);
    freefunc free = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free(self);
    Py_DECREF(type); /* (a heap type's instances hold a reference to it) */
}

static PyMethodDef framer_methods[] = {
    {"feed", (PyCFunction)feed, METH_O, "feed(data) -> None\n--\n\nAdd bytes; completed records go to sink."},
    {"close", (PyCFunction)close_, METH_NOARGS,
     "close() -> None\n--\n\nEnd of input: the unfinished last line and event are delivered."},
    {NULL, NULL, 0, NULL},
};

static PyObject *get_sink(Framer *self, void *unused)
{
    return Py_NewRef(self->sink);
}

static int set_sink(Framer *self, PyObject *value, void *unused)
{
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "an SSEFramer always has a sink");
        return -1;
    }
    Py_SETREF(self->sink, Py_NewRef(value));
    return 0;
}

static PyObject *get_last_event_id(Framer *self, void *unused)
{
    return Py_NewRef(self->last_event_id);
}

static PyGetSetDef framer_getset[] = {
    {"sink", (getter)get_sink, (setter)set_sink, "Where records go: an adapter, or auto-detection.", NULL},
    {"last_event_id", (getter)get_last_event_id, NULL, "The last ``id`` field's value.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* A heap type (PyType_FromSpec), as the stable ABI wants. */
static PyType_Slot framer_slots[] = {
    {Py_tp_doc, "SSEFramer(sink, max_line_bytes, max_event_bytes)\n--\n\n"
                "Server-sent events cut into records, natively (streamcalls.framing._sse.SSEFramer's rules)."},
    {Py_tp_traverse, traverse},
    {Py_tp_clear, clear},
    {Py_tp_dealloc, dealloc},
    {Py_tp_methods, framer_methods},
    {Py_tp_getset, framer_getset},
    {Py_tp_init, init},
    {Py_tp_new, PyType_GenericNew},
    {0, NULL},
};

static PyType_Spec framer_spec = {
    "streamcalls._native._speedups.SSEFramer",
    sizeof(Framer),
    0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    framer_slots,
};

PyTypeObject *SSEFramerType = NULL;

int sse_init_type(PyObject *module)
{
    SSEFramerType = (PyTypeObject *)PyType_FromSpec(&framer_spec);
    if (SSEFramerType == NULL) {
        return -1;
    }
    Py_INCREF(SSEFramerType);
    if (PyModule_AddObject(module, "SSEFramer", (PyObject *)SSEFramerType) < 0) {
        Py_DECREF(SSEFramerType);
        return -1;
    }
    return 0;
}
