"""``make demo`` / ``streamcalls demo``: a whole agent loop, with tools that start while the model is still talking.

It starts the replay server on a local port and runs the loop a user writes:
an OpenAI-style request with the tools (typed functions, their schemas from
the annotations), the bundled multi-call recording streamed through
``from_httpx`` and ``run_tools``, then ``run.messages(...)`` sent back for
the model's final answer.  It prints a live timeline: text as it streams,
each call as it completes, each tool as it starts, each result.  The last
call, a ``write_file`` with a few KB of ``content``, is shown as it streams
(``partial_arguments=True``, through :class:`PartialArguments`) while the
first two tools run.  Needs the ``demo`` extra (hypercorn, httpx, rich).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import anyio
import anyio.from_thread
import httpx
from rich.console import Console
from rich.markup import escape

from .._events import (
    ProviderError,
    StreamFinished,
    TextDelta,
    ToolCallCompleted,
    ToolCallFailed,
    ToolCallPatch,
    ToolCallStarted,
)
from .._partial import PartialArguments
from .._results import ToolResult
from ..aio._httpx import from_httpx
from ..aio._tools import ToolRun, run_tools
from ..codec import encode_tools
from ._app import ReplayApp, bundled_recordings
from ._serve import serve

__all__ = ("run_demo",)

MODEL = "plan_and_write"  # streamcalls/replay/demo_streams/openai_plan_and_write.sse
LIVE_TOOLS = frozenset({"write_file"})  # calls whose content is shown as it streams
_GUTTER = " " * 13 + "┊" + " " * 6  # under the timeline's "+ 1.234s     ┊      " prefix


class Timeline:
    """Prints one line per moment, with the time since the start; text streams inline."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.start = time.perf_counter()
        self.inline = ""  # the label of the text being printed inline, if any

    def offset(self) -> str:
        return f"[dim]+{time.perf_counter() - self.start:6.3f}s[/dim]"

    def line(self, label: str, text: str) -> None:
        if self.inline:
            self.console.print()
            self.inline = ""
        self.console.print(f"{self.offset()}  {label}  {text}", highlight=False)

    def text(self, piece: str, label: str = "[bold]text    [/bold]", style: str = "") -> None:
        """Print ``piece`` inline, after one timeline prefix per run of the same label."""
        if self.inline != label:
            if self.inline:
                self.console.print()
            self.console.print(f"{self.offset()}  {label}  ", end="")
            self.inline = label
        self.console.print(escape(piece), end="", style=style, highlight=False)


class LiveContent:
    """A call's ``content`` argument on screen as it streams: patches -> PartialArguments -> the new text."""

    def __init__(self, timeline: Timeline, name: str) -> None:
        self.timeline = timeline
        self.name = name
        self.arguments = PartialArguments()
        self.shown = 0  # characters of content printed so far

    def apply(self, patch: ToolCallPatch) -> None:
        self.arguments.apply(patch)
        if patch.path != ("content",):
            return
        value = self.arguments.value  # a few KB: reading it whole at each patch is cheap here
        content = value.get("content", "") if isinstance(value, dict) else ""
        if len(content) > self.shown:
            if not self.shown:
                path = value.get("path", "?")
                self.timeline.line(
                    "[blue]call ▷[/blue] ", escape(f"{self.name}(path={path!r}) content, as it streams:")
                )
            piece = content[self.shown :].replace("\n", "\n" + _GUTTER)  # each line under the gutter
            self.timeline.text(piece, "[blue]   ┊    [/blue]", style="blue")
            self.shown = len(content)


