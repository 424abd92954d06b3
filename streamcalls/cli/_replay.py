"""``streamcalls replay``: a recorded stream fed to the parser in chunks, each event printed as it comes;
with ``--to TARGET``, the events written as another wire format's stream instead (:func:`translate`)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, TextIO, cast

import msgspec

from .._errors import UsageError
from .._events import (
    Event,
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
    ToolCallDelta,
    ToolCallFailed,
    ToolCallPatch,
    ToolCallStarted,
)
from .._names import ProviderName, maybe_meant_provider
from .._parser import StreamParser
from .._writer import StreamWriter, TargetName, target_class
from ..providers import ALIASES, PROVIDER_NAMES
from ..writing import TARGETS
from ._options import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_STATUS,
    CommandError,
    Commands,
    add_stream_options,
    provider_name,
    read_recording,
    seconds,
)

__all__ = ("add_replay", "describe", "replay", "target_name", "translate")

# -- replay ------------------------------------------------------------------------------------------


def describe(event: Event) -> str:
    """One readable line for an event."""
    if isinstance(event, TextDelta):
        return f"text       {event.text!r}"
    if isinstance(event, ReasoningDelta):
        return f"reasoning  {event.text!r}"
    if isinstance(event, StreamStarted):
        named = "".join(
            f", {key} {value}" for key, value in (("model", event.model), ("id", event.response_id)) if value
        )
        return f"started    {event.provider}{named}"
    if isinstance(event, ReasoningStarted):
        named = "".join(f" {key} {value}" for key, value in (("kind", event.kind), ("id", event.id)) if value)
        return f"reasoning  begins{named}"
    if isinstance(event, ReasoningCompleted):
        kept = [key for key in ("signature", "redacted", "encrypted") if getattr(event, key) is not None]
        return "reasoning  ends" + (f" ({', '.join(kept)})" if kept else "")
    if isinstance(event, TextSignature):
        return "text       signed"
    if isinstance(event, ToolCallStarted):
        return f"call #{event.index} started   {event.name} (id {event.id})"
    if isinstance(event, ToolCallDelta):
        return f"call #{event.index} arguments {event.arguments_delta!r}"
    if isinstance(event, ToolCallPatch):
        return f"call #{event.index} {event.op:9} {event.pointer or '(root)'} {_short(event.value)}"
    if isinstance(event, ToolCallCompleted):
        call = event.call
        return f"call #{call.index} COMPLETED {call.name}({call.arguments_json})"
    if isinstance(event, ToolCallFailed):
        return f"call #{event.index} FAILED    {event.name}: {event.error}"
    if isinstance(event, StreamFinished):
        usage = f", usage {msgspec.json.encode(event.usage).decode()}" if event.usage else ""
        return f"finished   {event.reason} (provider said {event.provider_reason!r}{usage})"
    if isinstance(event, ProviderError):
        return f"PROVIDER ERROR {event.message} (code {event.code})"
    if isinstance(event, ParseError):
        return f"PARSE ERROR {event.message}"
    raise AssertionError(event)


def _short(value: object, limit: int = 80) -> str:
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _GrowingStrings:
    """``--partial``'s human view: a patch's path and its value so far (a long string's last characters)."""

    TAIL = 60

    def __init__(self) -> None:
        self._strings: dict[tuple[int, tuple[object, ...]], tuple[int, str]] = {}  # (length, tail)

    def describe(self, patch: ToolCallPatch) -> str:
        key = (patch.index, patch.path)
        value = patch.value
        if patch.op == "add" and type(value) is not str:
            return describe(patch)
        length, tail = self._strings.get(key, (0, "")) if patch.op == "append" else (0, "")
        length += len(value)
        tail = (tail + value)[-self.TAIL :]
        self._strings[key] = (length, tail)
        shown = ("…" if length > len(tail) else "") + _short(tail, self.TAIL + 20)
        return f"call #{patch.index} {patch.op:9} {patch.pointer or '(root)'} = {shown} ({length} chars)"


def _chunks(data: bytes, size: int) -> Iterator[bytes]:
    if size <= 0:
        yield data
        return
    for start in range(0, len(data), size):
        yield data[start : start + size]


def replay(
    data: bytes,
    *,
    provider: ProviderName,
    chunk: int,
    delay: float,
    as_json: bool,
    detect: Sequence[str] | None = None,
    partial: bool = False,
    out: TextIO | None = None,
    model: str | None = None,
) -> int:
    """Feed ``data`` in chunks (``chunk <= 0``: whole) and print each event as it comes; returns an exit status."""
    out = out or sys.stdout
    parser = StreamParser(provider, detect=detect, partial_arguments=partial, model=model)
    strings = _GrowingStrings()
    started = time.perf_counter()
    failed = False

    def show(events: list[Event]) -> None:
        nonlocal failed
        for event in events:
            failed = failed or isinstance(event, (ParseError, ProviderError, ToolCallFailed))
            if as_json:
                out.write(msgspec.json.encode(event).decode() + "\n")
            else:
                line = strings.describe(event) if type(event) is ToolCallPatch else describe(event)
                out.write(f"+{time.perf_counter() - started:6.3f}s  {line}\n")
            out.flush()

    for piece in _chunks(data, chunk):
        show(parser.feed(piece))
        if delay:
            time.sleep(delay)
    show(parser.close())
    return EXIT_PROBLEMS if failed else EXIT_OK


def translate(
    data: bytes,
    *,
    provider: ProviderName,
    target: TargetName,
    chunk: int,
    delay: float,
    detect: Sequence[str] | None = None,
    out: BinaryIO | None = None,
    model: str | None = None,
) -> int:
    """Feed ``data`` in chunks (``chunk <= 0``: whole) and write each event's bytes in ``target``'s wire
    format as it comes (:class:`~streamcalls.StreamWriter`); returns an exit status, as :func:`replay`."""
    out = out or sys.stdout.buffer
    parser = StreamParser(provider, detect=detect, model=model)
    writer = StreamWriter(target)
    failed = False

    def write(events: list[Event]) -> None:
        nonlocal failed
        for event in events:
            failed = failed or isinstance(event, (ParseError, ProviderError, ToolCallFailed))
            out.write(writer.send(event))
        out.flush()

    for piece in _chunks(data, chunk):
        write(parser.feed(piece))
        if delay:
            time.sleep(delay)
    write(parser.close())
    out.write(writer.close())
    out.flush()
    return EXIT_PROBLEMS if failed else EXIT_OK


def target_name(text: str) -> str:
    """``--to``'s value: a target with a registered writer, or an alias of one.

    A provider's name with no writer yet, or a parser setting (``auto``), is
    told so; any other name the target it most likely meant, and the names.
    """
    try:
        return target_class(text).name
    except UsageError as exc:
        if text in PROVIDER_NAMES:
            raise argparse.ArgumentTypeError(str(exc)) from None
    known = (*TARGETS, *(alias for alias, name in ALIASES.items() if name in TARGETS))
    meant = maybe_meant_provider(text, known)
    hint = "" if meant is None else f" (did you mean {meant!r}?)"
    raise argparse.ArgumentTypeError(
        f"unknown target {text!r:.100}{hint}; expected one of {', '.join(map(repr, known))}"
    )


def add_replay(commands: Commands) -> None:
    command = commands.add_parser(
        "replay",
        help="parse a recorded stream file and print its events (--to: write them as another stream)",
        description="Feeds a recorded response body to the parser and prints each event as it comes.\n"
        "--to TARGET writes the events instead, in TARGET's wire format (a provider's stream, or\n"
        "ai-sdk / ag-ui for a chat UI), as a translating proxy would: bytes on stdout.",
        epilog=EXIT_STATUS,
    )
    command.add_argument("file", type=Path, help="a recorded response body; - for stdin")
    add_stream_options(command, "feed N bytes at a time (default: the whole file at once)")
    command.add_argument(
        "--delay",
        type=seconds,
        default=0.0,
        metavar="S",
        help="seconds to wait between chunks (with --chunk)",
    )
    command.add_argument(
        "--partial",
        action="store_true",
        help="also print each call's arguments as they stream (partial_arguments=True: ToolCallPatch events)",
    )
    command.add_argument(
        "--model",
        metavar="NAME",
        help="the model's name: its family's text detectors join the defaults (e.g. openai/gpt-oss-20b)",
    )
    command.add_argument(
        "--to",
        type=target_name,
        metavar="TARGET",
        help="write the events as TARGET's stream on stdout: a provider (anthropic, bedrock, ...; "
        "those with a writer) or ai-sdk, ag-ui",
    )
    command.add_argument(
        "--from",
        dest="provider",
        type=provider_name,
        metavar="P",
        help="the recording's provider: the same as --provider",
    )
    command.set_defaults(run=_run_replay)


def _run_replay(args: argparse.Namespace) -> int:
    if args.delay and not args.chunk:
        raise CommandError(
            "--delay waits between chunks, and without --chunk the file is fed as one chunk: "
            "it would do nothing (add --chunk N)"
        )
    if args.to is not None:
        for given, flag in ((args.json, "--json"), (args.partial, "--partial")):
            if given:
                raise CommandError(
                    f"{flag} changes how events are printed, and --to writes them as {args.to}'s "
                    f"stream instead: use one or the other"
                )
        data = read_recording(args.file, "replay")
        return translate(
            data,
            provider=args.provider,
            target=cast(TargetName, args.to),
            chunk=args.chunk or 0,
            delay=args.delay,
            detect=args.detect,
            model=args.model,
        )
    data = read_recording(args.file, "replay")
    return replay(
        data,
        provider=args.provider,
        chunk=args.chunk or 0,
        delay=args.delay,
        as_json=args.json,
        detect=args.detect,
        partial=args.partial,
        model=args.model,
    )
