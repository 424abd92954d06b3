"""Google Gemini (the Gemini API and Vertex AI): everything its wire knows.

- :mod:`.reader` (with :mod:`.partial_args`, Vertex's streamed arguments):
  the stream adapter (``GenerateContentResponse`` chunks);
- :mod:`.complete`: the complete ``GenerateContentResponse``;
- :mod:`.encoding`: tools, calls, results and a turn (thought signatures kept);
- :mod:`.errors`: its error responses (``google.rpc.Status``);
- :mod:`.writer`: the ``"gemini"`` target of the stream writer (registered on import);
  :mod:`.response`: its complete response for a turn (``write_response``);
- :mod:`.request_rules`, :mod:`.history_rules`, :mod:`.signature_rules`:
  what the API refuses in a request.

:data:`PROVIDER` is its entry in the registry (:mod:`streamcalls.providers`).
"""

from __future__ import annotations

from .._registry import Encoding, Errors, Provider, Rules
from . import complete, encoding, errors, response
from . import writer as writer  # the "gemini" target registers itself
from .history_rules import gemini_turn
from .reader import GeminiAdapter
from .request_rules import gemini_request
from .signature_rules import check_signatures

__all__ = ("PROVIDER",)

PROVIDER = Provider(
    "gemini",
    GeminiAdapter,
    complete.read_gemini,
    complete.stream_end,
    Encoding(
        encoding.encode_tools, encoding.encode_calls, encoding.encode_results, encoding.encode_assistant
    ),
    Errors(errors.error_body, errors.no_model),
    Rules(gemini_request, gemini_turn, answered=check_signatures),
    nicknames={"google": "gemini", "vertex": "gemini", "vertexai": "gemini", "vertex-ai": "gemini"},
    response=response.generate_content_response,
)
