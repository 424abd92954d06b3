"""Gemma's own argument notation, read as it arrives and written as JSON (``gemma4``, ``functiongemma``).

``call:get_weather{city:<|"|>Paris<|"|>,days:3,opts:{metric:true},tags:[<|"|>a<|"|>]}``: from after
the ``{``, :class:`BracedArguments` takes text in pieces of any size and writes the arguments'
compact JSON left to right as values arrive, through the same
:class:`~.pyjson.JsonWriter` as Python literals (``{`` at once, a key when its ``:`` has come, a
string's characters as they arrive, any other value when it is complete, ``}`` at the closing
brace).  The notation, as the templates write it:

- keys are bare text up to ``:`` (nested objects' too); blanks may stand after ``{``, ``:``, ``,``
  and before a closing bracket;
- a string is quoted by a token of the format's (Gemma 4's ``<|"|>``, FunctionGemma's
  ``<escape>``) and is every character up to the next one, verbatim; where the format allows it
  (Gemma 4), a JSON string in double quotes is read too, its escapes decoded;
- numbers are JSON number literals (an integer stays an exact int); ``true``, ``false``, ``null``
  and ``None`` (what the template prints for a null); ``{...}`` an object, ``[...]`` an array.

Anything else fails the call: a bare word (``city:Paris``), a key without its ``:``, a number that
is no JSON number, a repeated key, nesting past ``max_json_depth``, JSON past the room the call
has.  The reader then stops (``status`` INVALID, ``error`` set); the detector reads the call's
markup on to its end.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import IntEnum

import msgspec

from .._engine.machine import Machine, Status, fast
from .pyjson import DICT, LIST, Failure, JsonWriter

__all__ = ("BracedArguments",)

_BLANKS = re.compile(r"[ \t\r\n]*")
_KEY_CHARS = re.compile(r'[^\s:{}\[\],"<>]*')
_WORD_CHARS = re.compile(r"\w*")
_NUMBER_CHARS = re.compile(r"[0-9eE.+\-]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_JSON_STRING_STOPS = re.compile(r'["\\]')
_WORDS = {"true": "true", "false": "false", "null": "null", "None": "null"}
_MAX_KEY = 256
_MAX_TOKEN = 1000
_CALL = "}"  # what closes the call's own object

_encode = msgspec.json.encode
_decode = msgspec.json.decode


class BracedArguments(Machine):
    """Reads one call's arguments, from after its ``{`` to the matching ``}``.

    ``status`` ends DONE at the closing ``}`` (the JSON is complete), INVALID at a failure
    (``error`` says why, ``limit`` whether a size limit; :meth:`feed` returns where).
    """

    class State(IntEnum):
        OPEN = 0  # nothing read yet: "{" is written first
        ITEM = 1  # a key (an object) or a value (an array), or the container's end
        KEY = 2
        AFTER_ITEM = 3  # "," or the container's end
        VALUE = 4  # after ":" (or an array's item)
        STRING = 5  # quoted by the format's token
        JSON_STRING = 6  # quoted by '"', with JSON's escapes
        NUMBER = 7
        WORD = 8

    __slots__ = ("_json", "_json_strings", "_kinds", "_quote", "_room", "_size", "_token", "error", "limit")

    def __init__(
        self,
        write: Callable[[str], None],
        *,
        quote: str,
        json_strings: bool,
        max_depth: int,
        room: int,
        room_error: str,
    ) -> None:
        self._json = JsonWriter(write, max_depth=max_depth, room=room, room_error=room_error)
        self._quote = quote
        self._json_strings = json_strings
        self._room = (room, room_error)
        self._kinds = [_CALL]  # the open containers' closing characters
        self._token: list[str] = []  # a key, number, word or JSON string so far
        self._size = 0  # a JSON string's characters so far
        self._state = _S.OPEN
        self.status = _Status.ACTIVE
        self.error: str | None = None
        self.limit = False

    def feed(self, text: str, pos: int) -> int:
        """Read ``text`` from ``pos``; returns where it stopped: the arguments' end, the text's
        end or a piece it must see whole (a quote token cut by the chunk's end), or -- with
        ``error`` set -- where the call failed."""
        try:
            return Machine.feed(self, text, pos)
        except Failure as failure:
            self.error = failure.error
            self.limit = failure.limit
            self.status = _Status.INVALID
            return failure.pos

    # -- structure ---------------------------------------------------------------------------

    def _open(self, text: str, pos: int) -> int:
        self._json.out("{", pos)
        self._state = _S.ITEM
        return pos

    def _item(self, text: str, pos: int) -> int:
        pos = _blanks(text, pos)
        if pos == len(text):
            return pos
        char = text[pos]
        if char in "}]":
            return self._close(char, pos)
        if self._kinds[-1] != LIST:  # an object: a key
            self._token = []
            self._state = _S.KEY
            return pos
        self._json.item(pos)
        self._state = _S.VALUE
        return pos

    def _key(self, text: str, pos: int) -> int:
        match = _KEY_CHARS.match(text, pos, pos + _MAX_KEY + 1)
        assert match is not None
        self._token.append(match.group())
        pos = match.end()
        key = "".join(self._token)
        if len(key) > _MAX_KEY:
            raise Failure("a key too long", pos)
        if pos == len(text):
            return pos
        if text[pos] != ":" or not key:
            raise Failure(f"a key without its ':' ({key[:40]!r})", pos)
        json = self._json
        if len(self._kinds) == 1:
            json.keyword(key, pos)
        else:
            json.item(pos)
            json.string_open(pos)
            json.chars(key, pos)
            json.string_close(pos)
            json.colon(pos)
        self._state = _S.VALUE
        return pos + 1

    def _after_item(self, text: str, pos: int) -> int:
        pos = _blanks(text, pos)
        if pos == len(text):
            return pos
        char = text[pos]
        if char == ",":
            self._state = _S.ITEM
            return pos + 1
        if char in "}]":
            return self._close(char, pos)
        raise Failure(f"unexpected {char!r} after a value", pos)

    def _close(self, char: str, pos: int) -> int:
        kinds = self._kinds
        if char != kinds[-1]:
            raise Failure(f"unexpected {char!r}", pos)
        if len(kinds) == 1:
            self._json.close(")", pos)  # the writer's call container: its object closes
            self.status = _Status.DONE
            return pos + 1
        self._json.close(char, pos)
        kinds.pop()
        self._state = _S.AFTER_ITEM
        return pos + 1

    # -- values -------------------------------------------------------------------------------

    def _value(self, text: str, pos: int) -> int:
        pos = _blanks(text, pos)
        end = len(text)
        if pos == end:
            return pos
        char = text[pos]
        quote = self._quote
        if char == quote[0]:
            if text.startswith(quote, pos):
                self._json.string_open(pos)
                self._state = _S.STRING
                return pos + len(quote)
            if end - pos < len(quote) and quote.startswith(text[pos:]):
                return pos  # maybe the quote token: wait
        if char == '"' and self._json_strings:
            self._token = []
            self._size = 0
            self._state = _S.JSON_STRING
            return pos + 1
        if char in "-0123456789":
            self._token = []
            self._state = _S.NUMBER
            return pos
        if char.isalpha() or char == "_":
            self._token = []
            self._state = _S.WORD
            return pos
        if char in "{[":
            close = DICT if char == "{" else LIST
            self._json.open(close, pos)
            self._kinds.append(close)
            self._state = _S.ITEM
            return pos + 1
        raise Failure(f"unexpected {char!r} where a value should be", pos)

    def _string(self, text: str, pos: int) -> int:
        quote = self._quote
        at = text.find(quote, pos)
        if at < 0:
            # Everything but what may begin the quote token at the end.
            end = len(text)
            cut = end
            for size in range(min(len(quote) - 1, end - pos), 0, -1):
                if quote.startswith(text[end - size :]):
                    cut = end - size
                    break
            self._json.chars(text[pos:cut], pos)
            return cut
        self._json.chars(text[pos:at], pos)
        self._json.string_close(at)
        self._state = _S.AFTER_ITEM
        return at + len(quote)

    def _json_string(self, text: str, pos: int) -> int:
        token = self._token
        end = len(text)
        while True:
            found = _JSON_STRING_STOPS.search(text, pos)
            stop = found.start() if found is not None else end
            self._hold(token, text[pos:stop], stop)
            if found is None:
                return end
            if text[stop] == "\\":
                if stop + 1 == end:
                    return stop  # an escape cut by the chunk's end
                self._hold(token, text[stop : stop + 2], stop)
                pos = stop + 2
                continue
            try:
                value = _decode('"' + "".join(token) + '"')
            except msgspec.DecodeError:
                raise Failure("a malformed JSON string", stop) from None
            json = self._json
            json.string_open(stop)
            json.chars(value, stop)
            json.string_close(stop)
            self._state = _S.AFTER_ITEM
            return stop + 1

    def _hold(self, token: list[str], piece: str, pos: int) -> None:
        """Keep more of a JSON string (decoded when it closes), within the call's room."""
        room, error = self._room
        self._size += len(piece)
        if self._size > room:
            raise Failure(error, pos, limit=True)
        token.append(piece)

    def _number(self, text: str, pos: int) -> int:
        match = _NUMBER_CHARS.match(text, pos)
        assert match is not None
        self._token.append(match.group())
        pos = match.end()
        literal = "".join(self._token)
        if len(literal) > _MAX_TOKEN:
            raise Failure("a number too long", pos)
        if pos == len(text):
            return pos
        if _NUMBER.fullmatch(literal) is None:
            raise Failure(f"{literal[:40]!r} is not a number", pos)
        try:
            value = _decode(literal)
        except msgspec.DecodeError:  # out of range
            raise Failure(f"{literal[:40]} is out of range", pos) from None
        self._json.scalar(_encode(value).decode(), pos)
        self._state = _S.AFTER_ITEM
        return pos

    def _word(self, text: str, pos: int) -> int:
        match = _WORD_CHARS.match(text, pos, pos + _MAX_TOKEN + 1)
        assert match is not None
        self._token.append(match.group())
        pos = match.end()
        word = "".join(self._token)
        if len(word) > _MAX_TOKEN:
            raise Failure("a bare word too long", pos)
        if pos == len(text):
            return pos
        literal = _WORDS.get(word)
        if literal is None:
            raise Failure(f"a bare word ({word[:40]}) where a value should be", pos)
        self._json.scalar(literal, pos)
        self._state = _S.AFTER_ITEM
        return pos


def _blanks(text: str, pos: int) -> int:
    match = _BLANKS.match(text, pos)
    assert match is not None
    return match.end()


_S = fast(BracedArguments.State)
_Status = fast(Status)
