"""The ``<tool_call>`` opener that ``hermes``, ``qwen3_coder`` and ``glm`` share.

All three formats open with ``<tool_call>`` (a vocabulary token of each model family), and what
comes after it tells them apart::

    <tool_call>\\n{"name": ...}             hermes       (Hermes, Qwen2.5, Qwen3)
    <tool_call>\\n<function=get_weather>    qwen3_coder  (Qwen3-Coder, Qwen3.5)
    <tool_call>get_weather\\n<arg_key>      glm          (GLM-4.5 to 4.7)

With more than one of them enabled, :func:`~streamcalls.detectors.build_channel` puts one
:class:`ToolCallTag` in their place: it owns the trigger, looks past the blanks after the
opener without consuming anything, and hands the region to the format the next character
names -- ``{`` hermes, ``<function=`` qwen3_coder, anything else (a name) glm.  When that
format is not enabled, the first enabled of glm, qwen3_coder, hermes reads it: the first two
give the text back when no call follows the opener (the opener alone fails), hermes reads the
block to its ``</tool_call>``.  Until it has decided it holds the text (at most
:data:`~._xmlcall.MAX_GAP` blanks and ``<function=``'s length), so the choice is the same for
any chunking; the formats share its markup record, retagged with the chosen format's name, so
their calls carry their own ``source``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .._calls import CallAssembler
from .._events import Event
from ._base import ACTIVE, DONE, Detector, Hold, Trigger, prefixes
from ._values import ToolTypes
from ._xmlcall import MAX_GAP, literal_prefix_at

__all__ = ("SHARED", "ToolCallTag")

SHARED = ("hermes", "qwen3_coder", "glm")  # the formats that open with <tool_call>
_FALLBACK = ("glm", "qwen3_coder", "hermes")
_FUNCTION = ("<function=",)
_GAP = re.compile(f"[ \\t\\r\\n]{{0,{MAX_GAP + 1}}}")


class ToolCallTag(Detector):
    name = "tool_call"
    triggers = (Trigger("<", re.escape("tool_call>")),)
    holds = (Hold(prefixes("<tool_call>"), "<"),)

    __slots__ = ("_active", "_formats", "_trigger")

    def __init__(
        self,
        calls: CallAssembler,
        tools: frozenset[str] | None,
        out: list[Event],
        types: ToolTypes,
        *,
        formats: Sequence[Detector],
    ) -> None:
        super().__init__(calls, tools, out, types)
        self._formats = {detector.name: detector for detector in formats}
        for detector in formats:
            detector.markup = self.markup  # one record, whichever format reads the region
        self._active: Detector | None = None
        self._trigger = ""

    def begin(self, trigger: str) -> None:
        self.status = ACTIVE
        self.committed = True
        self._active = None
        self._trigger = trigger

    def feed(self, text: str, pos: int) -> int:
        detector = self._active
        if detector is None:
            detector = self._choose(text, pos, final=False)
            if detector is None:
                return pos  # undecided: wait for more text
        stop = detector.feed(text, pos)
        self.status = detector.status
        return stop

    def finish(self, rest: str) -> str:
        detector = self._active or self._choose(rest, 0, final=True)
        assert detector is not None
        self.status = DONE
        return detector.finish(rest)

    def _choose(self, text: str, pos: int, *, final: bool) -> Detector | None:
        gap = _GAP.match(text, pos)
        assert gap is not None
        at = gap.end()
        format_name = None
        if at - pos <= MAX_GAP:
            if at == len(text):
                if not final:
                    return None
            elif text[at] == "{":
                format_name = "hermes"
            elif text[at] == "<":
                found = literal_prefix_at(text, at, _FUNCTION)
                if found == -2 and not final:
                    return None
                if found != -1:
                    format_name = "qwen3_coder"
            else:
                format_name = "glm"
        formats = self._formats
        detector = formats.get(format_name) if format_name else None
        if detector is None:
            detector = next(formats[name] for name in _FALLBACK if name in formats)
        self.markup.retag(detector.name)
        detector.begin(self._trigger)
        self._active = detector
        return detector
