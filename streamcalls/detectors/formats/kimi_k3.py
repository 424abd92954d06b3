"""Moonshot Kimi K3 tool calls (``source="kimi_k3"``), in its XTML sections.

An assistant message is sections built from ``<|open|>TAG attributes<|sep|>`` and
``<|close|>TAG<|sep|>``: reasoning (``think``), the answer (``response``) and the calls::

    <|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>
    <|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
    <|open|>argument key="days" type="number"<|sep|>3<|close|>argument<|sep|>
    <|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|><|end_of_msg|>

(one line here; the model writes no line ends between the tags).

- Each argument's ``type`` attribute types its value, as the template writes it: ``string`` is
  the text verbatim; ``number``, ``integer``, ``boolean``, ``null``, ``object``, ``array`` the text
  read as JSON of that type -- a value that is not fails its call; without the attribute the
  tool's schema types it (:mod:`~streamcalls.detectors._parts.values`).  Attribute values
  escape ``&`` and ``"`` as ``&amp;`` and ``&quot;``.  A call may instead hold one
  ``<|open|>json type="object"<|sep|>`` element with its whole arguments' JSON.
- A call completes at ``<|close|>call<|sep|>``; ``<|open|>tools<|sep|>`` is the first call's
  markup, ``<|close|>tools<|sep|>`` the last one's.  ``index="N"`` numbers the calls: no id (the
  ids are generated).
- The message's framing vanishes: ``<|open|>response<|sep|>`` and ``<|close|>response<|sep|>``
  around the answer's text, ``<|open|>message role="assistant"<|sep|>``,
  ``<|close|>message<|sep|>``, ``<|end_of_msg|>``, and a stray ``<|close|>think<|sep|>``.
  The reasoning section is the ``think`` detector's (with thinking on, the prompt opens it:
  ``think_prompted``).
"""

from __future__ import annotations

import re
from enum import IntEnum

from ..._call import OPEN
from .._engine.detector import Hold, Trigger
from .._engine.machine import Status, fast
from .._engine.tokens import Seen, Tokens, literal_prefix_at, skip_blanks
from .._engine.tools import ARRAY, BOOLEAN, INTEGER, NUMBER, OBJECT, STRING
from .._parts.arguments import Ended, arguments_until
from .._parts.tagged import TaggedDetector
from .._parts.values import NULL
from .._parts.xmlparams import MAX_NAME, As, Closer

__all__ = ("KimiK3Detector",)

_SEP = "<|sep|>"
TOOLS = "<|open|>tools<|sep|>"
_TOOLS_END = "<|close|>tools<|sep|>"
_CALL = "<|open|>call"
_CALL_END = "<|close|>call<|sep|>"
_ARGUMENT = "<|open|>argument"
_JSON = "<|open|>json"
_JSON_END = Tokens(("<|close|>json<|sep|>",))
FRAMING = (
    '<|open|>message role="assistant"<|sep|>',
    "<|open|>response<|sep|>",
    "<|close|>response<|sep|>",
    "<|close|>think<|sep|>",
    "<|close|>message<|sep|>",
    "<|end_of_msg|>",
)
_CLOSER = Closer("<|close|>argument<|sep|>", ("<|open|>", "<|close|>"))
_SEPS = Tokens((_SEP,))
_ATTRIBUTE = re.compile(r'([\w-]+)\s*=\s*"([^"]*)"')
_ENTITY = re.compile(r"&(?:amp|quot);")
_ENTITIES = {"&amp;": "&", "&quot;": '"'}
_DECLARED = frozenset({NUMBER, INTEGER, BOOLEAN, NULL, OBJECT, ARRAY})
_MAX_TAG = MAX_NAME * 2  # a tag's attributes: a name or key, a type, an index


