"""ByteDance Seed-OSS tool calls (``source="seed_oss"``).

What the chat template renders for a call (the model writes the same), each call in a block of
its own, a line end before each block::

    <seed:tool_call>
    <function=get_weather>
    <parameter=city>Paris</parameter>
    <parameter=days>3</parameter>
    </function>
    </seed:tool_call>

- Qwen3-Coder's tags inside a wrapper of Seed's own: the template writes no line end around a
  value, but one right after ``<parameter=KEY>`` and one right before ``</parameter>`` are
  markup (the peers strip them); everything else is the value, verbatim.
- Values are typed by the tools' schemas (:mod:`~streamcalls.detectors._parts.values`); the
  template prints non-strings with Jinja's ``| string``, so Python's spellings count too:
  ``True`` / ``False`` for a boolean, ``None`` for null, ``{'a': 1}`` for an object.
- The call completes at ``</function>``; the line end and ``</seed:tool_call>`` after it are its
  markup.  A value that meets ``</function>`` (followed by the block's end or another call)
  before its ``</parameter>`` was never closed: the call fails, up to the block's end.
- ``<function=...>`` without the wrapper is text.  Reasoning is ``<seed:think>`` (the ``think``
  detector): the call blocks the model quotes there are reasoning, never calls.
"""

from __future__ import annotations

from .._parts.callblock import CallBlock
from .._parts.xmlparams import Closer

__all__ = ("SeedOssDetector",)

_END = "</seed:tool_call>"


class SeedOssDetector(CallBlock):
    name = "seed_oss"
    openers = (("<seed:tool_call>", _END),)
    call_open = "<function="
    parameter_open = "<parameter="
    call_end = "</function>"
    closer = Closer(
        "</parameter>",
        (parameter_open, call_end, _END),
        newline=True,
        breaks=(call_end,),
        break_followers=(_END, call_open),
    )
    newline_after_tag = True  # one line end right after <parameter=KEY> is markup
    python_values = True

    __slots__ = ()
