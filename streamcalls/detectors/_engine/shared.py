"""One opener, several formats: what follows it decides which format reads the region.

Several formats open with the same token (a vocabulary token their model families share), and
what comes after it tells them apart -- ``<tool_call>`` today::

    <tool_call>\\n{"name": ...}             hermes       (Hermes, Qwen2.5, Qwen3)
    <tool_call>\\n<function=get_weather>    qwen3_coder  (Qwen3-Coder, Qwen3.5)
    <tool_call>get_weather\\n<arg_key>      glm          (GLM-4.5 to 4.7)

A format that may share its opener declares it (:attr:`Detector.shares`) and its *claim*: the
literal that follows the opener, after blanks, in its markup (``{``, ``<function=``), or None
for a tool's name (a character that is no blank and none of ``{[<``).  With more than one
format of one opener enabled, :func:`~streamcalls.detectors.build_channel` puts one
:class:`SharedOpener` in their place: it owns the trigger, looks past the blanks after the
opener without consuming anything, and hands the region to the format whose claim follows.
When none does (or that format is not enabled), the enabled format of the lowest
``fallback_rank`` reads it (glm, then qwen3_coder, then hermes for ``<tool_call>``: the first
two give the text back when no call follows the opener, the opener alone failing; hermes
reads the block to its ``</tool_call>``).  Until it has decided it holds the text (at most
:data:`MAX_GAP` blanks and the longest claim), so the choice is the same for any chunking; the
formats share its markup record, retagged with the chosen format's name, so their calls carry
their own ``source``.  A format that has other triggers besides the shared opener (Granite's
``<|tool_call|>``, xLAM's ``[TOOL_CALLS]``) keeps them: a second reader of the same format
stands beside the shared opener for those.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from enum import IntEnum

from ..._calls import CallAssembler
from ..._emitter import Emitter
from .detector import Detector, prefixes
from .machine import Status, fast
from .tokens import Seen, literal_prefix_at
from .tools import ToolTypes

__all__ = ("MAX_GAP", "Plan", "SharedOpener", "build", "share")

MAX_GAP = 64  # blanks looked past after an opener (and between the XML formats' tags)
_GAP = re.compile(f"[ \\t\\r\\n]{{0,{MAX_GAP + 1}}}")
_NOT_A_NAME = "{[<"


class SharedOpener(Detector):
    """Owns an opener that several enabled formats share, and hands each region to one of them."""

    class State(IntEnum):
        CHOOSE = 0  # looking past the blanks after the opener
        READ = 1  # the chosen format reads the region

    name = "shared"

    __slots__ = ("_chosen", "_claims", "_first", "_formats", "_named", "_trigger")

    def __init__(
        self,
        calls: CallAssembler,
        tools: frozenset[str] | None,
        emit: Emitter,
        types: ToolTypes,
        *,
        formats: Sequence[Detector],
    ) -> None:
        super().__init__(calls, tools, emit, types)
        self._first = formats[0].name  # whose region it is until one is chosen
        self._formats = sorted(formats, key=lambda detector: type(detector).fallback_rank)
        self._claims = tuple(d for d in formats if d.claim is not None)
        self._named = next((d for d in formats if d.claim is None), None)  # claims a tool's name
        self._chosen: Detector | None = None
        self._trigger = ""

    def begin(self, trigger: str) -> None:
        self.markup.retag(self._first)
        # While it chooses, as committed as the format it falls back to (begun to tell: a choice
        # begins it afresh), and then as the chosen one: a format that gives an uncommitted opener
        # back as text (Granite's ``<tool_call>`` with no ``[`` after it) must find the channel
        # holding that text.
        fallback = self._formats[0]
        fallback.markup = self.markup  # (as a choice sets it: one record, whichever format reads)
        fallback.begin(trigger)
        self.start(_S.CHOOSE, committed=fallback.committed)
        self._chosen = None
        self._trigger = trigger

    def feed(self, text: str, pos: int) -> int:
        # A dispatcher: once it has chosen, the chosen format's own machine reads the region, and
        # the text goes straight to it (a loop around that loop would only call it again to see it
        # wait, for every piece of every value).
        if self._chosen is None:
            pos = self._choose(text, pos)
            if self._chosen is None:
                return pos
        return self._read(text, pos)

    def _choose(self, text: str, pos: int) -> int:
        if self._pick(text, pos, final=False) is None:
            return pos  # undecided: wait for more text
        self._state = _S.READ
        return pos

    def _read(self, text: str, pos: int) -> int:
        detector = self._chosen
        assert detector is not None
        stop = detector.feed(text, pos)
        self.status = detector.status
        self.committed = detector.committed
        return stop

    def finish(self, rest: str) -> str:
        detector = self._chosen or self._pick(rest, 0, final=True)
        assert detector is not None
        self.status = _Status.DONE
        return detector.finish(rest)

    def _pick(self, text: str, pos: int, *, final: bool) -> Detector | None:
        gap = _GAP.match(text, pos)
        assert gap is not None
        at = gap.end()
        chosen = None
        if at - pos <= MAX_GAP:
            if at == len(text):
                if not final:
                    return None
            else:
                found = literal_prefix_at(text, at, tuple(d.claim or "" for d in self._claims))
                if found == Seen.WAIT and not final:
                    return None
                if found >= 0:
                    chosen = self._claims[found]
                elif text[at] not in _NOT_A_NAME:
                    chosen = self._named
        detector = chosen or self._formats[0]
        self.markup.retag(detector.name)
        detector.markup = self.markup  # one record, whichever format reads the region
        detector.begin(self._trigger)
        self.committed = detector.committed
        self._chosen = detector
        return detector


# What a channel builds for one of its detectors: its class, and for a shared opener the classes
# of the formats that share it (else none).  A channel builds each one at its first region.
Plan = tuple[type[Detector], tuple[type[Detector], ...]]


@functools.lru_cache(maxsize=64)
def share(kinds: tuple[type[Detector], ...]) -> tuple[Plan, ...]:
    """The detectors of these classes to build, where those that share an opener stand as one
    :class:`SharedOpener` (at the place of the first of them) -- their classes, made once per set
    of classes: the channel builds its search from them before it builds any detector."""
    groups: dict[str, list[type[Detector]]] = {}
    for kind in kinds:
        if kind.shares:
            groups.setdefault(kind.shares, []).append(kind)
    out: list[Plan] = []
    for kind in kinds:
        group = groups.get(kind.shares) if kind.shares else None
        if group is None or len(group) == 1:
            out.append((kind, ()))
            continue
        if group[0] is kind:
            out.append((_opener(kind), tuple(group)))
        rest = _without_opener(kind)
        if rest is not None:
            out.append((rest, ()))
    return tuple(out)


def build(plan: Plan, emit: Emitter, tools: frozenset[str] | None, types: ToolTypes) -> Detector:
    """The detector ``plan`` says, for one channel writing into ``emit`` (its calls built with the
    emitter's call half)."""
    kind, formats = plan
    if not formats:
        return kind(emit, tools, emit, types)
    assert issubclass(kind, SharedOpener)
    return kind(emit, tools, emit, types, formats=[member(emit, tools, emit, types) for member in formats])


def _without_opener(cls: type[Detector]) -> type[Detector] | None:
    """The same format for its other triggers and framing (Granite's ``<|tool_call|>`` beside the
    ``<tool_call>`` it shares), or None if the shared opener is all it has."""
    if cls in _REST:
        return _REST[cls]
    token = cls.shares
    triggers = tuple(t for t in cls.triggers if t.pattern != re.escape(token))
    kind = None
    if triggers or cls.framing:
        holds = tuple(h for h in cls.holds if h.pattern != prefixes(token))
        # A class of its own, as for the opener: the channel builds its search from the classes.
        kind = type(
            f"{cls.__name__}[without {token}]",
            (cls,),
            {"triggers": triggers, "holds": holds, "shares": "", "__slots__": ()},
        )
    _REST[cls] = kind
    return kind


def _opener(first: type[Detector]) -> type[SharedOpener]:
    kind = _OPENERS.get(first.shares)
    if kind is None:
        token = first.shares
        triggers = tuple(t for t in first.triggers if t.pattern == re.escape(token))
        holds = tuple(h for h in first.holds if h.pattern == prefixes(token))
        # A class of its own per token: the channel builds its search from the detectors'
        # classes, once per set of classes.
        kind = _OPENERS[token] = type(
            f"SharedOpener[{token}]", (SharedOpener,), {"triggers": triggers, "holds": holds, "__slots__": ()}
        )
    return kind


_OPENERS: dict[str, type[SharedOpener]] = {}
_REST: dict[type[Detector], type[Detector] | None] = {}
_S = fast(SharedOpener.State)
_Status = fast(Status)
