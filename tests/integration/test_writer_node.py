"""The ``"ai-sdk"`` target read by the AI SDK's own client code: the ``ai`` npm package, in Node.

``make node-check`` (part of ``make test`` where node and npm are installed)
installs the pinned ``ai`` package into ``.node/`` (git-ignored) and runs this
file with ``STREAMCALLS_NODE_CHECK=1``, under which a missing package fails
instead of skipping.  tests/js/read_ui_message_stream.mjs reads each stream as
``useChat`` does -- ``DefaultChatTransport`` (the package's SSE parser and chunk
schemas), the body a few bytes per read, then ``readUIMessageStream`` -- and
prints the final UI message: its parts are compared with the ones written
here, reviewed by eye against the package's ``process-ui-message-stream.ts``.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypercorn.asyncio import serve
from hypercorn.config import Config

import streamcalls
import streamcalls.testing
from streamcalls import (
    ProviderError,
    ReasoningCompleted,
    ReasoningDelta,
    ReasoningStarted,
    StreamFinished,
    StreamStarted,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallStarted,
    ToolResult,
    Usage,
    write_stream,
)
from tests.support.docblocks import DOCS, SERVER, blocks, served
from tests.support.ui_streams import Item

ROOT = Path(__file__).resolve().parent.parent.parent
GUIDE = DOCS / "guide" / "writing-streams.md"
MODULES = ROOT / ".node" / "node_modules"
READER = ROOT / "tests" / "js" / "read_ui_message_stream.mjs"


def node_reader() -> list[str]:
    """The command that runs the reader, or a skip (a failure under ``make node-check``) saying what is missing."""
    node = shutil.which("node")
    missing = (
        "node is not installed"
        if node is None
        else None
        if (MODULES / "ai" / "package.json").exists()
        else "the ai package is not installed: make node-check installs it into .node/"
    )
    if missing is not None:
        if os.environ.get("STREAMCALLS_NODE_CHECK"):
            pytest.fail(missing)
        pytest.skip(missing)
    assert node is not None
    return [node, str(READER), str(MODULES)]


def read_in_node(bodies: list[bytes], tmp_path: Path) -> list[dict[str, Any]]:
    files = []
    for number, body in enumerate(bodies):
        path = tmp_path / f"{number}.sse"
        path.write_bytes(body)
        files.append(str(path))
    done = subprocess.run([*node_reader(), *files], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


TEXT: list[Item] = [
    StreamStarted("openai", "gpt", "chatcmpl-1"),
    TextDelta("Hello, "),
    TextDelta('"world" — '),
    TextDelta("line\nbreak 🎉"),
    StreamFinished("stop"),
]

REASONING: list[Item] = [
    StreamStarted("anthropic", "claude", "msg_1"),
    ReasoningStarted(kind="thinking"),
    ReasoningDelta("The user wants "),
    ReasoningDelta("a plan."),
    ReasoningCompleted(signature="EqQBCgIYAh"),
    TextDelta("Here is a plan."),
    StreamFinished("stop", Usage(input_tokens=12, output_tokens=30, total_tokens=42, reasoning_tokens=20)),
]

PARALLEL: list[Item] = [
    StreamStarted("openai"),
    TextDelta("Checking both."),
    ToolCallStarted(0, "call_w", "get_weather"),
    ToolCallDelta(0, '{"city":'),
    ToolCallStarted(1, "call_h", "get_opening_hours"),
    ToolCallDelta(1, '{"place": "Louvre",'),
    ToolCallDelta(0, ' "Paris"}'),
    ToolCallCompleted(ToolCall("call_w", "get_weather", {"city": "Paris"})),
    ToolResult("call_w", "get_weather", '{"temperature": 21}'),
    ToolCallDelta(1, ' "day": "Saturday"}'),
    ToolCallCompleted(ToolCall("call_h", "get_opening_hours", {"place": "Louvre", "day": "Saturday"}, 1)),
    StreamFinished("tool_calls"),
    ToolResult("call_h", "get_opening_hours", "TimeoutError: no answer", True),
]

BROKEN: list[Item] = [
    StreamStarted("openai"),
    ToolCallStarted(0, "call_x", "search"),
    ToolCallDelta(0, '{"q": "caf'),
    ToolCallFailed(0, "call_x", "search", '{"q": "caf', "interrupted by a provider error: overloaded"),
    ProviderError("overloaded", "overloaded_error"),
    StreamFinished("error"),
]


LOOP: list[Item] = [  # a tool loop: the model's two turns, the tool's result between them
    StreamStarted("openai", "gpt", "chatcmpl-1"),
    ToolCallStarted(0, "call_1", "get_weather"),
    ToolCallDelta(0, '{"city": "Paris"}'),
    ToolCallCompleted(ToolCall("call_1", "get_weather", {"city": "Paris"})),
    StreamFinished("tool_calls", Usage(10, 5)),
    ToolResult("call_1", "get_weather", "21 °C"),
    StreamStarted("openai", "gpt", "chatcmpl-2"),
    TextDelta("Sunny, 21 °C."),
    StreamFinished("stop", Usage(20, 4)),
]


def test_the_ai_package_reads_the_ai_sdk_stream(tmp_path: Path) -> None:
    text, reasoning, parallel, broken, loop = read_in_node(
        [write_stream(events, "ai-sdk") for events in (TEXT, REASONING, PARALLEL, BROKEN, LOOP)], tmp_path
    )
    assert text == {
        "message": {
            "id": "chatcmpl-1",
            "role": "assistant",
            "parts": [
                {"type": "step-start"},
                {"type": "text", "text": 'Hello, "world" — line\nbreak 🎉', "state": "done"},
            ],
        },
        "chunks": [
            "start",
            "start-step",
            "text-start",
            "text-delta",
            "text-delta",
            "text-delta",
            "text-end",
            "finish-step",
            "finish",
        ],
        "finishReason": "stop",
        "errors": [],
    }
    assert reasoning["message"] == {
        "id": "msg_1",
        "metadata": {
            "usage": {
                "inputTokens": 12,
                "outputTokens": 30,
                "totalTokens": 42,
                "outputTokenDetails": {"reasoningTokens": 20},
            }
        },
        "role": "assistant",
        "parts": [
            {"type": "step-start"},
            {
                "type": "reasoning",
                "id": "reasoning-0",
                "text": "The user wants a plan.",
                "providerMetadata": {"streamcalls": {"signature": "EqQBCgIYAh"}},
                "state": "done",
            },
            {"type": "text", "text": "Here is a plan.", "state": "done"},
        ],
    }
    assert (reasoning["finishReason"], reasoning["errors"]) == ("stop", [])
    assert parallel["message"]["parts"] == [
        {"type": "step-start"},
        {"type": "text", "text": "Checking both.", "state": "done"},
        {
            "type": "tool-get_weather",
            "toolCallId": "call_w",
            "state": "output-available",
            "input": {"city": "Paris"},
            "output": '{"temperature": 21}',
        },
        {
            "type": "tool-get_opening_hours",
            "toolCallId": "call_h",
            "state": "output-error",
            "input": {"place": "Louvre", "day": "Saturday"},
            "errorText": "TimeoutError: no answer",
        },
    ]
    assert (parallel["finishReason"], parallel["errors"]) == ("tool-calls", [])
    assert broken["message"]["parts"] == [
        {"type": "step-start"},
        {
            "type": "tool-search",
            "toolCallId": "call_x",
            "state": "output-error",
            "rawInput": '{"q": "caf',
            "errorText": "interrupted by a provider error: overloaded",
        },
    ]
    assert (broken["finishReason"], broken["errors"]) == ("error", ["overloaded"])
    assert loop["message"] == {
        "id": "chatcmpl-1",
        "metadata": {"usage": {"inputTokens": 30, "outputTokens": 9}},
        "role": "assistant",
        "parts": [
            {"type": "step-start"},
            {
                "type": "tool-get_weather",
                "toolCallId": "call_1",
                "state": "output-available",
                "input": {"city": "Paris"},
                "output": "21 °C",
            },
            {"type": "step-start"},
            {"type": "text", "text": "Sunny, 21 °C.", "state": "done"},
        ],
    }
    assert (loop["finishReason"], loop["errors"]) == ("stop", [])


def test_the_ai_package_reads_the_recordings(tmp_path: Path) -> None:
    """Recorded streams of four providers, parsed and written: the parts hold the text, the reasoning and
    the calls the events do."""
    recordings = streamcalls.testing.bundled_recordings()
    names = [
        "openai/plan_day",
        "anthropic/thinking_interleaved",
        "openai-responses/thinking_plan_day",
        "gemini/thinking_plan_day",
    ]
    events = [streamcalls.parse(recordings[name].body, recordings[name].provider) for name in names]  # type: ignore[arg-type]
    for read, parsed in zip(
        read_in_node([write_stream(e, "ai-sdk") for e in events], tmp_path), events, strict=True
    ):
        assert read["errors"] == []
        turn = streamcalls.accumulate(parsed)
        parts = read["message"]["parts"]
        assert "".join(p["text"] for p in parts if p["type"] == "text") == turn.text
        reasoning = [p.text for p in turn.parts if isinstance(p, streamcalls.ReasoningPart)]
        assert [p["text"] for p in parts if p["type"] == "reasoning"] == reasoning
        assert [(p["type"], p["toolCallId"], p["input"], p["state"]) for p in parts if "toolCallId" in p] == [
            (f"tool-{c.name}", c.id, c.arguments, "input-available") for c in turn.calls
        ]
        assert read["finishReason"] == "tool-calls"


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """An ASGI app served by hypercorn on a loopback port, in a thread of its own; yields its URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    port = sock.getsockname()[1]
    config = Config()
    config.bind = [f"fd://{sock.detach()}"]
    loop = asyncio.new_event_loop()
    stop: list[asyncio.Event] = []
    started = threading.Event()

    async def run() -> None:
        stop.append(asyncio.Event())
        started.set()
        await serve(app, config, shutdown_trigger=stop[0].wait)

    thread = threading.Thread(target=loop.run_until_complete, args=(run(),))
    thread.start()
    started.wait()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        loop.call_soon_threadsafe(stop[0].set)
        thread.join(timeout=30)
        loop.close()


