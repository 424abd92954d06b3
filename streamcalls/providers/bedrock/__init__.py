"""AWS Bedrock Converse: everything its wire knows.

- :mod:`.reader`: the stream adapter (ConverseStream's event-stream frames);
- :mod:`.complete`: the complete Converse output;
- :mod:`.encoding`: tools, calls, results and a turn;
- :mod:`.errors`: its error responses (InvokeModel's too);
- :mod:`.response`: its complete response for a turn (``write_response``);
- :mod:`.writer`: its target for the stream writer (``StreamWriter("bedrock")``);
- :mod:`.request_rules`, :mod:`.history_rules`: what the API refuses in a
  request (Claude's thinking rules: :mod:`.._thinking_rules`).

:data:`PROVIDER` is its entry in the registry (:mod:`streamcalls.providers`).
"""

from __future__ import annotations

from .._registry import Encoding, Errors, Provider, Rules
from . import complete, encoding, errors, response
from . import writer as writer  # (importing it registers its target)
from .history_rules import bedrock_thinking, bedrock_turn
from .reader import BedrockAdapter
from .request_rules import bedrock_request

__all__ = ("PROVIDER",)

PROVIDER = Provider(
    "bedrock",
    BedrockAdapter,
    complete.read_bedrock,
    complete.stream_end,
    Encoding(
        encoding.encode_tools, encoding.encode_calls, encoding.encode_results, encoding.encode_assistant
    ),
    Errors(errors.error_body, errors.no_model),
    Rules(bedrock_request, bedrock_turn, answered=bedrock_thinking),
    nicknames={
        "aws": "bedrock",
        "amazon": "bedrock",
        "aws-bedrock": "bedrock",
        "converse": "bedrock",
        "converse-stream": "bedrock",
    },
    response=response.converse_output,
)
