"""Text detectors: tool calls that models write into their text.

One detector per format, enabled by name through ``StreamParser(detect=...)``:

- ``"fence"``: ``~~~tool_call`` fences, the project's prompt protocol;
- ``"json"``: a bare JSON call object (or an array of them, or one in a
  ```` ```json ```` block) at the start of a line;
- ``"hermes"``: Hermes / Qwen ``<tool_call>...</tool_call>``;
- ``"mistral"``: ``[TOOL_CALLS][...]`` and ``[TOOL_CALLS]name[ARGS]{...}``;
- ``"llama"``: Llama 3.x ``<|python_tag|>`` and bare ``{"name", "parameters"}``;
- ``"deepseek"``: DeepSeek V3 / V3.1 ``<｜tool▁calls▁begin｜>`` tokens;
- ``"harmony"``: OpenAI gpt-oss's Harmony messages (``analysis`` is
  reasoning, ``final`` text, a message ``to=functions.NAME`` a call);
- ``"kimi"``: Kimi K2 ``<|tool_calls_section_begin|>`` tokens;
- ``"pythonic"``: Llama 3.2 / 4 ``[get_weather(city="Paris")]`` call lists;
- ``"qwen3_coder"``: Qwen3-Coder / Qwen3.5 ``<tool_call><function=...><parameter=...>``;
- ``"glm"``: GLM-4.5 to 4.7 ``<tool_call>name<arg_key>...<arg_value>...``;
- ``"minimax"``: MiniMax-M2 ``<minimax:tool_call><invoke name=...><parameter name=...>``;
- ``"seed_oss"``: Seed-OSS ``<seed:tool_call><function=...><parameter=...>``;
- ``"step3"``: Step3 ``<｜tool_calls_begin｜>`` sections of ``<steptml:invoke name=...>``;
- ``"minimax_m3"``: MiniMax M3's namespaced ``<invoke>`` elements;
- ``"minicpm5"``: MiniCPM 5 ``<function name=...><param name=...>``;
- ``"kimi_k3"``: Kimi K3's ``<|open|>tools<|sep|>`` sections (and its message framing);
- ``"olmo3"``: Olmo 3 ``<function_calls>`` with a Python call per line;
- ``"lfm2"``: LFM2 ``<|tool_call_start|>[f(a=1)]<|tool_call_end|>``;
- ``"gemma4"``: Gemma 4 ``<|tool_call>call:f{k:<|"|>v<|"|>}<tool_call|>``;
- ``"functiongemma"``: FunctionGemma ``<start_function_call>call:f{k:<escape>v<escape>}``.

The package is three layers, each importing only those before it:

- ``_engine/``: the engine -- one state machine (an ``IntEnum`` of states per detector, one step
  each, one loop), what a detector is, the markup record that keeps rule 8, the one trigger
  search, the text channel, openers shared by several formats, the tools' parameter types;
- ``_parts/``: the shared parts formats are built from -- call objects and runs of them, JSON
  arguments, delimited blocks, JSON calls between tokens, the typed XML parameter rules and the
  tag formats, Python-literal arguments and call lists, reasoning between tags;
- ``formats/``: one small module per format, declared on the engine and its parts.

Formats that write values as bare text are typed by the tools' parameter schemas
(:mod:`._parts.values`) and streamed as the arguments' JSON (:mod:`._parts.xmlparams`).
Formats that share an opener (``<tool_call>``: ``hermes``, ``qwen3_coder``, ``glm``) share it
when several are on: what follows the opener picks the format (:mod:`._engine.shared`).

Every detector is built the same way, by :func:`build_channel`:
``cls(calls, tools, out, types)`` -- the parser's call assembler, the tool
names ``tools=`` gave (or None), the list the channel's events go to, and the
tools' parameter types.

The rule every detector keeps (issue 12, rule 8): malformed markup always
fails visibly, and no character of the text is lost.

*Conservation.*  The text channel's input equals, in order, the text of its
``TextDelta`` (and ``ReasoningDelta``) events and the ``raw`` of its failed
calls, where only this may stand in between:

- at a ``ToolCallCompleted``: the completed call's markup -- everything from
  where the text or the previous call's markup ended to where the next text
  or failed call begins (delimiters, separators, closing tokens);
- after a ``ToolCallFailed`` whose error names a size limit
  (``max_arguments_bytes``, ``max_buffered_bytes``, ``max_json_depth``): the
  rest of that call's markup, counted and dropped (its value is followed to
  its end in constant memory); its ``raw`` is its markup up to the limit;
- once ``max_calls`` is exceeded: the markup of every call dropped after it;
- around text or reasoning a detector emits from inside its markup
  (Harmony's messages): the framing that holds it -- a message's header and
  its end token.

So a failed call's ``raw`` is exactly the markup it consumed, delimiters
included: from its trigger (or from where the previous call's markup ended)
to where its markup ended -- where the next call's markup begins, or where
the detector stopped.  Markup that holds no call (a marker with nothing
after it) fails as a nameless call with that markup as ``raw``.  Besides the
arguments, a ``raw`` holds at most ``max_arguments_bytes`` characters; one cut
there says so in its error, which then names the limit.

*Commitment.*  A candidate (a bare JSON object or array, a ```` ```json ````
block, a ``<|python_tag|>`` before its ``{``) starts no call, and if it is
not markup after all its text comes back unchanged.  A call starts
(``ToolCallStarted``) only once the markup shows it: a bare object when both
its valid name and its arguments' first character (or its closing brace)
have arrived; a Mistral name once ``[ARGS]``, ``[CALL_ID]`` or ``{`` follows
it.  A call that fails before it has a name starts, nameless, together with
its failure.  No text comes between a call's start and its end.

A detector keeps the rule by construction: the channel records what each
``feed`` consumes into the detector's ``markup``
(:mod:`._engine.markup`), and the detector opens its calls
there, marks where arguments begin and end and where a run's next call
begins, and fails through it.  ``tests/support/conservation.py`` checks the rule from
the events alone, on every fuzz input (any provider's text) and in property
tests over every registered detector.

May import: the core's leaf modules (events, errors, the call assembler, the
tools' definitions, the model families), and the native path's switch
(``streamcalls._native``, whose C occurrence test the trigger search uses where
it is built).  Never framing, a provider, the parser, the codec or anything
that does I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .._emitter import Emitter
from .._models import detectors_for_model
from .._tooldefs import read_tools
from ._engine.channel import TextChannel
from ._engine.detector import Detector
from ._engine.tools import NO_TOOLS, ToolTypes
from .formats import FORMATS

__all__ = ("DEFAULT_DETECT", "DETECTORS", "TextChannel", "build_channel", "default_detect", "follow_model")

DETECTORS: dict[str, type[Detector]] = {cls.name: cls for cls in FORMATS}
# What a stream gets by default: the project's fences and bare JSON.
DEFAULT_DETECT: tuple[str, ...] = ("fence", "json")


def default_detect(model: str | None, *, bare_json: bool = True) -> tuple[str, ...]:
    """The detectors a stream gets without ``detect=``: the defaults, and its model family's.

    ``bare_json=False``: without ``"json"`` (the fallback policy decides, see
    :mod:`streamcalls._policy`).
    """
    base = DEFAULT_DETECT if bare_json else tuple(name for name in DEFAULT_DETECT if name != "json")
    if not model:
        return base
    return base + tuple(name for name in detectors_for_model(model) if name not in base)


def build_channel(
    emit: Emitter,
    detect: Sequence[str],
    tools: Iterable[Any] | None,
    *,
    fallback: bool,
) -> TextChannel:
    """The text channel running the ``detect`` detectors, writing into ``emit``; ``tools`` as given
    to the parser."""
    definitions = None if tools is None else read_tools(tools)
    names = None if definitions is None else frozenset(d.name for d in definitions)
    types = ToolTypes(definitions) if definitions else NO_TOOLS
    return TextChannel(emit, detect, registry=DETECTORS, tools=names, types=types, fallback=fallback)


def follow_model(channel: TextChannel) -> Callable[[str], None]:
    """What the model name a stream carries does: its family's detectors join the channel's.

    From then on only: the text already released stays as it was.  The defaults
    run already (bare JSON or not, as the fallback policy decided): only the
    family's detectors are added.
    """

    def named(model: str) -> None:
        channel.add(detectors_for_model(model))

    return named
