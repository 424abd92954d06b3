"""``delta.content`` as a list of typed parts (Mistral's reasoning models), issue 12 item 1.

Mistral's SDK types a streamed delta's ``content`` as ``str | list[ContentChunk]``
(``models/deltamessage.py``): ``TextChunk{type: "text", text}``,
``ThinkChunk{type: "thinking", thinking: [TextChunk | ReferenceChunk | ...],
signature?, closed?}``, and chunks without text (``reference``,
``image_url``, ``document_url``, ``file``, ``input_audio``).  Text parts are
text, thinking parts reasoning, the rest skipped without an error -- through
the bytes and through ``feed_event``.

The oracle is a small reader written here from those types.
"""

from __future__ import annotations

import json
from typing import Any

import pydantic
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcalls import (
    Event,
    ParseError,
    ReasoningCompleted,
    ReasoningDelta,
    ReasoningStarted,
    StreamFinished,
    StreamParser,
    TextDelta,
    Usage,
)
from tests.support import DATA, after_start, bytewise, counter_ids, normalize, split_at, sse_payloads
from tests.support import feed_content as feed_chunks


def chunk(content: Any, finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "cmpl-1",
        "object": "chat.completion.chunk",
        "model": "magistral-small-2509",
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": finish}],
    }


def stream(contents: list[Any]) -> bytes:
    payloads = [chunk(content) for content in contents] + [chunk("", "stop")]
    return b"".join(b"data: " + json.dumps(p).encode() + b"\n\n" for p in payloads) + b"data: [DONE]\n\n"


def expected(contents: list[Any]) -> list[Event]:
    """The reference reader: text from text chunks, reasoning from thinking chunks' text chunks;
    a run of reasoning is one block, ended by text or the end."""
    events: list[Event] = []
    thinking = False

    def say(text: str) -> None:
        nonlocal thinking
        if thinking:
            events.append(ReasoningCompleted())
            thinking = False
        events.append(TextDelta(text))

    for content in contents:
        if isinstance(content, str):
            if content:
                say(content)
            continue
        for part in content:
            if part.get("type") == "text" and part.get("text"):
                say(part["text"])
            elif part.get("type") == "thinking":
                for inner in part.get("thinking", []):
                    if inner.get("type") == "text" and inner.get("text"):
                        if not thinking:
                            events.append(ReasoningStarted(kind="thinking"))
                            thinking = True
                        events.append(ReasoningDelta(inner["text"]))
    if thinking:
        events.append(ReasoningCompleted())
    events.append(StreamFinished("stop", None, "stop"))
    return normalize(events)


