"""What the XML call formats share: named text values written as the arguments' JSON, as they arrive.

``qwen3_coder``, ``glm`` and ``minimax`` write a call as a name and then parameters, each a key
and a bare text value between tags.  :class:`ParamCall` turns those into the JSON text of the
arguments object, written left to right (issue 15, rule 4): ``{"city":"`` when a string value
begins, its characters (escaped) as they arrive, ``","days":3`` when a value of another type has
ended and been typed (:mod:`.values`), ``}`` at the call's end marker.  Those pieces are the
call's ``ToolCallDelta`` fragments, so concatenated they are the compact JSON of
``call.arguments`` and partial arguments work as for any provider.

:func:`value_end` finds where a value ends.  A value may hold newlines, ``<`` and even its own
closing tag: a closer (``</parameter>``) ends the value only where what follows it -- after at
most :data:`MAX_GAP` blanks -- is markup that may come next (``<parameter=``, ``</function>``);
anything else after it makes the closer part of the value.  Until that is known, the closer and
what follows it wait (they are held, not consumed), and so does the one line end before the
closer that Qwen's markup owns.  A format may also name the call's end tag as a *break*
(:attr:`Closer.breaks`): where one stands -- followed by what may follow a call's end -- before
the value's closer, the value was never closed and its call fails there (Seed-OSS, Step3).

What the detector consumes is markup (the channel records it); the arguments fed to the call
assembler are JSON of the detector's making, not the text, so a failed call's ``raw`` is its
markup as written.  A call that breaks a size limit fails there: its ``raw`` is its markup up to
the character whose JSON crossed the limit (the same character for any chunking), and the rest
of its markup is followed to its end and dropped.
"""

from __future__ import annotations

import re
from enum import IntEnum
from typing import NamedTuple

import msgspec

from ..._call import OPEN, Call
from ..._calls import CallAssembler
from .._engine.detector import prefixes
from .._engine.markup import Markup
from .._engine.shared import MAX_GAP
from .._engine.tokens import literal_prefix_at
from .._engine.tools import STRING, ParameterType, ToolTypes
from .values import declared_json, json_value, value_json

__all__ = (
    "MAX_GAP",
    "MAX_NAME",
    "As",
    "Closer",
    "ParamCall",
    "valid_name",
    "value_end",
)

MAX_NAME = 256  # longest tool name or parameter key
_BAD_NAME = re.compile(r"[\s<>{}\[\]()\"'`\\,;=|]")
_GAP = re.compile(f"[ \\t\\r\\n]{{0,{MAX_GAP + 1}}}")
_NULL = "null"

_encode = msgspec.json.encode


def valid_name(name: str) -> bool:
    """A tool name: not empty, no blanks, quotes, brackets or other punctuation of the markup."""
    return bool(name) and len(name) <= MAX_NAME and _BAD_NAME.search(name) is None


class As(IntEnum):
    """How a parameter's value is typed: what its markup says, else its schema."""

    SCHEMA = 0  # by the tool's schema (the XML formats' values carry no type)
    STRING = 1  # a string whatever the schema (DSML's string="true")
    JSON = 2  # JSON whatever the schema (DSML's string="false"); if it is none, by the schema
    DECLARED = 3  # the JSON type the markup declares (Kimi K3's type="number"); none fails the call


_JSON = "json"  # the kind of a value read as JSON
_DECLARED = "declared"  # the kind of a value of a declared JSON type
_PLAIN_STRING = ParameterType(STRING, nullable=False)


class Closer(NamedTuple):
    """How a format's values end."""

    close: str  # the closing tag
    followers: tuple[str, ...]  # what may follow it (after blanks) for it to end the value
    newline: bool = False  # one line end before the closing tag is markup (Qwen)
    # The call's end tags: one of them before the closing tag, followed (after blanks) by one of
    # ``break_followers``, means the value was never closed.
    breaks: tuple[str, ...] = ()
    break_followers: tuple[str, ...] = ()

    @property
    def partial(self) -> re.Pattern[str]:
        return _partial((self.close, *self.breaks))

    @property
    def tags(self) -> re.Pattern[str]:
        """The closing tag or a break, wherever one stands."""
        return _tags((self.close, *self.breaks))


_PARTIALS: dict[tuple[str, ...], re.Pattern[str]] = {}
_TAGS: dict[tuple[str, ...], re.Pattern[str]] = {}


def _partial(tags: tuple[str, ...]) -> re.Pattern[str]:
    pattern = _PARTIALS.get(tags)
    if pattern is None:
        pattern = _PARTIALS[tags] = re.compile("(?:" + "|".join(map(prefixes, tags)) + r")\Z")
    return pattern


def _tags(tags: tuple[str, ...]) -> re.Pattern[str]:
    pattern = _TAGS.get(tags)
    if pattern is None:
        pattern = _TAGS[tags] = re.compile("|".join(map(re.escape, tags)))
    return pattern


