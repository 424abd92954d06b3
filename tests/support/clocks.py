"""Virtual clocks for the time-limit tests, on asyncio and on trio: time passes only when nothing can run.

A test that waits for a time limit runs in no real time at all, and whatever
the machine's load, the same events happen in the same order: there is no
timing to be flaky.  trio has this built in (``MockClock(autojump_threshold=0)``);
:class:`VirtualTimeLoop` does the same for asyncio: its ``time()`` is a
counter, and when no callback is ready it jumps to the next timer instead of
waiting for it.  Only for tests whose every wait is a timer or another task
(no sockets, no threads): a socket's data would arrive "late".

:func:`virtual_backend` gives the ``anyio_backend`` that runs a test on either.
"""

from __future__ import annotations

import asyncio
import selectors
from typing import Any

import trio.testing

__all__ = ("VirtualTimeLoop", "virtual_backend")


class _JumpingSelector:
    """A selector that, with nothing ready, advances the loop's clock by the timeout instead of sleeping."""

    def __init__(self, selector: selectors.BaseSelector, loop: VirtualTimeLoop) -> None:
        self._selector = selector
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = self._selector.select(0)
        if ready or timeout == 0:
            return ready
        if timeout is None:  # no timer at all: only I/O could wake the loop
            return self._selector.select(None)
        self._loop.now += timeout
        return []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._selector, name)


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An asyncio loop whose clock moves only when every task waits on a timer."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0
        selector: selectors.BaseSelector = self._selector  # type: ignore[has-type]
        self._selector = _JumpingSelector(selector, self)

    def time(self) -> float:
        return self.now


def virtual_backend(name: str) -> tuple[str, dict[str, Any]]:
    """The ``anyio_backend`` value for ``"asyncio"`` or ``"trio"`` on a virtual clock of its own."""
    if name == "asyncio":
        return ("asyncio", {"loop_factory": VirtualTimeLoop})
    return ("trio", {"clock": trio.testing.MockClock(autojump_threshold=0)})
