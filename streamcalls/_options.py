"""Checking option values where they are given, so that a bad one fails at once.

A value that is wrong for its option is a :class:`~streamcalls.UsageError`
raised by the call that took it (``StreamParser(...)``, ``aparse(...)``,
``from_httpx(...)``), never a ``TypeError`` from deep inside a later
``feed()``.  An option name that does not exist stays Python's own
``TypeError`` (an unexpected keyword argument).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ._errors import UsageError
from ._limits import DEFAULT_LIMITS, Limits
from ._names import unknown_provider
from .providers import PROVIDER_NAMES

__all__ = ("check_idle_timeout", "check_model", "check_parser_options", "check_provider", "check_timeout")


def check_parser_options(
    *,
    native: object,
    detect: object,
    tools: object,
    invalid_utf8: object,
    id_factory: object,
    limits: object,
    strict: object,
    partial_arguments: object = False,
    model: object = None,
    provider: object = "auto",
    raise_provider_errors: object = False,
) -> Limits:
    """Check :class:`~streamcalls.StreamParser`'s options; returns the limits to use."""
    check_provider(provider)
    if native is not None and type(native) is not bool:
        raise UsageError(f"native must be None, True or False, not {native!r}")
    if detect is not None and (isinstance(detect, (str, bytes)) or not isinstance(detect, Iterable)):
        raise UsageError(f"detect takes a sequence of detector names, e.g. ('fence',), not {detect!r}")
    if tools is not None and (isinstance(tools, (str, bytes)) or not isinstance(tools, Iterable)):
        raise UsageError(f"tools takes a list of tool names or definitions, not {tools!r:.100}")
    if invalid_utf8 not in ("replace", "report"):
        raise UsageError(f"invalid_utf8 must be 'replace' or 'report', not {invalid_utf8!r}")
    if id_factory is not None and not callable(id_factory):
        raise UsageError(f"id_factory must be a function returning a str id, not {id_factory!r}")
    if type(strict) is not bool:
        raise UsageError(f"strict must be True or False, not {strict!r}")
    if type(partial_arguments) is not bool:
        raise UsageError(f"partial_arguments must be True or False, not {partial_arguments!r}")
    if type(raise_provider_errors) is not bool:
        raise UsageError(f"raise_provider_errors must be True or False, not {raise_provider_errors!r}")
    check_model(model)
    if limits is None:
        return DEFAULT_LIMITS
    if not isinstance(limits, Limits):
        raise UsageError(f"limits must be a streamcalls.Limits, not {type(limits).__name__}")
    return limits


def check_provider(provider: object) -> None:
    """``provider=`` is a provider's name, an alias or ``"auto"``; a misspelt one is told the name it meant."""
    if not (isinstance(provider, str) and provider in PROVIDER_NAMES):
        raise UsageError(unknown_provider(provider))


def check_model(model: object) -> None:
    """``model=`` is a model's name, or None."""
    if model is not None and not isinstance(model, str):
        raise UsageError(f"model takes a model's name, e.g. 'openai/gpt-oss-20b', not {model!r:.100}")


def check_idle_timeout(idle_timeout: Any) -> float:
    """``idle_timeout`` as seconds to wait (``None``: forever)."""
    return check_timeout("idle_timeout", idle_timeout)


def check_timeout(name: str, seconds: Any) -> float:
    """A time limit named ``name`` as seconds to wait (``None``: forever)."""
    if seconds is None:
        return math.inf
    if type(seconds) not in (int, float) or not seconds > 0:
        raise UsageError(f"{name} must be a positive number of seconds (or None), not {seconds!r}")
    return float(seconds)
