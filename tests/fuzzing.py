"""The fuzz harness: one input -> one parser run, checked.

An input is three header bytes and a stream:

- byte 0 picks the provider (``auto`` or a named one),
- byte 1 is a bit set of text detectors; bit 6 reports invalid UTF-8 instead
  of replacing it, bit 7 picks tiny limits,
- byte 2 picks ``native=`` and the chunk size.

``fuzz_one`` feeds the stream in those chunks and checks what every input
must give, however hostile: no exception from ``feed``/``close``, the call
event protocol (see ``support.check_protocol``), an idempotent ``close``,
``feed`` after ``close`` raising ``UsageError``, and the same events (up to
how deltas are split) as feeding the stream whole.  The chunked run also has
``partial_arguments=True``: its patches follow the rules
(``partial_rules.check_patches``), and without them its events are the whole
run's, which has no patches.  ``fuzz/run.py`` drives it
with atheris; ``tests/test_fuzz.py`` with hypothesis and the regression inputs.
"""

from __future__ import annotations

import streamcalls
from streamcalls import Limits, StreamParser, UsageError
from tests.partial_rules import check_patches, without_patches
from tests.support import DATA, check_protocol, corpus, counter_ids, normalize

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
)
DETECTORS = ("fence", "json", "hermes", "mistral", "llama", "deepseek")
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


def header(provider: str, *, detect: tuple[str, ...] = ("fence", "json"), tiny: bool = False) -> bytes:
    """The header bytes that select these options (for seeds and regressions)."""
    bits = sum(1 << DETECTORS.index(name) for name in detect) | (0x80 if tiny else 0)
    return bytes([PROVIDERS.index(provider), bits, 7 << 2])


def run(stream: bytes, chunk: int, provider: str, **options: object) -> list[streamcalls.Event]:
    parser = StreamParser(provider, id_factory=counter_ids(), **options)  # type: ignore[arg-type]
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
    return events


def fuzz_one(data: bytes) -> None:
    if len(data) < 3:
        return
    provider = PROVIDERS[data[0] % len(PROVIDERS)]
    detect = tuple(name for bit, name in enumerate(DETECTORS) if data[1] >> bit & 1)
    limits = TINY if data[1] & 0x80 else None
    native = NATIVE[data[2] % 3]
    chunk = 1 + (data[2] >> 2) % 61
    stream = data[3:]
    invalid_utf8 = "report" if data[1] & 0x40 else "replace"
    options = {"detect": detect, "native": native, "limits": limits, "invalid_utf8": invalid_utf8}
    chunked = run(stream, chunk, provider, partial_arguments=True, **options)
    check_protocol(chunked)
    check_patches(chunked, sparse=True)
    whole = run(stream, max(1, len(stream)), provider, **options)
    assert normalize(without_patches(chunked)) == normalize(whole), "chunking changed the events"


def seeds() -> list[bytes]:
    """Every recorded stream, with the header of its own provider and of auto."""
    found = []
    for case in corpus():
        data = case.data()
        found.append(header(case.provider) + data)
        found.append(header("auto", detect=DETECTORS, tiny=True) + data)
    assert DATA.exists()
    return found
