"""Where streamcalls spends its time on one stream: ``python -m benchmarks --profile openai-4x2KB``.

Two views:

- Layers, timed without a profiler (profilers inflate small functions):
  the whole parser; the framer alone, handing records to a sink that does
  nothing; the provider adapter alone, fed the payloads the framer would
  hand it; and msgspec decoding those payloads, into the adapter's view
  Structs and into plain dicts.  Each is the median of interleaved runs,
  in µs per chunk.
- cProfile's top functions by own time (their relative weight only: the
  profiler's per-call cost is much larger than the functions' own).
"""

from __future__ import annotations

import cProfile
import gc
import importlib
import io
import pstats
import re
import statistics
import time
from collections.abc import Callable

import msgspec

import streamcalls
from streamcalls._emitter import Emitter
from streamcalls._limits import Limits
from streamcalls._nonstream import DocumentReader
from streamcalls.framing._make import make_framer
from streamcalls.providers import adapter_for

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

__all__ = ("layers", "profile", "stream_named")

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


class _NullSink:
    def on_record(self, name: str | None, data: bytes) -> None:
        return None

    def on_done(self) -> None:
        return None


def _payloads(stream: Stream) -> list[tuple[str | None, bytes]]:
    if stream.framing == "sse":
        return [(n, p) for n, p in sse_events(stream) if p != b"[DONE]"]
    return [(None, r.rstrip(b"\n")) for r in stream.reads]


def layers(stream: Stream, rounds: int = 15) -> dict[str, float]:
    """µs per chunk of each layer of streamcalls on ``stream`` (median of ``rounds``)."""
    reads = stream.reads
    payloads = _payloads(stream)
    adapter_class = adapter_for(stream.provider)
    view_decoder = getattr(importlib.import_module(adapter_class.__module__), "_decoder", None)

    def whole() -> None:
        parser = streamcalls.StreamParser(stream.provider)
        for read in reads:
            parser.feed(read)
        parser.close()

    def framer() -> None:
        emit = Emitter(Limits(), None)
        framing = make_framer(adapter_class.framing, _NullSink(), emit, DocumentReader(emit, None))
        for read in reads:
            framing.feed(read)

    def adapter() -> None:
        emit = Emitter(Limits(), None)
        target = adapter_class(emit)
        out = emit.out
        for name, payload in payloads:
            target.on_record(name, payload)
            out.clear()

    def decode_view() -> None:
        if view_decoder is not None:
            for _, payload in payloads:
                view_decoder.decode(payload)

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


def profile(key: str, top: int = 18) -> int:
    stream = stream_named(key)
    print(f"{stream.key}: {len(stream.reads):,} reads, {stream.size:,} bytes\n")
    if stream.framing != "text":
        print("µs per chunk, by layer (median of interleaved runs, no profiler):")
        for name, value in layers(stream).items():
            print(f"  {value:6.2f}  {name}")
    run = contender("streamcalls").prepare(stream)
    run()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(5):
        run()
    prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).strip_dirs().sort_stats("tottime").print_stats(top)
    print("\ncProfile, 5 runs, by own time:")
    print(buf.getvalue())
    return 0
