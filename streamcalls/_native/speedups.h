/* The native fast path's shared declarations (see streamcalls/_native/__init__.py and docs/design.md,
 * "The native path").
 *
 * The rule every file here keeps: the pure-Python code is the reference.  A record is read whole,
 * into a small C description, before anything is changed; only when it has one of the common
 * shapes, and the parser's state is the common one, is it handled here -- with the very effects
 * the Python adapter would have, on the same Python objects (calls, scanners, the event list).
 * Anything else goes to the adapter's on_record, untouched.
 */
#ifndef STREAMCALLS_SPEEDUPS_H
#define STREAMCALLS_SPEEDUPS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#ifndef Py_SETREF /* (not in the stable ABI's headers) */
#define Py_SETREF(dst, src)                                                                                  \
    do {                                                                                                     \
        PyObject **_where = (PyObject **)&(dst);                                                             \
        PyObject *_old = *_where;                                                                            \
        *_where = (PyObject *)(src);                                                                         \
        Py_DECREF(_old);                                                                                     \
    } while (0)
#endif
#ifndef Py_XSETREF
#define Py_XSETREF(dst, src)                                                                                 \
    do {                                                                                                     \
        PyObject **_where = (PyObject **)&(dst);                                                             \
        PyObject *_old = *_where;                                                                            \
        *_where = (PyObject *)(src);                                                                         \
        Py_XDECREF(_old);                                                                                    \
    } while (0)
#endif

/* -- reading the slots of the Python objects the fast path shares with the pure path ---------- */

/* One attribute of a slotted Python class: read and written at its offset (the CPython layout of
 * __slots__), or by name under the stable ABI, which hides the layout. */
typedef struct {
    const char *text;
    PyObject *name; /* interned */
    Py_ssize_t offset; /* -1: by name */
} Slot;

int slot_init(Slot *slot, PyObject *cls, const char *name);
/* Put def (its name, C function and flags; it must outlive the class) in cls's place, its doc the
 * Python function's after `signature`: the native fast paths' install_* do it.  0, or -1 with an error. */
int replace_method(PyObject *cls, PyMethodDef *def, const char *signature, PyObject *python);

/* A new reference to the value, or NULL (no exception set) when the slot is empty. */
static inline PyObject *slot_get(PyObject *obj, const Slot *slot)
{
#ifndef Py_LIMITED_API
    PyObject *value = *(PyObject **)((char *)obj + slot->offset);
    Py_XINCREF(value);
    return value;
#else
    PyObject *value = PyObject_GetAttr(obj, slot->name);
    if (value == NULL) {
        PyErr_Clear();
    }
    return value;
#endif
}

/* Returns -1 with an exception set on failure. */
static inline int slot_set(PyObject *obj, const Slot *slot, PyObject *value)
{
#ifndef Py_LIMITED_API
    PyObject **where = (PyObject **)((char *)obj + slot->offset);
    Py_INCREF(value);
    Py_XSETREF(*where, value);
    return 0;
#else
    return PyObject_SetAttr(obj, slot->name, value);
#endif
}

/* An int's value; *ok = 0 if it does not fit.  Small ints are read in place where the version's
 * layout is known (3.10 to 3.14), else through the API. */
static inline Py_ssize_t long_value(PyObject *value, int *ok)
{
#if !defined(Py_LIMITED_API) && PY_VERSION_HEX >= 0x030C0000 && PY_VERSION_HEX < 0x030F0000
    if (_PyLong_IsCompact((PyLongObject *)value)) {
        return _PyLong_CompactValue((PyLongObject *)value);
    }
#elif !defined(Py_LIMITED_API) && PY_VERSION_HEX < 0x030C0000
    Py_ssize_t size = Py_SIZE(value);
    if (size == 0) {
        return 0;
    }
    if (size == 1) {
        return (Py_ssize_t)((PyLongObject *)value)->ob_digit[0];
    }
#endif
    Py_ssize_t out = PyLong_AsSsize_t(value);
    if (out == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        *ok = 0;
    }
    return out;
}

/* The slot's value as an integer; -1 with *ok = 0 if it is not an int that fits. */
static inline Py_ssize_t slot_ssize(PyObject *obj, const Slot *slot, int *ok)
{
#ifndef Py_LIMITED_API
    PyObject *value = *(PyObject **)((char *)obj + slot->offset); /* (borrowed: no call in between) */
    if (value != NULL && PyLong_CheckExact(value)) {
        return long_value(value, ok);
    }
    *ok = 0;
    return -1;
#else
    PyObject *value = slot_get(obj, slot);
    Py_ssize_t out = -1;
    if (value != NULL && PyLong_CheckExact(value)) {
        out = long_value(value, ok);
    }
    else {
        *ok = 0;
    }
    Py_XDECREF(value);
    return out;
#endif
}

