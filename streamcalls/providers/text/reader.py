"""A plain text stream: the model's raw output, with no provider framing.

Its bytes are decoded by the text framer (:mod:`streamcalls.framing._text`) and go
to the text channel, where the text detectors look for calls; this adapter
takes the text that comes as a record or an SDK's object.  The end of input
is the end marker.
"""

from __future__ import annotations

from typing import Any

from ..._adapter import Adapter
from ...framing._utf8 import Utf8Decoder

__all__ = ("TextAdapter",)


class TextAdapter(Adapter):
    name = "text"
    title = "the model's text"
    framing = "text"

    __slots__ = ()

    @classmethod
    def recognizes(cls, name: str | None, obj: Any) -> bool:
        # A bare JSON tool call as the first thing in a stream is model text.
        return (
            isinstance(obj, dict)
            and isinstance(obj.get("name"), str)
            and ("arguments" in obj or "parameters" in obj)
        )

    def on_record(self, name: str | None, data: bytes) -> None:
        self.emit.text(Utf8Decoder().decode(data, final=True))

    def on_object(self, obj: Any) -> None:
        if isinstance(obj, str):
            self.emit.text(obj)
        else:
            self.emit.parse_error("a text stream takes str events only", repr(obj)[:200])
