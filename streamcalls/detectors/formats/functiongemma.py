"""Google FunctionGemma tool calls (``source="functiongemma"``).

What the renderer writes for a call (the model writes the same)::

    <start_function_call>call:get_weather{city:<escape>Paris<escape>,days:3}<end_function_call>

- Gemma 4's notation with other tokens (:mod:`~streamcalls.detectors._parts.bracedargs`): strings
  between ``<escape>`` tokens are always strings (``<escape>42<escape>`` is ``"42"``), numbers and
  ``true`` / ``false`` / ``null`` / ``None`` bare, objects in ``{}``, arrays in ``[]``; a bare word
  fails the call.
- A call completes at the ``}`` that closes its arguments; ``<end_function_call>`` and a
  ``<start_function_response>`` right after it are its markup.  FunctionGemma writes no
  reasoning.  The machine is :mod:`~streamcalls.detectors._parts.bracedcalls`.
"""

from __future__ import annotations

from .._parts.bracedcalls import BracedCalls

__all__ = ("FunctionGemmaDetector",)


class FunctionGemmaDetector(BracedCalls):
    name = "functiongemma"
    opener = "<start_function_call>"
    closer = "<end_function_call>"
    after = ("<start_function_response>",)
    quote = "<escape>"

    __slots__ = ()
