"""``streamcalls bench``: the parser's chunk throughput on your own recordings, against the floor.

For each recording, its bytes are cut into reads of ``chunk`` bytes.  One
untimed pass finds the provider, the calls and where each one ended: how
many bytes of the stream had been fed when its ``ToolCallCompleted`` (or
``ToolCallFailed``) came out, against the stream's length -- the head start
an agent gets on running the tool.  Then the parser and the floor of the
recording's framing (:mod:`streamcalls.cli._floors`: split + msgspec decode,
nothing else) are timed in the same rounds by :mod:`streamcalls.cli._timing`,
the code ``make bench`` uses: CPU time of this thread, medians of
interleaved runs.  Compare the ratio, which comes from one run; the absolute
numbers depend on the machine and its load.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from .._errors import UsageError
from .._events import Event, ParseError, ProviderError, ToolCallCompleted, ToolCallFailed
from .._names import ProviderName
from .._parser import StreamParser
from ..framing._firstbyte import json_or_sse
from ..providers import adapter_for
from ._floors import FLOOR_WORK, floor
from ._timing import Rate, Settings, Timing, measure

__all__ = ("SETTINGS", "CallEnd", "Measured", "bench_file", "render", "render_json")

# A recording is often a few KB: up to 501 samples (about 0.25 s per run
# function) give a stable median where make bench's 21 would be noise.
SETTINGS = Settings(max_runs=501, budget_s=0.25)

_FRAMING_NAMES = {
    "sse": "SSE",
    "ndjson": "NDJSON",
    "json-array": "JSON array",
    "eventstream": "AWS event stream",
    "text": "plain text",
}


@dataclass(frozen=True)
class CallEnd:
    """Where in the stream a call ended: ``at`` bytes of ``size`` had been fed."""

    index: int
    id: str
    name: str
    status: str  # "completed" or "failed"
    at: int
    size: int


@dataclass(frozen=True)
class Measured:
    """One recording's numbers."""

    file: str
    provider: str
    framing: str
    size: int
    chunk: int
    reads: int
    problems: int  # ParseError, ProviderError and ToolCallFailed events
    calls: list[CallEnd]
    parser: Timing
    floor: Timing

    def rate(self, timing: Timing) -> Rate:
        return Rate(timing.median, self.reads, self.size)

    @property
    def ratio(self) -> float:
        """The parser's time as a multiple of the floor's."""
        return self.parser.median / self.floor.median

    def as_dict(self) -> dict[str, Any]:
        def timing(which: Timing, what: str) -> dict[str, Any]:
            rate = self.rate(which)
            return {
                "what": what,
                "median_s": rate.seconds,
                "runs_s": which.runs,
                "chunks_per_s": rate.chunks_per_s,
                "mb_per_s": rate.mb_per_s,
                "us_per_chunk": rate.us_per_chunk,
            }

        return {
            "file": self.file,
            "provider": self.provider,
            "framing": self.framing,
            "bytes": self.size,
            "chunk_bytes": self.chunk,
            "chunks": self.reads,
            "problems": self.problems,
            "streamcalls": timing(self.parser, "StreamParser.feed over every chunk, then close()"),
            "floor": timing(self.floor, FLOOR_WORK[self.framing]),
            "ratio_to_floor": self.ratio,
            "calls": [
                {
                    "index": c.index,
                    "id": c.id,
                    "name": c.name,
                    "status": c.status,
                    "at_byte": c.at,
                    "of_bytes": c.size,
                }
                for c in self.calls
            ],
        }


def _cut(data: bytes, chunk: int) -> tuple[bytes, ...]:
    return tuple(data[start : start + chunk] for start in range(0, len(data), chunk))


def _framing(provider: str | None, data: bytes) -> str:
    """The framing the floor splits: the provider's, Gemini's chosen by its first byte."""
    if provider is None:  # "auto" could not tell: the parser read it as nothing, the floor as text
        return "text"
    framing = adapter_for(provider).framing
    if framing == "json-array-or-sse":
        first = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
        framing = json_or_sse(first[0]) if first else "sse"
    return framing


