"""The contenders: streamcalls and the ways people assemble tool calls without it.

Each :class:`Contender` turns a :class:`~benchmarks.streams.Stream` into a
``run()`` closure.  Everything that is not part of the timed loop (decoding
the SDKs' chunk objects for the accumulator-only rows, importing) happens in
``prepare``; ``run()`` takes the whole stream through and returns the calls
it found, in order, as ``(id, name, arguments)``.

Two kinds of row, as the ``timed`` text of each says:

- ``bytes in``: the reads go in exactly as a server wrote them and the
  contender does everything -- SSE/NDJSON splitting, JSON decoding, call
  assembly, decoding the final arguments.  This is the fair end-to-end
  comparison.
- ``objects in``: the accumulator alone, fed the already-decoded chunk
  objects its SDK's stream class would hand it (built once, before timing).
  streamcalls still starts from bytes in these comparisons.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, cast

import msgspec

import streamcalls
from streamcalls import PartialArguments, ToolCallCompleted, ToolCallPatch
from streamcalls._native import pure_python
from streamcalls.cli._floors import floor

from .streams import Stream, coalesce, fence_ids, sse_events

__all__ = ("CONTENDERS", "CallTuple", "Contender", "Run", "Unavailable", "contender")

CallTuple = tuple[str, str, dict[str, Any]]
Run = Callable[[], list[CallTuple] | None]

_decode = msgspec.json.decode


class Unavailable(Exception):
    """This contender cannot run on this stream here (a peer not installed, an API not there yet)."""


@dataclass(frozen=True)
class Contender:
    key: str
    label: str
    timed: str  # what the timed loop includes
    wires: frozenset[str]  # the stream formats it applies to
    prepare: Callable[[Stream], Run]
    checked: bool = True  # its calls are compared with the ground truth
    coalesced: bool = False  # fed 1-4 KB reads instead of one event per read
    max_args_bytes: int | None = None  # quadratic: not run on larger arguments
    baseline: str = "streamcalls"  # the row its ratio is taken against

    def applies(self, stream: Stream) -> bool:
        return stream.wire in self.wires


def _reads(stream: Stream, coalesced: bool) -> tuple[bytes, ...]:
    return coalesce(stream) if coalesced else stream.reads


# -- streamcalls ---------------------------------------------------------------------------


def _fence_on_text(stream: Stream) -> tuple[str, ...] | None:
    """The detectors of the main streamcalls row: the fence on fenced-text streams, else the default."""
    return ("fence",) if stream.detect else None


def _streamcalls(
    stream: Stream,
    *,
    detect: tuple[str, ...] | None,
    coalesced: bool = False,
    partial: bool = False,
    tools: list[Any] | None = None,
    pure: bool = False,
) -> Run:
    """streamcalls from bytes; ``detect`` and ``tools`` are passed to StreamParser (None: the library's default).

    ``pure``: on the pure-Python path (see :func:`_pure`), where the native one is built."""
    reads = _reads(stream, coalesced)
    options: dict[str, Any] = {} if detect is None else {"detect": detect}
    if tools is not None:
        options["tools"] = tools
    if partial:
        options["partial_arguments"] = True
    try:
        streamcalls.StreamParser(stream.provider, **options)
    except TypeError as exc:  # ``detect`` not accepted yet
        raise Unavailable(f"StreamParser does not take detect= yet ({exc})") from None
    except streamcalls.UsageError as exc:  # provider not there yet
        raise Unavailable(str(exc).split(";")[0]) from None
    parser_class = streamcalls.StreamParser
    provider = stream.provider
    completed = ToolCallCompleted

    def run() -> list[CallTuple]:
        # The loop a user writes: act on each completed call as it comes.  A
        # call that failed is missing from the result, which the check catches.
        parser = parser_class(provider, id_factory=fence_ids(), **options)
        calls = []
        for read in reads:
            for event in parser.feed(read):
                if type(event) is completed:
                    calls.append(event.call)
        for event in parser.close():
            if type(event) is completed:
                calls.append(event.call)
        return [(c.id, c.name, c.arguments) for c in calls]

    return _pure(run) if pure else run


def _pure(run: Run) -> Run:
    """``run`` on the pure-Python path: the whole run, since a parser builds its framer at the first
    byte.  Without the native path (not built, or STREAMCALLS_PURE_PYTHON=1) the two rows are one."""

    def pure_run() -> list[CallTuple] | None:
        with pure_python():
            return run()

    return pure_run


def _streamcalls_live(stream: Stream) -> Run:
    """streamcalls with ``partial_arguments=True``, each patch applied to its call's PartialArguments."""
    reads = stream.reads
    provider = stream.provider
    completed = ToolCallCompleted
    patch_type = ToolCallPatch

    def run() -> list[CallTuple]:
        # The loop of a UI that keeps every call's arguments live; the calls
        # it returns carry the live value, which the check compares with the truth.
        parser = streamcalls.StreamParser(provider, partial_arguments=True)
        live: dict[int, PartialArguments] = {}
        calls = []
        for read in [*reads, None]:
            for event in parser.feed(read) if read is not None else parser.close():
                if type(event) is patch_type:
                    target = live.get(event.index)
                    if target is None:
                        target = live[event.index] = PartialArguments()
                    target.apply(event)
                elif type(event) is completed:
                    calls.append(event.call)
        return [(c.id, c.name, live[c.index].value) for c in calls]

    return run


# -- the floor: split and decode, nothing else --------------------------------------------


def _floor(stream: Stream, *, coalesced: bool = False) -> Run:
    """The floor ``streamcalls bench`` uses too (:mod:`streamcalls.cli._floors`), on this stream's reads."""
    return floor(stream.framing, _reads(stream, coalesced))


# -- shared by the peers: SSE split + msgspec decode of each payload ---------------------


def _lines(reads: Iterable[bytes]) -> Iterator[bytes]:
    """Complete lines (LF only: the generated streams have no CR), with no rescan of a partial line."""
    tail = bytearray()
    for read in reads:
        if 10 not in read:  # no line end: a piece of a long line (10 is LF; an int test is a memchr)
            tail += read
            continue
        lines = read.split(b"\n")
        if tail:
            tail += lines[0]
            lines[0] = bytes(tail)
            tail.clear()
        last = lines.pop()
        if last:
            tail += last
        yield from lines


def _decoded_payloads(reads: Iterable[bytes]) -> Iterator[tuple[str | None, Any]]:
    """The floor's splitting, yielding (event name, decoded payload): the peers' bytes-in front end."""
    name = None
    for line in _lines(reads):
        if line.startswith(b"data: "):
            if line != b"data: [DONE]":
                yield name, _decode(line[6:])
        elif line.startswith(b"event: "):
            name = line[7:].decode()
        elif not line:
            name = None


# -- openai SDK ------------------------------------------------------------------------------


def _openai_sdk(stream: Stream, *, end_to_end: bool) -> Run:
    try:
        from openai._models import construct_type
        from openai._streaming import SSEDecoder
        from openai.lib.streaming.chat import ChatCompletionStreamState
        from openai.types.chat import ChatCompletionChunk
    except ImportError as exc:
        raise Unavailable(f"openai not installed ({exc})") from None

    def final(state: Any) -> list[CallTuple]:
        message = state.get_final_completion().choices[0].message
        return [(t.id, t.function.name, json.loads(t.function.arguments)) for t in message.tool_calls or ()]

    if end_to_end:
        reads = stream.reads

        def run_bytes() -> list[CallTuple]:
            # As openai.Stream.__stream__ does, minus HTTP and error checks.
            state = ChatCompletionStreamState()
            for sse in SSEDecoder().iter_bytes(iter(reads)):
                if sse.data.startswith("[DONE]"):
                    break
                state.handle_chunk(
                    cast(ChatCompletionChunk, construct_type(type_=ChatCompletionChunk, value=sse.json()))
                )
            return final(state)

        return run_bytes

    chunks = [
        cast(ChatCompletionChunk, construct_type(type_=ChatCompletionChunk, value=json.loads(data)))
        for _, data in sse_events(stream)
        if data != b"[DONE]"
    ]

    def run_objects() -> list[CallTuple]:
        state = ChatCompletionStreamState()
        for chunk in chunks:
            state.handle_chunk(chunk)
        return final(state)

    return run_objects


def _openai_sdk_parsed(stream: Stream) -> Run:
    """ChatCompletionStreamState given the call's tool as ``strict``: it keeps ``parsed_arguments``,
    a jiter partial parse of the arguments so far, up to date on every chunk."""
    try:
        from openai._models import construct_type
        from openai.lib.streaming.chat import ChatCompletionStreamState
        from openai.types.chat import ChatCompletionChunk
    except ImportError as exc:
        raise Unavailable(f"openai not installed ({exc})") from None
    schema = {"type": "object", "properties": {}, "additionalProperties": True}
    tools: Any = [
        {"type": "function", "function": {"name": name, "parameters": schema, "strict": True}}
        for name in sorted({c.name for c in stream.calls})
    ]
    chunks = [
        cast(ChatCompletionChunk, construct_type(type_=ChatCompletionChunk, value=json.loads(data)))
        for _, data in sse_events(stream)
        if data != b"[DONE]"
    ]

    def run() -> list[CallTuple]:
        state = ChatCompletionStreamState(input_tools=tools)
        for chunk in chunks:
            state.handle_chunk(chunk)
        message = state.current_completion_snapshot.choices[0].message
        return [
            (t.id, t.function.name, cast(dict[str, Any], t.function.parsed_arguments))
            for t in message.tool_calls or ()
        ]

    return run


# -- anthropic SDK ---------------------------------------------------------------------------


def _anthropic_sdk(stream: Stream, *, end_to_end: bool) -> Run:
    try:
        from anthropic._models import construct_type
        from anthropic._streaming import SSEDecoder
        from anthropic.lib.streaming._messages import accumulate_event
        from anthropic.types import RawMessageStreamEvent
    except ImportError as exc:
        raise Unavailable(f"anthropic not installed ({exc})") from None

    def final(snapshot: Any) -> list[CallTuple]:
        return [(b.id, b.name, b.input) for b in snapshot.content if b.type == "tool_use"]

    if end_to_end:
        reads = stream.reads

        def run_bytes() -> list[CallTuple]:
            # As anthropic.Stream.__stream__ + MessageStream do, minus HTTP and error checks.
            snapshot = None
            json_bufs: dict[int, bytes] = {}
            for sse in SSEDecoder().iter_bytes(iter(reads)):
                if sse.event == "ping" or sse.event is None or not sse.data:
                    continue
                event = cast(
                    RawMessageStreamEvent, construct_type(type_=RawMessageStreamEvent, value=sse.json())
                )
                snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=json_bufs)
            return final(snapshot)

        return run_bytes

    events = [
        cast(RawMessageStreamEvent, construct_type(type_=RawMessageStreamEvent, value=json.loads(data)))
        for name, data in sse_events(stream)
        if name != "ping"
    ]

    def run_objects() -> list[CallTuple]:
        snapshot = None
        json_bufs: dict[int, bytes] = {}
        for event in events:
            snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=json_bufs)
        return final(snapshot)

    return run_objects


