"""``model=``: the detectors of a model's family join the defaults; a stream's own ``model`` does too.

The table is tested as a mapping (name -> detector names) for the families
issue 15 lists, with the Hugging Face ids of formats.md §8, Ollama tags and
gateway names; the parser-level behaviour with the formats registered here.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any, ClassVar

import pytest

import streamcalls
from streamcalls import (
    Event,
    ReasoningDelta,
    StreamParser,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    UsageError,
    detectors_for_model,
    extract,
)
from streamcalls.detectors import DEFAULT_DETECT, DETECTORS, default_detect
from tests.support import counter_ids, feed_chunks

FAMILIES = [
    ("openai/gpt-oss-20b", ("harmony",)),
    ("openai/gpt-oss-120b", ("harmony",)),
    ("gpt-oss:20b", ("harmony",)),
    ("openrouter/openai/gpt-oss-120b", ("harmony",)),
    ("Qwen/Qwen3-Coder-30B-A3B-Instruct", ("qwen3_coder",)),
    ("Qwen/Qwen3-Coder-480B-A35B-Instruct", ("qwen3_coder",)),
    ("qwen3-coder:30b", ("qwen3_coder",)),
    ("Qwen/Qwen3.5-27B", ("qwen3_coder",)),
    # Qwen3-Coder's markup, under other names
    ("stepfun-ai/Step-3.5-Flash", ("qwen3_coder",)),
    ("XiaomiMiMo/MiMo-V2-Flash", ("qwen3_coder",)),
    # ERNIE writes Hermes' tags after its reasoning
    ("baidu/ERNIE-4.5-21B-A3B-Thinking", ("hermes", "think", "answer")),  # and <response> tags
    ("Qwen/Qwen2.5-7B-Instruct", ("hermes", "think")),
    ("qwen2.5:7b", ("hermes", "think")),
    ("Qwen/Qwen3-8B", ("hermes", "think")),
    ("qwen3:14b", ("hermes", "think")),
    ("Qwen/QwQ-32B", ("hermes", "think")),
    ("zai-org/GLM-4.5", ("glm", "think")),
    ("zai-org/GLM-4.5-Air", ("glm", "think")),
    ("zai-org/GLM-4.6", ("glm", "think")),
    ("zai-org/GLM-4.7-Flash", ("glm", "think")),
    ("glm-4.6", ("glm", "think")),
    ("moonshotai/Kimi-K2-Instruct", ("kimi", "think")),
    ("moonshotai/Kimi-K2-Instruct-0905", ("kimi", "think")),
    ("moonshotai/Kimi-K2-Thinking", ("kimi", "think")),
    ("kimi-k2", ("kimi", "think")),
    ("meta-llama/Llama-3.2-1B-Instruct", ("llama", "pythonic")),
    ("meta-llama/Llama-3.2-3B-Instruct", ("llama", "pythonic")),
    ("llama3.2:1b", ("llama", "pythonic")),
    ("meta-llama/Llama-3.3-70B-Instruct", ("llama", "pythonic")),
    ("llama-3.3-70b-versatile", ("llama", "pythonic")),
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", ("llama", "pythonic")),  # JSON mode too
    ("meta-llama/Llama-4-Maverick-17B-128E-Instruct", ("llama", "pythonic")),
    ("llama4:scout", ("llama", "pythonic")),
    ("MiniMaxAI/MiniMax-M2", ("minimax", "think")),
    ("minimax-m2:cloud", ("minimax", "think")),
    ("deepseek-ai/DeepSeek-V3", ("deepseek",)),
    ("deepseek-ai/DeepSeek-V3-0324", ("deepseek",)),
    ("deepseek-ai/DeepSeek-V3.1", ("deepseek",)),
    ("deepseek-ai/DeepSeek-V3.1-Terminus", ("deepseek",)),
    ("deepseek-v3.1:671b", ("deepseek",)),
    # DeepSeek-V3.2 and V4 write DSML: not V3's tokens
    ("deepseek-ai/DeepSeek-V3.2", ("dsml",)),
    ("deepseek-ai/DeepSeek-V3.2-Exp", ("dsml",)),
    ("deepseek-v3.2:cloud", ("dsml",)),
    ("deepseek-ai/DeepSeek-V4", ("dsml",)),
    ("deepseek-ai/DeepSeek-V4-Flash", ("dsml",)),
    ("openrouter/deepseek/deepseek-v3.2", ("dsml",)),
    ("deepseek-ai/DeepSeek-R1", ("deepseek", "think")),
    ("deepseek-ai/DeepSeek-R1-0528", ("deepseek", "think")),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", ("deepseek", "think")),  # DeepSeek's tokens, not Qwen's
    ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", ("deepseek", "think")),
    ("deepseek-r1:8b", ("deepseek", "think")),
    ("deepseek/deepseek-r1", ("deepseek", "think")),
    ("mistralai/Mistral-7B-Instruct-v0.3", ("mistral",)),
    ("mistralai/Mistral-Small-3.2-24B-Instruct-2506", ("mistral",)),
    ("mistralai/Devstral-Small-2507", ("mistral",)),
    ("mistralai/Magistral-Small-2509", ("mistral",)),
    ("magistral-medium-2509", ("mistral",)),
    ("NousResearch/Hermes-3-Llama-3.1-8B", ("hermes",)),  # Hermes, not Llama
    ("NousResearch/Hermes-4-70B", ("hermes",)),
    ("hermes3:8b", ("hermes",)),
    # not in the table: the defaults only
    ("gpt-4o", ()),
    ("claude-sonnet-4-5", ()),
    ("meta-llama/Llama-3.1-8B-Instruct", ()),
    ("zai-org/GLM-4", ()),
    ("zai-org/GLM-4-32B", ()),
    ("some-custom-model", ()),
    ("", ()),
]


# Names where two families overlap: the table's order must keep them apart.
APART = [
    ("deepseek-ai/DeepSeek-V3.2", "deepseek-ai/DeepSeek-V3.1", "dsml", "deepseek"),
    ("deepseek-ai/DeepSeek-V4", "deepseek-ai/DeepSeek-V3", "dsml", "deepseek"),
    ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "Qwen/Qwen3-30B-A3B-Instruct-2507", "qwen3_coder", "hermes"),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "Qwen/Qwen2.5-Math-7B", "deepseek", "hermes"),
    ("NousResearch/Hermes-3-Llama-3.2-3B", "meta-llama/Llama-3.2-3B-Instruct", "hermes", "llama"),
]


@pytest.mark.parametrize(("one", "other", "its", "theirs"), APART)
def test_the_order_keeps_overlapping_families_apart(one: str, other: str, its: str, theirs: str) -> None:
    assert its in detectors_for_model(one)
    assert theirs not in detectors_for_model(one)
    assert theirs in detectors_for_model(other)
    assert its not in detectors_for_model(other)


def test_the_order_matters() -> None:
    """The table, tried in another order, maps some names of APART wrongly: the order is what keeps them apart."""
    import re

    reordered = tuple(reversed(streamcalls.MODEL_FAMILIES))

    def lookup(model: str) -> tuple[str, ...]:
        return next((names for pattern, names in reordered if re.search(pattern, model, re.IGNORECASE)), ())

    assert any(lookup(one) != detectors_for_model(one) for one, *_ in APART)


@pytest.mark.parametrize(("model", "names"), FAMILIES)
def test_the_table_maps_each_family_to_its_detectors(model: str, names: tuple[str, ...]) -> None:
    assert detectors_for_model(model) == names
    assert detectors_for_model(model.upper()) == names  # case does not matter


def test_every_name_in_the_table_is_a_detector() -> None:
    named = {name for _, names in streamcalls.MODEL_FAMILIES for name in names}
    assert named <= set(DETECTORS)


def test_the_defaults_gain_only_registered_detectors() -> None:
    assert default_detect(None) == DEFAULT_DETECT == ("fence", "json")
    assert default_detect("openai/gpt-oss-20b") == ("fence", "json", "harmony")
    assert default_detect("meta-llama/Llama-3.2-3B-Instruct") == ("fence", "json", "llama", "pythonic")
    assert default_detect("gpt-4o") == ("fence", "json")
    for model, _ in FAMILIES:
        assert set(default_detect(model)) <= set(DETECTORS)


# -- the parser ----------------------------------------------------------------------------------------

HARMONY = (
    "<|channel|>analysis<|message|>Need the weather.<|end|>"
    '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}<|call|>'
)
KIMI = (
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
    '{"city": "Oslo"}<|tool_call_end|><|tool_calls_section_end|>'
)
PYTHONIC = "[get_weather(city='Oslo')]"
# The XML formats as their chat templates write them (Qwen3-Coder, GLM-4.6, MiniMax-M2).
QWEN3_CODER = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>"
)
GLM = "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>\n</tool_call>"
MINIMAX = (
    '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Oslo</parameter>\n'
    "</invoke>\n</minimax:tool_call>"
)
FENCE = '~~~tool_call\n{"name": "get_time", "arguments": {}}\n~~~\n'


def names(events: list[Event]) -> list[str]:
    return [e.call.name for e in events if isinstance(e, ToolCallCompleted)]


@pytest.mark.parametrize(
    ("model", "text"),
    [
        ("openai/gpt-oss-120b", HARMONY),
        ("moonshotai/Kimi-K2-Instruct", KIMI),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", PYTHONIC),
        ("meta-llama/Llama-3.2-3B-Instruct", PYTHONIC),
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", QWEN3_CODER),
        ("qwen3-coder:30b", QWEN3_CODER),
        ("zai-org/GLM-4.6", GLM),
        ("MiniMaxAI/MiniMax-M2", MINIMAX),
    ],
)
def test_model_adds_its_family_s_detectors_to_the_defaults(model: str, text: str) -> None:
    events = feed_chunks([(text + "\n" + FENCE).encode()], "text", model=model)
    assert names(events) == ["get_weather", "get_time"]  # the family's format, and the default fence
    assert names(feed_chunks([(text + "\n" + FENCE).encode()], "text")) == ["get_time"]  # not by default


def test_an_unknown_model_keeps_the_defaults_and_detect_overrides_everything() -> None:
    assert names(feed_chunks([(HARMONY + "\n" + FENCE).encode()], "text", model="gpt-4o")) == ["get_time"]
    events = feed_chunks(
        [(HARMONY + "\n" + FENCE).encode()], "text", model="openai/gpt-oss-20b", detect=("kimi",)
    )
    assert names(events) == []


def test_model_must_be_a_name() -> None:
    with pytest.raises(UsageError, match="model takes a model's name"):
        StreamParser("text", model=42)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="model takes a model's name"):
        extract("x", provider="text", model=["gpt-oss"])  # type: ignore[arg-type]


# -- a stream that names its model -------------------------------------------------------------------


def openai_sse(*chunks: dict[str, Any]) -> bytes:
    events = [f"data: {json.dumps(chunk)}\n\n" for chunk in chunks]
    return ("".join(events) + "data: [DONE]\n\n").encode()


def content(text: str, model: str | None = "openai/gpt-oss-20b") -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": {"content": text}}],
    }
    if model is not None:
        chunk["model"] = model
    return chunk


def test_an_openai_stream_s_model_field_chooses_detectors_when_model_is_not_given() -> None:
    data = openai_sse(content(HARMONY[:40]), content(HARMONY[40:]))
    events = feed_chunks([data], "openai")
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "Need the weather."
    assert names(events) == ["get_weather"]
    assert names(feed_chunks([data], "auto")) == ["get_weather"]
    # model= or detect= given: the stream's own name changes nothing.
    assert names(feed_chunks([data], "openai", model="gpt-4o")) == []
    assert names(feed_chunks([data], "openai", detect=("fence",))) == []


def test_the_first_name_decides_and_text_already_released_stays_as_it_was() -> None:
    early = "<|channel|>final<|message|>Early. "
    data = openai_sse(
        content(early, model=None),  # no model yet: the defaults read this
        content(HARMONY, model="openai/gpt-oss-20b"),
        content(KIMI, model="moonshotai/Kimi-K2-Instruct"),  # a later name: ignored
    )
    events = feed_chunks([data], "openai")
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == early + KIMI
    assert names(events) == ["get_weather"]


def test_a_stream_s_model_field_chooses_an_xml_family_whose_values_the_tools_type() -> None:
    tools = [{"name": "get_weather", "parameters": {"properties": {"days": {"type": "integer"}}}}]
    days = QWEN3_CODER.replace("</function>", "<parameter=days>\n3\n</parameter>\n</function>")
    data = openai_sse(content("Checking.\n", "Qwen/Qwen3-Coder-30B-A3B-Instruct"), content(days))
    events = feed_chunks([data], "openai", tools=tools)
    calls = [e.call for e in events if isinstance(e, ToolCallCompleted)]
    assert [(c.name, c.arguments, c.source) for c in calls] == [
        ("get_weather", {"city": "Oslo", "days": 3}, "qwen3_coder")
    ]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Checking.\n"
    # Named GLM, the stream gets GLM's reader; unnamed, its markup stays text.
    data = openai_sse(content("Checking.\n", "zai-org/GLM-4.6"), content(GLM))
    assert [(c.name, c.source) for c in calls_of(feed_chunks([data], "openai"))] == [("get_weather", "glm")]
    data = openai_sse(content("Checking.\n", None), content(GLM, None))
    assert calls_of(feed_chunks([data], "openai")) == []


def calls_of(events: list[Event]) -> list[ToolCall]:
    return [e.call for e in events if isinstance(e, ToolCallCompleted)]


def test_ollama_and_responses_streams_name_their_model_too() -> None:
    lines = [
        {"model": "gpt-oss:20b", "message": {"role": "assistant", "content": HARMONY}, "done": False},
        {
            "model": "gpt-oss:20b",
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
        },
    ]
    ollama = "".join(json.dumps(line) + "\n" for line in lines).encode()
    assert names(feed_chunks([ollama], "ollama")) == ["get_weather"]
    created = {"type": "response.created", "response": {"model": "gpt-oss-120b", "status": "in_progress"}}
    delta = {"type": "response.output_text.delta", "item_id": "m", "output_index": 0, "delta": HARMONY}
    done = {"type": "response.completed", "response": {"model": "gpt-oss-120b", "status": "completed"}}
    responses = "".join(
        f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in (created, delta, done)
    ).encode()
    assert names(feed_chunks([responses], "openai-responses")) == ["get_weather"]


# -- every front takes model= ------------------------------------------------------------------------


def test_parse_and_parse_iter_take_model() -> None:
    assert names(streamcalls.parse(PYTHONIC, "text", model="Llama-4-Scout")) == ["get_weather"]
    assert names(list(streamcalls.parse_iter([PYTHONIC.encode()], "text", model="llama4:scout"))) == [
        "get_weather"
    ]


@pytest.mark.anyio
async def test_aparse_and_from_httpx_take_model() -> None:
    async def source() -> AsyncIterator[bytes]:
        yield KIMI.encode()

    events = [e async for e in streamcalls.aparse(source(), "text", model="kimi-k2")]
    assert names(events) == ["get_weather"]

    class Response:
        status_code = 200
        reason_phrase = "OK"
        headers: ClassVar[dict[str, str]] = {"content-type": "text/plain"}

        async def aiter_bytes(self) -> AsyncIterator[bytes]:
            yield KIMI.encode()

        async def aclose(self) -> None:
            pass

    events = [e async for e in streamcalls.from_httpx(Response(), "text", model="kimi-k2")]
    assert names(events) == ["get_weather"]


def test_from_httpx_sync_and_the_sdk_front_take_model() -> None:
    class Response:
        status_code = 200
        reason_phrase = "OK"
        headers: ClassVar[dict[str, str]] = {"content-type": "text/plain"}

        def iter_bytes(self) -> Iterator[bytes]:
            yield HARMONY.encode()

        def close(self) -> None:
            pass

    assert names(list(streamcalls.from_httpx_sync(Response(), "text", model="gpt-oss-20b"))) == [
        "get_weather"
    ]
    chunks = [
        content(HARMONY, model=None),
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    events = list(streamcalls.from_openai_stream(iter(chunks), model="openai/gpt-oss-20b"))
    assert names(events) == ["get_weather"]
    # Without model=, an SDK object's own model field does it.
    chunks[0]["model"] = "openai/gpt-oss-20b"
    assert names(list(streamcalls.from_openai_stream(iter(chunks)))) == ["get_weather"]


def test_extract_takes_model_or_reads_the_response_s() -> None:
    assert extract(PYTHONIC, provider="text") == []
    expected = [ToolCall("call_gen_0", "get_weather", {"city": "Oslo"}, 0, "pythonic")]
    assert (
        extract(PYTHONIC, provider="text", model="meta-llama/Llama-3.2-3B-Instruct", id_factory=counter_ids())
        == expected
    )
    completion = {
        "object": "chat.completion",
        "model": "meta-llama/Llama-4-Scout-17B-16E-Instruct",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": PYTHONIC}, "finish_reason": "stop"}
        ],
    }
    assert extract(completion, id_factory=counter_ids()) == expected
    assert extract(completion, detect=("fence",)) == []
