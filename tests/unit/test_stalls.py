"""Stall detection counts content, not bytes: keep-alives never hide a stalled model.

Three layers: ``StreamParser.progress`` (sans-IO: which input carried
content), ``Patience`` (pure: how long the next read may wait), and the async
fronts that put them together with a clock.  The async tests run on asyncio
and trio on virtual clocks (tests/support/clocks.py): a limit of minutes passes in no
real time, and only what happens is asserted, never how long it took.  The
last tests do the same over real HTTP, where a stall must be caught whatever
the machine's speed.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from typing import Any

import anyio
import msgspec
import pytest

import streamcalls
from streamcalls import ReasoningDelta, StreamFinished, TextDelta, ToolCallFailed
from streamcalls.aio._drive import Patience
from tests.support.clocks import virtual_backend

pytestmark = pytest.mark.anyio

MINUTE = 60.0


def chat(delta: dict[str, Any], finish: str | None = None) -> bytes:
    """An OpenAI Chat Completions chunk as an SSE event."""
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    chunk = {"object": "chat.completion.chunk", "model": "gpt-4o", "choices": [choice]}
    return b"data: " + msgspec.json.encode(chunk) + b"\n\n"


def anthropic_event(name: str, **fields: Any) -> bytes:
    """An Anthropic Messages event as an SSE event."""
    return b"event: " + name.encode() + b"\ndata: " + msgspec.json.encode({"type": name, **fields}) + b"\n\n"


HI = chat({"content": "hi"})
ROLE = chat({"role": "assistant", "content": ""})
EMPTY_DELTA = chat({})
COMMENT = b": keep-alive\n\n"
BLANKS = b"\n\n\n"
PING = anthropic_event("ping")
MESSAGE_START = anthropic_event(
    "message_start",
    message={
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
    },
)
THINKING_START = anthropic_event(
    "content_block_start", index=0, content_block={"type": "thinking", "thinking": "", "signature": ""}
)
THINKING = anthropic_event(
    "content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "Hmm."}
)
TOOL_START = anthropic_event(
    "content_block_start",
    index=0,
    content_block={"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
)
ARGUMENTS = anthropic_event(
    "content_block_delta", index=0, delta={"type": "input_json_delta", "partial_json": '{"a'}
)


def without_start(events: list[streamcalls.Event]) -> list[streamcalls.Event]:
    """The events after the response's ``StreamStarted``."""
    return [event for event in events if type(event) is not streamcalls.StreamStarted]


# -- the parser: which input carries content ----------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "start", "keepalive"),
    [
        ("openai", HI, COMMENT),
        ("openai", HI, BLANKS),
        ("openai", HI, EMPTY_DELTA),
        ("openai", HI, ROLE),
        ("anthropic", MESSAGE_START, PING),
        ("anthropic", MESSAGE_START, COMMENT),
        ("auto", HI, COMMENT),
        ("auto", MESSAGE_START, PING),
    ],
)
def test_keepalives_leave_progress_as_it_was(provider: str, start: bytes, keepalive: bytes) -> None:
    parser = streamcalls.StreamParser(provider)  # type: ignore[arg-type]
    parser.feed(start)
    before = parser.progress
    for piece in (keepalive, keepalive[:3], keepalive[3:], keepalive):
        assert parser.feed(piece) == []
        assert parser.progress == before


@pytest.mark.parametrize(
    ("provider", "start", "content"),
    [
        ("openai", ROLE, HI),
        ("openai", ROLE, chat({"reasoning_content": "Thinking."})),
        ("openai", ROLE + chat({}, finish="stop"), b"data: [DONE]\n\n"),  # the end: with its usage, if any
        ("anthropic", MESSAGE_START + THINKING_START, THINKING),
        ("anthropic", MESSAGE_START + TOOL_START, ARGUMENTS),
        ("anthropic", MESSAGE_START, TOOL_START),
        (
            "anthropic",
            MESSAGE_START,
            anthropic_event("error", error={"type": "overloaded_error", "message": "x"}),
        ),
    ],
)
def test_content_moves_progress(provider: str, start: bytes, content: bytes) -> None:
    parser = streamcalls.StreamParser(provider)  # type: ignore[arg-type]
    parser.feed(start)
    before = parser.progress
    parser.feed(content)
    assert parser.progress > before


