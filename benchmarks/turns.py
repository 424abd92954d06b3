"""The turn rows of ``make bench``: what accumulating a turn adds to parsing, and what writing it back costs.

- ``streamcalls-turn``: the ``streamcalls`` row, with every event also added to a
  :class:`~streamcalls.TurnBuilder` and the calls taken from the finished turn.  Its ratio to
  ``streamcalls`` on the same reads is what :func:`~streamcalls.accumulate` adds (target: at most
  10 %).
- ``encode_turn`` of a turn holding one call of 10 KB, 100 KB and 1 MB arguments, for a provider that
  takes the arguments as a string (OpenAI Chat: the raw text goes back as it came, no re-serializing)
  and one that takes an object (Anthropic: the decoded object, no copy), the messages then encoded to
  JSON as a request sends them.  Set against its floor -- encoding the arguments alone to JSON, which a
  request cannot avoid -- at every size: a ratio that stays flat is linear, and near 1 is one pass
  (decoding the arguments again, which it never does, is shown beside).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

import streamcalls
from streamcalls import ToolCallCompleted, TurnBuilder

from .contenders import CallTuple, Contender, Run, Unavailable
from .report import Target, _find, _num
from .runner import Result
from .streams import Stream, anthropic_stream, fence_ids, openai_stream

_encode = msgspec.json.encode

__all__ = ("CONTENDERS", "markdown_turns", "measure_encoding", "targets")

_WIRES = frozenset({"openai", "anthropic", "ollama", "openai-live", "anthropic-live"})
# The streams whose ratio is a target: the headline rows, and the one with the most events per byte.
_TARGET_STREAMS = ("openai-4x2KB", "anthropic-4x2KB", "openai-live-1x1MB", "anthropic-live-1x1MB")


def _streamcalls_turn(stream: Stream) -> Run:
    """streamcalls, each event added to a TurnBuilder; the calls read from the finished turn."""
    reads = stream.reads
    provider = stream.provider
    if not hasattr(streamcalls, "TurnBuilder"):
        raise Unavailable("no TurnBuilder in this streamcalls")

    def run() -> list[CallTuple]:
        parser = streamcalls.StreamParser(provider, id_factory=fence_ids())
        builder = TurnBuilder()
        add = builder.add
        for read in reads:
            for event in parser.feed(read):
                add(event)
        for event in parser.close():
            add(event)
        return [(c.id, c.name, c.arguments) for c in builder.turn.calls]

    return run


CONTENDERS: tuple[Contender, ...] = (
    Contender(
        "streamcalls-turn",
        "streamcalls + TurnBuilder",
        "as streamcalls, and every event added to a TurnBuilder (the accumulated turn: text, reasoning, "
        "calls with their argument text); the calls read from builder.turn",
        _WIRES,
        _streamcalls_turn,
    ),
)


# -- writing a turn back ------------------------------------------------------------------------------

ENCODE_SIZES = (10_000, 100_000, 1_000_000)


def _cpu(function: Callable[[], Any], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.process_time()
        function()
        times.append(time.process_time() - started)
    return statistics.median(times)


def measure_encoding(sizes: Sequence[int] = ENCODE_SIZES, runs: int = 15) -> list[dict[str, Any]]:
    """``encode_turn`` (and the JSON a request sends) for a turn of one call, by size and provider."""
    rows = []
    for make, provider in ((openai_stream, "openai"), (anthropic_stream, "anthropic")):
        for size in sizes:
            stream = make(1, size)
            events = streamcalls.parse(list(stream.reads), provider)  # type: ignore[arg-type]
            turn = streamcalls.accumulate(events)
            (call,) = turn.calls
            raw = turn.raw_arguments[call.id]
            results = [streamcalls.ToolResult(call.id, call.name, "ok")]

            def write(turn: Any = turn, provider: Any = provider, results: Any = results) -> bytes:
                return _encode(streamcalls.encode_turn(turn, provider, results))

            def reparse(raw: str = raw) -> Any:
                return msgspec.json.decode(raw)

            # The floor: the arguments alone, encoded as the request holds them (a string, an object).
            held: Any = raw if provider == "openai" else call.arguments

            def floor(held: Any = held) -> bytes:
                return _encode(held)

            def parse(reads: Any = stream.reads, provider: str = provider) -> None:
                parser = streamcalls.StreamParser(provider)  # type: ignore[arg-type]
                for read in reads:
                    parser.feed(read)
                parser.close()

            assert [m for m in write() if m]  # it writes
            completed = [e for e in events if type(e) is ToolCallCompleted]
            assert completed[0].call.arguments == call.arguments
            rows.append(
                {
                    "provider": provider,
                    "bytes": len(raw),
                    "encode_s": _cpu(write, runs),
                    "floor_s": _cpu(floor, runs),
                    "decode_arguments_s": _cpu(reparse, runs),
                    "parse_stream_s": _cpu(parse, max(3, runs // 3)),
                }
            )
    return rows


def _to_floor(row: dict[str, Any]) -> float:
    return float(row["encode_s"] / row["floor_s"])


def markdown_turns(results: Sequence[Result], encoding: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| stream | streamcalls µs/chunk | + TurnBuilder µs/chunk | ÷ streamcalls |",
        "|---|--:|--:|--:|",
    ]
    streams = sorted({r.stream for r in results if r.contender == "streamcalls-turn"})
    for stream in streams:
        base, turn = _find(results, stream, "streamcalls"), _find(results, stream, "streamcalls-turn")
        if base is None or turn is None or not (base.ok and turn.ok):
            continue
        lines.append(
            f"| {stream} | {_num(base.us_per_chunk)} | {_num(turn.us_per_chunk)} | {turn.median / base.median:.3f}× |"
        )
    lines += [
        "",
        "| encode_turn + JSON, one call | arguments | ms | ÷ the floor (the arguments alone to JSON) "
        "| ÷ decoding the arguments once | ÷ parsing its stream |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    for row in encoding:
        lines.append(
            f"| {row['provider']} | {row['bytes'] / 1000:,.0f} KB | {_num(row['encode_s'] * 1e3)} "
            f"| {_to_floor(row):.2f}× | {row['encode_s'] / row['decode_arguments_s']:.2f}× "
            f"| {row['encode_s'] / row['parse_stream_s']:.3f}× |"
        )
    return "\n".join(lines)


def targets(results: Sequence[Result], encoding: Sequence[dict[str, Any]]) -> list[Target]:
    out = []
    for stream in _TARGET_STREAMS:
        base, turn = _find(results, stream, "streamcalls"), _find(results, stream, "streamcalls-turn")
        name = f"accumulating the turn, {stream}"
        if base is None or turn is None:
            continue
        if not (base.ok and turn.ok):
            out.append(Target(name, "≤ 1.10× parsing alone", turn.note or base.note, None))
            continue
        value = turn.median / base.median
        out.append(Target(name, "≤ 1.10× parsing alone", f"{value:.3f}×", value <= 1.10))
    for provider in ("openai", "anthropic"):
        rows = [row for row in encoding if row["provider"] == provider and row["bytes"] >= 90_000]
        if rows:
            worst = max(_to_floor(row) for row in rows)
            shown = ", ".join(f"{_to_floor(row):.2f}× at {row['bytes'] / 1000:,.0f} KB" for row in rows)
            out.append(
                Target(
                    f"encode_turn linear, one pass, no re-parse, {provider}",
                    "≤ 1.5× the floor at 100 KB and 1 MB",
                    shown,
                    worst <= 1.5,
                )
            )
    return out
