"""streamcalls: tool calls out of LLM provider streams, the moment each completes.

A sans-IO parser: feed it the bytes of a provider's streaming response (SSE,
NDJSON, ...) in chunks of any size, and get canonical events back.

The package follows the pipeline, and a layer imports only the layers below
it (tests/project/test_layering.py holds the one list of layers and checks it):
``framing/`` (bytes to records), ``providers/`` and ``detectors/`` (records
and text to calls), the core at the top level (the events, the call
assembler, the scanner, the parser), ``codec/``, ``aio/`` (the only I/O),
``replay/`` and ``cli/``; the writer (``writing/``: events back into a
wire's bytes) sits beside the core.  This module only re-exports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING as _TYPE_CHECKING

from ._api import parse, parse_iter
from ._errors import (
    MalformedStreamError,
    ProviderFailure,
    StreamError,
    StreamInterrupted,
    StreamStalled,
    ToolCallError,
    UsageError,
)
from ._events import (
    Event,
    ParseError,
    ProviderError,
    ReasoningCompleted,
    ReasoningDelta,
    ReasoningStarted,
    StreamFinished,
    StreamStarted,
    TextDelta,
    TextSignature,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallPatch,
    ToolCallStarted,
    Usage,
)
from ._limits import Limits
from ._models import MODEL_FAMILIES, detectors_for_model
from ._names import ProviderName
from ._parser import ParserState, StreamParser
from ._partial import PartialArguments
from ._results import ToolResult
from ._turn import ReasoningPart, TextPart, Turn, TurnBuilder, accumulate
from ._writer import StreamWriter, TargetName, write_response, write_stream
from .codec import (
    Tool,
    ToolContext,
    augment_system_prompt,
    encode_call,
    encode_result,
    encode_tools,
    encode_turn,
    extract,
)

if _TYPE_CHECKING:
    from .aio._aparse import aparse
    from .aio._httpx import from_httpx, from_httpx_sync
    from .aio._sdk import from_anthropic_stream, from_openai_stream
    from .aio._tools import ToolRun, run_tools

# The async front is imported on first use, so that ``import streamcalls``
# stays sans-IO: no anyio, asyncio or trio until one of these is touched.
_LAZY = {
    "aparse": ".aio._aparse",
    "from_httpx": ".aio._httpx",
    "from_httpx_sync": ".aio._httpx",
    "from_openai_stream": ".aio._sdk",
    "from_anthropic_stream": ".aio._sdk",
    "run_tools": ".aio._tools",
    "ToolRun": ".aio._tools",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__version__ = "0.1.0"
"""The package's version: its one place (pyproject.toml's version is read from here)."""

__all__ = (
    "MODEL_FAMILIES",
    "Event",
    "Limits",
    "MalformedStreamError",
    "ParseError",
    "ParserState",
    "PartialArguments",
    "ProviderError",
    "ProviderFailure",
    "ProviderName",
    "ReasoningCompleted",
    "ReasoningDelta",
    "ReasoningPart",
    "ReasoningStarted",
    "StreamError",
    "StreamFinished",
    "StreamInterrupted",
    "StreamParser",
    "StreamStalled",
    "StreamStarted",
    "StreamWriter",
    "TargetName",
    "TextDelta",
    "TextPart",
    "TextSignature",
    "Tool",
    "ToolCall",
    "ToolCallCompleted",
    "ToolCallDelta",
    "ToolCallError",
    "ToolCallFailed",
    "ToolCallPatch",
    "ToolCallStarted",
    "ToolContext",
    "ToolResult",
    "ToolRun",
    "Turn",
    "TurnBuilder",
    "Usage",
    "UsageError",
    "__version__",
    "accumulate",
    "aparse",
    "augment_system_prompt",
    "detectors_for_model",
    "encode_call",
    "encode_result",
    "encode_tools",
    "encode_turn",
    "extract",
    "from_anthropic_stream",
    "from_httpx",
    "from_httpx_sync",
    "from_openai_stream",
    "parse",
    "parse_iter",
    "run_tools",
    "write_response",
    "write_stream",
)
