"""The open-weight text formats of ``make bench``: streams full of calls, and prose under every detector.

``python -m benchmarks --formats`` runs only these rows.

- ``text-harmony``, ``text-kimi``, ``text-pythonic``, ``text-qwen3_coder``, ``text-glm``,
  ``text-minimax``, ``text-dsml``, ``text-think``, and the JSON-in-markup formats
  (``text-jamba``, ``text-internlm``, ``text-apertus``, ``text-cohere_command``,
  ``text-granite``, ``text-granite_fc``, ``text-phi4_mini``, ``text-xlam``, ``text-longcat``,
  ``text-nemotron``, ``text-gigachat``, ``text-functionary_v31``, ``text-functionary_v32``):
  a plain text stream (4-byte reads) of a short
  paragraph, then a call with
  about 4 KB of typed arguments (``streams.make_arguments``: strings, an int, a bool, null,
  arrays of objects), written as the format's chat template (or renderer) writes it, over and
  over, at 100 KB and 1 MB.  The parser gets the tools' schemas, so the calls must come out
  typed exactly as generated (the XML formats' values by the schemas, DSML's by its
  ``string`` attribute, the others by their own literals).  The same for round two's
  ``seed_oss``, ``step3``, ``minimax_m3``, ``minicpm5``, ``kimi_k3``, ``olmo3``, ``lfm2``, ``gemma4``
  and ``functiongemma`` (Kimi K3's values by their type attribute, Gemma's by their notation).
  ``text-think`` is reasoning
  between ``<think>`` tags (the paragraph again, holding a quoted call that must stay
  reasoning) before each Hermes call, read by ``think`` and ``hermes``.  Linear: the 1 MB
  stream may cost at most 11x the 100 KB one.  Each also runs under every detector (and its
  own, where it reads from the text's first character: functionary v3.2).
- ``text-prose``: 1 MB of markdown prose (code blocks with ``<``, ``[``, ``{``, strikethrough
  ``~~``) and no call, in 4-byte and 64 KiB reads: the default detectors against every
  registered detector on (but those that read from the text's first character:
  ``think_prompted``, which reads a whole text as reasoning and searches nothing, and
  ``functionary_v32``).  Target: every detector costs at most 1.3x the default, and the search
  does not grow with the number of formats (one scan per first character, literal triggers
  folded by prefix).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

from streamcalls.cli._floors import floor
from streamcalls.detectors import DETECTORS

from .contenders import Contender, Run, _streamcalls
from .report import Target, _find, _num, _ratio
from .runner import SAMPLE_S, Result, Settings
from .streams import _TOOL_NAMES, Call, Stream, _markdown_paragraph, _size_name, fence_ids, make_arguments

__all__ = (
    "FORMATS",
    "FORMAT_CONTENDERS",
    "NOT_BENCHED",
    "format_stream",
    "groups",
    "markdown_formats",
    "prose_stream",
    "targets",
)

# fxml formats: round two's XML-parameter, Python-call and custom-literal formats (render_fxml).
FXML_FORMATS = (
    "seed_oss",
    "step3",
    "minimax_m3",
    "minicpm5",
    "kimi_k3",
    "olmo3",
    "lfm2",
    "gemma4",
    "functiongemma",
)
# The registered detectors this table does not bench, and why; every other registered detector is
# a format of FORMATS, so a new one is benched (and render() fails until it can write its calls).
NOT_BENCHED = {
    "fence": "a default detector: the prose rows' baseline, and the fenced-text rows of make bench",
    "json": "a default detector: the prose rows' baseline",
    "hermes": "round one's format: the think rows read its calls",
    "mistral": "round one's format",
    "llama": "round one's format",
    "deepseek": "round one's format",
    "think_prompted": "reads the whole text as reasoning: no calls, no search",
    "answer": "an answer's tags: no calls",
}
# The formats, in the registry's order (the fuzz harness's too: tests/support/fuzzing.py).
FORMATS = tuple(name for name in DETECTORS if name not in NOT_BENCHED)
# The detectors a format's own rows run (its name, unless it needs a call format beside it).
OWN_DETECT = {"think": ("think", "hermes")}
SIZES = (100_000, 1_000_000)
PROSE_READS = (4, 64 << 10)
_PARAMETERS = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "description": {"type": "string"},
        "overwrite": {"type": "boolean"},
        "mode": {"type": "integer"},
        "max_lines": {"type": ["integer", "null"]},
        "tags": {"type": "array"},
        "edits": {"type": "array"},
        "content": {"type": "string"},
    },
}
TOOLS = [{"type": "function", "function": {"name": name, "parameters": _PARAMETERS}} for name in _TOOL_NAMES]


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def render(fmt: str, name: str, args: dict[str, Any], number: int = 0) -> str:
    """A call as the format's chat template or renderer writes it (gpt-oss's Harmony, Kimi K2,
    Llama 3.2, Qwen3-Coder, GLM-4.6, MiniMax-M2, DeepSeek-V3.2's DSML, Qwen3's reasoning then a
    Hermes call; the fxml formats: :func:`render_fxml`); ``number`` is the call's index, for Kimi's id."""
    if fmt in FXML_FORMATS:
        return render_fxml(fmt, name, args)
    if fmt == "harmony":
        return (
            "<|start|>assistant<|channel|>analysis<|message|>The user wants this done.<|end|>"
            f"<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>"
            f"{json.dumps(args, ensure_ascii=False)}<|call|>"
        )
    if fmt == "kimi":
        return (
            f"<|tool_calls_section_begin|><|tool_call_begin|>{kimi_id(name, number)}"
            f"<|tool_call_argument_begin|>{json.dumps(args, ensure_ascii=False)}<|tool_call_end|>"
            "<|tool_calls_section_end|>"
        )
    if fmt == "pythonic":
        return f"[{name}({', '.join(f'{key}={value!r}' for key, value in args.items())})]"
    if fmt == "qwen3_coder":
        params = "".join(f"<parameter={k}>\n{_value(v)}\n</parameter>\n" for k, v in args.items())
        return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"
    if fmt == "glm":
        params = "".join(
            f"<arg_key>{k}</arg_key>\n<arg_value>{_value(v)}</arg_value>\n" for k, v in args.items()
        )
        return f"<tool_call>{name}\n{params}</tool_call>"
    if fmt == "dsml":
        params = "".join(
            f'<｜DSML｜parameter name="{k}" string="{str(isinstance(v, str)).lower()}">{_value(v)}</｜DSML｜parameter>\n'
            for k, v in args.items()
        )
        return f'<｜DSML｜function_calls>\n<｜DSML｜invoke name="{name}">\n{params}</｜DSML｜invoke>\n</｜DSML｜function_calls>'
    if fmt == "think":
        call = json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
        quoted = '<tool_call>{"name": "not_a_call", "arguments": {}}</tool_call>'
        return f"<think>\nThe user wants this done; {quoted} would be wrong here.\n</think>\n\n<tool_call>\n{call}\n</tool_call>"
    if fmt in _JSON_FORMATS:
        return _json_format(fmt, name, args, number)
    if fmt != "minimax":
        raise ValueError(f"no renderer for the format {fmt!r}: write one, or name it in NOT_BENCHED")
    params = "".join(f'<parameter name="{k}">{_value(v)}</parameter>\n' for k, v in args.items())
    return f'<minimax:tool_call>\n<invoke name="{name}">\n{params}</invoke>\n</minimax:tool_call>'


_NS = "]<]minimax[>["
_KIMI_K3_TYPES = {
    bool: "boolean",
    int: "number",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


def _gemma(value: Any, quote: str) -> str:
    """A value in Gemma's own notation: bare keys, strings between quote tokens."""
    if isinstance(value, str):
        return quote + value + quote
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_gemma(v, quote)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_gemma(v, quote) for v in value) + "]"
    return json.dumps(value)


