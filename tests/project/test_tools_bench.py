"""The validation benchmark's machinery (no timing asserted): every contender delivers the same
values to the same functions, refuses the same mistake, and a contender that does not is caught."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks import validation
from benchmarks.validation import CASES, CONTENDERS, Mismatch, markdown_validation, measure_validation


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.key)
@pytest.mark.parametrize("contender", list(CONTENDERS))
def test_each_contender_gives_the_function_what_streamcalls_gives_it(contender: str, case: Any) -> None:
    pytest.importorskip("pydantic")
    check = CONTENDERS[contender](case.function)
    got, expected = check(case.arguments), validation.streamcalls_checker(case.function)(case.arguments)
    if case.valid:
        assert got == expected
        assert "refused" not in got
    else:
        assert set(got) == set(expected) == {"refused"}


def test_a_run_reports_every_case_and_a_wrong_contender_stops_it(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pydantic")
    measured = measure_validation(rounds=1, batch_s=0.0001)
    assert [row["case"] for row in measured["rows"]] == [case.key for case in CASES]
    assert all(set(row["check_us"]) == set(CONTENDERS) for row in measured["rows"])
    assert "| get_weather |" in markdown_validation(measured)
    assert len(validation.validation_targets(measured)) == 2 * len(CASES)

    def lenient(function: Any) -> Any:
        return lambda given: function(**given)  # no check at all: the wrong type goes through

    monkeypatch.setitem(CONTENDERS, "pydantic TypeAdapter", lenient)
    with pytest.raises(Mismatch, match="pydantic TypeAdapter on get_weather, a wrong type"):
        measure_validation(rounds=1, batch_s=0.0001)
