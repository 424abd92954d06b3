/* StreamParser.feed's common case, natively: a chunk of bytes for the native SSE framer.
 *
 * install_feed(StreamParser) puts a method descriptor in the place of the Python ``feed``, which
 * it keeps and calls for every other case (the first chunk, a BOM or the UTF-8 filter to pass, a
 * chunk that is not bytes, a framer that is not the native one, events to look through).  The
 * common case takes the Python feed's steps: the framer is fed (an SSE framer hands over to no
 * other), and the events it completed are taken out of the output list and returned; whether they
 * are looked through (``_checks``) is read after feeding, as the Python feed reads it.
 */
#include "speedups.h"

static Slot direct, framer_slot, out_slot, checks;
static PyObject *python_feed = NULL; /* the Python function: every case but the common one */
static PyObject *str_counted = NULL;
static PyMethodDef feed_def; /* (its doc: the Python feed's) */

static PyObject *native_feed(PyObject *self, PyObject *data)
{
#ifndef Py_LIMITED_API
    PyObject *framer = *(PyObject **)((char *)self + framer_slot.offset);
    PyObject *is_direct = *(PyObject **)((char *)self + direct.offset);
    PyObject *checked = *(PyObject **)((char *)self + checks.offset);
    if (PyBytes_CheckExact(data) && is_direct == Py_True && checked == Py_False && framer != NULL &&
        Py_IS_TYPE(framer, SSEFramerType)) {
        Py_INCREF(framer);
        int fed = sse_feed(framer, data);
        Py_DECREF(framer);
        if (fed < 0) {
            return NULL;
        }
        PyObject *out = *(PyObject **)((char *)self + out_slot.offset);
        if (out == NULL || !PyList_CheckExact(out)) {
            PyErr_SetString(PyExc_RuntimeError, "StreamParser without its output list");
            return NULL;
        }
        Py_ssize_t n = PyList_GET_SIZE(out);
        PyObject *events = PyList_New(0);
        if (events == NULL || n == 0) {
            return events;
        }
#if PY_VERSION_HEX < 0x030F0000
        /* out.copy(); out.clear(): the copy takes the items over, array and all, and the output
         * list starts empty (as clear leaves it).  No item is copied or released. */
        PyListObject *from = (PyListObject *)out, *to = (PyListObject *)events;
        to->ob_item = from->ob_item;
        to->allocated = from->allocated;
        Py_SET_SIZE(to, n);
        from->ob_item = NULL;
        from->allocated = 0;
        Py_SET_SIZE(from, 0);
#else
        Py_DECREF(events);
        events = PyList_GetSlice(out, 0, n);
        if (events == NULL || PyList_SetSlice(out, 0, n, NULL) < 0) {
            Py_XDECREF(events);
            return NULL;
        }
#endif
        if (*(PyObject **)((char *)self + checks.offset) == Py_False) {
            return events;
        }
        PyObject *counted = PyObject_CallMethodObjArgs(self, str_counted, events, NULL);
        Py_DECREF(events);
        return counted;
    }
#endif
    return PyObject_CallFunctionObjArgs(python_feed, self, data, NULL);
}

PyObject *install_feed(PyObject *module, PyObject *cls)
{
    if (!PyType_Check(cls)) {
        return PyErr_Format(PyExc_TypeError, "install_feed(): %R is not a class", cls);
    }
    if (python_feed != NULL) {
        Py_RETURN_NONE; /* (once) */
    }
    PyObject *feed = PyObject_GetAttrString(cls, "feed");
    if (feed == NULL) {
        return NULL;
    }
    if (!PyCallable_Check(feed) || PyType_Check(feed)) {
        Py_DECREF(feed);
        return PyErr_Format(PyExc_TypeError, "install_feed(): %R.feed is not a Python function", cls);
    }
    str_counted = PyUnicode_InternFromString("_counted");
    if (str_counted == NULL || slot_init(&direct, cls, "_direct") < 0 ||
        slot_init(&framer_slot, cls, "_framer") < 0 || slot_init(&out_slot, cls, "_out") < 0 ||
        slot_init(&checks, cls, "_checks") < 0) {
        Py_DECREF(feed);
        return NULL;
    }
    feed_def = (PyMethodDef){"feed", (PyCFunction)native_feed, METH_O, NULL};
    if (replace_method(cls, &feed_def, "feed($self, data, /)", feed) < 0) {
        Py_DECREF(feed);
        return NULL;
    }
    python_feed = feed; /* (kept: called for every other case) */
    Py_RETURN_NONE;
}
