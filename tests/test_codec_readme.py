"""The README's "Closing the loop" example runs as written against streamcalls serve, to the final answer."""

from __future__ import annotations

import json

import streamcalls
from tests.test_cli_async import ANSWER, run_readme_example

TEXT = "Let me check the weather in Paris and the Louvre's opening hours for Saturday."


def test_the_closing_the_loop_example_runs_as_written() -> None:
    result = run_readme_example("## Closing the loop", "### The codec", "--max-delay", "0.002")
    assert result.returncode == 0, result.stderr
    *lines, answer = result.stdout.splitlines()
    assert answer == ANSWER  # the server's next turn: the history was accepted
    messages = [json.loads(line) for line in lines]
    assert messages == [
        {"role": "user", "content": "Plan my Saturday"},
        {
            "role": "assistant",
            "content": TEXT,
            "tool_calls": [
                {
                    "id": "call_weather",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris","unit":"celsius"}'},
                },
                {
                    "id": "call_hours",
                    "type": "function",
                    "function": {
                        "name": "get_opening_hours",
                        "arguments": '{"place":"Musée du Louvre","day":"Saturday","lang":"en"}',
                    },
                },
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_weather",
            "content": '{"city":"Paris","temperature":21,"unit":"celsius"}',
        },
        {
            "role": "tool",
            "tool_call_id": "call_hours",
            "content": "Musée du Louvre is open 09:00-18:00 on Saturday",
        },
    ]
    # The assistant message it wrote reads back as the calls that were streamed.
    calls = streamcalls.extract(messages[1])
    assert [(c.id, c.name) for c in calls] == [
        ("call_weather", "get_weather"),
        ("call_hours", "get_opening_hours"),
    ]
