"""The shape of a provider's entry in the registry: what the rest of the package asks a provider for.

Each provider package (``providers/<name>/``) declares one :class:`Provider`
in its ``__init__.py``; :mod:`streamcalls.providers` gathers them into
``PROVIDERS``, by name.  The parser, the codec and the replay server look a
provider's pieces up there instead of importing its modules by name:

- ``adapter``: the stream reader (its ``reader`` module);
- ``complete`` and ``stream_end``: the complete-response reader and the
  records a complete response's end is given to the adapter as (its
  ``complete`` module);
- ``encoding``: its request shapes (its ``encoding`` module);
- ``errors``: its error responses (its ``errors`` module);
- ``rules``: what its API refuses in a request (its ``*_rules`` modules),
  which the replay server enforces;
- ``aliases`` and ``nicknames``: other names for it;
- ``response``: its complete (non-streamed) response body for a turn, which
  :func:`~streamcalls.write_response` writes (its ``writer`` or
  ``response`` module; the stream's writer is a target, registered with
  ``streamcalls.writing``).

A piece a provider does not have is None: ``"text"`` has no requests or
errors, ``"bedrock-invoke"`` no complete-response reader nor codec shapes
(its requests are each model's own).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from .._adapter import Adapter
from .._found import Found
from .._turn import Turn
from ._bodies import Reader
from ._encoding import AssistantEncoder, CallsEncoder, ResultsEncoder, ToolsEncoder
from ._refusals import ErrorWriter, NoModel

__all__ = (
    "AnsweredRule",
    "Encoding",
    "Errors",
    "HistoryRule",
    "Provider",
    "RequestRule",
    "ResponseWriter",
    "Rules",
    "ServerRule",
    "StreamEnd",
)

StreamEnd = Callable[[Found, Any], list[dict[str, Any]]]
"""A complete response's end, as the records its stream's last events would be: ``(found, body)`` -> records."""

ResponseWriter = Callable[[Turn], dict[str, Any]]
"""A turn as the provider's complete response body: what it returns with ``stream: false``."""

RequestRule = Callable[[Mapping[str, Any], Mapping[str, str]], None]
"""Refuse (:class:`~._rejected.Rejected`) a request for its own fields: ``(request, headers)``."""

HistoryRule = Callable[[Mapping[str, Any]], int]
"""Refuse a request for its conversation history, else say which turn it asks for (1: a new prompt)."""

AnsweredRule = Callable[[Mapping[str, Any], Any], None]
"""Refuse a request that does not send back what the turn it answers must come back with.

The second argument is that turn as the provider's client keeps it, read
from the recording by the replay server: Anthropic's and Bedrock's content
blocks, Responses' output items, Gemini's calls.
"""

ServerRule = Callable[[Mapping[str, Any], str, bool], None]
"""Refuse a request the server behind a shared API refuses: ``(request, dialect, thinks)``.

``dialect`` is the server (``"openai"``, ``"deepseek"``, ``"kimi"``,
``"mistral"``, ...), ``thinks`` whether the recorded model streamed its
reasoning.
"""


class Encoding(NamedTuple):
    """A provider's request shapes (see :mod:`._encoding`)."""

    tools: ToolsEncoder
    calls: CallsEncoder
    results: ResultsEncoder
    assistant: AssistantEncoder


class Errors(NamedTuple):
    """A provider's error responses (see :mod:`._refusals`)."""

    body: ErrorWriter
    no_model: NoModel


class Rules(NamedTuple):
    """What a provider's API refuses in a request, in the order it checks."""

    request: RequestRule
    history: HistoryRule
    answered: AnsweredRule | None = None
    server: ServerRule | None = None


class Provider(NamedTuple):
    """One provider: its name and every piece of its wire (see the module doc)."""

    name: str
    adapter: type[Adapter]
    complete: Reader | None = None
    stream_end: StreamEnd | None = None
    encoding: Encoding | None = None
    errors: Errors | None = None
    rules: Rules | None = None
    aliases: tuple[str, ...] = ()
    nicknames: Mapping[str, str] = {}  # a NamedTuple field's default, never mutated
    response: ResponseWriter | None = None
