"""A replay server: recorded provider streams served over real HTTP (an ASGI app).

Each response is a recording's bytes, cut at random points and sent piece by
piece with random pauses, the way a provider's stream arrives.  Every
provider is served at its own path and in its own request and response
shapes (:mod:`._routes`): OpenAI Chat Completions and Responses, Anthropic
Messages, Ollama, Gemini, Bedrock Converse and InvokeModel, and Cohere v2.  Besides them,
``GET /replay/<provider>/<name>`` (or ``<name>.turn2``, ...) serves a
recording as it is, and ``GET /`` lists the recordings and endpoints.

A POST is answered as the provider would answer it.  Its model (the body's
``model``, or the one Gemini's and Bedrock's paths name) picks the recording
``<provider>/<model>``; without one the provider's default (or first)
recording answers, and an unknown one is the provider's 404, listing the
recordings.  It is checked as the provider checks it (:mod:`._checks`):
its own fields (a missing ``max_tokens``, tools in another provider's
shape, a ``stream`` that is not a boolean), its history by the provider's
rules (a message that is not an object, a tool result
without its call, results not where their calls need them), and the
reasoning state the recorded turn it answers must come back with (thinking
blocks and their signatures, reasoning items, ``reasoning_content``); a
request the provider would refuse gets its error, in its shape
(:mod:`._errors`).  A
history that ends with tool results gets the recording's next turn
(``<name>.turn2.<ext>``: the final answer, say), a new prompt its first.  A
request for a stream gets the turn streamed (Gemini's in the framing it asks
for: :mod:`._reframe`); any other, the complete response built from the
same recording (:mod:`._complete`).

A model naming another provider's recording by its key (``"model":
"openai/plan_day"`` on Anthropic's ``/v1/messages``) gets that recording
translated: each turn parsed as its own provider's stream and written as the
endpoint's provider's by its stream writer (:mod:`._translate`), then
checked against and served as a recording of the endpoint's own; so every
provider's SDK reads every recording.  A model naming the endpoint's own
provider's recording, by its name or its key, gets the recorded bytes.

A model of ``"http-429"`` (any status) answers with that status and the
provider's error; ``"html-502"`` with an HTML error page, as a proxy would.
The app needs only anyio; :func:`streamcalls.testing.serve` runs it on a
local port.
"""

from __future__ import annotations

import random
import re
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any

import anyio
import msgspec

from .._errors import UsageError
from ._checks import Rejected, check_fields, check_recorded, conversation_turn, dialect_of
from ._complete import complete_response
from ._errors import Headers, error_response, no_model_message
from ._recordings import Recording, bundled_recordings, event_ends, load_recordings
from ._reframe import gemini_body
from ._routes import ENDPOINTS, Route, route_for
from ._translate import Translations, complete_translation, writable_providers

