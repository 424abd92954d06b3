"""Generated OpenAI Chat and Anthropic streams through both paths: the same events, field for field.

This is the native readers' own ground (streamcalls/_native): records of the
common shapes carrying arguments of any text -- escapes, non-ASCII, surrogate
pairs, control characters --, cut into fragments anywhere in that text (inside
an escape of the arguments' JSON, and so inside the escape that carries it on
the wire), written with ``\\u`` escapes or raw UTF-8, and split into reads
anywhere, down to one byte and inside a UTF-8 sequence.  Around them, the
shapes the adapters keep for themselves: a field null or absent or of another
type, a field given twice, an escaped key, unknown fields, several choices or
fragments, invalid UTF-8, a lone surrogate, trailing bytes, tiny limits.  Each
stream runs on the native path and, under ``pure_python()``, on the reference;
the events are compared as msgspec encodes them.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamcalls import Limits, _native
from tests.support import bytewise, split_at
from tests.unit.test_native import same_on_both_paths

speedups = _native.speedups
pytestmark = pytest.mark.skipif(
    speedups is None, reason="the native path is not built here (no compiler), or STREAMCALLS_PURE_PYTHON=1"
)


class Obj:
    """A JSON object as its members in order: a key may come twice."""

    def __init__(self, *pairs: tuple[str, Any]) -> None:
        self.pairs = list(pairs)


class Raw:
    """JSON text written as it is (a number spelt oddly, an escaped key, bytes that are not JSON)."""

    def __init__(self, text: str) -> None:
        self.text = text


def write(value: Any, ascii_only: bool, spaced: bool) -> str:
    """JSON text of ``value``, with ``\\u`` escapes for every non-ASCII character or none."""
    colon, comma = (": ", ", ") if spaced else (":", ",")
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, Obj):
        members = (
            f"{json.dumps(k, ensure_ascii=ascii_only)}{colon}{write(v, ascii_only, spaced)}"
            for k, v in value.pairs
        )
        return "{" + comma.join(members) + "}"
    if isinstance(value, list):
        return "[" + comma.join(write(v, ascii_only, spaced) for v in value) + "]"
    return json.dumps(value, ensure_ascii=ascii_only)


# -- arguments ---------------------------------------------------------------------------------

_SURROGATES: tuple[Literal["Cs"]] = ("Cs",)  # (json.dumps writes no lone surrogate)
_TEXT = st.text(
    st.one_of(
        st.sampled_from('"\\'),  # what a string's JSON escapes the most
        st.sampled_from("/\n\t\r\x00\x1f{}[],: é€😀\u2028"),
        st.characters(min_codepoint=0x20, blacklist_categories=_SURROGATES),
    ),
    max_size=30,
)
_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)


@st.composite
def argument_texts(draw: st.DrawFn) -> str:
    """A call's argument text: mostly an object, sometimes broken (cut short, text after it, ...)."""
    value = draw(st.dictionaries(_TEXT, _JSON | _TEXT, max_size=5))
    text = json.dumps(value, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, None, 1])))
    damage = draw(st.integers(0, 9))
    if damage == 0:
        text = text[: draw(st.integers(0, len(text)))]
    elif damage == 1:
        text += draw(st.sampled_from(["}", " ", "\n", '{"a": 1}', "x"]))
    elif damage == 2:
        text = draw(st.sampled_from(['"a string"', "42", "[1, 2]", "", "  ", "{" * 40 + "}" * 40]))
    return text


