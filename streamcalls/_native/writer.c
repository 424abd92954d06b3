/* StreamWriter.send's common case, natively: a delta of an open block or call with a delta form.
 *
 * install_send(EventOrder, given) puts a method descriptor in the place of the Python ``send``,
 * which it keeps and calls for every other case.  The common case is a TextDelta, ReasoningDelta
 * or ToolCallDelta with non-empty text, for the text block, reasoning block or open call it goes
 * to, while the stream is open and no reasoning block stands in its way -- the very conditions
 * under which EventOrder's Python step goes straight to the target's ``text``, ``reasoning`` or
 * ``call_delta`` -- and whose block or call holds a DeltaForm (streamcalls/writing/_form.py): the
 * target's declaration that its step, for any text, writes ``head + json(text) + tail`` (with a
 * sequence number before the tail, an AWS event-stream frame around it, or nothing at all) and
 * adds the text's JSON to a bytearray, and does nothing else.  The writer must have been made on the
 * native path (its ``_native`` slot): one made inside ``pure_python()`` always takes the Python
 * send.  A text that is not valid UTF-8 (a lone surrogate) goes to Python too, which raises.
 *
 * The text is JSON-escaped as msgspec.json.encode escapes a str: '"', '\\' and the control
 * characters below 0x20 (\b \t \n \f \r by their short escapes, the others as \u00XX in lower
 * case hex); everything else, non-ASCII included, is copied as its UTF-8.
 */
#include "speedups.h"

#include <limits.h>

static Slot o_native, o_phase, o_reasoning, o_text_block, o_open; /* EventOrder */
static Slot b_form;                                               /* Block */
static Slot c_form, c_streamed;                                   /* Call */
static Slot f_head, f_tail, f_frame, f_counter, f_number_head, f_escaped, f_writes; /* DeltaForm */
static Slot n_next;                                               /* Counter */
static Slot t_text, r_text, d_index, d_fragment;                  /* the three events */
static PyObject *text_type, *reasoning_type, *delta_type, *phase_open;
static PyObject *python_send = NULL; /* the Python function: every case but the common one */
static PyMethodDef send_def;
static unsigned long long deltas_written = 0; /* (for the tests: the native path did write) */

/* -- CRC-32 (zlib's), slicing by 8 -------------------------------------------------------------- */

static uint32_t crc_table[8][256];

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) {
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        }
        crc_table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++) {
        for (int t = 1; t < 8; t++) {
            crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xFF];
        }
    }
}

static uint32_t crc32_of(uint32_t crc, const unsigned char *p, Py_ssize_t n)
{
    crc = ~crc;
    while (n >= 8) {
        uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
        crc = crc_table[7][lo & 0xFF] ^ crc_table[6][(lo >> 8) & 0xFF] ^ crc_table[5][(lo >> 16) & 0xFF] ^
              crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xFF] ^ crc_table[2][(hi >> 8) & 0xFF] ^
              crc_table[1][(hi >> 16) & 0xFF] ^ crc_table[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n-- > 0) {
        crc = crc_table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    }
    return ~crc;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* -- JSON strings, as msgspec writes them -------------------------------------------------------- */

/* The extra bytes each byte takes escaped: 0, 1 (\" \\ \n ...) or 5 (\u00XX). */
static unsigned char extra[256];

static void escape_init(void)
{
    for (int i = 0; i < 0x20; i++) {
        extra[i] = 5;
    }
    extra['\b'] = extra['\t'] = extra['\n'] = extra['\f'] = extra['\r'] = 1;
    extra['"'] = extra['\\'] = 1;
}

/* The length of the string's JSON, or -1 for a text that holds U+2028 or U+2029 (which a target
 * may escape, as Ollama's does, Go's way: Python's case). */
static Py_ssize_t escaped_len(const unsigned char *s, Py_ssize_t n)
{
    Py_ssize_t more = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        more += extra[c];
        if (c == 0xE2 && i + 2 < n && s[i + 1] == 0x80 && (s[i + 2] == 0xA8 || s[i + 2] == 0xA9)) {
            return -1;
        }
    }
    return n + 2 + more;
}

