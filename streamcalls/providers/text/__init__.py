"""Plain text: a model's raw output, which only the text detectors read.

- :mod:`.reader`: the adapter (UTF-8 text, as it comes);
- :mod:`.complete`: a whole text as a complete response.

:data:`PROVIDER` is its entry in the registry (:mod:`streamcalls.providers`).
"""

from __future__ import annotations

from .._registry import Provider
from .complete import read_text
from .reader import TextAdapter

__all__ = ("PROVIDER",)

PROVIDER = Provider("text", TextAdapter, read_text, nicknames={"plain": "text"})
