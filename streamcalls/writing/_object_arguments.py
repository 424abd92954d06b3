"""Argument text for targets whose call input must be a JSON object (Anthropic's ``tool_use``, Bedrock's
``toolUse``).

Such a target streams a call's fragments once its text has opened ``{``.  Until then the leading whitespace
is held; text that opens anything else (a JSON string holding the object, say) is held back for good, and the
target writes the call's decoded arguments whole at its end.  One ``ObjectGate`` per written stream keeps
that state for every open call, by the call's index.
"""

from __future__ import annotations

__all__ = ["ObjectGate", "opens_object"]


def opens_object(text: str) -> bool | None:
    """Does argument text that starts with ``text`` open a JSON object?  None while it is only whitespace."""
    stripped = text.lstrip(" \t\r\n")
    return stripped[0] == "{" if stripped else None


class ObjectGate:
    """The fragments of calls whose text has not opened an object yet."""

    __slots__ = ("_held",)

    def __init__(self) -> None:
        self._held: dict[int, str | None] = {}  # call index -> its whitespace so far; None: opened no object

    def first(self, number: int, fragment: str) -> str | None:
        """What to write for call ``number``'s ``fragment`` before its object opened: the fragment with the
        whitespace held before it, once the two open an object; None while held, or for good once the text
        opened something else."""
        held = self._held.get(number, "")
        if held is None:  # it opened something else: the arguments come whole at its end
            return None
        text = held + fragment
        opens = opens_object(text)
        if opens is None:
            self._held[number] = text
            return None
        if not opens:
            self._held[number] = None
            return None
        self._held.pop(number, None)
        return text

    def forget(self, number: int) -> None:
        """Call ``number`` ended: drop what was held for it."""
        self._held.pop(number, None)
