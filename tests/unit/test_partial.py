"""partial_arguments=True: ToolCallPatch events (issue 13).

The rules (tests/support/partial_rules.py) are checked against an independent prefix
reader on every recorded stream at whole, one-byte and random chunkings; exact
patch sequences are written out by hand for the small cases.  Made-up
arguments in every format: test_partial_formats.py; PartialArguments:
test_partial_arguments.py.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import streamcalls
import streamcalls.testing
from streamcalls import (
    Event,
    Limits,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallPatch,
)
from tests.support import DATA, Case, bytewise, corpus, feed_chunks, normalize, split_at
from tests.support import streams as s
from tests.support.partial_rules import (
    check_patches,
    folded_patches,
    without_patches,
)

CASES = corpus()
IDS = [case.id for case in CASES]


def run(chunks: list[bytes], provider: str, **options: Any) -> list[Event]:
    return feed_chunks(chunks, provider, partial_arguments=True, **options)


def patches(events: list[Event]) -> list[tuple[str, tuple[Any, ...], Any]]:
    return [(e.op, e.path, e.value) for e in events if isinstance(e, ToolCallPatch)]


def openai_wire(fragments: list[str], *, name: str = "f") -> bytes:
    body = s.openai_call_start(0, "call_1", name)
    body += b"".join(s.openai_args(0, piece) for piece in fragments)
    return body + s.openai_finish()


def completed(events: list[Event]) -> list[dict[str, Any]]:
    return [e.call.arguments for e in events if isinstance(e, ToolCallCompleted)]


# -- the event ---------------------------------------------------------------------------


def test_the_patch_event_is_tagged_encodes_and_names_its_path_as_a_pointer() -> None:
    patch = ToolCallPatch(2, "add", ("a/b", 0, "m~n"), {})
    assert patch.pointer == "/a~1b/0/m~0n"
    assert ToolCallPatch(0, "append", (), "x").pointer == ""
    line = msgspec.json.encode(patch)
    assert json.loads(line) == {
        "type": "tool_call_patch",
        "index": 2,
        "op": "add",
        "path": ["a/b", 0, "m~n"],
        "value": {},
    }
    assert msgspec.json.decode(line, type=streamcalls.Event) == patch
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(line.replace(b'"add"', b'"remove"'), type=streamcalls.Event)


def test_off_by_default() -> None:
    data = openai_wire(['{"a": "b"}'])
    assert not [e for e in streamcalls.parse(data, "openai") if isinstance(e, ToolCallPatch)]
    assert patches(streamcalls.parse(data, "openai", partial_arguments=True)) == [
        ("add", (), {}),
        ("add", ("a",), ""),
        ("append", ("a",), "b"),
    ]


# -- exact sequences, written out by hand ------------------------------------------------------

EVERYTHING = '{"path": "a.py", "n": [1, 2.5, -3E2, 12345678901234567890123], "ok": true, "no": false, "x": null, "s": "q\\"\\u00e9\\ud83d\\ude00\\n", "o": {"e": [], "d": {}}}'


def test_every_kind_of_value_in_one_fragment() -> None:
    events = run([openai_wire([EVERYTHING])], "openai")
    assert patches(events) == [
        ("add", (), {}),
        ("add", ("path",), ""),
        ("append", ("path",), "a.py"),
        ("add", ("n",), []),
        ("add", ("n", 0), 1),
        ("add", ("n", 1), 2.5),
        ("add", ("n", 2), -300.0),
        ("add", ("n", 3), 12345678901234567890123),
        ("add", ("ok",), True),
        ("add", ("no",), False),
        ("add", ("x",), None),
        ("add", ("s",), ""),
        ("append", ("s",), 'q"é😀\n'),
        ("add", ("o",), {}),
        ("add", ("o", "e"), []),
        ("add", ("o", "d"), {}),
    ]
    check_patches(events)
    assert completed(events) == [json.loads(EVERYTHING)]


def test_one_character_at_a_time_values_appear_when_they_begin_or_complete() -> None:
    text = '{"a": [12, "xy", tru' + 'e], "b": "\\u00e9"}'
    events = run([openai_wire(list(text))], "openai")
    got = patches(events)
    assert got == [
        ("add", (), {}),
        ("add", ("a",), []),
        ("add", ("a", 0), 12),  # after the comma: "1" and "12" could still grow
        ("add", ("a", 1), ""),
        ("append", ("a", 1), "x"),
        ("append", ("a", 1), "y"),
        ("add", ("a", 2), True),  # at its last letter, before any delimiter
        ("add", ("b",), ""),
        ("append", ("b",), "é"),  # the escape is held until its sixth character
    ]
    # Each patch right after the delta that made it: "2" then "," -> the number.
    deltas_then = [
        (e.arguments_delta, patches(events[i + 1 : i + 2]))
        for i, e in enumerate(events)
        if isinstance(e, ToolCallDelta)
    ]
    assert ("2", []) in deltas_then
    assert (",", [("add", ("a", 0), 12)]) in deltas_then
    assert ("e", [("add", ("a", 2), True)]) in deltas_then
    check_patches(events)


def test_the_middle_of_a_long_string_is_one_append_per_fragment() -> None:
    content = "line\\n" * 2000
    pieces = ['{"path": "x", "content": "', *(content[i : i + 40] for i in range(0, len(content), 40)), '"}']
    events = run([openai_wire(pieces)], "openai")
    appends = [p for p in patches(events) if p[1] == ("content",)]
    assert len(appends) == 1 + len(pieces) - 2  # the add, then one append per fragment
    assert "".join(p[2] for p in appends) == "line\n" * 2000
    check_patches(events)


@pytest.mark.parametrize(
    "escaped",
    [
        "\\ud83d\\ude00",  # a surrogate pair: one character
        "\\uD83D\\uDE00",
        "\\u00e9",
        "\\n",
        "\\\\",
        '\\"',
        "\\/",
        "\\u0000",
    ],
)
def test_an_escape_split_anywhere_is_held_until_complete(escaped: str) -> None:
    text = '{"e": "a' + escaped + 'b"}'
    expected = json.loads(text)["e"]
    for cut in range(1, len(text)):
        events = run([openai_wire([text[:cut], text[cut:]])], "openai")
        check_patches(events)
        appended = [p[2] for p in patches(events) if p[0] == "append"]
        assert "".join(appended) == expected, cut
        # never half a pair, never a piece of an escape
        assert all("\\" not in piece or "\\" in expected for piece in appended)
        assert all(not ("\ud800" <= piece[-1] <= "\udbff") for piece in appended)
    # In the text: every byte its own feed, so every split of the escape and of raw UTF-8.
    fence = f'~~~tool_call\n{{"name": "f", "arguments": {{"e": "é{escaped}😀"}}}}\n~~~\n'
    events = run(bytewise(fence.encode()), "text")
    check_patches(events)
    assert folded_patches(events)[0][-1] == ("add", ("e",), "é" + json.loads(f'"{escaped}"') + "😀")


def test_duplicate_keys_a_later_add_replaces() -> None:
    text = '{"a": [1], "b": 2, "a": {"c": "d"}}'
    events = run([openai_wire([text])], "openai")
    assert patches(events)[-4:] == [
        ("add", ("b",), 2),
        ("add", ("a",), {}),
        ("add", ("a", "c"), ""),
        ("append", ("a", "c"), "d"),
    ]
    check_patches(events)
    assert completed(events) == [{"a": {"c": "d"}, "b": 2}]


@pytest.mark.parametrize(
    ("fragments", "expected_patches", "arguments"),
    [
        ([], [("add", (), {})], {}),  # no arguments at all
        (["  "], [("add", (), {})], {}),  # blanks
        (['""'], [("add", (), ""), ("add", (), {})], {}),  # the JSON string "": no arguments
        (["{}"], [("add", (), {})], {}),
        (  # double-encoded: the streamed value is a string, the call's arguments the object in it
            ['"{\\"a\\"', ': 1}"'],
            [("add", (), ""), ("append", (), '{"a"'), ("append", (), ": 1}"), ("add", (), {"a": 1})],
            {"a": 1},
        ),
        (['{"a": 1} \n'], [("add", (), {}), ("add", ("a",), 1)], {"a": 1}),  # a blank tail
    ],
)
def test_the_decoded_arguments_are_always_what_the_patches_give(
    fragments: list[str], expected_patches: list[Any], arguments: dict[str, Any]
) -> None:
    events = run([openai_wire(fragments)], "openai")
    assert patches(events) == expected_patches
    assert completed(events) == [arguments]
    check_patches(events)


def test_a_call_that_arrives_whole_gets_one_root_add() -> None:
    line = {
        "model": "m",
        "message": {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"function": {"name": "f", "arguments": {"a": [1, {"b": None}]}}}],
        },
        "done": False,
    }
    data = (
        msgspec.json.encode(line)
        + b"\n"
        + b'{"model": "m", "message": {"role": "assistant", "content": ""}, "done": true}\n'
    )
    events = run([data], "ollama")
    assert patches(events) == [("add", (), {"a": [1, {"b": None}]})]
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("ToolCallPatch") == kinds.index("ToolCallCompleted") - 1
    check_patches(events)


def test_invalid_arguments_stop_the_patches_and_the_call_fails() -> None:
    for text, last in [
        ('{"a": 1, "b": tx, "c": 2}', ("add", ("a",), 1)),
        ('{"a": "\\q", "c": 2}', ("add", ("a",), "")),
        ('{"a": 01}', ("add", (), {})),
        ('{"a": 1e400}', ("add", (), {})),
        ('{"a": "\\ud83d\\u0041"}', ("add", ("a",), "")),
        ('{"a": 1]', ("add", ("a",), 1)),
        ('{"a": [1}', ("add", ("a", 0), 1)),
    ]:
        events = run([openai_wire([text])], "openai")
        assert patches(events)[-1] == last, text
        assert [type(e) for e in events if isinstance(e, (ToolCallCompleted, ToolCallFailed))] == [
            ToolCallFailed
        ]
        check_patches(events)


def test_patches_of_a_call_found_in_text_come_after_it_started() -> None:
    # The arguments come before the name: nothing can start (or be patched) until the name.
    text = '~~~tool_call\n{"arguments": {"city": "Paris"}, "name": "get_weather"}\n~~~\n'
    for chunks in ([text.encode()], bytewise(text.encode())):
        events = run(chunks, "text")
        kinds = [type(e).__name__ for e in events]
        assert kinds.index("ToolCallStarted") < kinds.index("ToolCallPatch")
        assert folded_patches(events) == {0: [("add", (), {}), ("add", ("city",), "Paris")]}
        check_patches(events)


def test_gemini_partial_args_stream_as_patches() -> None:
    def chunk(*args: dict[str, Any], more: bool = True) -> bytes:
        call: dict[str, Any] = {"name": "f", "partialArgs": list(args), "willContinue": more}
        body = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": call}]}}]}
        return b"data: " + msgspec.json.encode(body) + b"\r\n\r\n"

    data = (
        chunk({"jsonPath": "$.location", "stringValue": "Bos", "willContinue": True})
        + chunk({"jsonPath": "$.location", "stringValue": "ton"})
        + chunk({"jsonPath": "$.days[0]", "numberValue": 3})
        + chunk(more=False)
    )
    events = run([data], "gemini")
    assert folded_patches(events)[0] == [
        ("add", (), {}),
        ("add", ("location",), "Boston"),
        ("add", ("days",), []),
        ("add", ("days", 0), 3),
    ]
    check_patches(events)


def test_nesting_up_to_the_depth_limit() -> None:
    limits = Limits(max_json_depth=64)
    deep = '{"a": ' + "[" * 63 + '"x"' + "]" * 63 + "}"
    too_deep = '{"a": ' + "[" * 64 + "]" * 64 + "}"
    for chunks in ([openai_wire([deep])], [openai_wire(list(deep))]):
        events = run(chunks, "openai", limits=limits)
        check_patches(events)
        assert completed(events) == [json.loads(deep)]
    events = run([openai_wire([too_deep])], "openai", limits=limits)
    assert isinstance(
        [e for e in events if not isinstance(e, (ToolCallPatch, ToolCallDelta))][-2], ToolCallFailed
    )
    check_patches(events)
    text = "~~~tool_call\n" + '{"name": "f", "arguments": ' + deep + "}\n~~~\n"
    events = run(bytewise(text.encode()), "text", limits=limits)
    check_patches(events)
    assert completed(events) == [json.loads(deep)]


def test_the_default_depth_limit() -> None:
    depth = Limits().max_json_depth
    deep = "[" * (depth - 1) + "]" * (depth - 1)
    text = '{"a": ' + deep + "}"
    events = run([openai_wire([text[i : i + 7] for i in range(0, len(text), 7)])], "openai")
    check_patches(events)
    assert completed(events) == [json.loads(text)]


# -- every entry point takes the option ------------------------------------------------------------

PARALLEL = Case(DATA / "openai" / "parallel_calls.sse", "openai")


def _patch_count(events: list[Event]) -> int:
    return sum(isinstance(e, ToolCallPatch) for e in events)


def test_parse_and_parse_iter_take_the_option() -> None:
    data = PARALLEL.data()
    expected = _patch_count(feed_chunks([data], "openai", partial_arguments=True))
    assert expected > 0
    assert _patch_count(streamcalls.parse(data, partial_arguments=True)) == expected
    assert (
        _patch_count(list(streamcalls.parse_iter([data[:100], data[100:]], partial_arguments=True)))
        == expected
    )


class _Response:
    """What from_httpx / from_httpx_sync use of an httpx response."""

    status_code = 200
    reason_phrase = "OK"

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.headers = {"content-type": "text/event-stream"}

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        yield self.data

    def iter_bytes(self) -> Iterator[bytes]:
        yield self.data

    async def aclose(self) -> None:
        return None

    def close(self) -> None:
        return None


def test_the_async_and_sdk_fronts_take_the_option() -> None:
    data = PARALLEL.data()
    expected = _patch_count(feed_chunks([data], "openai", partial_arguments=True))
    chunks = [msgspec.json.decode(line[6:]) for line in data.splitlines() if line.startswith(b"data: {")]
    anthropic = Case(DATA / "anthropic" / "parallel_calls.sse", "anthropic")
    anthropic_events = [
        msgspec.json.decode(line[6:]) for line in anthropic.data().splitlines() if line.startswith(b"data: ")
    ]
    anthropic_expected = _patch_count(feed_chunks([anthropic.data()], "anthropic", partial_arguments=True))
    assert anthropic_expected > 0

    async def source() -> AsyncIterator[bytes]:
        yield data

    async def collect(events: Any) -> list[Event]:
        return [e async for e in events]

    async def main() -> None:
        assert _patch_count(await collect(streamcalls.aparse(source(), partial_arguments=True))) == expected
        got = await collect(streamcalls.from_httpx(_Response(data), partial_arguments=True))
        assert _patch_count(got) == expected

    anyio.run(main)
    assert (
        _patch_count(list(streamcalls.from_httpx_sync(_Response(data), partial_arguments=True))) == expected
    )
    assert _patch_count(list(streamcalls.from_openai_stream(chunks, partial_arguments=True))) == expected
    got = list(streamcalls.from_anthropic_stream(anthropic_events, partial_arguments=True))
    assert _patch_count(got) == anthropic_expected


# -- every recorded stream -------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_recordings_follow_the_rules_at_any_chunking(case: Case) -> None:
    data = case.data()
    whole = run([data], case.provider, **case.options())
    assert without_patches(whole) == case.expected()  # nothing else changes
    check_patches(whole)
    one = run(bytewise(data), case.provider, **case.options())
    check_patches(one)
    assert normalize(without_patches(one)) == normalize(case.expected())
    assert folded_patches(one) == folded_patches(whole)
    auto = run(bytewise(data), "auto", **case.options())
    assert folded_patches(auto) == folded_patches(whole)


@pytest.mark.parametrize("case", CASES, ids=IDS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_recordings_at_random_splits(case: Case, data: st.DataObject) -> None:
    raw = case.data()
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=40))
    events = run(split_at(raw, cuts), case.provider, **case.options())
    check_patches(events)
    assert folded_patches(events) == folded_patches(run([raw], case.provider, **case.options()))


def test_the_recordings_exercise_the_rules() -> None:
    checked = 0
    for case in CASES:
        counts = check_patches(run(bytewise(case.data()), case.provider, **case.options()))
        checked += sum(counts.values())
    assert checked > 400  # sync points checked against the oracle