static unsigned char *put_escaped(unsigned char *out, const unsigned char *s, Py_ssize_t n)
{
    static const char hex[] = "0123456789abcdef";
    *out++ = '"';
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        if (!extra[c]) {
            *out++ = c;
            continue;
        }
        *out++ = '\\';
        switch (c) {
        case '"': *out++ = '"'; break;
        case '\\': *out++ = '\\'; break;
        case '\b': *out++ = 'b'; break;
        case '\t': *out++ = 't'; break;
        case '\n': *out++ = 'n'; break;
        case '\f': *out++ = 'f'; break;
        case '\r': *out++ = 'r'; break;
        default:
            *out++ = 'u';
            *out++ = '0';
            *out++ = '0';
            *out++ = (unsigned char)hex[c >> 4];
            *out++ = (unsigned char)hex[c & 15];
        }
    }
    *out++ = '"';
    return out;
}

/* -- one delta ----------------------------------------------------------------------------------- */

/* The bytes ``text`` writes by ``form`` (a new reference), or NULL: with an exception set on an
 * error, without one when the case is Python's (*declined).  Nothing is changed before it is sure. */
static PyObject *write_form(PyObject *form, PyObject *text, int *declined)
{
    PyObject *writes = slot_get(form, &f_writes);
    int nothing = writes == Py_False;
    Py_XDECREF(writes);
    if (nothing) {
        return PyBytes_FromStringAndSize(NULL, 0);
    }
    Py_ssize_t n;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &n);
    if (utf8 == NULL) { /* a lone surrogate: the Python step raises it */
        PyErr_Clear();
        *declined = 1;
        return NULL;
    }
    PyObject *head = slot_get(form, &f_head), *tail = slot_get(form, &f_tail);
    PyObject *frame = slot_get(form, &f_frame), *counter = slot_get(form, &f_counter);
    PyObject *number_head = slot_get(form, &f_number_head), *escaped = slot_get(form, &f_escaped);
    PyObject *next = NULL, *result = NULL;
    long long number = 0;
    if (head == NULL || !PyBytes_CheckExact(head) || tail == NULL || !PyBytes_CheckExact(tail) ||
        (frame != NULL && frame != Py_None && !PyBytes_CheckExact(frame)) ||
        (escaped != NULL && escaped != Py_None && !PyByteArray_CheckExact(escaped)) ||
        (counter != NULL && counter != Py_None && (number_head == NULL || !PyBytes_CheckExact(number_head)))) {
        *declined = 1;
        goto done;
    }
    int counted = counter != NULL && counter != Py_None;
    char digits[24];
    Py_ssize_t n_digits = 0;
    if (counted) {
        next = slot_get(counter, &n_next);
        if (next == NULL || !PyLong_CheckExact(next)) {
            *declined = 1;
            goto done;
        }
        int overflow = 0;
        number = PyLong_AsLongLongAndOverflow(next, &overflow);
        if (overflow || number < 0 || number == LLONG_MAX) {
            PyErr_Clear();
            *declined = 1;
            goto done;
        }
        char reversed[24];
        long long rest = number;
        do {
            reversed[n_digits++] = (char)('0' + rest % 10);
            rest /= 10;
        } while (rest > 0);
        for (Py_ssize_t i = 0; i < n_digits; i++) {
            digits[i] = reversed[n_digits - 1 - i];
        }
    }
    int framed = frame != NULL && frame != Py_None;
    Py_ssize_t headers = framed ? PyBytes_GET_SIZE(frame) : 0;
    Py_ssize_t quoted = escaped_len((const unsigned char *)utf8, n);
    if (quoted < 0) {
        *declined = 1;
        goto done;
    }
    Py_ssize_t payload = PyBytes_GET_SIZE(head) + quoted +
                         (counted ? PyBytes_GET_SIZE(number_head) + n_digits : 0) + PyBytes_GET_SIZE(tail);
    Py_ssize_t total = framed ? 16 + headers + payload : payload;
    if (framed && total > 0xFFFFFFFFLL) {
        *declined = 1;
        goto done;
    }
    result = PyBytes_FromStringAndSize(NULL, total);
    if (result == NULL) {
        goto done;
    }
    unsigned char *start = (unsigned char *)PyBytes_AS_STRING(result), *out = start;
    if (framed) {
        put_u32(out, (uint32_t)total);
        put_u32(out + 4, (uint32_t)headers);
        put_u32(out + 8, crc32_of(0, out, 8));
        memcpy(out + 12, PyBytes_AS_STRING(frame), (size_t)headers);
        out += 12 + headers;
    }
    memcpy(out, PyBytes_AS_STRING(head), (size_t)PyBytes_GET_SIZE(head));
    out += PyBytes_GET_SIZE(head);
    unsigned char *json_at = out;
    out = put_escaped(out, (const unsigned char *)utf8, n);
    if (counted) {
        memcpy(out, PyBytes_AS_STRING(number_head), (size_t)PyBytes_GET_SIZE(number_head));
        out += PyBytes_GET_SIZE(number_head);
        memcpy(out, digits, (size_t)n_digits);
        out += n_digits;
    }
    memcpy(out, PyBytes_AS_STRING(tail), (size_t)PyBytes_GET_SIZE(tail));
    out += PyBytes_GET_SIZE(tail);
    if (framed) {
        put_u32(out, crc32_of(0, start, out - start));
    }
    /* Now the effects, as the Python step has them: the text's JSON kept (its body, between the
     * quotes), the number taken. */
    if (escaped != NULL && escaped != Py_None) {
        Py_ssize_t had = PyByteArray_GET_SIZE(escaped), body = quoted - 2;
        if (PyByteArray_Resize(escaped, had + body) < 0) {
            Py_CLEAR(result);
            goto done;
        }
        memcpy(PyByteArray_AS_STRING(escaped) + had, json_at + 1, (size_t)body);
    }
    if (counted && slot_set_count(counter, &n_next, (Py_ssize_t)number + 1) < 0) {
        Py_CLEAR(result); /* (the text is kept: an allocation failure is not recovered from) */
        goto done;
    }
