"""Reasoning written in the text (``think``, ``think_prompted``): ReasoningDelta, never searched for calls.

Tags as the models write them: ``<think>`` (Qwen3, QwQ, the DeepSeek-R1 distills, ERNIE,
MiniMax-M2, GLM), ``<seed:think>`` (Seed-OSS), ``<|START_THINKING|>`` (Cohere Command).  A
template that writes the opening tag into the prompt leaves only the closing tag in the output
(``think_prompted``, as vLLM's and SGLang's DeepSeek-R1 and Qwen3 reasoning parsers read it).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamcalls import ReasoningDelta, StreamParser, TextDelta, ToolCallFailed, ToolCallStarted
from streamcalls._emitter import Emitter
from streamcalls._limits import Limits
from streamcalls.detectors import build_channel
from tests.support import DATA, bytewise, counter_ids, feed_chunks, normalize, split_at
from tests.support import completed_calls as calls
from tests.support import text_of as texts
from tests.support.conservation import check_conservation

HERMES_CALL = '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>'
TAGS = [
    ("<think>", "</think>"),
    ("<seed:think>", "</seed:think>"),
    ("<|START_THINKING|>", "<|END_THINKING|>"),
]


def run(text: str, detect: tuple[str, ...], **options: Any) -> list[Any]:
    return feed_chunks([text.encode()], "text", detect=detect, **options)


def reasoning(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, ReasoningDelta))


@pytest.mark.parametrize(("opener", "closer"), TAGS)
def test_reasoning_between_tags_is_reasoning_and_markup_in_it_is_no_call(opener: str, closer: str) -> None:
    text = f"{opener}I might call {HERMES_CALL} here.{closer}\n{HERMES_CALL}"
    events = run(text, ("think", "hermes"))
    assert reasoning(events) == f"I might call {HERMES_CALL} here."
    assert [(c.name, c.arguments) for c in calls(events)] == [("f", {"a": 1})]  # only the one after it
    assert texts(events) == "\n"
    check_conservation(text, events, think=True)


def test_an_opening_tag_counts_at_a_line_start_only() -> None:
    events = run("Use <think> tags.\n<think>hm</think>ok", ("think",))
    assert texts(events) == "Use <think> tags.\nok"
    assert reasoning(events) == "hm"


def test_the_closing_tag_must_match_its_opener() -> None:
    events = run("<seed:think>a</think>b</seed:think>c", ("think",))
    assert reasoning(events) == "a</think>b"
    assert texts(events) == "c"


def test_reasoning_streams_as_it_arrives_and_ends_with_its_closing_tag() -> None:
    parser = StreamParser("text", detect=("think",), id_factory=counter_ids())
    assert parser.feed(b"<think>one ") == [ReasoningDelta("one ")]
    assert parser.feed(b"two</thi") == [ReasoningDelta("two")]  # a closing tag may be coming
    assert parser.feed(b"nk>after") == [TextDelta("after")]


def test_text_that_ends_inside_reasoning_is_reasoning() -> None:
    events = run("<think>cut off", ("think",))
    assert reasoning(events) == "cut off"
    assert texts(events) == ""


def test_a_text_that_starts_inside_reasoning() -> None:
    text = "The user wants <tool_call> syntax.\n</think>\n\n" + HERMES_CALL
    events = run(text, ("think_prompted", "hermes"))
    assert reasoning(events) == "The user wants <tool_call> syntax.\n"
    assert [c.name for c in calls(events)] == ["f"]
    assert texts(events) == "\n\n"
    check_conservation(text, events, think=True)
    # Without think_prompted the reasoning is text, and the markup it quotes is read as markup.
    plain = run(text, ("think", "hermes"))
    assert reasoning(plain) == ""
    assert texts(plain).startswith("The user wants ")
    assert any(isinstance(e, ToolCallFailed) for e in plain)


def test_started_inside_reasoning_with_no_closing_tag_all_of_it_is_reasoning() -> None:
    events = run("thinking and thinking", ("think_prompted",))
    assert reasoning(events) == "thinking and thinking"
    assert texts(events) == ""


def test_an_opening_tag_written_anyway_is_framing() -> None:
    events = run("<think>plan</think>answer", ("think_prompted",))
    assert (reasoning(events), texts(events)) == ("plan", "answer")
    events = run("<seed:think>plan</think>still</seed:think>answer", ("think_prompted",))
    assert (reasoning(events), texts(events)) == ("plan</think>still", "answer")


def test_reasoning_opened_by_the_prompt_needs_the_detector_from_the_first_character() -> None:
    # A stream that names its model after text has come cannot start inside reasoning: the text
    # released before stays as it was (see follow_model).
    emit = Emitter(Limits(), counter_ids())
    channel = build_channel(emit, ("fence",), None, fallback=False)
    channel.push("before ")
    channel.add(("think_prompted",))
    channel.push("more</think>")
    channel.end()
    assert "".join(e.text for e in emit.out if isinstance(e, TextDelta)) == "before more</think>"


@pytest.mark.parametrize("name", ["think_qwen3", "think_prompted_r1", "think_tags"])
def test_recordings_under_any_chunking(name: str) -> None:
    text = (DATA / "text" / f"{name}.txt").read_text(encoding="utf-8")
    detect = tuple(json.loads((DATA / "text" / f"{name}.options.json").read_text())["detect"])
    raw = text.encode()
    whole = feed_chunks([raw], "text", detect=detect)
    check_conservation(text, whole, think=True)
    assert normalize(feed_chunks(bytewise(raw), "text", detect=detect)) == normalize(whole)


prose = st.text("ab \n<>/|_:THINKSTARDEkst", max_size=30)


@settings(max_examples=200, deadline=None)
@given(
    parts=st.lists(st.one_of(prose, st.sampled_from([t for pair in TAGS for t in pair])), max_size=8),
    data=st.data(),
)
def test_any_mix_of_tags_and_prose_keeps_every_character_under_any_chunking(
    parts: list[str], data: st.DataObject
) -> None:
    text = "".join(parts)
    raw = text.encode()
    for detect in (("think",), ("think_prompted",), ("think", "hermes", "fence")):
        whole = feed_chunks([raw], "text", detect=detect)
        assert not [e for e in whole if isinstance(e, ToolCallStarted)]
        check_conservation(text, whole, think=True)
        cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=8))
        assert normalize(feed_chunks(split_at(raw, cuts), "text", detect=detect)) == normalize(whole)
