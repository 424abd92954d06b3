"""A Python call's keyword arguments as JSON, read as they arrive (the ``pythonic`` format's tokenizer).

``get_weather(city="Paris", days=3)``: from after the ``(``, :class:`PythonArguments`
takes text in pieces of any size and writes the arguments' compact JSON left
to right as values arrive (issue 15, rule 4): ``{`` at once, a keyword when
its ``=`` has come, a string's characters as they arrive, any other value
when it is complete, ``}`` at the closing ``)``.  Concatenated, the pieces
are msgspec's encoding of the arguments, so partial arguments
(``ToolCallPatch``) work as for any JSON.

Values are Python literals, read here -- never by ``eval`` or ``ast``:

- strings: ``'...'``, ``"..."``, triple-quoted, with a ``u`` or ``r``
  prefix, and Python's escapes (``\\n``, ``\\'``, ``\\x41``, ``\\u00e9``,
  ``\\U0001F600``, octal; an unknown escape keeps its backslash, as Python does);
- numbers: ints (decimal, ``0x``, ``0o``, ``0b``, ``_`` between digits; big
  ones exact) and finite floats, with an optional ``-`` right before them
  (``hours=-4`` is the literal the model means, and ``ast.literal_eval``
  reads it too);
- ``True``, ``False``, ``None`` (and, for formats whose templates write JSON's names,
  ``true``, ``false``, ``null``: ``json_names=True``);
- lists and tuples (JSON arrays; a tuple of one needs its comma), and dicts
  whose keys are strings, numbers, booleans or None (JSON object keys, as
  ``json.dumps`` writes them).

Anything else fails the call: a positional argument, ``*args``, a name, a
call or an expression in a value, a set, bytes, an f-string, a repeated
keyword or key, a surrogate escape, nesting past ``max_json_depth``, JSON past
the room the call has.  After a failure the reader goes on, writing nothing,
to the call's closing ``)`` -- through strings and brackets, in constant
memory -- so that the next call can be read (:class:`~.pytokens.Skipper`).
The JSON side -- containers, keys, commas, the room -- is
:class:`~.pyjson.JsonWriter`; Python's lexical pieces are in
:mod:`~.pytokens`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import IntEnum

import msgspec

from .._engine.machine import Machine, Status, fast
from .pyjson import DICT, LIST, TUPLE, Failure, JsonWriter
from .pytokens import STRING_STOPS, Skipper, escape, is_float, number_json

__all__ = ("PythonArguments", "literal_json")

_BLANKS = re.compile(r"[ \t\r\n\f]*")
_WORD_CHARS = re.compile(r"\w*")
_NUMBER_CHARS = re.compile(r"[0-9A-Za-z_.]*")
_MAX_WORD = 256
_MAX_NUMBER = 1000
_LITERALS = {"True": "true", "False": "false", "None": "null"}
_WITH_JSON_NAMES = {**_LITERALS, "true": "true", "false": "false", "null": "null"}
_CLOSERS = ")]}"
_OPENERS = {"[": LIST, "(": TUPLE, "{": DICT}


class PythonArguments(Machine):
    """Reads one call's arguments, from after its ``(`` to its ``)``.

    ``status`` ends DONE at the closing ``)`` (the JSON is complete), FAILED at the closing
    ``)`` after a failure, BROKEN at a ``]`` or ``}`` that closes nothing (not consumed).
    """

    class State(IntEnum):
        OPEN = 0  # nothing read yet: "{" is written first
        ITEM = 1  # an item or the container's end
        AFTER_ITEM = 2  # "," or the container's end (":" after a dict's key)
        VALUE = 3  # a value (after "=" or ":")
        KEYWORD = 4
        EQUALS = 5
        STRING = 6
        NUMBER = 7
        WORD = 8
        SKIP = 9

    __slots__ = (
        "_json",
        "_literals",
        "_negative",
        "_quote",
        "_raw",
        "_skipper",
        "_token",
        "_triple",
        "error",
        "limit",
    )

    def __init__(
        self,
        write: Callable[[str], None],
        *,
        max_depth: int,
        room: int,
        room_error: str,
        json_names: bool = False,
    ) -> None:
        self._json = JsonWriter(write, max_depth=max_depth, room=room, room_error=room_error)
        self._literals = _WITH_JSON_NAMES if json_names else _LITERALS
        self._state = _S.OPEN
        self._token: list[str] = []  # a number or a word so far
        self._negative = False
        self._quote = ""
        self._triple = False
        self._raw = False
        self._skipper: Skipper | None = None
        self.status = _Status.ACTIVE
        self.error: str | None = None  # why the call failed
        self.limit = False  # it failed at a size limit

    # -- driving ---------------------------------------------------------------------------

    def feed(self, text: str, pos: int) -> int:
        """Read ``text`` from ``pos``; returns where it stopped: the call's end, the
        text's end or a piece it must see whole (a quote or an escape cut by the chunk's
        end), or -- once, with ``error`` set -- where the call failed."""
        try:
            return Machine.feed(self, text, pos)
        except Failure as failure:
            self.error = failure.error
            self.limit = failure.limit
            self._start_skipping()
            return failure.pos

    def finish(self) -> str | None:
        """The text ended inside the call: what was cut off, if it had not failed yet."""
        return None if self.error is not None else "the call was cut off (the text ended inside it)"

    def _open(self, text: str, pos: int) -> int:
        self._state = _S.ITEM
        self._json.out("{", pos)
        return pos

    def _blanks(self, text: str, pos: int) -> int:
        match = _BLANKS.match(text, pos)
        assert match is not None
        return match.end()

    def _equals(self, text: str, pos: int) -> int:
        pos = self._blanks(text, pos)
        return pos if pos == len(text) else self._equals_char(text, pos)

    def _after_item(self, text: str, pos: int) -> int:
        pos = self._blanks(text, pos)
        return pos if pos == len(text) else self._after_item_char(text, pos)

    def _item(self, text: str, pos: int) -> int:
        pos = self._blanks(text, pos)
        if pos == len(text):
            return pos
        char = text[pos]
        if char in _CLOSERS:
            return self._close(char, pos)
        if not self._json.depth:  # the call's own items: keywords
            if char.isidentifier():
                self._token = []
                self._state = _S.KEYWORD
                return pos
            if char == "*":
                raise Failure("*args and **kwargs are not literal arguments", pos)
            raise Failure("a positional argument (only keyword arguments are read)", pos)
        self._json.item(pos)
        self._state = _S.VALUE  # (a value that must wait for more text starts only once)
        return self._value_start(text, pos)

    def _value(self, text: str, pos: int) -> int:
        pos = self._blanks(text, pos)
        return pos if pos == len(text) else self._value_start(text, pos)

    # -- structure ---------------------------------------------------------------------------

    def _after_item_char(self, text: str, pos: int) -> int:
        char = text[pos]
        if self._json.in_key:  # a dict's key: ":" must follow
            if char == ":":
                self._json.colon(pos)
                self._state = _S.VALUE
                return pos + 1
            raise Failure("a set, or a dict key without its value (only dicts are read)", pos)
        if char == ",":
            self._json.comma()
            self._state = _S.ITEM
            return pos + 1
        if char in _CLOSERS:
            return self._close(char, pos)
        raise Failure(f"unexpected {char!r} after a value", pos)

    def _close(self, char: str, pos: int) -> int:
        if self._json.close(char, pos):
            self.status = _Status.DONE
        else:
            self._state = _S.AFTER_ITEM
        return pos + 1

    def _scalar(self, json_text: str, pos: int) -> None:
        self._json.scalar(json_text, pos)
        self._state = _S.AFTER_ITEM

    # -- keywords --------------------------------------------------------------------------------

    def _keyword(self, text: str, pos: int) -> int:
        match = _WORD_CHARS.match(text, pos, pos + _MAX_WORD + 1)
        assert match is not None
        self._token.append(match.group())
        if sum(map(len, self._token)) > _MAX_WORD:
            raise Failure("a keyword too long", pos)
        if match.end() == len(text):
            return match.end()
        self._state = _S.EQUALS
        return match.end()

    def _equals_char(self, text: str, pos: int) -> int:
        if text[pos] != "=":
            raise Failure("a positional argument (only keyword arguments are read)", pos)
        if pos + 1 == len(text):
            return pos  # "==" is a comparison: wait for the next character
        if text[pos + 1] == "=":
            raise Failure("an expression, not a keyword argument", pos)
        self._json.keyword("".join(self._token), pos)
        self._state = _S.VALUE
        return pos + 1

    # -- values ------------------------------------------------------------------------------------

    def _value_start(self, text: str, pos: int) -> int:
        char = text[pos]
        if char in "'\"":
            return self._string_start(text, pos, pos, raw=False)
        if char in "0123456789.":
            self._token = []
            self._negative = False
            self._state = _S.NUMBER
            return pos
        if char == "-":
            if pos + 1 == len(text):
                return pos
            if text[pos + 1] not in "0123456789.":
                raise Failure("an expression, not a literal", pos)
            self._token = []
            self._negative = True
            self._state = _S.NUMBER
            return pos + 1
        if char.isidentifier():
            self._token = []
            self._state = _S.WORD
            return pos
        close = _OPENERS.get(char)
        if close is not None:
            self._json.open(close, pos)
            self._state = _S.ITEM
            return pos + 1
        raise Failure(f"unexpected {char!r} where a value should be", pos)

    def _string_start(self, text: str, pos: int, at: int, *, raw: bool) -> int:
        """A string opens at ``at`` (``pos``: where its prefix began)."""
        quote = text[at]
        if at + 2 >= len(text):
            return pos  # is it '' or '''? wait for two more characters
        triple = text.startswith(quote * 3, at)
        self._quote = quote
        self._triple = triple
        self._raw = raw
        self._json.string_open(pos)
        self._state = _S.STRING
        return at + (3 if triple else 1)

    def _string(self, text: str, pos: int) -> int:
        quote = self._quote
        stops = STRING_STOPS[quote, self._triple]
        chars = self._json.chars
        end = len(text)
        while pos < end:
            found = stops.search(text, pos)
            stop = found.start() if found is not None else end
            chars(text[pos:stop], pos)
            pos = stop
            if found is None:
                return pos
            char = text[pos]
            if char == quote:
                if not self._triple:
                    return self._string_end(pos + 1)
                if text.startswith(quote * 3, pos):
                    return self._string_end(pos + 3)
                rest = text[pos : pos + 3]
                if len(rest) < 3 and quote * len(rest) == rest:
                    return pos  # maybe the closing quotes: wait
                count = 2 if text.startswith(quote * 2, pos) else 1
                chars(quote * count, pos)
                pos += count
            elif char in "\r\n":
                raise Failure("a line end inside a one-line string", pos)
            else:
                try:
                    decoded = escape(text, pos, raw=self._raw)
                except ValueError as exc:
                    raise Failure(str(exc), pos) from None
                if decoded is None:
                    return pos  # an escape cut by the chunk's end
                chars(decoded[0], pos)
                pos = decoded[1]
        return pos

    def _string_end(self, pos: int) -> int:
        self._state = _S.AFTER_ITEM  # (a failure from here on is outside the string)
        self._json.string_close(pos)
        return pos

    def _number(self, text: str, pos: int) -> int:
        end = len(text)
        while True:
            match = _NUMBER_CHARS.match(text, pos)
            assert match is not None
            self._token.append(match.group())
            pos = match.end()
            if sum(map(len, self._token)) > _MAX_NUMBER:
                raise Failure("a number too long", pos)
            if pos == end:
                return pos
            # A sign belongs to the number right after a decimal exponent's "e".
            token = "".join(self._token)
            if text[pos] in "+-" and token[-1:] in ("e", "E") and is_float(token):
                self._token.append(text[pos])
                pos += 1
                continue
            break
        try:
            self._scalar(number_json(token, negative=self._negative), pos)
        except ValueError as exc:
            raise Failure(str(exc), pos) from None
        return pos

    def _word(self, text: str, pos: int) -> int:
        match = _WORD_CHARS.match(text, pos, pos + _MAX_WORD + 1)
        assert match is not None
        self._token.append(match.group())
        pos = match.end()
        word = "".join(self._token)
        if len(word) > _MAX_WORD:
            raise Failure("a name too long", pos)
        if pos == len(text):
            return pos
        char = text[pos]
        if char in "'\"":
            if word in ("u", "U", "r", "R"):
                return self._string_start(text, pos, pos, raw=word in ("r", "R"))
            raise Failure(f"a {word}-prefixed string (bytes or an f-string) is not a literal value", pos)
        literal = self._literals.get(word)
        if literal is None:
            what = "a call" if char == "(" else "a name"
            raise Failure(f"{what} ({word}) where a literal value should be", pos)
        self._scalar(literal, pos)
        return pos

    # -- after a failure --------------------------------------------------------------------------

    def _start_skipping(self) -> None:
        depth = self._json.depth
        if self._state == _S.STRING:
            self._skipper = Skipper(")", depth=depth, quote=self._quote, triple=self._triple, raw=self._raw)
        else:
            self._skipper = Skipper(")", depth=depth)
        self._state = _S.SKIP

    def _skip(self, text: str, pos: int) -> int:
        skipper = self._skipper
        assert skipper is not None
        pos = skipper.feed(text, pos)
        if skipper.stop == ")":
            self.status = _Status.FAILED
            return pos + 1
        if skipper.stop:
            self.status = _Status.BROKEN
        return pos


_S = fast(PythonArguments.State)
_Status = fast(Status)


_KEYWORD = "v"
_MAX_LITERAL_DEPTH = 64


def literal_json(text: str) -> str | None:
    """A whole Python literal (``{'a': 1}``, ``['x', None]``, ``(1, 2)``) as compact JSON, or None
    if ``text`` is none: read as the value of one keyword argument, by the same reader."""
    pieces: list[str] = []
    reader = PythonArguments(
        pieces.append, max_depth=_MAX_LITERAL_DEPTH, room=len(text) * 12 + 16, room_error="too long"
    )
    source = f"{_KEYWORD}={text})"
    if reader.feed(source, 0) != len(source) or reader.status is not _Status.DONE:
        return None
    written = "".join(pieces)
    prefix = f'{{"{_KEYWORD}":'
    value = written[len(prefix) : -1]
    # One keyword only: "1, w=2" reads as two, and its JSON would be no value.
    try:
        msgspec.json.decode(value)
    except msgspec.DecodeError:
        return None
    return value
