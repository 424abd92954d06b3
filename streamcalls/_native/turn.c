/* TurnBuilder.add's hot events, natively: a piece of text, of reasoning, of a call's arguments.
 *
 * install_turn_add(TurnBuilder, _Reasoning, TextDelta, ToolCallDelta, ReasoningDelta) puts a method
 * descriptor in the place of the Python ``add``, which it keeps and calls for every other case.
 * The common cases take the Python add's steps on the same objects:
 *   TextDelta       the open text part's pieces (``_text``, a list) get ``event.text``;
 *   ToolCallDelta   ``_raw.get(event.index)`` (a dict of lists), when there, gets
 *                   ``event.arguments_delta``;
 *   ReasoningDelta  the open block's pieces (``_reasoning``, a _Reasoning) get ``event.text``.
 * Anything else -- another event, a part to open first, a keyword argument, a value of another
 * type where a list or an int is expected -- goes to the Python add, untouched.  The event types
 * are matched exactly, as the Python add matches them (``type(event) is TextDelta``).
 */
#include "speedups.h"

static Slot b_text, b_raw, b_reasoning; /* TurnBuilder */
static Slot r_pieces; /* _Reasoning */
static Slot text_text, call_index, call_arguments, reasoning_text; /* the events' fields */
static PyTypeObject *reasoning_block, *text_delta, *call_delta, *reasoning_delta;
static PyObject *python_add = NULL; /* the Python function: every case but the common ones */
static PyMethodDef add_def; /* (its doc: the Python add's) */

#ifndef Py_LIMITED_API
#define FIELD(obj, slot) (*(PyObject **)((char *)(obj) + (slot).offset)) /* borrowed, maybe NULL */

/* The common cases: 1 done, 0 not one of them (nothing changed), -1 an exception is set. */
static int add_common(PyObject *self, PyObject *event)
{
    PyTypeObject *kind = Py_TYPE(event);
    PyObject *pieces, *piece;
    if (kind == text_delta) {
        pieces = FIELD(self, b_text);
        piece = FIELD(event, text_text);
    }
    else if (kind == call_delta) {
        PyObject *raw = FIELD(self, b_raw);
        PyObject *index = FIELD(event, call_index);
        if (raw == NULL || !PyDict_CheckExact(raw) || index == NULL || !PyLong_CheckExact(index)) {
            return 0;
        }
        pieces = PyDict_GetItemWithError(raw, index); /* (an int's hash and equality: no call) */
        if (pieces == NULL) {
            return PyErr_Occurred() ? -1 : 1; /* not a started call's: nothing to keep */
        }
        piece = FIELD(event, call_arguments);
    }
    else if (kind == reasoning_delta) {
        PyObject *block = FIELD(self, b_reasoning);
        if (block == NULL || Py_TYPE(block) != reasoning_block) {
            return 0;
        }
        pieces = FIELD(block, r_pieces);
        piece = FIELD(event, reasoning_text);
    }
    else {
        return 0;
    }
    if (pieces == NULL || !PyList_CheckExact(pieces) || piece == NULL) {
        return 0;
    }
    return PyList_Append(pieces, piece) < 0 ? -1 : 1;
}
#endif

static PyObject *native_add(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
#ifndef Py_LIMITED_API
    if (nargs == 1 && kwnames == NULL) {
        int done = add_common(self, args[0]);
        if (done != 0) {
            return done < 0 ? NULL : Py_NewRef(Py_None);
        }
    }
#endif
    /* The Python add, with the arguments as they came (self first). */
    Py_ssize_t n = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    PyObject *small[4];
    PyObject **with_self = n + 1 <= 4 ? small : PyMem_Malloc(sizeof(PyObject *) * (size_t)(n + 1));
    if (with_self == NULL) {
        return PyErr_NoMemory();
    }
    with_self[0] = self;
    for (Py_ssize_t i = 0; i < n; i++) {
        with_self[i + 1] = args[i];
    }
    PyObject *result = PyObject_Vectorcall(python_add, with_self, (size_t)(nargs + 1), kwnames);
    if (with_self != small) {
        PyMem_Free(with_self);
    }
    return result;
}

static int type_arg(PyObject *value, PyTypeObject **out)
{
    if (!PyType_Check(value)) {
        PyErr_Format(PyExc_TypeError, "install_turn_add(): %R is not a class", value);
        return -1;
    }
    *out = (PyTypeObject *)value;
    return 0;
}

PyObject *install_turn_add(PyObject *module, PyObject *args)
{
    PyObject *cls, *block, *text, *call, *reasoning;
    if (!PyArg_ParseTuple(args, "OOOOO:install_turn_add", &cls, &block, &text, &call, &reasoning)) {
        return NULL;
    }
    if (python_add != NULL) {
        Py_RETURN_NONE; /* (once) */
    }
    PyTypeObject *builder;
    if (type_arg(cls, &builder) < 0 || type_arg(block, &reasoning_block) < 0 ||
        type_arg(text, &text_delta) < 0 || type_arg(call, &call_delta) < 0 ||
        type_arg(reasoning, &reasoning_delta) < 0) {
        return NULL;
    }
#ifdef Py_LIMITED_API
    Py_RETURN_NONE; /* (the stable ABI hides the slots' layout: the Python add is kept) */
#else
    PyObject *add = PyObject_GetAttrString(cls, "add");
    if (add == NULL) {
        return NULL;
    }
    if (!PyFunction_Check(add)) {
        Py_DECREF(add);
        return PyErr_Format(PyExc_TypeError, "install_turn_add(): %R.add is not a Python function", cls);
    }
    if (slot_init(&b_text, cls, "_text") < 0 || slot_init(&b_raw, cls, "_raw") < 0 ||
        slot_init(&b_reasoning, cls, "_reasoning") < 0 || slot_init(&r_pieces, block, "pieces") < 0 ||
        slot_init(&text_text, text, "text") < 0 || slot_init(&call_index, call, "index") < 0 ||
        slot_init(&call_arguments, call, "arguments_delta") < 0 ||
        slot_init(&reasoning_text, reasoning, "text") < 0) {
        Py_DECREF(add);
        return NULL;
    }
    /* The types stay alive with the module that holds them (streamcalls._turn, _events): kept. */
    Py_INCREF(reasoning_block);
    Py_INCREF(text_delta);
    Py_INCREF(call_delta);
    Py_INCREF(reasoning_delta);
    add_def = (PyMethodDef){"add", (PyCFunction)(void (*)(void))native_add, METH_FASTCALL | METH_KEYWORDS, NULL};
    if (replace_method((PyObject *)builder, &add_def, "add($self, /, event)", add) < 0) {
        Py_DECREF(add);
        return NULL;
    }
    python_add = add; /* (kept: called for every other case) */
    Py_RETURN_NONE;
#endif
}
