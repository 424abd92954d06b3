"""streamcalls: tool calls out of LLM provider streams, the moment each completes.

A sans-IO parser: feed it the bytes of a provider's streaming response (SSE,
NDJSON, ...) in chunks of any size, and get canonical events back.
"""

from __future__ import annotations

from ._api import parse, parse_iter
from ._errors import MalformedStreamError, StreamError, ToolCallError, UsageError
from ._events import (
    Event,
    ParseError,
    ProviderError,
    ReasoningDelta,
    StreamFinished,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallStarted,
    Usage,
)
from ._limits import Limits
from ._parser import ParserState, StreamParser

__version__ = "0.1.0"

__all__ = (
    "Event",
    "Limits",
    "MalformedStreamError",
    "ParseError",
    "ParserState",
    "ProviderError",
    "ReasoningDelta",
    "StreamError",
    "StreamFinished",
    "StreamParser",
    "TextDelta",
    "ToolCall",
    "ToolCallCompleted",
    "ToolCallDelta",
    "ToolCallError",
    "ToolCallFailed",
    "ToolCallStarted",
    "Usage",
    "UsageError",
    "__version__",
    "parse",
    "parse_iter",
)
