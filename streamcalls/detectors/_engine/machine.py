"""The one state machine every detector and every part that reads markup is built on.

A :class:`Machine` reads text that arrives in pieces.  It declares its states as an
:class:`~enum.IntEnum` named ``State`` and one *step* per state: the method named after the
state, lower-cased, with a leading underscore (``State.ARGUMENTS`` is read by
``_arguments``).  The steps are bound when the class is made, so a state without its step is
an error at import, not at the first odd input.  Several states may share one step by naming
it twice (``_open = _key_start = _structure``).

:meth:`Machine.feed` is the one loop: it runs the current state's step from ``pos`` until the
text ends, the machine stops (its ``status`` is no longer ACTIVE), or a step neither moved nor
changed the state -- it waits for more text (a token split across chunks).  A step consumes
what its state can and returns where it stopped; it may change ``_state`` and ``status``.

``status`` is one :class:`Status` for everything the engine runs: ACTIVE while it reads, then
how it ended.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from typing import Any, ClassVar, TypeVar, cast

__all__ = ("Machine", "Status", "fast")

E = TypeVar("E", bound=IntEnum)


class Status(IntEnum):
    """How far a machine got."""

    ACTIVE = 0  # still reading
    DONE = 1  # it ended well (a detector: its markup ended; the text resumes where it stopped)
    REJECTED = 2  # a candidate that was no markup after all: its text is prose
    INVALID = 3  # malformed markup; it stopped at the offending character
    FAILED = 4  # it read on to its end after a failure (a Python call to its ")")
    BROKEN = 5  # a closer that closes nothing stopped it (not consumed)


def fast(states: type[E]) -> type[E]:
    """The members of ``states``, as plain attributes of a class without a metaclass.

    The same members, looked up about three times faster: a lookup on an Enum class goes
    through its metaclass's attribute hook, and steps look states up on every transition.
    Each module binds its machine's states this way (``_S = fast(KimiDetector.State)``); to
    the type checker it is the enum itself.
    """
    return cast("type[E]", type(states.__name__, (), dict(states.__members__)))


ACTIVE = Status.ACTIVE

Step = Callable[[Any, str, int], int]


class Machine:
    """A resumable reader of text: an IntEnum of states, one step each (see the module docstring)."""

    __slots__ = ("_state", "status")

    State: ClassVar[type[IntEnum]]
    steps: ClassVar[tuple[Step, ...]] = ()

    _state: IntEnum
    status: Status

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        states = cls.__dict__.get("State")
        if states is None:
            return
        if [int(state) for state in states] != list(range(len(states))):
            raise TypeError(f"{cls.__name__}.State must number its states 0, 1, 2, ...")
        steps = []
        for state in states:
            step = getattr(cls, "_" + state.name.lower(), None)
            if not callable(step):
                raise TypeError(f"{cls.__name__} has no step _{state.name.lower()} for {state!r}")
            steps.append(step)
        cls.steps = tuple(steps)

    @property
    def active(self) -> bool:
        """Is it still reading?"""
        return self.status is ACTIVE

    def feed(self, text: str, pos: int) -> int:
        """Consume ``text`` from ``pos``; return where it stopped."""
        end = len(text)
        steps = self.steps
        while pos < end and self.status is ACTIVE:
            state = self._state
            stop = steps[state](self, text, pos)
            if stop == pos and self._state is state and self.status is ACTIVE:
                break  # wait for more text
            pos = stop
        return pos
