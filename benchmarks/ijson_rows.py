"""ijson's rows of ``make bench``: the reason it is not a dependency, measured on every run.

ijson is an incremental JSON parser: its ``items_coro`` is pushed bytes as
they come and yields each complete value.  It was planned for Gemini's
streamed JSON array and left out on a measurement (the Benchmarks page,
"Measured and left out: ijson"); these rows take that measurement again, on
the same bytes as streamcalls, in the same rounds:

- ``ijson-openai-1x…``: OpenAI Chat streams of one call, 10 KB to 2 MB of
  arguments in 3-8 character fragments (``streams.openai_stream``).  ijson's
  row splits the SSE and decodes each chunk as the floor does, then pushes
  each argument fragment into one ``items_coro`` per call: the call is
  complete when its arguments' value comes out -- what streamcalls' argument
  scanner tells.
- ``gemini-array-1x…``: Gemini's ``streamGenerateContent`` body without
  ``alt=sse``, one JSON array streamed element by element and pretty-printed
  (a text element, one holding the whole ``functionCall`` -- Gemini sends no
  argument fragments -- and the finish), read in 1-4 KB pieces.  ijson's row
  pushes the reads into ``items_coro(..., "item")`` and reads the calls out
  of each element it yields.

ijson chooses its backend once, at import: the one the ``IJSON_BACKEND``
environment variable names, else the first of ``yajl2_c`` (its C extension,
in the wheels), ``yajl2_cffi``, ``yajl2``, ``yajl`` (a system libyajl) and
``python`` that imports.  The ``ijson`` row measures the one it picks (its
name is in the row's label and the results' note, ``yajl2_c`` where the
wheel's extension loads); ``ijson-python`` measures the pure-Python backend,
which reads a long unfinished string differently.  Both are given
``use_float=True``, so that numbers come out as the other rows' do.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from .contenders import CallTuple, Contender, Run, Unavailable, _decoded_payloads, _floor, _streamcalls
from .report import _find, _num, _ratio
from .runner import SAMPLE_S, Result, Settings
from .streams import Call, Stream, _size_name, coalesce, fence_ids, make_arguments, openai_stream

__all__ = (
    "CONTENDERS",
    "SIZES",
    "backend_name",
    "gemini_array_stream",
    "groups",
    "markdown_ijson",
    "openai_ijson_stream",
)

SIZES = (10_000, 100_000, 1_000_000, 2_000_000)
_QUICK_SIZES = (10_000, 100_000)
_C_OPENAI_MAX = 100_000  # the C backend on fragments: ~1 s per run at 100 KB, ~2 minutes at 1 MB


def backend_name() -> str | None:
    """The backend ``import ijson`` picked (None: ijson is not installed)."""
    try:
        import ijson
    except ImportError:
        return None
    return str(ijson.backend_name)


# -- the streams -----------------------------------------------------------------------------------


def openai_ijson_stream(args_bytes: int, seed: int = 1) -> Stream:
    """``streams.openai_stream(1, args_bytes)``, under a key and wire of these rows."""
    stream = openai_stream(1, args_bytes, seed)
    return replace(stream, key=f"ijson-openai-1x{_size_name(args_bytes)}", wire="ijson-openai")


def gemini_array_stream(n_calls: int, args_bytes: int, seed: int = 1) -> Stream:
    """Gemini's streamed JSON array: text, then every call whole in one element, then the finish."""
    rng = random.Random(seed)
    ids = fence_ids()  # Gemini's calls have no id: the parser's factory names them
    calls = [Call(ids(), f"write_file_{n}", make_arguments(rng, args_bytes)) for n in range(n_calls)]
    usage = {"promptTokenCount": 812, "totalTokenCount": 812}

    def element(parts: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        candidate = {"content": {"parts": parts, "role": "model"}, "index": 0, **extra}
        return {
            "candidates": [candidate],
            "usageMetadata": usage,
            "modelVersion": "gemini-2.5-flash",
            "responseId": "mFq2aPbGJ4yUz7IPq-3RyAw",
        }

    elements = [
        element([{"text": "I'll write those files now."}]),
        element([{"functionCall": {"name": c.name, "args": c.arguments}} for c in calls]),
        element([{"text": ""}], finishReason="STOP"),
    ]
    body = (
        "[" + "\n,\r\n".join(json.dumps(e, indent=2, ensure_ascii=False) for e in elements) + "\n]"
    ).encode()
    whole = Stream("body", "gemini-array", "gemini", "json-array", n_calls, args_bytes, (body,), tuple(calls))
    return replace(whole, key=f"gemini-array-{n_calls}x{_size_name(args_bytes)}", reads=coalesce(whole))


# -- ijson's rows ----------------------------------------------------------------------------------


def _backend(python: bool) -> Any:
    try:
        import ijson
    except ImportError as exc:
        raise Unavailable(f"ijson not installed ({exc})") from None
    return ijson.get_backend("python") if python else ijson


def _ijson_openai(stream: Stream, backend: Any) -> Run:
    reads = stream.reads
    items_coro, sendable_list = backend.items_coro, _sendable_list(backend)

    def run() -> list[CallTuple]:
        calls: dict[int, list[Any]] = {}  # index -> [id, name, parser, its output]
        done: list[CallTuple] = []
        for _, obj in _decoded_payloads(reads):
            choices = obj.get("choices")
            if not choices:
                continue
            for tc in choices[0]["delta"].get("tool_calls") or ():
                call = calls.get(tc["index"])
                function = tc.get("function") or {}
                if call is None:
                    out = sendable_list()
                    call = calls[tc["index"]] = [tc.get("id"), function.get("name"), None, out]
                    call[2] = items_coro(out, "", use_float=True)
                piece = function.get("arguments")
                if piece and not call[3]:
                    call[2].send(piece.encode())
                    if call[3]:  # the arguments' value closed: the call is complete
                        done.append((call[0], call[1], call[3][0]))
        return done

    return run


def _ijson_gemini(stream: Stream, backend: Any) -> Run:
    reads = stream.reads
    items_coro, sendable_list = backend.items_coro, _sendable_list(backend)

    def run() -> list[CallTuple]:
        ids = fence_ids()
        done: list[CallTuple] = []
        elements = sendable_list()
        parser = items_coro(elements, "item", use_float=True)
        for read in reads:
            parser.send(read)
            for element in elements:
                for candidate in element.get("candidates") or ():
                    for part in (candidate.get("content") or {}).get("parts") or ():
                        call = part.get("functionCall")
                        if call is not None:
                            done.append((ids(), call["name"], call.get("args", {})))
            del elements[:]
        parser.close()
        return done

    return run


def _sendable_list(backend: Any) -> Callable[[], list[Any]]:
    import ijson

    return getattr(backend, "sendable_list", ijson.sendable_list)  # type: ignore[no-any-return]


def _ijson(stream: Stream, *, python: bool) -> Run:
    backend = _backend(python)
    if stream.wire == "gemini-array":
        return _ijson_gemini(stream, backend)
    return _ijson_openai(stream, backend)


_WIRES = frozenset({"ijson-openai", "gemini-array"})
_PICKED = backend_name() or "not installed"

CONTENDERS: tuple[Contender, ...] = (
    Contender(
        "streamcalls",
        "streamcalls",
        "bytes in: one SSE event per feed() (OpenAI), 1-4 KB reads (Gemini's array); framing, decoding, "
        "assembly, events",
        _WIRES,
        lambda s: _streamcalls(s, detect=None),
    ),
    Contender(
        "floor",
        "floor: split + msgspec decode",
        "bytes in: split lines and decode each payload (OpenAI); the whole array decoded once at its end "
        "(Gemini)",
        _WIRES,
        _floor,
        checked=False,
    ),
    Contender(
        "ijson",
        f"ijson ({_PICKED}) items_coro",
        f"bytes in, ijson's {_PICKED} backend (the one it picks): split + msgspec decode, each argument "
        "fragment pushed into a per-call items_coro",
        frozenset({"ijson-openai"}),
        lambda s: _ijson(s, python=False),
        max_args_bytes=_C_OPENAI_MAX if _PICKED != "python" else None,
    ),
    Contender(
        "ijson",
        f"ijson ({_PICKED}) items_coro",
        f"bytes in, ijson's {_PICKED} backend (the one it picks): each read pushed into "
        "items_coro(..., 'item'), the calls read from each element",
        frozenset({"gemini-array"}),
        lambda s: _ijson(s, python=False),
    ),
    Contender(
        "ijson-python",
        "ijson (python backend) items_coro",
        "as ijson, with its pure-Python backend (IJSON_BACKEND=python)",
        _WIRES,
        lambda s: _ijson(s, python=True),
    ),
)


def groups(quick: bool) -> list[tuple[str, Callable[[], list[Stream]], Settings]]:
    sizes = _QUICK_SIZES if quick else SIZES
    settings = (
        Settings(min_runs=2, min_runs_fast=3, max_runs=5, budget_s=0.2)
        if quick
        else Settings(min_runs=3, min_runs_fast=7, max_runs=15, budget_s=1.0, sample_s=SAMPLE_S)
    )
    return [
        ("ijson: OpenAI, one call, 10 KB to 2 MB", lambda: [openai_ijson_stream(s) for s in sizes], settings),
        (
            "ijson: Gemini's JSON array, one call",
            lambda: [gemini_array_stream(1, s) for s in sizes],
            settings,
        ),
    ]


def markdown_ijson(results: Sequence[Result]) -> str:
    """Per stream: ms per stream of each row, and its time ÷ streamcalls'."""
    keys = [c.key for c in CONTENDERS if c.key != "floor"] + ["floor"]
    labels = {c.key: c.label for c in CONTENDERS}
    keys = list(dict.fromkeys(keys))
    lines = [
        "| stream | " + " | ".join(labels[k] for k in keys) + " |",
        "|---|" + "--:|" * len(keys),
    ]
    for stream in dict.fromkeys(r.stream for r in results if r.wire in _WIRES):
        cells = []
        for key in keys:
            r = _find(results, stream, key)
            if r is None:
                cells.append("-")
            elif not r.ok:
                cells.append(r.note)
            elif key == "streamcalls":
                cells.append(_num(r.median * 1e3))
            else:
                cells.append(f"{_num(r.median * 1e3)} ({_ratio(r.ratio)})")
        lines.append(f"| {stream} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"ms per stream (time ÷ streamcalls'). ijson's backend here: {_PICKED}.",
    ]
    return "\n".join(lines)
