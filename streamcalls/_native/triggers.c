/* The text channel's occurrence test (streamcalls/detectors/_engine/triggers.py, `_candidate`, is the
 * reference): where, at or after a position, the next occurrence of a scan's first character is that
 * stands where one of its triggers may begin -- one of the characters a trigger goes on with after
 * it, or one of those a trigger ends with before it.  Python then matches the scan's triggers there.
 *
 * Most occurrences of `<` and `[` in prose begin no trigger; in Python each cost a trip through the
 * interpreter, here a read of its two neighbours.  The first character is found as str.find finds
 * it: memchr over a 1-byte string, and over a 2- or 4-byte one memchr of one byte of the character
 * (whichever the byte order), each hit checked as a whole character.  Not built under the stable ABI
 * (it reads the string's buffer): the pure code is used there.
 */
#include "speedups.h"

#ifndef Py_LIMITED_API

/* A set of characters: those below 256 as bits, the others read from the set's string. */
typedef struct {
    uint64_t low[4];
    PyObject *text; /* borrowed: the set's string (NULL: any character) */
    int wide;       /* it holds a character of 256 or more */
} Chars;

static void chars_init(Chars *set, PyObject *text)
{
    memset(set, 0, sizeof(*set));
    set->text = text;
    if (text == NULL) {
        return;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (ch < 256) {
            set->low[ch >> 6] |= (uint64_t)1 << (ch & 63);
        } else {
            set->wide = 1;
        }
    }
}

static int chars_has(const Chars *set, Py_UCS4 ch)
{
    if (ch < 256) {
        return (set->low[ch >> 6] >> (ch & 63)) & 1;
    }
    if (!set->wide) {
        return 0;
    }
    int kind = PyUnicode_KIND(set->text);
    const void *data = PyUnicode_DATA(set->text);
    Py_ssize_t n = PyUnicode_GET_LENGTH(set->text);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyUnicode_READ(kind, data, i) == ch) {
            return 1;
        }
    }
    return 0;
}

/* The first index in [start, end) holding `ch`, or -1. */
static Py_ssize_t find_char(int kind, const void *data, Py_ssize_t start, Py_ssize_t end, Py_UCS4 ch)
{
    if (start >= end) {
        return -1;
    }
    if (kind == PyUnicode_1BYTE_KIND) {
        const Py_UCS1 *p = (const Py_UCS1 *)data;
        const void *hit = memchr(p + start, (int)ch, (size_t)(end - start));
        return hit == NULL ? -1 : (Py_ssize_t)((const Py_UCS1 *)hit - p);
    }
    unsigned char low = (unsigned char)(ch & 0xff);
    if (low == 0) { /* every other byte of the text may be 0: one character at a time */
        for (Py_ssize_t i = start; i < end; i++) {
            if (PyUnicode_READ(kind, data, i) == ch) {
                return i;
            }
        }
        return -1;
    }
    /* The character's cell holds its low byte, at one place or another by the byte order: a hit is
     * in the cell of the first occurrence or before it, never after.  A cell that is not the
     * character is stepped over whole. */
    const unsigned char *bytes = (const unsigned char *)data;
    Py_ssize_t at = start * kind, stop = end * kind;
    while (at < stop) {
        const unsigned char *hit = memchr(bytes + at, low, (size_t)(stop - at));
        if (hit == NULL) {
            return -1;
        }
        Py_ssize_t i = (Py_ssize_t)(hit - bytes) / kind;
        if (PyUnicode_READ(kind, data, i) == ch) {
            return i;
        }
        at = (i + 1) * kind;
    }
    return -1;
}

PyObject *next_candidate(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "next_candidate(text, pos, lead, nexts, prevs) takes 5 arguments");
        return NULL;
    }
    PyObject *text = args[0], *lead = args[2], *nexts = args[3], *prevs = args[4];
    if (!PyUnicode_Check(text) || !PyUnicode_Check(lead) || PyUnicode_GET_LENGTH(lead) != 1 ||
        !(nexts == Py_None || PyUnicode_Check(nexts)) || !PyUnicode_Check(prevs)) {
        PyErr_SetString(PyExc_TypeError,
                        "next_candidate: text: str, pos: int, lead: one character, nexts: str | None, prevs: str");
        return NULL;
    }
    Py_ssize_t pos = PyLong_AsSsize_t(args[1]);
    if (pos == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (pos < 0) {
        PyErr_SetString(PyExc_ValueError, "next_candidate: pos must be 0 or more");
        return NULL;
    }
    Py_UCS4 ch = PyUnicode_READ_CHAR(lead, 0);
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (ch > PyUnicode_MAX_CHAR_VALUE(text) || pos >= n) {
        return PyLong_FromSsize_t(-1);
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Chars after, before;
    chars_init(&after, nexts == Py_None ? NULL : nexts);
    chars_init(&before, prevs);
    int empty_before = PyUnicode_GET_LENGTH(prevs) == 0;
    for (;;) {
        Py_ssize_t at = find_char(kind, data, pos, n, ch);
        if (at < 0) {
            return PyLong_FromSsize_t(-1);
        }
        if (after.text == NULL) {
            return PyLong_FromSsize_t(at); /* any character may follow: every occurrence */
        }
        if ((at + 1 < n && chars_has(&after, PyUnicode_READ(kind, data, at + 1))) ||
            (!empty_before && at > 0 && chars_has(&before, PyUnicode_READ(kind, data, at - 1)))) {
            return PyLong_FromSsize_t(at);
        }
        pos = at + 1;
    }
}

#endif
