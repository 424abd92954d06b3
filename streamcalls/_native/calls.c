/* A call's argument fragment, the common case: what CallAssembler.feed, JsonScanner.feed and
 * PatchWriter.feed do when the call has started, is open, stays within the limits and its value
 * goes on past the fragment (streamcalls/_calls.py, _jsonscan.py, _patchwriter.py: the reference).
 *
 * Everything is read and checked first; only then is anything written, so a fragment that is not
 * the common case leaves the call exactly as it was, for the Python adapter to feed.
 */
#include "speedups.h"

/* JsonScanner's state, as the Python object holds it. */
typedef struct {
    long state, depth, max_depth;
    int in_string, escape;
} Scan;

/* JsonScanner.feed on UTF-8 bytes (every byte it looks for is ASCII, so a character offset and a
 * byte offset find the same structure).  1: the value goes on, *st updated; 0: it closes or nests
 * too deep here, or the scanner is in a state this does not take (the Python path decides). */
static int scan(Scan *st, const unsigned char *p, Py_ssize_t n)
{
    Py_ssize_t pos = 0;
    if (st->state != S.SCANNING) {
        if (st->state == S.SCALAR) {
            return 1; /* a top-level scalar: its end cannot be seen, nothing changes */
        }
        if (st->state != S.BEFORE) {
            return 0;
        }
        while (pos < n && (p[pos] == ' ' || p[pos] == '\t' || p[pos] == '\r' || p[pos] == '\n')) {
            pos++;
        }
        if (pos == n) {
            return 1;
        }
        if (p[pos] == '"') {
            st->in_string = 1;
            pos++;
        }
        else if (p[pos] == '{' || p[pos] == '[') {
            st->depth = 1;
            pos++;
        }
        else {
            st->state = S.SCALAR;
            return 1;
        }
        st->state = S.SCANNING;
    }
    int in_string = st->in_string;
    long depth = st->depth;
    if (st->escape) {
        st->escape = 0;
        pos++; /* the fragment before ended on a backslash: this is the escaped character */
    }
    while (pos < n) {
        if (in_string) {
            while (pos < n && p[pos] != '"' && p[pos] != '\\') {
                pos++;
            }
            if (pos >= n) {
                break;
            }
            if (p[pos] == '"') {
                in_string = 0;
                pos++;
                if (depth == 0) {
                    return 0; /* a top-level string closed */
                }
            }
            else {
                pos += 2;
                if (pos > n) {
                    st->escape = 1;
                }
            }
        }
        else {
            unsigned char ch = 0;
            while (pos < n) {
                ch = p[pos];
                if (ch == '"' || ch == '{' || ch == '}' || ch == '[' || ch == ']') {
                    break;
                }
                pos++;
            }
            if (pos >= n) {
                break;
            }
            pos++;
            if (ch == '"') {
                in_string = 1;
            }
            else if (ch == '{' || ch == '[') {
                if (++depth > st->max_depth) {
                    return 0;
                }
            }
            else if (--depth == 0) {
                return 0;
            }
        }
    }
    st->in_string = in_string;
    st->depth = depth;
    return 1;
}

static int read_scan(PyObject *scanner, Scan *st)
{
    int ok = 1;
    st->state = (long)slot_ssize(scanner, &S.scan_state, &ok);
    st->depth = (long)slot_ssize(scanner, &S.scan_depth, &ok);
    st->max_depth = (long)slot_ssize(scanner, &S.scan_max_depth, &ok);
    PyObject *in_string = slot_get(scanner, &S.scan_in_string);
    PyObject *escape = slot_get(scanner, &S.scan_escape);
    if (in_string == NULL || escape == NULL || !PyBool_Check(in_string) || !PyBool_Check(escape)) {
        ok = 0;
    }
    else {
        st->in_string = in_string == Py_True;
        st->escape = escape == Py_True;
    }
    Py_XDECREF(in_string);
    Py_XDECREF(escape);
    return ok;
}

