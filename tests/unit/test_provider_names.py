"""A misspelt provider name is told the name it meant: ``'OpenAI'`` is ``openai``, ``'claude'`` is ``anthropic``."""

from __future__ import annotations

from typing import Any

import pytest

import streamcalls
from streamcalls import StreamParser, UsageError
from streamcalls._names import PROVIDER_NICKNAMES, maybe_meant_provider, unknown_provider
from streamcalls.providers import PROVIDER_NAMES

MEANT = [
    ("OpenAI", "openai"),  # another case
    ("ANTHROPIC", "anthropic"),
    (" gemini ", "gemini"),
    ("openai_responses", "openai-responses"),  # _ or a space for -
    ("OpenAI Responses", "openai-responses"),
    ("llama_cpp", "llama.cpp"),
    ("claude", "anthropic"),  # what people call it
    ("Claude", "anthropic"),
    ("ChatGPT", "openai"),
    ("google", "gemini"),
    ("vertex_ai", "gemini"),
    ("AWS", "bedrock"),
    ("responses", "openai-responses"),
    ("opnai", "openai"),  # a typo
    ("opneai", "openai"),
    ("open-ai", "openai"),
    ("antropic", "anthropic"),
    ("bedrok", "bedrock"),
    ("olama", "ollama"),
    ("cohre", "cohere"),
    ("atuo", "auto"),
]


@pytest.mark.parametrize(("given", "meant"), MEANT)
def test_stream_parser_names_the_provider_meant(given: str, meant: str) -> None:
    with pytest.raises(UsageError) as info:
        StreamParser(given)  # type: ignore[arg-type]  # a name read at run time
    assert str(info.value).startswith(
        f"unknown provider {given!r} (did you mean {meant!r}?); expected one of "
    )
    StreamParser(meant)  # type: ignore[arg-type]  # and the name it meant is one


@pytest.mark.parametrize("given", ["nope", "xyz", "", "gpt-4o-mini-2024", "a" * 500])
def test_no_guess_when_nothing_is_close(given: str) -> None:
    with pytest.raises(UsageError) as info:
        StreamParser(given)  # type: ignore[arg-type]
    message = str(info.value)
    assert "did you mean" not in message
    assert message.startswith(
        f"unknown provider {given!r:.100}; expected one of 'openai', 'openai-responses', "
    )
    assert message.endswith(", 'auto'")
    assert len(message) < 500  # a long name is cut in the message


@pytest.mark.parametrize("given", [3, None, b"openai", ["openai"]])
def test_a_provider_that_is_not_a_string(given: Any) -> None:
    with pytest.raises(UsageError, match=r"^unknown provider .*; expected one of 'openai'"):
        StreamParser(given)


def test_every_front_that_takes_a_provider_names_the_one_meant() -> None:
    with pytest.raises(UsageError, match=r"unknown provider 'Claude' \(did you mean 'anthropic'\?\)"):
        streamcalls.parse(b"", "Claude")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"unknown provider 'OpenAI' \(did you mean 'openai'\?\)"):
        streamcalls.parse_iter(b"", "OpenAI")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"unknown provider 'OpenAI' \(did you mean 'openai'\?\)"):
        streamcalls.aparse(_nothing(), provider="OpenAI")  # type: ignore[arg-type]


async def _nothing() -> Any:  # an async source that is never read
    yield b""


def test_the_names_themselves_and_their_nicknames() -> None:
    for name in PROVIDER_NAMES:
        assert maybe_meant_provider(name) == name
    assert set(PROVIDER_NICKNAMES.values()) <= set(PROVIDER_NAMES)  # every nickname leads to a name
    assert not set(PROVIDER_NICKNAMES) & set(PROVIDER_NAMES)


def test_the_message_takes_another_list_of_names() -> None:
    # The codec's names have no "auto": a caller may give its own list.
    codec = ("openai", "anthropic", "gemini")
    assert maybe_meant_provider("auto", codec) is None
    assert unknown_provider("Gemini", codec) == (
        "unknown provider 'Gemini' (did you mean 'gemini'?); expected one of 'openai', 'anthropic', 'gemini'"
    )
