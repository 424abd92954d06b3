"""The resumable JSON scanner finds the end of a value across any fragmentation."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from streamcalls._jsonscan import COMPLETE, SCALAR, TOO_DEEP, JsonScanner


def split_text(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c for c in cuts if 0 < c < len(text)})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


json_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12
) | st.sampled_from(['"', "\\", '\\"', "}", "]", "{", "[", "\\\\", "\u2028", "\n"])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | json_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(json_text, inner, max_size=4),
    max_leaves=20,
)


def scan(fragments: list[str], max_depth: int = 512) -> tuple[int, int, JsonScanner]:
    """(fragment number, offset) where the scanner saw the value end, or (-1, -1)."""
    scanner = JsonScanner(max_depth)
    for number, fragment in enumerate(fragments):
        end = scanner.feed(fragment)
        if end >= 0:
            return number, end, scanner
    return -1, -1, scanner


@given(
    value=st.lists(json_values, max_size=4) | st.dictionaries(json_text, json_values, max_size=4),
    ascii_only=st.booleans(),
    indent=st.sampled_from([None, 0, 2]),
    cuts=st.lists(st.integers(0, 400), max_size=30),
    trailer=st.sampled_from(["", " ", '{"next": 1}', "\n]"]),
)
def test_container_ends_exactly_where_it_closes(
    value: object, ascii_only: bool, indent: int | None, cuts: list[int], trailer: str
) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    fragments = split_text(text + trailer, cuts)
    number, end, scanner = scan(fragments)
    assert number >= 0, "the value closed but the scanner did not see it"
    consumed = sum(len(f) for f in fragments[:number]) + end
    assert consumed == len(text)
    assert scanner.state == COMPLETE


@given(text=json_text, cuts=st.lists(st.integers(0, 60), max_size=10))
def test_top_level_string_ends_at_its_closing_quote(text: str, cuts: list[int]) -> None:
    encoded = json.dumps(text)
    pieces = [*split_text(encoded, cuts), "  "]
    number, end, _ = scan(pieces)
    assert number >= 0
    assert sum(len(p) for p in pieces[:number]) + end == len(encoded)


@given(value=json_values)
def test_a_prefix_is_never_complete(value: object) -> None:
    text = json.dumps(value)
    if text[0] not in '{["':
        return
    assert scan([text[:-1]])[0] == -1


def test_scalars_never_complete_by_scanning() -> None:
    for text in ["12", "true", "nul", "-1.5e3"]:
        number, _, scanner = scan([text, " "])
        assert number == -1
        assert scanner.state == SCALAR


def test_escaped_backslash_then_quote_across_fragments() -> None:
    # "a\\" then "}" : the backslash pair ends in the first fragment.
    assert scan(['{"k": "a\\', '\\"', "}"])[:2] == (2, 1)
    # "a\"" : the escape starts at a fragment's end, the quote is escaped.
    assert scan(['{"k": "a\\', '"', '"}'])[:2] == (2, 2)


def test_brackets_inside_strings_do_not_count() -> None:
    assert scan(['{"code": "if (x) { return [1]; }"', "}"])[:2] == (1, 1)


def test_nesting_past_the_limit_stops_early_without_recursion() -> None:
    scanner = JsonScanner(max_depth=512)
    deep = "[" * 100_000
    assert scanner.feed(deep) == -1  # (a hang would be caught by pytest-timeout)
    assert scanner.state == TOO_DEEP
    assert scanner.deep_at == 513  # it stopped at the first bracket past the limit


def test_leading_whitespace_is_skipped() -> None:
    assert scan(["  \n", "\t{", "}"])[:2] == (2, 1)