# -- langchain-core ------------------------------------------------------------------------


def _tool_call_chunks(stream: Stream) -> Callable[[str | None, Any], list[dict[str, Any]] | None]:
    """What langchain-openai / langchain-anthropic put in ``tool_call_chunks`` for one event."""
    if stream.wire == "openai":

        def openai(name: str | None, obj: Any) -> list[dict[str, Any]] | None:
            choices = obj.get("choices") or ()
            if not choices:
                return None
            out = []
            for tc in choices[0]["delta"].get("tool_calls") or ():
                function = tc.get("function") or {}
                out.append(
                    {
                        "name": function.get("name"),
                        "args": function.get("arguments"),
                        "id": tc.get("id"),
                        "index": tc.get("index"),
                    }
                )
            return out

        return openai

    def anthropic(name: str | None, obj: Any) -> list[dict[str, Any]] | None:
        kind = obj.get("type")
        if kind == "content_block_start" and obj["content_block"]["type"] == "tool_use":
            block = obj["content_block"]
            return [{"name": block["name"], "args": "", "id": block["id"], "index": obj["index"]}]
        if kind == "content_block_delta" and obj["delta"]["type"] == "input_json_delta":
            return [{"name": None, "args": obj["delta"]["partial_json"], "id": None, "index": obj["index"]}]
        return None

    return anthropic


