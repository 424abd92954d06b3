/* OpenAI Chat chunks, the common shapes (streamcalls/providers/openai_chat/reader.py: the reference).
 *
 * Read here: a chunk whose one choice's delta holds text (``content``) or one tool-call fragment
 * (``function.arguments`` of a call that has started), or nothing at all (a role-only delta, a
 * keep-alive chunk), in a stream that has started and not finished.  Left to the adapter: the
 * first chunk, a finish_reason, usage, an error, reasoning, refusals, content parts, a call's
 * first fragment, several choices or fragments in one chunk, text and a fragment together, and
 * every field of a type the adapter's view would not decode.
 */
#include "speedups.h"

typedef struct {
    int model, model_named;
    Str model_s;
    int n_choices;
    long long choice_index;
    int finish;
    Str finish_s;
    int content;
    Str content_s;
    int n_calls;
    int call_index; /* J_ABSENT, J_NULL or J_INT */
    long long call_index_v;
    int call_id, call_name, call_args;
    Str call_id_s, call_name_s, call_args_s;
} Chunk;

/* A string field whose value the fast path needs to be empty (reasoning, a refusal). */
static int empty_only(Cur *c)
{
    int kind;
    Str s;
    if (j_opt_string(c, &kind, &s) < 0 || (kind == J_STR && s.n > 0)) {
        return -1;
    }
    return 0;
}

static int read_function(Cur *c, Chunk *k)
{
    Str key;
    int first = 1, r;
    if (j_at(c, 'n')) {
        return j_null(c);
    }
    if (j_obj_open(c) < 0) {
        return -1;
    }
    while ((r = j_obj_next(c, &first, &key)) == 1) {
        if (KEY(&key, "name")) {
            if (k->call_name || j_opt_string(c, &k->call_name, &k->call_name_s) < 0) {
                return -1;
            }
        }
        else if (KEY(&key, "arguments")) { /* (an object, which Mistral may send, is the adapter's) */
            if (k->call_args || j_opt_string(c, &k->call_args, &k->call_args_s) < 0) {
                return -1;
            }
        }
        else if (j_skip(c, 3) < 0) {
            return -1;
        }
    }
    return r;
}

static int read_call(Cur *c, Chunk *k)
{
    Str key;
    int first = 1, r, function = 0;
    if (j_obj_open(c) < 0) {
        return -1;
    }
    while ((r = j_obj_next(c, &first, &key)) == 1) {
        if (KEY(&key, "index")) {
            if (k->call_index) {
                return -1;
            }
            if (j_at(c, 'n')) {
                k->call_index = J_NULL;
                if (j_null(c) < 0) {
                    return -1;
                }
            }
            else {
                k->call_index = J_INT;
                if (j_int(c, &k->call_index_v) < 0) {
                    return -1;
                }
            }
        }
        else if (KEY(&key, "id")) {
            if (k->call_id || j_opt_string(c, &k->call_id, &k->call_id_s) < 0) {
                return -1;
            }
        }
        else if (KEY(&key, "function")) {
            if (function++ || read_function(c, k) < 0) {
                return -1;
            }
        }
        else if (KEY(&key, "extra_content")) { /* a Gemini signature: the adapter's */
            if (j_null(c) < 0) {
                return -1;
            }
        }
        else if (j_skip(c, 2) < 0) {
            return -1;
        }
    }
    return r;
}