def render_fxml(fmt: str, name: str, args: dict[str, Any]) -> str:
    """A call as Seed-OSS, Step3, MiniMax M3, MiniCPM 5, Kimi K3, Olmo 3, LFM2, Gemma 4 or FunctionGemma
    write it (their chat templates, or their peers' tests where no template was read)."""
    if fmt == "seed_oss":
        # One line end on each side of a value is markup (the peers strip it): written, a value that
        # begins or ends with a line end comes back whole.
        params = "".join(f"<parameter={k}>\n{_value(v)}\n</parameter>\n" for k, v in args.items())
        return f"<seed:tool_call>\n<function={name}>\n{params}</function>\n</seed:tool_call>"
    if fmt == "step3":
        params = "".join(
            f'<steptml:parameter name="{k}">{_value(v)}</steptml:parameter>\n' for k, v in args.items()
        )
        return (
            f'<｜tool_calls_begin｜>\n<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="{name}">\n'
            f"{params}</steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>"
        )
    if fmt == "minimax_m3":  # arrays as JSON text leaves, as llama.cpp's grammar writes them
        elements = "".join(f"{_NS}<{k}>{_value(v)}{_NS}</{k}>" for k, v in args.items())
        return f'{_NS}<tool_call>\n{_NS}<invoke name="{name}">{elements}{_NS}</invoke>\n{_NS}</tool_call>'
    if fmt == "minicpm5":
        return (
            f'<function name="{name}">'
            + "".join(f'<param name="{k}">{_value(v)}</param>' for k, v in args.items())
            + "</function>"
        )
    if fmt == "kimi_k3":
        arguments = "".join(
            f'<|open|>argument key="{k}" type="{_KIMI_K3_TYPES.get(type(v), "null")}"<|sep|>{_value(v)}<|close|>argument<|sep|>'
            for k, v in args.items()
        )
        return f'<|open|>tools<|sep|><|open|>call tool="{name}" index="1"<|sep|>{arguments}<|close|>call<|sep|><|close|>tools<|sep|>'
    if fmt in ("olmo3", "lfm2"):
        call = f"{name}({', '.join(f'{key}={value!r}' for key, value in args.items())})"
        return (
            f"<function_calls>{call}</function_calls>"
            if fmt == "olmo3"
            else f"<|tool_call_start|>[{call}]<|tool_call_end|>"
        )
    if fmt == "gemma4":
        return "<|tool_call>call:" + name + _gemma(args, '<|"|>') + "<tool_call|><|tool_response>"
    return "<start_function_call>call:" + name + _gemma(args, "<escape>") + "<end_function_call>"


