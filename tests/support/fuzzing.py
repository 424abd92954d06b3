"""The fuzz harness: one input -> one parser run, checked.

An input is a header of four bytes or more, and a stream:

- byte 0 picks the provider (``auto`` or a named one),
- byte 1 is a bit set of the first six text detectors; bit 6 reports invalid
  UTF-8 instead of replacing it, bit 7 picks tiny limits,
- byte 2 picks ``native=`` and the chunk size,
- byte 3's bits 0-6 are a bit set of the seven detectors after the first six
  (harmony, kimi, pythonic, qwen3_coder, glm, minimax, dsml; inputs saved
  before they were registered have a 0 there); its bit 7 says that one more
  header byte follows, whose bits 0-6 are the next seven detectors and whose
  bit 7 says the same again -- so every set of every registered detector is
  one header, and the inputs saved before a detector was added keep their
  meaning.

``fuzz_one`` feeds the stream in those chunks and checks what every input
must give, however hostile: the same events on the native path as on the
pure-Python one (where the native path is built; see streamcalls/_native),
no exception from ``feed``/``close``, the call
event protocol (see ``support.check_protocol``), an idempotent ``close``,
``feed`` after ``close`` raising ``UsageError``, the same events (up to
how deltas are split) as feeding the stream whole, the same accumulated
turn, which ``encode_turn`` writes back for its own provider and another
without an exception, and -- for whatever text
reached the text channel, under any provider -- rule 8: no character of it
lost, the reasoning the channel gave counted as kept
(see ``conservation.check_conservation``).  The chunked run also has
``partial_arguments=True``: its patches follow the rules
(``partial_rules.check_patches``), and without them its events are the whole
run's, which has no patches.  Then the chunked run's events are written by
one of the registered writer targets (``writer_target``: a hash of the
input picks it) and read back: no exception; a provider's target is read by
the parser as that provider's stream, and where the input parsed with no
parse error, provider error or failed call, the round trip holds
(``writer_roundtrip.compare``); a chat UI target's bytes are read by its
reference reader (``ui_streams``), which reads the events back on such an
input.  ``fuzz/run.py`` drives it
with atheris; ``tests/corpus/test_fuzz.py`` with hypothesis and the regression inputs.
"""

from __future__ import annotations

import itertools
import time
import uuid
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import msgspec

import streamcalls
from streamcalls import (
    Limits,
    ParseError,
    ProviderError,
    ReasoningDelta,
    StreamParser,
    ToolCallFailed,
    ToolCallStarted,
    UsageError,
)
from streamcalls import _native as native_path
from streamcalls.codec import CODEC_PROVIDERS, CodecProviderName
from streamcalls.providers import PROVIDERS as READABLE
from streamcalls.writing import TARGETS
from tests.support import DATA, check_protocol, corpus, counter_ids, normalize
from tests.support.conservation import FRAMED, check_conservation
from tests.support.partial_rules import check_patches, without_patches
from tests.support.ui_streams import Read, expected, read_ag_ui, read_ai_sdk
from tests.support.writer_roundtrip import closed, compare, explicit_blocks, read_back, with_wire_ids

PROVIDERS = (
    "auto",
    "openai",
    "openai-responses",
    "anthropic",
    "ollama",
    "gemini",
    "bedrock",
    "cohere",
    "text",
    "bedrock-invoke",  # last: a header's first byte keeps naming the providers before it
)
# Every registered detector, in the registry's order (streamcalls/detectors/formats FORMATS), which
# is the header's bit order: new detectors are appended there, so that saved inputs keep their meaning.
DETECTORS = tuple(streamcalls.detectors.DETECTORS)
# The detectors whose tags frame the model's text (reasoning, an answer's tags): tests/support/conservation.py
# lets those tags vanish while one of them is on.
# Every detector but those that read the text from its first character (think_prompted reads
# the whole text as reasoning until its closing tag).
EVERY = tuple(name for name in DETECTORS if not streamcalls.detectors.DETECTORS[name].opens_text)
HEADER = 4  # bytes, at least
NATIVE = (None, True, False)
TINY = Limits(
    max_line_bytes=512,
    max_event_bytes=1024,
    max_arguments_bytes=256,
    max_buffered_bytes=384,
    max_json_depth=8,
    max_calls=4,
    max_detect_bytes=256,
)


