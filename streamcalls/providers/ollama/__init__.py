"""Ollama: everything its wire knows.

- :mod:`.reader`: the stream adapter (NDJSON chat and generate chunks);
- :mod:`.complete`: the end of a complete response (its body is read by
  OpenAI Chat's :func:`..openai_chat.complete.read_chat`);
- :mod:`.encoding`: calls, results and a turn (its tools are OpenAI Chat's);
- :mod:`.errors`: its error responses;
- :mod:`.writer`: the ``"ollama"`` target of the stream writer (registered on import);
  :mod:`.response`: its complete response for a turn (``write_response``);
- :mod:`.request_rules`, :mod:`.history_rules`: what Go's JSON decoder
  refuses in a request.

:data:`PROVIDER` is its entry in the registry (:mod:`streamcalls.providers`).
"""

from __future__ import annotations

from .._registry import Encoding, Errors, Provider, Rules
from ..openai_chat import complete as chat_complete
from ..openai_chat import encoding as chat_encoding
from . import complete, encoding, errors, response
from . import writer as writer  # the "ollama" target registers itself
from .history_rules import ollama_turn
from .reader import OllamaAdapter
from .request_rules import ollama_request

__all__ = ("PROVIDER",)

PROVIDER = Provider(
    "ollama",
    OllamaAdapter,
    chat_complete.read_chat,
    complete.stream_end,
    Encoding(
        chat_encoding.encode_tools, encoding.encode_calls, encoding.encode_results, encoding.encode_assistant
    ),
    Errors(errors.error_body, errors.no_model),
    Rules(ollama_request, ollama_turn),
    response=response.chat_response,
)
