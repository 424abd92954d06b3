"""The writer's rows of ``make bench``: what writing a parsed stream back out costs, next to parsing it.

- ``streamcalls-write-<target>``, one row per target of :data:`WRITTEN` (``ai-sdk``, the Vercel AI
  SDK's UI message stream; ``openai``, ``openai-responses``, ... a provider's own stream): the
  ``streamcalls`` row, with every event also sent through a :class:`~streamcalls.StreamWriter` for
  that target and the bytes kept, as a server hands them to its socket.  Its ratio to
  ``streamcalls`` on the same reads is parsing stream A plus writing it as target B over parsing
  alone: at most 2× means writing costs at most what parsing the same stream costs (issue 23).
  The live-arguments streams (one 1 MB call in 40-character deltas: a record written per delta)
  are the hardest case.
- For the targets of whole calls (``gemini``, ``ollama``: their wires send a call's arguments as
  one object), an argument fragment writes nothing: the row measures the writer's step per delta
  (the event order's bookkeeping, the target's empty ``call_delta``) and, at the call's end, one
  encoding of the decoded arguments into the call's chunk or line -- not a record per delta.
  ``cohere`` streams the fragments, a ``tool-call-delta`` event per delta, as ``ai-sdk`` does.

A target joins with its name in :data:`WRITTEN`; a target not registered in the streamcalls
measured is an unavailable row, not a failure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import streamcalls
from streamcalls import ToolCallCompleted

from .contenders import CallTuple, Contender, Run, Unavailable
from .report import Target, _find, _num
from .runner import Result
from .streams import Stream, fence_ids

__all__ = ("CONTENDERS", "WRITTEN", "markdown_writing", "targets")

WRITTEN = ("ai-sdk", "openai", "openai-responses", "anthropic", "bedrock", "gemini", "ollama", "cohere")
"""The targets with a row: each stream parsed and written as this target."""

_WIRES = frozenset({"openai", "anthropic", "openai-live", "anthropic-live"})
_TARGET_STREAMS = ("openai-live-1x1MB", "anthropic-live-1x1MB", "openai-4x2KB", "anthropic-4x2KB")
_GOAL = 2.0


def key(target: str) -> str:
    """The row of writing as ``target``."""
    return f"streamcalls-write-{target}"


def _writes(target: str) -> Callable[[Stream], Run]:
    def prepare(stream: Stream) -> Run:
        """streamcalls, each event also written as ``target``'s stream."""
        reads = stream.reads
        provider = stream.provider
        if not hasattr(streamcalls, "StreamWriter"):
            raise Unavailable("no StreamWriter in this streamcalls")
        try:
            streamcalls.StreamWriter(target)  # type: ignore[arg-type]
        except streamcalls.UsageError as exc:
            raise Unavailable(str(exc)) from None
        completed = ToolCallCompleted

        def run() -> list[CallTuple]:
            parser = streamcalls.StreamParser(provider, id_factory=fence_ids())
            writer = streamcalls.StreamWriter(target)  # type: ignore[arg-type]
            send = writer.send
            written: list[bytes] = []  # what a server hands to its socket
            keep = written.append
            calls = []
            for read in reads:
                for event in parser.feed(read):
                    keep(send(event))
                    if type(event) is completed:
                        calls.append(event.call)
            for event in parser.close():
                keep(send(event))
                if type(event) is completed:
                    calls.append(event.call)
            keep(writer.close())
            return [(c.id, c.name, c.arguments) for c in calls]

        return run

    return prepare


CONTENDERS: tuple[Contender, ...] = tuple(
    Contender(
        key(target),
        f"streamcalls + StreamWriter({target!r})",
        f"as streamcalls, and every event sent through StreamWriter({target!r}) (a record per text "
        "delta and argument fragment), the bytes kept",
        _WIRES,
        _writes(target),
    )
    for target in WRITTEN
)


def markdown_writing(results: Sequence[Result]) -> str:
    lines = [
        "| stream | written as | streamcalls µs/chunk | + StreamWriter µs/chunk | ÷ streamcalls |",
        "|---|---|--:|--:|--:|",
    ]
    streams = sorted({r.stream for r in results if r.contender.startswith("streamcalls-write-")})
    for stream in streams:
        base = _find(results, stream, "streamcalls")
        for target in WRITTEN:
            write = _find(results, stream, key(target))
            if base is None or write is None or not (base.ok and write.ok):
                continue
            lines.append(
                f"| {stream} | `{target}` | {_num(base.us_per_chunk)} | {_num(write.us_per_chunk)} "
                f"| {write.median / base.median:.3f}× |"
            )
    return "\n".join(lines)


def targets(results: Sequence[Result]) -> list[Target]:
    out = []
    for target in WRITTEN:
        for stream in _TARGET_STREAMS:
            base, write = _find(results, stream, "streamcalls"), _find(results, stream, key(target))
            name = f"parsing + writing {target}, {stream}"
            goal = f"≤ {_GOAL:.0f}× parsing alone (writing costs at most what parsing does)"
            if base is None or write is None:
                continue
            if not (base.ok and write.ok):
                out.append(Target(name, goal, write.note or base.note, None))
                continue
            value = write.median / base.median
            out.append(Target(name, goal, f"{value:.3f}×", value <= _GOAL))
    return out
