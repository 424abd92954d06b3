"""What a reader finds in a complete response: :class:`Found`, its steps, calls and thoughts.

:mod:`._readers` fills one per response; :func:`~streamcalls.extract` takes its
calls, and :mod:`._nonstream` reports its steps as the events of a stream.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ("BREAK", "CALL", "REASONING", "SIGNATURE", "TEXT", "Found", "Native", "Thought", "text_or_none")


class Native(NamedTuple):
    """A call as the provider sent it: nothing checked yet."""

    id: Any
    name: Any
    arguments: Any
    has_arguments: bool  # False: the key was absent (Gemini's call without arguments)
    entry: dict[str, Any]  # the object that held the call, to show when it is malformed
    signature: str | None = None  # Gemini 3's thoughtSignature, where the provider sent one


class Thought(NamedTuple):
    """One block of reasoning, as the provider sent it (see :class:`~streamcalls.ReasoningPart`)."""

    text: str
    kind: str | None = None
    signature: str | None = None
    redacted: str | None = None
    encrypted: str | None = None
    id: str | None = None
    format: str | None = None


# What one of Found.steps is: (TEXT, str), (REASONING, Thought), (CALL, Native),
# (SIGNATURE, str) for a signature on the text before it (Gemini), or
# (BREAK, None) where a run of text ends (a block or message boundary, a call).
TEXT = 0
REASONING = 1
CALL = 2
BREAK = 3
SIGNATURE = 4


def text_or_none(value: object) -> str | None:
    """A non-empty string, or None."""
    return value if isinstance(value, str) and value else None


class Found:
    __slots__ = (
        "_run",
        "finish_reason",
        "model",
        "natives",
        "problems",
        "response_id",
        "steps",
        "texts",
        "usage",
    )

    def __init__(self) -> None:
        self.natives: list[Native] = []
        self.texts: list[str] = []  # one per run of consecutive text
        self.steps: list[tuple[int, Any]] = []  # everything, in the response's order
        self.finish_reason: Any = None  # the provider's own word
        self.usage: Any = None  # the provider's usage object
        self.model: str | None = None
        self.response_id: str | None = None
        self.problems: list[tuple[str, str]] = []  # (message, what it was): ParseErrors, for what is left out
        self._run: list[str] = []

    def names(self, model: object, response_id: object) -> None:
        self.model = text_or_none(model)
        self.response_id = text_or_none(response_id)

    def text(self, text: object) -> None:
        if isinstance(text, str) and text:
            self._run.append(text)
            self.steps.append((TEXT, text))

    def reasoning(
        self,
        text: object,
        kind: str | None = None,
        *,
        signature: object = None,
        redacted: object = None,
        encrypted: object = None,
        id: object = None,
        format: object = None,
    ) -> None:
        """One block of reasoning; one without text counts only if it carries something."""
        thought = Thought(
            text if isinstance(text, str) else "",
            kind,
            text_or_none(signature),
            text_or_none(redacted),
            text_or_none(encrypted),
            text_or_none(id),
            text_or_none(format),
        )
        if thought.text or thought[2:6] != (None, None, None, None):
            self.steps.append((REASONING, thought))

    def signature(self, signature: object) -> None:
        """A signature on the text before it (Gemini's signed text part)."""
        if text_or_none(signature) is not None:
            self.end_text()
            self.steps.append((SIGNATURE, signature))

    def end_text(self) -> None:
        if self._run:
            self.texts.append("".join(self._run))
            self._run = []
            self.steps.append((BREAK, None))

    def call(self, call_id: Any, name: Any, holder: dict[str, Any], key: str, signature: Any = None) -> None:
        self.end_text()
        signed = signature if isinstance(signature, str) and signature else None
        native = Native(call_id, name, holder.get(key), key in holder, holder, signed)
        self.natives.append(native)
        self.steps.append((CALL, native))

    def done(self) -> Found:
        self.end_text()
        return self
