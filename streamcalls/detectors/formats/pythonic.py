"""Python-style call lists, as Llama 3.2 and Llama 4 write them (``source="pythonic"``).

::

    [get_weather(city="Paris", days=3), get_time()]
    <|python_start|>[get_weather(city="Paris")]<|python_end|>

A list of calls with keyword arguments whose values are Python literals (read by
:mod:`~streamcalls.detectors._parts.pyliteral`, never evaluated); the machine is
:mod:`~streamcalls.detectors._parts.pycalls`.

Prose is full of brackets, so a list is a call list only where Meta's prompts put one and only
once it shows a call's shape: its ``[`` opens a line (or the text, or follows
``<|python_start|>``), a name follows it straight away, then ``(`` and then ``)`` or a keyword
and ``=`` (not ``==``); with ``tools=``, the name must be one of them.  ``[1] See below``,
``[see (a) below]``, ``[x(1)]``, ``["a", "b"]`` stay text.  After the ``]``,
``<|python_end|>`` and an end token (``<|eot|>``, ``<|eom|>``, ``<|eot_id|>``,
``<|eom_id|>``) are markup.
"""

from __future__ import annotations

from .._parts.pycalls import PythonCalls

__all__ = ("PythonicDetector",)


class PythonicDetector(PythonCalls):
    name = "pythonic"
    bare_lists = True
    opener = "<|python_start|>"
    closer = "<|python_end|>"
    end_tokens = ("<|eot_id|>", "<|eom_id|>", "<|eot|>", "<|eom|>")

    __slots__ = ()
