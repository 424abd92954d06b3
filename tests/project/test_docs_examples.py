"""The site's programs run as written -- against ``streamcalls serve`` where they name it -- and print what the
pages say they do.

Each program runs once (one replay server per set of options, shared); the
programs whose output the pages describe are held to it here, by the page and
heading they are under.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

import streamcalls
import streamcalls.testing
from tests.support.docblocks import DOCS, ROOT, Block, Servers, blocks, run_program, served, site_blocks

PROGRAMS = [block for block in site_blocks() if block.kind == "program"]

ANSWER = (  # streamcalls/replay/demo_streams/openai_plan_day.turn2.sse (the same answer for every provider)
    "Saturday looks good: sunny and 21 °C in Paris. The Musée du Louvre is open 09:00-18:00, "
    "so see it in the morning and keep the afternoon for a walk along the Seine."
)
TEXT = "Let me check the weather in Paris and the Louvre's opening hours for Saturday."
WEATHER = '{"city":"Paris","temperature":21,"unit":"celsius"}'
HOURS = "Musée du Louvre is open 09:00-18:00 on Saturday"


def first_stream(out: str) -> None:
    assert out == (
        f"{TEXT}\n-> get_weather({{'city': 'Paris', 'unit': 'celsius'}})"
        "\n\n-> get_opening_hours({'place': 'Musée du Louvre', 'day': 'Saturday', 'lang': 'en'})\n"
    )


def first_tool_loop(out: str) -> None:
    lines = [line for line in out.splitlines() if line]
    assert lines[0] == TEXT
    assert [line for line in lines if line.startswith("->")] == [  # in stream order
        "-> get_weather started",
        "-> get_opening_hours started",
    ]
    assert sorted(line for line in lines if line.startswith("<-")) == [  # finishing order is timing
        f"<- get_opening_hours: {HOURS}",
        f"<- get_weather: {WEATHER}",
    ]
    assert lines[-1] == ANSWER  # the second request's turn: the history was accepted


def sdk_loop(out: str) -> None:
    lines = [line for line in out.splitlines() if line]
    assert lines[0] == TEXT
    assert sorted(lines[1:3]) == [f"<- get_opening_hours: {HOURS}", f"<- get_weather: {WEATHER}"]
    assert lines[3:] == [ANSWER]  # the SDK sent run.messages() back, and the server took the history


def live_arguments(out: str) -> None:
    recording = streamcalls.testing.bundled_recordings()["openai/plan_and_write"].body
    calls = [e.call for e in streamcalls.parse(recording) if isinstance(e, streamcalls.ToolCallCompleted)]
    content = calls[-1].arguments["content"]
    assert out == (
        "-> get_weather(city, unit)\n-> get_opening_hours(place, day, lang)\n"
        f"writing saturday_plan.md:\n{content}-> write_file(path, content)\n"
    )


def closing_the_loop(out: str) -> None:
    *lines, answer = out.splitlines()
    assert answer == ANSWER  # the server's next turn: the history was accepted
    messages: list[dict[str, Any]] = [json.loads(line) for line in lines]
    assert messages == [
        {"role": "user", "content": "Plan my Saturday"},
        {
            "role": "assistant",
            "content": TEXT,
            "tool_calls": [
                {
                    "id": "call_weather",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris","unit":"celsius"}'},
                },
                {
                    "id": "call_hours",
                    "type": "function",
                    "function": {
                        "name": "get_opening_hours",
                        "arguments": '{"place":"Musée du Louvre","day":"Saturday","lang":"en"}',
                    },
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_weather", "content": WEATHER},
        {"role": "tool", "tool_call_id": "call_hours", "content": HOURS},
    ]
    # The assistant message it wrote reads back as the calls that were streamed.
    calls = streamcalls.extract(messages[1])
    assert [(c.id, c.name) for c in calls] == [
        ("call_weather", "get_weather"),
        ("call_hours", "get_opening_hours"),
    ]


def chat_endpoint(out: str) -> None:
    """The guide's useChat endpoint prints the outline the page shows under it."""
    page = DOCS / "guide" / "writing-streams.md"
    shown = next(b for b in blocks(page) if b.heading == "Streaming to a chat UI" and b.language == "text")
    assert out == shown.code


def shown_under(page: str, heading: str) -> Callable[[str], None]:
    """The check of a program whose page shows what it prints: the ``text`` block under the same heading."""

    def check(out: str) -> None:
        shown = [b for b in blocks(DOCS / page) if b.heading == heading and b.language == "text"]
        assert len(shown) == 1
        assert out == shown[0].code

    return check


def silent(out: str) -> None:
    assert out == ""  # it checks itself with asserts


