"""A local replay server of recorded provider streams, for tests and demos.

::

    from streamcalls.testing import ReplayApp, bundled_recordings, serve

    async with serve(ReplayApp(bundled_recordings(), max_delay=0.01)) as url:
        ...  # POST f"{url}/v1/chat/completions" with "stream": true

``ReplayApp`` is a plain ASGI app (it needs anyio); ``serve`` runs it with
hypercorn (the ``serve`` extra) on asyncio or trio.  ``streamcalls serve``
runs it from the command line.
"""

from __future__ import annotations

from .replay._app import Hold, Recording, ReplayApp, bundled_recordings, load_recordings
from .replay._serve import serve

__all__ = ("Hold", "Recording", "ReplayApp", "bundled_recordings", "load_recordings", "serve")
