"""The fallback policy: which calls written in the text a stream reads when ``detect=`` is not given.

Explicit markup -- ``~~~tool_call`` fences, the tags and tokens of a model
family's format -- is a call wherever it appears: no prose looks like it by
accident.  A bare JSON object (``{"name": ..., "arguments": ...}`` at a line's
start, an array of them, one in a ```` ```json ```` block; also the bare
``{"name", "parameters"}`` of the ``llama`` detector) is different: a model
with native tool calls writes one in its prose only to show it ("your client
would send: {...}"), and reading that as a call would run a tool nobody
called.  So bare JSON is read only where a model writes its calls in text.
The policy is a table, first row first: ``detect=`` as named (the parser
then runs exactly those); then :func:`reads_bare_json`: ``native=False`` yes (the text is the protocol);
``native=True`` no (native calls are the protocol); a known hosted model
(:data:`HOSTED_MODELS`) no; a ``"text"``, OpenAI-compatible or Ollama stream
(:data:`BARE_JSON_PROVIDERS`) yes; Anthropic, Responses, Gemini, Bedrock (Converse and
InvokeModel) and Cohere streams no.  The guide has the table with its reasons
(docs/guide/calls-in-text.md, "The fallback policy"), and
tests/unit/test_fallback_policy.py walks it, row by row, against the parser.

The first row that applies decides; fences and the model family's detectors
(:func:`~streamcalls.detectors_for_model`) run in every row.  The model is
``model=``, else the one the stream names (an OpenAI-compatible stream's
``model``, Ollama's, a Responses ``response.created``), which comes in the
first record, before any text.  Under ``provider="auto"`` the provider is the
one detected, again before any text.  So :class:`DefaultDetection` decides
when the first text arrives (or at once, when the options already tell) and
builds the text channel then: no character waits for the decision, and none
is read under another policy than the one the stream's first record implies.
A model named only after the text began adds its family's detectors, and
leaves bare JSON as it was.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

from ._emitter import Emitter
from ._tooldefs import ToolDefinition, read_tools
from .detectors import TextChannel, build_channel, default_detect, follow_model

__all__ = (
    "BARE_JSON_PROVIDERS",
    "HOSTED_MODELS",
    "DefaultDetection",
    "has_native_calls",
    "reads_bare_json",
)

HOSTED_MODELS: tuple[tuple[str, str], ...] = (
    (r"gpt-(?:3\.5|[4-9])", "OpenAI's GPT-3.5, GPT-4, GPT-4o, GPT-4.1, GPT-5 (not gpt-oss, GPT-2, GPT-J)"),
    (r"chatgpt-", "OpenAI's ChatGPT models in the API (chatgpt-4o-latest)"),
    (r"o[1-9](?![0-9a-z])", "OpenAI's o-series: o1, o3, o3-mini, o4-mini"),
    (r"claude-", "Anthropic's Claude, on its API, Bedrock or Vertex"),
    (r"gemini-", "Google's Gemini (Gemma is open weights: not listed)"),
    (r"command-", "Cohere's Command R, R+, A (the open weights are named c4ai-command-*)"),
    (r"grok-(?:[2-9]|beta|code)", "xAI's Grok 2 and later on xAI's API"),
    (r"deepseek-(?:chat|reasoner)", "DeepSeek's API (its open weights are DeepSeek-V3, DeepSeek-R1, ...)"),
    (r"nova-(?:micro|lite|pro|premier)", "Amazon Nova, on Bedrock"),
)
"""Hosted models with native tool calls: (pattern, whose and why), matched ignoring case
at the start of the name's last ``/`` part or after a ``.`` or ``:`` in it (Bedrock's
``us.anthropic.claude-...``, OpenAI's fine-tunes ``ft:gpt-4o-mini:...``), so gateway
names (``openrouter/openai/gpt-4o``, ``models/gemini-2.5-flash``) match too.  Each is a
name only the provider's own API serves.  Not listed: Mistral's API, whose model names
are also those of its open weights (``devstral-small-2505``), which a server without a
tool parser may serve under the same name."""

_HOSTED = re.compile(r"(?:\A|(?<=[.:]))(?:" + "|".join(pattern for pattern, _ in HOSTED_MODELS) + ")", re.I)

BARE_JSON_PROVIDERS = frozenset({"text", "openai", "ollama"})
"""The providers whose streams may carry a model's calls as text: a raw text stream, and the
OpenAI-compatible and Ollama servers that serve open-weight models (with or without a tool
parser).  The others (Anthropic, Responses, Gemini, Bedrock, Cohere) are the providers' own
APIs, where every model has native calls."""


@functools.lru_cache(maxsize=256)
def has_native_calls(model: str) -> bool:
    """Is ``model`` a known hosted model with native tool calls (:data:`HOSTED_MODELS`)?"""
    return _HOSTED.search(model.rpartition("/")[2]) is not None


def reads_bare_json(provider: str | None, model: str | None, native: bool | None) -> bool:
    """Does a stream read bare JSON objects as calls by default?  ``provider`` is an adapter's
    name (None: not known), ``model`` the model's name (None: not known)."""
    if native is not None:
        return not native
    if model and has_native_calls(model):
        return False
    return provider in BARE_JSON_PROVIDERS


class DefaultDetection:
    """The text channel of a parser given no ``detect=``: built once the policy is known.

    ``provider`` is the adapter's name (None under ``provider="auto"``, until
    the emitter reports the one detected); ``model`` is ``model=``.  Without
    ``model=`` the stream's own model is followed (see the module docstring).
    """

    __slots__ = ("_definitions", "_emit", "_model", "_native", "_provider", "channel")

    def __init__(
        self,
        emit: Emitter,
        tools: Iterable[Any] | None,
        *,
        native: bool | None,
        model: str | None,
        provider: str | None,
    ) -> None:
        self._emit = emit
        self._native = native
        self._model = model
        self._provider = provider
        # Read now: a tool that is not one is the caller's mistake, reported by the constructor.
        self._definitions: list[ToolDefinition] | None = None if tools is None else read_tools(tools)
        self.channel: TextChannel | None = None
        follow = model is None
        if follow:
            emit.on_model = self
        if native is not None or (model is not None and has_native_calls(model)):
            self._build()  # the options decide
        elif provider is not None and not (follow and provider != "text" and provider in BARE_JSON_PROVIDERS):
            self._build()  # the provider decides, whatever model the stream names
        else:
            emit.text = self._first_text
            emit.on_provider = self

    def _first_text(self, text: str) -> None:
        self._build().push(text)

    def provider_found(self, name: str) -> None:
        self._provider = name

    def model_named(self, name: str) -> None:
        channel = self.channel
        if channel is None:
            self._model = name
        else:
            follow_model(channel)(name)

    def _build(self) -> TextChannel:
        emit = self._emit
        bare = reads_bare_json(self._provider, self._model, self._native)
        names = default_detect(self._model, bare_json=bare)
        channel = build_channel(emit, names, self._definitions, fallback=self._native is True)
        if not bare:
            channel.read_bare_json(False)  # the llama detector's bare {"name", "parameters"}
        emit.text = channel.push
        emit.text_end = channel.end
        emit.on_provider = None
        self.channel = channel
        return channel
