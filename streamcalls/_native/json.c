/* Reading JSON in place, strictly: the records' fields, and the string bodies of their text.
 *
 * This reader never has to be as general as msgspec: it only has to refuse (-1) whatever msgspec
 * might read differently, so that the record goes to the Python adapter.  It accepts RFC 8259
 * JSON with valid UTF-8, and refuses besides: a lone surrogate escape, a number with an exponent
 * or more than 18 digits, nesting deeper than J_MAX_DEPTH, an escaped key (it could spell a field
 * the view reads), and an integer field that is negative, fractional or over 15 digits.
 */
#include "speedups.h"

#define ONES 0x0101010101010101ULL

/* 1 for the bytes that stop a run of plain string characters: '"', '\\', controls, non-ASCII. */
static unsigned char stops[256];
void j_init(void)
{
    for (int b = 0; b < 256; b++) {
        stops[b] = (unsigned char)(b == '"' || b == '\\' || b < 0x20 || b >= 0x80);
    }
}

static inline int hex4(const unsigned char *p, unsigned int *out)
{
    unsigned int v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char h = p[i];
        v <<= 4;
        if (h >= '0' && h <= '9') {
            v |= (unsigned int)(h - '0');
        }
        else if (h >= 'a' && h <= 'f') {
            v |= (unsigned int)(h - 'a' + 10);
        }
        else if (h >= 'A' && h <= 'F') {
            v |= (unsigned int)(h - 'A' + 10);
        }
        else {
            return -1;
        }
    }
    *out = v;
    return 0;
}

/* The length of the escape at p (p[0] == '\\'), or -1.  *cp: the code point it stands for. */
static Py_ssize_t escape_len(const unsigned char *p, const unsigned char *end, unsigned int *cp)
{
    if (end - p < 2) {
        return -1;
    }
    switch (p[1]) {
    case '"': *cp = '"'; return 2;
    case '\\': *cp = '\\'; return 2;
    case '/': *cp = '/'; return 2;
    case 'b': *cp = '\b'; return 2;
    case 'f': *cp = '\f'; return 2;
    case 'n': *cp = '\n'; return 2;
    case 'r': *cp = '\r'; return 2;
    case 't': *cp = '\t'; return 2;
    case 'u': break;
    default: return -1;
    }
    unsigned int v, low;
    if (end - p < 6 || hex4(p + 2, &v) < 0) {
        return -1;
    }
    if (v >= 0xDC00 && v <= 0xDFFF) {
        return -1; /* a lone low surrogate */
    }
    if (v < 0xD800 || v > 0xDBFF) {
        *cp = v;
        return 6;
    }
    if (end - p < 12 || p[6] != '\\' || p[7] != 'u' || hex4(p + 8, &low) < 0 || low < 0xDC00 ||
        low > 0xDFFF) {
        return -1; /* a high surrogate without its low half */
    }
    *cp = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00);
    return 12;
}

/* The length of the UTF-8 sequence at p (p[0] >= 0x80), or -1: as strict as Python's decoder
 * (no overlong forms, no surrogates, nothing past U+10FFFF). */
static Py_ssize_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned char b = p[0];
    Py_ssize_t left = end - p;
    if (b >= 0xC2 && b <= 0xDF) {
        return (left >= 2 && (p[1] & 0xC0) == 0x80) ? 2 : -1;
    }
    if (b >= 0xE0 && b <= 0xEF) {
        if (left < 3 || (p[2] & 0xC0) != 0x80) {
            return -1;
        }
        unsigned char lo = 0x80, hi = 0xBF;
        if (b == 0xE0) {
            lo = 0xA0;
        }
        else if (b == 0xED) {
            hi = 0x9F;
        }
        return (p[1] >= lo && p[1] <= hi) ? 3 : -1;
    }
    if (b >= 0xF0 && b <= 0xF4) {
        if (left < 4 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) {
            return -1;
        }
        unsigned char lo = 0x80, hi = 0xBF;
        if (b == 0xF0) {
            lo = 0x90;
        }
        else if (b == 0xF4) {
            hi = 0x8F;
        }
        return (p[1] >= lo && p[1] <= hi) ? 4 : -1;
    }
    return -1;
}

/* Where a run of plain string characters ends: at '"', '\\', a control or a non-ASCII byte. */
static inline const unsigned char *run_end(const unsigned char *p, const unsigned char *end)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* Eight bytes at a time.  Each test flags the lowest byte that matches exactly (a borrow only
     * runs upwards), so the lowest flag of all is the first byte that ends the run. */
    while (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        uint64_t quote = w ^ (ONES * '"'), backslash = w ^ (ONES * '\\');
        uint64_t found = (((quote - ONES) & ~quote) | ((backslash - ONES) & ~backslash) |
                          ((w - ONES * 0x20) & ~w) | w) &
                         (ONES * 0x80);
        if (found) {
            return p + (__builtin_ctzll(found) >> 3);
        }
        p += 8;
    }