__all__ = ("Hold", "Recording", "ReplayApp", "bundled_recordings", "load_recordings")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

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
    :param defaults: recording key per provider (``"openai"``, ``"gemini"``,
        ...) for a request without a model; else the provider's first.
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
        self._translations = Translations()

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
        """The recording a request's ``model`` names (None: no such recording): ``provider``'s by its
        name, or any provider's by its key (``"openai/plan_day"``; another provider's is translated
        when the request is answered).

        Without a ``model``: the default for ``provider``, else its first recording.
        """
        if isinstance(model, str):
            found = self.recordings.get(f"{provider}/{model}")
            return self.recordings.get(model) if found is None and "/" in model else found
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
        raw_path = scope.get("raw_path")
        raw = raw_path.decode("latin-1").partition("?")[0].rstrip("/") if raw_path else path
        body = await _read_body(receive)
        route = route_for(raw, scope.get("query_string", b"").decode("latin-1")) if method == "POST" else None
        if route is not None:
            headers = {
                name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]
            }
            await self._answer(route, body, headers, receive, send)
        elif method == "GET" and path.startswith("/replay/"):
            wanted = path.removeprefix("/replay/")
            recording = self._by_name(wanted)
            if recording is None:
                await _error(send, error_response("openai", 404, f"no recording {wanted!r}"))
            else:
                await self._stream(recording, recording.content_type, recording.body, receive, send)
        elif method == "GET" and path == "":
            endpoints = [endpoint for endpoint, _ in ENDPOINTS]
            turns = {key: recording.turns for key, recording in sorted(self.recordings.items())}
            index = {
                "recordings": list(turns),
                "turns": turns,
                "endpoints": endpoints,
                "translates_to": list(writable_providers()),
            }
            await _json(send, 200, index)
        else:
            await _error(send, error_response("openai", 404, f"no route {method} {scope['path']}"))

    def _by_name(self, wanted: str) -> Recording | None:
        match = _TURN_NAME.fullmatch(wanted)
        recording = self.recordings.get(match["key"]) if match else None
        if recording is None or match is None:
            return None
        return recording.maybe_turn(int(match["turn"] or 1))

    async def _answer(
        self, route: Route, body: bytes, headers: Mapping[str, str], receive: Receive, send: Send
    ) -> None:
        provider = route.provider

        async def refuse(status: int, message: str, code: str | None = None) -> None:
            await _error(send, error_response(provider, status, message, code=code), route.json_array)

        async def rejected(problem: Rejected) -> None:
            response = error_response(
                provider,
                problem.status,
                problem.message,
                param=problem.param,
                code=problem.code,
                kind=problem.kind,
                shape=problem.shape,
                violations=problem.violations,
            )
            await _error(send, response, route.json_array)

        try:
            request = msgspec.json.decode(body)
        except msgspec.DecodeError as exc:
            await refuse(400, f"the request body is not JSON: {exc}")
            return
        self.requests.append(request)
        if not isinstance(request, dict):
            await refuse(400, "the request body must be a JSON object")
            return
        model = route.model if route.model is not None else request.get("model")
        simulated = _ERROR_MODEL.fullmatch(model) if isinstance(model, str) else None
        if simulated is not None:
            status = int(simulated.group(2))
            if simulated.group(1) == "html":
                page = f"<html><head><title>{status} Bad Gateway</title></head><body><h1>{status}</h1></body></html>"
                await _respond(send, status, "text/html; charset=utf-8", page.encode())
            else:
                await refuse(status, f"simulated error {status}")
            return
        recording = self.recording_for(provider, model)
        untranslatable = None
        if recording is not None and recording.provider != provider:
            try:
                recording = self._translations.of(recording, provider)
            except UsageError as exc:
                recording, untranslatable = None, str(exc)
        dialect = dialect_of(provider, recording)
        try:
            check_fields(provider, request, headers, dialect)
            turn = conversation_turn(provider, request)
        except Rejected as problem:
            await rejected(problem)
            return
        if untranslatable is not None:
            await refuse(404, untranslatable, code="model_not_found")
            return
        if recording is None:
            names = sorted(r.name for r in self.recordings.values() if r.provider == provider)
            await refuse(404, no_model_message(provider, model, names, route.method), code="model_not_found")
            return
        answer = recording.maybe_turn(turn)
        if answer is None:
            message = (
                f"recording {recording.key!r} has {recording.turns} turn(s), and these messages ask for "
                f"turn {turn} (one more than the model's turns since the last user prompt): record "
                f"it as {recording.name}.turn{turn}.<ext> beside the first"
            )
            await refuse(404, message, code="model_not_found")
            return
        answered = recording.maybe_turn(turn - 1)  # the turn whose calls the request sends back
        try:
            check_recorded(provider, request, recording, answered, dialect)
        except Rejected as problem:
            await rejected(problem)
            return
        if route.streams(request):
            content_type, served = answer.content_type, answer.body
            if provider == "gemini":
                content_type, served = gemini_body(content_type, served, route.json_array)
            await self._stream(answer, content_type, served, receive, send)
            return
        asked = model if isinstance(model, str) else answer.name
        complete = complete_translation(answer, asked) if answer.translated_from is not None else None
        if complete is None:  # the recording's own provider's, or one with no response writer yet
            complete = complete_response(answer, asked)
        if isinstance(complete, tuple):
            await _json(send, *complete)
        else:
            await refuse(500, complete.message, code=complete.code)

    async def _stream(
        self, recording: Recording, content_type: str, body: bytes, receive: Receive, send: Send
    ) -> None:
        """Send ``body`` (``recording``'s, in the framing asked for) in random pieces."""
        hold = self._holds.pop(0) if self._holds else None
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", content_type.encode()),
                    (b"cache-control", b"no-cache"),
                    (b"x-replay-recording", (recording.translated_from or recording).key.encode()),
                    (b"x-replay-turn", str(recording.turn).encode()),
                ],
            }
        )
        split = len(body)
        if hold is not None:
            ends = event_ends(content_type, body)
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


async def _respond(send: Send, status: int, content_type: str, body: bytes, headers: Headers = ()) -> None:
    head = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode()), *headers]
    await send({"type": "http.response.start", "status": status, "headers": head})
    await send({"type": "http.response.body", "body": body, "more_body": False})


async def _json(send: Send, status: int, obj: Any, headers: Headers = ()) -> None:
    await _respond(send, status, "application/json", msgspec.json.encode(obj), headers)


async def _error(send: Send, response: tuple[int, Headers, Any], in_array: bool = False) -> None:
    """A provider's error response; as the one element of a JSON array for Gemini's array stream."""
    status, headers, body = response
    await _json(send, status, [body] if in_array else body, headers)
