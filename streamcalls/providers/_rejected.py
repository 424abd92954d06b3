"""What a provider's history rules raise, and the names of JSON types their messages use."""

from __future__ import annotations

__all__ = ("Rejected", "go_kind", "openai_kind")


class Rejected(Exception):
    """A request the provider would refuse: its message, and what its error body says beside it.

    ``param`` and ``code`` are OpenAI's (Gemini shows ``param`` as the field
    of its violation); ``kind`` names the error where the provider names it
    by type (Bedrock's exception, Gemini's status); ``shape`` names the error
    body of a server that speaks another's API in its own (``"kimi"``,
    ``"mistral"``: see :func:`streamcalls.replay._errors.error_response`); ``violations``
    are Gemini's field violations, ``(field or None, description)``, when
    there are several; ``status`` the HTTP status when it is not 400.
    """

    def __init__(
        self,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        kind: str | None = None,
        shape: str | None = None,
        violations: tuple[tuple[str | None, str], ...] = (),
        status: int = 400,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code
        self.kind = kind
        self.shape = shape
        self.violations = violations
        self.status = status


def openai_kind(value: object) -> str:
    """A JSON value's type, as OpenAI's validation messages name it ("an array", ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def go_kind(value: object) -> str:
    """A JSON value's type, as Go's ``encoding/json`` names it in an ``UnmarshalTypeError`` ("array", ...)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"
