"""A small AWS event-stream *encoder*, for building Bedrock test fixtures.

The library only decodes; this is the test side, written from the format's
description so the fixtures do not depend on the code under test.  One
message, all integers big-endian::

    total length (u32) | headers length (u32) | CRC-32 of those 8 bytes (u32)
    headers | payload | CRC-32 of every byte before it (u32)

One header: name length (u8), name, value type (u8), value.  Value types:
0 true / 1 false (no value), 2 byte, 3 short, 4 int, 5 long, 6 bytes and
7 string (u16 length first), 8 timestamp (i64 ms), 9 UUID (16 bytes).

``tests/data/bedrock/NAME.frames.jsonl`` is the readable source of
``NAME.bin``: one JSON object per message --

- ``{"event": TYPE, "payload": {...}}``: an event message;
- ``{"exception": TYPE, "payload": {...}}``: an exception message;
- ``{"error": CODE, "message": TEXT}``: an error message (headers only);
- ``{"chunk": {...}}``: an ``InvokeModelWithResponseStream`` ``chunk`` event whose payload is
  ``{"bytes": BASE64}``, the base64 of the object's JSON (``"chunk_bytes": TEXT`` instead: of
  that text as it is, for bytes that are not JSON; ``"padding": P`` adds a ``p`` field beside);

each optionally with ``"headers": [[name, type, value], ...]`` (extra
headers), ``"corrupt": "message-crc" | "prelude-crc"`` (flip a CRC bit) or
``"cut": N`` (keep only the message's first N bytes: a truncated stream).

``python -m tests.support.eventstream`` rebuilds every ``.bin`` from its source (``tests/data/bedrock/``
and ``tests/data/bedrock-invoke/``), the
replay server's bundled Bedrock conversations (``streamcalls/replay/demo_streams/
bedrock_*.frames.jsonl``) included.
"""

from __future__ import annotations

import base64
import struct
import uuid
import zlib
from pathlib import Path
from typing import Any

import msgspec

BEDROCK = Path(__file__).parent.parent / "data" / "bedrock"
BEDROCK_INVOKE = Path(__file__).parent.parent / "data" / "bedrock-invoke"
BUNDLED = Path(__file__).parent.parent.parent / "streamcalls" / "replay" / "demo_streams"

# Value type -> struct format of a fixed-size value.
_FIXED = {2: ">b", 3: ">h", 4: ">i", 5: ">q", 8: ">q"}


def header(name: str, kind: int, value: Any) -> bytes:
    """One encoded header."""
    raw_name = name.encode()
    out = struct.pack(">B", len(raw_name)) + raw_name + struct.pack(">B", kind)
    if kind in (0, 1):  # booleans carry no value: the type says which
        return out
    if kind in _FIXED:
        return out + struct.pack(_FIXED[kind], value)
    if kind in (6, 7):
        raw = value.encode() if isinstance(value, str) else bytes(value)
        return out + struct.pack(">H", len(raw)) + raw
    if kind == 9:
        return out + uuid.UUID(value).bytes
    raise ValueError(f"unknown header type {kind}")


def message(headers: list[tuple[str, int, Any]], payload: bytes, corrupt: str | None = None) -> bytes:
    """One encoded message; ``corrupt`` breaks its "prelude-crc" or "message-crc"."""
    head = b"".join(header(*h) for h in headers)
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    prelude_crc = zlib.crc32(prelude)
    if corrupt == "prelude-crc":
        prelude_crc ^= 1
    body = prelude + struct.pack(">I", prelude_crc) + head + payload
    message_crc = zlib.crc32(body)
    if corrupt == "message-crc":
        message_crc ^= 1
    return body + struct.pack(">I", message_crc)


def frame(spec: dict[str, Any]) -> bytes:
    """The message a fixture source line describes."""
    headers: list[tuple[str, int, Any]]
    payload = b""
    if "chunk" in spec or "chunk_bytes" in spec:
        raw = spec["chunk_bytes"].encode() if "chunk_bytes" in spec else msgspec.json.encode(spec["chunk"])
        part: dict[str, Any] = {"bytes": base64.b64encode(raw).decode("ascii")}
        if "padding" in spec:
            part["p"] = spec["padding"]
        spec = {**spec, "event": "chunk", "payload": part}
    if "event" in spec:
        headers = [(":event-type", 7, spec["event"]), (":content-type", 7, "application/json")]
        headers.append((":message-type", 7, "event"))
        payload = msgspec.json.encode(spec["payload"])
    elif "exception" in spec:
        headers = [(":exception-type", 7, spec["exception"]), (":content-type", 7, "application/json")]
        headers.append((":message-type", 7, "exception"))
        payload = msgspec.json.encode(spec["payload"])
    else:
        headers = [(":error-code", 7, spec["error"]), (":error-message", 7, spec["message"])]
        headers.append((":message-type", 7, "error"))
    headers += [(name, kind, value) for name, kind, value in spec.get("headers", ())]
    data = message(headers, payload, spec.get("corrupt"))
    return data[: spec["cut"]] if "cut" in spec else data


def build(source: Path) -> bytes:
    """The bytes of a whole fixture from its ``.frames.jsonl`` source."""
    lines = source.read_bytes().splitlines()
    return b"".join(frame(msgspec.json.decode(line)) for line in lines if line.strip())


def sources(folder: Path = BEDROCK) -> list[Path]:
    return sorted(folder.glob("*.frames.jsonl"))


def main() -> None:
    for source in [*sources(), *sources(BEDROCK_INVOKE), *sorted(BUNDLED.glob("bedrock_*.frames.jsonl"))]:
        target = source.with_name(source.name.replace(".frames.jsonl", ".bin"))
        target.write_bytes(build(source))
        print("wrote", target)


if __name__ == "__main__":
    main()
