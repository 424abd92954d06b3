"""Seeded, realistic provider streams with their ground truth.

Every stream is built from one ``random.Random(seed)``, so a run is
reproducible byte for byte.  What the streams look like:

- Arguments are the JSON a model writes for a file-editing tool: a path,
  flags, numbers, a list of edit objects and a long ``content`` string of
  code-like text with quotes, backslashes, tabs, newlines and non-ASCII
  (accents, CJK, an emoji outside the BMP).  ``args_bytes`` is the size of
  that JSON text, per call (within a few percent).
- The argument text is cut into fragments of 3 to 8 characters, as the
  providers' token-by-token streaming sends it.  Fragments split anywhere,
  escapes included.
- OpenAI Chat: one ``data: {chunk}`` SSE event per read, with the fields a
  real chunk carries (id, created, model, system_fingerprint, obfuscation,
  logprobs ...); parallel calls stream one after another; a finish chunk, a
  usage-only chunk and ``data: [DONE]`` end it.
- Anthropic Messages: ``event:`` + ``data:`` SSE, a short text block first,
  a ping, then one ``tool_use`` block per call with ``input_json_delta``
  fragments, ``message_delta`` and ``message_stop``.
- Ollama /api/chat: NDJSON, text tokens, then one line holding every call
  whole (Ollama does not stream arguments), then the ``done`` line.
- OpenAI with a fence: the call is written by the model as text,
  ``~~~tool_call`` + ``{"name": ..., "arguments": {...}}`` + ``~~~``, and
  streamed as ``delta.content`` fragments.
- Plain text, 1 MB: markdown prose (code blocks, ``~~strike~~``, stray
  tildes) with fenced calls every ~64 KB, read 4 bytes at a time.
- Live arguments (``live=True``, OpenAI and Anthropic): one ``write_file``
  call whose arguments are a path and one long ``content`` string of code,
  in fragments of exactly 40 characters: the streams on which partial
  argument values (``partial_arguments=True``, the SDKs' parsed snapshots,
  partial-JSON re-parsers) are compared.
"""

from __future__ import annotations

import itertools
import json
import random
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from streamcalls import ProviderName

__all__ = (
    "FENCE_CLOSE",
    "FENCE_OPEN",
    "LIVE_FRAGMENT",
    "Call",
    "Stream",
    "anthropic_stream",
    "coalesce",
    "fence_ids",
    "make_arguments",
    "make_file_arguments",
    "ollama_stream",
    "openai_fence_stream",
    "openai_stream",
    "split_fragments",
    "sse_events",
    "text_fence_stream",
)

_encode = msgspec.json.encode

# The fence the text detector looks for: a line ``~~~tool_call``, the call
# as {"name", "arguments"} JSON, and a closing ``~~~`` line.
FENCE_OPEN = "~~~tool_call\n"
FENCE_CLOSE = "\n~~~\n"

_TOOL_NAMES = ("write_file", "apply_patch", "run_sql", "create_ticket", "search_code", "send_email")
_WORDS = (
    *("stream", "parser", "token", "chunk", "value", "buffer", "offset", "call", "tool", "argument"),
    *("event", "delta", "provider", "request", "response", "decode", "encode", "scan", "state"),
    *("index", "fragment", "object", "array", "string", "number", "the", "a", "of", "to", "and"),
    *("in", "is", "it", "for", "on", "with", "as", "at", "by", "from", "this", "that"),
)
_ALNUM = string.ascii_letters + string.digits

LIVE_FRAGMENT = 40  # characters of argument text per delta in the live-arguments streams