static int write_scan(PyObject *scanner, const Scan *before, const Scan *after)
{
    if (after->state != before->state && slot_set_ssize(scanner, &S.scan_state, after->state) < 0) {
        return -1;
    }
    if (after->depth != before->depth && slot_set_ssize(scanner, &S.scan_depth, after->depth) < 0) {
        return -1;
    }
    if (after->in_string != before->in_string &&
        slot_set(scanner, &S.scan_in_string, after->in_string ? Py_True : Py_False) < 0) {
        return -1;
    }
    if (after->escape != before->escape &&
        slot_set(scanner, &S.scan_escape, after->escape ? Py_True : Py_False) < 0) {
        return -1;
    }
    return 0;
}

static int call_method1_value(PyObject *callable, PyObject *arg)
{
    PyObject *result = PyObject_CallFunctionObjArgs(callable, arg, NULL);
    if (result == NULL) {
        return -1;
    }
    Py_DECREF(result);
    return 0;
}

int call_method1(PyObject *obj, PyObject *name, PyObject *arg)
{
#ifdef Py_LIMITED_API
    PyObject *result = PyObject_CallMethodObjArgs(obj, name, arg, NULL);
#else
    PyObject *result = PyObject_CallMethodOneArg(obj, name, arg);
#endif
    if (result == NULL) {
        return -1;
    }
    Py_DECREF(result);
    return HANDLED;
}

int put(PyObject *put, PyObject *event)
{
#ifndef Py_LIMITED_API
    if (PyCFunction_Check(put) && PyCFunction_GET_FUNCTION(put) == S.list_append && S.list_append != NULL) {
        PyObject *list = PyCFunction_GET_SELF(put);
        if (list != NULL && PyList_CheckExact(list)) {
            return PyList_Append(list, event); /* out.append(event), without the call */
        }
    }
#endif
    return call_method1_value(put, event);
}

static PyObject *make(PyObject *type, PyObject **args, Py_ssize_t n)
{
#ifdef Py_LIMITED_API
    PyObject *tuple = PyTuple_New(n);
    if (tuple == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_INCREF(args[i]);
        PyTuple_SetItem(tuple, i, args[i]); /* (steals the reference taken above) */
    }
    PyObject *out = PyObject_Call(type, tuple, NULL);
    Py_DECREF(tuple);
    return out;
#else
    return PyObject_Vectorcall(type, args, (size_t)n, NULL);
#endif
}

/* A str of the UTF-8 text s[0:n]; ascii: known to be ASCII, so nothing to decode. */
static PyObject *utf8_str(const char *s, Py_ssize_t n, int ascii)
{
#ifndef Py_LIMITED_API
    if (ascii) {
        PyObject *str = PyUnicode_New(n, 127);
        if (str != NULL) {
            memcpy(PyUnicode_DATA(str), s, (size_t)n);
        }
        return str;
    }
#endif
    return PyUnicode_DecodeUTF8(s, n, NULL);
}

static inline int is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Is s[0:n] (s[0] == '\\') the start of an escape that the next fragment may complete, as
 * _patchwriter._ESCAPE_START says: a backslash, "\u" and up to three hex digits, or a high surrogate
 * "\uD8xx".."\uDBxx" followed by as much of "\uDCxx".."\uDFxx" as there is, short of all of it. */
static int escape_start(const unsigned char *s, Py_ssize_t n)
{
    if (n == 1) {
        return 1;
    }
    if (n > 11 || s[1] != 'u') {
        return 0;
    }
    if (n <= 5) {
        for (Py_ssize_t i = 2; i < n; i++) {
            if (!is_hex(s[i])) {
                return 0;
            }
        }
        return 1;
    }
    unsigned char c3 = s[3];
    if ((s[2] != 'd' && s[2] != 'D') || !(c3 == '8' || c3 == '9' || (c3 >= 'a' && c3 <= 'b') ||
                                           (c3 >= 'A' && c3 <= 'B')) ||
        !is_hex(s[4]) || !is_hex(s[5])) {
        return 0;
    }
    if ((n > 6 && s[6] != '\\') || (n > 7 && s[7] != 'u') || (n > 8 && s[8] != 'd' && s[8] != 'D')) {
        return 0;
    }
    if (n > 9 && !((s[9] >= 'c' && s[9] <= 'f') || (s[9] >= 'C' && s[9] <= 'F'))) {
        return 0;
    }
    return n <= 10 || is_hex(s[10]);
}