class KimiK3Detector(TaggedDetector):
    class State(IntEnum):
        OPEN = 0  # after <|open|>tools<|sep|>: a call must come
        CALL_TAG = 1  # <|open|>call's attributes, up to <|sep|>
        BODY = 2  # an argument, the json element, or the call's end
        ARGUMENT_TAG = 3  # <|open|>argument's attributes, up to <|sep|>
        VALUE = 4
        JSON_TAG = 5  # <|open|>json's attributes, up to <|sep|>
        JSON = 6  # the arguments' JSON, up to <|close|>json<|sep|>
        JSON_END = 7  # <|close|>json<|sep|> after the JSON closed
        AFTER = 8  # a call ended: another, or the section's end
        SKIP = 9  # malformed: up to the call's end or the section's
        FRAMING = 10  # a framing token was consumed: it vanishes

    name = "kimi_k3"
    triggers = tuple(Trigger.literal(token) for token in (TOOLS, *FRAMING))
    holds = tuple(Hold.literal(token) for token in (TOOLS, *FRAMING))
    closer = _CLOSER
    block_end = (_CALL_END, _TOOLS_END)

    __slots__ = ("_arguments", "_whole")

    def begin(self, trigger: str) -> None:
        super().begin(trigger)
        self._arguments = False  # an argument element was read
        self._whole = False  # the json element was read
        if trigger != TOOLS:
            self._state = _S.FRAMING

    def _framing(self, text: str, pos: int) -> int:
        self.content(text, pos, pos)  # the token is framing: accounted for, no text
        return self.stop(pos)

    # -- the section --------------------------------------------------------------------

    def _open(self, text: str, pos: int) -> int:
        found, at = self.look_past(text, pos, (_CALL, _TOOLS_END))
        if found == Seen.WAIT:
            return pos
        if found == 0:
            if self._state is _S.AFTER:
                self.markup.next_call(at)
            self._param = None
            self._arguments = self._whole = False
            self._state = _S.CALL_TAG
            return at + len(_CALL)
        if found == 1:
            return self.done(at + len(_TOOLS_END))
        if self._state is _S.OPEN:
            self.markup.fail(f"{TOOLS} with no {_CALL}...{_SEP} after it")
        return self.done(pos)  # the text resumes

    _after = _open

    def _tag(self, text: str, pos: int) -> tuple[int, dict[str, str] | None]:
        """Collect a tag's attributes up to ``<|sep|>``: (where it stopped, the attributes once
        ``<|sep|>`` has come -- consumed -- else None); (-1, None) past the limit."""
        cut, found = _SEPS.find(text, pos)
        if self._size + cut - pos > _MAX_TAG:
            self.taken()
            return -1, None
        self._pieces.append(text[pos:cut])
        self._size += cut - pos
        if found is None:
            return cut, None
        inside = self.taken()
        return found.end(), {key: _ENTITY.sub(_decode, value) for key, value in _ATTRIBUTE.findall(inside)}

    def _call_tag(self, text: str, pos: int) -> int:
        stop, attributes = self._tag(text, pos)
        if stop < 0:
            return self._malformed(pos, "a call tag longer than the limit")
        if attributes is None:
            return stop
        self._state = _S.BODY if self.open_call(attributes.get("tool", "")) else _S.SKIP
        return stop

    # -- a call's body --------------------------------------------------------------------

    def _body(self, text: str, pos: int) -> int:
        at = skip_blanks(text, pos)
        if at == len(text):
            return at
        found = literal_prefix_at(text, at, (_ARGUMENT, _JSON, _CALL_END, _TOOLS_END))
        if found == Seen.WAIT:
            return at
        if found == 0 and not self._whole:
            self._arguments = True
            self._state = _S.ARGUMENT_TAG
            return at + len(_ARGUMENT)
        if found == 1 and not (self._arguments or self._whole):
            self._whole = True
            self._state = _S.JSON_TAG
            return at + len(_JSON)
        if found == 2:
            self._end_call(at)
            self._state = _S.AFTER
            return at + len(_CALL_END)
        if found == 3:
            self._end_call(at)
            return self.done(at + len(_TOOLS_END))
        if found >= 0:
            return self._malformed(at, "a json element together with other arguments")
        return self._malformed(at, f"expected {_ARGUMENT}, {_JSON} or {_CALL_END} in the tool call")

    def _end_call(self, at: int) -> None:
        param = self._param
        assert param is not None
        if not self._whole:
            param.end(at)
            return
        call = param.call
        if call is not None and call.status == OPEN:
            self.calls.end(call)  # the json element's arguments: complete, or fail as they are

    def _argument_tag(self, text: str, pos: int) -> int:
        stop, attributes = self._tag(text, pos)
        if stop < 0:
            return self._malformed(pos, "an argument tag longer than the limit")
        if attributes is None:
            return stop
        key = attributes.get("key", "")
        if not key:
            return self._malformed(stop, f"an {_ARGUMENT}...{_SEP} without a key")
        declared = attributes.get("type", "")
        param = self._param
        assert param is not None
        if declared == STRING:
            param.parameter(key, stop, As.STRING)
        elif declared in _DECLARED:
            param.parameter(key, stop, As.DECLARED, declared)
        else:
            param.parameter(key, stop)
        self._state = _S.VALUE
        return stop

    def _value(self, text: str, pos: int) -> int:
        stop, ended = self.value(text, pos, _CLOSER)
        if ended:
            self._state = _S.BODY
        return stop

    def _json_tag(self, text: str, pos: int) -> int:
        stop, attributes = self._tag(text, pos)
        if stop < 0:
            return self._malformed(pos, "a json tag longer than the limit")
        if attributes is None:
            return stop
        param = self._param
        assert param is not None
        call = param.call
        if call is None or call.status != OPEN:  # past max_calls: followed to its end, dropped
            self._state = _S.SKIP
            return stop
        self.markup.arguments(call, stop)
        self._state = _S.JSON
        return stop

    def _json(self, text: str, pos: int) -> int:
        param = self._param
        assert param is not None
        assert param.call is not None
        stop, ended, _ = arguments_until(self, param.call, text, pos, tokens=_JSON_END)
        if ended is not _Ended.MORE:  # the JSON closed, or never did: its call has ended (failed)
            self._state = _S.JSON_END
        return stop

    def _json_end(self, text: str, pos: int) -> int:
        at = skip_blanks(text, pos)
        if at == len(text):
            return at
        found = literal_prefix_at(text, at, _JSON_END.literals)
        if found == Seen.WAIT:
            return at
        if found < 0:
            return self._malformed(at, "text after the json element's arguments")
        self._state = _S.BODY
        return at + len(_JSON_END.literals[0])

    # -- ends ---------------------------------------------------------------------------------

    def _skip(self, text: str, pos: int) -> int:
        stop, closed = self.skip(text, pos)
        if closed == 0:  # the call's end: the section goes on
            self._state = _S.AFTER
        elif closed > 0:
            return self.done(stop)
        return stop

    def _malformed(self, pos: int, error: str) -> int:
        self.fail(error)
        self._state = _S.SKIP
        return pos

    def finish(self, rest: str) -> str:
        state = self._state
        self.status = _Status.DONE
        if state is _S.FRAMING:
            self.content(rest, 0, 0)
            return rest
        if state is _S.AFTER:
            return rest  # after a completed call: text
        if state is not _S.SKIP:
            self.cut_off()
        return ""


def _decode(entity: re.Match[str]) -> str:
    return _ENTITIES[entity.group()]


_S = fast(KimiK3Detector.State)
_Status = fast(Status)
_Ended = fast(Ended)
