"""Each provider's error response, as the replay server sends it: status, headers and JSON body.

The shapes are the providers' own, each in its package's ``errors`` module
(``providers/<name>/errors.py``; :mod:`..framing._error_bodies` reads them
back).  :func:`no_model_message` words an unknown model as each provider
does, and lists the recordings the server has instead.
"""

from __future__ import annotations

from typing import Any

from ..providers import PROVIDERS
from ..providers._refusals import Headers
from ..providers._registry import Errors

__all__ = ("Headers", "error_response", "no_model_message")


def _errors(provider: str) -> Errors:
    """The provider's error responses, from the registry; OpenAI's for a name without its own."""
    entry = PROVIDERS.get(provider)
    errors = entry.errors if entry is not None else None
    if errors is None:
        errors = PROVIDERS["openai"].errors
        assert errors is not None
    return errors


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
    headers, body = _errors(provider).body(
        status, message, param=param, code=code, kind=kind, shape=shape, violations=violations
    )
    return status, headers, body


def no_model_message(provider: str, model: object, names: list[str], method: str = "") -> str:
    """The provider's words for a model it does not have, and the recordings this server has."""
    listed = ", ".join(names) if names else f"no {provider} recordings at all"
    said = _errors(provider).no_model(model, method)
    if said.endswith("."):
        return f"{said} This replay server has: {listed}"
    return f"{said} (this replay server has: {listed})"