async def run_demo(console: Console | None = None, *, fast: bool = False) -> int:
    """Run the demo; ``fast`` drops the network pauses and the tools' work time (for tests)."""
    console = console or Console(highlight=False, soft_wrap=True)
    timeline = Timeline(console)
    scale = 0.0 if fast else 1.0

    async def get_weather(city: str, unit: str = "celsius") -> dict[str, Any]:
        """An async tool: awaits a slow 'API'."""
        timeline.line("[yellow]tool ▶[/yellow] ", f"get_weather started (async, about {1.2 * scale:.1f}s)")
        await anyio.sleep(1.2 * scale)
        return {"city": city, "temperature": 21, "unit": unit, "sky": "sunny"}

    def get_opening_hours(place: str, day: str, lang: str = "en") -> str:
        """A sync tool: blocks, so it runs in a worker thread."""
        anyio.from_thread.run_sync(
            timeline.line,
            "[yellow]tool ▶[/yellow] ",
            f"get_opening_hours started (thread, {0.3 * scale:.1f}s)",
        )
        time.sleep(0.3 * scale)
        return f"{place} is open 09:00-18:00 on {day}"

    async def write_file(path: str, content: str) -> str:
        """The long call: nothing is written, the demo only counts."""
        await anyio.sleep(0.1 * scale)
        return f"{len(content)} characters for {path} (not written: a demo)"

    tools = [get_weather, get_opening_hours, write_file]  # schemas from the annotations and docstrings
    app = ReplayApp(bundled_recordings(), max_chunk=192, max_delay=0.03 * scale)
    status = 0
    async with serve(app) as url:
        endpoint = f"{url}/v1/chat/completions"
        console.print(f"[bold]streamcalls demo[/bold]: a replay server at {url} streams a recorded reply")
        console.print(
            f"POST {endpoint}  model={MODEL!r}, stream=true; three tools run as their calls complete,\n"
            "the long one's content shows as it streams, and the results go back for the final answer\n"
        )
        messages: list[Mapping[str, object]] = [{"role": "user", "content": "Plan my Saturday"}]
        timeline.start = time.perf_counter()
        async with httpx.AsyncClient(timeout=30) as client:
            for turn in range(1, 5):  # a real loop ends when the model answers without calls
                request = {
                    "model": MODEL,
                    "stream": True,
                    "messages": messages,
                    "tools": encode_tools(tools, "openai"),
                }
                if turn > 1:
                    timeline.line(
                        "[bold]request[/bold] ", f"POST again with the {len(messages)} messages so far"
                    )
                async with (
                    client.stream("POST", endpoint, json=request) as response,
                    run_tools(from_httpx(response, partial_arguments=True), tools, timeout=30) as run,
                ):
                    status |= await _show(run, timeline)
                messages += run.messages("openai")
                if not run.calls:
                    break
    console.print(
        "\nEach tool started the moment its call's arguments closed, while the reply went on;"
        "\nrun.messages() wrote the turn back, and the model's answer used the results."
    )
    return status


async def _show(run: ToolRun, timeline: Timeline) -> int:
    """Print one turn's events and results as they come; 1 if something failed."""
    status = 0
    live: dict[int, LiveContent] = {}
    async for item in run:
        if isinstance(item, TextDelta):
            timeline.text(item.text)
        elif isinstance(item, ToolCallStarted) and item.name in LIVE_TOOLS:
            live[item.index] = LiveContent(timeline, item.name)
        elif isinstance(item, ToolCallPatch):
            if item.index in live:
                live[item.index].apply(item)
        elif isinstance(item, ToolCallCompleted):
            call = item.call
            shown = call.arguments_json
            if call.index in live:
                shown = f"path={call.arguments.get('path')!r}, content=<{len(call.arguments.get('content', ''))} characters>"
            timeline.line("[cyan]call ✔[/cyan] ", escape(f"{call.name}({shown})"))
        elif isinstance(item, ToolResult):
            colour = "red" if item.is_error else "green"
            timeline.line(f"[{colour}]result ◀[/{colour}]", escape(f"{item.name}: {item.content}"))
        elif isinstance(item, StreamFinished):
            timeline.line("[magenta]stream ■[/magenta]", f"finished: {item.reason}")
        elif isinstance(item, (ProviderError, ToolCallFailed)):
            timeline.line("[red]error[/red]   ", escape(str(item)))
            status = 1
    return status