static inline int slot_set_ssize(PyObject *obj, const Slot *slot, Py_ssize_t value)
{
    PyObject *number = PyLong_FromSsize_t(value);
    if (number == NULL) {
        return -1;
    }
    int result = slot_set(obj, slot, number);
    Py_DECREF(number);
    return result;
}

/* Set the slot's count to n (n >= 0), as slot_set_ssize does; but an int that the slot alone holds
 * (its reference count 1: nothing else can see it) is changed in place, where the version's
 * layout is known, instead of a new one made.  A count that grows with every fragment (a call's
 * size) would otherwise cost an int made and one freed per fragment. */
static inline int slot_set_count(PyObject *obj, const Slot *slot, Py_ssize_t n)
{
#if !defined(Py_LIMITED_API) && !defined(Py_GIL_DISABLED) && PY_VERSION_HEX < 0x030F0000
    PyObject *old = *(PyObject **)((char *)obj + slot->offset);
    if (old != NULL && PyLong_CheckExact(old) && Py_REFCNT(old) == 1 && n > 0 &&
        n < (Py_ssize_t)PyLong_BASE) {
        PyLongObject *number = (PyLongObject *)old;
#if PY_VERSION_HEX >= 0x030C0000
        if (number->long_value.lv_tag == ((uintptr_t)1 << _PyLong_NON_SIZE_BITS)) { /* one digit, > 0 */
            number->long_value.ob_digit[0] = (digit)n;
            return 0;
        }
#else
        if (Py_SIZE(number) == 1) {
            number->ob_digit[0] = (digit)n;
            return 0;
        }
#endif
    }
#endif
    return slot_set_ssize(obj, slot, n);
}

/* -- what configure() was given --------------------------------------------------------------- */

typedef struct {
    PyObject *call_type, *scanner_type, *emitter_type, *patch_type;
    PyObject *ToolCallDelta, *ToolCallPatch;
    PyCFunction list_append; /* the C function of a list's bound append, as ``put`` usually is */
    PyObject *str_append; /* "append" */
    PyObject *str_on_record, *str_on_done, *str_on_framing_error, *str_text, *str_reasoning,
        *str_reasoning_end, *str_feed;
    /* Call */
    Slot call_status, call_started, call_scanner, call_size, call_text, call_index, call_patches, call_name;
    /* JsonScanner */
    Slot scan_state, scan_depth, scan_in_string, scan_escape, scan_max_depth;
    /* Emitter (a CallAssembler) */
    Slot emit_held, emit_max_arguments, emit_max_buffered, emit_put, emit_steady, emit_on_model;
    /* PatchWriter */
    Slot patch_state, patch_held, patch_put, patch_index, patch_target;
    /* The constants of the pure modules, as they were read. */
    long OPEN, BEFORE, SCANNING, SCALAR, PATCH_STRING;
    int configured;
} Shared;

extern Shared S;

/* Records read so far: by the native readers, and by the adapters (for the tests: counts()). */
extern unsigned long long records_native, records_pure;

/* -- a growable byte buffer -------------------------------------------------------------------- */

typedef struct {
    char *data;
    Py_ssize_t len, cap;
    int borrowed; /* data is the caller's (on its stack): copied out when it must grow, never freed */
} Buf;

int buf_reserve(Buf *buf, Py_ssize_t more);
int buf_add(Buf *buf, const char *data, Py_ssize_t len);
/* The bytes exactly (for one kept long: no room to grow). */
int buf_set(Buf *buf, const char *data, Py_ssize_t len);
void buf_free(Buf *buf);

/* -- JSON, read in place ----------------------------------------------------------------------- */

typedef struct {
    const char *p, *end;
} Cur;

/* A string's raw text between its quotes. */
typedef struct {
    const char *s;
    Py_ssize_t n;
    int escaped; /* it holds a backslash */
} Str;

/* What a field held.  J_ABSENT: not there. */
enum { J_ABSENT = 0, J_NULL, J_STR, J_INT, J_OBJ, J_ARR, J_OTHER };

#define J_MAX_DEPTH 64 /* deeper values are left to msgspec (bail) */

