"""A replay server: recorded provider streams served over real HTTP (an ASGI app).

Each response is a recording's bytes, cut at random points and sent piece by
piece with random pauses, the way a provider's stream arrives.  Endpoints:

- ``POST /v1/chat/completions``: OpenAI-compatible.  The request's ``model``
  names the recording (``openai/<model>``), else the default one is sent;
  ``"stream": true`` is required.
- ``POST /v1/messages``: Anthropic-style, likewise (``anthropic/<model>``).
- ``GET /replay/<provider>/<name>``: a recording as it is.
- ``GET /``: the list of recordings and endpoints.

A ``model`` of ``"http-429"`` (any status) answers with that status and the
provider's JSON error object; ``"html-502"`` with an HTML error page, as a
proxy would.  The app needs only anyio; :func:`streamcalls.testing.serve`
runs it on a local port.
"""

from __future__ import annotations

import random
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

import anyio
import msgspec

from ._errors import UsageError
from .providers import ADAPTERS

__all__ = ("Hold", "Recording", "ReplayApp", "bundled_recordings", "load_recordings")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

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
_ERROR_MODEL = re.compile(r"(http|html)-([1-5][0-9][0-9])")


class Recording(msgspec.Struct, frozen=True):
    """One recorded response body: ``provider/name`` is its key."""

    provider: str
    name: str
    body: bytes
    content_type: str

    @property
    def key(self) -> str:
        return f"{self.provider}/{self.name}"

    def event_ends(self) -> list[int]:
        """Offsets just past each SSE event (blank line), or each line for other framings."""
        pattern = _SSE_EVENT_END if self.content_type.startswith("text/event-stream") else _LINE_END
        return [match.end() for match in pattern.finditer(self.body)]


def load_recordings(folder: Traversable | Path) -> dict[str, Recording]:
    """The recordings in a folder, by ``provider/name``.

    Either one sub-folder per provider (``openai/one_call.sse``, as in the
    tests' data) or flat files named ``<provider>_<name>.<ext>`` (as in the
    bundled ``demo_streams``).  ``*.events.jsonl`` files are skipped.
    """
    found: dict[str, Recording] = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            if entry.name in PROVIDERS:
                for item in sorted(entry.iterdir(), key=lambda e: e.name):
                    _add(found, entry.name, item)
            continue
        provider, _, rest = entry.name.partition("_")
        if provider in PROVIDERS and rest:
            _add(found, provider, entry, prefix=f"{provider}_")
    return found


def _add(found: dict[str, Recording], provider: str, item: Traversable, prefix: str = "") -> None:
    stem, dot, suffix = item.name.partition(".")
    content_type = CONTENT_TYPES.get(dot + suffix)
    if not item.is_file() or content_type is None:
        return
    name = stem.removeprefix(prefix)
    recording = Recording(provider, name, item.read_bytes(), content_type)
    found[recording.key] = recording


def bundled_recordings() -> dict[str, Recording]:
    """The recordings shipped in the package (``streamcalls/demo_streams``)."""
    return load_recordings(resources.files("streamcalls") / "demo_streams")


class Hold:
    """A pause in the next streamed response; see :meth:`ReplayApp.hold`."""

    def __init__(self, after_events: int) -> None:
        self.after_events = after_events
        self.reached = anyio.Event()
        """Set once the response has sent its first ``after_events`` events and paused."""
        self.resumed = False
        """True once the rest of the response is being sent."""
        self.disconnected = False
        """True if the client went away during the pause."""
        self._release = anyio.Event()

    def release(self) -> None:
        """Let the response go on."""
        self._release.set()


