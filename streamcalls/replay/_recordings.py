"""Recorded response bodies for the replay server, and the folder format they are read from.

A folder holds one sub-folder per provider (``openai/plan_day.sse``, as in
the tests' data), or flat files named ``<provider>_<name>.<ext>`` (as in the
bundled ``demo_streams``).  The extension gives the content type served
(``.bin``: Bedrock's binary event stream; a Gemini stream may be ``.sse`` or
its JSON array as ``.json``, and is served in the framing a request asks for).

A recording may have later turns, in files beside it: ``plan_day.turn2.sse``
is the response to the request that comes after ``plan_day.sse`` -- the one
whose messages end with the results of its tool calls --, ``plan_day.turn3.sse``
the one after that, and so on.  Every other file (``*.events.jsonl``,
``*.options.json``, a Bedrock stream's readable ``*.frames.jsonl``, ...) is
skipped.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import cast

import msgspec

from .._api import parse
from .._events import ToolCall, ToolCallCompleted
from .._names import ProviderName
from ..providers import ADAPTERS

__all__ = ("CONTENT_TYPES", "PROVIDERS", "Recording", "bundled_recordings", "event_ends", "load_recordings")

CONTENT_TYPES = {
    ".sse": "text/event-stream; charset=utf-8",
    ".ndjson": "application/x-ndjson",
    ".json": "application/json",
    ".txt": "text/plain; charset=utf-8",
    ".bin": "application/vnd.amazon.eventstream",
}
PROVIDERS = tuple(ADAPTERS)  # a recording's folder (or file prefix) names its provider

_SSE_EVENT_END = re.compile(rb"(?:\r\n|\r|\n)(?:\r\n|\r|\n)")
_LINE_END = re.compile(rb"\r\n|\r|\n")
_FILE_NAME = re.compile(r"(?P<name>[^.]+)(?:\.turn(?P<turn>[1-9][0-9]*))?(?P<ext>\.[a-z]+)")


class Recording(msgspec.Struct, frozen=True):
    """One recorded response body: ``provider/name`` is its key.

    ``next_turns`` are the recordings of the responses that follow it in
    the conversation (turn 2, 3, ...): the replay server answers a request
    whose messages end with tool results with the next one.
    ``translated_from`` is set on another provider's recording written as
    this provider's stream (by the replay server): the recorded turn it was
    written from.
    """

    provider: str
    name: str
    body: bytes
    content_type: str
    turn: int = 1
    next_turns: tuple[Recording, ...] = ()
    translated_from: Recording | None = None

    @property
    def key(self) -> str:
        return f"{self.provider}/{self.name}"

    @property
    def turns(self) -> int:
        """How many turns are recorded: this one and the next ones."""
        return 1 + len(self.next_turns)

    def maybe_turn(self, number: int) -> Recording | None:
        """Turn ``number`` of this conversation (1 is this recording), or None if it was not recorded."""
        if number == self.turn:
            return self
        index = number - self.turn - 1
        return self.next_turns[index] if 0 <= index < len(self.next_turns) else None

    def calls(self) -> list[ToolCall]:
        """The tool calls the recorded response makes, as a client's parser reads them."""
        events = parse(self.body, cast(ProviderName, self.provider))
        return [event.call for event in events if isinstance(event, ToolCallCompleted)]

    def event_ends(self) -> list[int]:
        """Offsets just past each of its events (see :func:`event_ends`)."""
        return event_ends(self.content_type, self.body)


def event_ends(content_type: str, body: bytes) -> list[int]:
    """Offsets just past each event of a body: SSE events (ending with a blank line), event-stream
    messages (by the length in each one's prelude), or lines for other framings."""
    if content_type.startswith("application/vnd.amazon.eventstream"):
        ends: list[int] = []
        start = 0
        while start + 4 <= len(body):
            start += max(struct.unpack_from(">I", body, start)[0], 16)  # 16: the smallest message
            ends.append(min(start, len(body)))
        return ends
    pattern = _SSE_EVENT_END if content_type.startswith("text/event-stream") else _LINE_END
    return [match.end() for match in pattern.finditer(body)]


def load_recordings(folder: Traversable | Path) -> dict[str, Recording]:
    """The recordings in a folder, by ``provider/name``, each with its later turns (see the module doc).

    :raises ValueError: for a later turn without the turns before it.
    """
    found: dict[tuple[str, str], dict[int, tuple[Traversable, str]]] = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            if entry.name in PROVIDERS:
                _collect(found, entry.name, entry.iterdir(), prefix="")
        else:
            provider, _, rest = entry.name.partition("_")
            if provider in PROVIDERS and rest:
                _collect(found, provider, [entry], prefix=f"{provider}_")
    return {
        f"{provider}/{name}": _recording(provider, name, turns) for (provider, name), turns in found.items()
    }


def _collect(
    found: dict[tuple[str, str], dict[int, tuple[Traversable, str]]],
    provider: str,
    items: Iterable[Traversable],
    prefix: str,
) -> None:
    for item in sorted(items, key=lambda e: e.name):
        match = _FILE_NAME.fullmatch(item.name.removeprefix(prefix))
        if match is None or match["ext"] not in CONTENT_TYPES or not item.is_file():
            continue
        turn = int(match["turn"] or 1)
        found.setdefault((provider, match["name"]), {})[turn] = (item, CONTENT_TYPES[match["ext"]])


def _recording(provider: str, name: str, turns: dict[int, tuple[Traversable, str]]) -> Recording:
    missing = [number for number in range(1, max(turns) + 1) if number not in turns]
    if missing:
        raise ValueError(
            f"recording {provider}/{name}: turn {max(turns)} is recorded but not turn {missing[0]}"
        )
    made = [
        Recording(provider, name, item.read_bytes(), content_type, number)
        for number, (item, content_type) in sorted(turns.items())
    ]
    first = made[0]
    return msgspec.structs.replace(first, next_turns=tuple(made[1:]))


def bundled_recordings() -> dict[str, Recording]:
    """The recordings shipped in the package (``streamcalls/replay/demo_streams``)."""
    return load_recordings(resources.files("streamcalls.replay") / "demo_streams")
