"""The public surface: names in __all__, typing marker, and the sans-IO rule."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import streamcalls

CONTRACT = {
    "StreamParser",
    "parse",
    "parse_iter",
    "Event",
    "TextDelta",
    "ReasoningDelta",
    "ToolCallStarted",
    "ToolCallDelta",
    "ToolCallCompleted",
    "ToolCallFailed",
    "StreamFinished",
    "ProviderError",
    "ParseError",
    "ToolCall",
    "Usage",
    "Limits",
    "StreamError",
    "UsageError",
    "MalformedStreamError",
    # the codec (issue 8)
    "Tool",
    "ToolCallError",
    "extract",
    "encode_tools",
    "encode_result",
    "encode_call",
    "augment_system_prompt",
}


def test_contract_names_are_exported() -> None:
    assert set(streamcalls.__all__) >= CONTRACT
    for name in streamcalls.__all__:
        assert hasattr(streamcalls, name), name


def test_every_public_attribute_is_in_all() -> None:
    public = {n for n in vars(streamcalls) if not n.startswith("_")}
    modules = {n for n, v in vars(streamcalls).items() if type(v).__name__ == "module"}
    assert public - modules - {"annotations"} <= set(streamcalls.__all__)


def test_package_is_typed() -> None:
    assert (Path(streamcalls.__file__).parent / "py.typed").exists()


def test_core_imports_no_io_library() -> None:
    # What importing streamcalls adds: under make test's coverage, coverage is imported first (with socket).
    code = (
        "import sys; before = set(sys.modules); import streamcalls; "
        "bad = [m for m in ('anyio', 'httpx', 'asyncio', 'trio', 'socket') if m in sys.modules and m not in before]; "
        "print(','.join(bad))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


def test_import_loads_no_replay_server() -> None:
    """The replay server's rules live in the provider packages, which the core imports; the server does not load."""
    code = "import sys, streamcalls; print(','.join(sorted(m for m in sys.modules if m.startswith('streamcalls.replay'))))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""
