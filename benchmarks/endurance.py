"""A 1 GB text stream through one parser: constant memory, calls still found.

The stream is markdown prose with a ``~~~tool_call`` fence in every 64 KiB,
fed in 64 KiB reads to ``StreamParser("text")`` with the default detectors.
Memory is the process's resident set before and after (``/proc/self/statm``):
a parser whose state grew with the stream would show it here.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import streamcalls

__all__ = ("endurance",)

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _rss() -> int:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except OSError:  # not Linux: no reading
        return 0


def _block(number: int) -> bytes:
    prose = "A paragraph of {braces}, ~tildes~, <tags> and `code`, as models write them.\n" * 820
    call = {"name": "append_log", "arguments": {"line": number, "text": "entry " * 40}}
    return (prose + "~~~tool_call\n" + json.dumps(call) + "\n~~~\n").encode()


def endurance(total: int = 1 << 30, read: int = 64 << 10) -> dict[str, Any]:
    blocks = [_block(number) for number in range(16)]
    # One call per block: a 1 GB stream has ~17 000, above the default max_calls.
    limits = streamcalls.Limits(max_calls=1_000_000)
    parser = streamcalls.StreamParser("text", id_factory=lambda: "call", limits=limits)
    calls = 0
    fed = 0
    before = _rss()
    started = time.perf_counter()
    number = 0
    while fed < total:
        block = blocks[number % len(blocks)]
        number += 1
        for start in range(0, len(block), read):
            for event in parser.feed(block[start : start + read]):
                if type(event) is streamcalls.ToolCallCompleted:
                    calls += 1
        fed += len(block)
    for event in parser.close():
        if type(event) is streamcalls.ToolCallCompleted:
            calls += 1
    seconds = time.perf_counter() - started
    after = _rss()
    return {
        "bytes": fed,
        "seconds": seconds,
        "mb_per_s": fed / seconds / 1e6,
        "calls": calls,
        "calls_expected": number,
        "rss_before_mb": before / 1e6,
        "rss_after_mb": after / 1e6,
        "rss_growth_mb": (after - before) / 1e6,
    }
