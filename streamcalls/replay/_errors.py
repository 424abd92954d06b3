"""Each provider's error response, as the replay server sends it: status, headers and JSON body.

The shapes are the providers' own, each in its package's ``errors`` module
(``providers/<name>/errors.py``; :mod:`..framing._error_bodies` reads them
back).  :func:`no_model_message` words an unknown model as each provider
does, and lists the recordings the server has instead.
"""

from __future__ import annotations

from typing import Any

from ..providers._refusals import ErrorWriter, Headers, NoModel
from ..providers.anthropic import errors as anthropic_errors
from ..providers.bedrock import errors as bedrock_errors
from ..providers.cohere import errors as cohere_errors
from ..providers.gemini import errors as gemini_errors
from ..providers.ollama import errors as ollama_errors
from ..providers.openai_chat import errors as openai_errors

__all__ = ("Headers", "error_response", "no_model_message")

_WRITERS: dict[str, tuple[ErrorWriter, NoModel]] = {
    "openai": (openai_errors.error_body, openai_errors.no_model),
    "openai-responses": (openai_errors.error_body, openai_errors.no_model),
    "anthropic": (anthropic_errors.error_body, anthropic_errors.no_model),
    "ollama": (ollama_errors.error_body, ollama_errors.no_model),
    "gemini": (gemini_errors.error_body, gemini_errors.no_model),
    "bedrock": (bedrock_errors.error_body, bedrock_errors.no_model),
    "cohere": (cohere_errors.error_body, cohere_errors.no_model),
}


def error_response(
    provider: str,
    status: int,
    message: str,
    *,
    param: str | None = None,
    code: str | None = None,
    kind: str | None = None,
    shape: str | None = None,
    violations: tuple[tuple[str | None, str], ...] = (),
) -> tuple[int, Headers, Any]:
    """The provider's answer to a request it refuses: status, extra headers, JSON body.

    The arguments are the provider's error writer's
    (:class:`~..providers._refusals.ErrorWriter`); a provider without one
    answers in OpenAI's shape.
    """
    writer = _WRITERS.get(provider, _WRITERS["openai"])[0]
    headers, body = writer(
        status, message, param=param, code=code, kind=kind, shape=shape, violations=violations
    )
    return status, headers, body


def no_model_message(provider: str, model: object, names: list[str], method: str = "") -> str:
    """The provider's words for a model it does not have, and the recordings this server has."""
    listed = ", ".join(names) if names else f"no {provider} recordings at all"
    said = _WRITERS.get(provider, _WRITERS["openai"])[1](model, method)
    if said.endswith("."):
        return f"{said} This replay server has: {listed}"
    return f"{said} (this replay server has: {listed})"