def test_text_a_detector_holds_back_is_content_too() -> None:
    """A bare JSON object that names its tool last is held until then: no event, but content all along."""
    parser = streamcalls.StreamParser("openai", detect=["json"])
    parser.feed(ROLE)
    for piece in ['{"arguments": {"a": "', "xxxx", "yyyy"]:
        before = parser.progress
        assert parser.feed(chat({"content": piece})) == []
        assert parser.progress > before
    assert parser.feed(chat({"content": '"}, "name": "f"}'}))  # now the call comes out


def test_input_the_parser_cannot_read_is_not_content() -> None:
    parser = streamcalls.StreamParser("openai")
    parser.feed(ROLE)
    before = parser.progress
    [error] = parser.feed(b"data: {not json\n\n")
    assert isinstance(error, streamcalls.ParseError)
    assert parser.progress == before


# -- Patience: how long the next read may wait -------------------------------------------------


def test_after_the_first_content_only_content_resets_the_limit() -> None:
    limits = Patience(idle=10, first=math.inf)
    limits.read(1, content=True)
    assert limits.allowance() == 10
    limits.read(4, content=False)  # a ping after 4 s
    limits.read(4, content=False)
    assert limits.allowance() == 2
    assert limits.stalled().startswith("no content for 10 s")
    limits.read(1, content=True)
    assert limits.allowance() == 10


def test_before_the_first_content_keepalives_count_as_life_within_the_first_limit() -> None:
    limits = Patience(idle=10, first=25)
    for _ in range(2):
        limits.read(9, content=False)  # pings 9 s apart: the connection lives
        assert limits.allowance() == min(10, 25 - limits._waited)
    assert limits.allowance() == 7  # 25 - 18: the first content must come within 25 s of the start
    assert "first_content_timeout=25 s" in limits.stalled()
    limits.read(6, content=True)
    assert limits.allowance() == 10


def test_silence_before_the_first_content_is_still_idle() -> None:
    limits = Patience(idle=10, first=MINUTE)
    assert limits.allowance() == 10
    assert limits.stalled().startswith("no data for 10 s")


def test_no_limits() -> None:
    limits = Patience()
    limits.read(1e9, content=False)
    assert limits.allowance() == math.inf


# -- the async fronts, on virtual clocks ---------------------------------------------------------


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    return virtual_backend(str(request.param))


class Timed:
    """An async source: each chunk after a pause (seconds); then ``forever`` (a pause and a chunk)
    again and again, or a pause for ever if ``hang``."""

    def __init__(
        self,
        steps: list[tuple[float, bytes]],
        *,
        hang: bool = True,
        forever: tuple[float, bytes] | None = None,
    ) -> None:
        self.steps = steps
        self.hang = hang
        self.forever = forever
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            for pause, data in self.steps:
                await anyio.sleep(pause)
                yield data
            while self.forever is not None:
                await anyio.sleep(self.forever[0])
                yield self.forever[1]
            if self.hang:
                await anyio.sleep_forever()
        finally:
            self.closed = True


def every(seconds: float, data: bytes, count: int) -> list[tuple[float, bytes]]:
    return [(seconds, data)] * count


async def collect(
    events: AsyncIterator[streamcalls.Event],
) -> tuple[list[streamcalls.Event], BaseException | None]:
    """The events, and what ended them; a stream that would go on for ever fails the test (in virtual time)."""
    got: list[streamcalls.Event] = []
    with anyio.fail_after(24 * 3600):
        try:
            async for event in events:
                got.append(event)
        except Exception as exc:
            return got, exc
    return got, None


