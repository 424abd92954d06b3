"""Checking a call's arguments: ``Tool.from_function`` (msgspec) against pydantic, same functions, same arguments.

The pydantic-based peers (pydantic-ai, openai-agents, LangChain) check a
tool call's arguments with pydantic: ``validate_call`` around the function,
or a model built from its signature behind a ``TypeAdapter``.  streamcalls
converts them with ``msgspec.convert`` into a Struct made from the signature.
Each contender here takes the arguments as the parser hands them over (a
dict), checks and converts them, and calls the function, whose body only
returns what it received; before any timing, every contender must deliver
the same values to the function (else the benchmark stops, as the stream
benchmark does on a wrong call).

Times are CPU time of the benchmark's thread per call, medians of rounds in
which the contenders take turns in an order shuffled each round (see runner.py for why).
The schema rows time what happens once per tool: reading the function and
writing its JSON schema.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import statistics
import time
import uuid
from collections.abc import Callable
from typing import Any, Literal

from streamcalls import Tool, ToolCall
from streamcalls.cli._timing import round_order
from streamcalls.codec._signature import InvalidArguments, ToolSignature, signature_of

from .report import Target

__all__ = ("CASES", "Mismatch", "measure_validation", "validation_targets")

TARGET = 5.0  # streamcalls' check at least this many times faster than either pydantic way


class Mismatch(AssertionError):
    """A contender delivered other values to the function: its timings would mean nothing."""


@dataclasses.dataclass
class Place:
    name: str
    city: str


@dataclasses.dataclass
class Stop:
    city: str
    nights: int
    arrive: datetime.date


def get_weather(
    city: str, unit: Literal["celsius", "fahrenheit"] = "celsius", days: int = 1
) -> dict[str, Any]:
    """Current weather in a city."""
    return {"city": city, "unit": unit, "days": days}


def book_table(
    place: Place,
    when: datetime.datetime,
    guests: int = 2,
    seating: Literal["inside", "terrace"] = "inside",
    notes: str | None = None,
) -> dict[str, Any]:
    """Book a table at a restaurant."""
    return {"place": place, "when": when, "guests": guests, "seating": seating, "notes": notes}


def plan_trip(
    traveller: uuid.UUID,
    stops: list[Stop],
    budget: dict[str, float],
    tags: set[str],
    flexible: bool = False,
) -> dict[str, Any]:
    """Plan a trip through several cities."""
    return {"traveller": traveller, "stops": stops, "budget": budget, "tags": tags, "flexible": flexible}


@dataclasses.dataclass(frozen=True)
class Case:
    key: str
    function: Callable[..., dict[str, Any]]
    arguments: dict[str, Any]
    valid: bool = True  # False: every contender must refuse the arguments (the model's mistake)


CASES = (
    Case("get_weather", get_weather, {"city": "Paris", "unit": "fahrenheit"}),
    Case("get_weather, a wrong type", get_weather, {"city": "Paris", "days": "three"}, valid=False),
    Case(
        "book_table",
        book_table,
        {"place": {"name": "Chez Janou", "city": "Paris"}, "when": "2025-03-01T19:30:00+01:00", "guests": 4},
    ),
    Case(
        "plan_trip",
        plan_trip,
        {
            "traveller": "4b5f6f1e-8a52-4f0e-9d4c-3f1b2a6c7d8e",
            "stops": [
                {"city": city, "nights": n, "arrive": f"2025-06-{10 + 2 * n:02d}"}
                for n, city in enumerate(["Lyon", "Turin", "Milan", "Verona", "Venice"], 1)
            ],
            "budget": {"hotels": 900.0, "food": 400.0, "trains": 150.5},
            "tags": ["rail", "food", "art"],
        },
    ),
)

Checker = Callable[[dict[str, Any]], dict[str, Any]]
BARE = "bare call"  # the function called with its arguments ready: subtracted from every contender


def streamcalls_checker(function: Callable[..., dict[str, Any]]) -> Checker:
    signature = signature_of(function)
    name = function.__name__
    call = ToolCall("call_0", name, {})  # what run_tools passes along; unused by these functions
    arguments = signature.arguments

    def check(given: dict[str, Any]) -> dict[str, Any]:
        try:
            return function(**arguments(name, given, call))
        except InvalidArguments as exc:
            return _refused(str(exc))

    return check


def pydantic_validate_call(function: Callable[..., dict[str, Any]]) -> Checker:
    import pydantic

    wrapped = pydantic.validate_call(function)

    def check(given: dict[str, Any]) -> dict[str, Any]:
        try:
            return wrapped(**given)
        except pydantic.ValidationError as exc:
            return _refused(str(exc))

    return check


def _pydantic_model(function: Callable[..., Any]) -> Any:
    """A model of the function's parameters, unknown arguments refused (the peers' function-tool way)."""
    import inspect

    import pydantic

    fields: dict[str, Any] = {
        name: (p.annotation, ... if p.default is inspect.Parameter.empty else p.default)
        for name, p in inspect.signature(function, eval_str=True).parameters.items()
    }
    return pydantic.create_model(function.__name__, __config__=pydantic.ConfigDict(extra="forbid"), **fields)


def pydantic_type_adapter(function: Callable[..., dict[str, Any]]) -> Checker:
    import pydantic

    adapter = pydantic.TypeAdapter(_pydantic_model(function))
    validate = adapter.validate_python

    def check(given: dict[str, Any]) -> dict[str, Any]:
        try:
            return function(**validate(given).__dict__)
        except pydantic.ValidationError as exc:
            return _refused(str(exc))

    return check


CONTENDERS: dict[str, Callable[[Callable[..., dict[str, Any]]], Checker]] = {
    "streamcalls": streamcalls_checker,
    "pydantic validate_call": pydantic_validate_call,
    "pydantic TypeAdapter": pydantic_type_adapter,
}


def _refused(text: str) -> dict[str, Any]:
    """What a checker returns for arguments it refuses: the text for the model (each writes its own)."""
    return {"refused": text}


def _bare_call(function: Callable[..., dict[str, Any]], kwargs: dict[str, Any], _: object) -> dict[str, Any]:
    return function(**kwargs)


def _per_call(check: Checker, arguments: dict[str, Any], n: int) -> float:
    start = time.thread_time()
    for _ in range(n):
        check(arguments)
    return (time.thread_time() - start) / n


def _rounds(runs: dict[str, Callable[[], float]], rounds: int) -> dict[str, float]:
    """The median of each run over rounds in which the runs take turns, in an order shuffled each round."""
    samples: dict[str, list[float]] = {key: [] for key in runs}
    keys = list(runs)
    for r in range(rounds):
        for key in [keys[i] for i in round_order(r, len(keys))]:
            samples[key].append(runs[key]())
    return {key: statistics.median(values) for key, values in samples.items()}


def _batch(check: Checker, arguments: dict[str, Any], budget_s: float) -> int:
    """How many calls make one timed batch of about ``budget_s``."""
    n = 1
    while _per_call(check, arguments, n) * n < budget_s and n < 1 << 20:
        n *= 2
    return n


def measure_validation(*, rounds: int = 15, batch_s: float = 0.01) -> dict[str, Any]:
    """Per case: µs per call for each contender, the check's own cost, ratios, schema generation times.

    A contender's time is the whole step (check, convert, call the function);
    the check's cost is that minus the bare call ``fn(**kwargs)`` timed in the
    same rounds, since ``validate_call`` cannot check without calling.
    """
    rows: list[dict[str, Any]] = []
    for case in CASES:
        checkers: dict[str, Checker] = {}
        for key, make in CONTENDERS.items():
            try:
                checkers[key] = make(case.function)
            except ImportError:
                continue  # pydantic is the "bench" extra
        expected = checkers["streamcalls"](case.arguments)
        for key, check in checkers.items():
            got = check(case.arguments)
            same = got == expected if case.valid else set(got) == set(expected) == {"refused"}
            if not same:
                raise Mismatch(f"{key} on {case.key}: {got!r} != {expected!r}")
        if case.valid:  # the function called with its arguments ready: what is not the check
            kwargs = signature_of(case.function).arguments(case.key, case.arguments, ToolCall("c", "c", {}))
            checkers[BARE] = functools.partial(_bare_call, case.function, kwargs)
        sizes = {key: _batch(check, case.arguments, batch_s) for key, check in checkers.items()}
        medians = _rounds(
            {
                key: functools.partial(_per_call, check, case.arguments, sizes[key])
                for key, check in checkers.items()
            },
            rounds,
        )
        bare = medians.pop(BARE, 0.0)
        check_us = {key: max(value - bare, 0.0) * 1e6 for key, value in medians.items()}
        rows.append(
            {
                "case": case.key,
                "us_per_call": {key: value * 1e6 for key, value in medians.items()},
                "bare_call_us": bare * 1e6,
                "check_us": check_us,
                "times_streamcalls": {
                    key: value / check_us["streamcalls"] for key, value in check_us.items()
                },
                "schema_us": _schema_times(case.function, rounds) if case.valid else None,
            }
        )
    return {"rows": rows, "target": TARGET}


def _schema_times(function: Callable[..., Any], rounds: int) -> dict[str, float]:
    """µs to read a function and write its schema: once (uncached), cached, and pydantic's way."""
    runs: dict[str, Callable[[], float]] = {
        "streamcalls, first time": lambda: _timed(lambda: ToolSignature(function)),
        "streamcalls, cached": lambda: _timed(lambda: Tool.from_function(function), repeat=1000),
    }
    try:
        import pydantic  # noqa: F401
    except ImportError:
        pass
    else:
        runs["pydantic create_model + model_json_schema"] = lambda: _timed(
            lambda: _pydantic_model(function).model_json_schema()
        )
    return {key: value * 1e6 for key, value in _rounds(runs, max(3, rounds // 3)).items()}


def _timed(build: Callable[[], Any], repeat: int = 20) -> float:
    start = time.thread_time()
    for _ in range(repeat):
        build()
    return (time.thread_time() - start) / repeat


def validation_targets(measured: dict[str, Any]) -> list[Target]:
    out: list[Target] = []
    for row in measured["rows"]:
        for key, ratio in row["times_streamcalls"].items():
            if key == "streamcalls":
                continue
            out.append(
                Target(
                    f"argument check vs {key}, {row['case']}",
                    f"≥ {measured['target']:.0f}× faster",
                    f"{ratio:.1f}× ({row['check_us']['streamcalls']:.2f} vs {row['check_us'][key]:.2f} µs)",
                    ratio >= measured["target"],
                )
            )
    return out


def markdown_validation(measured: dict[str, Any]) -> str:
    contenders = [key for key in CONTENDERS if any(key in row["check_us"] for row in measured["rows"])]
    lines = [
        "µs per call: the check's own cost — arguments (a dict, as the parser hands them over) checked and "
        "converted — with the whole step (check and call) in brackets; (×) is the check's cost over streamcalls'.",
        "",
        "| tool | bare call | " + " | ".join(contenders) + " |",
        "|---|---:|" + "---:|" * len(contenders),
    ]
    for row in measured["rows"]:
        cells = [
            f"{row['check_us'][key]:.2f} [{row['us_per_call'][key]:.2f}]"
            + ("" if key == "streamcalls" else f" ({row['times_streamcalls'][key]:.1f}×)")
            for key in contenders
        ]
        bare = f"{row['bare_call_us']:.2f}" if row["bare_call_us"] else "— (not called)"
        lines.append(f"| {row['case']} | {bare} | " + " | ".join(cells) + " |")
    schema_rows = [row for row in measured["rows"] if row["schema_us"] is not None]
    schema_keys = list(schema_rows[0]["schema_us"])
    lines += [
        "",
        "µs per tool, once: reading the function and writing its JSON schema.",
        "",
        "| tool | " + " | ".join(schema_keys) + " |",
        "|---|" + "---:|" * len(schema_keys),
    ]
    for row in schema_rows:
        lines.append(
            f"| {row['case']} | " + " | ".join(f"{row['schema_us'][key]:.1f}" for key in schema_keys) + " |"
        )
    return "\n".join(lines)