static int read_delta(Cur *c, Chunk *k)
{
    Str key;
    int first = 1, r, calls = 0;
    unsigned seen = 0;
    if (j_at(c, 'n')) {
        return j_null(c);
    }
    if (j_obj_open(c) < 0) {
        return -1;
    }
    while ((r = j_obj_next(c, &first, &key)) == 1) {
        unsigned bit = 0;
        int bad = 0;
        if (KEY(&key, "content")) { /* (a list of parts is the adapter's) */
            bit = 1;
            bad = j_opt_string(c, &k->content, &k->content_s);
        }
        else if (KEY(&key, "tool_calls")) {
            bit = 2;
            if (j_at(c, 'n')) {
                bad = j_null(c);
            }
            else if (j_arr_open(c) < 0) {
                return -1;
            }
            else {
                int item = 1;
                while ((r = j_arr_next(c, &item)) == 1) {
                    if (++calls > 1 || read_call(c, k) < 0) {
                        return -1;
                    }
                }
                bad = r;
                k->n_calls = calls;
            }
        }
        else if (KEY(&key, "reasoning_content") || KEY(&key, "reasoning") || KEY(&key, "refusal")) {
            bit = KEY(&key, "refusal") ? 4 : KEY(&key, "reasoning") ? 8 : 16;
            bad = empty_only(c);
        }
        else if (KEY(&key, "reasoning_details") || KEY(&key, "function_call")) {
            bit = KEY(&key, "function_call") ? 32 : 64;
            bad = j_null(c);
        }
        else {
            bad = j_skip(c, 2);
        }
        if (bad < 0 || (seen & bit)) {
            return -1; /* (a field given twice: how msgspec reads that is its business) */
        }
        seen |= bit;
    }
    return r;
}

