"""Google Gemma 4 tool calls (``source="gemma4"``).

What the chat template renders for a call (the model writes the same), calls one after another
with no separator, then the model's stop signal::

    <|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|><|tool_response>

- The arguments are Gemma's own notation (:mod:`~streamcalls.detectors._parts.bracedargs`): bare
  keys, strings between ``<|"|>`` tokens (every character up to the next one, verbatim), JSON
  numbers, ``true`` / ``false``, ``null`` and ``None`` (the template prints a null so), objects
  in ``{}`` and arrays in ``[]``.  The notation types the values, not the tools' schemas; a JSON
  string in double quotes is read as a string too; a bare word fails the call.
- A call completes at the ``}`` that closes its arguments; ``<tool_call|>`` and a
  ``<|tool_response>`` right after it are its markup.  ``call:NAME{...}`` without
  ``<|tool_call>`` is text.
- Reasoning is the thought channel, ``<|channel>thought`` and a line end up to ``<channel|>`` (the
  ``think`` detector).  The machine is :mod:`~streamcalls.detectors._parts.bracedcalls`.
"""

from __future__ import annotations

from .._parts.bracedcalls import BracedCalls

__all__ = ("Gemma4Detector",)


class Gemma4Detector(BracedCalls):
    name = "gemma4"
    opener = "<|tool_call>"
    closer = "<tool_call|>"
    after = ("<|tool_response>",)
    quote = '<|"|>'
    json_strings = True

    __slots__ = ()