#endif
    while (p < end && !stops[*p]) {
        p++;
    }
    return p;
}

/* A string body up to its closing quote: where the quote is, or NULL. */
static inline const unsigned char *body(const unsigned char *p, const unsigned char *end, int *escaped)
{
    unsigned int cp;
    for (;;) {
        p = run_end(p, end);
        if (p >= end) {
            return NULL;
        }
        unsigned char b = *p;
        if (b == '"') {
            return p;
        }
        Py_ssize_t k;
        if (b == '\\') {
            *escaped = 1;
            k = escape_len(p, end, &cp);
        }
        else if (b < 0x20) {
            return NULL;
        }
        else {
            k = utf8_len(p, end);
        }
        if (k < 0) {
            return NULL;
        }
        p += k;
    }
}

int j_string(Cur *c, Str *out)
{
    const unsigned char *start = (const unsigned char *)c->p + 1;
    int escaped = 0;
    const unsigned char *stop = body(start, (const unsigned char *)c->end, &escaped);
    if (stop == NULL) {
        return -1;
    }
    out->s = (const char *)start;
    out->n = (Py_ssize_t)(stop - start);
    out->escaped = escaped;
    c->p = (const char *)stop + 1;
    return 0;
}

/* The code point cp as UTF-8 at o; returns where it ends. */
static inline unsigned char *put_utf8(unsigned char *o, unsigned int cp)
{
    if (cp < 0x80) {
        *o++ = (unsigned char)cp;
    }
    else if (cp < 0x800) {
        *o++ = (unsigned char)(0xC0 | (cp >> 6));
        *o++ = (unsigned char)(0x80 | (cp & 0x3F));
    }
    else if (cp < 0x10000) {
        *o++ = (unsigned char)(0xE0 | (cp >> 12));
        *o++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (unsigned char)(0x80 | (cp & 0x3F));
    }
    else {
        *o++ = (unsigned char)(0xF0 | (cp >> 18));
        *o++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        *o++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (unsigned char)(0x80 | (cp & 0x3F));
    }
    return o;
}

Py_ssize_t j_body_prefix(const char *s, Py_ssize_t n, Buf *text, int *escaped, int *ascii)
{
    const unsigned char *start = (const unsigned char *)s, *p = start, *end = start + n;
    text->len = 0;
    if (buf_reserve(text, n) < 0) { /* (the text never grows: an escape is longer than what it makes) */
        return -1;
    }
    unsigned char *o = (unsigned char *)text->data;
    unsigned int cp;
    int only_ascii = 1;
    for (;;) {
        const unsigned char *run = p;
        p = run_end(p, end);
        memcpy(o, run, (size_t)(p - run));
        o += p - run;
        if (p >= end || *p == '"' || *p < 0x20) {
            break;
        }
        Py_ssize_t k;
        if (*p == '\\') {
            k = escape_len(p, end, &cp);
            if (k < 0) {
                break;
            }
            *escaped = 1;
            only_ascii &= cp < 0x80;
            o = put_utf8(o, cp);
        }
        else {
            k = utf8_len(p, end);
            if (k < 0) {
                break;
            }
            only_ascii = 0;
            memcpy(o, p, (size_t)k);
            o += k;
        }
        p += k;
    }
    text->len = (Py_ssize_t)(o - (unsigned char *)text->data);
    *ascii = only_ascii;
    return (Py_ssize_t)(p - start);
}

static int number(Cur *c)
{
    const char *p = c->p, *end = c->end;
    int digits = 0;
    if (p < end && *p == '-') {
        p++;
    }
    if (p >= end) {
        return -1;
    }
    if (*p == '0') {
        p++;
    }
    else if (*p >= '1' && *p <= '9') {
        while (p < end && *p >= '0' && *p <= '9') {
            p++;
            digits++;
        }
    }
    else {
        return -1;
    }
    if (p < end && *p == '.') {
        p++;
        const char *frac = p;
        while (p < end && *p >= '0' && *p <= '9') {
            p++;
        }
        if (p == frac) {
            return -1;
        }
        digits += (int)(p - frac);
    }
    if (digits > 18 || (p < end && (*p == 'e' || *p == 'E'))) {
        return -1;
    }
    c->p = p;
    return 0;
}

static int literal(Cur *c, const char *word, Py_ssize_t len)
{
    if (c->end - c->p < len || memcmp(c->p, word, (size_t)len) != 0) {
        return -1;
    }
    c->p += len;
    return 0;
}