def _langchain(stream: Stream, *, end_to_end: bool) -> Run:
    try:
        from langchain_core.messages import AIMessageChunk
        from langchain_core.messages.tool import tool_call_chunk
    except ImportError as exc:
        raise Unavailable(f"langchain-core not installed ({exc})") from None
    to_chunks = _tool_call_chunks(stream)

    def message(name: str | None, obj: Any) -> Any:
        pieces = to_chunks(name, obj)
        if pieces is None:
            return None
        return AIMessageChunk(content="", tool_call_chunks=[tool_call_chunk(**p) for p in pieces])

    def final(total: Any) -> list[CallTuple]:
        return [(t["id"], t["name"], t["args"]) for t in total.tool_calls]

    if end_to_end:
        reads = stream.reads

        def run_bytes() -> list[CallTuple]:
            total = AIMessageChunk(content="")
            for name, obj in _decoded_payloads(reads):
                chunk = message(name, obj)
                if chunk is not None:
                    total = total + chunk
            return final(total)

        return run_bytes

    chunks = [message(name, json.loads(data)) for name, data in sse_events(stream) if data != b"[DONE]"]
    ready = [c for c in chunks if c is not None]

    def run_objects() -> list[CallTuple]:
        total = AIMessageChunk(content="")
        for chunk in ready:
            total = total + chunk
        return final(total)

    return run_objects