@dataclass(frozen=True)
class Call:
    """A tool call as every contender must report it."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Stream:
    """One benchmark stream: its reads as a server writes them, and the calls in it.

    ``wire`` is the stream's format (``openai``, ``anthropic``, ``ollama``,
    ``openai-fence``, ``text-fence``); ``provider`` the streamcalls provider
    name for it.  ``reads`` is one SSE event or NDJSON line per element (4
    bytes each for the plain-text stream).
    """

    key: str
    wire: str
    provider: ProviderName
    framing: str
    n_calls: int
    args_bytes: int
    reads: tuple[bytes, ...]
    calls: tuple[Call, ...]
    detect: bool = False  # calls are found by a text detector, with generated ids
    size: int = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", sum(len(r) for r in self.reads))

    @property
    def data(self) -> bytes:
        return b"".join(self.reads)


# -- arguments -------------------------------------------------------------------------


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n))


def _ident(rng: random.Random) -> str:
    return "_".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 3)))


def _code_line(rng: random.Random) -> str:
    kind = rng.randrange(8)
    a, b = _ident(rng), _ident(rng)
    if kind == 0:
        return f'    {a} = {b}({_ident(rng)}, "{_words(rng, 3)}")'
    if kind == 1:
        return f"    # {_words(rng, 6)} -- naïve café, déjà vu"
    if kind == 2:
        return f'    return {{"{a}": {rng.randint(0, 99999)}, "path": "C:\\\\{b}\\\\{a}.txt"}}'
    if kind == 3:
        return f"\tif {a} > {rng.randint(0, 999)} and {b} < {rng.random():.3f}:  # 中文注释 {_words(rng, 2)}"
    if kind == 4:
        return f'    raise ValueError(f"bad {{{a}!r}}: {_words(rng, 3)} 🚀")'
    if kind == 5:
        return f"def {a}({b}: int = {rng.randint(0, 9)}) -> str:"
    if kind == 6:
        return f"    pattern = re.compile(r'\\s+{a}\\d*[\\[\\]{{}}]')"
    return ""


def make_arguments(rng: random.Random, size: int) -> dict[str, Any]:
    """A tool-call arguments object whose JSON text is about ``size`` characters."""
    n_edits = max(1, size // 2500)
    args: dict[str, Any] = {
        "path": f"src/{_ident(rng)}/{_ident(rng)}.py",
        "description": _words(rng, 8),
        "overwrite": rng.random() < 0.5,
        "mode": 420,
        "max_lines": None,
        "tags": [rng.choice(_WORDS) for _ in range(3)],
        "edits": [
            {
                "line": rng.randint(1, 5000),
                "old": _code_line(rng),
                "new": _code_line(rng),
                "confidence": round(rng.random(), 4),
            }
            for _ in range(n_edits)
        ],
        "content": "",
    }
    budget = size - len(_dump(args))
    lines: list[str] = []
    while budget > 0:
        line = _code_line(rng)
        lines.append(line)
        budget -= len(json.dumps(line, ensure_ascii=False))  # the line's escaped text, +2 for "\n"
    args["content"] = "\n".join(lines)
    return args


def make_file_arguments(rng: random.Random, size: int) -> dict[str, Any]:
    """A ``write_file`` call's arguments: a path and a ``content`` string; about ``size`` characters of JSON."""
    args: dict[str, Any] = {"path": f"src/{_ident(rng)}/{_ident(rng)}.py", "content": ""}
    budget = size - len(_dump(args))
    lines: list[str] = []
    while budget > 0:
        line = _code_line(rng)
        lines.append(line)
        budget -= len(json.dumps(line, ensure_ascii=False))
    args["content"] = "\n".join(lines)
    return args


def _dump(args: dict[str, Any]) -> str:
    """The arguments as a model writes them: json.dumps's spacing, raw non-ASCII."""
    return json.dumps(args, ensure_ascii=False)


def split_fragments(rng: random.Random, text: str, low: int = 3, high: int = 8) -> list[str]:
    """Cut ``text`` into pieces of ``low``..``high`` characters."""
    out = []
    pos = 0
    while pos < len(text):
        step = rng.randint(low, high)
        out.append(text[pos : pos + step])
        pos += step
    return out


def _token_id(rng: random.Random, prefix: str, n: int) -> str:
    return prefix + "".join(rng.choice(_ALNUM) for _ in range(n))