/* The fragment to PatchWriter.feed, the reference, for every case but the common one: 0, or -1. */
static int python_patches(PyObject *patches, PyObject *fragment)
{
    return call_method1(patches, S.str_feed, fragment) < 0 ? -1 : 0;
}

/* PatchWriter.feed inside a string value (PatchWriter._read and _string on the held escape start
 * and the fragment): the run of plain characters and complete escapes goes out as one "append"; an
 * escape cut off at the end is held for the next fragment.  A fragment where the string ends, a
 * control character or an escape that cannot be completed goes to PatchWriter.feed. */
static int feed_patches(PyObject *patches, PyObject *fragment, const char *frag, Py_ssize_t n)
{
    static Buf decoded; /* (the text of the fragment's run: used and done with before anything is called) */
    static Buf joined; /* (the held escape start and the fragment, likewise) */
    int ok = 1, escaped = 0, ascii = 0;
    PyObject *held = NULL, *value = NULL, *keep = NULL;
    if (Py_TYPE(patches) != (PyTypeObject *)S.patch_type ||
        slot_ssize(patches, &S.patch_state, &ok) != S.PATCH_STRING || !ok) {
        return python_patches(patches, fragment);
    }
    held = slot_get(patches, &S.patch_held);
    if (held == NULL || !PyUnicode_Check(held)) {
        Py_XDECREF(held);
        return python_patches(patches, fragment);
    }
    Py_ssize_t had = PyUnicode_GetLength(held);
    const char *s = frag;
    Py_ssize_t len = n;
    if (had != 0) {
        /* The held start of an escape: ASCII, at most 11 characters (_ESCAPE_START). */
        if (had < 0 || had > 11) {
            Py_DECREF(held);
            return had < 0 ? -1 : python_patches(patches, fragment);
        }
        if (buf_reserve(&joined, had + n) < 0) {
            Py_DECREF(held);
            return -1; /* (out of memory: not something to hand on with the error set) */
        }
        for (Py_ssize_t i = 0; i < had; i++) {
            Py_UCS4 ch = PyUnicode_ReadChar(held, i);
            if (ch == (Py_UCS4)-1 || ch >= 0x80) {
                Py_DECREF(held);
                return ch == (Py_UCS4)-1 ? -1 : python_patches(patches, fragment);
            }
            joined.data[i] = (char)ch;
        }
        memcpy(joined.data + had, frag, (size_t)n);
        s = joined.data;
        len = had + n;
    }
    Py_ssize_t stop = j_body_prefix(s, len, &decoded, &escaped, &ascii);
    if (stop < 0) {
        Py_DECREF(held);
        return -1;
    }
    if (stop < len && (s[stop] != '\\' || !escape_start((const unsigned char *)s + stop, len - stop))) {
        Py_DECREF(held);
        return python_patches(patches, fragment); /* the string ends, or not JSON */
    }
    if (stop < len) {
        keep = PyUnicode_FromStringAndSize(s + stop, len - stop);
        if (keep == NULL) {
            Py_DECREF(held);
            return -1;
        }
    }
    if (stop > 0) {
        value = stop == n && had == 0 && !escaped ? Py_NewRef(fragment) /* the fragment as it is */
                                                  : utf8_str(decoded.data, decoded.len, ascii);
        if (value == NULL) {
            goto fail;
        }
    }
    /* The effects, in PatchWriter's order: the held start taken, the run appended, the rest held. */
    if (had != 0) {
        PyObject *empty = PyUnicode_FromStringAndSize("", 0);
        if (empty == NULL || slot_set(patches, &S.patch_held, empty) < 0) {
            Py_XDECREF(empty);
            goto fail;
        }
        Py_DECREF(empty);
    }
    Py_CLEAR(held);
    if (value != NULL) {
        PyObject *out = slot_get(patches, &S.patch_put);
        PyObject *index = slot_get(patches, &S.patch_index);
        PyObject *target = slot_get(patches, &S.patch_target);
        int result = -1;
        if (out != NULL && index != NULL && target != NULL) {
            PyObject *args[4] = {index, S.str_append, target, value};
            PyObject *patch = make(S.ToolCallPatch, args, 4);
            if (patch != NULL) {
                result = put(out, patch);
                Py_DECREF(patch);
            }
        }
        else if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_RuntimeError, "streamcalls native path: a PatchWriter without its state");
        }
        Py_XDECREF(out);
        Py_XDECREF(index);
        Py_XDECREF(target);
        if (result < 0) {
            goto fail;
        }
    }
    if (keep != NULL && slot_set(patches, &S.patch_held, keep) < 0) {
        goto fail;
    }
    Py_XDECREF(value);
    Py_XDECREF(keep);
    return 0;
