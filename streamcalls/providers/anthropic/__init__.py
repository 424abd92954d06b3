"""Anthropic Messages: everything its wire knows.

- :mod:`.reader`: the stream adapter (``message_start`` ... ``message_stop``);
- :mod:`.complete`: the complete ``message``;
- :mod:`.encoding`: tools, calls, results and a turn (signed thinking kept);
- :mod:`.errors`: its error responses;
- :mod:`.response`: its complete response for a turn (``write_response``);
- :mod:`.writer`: its target for the stream writer (``StreamWriter("anthropic")``);
- :mod:`.request_rules`, :mod:`.history_rules`: what the API refuses in a
  request (Claude's thinking rules: :mod:`.._thinking_rules`).

:data:`PROVIDER` is its entry in the registry (:mod:`streamcalls.providers`).
"""

from __future__ import annotations

from .._registry import Encoding, Errors, Provider, Rules
from . import complete, encoding, errors, response
from . import writer as writer  # (importing it registers its target)
from .history_rules import anthropic_thinking, anthropic_turn
from .reader import AnthropicAdapter
from .request_rules import anthropic_request

__all__ = ("PROVIDER",)

PROVIDER = Provider(
    "anthropic",
    AnthropicAdapter,
    complete.read_anthropic,
    complete.stream_end,
    Encoding(
        encoding.encode_tools, encoding.encode_calls, encoding.encode_results, encoding.encode_assistant
    ),
    Errors(errors.error_body, errors.no_model),
    Rules(anthropic_request, anthropic_turn, answered=anthropic_thinking),
    nicknames={"claude": "anthropic"},
    response=response.anthropic_message,
)
