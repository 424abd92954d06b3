"""``streamcalls replay FILE --to TARGET``: the recording's events written as another wire format's stream.

The bytes on stdout are :func:`streamcalls.write_stream` of the events the
parser reads from the file, written as they come (each chunk's events as
soon as it is fed); read back by the parser as the target's stream, they
give the recording's turn.  A target name that is not one is the CLI's
one-line mistake, naming the target it most likely meant.
"""

from __future__ import annotations

import io
import itertools
import subprocess
import sys
from typing import cast

import pytest

import streamcalls
from streamcalls.cli._main import main
from streamcalls.cli._replay import translate
from streamcalls.codec import CODEC_PROVIDERS
from streamcalls.writing import TARGETS
from tests.support import DATA, counter_ids

ONE_CALL = (
    DATA / "openai" / "one_call.sse"
)  # names its response and its call: the bytes are the same each run
PROVIDER_TARGETS = [name for name in TARGETS if name in CODEC_PROVIDERS]


def turn_of(data: bytes, provider: str) -> streamcalls.Turn:
    events = streamcalls.parse(data, cast(streamcalls.ProviderName, provider), id_factory=counter_ids())
    return streamcalls.accumulate(events)


class Flushes(io.BytesIO):
    """stdout's buffer, keeping what had been written at each flush."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[bytes] = []

    def flush(self) -> None:
        self.seen.append(self.getvalue())


def test_the_bytes_are_the_writer_s_of_the_parsed_events() -> None:
    out = io.BytesIO()
    status = translate(ONE_CALL.read_bytes(), provider="auto", target="anthropic", chunk=0, delay=0, out=out)
    assert status == 0
    events = streamcalls.parse(ONE_CALL.read_bytes(), "openai")
    assert out.getvalue() == streamcalls.write_stream(events, "anthropic")
    assert out.getvalue().startswith(b"event: message_start\n")


@pytest.mark.parametrize("target", PROVIDER_TARGETS)
@pytest.mark.parametrize("chunk", [0, 1, 7])
def test_read_back_as_the_target_it_is_the_recording_s_turn(target: str, chunk: int) -> None:
    data = (DATA / "openai" / "parallel_calls.sse").read_bytes()
    out = io.BytesIO()
    status = translate(
        data, provider="openai", target=cast(streamcalls.TargetName, target), chunk=chunk, delay=0, out=out
    )
    assert status == 0
    source, back = turn_of(data, "openai"), turn_of(out.getvalue(), target)
    assert back.text == source.text
    assert [(c.id, c.name, c.arguments) for c in back.calls] == [
        (c.id, c.name, c.arguments) for c in source.calls
    ]
    assert back.finish_reason == source.finish_reason


def test_each_chunk_s_events_are_written_as_it_is_fed() -> None:
    """Delta by delta: what the first chunks hold is on stdout before the rest is read."""
    data = ONE_CALL.read_bytes()
    out = Flushes()
    translate(data, provider="openai", target="ai-sdk", chunk=64, delay=0, out=out)
    grown = list(dict.fromkeys(seen for seen in out.seen if seen))  # what stdout held, each time it grew
    assert len(grown) >= 8  # the start, each of the six argument fragments, the end: each as it came
    assert grown[0].startswith(b'data: {"type":"start"')
    assert all(seen.startswith(previous) for previous, seen in itertools.pairwise(grown))


def test_the_command_line_writes_the_stream_to_stdout() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "streamcalls", "replay", str(ONE_CALL), "--to", "anthropic", "--chunk", "5"],
        capture_output=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == b""
    back = turn_of(result.stdout, "anthropic")
    assert [(c.name, c.arguments) for c in back.calls] == [
        ("get_weather", {"location": 'Zürich, "CH"', "unit": "celsius"})
    ]


def test_from_names_the_recording_s_provider(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert main(["replay", str(ONE_CALL), "--to", "ai-sdk", "--from", "openai"]) == 0
    given = capsysbinary.readouterr().out
    assert main(["replay", str(ONE_CALL), "--to", "ai-sdk", "--provider", "openai"]) == 0
    assert capsysbinary.readouterr().out.count(b'"type":"tool-input-available"') == 1
    assert given.count(b'"type":"tool-input-available"') == 1
    # Told it is another provider's, the parser finds nothing it knows: the exit status says so.
    assert main(["replay", str(ONE_CALL), "--to", "ai-sdk", "--from", "ollama"]) == 1


def test_a_stream_with_problems_exits_1_and_is_still_written_to_its_end() -> None:
    out = io.BytesIO()
    data = (DATA / "openai" / "truncated.sse").read_bytes()
    assert translate(data, provider="openai", target="anthropic", chunk=0, delay=0, out=out) == 1
    back = turn_of(out.getvalue(), "anthropic")
    assert back.finish_reason == "error"


# -- mistakes: one line on stderr, exit status 2 ------------------------------------------------------------------


def one_line(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith("streamcalls replay: ")
    return err


@pytest.mark.parametrize(
    ("given", "meant"),
    [("antropic", "anthropic"), ("claude", "anthropic"), ("ai_sdk", "ai-sdk"), ("AG-UI", "ag-ui")],
)
def test_a_misspelt_target_is_told_the_name_it_meant(
    capsys: pytest.CaptureFixture[str], given: str, meant: str
) -> None:
    err = one_line(capsys, "replay", str(ONE_CALL), "--to", given)
    assert err.startswith(
        f"streamcalls replay: argument --to: unknown target {given!r} (did you mean {meant!r}?); expected one of "
    )
    for name in TARGETS:
        assert repr(name) in err


def test_a_name_nothing_is_close_to_lists_the_targets(capsys: pytest.CaptureFixture[str]) -> None:
    err = one_line(capsys, "replay", str(ONE_CALL), "--to", "websocket")
    assert "unknown target 'websocket'; expected one of 'ag-ui', 'ai-sdk'" in err
    assert "did you mean" not in err


def test_a_provider_without_a_writer_is_told_so(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(TARGETS, "bedrock")
    err = one_line(capsys, "replay", str(ONE_CALL), "--to", "bedrock")
    assert "target 'bedrock' is not available yet: no writer for 'bedrock' is registered" in err


def test_a_parser_setting_is_no_target(capsys: pytest.CaptureFixture[str]) -> None:
    err = one_line(capsys, "replay", str(ONE_CALL), "--to", "auto")
    assert "'auto' is a parser setting, not a wire format to write; expected one of 'ag-ui', " in err


@pytest.mark.parametrize("flag", ["--json", "--partial"])
def test_printing_options_do_not_go_with_to(capsys: pytest.CaptureFixture[str], flag: str) -> None:
    err = one_line(capsys, "replay", str(ONE_CALL), "--to", "ai-sdk", flag)
    assert f"{flag} changes how events are printed, and --to writes them as ai-sdk's stream instead" in err
