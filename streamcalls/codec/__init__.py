"""The other half of a tool loop: reading complete responses, writing requests.

- :func:`extract`: the tool calls in a complete, non-streamed response of any
  provider, with the fallback cascade (native calls, then fences, then bare
  JSON in the text);
- :func:`encode_tools`, :func:`encode_call`, :func:`encode_result`: tool
  definitions, the assistant's calls and the tools' results in each
  provider's request format;
- :func:`encode_turn`: a whole :class:`~streamcalls.Turn` -- its reasoning
  with the signatures the provider requires back, its text, its calls with
  their arguments as written -- and its results, for the next request;
- :func:`augment_system_prompt`: the ``~~~tool_call`` fence protocol for
  models without native tool calls.

Provider names are the parser's: ``"openai"``, ``"openai-responses"``,
``"anthropic"``, ``"ollama"``, ``"gemini"``, ``"bedrock"``, ``"cohere"``,
and every alias of OpenAI's format (``"openrouter"``, ``"groq"``, ...):
:data:`CodecProviderName`.  Written as a literal, the name types the encoders'
results as the official SDKs' request types (see :mod:`._encode`).

May import: the core (``extract`` runs the parser's adapters and readers),
providers, detectors and framing.  Never the async front or the replay
server; the SDKs' types only for type checking.
"""

from __future__ import annotations

from .._names import CodecProviderName
from ._context import ToolContext
from ._encode import Message, ToolSpec, encode_call, encode_result, encode_tools
from ._extract import extract
from ._history import encode_turn
from ._names import CODEC_PROVIDERS
from ._prompt import augment_system_prompt
from ._tool import Tool

__all__ = (
    "CODEC_PROVIDERS",
    "CodecProviderName",
    "Message",
    "Tool",
    "ToolContext",
    "ToolSpec",
    "augment_system_prompt",
    "encode_call",
    "encode_result",
    "encode_tools",
    "encode_turn",
    "extract",
)
