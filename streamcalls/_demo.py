"""``make demo`` / ``streamcalls demo``: tools that start while the model is still talking.

It starts the replay server on a local port, posts an OpenAI-style request
with httpx, streams the bundled multi-call recording through
``from_httpx`` and ``run_tools``, and prints a live timeline: text as it
streams, each call as it completes, each tool as it starts, each result.
Needs the ``demo`` extra (hypercorn, httpx, rich).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import anyio
import anyio.from_thread
import httpx
from rich.console import Console
from rich.markup import escape

from ._events import ProviderError, StreamFinished, TextDelta, ToolCallCompleted, ToolCallFailed
from ._httpx import from_httpx
from ._replay import ReplayApp, bundled_recordings
from ._results import ToolResult
from ._serve import serve
from ._tools import run_tools

__all__ = ("run_demo",)

MODEL = "plan_day"  # streamcalls/demo_streams/openai_plan_day.sse


class Timeline:
    """Prints one line per moment, with the time since the start; text streams inline."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.start = time.perf_counter()
        self.in_text = False

    def offset(self) -> str:
        return f"[dim]+{time.perf_counter() - self.start:6.3f}s[/dim]"

    def line(self, label: str, text: str) -> None:
        if self.in_text:
            self.console.print()
            self.in_text = False
        self.console.print(f"{self.offset()}  {label}  {text}", highlight=False)

    def text(self, piece: str) -> None:
        if not self.in_text:
            self.console.print(f"{self.offset()}  [bold]text    [/bold]  ", end="")
            self.in_text = True
        self.console.print(escape(piece), end="", highlight=False)


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

    tools: dict[str, Callable[..., Any]] = {
        "get_weather": get_weather,
        "get_opening_hours": get_opening_hours,
    }
    app = ReplayApp(bundled_recordings(), max_chunk=96, max_delay=0.04 * scale)
    status = 0
    async with serve(app) as url:
        endpoint = f"{url}/v1/chat/completions"
        console.print(f"[bold]streamcalls demo[/bold]: a replay server at {url} streams a recorded reply")
        console.print(
            f"POST {endpoint}  model={MODEL!r}, stream=true; two tools run as their calls complete\n"
        )
        request = {
            "model": MODEL,
            "stream": True,
            "messages": [{"role": "user", "content": "Plan my Saturday"}],
        }
        timeline.start = time.perf_counter()
        async with (
            httpx.AsyncClient(timeout=30) as client,
            client.stream("POST", endpoint, json=request) as response,
            run_tools(from_httpx(response), tools=tools) as run,
        ):
            async for item in run:
                if isinstance(item, TextDelta):
                    timeline.text(item.text)
                elif isinstance(item, ToolCallCompleted):
                    call = item.call
                    timeline.line("[cyan]call ✔[/cyan] ", escape(f"{call.name}({call.arguments_json})"))
                elif isinstance(item, ToolResult):
                    colour = "red" if item.is_error else "green"
                    timeline.line(f"[{colour}]result ◀[/{colour}]", escape(f"{item.name}: {item.content}"))
                elif isinstance(item, StreamFinished):
                    timeline.line("[magenta]stream ■[/magenta]", f"finished: {item.reason}")
                elif isinstance(item, (ProviderError, ToolCallFailed)):
                    timeline.line("[red]error[/red]   ", escape(str(item)))
                    status = 1
    console.print("\nEach tool started the moment its call's arguments closed, while the reply went on.")
    return status
