"""OpenAI Responses: everything its wire knows.

- :mod:`.reader` (with :mod:`.reasoning_items`): the stream adapter
  (``response.*`` events);
- :mod:`.complete`: the complete ``response`` (or its ``output`` items);
- :mod:`.encoding`: tools, calls, results and a turn, as ``input`` items;
- :mod:`.writer`: the stream writer's ``"openai-responses"`` target;
  :mod:`.response`: the complete ``response`` for a turn (``write_response``);
  :mod:`.items`: the response, output items and usage both of them build;
- :mod:`.request_rules`, :mod:`.history_rules`: what the API refuses in a
  request.  Its error responses are OpenAI Chat's (:mod:`..openai_chat.errors`).

:data:`PROVIDER` is its entry in the registry (:mod:`streamcalls.providers`).
"""

from __future__ import annotations

from .._registry import Encoding, Errors, Provider, Rules
from ..openai_chat import errors
from . import complete, encoding, response
from . import writer as writer  # its module registers the "openai-responses" target
from .history_rules import responses_reasoning, responses_turn
from .reader import OpenAIResponsesAdapter
from .request_rules import responses_request

__all__ = ("PROVIDER",)

PROVIDER = Provider(
    "openai-responses",
    OpenAIResponsesAdapter,
    complete.read_responses,
    complete.stream_end,
    Encoding(
        encoding.encode_tools, encoding.encode_calls, encoding.encode_results, encoding.encode_assistant
    ),
    Errors(errors.error_body, errors.no_model),
    Rules(responses_request, responses_turn, answered=responses_reasoning),
    nicknames={"responses": "openai-responses"},
    response=response.responses_response,
)
