"""Plain text as a complete response: the whole of it is the model's text.

See :mod:`streamcalls._readers` for what a reader returns.
"""

from __future__ import annotations

from typing import Any

from ..._found import Found

__all__ = ("read_text",)


def read_text(obj: Any) -> Found:
    found = Found()
    found.text(obj)
    return found.done()
