"""Each provider's assistant message for a turn: its text, reasoning and calls, in order.

Each provider's writer is its package's ``encoding.encode_assistant``
(``providers/<name>/encoding.py``, whose docstring says what that provider
requires back, and where it says so); :data:`ASSISTANT` maps each canonical
provider name to it.
"""

from __future__ import annotations

from ..providers._encoding import AssistantEncoder, Written
from ..providers.anthropic import encoding as anthropic_encoding
from ..providers.bedrock import encoding as bedrock_encoding
from ..providers.cohere import encoding as cohere_encoding
from ..providers.gemini import encoding as gemini_encoding
from ..providers.ollama import encoding as ollama_encoding
from ..providers.openai_chat import encoding as openai_encoding
from ..providers.openai_responses import encoding as responses_encoding

__all__ = ("ASSISTANT", "Written")

ASSISTANT: dict[str, AssistantEncoder] = {
    "openai": openai_encoding.encode_assistant,
    "openai-responses": responses_encoding.encode_assistant,
    "anthropic": anthropic_encoding.encode_assistant,
    "ollama": ollama_encoding.encode_assistant,
    "gemini": gemini_encoding.encode_assistant,
    "bedrock": bedrock_encoding.encode_assistant,
    "cohere": cohere_encoding.encode_assistant,
}
