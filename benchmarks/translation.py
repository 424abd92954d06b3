"""LiteLLM's own stream translation between Anthropic and OpenAI Chat, on the writer rows' bytes.

A gateway that serves one provider's API in front of another's translates each
stream as it goes: LiteLLM does it in its SDK and its proxy.  These rows run
its translation on the same reads as ``streamcalls-write-<target>``
(:mod:`benchmarks.writing`: the stream parsed, each event written as the other
provider's stream), with the HTTP replaced by an in-memory transport:

- ``litellm-anthropic-to-openai``, on the Anthropic streams:
  ``litellm.completion(model="anthropic/...", stream=True)`` (its Anthropic
  handler's iterator under its stream wrapper), each chunk it yields sent on as
  its proxy does, ``data: {chunk as JSON}``; compared with
  ``streamcalls-write-openai``;
- ``litellm-openai-to-anthropic``, on the OpenAI Chat streams:
  ``litellm.completion(model="openai/...", stream=True)`` wrapped in its
  ``AnthropicStreamWrapper`` (what its ``/v1/messages`` adapter answers with),
  each event framed as SSE; compared with ``streamcalls-write-anthropic``.

The calls checked are the ones a client of the translated stream builds from
it.  Goal (issue 23): streamcalls at least 20× faster than LiteLLM.  LiteLLM
spends about two milliseconds on each chunk, so a run on the live 1 MB call
(26 000 chunks) takes a minute: it gets one (the live group's settings).
LiteLLM is in the ``bench`` extra; not installed, the rows are unavailable.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from typing import Any

from .contenders import CallTuple, Contender, Run, Unavailable
from .report import Target, _find
from .runner import Result
from .streams import Stream

__all__ = ("CONTENDERS", "markdown_translation", "targets")

_GOAL = 20.0
_TARGET_STREAMS = ("anthropic-live-1x1MB", "openai-live-1x1MB", "anthropic-4x2KB", "openai-4x2KB")
_MODEL = "claude-sonnet-4-5"


def _litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no price list fetched at import
    try:
        import litellm
    except ImportError as exc:
        raise Unavailable(f"litellm not installed ({exc})") from None
    litellm.telemetry = False
    litellm.suppress_debug_info = True
    return litellm


def _anthropic_to_openai(stream: Stream) -> Run:
    litellm = _litellm()
    import httpx
    from litellm.llms.custom_httpx.http_handler import HTTPHandler

    reads = stream.reads

    class Body(httpx.SyncByteStream):
        def __iter__(self) -> Iterator[bytes]:
            yield from reads

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=Body())

    def run() -> list[CallTuple]:
        client = HTTPHandler(client=httpx.Client(transport=httpx.MockTransport(answer)))
        chunks = litellm.completion(
            model=f"anthropic/{_MODEL}",
            messages=[{"role": "user", "content": "hi"}],
            max_tokens=100,
            stream=True,
            api_key="sk-bench",
            client=client,
        )
        sent: list[bytes] = []  # what its proxy hands to the socket
        calls: dict[int, list[Any]] = {}
        for chunk in chunks:
            sent.append(b"data: " + chunk.model_dump_json().encode() + b"\n\n")
            for call in (chunk.choices[0].delta.tool_calls or ()) if chunk.choices else ():
                entry = calls.setdefault(call.index, [None, None, []])
                entry[0] = entry[0] or call.id
                entry[1] = entry[1] or call.function.name
                entry[2].append(call.function.arguments or "")
        sent.append(b"data: [DONE]\n\n")
        return [(i, n, json.loads("".join(a))) for i, n, a in (calls[k] for k in sorted(calls))]

    return run


def _openai_to_anthropic(stream: Stream) -> Run:
    litellm = _litellm()
    try:
        import httpx2
        import openai
    except ImportError as exc:
        raise Unavailable(f"the openai SDK not installed ({exc})") from None
    from litellm.llms.anthropic.messages.adapters.streaming_iterator import AnthropicStreamWrapper

    reads = stream.reads

    class Body(httpx2.SyncByteStream):
        def __iter__(self) -> Iterator[bytes]:
            yield from reads

    def answer(request: Any) -> Any:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, stream=Body())

    def run() -> list[CallTuple]:
        http = httpx2.Client(transport=httpx2.MockTransport(answer))
        client = openai.OpenAI(api_key="sk-bench", http_client=http, max_retries=0)
        chunks = litellm.completion(
            model="openai/gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True, client=client
        )
        sent: list[bytes] = []
        calls: dict[int, list[Any]] = {}
        for event in AnthropicStreamWrapper(chunks, "gpt-4o"):
            sent.append(f"event: {event.get('type', 'message')}\ndata: {json.dumps(event)}\n\n".encode())
            kind = event.get("type")
            if kind == "content_block_start" and event["content_block"]["type"] == "tool_use":
                block = event["content_block"]
                calls[event["index"]] = [block["id"], block["name"], []]
            elif kind == "content_block_delta" and event["delta"]["type"] == "input_json_delta":
                calls[event["index"]][2].append(event["delta"]["partial_json"])
        return [(i, n, json.loads("".join(a) or "{}")) for i, n, a in (calls[k] for k in sorted(calls))]

    return run


CONTENDERS: tuple[Contender, ...] = (
    Contender(
        "litellm-anthropic-to-openai",
        "LiteLLM, Anthropic → OpenAI Chat",
        'litellm.completion(model="anthropic/...", stream=True) over the reads (in-memory HTTP), each '
        "chunk sent on as data: {JSON}",
        frozenset({"anthropic", "anthropic-live"}),
        _anthropic_to_openai,
        baseline="streamcalls-write-openai",
    ),
    Contender(
        "litellm-openai-to-anthropic",
        "LiteLLM, OpenAI Chat → Anthropic",
        'litellm.completion(model="openai/...", stream=True) over the reads (in-memory HTTP) in its '
        "AnthropicStreamWrapper (its /v1/messages adapter), each event framed as SSE",
        frozenset({"openai", "openai-live"}),
        _openai_to_anthropic,
        baseline="streamcalls-write-anthropic",
    ),
)


def markdown_translation(results: Sequence[Result]) -> str:
    lines = [
        "| stream | LiteLLM | its µs/chunk | streamcalls parse + write µs/chunk | LiteLLM ÷ streamcalls |",
        "|---|---|--:|--:|--:|",
    ]
    for contender in CONTENDERS:
        for result in results:
            if result.contender != contender.key:
                continue
            base = _find(results, result.stream, contender.baseline)
            if result.ok and base is not None and base.ok:
                lines.append(
                    f"| {result.stream} | {contender.label} | {result.us_per_chunk:,.1f} "
                    f"| {base.us_per_chunk:,.1f} | {result.median / base.median:,.1f}× |"
                )
            else:
                lines.append(f"| {result.stream} | {contender.label} | {result.note or 'not run'} | | |")
    return "\n".join(lines)


def targets(results: Sequence[Result]) -> list[Target]:
    out = []
    for contender in CONTENDERS:
        for stream in _TARGET_STREAMS:
            theirs, ours = _find(results, stream, contender.key), _find(results, stream, contender.baseline)
            if theirs is None or ours is None:
                continue
            name = f"streamcalls parse + write vs {contender.label}, {stream}"
            goal = f"≥ {_GOAL:.0f}× faster"
            if not (theirs.ok and ours.ok):
                out.append(Target(name, goal, theirs.note or ours.note, None))
                continue
            value = theirs.median / ours.median
            out.append(Target(name, goal, f"{value:,.1f}×", value >= _GOAL))
    return out