MORE = 0x80  # in byte 3 and after: one more header byte follows
_EXTRA = -(-(len(DETECTORS) - 6) // 7)  # header bytes for the detectors after the first six


def header(provider: str, *, detect: tuple[str, ...] = ("fence", "json"), tiny: bool = False) -> bytes:
    """The header bytes that select these options (for seeds and regressions)."""
    bits = sum(1 << DETECTORS.index(name) for name in detect)
    rest = bits >> 6
    extra = [rest >> shift & 0x7F for shift in range(0, 7 * _EXTRA, 7)]
    while len(extra) > 1 and not extra[-1]:
        extra.pop()
    extra = [byte | MORE for byte in extra[:-1]] + extra[-1:]
    return bytes([PROVIDERS.index(provider), bits & 0x3F | (0x80 if tiny else 0), 7 << 2, *extra])


def header_size(data: bytes) -> int:
    """How many bytes of ``data`` are its header (at least four)."""
    size = HEADER
    while size - HEADER < _EXTRA - 1 and size < len(data) and data[size - 1] & MORE:
        size += 1
    return size


def detectors(data: bytes) -> tuple[str, ...]:
    """The detectors an input's header turns on."""
    bits = data[1] & 0x3F
    for number, byte in enumerate(data[HEADER - 1 : header_size(data)]):
        bits |= (byte & 0x7F) << (6 + 7 * number)
    return tuple(name for bit, name in enumerate(DETECTORS) if bits >> bit & 1)


class TextTap:
    """What a parser's text channel was given, and the indices of the calls it found there.

    It wraps the two entry points every adapter writes text through
    (``emit.text`` and ``emit.text_end``), so it sees the channel's input
    under any provider; a call is the channel's when its ``ToolCallStarted``
    is emitted from inside one of them.
    """

    def __init__(self, parser: StreamParser) -> None:
        emit = parser._emit
        self._assembler = emit  # (the emitter is the call assembler)
        out = emit.out
        push, end = emit.text, emit.text_end
        self.pieces: list[str] = []
        self.calls: set[int] = set()
        self.reasoning: set[int] = set()  # id() of each ReasoningDelta the channel gave

        def tapped_push(text: str) -> None:
            start = len(out)
            self.pieces.append(text)
            push(text)
            self._note(out[start:])

        def tapped_end() -> None:
            start = len(out)
            end()
            self._note(out[start:])

        emit.text = tapped_push
        emit.text_end = tapped_end

    def _note(self, events: list[streamcalls.Event]) -> None:
        self.calls.update(e.index for e in events if type(e) is ToolCallStarted)
        self.reasoning.update(id(e) for e in events if type(e) is ReasoningDelta)

    @property
    def text(self) -> str:
        return "".join(self.pieces)

    @property
    def copies(self) -> int:
        """How many calls were dropped as copies of a call of the other kind (see streamcalls._copies)."""
        return self._assembler.copies


def run(
    stream: bytes, chunk: int, provider: str, **options: object
) -> tuple[list[streamcalls.Event], TextTap]:
    parser = StreamParser(provider, id_factory=counter_ids(), **options)  # type: ignore[arg-type]
    tap = TextTap(parser)
    events: list[streamcalls.Event] = []
    for start in range(0, len(stream), chunk):
        events += parser.feed(stream[start : start + chunk])
    events += parser.close()
    assert parser.close() == [], "close() must be idempotent"
    try:
        parser.feed(b"x")
    except UsageError:
        pass
    else:
        raise AssertionError("feed() after close() must raise UsageError")
    return events, tap


UI_READERS: dict[str, Callable[[bytes], Read]] = {"ai-sdk": read_ai_sdk, "ag-ui": read_ag_ui}
"""The chat UI targets' reference readers (the parser reads the provider targets)."""


def writer_target(data: bytes) -> str:
    """The target an input's events are written as: every registered target, drawn by a hash of the
    input (every header bit is taken; a target registered later joins the draw)."""
    names = tuple(TARGETS)
    return names[zlib.crc32(data) % len(names)]


@contextmanager
def fixed_ids_and_clock() -> Iterator[None]:
    """While it lasts, ``uuid.uuid4`` counts 1, 2, 3, ... and ``time.time`` stands still: what a writer
    makes up (the ids, the times) is the same for the same input.  (atheris feeds the strings the
    reader compares back into its mutations: random ids would make the gate's inputs differ.)"""
    numbers = itertools.count(1)

    def uuid4() -> uuid.UUID:
        return uuid.UUID(int=next(numbers) << 64)  # (in the digits an id keeps: the first 24)

    def now() -> float:
        return 1_757_000_000.25

    saved = uuid.uuid4, time.time
    uuid.uuid4, time.time = uuid4, now
    try:
        yield
    finally:
        uuid.uuid4, time.time = saved


def check_writer(events: list[streamcalls.Event], target: str) -> None:
    """Write a parser's events as ``target``'s stream and read it back (see the module's docstring)."""
    with fixed_ids_and_clock():
        body = streamcalls.write_stream(events, target)  # type: ignore[arg-type]
    written = without_patches(events)  # (a writer ignores patches)
    clean = not any(isinstance(event, (ParseError, ProviderError, ToolCallFailed)) for event in events)
    if target in READABLE:
        back = read_back(body, target)
        check_protocol(back)
        if clean:
            compare(with_wire_ids(explicit_blocks(closed(written))), back, TARGETS[target])
    elif target in UI_READERS:
        read = UI_READERS[target](body)
        if clean:
            assert read == expected(list(written), target), f"{target}: read back differs"


def encoded(events: list[streamcalls.Event]) -> list[bytes]:
    """Events as msgspec writes them: what "the same events" means between the two paths."""
    return [msgspec.json.encode(event) for event in events]


def fuzz_one(data: bytes, *, writer: str | None = None) -> None:
    """Run one input through the checks; ``writer`` names the writer target (by default
    ``writer_target(data)``)."""
    if len(data) < HEADER:
        return
    provider = PROVIDERS[data[0] % len(PROVIDERS)]
    detect = detectors(data)
    limits = TINY if data[1] & 0x80 else None
    native = NATIVE[data[2] % 3]
    chunk = 1 + (data[2] >> 2) % 61
    stream = data[header_size(data) :]
    invalid_utf8 = "report" if data[1] & 0x40 else "replace"
    options = {"detect": detect, "native": native, "limits": limits, "invalid_utf8": invalid_utf8}
    chunked, tap = run(stream, chunk, provider, partial_arguments=True, **options)
    if native_path.active():  # the same input on the pure path, the reference: the very same events
        with native_path.pure_python():
            pure, _ = run(stream, chunk, provider, partial_arguments=True, **options)
        assert encoded(chunked) == encoded(pure), "the native path's events differ from the pure path's"
    check_protocol(chunked)
    check_patches(chunked, sparse=True)
    think = any(name in FRAMED for name in detect)
    if not tap.copies:  # a text call dropped as a copy of a native one leaves no event where its markup was
        check_conservation(
            tap.text, chunked, tap.calls, reasoning=tap.reasoning, harmony="harmony" in detect, think=think
        )
    whole, _ = run(stream, max(1, len(stream)), provider, **options)
    assert normalize(without_patches(chunked)) == normalize(whole), "chunking changed the events"
    turn = streamcalls.accumulate(chunked)
    assert turn == streamcalls.accumulate(whole), "chunking changed the turn"
    # A turn is written back in its stream's wire format; one the codec has none for (a Llama
    # stream on Bedrock's InvokeModel: "bedrock-invoke") in OpenAI's.
    target: CodecProviderName = turn.provider if turn.provider in CODEC_PROVIDERS else "openai"
    streamcalls.encode_turn(turn, target, [])  # any turn can be written back, for its own provider
    streamcalls.encode_turn(turn, "anthropic" if target != "anthropic" else "mistral", [])  # and another
    check_writer(chunked, writer or writer_target(data))


def seeds() -> list[bytes]:
    """Every recorded stream, with the header of its own provider (and detectors) and of auto."""
    found = []
    for case in corpus():
        data = case.data()
        detect = tuple(case.options().get("detect", ("fence", "json")))
        found.append(header(case.provider, detect=detect) + data)
        found.append(header("auto", detect=EVERY, tiny=True) + data)
    assert DATA.exists()
    return found
