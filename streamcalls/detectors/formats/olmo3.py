"""Ai2 Olmo 3 tool calls (``source="olmo3"``).

What the template writes: Python-style calls in ``<function_calls>``, one per line::

    <function_calls>get_weather(city="Paris", days=3)
    get_time()</function_calls>

- Keyword arguments whose values are Python literals (read by
  :mod:`~streamcalls.detectors._parts.pyliteral`, never evaluated); the template marshals values
  as JSON, so ``true``, ``false`` and ``null`` are read too (``True``, ``False``, ``None``).
- ``<function_calls>`` is explicit markup: the first name and ``(`` after it are a call, whatever
  it holds; a call that is not all literals (a positional argument, a name) fails alone and the
  next line goes on.  The line end between calls and ``</function_calls>`` are markup.
- Each call completes at its ``)``.  The Think models reason in ``<think>`` (the ``think``
  detector).  The machine is :mod:`~streamcalls.detectors._parts.pycalls`.
"""

from __future__ import annotations

from .._parts.pycalls import PythonCalls

__all__ = ("Olmo3Detector",)


class Olmo3Detector(PythonCalls):
    name = "olmo3"
    opener = "<function_calls>"
    closer = "</function_calls>"
    lines = True
    opener_commits = True
    json_literals = True

    __slots__ = ()