words = st.text(st.characters(codec="utf-8"), min_size=0, max_size=12)
text_part = st.builds(lambda t: {"type": "text", "text": t}, words)
thinking_part = st.builds(
    lambda pieces, closed: {"type": "thinking", "thinking": pieces, **({"closed": closed} if closed else {})},
    st.lists(
        st.one_of(
            st.builds(lambda t: {"type": "text", "text": t}, words),
            st.builds(lambda ids: {"type": "reference", "reference_ids": ids}, st.lists(st.integers(0, 9))),
            st.just(
                {
                    "type": "tool_reference",
                    "tool": "web_search",
                    "title": "Paris",
                    "url": "https://example.com",
                }
            ),
        ),
        max_size=3,
    ),
    st.booleans(),
)
other_part = st.sampled_from(
    [
        {"type": "reference", "reference_ids": [1, "doc-2"]},
        {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
        {"type": "document_url", "document_url": "https://example.com/a.pdf"},
        {"type": "input_audio", "input_audio": "UklGRg=="},
        {"type": "file", "file_id": "5f0c3a1e-7b2d-4e8f-9a6c-1d2e3f4a5b6c"},
        {"type": "something_new", "data": {"text": ["not", "for", "reading"]}},
    ]
)
contents = st.lists(
    st.one_of(words, st.lists(st.one_of(text_part, thinking_part, other_part), max_size=4)), max_size=6
)


@settings(max_examples=120, deadline=None)
@given(contents=contents, cuts=st.lists(st.integers(0, 4000), max_size=8), auto=st.booleans())
def test_text_parts_are_text_thinking_parts_reasoning_others_skipped(
    contents: list[Any], cuts: list[int], auto: bool
) -> None:
    data = stream(contents)
    got = feed_chunks(split_at(data, cuts), "auto" if auto else "mistral")
    assert not [e for e in got if type(e) is ParseError]
    assert normalize(got) == expected(contents)


def test_the_issue_example() -> None:
    data = stream(
        [
            [{"type": "thinking", "thinking": [{"type": "text", "text": "2 and 2 make 4."}]}],
            [{"type": "text", "text": "2 + 2 = 4"}],
        ]
    )
    assert feed_chunks(bytewise(data), "mistral") == [
        ReasoningStarted(kind="thinking"),
        ReasoningDelta("2 and 2 make 4."),
        ReasoningCompleted(),
        TextDelta("2 + 2 = 4"),
        StreamFinished("stop", None, "stop"),
    ]


def test_feed_event_takes_the_same_dicts() -> None:
    path = DATA / "openai" / "mistral_thinking_parts.sse"
    parser = StreamParser("auto", id_factory=counter_ids())
    got = [event for payload in sse_payloads(path) for event in parser.feed_event(payload)]
    got += parser.close()
    assert after_start(got) == feed_chunks([path.read_bytes()], "openai")


# SDK-shaped objects (pydantic models with model_dump), written here after
# mistralai's models/textchunk.py, thinkchunk.py, referencechunk.py, deltamessage.py.
class _TextChunk(pydantic.BaseModel):
    text: str
    type: str = "text"


class _ReferenceChunk(pydantic.BaseModel):
    reference_ids: list[int | str]
    type: str = "reference"


class _ThinkChunk(pydantic.BaseModel):
    thinking: list[_TextChunk | _ReferenceChunk]
    type: str = "thinking"
    closed: bool | None = None


class _Delta(pydantic.BaseModel):
    role: str | None = None
    content: str | list[_TextChunk | _ThinkChunk | _ReferenceChunk] | None = None


class _Choice(pydantic.BaseModel):
    index: int
    delta: _Delta
    finish_reason: str | None = None


class _Chunk(pydantic.BaseModel):
    id: str
    object: str = "chat.completion.chunk"
    model: str
    choices: list[_Choice]
    usage: dict[str, int] | None = None


def test_feed_event_takes_sdk_objects() -> None:
    payloads = sse_payloads(DATA / "openai" / "mistral_thinking_parts.sse")
    objects = [_Chunk.model_validate(payload) for payload in payloads]
    parser = StreamParser("mistral")
    got = [event for obj in objects for event in parser.feed_event(obj)] + parser.close()
    assert normalize(after_start(got)) == normalize(
        [
            ReasoningStarted(kind="thinking"),
            ReasoningDelta("The user asks for 2 + 2. Adding: 4. Done."),
            ReasoningCompleted(),
            TextDelta("2 + 2 = 4, as arithmetic says."),
            StreamFinished("stop", Usage(input_tokens=12, output_tokens=39, total_tokens=51), "stop"),
        ]
    )


def test_a_part_with_a_wrongly_typed_text_costs_only_that_part() -> None:
    data = stream([[{"type": "text", "text": 5}, {"type": "text", "text": "kept"}], "and more"])
    got = feed_chunks([data], "mistral")
    assert type(got[0]) is ParseError
    assert "$.choices[0].delta.content[0].text" in got[0].message
    assert got[1:] == [TextDelta("kept"), TextDelta("and more"), StreamFinished("stop", None, "stop")]


def test_plain_string_content_is_unchanged() -> None:
    assert feed_chunks([stream(["a", "", "b"])], "openai") == [
        TextDelta("a"),
        TextDelta("b"),
        StreamFinished("stop", None, "stop"),
    ]
