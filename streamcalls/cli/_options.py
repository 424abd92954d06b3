"""The command line's shared pieces: exit statuses, the argument parser, option values, reading a recording.

A mistake of the user's (a bad option value, a file that cannot be read) is a
:class:`CommandError` or an argparse error: one line on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeAlias

from .._names import unknown_provider
from ..detectors import DETECTORS
from ..providers import ADAPTERS, PROVIDER_NAMES

__all__ = (
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PROBLEMS",
    "EXIT_STATUS",
    "EXIT_USAGE",
    "ArgumentParser",
    "CommandError",
    "Commands",
    "add_stream_options",
    "detector_names",
    "port_number",
    "positive_int",
    "provider_name",
    "read_recording",
    "seconds",
)

EXIT_OK = 0
EXIT_PROBLEMS = 1  # the stream had problems
EXIT_USAGE = 2  # the command could not run as given
EXIT_INTERRUPTED = 130  # Ctrl+C (the shell's code for SIGINT)

EXIT_STATUS = """\
exit status:
  0  done, and every stream was clean
  1  a stream had problems: a ParseError, a ProviderError or a failed call
  2  the command could not run as given: a bad option value, a file that cannot be read,
     a port in use, a missing extra (one line on stderr says which)
  130  stopped by Ctrl+C
"""


class CommandError(Exception):
    """A mistake in the command line: reported as one line, exit status 2."""


class ArgumentParser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault(
            "formatter_class", argparse.RawDescriptionHelpFormatter
        )  # keeps EXIT_STATUS's lines
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        # argparse prints its usage too; one line says it, and --help has the rest.
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see {self.prog} --help)\n")


Commands: TypeAlias = "argparse._SubParsersAction[ArgumentParser]"


# -- option values ------------------------------------------------------------------------------


def _number(text: str, parse: Callable[[str], float], what: str) -> float:
    try:
        return parse(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def positive_int(text: str) -> int:
    value = int(_number(text, int, "a whole number"))
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def seconds(text: str) -> float:
    value = _number(text, float, "a number of seconds")
    if not value >= 0:  # NaN too
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds, not {text}")
    return value


def port_number(text: str) -> int:
    value = int(_number(text, int, "a port number"))
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be 0 to 65535 (0 picks a free port), not {value}")
    return value


def provider_name(text: str) -> str:
    if text not in PROVIDER_NAMES:  # 'OpenAI' -> did you mean 'openai'?
        raise argparse.ArgumentTypeError(unknown_provider(text))
    return text


def detector_names(text: str) -> tuple[str, ...]:
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if names == ("none",):
        return ()
    unknown = [name for name in names if name not in DETECTORS]
    if unknown:
        known = ", ".join(DETECTORS)
        raise argparse.ArgumentTypeError(
            f"unknown detector {unknown[0]!r}; expected some of {known}, or none"
        )
    return names


def read_recording(path: Path, purpose: str) -> bytes:
    """A recording's bytes (``-``: stdin); an empty one is a :class:`CommandError` (nothing to ``purpose``)."""
    if str(path) == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not data:
        raise CommandError(f"{'stdin' if str(path) == '-' else path} is empty: nothing to {purpose}")
    return data


def add_stream_options(command: argparse.ArgumentParser, chunk_help: str) -> None:
    command.add_argument(
        "--provider",
        default="auto",
        type=provider_name,
        metavar="P",
        help=f"auto (default), {', '.join(ADAPTERS)}, or an alias (openrouter, groq, vllm, ...)",
    )
    command.add_argument(
        "--detect",
        type=detector_names,
        metavar="NAMES",
        help=f"text detectors, comma-separated ({', '.join(DETECTORS)}), or none (default: fence,json)",
    )
    command.add_argument("--chunk", type=positive_int, metavar="N", help=chunk_help)
    command.add_argument("--json", action="store_true", help="print JSON for scripts")