async def test_pings_after_the_text_do_not_hide_a_stalled_model() -> None:
    source = Timed([(0, MESSAGE_START + TOOL_START + ARGUMENTS)], forever=(5, PING))
    events, error = await collect(streamcalls.aparse(source, idle_timeout=MINUTE))
    assert isinstance(error, streamcalls.StreamStalled)
    assert str(error) == "no content for 60 s (keep-alives do not count); the stream was abandoned"
    [failed] = [e for e in events if isinstance(e, ToolCallFailed)]
    assert failed.raw == '{"a'
    assert events[-1] == StreamFinished("error")
    assert source.closed


async def test_comments_and_blank_lines_do_not_hide_it_either() -> None:
    source = Timed([(0, HI), *every(1, COMMENT, 200)], forever=(1, BLANKS))
    events, error = await collect(streamcalls.aparse(source, idle_timeout=30))
    assert isinstance(error, streamcalls.StreamStalled)
    assert without_start(events)[0] == TextDelta("hi")


async def test_content_that_keeps_coming_is_never_stalled() -> None:
    """Each text is 50 s after the last, with pings between: under a 60 s limit, never stalled."""
    steps: list[tuple[float, bytes]] = [
        (
            0.0,
            MESSAGE_START
            + anthropic_event("content_block_start", index=0, content_block={"type": "text", "text": ""}),
        )
    ]
    for _ in range(20):
        steps += [
            *every(10, PING, 4),
            (10, anthropic_event("content_block_delta", index=0, delta={"type": "text_delta", "text": "."})),
        ]
    steps.append((0, anthropic_event("message_stop")))
    events, error = await collect(streamcalls.aparse(Timed(steps, hang=False), idle_timeout=MINUTE))
    assert error is None
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "." * 20


async def test_a_model_thinking_with_pings_before_its_first_token_is_waited_for() -> None:
    """Ten minutes of pings, 5 s apart, before the first content: idle_timeout counts silence until then."""
    steps = [(0, MESSAGE_START), *every(5, PING, 120), (5, THINKING_START + THINKING)]
    events, error = await collect(streamcalls.aparse(Timed(steps, hang=False), idle_timeout=30))
    assert error is None
    assert ReasoningDelta("Hmm.") in events


async def test_the_first_content_has_its_own_limit() -> None:
    source = Timed([(0, MESSAGE_START)], forever=(5, PING))
    events, error = await collect(
        streamcalls.aparse(source, idle_timeout=30, first_content_timeout=5 * MINUTE)
    )
    assert isinstance(error, streamcalls.StreamStalled)
    assert str(error) == "no content within first_content_timeout=300 s; the stream was abandoned"
    assert without_start(events) == [
        streamcalls.ParseError("stream ended before message_stop (truncated)"),
        StreamFinished("error"),
    ]


async def test_silence_before_the_first_content_is_caught_by_idle_timeout() -> None:
    _, error = await collect(streamcalls.aparse(Timed([(0, MESSAGE_START)]), idle_timeout=30))
    assert isinstance(error, streamcalls.StreamStalled)
    assert str(error) == "no data for 30 s; the stream was abandoned"


async def test_the_consumers_own_time_does_not_count() -> None:
    """A consumer that takes minutes over each event (a tool run inline) never stalls a prompt source."""
    source = Timed([(0, ROLE), *every(0, HI, 5), (0, chat({}, finish="stop"))], hang=False)
    seen = 0
    async for _ in streamcalls.aparse(source, idle_timeout=MINUTE):
        seen += 1
        await anyio.sleep(10 * MINUTE)
    assert seen >= 6


@pytest.mark.parametrize("name", ["idle_timeout", "first_content_timeout"])
@pytest.mark.parametrize("value", [0, -1, "60", math.nan, True])
async def test_a_limit_must_be_a_positive_number_of_seconds(name: str, value: object) -> None:
    with pytest.raises(streamcalls.UsageError, match=f"{name} must be a positive number of seconds"):
        streamcalls.aparse(Timed([]), **{name: value})  # type: ignore[arg-type]
