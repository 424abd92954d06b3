"""Each provider's request shapes: tool definitions, the assistant's calls, the tools' results.

Every shape here is a plain ``dict``/``list`` (``msgspec.json.encode`` and any
HTTP client take it as it is), written from each provider's documented
request format:

============================  ==================================================  ==========================================
provider                      a call (``encode_call``)                             a result (``encode_result``)
============================  ==================================================  ==========================================
OpenAI Chat (and aliases)     ``assistant`` message, ``tool_calls[]`` with JSON     ``{"role": "tool", "tool_call_id"}``
                              string ``arguments``
OpenAI Responses              ``function_call`` items (``call_id``, JSON string)   ``function_call_output`` item
Anthropic                     ``assistant`` message, ``tool_use`` blocks           ``user`` message, ``tool_result`` blocks
Ollama                        ``assistant`` message, object ``arguments``          ``{"role": "tool", "tool_name"}``
Gemini                        ``model`` content, ``functionCall`` parts            ``user`` content, ``functionResponse`` parts
Bedrock Converse              ``assistant`` message, ``toolUse`` blocks            ``user`` message, ``toolResult`` blocks
Cohere v2                     ``assistant`` message, ``tool_calls[]``, tool_plan   ``{"role": "tool", "tool_call_id"}``
============================  ==================================================  ==========================================

A call's Gemini 3 signature (:attr:`ToolCall.thought_signature
<streamcalls.ToolCall.thought_signature>`) goes back where it came from:
``thoughtSignature`` beside the Gemini ``functionCall``, and
``extra_content.google.thought_signature`` on an OpenAI Chat call (Gemini's
compatible endpoint).

A failed tool (``ToolResult.is_error``) is flagged where the provider has a
flag -- Anthropic ``is_error: true``, Bedrock ``status: "error"``, Gemini's
``response: {"error": ...}`` (instead of ``{"output": ...}``) -- and
elsewhere its content is prefixed with ``"Error: "``.

Each provider's builders are in its package (``providers/<name>/encoding.py``);
the tables here map each canonical provider name to them, and
:mod:`streamcalls.codec._encode` holds the typed public functions over them.
"""

from __future__ import annotations

from ..providers._encoding import ERROR_PREFIX, CallsEncoder, Message, ResultsEncoder, ToolsEncoder
from ..providers.anthropic import encoding as anthropic_encoding
from ..providers.bedrock import encoding as bedrock_encoding
from ..providers.cohere import encoding as cohere_encoding
from ..providers.gemini import encoding as gemini_encoding
from ..providers.ollama import encoding as ollama_encoding
from ..providers.openai_chat import encoding as openai_encoding
from ..providers.openai_responses import encoding as responses_encoding

__all__ = ("CALLS", "ERROR_PREFIX", "RESULTS", "TOOLS", "Message")

TOOLS: dict[str, ToolsEncoder] = {
    "openai": openai_encoding.encode_tools,
    "openai-responses": responses_encoding.encode_tools,
    "anthropic": anthropic_encoding.encode_tools,
    "ollama": openai_encoding.encode_tools,
    "gemini": gemini_encoding.encode_tools,
    "bedrock": bedrock_encoding.encode_tools,
    "cohere": openai_encoding.encode_tools,
}

CALLS: dict[str, CallsEncoder] = {
    "openai": openai_encoding.encode_calls,
    "openai-responses": responses_encoding.encode_calls,
    "anthropic": anthropic_encoding.encode_calls,
    "ollama": ollama_encoding.encode_calls,
    "gemini": gemini_encoding.encode_calls,
    "bedrock": bedrock_encoding.encode_calls,
    "cohere": cohere_encoding.encode_calls,
}

RESULTS: dict[str, ResultsEncoder] = {
    "openai": openai_encoding.encode_results,
    "openai-responses": responses_encoding.encode_results,
    "anthropic": anthropic_encoding.encode_results,
    "ollama": ollama_encoding.encode_results,
    "gemini": gemini_encoding.encode_results,
    "bedrock": bedrock_encoding.encode_results,
    "cohere": cohere_encoding.encode_results,
}