done:
    Py_XDECREF(head);
    Py_XDECREF(tail);
    Py_XDECREF(frame);
    Py_XDECREF(counter);
    Py_XDECREF(number_head);
    Py_XDECREF(escaped);
    Py_XDECREF(next);
    return result;
}

/* The common case of one event, or NULL with *declined set (no exception) when it is not. */
static PyObject *send_common(PyObject *self, PyObject *event, int *declined)
{
    PyTypeObject *type = Py_TYPE(event);
    PyObject *native = slot_get(self, &o_native);
    PyObject *phase = slot_get(self, &o_phase);
    PyObject *reasoning = slot_get(self, &o_reasoning);
    PyObject *text = NULL, *owner = NULL, *form = NULL, *result = NULL;
    int is_call = 0;
    *declined = 1;
    if (native != Py_True || phase != phase_open) {
        goto done;
    }
    if ((PyObject *)type == text_type) {
        if (reasoning != NULL && reasoning != Py_None) {
            goto done;
        }
        text = slot_get(event, &t_text);
        owner = slot_get(self, &o_text_block);
    }
    else if ((PyObject *)type == reasoning_type) {
        text = slot_get(event, &r_text);
        owner = reasoning;
        reasoning = NULL;
    }
    else if ((PyObject *)type == delta_type) {
        if (reasoning != NULL && reasoning != Py_None) {
            goto done;
        }
        PyObject *open = slot_get(self, &o_open);
        PyObject *index = slot_get(event, &d_index);
        if (open != NULL && PyDict_CheckExact(open) && index != NULL && PyLong_CheckExact(index)) {
            owner = PyDict_GetItemWithError(open, index); /* (borrowed; an int key cannot raise) */
            Py_XINCREF(owner);
        }
        Py_XDECREF(open);
        Py_XDECREF(index);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            goto done;
        }
        text = slot_get(event, &d_fragment);
        is_call = 1;
    }
    else {
        goto done;
    }
    if (owner == NULL || owner == Py_None || text == NULL || !PyUnicode_CheckExact(text) ||
        PyUnicode_GET_LENGTH(text) == 0) {
        goto done;
    }
    form = slot_get(owner, is_call ? &c_form : &b_form);
    if (form == NULL || form == Py_None) {
        goto done;
    }
    *declined = 0;
    result = write_form(form, text, declined);
    if (result != NULL && is_call && slot_set(owner, &c_streamed, Py_True) < 0) {
        Py_CLEAR(result);
    }
    deltas_written += result != NULL;
