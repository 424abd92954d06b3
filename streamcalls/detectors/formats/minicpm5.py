"""OpenBMB MiniCPM 5 tool calls (``source="minicpm5"``).

::

    <function name="get_weather"><param name="city">Paris</param><param name="days">3</param></function>

- Each call stands alone: ``<function name=`` opens it, ``</function>`` completes it, and what lies
  between calls (line ends, prose) is text.
- A value is bare text, typed by the tools' schemas
  (:mod:`~streamcalls.detectors._parts.values`); one written as a CDATA section
  (``<![CDATA[...]]>``, which may hold ``</param>`` and line ends) is always the string it holds,
  its markers markup.  ``</param>`` ends a bare value only where another parameter or
  ``</function>`` follows it.
- A parameter without a name, or one given twice, fails its call, up to ``</function>``.
- Reasoning is ``<think>`` (the ``think`` detector).  The machine is the XML formats'
  (:mod:`~streamcalls.detectors._parts.callblock`), with the parameter's start read here.
"""

from __future__ import annotations

from .._engine.machine import fast
from .._engine.tokens import Tokens, literal_at
from .._parts.callblock import CallBlock
from .._parts.xmlparams import As, Closer

__all__ = ("MiniCpm5Detector",)

_CDATA = "<![CDATA["
_CDATA_END = Tokens(("]]>",))
_PARAM_END = "</param>"


class MiniCpm5Detector(CallBlock):
    State = CallBlock.State  # the block machine's states; _key, _value_start, _value are its own below

    name = "minicpm5"
    openers = (("<function name=", ""),)  # the call's own tag: no block around it
    call_open = "<function name="
    parameter_open = "<param name="
    call_end = "</function>"
    closer = Closer(_PARAM_END, (parameter_open, call_end))
    quoted_names = True

    __slots__ = ("_cdata", "_key_name")

    def begin(self, trigger: str) -> None:
        super().begin(trigger)
        self._cdata = 0  # 1: inside a CDATA section; 2: after it, </param> must follow
        self._key_name = ""

    def _key(self, text: str, pos: int) -> int:
        at, found = self.read_up_to(text, pos, ">")
        if at < 0:
            self.fail("a parameter name longer than the limit")
            self._state = _S.SKIP
            return pos
        if not found:
            return at
        self._key_name = self._unquoted(self.taken().strip())
        if not self._key_name:
            self.fail(f"a {self.parameter_open}...> without a name")
            self._state = _S.SKIP
        else:
            self._state = _S.VALUE_START  # a CDATA section, or a bare value?
        return at + 1

    def _value_start(self, text: str, pos: int) -> int:
        seen = literal_at(text, pos, _CDATA)
        if seen == 0:
            return pos  # maybe a CDATA section: wait
        param = self._param
        assert param is not None
        self._state = _S.VALUE
        if seen > 0:
            self._cdata = 1
            param.parameter(self._key_name, pos, As.STRING)
            return pos + len(_CDATA)
        param.parameter(self._key_name, pos)
        return pos

    def _value(self, text: str, pos: int) -> int:
        if not self._cdata:
            return CallBlock._value(self, text, pos)
        param = self._param
        assert param is not None
        if self._cdata == 1:
            cut, found = _CDATA_END.find(text, pos)
            param.value(text, pos, cut)
            if found is None:
                return cut
            param.end_parameter(cut)
            self._cdata = 2
            return found.end()
        seen = literal_at(text, pos, _PARAM_END)
        if seen == 0:
            return pos
        self._cdata = 0
        if seen < 0:
            self.fail(f"expected {_PARAM_END} after the CDATA section")
            self._state = _S.SKIP
            return pos
        self._state = _S.BODY
        return pos + len(_PARAM_END)


_S = fast(CallBlock.State)