fail:
    Py_XDECREF(held);
    Py_XDECREF(value);
    Py_XDECREF(keep);
    return -1;
}

int feed_fragment(PyObject *emit, PyObject *call, const char *frag, Py_ssize_t n)
{
    int result = NOT_MINE, ok = 1;
    PyObject *started = NULL, *scanner = NULL, *text = NULL, *index = NULL;
    PyObject *fragment = NULL, *delta = NULL, *out = NULL, *patches = NULL;
    Scan before = {0}, after = {0};

    if (Py_TYPE(call) != (PyTypeObject *)S.call_type || n <= 0) {
        return NOT_MINE;
    }
    if (slot_ssize(call, &S.call_status, &ok) != S.OPEN || !ok) {
        return NOT_MINE;
    }
    started = slot_get(call, &S.call_started);
    scanner = slot_get(call, &S.call_scanner);
    text = slot_get(call, &S.call_text);
    if (started != Py_True || scanner == NULL || Py_TYPE(scanner) != (PyTypeObject *)S.scanner_type ||
        text == NULL || !PyByteArray_CheckExact(text) || !read_scan(scanner, &before)) {
        goto done;
    }
    Py_ssize_t size = slot_ssize(call, &S.call_size, &ok);
    Py_ssize_t held = slot_ssize(emit, &S.emit_held, &ok);
    Py_ssize_t max_arguments = slot_ssize(emit, &S.emit_max_arguments, &ok);
    Py_ssize_t max_buffered = slot_ssize(emit, &S.emit_max_buffered, &ok);
    Py_ssize_t length = utf8_chars(frag, n); /* len(fragment): the limits count characters */
    if (!ok || size + length > max_arguments || held + length > max_buffered) {
        goto done;
    }
    after = before;
    if (!scan(&after, (const unsigned char *)frag, n)) {
        goto done; /* the value closes (or nests too deep) here: CallAssembler._after_scan's work */
    }
    /* The common case: from here on the fragment is this call's. */
    result = -1;
    index = slot_get(call, &S.call_index);
    out = slot_get(emit, &S.emit_put);
    if (index == NULL || out == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "streamcalls native path: a call or emitter without its state");
        goto done;
    }
    fragment = utf8_str(frag, n, length == n); /* (as many characters as bytes: ASCII) */
    if (fragment == NULL) {
        goto done;
    }
    PyObject *args[2] = {index, fragment};
    delta = make(S.ToolCallDelta, args, 2);
    if (delta == NULL) {
        goto done;
    }
    Py_ssize_t had = PyByteArray_Size(text);
    if (PyByteArray_Resize(text, had + n) < 0) {
        goto done;
    }
    memcpy(PyByteArray_AsString(text) + had, frag, (size_t)n);
    if (write_scan(scanner, &before, &after) < 0 || slot_set_count(call, &S.call_size, size + length) < 0 ||
        slot_set_count(emit, &S.emit_held, held + length) < 0 || put(out, delta) < 0) {
        goto done;
    }
    patches = slot_get(call, &S.call_patches);
    if (patches != NULL && patches != Py_None && feed_patches(patches, fragment, frag, n) < 0) {
        goto done;
    }
    result = HANDLED;
done:
    Py_XDECREF(started);
    Py_XDECREF(scanner);
    Py_XDECREF(text);
    Py_XDECREF(index);
    Py_XDECREF(fragment);
    Py_XDECREF(delta);
    Py_XDECREF(out);
    Py_XDECREF(patches);
    return result;
}
