"""A call's arguments written as JSON in the markup, fed to the call assembler as they arrive.

The arguments' JSON goes straight to the :class:`~streamcalls._calls.CallAssembler`, whose
resumable scanner finds its end at C speed and emits the raw text as ``ToolCallDelta``
fragments; the detector only learns where the value ended (:func:`feed_arguments`).  Formats
whose arguments may also end at a token of theirs (Harmony's, Kimi's: the token ends them
whatever they hold) feed them up to that token (:func:`arguments_until`).
"""

from __future__ import annotations

from enum import IntEnum

from ..._call import OPEN, Call
from ..._calls import CallAssembler
from .._engine.detector import Detector
from .._engine.machine import fast
from .._engine.tokens import Tokens

__all__ = ("Ended", "arguments_until", "cut_off", "feed_arguments")


def feed_arguments(calls: CallAssembler, call: Call, text: str, pos: int) -> int:
    """Feed ``text[pos:]`` to a call's arguments: where their value ended in
    ``text``, or -1 while it goes on past it (open, or counted on after a limit)."""
    rest = calls.feed(call, text[pos:] if pos else text)
    if not call.closed_json and (call.status == OPEN or call.draining):
        return -1
    return pos + rest if rest >= 0 else len(text)


def cut_off(detector: Detector, call: Call, rest: str) -> None:
    """The text ended inside ``call``'s arguments: feed them ``rest`` and fail the call."""
    detector.calls.feed(call, rest)
    detector.markup.fail("the arguments were cut off (the text ended inside them)", call)


class Ended(IntEnum):
    """How :func:`arguments_until` stopped."""

    MORE = 0  # at the end of the text (or of what it may take yet): more may come
    CLOSED = 1  # the arguments' JSON closed
    BOUNDARY = 2  # a token ended them first; the call was ended there


_E = fast(Ended)


def arguments_until(
    detector: Detector, call: Call, text: str, pos: int, *, tokens: Tokens
) -> tuple[int, Ended, str]:
    """Feed a call's arguments from ``pos`` up to the next of ``tokens`` (tokens that end
    arguments whatever they hold, such as Harmony's and Kimi's).

    Returns where it stopped, how, and, for BOUNDARY, the token (not consumed).

    A possible start of a token at the text's end is left for the next text.  A token that
    comes before the JSON closed ends the call there (``CallAssembler.end``: a number fails as
    not an object, an open object as truncated).
    """
    found = tokens.pattern.search(text, pos)
    if found is not None:
        cut = found.start()
    else:  # (Tokens.find, inlined: this runs for every piece of a call's arguments)
        held = tokens.hold.search(text, max(pos, len(text) - tokens.window))
        cut = held.start() if held is not None else len(text)
    stop = feed_arguments(detector.calls, call, text[:cut], pos) if cut > pos else -1
    markup = detector.markup
    if stop >= 0:
        markup.after_arguments(stop)
        return stop, _E.CLOSED, ""
    if found is None:
        return cut, _E.MORE, ""
    markup.after_arguments(cut)
    if call.status == OPEN:
        detector.calls.end(call)
    return cut, _E.BOUNDARY, found.group()
