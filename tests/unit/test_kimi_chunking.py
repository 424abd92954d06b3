"""Kimi K2's markup gives the same events however the text is cut into reads (a lost fuzz finding).

An atheris run once found that with ``provider="text"`` and a Kimi K2 model (``model=`` picks the
``kimi`` and ``think`` detectors), feeding a stream in 8-byte reads and whole gave a different
failed-call message; the input was lost.  Here: Kimi's tokens, ids, arguments and their broken
variants (bad JSON, JSON still open at a token, a missing ``<|tool_call_end|>`` or section end,
a token cut short or misspelt, stray text in the section, the stream cut anywhere), reasoning
and prose around them, fed whole, in reads of every size from 1 to 16 bytes, and at random
places: the same events, every ``ToolCallFailed`` message and raw text included (text deltas
merged, as how a chunking splits them is no part of the contract).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from streamcalls import Event, ToolCallFailed
from tests.support import feed_chunks, normalize, split_at

MODEL = "moonshotai/Kimi-K2-Instruct"
SECTION, SECTION_END = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
CALL, ARGS, CALL_END = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
TOKENS = [
    SECTION,
    SECTION_END,
    "<|tool_call_section_begin|>",
    "<|tool_call_section_end|>",
    CALL,
    ARGS,
    CALL_END,
]

_IDS = st.sampled_from(
    ["functions.get_weather:0", "functions.web.search:3", "get_weather:1", "functions.f", "", " a\n", "é😀:2"]
)
_ARGUMENTS = st.sampled_from(
    [
        '{"city": "Paris"}',
        "{}",
        "",
        '{"a": [1, {"b": "x<|y"}], "c": null}',
        '{"city": "Par',  # open at whatever follows
        '{"city" "Paris"}',  # bad JSON
        '{"a": 1}}',  # closed, then more
        "[1, 2]",  # not an object
        '"text"',
        "{'a': 1}",
        '{"s": "😀é\\u00e9\\n"}',
    ]
)
_NOISE = st.sampled_from(
    ["", " ", "\n", "  \n\t", "noise", "<", "<|", "<|tool", "<|tool_call_end", "<b>", "{"]
)
_CUT = st.sampled_from([None, *range(1, 40)])  # where a token is cut short, if it is


@st.composite
def calls(draw: st.DrawFn) -> str:
    """One call, well formed or broken in one or more ways."""
    parts = [draw(_NOISE), CALL, draw(_IDS)]
    if draw(st.booleans()) or draw(st.booleans()):
        parts += [ARGS, draw(_NOISE.filter(lambda n: "<" not in n)), draw(_ARGUMENTS)]
    if draw(st.integers(0, 4)):
        parts += [draw(_NOISE), CALL_END]
    return "".join(parts)


@st.composite
def documents(draw: st.DrawFn) -> str:
    out = []
    if draw(st.booleans()):
        out.append(
            "<think>" + draw(st.sampled_from(["", "plan: call <|tool_call_begin|>", "x"])) + "</think>"
        )
    out.append(draw(st.sampled_from(["", "Sure.", "Let me check.\n", "é😀 "])))
    for _ in range(draw(st.integers(1, 3))):
        section = draw(st.booleans())
        body = "".join(draw(st.lists(calls(), min_size=0, max_size=3)))
        if draw(st.booleans()):
            body += draw(st.sampled_from(TOKENS))  # a token where it does not belong
        if section:
            end = draw(st.sampled_from([SECTION_END, "<|tool_call_section_end|>", "", "<|tool_calls_sec"]))
            out.append(draw(st.sampled_from([SECTION, "<|tool_call_section_begin|>"])) + body + end)
        else:
            out.append(body)
        out.append(draw(_NOISE))
    text = "".join(out)
    cut = draw(_CUT)
    if cut is not None and draw(st.booleans()):  # the stream cut anywhere
        text = text[: max(0, len(text) - cut)]
    return text


def run(chunks: list[bytes]) -> list[Event]:
    return normalize(feed_chunks(chunks, "text", model=MODEL))


def reads(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


@settings(max_examples=400, deadline=None)
@given(text=documents(), data=st.data())
def test_kimi_events_do_not_depend_on_the_reads(text: str, data: st.DataObject) -> None:
    raw = text.encode()
    whole = run([raw])
    for size in range(1, 17):
        assert run(reads(raw, size)) == whole, f"reads of {size} bytes"
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=8))
    assert run(split_at(raw, cuts)) == whole, f"cut at {sorted(cuts)}"


def test_the_documents_hold_failed_calls() -> None:
    """The strategy reaches the failures the finding was about (else the test above proves little)."""
    text = SECTION + CALL + "functions.f:0" + ARGS + '{"city": "Par' + CALL_END + SECTION_END
    failed = [e for e in feed_chunks([text.encode()], "text", model=MODEL) if isinstance(e, ToolCallFailed)]
    assert len(failed) == 1
    assert run(reads(text.encode(), 8)) == run([text.encode()])


def test_another_token_where_the_call_end_belongs_fails_alike_in_any_reads() -> None:
    """What the test above found: a section's begin token after a call's arguments, where
    ``<|tool_call_end|>`` belongs.  Cut short (``<|tool_calls``), it began a section's end token
    too, and the detector took it for one: the call's failure read "text inside the tool-call
    section that is not a call" instead of the whole text's "expected <|tool_call_end|> after
    the arguments"."""
    text = SECTION + CALL + "functions.get_weather:0" + ARGS + '{"city": "Paris"}' + SECTION + SECTION_END
    raw = text.encode()
    whole = run([raw])
    assert [e.error for e in whole if isinstance(e, ToolCallFailed)] == [
        "expected <|tool_call_end|> after the arguments"
    ]
    for size in range(1, 17):
        assert run(reads(raw, size)) == whole, f"reads of {size} bytes"
