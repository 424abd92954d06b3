"""The ``<tool_call>`` opener that hermes, qwen3_coder and glm share: every combination of them reads
each format, and the hermes recordings give the same events under each; the choice waits for the few
characters after the opener, whatever the chunking (streamcalls/detectors/_engine/shared.py)."""

from __future__ import annotations

import itertools

import pytest

from streamcalls import ToolCallCompleted
from tests.support import DATA, bytewise, corpus, feed_chunks, normalize
from tests.unit.test_xml_formats import SHARED, completed, failed, glm, parse_all, qwen, text_of

SAMPLES = {
    "hermes": '<tool_call>\n{"name": "f", "arguments": {"x": "1"}}\n</tool_call>',
    "qwen3_coder": qwen("f", ("x", "1")),
    "glm": glm("f", ("x", "1")),
}
SUBSETS = [s for n in range(1, 4) for s in itertools.combinations(SHARED, n)]


@pytest.mark.parametrize("detect", SUBSETS, ids="+".join)
@pytest.mark.parametrize("fmt", SHARED)
def test_every_subset_of_the_shared_opener_reads_each_format(detect: tuple[str, ...], fmt: str) -> None:
    text = "Before.\n" + SAMPLES[fmt] + "\nAfter."
    events = parse_all(text, list(detect))
    if fmt in detect:
        assert completed(events) == [("f", {"x": "1"})]
        assert [e.call.source for e in events if isinstance(e, ToolCallCompleted)] == [fmt]
        assert text_of(events) == "Before.\n\nAfter."
    else:  # another format's markup: it fails visibly or stays text, and nothing is lost
        assert not completed(events)


@pytest.mark.parametrize("detect", [s for s in SUBSETS if "hermes" in s], ids="+".join)
def test_hermes_recordings_give_the_same_events_under_every_subset(detect: tuple[str, ...]) -> None:
    for case in corpus():
        if case.path.parent == DATA / "text" and case.path.stem.startswith("hermes"):
            options = {**case.options(), "detect": list(detect)}
            assert normalize(feed_chunks(bytewise(case.data()), "text", **options)) == normalize(
                case.expected()
            )


def test_the_opener_waits_for_what_follows_it_across_any_split() -> None:
    text = "x <tool_call>  \n <function=f>\n</function>\n</tool_call>"
    data = text.encode()
    for cut in range(1, len(data)):
        for cut2 in range(cut, len(data), 7):
            events = feed_chunks([data[:cut], data[cut:cut2], data[cut2:]], "text", detect=list(SHARED))
            assert completed(events) == [("f", {})], (cut, cut2)


def test_more_than_64_blanks_after_the_opener_is_no_format_s() -> None:
    events = parse_all("<tool_call>" + " " * 70 + "<function=f>", list(SHARED))
    assert failed(events) == [("", "<tool_call>", "<tool_call> with no tool name after it")]


@pytest.mark.parametrize(
    ("detect", "text", "raws"),
    [
        (("granite", "xlam"), "a <tool_call>m", []),  # Granite's: text unless "[" follows
        (("xlam", "granite"), "a m", ["<tool_call>"]),  # xLAM's: markup with no call, failed
    ],
)
def test_an_opener_the_chosen_format_gives_back_stays_text(
    detect: tuple[str, ...], text: str, raws: list[str]
) -> None:
    # A fuzz finding (tests/fuzz_regressions/granite-xlam-shared-opener-given-back.bin): shared with
    # xLAM and chosen for "m", Granite gave "<tool_call>" back as text, and it was lost: the opener
    # was committed while it chose, so the channel held nothing to give back.
    for chunks in ([b"a <tool_call>m"], bytewise(b"a <tool_call>m")):
        events = feed_chunks(chunks, "text", detect=detect)
        assert (text_of(events), [raw for _, raw, _ in failed(events)]) == (text, raws)