static int read_choice(Cur *c, Chunk *k)
{
    Str key;
    int first = 1, r;
    unsigned seen = 0;
    if (j_obj_open(c) < 0) {
        return -1;
    }
    while ((r = j_obj_next(c, &first, &key)) == 1) {
        unsigned bit = 0;
        int bad;
        if (KEY(&key, "index")) {
            bit = 1;
            bad = j_int(c, &k->choice_index);
        }
        else if (KEY(&key, "delta")) {
            bit = 2;
            bad = read_delta(c, k);
        }
        else if (KEY(&key, "finish_reason")) {
            bit = 4;
            bad = j_opt_string(c, &k->finish, &k->finish_s);
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

static int read_chunk(const char *p, Py_ssize_t n, Chunk *k, Head *head)
{
    Cur c = {p, p + n};
    Str key;
    int first = 1, r, remembered = 0;
    unsigned seen = 0;
    memset(k, 0, sizeof(*k));
    if (head->valid && head->bytes.len < n && memcmp(p, head->bytes.data, (size_t)head->bytes.len) == 0) {
        c.p += head->bytes.len; /* read as the chunk before: on from its "choices" */
        seen = head->seen;
        first = head->first;
        k->model_named = head->model_named;
        remembered = 1;
    }
    else if (j_obj_open(&c) < 0) {
        return -1;
    }
    for (;;) {
        const char *before = c.p;
        int was_first = first;
        if ((r = j_obj_next(&c, &first, &key)) != 1) {
            break;
        }
        unsigned bit = 0;
        int bad;
        if (KEY(&key, "choices")) {
            bit = 1;
            if (!remembered) {
                head->valid = 0;
                if (buf_set(&head->bytes, p, before - p) < 0) {
                    PyErr_Clear(); /* (then nothing is remembered) */
                }
                else {
                    head->seen = seen;
                    head->first = was_first;
                    head->model_named = k->model_named;
                    head->valid = 1;
                }
            }
            if (j_at(&c, 'n')) {
                bad = j_null(&c);
            }
            else if (j_arr_open(&c) < 0) {
                return -1;
            }
            else {
                int item = 1;
                while ((r = j_arr_next(&c, &item)) == 1) {
                    if (++k->n_choices > 1 || read_choice(&c, k) < 0) {
                        return -1;
                    }
                }
                bad = r;
            }
        }
        else if (KEY(&key, "model")) {
            bit = 2;
            bad = j_opt_string(&c, &k->model, &k->model_s);
            k->model_named = k->model == J_STR && k->model_s.n > 0;
        }
        else if (KEY(&key, "usage") || KEY(&key, "x_groq") || KEY(&key, "error")) {
            bit = KEY(&key, "usage") ? 4 : KEY(&key, "x_groq") ? 8 : 16;
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

/* The call a fragment names: by id, else by index, else the open one (OpenAIChatAdapter._fragment). */
static PyObject *find_call(const Kind *kind, PyObject *sink, const Chunk *k, Buf *scratch)
{
    PyObject *call = NULL;
    if (k->call_id == J_STR && k->call_id_s.n > 0) {
        PyObject *by_id = slot_get(sink, &kind->a);
        PyObject *key = j_str(&k->call_id_s, scratch);
        if (by_id != NULL && key != NULL && PyDict_CheckExact(by_id)) {
            call = PyDict_GetItemWithError(by_id, key);
            Py_XINCREF(call);
        }
        Py_XDECREF(by_id);
        Py_XDECREF(key);
    }
    else if (k->call_index == J_INT) {
        PyObject *by_index = slot_get(sink, &kind->b);
        PyObject *key = PyLong_FromLongLong(k->call_index_v);
        if (by_index != NULL && key != NULL && PyDict_CheckExact(by_index)) {
            call = PyDict_GetItemWithError(by_index, key);
            Py_XINCREF(call);
        }
        Py_XDECREF(by_index);
        Py_XDECREF(key);
    }
    else {
        call = slot_get(sink, &kind->c);
        if (call == Py_None) {
            Py_CLEAR(call);
        }
    }
    return call;
}

static int fragment(const Kind *kind, PyObject *sink, PyObject *emit, const Chunk *k, Buf *scratch)
{
    int ok = 1, result = NOT_MINE;
    PyObject *call = find_call(kind, sink, k, scratch);
    if (call == NULL) {
        return PyErr_Occurred() ? -1 : NOT_MINE; /* a new call: the adapter opens it */
    }
    if (Py_TYPE(call) != (PyTypeObject *)S.call_type || slot_ssize(call, &S.call_status, &ok) != S.OPEN ||
        !ok) {
        goto done;
    }
    if (k->call_name == J_STR && k->call_name_s.n > 0) {
        PyObject *name = slot_get(call, &S.call_name);
        int unnamed = name == NULL || !PyUnicode_Check(name) || PyUnicode_GetLength(name) == 0;
        Py_XDECREF(name);
        if (unnamed) {
            goto done; /* the name comes now: the call starts (CallAssembler.set_name) */
        }
    }
    if (k->call_args != J_STR || k->call_args_s.n == 0) {
        result = HANDLED; /* nothing to add */
        goto done;
    }
    const char *frag = k->call_args_s.s;
    Py_ssize_t n = k->call_args_s.n;
    if (k->call_args_s.escaped) {
        if (j_unescape(frag, n, scratch) < 0) {
            result = -1;
            goto done;
        }
        frag = scratch->data;
        n = scratch->len;
    }
    result = feed_fragment(emit, call, frag, n);
done:
    Py_DECREF(call);
    return result;
}

int read_openai(const Kind *kind, PyObject *sink, const char *p, Py_ssize_t n, Buf *scratch, Head *head)
{
    Chunk k;
    int result = NOT_MINE;
    if (read_chunk(p, n, &k, head) < 0) {
        return NOT_MINE;
    }
    PyObject *emit = slot_get(sink, &kind->emit);
    PyObject *steady = NULL, *on_model = NULL;
    if (emit == NULL || !PyObject_TypeCheck(emit, (PyTypeObject *)S.emitter_type)) {
        goto done;
    }
    steady = slot_get(emit, &S.emit_steady);
    if (steady != Py_True) {
        goto done; /* the first record, or one after the end */
    }
    if (k.model_named) {
        on_model = slot_get(emit, &S.emit_on_model);
        if (on_model != NULL && on_model != Py_None) {
            goto done; /* the model picks the text detectors */
        }
    }
    if (k.finish == J_STR && k.finish_s.n > 0) {
        goto done;
    }
    int text = k.content == J_STR && k.content_s.n > 0;
    if (k.n_choices == 0 || k.choice_index != 0 || (!text && k.n_calls == 0)) {
        result = HANDLED; /* nothing in it for the adapter to read */
        goto done;
    }
    if (text && k.n_calls > 0) {
        goto done;
    }
    if (k.n_calls > 0) {
        result = fragment(kind, sink, emit, &k, scratch);
        goto done;
    }
    PyObject *content = j_str(&k.content_s, scratch);
    if (content == NULL) {
        result = PyErr_Occurred() ? -1 : NOT_MINE;
        goto done;
    }
    result = call_method1(emit, S.str_text, content);
    Py_DECREF(content);
done:
    Py_XDECREF(emit);
    Py_XDECREF(steady);
    Py_XDECREF(on_model);
    return result;
}
