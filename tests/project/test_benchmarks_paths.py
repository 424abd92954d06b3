"""The bench's two paths: each native row has a pure-Python row beside it, and their targets."""

from __future__ import annotations

from benchmarks import paths
from benchmarks.contenders import contender
from benchmarks.runner import Result
from benchmarks.streams import anthropic_stream
from streamcalls import _native


def row(stream: str, key: str, median: float) -> Result:
    made = contender(key)
    result = Result(stream, "x", 1, 2000, key, made.label, made.timed, made.baseline, 1000, 100_000)
    result.runs = [median]
    return result


def test_every_native_row_has_a_pure_one_beside_it() -> None:
    for native, pure, floor in paths.PAIRS:
        assert contender(native).wires == contender(pure).wires
        assert contender(native).coalesced == contender(pure).coalesced
        assert contender(floor).checked is False


def test_the_pure_row_runs_the_pure_path_and_finds_the_same_calls() -> None:
    stream = anthropic_stream(2, 500)
    was_active = _native.active()  # False where no compiler built the native path
    native = contender("streamcalls").prepare(stream)()
    pure = contender("streamcalls-pure").prepare(stream)()
    assert native == pure
    assert native is not None
    assert len(native) == 2
    assert _native.active() == was_active  # (the pure row's switch was put back)


def test_the_targets_and_the_table() -> None:
    results = [
        row("openai-4x2KB", "streamcalls", 0.6),
        row("openai-4x2KB", "streamcalls-pure", 1.6),
        row("openai-4x2KB", "floor", 1.0),
        row("openai-4x2KB", "openai-sdk", 70.0),
        row("anthropic-4x2KB", "streamcalls", 0.8),
        row("anthropic-4x2KB", "streamcalls-pure", 2.0),
        row("anthropic-4x2KB", "floor", 1.0),
    ]
    found = {t.name: t for t in paths.targets(results)}
    native = _native.speedups is not None
    assert found["native path, openai-4x2KB"].met is (True if native else None)
    assert found["native path, anthropic-4x2KB"].met is (False if native else None)
    assert found["pure-Python path, openai-4x2KB"].met is True
    assert found["pure-Python path, anthropic-4x2KB"].met is True
    assert "117×" in found["native path vs openai SDK ChatCompletionStreamState, openai-4x2KB"].measured
    table = paths.markdown_paths(results)
    assert "| openai-4x2KB | as sent | " in table
    assert "| 1.60× | 2.7× |" in table  # the pure row ÷ the floor, and ÷ the native row
