"""The documentation site: every page in the nav, every public name in the reference, every code block run.

The site itself is built by ``make docs`` (and by ``make test``) with
``mkdocs build --strict``, which fails on a broken link, a page left out of
the nav or a cross-reference that does not resolve.  These tests check what
the build cannot: that the pages' code does what they say (tests/support/docblocks.py
says how each kind of block is checked), and that the reference is complete.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import griffe
import pytest

import streamcalls
import streamcalls.codec
import streamcalls.testing
from tests.support.docblocks import (
    DEFAULT_SERVE,
    DOCS,
    ROOT,
    BlockFailed,
    blocks,
    mypy,
    run_page,
    site_blocks,
    site_pages,
)

PUBLIC = (streamcalls, streamcalls.codec, streamcalls.testing)
BLOCKS = site_blocks()
PROGRAMS = [block for block in BLOCKS if block.kind == "program"]
PAGES_THAT_RUN = [
    page for page in site_pages() if any(b.page == page and b.kind in ("fragment", "session") for b in BLOCKS)
]


def rel(page: Path) -> str:
    return str(page.relative_to(DOCS))


# -- the site's shape -------------------------------------------------------------------------------------


def nav_pages() -> list[str]:
    """The pages mkdocs.yml's nav lists (its last section), in order."""
    nav = (ROOT / "mkdocs.yml").read_text().split("\nnav:\n", 1)[1]
    return re.findall(r"^\s+- (?:[^:\n]+: )?(\S+\.md)$", nav, re.MULTILINE)


def test_every_page_is_in_the_nav_once() -> None:
    nav = nav_pages()
    assert len(nav) == len(set(nav))
    assert sorted(nav) == sorted(rel(page) for page in site_pages())


def test_the_site_has_the_pages_the_issue_lists() -> None:
    for page in site_pages():
        assert page.read_text().startswith("# "), f"{rel(page)} starts with its title"
    assert {
        "index.md",
        "getting-started.md",
        "guarantees.md",
        "benchmarks.md",
        "design.md",
    } <= set(nav_pages())
    assert sum(page.startswith("guide/") for page in nav_pages()) == 9


# -- the reference ----------------------------------------------------------------------------------------

DIRECTIVE = re.compile(r"^::: ([\w.]+)\s*$", re.MULTILINE)


def reference_entries() -> list[str]:
    return [
        name
        for page in sorted((DOCS / "reference").glob("*.md"))
        for name in DIRECTIVE.findall(page.read_text())
    ]


def public_names() -> dict[str, object]:
    """Every public name, by its full path, and what it is."""
    return {
        f"{module.__name__}.{name}": getattr(module, name) for module in PUBLIC for name in module.__all__
    }


def test_every_public_name_has_a_reference_entry() -> None:
    entries = reference_entries()
    assert len(entries) == len(set(entries))
    names = public_names()
    assert set(entries) <= set(names), "an entry for a name that is not public"
    shown = [names[entry] for entry in entries]
    # A name exported twice (streamcalls.Tool is streamcalls.codec.Tool) has one entry.
    missing = [
        path for path, value in names.items() if path not in entries and not any(value is s for s in shown)
    ]
    assert missing == []


def extra(name: str) -> list[str]:
    """The requirements of one of pyproject.toml's extras, by their package names."""
    extras = (ROOT / "pyproject.toml").read_text().split("[project.optional-dependencies]\n", 1)[1]
    body = re.search(rf"^{name} = \[\n(.*?)^\]", extras, re.MULTILINE | re.DOTALL)
    assert body is not None, name
    return [
        re.split(r"[^\w-]", req, maxsplit=1)[0] for req in re.findall(r'^\s+"([^"]+)"', body[1], re.MULTILINE)
    ]


def test_the_docs_extra_brings_a_signature_formatter() -> None:
    """mkdocstrings-python formats the reference's signatures (``separate_signature``) with Black or Ruff,
    whichever is installed; with neither, ``make docs`` on the docs extra alone leaves each on one long line
    and passes --strict (it says so at INFO level).  tests/support/site_check.py sees them formatted on the site."""
    assert {"black", "ruff"} & set(extra("docs"))
    assert "mkdocstrings-python" in extra("docs")


@pytest.fixture(scope="module")
def package() -> griffe.Module:
    loaded = griffe.load("streamcalls", search_paths=[str(ROOT)])
    assert isinstance(loaded, griffe.Module)
    return loaded


