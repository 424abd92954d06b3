"""What a content-block provider's message should hold for a list of events: a small reference for the
writer tests of ``"anthropic"`` and ``"bedrock"``, written from the events, apart from the targets' code.

``expected_content(items, target, apart=...)`` walks the events as the
provider's stream would carry them -- to the first provider error, where
both APIs end their stream -- and lists the content blocks a client builds:

- ``("text", text)``: a run of text, ended by a signature, reasoning, a
  call's start or an error (not by a call's fragments: its block is apart);
- ``("reasoning", text, signature, redacted)``: a reasoning block -- its
  signature and redacted content only for the target's own stream (or one
  that names no provider); another provider's only if it has text;
  ``apart``: redacted content is a block of its own, after the text
  (Anthropic's blocks hold one or the other); ``blob``: only base64
  redacted content is written (a blob's, as Bedrock's JSON holds it);
- ``("call", id, name, arguments)``: a call where it started; ``FAILED`` for
  the arguments of one that failed (whatever its fragments parse to).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import Any

from streamcalls import (
    ParseError,
    ProviderError,
    ReasoningCompleted,
    ReasoningDelta,
    ReasoningStarted,
    StreamFinished,
    StreamStarted,
    TextDelta,
    TextSignature,
    ToolCallCompleted,
    ToolCallFailed,
    ToolCallPatch,
    ToolCallStarted,
    ToolResult,
)
from tests.support.ui_streams import Item

FAILED = object()
"""The arguments of a call that failed: what its fragments parse to, if anything."""


def _base64(text: str) -> bool:
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def expected_content(items: Sequence[Item], target: str, *, apart: bool, blob: bool = False) -> list[Any]:
    """The content blocks (see the module doc)."""
    started = next((item for item in items if isinstance(item, StreamStarted)), None)
    own = started is None or started.provider in (None, target)
    content: list[Any] = []
    text: list[Any] | None = None  # the open text block
    reasoning: list[str] | None = None  # the open reasoning block's text
    bare = False
    calls: dict[int, list[Any]] = {}

    def end_reasoning(end: ReasoningCompleted) -> None:
        nonlocal reasoning, bare
        said = "".join(reasoning or [])
        reasoning, bare = None, False
        if not own:
            if said:
                content.append(("reasoning", said, None, None))
            return
        signature, redacted = end.signature, end.redacted
        if blob and redacted is not None and not _base64(redacted):
            redacted = None
        if not apart:
            if said or signature is not None or redacted is not None:
                content.append(("reasoning", said, signature, redacted))
            return
        if said or signature is not None:
            content.append(("reasoning", said, signature, None))
        if redacted is not None:
            content.append(("reasoning", "", None, redacted))

    for item in items:
        kind = type(item)
        if bare and kind not in (ReasoningDelta, ParseError, ToolCallPatch, ToolResult):
            end_reasoning(ReasoningCompleted())  # a run of bare deltas ends at the next content
        if kind is TextDelta:
            assert isinstance(item, TextDelta)
            if item.text:
                if text is None:
                    text = ["text", ""]
                    content.append(text)
                text[1] += item.text
        elif kind in (TextSignature, ReasoningStarted, ToolCallStarted, ProviderError, StreamFinished):
            text = None
        if kind is ReasoningStarted:
            reasoning = []
        elif isinstance(item, ReasoningDelta):
            if reasoning is None:
                reasoning, bare, text = [], True, None
            reasoning.append(item.text)
        elif isinstance(item, ReasoningCompleted):
            end_reasoning(item)
        elif isinstance(item, ToolCallStarted):
            calls[item.index] = ["call", item.id, item.name, FAILED]
            content.append(calls[item.index])
        elif isinstance(item, ToolCallCompleted):
            calls[item.call.index][3] = item.call.arguments
        elif isinstance(item, ToolCallFailed):
            calls[item.index][3] = FAILED
        elif kind is ProviderError or kind is StreamFinished:
            break
    if bare:
        end_reasoning(ReasoningCompleted())
    return [tuple(block) for block in content]


def same_content(got: list[Any], want: list[Any]) -> None:
    """Assert that ``got`` is ``want``, a failed call's arguments being whatever ``got`` has."""
    assert len(got) == len(want), (got, want)
    for mine, wanted in zip(got, want, strict=True):
        if wanted[0] == "call" and wanted[3] is FAILED:
            wanted = (*wanted[:3], mine[3])
        assert mine == wanted, (got, want)
