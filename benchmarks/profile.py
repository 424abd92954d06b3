"""Where streamcalls spends its time on one stream: ``python -m benchmarks --profile openai-4x2KB``.

Three views:

- Layers, timed without a profiler (profilers inflate small functions):
  the whole parser; the framer alone, its records going nowhere; the
  provider adapter alone, fed the payloads the framer would hand it; and
  msgspec decoding those payloads, into the adapter's view Structs and into
  plain dicts.  Each is the median of interleaved runs, in µs per chunk.
- cProfile's own time summed by part of the parser (framing, adapter, call
  assembler, argument scanner, emitter, text channel, msgspec decoding, ...).
- cProfile's top functions by own time.

The profiler's numbers are relative weights only: its per-call cost is much
larger than the functions' own.

Every part is found through the objects of a live parser, never by a module
path: the adapter is the parser's adapter object (its view decoder is the one
it decodes with), the framer with a silent sink is a parser whose adapter
object is switched to a subclass that drops records, and the parts of the
profile are the classes reachable from a parser in the middle of a stream
(with the files they are defined in).  Moving a module -- say a provider into
a package of its own -- changes nothing here.
"""

from __future__ import annotations

import cProfile
import gc
import inspect
import io
import pstats
import re
import statistics
import time
from collections.abc import Callable, Iterator
from types import MethodType
from typing import Any

import msgspec

import streamcalls
from streamcalls._calls import CallAssembler
from streamcalls._native import pure_python

from .contenders import contender
from .streams import (
    Stream,
    anthropic_stream,
    ollama_stream,
    openai_fence_stream,
    openai_stream,
    sse_events,
    text_fence_stream,
)

__all__ = ("layers", "parts_of", "profile", "profile_by_part", "stream_named")

_MAKERS = {
    "openai": openai_stream,
    "anthropic": anthropic_stream,
    "ollama": ollama_stream,
    "openai-fence": openai_fence_stream,
}


def stream_named(key: str) -> Stream:
    match = re.fullmatch(r"(openai-fence|openai|anthropic|ollama)-(\d+)x(\d+)KB", key)
    if match:
        return _MAKERS[match[1]](int(match[2]), int(match[3]) * 1000)
    if key.startswith("text"):
        return text_fence_stream()
    raise SystemExit(f"unknown stream {key!r}; e.g. openai-4x2KB, anthropic-1x100KB, ollama-1x10KB")


def _payloads(stream: Stream) -> list[tuple[str | None, bytes]]:
    if stream.framing == "sse":
        return [(n, p) for n, p in sse_events(stream) if p != b"[DONE]"]
    return [(None, r.rstrip(b"\n")) for r in stream.reads]


# -- a parser's parts, by its objects -------------------------------------------------------------


def _component(parser: streamcalls.StreamParser, name: str) -> Any:
    value = getattr(parser, name, None)
    if value is None:
        raise SystemExit(f"benchmarks.profile: a StreamParser has no {name!r} any more; update the profile")
    return value


def _silenced(adapter: Any) -> None:
    """Switch an adapter object to a subclass of its class whose records go nowhere."""
    cls = type(adapter)

    def nothing(self: Any, *args: Any) -> None:
        return None

    adapter.__class__ = type(
        f"Silent{cls.__name__}",
        (cls,),
        {"__slots__": (), "on_record": nothing, "on_done": nothing, "close": nothing},
    )


def _view_decode(adapter: Any) -> Callable[[bytes], Any] | None:
    """What the adapter decodes each record with: its own decode function, else a decoder of the
    view Struct its class declares (None: it decodes no JSON records)."""
    decode = getattr(adapter, "_decode", None)
    if callable(decode):
        return decode  # type: ignore[no-any-return]
    view = getattr(type(adapter), "view", None)
    return msgspec.json.Decoder(view).decode if isinstance(view, type) else None


def layers(stream: Stream, rounds: int = 15) -> dict[str, float]:
    """µs per chunk of each layer of streamcalls on ``stream`` (median of ``rounds``)."""
    reads = stream.reads
    payloads = _payloads(stream)
    provider = stream.provider
    probe = streamcalls.StreamParser(provider)
    view_decode = _view_decode(_component(probe, "_adapter"))

    def whole() -> None:
        parser = streamcalls.StreamParser(provider)
        for read in reads:
            parser.feed(read)
        parser.close()

    def framer() -> None:
        parser = streamcalls.StreamParser(provider)
        _silenced(_component(parser, "_adapter"))
        for read in reads:
            parser.feed(read)

    def adapter() -> None:
        parser = streamcalls.StreamParser(provider)
        target = _component(parser, "_adapter")
        out = _component(parser, "_emit").out
        for name, payload in payloads:
            target.on_record(name, payload)
            out.clear()

    def decode_view() -> None:
        if view_decode is not None:
            for _, payload in payloads:
                view_decode(payload)

    def decode_dict() -> None:
        decode = msgspec.json.decode
        for _, payload in payloads:
            decode(payload)

    parts: dict[str, Callable[[], None]] = {
        "whole parser (feed per read, events out)": whole,
        "framer only (records to a null sink)": framer,
        "adapter only (payloads in, events out)": adapter,
        "  of which: msgspec decode into the view Structs": decode_view,
        "floor's decode: msgspec into dicts": decode_dict,
    }
    samples: dict[str, list[float]] = {k: [] for k in parts}
    for _ in range(rounds):
        for key, fn in parts.items():
            gc.collect()
            start = time.thread_time()
            fn()
            samples[key].append(time.thread_time() - start)
    return {k: statistics.median(v) / len(reads) * 1e6 for k, v in samples.items()}


# -- cProfile, by part -----------------------------------------------------------------------------

