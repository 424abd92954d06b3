"""The format specifications in tests/data/formats are well formed and agree with themselves.

Each ``<format>.json`` there specifies one open-weight tool-call markup (from its chat template and the
peers' parsers) and holds hand-written cases: a model output, how it splits into segments (text,
reasoning, framing tokens, a completed call's markup, a failed call's markup) and the expected result.
These tests need no detector: they check that the segments rebuild the model output character for
character, that the expected text, reasoning and failed ``raw`` are exactly the segments of their kind,
that every call is a named JSON object found in its own markup, and that each file covers the cases
the README promises. The detectors are tested against these files elsewhere, once they exist.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest

FORMATS = Path(__file__).parent.parent / "data" / "formats"
SPEC_PATHS = sorted(FORMATS.glob("*.json"))
SPECS: dict[str, dict[str, Any]] = {
    path.stem: json.loads(path.read_text(encoding="utf-8")) for path in SPEC_PATHS
}

KINDS = {"text", "reasoning", "framing", "call", "failed"}
STATUSES = {"template", "peer-tests"}
#: What every file's cases must cover, unless the file says why a topic does not apply to its format.
TOPICS = {
    "one_call",
    "parallel",
    "no_arguments",
    "text_around",
    "nested",
    "non_ascii",
    "escapes",
    "types",
    "malformed",
    "truncated",
    "lookalike",
    "reasoning",
}
SNAKE = re.compile(r"[a-z][a-z0-9_]*")
CASES = [(stem, case) for stem, spec in SPECS.items() for case in spec["cases"]]


def case_id(item: tuple[str, dict[str, Any]]) -> str:
    return f"{item[0]}/{item[1]['name']}"


def joined(segments: list[list[str]], kind: str) -> str:
    return "".join(s for k, s in segments if k == kind)


def test_the_folder_holds_specs() -> None:
    assert len(SPECS) >= 20


@pytest.mark.parametrize("stem", sorted(SPECS))
def test_a_spec_has_every_part(stem: str) -> None:
    spec = SPECS[stem]
    assert spec["format"] == stem, "the file is named after its format"
    assert SNAKE.fullmatch(spec["format"])
    assert SNAKE.fullmatch(spec["detector"])
    assert spec["status"] in STATUSES
    for key in ("summary", "sketch"):
        assert isinstance(spec[key], str)
        assert spec[key], f"{key} is written down"
    models = spec["models"]
    assert models["hf"], "at least one Hugging Face id writes this format"
    assert all(isinstance(m, str) and "/" in m for m in models["hf"])
    assert all(isinstance(m, str) for m in models["ollama"])
    for neighbour in models["not"]:
        assert set(neighbour) == {"id", "why"}
        assert neighbour["why"], "a neighbour says why it is not this format"
        assert neighbour["id"] not in models["hf"] + models["ollama"]
    markup = spec["markup"]
    for key in (
        "grammar",
        "start",
        "end",
        "separator",
        "name",
        "arguments",
        "values",
        "escapes",
        "call_ends",
        "id",
        "reasoning",
    ):
        assert markup[key], f"markup.{key} is written down"
    assert all(isinstance(token, str) and token for token in markup["framing"])
    assert spec["sources"], "every spec names its sources"
    assert all(s["fact"] and s["where"] for s in spec["sources"])
    for peer in spec["peers"]:
        assert peer["topic"]
        assert peer["chosen"], "a peer note says what the cases follow"
        assert {"vllm", "sglang", "llama_cpp", "ollama"} & set(peer), "a peer note names a peer"
    assert 8 <= len(spec["cases"]) <= 15
    names = [c["name"] for c in spec["cases"]]
    assert len(names) == len(set(names)), "case names are unique in a file"


@pytest.mark.parametrize("stem", sorted(SPECS))
def test_a_spec_covers_every_topic(stem: str) -> None:
    spec = SPECS[stem]
    exempt = spec.get("not_applicable", {})
    assert set(exempt) <= TOPICS, "an exemption names a topic"
    assert all(exempt.values()), "an exemption says why"
    covered = {topic for case in spec["cases"] for topic in case["covers"]}
    assert covered <= TOPICS
    assert TOPICS - set(exempt) <= covered, f"not covered: {sorted(TOPICS - set(exempt) - covered)}"
    assert not (covered & set(exempt)), "a topic is either covered or exempt"


def test_format_names_are_unique() -> None:
    formats = [spec["format"] for spec in SPECS.values()]
    assert len(formats) == len(set(formats))


def test_a_model_id_belongs_to_one_format() -> None:
    owner: dict[str, str] = {}
    for stem, spec in SPECS.items():
        for model in spec["models"]["hf"] + spec["models"]["ollama"]:
            assert owner.setdefault(model.lower(), stem) == stem, (
                f"{model} is in {owner[model.lower()]} and {stem}"
            )


def test_the_readme_lists_every_format() -> None:
    readme = (FORMATS / "README.md").read_text(encoding="utf-8")
    table = readme.split("\n## The formats\n", 1)[1].split("\n## ", 1)[0]
    rows = {m.group(1) for m in re.finditer(r"^\| `([a-z0-9_]+)` \|", table, re.MULTILINE)}
    assert rows == set(SPECS)


@pytest.mark.parametrize(("stem", "case"), CASES, ids=[case_id(item) for item in CASES])
def test_the_segments_rebuild_the_model_output(stem: str, case: dict[str, Any]) -> None:
    segments = case["segments"]
    assert all(len(s) == 2 and s[0] in KINDS and isinstance(s[1], str) and s[1] for s in segments)
    assert "".join(s for _, s in segments) == case["text"], "every character of the output is in one segment"
    assert all(
        a[0] != b[0] or a[0] in ("call", "failed", "framing") for a, b in itertools.pairwise(segments)
    ), "two neighbouring segments of one kind are one segment"


@pytest.mark.parametrize(("stem", "case"), CASES, ids=[case_id(item) for item in CASES])
def test_the_expectation_is_the_segments(stem: str, case: dict[str, Any]) -> None:
    segments, expect = case["segments"], case["expect"]
    assert set(expect) == {"text", "reasoning", "calls", "failed"}
    assert expect["text"] == joined(segments, "text")
    assert expect["reasoning"] == joined(segments, "reasoning")
    assert [f["raw"] for f in expect["failed"]] == [s for k, s in segments if k == "failed"]
    call_markup = [s for k, s in segments if k == "call"]
    assert len(expect["calls"]) == len(call_markup), "one markup segment per completed call"
    for call, markup in zip(expect["calls"], call_markup, strict=True):
        assert set(call) <= {"name", "arguments", "id"}
        assert isinstance(call["name"], str)
        assert call["name"] in markup, "a call's name is written in its markup"
        assert isinstance(call["arguments"], dict), "arguments are a JSON object"
        assert json.loads(json.dumps(call["arguments"])) == call["arguments"]
        if "id" in call:
            assert isinstance(call["id"], str)
            assert call["id"] in markup, "an id is kept only where the markup writes it"
    for failure in expect["failed"]:
        assert set(failure) == {"name", "raw"}
        assert failure["name"] is None or failure["name"] in failure["raw"]
    framing = set(SPECS[stem]["markup"]["framing"])
    assert all(s in framing for k, s in segments if k == "framing"), "only the format's framing tokens vanish"


@pytest.mark.parametrize(("stem", "case"), CASES, ids=[case_id(item) for item in CASES])
def test_a_case_is_well_formed(stem: str, case: dict[str, Any]) -> None:
    assert SNAKE.fullmatch(case["name"])
    assert case["covers"], "a case says what it covers"
    spec = SPECS[stem]
    if "model" in case:
        assert case["model"] in spec["models"]["hf"] + spec["models"]["ollama"]
    for tool in case.get("tools", []):
        assert set(tool) == {"name", "parameters"}
        assert tool["parameters"]["type"] == "object"
    if "reasoning" in case["covers"]:
        assert case["expect"]["reasoning"], "a reasoning case has reasoning"
    if case.get("reasoning_open"):
        assert case["segments"][0][0] == "reasoning", (
            "a prompt that opened the reasoning puts the output inside it"
        )
    assert set(case) <= {
        "name",
        "note",
        "model",
        "reasoning_open",
        "covers",
        "text",
        "tools",
        "segments",
        "expect",
    }
