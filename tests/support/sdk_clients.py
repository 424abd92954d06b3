"""An official SDK's client that reads given bytes: every request it sends is answered with them.

The installed openai and anthropic SDKs are built on ``httpx2``; a ``MockTransport`` of it answers
each request with ``200`` and an event stream (the bytes a writer wrote, or a recording), whole or
in the pieces given, so that a test reads them with the SDK's own stream helpers, with no network.
The SDKs built on httpx (Cohere, Gemini, Ollama) answer through
:class:`tests.support.provider_writers.Answers` instead.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any


def sdk_client(sdk: Any, body: bytes | Sequence[bytes]) -> Any:
    """A client of ``sdk`` (``openai.OpenAI``, ``anthropic.Anthropic``) whose requests are all answered
    with the event stream ``body`` (bytes, or a list of the pieces it arrives in); no retries."""
    httpx2 = importlib.import_module("httpx2")  # what the installed SDKs are built on

    def answer(request: Any) -> Any:
        content = body if isinstance(body, bytes) else iter(body)
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=content)

    http = httpx2.Client(transport=httpx2.MockTransport(answer))
    return sdk(api_key="test", base_url="http://sdk.test", http_client=http, max_retries=0)
