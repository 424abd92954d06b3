"""A recorded Gemini stream in the framing its request asks for.

Gemini sends the same chunks (``GenerateContentResponse`` objects) two ways:
with ``?alt=sse``, each as an SSE ``data:`` event; without it, one JSON
array sent element by element, each element pretty-printed and the
separators on lines of their own (``[{...}\\n,\\r\\n{...}\\n]``).  A recording
in either framing is served in the other by re-framing its chunks, byte for
byte inside each chunk's JSON; a body that is neither (an error object, a
cut-off array) is served as it is.
"""

from __future__ import annotations

import msgspec

from ._recorded import sse_payloads
from ._recordings import CONTENT_TYPES

__all__ = ("gemini_body",)

SSE = CONTENT_TYPES[".sse"]
JSON = CONTENT_TYPES[".json"]

_Chunks = msgspec.json.Decoder(list[msgspec.Raw])


def gemini_body(content_type: str, body: bytes, json_array: bool) -> tuple[str, bytes]:
    """A Gemini recording's ``(content_type, body)`` as SSE, or as the JSON array if ``json_array``."""
    is_sse = content_type.startswith("text/event-stream")
    if is_sse != json_array:
        return content_type, body
    try:
        if json_array:
            chunks = [msgspec.json.format(chunk, indent=2) for chunk in sse_payloads(body)]
            return JSON, b"[" + b"\n,\r\n".join(chunks) + b"\n]"
        elements = _Chunks.decode(body)
        return SSE, b"".join(
            b"data: " + msgspec.json.format(bytes(e), indent=0) + b"\r\n\r\n" for e in elements
        )
    except msgspec.DecodeError:  # not a stream of chunks: as it is
        return content_type, body
