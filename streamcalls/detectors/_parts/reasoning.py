"""Reasoning written in the text between tags: ``<think>...</think>`` and its kin.

A model served without a reasoning parser writes its reasoning into the text, between an
opening and a closing tag (Qwen3, the DeepSeek-R1 distills and ERNIE write ``<think>``, Seed-OSS
``<seed:think>``, Cohere's Command models ``<|START_THINKING|>``).  A :class:`Reasoning` format
declares its tag pairs; what stands between them comes out as
:class:`~streamcalls.ReasoningDelta`, as it arrives, and is never searched for calls -- the
detector consumes it, so no trigger is looked for inside it (markup quoted in reasoning is not a
call).  The tags are the framing that holds the reasoning (rule 8: they vanish as Harmony's
headers do, and nothing else does).

An opening tag counts at the start of the text or of a line.  The reasoning ends at its closing
tag; the text ending first ends it (cut off: reasoning still, no error).  A format whose message
is made of sections may also name *boundaries*: the next section's opener, which ends the
reasoning when its closing tag is missing, and is not consumed (Kimi K3's response and tools
sections).  The answer begins after the closing tag, so a line starts there:
``</think>[{"name": ...}]`` is a bare call list at a line's start.

A format whose template writes the opening tag into the prompt (``opens_text``) starts inside
reasoning: everything up to the first closing tag is reasoning, and with no closing tag at all
the whole text is -- as vLLM's and SGLang's reasoning parsers read such models.  An opening tag
the model writes anyway at the very start is framing too.  This needs the format on from the
text's first character (``detect=`` or ``model=``, not a model name the stream gives later).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any, ClassVar

from .._engine.detector import Detector, Hold, Trigger
from .._engine.machine import Status, fast
from .._engine.tokens import Seen, Tokens, literal_prefix_at

__all__ = ("Reasoning",)


class Reasoning(Detector):
    """Reasoning between tags; subclasses declare ``tags`` (each opening tag, and its closing tag)."""

    class State(IntEnum):
        OPENING = 0  # at the start of a text that starts inside reasoning: an opening tag written anyway?
        INSIDE = 1  # reasoning, up to the closing tag

    tags: ClassVar[Mapping[str, str]]  # {"<think>": "</think>"}: a module constant, declared once
    # Per opening tag, the tokens that end its reasoning without being consumed (another section).
    boundaries: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    ends_line = True  # the answer begins after the closing tag: a line starts there
    _openers: ClassVar[tuple[str, ...]]
    _closers: ClassVar[Tokens]
    _ends: ClassVar[dict[str, Tokens]]
    _boundary: ClassVar[frozenset[str]]

    __slots__ = ("_closer",)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        tags = cls.__dict__.get("tags")
        if tags is None:
            return
        cls.triggers = tuple(Trigger.literal(opener, line_start=True) for opener in tags)
        cls.holds = tuple(Hold.literal(opener, line_start=True) for opener in tags)
        cls._openers = tuple(tags)
        boundaries = cls.boundaries
        cls._ends = {opener: Tokens((closer, *boundaries.get(opener, ()))) for opener, closer in tags.items()}
        cls._boundary = frozenset(token for tokens in boundaries.values() for token in tokens)
        cls._closers = Tokens(tuple(dict.fromkeys((*tags.values(), *cls._boundary))))

    def begin(self, trigger: str) -> None:
        if trigger:
            self._closer = self._ends[trigger]
            self.start(_S.INSIDE)
        else:  # the text starts inside reasoning: any closing tag ends it
            self._closer = self._closers
            self.start(_S.OPENING)

    def _opening(self, text: str, pos: int) -> int:
        found = literal_prefix_at(text, pos, self._openers)
        if found == Seen.WAIT:
            return pos  # maybe the opening tag: wait
        self._state = _S.INSIDE
        if found >= 0:  # written anyway: framing, and its own closing tag ends the reasoning
            opener = self._openers[found]
            self._closer = self._ends[opener]
            return pos + len(opener)
        return pos

    def _inside(self, text: str, pos: int) -> int:
        cut, found = self._closer.find(text, pos)
        self.content(text, pos, cut, reasoning=True)
        if found is None:
            return cut
        if found.group() in self._boundary:  # the next section: the reasoning ends before it
            return self.stop(cut)
        return self.stop(found.end())

    def finish(self, rest: str) -> str:
        self.status = _Status.DONE
        self.content(rest, 0, len(rest), reasoning=True)  # the text ended inside the reasoning
        return ""


_S = fast(Reasoning.State)
_Status = fast(Status)