def bench_file(
    name: str,
    data: bytes,
    *,
    provider: ProviderName = "auto",
    chunk: int = 256,
    detect: Sequence[str] | None = None,
    settings: Settings | None = None,
) -> Measured:
    """Measure one recording (``name`` is only shown).

    :raises UsageError: for an empty recording, a ``chunk`` below 1, or an option the parser refuses.
    """
    if chunk < 1:
        raise UsageError(f"chunk must be at least 1 byte, not {chunk}")
    if not data:
        raise UsageError(f"{name} is empty: nothing to measure")
    options: dict[str, Any] = {} if detect is None else {"detect": tuple(detect)}
    reads = _cut(data, chunk)

    parser = StreamParser(provider, **options)
    calls: list[CallEnd] = []
    problems = 0
    fed = 0

    def note(events: list[Event]) -> None:
        nonlocal problems
        for event in events:
            if isinstance(event, ToolCallCompleted):
                call = event.call
                calls.append(CallEnd(call.index, call.id, call.name, "completed", fed, len(data)))
            elif isinstance(event, ToolCallFailed):
                calls.append(CallEnd(event.index, event.id, event.name, "failed", fed, len(data)))
            if isinstance(event, (ParseError, ProviderError, ToolCallFailed)):
                problems += 1

    for read in reads:
        fed += len(read)
        note(parser.feed(read))
    note(parser.close())
    resolved = parser.provider
    framing = _framing(resolved, data)

    def run_parser() -> None:
        # The loop a user writes, without acting on the events.
        parser = StreamParser(provider, **options)
        feed = parser.feed
        for read in reads:
            feed(read)
        parser.close()

    timings = Timing(run_parser), Timing(floor(framing, reads))
    measure(timings, settings or SETTINGS)
    return Measured(
        name, resolved or "unknown", framing, len(data), chunk, len(reads), problems, calls, *timings
    )


def _number(value: float) -> str:
    """3 significant digits, with k / M for large values."""
    for limit, unit in ((1e6, "M"), (1e3, "k")):
        if value >= limit:
            return f"{value / limit:.3g}{unit}"
    return f"{value:.3g}"


def _count(number: int, what: str) -> str:
    return f"{number:,} {what}" + ("" if number == 1 else "s")


def render(results: Sequence[Measured]) -> str:
    """The human report: one block per recording."""
    lines = []
    for m in results:
        framing = _FRAMING_NAMES.get(m.framing, m.framing)
        lines.append(
            f"{m.file}: {m.provider}, {framing}, {m.size:,} bytes in {_count(m.reads, 'chunk')} of {m.chunk:,} bytes"
        )
        lines.append(f"  {'':12} {'chunks/s':>9} {'MB/s':>9} {'µs/chunk':>9}")
        for label, timing in (("streamcalls", m.parser), ("floor", m.floor)):
            rate = m.rate(timing)
            row = f"  {label:12} {_number(rate.chunks_per_s):>9} {_number(rate.mb_per_s):>9} {rate.us_per_chunk:>9.2f}"
            lines.append(row + ("" if label == "streamcalls" else f"   {FLOOR_WORK[m.framing]}"))
        lines.append(f"  streamcalls takes {m.ratio:.2f}× the floor's time")
        width = max((len(c.name) for c in m.calls), default=0)
        for c in m.calls:
            share = 100 * c.at / c.size
            lines.append(
                f"  call #{c.index} {c.name:{width}}  {c.status} at byte {c.at:,} of {c.size:,} ({share:.0f}%)"
            )
        if not m.calls:
            lines.append("  no tool calls")
        if m.problems:
            lines.append(
                f"  {m.problems} problem events (ParseError, ProviderError, ToolCallFailed): see `streamcalls replay`"
            )
    return "\n".join(lines) + "\n"


def render_json(results: Sequence[Measured]) -> str:
    """The report for scripts: a JSON array, one object per recording."""
    return msgspec.json.format(msgspec.json.encode([m.as_dict() for m in results]), indent=2).decode() + "\n"
