"""``streamcalls bench``: the parser's chunk throughput on your own recordings, against the floor.

For each recording, its bytes are cut into reads of ``chunk`` bytes.  One
untimed pass finds the provider, the calls and where each one ended: how
many bytes of the stream had been fed when its ``ToolCallCompleted`` (or
``ToolCallFailed``) came out, against the stream's length -- the head start
an agent gets on running the tool.  Then three runs are timed in the same
rounds by :mod:`streamcalls.cli._timing`, the code ``make bench`` uses (CPU
time of this thread, medians of interleaved runs): the parser over the
reads, the parser's set-up alone (making a ``StreamParser`` and closing it,
which every stream pays once), and the floor of the recording's framing
(:mod:`streamcalls.cli._floors`: split + msgspec decode, nothing else).

The set-up is reported apart from the steady-state rate: a recording of a
few KB takes a few tens of µs, of which the set-up is 10 or so, and the
floor has none; ``make bench``'s long streams show the steady state, and so
does the rate here once the set-up is taken out.  Compare the ratio, which
comes from one run; the absolute numbers depend on the machine and its load.
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
    parser: Timing  # the whole stream: set-up, every read, close()
    setup: Timing  # StreamParser(...) and close(), nothing fed
    floor: Timing

    @property
    def steady_s(self) -> float:
        """The parser's time over the reads, its set-up taken out (at least 1 ns: noise on a tiny file)."""
        return max(self.parser.median - self.setup.median, 1e-9)

    @property
    def steady(self) -> Rate:
        """The parser's rate, its set-up taken out: what ``make bench``'s long streams measure."""
        return Rate(self.steady_s, self.reads, self.size)

    @property
    def floor_rate(self) -> Rate:
        return Rate(self.floor.median, self.reads, self.size)

    @property
    def ratio(self) -> float:
        """The parser's time as a multiple of the floor's, its set-up taken out."""
        return self.steady_s / self.floor.median

    @property
    def ratio_with_setup(self) -> float:
        """The parser's whole time, set-up included, as a multiple of the floor's."""
        return self.parser.median / self.floor.median

    def as_dict(self, *, samples: bool = False) -> dict[str, Any]:
        """The summary for scripts; ``samples``: every timed run's seconds too."""

        def rates(rate: Rate) -> dict[str, float]:
            return {
                "chunks_per_s": rate.chunks_per_s,
                "mb_per_s": rate.mb_per_s,
                "us_per_chunk": rate.us_per_chunk,
            }

        summary: dict[str, Any] = {
            "file": self.file,
            "provider": self.provider,
            "framing": self.framing,
            "bytes": self.size,
            "chunk_bytes": self.chunk,
            "chunks": self.reads,
            "problems": self.problems,
            "streamcalls": {
                "median_s": self.parser.median,
                "setup_s": self.setup.median,
                **rates(self.steady),
            },
            "floor": {
                "what": FLOOR_WORK[self.framing],
                "median_s": self.floor.median,
                **rates(self.floor_rate),
            },
            "ratio_to_floor": self.ratio,
            "ratio_to_floor_with_setup": self.ratio_with_setup,
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
        if samples:
            summary["samples_s"] = {
                "streamcalls": self.parser.runs,
                "setup": self.setup.runs,
                "floor": self.floor.runs,
            }
        return summary


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

    def run_setup() -> None:
        StreamParser(provider, **options).close()

    timings = Timing(run_parser), Timing(run_setup), Timing(floor(framing, reads))
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
        for label, rate, what in (
            ("streamcalls", m.steady, "the parser, its set-up aside"),
            ("floor", m.floor_rate, FLOOR_WORK[m.framing]),
        ):
            lines.append(
                f"  {label:12} {_number(rate.chunks_per_s):>9} {_number(rate.mb_per_s):>9} {rate.us_per_chunk:>9.2f}   {what}"
            )
        lines.append(f"  streamcalls takes {m.ratio:.2f}× the floor's time, set-up aside")
        share = 100 * m.setup.median / m.parser.median
        lines.append(
            f"  set-up: {m.setup.median * 1e6:.1f} µs once per stream (StreamParser(...) and close()): "
            f"{share:.0f}% of {m.parser.median * 1e6:,.1f} µs, {m.ratio_with_setup:.2f}× the floor's with it"
        )
        width = max((len(c.name) for c in m.calls), default=0)
        for c in m.calls:
            at = 100 * c.at / c.size
            lines.append(
                f"  call #{c.index} {c.name:{width}}  {c.status} at byte {c.at:,} of {c.size:,} ({at:.0f}%)"
            )
        if not m.calls:
            lines.append("  no tool calls")
        if m.problems:
            lines.append(
                f"  {m.problems} problem events (ParseError, ProviderError, ToolCallFailed): see `streamcalls replay`"
            )
    return "\n".join(lines) + "\n"


def render_json(results: Sequence[Measured], *, samples: bool = False) -> str:
    """The report for scripts: one JSON object per recording, one per line (``samples``: every run's seconds)."""
    return "".join(msgspec.json.encode(m.as_dict(samples=samples)).decode() + "\n" for m in results)
