"""A replay server: recorded provider streams served over real HTTP (an ASGI app).

Each response is a recording's bytes, cut at random points and sent piece by
piece with random pauses, the way a provider's stream arrives.  Endpoints:

- ``POST /v1/chat/completions``: OpenAI-compatible.  The request's ``model``
  names the recording (``openai/<model>``); without a ``model`` the default
  one is sent, an unknown one is a 404 listing the recordings.
- ``POST /v1/messages``: Anthropic-style, likewise (``anthropic/<model>``).
- ``GET /replay/<provider>/<name>`` (or ``<name>.turn2``, ...): a recording as it is.
- ``GET /``: the list of recordings and endpoints.

A POST is answered as the provider would answer it.  Its ``messages`` are
checked by the provider's rules (:mod:`._history`): a history the provider
would reject -- a message that is not an object, a tool result without its
call, results not right after their calls -- gets the provider's 400 error
JSON.  A history that ends with tool results gets the recording's next turn
(``<name>.turn2.<ext>``: the final answer, say), a new prompt its first.
``"stream": true`` streams the turn; otherwise the response is complete
(``chat.completion``, Anthropic ``message``), built from the same recording.

A ``model`` of ``"http-429"`` (any status) answers with that status and the
provider's JSON error object; ``"html-502"`` with an HTML error page, as a
proxy would.  The app needs only anyio; :func:`streamcalls.testing.serve`
runs it on a local port.
"""

from __future__ import annotations

import random
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from typing import Any

import anyio
import msgspec

from ._complete import complete_response
from ._errors import UsageError
from ._history import Rejected, conversation_turn
from ._recordings import Recording, bundled_recordings, load_recordings

__all__ = ("Hold", "Recording", "ReplayApp", "bundled_recordings", "load_recordings")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

ENDPOINTS = {"/v1/chat/completions": "openai", "/v1/messages": "anthropic"}

_ERROR_MODEL = re.compile(r"(http|html)-([1-5][0-9][0-9])")
_TURN_NAME = re.compile(r"(?P<key>.+?)(?:\.turn(?P<turn>[1-9][0-9]*))?")


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
        ``"anthropic"``) when the request has no ``model``; else the first
        of that provider.
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
        """The recording a request's ``model`` names (None: no such recording).

        Without a ``model``: the default for ``provider``, else its first recording.
        """
        if isinstance(model, str):
            return self.recordings.get(f"{provider}/{model}")
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
        if method == "POST" and path in ENDPOINTS:
            await self._completion(ENDPOINTS[path], body, receive, send)
        elif method == "GET" and path.startswith("/replay/"):
            wanted = path.removeprefix("/replay/")
            recording = self._by_name(wanted)
            if recording is None:
                await _json(send, 404, error_body("openai", 404, f"no recording {wanted!r}"))
            else:
                await self._stream(recording, receive, send)
        elif method == "GET" and path == "":
            endpoints = [*(f"POST {endpoint}" for endpoint in ENDPOINTS), "GET /replay/<provider>/<name>"]
            turns = {key: recording.turns for key, recording in sorted(self.recordings.items())}
            await _json(send, 200, {"recordings": list(turns), "turns": turns, "endpoints": endpoints})
        else:
            await _json(send, 404, error_body("openai", 404, f"no route {method} {scope['path']}"))

    def _by_name(self, wanted: str) -> Recording | None:
        match = _TURN_NAME.fullmatch(wanted)
        recording = self.recordings.get(match["key"]) if match else None
        if recording is None or match is None:
            return None
        return recording.maybe_turn(int(match["turn"] or 1))

    async def _completion(self, provider: str, body: bytes, receive: Receive, send: Send) -> None:
        try:
            request = msgspec.json.decode(body)
        except msgspec.DecodeError as exc:
            await _json(send, 400, error_body(provider, 400, f"the request body is not JSON: {exc}"))
            return
        self.requests.append(request)
        if not isinstance(request, dict):
            await _json(send, 400, error_body(provider, 400, "the request body must be a JSON object"))
            return
        model = request.get("model")
        simulated = _ERROR_MODEL.fullmatch(model) if isinstance(model, str) else None
        if simulated is not None:
            await _simulated_error(send, provider, simulated.group(1), int(simulated.group(2)))
            return
        try:
            turn = conversation_turn(provider, request.get("messages"))
        except Rejected as rejected:
            error = error_body(provider, 400, rejected.message, param=rejected.param, code=rejected.code)
            await _json(send, 400, error)
            return
        recording = self.recording_for(provider, model)
        if recording is None:
            await _json(send, 404, self._no_model(provider, model))
            return
        answer = recording.maybe_turn(turn)
        if answer is None:
            message = (
                f"recording {recording.key!r} has {recording.turns} turn(s), and these messages ask for "
                f"turn {turn} (one more than the assistant turns since the last user prompt): record "
                f"it as {recording.name}.turn{turn}.<ext> beside the first"
            )
            await _json(send, 404, error_body(provider, 404, message, code="model_not_found"))
            return
        if request.get("stream") is True:
            await self._stream(answer, receive, send)
            return
        complete = complete_response(answer, model if isinstance(model, str) else answer.name)
        if isinstance(complete, tuple):
            await _json(send, *complete)
        else:
            await _json(send, 500, error_body(provider, 500, complete.message, code=complete.code))

    def _no_model(self, provider: str, model: object) -> dict[str, Any]:
        names = sorted(r.name for r in self.recordings.values() if r.provider == provider)
        listed = ", ".join(names) if names else f"no {provider} recordings at all"
        if provider == "anthropic":
            message = f"model: {model} (this replay server has: {listed})"
        else:
            message = (
                f"The model `{model}` does not exist or you do not have access to it. "
                f"This replay server has: {listed}"
            )
        return error_body(provider, 404, message, code="model_not_found")

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
                    (b"x-replay-turn", str(recording.turn).encode()),
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


def error_body(
    provider: str, status: int, message: str, *, param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    """The provider's JSON error object (Anthropic's has no ``param`` or ``code``)."""
    if provider == "anthropic":
        kind = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error"}
        return {"type": "error", "error": {"type": kind.get(status, "api_error"), "message": message}}
    kind = {
        400: "invalid_request_error",
        401: "authentication_error",
        404: "invalid_request_error",
        429: "rate_limit_exceeded",
    }
    error = {"message": message, "type": kind.get(status, "server_error"), "param": param, "code": code}
    return {"error": error}


async def _simulated_error(send: Send, provider: str, kind: str, status: int) -> None:
    if kind == "html":
        page = f"<html><head><title>{status} Bad Gateway</title></head><body><h1>{status}</h1></body></html>"
        await _respond(send, status, "text/html; charset=utf-8", page.encode())
    else:
        await _json(send, status, error_body(provider, status, f"simulated error {status}"))


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