@st.composite
def pieces(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` cut at any characters; sometimes inside every escape."""
    cuts = draw(st.lists(st.integers(0, len(text)), max_size=12))
    if draw(st.booleans()):
        cuts += [at + 1 for at, char in enumerate(text) if char == "\\"]
    cuts = sorted(min(cut, len(text)) for cut in cuts)
    out, start = [], 0
    for cut in [*cuts, len(text)]:
        out.append(text[start:cut])
        start = cut
    return out


# -- a record's shape, varied where the adapter keeps it for itself ------------------------------

_ODD_VALUES = [
    Raw("5"),
    Raw('"0"'),
    Raw("0.0"),
    Raw("-1"),
    Raw("1e0"),
    Raw("true"),
    Raw("[]"),
    Raw("{}"),
    Raw('"x"'),
]


@st.composite
def varied(draw: st.DrawFn, record: Obj) -> Obj:
    """The record, maybe with a field of another type, twice, escaped, unknown or null, deep inside too."""
    kind = draw(st.integers(0, 40))  # most records keep the common shape
    targets = [record]
    for _, value in record.pairs:
        if isinstance(value, Obj):
            targets.append(value)
        elif isinstance(value, list):
            targets += [v for v in value if isinstance(v, Obj)]
            for item in value:
                if isinstance(item, Obj):
                    targets += [v for _, v in item.pairs if isinstance(v, Obj)]
                    for _, deeper in item.pairs:
                        if isinstance(deeper, list):
                            targets += [v for v in deeper if isinstance(v, Obj)]
    target = draw(st.sampled_from(targets))
    if not target.pairs or kind > 6:
        return record
    at = draw(st.integers(0, len(target.pairs) - 1))
    key, value = target.pairs[at]
    if kind == 0:
        target.pairs[at] = (key, draw(st.sampled_from(_ODD_VALUES)))
    elif kind == 1:
        target.pairs.append((key, value))  # given twice
    elif kind == 2:
        target.pairs[at] = (key, None)
    elif kind == 3:
        del target.pairs[at]
    elif kind == 4:
        target.pairs.insert(
            at, ("unknown", Raw('{"deep": [[[[[[1]]]]]], "n": 1.5e3, "s": "\\ud83d\\ude00"}'))
        )
    elif kind == 5:
        target.pairs[at] = (key, Raw('"\\ud800"'))  # a lone surrogate
    else:
        target.pairs.append((key[:1] + "\\u0000", 1))  # a key that is not one, unless decoded
    return record


def _wire(record: Obj, draw: st.DrawFn) -> bytes:
    text = write(record, draw(st.booleans()), draw(st.booleans())).encode("utf-8", "surrogatepass")
    trouble = draw(st.integers(0, 30))
    if trouble == 0:
        text = text.replace(b'"', b'"\xff', 1)  # invalid UTF-8 in a string
    elif trouble == 1:
        text += b" x"  # bytes after the JSON value
    elif trouble == 2:
        text = text[: len(text) // 2]
    return text


# -- OpenAI Chat -----------------------------------------------------------------------------------


def _chunk(delta: Obj, finish: Any = None, *extra: tuple[str, Any]) -> Obj:
    choice = Obj(("index", 0), ("delta", delta), ("logprobs", None), ("finish_reason", finish))
    return Obj(
        ("id", "chatcmpl-1"),
        ("object", "chat.completion.chunk"),
        ("created", 1763000000),
        ("model", "gpt-4.1"),
        ("choices", [choice]),
        *extra,
    )


@st.composite
def openai_streams(draw: st.DrawFn) -> bytes:
    records = [_chunk(Obj(("role", "assistant"), ("content", None), ("refusal", None)))]
    calls = draw(st.lists(argument_texts(), min_size=int(draw(st.integers(0, 5)) > 0), max_size=3))
    fragments: list[tuple[int, str]] = []
    for index, text in enumerate(calls):
        fragments += [(index, piece) for piece in draw(pieces(text))]
    if draw(st.booleans()):
        fragments = draw(st.permutations(fragments))  # parallel calls, interleaved
    named: set[int] = set()
    named_late: set[int] = set()
    field = draw(st.sampled_from(["reasoning_content", "reasoning", "refusal", "content"]))
    for piece in draw(pieces(draw(_TEXT))):  # reasoning (or a refusal) before the answer, maybe
        records.append(_chunk(Obj((field, piece), ("content", None))))
    for piece in draw(pieces(draw(_TEXT))):
        records.append(_chunk(Obj(("content", piece))))
    late_names = draw(st.booleans())  # a name that comes after the call's first fragment
    indexed = draw(st.integers(0, 4)) > 0 or len(calls) < 2  # no index: Gemini's, Mistral's
    for index, piece in fragments:
        function = Obj(("arguments", piece))
        if index not in named:
            named.add(index)
            call = Obj(
                ("index", index), ("id", f"call_{index}"), ("type", "function"), ("function", function)
            )
            if not late_names:
                function.pairs.insert(0, ("name", "tool"))
        else:
            call = Obj(("index", index), ("function", function))
            if late_names and index not in named_late:
                named_late.add(index)
                function.pairs.insert(0, ("name", "tool"))
            elif draw(st.integers(0, 9)) == 0:
                call.pairs.append(("id", f"call_{index}"))  # the id again, as some servers send it
        if not indexed:
            del call.pairs[0]
        records.append(_chunk(Obj(("tool_calls", [call]))))
    records.append(_chunk(Obj(), "tool_calls" if calls else "stop"))
    usage = Obj(("prompt_tokens", 8), ("completion_tokens", 9), ("total_tokens", 17))
    records.append(Obj(("id", "chatcmpl-1"), ("choices", []), ("usage", usage)))
    body = b"".join(b"data: " + _wire(draw(varied(record)), draw) + b"\n\n" for record in records)
    return body + (b"data: [DONE]\n\n" if draw(st.integers(0, 5)) else b"")


# -- Anthropic ---------------------------------------------------------------------------------------


def _block(index: int, kind: str, *fields: tuple[str, Any]) -> tuple[str, Obj]:
    block = Obj(("type", kind), *fields)
    return "content_block_start", Obj(
        ("type", "content_block_start"), ("index", index), ("content_block", block)
    )


def _delta(index: int, kind: str, field: str, value: str) -> tuple[str, Obj]:
    delta = Obj(("type", kind), (field, value))
    return "content_block_delta", Obj(("type", "content_block_delta"), ("index", index), ("delta", delta))


def _stop(index: int) -> tuple[str, Obj]:
    return "content_block_stop", Obj(("type", "content_block_stop"), ("index", index))


@st.composite
def anthropic_streams(draw: st.DrawFn) -> bytes:
    usage = Obj(("input_tokens", 8), ("cache_read_input_tokens", 0), ("output_tokens", 1))
    message = Obj(("id", "msg_1"), ("type", "message"), ("role", "assistant"), ("model", "claude-sonnet-4-5"))
    message.pairs += [("content", []), ("stop_reason", None), ("usage", usage)]
    records = [("message_start", Obj(("type", "message_start"), ("message", message)))]
    blocks: list[list[tuple[str, Obj]]] = []
    if draw(st.booleans()):
        index = len(blocks)
        block = [_block(index, "thinking", ("thinking", ""), ("signature", ""))]
        block += [_delta(index, "thinking_delta", "thinking", piece) for piece in draw(pieces(draw(_TEXT)))]
        block += [_delta(index, "signature_delta", "signature", "c2ln"), _stop(index)]
        blocks.append(block)
    if draw(st.booleans()):
        index = len(blocks)
        block = [_block(index, "text", ("text", ""))]
        block += [_delta(index, "text_delta", "text", piece) for piece in draw(pieces(draw(_TEXT)))]
        blocks.append([*block, _stop(index)])
    if draw(st.integers(0, 3)) == 0:  # a server tool's block: nothing in it is read
        index = len(blocks)
        block = [
            _block(index, "server_tool_use", ("id", "srvtoolu_1"), ("name", "web_search"), ("input", Obj()))
        ]
        block += [
            _delta(index, "input_json_delta", "partial_json", '{"q": 1}'),
            _delta(index, "text_delta", "text", "x"),
        ]
        blocks.append([*block, _stop(index)])
    for text in draw(st.lists(argument_texts(), max_size=3)):
        index = len(blocks)
        block = [_block(index, "tool_use", ("id", f"toolu_{index}"), ("name", "tool"), ("input", Obj()))]
        block += [
            _delta(index, "input_json_delta", "partial_json", piece) for piece in ["", *draw(pieces(text))]
        ]
        blocks.append([*block, _stop(index)])
    if draw(st.booleans()):
        blocks = draw(st.permutations(blocks))  # interleaved thinking, blocks out of order
    for block in blocks:
        if draw(st.integers(0, 9)) == 0:
            block = block[:-1]  # its stop never comes
        records += block
        if draw(st.integers(0, 4)) == 0:
            records.append(("ping", Obj(("type", "ping"))))
    delta = Obj(("stop_reason", "tool_use"), ("stop_sequence", None))
    records.append(
        (
            "message_delta",
            Obj(("type", "message_delta"), ("delta", delta), ("usage", Obj(("output_tokens", 9)))),
        )
    )
    records.append(("message_stop", Obj(("type", "message_stop"))))
    return b"".join(
        b"event: " + name.encode() + b"\ndata: " + _wire(draw(varied(record)), draw) + b"\n\n"
        for name, record in records
    )


# -- both paths ----------------------------------------------------------------------------------

_TINY = Limits(
    max_line_bytes=300, max_event_bytes=200, max_arguments_bytes=40, max_buffered_bytes=60, max_json_depth=4
)


@st.composite
def options(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "partial_arguments": draw(st.booleans()),
        "detect": draw(st.sampled_from([None, (), ("fence", "json")])),
        "limits": draw(st.sampled_from([None, None, _TINY])),
    }


@st.composite
def chunkings(draw: st.DrawFn, stream: bytes) -> list[bytes]:
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return [stream]
    if kind == 1:
        return bytewise(stream)
    return split_at(stream, draw(st.lists(st.integers(0, len(stream)), max_size=40)))


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(data=st.data())
def test_generated_openai_streams(data: st.DataObject) -> None:
    stream = data.draw(openai_streams())
    provider = data.draw(st.sampled_from(["openai", "auto"]))
    same_on_both_paths(data.draw(chunkings(stream)), provider, **data.draw(options()))


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(data=st.data())
def test_generated_anthropic_streams(data: st.DataObject) -> None:
    stream = data.draw(anthropic_streams())
    provider = data.draw(st.sampled_from(["anthropic", "auto"]))
    same_on_both_paths(data.draw(chunkings(stream)), provider, **data.draw(options()))


# -- arguments cut at every character ---------------------------------------------------------

ESCAPED = [
    json.dumps({"a": 'x"y\\z"w', "b": ['\\"', "]", "\\\\", '"}'], "c": {"d": "}{", "e": "\u00e9\U0001f600"}}),
    json.dumps({"path": "C:\\dir\\", "q": '"'}, ensure_ascii=True),
    json.dumps(["not", "an", "object"]),
    '{"a": "unclosed \\',
    '{"a": 1}} {"b": 2}',
]


def openai_call(pieces: list[str]) -> bytes:
    head = Obj(
        ("index", 0),
        ("id", "call_0"),
        ("type", "function"),
        ("function", Obj(("name", "t"), ("arguments", ""))),
    )
    records = [_chunk(Obj(("role", "assistant"))), _chunk(Obj(("tool_calls", [head])))]
    for piece in pieces:
        records.append(
            _chunk(Obj(("tool_calls", [Obj(("index", 0), ("function", Obj(("arguments", piece))))])))
        )
    records.append(_chunk(Obj(), "tool_calls"))
    return (
        b"".join(b"data: " + write(r, False, False).encode() + b"\n\n" for r in records) + b"data: [DONE]\n\n"
    )


def anthropic_call(pieces: list[str]) -> bytes:
    block = _block(0, "tool_use", ("id", "toolu_0"), ("name", "t"), ("input", Obj()))
    message = Obj(("id", "msg_1"), ("model", "claude-sonnet-4-5"), ("usage", Obj(("input_tokens", 8))))
    records = [("message_start", Obj(("type", "message_start"), ("message", message))), block]
    records += [_delta(0, "input_json_delta", "partial_json", piece) for piece in pieces]
    records += [_stop(0), ("message_stop", Obj(("type", "message_stop")))]
    return b"".join(
        b"event: " + name.encode() + b"\ndata: " + write(r, False, False).encode() + b"\n\n"
        for name, r in records
    )


CALLS = {"openai": openai_call, "anthropic": anthropic_call}


@pytest.mark.parametrize("provider", CALLS)
@pytest.mark.parametrize("text", ESCAPED)
@pytest.mark.parametrize("partial", [False, True])
def test_arguments_one_character_a_fragment(provider: str, text: str, partial: bool) -> None:
    same_on_both_paths([CALLS[provider](list(text))], provider, partial_arguments=partial)


@pytest.mark.parametrize("provider", CALLS)
@pytest.mark.parametrize("text", ESCAPED)
def test_arguments_in_two_fragments_cut_anywhere(provider: str, text: str) -> None:
    for cut in range(len(text) + 1):
        same_on_both_paths([CALLS[provider]([text[:cut], text[cut:]])], provider, partial_arguments=True)
