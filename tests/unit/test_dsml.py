"""DeepSeek-V3.2 / V4 DSML (``dsml``): its typing, its eagerness, V4 without the wrapper, and what is not a call.

The markup is DeepSeek-V3.2's encoding (``<｜DSML｜function_calls>``, ``<｜DSML｜invoke name="...">``,
``<｜DSML｜parameter name="..." string="true|false">``, the bars U+FF5C) and DeepSeek-V4's
(``<｜DSML｜tool_calls>``, or an invoke with no wrapper); the recordings are
tests/data/text/dsml_*.txt.
"""

from __future__ import annotations

from typing import Any

import pytest

from streamcalls import StreamParser, ToolCallCompleted, ToolCallFailed, ToolCallStarted
from tests.support import DATA, bytewise, counter_ids, feed_chunks, normalize, split_at
from tests.support import completed_calls as calls
from tests.support import text_of as texts
from tests.support.conservation import check_conservation

DETECT = ("dsml",)
BLOCK, BLOCK_END = "<｜DSML｜function_calls>", "</｜DSML｜function_calls>"
V4_BLOCK, V4_BLOCK_END = "<｜DSML｜tool_calls>", "</｜DSML｜tool_calls>"
SCHEMA = {
    "type": "object",
    "properties": {
        "s": {"type": "string"},
        "i": {"type": "integer"},
        "n": {"type": "number"},
        "b": {"type": "boolean"},
        "o": {"type": "object"},
        "a": {"type": "array"},
        "ns": {"type": ["string", "null"]},
    },
}
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": SCHEMA}}]


def parameter(key: str, value: str, string: str | None) -> str:
    typed = f' string="{string}"' if string is not None else ""
    return f'<｜DSML｜parameter name="{key}"{typed}>{value}</｜DSML｜parameter>'


def invoke(name: str, *parameters: str) -> str:
    return f'<｜DSML｜invoke name="{name}">\n' + "".join(p + "\n" for p in parameters) + "</｜DSML｜invoke>\n"


def run(text: str, **options: Any) -> list[Any]:
    options.setdefault("detect", DETECT)
    return feed_chunks([text.encode()], "text", **options)


# (key, value as written, string attribute, with the schema, without tools=)
TYPING = [
    ("s", "Paris", "true", "Paris", "Paris"),
    ("s", " padded \n", "true", " padded \n", " padded \n"),  # verbatim
    ("i", "3", "true", "3", "3"),  # string="true" wins over the schema
    ("i", "3", "false", 3, 3),  # JSON
    ("s", "3", "false", 3, 3),  # JSON, whatever the schema says
    ("b", "true", "false", True, True),
    ("o", '{"k": [1, 2]}', "false", {"k": [1, 2]}, {"k": [1, 2]}),
    ("a", "[1, 2]", "false", [1, 2], [1, 2]),
    ("ns", "null", "false", None, None),
    ("s", '"quoted"', "false", "quoted", "quoted"),  # a JSON string
    ("i", "3.0", "false", 3.0, 3.0),  # JSON's own type
    ("i", "three", "false", "three", "three"),  # no JSON: typed by the schema, which cannot: a string
    ("n", "1e400", "false", "1e400", "1e400"),  # out of range: no JSON number; the schema cannot either
    ("i", "3", None, 3, "3"),  # no attribute: the schema types it, as in the other XML formats
    ("b", "true", None, True, "true"),
    ("ns", "null", None, None, "null"),
]


@pytest.mark.parametrize(("key", "written", "string", "typed", "untyped"), TYPING)
def test_string_true_is_a_string_false_is_json(
    key: str, written: str, string: str | None, typed: Any, untyped: Any
) -> None:
    text = BLOCK + "\n" + invoke("f", parameter(key, written, string)) + BLOCK_END
    [call] = calls(run(text, tools=TOOLS))
    assert call.arguments == {key: typed}
    [call] = calls(run(text))
    assert call.arguments == {key: untyped}