# The parts, in the order a record goes through them.
PARSER, FRAMING, ADAPTER, EMITTER, CALLS, SCANNER, TEXT = (
    "parser: feed() and close()",
    "framing (records out of the bytes)",
    "provider adapter",
    "emitter (events out)",
    "call assembler",
    "argument JSON scanner",
    "text channel and detectors",
)
DECODE = "msgspec decoding (C)"
BUILTINS = "other built-ins (C)"
OTHER = "other Python"


def _values(obj: Any) -> Iterator[Any]:
    """What an object refers to: its slots and attributes, a container's items, a bound
    method's object."""
    if isinstance(obj, MethodType):
        yield obj.__self__
        return
    if isinstance(obj, (list, tuple, set, frozenset)):
        yield from obj
        return
    if isinstance(obj, dict):
        yield from obj.values()
        return
    for cls in type(obj).__mro__:
        for name in cls.__dict__.get("__slots__", ()):
            value = getattr(obj, name, None)
            if value is not None:
                yield value
    yield from getattr(obj, "__dict__", {}).values()


def _ours(obj: Any) -> bool:
    return type(obj).__module__.split(".")[0] == streamcalls.__name__


def parts_of(stream: Stream) -> dict[type, str]:
    """The classes of a parser fed half of ``stream`` (so that a call is open), each with the part
    of the parser it belongs to: where it was found from the parser's framer, adapter and emitter
    (a call's state, the object with a ``scanner``, is the assembler's; its scanner, the scanner)."""
    parser = streamcalls.StreamParser(stream.provider)
    for read in stream.reads[: len(stream.reads) // 2]:
        parser.feed(read)
    emit = _component(parser, "_emit")
    # The emitter extends the call assembler: the assembler's methods are its own part (listed
    # first, so that they are not counted as the emitter's).
    roles: dict[type, str] = {CallAssembler: CALLS, type(parser): PARSER, type(emit): EMITTER}

    def walk(obj: Any, role: str, depth: int = 0) -> None:
        if depth > 8:
            return
        for value in _values(obj):
            if isinstance(value, (list, tuple, set, frozenset, dict, MethodType)):
                walk(value, role, depth + 1)
            elif _ours(value) and not isinstance(value, msgspec.Struct):  # events are data, not parts
                visit(value, role, depth + 1)

    def visit(obj: Any, role: str, depth: int = 0) -> None:
        cls = type(obj)
        if cls in roles:
            return
        scanner = getattr(obj, "scanner", None)
        if scanner is not None and _ours(scanner):
            roles[cls] = CALLS
            roles.setdefault(type(scanner), SCANNER)
        else:
            roles[cls] = role
        walk(obj, roles[cls], depth)

    framer, adapter = _component(parser, "_framer"), _component(parser, "_adapter")
    roles[type(framer)] = FRAMING
    roles[type(adapter)] = ADAPTER
    walk(framer, FRAMING)
    walk(adapter, ADAPTER)
    walk([getattr(emit, slot, None) for slot in CallAssembler.__slots__], CALLS)  # the open calls
    walk(emit, TEXT)  # what the emitter reaches that is none of the above: the text channel
    return roles


def _where(roles: dict[type, str]) -> tuple[dict[tuple[str, int], str], dict[str, str]]:
    """Each method of the classes, by (file, first line); and each class's file, by its role
    (for the functions of a module that are no class's)."""
    functions: dict[tuple[str, int], str] = {}
    files: dict[str, str] = {}
    for cls, role in roles.items():
        for klass in cls.__mro__:
            if klass.__module__.split(".")[0] != streamcalls.__name__:
                continue
            try:
                files.setdefault(inspect.getfile(klass), role)
            except TypeError:
                continue
            for member in vars(klass).values():
                code = getattr(getattr(member, "__func__", member), "__code__", None)
                if code is not None:
                    functions.setdefault((code.co_filename, code.co_firstlineno), role)
    return functions, files


def profile_by_part(stream: Stream, runs: int = 5) -> tuple[dict[str, float], pstats.Stats]:
    """cProfile of the streamcalls row on ``stream``: each part's share of the own time, and the stats.

    On the pure-Python path: the native one's parts are C, which cProfile does not see."""
    with pure_python():
        run = contender("streamcalls").prepare(stream)
        run()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(runs):
            run()
        prof.disable()
        roles = parts_of(stream)
    stats = pstats.Stats(prof)
    functions, files = _where(roles)
    totals: dict[str, float] = {}
    table: dict[tuple[str, int, str], tuple[Any, ...]] = stats.stats  # type: ignore[attr-defined]
    for (filename, line, name), (_, _, own, _, _) in table.items():
        if filename == "~":
            part = DECODE if "msgspec" in name else BUILTINS
        else:
            part = functions.get((filename, line)) or files.get(filename) or OTHER
        totals[part] = totals.get(part, 0.0) + own
    whole = sum(totals.values()) or 1.0
    return {part: own / whole for part, own in sorted(totals.items(), key=lambda kv: -kv[1])}, stats


def profile(key: str, top: int = 18) -> int:
    stream = stream_named(key)
    print(f"{stream.key}: {len(stream.reads):,} reads, {stream.size:,} bytes\n")
    if stream.framing != "text":
        print("µs per chunk, by layer (median of interleaved runs, no profiler):")
        for name, value in layers(stream).items():
            print(f"  {value:6.2f}  {name}")
    shares, stats = profile_by_part(stream)
    print("\ncProfile, 5 runs: own time by part of the parser")
    for part, share in shares.items():
        print(f"  {share:6.1%}  {part}")
    buf = io.StringIO()
    stats.stream = buf  # type: ignore[attr-defined]
    stats.strip_dirs().sort_stats("tottime").print_stats(top)
    print("\ncProfile, 5 runs, by own time:")
    print(buf.getvalue())
    return 0
