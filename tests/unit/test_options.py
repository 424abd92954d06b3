"""Option values are checked where they are given: a wrong one is a UsageError at the call."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Iterator
from typing import Any

import msgspec
import pytest

import streamcalls
from streamcalls import Limits, StreamParser, ToolCallFailed, UsageError
from streamcalls.testing import ReplayApp
from tests.support import feed_content as feed_chunks
from tests.support.streams import OPENAI_DONE, openai_args, openai_call_start, openai_chunk, openai_finish

LIMIT_NAMES = tuple(Limits.__struct_fields__)


# -- Limits ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", LIMIT_NAMES)
@pytest.mark.parametrize("value", [-1, -(2**40), 2.5, "10", None, True, 1e9])
def test_a_limit_must_be_an_int(name: str, value: object) -> None:
    with pytest.raises(UsageError, match=f"Limits\\({name}=...\\) must be an int"):
        Limits(**{name: value})  # type: ignore[arg-type]


@pytest.mark.parametrize("name", LIMIT_NAMES)
def test_zero_is_a_limit_only_for_max_calls(name: str) -> None:
    if name == "max_calls":
        assert Limits(max_calls=0).max_calls == 0
    else:
        with pytest.raises(UsageError, match=f"{name}=...\\) must be an int of at least 1, not 0"):
            Limits(**{name: 0})
    assert getattr(Limits(**{name: 1}), name) == 1


def test_max_calls_zero_fails_every_call_and_keeps_the_text() -> None:
    stream = (
        openai_chunk({"content": "Checking."})
        + openai_call_start(0, "c1", "get_time")
        + openai_args(0, "{}")
        + openai_finish("tool_calls")
        + OPENAI_DONE
    )
    events = feed_chunks([stream], "openai", limits=Limits(max_calls=0))
    assert events[0] == streamcalls.TextDelta("Checking.")
    failures = [e for e in events if isinstance(e, ToolCallFailed)]
    assert len(failures) == 1
    assert "max_calls=0" in failures[0].error
    assert not any(isinstance(e, streamcalls.ToolCallCompleted) for e in events)


def test_limits_decoded_from_json_are_checked_too() -> None:
    with pytest.raises(msgspec.ValidationError, match="max_calls"):
        msgspec.json.decode(b'{"max_calls": -1}', type=Limits)


# -- StreamParser ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value", "named"),
    [
        ("native", "yes", "native"),
        ("native", 1, "native"),
        ("detect", "fence", "detect"),
        ("detect", 3, "detect"),
        ("detect", ("fence", "nope"), "unknown detector 'nope'"),
        ("tools", "get_weather", "tools"),
        ("tools", 3, "tools"),
        ("tools", [{"description": "no name"}], "a tool without a name"),
        ("invalid_utf8", "ignore", "invalid_utf8"),
        ("id_factory", "call_1", "id_factory"),
        ("limits", {"max_calls": 3}, "limits must be a streamcalls.Limits"),
        ("strict", "no", "strict"),
        ("strict", None, "strict"),
        ("partial_arguments", "yes", "partial_arguments"),
        ("partial_arguments", 1, "partial_arguments"),
    ],
)
def test_parser_option_values_are_checked(option: str, value: object, named: str) -> None:
    with pytest.raises(UsageError, match=named):
        StreamParser("openai", **{option: value})  # type: ignore[arg-type]


def test_good_option_values_are_taken() -> None:
    parser = StreamParser(
        "openai",
        native=False,
        detect=["fence"],
        tools=(name for name in ["get_time"]),
        invalid_utf8="report",
        id_factory=lambda: "x",
        limits=Limits(max_calls=3),
        strict=True,
    )
    assert parser.provider == "openai"


def test_an_unknown_option_is_pythons_type_error() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'detectors'") as info:
        StreamParser("openai", detectors=("fence",))  # type: ignore[call-arg]
    assert not isinstance(info.value, UsageError)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        streamcalls.parse(b"", "openai", detectors=())


def test_parse_iter_checks_its_options_at_the_call() -> None:
    with pytest.raises(UsageError, match="unknown provider"):
        streamcalls.parse_iter(b"", "no-such-provider")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="native"):
        streamcalls.parse_iter(b"", "openai", native="yes")


# -- the async front --------------------------------------------------------------------------------


async def _nothing() -> AsyncIterator[bytes]:
    return
    yield b""  # pragma: no cover


@pytest.mark.parametrize("idle_timeout", [0, -1.0, math.nan, "5", True])
def test_idle_timeout_must_be_a_positive_number(idle_timeout: Any) -> None:
    with pytest.raises(UsageError, match="idle_timeout"):
        streamcalls.aparse(_nothing(), idle_timeout=idle_timeout)


def test_aparse_checks_parser_options_at_the_call() -> None:
    with pytest.raises(UsageError, match="limits"):
        streamcalls.aparse(_nothing(), limits=3)


class _Headers(dict[str, str]):
    pass


class _Response:
    """Just enough of an httpx response; it records whether anything was read."""

    def __init__(self, status: int = 200) -> None:
        self.status_code = status
        self.reason_phrase = "OK" if status == 200 else "Internal Server Error"
        self.headers = _Headers({"content-type": "text/event-stream"})
        self.read = False

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        self.read = True
        yield openai_finish("stop") + OPENAI_DONE

    def iter_bytes(self) -> Iterator[bytes]:
        self.read = True
        yield openai_finish("stop") + OPENAI_DONE

    async def aclose(self) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.mark.parametrize("status", [200, 500])
@pytest.mark.parametrize(
    "options",
    [{"idle_timeout": 0}, {"idle_timeout": -5}, {"provider": "nope"}, {"detect": "json"}],
)
def test_from_httpx_checks_options_before_reading(status: int, options: dict[str, Any]) -> None:
    response = _Response(status)
    with pytest.raises(UsageError):
        streamcalls.from_httpx(response, **options)
    assert not response.read


@pytest.mark.parametrize("options", [{"provider": "nope"}, {"strict": 1}])
def test_from_httpx_sync_checks_options_before_reading(options: dict[str, Any]) -> None:
    response = _Response()
    with pytest.raises(UsageError):
        streamcalls.from_httpx_sync(response, **options)
    assert not response.read


@pytest.mark.anyio
async def test_from_httpx_with_good_options_still_streams(anyio_backend: str) -> None:
    response = _Response()
    events = [e async for e in streamcalls.from_httpx(response, "openai", idle_timeout=5)]
    assert events == [
        streamcalls.StreamStarted("openai", "m", "chatcmpl-t"),
        streamcalls.StreamFinished("stop", None, "stop"),
    ]


@pytest.mark.parametrize("value", [0, -1, 2.5, "4"])
def test_run_tools_max_concurrency_is_checked(value: Any) -> None:
    with pytest.raises(UsageError, match="max_concurrency"):
        streamcalls.run_tools(streamcalls.aparse(_nothing()), tools={}, max_concurrency=value)


@pytest.mark.parametrize(("option", "value"), [("max_chunk", 0), ("max_chunk", 1.5), ("max_delay", -1)])
def test_replay_app_options_are_checked(option: str, value: Any) -> None:
    with pytest.raises(UsageError, match=option):
        ReplayApp({}, **{option: value})
