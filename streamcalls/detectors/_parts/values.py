"""Converting the bare-text values of the XML formats to their parameter's type (issue 15, rule 1).

The type comes from the tool's schema (:class:`~streamcalls.detectors._engine.tools.ToolTypes`):

- ``string``: kept as it is;
- ``integer``: an int (a JSON integer literal: ``3``, ``-12``, big ones too);
- ``number``: an exact int for an integer literal, else a float (a JSON number literal);
- ``boolean``: only ``true`` / ``false``;
- ``object`` / ``array``: parsed as JSON, and only a JSON object (array) converts;
- ``null`` is None for every type but a string, and for a string only if its schema allows
  null;
- a value that does not convert stays a string (the text as it was, untrimmed).

Values of other types are converted after trimming blanks and line ends.  A format may also
say a value is JSON whatever its schema (DSML's ``string="false"``): :func:`json_value`.
"""

from __future__ import annotations

import re

import msgspec

from .._engine.tools import ARRAY, BOOLEAN, INTEGER, NUMBER, OBJECT, STRING

__all__ = ("convert", "json_value", "value_json")

_TRIM = " \t\r\n"
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")

_encode = msgspec.json.encode
_decode = msgspec.json.decode


def value_json(kind: str, raw: str) -> str:
    """The JSON text of a whole value of a type other than string: converted, None, or the string."""
    if raw.strip(_TRIM) == "null":
        return "null"
    converted = convert(kind, raw)
    return converted if converted is not None else _encode(raw).decode()


def convert(kind: str, raw: str) -> str | None:
    """The compact JSON text of a value of a type other than string, or None: it stays a string.

    ``raw`` is the value as written; it is converted after trimming.  ``null`` is handled
    by the caller (it depends on whether the parameter admits null).
    """
    text = raw.strip(_TRIM)
    if kind == INTEGER:
        return _number(text) if _INTEGER.fullmatch(text) else None
    if kind == NUMBER:
        if _INTEGER.fullmatch(text):
            return _number(text)
        if _NUMBER.fullmatch(text):
            return _number(text)
        return None
    if kind == BOOLEAN:
        return text if text in ("true", "false") else None
    if kind in (OBJECT, ARRAY):
        if not text.startswith("{" if kind == OBJECT else "["):
            return None
        try:
            value = _decode(text)
        except (msgspec.DecodeError, RecursionError):
            return None
        return _encode(value).decode()
    return None


def _number(text: str) -> str | None:
    """A JSON number literal as msgspec writes it (``1E3`` -> ``1000.0``); None past its range."""
    try:
        value = _decode(text)
    except msgspec.DecodeError:  # out of range: 1e400, an int of over 4300 digits
        return None
    return _encode(value).decode()


def json_value(raw: str, kind: str) -> str:
    """The JSON text of a value the markup says is JSON whatever its schema (DSML's
    ``string="false"``): compact; if it is no JSON, typed by its schema's ``kind`` as any
    bare value is (:func:`value_json`), and for a string the text as it was."""
    try:
        value = _decode(raw.strip(_TRIM))
    except (msgspec.DecodeError, RecursionError):
        return value_json(kind, raw) if kind != STRING else _encode(raw).decode()
    return _encode(value).decode()
