"""Qwen3-Coder and Qwen3.5 XML tool calls (``source="qwen3_coder"``).

What the chat template renders for a call (the model writes the same)::

    <tool_call>
    <function=get_weather>
    <parameter=city>
    Paris
    </parameter>
    <parameter=days>
    3
    </parameter>
    </function>
    </tool_call>

- Exactly one line end after ``<parameter=KEY>`` and one before ``</parameter>`` are markup;
  everything else is the value, which may hold line ends and ``<`` (issue 15, rule 2).  A
  ``</parameter>`` ends the value only where ``<parameter=``, ``</function>`` or
  ``</tool_call>`` follows it (after blanks): ``print("</parameter>")`` in code is value.
- Values are typed by the tools' schemas (:mod:`~streamcalls.detectors._parts.values`); without one they are strings.
- The call completes at ``</function>`` (or at ``</tool_call>`` when ``</function>`` is
  missing).  ``</tool_call>`` after it is the call's markup; several ``<function=...>``
  blocks in one ``<tool_call>`` are several calls (the block machine: :mod:`~streamcalls.detectors._parts.callblock`).
- ``<tool_call>`` is shared with ``hermes`` and ``glm``: with more than one of them on, what
  follows it decides (:mod:`~streamcalls.detectors._engine.shared`).
"""

from __future__ import annotations

from .._parts.callblock import CallBlock
from .._parts.xmlparams import Closer

__all__ = ("Qwen3CoderDetector",)


class Qwen3CoderDetector(CallBlock):
    name = "qwen3_coder"
    openers = (("<tool_call>", "</tool_call>"),)
    shares = "<tool_call>"  # with the other formats whose opener it is (see _engine.shared)
    claim = "<function="
    fallback_rank = 1
    call_open = "<function="
    parameter_open = "<parameter="
    call_end = "</function>"
    closer = Closer("</parameter>", (parameter_open, call_end, "</tool_call>"), newline=True)
    newline_after_tag = True  # the one line end after <parameter=KEY> is markup

    __slots__ = ()
