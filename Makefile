# The two commands a new user needs:  make demo  and  make test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test lint typecheck bench clean

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
	$(PY) -m ruff check streamcalls tests benchmarks
	$(PY) -m ruff format --check streamcalls tests benchmarks
	$(PY) -m mypy
	$(PY) -m pytest

# Benchmark against the SDK accumulators and the re-parse approach; prints the
# tables and writes benchmarks/results/latest.json and chart.png.
bench: $(VENV)/.bench-installed
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
