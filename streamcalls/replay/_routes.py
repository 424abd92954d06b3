"""The replay server's endpoints: which provider a POST is for, and what its path says of it.

Each provider at its own path, in its own request shape:

- OpenAI Chat ``/v1/chat/completions``, Anthropic ``/v1/messages``, OpenAI
  Responses ``/v1/responses``, Cohere ``/v2/chat``: the body names the
  ``model`` and asks for ``"stream": true``;
- Ollama ``/api/chat``: likewise, but it streams unless ``"stream": false``;
- Gemini ``/v1beta/models/{model}:streamGenerateContent`` (``?alt=sse``:
  server-sent events; without it, one JSON array streamed element by
  element) and ``:generateContent`` (complete): the path names the model;
- Bedrock ``/model/{modelId}/converse-stream`` (binary event stream) and
  ``/model/{modelId}/converse`` (complete): the path names the model,
  percent-encoded (a model ARN holds ``/`` and ``:``);
- Bedrock InvokeModel ``/model/{modelId}/invoke-with-response-stream``
  (the model's own events in ``chunk`` frames of the binary event stream:
  Claude's Messages events, for the anthropic SDK's Bedrock client) and
  ``/model/{modelId}/invoke`` (complete): the path names the model, as
  Converse's does.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs, unquote

import msgspec

__all__ = ("ENDPOINTS", "Route", "route_for")


class Route(msgspec.Struct, frozen=True):
    """The provider a POST is for, and what its path says of the request.

    ``model`` is the model the path names (None: the body's ``model``);
    ``stream`` whether the path asks for a stream (None: the body's
    ``"stream"`` says, ``stream_default`` when it has none); ``json_array``
    a Gemini stream without ``?alt=sse``; ``method`` the API method the path
    names (Gemini's wording of a missing model uses it).
    """

    provider: str
    model: str | None = None
    stream: bool | None = None
    stream_default: bool = False
    json_array: bool = False
    method: str = ""

    def streams(self, request: Mapping[str, Any]) -> bool:
        """Whether the answer to ``request`` is a stream (else a complete response)."""
        if self.stream is not None:
            return self.stream
        return request.get("stream", self.stream_default) is True


_BY_PATH = {
    "/v1/chat/completions": Route("openai"),
    "/v1/messages": Route("anthropic"),
    "/v1/responses": Route("openai-responses"),
    "/api/chat": Route("ollama", stream_default=True),
    "/v2/chat": Route("cohere"),
}
_GEMINI = re.compile(r"/v1beta/models/(?P<model>[^/:]+):(?P<method>streamGenerateContent|generateContent)")
_BEDROCK = re.compile(r"/model/(?P<model>[^/]+)/(?P<method>converse-stream|converse)")
_INVOKE = re.compile(r"/model/(?P<model>[^/]+)/(?P<method>invoke-with-response-stream|invoke)")

ENDPOINTS: tuple[tuple[str, str], ...] = (
    ("POST /v1/chat/completions", "openai: OpenAI Chat Completions (base_url <url>/v1)"),
    ("POST /v1/responses", "openai-responses: OpenAI Responses (base_url <url>/v1)"),
    ("POST /v1/messages", "anthropic: Anthropic Messages (base_url <url>)"),
    ("POST /api/chat", "ollama: Ollama chat (host <url>)"),
    ("POST /v1beta/models/<model>:streamGenerateContent", "gemini: ?alt=sse for SSE, else the JSON array"),
    ("POST /v1beta/models/<model>:generateContent", "gemini: the complete response"),
    ("POST /model/<model>/converse-stream", "bedrock: the binary event stream (endpoint_url <url>)"),
    ("POST /model/<model>/converse", "bedrock: the complete response"),
    (
        "POST /model/<model>/invoke-with-response-stream",
        "bedrock-invoke: InvokeModel's event stream (AnthropicBedrock base_url <url>)",
    ),
    ("POST /model/<model>/invoke", "bedrock-invoke: the complete response (Claude's)"),
    ("POST /v2/chat", "cohere: Cohere v2 chat (base_url <url>)"),
    ("GET /replay/<provider>/<name>", "a recording as it is (<name>.turn2: its second turn)"),
)
"""Every endpoint, with what it is: for the index page and ``streamcalls serve``."""


def route_for(raw_path: str, query: str = "") -> Route | None:
    """The route of a POST to ``raw_path`` (still percent-encoded, no trailing slash), or None."""
    route = _BY_PATH.get(raw_path)
    if route is not None:
        return route
    match = _GEMINI.fullmatch(raw_path)
    if match is not None:
        streams = match["method"] == "streamGenerateContent"
        sse = parse_qs(query).get("alt") == ["sse"]
        return Route(
            "gemini", unquote(match["model"]), streams, json_array=streams and not sse, method=match["method"]
        )
    match = _BEDROCK.fullmatch(raw_path)
    if match is not None:
        return Route("bedrock", unquote(match["model"]), match["method"] == "converse-stream")
    match = _INVOKE.fullmatch(raw_path)
    if match is not None:
        streams = match["method"] == "invoke-with-response-stream"
        return Route("bedrock-invoke", unquote(match["model"]), streams)
    return None
