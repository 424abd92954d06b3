/* streamcalls._native._speedups: the module, what configure() is given, and the slots it reads.
 *
 * The types and constants of the pure-Python modules come in through configure(), called once by
 * streamcalls/_native/__init__.py; the adapters whose records have a native reader say so with a
 * ``native_records`` class attribute ("openai" or "anthropic"), read here from the class itself
 * (never inherited: a subclass may read its records differently).
 */
#include "speedups.h"

#ifndef Py_LIMITED_API
#include <structmember.h>
#endif

Shared S;
unsigned long long records_native = 0, records_pure = 0;

/* -- byte buffers ------------------------------------------------------------------------------ */

int buf_reserve(Buf *buf, Py_ssize_t more)
{
    if (more < 0 || buf->len > PY_SSIZE_T_MAX - more) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t need = buf->len + more;
    if (need <= buf->cap) {
        return 0;
    }
    Py_ssize_t cap = buf->cap ? buf->cap : 64;
    while (cap < need) {
        cap = cap > PY_SSIZE_T_MAX / 2 ? need : cap * 2;
    }
    char *data = buf->borrowed ? PyMem_Malloc((size_t)cap) : PyMem_Realloc(buf->data, (size_t)cap);
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (buf->borrowed) {
        memcpy(data, buf->data, (size_t)buf->len);
        buf->borrowed = 0;
    }
    buf->data = data;
    buf->cap = cap;
    return 0;
}

