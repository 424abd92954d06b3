"""Serving an ASGI app on a local port, on asyncio or trio (the ``serve`` extra: hypercorn)."""

from __future__ import annotations

import socket
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import anyio

__all__ = ("current_backend", "serve")


def current_backend() -> str:
    """``"trio"`` or ``"asyncio"``: the async library running the current task."""
    trio = sys.modules.get("trio")
    if trio is not None:
        try:
            trio.lowlevel.current_task()
        except RuntimeError:
            pass
        else:
            return "trio"
    return "asyncio"


@asynccontextmanager
async def serve(
    app: Callable[..., Awaitable[None]],
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    graceful_timeout: float = 0.5,
) -> AsyncIterator[str]:
    """Serve ``app`` with hypercorn in the current event loop; yields its base URL.

    ``port=0`` picks a free port.  The socket is bound and listening before
    the block starts, so requests made at once are queued, never refused.
    Leaving the block shuts the server down (open responses get
    ``graceful_timeout`` seconds).  Works on asyncio and trio.
    """
    try:
        from hypercorn.config import Config
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise RuntimeError("serving needs hypercorn: pip install 'streamcalls[serve]'") from exc

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
        bound_port = sock.getsockname()[1]
    except BaseException:
        sock.close()
        raise
    config = Config()
    config.bind = [f"fd://{sock.detach()}"]  # hypercorn owns the socket from here
    config.graceful_timeout = graceful_timeout
    config.accesslog = None
    config.loglevel = "WARNING"
    if current_backend() == "trio":
        from hypercorn.trio import serve as hypercorn_serve
    else:
        from hypercorn.asyncio import serve as hypercorn_serve  # type: ignore[assignment]
    stop = anyio.Event()
    url_host = f"[{host}]" if family == socket.AF_INET6 else host
    error: Exception | None = None

    async def run() -> None:
        # Shielded: hypercorn stops by its shutdown trigger, never by cancellation
        # (cancelled, its asyncio worker raises InvalidStateError while gathering its
        # connections' tasks).  A cancelled block -- Ctrl+C cancels the main task --
        # still reaches the ``finally`` below, which sets the trigger.
        with anyio.CancelScope(shield=True):
            await hypercorn_serve(app, config, shutdown_trigger=stop.wait)

    async with anyio.create_task_group() as task_group:
        task_group.start_soon(run)
        try:
            yield f"http://{url_host}:{bound_port}"
        except Exception as exc:  # re-raised as it is, not wrapped in an exception group
            error = exc
        finally:
            stop.set()
    if error is not None:
        raise error
