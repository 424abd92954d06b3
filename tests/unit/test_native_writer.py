"""The native send against the pure-Python writer: the same bytes, event by event.

The writer's native ``send`` (``streamcalls/_native/writer.c``) writes a text,
reasoning or argument delta by the form its block or call holds
(``streamcalls/writing/_form.py``); the targets' Python steps stay the
reference.  So every recording of the corpus, and hypothesis-made event lists
in the parser's order, are written as every target twice -- by a writer made on
the native path and by one made under ``_native.pure_python()`` -- with the ids
and clocks the targets read made deterministic, and the bytes of each event
compared.  Each test also checks that the native send did write deltas
(``written()``), so that none passes by running the pure path twice; and one
gives a block a form that lies, to see the native path follow it.
"""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import streamcalls
from streamcalls import ReasoningDelta, StreamStarted, TextDelta, ToolCallDelta, ToolCallStarted, _native
from streamcalls.writing import TARGETS
from streamcalls.writing._form import DeltaForm
from tests.support import Case, corpus
from tests.support.ui_streams import Item, event_lists
from tests.support.writer_roundtrip import first_stream

speedups = _native.speedups
pytestmark = pytest.mark.skipif(speedups is None, reason="the native path is not built here")

TARGET_NAMES = tuple(sorted(TARGETS))
CASES = corpus()


@pytest.fixture(autouse=True)
def _steady(monkeypatch: pytest.MonkeyPatch) -> None:
    """The clock the targets write, the same in both runs (the ids: see _written)."""
    monkeypatch.setattr(time, "time", lambda: 1_700_000_000.25)


def _written(items: Sequence[Item], target: str) -> list[bytes]:
    numbers = itertools.count(1)
    real = uuid.uuid4
    uuid.uuid4 = lambda: uuid.UUID(int=next(numbers))
    try:
        writer = streamcalls.StreamWriter(target)  # type: ignore[arg-type]
        out: list[Any] = []
        for item in items:
            try:
                out.append(writer.send(item))
            except streamcalls.UsageError as exc:
                out.append(("UsageError", str(exc)))
                break
        else:
            out.append(writer.close())
        return out
    finally:
        uuid.uuid4 = real


def _same(items: Sequence[Item], target: str) -> None:
    native = _written(items, target)
    with _native.pure_python():
        pure = _written(items, target)
    assert len(native) == len(pure)
    for number, (mine, theirs) in enumerate(zip(native, pure, strict=True)):
        assert mine == theirs, f"{target}: event {number} ({type(items[number]).__name__})"
    assert b"".join(b for b in native if isinstance(b, bytes)) == b"".join(
        b for b in pure if isinstance(b, bytes)
    )


def _deltas(items: Sequence[Item]) -> int:
    return sum(type(item) in (TextDelta, ReasoningDelta, ToolCallDelta) for item in items)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_recording_as_every_target(case: Case) -> None:
    events = case.expected()
    before = speedups.written()  # type: ignore[union-attr]
    for target in TARGET_NAMES:
        _same(events, target)
    if _deltas(events) >= 2 * len(TARGET_NAMES):
        assert speedups.written() > before  # type: ignore[union-attr]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=event_lists())
def test_event_lists_as_every_target(items: list[Item]) -> None:
    items = first_stream(items)
    for target in TARGET_NAMES:
        _same(items, target)


# Every character JSON may escape, the two a target escapes its own way, and the rest of Unicode.
_TRICKY = st.sampled_from(
    ['"', "\\", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f", "\u2028", "\u2029"]
)
_PIECES = st.lists(
    st.text(st.one_of(_TRICKY, st.characters(codec="utf-8")), min_size=0, max_size=12), min_size=1, max_size=8
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=_PIECES, reasons=_PIECES, fragments=_PIECES)
def test_any_text_is_escaped_as_msgspec_escapes_it(
    texts: list[str], reasons: list[str], fragments: list[str]
) -> None:
    items: list[Item] = [StreamStarted(provider="openai")]
    items += [streamcalls.ReasoningStarted(), *map(ReasoningDelta, reasons), streamcalls.ReasoningCompleted()]
    items += [ToolCallStarted(0, "call_1", "f"), *(ToolCallDelta(0, f) for f in ["{", *fragments])]
    items += [TextDelta(t) for t in texts]
    before = speedups.written()  # type: ignore[union-attr]
    for target in TARGET_NAMES:
        _same(items, target)
    assert speedups.written() > before  # type: ignore[union-attr]


def test_a_lone_surrogate_raises_as_the_pure_path_does() -> None:
    for target in TARGET_NAMES:
        outcomes = []
        for pure in (False, True):
            writer = streamcalls.StreamWriter(target)  # type: ignore[arg-type]
            if pure:
                with _native.pure_python():
                    writer = streamcalls.StreamWriter(target)  # type: ignore[arg-type]
            writer.send(TextDelta("a"))
            with pytest.raises(UnicodeEncodeError) as raised:
                writer.send(TextDelta("b\ud800"))
            outcomes.append(str(raised.value))
        assert outcomes[0] == outcomes[1]


def test_the_native_send_writes_by_the_form() -> None:
    """A form that lies shows which path wrote: the native send follows it, the pure path never reads it."""
    writer = streamcalls.StreamWriter("ai-sdk")
    with _native.pure_python():
        pure = streamcalls.StreamWriter("ai-sdk")
    for each in (writer, pure):
        each.send(TextDelta("a"))
        block = each._text_block
        assert block is not None
        assert block.form is not None
        block.form = DeltaForm(b"<", b">")
    assert writer.send(TextDelta('b"\n')) == b'<"b\\"\\n">'
    assert pure.send(TextDelta("b")) == b'data: {"type":"text-delta","id":"text-0","delta":"b"}\n\n'


def test_after_close_the_native_send_raises() -> None:
    writer = streamcalls.StreamWriter("anthropic")
    writer.send(TextDelta("a"))
    writer.close()
    with pytest.raises(streamcalls.UsageError, match="after close"):
        writer.send(TextDelta("b"))
