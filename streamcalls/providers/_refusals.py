"""What every provider's ``errors`` module gives: the error response it answers a refused request with.

Each provider package's ``errors.py`` has the same two functions, which the
replay server calls through the provider registry:

- ``error_body(status, message, *, param, code, kind, shape, violations)``:
  the extra headers and the JSON body of its error response (:class:`ErrorWriter`);
- ``no_model(model, method)``: its words for a model it does not have.

The bodies are the shapes :mod:`streamcalls.framing._error_bodies` reads
back, whatever the provider.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

__all__ = ("ErrorWriter", "Headers", "NoModel")

Headers = Sequence[tuple[bytes, bytes]]


class ErrorWriter(Protocol):
    """A provider's error response for ``status`` and ``message``: its extra headers and JSON body.

    ``param`` and ``code`` go where the provider's body has room for them
    (OpenAI's fields, Gemini's field violation); ``kind`` overrides the
    error's type or name, which is otherwise the provider's for ``status``;
    ``shape`` picks the body of a server speaking the provider's API in its
    own (``"kimi"``, ``"mistral"``); ``violations`` are Gemini's field
    violations when there are several, ``(field or None, description)``.
    """

    def __call__(
        self,
        status: int,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        kind: str | None = None,
        shape: str | None = None,
        violations: tuple[tuple[str | None, str], ...] = (),
    ) -> tuple[Headers, Any]: ...


NoModel = Callable[[object, str], str]
"""A provider's words for a model it does not have: ``(model, method)`` -> the sentence."""
