"""Framing: a provider's body, as bytes in chunks of any size, cut into records.

A record is what one adapter call takes: an SSE event, an NDJSON line, an
element of a streamed JSON array, an AWS event-stream frame, or a body that
is one whole JSON document or an HTML page.  Here live line splitting (CR,
LF, CRLF), SSE, NDJSON, the streamed JSON array, the event-stream, UTF-8
decoding and the invalid-UTF-8 filter, the leading BOM, the first-byte sniff
(:mod:`._firstbyte`) and :func:`~._make.make_framer`, which picks a framer.

What is framing and what is not, for the modules on the border: a whole
JSON document or an HTML page is cut out here (``_document``), and the text
of an error body is read here (``_error_bodies``: the HTML page framer and the
async front both report it), because neither needs to know a provider.
Turning a complete response into events does (``_nonstream``, in the core),
and so does telling the provider of a stream (``_detect``, in the core).

May import: the core's leaf modules only (events, errors, limits, the
emitter and the call assembler it writes into, the JSON scanner).  Never a
provider, a detector, the parser, or anything that does I/O.
"""