void j_init(void); /* once, at the module's import */
static inline void j_ws(Cur *c)
{
    const char *p = c->p;
    while (p < c->end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) {
        p++;
    }
    c->p = p;
}
int j_string(Cur *c, Str *out); /* at '"': 0, or -1 (not JSON this reader accepts) */
int j_skip(Cur *c, int depth); /* any value: 0 or -1 */
int j_int(Cur *c, long long *out); /* a non-negative integer of at most 15 digits */
/* Objects: call j_obj_open at '{', then j_obj_next until it returns 0 (the '}' was read). */
int j_obj_open(Cur *c);
int j_obj_next(Cur *c, int *first, Str *key); /* 1: at the key's value; 0: end; -1: bail */
int j_arr_open(Cur *c);
int j_arr_next(Cur *c, int *first); /* 1: at an element; 0: end; -1: bail */
int j_end(Cur *c); /* only blanks left: 0, else -1 */
int j_null(Cur *c); /* null: 0, anything else -1 */
static inline int j_at(const Cur *c, char ch)
{
    return c->p < c->end && *c->p == ch;
}
/* A string or null (J_STR / J_NULL into *kind), anything else -1. */
int j_opt_string(Cur *c, int *kind, Str *out);
static inline int j_key_is(const Str *key, const char *name, Py_ssize_t len)
{
    return key->n == len && memcmp(key->s, name, (size_t)len) == 0;
}
#define KEY(key, lit) j_key_is((key), (lit), (Py_ssize_t)(sizeof(lit) - 1))
/* The text of a JSON string body, escapes decoded, as UTF-8 into buf (replacing its content).
 * The body must have passed j_string. */
int j_unescape(const char *s, Py_ssize_t n, Buf *buf);
/* How much of s[0:n] (valid UTF-8) is string body: the length of its longest prefix of plain
 * characters and complete escapes (as _patchwriter._BODY matches), stopping at a '"', a control
 * character, or an escape that is invalid or cut off; -1 when out of memory.  That prefix's text,
 * escapes decoded, goes into text as UTF-8; *escaped = 1 if it holds an escape, *ascii = 1 if its
 * text is ASCII. */
Py_ssize_t j_body_prefix(const char *s, Py_ssize_t n, Buf *text, int *escaped, int *ascii);
/* A str from a string's body (decoded when escaped); NULL with no exception: not decodable. */
PyObject *j_str(const Str *str, Buf *scratch);
Py_ssize_t utf8_chars(const char *s, Py_ssize_t n);

/* -- the fast path's pieces -------------------------------------------------------------------- */

typedef struct Kind Kind;

/* What reading one record did. */
enum { NOT_MINE = 0, HANDLED = 1 }; /* and -1: an exception is set */

/* A fragment of a call's arguments, UTF-8 in frag[0:n]: the common case of CallAssembler.feed
 * done here (the call started and open, its value not closing in it, within the limits), or
 * NOT_MINE with nothing changed. */
int feed_fragment(PyObject *emit, PyObject *call, const char *frag, Py_ssize_t n);
/* emit.text(text) / emit.reasoning(text): through the Python methods. */
int call_method1(PyObject *obj, PyObject *name, PyObject *arg);
/* put(event), as the emitter's or a patch writer's ``put`` is: a list's append, or any callable. */
int put(PyObject *put, PyObject *event);

/* What an OpenAI chunk's members before ``choices`` read as, and their bytes: a chunk that starts
 * with the same bytes reads the same up to there (a stream's chunks repeat their id, object,
 * created, model, fingerprint), so it is read on from there. */
typedef struct {
    Buf bytes;
    unsigned seen;
    int first, model_named, valid;
} Head;

int read_openai(const Kind *kind, PyObject *sink, const char *p, Py_ssize_t n, Buf *scratch, Head *head);
int read_anthropic(const Kind *kind, PyObject *sink, const char *p, Py_ssize_t n, Buf *scratch);

/* An adapter class that declares ``native_records``: which reader, and its slots. */
enum { KIND_NONE = 0, KIND_OPENAI, KIND_ANTHROPIC };
struct Kind {
    PyTypeObject *type;
    int which;
    Slot emit;
    Slot a, b, c, d; /* openai: _by_id, _by_index, _current; anthropic: _call, _call_index, _calls,
                        _blocks */
};
const Kind *kind_of(PyTypeObject *type);

/* The block kinds of the Anthropic adapter (tests/unit/test_native.py checks them against it). */
#define ANTHROPIC_TEXT 0
#define ANTHROPIC_THINKING 1
#define ANTHROPIC_IGNORED 2

extern PyTypeObject *SSEFramerType;
int sse_init_type(PyObject *module);
/* SSEFramer.feed(data) for a bytes chunk: 0, or -1 with an exception set. */
int sse_feed(PyObject *framer, PyObject *data);
/* install_feed(StreamParser): see feed.c. */
PyObject *install_feed(PyObject *module, PyObject *cls);
/* writer.c: StreamWriter.send's common case (a delta with its block's or call's DeltaForm) */
PyObject *install_send(PyObject *module, PyObject *args);
PyObject *written(PyObject *module, PyObject *unused);
/* install_turn_add(TurnBuilder, _Reasoning, TextDelta, ToolCallDelta, ReasoningDelta): see turn.c. */
PyObject *install_turn_add(PyObject *module, PyObject *args);
#ifndef Py_LIMITED_API
/* next_candidate(text, pos, lead, nexts, prevs): see triggers.c. */
PyObject *next_candidate(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
#endif

#endif
