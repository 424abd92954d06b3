"""What a function's docstring says about it: a summary, and a description per parameter.

Read for :meth:`Tool.from_function <streamcalls.Tool.from_function>`: the
tool's description is the docstring's first paragraph, and each parameter's
description comes from a Google-style section (``Args:``, ``Arguments:``,
``Parameters:``, ``Keyword Args:``)::

    Args:
        city: The city's name.
        days (int): How many days ahead,
            from 1 to 7.

from a numpy-style section (a ``Parameters`` line underlined with dashes;
``Other Parameters`` too)::

    Parameters
    ----------
    city : str
        The city's name.
    days : int, optional
        How many days ahead.

or from Sphinx fields (``:param city: The city's name.``, also
``:param str city: ...``), each continued on more indented lines.  The text
is taken as written, one paragraph joined into one line; nothing else of the
docstring (return values, examples) is sent to the model.
"""

from __future__ import annotations

import re

__all__ = ("parameter_descriptions", "summary")

# A Google section that lists parameters, on a line of its own.
_GOOGLE_HEADER = re.compile(r"(?:Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments):\s*")
# An entry of that section: "name: text", "name (type): text", "*args: text".
_GOOGLE_ENTRY = re.compile(r"\**(?P<name>\w+)\s*(?:\([^)]*\))?\s*:(?:\s+(?P<text>.*))?")
# ":param name: text" or ":param type name: text" (Sphinx, reST field lists).
_SPHINX_PARAM = re.compile(r":param\s+(?:[^:]*\s)?\**(?P<name>\w+)\s*:(?:\s+(?P<text>.*))?")
# Any reST field (":returns:", ":raises ValueError:") ends the summary and the previous field.
_SPHINX_FIELD = re.compile(r":\w[^:]*:")
# A numpy section's underline, and the sections that list parameters.
_NUMPY_UNDERLINE = re.compile(r"-{3,}")
_NUMPY_PARAMETERS = frozenset({"Parameters", "Other Parameters", "Keyword Arguments", "Arguments"})
# A numpy entry: "name", "name : type", "x, y : float", "*args".
_NUMPY_ENTRY = re.compile(r"(?P<names>\**\w+(?:\s*,\s*\**\w+)*)\s*(?::.*)?")


def summary(doc: str) -> str:
    """The first paragraph of a cleaned docstring (``inspect.getdoc``), on one line.

    The paragraph ends at a blank line, a Google section header, a numpy
    section header (a line underlined with dashes) or a reST field, whichever
    comes first.
    """
    lines: list[str] = []
    rows = doc.splitlines()
    for number, line in enumerate(rows):
        stripped = line.strip()
        if (
            not stripped
            or _GOOGLE_HEADER.fullmatch(stripped)
            or _SPHINX_FIELD.match(stripped)
            or _numpy_header(rows, number)
        ):
            if lines or stripped:
                break
            continue
        lines.append(stripped)
    return " ".join(lines)


def parameter_descriptions(doc: str) -> dict[str, str]:
    """Each documented parameter's description, by name (Google, then numpy sections, then Sphinx fields)."""
    found: dict[str, str] = {}
    for name, text in (*_google(doc), *_numpy(doc), *_sphinx(doc)):
        if text and name not in found:
            found[name] = text
    return found


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _numpy_header(rows: list[str], number: int) -> bool:
    """Whether line ``number`` is a numpy section's title: text, then a line of dashes at its indentation."""
    if number + 1 >= len(rows) or not rows[number].strip():
        return False
    underline = rows[number + 1]
    return _NUMPY_UNDERLINE.fullmatch(underline.strip()) is not None and _indent(underline) == _indent(
        rows[number]
    )


def _google(doc: str) -> list[tuple[str, str]]:
    entries: list[tuple[str, list[str]]] = []
    header: int | None = None  # the section header's indentation, while inside a section
    entry_indent: int | None = None
    for line in doc.splitlines():
        stripped = line.strip()
        if header is None:
            if _GOOGLE_HEADER.fullmatch(stripped):
                header, entry_indent = _indent(line), None
            continue
        if not stripped:
            continue  # blank lines inside a section
        indent = _indent(line)
        if indent <= header:  # the section ended; another may begin on this very line
            header = _indent(line) if _GOOGLE_HEADER.fullmatch(stripped) else None
            entry_indent = None
            continue
        if entry_indent is None:
            entry_indent = indent
        if indent == entry_indent:
            match = _GOOGLE_ENTRY.fullmatch(stripped)
            if match is not None:
                entries.append((match["name"], [match["text"] or ""]))
                continue
        if entries and indent > entry_indent:
            entries[-1][1].append(stripped)
    return [(name, _joined(parts)) for name, parts in entries]


def _numpy(doc: str) -> list[tuple[str, str]]:
    """Entries of numpy ``Parameters`` sections: names at the title's indentation, text indented below."""
    entries: list[tuple[list[str], list[str]]] = []
    rows = doc.splitlines()
    section: int | None = None  # the section title's indentation, while inside a parameters section
    current: list[str] | None = None  # the text of the entry being read
    skip = False
    for number, line in enumerate(rows):
        if skip:  # the underline of the title just read
            skip = False
            continue
        if _numpy_header(rows, number):
            section = _indent(line) if line.strip() in _NUMPY_PARAMETERS else None
            current, skip = None, True
            continue
        stripped = line.strip()
        if section is None or not stripped:
            continue
        indent = _indent(line)
        if indent < section:
            section = current = None
        elif indent == section:
            match = _NUMPY_ENTRY.fullmatch(stripped)
            if match is None:
                current = None
            else:
                names = [name.strip().lstrip("*") for name in match["names"].split(",")]
                current = []
                entries.append((names, current))
        elif current is not None:
            current.append(stripped)
    return [(name, _joined(parts)) for names, parts in entries for name in names]


def _sphinx(doc: str) -> list[tuple[str, str]]:
    entries: list[tuple[str, list[str]]] = []
    field_indent: int | None = None  # the current :param field's indentation
    for line in doc.splitlines():
        stripped = line.strip()
        match = _SPHINX_PARAM.match(stripped)
        if match is not None:
            entries.append((match["name"], [match["text"] or ""]))
            field_indent = _indent(line)
        elif field_indent is not None and stripped and _indent(line) > field_indent:
            entries[-1][1].append(stripped)
        else:
            field_indent = None  # a blank line, another field, or text at the field's level
    return [(name, _joined(parts)) for name, parts in entries]


def _joined(parts: list[str]) -> str:
    return " ".join(part for part in parts if part)
