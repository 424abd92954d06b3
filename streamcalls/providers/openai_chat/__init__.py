"""OpenAI Chat Completions, and every server that speaks its wire format: everything its wire knows.

- :mod:`.reader`: the stream adapter (``chat.completion.chunk`` events);
- :mod:`.complete`: the complete response (also Ollama's and Cohere's bodies);
- :mod:`.encoding`: tools, calls, results and a turn, as requests carry them;
- :mod:`.errors`: its error responses (and Kimi's and Mistral's shapes);
- :mod:`.writer`: the stream writer's ``"openai"`` target; :mod:`.response`:
  the complete ``chat.completion`` for a turn (``write_response``);
- :mod:`.request_rules`, :mod:`.history_rules`, :mod:`.server_rules`: what
  the API refuses in a request, and what differs between the servers.

:data:`PROVIDER` is its entry in the registry (:mod:`streamcalls.providers`).
"""

from __future__ import annotations

from .._registry import Encoding, Errors, Provider, Rules
from . import complete, encoding, errors, response
from . import writer as writer  # its module registers the "openai" target
from .history_rules import openai_turn
from .reader import OpenAIChatAdapter
from .request_rules import chat_request
from .server_rules import chat_server_rules

__all__ = ("PROVIDER",)

PROVIDER = Provider(
    "openai",
    OpenAIChatAdapter,
    complete.read_chat,
    complete.stream_end,
    Encoding(
        encoding.encode_tools, encoding.encode_calls, encoding.encode_results, encoding.encode_assistant
    ),
    Errors(errors.error_body, errors.no_model),
    Rules(chat_request, openai_turn, server=chat_server_rules),
    # Servers that speak this wire format, by their own names.
    aliases=(
        "openai-chat",
        "openrouter",
        "groq",
        "vllm",
        "deepseek",
        "mistral",
        "together",
        "llama.cpp",
        "lmstudio",
    ),
    nicknames={
        "chatgpt": "openai",
        "gpt": "openai",
        "azure": "openai",
        "azure-openai": "openai",
        "chat-completions": "openai",
        "llamacpp": "llama.cpp",
        "llama-cpp": "llama.cpp",
        "lm-studio": "lmstudio",
    },
    response=response.chat_completion,
)