def test_each_call_completes_in_the_feed_that_brings_its_end_tag() -> None:
    first = invoke("f", parameter("s", "x", "true"))
    chunks = [BLOCK + "\n" + first[:-12], first[-12:], invoke("g") + BLOCK_END]
    parser = StreamParser("text", detect=DETECT, id_factory=counter_ids())
    seen = [
        [type(e).__name__ for e in parser.feed(chunk.encode()) if not type(e).__name__.endswith("Delta")]
        for chunk in chunks
    ]
    assert seen == [["ToolCallStarted"], ["ToolCallCompleted"], ["ToolCallStarted", "ToolCallCompleted"]]


def test_v4_wrapper_and_calls_without_one() -> None:
    text = (
        "Checking.\n"
        + V4_BLOCK
        + "\n"
        + invoke("f", parameter("s", "a", "true"))
        + V4_BLOCK_END
        + "\nThen "
        + invoke("g")
        + invoke("h", parameter("i", "1", "false")).rstrip("\n")
        + " and done."
    )
    events = run(text)
    assert [(c.name, c.arguments) for c in calls(events)] == [("f", {"s": "a"}), ("g", {}), ("h", {"i": 1})]
    assert texts(events) == "Checking.\n\nThen  and done."
    check_conservation(text, events)


def test_a_value_may_hold_its_closing_tag_where_no_markup_follows() -> None:
    value = "print('</｜DSML｜parameter>')\nok"
    text = BLOCK + invoke("f", parameter("s", value, "true")) + BLOCK_END
    [call] = calls(run(text))
    assert call.arguments == {"s": value}


def test_markup_that_holds_no_call_fails_and_the_text_resumes() -> None:
    events = run(f"A {BLOCK} then prose")
    [failed] = [e for e in events if isinstance(e, ToolCallFailed)]
    assert failed.raw == BLOCK
    assert texts(events) == "A  then prose"


def test_v3_tokens_and_dsml_are_apart() -> None:
    v3 = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>g<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    dsml = BLOCK + invoke("f") + BLOCK_END
    assert [c.source for c in calls(run(v3 + dsml, detect=("deepseek", "dsml")))] == ["deepseek", "dsml"]
    assert calls(run(v3, detect=DETECT)) == []  # V3's tokens are text to the DSML detector
    assert calls(run(dsml, detect=("deepseek",))) == []


def test_model_names_choose_dsml() -> None:
    text = BLOCK + invoke("f", parameter("s", "x", "true")) + BLOCK_END
    for model in ("deepseek-ai/DeepSeek-V3.2", "deepseek-ai/DeepSeek-V3.2-Exp", "deepseek-ai/DeepSeek-V4"):
        events = feed_chunks([text.encode()], "text", model=model)
        assert [c.source for c in calls(events)] == ["dsml"]
    assert calls(feed_chunks([text.encode()], "text", model="deepseek-ai/DeepSeek-V3.1")) == []


@pytest.mark.parametrize("name", ["dsml_v32", "dsml_v4", "dsml_malformed"])
def test_recordings_under_any_chunking(name: str) -> None:
    text = (DATA / "text" / f"{name}.txt").read_text(encoding="utf-8")
    raw = text.encode()
    whole = run(text)
    check_conservation(text, whole)
    assert normalize(feed_chunks(bytewise(raw), "text", detect=DETECT)) == normalize(whole)
    for cuts in ([7], [1, 30, 31, 90], list(range(0, len(raw), 5))):
        assert normalize(feed_chunks(split_at(raw, cuts), "text", detect=DETECT)) == normalize(whole)
    assert (
        not [e for e in whole if isinstance(e, ToolCallStarted) and e.name == ""] or name == "dsml_malformed"
    )
    assert all(isinstance(e.call.arguments, dict) for e in whole if isinstance(e, ToolCallCompleted))
