"""What the complete-response readers share: a decoded body's parts as a dict or a list, and the error for a body that is none of the provider's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._errors import UsageError
from .._found import Found

__all__ = ("Reader", "as_dict", "as_list", "unrecognized")

Reader = Callable[[Any], Found]
"""A complete-response reader: a decoded body (or assistant message) in, what it holds out."""


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def unrecognized(provider: str, obj: Any) -> UsageError:
    return UsageError(f"not a complete {provider} response or assistant message: {obj!r:.200}")
