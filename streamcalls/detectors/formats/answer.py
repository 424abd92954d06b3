"""The tags some families write around the answer that follows their reasoning (``"answer"``).

::

    <think>...</think><response>Hello!</response>             Granite 3.3, ERNIE-4.5 Thinking
    <think>...</think>
    <answer>
    <tool_calls>[{"name": "f", "arguments": {...}}]</tool_calls>
    </answer>                                                  Hunyuan-A13B

The four tags are framing (:attr:`~streamcalls.detectors._engine.detector.Detector.framing`):
the channel drops each one where it stands.  What they hold is the answer, text like any other
and searched for calls (Hunyuan writes its ``<tool_calls>`` inside ``<answer>``); the line ends
around the tags stay text.  A family that writes them turns this on beside its reasoning
(``think``); alone it would also drop these tags where a model quotes them in prose.
"""

from __future__ import annotations

from enum import IntEnum

from .._engine.detector import Detector
from .._engine.machine import Status

__all__ = ("AnswerDetector",)


class AnswerDetector(Detector):
    class State(IntEnum):
        IDLE = 0  # never entered: framing tokens are all it has, and the channel drops them

    name = "answer"
    framing = ("<response>", "</response>", "<answer>", "</answer>")

    __slots__ = ()

    def _idle(self, text: str, pos: int) -> int:  # pragma: no cover - no trigger starts a region
        return self.stop(pos)

    def begin(self, trigger: str) -> None:  # pragma: no cover - no trigger starts a region
        self.start(AnswerDetector.State.IDLE)

    def finish(self, rest: str) -> str:  # pragma: no cover - no trigger starts a region
        self.status = Status.DONE
        return rest
