"""Reading complete (non-streamed) responses: what each provider's body holds.

A reader takes the decoded response -- or the assistant message inside it,
as :func:`~streamcalls.encode_call` writes it -- and returns a
:class:`Found`: the native calls, exactly as sent (the caller checks them);
the text segments in which the text detectors may look for calls; every
piece of text, reasoning and every call in the order the response holds
them; the provider's own finish reason and usage object, as sent; and the
model and response id it names.  Reasoning (``thinking`` blocks and parts,
``thought`` parts, ``reasoning`` items, Cohere's ``tool_plan``) is never
text; each block of it is one :class:`Thought`, with what the provider
requires back (signatures, redacted and encrypted content, item ids), as
the stream adapters read the same blocks.

Two users: :func:`~streamcalls.extract` takes the calls, and the parser
turns a body that is one complete response (the caller forgot ``stream:
true``) into the events its stream would have given (:mod:`~.framing._document`).

Each provider's reader is in its package (``providers/<name>/complete.py``);
this module holds the table of them, from the provider registry, and :func:`detect_provider`, which tells
a body's provider from its shape.
"""

from __future__ import annotations

from typing import Any

from ._errors import UsageError
from ._found import BREAK, CALL, REASONING, SIGNATURE, TEXT, Found, Native, Thought
from .providers import PROVIDERS
from .providers._bodies import Reader

__all__ = (
    "BREAK",
    "CALL",
    "READERS",
    "REASONING",
    "SIGNATURE",
    "TEXT",
    "Found",
    "Native",
    "Thought",
    "detect_provider",
)


READERS: dict[str, Reader] = {
    name: entry.complete for name, entry in PROVIDERS.items() if entry.complete is not None
}
"""Each provider's complete-response reader, from the registry (not ``"bedrock-invoke"``: it has none)."""


def detect_provider(obj: Any) -> str:
    """Which provider's shape this decoded response (or assistant message) has.

    :raises UsageError: when no shape fits (an error body is named as such).
    """
    if isinstance(obj, list):
        # A list of Responses output (or input) items; not, say, a streamed Gemini array.
        if all(isinstance(item, dict) and ("type" in item or "role" in item) for item in obj):
            return "openai-responses"
        raise UsageError(f"a list is read as OpenAI Responses items, and this one is not: {obj!r:.200}")
    if not isinstance(obj, dict):
        raise UsageError(f"a response is a JSON object (or a list of Responses items), not {obj!r:.200}")
    if "choices" in obj:
        return "openai"
    if "candidates" in obj or "parts" in obj or "promptFeedback" in obj:
        return "gemini"
    output = obj.get("output")
    if isinstance(output, list) or obj.get("object") == "response" or obj.get("type") == "function_call":
        return "openai-responses"
    if isinstance(output, dict):
        return "bedrock"
    if isinstance(obj.get("message"), dict):
        return "ollama" if "done" in obj else "cohere"
    if "done" in obj and "response" in obj:
        return "ollama"
    if "tool_calls" in obj or "function_call" in obj:
        return "openai"  # or Ollama's or Cohere's message: one reader reads them all
    content = obj.get("content")
    if isinstance(content, list):
        blocks = [block for block in content if isinstance(block, dict)]
        if blocks and not any("type" in block for block in blocks):
            return "bedrock"  # blocks keyed by their kind: {"text"}, {"toolUse"}
        if any(block.get("type") in ("output_text", "refusal") for block in blocks):
            return "openai-responses"
        return "anthropic"
    if "role" in obj and (content is None or isinstance(content, str)):
        return "openai"
    if isinstance(obj.get("name"), str) and ("arguments" in obj or "parameters" in obj):
        return "text"  # a bare call object, as a model writes it
    if "error" in obj:
        raise UsageError(f"the response is an error, not a completion: {obj['error']!r:.300}")
    raise UsageError(f"cannot tell the provider from the response (keys: {sorted(obj)[:12]}); pass provider=")
