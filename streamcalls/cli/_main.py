"""The command line: replay a recorded stream, measure the parser on recordings, serve them, run the demo.

streamcalls replay FILE [--provider P] [--detect NAMES] [--model NAME] [--chunk N] [--delay S] [--json] [--partial]
streamcalls replay FILE --to TARGET [--from P] [--detect NAMES] [--model NAME] [--chunk N] [--delay S]
streamcalls bench FILE... [--provider P] [--detect NAMES] [--chunk N] [--json [--samples]]
streamcalls serve [--host H] [--port N] [--recordings DIR] [--max-chunk N] [--max-delay S] [--seed N]
streamcalls demo
streamcalls --version

Each subcommand is an ``add`` function (its arguments) and a ``run``
function (what it does); ``replay``'s are in :mod:`._replay`, the pieces
they share in :mod:`._options`.  A mistake of the user's -- a file that cannot be
read, a bad option value, a port in use -- is one line on stderr and exit
status 2, never a traceback; Ctrl+C is one line and status 130, after
``serve`` and ``demo`` have shut down.  ``serve`` and ``demo`` use the async front and
need their extras (``streamcalls[serve]``, ``streamcalls[demo]``); they are
imported only when run.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .. import __version__
from .._errors import UsageError
from ._options import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_STATUS,
    EXIT_USAGE,
    ArgumentParser,
    CommandError,
    Commands,
    add_stream_options,
    port_number,
    positive_int,
    read_recording,
    seconds,
)
from ._replay import add_replay

__all__ = ("main",)

# -- bench -------------------------------------------------------------------------------------------

BENCH_CHUNK = 256


def _add_bench(commands: Commands) -> None:
    command = commands.add_parser(
        "bench",
        help="measure the parser's chunk throughput on recordings, against the split + decode floor",
        description="Replays each recording through the parser and through the msgspec split + decode floor\n"
        "of its framing, timed in the same run (CPU time, medians of interleaved runs), and shows\n"
        "when each call completed: bytes into the stream against the stream's end.  The parser's\n"
        "set-up (StreamParser(...) and close(), once per stream) is measured and shown apart from\n"
        "its rate.  --json: one JSON object per file, one per line.",
        epilog=EXIT_STATUS,
    )
    command.add_argument("files", type=Path, nargs="+", metavar="FILE", help="recorded response bodies")
    add_stream_options(command, f"bytes per read (default: {BENCH_CHUNK})")
    command.add_argument(
        "--samples", action="store_true", help="with --json: every timed run's seconds too (samples_s)"
    )
    command.set_defaults(run=_run_bench)


def _run_bench(args: argparse.Namespace) -> int:
    from ._bench import bench_file, render, render_json

    if args.samples and not args.json:
        raise CommandError("--samples adds each run's time to --json's output: add --json")
    out = sys.stdout
    # Every file is read before any timing: a mistake in the last one costs no wait.
    recordings = [(path, read_recording(path, "measure")) for path in args.files]
    results = []
    for path, data in recordings:
        results.append(
            bench_file(
                str(path), data, provider=args.provider, chunk=args.chunk or BENCH_CHUNK, detect=args.detect
            )
        )
        out.write(render_json(results[-1:], samples=args.samples) if args.json else render(results[-1:]))
        out.flush()  # each file's report as soon as it is measured
    return EXIT_PROBLEMS if any(m.problems for m in results) else EXIT_OK


# -- serve and demo ------------------------------------------------------------------------------------


def _add_serve(commands: Commands) -> None:
    command = commands.add_parser(
        "serve", help="run the local replay server of recorded provider streams", epilog=EXIT_STATUS
    )
    command.add_argument("--host", default="127.0.0.1")
    command.add_argument("--port", type=port_number, default=8000, help="0 picks a free port (default: 8000)")
    command.add_argument(
        "--recordings",
        type=Path,
        metavar="DIR",
        help="a folder of recordings, DIR/<provider>/<name>.<ext> or DIR/<provider>_<name>.<ext> "
        "(default: the bundled ones)",
    )
    command.add_argument(
        "--max-chunk", type=positive_int, default=64, help="largest piece sent at once, in bytes"
    )
    command.add_argument("--max-delay", type=seconds, default=0.02, help="longest pause between pieces (s)")
    command.add_argument("--seed", type=int, help="seed of the random chunking and pauses")
    command.set_defaults(run=_run_serve)


def _run_serve(args: argparse.Namespace) -> int:
    try:
        import anyio

        from ..replay._app import ReplayApp, bundled_recordings, load_recordings
        from ..replay._recordings import CONTENT_TYPES, PROVIDERS
        from ..replay._routes import ENDPOINTS
        from ..replay._serve import serve
    except ImportError as exc:
        raise CommandError(f"serving needs its extra: pip install 'streamcalls[serve]' ({exc})") from None
    if args.recordings is None:
        recordings = bundled_recordings()
    else:
        folder = args.recordings
        try:
            recordings = load_recordings(folder)
        except OSError as exc:
            raise CommandError(f"cannot read recordings from {folder}: {exc.strerror or exc}") from None
        except ValueError as exc:  # a later turn without the turns before it
            raise CommandError(f"{folder}: {exc}") from None
        if not recordings:
            raise CommandError(
                f"no recordings found in {folder}: expected {folder}/<provider>/<name>.<ext> or "
                f"{folder}/<provider>_<name>.<ext> (and <name>.turn2.<ext> for a second turn), "
                f"<provider> one of {', '.join(PROVIDERS)}, <ext> one of {', '.join(CONTENT_TYPES)}"
            )
    app = ReplayApp(recordings, seed=args.seed, max_chunk=args.max_chunk, max_delay=args.max_delay)
    out = sys.stdout
    listening = False

    async def run() -> None:
        nonlocal listening
        async with serve(app, args.host, args.port, graceful_timeout=2.0) as url:
            listening = True
            out.write(f"replaying {len(recordings)} recorded streams at {url}  (Ctrl+C stops)\n")
            width = max(len(endpoint) for endpoint, _ in ENDPOINTS)
            for endpoint, what in ENDPOINTS:
                out.write(f"  {endpoint:<{width}}  {what.replace('<url>', url)}\n")
            out.write(
                "  the model picks a recording; a history ending with tool results gets its next turn:\n"
            )
            for key in sorted(recordings):
                turns = recordings[key].turns
                out.write(f"    {key}{f'  ({turns} turns)' if turns > 1 else ''}\n")
            out.flush()
            await anyio.sleep_forever()

    try:
        anyio.run(run)  # Ctrl+C: the server stops as it does at the end of its block, then main says so
    except OSError as exc:
        if listening:
            raise
        # Binding failed: the port is taken, the host is not this machine's, ...
        raise CommandError(f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}") from None
    return EXIT_OK


def _add_demo(commands: Commands) -> None:
    command = commands.add_parser(
        "demo", help="run tools as their calls complete, against the replay server", epilog=EXIT_STATUS
    )
    command.add_argument("--fast", action="store_true", help="no pauses (for tests)")
    command.set_defaults(run=_run_demo)


def _run_demo(args: argparse.Namespace) -> int:
    try:
        import anyio

        from ..replay._demo import run_demo
    except ImportError as exc:
        raise CommandError(f"the demo needs its extra: pip install 'streamcalls[demo]' ({exc})") from None
    status: int = anyio.run(lambda: run_demo(fast=args.fast))
    return status


# -- main ----------------------------------------------------------------------------------------------

SUBCOMMANDS: tuple[Callable[[Commands], None], ...] = (add_replay, _add_bench, _add_serve, _add_demo)


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="streamcalls", description=__doc__.split("\n")[0], epilog=EXIT_STATUS)
    parser.add_argument("--version", action="version", version=f"streamcalls {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (see ``streamcalls --help``).

    A mistake of the user's is one line on stderr and status 2, never an exception.
    """
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # --help, or a bad argument (already reported on one line)
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    try:
        status: int = args.run(args)
        return status
    except (CommandError, UsageError) as exc:
        sys.stderr.write(f"streamcalls {args.command}: {exc}\n")
        return EXIT_USAGE
    except BrokenPipeError:  # the reader went away (e.g. piped into head)
        sys.stderr.close()
        return EXIT_OK
    except KeyboardInterrupt:  # Ctrl+C: what ran has been cleaned up on the way out (serve, demo)
        sys.stderr.write(f"streamcalls {args.command}: stopped by Ctrl+C\n")
        return EXIT_INTERRUPTED