def fence_ids() -> Callable[[], str]:
    """The id factory for streams whose calls have no ids (text detectors)."""
    numbers = itertools.count()
    return lambda: f"call_fence_{next(numbers)}"


def _calls(
    rng: random.Random, n_calls: int, args_bytes: int, id_prefix: str, id_len: int, *, live: bool = False
) -> list[Call]:
    if live:
        return [
            Call(_token_id(rng, id_prefix, id_len), "write_file", make_file_arguments(rng, args_bytes))
            for _ in range(n_calls)
        ]
    return [
        Call(_token_id(rng, id_prefix, id_len), rng.choice(_TOOL_NAMES), make_arguments(rng, args_bytes))
        for _ in range(n_calls)
    ]


def _pieces(rng: random.Random, text: str, live: bool) -> list[str]:
    """A call's argument text as the deltas that carry it: token-sized, or LIVE_FRAGMENT characters each."""
    if live:
        return [text[i : i + LIVE_FRAGMENT] for i in range(0, len(text), LIVE_FRAGMENT)]
    return split_fragments(rng, text)


def _names(wire: str, n_calls: int, args_bytes: int, live: bool) -> tuple[str, str]:
    """A stream's key and wire: ``openai-4x2KB``, or ``openai-live-1x1MB`` (wire ``openai-live``)."""
    if live:
        wire += "-live"
    return f"{wire}-{n_calls}x{_size_name(args_bytes)}", wire


# -- OpenAI Chat -------------------------------------------------------------------------


class _OpenAIChunks:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.id = _token_id(rng, "chatcmpl-", 29)

    def chunk(self, delta: dict[str, Any], finish: str | None = None) -> bytes:
        rng = self.rng
        obj = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": 1763000000,
            "model": "gpt-4.1-2025-04-14",
            "service_tier": "default",
            "system_fingerprint": "fp_b3f1157249",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
            "usage": None,
            "obfuscation": "".join(rng.choice(_ALNUM) for _ in range(rng.randint(2, 12))),
        }
        return b"data: " + _encode(obj) + b"\n\n"

    def usage(self, completion_tokens: int) -> bytes:
        obj = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": 1763000000,
            "model": "gpt-4.1-2025-04-14",
            "service_tier": "default",
            "system_fingerprint": "fp_b3f1157249",
            "choices": [],
            "usage": {
                "prompt_tokens": 812,
                "completion_tokens": completion_tokens,
                "total_tokens": 812 + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
            },
            "obfuscation": "Xq",
        }
        return b"data: " + _encode(obj) + b"\n\n"