def value_end(text: str, pos: int, closer: Closer) -> tuple[int, int]:
    """Where the value that continues at ``pos`` ends.

    Returns ``(stop, close)``: the value surely runs on to ``stop``; ``close`` is where its
    closing tag (or one of the closer's breaks) begins once that is known (the value is
    ``text[pos:stop]``), else -1 and what follows ``stop`` must wait for more text.
    """
    if closer.breaks:
        return _value_end_or_break(text, pos, closer)
    close = closer.close
    end = len(text)
    search = pos
    while True:
        at = text.find(close, search)
        if at < 0:
            held = closer.partial.search(text, max(search, end - len(close)))
            return _before_newline(text, pos, held.start() if held is not None else end, closer), -1
        after = at + len(close)
        found = _followed(text, after, closer.followers)
        if found == _FOLLOWED:
            return _before_newline(text, pos, at, closer), at
        if found == _WAIT:
            return _before_newline(text, pos, at, closer), -1
        search = after


_FOLLOWED, _WAIT, _NOT = 1, 0, -1


def _followed(text: str, after: int, followers: tuple[str, ...]) -> int:
    """Does one of ``followers`` follow ``after`` (after at most MAX_GAP blanks)? _WAIT: maybe."""
    gap = _GAP.match(text, after)
    assert gap is not None
    follows = gap.end()
    if follows - after > MAX_GAP:  # too far from any markup: the tag is text of the value
        return _NOT
    if follows == len(text):
        return _WAIT
    found = literal_prefix_at(text, follows, followers)
    return _FOLLOWED if found >= 0 else _WAIT if found == -2 else _NOT


def _value_end_or_break(text: str, pos: int, closer: Closer) -> tuple[int, int]:
    """:func:`value_end` for a closer with breaks: the first closing tag or break that stands
    where markup may follow it."""
    end = len(text)
    tags = closer.tags
    search = pos
    while True:
        match = tags.search(text, search)
        if match is None:
            longest = max(len(closer.close), *map(len, closer.breaks))
            held = closer.partial.search(text, max(search, end - longest))
            return _before_newline(text, pos, held.start() if held is not None else end, closer), -1
        at = match.start()
        tag = match.group()
        found = _followed(
            text, match.end(), closer.followers if tag == closer.close else closer.break_followers
        )
        if found == _FOLLOWED:
            return _before_newline(text, pos, at, closer), at
        if found == _WAIT:
            return _before_newline(text, pos, at, closer), -1
        search = match.end()


def _before_newline(text: str, pos: int, at: int, closer: Closer) -> int:
    """``at``, or one before it where Qwen's line end before the closing tag may stand there."""
    if closer.newline and at > pos and text[at - 1] == "\n":
        return at - 1
    return at


