"""The writer's rows of ``make bench``: what writing a parsed stream back out costs, next to parsing it.

- ``streamcalls-write-ai-sdk``: the ``streamcalls`` row, with every event also sent through a
  :class:`~streamcalls.StreamWriter` for ``"ai-sdk"`` (the Vercel AI SDK's UI message stream) and
  the bytes kept, as a server hands them to its socket.  Its ratio to ``streamcalls`` on the same
  reads is parsing plus writing over parsing alone: at most 2× means writing costs at most what
  parsing the same stream costs (issue 23).  The live-arguments streams (one 1 MB call in
  40-character deltas: a record written per delta) are the hardest case.
"""

from __future__ import annotations

from collections.abc import Sequence

import streamcalls
from streamcalls import ToolCallCompleted

from .contenders import CallTuple, Contender, Run, Unavailable
from .report import Target, _find, _num
from .runner import Result
from .streams import Stream, fence_ids

__all__ = ("CONTENDERS", "markdown_writing", "targets")

_WIRES = frozenset({"openai", "anthropic", "openai-live", "anthropic-live"})
_TARGET_STREAMS = ("openai-live-1x1MB", "anthropic-live-1x1MB", "openai-4x2KB", "anthropic-4x2KB")
_GOAL = 2.0


def _streamcalls_write(stream: Stream) -> Run:
    """streamcalls, each event also written as the AI SDK's UI message stream."""
    reads = stream.reads
    provider = stream.provider
    if not hasattr(streamcalls, "StreamWriter"):
        raise Unavailable("no StreamWriter in this streamcalls")
    completed = ToolCallCompleted

    def run() -> list[CallTuple]:
        parser = streamcalls.StreamParser(provider, id_factory=fence_ids())
        writer = streamcalls.StreamWriter("ai-sdk")
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


CONTENDERS: tuple[Contender, ...] = (
    Contender(
        "streamcalls-write-ai-sdk",
        "streamcalls + StreamWriter('ai-sdk')",
        "as streamcalls, and every event sent through StreamWriter('ai-sdk') (a UI message stream chunk "
        "per text delta and argument fragment), the bytes kept",
        _WIRES,
        _streamcalls_write,
    ),
)


def markdown_writing(results: Sequence[Result]) -> str:
    lines = [
        "| stream | streamcalls µs/chunk | + StreamWriter('ai-sdk') µs/chunk | ÷ streamcalls |",
        "|---|--:|--:|--:|",
    ]
    streams = sorted({r.stream for r in results if r.contender == "streamcalls-write-ai-sdk"})
    for stream in streams:
        base, write = (
            _find(results, stream, "streamcalls"),
            _find(results, stream, "streamcalls-write-ai-sdk"),
        )
        if base is None or write is None or not (base.ok and write.ok):
            continue
        lines.append(
            f"| {stream} | {_num(base.us_per_chunk)} | {_num(write.us_per_chunk)} "
            f"| {write.median / base.median:.3f}× |"
        )
    return "\n".join(lines)


def targets(results: Sequence[Result]) -> list[Target]:
    out = []
    for stream in _TARGET_STREAMS:
        base, write = (
            _find(results, stream, "streamcalls"),
            _find(results, stream, "streamcalls-write-ai-sdk"),
        )
        name = f"parsing + writing ai-sdk, {stream}"
        goal = f"≤ {_GOAL:.0f}× parsing alone (writing costs at most what parsing does)"
        if base is None or write is None:
            continue
        if not (base.ok and write.ok):
            out.append(Target(name, goal, write.note or base.note, None))
            continue
        value = write.median / base.median
        out.append(Target(name, goal, f"{value:.3f}×", value <= _GOAL))
    return out
