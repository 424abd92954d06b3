"""What the provider targets' own tests share: the recordings a provider's SDK can read back whole, the
calls in the order a stream writes them, and an HTTP transport that answers an SDK with written bytes.

An SDK raises on a provider error in the stream (or ends there), so the
recordings it reads are those whose turn has no error: for them, the SDK's
reading of the written stream and of the written complete response is
compared with the turn (tests/unit/test_writer_gemini.py, _ollama, _cohere).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import httpx

import streamcalls
from streamcalls import Event, ToolCallCompleted, ToolCallStarted, Turn
from tests.support import Case, corpus


def readable(case: Case) -> bool:
    """The recording's turn has no error: an SDK reads all of it."""
    turn = streamcalls.accumulate(case.expected())
    return not turn.errors and turn.finish_reason != "error"


READABLE = [case for case in corpus() if readable(case)]


def completed_calls(events: Sequence[Event]) -> list[tuple[str, str, Any]]:
    """Each completed call's (id, name, arguments) in the order the calls completed -- the order a
    stream of whole calls writes them --, with the id the call started with (the one a stream sends)."""
    started: dict[int, str] = {}
    out: list[tuple[str, str, Any]] = []
    for event in events:
        if type(event) is ToolCallStarted:
            started[event.index] = event.id
        elif type(event) is ToolCallCompleted:
            call = event.call
            out.append((started.get(call.index, call.id), call.name, call.arguments))
    return out


def turn_calls(turn: Turn) -> list[tuple[str, str, Any]]:
    """The turn's calls' (id, name, arguments), in the turn's order (a complete response's)."""
    return [(call.id, call.name, call.arguments) for call in turn.calls]


class Answers:
    """An httpx transport that answers a streamed request with ``stream`` (the bytes a target wrote) and
    any other with ``response`` (a complete body), as a provider would; ``streamed`` tells them apart."""

    def __init__(self, streamed: Callable[[httpx.Request], bool], media_type: str) -> None:
        self.stream = b""
        self.response: dict[str, Any] = {}
        self.streamed = streamed
        self.media_type = media_type
        self.transport = httpx.MockTransport(self._answer)

    def _answer(self, request: httpx.Request) -> httpx.Response:
        if self.streamed(request):
            return httpx.Response(200, content=self.stream, headers={"content-type": self.media_type})
        return httpx.Response(200, json=self.response)


def asks_for_a_stream(request: httpx.Request) -> bool:
    """The request's JSON body says ``"stream": true`` (Ollama's and Cohere's SDKs)."""
    return bool(json.loads(request.content or b"{}").get("stream"))