# The JSON-in-markup formats: (the text before the call object, the text after it), as their
# templates write them; the object is {"name", "arguments"} unless said otherwise.
_JSON_FORMATS = {
    "jamba": ("<tool_calls>[\n    ", "\n]</tool_calls>"),
    "internlm": ("<|action_start|><|plugin|>\n", "<|action_end|>"),
    "apertus": ("<|tools_prefix|>[", "]<|tools_suffix|>"),
    "cohere_command": ("<|START_ACTION|>\n[\n    ", "\n]\n<|END_ACTION|>"),
    "granite": ("<|tool_call|>[", "]"),
    "granite_fc": ("<function_call> ", ""),
    "phi4_mini": ("functools[", "]"),
    "xlam": ("[", "]"),
    "longcat": ("<longcat_tool_call>\n", "\n</longcat_tool_call>"),
    "nemotron": ("<TOOLCALL>[", "]</TOOLCALL>"),
    "gigachat": ("<|message_sep|>\n\nfunction call<|role_sep|>\n", ""),
    "functionary_v31": ("", "</function>"),
    "functionary_v32": ("", ">>>all\n"),
}


def _json_format(fmt: str, name: str, args: dict[str, Any], number: int) -> str:
    """A call in one of the JSON-in-markup formats (Jamba, InternLM2, Apertus, Cohere Command R7B,
    Granite 3, granite-20b-fc, Phi-4-mini, xLAM, LongCat, Nemotron Nano v2, GigaChat 3, functionary)."""
    before, after = _JSON_FORMATS[fmt]
    arguments = json.dumps(args, ensure_ascii=False)
    if fmt == "apertus":
        body = json.dumps({name: args}, ensure_ascii=False)
    elif fmt == "cohere_command":
        body = json.dumps(
            {"tool_call_id": str(number), "tool_name": name, "parameters": args}, ensure_ascii=False
        )
    elif fmt == "internlm":
        body = json.dumps({"name": name, "parameters": args}, ensure_ascii=False)
    elif fmt == "functionary_v31":
        body = f"<function={name}>{arguments}"
    elif fmt == "functionary_v32":
        body = f">>>{name}\n{arguments}"
    else:
        body = json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
    return before + body + after


