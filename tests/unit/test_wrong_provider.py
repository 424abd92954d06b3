"""A stream read under another provider's name says so, once, at its first record.

Every recording of a provider is read as every other provider of its framing (the SSE ones:
OpenAI Chat, Responses, Anthropic, Cohere, Gemini; the AWS event-stream ones: ConverseStream and
InvokeModel), whole and one byte at a time: the first record gives one ParseError naming the
provider ``"auto"`` recognizes (``provider='openai'?``), then the stream finishes as an error and
the rest is ignored -- no truncation blamed, no exception.  Problems of the bytes themselves
(a frame whose CRC does not match, invalid UTF-8) are the framer's, and are still reported.

The one exception, with its reason: :data:`OPENS_WITH_AN_ERROR`.
"""

from __future__ import annotations

import pytest

import streamcalls._parser
from streamcalls import ParseError, StreamFinished
from streamcalls._adapter import Adapter
from streamcalls.providers import ADAPTERS, looks_like
from tests.support import DATA, Case, bytewise, corpus, feed_chunks

GROUPS = {
    ".sse": ("openai", "openai-responses", "anthropic", "cohere", "gemini"),
    ".bin": ("bedrock", "bedrock-invoke"),
}

#: A stream whose first record is an error: an exception frame is a member of both Bedrock
#: operations' unions, so it tells neither (a ProviderError under both, as an error body is
#: under every provider).
OPENS_WITH_AN_ERROR = frozenset({"bedrock/throttled.bin"})

#: What a framer reports about the bytes themselves, whichever provider reads them.
FRAMING = ("event stream ", "invalid UTF-8 ")

PAIRS = [
    (case, other)
    for case in corpus()
    for other in GROUPS.get(case.path.suffix, ())
    if other != case.provider and case.id not in OPENS_WITH_AN_ERROR
]


def title(provider: str) -> str:
    cls: type[Adapter] = ADAPTERS[provider]
    return cls.title


@pytest.mark.parametrize(("case", "other"), PAIRS, ids=[f"{c.id}-as-{o}" for c, o in PAIRS])
def test_read_as_another_provider(case: Case, other: str) -> None:
    message = (
        f"these records look like {title(case.provider)}, not {title(other)}; provider={case.provider!r}?"
    )
    for chunks in ([case.data()], bytewise(case.data())):
        events = feed_chunks(chunks, other, **case.options())
        own = [e for e in events if not (type(e) is ParseError and e.message.startswith(FRAMING))]
        assert [type(e) for e in own] == [ParseError, StreamFinished]
        assert own[0].message == message  # type: ignore[union-attr]
        assert own[1] == StreamFinished("error", None, None)


def test_every_pair_of_each_framing_is_checked() -> None:
    checked = {(case.provider, other) for case, other in PAIRS}
    for group in GROUPS.values():
        for provider in group:
            for other in group:
                if provider != other:
                    assert (provider, other) in checked


def test_the_exceptions_open_with_an_error() -> None:
    for case in corpus():
        if case.id in OPENS_WITH_AN_ERROR:
            for other in GROUPS[case.path.suffix]:
                assert type(feed_chunks([case.data()], other)[0]).__name__ == "ProviderError"


def test_a_record_the_adapter_reads_is_never_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    # The check runs only on a first record the adapter does not claim: an OpenAI stream read as
    # openai never asks who else it could be (the default path's cost is unchanged).
    asked: list[object] = []

    def counting(name: str | None, obj: object) -> tuple[str, str] | None:
        asked.append(obj)
        return looks_like(name, obj)

    monkeypatch.setattr(streamcalls._parser, "looks_like", counting)
    data = (DATA / "openai" / "one_call.sse").read_bytes()
    feed_chunks([data], "openai")
    assert asked == []
    feed_chunks([data], "anthropic")
    assert len(asked) == 1
