"""Cohere's error responses, as the replay server answers a request it refuses: ``{"id", "message"}``."""

from __future__ import annotations

import uuid
from typing import Any

from .._refusals import Headers

__all__ = ("error_body", "no_model")


def error_body(
    status: int,
    message: str,
    *,
    param: str | None = None,
    code: str | None = None,
    kind: str | None = None,
    shape: str | None = None,
    violations: tuple[tuple[str | None, str], ...] = (),
) -> tuple[Headers, Any]:
    """The extra headers and JSON body of Cohere's error (see :class:`~.._refusals.ErrorWriter`)."""
    body = {"id": str(uuid.uuid4()), "message": message}
    return [], body


def no_model(model: object, method: str) -> str:
    """Cohere's words for a model it does not have."""
    return f"model '{model}' not found, make sure the correct model ID was used and that you have access to the model."
