"""Requests to the replay server in every provider's shape, for the tests that loop through it.

Each provider at its own path, with the user's prompt and the history as
that provider takes them (:func:`request`); the tools are typed functions,
which ``run_tools`` checks and ``encode_tools`` describes.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Literal, cast

import httpx

import streamcalls
from streamcalls.codec import CodecProviderName
from streamcalls.codec._names import CODEC_PROVIDERS
from streamcalls.testing import ReplayApp, bundled_recordings, serve

BUNDLED = bundled_recordings()
PROVIDERS = cast(list[CodecProviderName], list(CODEC_PROVIDERS))
ASK = "Plan my Saturday"
BEDROCK_TYPE = ":http://internal.amazon.com/coral/com.amazon.bedrock/"


def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Current weather in a city."""
    return f"sunny and 21 °C in {city} ({unit})"


def get_opening_hours(place: str, day: str, lang: str = "en") -> str:
    """Opening hours of a place on a day."""
    return f"{place} is open 09:00-18:00 on {day} ({lang})"


TOOLS = [get_weather, get_opening_hours]


def prompt(provider: str, text: str = ASK) -> dict[str, Any]:
    """The user's prompt, as each provider takes it."""
    if provider == "gemini":
        return {"role": "user", "parts": [{"text": text}]}
    if provider == "bedrock":
        return {"role": "user", "content": [{"text": text}]}
    return {"role": "user", "content": text}


def request(
    provider: str, history: list[Any], *, stream: bool = True, model: str = "plan_day"
) -> tuple[str, Any]:
    """The path and JSON body of a request carrying ``history``, as each provider takes it."""
    if provider == "gemini":
        method = "streamGenerateContent?alt=sse" if stream else "generateContent"
        return f"/v1beta/models/{model}:{method}", {"contents": history}
    if provider == "bedrock":
        tools = {"tools": streamcalls.encode_tools(TOOLS, "bedrock")}
        return f"/model/{model}/{'converse-stream' if stream else 'converse'}", {
            "messages": history,
            "toolConfig": tools,
        }
    path = {
        "openai": "/v1/chat/completions",
        "openai-responses": "/v1/responses",
        "anthropic": "/v1/messages",
        "ollama": "/api/chat",
        "cohere": "/v2/chat",
    }[provider]
    body: dict[str, Any] = {
        "model": model,
        "input" if provider == "openai-responses" else "messages": history,
    }
    if provider == "anthropic":
        body["max_tokens"] = 100
    if stream or provider == "ollama":  # Ollama streams unless told not to
        body["stream"] = stream
    return path, body


@asynccontextmanager
async def replay() -> AsyncIterator[tuple[ReplayApp, httpx.AsyncClient, str]]:
    app = ReplayApp(BUNDLED, seed=5, max_chunk=37)
    async with serve(app, graceful_timeout=0.1) as url, httpx.AsyncClient(base_url=url, timeout=10) as client:
        yield app, client, url


def complete_text(body: Any, provider: str) -> str:
    """The text of a complete response, read by hand from each provider's documented shape."""
    if provider == "openai":
        return body["choices"][0]["message"]["content"] or ""
    if provider == "openai-responses":
        return "".join(
            p["text"] for item in body["output"] if item["type"] == "message" for p in item["content"]
        )
    if provider == "anthropic":
        return "".join(b["text"] for b in body["content"] if b["type"] == "text")
    if provider == "ollama":
        return str(body["message"]["content"])
    if provider == "gemini":
        parts = body["candidates"][0]["content"]["parts"]
        return "".join(p["text"] for p in parts if "text" in p and not p.get("thought"))
    if provider == "bedrock":
        return "".join(b["text"] for b in body["output"]["message"]["content"] if "text" in b)
    return "".join(c["text"] for c in body["message"].get("content", []) if c["type"] == "text")  # Cohere


def complete_finish(body: Any, provider: str) -> Any:
    """The finish reason of a complete response, where each provider's shape keeps it."""
    if provider == "openai":
        return body["choices"][0]["finish_reason"]
    if provider == "gemini":
        return body["candidates"][0]["finishReason"]
    field = {
        "openai-responses": "status",
        "anthropic": "stop_reason",
        "ollama": "done_reason",
        "bedrock": "stopReason",
        "cohere": "finish_reason",
    }[provider]
    return body[field]


def provider_error(provider: str, response: Any) -> Any:
    """The error as the table writes it: Bedrock's exception name from its header, Cohere's message."""
    body = response.json()
    if provider == "bedrock":
        kind = response.headers["x-amzn-errortype"]
        assert kind.endswith(BEDROCK_TYPE)
        assert list(body) == ["message"]
        return kind.removesuffix(BEDROCK_TYPE), body["message"]
    if provider == "cohere":
        assert list(body) == ["id", "message"]
        assert uuid.UUID(body["id"])
        return body["message"]
    return body
