"""The targets by name: each target class registers itself here, in one line (``@register``).

The chat UI protocols' targets live beside this module; each provider's target
lives in its provider's package and registers the same way.  ``import
streamcalls`` imports every provider, so a writer finds every target.
"""

from __future__ import annotations

from typing import TypeVar

from .._errors import UsageError
from ._carry import check_words
from ._target import Target

__all__ = ("TARGETS", "register")

TARGETS: dict[str, type[Target]] = {}
"""Every registered target class, by its ``name``."""

T = TypeVar("T", bound=type[Target])


def register(target: T) -> T:
    """Register a target class under its ``name`` (a class decorator); a name taken twice, or a
    ``cannot_carry`` word that is not one of :data:`~streamcalls.writing.CANNOT_CARRY`'s, is an error."""
    name = target.name
    if name in TARGETS:
        raise UsageError(f"a target named {name!r} is registered already ({TARGETS[name].__qualname__})")
    owner = f"target {name!r}"
    target.cannot_carry = check_words(owner, target.cannot_carry)
    target.response_cannot_carry = check_words(owner, target.response_cannot_carry)
    TARGETS[name] = target
    return target
