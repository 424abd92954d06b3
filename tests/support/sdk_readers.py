"""The official SDKs as readers of the replay server: each one's own stream helper, and what it made of a turn.

One reader per provider that has an SDK here: the anthropic SDK's
``messages.stream()``, the openai SDK's ``chat.completions.stream()`` and
``responses.stream()``, and botocore's ``bedrock-runtime`` client's
``converse_stream`` (its event-stream decoder checks every frame's CRCs).
Each sends a request in its provider's shape, lets the SDK accumulate the
stream as it does for its users, and says what the SDK ended with
(:class:`Read`), read from the SDK's own objects; ``follow`` writes the next
request's history the way a user of that SDK does, from those objects.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

import anthropic
import anyio
import openai

import streamcalls
from tests.support.replaying import TOOLS, prompt


class Read(NamedTuple):
    """What an SDK made of one streamed turn."""

    text: str
    reasoning: str  # "" where the SDK's reader keeps none
    calls: list[tuple[str, str, dict[str, Any]]]  # (id, name, arguments)
    stop: str  # the SDK's own finish word
    kept: Any  # what the SDK gives back for the history


class SdkReader(NamedTuple):
    read: Callable[[str, str, list[Any]], Awaitable[Read]]  # (url, model, history)
    follow: Callable[[list[Any], Read, list[tuple[str, str]]], list[Any]]  # results: (call id, content)
    reads_reasoning: bool


# -- anthropic ----------------------------------------------------------------------------------------------


async def _anthropic(url: str, model: str, history: list[Any]) -> Read:
    client = anthropic.AsyncAnthropic(base_url=url, api_key="replay", max_retries=0)
    async with client:
        tools = streamcalls.encode_tools(TOOLS, "anthropic")
        async with client.messages.stream(
            model=model, max_tokens=1024, messages=history, tools=tools
        ) as stream:
            message = await stream.get_final_message()
    blocks = message.content
    return Read(
        "".join(b.text for b in blocks if b.type == "text"),
        "".join(b.thinking for b in blocks if b.type == "thinking"),
        [(b.id, b.name, dict(b.input)) for b in blocks if b.type == "tool_use"],
        str(message.stop_reason),
        [b.model_dump(exclude_none=True, include={"type", "text", "id", "name", "input"}) for b in blocks],
    )


def _anthropic_follow(history: list[Any], read: Read, results: list[tuple[str, str]]) -> list[Any]:
    content = [{"type": "tool_result", "tool_use_id": id, "content": text} for id, text in results]
    return [*history, {"role": "assistant", "content": read.kept}, {"role": "user", "content": content}]


# -- openai chat --------------------------------------------------------------------------------------------


async def _chat(url: str, model: str, history: list[Any]) -> Read:
    client = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="replay", max_retries=0)
    async with client:
        tools = streamcalls.encode_tools(TOOLS, "openai")
        async with client.chat.completions.stream(model=model, messages=history, tools=tools) as stream:
            completion = await stream.get_final_completion()
    choice = completion.choices[0]
    message = choice.message
    calls = [
        (c.id, c.function.name, json.loads(c.function.arguments or "{}"))  # "": none
        for c in message.tool_calls or ()
        if c.type == "function"
    ]
    kept: dict[str, Any] = {"role": "assistant", "content": message.content}
    if message.tool_calls:
        kept["tool_calls"] = [
            {"id": id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
            for id, name, arguments in calls
        ]
    return Read(message.content or "", "", calls, str(choice.finish_reason), kept)


def _chat_follow(history: list[Any], read: Read, results: list[tuple[str, str]]) -> list[Any]:
    tools = [{"role": "tool", "tool_call_id": id, "content": text} for id, text in results]
    return [*history, read.kept, *tools]


# -- openai responses ---------------------------------------------------------------------------------------


async def _responses(url: str, model: str, history: list[Any]) -> Read:
    client = openai.AsyncOpenAI(base_url=f"{url}/v1", api_key="replay", max_retries=0)
    async with client:
        tools = streamcalls.encode_tools(TOOLS, "openai-responses")
        async with client.responses.stream(model=model, input=history, tools=tools) as stream:
            response = await stream.get_final_response()
    items = response.output
    reasoning = "".join(s.text for i in items if i.type == "reasoning" for s in i.summary)
    calls = [(i.call_id, i.name, json.loads(i.arguments or "{}")) for i in items if i.type == "function_call"]
    kept = [i.model_dump(exclude_none=True) for i in items]
    return Read(response.output_text, reasoning, calls, str(response.status), kept)


def _responses_follow(history: list[Any], read: Read, results: list[tuple[str, str]]) -> list[Any]:
    outputs = [{"type": "function_call_output", "call_id": id, "output": text} for id, text in results]
    return [*history, *read.kept, *outputs]


# -- bedrock converse (botocore) ----------------------------------------------------------------------------


def _converse(url: str, model: str, history: list[Any]) -> Read:
    import botocore.session
    from botocore.config import Config

    session = botocore.session.get_session()
    client = session.create_client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=url,
        aws_access_key_id="replay",
        aws_secret_access_key="replay",
        config=Config(retries={"max_attempts": 1}),
    )
    tools = streamcalls.encode_tools(TOOLS, "bedrock")
    answer = client.converse_stream(modelId=model, messages=history, toolConfig={"tools": tools})
    text, reasoning, stop = [], [], ""
    uses: dict[int, dict[str, Any]] = {}
    inputs: dict[int, str] = {}
    for event in answer["stream"]:
        if "contentBlockStart" in event:
            start = event["contentBlockStart"]
            use = start["start"].get("toolUse")
            if use is not None:
                uses[start["contentBlockIndex"]] = use
                inputs[start["contentBlockIndex"]] = ""
        elif "contentBlockDelta" in event:
            index, delta = (
                event["contentBlockDelta"]["contentBlockIndex"],
                event["contentBlockDelta"]["delta"],
            )
            if "text" in delta:
                text.append(delta["text"])
            elif "toolUse" in delta:
                inputs[index] += delta["toolUse"]["input"]
            elif "reasoningContent" in delta:
                reasoning.append(delta["reasoningContent"].get("text", ""))
        elif "messageStop" in event:
            stop = event["messageStop"]["stopReason"]
    client.close()
    calls = [(u["toolUseId"], u["name"], json.loads(inputs[i] or "{}")) for i, u in sorted(uses.items())]
    content: list[Any] = [{"text": "".join(text)}] if text else []
    content += [{"toolUse": {"toolUseId": id, "name": name, "input": args}} for id, name, args in calls]
    return Read("".join(text), "".join(reasoning), calls, stop, content)


async def _bedrock(url: str, model: str, history: list[Any]) -> Read:
    return await anyio.to_thread.run_sync(_converse, url, model, history)


def _bedrock_follow(history: list[Any], read: Read, results: list[tuple[str, str]]) -> list[Any]:
    content = [{"toolResult": {"toolUseId": id, "content": [{"text": text}]}} for id, text in results]
    return [*history, {"role": "assistant", "content": read.kept}, {"role": "user", "content": content}]


READERS: dict[str, SdkReader] = {
    "anthropic": SdkReader(_anthropic, _anthropic_follow, reads_reasoning=True),
    "openai": SdkReader(_chat, _chat_follow, reads_reasoning=False),
    "openai-responses": SdkReader(_responses, _responses_follow, reads_reasoning=True),
    "bedrock": SdkReader(_bedrock, _bedrock_follow, reads_reasoning=True),
}
"""Every provider an official SDK here reads, by its name."""


def first_history(provider: str, text: str = "Plan my Saturday") -> list[Any]:
    """The first request's history in ``provider``'s shape: the user's prompt."""
    return [prompt(provider, text)]
