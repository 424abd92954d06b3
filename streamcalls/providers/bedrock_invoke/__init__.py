"""AWS Bedrock InvokeModel: each model's own events in event-stream frames.

- :mod:`.reader` (with :mod:`.models`, the model families whose events no
  other provider reads): the stream adapter;
- :mod:`.request_rules`, :mod:`.history_rules`: what Bedrock refuses in a
  Claude body (its schema, then Anthropic's rules, relayed).

Its error responses are Bedrock's (:mod:`..bedrock.errors`).  A request is
the model's own (Claude's Messages, ...), so the codec has no shapes of its
own for it: a turn read here names the wire format it goes back in.

:data:`PROVIDER` is its entry in the registry (:mod:`streamcalls.providers`).
"""

from __future__ import annotations

from .._registry import Errors, Provider, Rules
from ..bedrock import errors
from .history_rules import invoke_thinking, invoke_turn
from .reader import BedrockInvokeAdapter
from .request_rules import invoke_request

__all__ = ("PROVIDER",)

PROVIDER = Provider(
    "bedrock-invoke",
    BedrockInvokeAdapter,
    errors=Errors(errors.error_body, errors.no_model),
    rules=Rules(invoke_request, invoke_turn, answered=invoke_thinking),
    nicknames={
        "invoke-model": "bedrock-invoke",
        "invoke": "bedrock-invoke",
        "anthropic-bedrock": "bedrock-invoke",
        "anthropicbedrock": "bedrock-invoke",
        "bedrock-claude": "bedrock-invoke",
    },
)