def openai_stream(n_calls: int, args_bytes: int, seed: int = 1, *, live: bool = False) -> Stream:
    """OpenAI Chat Completions: ``n_calls`` parallel calls of ``args_bytes`` each."""
    rng = random.Random(seed)
    calls = _calls(rng, n_calls, args_bytes, "call_", 24, live=live)
    out = _OpenAIChunks(rng)
    reads = [out.chunk({"role": "assistant", "content": None, "refusal": None})]
    for index, call in enumerate(calls):
        head = {"index": index, "id": call.id, "type": "function"}
        head["function"] = {"name": call.name, "arguments": ""}
        reads.append(out.chunk({"tool_calls": [head]}))
        for piece in _pieces(rng, _dump(call.arguments), live):
            reads.append(out.chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    reads.append(out.chunk({}, "tool_calls"))
    reads.append(out.usage(len(reads)))
    reads.append(b"data: [DONE]\n\n")
    key, wire = _names("openai", n_calls, args_bytes, live)
    return Stream(
        key,
        wire,
        "openai",
        "sse",
        n_calls,
        args_bytes,
        tuple(reads),
        tuple(calls),
    )


def openai_fence_stream(n_calls: int, args_bytes: int, seed: int = 1) -> Stream:
    """OpenAI Chat where the model writes its calls as ``~~~tool_call`` fences in the text."""
    rng = random.Random(seed)
    ids = fence_ids()
    calls = [Call(ids(), c.name, c.arguments) for c in _calls(rng, n_calls, args_bytes, "", 0)]
    out = _OpenAIChunks(rng)
    text = "I'll make that change now.\n\n"
    for call in calls:
        body = _dump({"name": call.name, "arguments": call.arguments})
        text += FENCE_OPEN + body + FENCE_CLOSE + "\nDone with that step.\n\n"
    reads = [out.chunk({"role": "assistant", "content": "", "refusal": None})]
    reads += [out.chunk({"content": piece}) for piece in split_fragments(rng, text)]
    reads.append(out.chunk({}, "stop"))
    reads.append(out.usage(len(reads)))
    reads.append(b"data: [DONE]\n\n")
    return Stream(
        f"openai-fence-{n_calls}x{_size_name(args_bytes)}",
        "openai-fence",
        "openai",
        "sse",
        n_calls,
        args_bytes,
        tuple(reads),
        tuple(calls),
        detect=True,
    )


# -- Anthropic ---------------------------------------------------------------------------


def _anthropic_event(name: str, obj: dict[str, Any]) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + _encode(obj) + b"\n\n"


def anthropic_stream(n_calls: int, args_bytes: int, seed: int = 1, *, live: bool = False) -> Stream:
    """Anthropic Messages: a text block, then ``n_calls`` tool_use blocks."""
    rng = random.Random(seed)
    calls = _calls(rng, n_calls, args_bytes, "toolu_01", 22, live=live)
    ev = _anthropic_event
    message: dict[str, Any] = {
        "id": _token_id(rng, "msg_01", 22),
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 812,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 1,
        },
    }
    reads = [ev("message_start", {"type": "message_start", "message": message})]
    reads.append(
        ev(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        )
    )
    reads.append(b'event: ping\ndata: {"type": "ping"}\n\n')
    for piece in split_fragments(rng, "I'll make those changes to the files now."):
        delta = {"type": "text_delta", "text": piece}
        reads.append(ev("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}))
    reads.append(ev("content_block_stop", {"type": "content_block_stop", "index": 0}))
    for offset, call in enumerate(calls):
        index = offset + 1
        block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        reads.append(
            ev("content_block_start", {"type": "content_block_start", "index": index, "content_block": block})
        )
        for piece in ["", *_pieces(rng, _dump(call.arguments), live)]:
            delta = {"type": "input_json_delta", "partial_json": piece}
            reads.append(
                ev("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
            )
        reads.append(ev("content_block_stop", {"type": "content_block_stop", "index": index}))
    reads.append(
        ev(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": len(reads)},
            },
        )
    )
    reads.append(ev("message_stop", {"type": "message_stop"}))
    key, wire = _names("anthropic", n_calls, args_bytes, live)
    return Stream(
        key,
        wire,
        "anthropic",
        "sse",
        n_calls,
        args_bytes,
        tuple(reads),
        tuple(calls),
    )


# -- Ollama ------------------------------------------------------------------------------


def ollama_stream(n_calls: int, args_bytes: int, seed: int = 1) -> Stream:
    """Ollama /api/chat NDJSON: text tokens, every call whole in one line, then ``done``."""
    rng = random.Random(seed)
    calls = _calls(rng, n_calls, args_bytes, "call_", 8)

    def line(message: dict[str, Any], **extra: Any) -> bytes:
        obj = {"model": "qwen3:8b", "created_at": "2025-11-13T09:12:44.518372Z", "message": message}
        obj.update(extra)
        return _encode(obj) + b"\n"

    reads = [
        line({"role": "assistant", "content": piece}, done=False)
        for piece in split_fragments(rng, "Let me write those files for you; this takes a moment.")
    ]
    tool_calls = [
        {"id": call.id, "function": {"index": index, "name": call.name, "arguments": call.arguments}}
        for index, call in enumerate(calls)
    ]
    reads.append(line({"role": "assistant", "content": "", "tool_calls": tool_calls}, done=False))
    reads.append(
        line(
            {"role": "assistant", "content": ""},
            done=True,
            done_reason="stop",
            total_duration=4_883_583_458,
            load_duration=1_334_875,
            prompt_eval_count=812,
            prompt_eval_duration=141_000_000,
            eval_count=len(reads),
            eval_duration=4_700_000_000,
        )
    )
    return Stream(
        f"ollama-{n_calls}x{_size_name(args_bytes)}",
        "ollama",
        "ollama",
        "ndjson",
        n_calls,
        args_bytes,
        tuple(reads),
        tuple(calls),
    )


# -- plain text with fences --------------------------------------------------------------


def _markdown_paragraph(rng: random.Random) -> str:
    kind = rng.randrange(5)
    if kind == 0:
        body = "\n".join(_code_line(rng) for _ in range(rng.randint(3, 12)))
        return f"```python\n{body}\n```\n\n"
    if kind == 1:
        return f"- {_words(rng, 8)} `{_ident(rng)}`\n- ~~{_words(rng, 3)}~~ {_words(rng, 6)}\n\n"
    if kind == 2:
        return f"Costs ~{rng.randint(2, 90)} ms, roughly ~ {_words(rng, 12)}.\n\n"
    return f"{_words(rng, rng.randint(20, 60)).capitalize()}.\n\n"


def text_fence_stream(
    total_bytes: int = 1 << 20,
    args_bytes: int = 4096,
    every: int = 64 << 10,
    read_size: int = 4,
    seed: int = 1,
) -> Stream:
    """A plain text stream of ``total_bytes``: markdown with a fenced call every ``every`` bytes."""
    rng = random.Random(seed)
    ids = fence_ids()
    parts: list[str] = []
    calls: list[Call] = []
    size = 0
    next_fence = every // 2
    while size < total_bytes:
        if size >= next_fence:
            call = Call(ids(), rng.choice(_TOOL_NAMES), make_arguments(rng, args_bytes))
            calls.append(call)
            part = FENCE_OPEN + _dump({"name": call.name, "arguments": call.arguments}) + FENCE_CLOSE + "\n"
            next_fence += every
        else:
            part = _markdown_paragraph(rng)
        parts.append(part)
        size += len(part.encode())
    data = "".join(parts).encode()
    reads = tuple(data[i : i + read_size] for i in range(0, len(data), read_size))
    return Stream(
        f"text-{_size_name(total_bytes)}-{read_size}B-reads",
        "text-fence",
        "text",
        "text",
        len(calls),
        args_bytes,
        reads,
        tuple(calls),
        detect=True,
    )


# -- helpers -------------------------------------------------------------------------------


def _size_name(n: int) -> str:
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20}MB"
    if n >= 1_000_000 and n % 1_000_000 == 0:
        return f"{n // 1_000_000}MB"
    if n >= 1000 and n % 1000 == 0:
        return f"{n // 1000}KB"
    return f"{n}B"


def coalesce(stream: Stream, low: int = 1024, high: int = 4096, seed: int = 7) -> tuple[bytes, ...]:
    """The same bytes as reads of ``low``..``high`` bytes, as a busy socket delivers them."""
    rng = random.Random(seed)
    data = stream.data
    out = []
    pos = 0
    while pos < len(data):
        step = rng.randint(low, high)
        out.append(data[pos : pos + step])
        pos += step
    return tuple(out)


def sse_events(stream: Stream) -> list[tuple[str | None, bytes]]:
    """(event name, data payload) of each SSE event in a generated stream.

    The generator writes one event per read with ``data:`` on one line, so
    this needs none of SSE's generality; used to build the SDKs' decoded
    objects before timing.
    """
    out = []
    for read in stream.reads:
        name = None
        data = b""
        for line in read.split(b"\n"):
            if line.startswith(b"event: "):
                name = line[7:].decode()
            elif line.startswith(b"data: "):
                data = line[6:]
        out.append((name, data))
    return out
