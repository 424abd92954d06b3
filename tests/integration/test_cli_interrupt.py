"""Ctrl+C on ``streamcalls serve`` and ``streamcalls demo``: one line on stderr, exit status 130.

Each command runs in a real process and gets a real SIGINT, as a terminal
sends it: ``serve`` after it answered a request (its connection's task is what
a cancelled server used to trip over), ``demo`` in the middle of its loop,
while a tool runs.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from streamcalls import ToolCallCompleted, from_httpx_sync


@contextmanager
def _command(*argv: str) -> Iterator[subprocess.Popen[str]]:
    # A process started in the background by a non-interactive shell (as CI may
    # start this suite) has SIGINT ignored, a child inherits that, and Python then
    # never raises KeyboardInterrupt.  A handled signal is reset to the default in
    # the child: the command gets the SIGINT a user at a terminal has.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "streamcalls", *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
    finally:
        signal.signal(signal.SIGINT, before)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()


def _interrupt(process: subprocess.Popen[str]) -> tuple[str, str]:
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    return out, err


def test_ctrl_c_stops_serve_after_a_request_with_one_line() -> None:
    with _command("serve", "--port", "0", "--max-delay", "0") as process:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("replaying "), first
        url = first.split(" at ")[1].split()[0]
        request = {"model": "plan_day", "stream": True, "messages": []}
        with (
            httpx.Client(timeout=10) as client,
            client.stream("POST", f"{url}/v1/chat/completions", json=request) as response,
        ):
            names = [e.call.name for e in from_httpx_sync(response) if isinstance(e, ToolCallCompleted)]
        assert names == ["get_weather", "get_opening_hours"]
        _, err = _interrupt(process)
        assert (process.returncode, err) == (130, "streamcalls serve: stopped by Ctrl+C\n")


def test_ctrl_c_stops_the_demo_mid_loop_with_one_line() -> None:
    with _command("demo") as process:
        assert process.stdout is not None
        for line in process.stdout:  # until a tool is running, the reply still streaming
            if "tool ▶" in line:
                break
        else:
            raise AssertionError("the demo ended before any tool started")
        out, err = _interrupt(process)
        assert (process.returncode, err) == (130, "streamcalls demo: stopped by Ctrl+C\n")
        assert "Each tool started the moment" not in out  # it was stopped, not finished
