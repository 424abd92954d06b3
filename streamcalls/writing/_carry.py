"""What a provider's target cannot carry: one small vocabulary, which every target's declaration uses.

A target declares the words of :data:`CANNOT_CARRY` that apply to it
(``Target.cannot_carry``), and the round trip -- the events written as the
target's stream, read back by the parser as that provider's -- compares
everything but what the words name.  The guide's table of what each
provider's target cannot carry is made from the same declarations, so the
docs, the tests and the code say one thing.

Some of what the events hold is never written by a provider's target, and so
has no word here: parse errors (a stream that ended in error reads back as
ended in error, with the reader's own words), a tool's result, a failed
call's reason (a call that failed reads back failed -- or completed, where
the argument text it had is a whole object: no wire marks a call as
failed), and a provider error's HTTP status and retry delay.

Signed, redacted and encrypted reasoning, Gemini's signatures on text and
calls, and a reasoning block's id, kind and format go back only to their own
provider (the exact-turns rule), so they count only where the stream's
provider is the target's: a target leaves them out of any other provider's
stream, and its words say what it cannot carry even for its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from .._errors import UsageError
from .._events import Usage

if TYPE_CHECKING:
    from ._target import Target

__all__ = ("CANNOT_CARRY", "cannot_carry_table", "check_words", "input_and_output", "usage_word")


def usage_word(field: str) -> str:
    """The word for one :class:`~streamcalls.Usage` count: ``"usage.<field>"``."""
    return f"usage.{field}"


def input_and_output(usage: Usage) -> tuple[int | None, int | None]:
    """The input and output counts, for a target with no total (its reader adds the two up): a count
    not sent is what the total and the other tell."""
    given, made, total = usage.input_tokens, usage.output_tokens, usage.total_tokens
    if total is not None:
        if given is None and made is not None:
            given = total - made
        elif made is None and given is not None:
            made = total - given
    return given, made


CANNOT_CARRY: Mapping[str, str] = MappingProxyType(
    {
        "call_ids": "the calls' ids: calls read back with ids the reader makes up",
        "argument_text": "a call's argument text as the model wrote it: the target writes the decoded "
        "arguments, re-encoded",
        "argument_deltas": "a call's argument fragments as they come: the target writes each call whole, "
        "when it completes",
        "failed_calls": "a call that failed: the target writes whole calls only, so it is not written",
        "call_signatures": "a call's thought signature (Gemini's), for its own provider",
        "reasoning": "reasoning: the target has no place for it",
        "reasoning_blocks": "where one reasoning block ends and the next begins: adjacent blocks read "
        "back as one",
        "reasoning_names": "a reasoning block's id, kind and format, for its own provider",
        "reasoning_signatures": "the signatures on reasoning blocks, for their own provider",
        "redacted_reasoning": "redacted reasoning (Anthropic's, Bedrock's), for its own provider",
        "redacted_apart": "redacted reasoning on a block that has text or a signature too: the target "
        "writes it as a block of its own, after",
        "encrypted_reasoning": "encrypted reasoning (a Responses item's, OpenRouter's), for its own provider",
        "text_signatures": "Gemini's signatures on text, for its own provider",
        "part_order": "the order of text, reasoning and calls: the target groups them",
        "finish.length": 'the finish reason "length": it reads back as another',
        "finish.content_filter": 'the finish reason "content_filter": it reads back as another',
        "finish.tool_calls": 'the finish reason "tool_calls" where no call completed: it reads back '
        'as "stop"',
        "finish_words": "the provider's own word for the end (provider_reason)",
        **{usage_word(field): f"the usage's {field.replace('_', ' ')}" for field in Usage.__struct_fields__},
        "no_usage": "that the stream sent no usage: the target writes the counts its wire always has, "
        "which read back as 0",
        "error_usage": "the usage of a stream that ended at a provider error: the target's stream ends "
        "there, before the counts",
        "error_codes": "a provider error's code",
        "after_error": "what comes after a provider error: the stream ends at the first one",
        "cut_usage": "the usage of a stream that ended in error with no provider error: the target writes "
        "it cut off, with no end to hold the counts",
        "model": "the model's name",
        "response_id": "the response's id",
    }
)
"""Each word a target may declare it cannot carry, and what it means."""


def check_words(owner: str, words: Iterable[str]) -> frozenset[str]:
    """``words`` as a frozenset, each one of :data:`CANNOT_CARRY`'s; :class:`UsageError` naming ``owner``
    and the first word that is not."""
    found = frozenset(words)
    unknown = sorted(found - CANNOT_CARRY.keys())
    if unknown:
        raise UsageError(
            f"{owner} declares it cannot carry {unknown[0]!r}, which is not a word of "
            f"streamcalls.writing.CANNOT_CARRY"
        )
    return found


def cannot_carry_table(targets: Iterable[type[Target]]) -> str:
    """The guide's table of what each provider's target cannot carry, in Markdown: a row per word that
    some target declares, a column per target; ``—`` where it cannot carry it, ``stream only`` where its
    complete response cannot."""
    targets = list(targets)
    words = [
        word
        for word in CANNOT_CARRY
        if any(word in t.cannot_carry or word in t.response_cannot_carry for t in targets)
    ]
    head = "| what | " + " | ".join(f"`{t.name}`" for t in targets) + " |"
    rule = "|---|" + "---|" * len(targets)
    rows = [head, rule]
    for word in words:
        cells = [
            "—" if word in t.cannot_carry else "stream only" if word in t.response_cannot_carry else "✓"
            for t in targets
        ]
        rows.append(f"| {CANNOT_CARRY[word]} (`{word}`) | " + " | ".join(cells) + " |")
    return "\n".join(rows)