def test_every_entry_has_a_docstring(package: griffe.Module) -> None:
    for entry in reference_entries():
        obj = package[entry.removeprefix("streamcalls.")]
        assert obj.docstring is not None, entry
        assert len(obj.docstring.value) >= 20, entry


def test_every_event_field_says_what_it_holds(package: griffe.Module) -> None:
    """The events page shows each event with its fields: every field has a docstring."""
    structs = [*streamcalls.Event.__args__, streamcalls.ToolCall, streamcalls.Usage]
    for struct in structs:
        cls = package[struct.__name__]
        for field in struct.__struct_fields__:
            docstring = cls.members[field].docstring
            assert docstring is not None, f"{struct.__name__}.{field}"
            assert docstring.value, f"{struct.__name__}.{field}"


# -- the guide's prose ------------------------------------------------------------------------------------

LIST_ITEM = re.compile(r"^\s*(?:[-*]|\d+\.) ")
BULLET_WORDS = 100  # about six lines of a page: past that, a bullet is cut into steps or shorter bullets


def bullets(page: Path) -> list[tuple[int, str]]:
    """Each list item of a page, by its line, with its continuation lines but not its sub-items or code."""
    found: list[tuple[int, str]] = []
    in_item, fenced = False, False
    for number, line in enumerate(page.read_text().splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced, in_item = not fenced, False
        elif fenced:
            continue
        elif LIST_ITEM.match(line):
            found.append((number, line.strip()))
            in_item = True
        elif in_item and line.startswith("  ") and line.strip():
            found[-1] = (found[-1][0], f"{found[-1][1]} {line.strip()}")
        else:
            in_item = False
    return found


def test_no_guide_bullet_runs_on() -> None:
    """The guide's longest bullets were cut into steps and shorter bullets (issue 22): none runs past
    BULLET_WORDS words."""
    found = [
        (page, line, text) for page in sorted((DOCS / "guide").glob("*.md")) for line, text in bullets(page)
    ]
    assert len(found) > 40
    long = [
        f"{rel(page)}:{line}: {len(text.split())} words"
        for page, line, text in found
        if len(text.split()) > BULLET_WORDS
    ]
    assert long == []


def test_a_bullet_is_counted_without_its_sub_items_and_code(tmp_path: Path) -> None:
    text = (
        "# A page\n\n- **One**: a rule\n  on two lines:\n    1. a step;\n    2. another.\n"
        "- Two\n\n  ```python\n  - not a bullet\n  ```\n\nProse.\n"
    )
    assert bullets(page(tmp_path, text)) == [
        (3, "- **One**: a rule on two lines:"),
        (5, "1. a step;"),
        (6, "2. another."),
        (7, "- Two"),
    ]


# -- the code on the pages --------------------------------------------------------------------------------


def test_the_pages_have_code_of_every_kind() -> None:
    kinds = {block.kind for block in BLOCKS}
    assert {"program", "fragment", "session"} <= kinds


def test_a_python_block_is_never_left_unchecked() -> None:
    """Only languages that are not Python are shown without running."""
    for block in BLOCKS:
        if block.kind == "shown":
            assert block.language in ("text", "sh", "console", "json", "jsonl", "toml", "yaml", ""), (
                block.where
            )


@pytest.mark.parametrize("page", PAGES_THAT_RUN, ids=[rel(page) for page in PAGES_THAT_RUN])
def test_every_page_runs_as_a_session(page: Path) -> None:
    assert run_page(page) > 0


def test_mypy_strict_accepts_every_program(tmp_path: Path) -> None:
    for block in PROGRAMS:
        name = re.sub(r"\W+", "_", block.where.removeprefix("docs/"))
        (tmp_path / f"{name}.py").write_text(block.code)
    result = mypy(*sorted(tmp_path.glob("*.py")))
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_would_catch_a_mistake(tmp_path: Path) -> None:
    """The check has teeth: a wrong type in a program of the site fails it."""
    (code,) = [  # run_tools with a {name: function} dict
        block.code for block in PROGRAMS if "), tools=functions\n" in block.code
    ]
    (tmp_path / "wrong.py").write_text(
        code.replace("), tools=functions\n", '), tools=functions, timeout="10"\n')
    )
    result = mypy(tmp_path / "wrong.py")
    assert result.returncode == 1
    assert 'No overload variant of "run_tools" matches argument types' in result.stdout


def test_the_chart_the_site_shows_exists() -> None:
    assert (ROOT / "benchmarks" / "results" / "chart.png").stat().st_size > 10_000


def shown(number: str) -> float:
    """A number as the tables show it: ``3.18``, ``314k``, ``1 600``."""
    number = number.replace(" ", "").replace(",", "")
    return float(number[:-1]) * 1000 if number.endswith("k") else float(number)


def rounded_from(number: str, value: float) -> bool:
    """Is ``number``, as a table shows it, ``value`` rounded to the digits it shows (``0.58`` for 0.584)?"""
    digits = number.replace(" ", "").replace(",", "").removesuffix("k")
    decimals = len(digits.partition(".")[2])
    unit = 10.0**-decimals * (1000 if number.endswith("k") else 1)
    return abs(shown(number) - value) <= unit / 2 * 1.001


def test_the_benchmark_table_is_the_run_latest_json_holds() -> None:
    """The results table on the Benchmarks page shows the numbers of benchmarks/results/latest.json (the run the
    chart is drawn from): rerunning make bench means updating the page."""
    results = json.loads((ROOT / "benchmarks" / "results" / "latest.json").read_text())["results"]
    measured = {(r["stream"], r["label"]): r for r in results}
    page = (DOCS / "benchmarks.md").read_text()
    table = page[page.index("| stream | streamcalls µs/chunk") :].split("\n\n")[0].splitlines()[2:]
    stream, checked = "", 0
    for row in table:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        if cells[0]:
            stream = cells[0]
            ours = measured[(stream, "streamcalls")]
            for cell, key in zip(cells[1:4], ("us_per_chunk", "chunks_per_s", "mb_per_s"), strict=True):
                assert rounded_from(cell, ours[key]), (stream, key, cell, ours[key])
        peer = measured[(stream, cells[4])]
        if cells[5] == "-":
            assert peer.get("us_per_chunk") is None
            assert cells[6] == peer["note"]
        else:
            assert rounded_from(cells[5], peer["us_per_chunk"]), (stream, cells[4], cells[5])
        checked += 1
    assert checked >= 20


# -- the checks have teeth ----------------------------------------------------------------------------------


def page(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "page.md"
    path.write_text(text)
    return path


def test_blocks_are_told_apart_by_kind(tmp_path: Path) -> None:
    found = blocks(
        page(
            tmp_path,
            "# A page\n\n## Programs\n\n<!-- serve: --max-chunk 50 -->\n```python\nimport streamcalls\n\nURL = 1\n```\n\n"
            "- in a list:\n\n    ```python\n    x = 1\n    if x:\n        y = 2\n    ```\n\n"
            "```pycon\n>>> x\n1\n```\n\n```sh\nmake test\n```\n",
        )
    )
    assert [(b.kind, b.heading, b.line) for b in found] == [
        ("program", "Programs", 6),
        ("fragment", "Programs", 14),
        ("session", "Programs", 20),
        ("shown", "Programs", 25),
    ]
    assert found[0].serve == ("--max-chunk", "50")
    assert found[1].serve == DEFAULT_SERVE
    assert found[1].code == "x = 1\nif x:\n    y = 2\n"


def test_a_page_runs_as_one_session(tmp_path: Path) -> None:
    text = (
        "# A page\n\n```python\nimport anyio\n\nawait anyio.sleep(0)\nvalue = 41\n```\n\n"
        "```pycon\n>>> value += 1\n>>> value\n42\n```\n\n```python\nassert value == 42\n```\n"
    )
    assert run_page(page(tmp_path, text)) == 3


def test_a_session_that_prints_something_else_fails(tmp_path: Path) -> None:
    with pytest.raises(BlockFailed, match=r"page\.md:3:"):
        run_page(page(tmp_path, "# A page\n\n```pycon\n>>> 1 + 1\n3\n```\n"))


def test_a_fragment_that_raises_fails(tmp_path: Path) -> None:
    with pytest.raises(BlockFailed, match=r"page\.md:7: NameError"):
        run_page(page(tmp_path, "# A page\n\n```pycon\n>>> 1\n1\n```\n```python\nundefined_name\n```\n"))
