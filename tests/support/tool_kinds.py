"""Typed functions for the from_function tests: one per kind of annotation the issue lists.

The module uses ``from __future__ import annotations``, so every annotation
here is a string that from_function must evaluate.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import uuid
from typing import Annotated, Any, Literal, NamedTuple, Optional, TypedDict, Union

import msgspec

from streamcalls import ToolCall

RECEIVED: list[dict[str, Any]] = []
"""The arguments each function below was called with (its locals() on entry), in order."""


class Unit(enum.Enum):
    """A temperature unit."""

    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Location(msgspec.Struct):
    """A point on the map."""

    lat: float
    lon: float


@dataclasses.dataclass
class Window:
    start: datetime.date
    days: int = 1


class Address(TypedDict):
    street: str
    city: str


class Span(NamedTuple):
    first: int
    last: int


def scalars(text: str, count: int, ratio: float, flag: bool, nothing: None) -> str:
    RECEIVED.append(dict(locals()))
    return "ok"


def collections(
    items: list[int], pair: tuple[int, str], many: tuple[float, ...], tags: set[str], scores: dict[str, float]
) -> str:
    RECEIVED.append(dict(locals()))
    return "ok"


def choices(
    mode: Literal["fast", "exact"],
    unit: Unit,
    either: int | str,
    maybe: Optional[str],  # noqa: UP045 - the spelling under test
    old: Union[int, None],  # noqa: UP007 - the spelling under test
) -> str:
    RECEIVED.append(dict(locals()))
    return "ok"


def stamps(
    at: datetime.datetime, day: datetime.date, clock: datetime.time, key: uuid.UUID, amount: decimal.Decimal
) -> str:
    RECEIVED.append(dict(locals()))
    return "ok"


def records(where: Location, window: Window, address: Address, span: Span) -> str:
    RECEIVED.append(dict(locals()))
    return "ok"


def constrained(
    days: Annotated[int, msgspec.Meta(ge=1, le=7, description="How many days")],
    code: Annotated[str, msgspec.Meta(pattern="^[A-Z]{3}$")],
) -> str:
    RECEIVED.append(dict(locals()))
    return "ok"


TAGS_DEFAULT: list[str] = []


def defaults(
    city: str,
    *,  # keyword-only parameters are arguments like the others
    unit: Unit = Unit.CELSIUS,
    days: int = 3,
    where: Location | None = None,
    tags: list[str] = TAGS_DEFAULT,  # the function's own default object must reach it
    call: ToolCall | None = None,
) -> str:
    RECEIVED.append(dict(locals()))
    return "ok"


KINDS = (scalars, collections, choices, stamps, records, constrained, defaults)