done:
    Py_XDECREF(native);
    Py_XDECREF(phase);
    Py_XDECREF(reasoning);
    Py_XDECREF(text);
    Py_XDECREF(owner);
    Py_XDECREF(form);
    return result;
}

static PyObject *native_send(PyObject *self, PyObject *event)
{
    int declined = 0;
    PyObject *result = send_common(self, event, &declined);
    if (result != NULL || !declined) {
        return result;
    }
    return PyObject_CallFunctionObjArgs(python_send, self, event, NULL);
}

static int get_class(PyObject *given, const char *name, PyObject **out)
{
    PyObject *value = PyDict_GetItemString(given, name); /* (borrowed) */
    if (value == NULL) {
        PyErr_Format(PyExc_KeyError, "install_send() needs %s", name);
        return -1;
    }
    Py_INCREF(value);
    Py_XSETREF(*out, value);
    return 0;
}

PyObject *written(PyObject *module, PyObject *unused)
{
    return PyLong_FromUnsignedLongLong(deltas_written);
}

PyObject *install_send(PyObject *module, PyObject *args)
{
    PyObject *cls, *given;
    if (!PyArg_ParseTuple(args, "OO!:install_send", &cls, &PyDict_Type, &given)) {
        return NULL;
    }
    if (!PyType_Check(cls)) {
        return PyErr_Format(PyExc_TypeError, "install_send(): %R is not a class", cls);
    }
    if (python_send != NULL) {
        Py_RETURN_NONE; /* (once) */
    }
    static PyObject *block_cls, *call_cls, *form_cls, *counter_cls;
    if (get_class(given, "TextDelta", &text_type) < 0 || get_class(given, "ReasoningDelta", &reasoning_type) < 0 ||
        get_class(given, "ToolCallDelta", &delta_type) < 0 || get_class(given, "OPEN", &phase_open) < 0 ||
        get_class(given, "Block", &block_cls) < 0 || get_class(given, "Call", &call_cls) < 0 ||
        get_class(given, "DeltaForm", &form_cls) < 0 || get_class(given, "Counter", &counter_cls) < 0) {
        return NULL;
    }
    PyObject *send = PyObject_GetAttrString(cls, "send");
    if (send == NULL) {
        return NULL;
    }
    if (!PyCallable_Check(send) || PyType_Check(send)) {
        Py_DECREF(send);
        return PyErr_Format(PyExc_TypeError, "install_send(): %R.send is not a Python function", cls);
    }
    if (slot_init(&o_native, cls, "_native") < 0 || slot_init(&o_phase, cls, "_phase") < 0 ||
        slot_init(&o_reasoning, cls, "_reasoning") < 0 || slot_init(&o_text_block, cls, "_text_block") < 0 ||
        slot_init(&o_open, cls, "_open") < 0 || slot_init(&b_form, block_cls, "form") < 0 ||
        slot_init(&c_form, call_cls, "form") < 0 || slot_init(&c_streamed, call_cls, "streamed") < 0 ||
        slot_init(&f_head, form_cls, "head") < 0 || slot_init(&f_tail, form_cls, "tail") < 0 ||
        slot_init(&f_frame, form_cls, "frame") < 0 || slot_init(&f_counter, form_cls, "counter") < 0 ||
        slot_init(&f_number_head, form_cls, "number_head") < 0 || slot_init(&f_escaped, form_cls, "escaped") < 0 ||
        slot_init(&f_writes, form_cls, "writes") < 0 || slot_init(&n_next, counter_cls, "next") < 0 ||
        slot_init(&t_text, text_type, "text") < 0 || slot_init(&r_text, reasoning_type, "text") < 0 ||
        slot_init(&d_index, delta_type, "index") < 0 || slot_init(&d_fragment, delta_type, "arguments_delta") < 0) {
        Py_DECREF(send);
        return NULL;
    }
    crc_init();
    escape_init();
    send_def = (PyMethodDef){"send", (PyCFunction)native_send, METH_O, NULL};
    if (replace_method(cls, &send_def, "send($self, event, /)", send) < 0) {
        Py_DECREF(send);
        return NULL;
    }
    python_send = send; /* (kept: called for every other case) */
    Py_RETURN_NONE;
}
