"""The native fast path's C module (streamcalls/_native/_speedups.c): its Python surface."""

from typing import Any

from ..framing._records import RecordFramer, RecordSink

LIMITED_API: int
"""1 when built against the stable ABI (abi3), which reads the parser's objects by name."""
ANTHROPIC_BLOCK_KINDS: tuple[int, int, int]
"""The Anthropic adapter's block kinds as the C reader knows them: text, thinking, ignored."""

def configure(given: dict[str, Any], /) -> None: ...
def counts() -> tuple[int, int]: ...
def install_feed(parser_class: type[Any], /) -> None: ...
def install_send(order_class: type[Any], given: dict[str, Any], /) -> None: ...
def written() -> int: ...
def install_turn_add(
    builder_class: type[Any],
    block_class: type[Any],
    text_delta: type[Any],
    call_delta: type[Any],
    reasoning_delta: type[Any],
    /,
) -> None: ...
def next_candidate(text: str, pos: int, lead: str, nexts: str | None, prevs: str, /) -> int: ...

# (next_candidate is not built under the stable ABI: streamcalls.detectors._engine.occurrences
# looks it up with getattr)

class SSEFramer:
    sink: RecordSink
    last_event_id: str
    def __init__(self, sink: RecordSink, max_line_bytes: int, max_event_bytes: int) -> None: ...
    def feed(self, data: bytes, /) -> RecordFramer | None: ...
    def close(self) -> None: ...
