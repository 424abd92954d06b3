"""The command line's async side: streamcalls serve and streamcalls demo."""

from __future__ import annotations

import io

import anyio
import httpx
from rich.console import Console

import streamcalls
import streamcalls.testing
from streamcalls.replay._demo import run_demo
from tests.support import normalize
from tests.support.docblocks import served


def test_demo_runs_tools_as_their_calls_complete() -> None:
    out = io.StringIO()
    status = anyio.run(lambda: run_demo(Console(file=out, width=200, color_system=None), fast=True))
    assert status == 0
    lines = [line.split("s  ", 1)[1].strip() for line in out.getvalue().splitlines() if line.startswith("+")]
    weather_call = lines.index('call ✔   get_weather({"city":"Paris","unit":"celsius"})')
    weather_tool = next(i for i, line in enumerate(lines) if line.startswith("tool ▶   get_weather started"))
    hours_call = next(i for i, line in enumerate(lines) if line.startswith("call ✔   get_opening_hours("))
    assert max(weather_call, weather_tool) < hours_call  # the first tool ran before the second call came
    assert "result ◀  get_opening_hours: Musée du Louvre is open 09:00-18:00 on Saturday" in lines
    assert 'result ◀  get_weather: {"city":"Paris","temperature":21,"unit":"celsius","sky":"sunny"}' in lines
    assert lines[0].startswith("text      Let me check the weather in Paris")
    # The long call's content is on screen, piece by piece, before its call completes.
    started = lines.index("call ▷   write_file(path='saturday_plan.md') content, as it streams:")
    write_call = next(i for i, line in enumerate(lines) if line.startswith("call ✔   write_file("))
    pieces = [i for i, line in enumerate(lines) if line.startswith("┊")]
    assert pieces
    assert hours_call < started < pieces[0] <= pieces[-1] < write_call
    screen = out.getvalue()
    assert "# Saturday in Paris" in screen
    assert "- [ ] phone charger: the Louvre's map app drains the battery" in screen
    assert "result ◀  write_file: 2418 characters for saturday_plan.md (not written: a demo)" in lines
    # The loop's second request: run.messages() was accepted and the final answer streams.
    again = lines.index("request   POST again with the 5 messages so far")
    assert again > lines.index(
        "result ◀  write_file: 2418 characters for saturday_plan.md (not written: a demo)"
    )
    assert lines[again + 1].startswith("text      Done: your Saturday plan is in saturday_plan.md.")
    assert lines[-1] == "stream ■  finished: stop"


def test_serve_runs_the_replay_server() -> None:
    with served("--max-delay", "0") as url:
        request = {"model": "parallel_calls", "stream": True, "messages": []}
        with httpx.Client(timeout=10) as client:
            with client.stream("POST", f"{url}/v1/chat/completions", json=request) as response:
                events = list(streamcalls.from_httpx_sync(response))
            index = client.get(url).json()
        bundled = (streamcalls.testing.bundled_recordings()["openai/parallel_calls"]).body
        assert normalize(events) == normalize(streamcalls.parse(bundled))
        assert "openai/plan_day" in index["recordings"]
        assert "POST /model/<model>/converse-stream" in index["endpoints"]


def test_lazy_names_resolve() -> None:
    for name in ("aparse", "run_tools", "ToolRun", "from_httpx", "from_httpx_sync"):
        assert name in dir(streamcalls)
        assert callable(getattr(streamcalls, name))
    assert callable(streamcalls.from_openai_stream)
    assert callable(streamcalls.from_anthropic_stream)