int j_skip(Cur *c, int depth)
{
    Str s;
    int first = 1, r;
    j_ws(c);
    if (c->p >= c->end) {
        return -1;
    }
    switch (*c->p) {
    case '"':
        return j_string(c, &s);
    case '{':
        if (depth >= J_MAX_DEPTH || j_obj_open(c) < 0) {
            return -1;
        }
        while ((r = j_obj_next(c, &first, &s)) == 1) {
            if (j_skip(c, depth + 1) < 0) {
                return -1;
            }
        }
        return r;
    case '[':
        if (depth >= J_MAX_DEPTH || j_arr_open(c) < 0) {
            return -1;
        }
        while ((r = j_arr_next(c, &first)) == 1) {
            if (j_skip(c, depth + 1) < 0) {
                return -1;
            }
        }
        return r;
    case 't':
        return literal(c, "true", 4);
    case 'f':
        return literal(c, "false", 5);
    case 'n':
        return literal(c, "null", 4);
    default:
        return number(c);
    }
}

int j_int(Cur *c, long long *out)
{
    const char *p = c->p, *end = c->end;
    long long v = 0;
    int digits = 0;
    if (p >= end || *p < '0' || *p > '9') {
        return -1;
    }
    if (*p == '0' && p + 1 < end && p[1] >= '0' && p[1] <= '9') {
        return -1;
    }
    while (p < end && *p >= '0' && *p <= '9') {
        v = v * 10 + (*p - '0');
        p++;
        if (++digits > 15) {
            return -1;
        }
    }
    if (p < end && (*p == '.' || *p == 'e' || *p == 'E')) {
        return -1;
    }
    c->p = p;
    *out = v;
    return 0;
}

int j_obj_open(Cur *c)
{
    j_ws(c);
    if (c->p >= c->end || *c->p != '{') {
        return -1;
    }
    c->p++;
    return 0;
}

int j_obj_next(Cur *c, int *first, Str *key)
{
    j_ws(c);
    if (c->p >= c->end) {
        return -1;
    }
    if (*c->p == '}') {
        c->p++;
        return 0; /* (after a ',' this was refused below: the key must come) */
    }
    if (*first) {
        *first = 0;
    }
    else {
        if (*c->p != ',') {
            return -1;
        }
        c->p++;
        j_ws(c);
    }
    if (c->p >= c->end || *c->p != '"' || j_string(c, key) < 0) {
        return -1;
    }
    j_ws(c);
    if (c->p >= c->end || *c->p != ':') {
        return -1;
    }
    c->p++;
    j_ws(c);
    if (key->escaped) {
        return -1;
    }
    return 1;
}

int j_arr_open(Cur *c)
{
    j_ws(c);
    if (c->p >= c->end || *c->p != '[') {
        return -1;
    }
    c->p++;
    return 0;
}

int j_arr_next(Cur *c, int *first)
{
    j_ws(c);
    if (c->p >= c->end) {
        return -1;
    }
    if (*c->p == ']') {
        c->p++;
        return 0;
    }
    if (*first) {
        *first = 0;
    }
    else {
        if (*c->p != ',') {
            return -1;
        }
        c->p++;
        j_ws(c);
    }
    return 1;
}

int j_end(Cur *c)
{
    j_ws(c);
    return c->p == c->end ? 0 : -1;
}

int j_null(Cur *c)
{
    return literal(c, "null", 4);
}

int j_opt_string(Cur *c, int *kind, Str *out)
{
    if (c->p < c->end && *c->p == '"') {
        *kind = J_STR;
        return j_string(c, out);
    }
    *kind = J_NULL;
    return literal(c, "null", 4);
}

int j_unescape(const char *s, Py_ssize_t n, Buf *buf)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    buf->len = 0;
    if (buf_reserve(buf, n) < 0) { /* the text never grows: an escape is longer than what it makes */
        return -1;
    }
    unsigned char *o = (unsigned char *)buf->data;
    while (p < end) {
        const unsigned char *run = memchr(p, '\\', (size_t)(end - p));
        if (run == NULL) {
            run = end;
        }
        memcpy(o, p, (size_t)(run - p));
        o += run - p;
        p = run;
        if (p >= end) {
            break;
        }
        unsigned int cp = 0;
        Py_ssize_t k = escape_len(p, end, &cp);
        if (k < 0) {
            return -1;
        }
        p += k;
        o = put_utf8(o, cp);
    }
    buf->len = (Py_ssize_t)(o - (unsigned char *)buf->data);
    return 0;
}

PyObject *j_str(const Str *str, Buf *scratch)
{
    const char *s = str->s;
    Py_ssize_t n = str->n;
    if (str->escaped) {
        if (j_unescape(s, n, scratch) < 0) {
            return NULL;
        }
        s = scratch->data;
        n = scratch->len;
    }
    PyObject *out = PyUnicode_DecodeUTF8(s, n, NULL);
    if (out == NULL && PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
        PyErr_Clear(); /* (j_string checked it: not reached) */
    }
    return out;
}

Py_ssize_t utf8_chars(const char *s, Py_ssize_t n)
{
    Py_ssize_t count = 0;
    const unsigned char *p = (const unsigned char *)s;
    for (Py_ssize_t i = 0; i < n; i++) {
        count += (p[i] & 0xC0) != 0x80;
    }
    return count;
}
