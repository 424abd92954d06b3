"""Text detectors: tool calls that models write into their text.

One detector per format, enabled by name through ``StreamParser(detect=...)``:

- ``"fence"``: ``~~~tool_call`` fences, the project's prompt protocol;
- ``"json"``: a bare JSON call object (or an array of them, or one in a
  ```` ```json ```` block) at the start of a line;
- ``"hermes"``: Hermes / Qwen ``<tool_call>...</tool_call>``;
- ``"mistral"``: ``[TOOL_CALLS][...]`` and ``[TOOL_CALLS]name[ARGS]{...}``;
- ``"llama"``: Llama 3.x ``<|python_tag|>`` and bare ``{"name", "parameters"}``;
- ``"deepseek"``: DeepSeek V3 / V3.1 ``<｜tool▁calls▁begin｜>`` tokens.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .._calls import CallAssembler
from .._errors import UsageError
from .._events import Event
from ._base import Detector
from ._channel import TextChannel
from .deepseek import DeepSeekDetector
from .fence import FenceDetector
from .hermes import HermesDetector
from .llama import LlamaDetector
from .mistral import MistralDetector
from .rawjson import JsonDetector

__all__ = ("DEFAULT_DETECT", "DETECTORS", "TextChannel", "build_channel", "tool_names")

DETECTORS: dict[str, type[Detector]] = {
    cls.name: cls
    for cls in (FenceDetector, JsonDetector, HermesDetector, MistralDetector, LlamaDetector, DeepSeekDetector)
}

# What a stream gets by default: the project's fences and bare JSON.
DEFAULT_DETECT: tuple[str, ...] = ("fence", "json")


def tool_names(tools: Iterable[Any] | None) -> frozenset[str] | None:
    """Tool names from names, dicts (``{"name"}`` or OpenAI's ``{"function": {"name"}}``) or objects with ``.name``."""
    if tools is None:
        return None
    names = set()
    for tool in tools:
        if isinstance(tool, str):
            names.add(tool)
        elif isinstance(tool, dict):
            name = tool.get("name") or (tool.get("function") or {}).get("name")
            if not isinstance(name, str):
                raise UsageError(f"a tool without a name: {tool!r:.100}")
            names.add(name)
        else:
            name = getattr(tool, "name", None)
            if not isinstance(name, str):
                raise UsageError(f"a tool without a name: {tool!r:.100}")
            names.add(name)
    return frozenset(names)


def build_channel(
    out: list[Event],
    calls: CallAssembler,
    detect: Sequence[str],
    tools: frozenset[str] | None,
    *,
    fallback: bool,
) -> TextChannel:
    detectors = []
    for name in detect:
        cls = DETECTORS.get(name)
        if cls is None:
            known = ", ".join(repr(n) for n in DETECTORS)
            raise UsageError(f"unknown detector {name!r}; expected some of {known}")
        detectors.append(cls(calls, tools))
    return TextChannel(out, detectors, fallback=fallback, max_candidate=calls.limits.max_arguments_bytes)