# -- the re-parse approach (vLLM tool parsers, many apps) -----------------------------------


def _reparse(stream: Stream, *, parser: str) -> Run:
    if parser == "partial_json_parser":
        try:
            from partial_json_parser import Allow
            from partial_json_parser import loads as pjp_loads
        except ImportError as exc:
            raise Unavailable(f"partial-json-parser not installed ({exc})") from None
        allow = Allow.ALL

        def parse(text: str) -> Any:
            return pjp_loads(text, allow)
    else:
        try:
            from jiter import from_json
        except ImportError as exc:
            raise Unavailable(f"jiter not installed ({exc})") from None

        def parse(text: str) -> Any:
            return from_json(text.encode(), partial_mode=True)

    reads = stream.reads
    openai = stream.wire.startswith("openai")

    def run() -> list[CallTuple]:
        # index -> [id, name, accumulated arguments, latest parse]
        calls: dict[int, list[Any]] = {}
        for _, obj in _decoded_payloads(reads):
            if openai:
                choices = obj.get("choices")
                if not choices:
                    continue
                for tc in choices[0]["delta"].get("tool_calls") or ():
                    call = calls.get(tc["index"])
                    function = tc.get("function") or {}
                    if call is None:
                        call = calls[tc["index"]] = [tc.get("id"), function.get("name"), "", None]
                    piece = function.get("arguments")
                    if piece:
                        call[2] += piece
                        call[3] = parse(call[2])
            else:
                kind = obj.get("type")
                if kind == "content_block_start" and obj["content_block"]["type"] == "tool_use":
                    block = obj["content_block"]
                    calls[obj["index"]] = [block["id"], block["name"], "", None]
                elif kind == "content_block_delta" and obj["delta"]["type"] == "input_json_delta":
                    call = calls[obj["index"]]
                    piece = obj["delta"]["partial_json"]
                    if piece:
                        call[2] += piece
                        call[3] = parse(call[2])
        return [(c[0], c[1], c[3]) for c in calls.values()]

    return run


