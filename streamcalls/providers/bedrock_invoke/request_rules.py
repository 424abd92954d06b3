"""InvokeModel's request body for Claude: Bedrock's schema check, then Anthropic's own field checks.

InvokeModel takes each model's own body; Claude's is Anthropic's Messages
request as Bedrock takes it (what the anthropic SDK's Bedrock client
sends): no ``model`` (the path names it) and no ``stream`` (the path says
whether to stream: ``invoke-with-response-stream`` or ``invoke``), and an
``anthropic_version`` (``"bedrock-2023-05-31"``) beside ``max_tokens`` and
``messages``.  Bedrock checks the body against its JSON schema first and
answers a 400 ``ValidationException`` naming every key it refuses, joined
by ", ": "The model returned the following errors: Malformed input
request: #: extraneous key [chat_id] is not permitted, please reformat your
input and try again." (BerriAI/litellm#7416; sigoden/aichat#543 shows it
for ``stream``), "#: required key [requests] not found"
(BerriAI/litellm#30314, several joined).  Here the keys refused are the
two the Messages API has and InvokeModel does not; past the schema,
Anthropic's own checks (:mod:`..anthropic.request_rules`) apply, relayed
behind the same "The model returned the following errors: " (as
BerriAI/litellm#13825 shows an Anthropic validation message relayed).

A body that is not Claude's (no ``messages`` nor ``anthropic_version``:
Llama's, Mistral's, Titan's ``prompt`` or ``inputText``) is the model's
own, and is not checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._rejected import Rejected
from ..anthropic.request_rules import anthropic_request
from ..bedrock.history_rules import MODEL_ERRORS

__all__ = ("invoke_request", "is_claude", "relayed")

INVALID = "ValidationException"
MALFORMED = "Malformed input request: "
REFORMAT = ", please reformat your input and try again."
EXTRANEOUS = ("model", "stream")  # the Messages API's, not InvokeModel's: the path names them
REQUIRED = ("anthropic_version", "max_tokens", "messages")


def is_claude(request: Mapping[str, Any]) -> bool:
    """Whether an InvokeModel body is Claude's Messages request (else another model family's own)."""
    return "messages" in request or "anthropic_version" in request


def relayed(problem: Rejected) -> Rejected:
    """Anthropic's refusal as Bedrock relays it: its words behind Bedrock's prefix, a ValidationException."""
    return Rejected(MODEL_ERRORS + problem.message, kind=INVALID, status=problem.status)


def invoke_request(request: Mapping[str, Any], headers: Mapping[str, str]) -> None:
    """Refuse a Claude InvokeModel body Bedrock's schema or Anthropic's field checks refuse."""
    if not is_claude(request):
        return
    errors = [f"#: extraneous key [{key}] is not permitted" for key in request if key in EXTRANEOUS]
    errors += [f"#: required key [{key}] not found" for key in REQUIRED if key not in request]
    if errors:
        raise Rejected(MODEL_ERRORS + MALFORMED + ", ".join(errors) + REFORMAT, kind=INVALID)
    try:
        anthropic_request(request, headers)
    except Rejected as problem:
        raise relayed(problem) from None