def test_the_guides_endpoint_answers_use_chat() -> None:
    """The guide's endpoint, served over HTTP in front of the replay server: the ai package's chat transport
    (what useChat uses) posts to it with fetch and builds the message the tool loop streamed."""
    command = node_reader()
    (program,) = [block for block in blocks(GUIDE) if block.kind == "program"]
    with served(*program.serve) as upstream:
        module: dict[str, Any] = {"__name__": "chat"}  # as `hypercorn chat:app` imports it
        exec(compile(program.code.replace(SERVER, upstream), program.where, "exec"), module)
        with serving(module["app"]) as url:
            done = subprocess.run(
                [*command, "--url", f"{url}/api/chat"],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
    assert done.returncode == 0, done.stderr
    read = json.loads(done.stdout)
    assert read["errors"] == []
    assert read["finishReason"] == "stop"
    parts = read["message"]["parts"]
    assert parts == [
        {"type": "step-start"},
        {
            "type": "text",
            "text": "Let me check the weather in Paris and the Louvre's opening hours for Saturday.",
            "state": "done",
        },
        {
            "type": "tool-get_weather",
            "toolCallId": "call_weather",
            "state": "output-available",
            "input": {"city": "Paris", "unit": "celsius"},
            "output": '{"city":"Paris","temperature":21,"unit":"celsius"}',
        },
        {
            "type": "tool-get_opening_hours",
            "toolCallId": "call_hours",
            "state": "output-available",
            "input": {"place": "Musée du Louvre", "day": "Saturday", "lang": "en"},
            "output": "Musée du Louvre is open 09:00-18:00 on Saturday",
        },
        {"type": "step-start"},
        {
            "type": "text",
            "text": "Saturday looks good: sunny and 21 °C in Paris. The Musée du Louvre is open 09:00-18:00, "
            "so see it in the morning and keep the afternoon for a walk along the Seine.",
            "state": "done",
        },
    ]
