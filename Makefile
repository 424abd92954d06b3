# The two commands a new user needs:  make demo  and  make test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test fuzz bench clean

# The fuzz run that `make test` (CI) includes: a fixed seed and a fixed number of
# inputs, so that the same code always gets the same verdict.  `make fuzz` explores.
FUZZ_GATE = PYTHONHASHSEED=0 $(PY) fuzz/run.py -seed=1 -runs=12000 -entropic=0 -reduce_inputs=0 -timeout=10 -print_final_stats=1
FUZZ_SECONDS ?= 600

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $@

$(VENV)/.dev-installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(VENV)/.installed $(VENV)/.demo-installed $@

$(VENV)/.demo-installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[demo]'
	touch $(VENV)/.installed $@

$(VENV)/.bench-installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[bench]'
	touch $(VENV)/.installed $@

demo: $(VENV)/.demo-installed
	$(PY) -m streamcalls demo

test: $(VENV)/.dev-installed
	$(PY) -m ruff check streamcalls tests benchmarks fuzz
	$(PY) -m ruff format --check streamcalls tests benchmarks fuzz
	$(PY) -m mypy
	$(PY) -m pytest
	if $(PY) -c "import atheris" 2>/dev/null; then \
		corpus=$$(mktemp -d) && STREAMCALLS_FUZZ_CORPUS=$$corpus $(FUZZ_GATE); status=$$?; rm -rf $$corpus; exit $$status; \
	else echo "atheris is not installable here: the coverage-guided fuzz run is skipped"; fi

# Explore: hypothesis draws new inputs, then atheris runs for FUZZ_SECONDS.  A finding
# leaves a crash-* file: copy it into tests/fuzz_regressions/ with the fix.
fuzz: $(VENV)/.dev-installed
	STREAMCALLS_HYPOTHESIS=explore STREAMCALLS_FUZZ_EXAMPLES=20000 $(PY) -m pytest -q tests/test_fuzz.py
	$(PY) fuzz/run.py -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1

# Benchmark against the SDK accumulators and the re-parse approach; prints the
# tables and writes benchmarks/results/latest.json and chart.png.
bench: $(VENV)/.bench-installed
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
