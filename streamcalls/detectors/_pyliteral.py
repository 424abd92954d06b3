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
- ``True``, ``False``, ``None``;
- lists and tuples (JSON arrays; a tuple of one needs its comma), and dicts
  whose keys are strings, numbers, booleans or None (JSON object keys, as
  ``json.dumps`` writes them).

Anything else fails the call: a positional argument, ``*args``, a name, a
call or an expression in a value, a set, bytes, an f-string, a repeated
keyword or key, a surrogate escape, nesting past ``max_json_depth``, JSON past
the room the call has.  After a failure the reader goes on, writing nothing,
to the call's closing ``)`` -- through strings and brackets, in constant
memory -- so that the next call can be read (:class:`Skipper`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import msgspec

__all__ = ("BROKEN", "DONE", "FAILED", "READING", "PythonArguments", "Skipper")

_encode = msgspec.json.encode

# Reader status.
READING = 0
DONE = 1  # the closing ")" was read; the JSON is complete
FAILED = 2  # the closing ")" was read after a failure
BROKEN = 3  # a "]" or "}" that closes nothing stopped it (not consumed)

# Container kinds.
_CALL = ")"
_LIST = "]"
_TUPLE = ")"
_DICT = "}"

# States.
_ITEM = 0  # an item or the container's end
_AFTER_ITEM = 1  # "," or the container's end (":" after a dict's key)
_VALUE = 2  # a value (after "=" or ":")
_KEYWORD = 3
_EQUALS = 4
_STRING = 5
_NUMBER = 6
_WORD = 7
_SKIP = 8
_OPEN = 9  # nothing read yet: "{" is written first

_BLANKS = " \t\r\n\f"
_WORD_CHARS = re.compile(r"\w*")
_NUMBER_CHARS = re.compile(r"[0-9A-Za-z_.]*")
_MAX_WORD = 256
_MAX_NUMBER = 1000
_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\n": "",  # a line continued inside the string
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_OCTAL = "01234567"
_LITERALS = {"True": "true", "False": "false", "None": "null"}
# Inside a string, what needs a look: its quote, a backslash, a line end.
_STRING_STOPS = {
    ("'", False): re.compile(r"['\\\r\n]"),
    ('"', False): re.compile(r'["\\\r\n]'),
    ("'", True): re.compile(r"['\\]"),
    ('"', True): re.compile(r'["\\]'),
}
_SKIP_OUTSIDE = re.compile(r"['\"()\[\]{},]")
_CLOSERS = ")]}"


def _json_string(chars: str) -> str:
    """``chars`` as they stand inside a JSON string."""
    return _encode(chars).decode()[1:-1]


class _Failure(Exception):
    """The call failed at ``pos`` (control flow inside the reader only)."""

    def __init__(self, error: str, pos: int, *, limit: bool = False) -> None:
        self.error = error
        self.pos = pos
        self.limit = limit


class _Frame:
    __slots__ = ("close", "comma", "count", "keys")

    def __init__(self, close: str, kind_is_keyed: bool) -> None:
        self.close = close
        self.count = 0
        self.comma = False  # a comma after the last item (a tuple of one)
        self.keys: set[str] | None = set() if kind_is_keyed else None


class PythonArguments:
    """Reads one call's arguments, from after its ``(`` to its ``)``."""

    __slots__ = (
        "_frames",
        "_key",
        "_key_chars",
        "_max_depth",
        "_negative",
        "_quote",
        "_raw",
        "_room",
        "_room_error",
        "_skipper",
        "_state",
        "_token",
        "_triple",
        "_write",
        "_written",
        "error",
        "limit",
        "status",
    )

    def __init__(self, write: Callable[[str], None], *, max_depth: int, room: int, room_error: str) -> None:
        self._write = write
        self._max_depth = max_depth
        self._room = room  # JSON characters the call may have
        self._room_error = room_error
        self._written = 0
        self._frames = [_Frame(_CALL, True)]
        self._state = _ITEM
        self._token: list[str] = []  # a number or a word so far
        self._negative = False
        self._key = False  # the value being read is a dict's key
        self._key_chars: list[str] = []  # a string key so far (keys must not repeat)
        self._quote = ""
        self._triple = False
        self._raw = False
        self._skipper: Skipper | None = None
        self.status = READING
        self.error: str | None = None  # why the call failed
        self.limit = False  # it failed at a size limit
        self._state = _OPEN

    # -- driving ---------------------------------------------------------------------------

    def feed(self, text: str, pos: int) -> int:
        """Read ``text`` from ``pos``; returns where it stopped: the call's end, the
        text's end or a piece it must see whole (a quote or an escape cut by the chunk's
        end), or -- once, with ``error`` set -- where the call failed."""
        end = len(text)
        try:
            if self._state == _OPEN:
                self._state = _ITEM
                self._out("{", pos)
            while pos < end and self.status == READING:
                if self._state == _SKIP:
                    return self._skip(text, pos)
                before = pos
                state = self._state
                pos = self._step(text, pos)
                if pos == before and self._state == state:
                    break  # wait for more text
        except _Failure as failure:
            self.error = failure.error
            self.limit = failure.limit
            self._start_skipping()
            return failure.pos
        return pos

    def finish(self) -> str | None:
        """The text ended inside the call: what was cut off, if it had not failed yet."""
        return None if self.error is not None else "the call was cut off (the text ended inside it)"

    def _step(self, text: str, pos: int) -> int:
        state = self._state
        if state == _STRING:
            return self._string(text, pos)
        if state == _NUMBER:
            return self._number(text, pos)
        if state == _WORD:
            return self._word(text, pos)
        if state == _KEYWORD:
            return self._keyword(text, pos)
        end = len(text)
        while pos < end and text[pos] in _BLANKS:
            pos += 1
        if pos == end:
            return pos
        if state == _EQUALS:
            return self._equals(text, pos)
        if state == _AFTER_ITEM:
            return self._after_item(text, pos)
        frame = self._frames[-1]
        char = text[pos]
        if state == _ITEM and char in _CLOSERS:
            return self._close(char, pos)
        if state == _ITEM and frame.close == _CALL and len(self._frames) == 1:
            if char.isidentifier():
                self._token = []
                self._state = _KEYWORD
                return pos
            if char == "*":
                raise _Failure("*args and **kwargs are not literal arguments", pos)
            raise _Failure("a positional argument (only keyword arguments are read)", pos)
        if state == _ITEM:
            self._item_start(pos)
            self._state = _VALUE  # (a value that must wait for more text starts only once)
        return self._value_start(text, pos)

    # -- structure ---------------------------------------------------------------------------

    def _out(self, piece: str, pos: int) -> None:
        if self._written + len(piece) > self._room:
            raise _Failure(self._room_error, pos, limit=True)
        self._written += len(piece)
        self._write(piece)

    def _item_start(self, pos: int) -> None:
        """A list's element or a dict's key begins."""
        frame = self._frames[-1]
        if frame.count:
            self._out(",", pos)
        frame.count += 1
        frame.comma = False
        self._key = frame.close == _DICT

    def _after_item(self, text: str, pos: int) -> int:
        frame = self._frames[-1]
        char = text[pos]
        if self._key:  # a dict's key: ":" must follow
            if char == ":":
                self._key = False
                self._out(":", pos)
                self._state = _VALUE
                return pos + 1
            raise _Failure("a set, or a dict key without its value (only dicts are read)", pos)
        if char == ",":
            frame.comma = True
            self._state = _ITEM
            return pos + 1
        if char in _CLOSERS:
            return self._close(char, pos)
        raise _Failure(f"unexpected {char!r} after a value", pos)

    def _close(self, char: str, pos: int) -> int:
        frames = self._frames
        frame = frames[-1]
        if char != frame.close or (self._key and frame.close == _DICT and self._state == _AFTER_ITEM):
            raise _Failure(f"unexpected {char!r}", pos)
        if len(frames) == 1:
            self._out("}", pos)
            self.status = DONE
            return pos + 1
        if frame.keys is None and frame.close == _TUPLE and frame.count == 1 and not frame.comma:
            raise _Failure("a value in parentheses (a tuple of one is written (x,))", pos)
        self._out("}" if frame.close == _DICT else "]", pos)
        frames.pop()
        self._value_done()
        return pos + 1

    def _open(self, close: str, pos: int) -> int:
        if self._key:
            raise _Failure("a dict key must be a string, a number, a boolean or None", pos)
        if len(self._frames) >= self._max_depth:
            raise _Failure(f"arguments nest deeper than max_json_depth={self._max_depth}", pos)
        self._out("{" if close == _DICT else "[", pos)
        # A tuple is told from the call by its depth: only the bottom frame is the call.
        self._frames.append(_Frame(close, close == _DICT))
        self._state = _ITEM
        return pos + 1

    def _value_done(self) -> None:
        self._state = _AFTER_ITEM

    def _scalar(self, json_text: str, pos: int) -> None:
        """A complete value other than a string: written whole (quoted, as a dict's key)."""
        if self._key:
            self._note_key(json_text, pos)
            json_text = f'"{json_text}"'
        self._out(json_text, pos)
        self._value_done()

    def _note_key(self, key: str, pos: int) -> None:
        keys = self._frames[-1].keys
        assert keys is not None
        if key in keys:
            raise _Failure(f"the key {key!r} is repeated", pos)
        keys.add(key)

    # -- keywords --------------------------------------------------------------------------------

    def _keyword(self, text: str, pos: int) -> int:
        match = _WORD_CHARS.match(text, pos, pos + _MAX_WORD + 1)
        assert match is not None
        self._token.append(match.group())
        if sum(map(len, self._token)) > _MAX_WORD:
            raise _Failure("a keyword too long", pos)
        if match.end() == len(text):
            return match.end()
        self._state = _EQUALS
        return match.end()

    def _equals(self, text: str, pos: int) -> int:
        if text[pos] != "=":
            raise _Failure("a positional argument (only keyword arguments are read)", pos)
        if pos + 1 == len(text):
            return pos  # "==" is a comparison: wait for the next character
        if text[pos + 1] == "=":
            raise _Failure("an expression, not a keyword argument", pos)
        name = "".join(self._token)
        self._note_key(name, pos)
        frame = self._frames[0]
        self._out(("," if frame.count else "") + f"{_encode(name).decode()}:", pos)
        frame.count += 1
        self._state = _VALUE
        return pos + 1

    # -- values ------------------------------------------------------------------------------------

    def _value_start(self, text: str, pos: int) -> int:
        char = text[pos]
        if char in "'\"":
            return self._string_start(text, pos, pos, raw=False)
        if char in "0123456789.":
            self._token = []
            self._negative = False
            self._state = _NUMBER
            return pos
        if char == "-":
            if pos + 1 == len(text):
                return pos
            if text[pos + 1] not in "0123456789.":
                raise _Failure("an expression, not a literal", pos)
            self._token = []
            self._negative = True
            self._state = _NUMBER
            return pos + 1
        if char.isidentifier():
            self._token = []
            self._state = _WORD
            return pos
        if char == "[":
            return self._open(_LIST, pos)
        if char == "(":
            return self._open(_TUPLE, pos)
        if char == "{":
            return self._open(_DICT, pos)
        raise _Failure(f"unexpected {char!r} where a value should be", pos)

    def _string_start(self, text: str, pos: int, at: int, *, raw: bool) -> int:
        """A string opens at ``at`` (``pos``: where its prefix began)."""
        quote = text[at]
        if at + 2 >= len(text):
            return pos  # is it '' or '''? wait for two more characters
        triple = text.startswith(quote * 3, at)
        self._quote = quote
        self._triple = triple
        self._raw = raw
        self._key_chars = []
        self._out('"', pos)
        self._state = _STRING
        return at + (3 if triple else 1)

    def _chars(self, chars: str, pos: int) -> None:
        """A string's characters (``pos``: where they are in the text)."""
        if not chars:
            return
        piece = _json_string(chars)
        if self._written + len(piece) > self._room:
            # As many characters as fit, so that the limit cuts at the same character
            # however the text was chunked.
            room = self._room - self._written
            fit = 0
            for char in chars:
                room -= len(_json_string(char))
                if room < 0:
                    break
                fit += 1
            if fit:
                self._out(_json_string(chars[:fit]), pos)
            raise _Failure(self._room_error, pos + fit, limit=True)
        if self._key:
            self._key_chars.append(chars)
        self._out(piece, pos)

    def _string(self, text: str, pos: int) -> int:
        quote = self._quote
        stops = _STRING_STOPS[quote, self._triple]
        end = len(text)
        while pos < end:
            found = stops.search(text, pos)
            stop = found.start() if found is not None else end
            self._chars(text[pos:stop], pos)
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
                self._chars(quote * count, pos)
                pos += count
            elif char in "\r\n":
                raise _Failure("a line end inside a one-line string", pos)
            else:
                after = self._escape(text, pos)
                if after == pos:
                    return pos  # an escape cut by the chunk's end
                pos = after
        return pos

    def _string_end(self, pos: int) -> int:
        self._value_done()  # (a failure from here on is outside the string)
        if self._key:
            self._note_key("".join(self._key_chars), pos)
            self._key_chars = []
        self._out('"', pos)
        return pos

    def _escape(self, text: str, pos: int) -> int:
        """A backslash at ``pos``: where the escape ends (``pos`` if it is cut off)."""
        end = len(text)
        if pos + 1 == end:
            return pos
        char = text[pos + 1]
        if self._raw:  # a raw string keeps the backslash, and the quote after it
            self._chars(text[pos : pos + 2], pos)
            return pos + 2
        simple = _SIMPLE_ESCAPES.get(char)
        if simple is not None:
            self._chars(simple, pos)
            return pos + 2
        digits = _HEX_ESCAPES.get(char)
        if digits is not None:
            if pos + 2 + digits > end:
                return pos
            try:
                code = int(text[pos + 2 : pos + 2 + digits], 16)
            except ValueError:
                raise _Failure(f"a malformed \\{char} escape", pos) from None
            if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                raise _Failure(f"\\{char} escapes a surrogate or no character", pos)
            self._chars(chr(code), pos)
            return pos + 2 + digits
        if char in _OCTAL:
            stop = pos + 2
            while stop < end and stop < pos + 4 and text[stop] in _OCTAL:
                stop += 1
            if stop == end and stop < pos + 4:
                return pos  # more octal digits may follow
            self._chars(chr(int(text[pos + 1 : stop], 8)), pos)
            return stop
        if char == "N":
            raise _Failure("a \\N{...} escape (not read)", pos)
        self._chars("\\" + char, pos)  # an unknown escape keeps its backslash
        return pos + 2

    def _number(self, text: str, pos: int) -> int:
        end = len(text)
        while True:
            match = _NUMBER_CHARS.match(text, pos)
            assert match is not None
            self._token.append(match.group())
            pos = match.end()
            if sum(map(len, self._token)) > _MAX_NUMBER:
                raise _Failure("a number too long", pos)
            if pos == end:
                return pos
            # A sign belongs to the number right after a decimal exponent's "e".
            token = "".join(self._token)
            if text[pos] in "+-" and token[-1:] in ("e", "E") and _is_float(token):
                self._token.append(text[pos])
                pos += 1
                continue
            break
        try:
            if _is_float(token):
                value: int | float = float(token)
                if not math.isfinite(value):
                    raise _Failure(f"{token} is not a finite number", pos)
            else:
                value = int(token, 0)
        except ValueError:
            raise _Failure(f"{token!r} is not a number", pos) from None
        self._scalar(_encode(-value if self._negative else value).decode(), pos)
        return pos

    def _word(self, text: str, pos: int) -> int:
        match = _WORD_CHARS.match(text, pos, pos + _MAX_WORD + 1)
        assert match is not None
        self._token.append(match.group())
        pos = match.end()
        word = "".join(self._token)
        if len(word) > _MAX_WORD:
            raise _Failure("a name too long", pos)
        if pos == len(text):
            return pos
        char = text[pos]
        if char in "'\"":
            if word in ("u", "U", "r", "R"):
                return self._string_start(text, pos, pos, raw=word in ("r", "R"))
            raise _Failure(f"a {word}-prefixed string (bytes or an f-string) is not a literal value", pos)
        literal = _LITERALS.get(word)
        if literal is None:
            what = "a call" if char == "(" else "a name"
            raise _Failure(f"{what} ({word}) where a literal value should be", pos)
        self._scalar(literal, pos)
        return pos

    # -- after a failure --------------------------------------------------------------------------

    def _start_skipping(self) -> None:
        depth = len(self._frames) - 1
        if self._state == _STRING:
            self._skipper = Skipper(")", depth=depth, quote=self._quote, triple=self._triple, raw=self._raw)
        else:
            self._skipper = Skipper(")", depth=depth)
        self._state = _SKIP

    def _skip(self, text: str, pos: int) -> int:
        skipper = self._skipper
        assert skipper is not None
        pos = skipper.feed(text, pos)
        if skipper.stop == ")":
            self.status = FAILED
            return pos + 1
        if skipper.stop:
            self.status = BROKEN
        return pos


def _is_float(token: str) -> bool:
    """Is this number token a float (a decimal one with a point or an exponent)?"""
    if token[:2].lower() in ("0x", "0o", "0b"):
        return False
    return "." in token or "e" in token or "E" in token


class Skipper:
    """Follows Python text that failed to its end, in constant memory.

    It counts brackets outside strings and stops (without consuming it) at
    one of ``ends`` (closing brackets, maybe ``,``) at depth 0, or at another
    closing bracket there, which closes nothing it opened: ``stop`` says which.
    """

    __slots__ = ("_depth", "_ends", "_quote", "_raw", "_triple", "stop")

    def __init__(
        self, ends: str, *, depth: int = 0, quote: str = "", triple: bool = False, raw: bool = False
    ) -> None:
        self._ends = ends
        self._depth = depth
        self._quote = quote  # inside a string
        self._triple = triple
        self._raw = raw
        self.stop = ""

    def feed(self, text: str, pos: int) -> int:
        end = len(text)
        while pos < end:
            if self._quote:
                stops = _STRING_STOPS[self._quote, self._triple]
                found = stops.search(text, pos)
                if found is None:
                    return end
                pos = found.start()
                char = text[pos]
                if char == "\\":
                    if pos + 1 == end:
                        return pos
                    pos += 2
                elif char in "\r\n":
                    self._quote = ""  # a one-line string broken by the line end: count on outside it
                    pos += 1
                elif not self._triple:
                    self._quote = ""
                    pos += 1
                elif text.startswith(self._quote * 3, pos):
                    self._quote = ""
                    pos += 3
                elif pos + 3 > end and self._quote * (end - pos) == text[pos:]:
                    return pos
                else:
                    pos += 1
                continue
            found = _SKIP_OUTSIDE.search(text, pos)
            if found is None:
                return end
            pos = found.start()
            char = text[pos]
            if char in "'\"":
                if pos + 2 >= end:
                    return pos  # '' or '''? wait
                self._triple = text.startswith(char * 3, pos)
                self._quote = char
                pos += 3 if self._triple else 1
            elif char in "([{":
                self._depth += 1
                pos += 1
            elif char == ",":
                if not self._depth and "," in self._ends:
                    self.stop = char
                    return pos
                pos += 1
            elif self._depth:
                self._depth -= 1
                pos += 1
            else:
                self.stop = char  # a closer at depth 0: one of ends, or one that breaks the text
                return pos
        return pos

    @property
    def broken(self) -> bool:
        return bool(self.stop) and self.stop not in self._ends
