"""The README's tool examples: mypy --strict accepts every one, and the typed-tool example runs."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text()


def examples() -> dict[str, str]:
    """Every python block of the README that is a whole program (it imports streamcalls), by the
    section it is in."""
    found: dict[str, str] = {}
    for match in re.finditer(r"```python\n(.*?)```", README, re.DOTALL):
        code = match.group(1)
        if re.search(r"^import streamcalls$", code, re.MULTILINE):
            heading = re.findall(r"^#+ (.+)$", README[: match.start()], re.MULTILINE)[-1]
            slug = re.sub(r"\W+", "_", heading.lower()).strip("_")
            found[f"{slug}_{sum(key.startswith(slug) for key in found)}"] = code
    return found


def test_the_tool_examples_are_found() -> None:
    assert set(examples()) == {
        "quick_start_0",
        "quick_start_1",
        "tools_from_typed_functions_0",
        "closing_the_loop_0",
        "live_arguments_0",
    }


def mypy(*files: Path) -> subprocess.CompletedProcess[str]:
    """mypy --strict over files of a user's own that import streamcalls, with the project's settings."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(ROOT / ".mypy_cache"),
            *map(str, files),
        ],
        cwd=ROOT,  # where streamcalls is found, as installed for development
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_mypy_strict_accepts_every_example(tmp_path: Path) -> None:
    for name, code in examples().items():
        (tmp_path / f"{name}.py").write_text(code)
    result = mypy(*sorted(tmp_path.glob("*.py")))
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_would_catch_a_mistake(tmp_path: Path) -> None:
    """The check has teeth: a wrong type in the same code fails it."""
    code = examples()["closing_the_loop_0"]  # run_tools with a {name: function} dict
    assert "tools=functions) as run:" in code
    (tmp_path / "wrong.py").write_text(
        code.replace("tools=functions) as run:", 'tools=functions, timeout="10") as run:')
    )
    result = mypy(tmp_path / "wrong.py")
    assert result.returncode == 1
    assert 'No overload variant of "run_tools" matches argument types' in result.stdout


def test_the_typed_tool_example_runs() -> None:
    code = examples()["tools_from_typed_functions_0"]
    namespace: dict[str, object] = {"__name__": "readme_example"}
    exec(compile(code, "README.md", "exec"), namespace)