# What each program prints, by the page and heading it is under.
CHECKS: dict[tuple[str, str], Callable[[str], None]] = {
    ("getting-started.md", "Against the replay server"): first_stream,
    ("getting-started.md", "A first tool loop"): first_tool_loop,
    ("getting-started.md", "With the openai SDK"): sdk_loop,
    ("getting-started.md", "With the anthropic SDK"): sdk_loop,
    ("guide/live-arguments.md", "Against the replay server"): live_arguments,
    ("guide/codec.md", "Closing the loop by hand"): closing_the_loop,
    ("guide/async-and-tools.md", "Tools from typed functions"): silent,
    ("guide/writing-streams.md", "Streaming to a chat UI"): chat_endpoint,
    ("guide/proxies.md", "A translating proxy"): shown_under("guide/proxies.md", "A translating proxy"),
    ("guide/proxies.md", "A `useChat` endpoint"): shown_under("guide/proxies.md", "A `useChat` endpoint"),
}


def key(block: Block) -> tuple[str, str]:
    return (str(block.page.relative_to(DOCS)), block.heading)


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    pool = Servers()
    yield pool
    pool.close()


def test_every_program_is_checked() -> None:
    """Each program's output is held to what its page says: a new program on the site gets a check here."""
    assert sorted(map(key, PROGRAMS)) == sorted(CHECKS)


@pytest.mark.parametrize("block", PROGRAMS, ids=[block.where for block in PROGRAMS])
def test_every_program_runs_as_written(block: Block, servers: Servers) -> None:
    result = run_program(block, servers)
    assert result.returncode == 0, result.stderr
    CHECKS[key(block)](result.stdout)


# -- command lines shown with their output --------------------------------------------------------------------

REPLAYS = [
    block
    for block in site_blocks()
    if block.language == "text" and block.code.startswith("$ streamcalls replay ")
]
_CLOCK = re.compile(r"^\+ *\d+\.\d{3}s", re.MULTILINE)
_ID = re.compile(r"\bcall_[0-9a-f]{24}\b")


def as_shown(out: str) -> str:
    """A replay's output with what changes from run to run (the clock, generated ids) masked."""
    return _ID.sub("call_<id>", _CLOCK.sub("+ <time>", out))


def command_line(*arguments: str) -> subprocess.CompletedProcess[str]:
    """``streamcalls ARGUMENTS``, run as a page shows it, from the repository's root."""
    return subprocess.run(
        [sys.executable, "-m", "streamcalls", *arguments],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def test_the_site_shows_a_replay() -> None:
    assert REPLAYS


@pytest.mark.parametrize("block", REPLAYS, ids=[block.where for block in REPLAYS])
def test_every_replay_shown_prints_what_the_page_shows(block: Block) -> None:
    command, *shown = block.code.splitlines()
    arguments = shlex.split(command.removeprefix("$ streamcalls "))
    result = command_line(*arguments)
    assert result.returncode == 0, result.stderr
    assert as_shown(result.stdout) == as_shown("\n".join(shown) + "\n")


def test_the_demo_shown_is_what_the_demo_prints() -> None:
    """Every line of the agent loop page's excerpt of ``streamcalls demo`` is a line of a real run (``...``: the
    rest of a line, or lines of streamed text, left out), in the order shown where the order is the stream's."""
    (block,) = [
        b for b in site_blocks() if b.language == "text" and b.code.startswith("$ streamcalls demo\n")
    ]
    result = command_line("demo")
    assert result.returncode == 0, result.stderr
    printed = [line.rstrip() for line in as_shown(result.stdout).splitlines()]
    shown = [line.rstrip() for line in as_shown(block.code).splitlines()[1:] if line.strip() != "┊      ..."]
    for line in shown:
        if line.endswith(" ..."):
            assert any(p.startswith(line.removesuffix("...")) for p in printed), line
        else:
            assert line in printed, line
    # What the stream orders (the calls, the text, the turns) is in the order shown; the tools' own lines are timing.
    ordered = [line for line in shown if not line.split("  ", 1)[1].startswith(("tool", "result"))]
    where = [
        next(i for i, p in enumerate(printed) if p.startswith(line.removesuffix("..."))) for line in ordered
    ]
    assert where == sorted(where)


def test_the_replay_server_page_lists_every_endpoint() -> None:
    """The endpoint table of the CLI and replay server page is the list ``GET /`` gives."""
    page = (DOCS / "guide" / "cli-and-replay.md").read_text()
    table = re.findall(r"^\| `(POST [^`]+)` \|", page, re.MULTILINE)
    with served("--max-delay", "0") as url:
        index = httpx.get(url, timeout=10).json()
    posts = [endpoint for endpoint in index["endpoints"] if endpoint.startswith("POST ")]
    assert [re.sub(r"\{\w+\}", "<model>", endpoint) for endpoint in table] == posts
    assert "`GET /replay/<provider>/<name>`" in page
