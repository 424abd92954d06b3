"""The native ``TurnBuilder.add`` against the Python one: the same turn, field for field, at every step.

Where the native path is built, ``TurnBuilder.add`` is a C method that takes a
piece of text, of reasoning or of a call's arguments itself and calls the
Python ``add`` (``_native.python_turn_add``, the reference) for everything
else.  Here both build the turn of the same events -- every recording of the
corpus, its stream cut anywhere (hypothesis), and event lists put together by
hand, odd ones included (deltas before any start, for calls never started,
fields of the wrong type) -- and the turns are compared whole and after every
event, as ``turn`` may be read at any time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, cast

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import streamcalls
from streamcalls import (
    ParseError,
    ProviderError,
    ReasoningCompleted,
    ReasoningDelta,
    ReasoningStarted,
    StreamFinished,
    StreamStarted,
    TextDelta,
    TextSignature,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallStarted,
    Turn,
    TurnBuilder,
    _native,
)
from tests.support import Case, corpus, counter_ids, split_at

pytestmark = pytest.mark.skipif(
    _native.speedups is None,
    reason="the native path is not built here (no compiler), or STREAMCALLS_PURE_PYTHON=1",
)

CASES = corpus()


class PureBuilder(TurnBuilder):
    """The builder with the Python ``add``: the reference."""

    __slots__ = ()
    add = _native.python_turn_add


def fields(turn: Turn) -> tuple[Any, ...]:
    """Every field, with the types of the parts (a msgspec comparison does not look at them)."""
    return (
        tuple((type(part), part) for part in turn.parts),
        turn.finish_reason,
        turn.usage,
        turn.provider,
        turn.model,
        turn.response_id,
        tuple((type(error), error) for error in turn.errors),
        turn.raw_arguments,
    )


def same_turns(events: Sequence[Any], every: int = 1) -> Turn:
    """Both builders take ``events``; their turns are equal after every ``every``-th event and at the end."""
    native, pure = TurnBuilder(), PureBuilder()
    for number, event in enumerate(events):
        assert native.add(event) is None  # type: ignore[func-returns-value]
        pure.add(event)
        if number % every == 0:
            assert fields(native.turn) == fields(pure.turn), (number, event)
    turn = native.turn
    assert fields(turn) == fields(pure.turn)
    assert fields(streamcalls.accumulate(events)) == fields(turn)
    return turn


def test_the_native_add_is_in_place() -> None:
    # (otherwise every test here compares the Python add with itself)
    assert TurnBuilder.add is not _native.python_turn_add
    assert type(TurnBuilder.__dict__["add"]).__name__ == "method_descriptor"
    assert TurnBuilder.add.__doc__ == _native.python_turn_add.__doc__


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_every_recording_gives_the_same_turn(case: Case) -> None:
    events = case.expected()
    same_turns(events, every=max(1, len(events) // 200))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_recording_cut_anywhere_gives_the_same_turn(data: st.DataObject) -> None:
    case = data.draw(st.sampled_from(CASES))
    raw = case.data()
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=30))
    provider = cast(streamcalls.ProviderName, case.provider)

    def parse(chunks: Iterable[bytes]) -> list[Any]:
        parser = streamcalls.StreamParser(provider, id_factory=counter_ids(), **case.options())
        events: list[Any] = []
        for chunk in chunks:
            events += parser.feed(chunk)
        return events + parser.close()

    events = parse(split_at(raw, cuts))
    with _native.pure_python():
        pure_events = parse(split_at(raw, cuts))
    native = streamcalls.accumulate(events)
    pure = PureBuilder()
    for event in pure_events:
        pure.add(event)
    assert fields(native) == fields(pure.turn)
    assert native == streamcalls.accumulate(case.expected())  # however the stream was cut


# -- event lists put together by hand ----------------------------------------------------------------

_INDICES = st.integers(0, 3)
_TEXTS = st.sampled_from(["", "a", "bc", "{", '"x"', "é", "\U0001f600", "}"])


def _call(index: int) -> ToolCall:
    return ToolCall(f"id{index}", f"tool{index}", {"n": index}, index)


def _event(kind: int, index: int, text: str) -> Any:
    makers: list[Callable[[], Any]] = [
        lambda: TextDelta(text),
        lambda: ReasoningDelta(text),
        lambda: ToolCallDelta(index, text),
        lambda: ToolCallStarted(index, f"id{index}", f"tool{index}"),
        lambda: ToolCallCompleted(_call(index)),
        lambda: ToolCallFailed(index, f"id{index}", f"tool{index}", text, "broken"),
        lambda: ReasoningStarted(kind="thinking", id=text or None),
        lambda: ReasoningCompleted(signature=text or None),
        lambda: TextSignature(text),
        lambda: StreamStarted("anthropic", model=text),
        lambda: StreamFinished("stop"),
        lambda: ProviderError(text),
        lambda: ParseError(text),
        # odd ones: fields of other types than declared (msgspec does not check them here), other values
        lambda: ToolCallDelta(cast(int, str(index)), text),
        lambda: ToolCallDelta(cast(int, float(index)), text),
        lambda: ToolCallDelta(index, cast(str, index)),
        lambda: TextDelta(cast(str, None)),
        lambda: text,
        lambda: None,
    ]
    return makers[kind]()


_EVENTS = st.lists(
    st.builds(_event, st.integers(0, 18), _INDICES, _TEXTS)
    | st.builds(_event, st.sampled_from([0, 1, 2, 2, 2]), _INDICES, _TEXTS),
    max_size=60,
)


@settings(max_examples=400, deadline=None)
@given(events=_EVENTS)
def test_any_list_of_events_gives_the_same_turn(events: list[Any]) -> None:
    native, pure = TurnBuilder(), PureBuilder()
    for event in events:
        outcome: list[type[Exception] | None] = []
        for builder in (native, pure):
            try:
                builder.add(event)
                outcome.append(None)
            except Exception as exc:  # (a field of the wrong type breaks the join, on both)
                outcome.append(type(exc))
        assert outcome[0] == outcome[1]
        try:
            turns = [fields(native.turn), fields(pure.turn)]
        except TypeError:  # "".join of a non-str: raised by both, as the next line checks
            with pytest.raises(TypeError):
                pure.turn  # noqa: B018
            return
        assert turns[0] == turns[1]


def test_a_call_keeps_its_argument_text_exactly() -> None:
    fragments = ['{"pa', 'th": "a\\u00e9', '\\n"', ", ", '"n": 1', "}"]
    events: list[Any] = [ToolCallStarted(0, "c", "t")] + [ToolCallDelta(0, f) for f in fragments]
    events.append(ToolCallCompleted(ToolCall("c", "t", {"path": "aé\n", "n": 1})))
    turn = same_turns(events)
    assert turn.raw_arguments == {"c": "".join(fragments)}
    # a delta for a call never started is not kept, nor one after the call ended
    turn = same_turns([*events, ToolCallDelta(0, "x"), ToolCallDelta(5, "y")])
    assert turn.raw_arguments == {"c": "".join(fragments)}


def test_text_and_reasoning_go_to_their_open_parts() -> None:
    events = [
        TextDelta("a"),
        TextDelta("b"),
        ReasoningDelta("r1"),  # a bare block
        ReasoningDelta("r2"),
        ReasoningStarted(kind="thinking"),
        ReasoningDelta("r3"),
        ReasoningCompleted(signature="s"),
        ReasoningDelta("r4"),  # bare again, after the block ended
        TextDelta("c"),
        TextSignature("g"),
        TextDelta("d"),
    ]
    turn = same_turns(events)
    assert [(type(p).__name__, getattr(p, "text", None)) for p in turn.parts] == [
        ("TextPart", "ab"),
        ("ReasoningPart", "r1r2"),
        ("ReasoningPart", "r3"),
        ("ReasoningPart", "r4"),
        ("TextPart", "c"),
        ("TextPart", "d"),
    ]


def test_add_takes_its_argument_by_name_and_checks_its_arguments() -> None:
    builder = TurnBuilder()
    builder.add(event=TextDelta("a"))
    builder.add(TextDelta("b"))
    assert builder.turn.text == "ab"
    for args, kwargs in (((), {}), ((TextDelta("x"), TextDelta("y")), {}), ((), {"evt": TextDelta("x")})):
        with pytest.raises(TypeError):
            builder.add(*args, **kwargs)
        with pytest.raises(TypeError):
            PureBuilder().add(*args, **kwargs)
    with pytest.raises(TypeError):
        TurnBuilder.add(object(), TextDelta("x"))  # type: ignore[arg-type]


def test_the_turn_read_between_events_changes_nothing() -> None:
    builder = TurnBuilder()
    seen = []
    for piece in ("a", "b", "c"):
        builder.add(TextDelta(piece))
        seen.append(builder.turn.text)  # (joins the pieces so far: the next append goes on after)
    assert seen == ["a", "ab", "abc"]
    assert msgspec.structs.asdict(builder.turn)["parts"] == (streamcalls.TextPart("abc"),)
