"""Cohere v2 chat: everything its wire knows.

- :mod:`.reader`: the stream adapter (``message-start`` ... ``message-end``);
- :mod:`.complete`: the end of a complete response (its body is read by
  OpenAI Chat's :func:`..openai_chat.complete.read_chat`);
- :mod:`.encoding`: calls, results and a turn (its tools are OpenAI Chat's);
- :mod:`.errors`: its error responses;
- :mod:`.writer`: the ``"cohere"`` target of the stream writer (registered on import);
  :mod:`.response`: its complete response for a turn (``write_response``);
- :mod:`.request_rules`, :mod:`.history_rules`: what the API refuses in a
  request.

:data:`PROVIDER` is its entry in the registry (:mod:`streamcalls.providers`).
"""

from __future__ import annotations

from .._registry import Encoding, Errors, Provider, Rules
from ..openai_chat import complete as chat_complete
from ..openai_chat import encoding as chat_encoding
from . import complete, encoding, errors, response
from . import writer as writer  # the "cohere" target registers itself
from .history_rules import cohere_turn
from .reader import CohereAdapter
from .request_rules import cohere_request

__all__ = ("PROVIDER",)

PROVIDER = Provider(
    "cohere",
    CohereAdapter,
    chat_complete.read_chat,
    complete.stream_end,
    Encoding(
        chat_encoding.encode_tools, encoding.encode_calls, encoding.encode_results, encoding.encode_assistant
    ),
    Errors(errors.error_body, errors.no_model),
    Rules(cohere_request, cohere_turn),
    nicknames={"command": "cohere"},
    response=response.chat_response,
)