class ParamCall:
    """One call of an XML format: its arguments written as JSON while its parameters arrive.

    The detector says where things are in the text it was given (positions in the markup's
    attached text): :meth:`parameter` when a value begins, :meth:`value` for each piece of it,
    :meth:`end_parameter` where it ends, :meth:`end` at the call's end marker.  A call past
    ``max_calls`` (``call`` None) or one that failed takes all that and writes nothing.
    """

    __slots__ = (
        "_buffer",
        "_buffered",
        "_calls",
        "_count",
        "_fallback",
        "_held",
        "_keys",
        "_markup",
        "_prefix",
        "_python",
        "_type",
        "_types",
        "call",
        "name",
    )

    def __init__(
        self, calls: CallAssembler, markup: Markup, types: ToolTypes, name: str, *, python: bool = False
    ) -> None:
        self._calls = calls
        self._python = python  # values also in Python's spellings (see .values)
        self._markup = markup
        self._types = types
        self.name = name
        self.call: Call | None = markup.open_call(None, name, deferred=True)  # None: past max_calls
        self._keys: set[str] = set()
        self._count = 0
        self._type: ParameterType | None = None  # the current value's type; None: no value open
        self._prefix = ""  # its key, to be written with the value's first piece
        self._held: str | None = None  # a nullable string's value while it may still be "null"
        self._buffer: list[str] = []  # a value of another type, until it ends
        self._buffered = 0
        self._fallback = STRING  # a JSON value's schema kind, for when it is no JSON (or its declared type)

    @property
    def live(self) -> bool:
        call = self.call
        return call is not None and call.status == OPEN

    # -- values ------------------------------------------------------------------

    def parameter(self, key: str, at: int, typed: As = As.SCHEMA, declared: str = "") -> None:
        """A parameter's value begins at ``at``; ``typed`` says how it is typed (``declared``: the
        JSON type the markup declares, for As.DECLARED)."""
        self._type = None
        if not self.live:
            return
        if key in self._keys:
            self.fail(f"parameter {key!r} is given twice")
            return
        self._keys.add(key)
        ptype = self._types.of(self.name, key)
        if typed is As.STRING:
            ptype = _PLAIN_STRING
        elif typed is As.JSON:
            self._fallback = ptype.kind
            ptype = ParameterType(_JSON, ptype.nullable)
        elif typed is As.DECLARED:
            self._fallback = declared
            ptype = ParameterType(_DECLARED)
        self._type = ptype
        self._prefix = ("," if self._count else "{") + _encode(key).decode() + ":"
        self._count += 1
        self._buffer.clear()
        self._buffered = 0
        self._held = None
        if ptype.kind == STRING:
            if ptype.nullable:
                self._held = ""
            else:
                self._write(self._prefix + '"', at)

    def value(self, text: str, start: int, stop: int) -> None:
        """``text[start:stop]`` is more of the value."""
        ptype = self._type
        if ptype is None or start >= stop or not self.live:
            return
        if ptype.kind != STRING:
            self._buffer_value(text, start, stop)
            return
        held = self._held
        if held is not None:
            piece = held + text[start:stop]
            if _NULL.startswith(piece):  # may still be null: wait
                self._held = piece
                return
            self._held = None
            self._write(self._prefix + '"' + _encode(held).decode()[1:-1], start)
            if not self.live:
                return
        self._write_string(text, start, stop)

    def end_parameter(self, at: int) -> None:
        """The value ended at ``at``."""
        ptype = self._type
        self._type = None
        if ptype is None or not self.live:
            return
        if ptype.kind == _JSON:
            self._write(self._prefix + json_value("".join(self._buffer), self._fallback), at)
            self._buffer.clear()
        elif ptype.kind == _DECLARED:
            found = declared_json("".join(self._buffer), self._fallback)
            self._buffer.clear()
            if found is None:
                self.fail(f"a value that is not of its declared type {self._fallback!r}")
                return
            self._write(self._prefix + found, at)
        elif ptype.kind != STRING:
            self._write(self._prefix + value_json(ptype.kind, "".join(self._buffer), python=self._python), at)
            self._buffer.clear()
        elif self._held is not None:
            held = self._held
            self._held = None
            self._write(self._prefix + ("null" if held == _NULL else _encode(held).decode()), at)
        else:
            self._write('"', at)

    def member(self, key: str, json_text: str, at: int) -> None:
        """A parameter whose whole value is known, as JSON text (a tree of elements read whole)."""
        if not self.live:
            return
        if key in self._keys:
            self.fail(f"parameter {key!r} is given twice")
            return
        self._keys.add(key)
        self._write(("," if self._count else "{") + _encode(key).decode() + ":" + json_text, at)
        self._count += 1

    # -- the call ------------------------------------------------------------------

    def end(self, at: int) -> None:
        """The call's end marker, at ``at``: it completes (or, with a value still open, fails)."""
        if self._type is not None:
            self.fail("a parameter's value was never closed")
            return
        if not self.live:
            return
        self._write("}" if self._count else "{}", at)
        call = self.call
        if call is not None and call.status == OPEN:
            self._calls.end(call)

    def fail(self, error: str) -> None:
        """The markup is malformed: the call fails when its markup ends."""
        self._type = None
        call = self.call
        if call is not None and call.status == OPEN:
            self._markup.fail(error, call)

    # -- writing ---------------------------------------------------------------------

    def _write(self, piece: str, at: int) -> None:
        call = self.call
        assert call is not None
        self._markup.consumed(at)  # a limit that this piece breaks ends the raw text here
        self._calls.feed(call, piece)

    def _write_string(self, text: str, start: int, stop: int) -> None:
        call = self.call
        assert call is not None
        piece = _encode(text[start:stop] if start or stop < len(text) else text).decode()[1:-1]
        limits = self._calls.limits
        room = min(limits.max_arguments_bytes - call.size, limits.max_buffered_bytes - self._calls.held)
        at = stop
        if len(piece) > room:  # the raw text ends before the first character whose JSON crosses the limit
            at = start
            used = 0
            while at < stop:
                width = len(_encode(text[at]).decode()) - 2
                if used + width > room:
                    break
                used += width
                at += 1
        self._markup.consumed(at)
        self._calls.feed(call, piece)

    def _buffer_value(self, text: str, start: int, stop: int) -> None:
        room = self._calls.limits.max_arguments_bytes - self._buffered
        if stop - start > room:  # a value no call could hold: the call fails at the limit
            call = self.call
            assert call is not None
            self._markup.consumed(start + room)
            limit = self._calls.limits.max_arguments_bytes
            self._calls.fail(call, f"a parameter's value exceeds max_arguments_bytes={limit}", limit=True)
            self._buffer.clear()
            return
        self._buffer.append(text[start:stop])
        self._buffered += stop - start