def kimi_id(name: str, number: int) -> str:
    return f"functions.{name}:{number}"


def format_stream(
    fmt: str, total_bytes: int, args_bytes: int = 4096, read_size: int = 4, seed: int = 1
) -> Stream:
    """``total_bytes`` of text full of calls in ``fmt``, each after a short paragraph."""
    rng = random.Random(seed)
    ids = fence_ids()
    parts: list[str] = []
    calls: list[Call] = []
    size = 0
    while size < total_bytes:
        name = rng.choice(_TOOL_NAMES)
        # Kimi's and Cohere's ids are on the wire.
        call_id = (
            kimi_id(name, len(calls))
            if fmt == "kimi"
            else str(len(calls))
            if fmt == "cohere_command"
            else ids()
        )
        call = Call(call_id, name, make_arguments(rng, args_bytes))
        calls.append(call)
        part = _markdown_paragraph(rng) + render(fmt, call.name, call.arguments, len(calls) - 1) + "\n\n"
        parts.append(part)
        size += len(part.encode())
    data = "".join(parts).encode()
    reads = tuple(data[i : i + read_size] for i in range(0, len(data), read_size))
    key = f"text-{fmt}-{_size_name(total_bytes)}"
    return Stream(
        key, f"text-{fmt}", "text", "text", len(calls), args_bytes, reads, tuple(calls), detect=True
    )


