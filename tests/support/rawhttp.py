"""A bare HTTP/1.1 server on a local ephemeral port, for responses no well-behaved server sends.

The replay server speaks HTTP properly; the fault tests need a connection
that drops in the middle of a chunked body, a stream that sends only
keep-alives for ever, a 429 with a ``Retry-After`` header.  Each connection
gets one request; ``respond`` writes the raw response with the helpers
below and returns; the connection is then closed -- abruptly, if the body
was not finished, which is what a dropped connection looks like to httpx.
Runs on asyncio and trio.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from contextlib import asynccontextmanager

import anyio
from anyio.abc import SocketAttribute, SocketStream

__all__ = ("Connection", "chunk", "head", "raw_server")

MAX_HEAD = 64 * 1024


class Connection:
    """One accepted connection: the request it carried, and the socket to answer on."""

    def __init__(self, stream: SocketStream, request_head: bytes, body: bytes) -> None:
        self.stream = stream
        self.request_head = request_head
        self.body = body

    async def send(self, *parts: bytes) -> None:
        for part in parts:
            await self.stream.send(part)


def head(status: int = 200, reason: str = "OK", headers: Iterable[tuple[str, str]] = ()) -> bytes:
    """A response head with a chunked body (``content-type`` given in ``headers``)."""
    lines = [f"HTTP/1.1 {status} {reason}", "transfer-encoding: chunked", "connection: close"]
    lines += [f"{name}: {value}" for name, value in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def chunk(data: bytes) -> bytes:
    """One chunk of a chunked body (``b""`` is the last one, which ends the body)."""
    return b"%x\r\n" % len(data) + data + b"\r\n"


async def _read_request(stream: SocketStream) -> tuple[bytes, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        data += await stream.receive()
        if len(data) > MAX_HEAD:
            raise ValueError("request head too long")
    request_head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in request_head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        body += await stream.receive()
    return request_head, body


@asynccontextmanager
async def raw_server(respond: Callable[[Connection], Awaitable[None]]) -> AsyncIterator[str]:
    """Serve ``respond`` on 127.0.0.1; yields the base URL (``http://127.0.0.1:<port>``)."""
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(SocketAttribute.local_port)

    async def handle(stream: SocketStream) -> None:
        async with stream:
            try:
                request_head, body = await _read_request(stream)
                await respond(Connection(stream, request_head, body))
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream):
                pass  # the client went away

    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, handle)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            group.cancel_scope.cancel()
