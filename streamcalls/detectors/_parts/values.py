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
say a value is JSON whatever its schema (DSML's ``string="false"``): :func:`json_value`; or write
its type itself (Kimi K3's ``type="number"``): :func:`declared_json`, where a value that is not of
that type is no value at all.  A format whose template prints values with Python (Seed-OSS's
``| string``) also reads Python's spellings (``python=True``): ``True`` / ``False`` for a boolean,
``None`` for null, a Python literal (``{'a': 1}``, ``['x', None]``) for an object or an array.
"""

from __future__ import annotations

import re

import msgspec

from .._engine.tools import ARRAY, BOOLEAN, INTEGER, NUMBER, OBJECT, STRING
from .pyliteral import literal_json

__all__ = ("NULL", "convert", "declared_json", "json_value", "value_json")

NULL = "null"  # a type a format may declare: the value must be null

_TRIM = " \t\r\n"
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")

_encode = msgspec.json.encode
_decode = msgspec.json.decode


_PYTHON_BOOLEANS = {"True": "true", "False": "false"}


def value_json(kind: str, raw: str, *, python: bool = False) -> str:
    """The JSON text of a whole value of a type other than string: converted, None, or the string."""
    text = raw.strip(_TRIM)
    if text == "null" or (python and text == "None"):
        return "null"
    converted = convert(kind, raw, python=python)
    return converted if converted is not None else _encode(raw).decode()


def convert(kind: str, raw: str, *, python: bool = False) -> str | None:
    """The compact JSON text of a value of a type other than string, or None: it stays a string.

    ``raw`` is the value as written; it is converted after trimming.  ``null`` is handled
    by the caller (it depends on whether the parameter admits null).  ``python``: Python's
    spellings of booleans and literals count too.
    """
    text = raw.strip(_TRIM)
    if python and kind == BOOLEAN and text in _PYTHON_BOOLEANS:
        return _PYTHON_BOOLEANS[text]
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
        opener = "{" if kind == OBJECT else "["
        found = _json(text) if text.startswith(opener) else None
        if found is None and python and text[:1] in ("{", "[", "("):
            found = literal_json(text)  # {'a': 1}, ['x', None], (1, 2)
            if found is not None and not found.startswith(opener):
                found = None
        return found
    return None


def _json(text: str) -> str | None:
    """``text`` as compact JSON, or None if it is no JSON."""
    try:
        value = _decode(text)
    except (msgspec.DecodeError, RecursionError):
        return None
    return _encode(value).decode()


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


_DECLARED: dict[str, tuple[type, ...]] = {
    NUMBER: (int, float),
    INTEGER: (int,),
    BOOLEAN: (bool,),
    OBJECT: (dict,),
    ARRAY: (list,),
    NULL: (type(None),),
}


def declared_json(raw: str, kind: str) -> str | None:
    """The JSON text of a value whose markup declares its JSON type (``number``, ``integer``,
    ``boolean``, ``null``, ``object``, ``array``): the value parsed as JSON, or None when it is
    none or not of that type."""
    try:
        value = _decode(raw.strip(_TRIM))
    except (msgspec.DecodeError, RecursionError):
        return None
    types = _DECLARED.get(kind, ())
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
        return None
    return _encode(value).decode()