# -- the table of contenders -------------------------------------------------------------

_NATIVE = frozenset({"openai", "anthropic"})
_LIVE = frozenset({"openai-live", "anthropic-live"})
_TEXT = frozenset({"openai-fence", "text-fence"})
_ALL = frozenset({"openai", "anthropic", "ollama", "openai-fence", "text-fence"})

CONTENDERS: tuple[Contender, ...] = (
    Contender(
        "streamcalls",
        "streamcalls",
        "bytes in: one SSE event / NDJSON line per feed(); framing, decoding, assembly, events "
        "(default options; detect=('fence',) on the fenced-text streams)",
        _ALL | _LIVE,
        lambda s: _streamcalls(s, detect=_fence_on_text(s)),
    ),
    Contender(
        "streamcalls-pure",
        "streamcalls, pure-Python path",
        "as streamcalls, on the pure-Python path (the native one turned off: streamcalls/_native)",
        _ALL | _LIVE,
        lambda s: _streamcalls(s, detect=_fence_on_text(s), pure=True),
    ),
    Contender(
        "streamcalls-partial",
        "streamcalls, partial_arguments=True",
        "as streamcalls, with partial_arguments=True: a ToolCallPatch event after each argument delta",
        _LIVE,
        lambda s: _streamcalls(s, detect=None, partial=True),
    ),
    Contender(
        "streamcalls-partial-pure",
        "streamcalls, partial_arguments=True, pure-Python path",
        "as streamcalls-partial, on the pure-Python path",
        _LIVE,
        lambda s: _streamcalls(s, detect=None, partial=True, pure=True),
    ),
    Contender(
        "streamcalls-live",
        "streamcalls + PartialArguments",
        "as streamcalls-partial, and each patch applied to its call's PartialArguments (the live value)",
        _LIVE,
        _streamcalls_live,
    ),
    Contender(
        "streamcalls-off",
        "streamcalls, detectors off",
        "as streamcalls, with detect=(): fenced calls stay text",
        _TEXT,
        lambda s: _streamcalls(s, detect=()),
        checked=False,
    ),
    Contender(
        "streamcalls-default",
        "streamcalls, default detectors",
        "as streamcalls, with the default detectors (fence and bare JSON)",
        _TEXT,
        lambda s: _streamcalls(s, detect=None),
    ),
    Contender(
        "floor",
        "floor: split + msgspec decode",
        "bytes in: split lines, msgspec.json.decode each payload, nothing else (text: UTF-8 decode)",
        _ALL | _LIVE,
        _floor,
        checked=False,
    ),
    Contender(
        "streamcalls-1-4k",
        "streamcalls, 1-4 KB reads",
        "as streamcalls, the same bytes in coalesced 1-4 KB reads",
        _ALL - {"text-fence"},
        lambda s: _streamcalls(s, detect=_fence_on_text(s), coalesced=True),
        coalesced=True,
        baseline="streamcalls-1-4k",
    ),
    Contender(
        "streamcalls-1-4k-pure",
        "streamcalls, 1-4 KB reads, pure-Python path",
        "as streamcalls-1-4k, on the pure-Python path",
        _ALL - {"text-fence"},
        lambda s: _streamcalls(s, detect=_fence_on_text(s), coalesced=True, pure=True),
        coalesced=True,
        baseline="streamcalls-1-4k",
    ),
    Contender(
        "floor-1-4k",
        "floor, 1-4 KB reads",
        "as floor, the same bytes in coalesced 1-4 KB reads",
        _ALL - {"text-fence"},
        lambda s: _floor(s, coalesced=True),
        checked=False,
        coalesced=True,
        baseline="streamcalls-1-4k",
    ),
    Contender(
        "openai-sdk",
        "openai SDK ChatCompletionStreamState",
        "objects in: handle_chunk() on pre-built ChatCompletionChunk objects, get_final_completion()",
        frozenset({"openai"}),
        lambda s: _openai_sdk(s, end_to_end=False),
    ),
    Contender(
        "openai-sdk-e2e",
        "openai SDK, bytes in",
        "bytes in: the SDK's SSEDecoder, json.loads, construct_type(ChatCompletionChunk), handle_chunk()",
        frozenset({"openai"}),
        lambda s: _openai_sdk(s, end_to_end=True),
        max_args_bytes=10_000,  # ~210 µs per chunk at any size: the 10 KB rows show it
    ),
    Contender(
        "openai-sdk-parsed",
        "openai SDK parsed_arguments",
        "objects in: handle_chunk() on pre-built ChatCompletionChunk objects, the tool given as strict, "
        "so every chunk re-parses the arguments so far into parsed_arguments (jiter partial mode)",
        frozenset({"openai-live"}),
        _openai_sdk_parsed,
    ),
    Contender(
        "anthropic-sdk",
        "anthropic SDK accumulate_event",
        "objects in: accumulate_event() on pre-built RawMessageStreamEvent objects (each input_json "
        "delta re-parses the input so far: the snapshot's partial input)",
        frozenset({"anthropic", "anthropic-live"}),
        lambda s: _anthropic_sdk(s, end_to_end=False),
    ),
    Contender(
        "anthropic-sdk-e2e",
        "anthropic SDK, bytes in",
        "bytes in: the SDK's SSEDecoder, json.loads, construct_type(RawMessageStreamEvent), "
        "accumulate_event()",
        frozenset({"anthropic"}),
        lambda s: _anthropic_sdk(s, end_to_end=True),
    ),
    Contender(
        "langchain",
        "langchain-core AIMessageChunk +",
        "objects in: total = total + chunk on pre-built AIMessageChunk(tool_call_chunks=...)",
        _NATIVE,
        lambda s: _langchain(s, end_to_end=False),
        max_args_bytes=10_000,
    ),
    Contender(
        "langchain-e2e",
        "langchain-core, bytes in",
        "bytes in: split + msgspec decode, build AIMessageChunk per event, total = total + chunk",
        _NATIVE,
        lambda s: _langchain(s, end_to_end=True),
        max_args_bytes=8_000,  # the accumulator-only row shows it at 10 KB
    ),
    Contender(
        "partial-json-parser",
        "re-parse: partial_json_parser",
        "bytes in: split + msgspec decode, append the fragment, partial_json_parser.loads(all args so far)",
        _NATIVE,
        lambda s: _reparse(s, parser="partial_json_parser"),
        max_args_bytes=10_000,  # ~3 minutes per run at 100 KB
    ),
    Contender(
        "partial-json-parser-live",
        "re-parse: partial_json_parser",
        "bytes in: split + msgspec decode, append the fragment, partial_json_parser.loads(all args so far)",
        _LIVE,
        lambda s: _reparse(s, parser="partial_json_parser"),
        max_args_bytes=100_000,  # seconds per run at 100 KB in 40-character deltas; minutes at 1 MB
    ),
    Contender(
        "jiter-partial",
        "re-parse: jiter partial_mode",
        "bytes in: split + msgspec decode, append the fragment, "
        "jiter.from_json(all args so far, partial_mode=True)",
        _NATIVE | _LIVE,
        lambda s: _reparse(s, parser="jiter"),
    ),
)


def contender(key: str) -> Contender:
    for c in CONTENDERS:
        if c.key == key:
            return c
    raise KeyError(key)