def prose_stream(total_bytes: int = 1 << 20, read_size: int = 4, seed: int = 1) -> Stream:
    """``total_bytes`` of markdown prose and no call."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    while size < total_bytes:
        part = _markdown_paragraph(rng)
        parts.append(part)
        size += len(part.encode())
    data = "".join(parts).encode()
    reads = tuple(data[i : i + read_size] for i in range(0, len(data), read_size))
    key = f"text-prose-{_size_name(total_bytes)}-{_read_name(read_size)}-reads"
    return Stream(key, "text-prose", "text", "text", 0, 0, reads, (), detect=True)


def _read_name(size: int) -> str:
    return f"{size >> 10}KiB" if size >= 1024 else f"{size}B"


def _parse(stream: Stream, detect: tuple[str, ...] | None) -> Run:
    return _streamcalls(stream, detect=detect, tools=TOOLS)


_WIRES = frozenset(f"text-{fmt}" for fmt in FORMATS)


def _own(fmt: str) -> tuple[str, ...]:
    return OWN_DETECT.get(fmt, (fmt,))


# Every registered detector, but think_prompted, which reads a whole text as reasoning up to
# its closing tag (it makes no search at all).
_EVERY = tuple(name for name, kind in DETECTORS.items() if not kind.opens_text)
_FLOOR_TIMED = "bytes in: an incremental UTF-8 decode of each read, nothing else"


def _with_own(fmt: str) -> tuple[str, ...]:
    """Every detector, and the format's own even if it reads from the text's first character
    (functionary v3.2: its first segment opens the text)."""
    return _EVERY + tuple(name for name in _own(fmt) if name not in _EVERY)


FORMAT_CONTENDERS: tuple[Contender, ...] = (
    Contender(
        "formats-own",
        "streamcalls, the format's detector",
        "bytes in: detect=(the format,), tools= the schemas (values typed)",
        _WIRES,
        lambda s: _parse(s, _own(s.wire.removeprefix("text-"))),
        baseline="formats-own",
    ),
    Contender(
        "formats-every",
        "streamcalls, every detector",
        "bytes in: detect= every registered detector, tools= the schemas",
        _WIRES,
        lambda s: _parse(s, _with_own(s.wire.removeprefix("text-"))),
        baseline="formats-own",
    ),
    Contender(
        "prose-every",
        "streamcalls, every detector",
        "bytes in: detect= every registered detector, tools= the schemas",
        frozenset({"text-prose"}),
        lambda s: _parse(s, _EVERY),
        baseline="formats-default",
    ),
    Contender(
        "formats-default",
        "streamcalls, default detectors",
        "bytes in: the default detectors (fence and bare JSON)",
        frozenset({"text-prose"}),
        lambda s: _parse(s, None),
        baseline="formats-default",
    ),
    # The floor of these streams (an incremental UTF-8 decode of each read, timed in the same rounds):
    # the reference the regression guard compares every row above with.
    Contender(
        "floor",
        "floor: incremental UTF-8 decode",
        _FLOOR_TIMED,
        _WIRES,
        lambda s: floor(s.framing, s.reads),
        checked=False,
        baseline="formats-own",
    ),
    Contender(
        "floor",
        "floor: incremental UTF-8 decode",
        _FLOOR_TIMED,
        frozenset({"text-prose"}),
        lambda s: floor(s.framing, s.reads),
        checked=False,
        baseline="formats-default",
    ),
)
_FORMAT_WIRES = _WIRES | {"text-prose"}


def groups(quick: bool) -> list[tuple[str, Any, Settings]]:
    sizes = (10_000, 100_000) if quick else SIZES
    prose_bytes = (64 << 10) if quick else (1 << 20)
    settings = (
        Settings(min_runs=2, min_runs_fast=3, max_runs=5, budget_s=0.2)
        if quick
        else Settings(sample_s=SAMPLE_S)
    )
    out: list[tuple[str, Any, Settings]] = [
        (
            f"Text full of {fmt} calls, 4-byte reads",
            lambda fmt=fmt: [format_stream(fmt, n) for n in sizes],
            settings,
        )
        for fmt in FORMATS
    ]
    out.append(
        (
            "Prose, default detectors against every detector",
            lambda: [prose_stream(prose_bytes, read) for read in PROSE_READS],
            settings,
        )
    )
    return out


def markdown_formats(results: Sequence[Result]) -> str:
    lines = ["| stream | contender | runs | ms per stream | MB/s | ratio |", "|---|---|--:|--:|--:|--:|"]
    for r in results:
        if r.wire not in _FORMAT_WIRES:
            continue
        if not r.ok:
            lines.append(f"| {r.stream} | {r.label} | - | - | - | {r.note} |")
            continue
        lines.append(
            f"| {r.stream} | {r.label} | {len(r.runs)} | {_num(r.median * 1e3)} | {_num(r.mb_per_s)} | "
            f"{_ratio(r.ratio)} |"
        )
    return "\n".join(lines)


def targets(results: Sequence[Result]) -> list[Target]:
    out = []
    for fmt in FORMATS:
        small = _find(results, f"text-{fmt}-100KB", "formats-own")
        big = _find(results, f"text-{fmt}-1MB", "formats-own")
        if small is not None and big is not None and small.ok and big.ok:
            value = big.median / small.median
            out.append(
                Target(f"linear, text full of {fmt} calls", "1 MB ≤ 11× 100 KB", f"{value:.1f}×", value <= 11)
            )
    for read in PROSE_READS:
        stream = f"text-prose-1MB-{_read_name(read)}-reads"
        every, default = _find(results, stream, "prose-every"), _find(results, stream, "formats-default")
        if every is not None and default is not None and every.ok and default.ok:
            value = every.median / default.median
            shown = f"{value:.2f}× ({_num(every.mb_per_s)} against {_num(default.mb_per_s)} MB/s)"
            out.append(Target(f"prose, every detector, {stream}", "≤ 1.3× the default", shown, value <= 1.3))
    return out
