"""Liquid AI LFM2 and LFM2.5 tool calls (``source="lfm2"``).

What the template writes: a Python-style call list between two tokens::

    <|tool_call_start|>[get_weather(city='Paris', days=3), get_time()]<|tool_call_end|>

- Keyword arguments whose values are Python literals (read by
  :mod:`~streamcalls.detectors._parts.pyliteral`, never evaluated); the template writes mappings
  as JSON, so ``true``, ``false`` and ``null`` are read too (``True``, ``False``, ``None``).
- ``<|tool_call_start|>`` is explicit markup: the first name and ``(`` after it are a call,
  whatever it holds; an element that is not all literals fails alone and the list goes on.
- Each call completes at its ``)``; ``,``, ``]`` and ``<|tool_call_end|>`` are markup.  The
  Thinking models reason in ``<think>`` (the ``think`` detector).  The machine is
  :mod:`~streamcalls.detectors._parts.pycalls`.
"""

from __future__ import annotations

from .._parts.pycalls import PythonCalls

__all__ = ("Lfm2Detector",)


class Lfm2Detector(PythonCalls):
    name = "lfm2"
    opener = "<|tool_call_start|>"
    closer = "<|tool_call_end|>"
    opener_commits = True
    json_literals = True

    __slots__ = ()
