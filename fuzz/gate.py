"""The fuzz gate of ``make test``: a reproducible atheris run whose verdict is one line.

    python fuzz/gate.py

It runs ``fuzz/run.py`` with a fixed seed and a fixed number of inputs, in a
throwaway corpus folder, so that the same code always gets the same verdict.
libFuzzer's whole output (the instrumented modules, every new coverage unit,
the recommended dictionary: hundreds of lines) goes to ``fuzz/gate.log``
(git-ignored), and one line is printed: inputs run, new coverage, result.
On a finding -- an exception, a failed check, a timeout -- it also prints
the log's last lines and the input libFuzzer saved (``crash-*``, to copy into
``tests/fuzz_regressions/`` with the fix), and exits with libFuzzer's status.
Without atheris (it does not build on every Python) it says so and passes.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOG = HERE / "gate.log"
# Fixed seed and runs; no time-aware scheduling or input reduction, which
# would make the inputs depend on how fast this machine is.
OPTIONS = ("-seed=1", "-runs=12000", "-entropic=0", "-reduce_inputs=0", "-timeout=10", "-print_final_stats=1")
TAIL_LINES = 40


def stat(log: str, name: str) -> str:
    """A ``stat::name: value`` line of libFuzzer's final statistics ("?" if absent)."""
    found = re.search(rf"^stat::{name}:\s*(\d+)", log, re.MULTILINE)
    return found.group(1) if found else "?"


def summary(log: str, status: int) -> str:
    """The gate's one line."""
    inputs = stat(log, "number_of_executed_units")
    new = stat(log, "new_units_added")
    if status == 0:
        result = "passed, no finding"
    else:
        saved = re.search(r"Test unit written to (\S+)", log)
        where = f", input saved to {saved.group(1)}" if saved else ""
        result = f"FAILED (libFuzzer exit status {status}{where})"
    return f"fuzz gate: {inputs} inputs run, {new} new coverage units, {result}; full log: {_shown(LOG)}"


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def main() -> int:
    if importlib.util.find_spec("atheris") is None:
        print(
            "fuzz gate: skipped, atheris is not installable here (the hypothesis fuzz tests still run in pytest)"
        )
        return 0
    with tempfile.TemporaryDirectory(prefix="streamcalls-fuzz-gate-") as corpus:
        env = {**os.environ, "PYTHONHASHSEED": "0", "STREAMCALLS_FUZZ_CORPUS": corpus}
        with LOG.open("wb") as log:
            status = subprocess.run(
                [sys.executable, str(HERE / "run.py"), *OPTIONS],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                check=False,
            ).returncode
    text = LOG.read_text(encoding="utf-8", errors="replace")
    if status != 0:
        # The list of instrumented modules says nothing about the finding.
        lines = [line for line in text.splitlines() if not line.startswith("INFO: Instrumenting ")]
        tail = lines[-TAIL_LINES:]
        print(f"---- last {len(tail)} lines of {_shown(LOG)} ----")
        print("\n".join(tail))
        print("----")
    print(summary(text, status))
    return 0 if status == 0 else max(status, 1)  # killed by a signal: negative


if __name__ == "__main__":
    sys.exit(main())
