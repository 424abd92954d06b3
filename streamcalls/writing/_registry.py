"""The targets by name: each target class registers itself here, in one line (``@register``).

The chat UI protocols' targets live beside this module; each provider's target
lives in its provider's package and registers the same way.  ``import
streamcalls`` imports every provider, so a writer finds every target.
"""

from __future__ import annotations

from typing import TypeVar

from .._errors import UsageError
from ._target import Target

__all__ = ("TARGETS", "register")

TARGETS: dict[str, type[Target]] = {}
"""Every registered target class, by its ``name``."""

T = TypeVar("T", bound=type[Target])


def register(target: T) -> T:
    """Register a target class under its ``name`` (a class decorator); a name taken twice is an error."""
    name = target.name
    if name in TARGETS:
        raise UsageError(f"a target named {name!r} is registered already ({TARGETS[name].__qualname__})")
    TARGETS[name] = target
    return target