int buf_set(Buf *buf, const char *data, Py_ssize_t len)
{
    char *kept = PyMem_Realloc(buf->borrowed ? NULL : buf->data, len ? (size_t)len : 1);
    if (kept == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memcpy(kept, data, (size_t)len);
    buf->data = kept;
    buf->len = buf->cap = len;
    buf->borrowed = 0;
    return 0;
}

int buf_add(Buf *buf, const char *data, Py_ssize_t len)
{
    if (len == 0) {
        return 0;
    }
    if (buf_reserve(buf, len) < 0) {
        return -1;
    }
    memcpy(buf->data + buf->len, data, (size_t)len);
    buf->len += len;
    return 0;
}

void buf_free(Buf *buf)
{
    if (!buf->borrowed) {
        PyMem_Free(buf->data);
    }
    buf->borrowed = 0;
    buf->data = NULL;
    buf->len = buf->cap = 0;
}

/* -- a native method in a Python method's place ------------------------------------------------ */

int replace_method(PyObject *cls, PyMethodDef *def, const char *signature, PyObject *python)
{
    /* The descriptor's doc is the Python function's, after the signature line inspect reads. */
    PyObject *doc = PyObject_GetAttrString(python, "__doc__");
    const char *text = doc != NULL && PyUnicode_Check(doc) ? PyUnicode_AsUTF8AndSize(doc, NULL) : "";
    PyErr_Clear();
    PyObject *full = PyUnicode_FromFormat("%s\n--\n\n%s", signature, text ? text : "");
    Py_XDECREF(doc);
    const char *utf8 = full ? PyUnicode_AsUTF8AndSize(full, NULL) : NULL;
    char *kept = utf8 ? PyMem_Malloc(strlen(utf8) + 1) : NULL;
    if (kept == NULL) {
        Py_XDECREF(full);
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        return -1;
    }
    strcpy(kept, utf8);
    Py_DECREF(full);
    def->ml_doc = kept;
    PyObject *descr = PyDescr_NewMethod((PyTypeObject *)cls, def);
    if (descr == NULL || PyObject_SetAttrString(cls, def->ml_name, descr) < 0) {
        Py_XDECREF(descr);
        return -1;
    }
    Py_DECREF(descr);
    return 0;
}

/* -- slots --------------------------------------------------------------------------------------- */

int slot_init(Slot *slot, PyObject *cls, const char *name)
{
    slot->text = name;
    slot->offset = -1;
    Py_XSETREF(slot->name, PyUnicode_InternFromString(name));
    if (slot->name == NULL) {
        return -1;
    }
    PyObject *descr = PyObject_GetAttr(cls, slot->name);
    if (descr == NULL) {
        return -1;
    }
#ifndef Py_LIMITED_API
    if (Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
        PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
        if (member->type == T_OBJECT_EX && !(member->flags & READONLY)) {
            slot->offset = member->offset;
        }
    }
    if (slot->offset < 0) {
        PyErr_Format(PyExc_TypeError, "%R.%s is not a slot the native path can read", cls, name);
        Py_DECREF(descr);
        return -1;
    }
#endif
    Py_DECREF(descr);
    return 0;
}

/* -- the adapters with a native reader ------------------------------------------------------- */

/* The adapter classes that declare a native reader, as they are first seen (a handful: a class
 * is kept alive by its entry).  A class that declares none is not kept: only the last one seen is
 * remembered, so that its records do not look again, and any number of them may come and go. */
#define MAX_KINDS 16
static Kind kinds[MAX_KINDS];
static int n_kinds = 0;
static const Kind no_kind = {NULL, KIND_NONE};
static PyObject *last_without = NULL; /* the last class seen that declares none */

static int declared_kind(PyTypeObject *type, Kind *kind)
{
    PyObject *dict = PyObject_GetAttrString((PyObject *)type, "__dict__");
    if (dict == NULL) {
        return -1;
    }
    PyObject *declared = PyMapping_GetItemString(dict, "native_records");
    Py_DECREF(dict);
    if (declared == NULL) {
        PyErr_Clear();
        return 0;
    }
    PyObject *cls = (PyObject *)type;
    int result = 0;
    if (PyUnicode_Check(declared) && PyUnicode_CompareWithASCIIString(declared, "openai") == 0) {
        kind->which = KIND_OPENAI;
        result = slot_init(&kind->emit, cls, "emit") < 0 || slot_init(&kind->a, cls, "_by_id") < 0 ||
                         slot_init(&kind->b, cls, "_by_index") < 0 || slot_init(&kind->c, cls, "_current") < 0
                     ? -1
                     : 0;
    }
    else if (PyUnicode_Check(declared) && PyUnicode_CompareWithASCIIString(declared, "anthropic") == 0) {
        kind->which = KIND_ANTHROPIC;
        result = slot_init(&kind->emit, cls, "emit") < 0 || slot_init(&kind->a, cls, "_call") < 0 ||
                         slot_init(&kind->b, cls, "_call_index") < 0 || slot_init(&kind->c, cls, "_calls") < 0 ||
                         slot_init(&kind->d, cls, "_blocks") < 0
                     ? -1
                     : 0;
    }
    else {
        PyErr_Format(PyExc_TypeError, "%R.native_records: no native reader is called %R", cls, declared);
        result = -1;
    }
    Py_DECREF(declared);
    return result;
}

const Kind *kind_of(PyTypeObject *type)
{
    for (int i = 0; i < n_kinds; i++) {
        if (kinds[i].type == type) {
            return &kinds[i];
        }
    }
    if (!S.configured || (PyObject *)type == last_without) {
        return &no_kind;
    }
    Kind found;
    memset(&found, 0, sizeof(found));
    if (declared_kind(type, &found) < 0) {
        /* A declaration this build cannot read: the pure path reads the records (and the error
         * shows, once, as a warning). */
        PyErr_WriteUnraisable((PyObject *)type);
        found.which = KIND_NONE;
    }
    if (found.which == KIND_NONE || n_kinds == MAX_KINDS) {
        Py_INCREF(type);
        Py_XSETREF(last_without, (PyObject *)type);
        return &no_kind;
    }
    Py_INCREF(type);
    found.type = type;
    kinds[n_kinds] = found;
    return &kinds[n_kinds++];
}

/* -- configure ------------------------------------------------------------------------------------ */

static PyObject *get(PyObject *given, const char *name)
{
    PyObject *value = PyMapping_GetItemString(given, name);
    if (value == NULL) {
        PyErr_Format(PyExc_KeyError, "configure() needs %s", name);
    }
    return value;
}

static int get_long(PyObject *given, const char *name, long *out)
{
    PyObject *value = get(given, name);
    if (value == NULL) {
        return -1;
    }
    *out = PyLong_AsLong(value);
    Py_DECREF(value);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static int get_obj(PyObject *given, const char *name, PyObject **out)
{
    PyObject *value = get(given, name);
    if (value == NULL) {
        return -1;
    }
    Py_XSETREF(*out, value);
    return 0;
}

static PyObject *configure(PyObject *module, PyObject *given)
{
    S.configured = 0;
    if (get_obj(given, "Call", &S.call_type) < 0 || get_obj(given, "JsonScanner", &S.scanner_type) < 0 ||
        get_obj(given, "Emitter", &S.emitter_type) < 0 || get_obj(given, "PatchWriter", &S.patch_type) < 0 ||
        get_obj(given, "ToolCallDelta", &S.ToolCallDelta) < 0 ||
        get_obj(given, "ToolCallPatch", &S.ToolCallPatch) < 0 || get_long(given, "OPEN", &S.OPEN) < 0 || get_long(given, "BEFORE", &S.BEFORE) < 0 ||
        get_long(given, "SCANNING", &S.SCANNING) < 0 || get_long(given, "SCALAR", &S.SCALAR) < 0 ||
        get_long(given, "PATCH_STRING", &S.PATCH_STRING) < 0) {
        return NULL;
    }
    PyObject *types[] = {S.call_type, S.scanner_type, S.emitter_type, S.patch_type};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        if (!PyType_Check(types[i])) {
            return PyErr_Format(PyExc_TypeError, "configure(): %R is not a class", types[i]);
        }
    }
    if (slot_init(&S.call_status, S.call_type, "status") < 0 ||
        slot_init(&S.call_started, S.call_type, "started") < 0 ||
        slot_init(&S.call_scanner, S.call_type, "scanner") < 0 ||
        slot_init(&S.call_size, S.call_type, "size") < 0 || slot_init(&S.call_text, S.call_type, "text") < 0 ||
        slot_init(&S.call_index, S.call_type, "index") < 0 ||
        slot_init(&S.call_patches, S.call_type, "patches") < 0 ||
        slot_init(&S.call_name, S.call_type, "name") < 0 ||
        slot_init(&S.scan_state, S.scanner_type, "state") < 0 ||
        slot_init(&S.scan_depth, S.scanner_type, "depth") < 0 ||
        slot_init(&S.scan_in_string, S.scanner_type, "in_string") < 0 ||
        slot_init(&S.scan_escape, S.scanner_type, "escape") < 0 ||
        slot_init(&S.scan_max_depth, S.scanner_type, "max_depth") < 0 ||
        slot_init(&S.emit_held, S.emitter_type, "held") < 0 ||
        slot_init(&S.emit_max_arguments, S.emitter_type, "_max_arguments") < 0 ||
        slot_init(&S.emit_max_buffered, S.emitter_type, "_max_buffered") < 0 ||
        slot_init(&S.emit_put, S.emitter_type, "put") < 0 ||
        slot_init(&S.emit_steady, S.emitter_type, "steady") < 0 ||
        slot_init(&S.emit_on_model, S.emitter_type, "on_model") < 0 ||
        slot_init(&S.patch_state, S.patch_type, "_state") < 0 ||
        slot_init(&S.patch_held, S.patch_type, "_held") < 0 ||
        slot_init(&S.patch_put, S.patch_type, "_put") < 0 ||
        slot_init(&S.patch_index, S.patch_type, "_index") < 0 ||
        slot_init(&S.patch_target, S.patch_type, "_target") < 0) {
        return NULL;
    }
    PyObject *list = PyList_New(0);
    PyObject *append = list ? PyObject_GetAttr(list, S.str_append) : NULL;
    Py_XDECREF(list);
    if (append == NULL) {
        return NULL;
    }
#ifndef Py_LIMITED_API
    S.list_append = PyCFunction_Check(append) ? PyCFunction_GET_FUNCTION(append) : NULL;
#else
    S.list_append = NULL; /* (put is always called) */
#endif
    Py_DECREF(append);
    S.configured = 1;
    Py_RETURN_NONE;
}

static PyObject *counts(PyObject *module, PyObject *unused)
{
    return Py_BuildValue("(KK)", records_native, records_pure);
}

static PyMethodDef methods[] = {
    {"install_feed", install_feed, METH_O,
     "install_feed(parser_class) -> None\n--\n\n"
     "Put the native feed (its common case; the Python feed for the rest) in the class's place."},
    {"install_send", install_send, METH_VARARGS,
     "install_send(order_class: type, given: dict) -> None\n--\n\n"
     "Put the native send (a delta by its DeltaForm; the Python send for the rest) in the class's place."},
    {"written", written, METH_NOARGS,
     "written() -> int\n--\n\nDeltas the native send wrote so far."},
    {"install_turn_add", install_turn_add, METH_VARARGS,
     "install_turn_add(builder_class, block_class, text_delta, call_delta, reasoning_delta) -> None\n--\n\n"
     "Put the native add (its hot events; the Python add for the rest) in the class's place."},
    {"counts", counts, METH_NOARGS,
     "counts() -> tuple[int, int]\n--\n\n"
     "Records read so far by the native readers, and records handed to the adapters' on_record."},
    {"configure", configure, METH_O,
     "configure(given: dict) -> None\n--\n\n"
     "The pure-Python classes and constants the native path shares state with (once, at import)."},
#ifndef Py_LIMITED_API
    {"next_candidate", (PyCFunction)(void (*)(void))next_candidate, METH_FASTCALL,
     "next_candidate(text, pos, lead, nexts, prevs, /) -> int\n--\n\n"
     "The text channel's next occurrence of lead worth matching (see triggers.c), or -1."},
#endif
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "streamcalls._native._speedups",
    "The native fast path: SSE framing and the common records of OpenAI Chat and Anthropic (see\n"
    "streamcalls._native).",
    -1,
    methods,
};

PyMODINIT_FUNC PyInit__speedups(void)
{
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    j_init();
    S.str_append = PyUnicode_InternFromString("append");
    S.str_on_record = PyUnicode_InternFromString("on_record");
    S.str_on_done = PyUnicode_InternFromString("on_done");
    S.str_on_framing_error = PyUnicode_InternFromString("on_framing_error");
    S.str_text = PyUnicode_InternFromString("text");
    S.str_reasoning = PyUnicode_InternFromString("reasoning");
    S.str_reasoning_end = PyUnicode_InternFromString("reasoning_end");
    S.str_feed = PyUnicode_InternFromString("feed");
    if (S.str_append == NULL || S.str_on_record == NULL || S.str_on_done == NULL || S.str_on_framing_error == NULL ||
        S.str_text == NULL ||
        S.str_reasoning == NULL || S.str_reasoning_end == NULL || S.str_feed == NULL ||
        sse_init_type(module) < 0 ||
        PyModule_AddObject(module, "ANTHROPIC_BLOCK_KINDS",
                           Py_BuildValue("(iii)", ANTHROPIC_TEXT, ANTHROPIC_THINKING, ANTHROPIC_IGNORED)) <
            0 ||
#ifdef Py_LIMITED_API
        PyModule_AddIntConstant(module, "LIMITED_API", 1) < 0
#else
        PyModule_AddIntConstant(module, "LIMITED_API", 0) < 0
#endif
    ) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