class ReplayApp:
    """The ASGI app.

    :param recordings: by ``provider/name`` (see :func:`load_recordings`).
    :param seed: seeds the random chunking and delays (None: random).
    :param max_chunk: largest piece sent at once, in bytes (pieces are 1 to
        ``max_chunk`` bytes).
    :param max_delay: longest pause between two pieces, in seconds.
    :param defaults: recording key per endpoint provider (``"openai"``,
        ``"anthropic"``) when the request's ``model`` names none; else the
        first of that provider.
    """

    def __init__(
        self,
        recordings: Mapping[str, Recording],
        *,
        seed: int | None = None,
        max_chunk: int = 64,
        max_delay: float = 0.0,
        defaults: Mapping[str, str] | None = None,
    ) -> None:
        if type(max_chunk) is not int or max_chunk < 1:
            raise UsageError(f"max_chunk must be an int of at least 1, not {max_chunk!r}")
        if type(max_delay) not in (int, float) or not max_delay >= 0:
            raise UsageError(f"max_delay must be a number of seconds of at least 0, not {max_delay!r}")
        self.recordings = dict(recordings)
        self.max_chunk = max_chunk
        self.max_delay = max_delay
        self.defaults = dict(defaults or {})
        self.requests: list[Any] = []
        """The decoded JSON body of each POST, in order."""
        self.disconnects = 0
        """Responses the client left before their end."""
        self._random = random.Random(seed)
        self._holds: list[Hold] = []

    def hold(self, after_events: int) -> Hold:
        """Pause the next streamed response after its first ``after_events`` events.

        Events are SSE events (ending with a blank line), or lines for other
        framings.  The response sends them, sets ``hold.reached``, and sends
        the rest only after ``hold.release()`` (or stops if the client goes
        away).  Holds apply to the next responses, one each, in order.
        """
        hold = Hold(after_events)
        self._holds.append(hold)
        return hold

    def recording_for(self, provider: str, model: object) -> Recording | None:
        if isinstance(model, str) and f"{provider}/{model}" in self.recordings:
            return self.recordings[f"{provider}/{model}"]
        default = self.defaults.get(provider)
        if default is not None:
            return self.recordings[default]
        return next((r for r in self.recordings.values() if r.provider == provider), None)

    # -- ASGI ------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        method, path = scope["method"], scope["path"].rstrip("/")
        body = await _read_body(receive)
        if method == "POST" and path in ("/v1/chat/completions", "/v1/messages"):
            provider = "openai" if path == "/v1/chat/completions" else "anthropic"
            await self._completion(provider, body, receive, send)
        elif method == "GET" and path.startswith("/replay/"):
            recording = self.recordings.get(path.removeprefix("/replay/"))
            if recording is None:
                await _json(
                    send, 404, _error("openai", 404, f"no recording {path.removeprefix('/replay/')!r}")
                )
            else:
                await self._stream(recording, receive, send)
        elif method == "GET" and path == "":
            endpoints = ["POST /v1/chat/completions", "POST /v1/messages", "GET /replay/<provider>/<name>"]
            await _json(send, 200, {"recordings": sorted(self.recordings), "endpoints": endpoints})
        else:
            await _json(send, 404, _error("openai", 404, f"no route {method} {scope['path']}"))

    async def _completion(self, provider: str, body: bytes, receive: Receive, send: Send) -> None:
        try:
            request = msgspec.json.decode(body)
        except msgspec.DecodeError as exc:
            await _json(send, 400, _error(provider, 400, f"the request body is not JSON: {exc}"))
            return
        self.requests.append(request)
        if not isinstance(request, dict):
            await _json(send, 400, _error(provider, 400, "the request body must be a JSON object"))
            return
        model = request.get("model")
        error = _ERROR_MODEL.fullmatch(model) if isinstance(model, str) else None
        if error is not None:
            status = int(error.group(2))
            if error.group(1) == "html":
                page = f"<html><head><title>{status} Bad Gateway</title></head><body><h1>{status}</h1></body></html>"
                await _respond(send, status, "text/html; charset=utf-8", page.encode())
            else:
                await _json(send, status, _error(provider, status, f"simulated error {status}"))
            return
        if request.get("stream") is not True:
            await _json(
                send, 400, _error(provider, 400, 'this replay server only streams: send "stream": true')
            )
            return
        recording = self.recording_for(provider, model)
        if recording is None:
            await _json(send, 404, _error(provider, 404, f"no {provider} recording to replay"))
            return
        await self._stream(recording, receive, send)

    async def _stream(self, recording: Recording, receive: Receive, send: Send) -> None:
        hold = self._holds.pop(0) if self._holds else None
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", recording.content_type.encode()),
                    (b"cache-control", b"no-cache"),
                    (b"x-replay-recording", recording.key.encode()),
                ],
            }
        )
        body = recording.body
        split = len(body)
        if hold is not None:
            ends = recording.event_ends()
            count = hold.after_events
            split = 0 if count <= 0 else ends[count - 1] if count <= len(ends) else len(body)
        finished = False

        async def sender() -> None:
            nonlocal finished
            await self._send_pieces(send, body[:split])
            if hold is not None:
                hold.reached.set()
                await hold._release.wait()
                hold.resumed = True
            await self._send_pieces(send, body[split:])
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            finished = True

        async with anyio.create_task_group() as task_group:

            async def watch() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                task_group.cancel_scope.cancel()

            task_group.start_soon(watch)
            await sender()
            task_group.cancel_scope.cancel()
        if not finished:
            self.disconnects += 1
            if hold is not None and not hold.resumed:
                hold.disconnected = True

    async def _send_pieces(self, send: Send, data: bytes) -> None:
        rng = self._random
        start = 0
        while start < len(data):
            if start and self.max_delay > 0:
                await anyio.sleep(rng.uniform(0, self.max_delay))
            end = start + rng.randint(1, self.max_chunk)
            await send({"type": "http.response.body", "body": data[start:end], "more_body": True})
            start = end


def _error(provider: str, status: int, message: str) -> dict[str, Any]:
    """The provider's JSON error object."""
    if provider == "anthropic":
        kind = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error"}
        return {"type": "error", "error": {"type": kind.get(status, "api_error"), "message": message}}
    kind = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_exceeded"}
    return {
        "error": {"message": message, "type": kind.get(status, "server_error"), "param": None, "code": None}
    }


async def _read_body(receive: Receive) -> bytes:
    parts: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        parts.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(parts)


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def _respond(send: Send, status: int, content_type: str, body: bytes) -> None:
    headers: Iterable[tuple[bytes, bytes]] = [
        (b"content-type", content_type.encode()),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": list(headers)})
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def _json(send: Send, status: int, obj: Any) -> None:
    await _respond(send, status, "application/json", msgspec.json.encode(obj))
