"""Gemini 3's thought signatures: read from every place Gemini sends them, written back where they came from.

Gemini 3 refuses a next request whose ``functionCall`` parts lack the ``thoughtSignature`` they came with
("Function call is missing a thought_signature in functionCall parts"). The oracle here is the recordings
themselves: a few lines below find each signature in the raw JSON, independently of the adapters.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import streamcalls
from streamcalls import ToolCall, ToolCallCompleted, encode_call, extract
from streamcalls.codec import CodecProviderName
from tests.support import bytewise, feed_chunks, plain

pytestmark = pytest.mark.anyio

DATA = Path(__file__).parent.parent / "data"


def calls_of(events: list[Any]) -> list[ToolCall]:
    return [e.call for e in events if isinstance(e, ToolCallCompleted)]


def signatures_in_gemini_sse(path: Path) -> list[str | None]:
    """Each functionCall part's thoughtSignature, in order, for parts that open a call (a name)."""
    found: list[str | None] = []
    for line in path.read_text().splitlines():
        if not line.startswith("data:"):
            continue
        for candidate in json.loads(line[5:]).get("candidates", []):
            for part in candidate.get("content", {}).get("parts", []):
                if part.get("functionCall", {}).get("name"):
                    found.append(part.get("thoughtSignature"))
    return found


@pytest.mark.parametrize("name", ["one_call.sse", "thought_parts.sse", "vertex_partial_args.sse"])
def test_a_gemini_stream_keeps_each_calls_signature_at_any_chunking(name: str) -> None:
    path = DATA / "gemini" / name
    expected = signatures_in_gemini_sse(path)
    assert any(expected)  # the recording has signatures
    for chunks in ([path.read_bytes()], bytewise(path.read_bytes())):
        calls = calls_of(feed_chunks(chunks, "gemini"))
        assert [c.thought_signature for c in calls] == expected


def test_gemini_calls_without_signatures_have_none() -> None:
    calls = calls_of(feed_chunks([(DATA / "gemini" / "parallel_calls.sse").read_bytes()], "gemini"))
    assert calls
    assert all(c.thought_signature is None for c in calls)


def test_the_openai_compatible_endpoint_signs_only_the_first_parallel_call() -> None:
    data = (DATA / "openai" / "gemini3_thought_signatures.sse").read_bytes()
    for chunks in ([data], bytewise(data)):
        calls = calls_of(feed_chunks(chunks, "auto"))
        assert [c.thought_signature for c in calls] == ["CsoBAXLI2nxq9lPdKfE0aY3kR2Zbm7vWc4iH", None]


def test_complete_responses_keep_signatures() -> None:
    gemini = json.loads((DATA / "gemini" / "non_stream_array.json").read_text())
    chunk = next(
        c for c in gemini if any("functionCall" in p for p in c["candidates"][0]["content"]["parts"])
    )
    signed = [
        p["thoughtSignature"] for p in chunk["candidates"][0]["content"]["parts"] if "functionCall" in p
    ]
    assert [c.thought_signature for c in extract(chunk)] == signed
    compat = (DATA / "openai" / "gemini3_non_stream.json").read_bytes()
    assert [c.thought_signature for c in extract(compat)] == ["CsoBAXLI2nxq9lPdKfE0aY3kR2Zbm7vWc4iH"]


SIGNED = [
    ToolCall("call_1", "get_weather", {"city": "Paris"}, 0, thought_signature="c2lnbmVkIG9uZQ=="),
    ToolCall("call_2", "get_weather", {"city": "Oslo"}, 1),
]


def test_encode_call_writes_the_signature_where_gemini_reads_it() -> None:
    parts = encode_call(SIGNED, "gemini")["parts"]
    # A sibling of functionCall in the part, not inside it; the unsigned call gets none invented.
    assert parts[0] == {
        "functionCall": {"id": "call_1", "name": "get_weather", "args": {"city": "Paris"}},
        "thoughtSignature": "c2lnbmVkIG9uZQ==",
    }
    assert "thoughtSignature" not in parts[1]
    entries = plain([encode_call(SIGNED, "openai")])[0]["tool_calls"]
    assert entries[0]["extra_content"] == {"google": {"thought_signature": "c2lnbmVkIG9uZQ=="}}
    assert "extra_content" not in entries[1]


@pytest.mark.parametrize("provider", ["gemini", "openai"])
def test_signatures_round_trip_through_the_codec(provider: CodecProviderName) -> None:
    assert extract(encode_call(SIGNED, provider)) == SIGNED


@pytest.mark.parametrize("provider", ["anthropic", "bedrock", "ollama", "cohere", "openai-responses"])
def test_providers_without_a_place_for_it_leave_it_out(provider: CodecProviderName) -> None:
    assert all(c.thought_signature is None for c in extract(encode_call(SIGNED, provider)))


async def _bytes(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def get_weather(city: str) -> str:
    return f"sunny in {city}"


async def get_time(tz: str) -> str:
    return f"noon in {tz}"


async def test_run_messages_sends_the_signature_back_for_the_next_gemini_request() -> None:
    data = (DATA / "gemini" / "one_call.sse").read_bytes()
    async with streamcalls.run_tools(
        streamcalls.aparse(_bytes(data), provider="gemini"), [get_weather]
    ) as run:
        async for _ in run:
            pass
    model_turn = run.messages("gemini")[0]
    calls = [p for p in model_turn["parts"] if "functionCall" in p]
    assert [p.get("thoughtSignature") for p in calls] == signatures_in_gemini_sse(
        DATA / "gemini" / "one_call.sse"
    )


async def test_run_messages_sends_it_back_through_the_openai_compatible_endpoint() -> None:
    data = (DATA / "openai" / "gemini3_thought_signatures.sse").read_bytes()
    async with streamcalls.run_tools(streamcalls.aparse(_bytes(data)), [get_weather]) as run:
        async for _ in run:
            pass
    assistant = plain(run.messages("openai"))[0]
    assert [c.get("extra_content") for c in assistant["tool_calls"]] == [
        {"google": {"thought_signature": "CsoBAXLI2nxq9lPdKfE0aY3kR2Zbm7vWc4iH"}},
        None,
    ]
