"""``make sanitize``: the native path under AddressSanitizer and UndefinedBehaviorSanitizer.

    python -m tests.support.sanitize [pytest arguments]

It builds streamcalls/_native with ``-fsanitize=address,undefined`` into a copy
of the checkout's package, tests and fuzz harness (``build/sanitize/``,
git-ignored), checks that the copy is the one imported, and runs in it: the
differential tests (every recording of the corpus, the generated streams, the
framer at every limit, the text channel's occurrence test and trigger search), the fuzz tests (mutated recordings and random bytes
through both paths, every saved fuzz regression), then the fuzz gate's inputs.
The gate's fixed run is made first without the sanitizers (they take over the
coverage hooks libFuzzer needs), keeping every input it found; each of those
goes through the harness -- both paths, chunked and whole -- under them.
Python's allocator is switched to malloc (``PYTHONMALLOC=malloc``) so that ASan
watches every buffer the module reads: a read past one, a use after free or any
undefined behaviour stops the run with the sanitizer's report.  Leaks are not
checked (the interpreter keeps objects alive until exit on purpose).  Needs gcc
or clang with their sanitizer runtimes; says so and passes where there are none.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
NATIVE = ROOT / "streamcalls" / "_native"
BUILD = ROOT / "build" / "sanitize"
TESTS = (
    "tests/unit/test_native.py",
    "tests/unit/test_native_patches.py",
    "tests/unit/test_native_writer.py",
    "tests/unit/test_native_turn.py",
    "tests/corpus/test_native_streams.py",
    "tests/corpus/test_fuzz.py",
    "tests/unit/test_sse.py",
    "tests/corpus/test_corpus.py",
    "tests/unit/test_native_triggers.py",
    "tests/unit/test_trigger_search.py",
)
FLAGS = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g", "-O1")


def gate_options() -> tuple[str, ...]:
    """The fuzz gate's fixed options (fuzz/gate.py)."""
    spec = importlib.util.spec_from_file_location("fuzz_gate", ROOT / "fuzz" / "gate.py")
    assert spec is not None
    assert spec.loader is not None
    gate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gate)
    options: tuple[str, ...] = gate.OPTIONS
    return options


def compiler() -> str:
    return os.environ.get("CC") or str(sysconfig.get_config_var("CC") or "cc").split()[0]


def runtime(cc: str, name: str) -> str | None:
    """The sanitizer runtime's shared library, as the compiler finds it (None if it has none)."""
    found = subprocess.run([cc, f"-print-file-name={name}"], capture_output=True, text=True, check=False)
    path = found.stdout.strip()
    return path if os.path.isabs(path) and Path(path).exists() else None


def build(cc: str) -> Path:
    """A copy of the package, the tests and the fuzz harness, with the module built under the
    sanitizers; returns its folder (everything runs in it: a test imports the package beside it)."""
    if BUILD.exists():
        shutil.rmtree(BUILD)
    ignore = shutil.ignore_patterns("*.so", "__pycache__", "gate.log")
    for part in ("streamcalls", "tests", "fuzz", "benchmarks"):
        shutil.copytree(ROOT / part, BUILD / part, ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", BUILD / "pyproject.toml")
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    target = BUILD / "streamcalls" / "_native" / f"_speedups{suffix}"
    sources = sorted(str(path) for path in NATIVE.glob("*.c"))
    include = sysconfig.get_paths()["include"]
    command = [cc, "-shared", "-fPIC", "-std=c11", *FLAGS, f"-I{include}", *sources, "-o", str(target)]
    subprocess.run(command, check=True)
    return BUILD


def main(argv: list[str]) -> int:
    cc = compiler()
    if shutil.which(cc) is None:
        print(f"sanitize: skipped, no compiler ({cc})")
        return 0
    asan, ubsan = runtime(cc, "libasan.so"), runtime(cc, "libubsan.so")
    if asan is None or ubsan is None:
        print(f"sanitize: skipped, {cc} has no AddressSanitizer / UndefinedBehaviorSanitizer runtime")
        return 0
    where = build(cc)
    env = {
        **os.environ,
        "PYTHONPATH": str(where),
        "LD_PRELOAD": f"{asan} {ubsan}",
        "PYTHONMALLOC": "malloc",
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:strict_string_checks=1",
        "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
    }
    env.pop("STREAMCALLS_PURE_PYTHON", None)
    check = "import streamcalls._native as n; print(n.speedups.__file__ if n.speedups else 'not loaded')"
    loaded = subprocess.run(
        [sys.executable, "-c", check], cwd=where, env=env, capture_output=True, text=True, check=False
    )
    if not loaded.stdout.strip().startswith(str(where)):
        print(
            f"sanitize: FAILED, the sanitized build is not the one imported: {loaded.stdout}{loaded.stderr}"
        )
        return 1
    print(f"sanitize: {loaded.stdout.strip()} under ASan + UBSan ({cc})", flush=True)
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS, *argv],
        cwd=where,
        env=env,
        check=False,
    )
    if tests.returncode != 0:
        print("sanitize: FAILED (tests)")
        return tests.returncode
    # The fuzz gate's inputs: its fixed run, uninstrumented (ASan takes over the coverage hooks
    # atheris needs, and libFuzzer would find nothing new), keeping the inputs it found; then
    # each of them, and each seed, through the harness under the sanitizers.
    corpus = where / "gate-corpus"
    corpus.mkdir()
    found = subprocess.run(
        [sys.executable, str(ROOT / "fuzz" / "run.py"), *gate_options()],
        cwd=ROOT,
        env={**os.environ, "PYTHONHASHSEED": "0", "STREAMCALLS_FUZZ_CORPUS": str(corpus)},
        capture_output=True,
        check=False,
    )
    if found.returncode != 0:
        print("sanitize: FAILED (the fuzz gate, before the sanitizers: run make test)")
        return found.returncode
    replay = (
        "import sys; from pathlib import Path; from tests.support.fuzzing import fuzz_one\n"
        "inputs = sorted(Path(sys.argv[1]).iterdir())\n"
        "for path in inputs: fuzz_one(path.read_bytes())\n"
        "print(f'sanitize: {len(inputs)} inputs of the fuzz gate through the harness')"
    )
    gate = subprocess.run([sys.executable, "-c", replay, str(corpus)], cwd=where, env=env, check=False)
    if gate.returncode != 0:
        print("sanitize: FAILED (the fuzz gate's inputs)")
        return gate.returncode
    print("sanitize: passed, no finding")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
