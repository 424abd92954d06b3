"""Coverage-guided fuzzing of StreamParser with atheris.

    python fuzz/run.py [atheris/libFuzzer options]     # e.g. -max_total_time=60

Seeds are every recorded stream in tests/data, written to the corpus folder
(``fuzz/corpus/``, or ``$STREAMCALLS_FUZZ_CORPUS``) when it does not exist yet.  A crash, hang or failed check is a bug: save the input that
libFuzzer writes (crash-*) into tests/fuzz_regressions/ so pytest replays it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import atheris

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

with atheris.instrument_imports():
    import streamcalls  # noqa: F401  (instrumented for coverage)

from tests.support.fuzzing import fuzz_one, seeds  # noqa: E402


def main() -> None:
    corpus = Path(os.environ.get("STREAMCALLS_FUZZ_CORPUS", HERE / "corpus"))
    if not corpus.exists() or not any(corpus.iterdir()):
        corpus.mkdir(parents=True, exist_ok=True)
        for number, seed in enumerate(seeds()):
            (corpus / f"seed-{number:04d}").write_bytes(seed)
    atheris.Setup([sys.argv[0], *sys.argv[1:], str(corpus)], fuzz_one)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
