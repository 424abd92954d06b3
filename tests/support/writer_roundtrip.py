"""The provider writers' round trip: events written as provider B's stream, read back by the parser as B's.

``check_round_trip(events, B)`` writes a list of events in the parser's order
with ``write_stream(events, B)``, reads the bytes back with
``StreamParser(provider=B)`` -- whole, one byte at a time, at given splits --
and compares the turn read back with the turn of the events, on what B
carries (``Target.cannot_carry``, the words of
``streamcalls.writing.CANNOT_CARRY``):

- the parts in order (``"part_order"``: the text joined, the reasoning blocks
  and the calls apart): text (adjacent texts joined, Gemini's signature on
  it for Gemini's own stream), each reasoning block's text, its id, kind and
  format and its signature, redacted and encrypted content -- for B's own
  stream only (the exact-turns rule) --, each call's id, name, arguments,
  argument text as the model wrote it and Gemini's signature (own stream);
- the failed calls, the provider errors (message and code: a stream that
  ended in error with none may read back with one, where the target's end
  says the response failed), the finish
  reason, the usage (its total is the input and output together, as
  :class:`~streamcalls.Usage` says: where a stream sent two of the three, the
  third is what they tell; a count the events did not have may read back
  as 0 -- all of them, where the target cannot carry ``"no_usage"``), the
  model and the response id where the events named them.

What no provider's wire carries is never compared: parse errors (the bytes
read back have none unless the stream ended in error), a failed call's raw
text and reason, a provider error's status.  A failed call is written as
far as its arguments came, and no wire marks a call failed: it reads back
failed, or completed with that argument text's object (``{}`` for none) --
then a ``"stop"`` reads back as ``"tool_calls"``, the parser's rule for a
turn with calls.  A list with no :class:`~streamcalls.StreamFinished` is
compared as the writer's ``close()`` completes it.

The reader is independent of the writer: the parser, which the corpus
pins to recorded streams of each provider.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, cast

import msgspec

import streamcalls
from streamcalls import (
    Event,
    ParseError,
    ProviderError,
    ReasoningCompleted,
    ReasoningDelta,
    ReasoningPart,
    ReasoningStarted,
    StreamFinished,
    StreamParser,
    StreamStarted,
    TextPart,
    ToolCall,
    ToolCallCompleted,
    ToolCallDelta,
    ToolCallFailed,
    ToolCallStarted,
    ToolResult,
    Turn,
    Usage,
)
from streamcalls.providers import PROVIDERS
from streamcalls.writing import TARGETS, Target
from tests.support import bytewise, counter_ids, split_at

Item = Event | ToolResult


def provider_targets() -> tuple[str, ...]:
    """Every registered target that writes a provider's wire (the chat UI protocols' are not read back
    by the parser)."""
    return tuple(name for name in TARGETS if name in PROVIDERS)


def first_stream(items: Iterable[Item]) -> list[Item]:
    """The items up to the next stream of a tool loop (a provider's target writes one stream)."""
    out: list[Item] = []
    finished = False
    for item in items:
        if type(item) is StreamStarted and finished:
            break
        finished = finished or type(item) is StreamFinished
        out.append(item)
    return out


def closed(items: Sequence[Item]) -> list[Event]:
    """The events, as the writer's ``close()`` completes them: an open reasoning block ends, open calls
    fail, a stream with no finish gets one (``"error"`` if something was cut)."""
    events = [item for item in items if not isinstance(item, ToolResult)]
    if any(type(event) is StreamFinished for event in events):
        return events
    open_calls: dict[int, ToolCallStarted] = {}
    block = bare = False
    completed = False
    for event in events:
        kind = type(event)
        if bare and kind is not ReasoningDelta and kind is not ParseError:
            block = bare = False
        if kind is ReasoningStarted:
            block = True
        elif kind is ReasoningDelta and not block:
            block = bare = True
        elif kind is ReasoningCompleted:
            block = False
        elif isinstance(event, ToolCallStarted):
            open_calls[event.index] = event
        elif kind is ToolCallCompleted:
            del open_calls[cast(ToolCallCompleted, event).call.index]
            completed = True
        elif kind is ToolCallFailed:
            del open_calls[cast(ToolCallFailed, event).index]
    cut = bool(open_calls) or (block and not bare)
    if block and not bare:
        events.append(ReasoningCompleted())
    for call in open_calls.values():
        events.append(ToolCallFailed(call.index, call.id, call.name, "", "cut"))
    events.append(StreamFinished("error" if cut else "tool_calls" if completed else "stop"))
    return events


def explicit_blocks(events: Sequence[Event]) -> list[Event]:
    """The events with each run of bare reasoning deltas made a block, as the writer's event order takes
    it: begun at its first delta, ended by the next event that is not a delta of it or a parse error.
    (A turn built from the events would run it on over, say, a provider error.)"""
    out: list[Event] = []
    block = bare = False
    for event in events:
        kind = type(event)
        if bare and kind is not ReasoningDelta and kind is not ParseError:
            out.append(ReasoningCompleted())
            bare = False
        if kind is ReasoningStarted:
            block = True
        elif kind is ReasoningCompleted:
            block = False
        elif kind is ReasoningDelta and not block and not bare:
            out.append(ReasoningStarted())
            bare = True
        out.append(event)
    if bare:
        out.append(ReasoningCompleted())
    return out


def with_wire_ids(events: Sequence[Event]) -> list[Event]:
    """The events with each call's id as a stream writes it: the one it started with.  (A call found in
    the text may end with the model's own id, given after it started; a stream has sent the first.)"""
    started: dict[int, str] = {}
    out: list[Event] = []
    for event in events:
        if type(event) is ToolCallStarted:
            started[event.index] = event.id
        elif type(event) is ToolCallCompleted:
            call = event.call
            wire = started.get(call.index, call.id)
            if wire != call.id:
                event = ToolCallCompleted(msgspec.structs.replace(call, id=wire))
        elif type(event) is ToolCallFailed:
            wire = started.get(event.index, event.id)
            if wire != event.id:
                event = msgspec.structs.replace(event, id=wire)
        out.append(event)
    return out


def expected_events(events: Sequence[Event], target: type[Target], *, stream: bool = True) -> list[Event]:
    """The events as ``target`` can write them: failed calls left out by a target of whole calls, and
    in its ``stream``, each call where it completes (its start moved there: it is written then); after the
    first provider error nothing but the finish, ``"error"``, where the target's stream ends there; no
    usage on a stream it writes cut off (``"cut_usage"``: an error with no provider error), nor on one
    that ends at a provider error (``"error_usage"``).
    The parser's rules for the finish: ``"stop"`` after a provider error is ``"error"``, and after a
    completed call ``"tool_calls"``; a target with no word for ``"tool_calls"`` writes ``"stop"``."""
    out: list[Event] = []
    cannot = target.cannot_carry
    failed = {e.index for e in events if type(e) is ToolCallFailed}
    drop_failed = "failed_calls" in cannot
    whole_calls = stream and "argument_deltas" in cannot
    cut_at_error = "after_error" in cannot
    errored = reported = completed = False
    held: dict[int, list[Event]] = {}  # a whole-call target's open calls: written at their end
    for event in events:
        kind = type(event)
        if errored and kind is not StreamFinished:
            continue
        if drop_failed and isinstance(event, (ToolCallStarted, ToolCallDelta, ToolCallFailed)):
            if event.index in failed:
                continue
        if whole_calls:
            if isinstance(event, (ToolCallStarted, ToolCallDelta)):
                held.setdefault(event.index, []).append(event)
                continue
            if isinstance(event, (ToolCallCompleted, ToolCallFailed)):
                index = event.call.index if isinstance(event, ToolCallCompleted) else event.index
                out += held.pop(index, [])
        if kind is StreamFinished:
            finished = cast(StreamFinished, event)
            reason, usage = finished.reason, finished.usage
            if reason == "tool_calls" and "finish.tool_calls" in cannot:
                reason = "stop"  # the wire has no word for it: the parser's rules make it again
            if errored or (reported and reason == "stop"):
                reason = "error"
            elif completed and reason == "stop":
                reason = "tool_calls"
            if reason == "error" and ("error_usage" if reported else "cut_usage") in cannot:
                usage = None
            if (reason, usage) != (finished.reason, finished.usage):
                event = StreamFinished(reason, usage)
        out.append(event)
        if kind is ProviderError:
            reported = True
            errored = cut_at_error
        completed = completed or kind is ToolCallCompleted
    return out


def arguments_of(text: str) -> Any:
    """A call's argument text as the parser decodes it (a JSON string holding the object decoded again);
    None where it is not an object."""
    try:
        value = json.loads(text) if text.strip() else {}
        if isinstance(value, str):
            value = json.loads(value) if value.strip() else {}
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _usage(usage: Usage | None, dropped: frozenset[str]) -> dict[str, int]:
    if usage is None:
        return {}
    fields = {name: getattr(usage, name) for name in Usage.__struct_fields__}
    # The total is the input and output together: any two of them tell the third.
    total, given, made = fields["total_tokens"], fields["input_tokens"], fields["output_tokens"]
    if total is None and given is not None and made is not None:
        fields["total_tokens"] = given + made
    elif total is not None and given is None and made is not None:
        fields["input_tokens"] = total - made
    elif total is not None and made is None and given is not None:
        fields["output_tokens"] = total - given
    return {k: v for k, v in fields.items() if v is not None and f"usage.{k}" not in dropped}


def view(
    turn: Turn,
    events: Sequence[Event],
    target: type[Target],
    source: str | None,
    *,
    dropped: frozenset[str] = frozenset(),
    failed: Sequence[tuple[str, str, str]] = (),
) -> dict[str, Any]:
    """What of a turn ``target`` carries, for a stream whose provider is ``source``: a dict to compare.

    ``failed`` are the (id, name, argument text) of the calls that failed in the events written: a
    completed call of this turn that is one of them (same id -- or name, where ids are not carried --
    and the object of that text) counts as failed, as no wire marks a call failed.
    """
    cannot = target.cannot_carry | dropped
    own = source == target.name
    ids = "call_ids" not in cannot
    parts: list[tuple[Any, ...]] = []
    failures: list[tuple[Any, ...]] = []
    for error in turn.errors:
        if type(error) is ToolCallFailed and "failed_calls" not in cannot:
            # (A target that cannot carry failed calls writes none; the only ones it may read back
            # with are its provider's own, re-made from its wire's words: Gemini's malformed call.)
            failures.append((error.id if ids else None, error.name))
    reinterpreted = False
    pending = list(failed)
    for part in turn.parts:
        if type(part) is TextPart:
            signature = part.signature if own and "text_signatures" not in cannot else None
            if parts and parts[-1][0] == "text" and parts[-1][2] is None:
                parts[-1] = ("text", parts[-1][1] + part.text, signature)
            elif part.text or signature is not None:
                parts.append(("text", part.text, signature))
        elif type(part) is ReasoningPart:
            if "reasoning" in cannot:
                continue
            names = (part.id, part.kind, part.format) if own and "reasoning_names" not in cannot else None
            sealed = tuple(
                value if own and word not in cannot else None
                for value, word in (
                    (part.signature, "reasoning_signatures"),
                    (part.redacted, "redacted_reasoning"),
                    (part.encrypted, "encrypted_reasoning"),
                )
            )
            redacted = sealed[1]
            if redacted is not None and "redacted_apart" in cannot and (part.text or sealed[0] is not None):
                sealed = (sealed[0], None, sealed[2])  # the redacted content is a block of its own, after
            else:
                redacted = None
            kept = [item for item in (names, sealed) if item is not None and any(v is not None for v in item)]
            if part.text or kept:
                parts.append(("reasoning", part.text, tuple(kept)))
            if redacted is not None:
                parts.append(("reasoning", "", ((None, redacted, None),)))
        else:
            call = cast(ToolCall, part)
            match = next(
                (
                    entry
                    for entry in pending
                    if (entry[0] == call.id if ids else entry[1] == call.name)
                    and arguments_of(entry[2]) == call.arguments
                ),
                None,
            )
            if match is not None:
                pending.remove(match)
                failures.append((call.id if ids else None, call.name))
                reinterpreted = True
                continue
            parts.append(
                (
                    "call",
                    call.id if ids else None,
                    call.name,
                    call.arguments,
                    turn.raw_arguments.get(call.id) if "argument_text" not in cannot else None,
                    call.thought_signature if own and "call_signatures" not in cannot else None,
                )
            )
    if "part_order" in cannot:
        text = "".join(part[1] for part in parts if part[0] == "text")
        grouped = [part for part in parts if part[0] == "reasoning"]
        grouped += [("text", text, None)] if text else []
        grouped += [part for part in parts if part[0] == "call"]
        parts = grouped
    if "reasoning_blocks" in cannot:  # adjacent blocks read back as one
        merged: list[tuple[Any, ...]] = []
        for entry in parts:
            if entry[0] == "reasoning" and merged and merged[-1][0] == "reasoning":
                merged[-1] = ("reasoning", merged[-1][1] + entry[1], merged[-1][2] + entry[2])
            else:
                merged.append(entry)
        parts = merged
    finish = turn.finish_reason
    if finish is not None and finish != "tool_calls" and f"finish.{finish}" in cannot:
        finish = None  # ("tool_calls": see expected_events)
    errors = [
        (e.message, e.code if "error_codes" not in cannot else None)
        for e in events
        if type(e) is ProviderError
    ]
    return {
        "parts": parts,
        "failures": sorted(failures, key=repr),
        "errors": errors,
        "finish": finish,
        "usage": _usage(turn.usage, cannot),
        "model": turn.model if "model" not in cannot else None,
        "response_id": turn.response_id if "response_id" not in cannot else None,
        "reinterpreted": reinterpreted,
    }


def read_back(data: bytes | Sequence[bytes], provider: str) -> list[Event]:
    """The parser's events for written bytes, read as ``provider``'s stream (no text detectors: the
    text a target writes is the model's, its calls are the provider's own)."""
    parser = StreamParser(provider, detect=(), id_factory=counter_ids("call_readback_"))  # type: ignore[arg-type]
    events: list[Event] = []
    for chunk in [data] if isinstance(data, bytes) else data:
        events += parser.feed(chunk)
    return events + parser.close()


def compare(
    source: Sequence[Event],
    back: Sequence[Event],
    target: type[Target],
    *,
    dropped: frozenset[str] = frozenset(),
    response: bool = False,
) -> None:
    """Assert that ``back`` (read back) is ``source`` (the events written) on what ``target`` carries;
    ``dropped`` names what else is not compared (a complete response's losses).

    A stream that ended in error with no provider error may read back with one: the target's end
    says that the response failed, and why (a Responses ``response.failed``).  A usage count the
    events did not have may read back as 0 -- the total as the counts written add up, the input as
    the cache counts it holds (where the events' input is smaller): OpenAI's usage objects require
    every count, Anthropic's an input count.
    ``response``: the bytes are a complete response, which holds the turn's parts in the turn's
    order (where a stream of whole calls writes each call where it completes)."""
    expected = expected_events(source, target, stream=not response)
    turn = streamcalls.accumulate(expected)
    provider = turn.provider
    streamed: dict[int, list[str]] = {}
    failed: list[tuple[str, str, str]] = []
    for event in expected:
        if type(event) is ToolCallStarted:
            streamed[event.index] = []
        elif type(event) is ToolCallDelta:
            streamed[event.index].append(event.arguments_delta)
        elif type(event) is ToolCallFailed:
            failed.append((event.id, event.name, "".join(streamed.get(event.index, []))))
    want = view(turn, expected, target, provider, dropped=dropped)
    got = view(streamcalls.accumulate(back), back, target, provider, dropped=dropped, failed=failed)
    if got.pop("reinterpreted") and {want["finish"], got["finish"]} == {"stop", "tool_calls"}:
        got["finish"] = want["finish"]
    want.pop("reinterpreted")
    for key in ("model", "response_id", "finish"):
        if want[key] is None:  # (not named, or a finish the target cannot carry)
            got[key] = None
    if want["finish"] == "error" and not want["errors"] and len(got["errors"]) == 1:
        got["errors"] = []
    usage = got["usage"] = {k: v for k, v in got["usage"].items() if v or k in want["usage"]}
    if "total_tokens" not in want["usage"]:  # (a total the counts written, 0 for a missing one, tell)
        if usage.get("total_tokens") == usage.get("input_tokens", 0) + usage.get("output_tokens", 0):
            usage.pop("total_tokens")
    # An input count holds the cache's: where the events' is missing or smaller, a wire that counts the
    # input apart from the cache (Anthropic's, Bedrock's) writes 0 and reads back the cache's.
    cached = usage.get("cache_read_tokens", 0) + usage.get("cache_write_tokens", 0)
    wanted = want["usage"].get("input_tokens")
    if usage.get("input_tokens") == cached and (wanted is None or wanted < cached):
        if wanted is None:
            del usage["input_tokens"]
        else:
            usage["input_tokens"] = wanted
    assert got == want, f"{target.name}: read back differs\n got: {got}\nwant: {want}"
    if want["finish"] != "error" and turn.finish_reason != "error":
        problems = [e for e in back if type(e) is ParseError]
        assert not problems, f"{target.name}: the bytes written do not parse: {problems}"


def check_round_trip(
    items: Sequence[Item], target: str, *, splits: Sequence[Sequence[int]] = (), one_byte: bool = True
) -> bytes:
    """Write ``items`` as ``target``'s stream and read the bytes back, whole, one byte at a time and at
    each of ``splits``; each reading is compared with the events.  Returns the bytes written."""
    source = with_wire_ids(explicit_blocks(closed(items)))
    cls = TARGETS[target]
    body = streamcalls.write_stream(items, target)  # type: ignore[arg-type]
    whole = read_back(body, target)
    compare(source, whole, cls)
    chunkings: list[list[bytes]] = [split_at(body, cuts) for cuts in splits]
    if one_byte:
        chunkings.append(bytewise(body))
    turn = streamcalls.accumulate(whole)
    for chunks in chunkings:
        assert streamcalls.accumulate(read_back(chunks, target)) == turn, (
            f"{target}: chunking changed the turn"
        )
    return body
