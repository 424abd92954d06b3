"""The README's "Closing the loop" example runs as written against streamcalls serve, to the final answer."""

from __future__ import annotations

from tests.test_cli_async import run_readme_example
from tests.test_docs_examples import closing_the_loop


def test_the_closing_the_loop_example_runs_as_written() -> None:
    result = run_readme_example("## Closing the loop", "### The codec", "--max-delay", "0.002")
    assert result.returncode == 0, result.stderr
    closing_the_loop(result.stdout)
