# The two commands a new user needs:  make demo  and  make test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: demo test docs site-check node-check fuzz sanitize bench clean

LINTED := streamcalls tests benchmarks fuzz docs/_ext
FUZZ_SECONDS ?= 600
# Debian's chromium and its driver (apt-get install chromium chromium-driver), for make site-check
CHROMIUM ?= /usr/bin/chromium
CHROMEDRIVER ?= /usr/bin/chromedriver
# make test fails under these (percent of statements run by pytest and the processes it
# starts; tests/support/coverage_floors.py): the whole package, and the sans-IO core below aio/.
# Both were 97.3% when set, a little above the floors so that noise does not fail it.
COVERAGE_FLOOR := 96
CORE_COVERAGE_FLOOR := 96.5
# The editable install links each file of streamcalls/ (in build/) and puts only that on
# sys.path, so that type checkers and IDEs see the package (the default mode's import hook
# hides it from mypy) and the checkout's tests/, benchmarks/ and fuzz/ stay out of every
# program's imports (compat mode would add the whole checkout).  A module added or removed
# changes its folder, which reinstalls.
INSTALL := $(PY) -m pip install --quiet --config-settings editable_mode=strict -e
PACKAGE_DIRS := $(shell find streamcalls -type d -not -name __pycache__)
# The native fast path (streamcalls/_native/, C): the install builds it in place (pip runs
# setup.py's build_ext, which falls back to the pure-Python package, saying so in one line, where
# it cannot build), so a checkout on PYTHONPATH uses it too; a changed source reinstalls.
NATIVE_SOURCES := setup.py $(wildcard streamcalls/_native/*.c streamcalls/_native/*.h)

$(VENV)/.installed: pyproject.toml $(PACKAGE_DIRS) $(NATIVE_SOURCES)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(INSTALL) .
	touch $@

$(VENV)/.dev-installed: pyproject.toml $(PACKAGE_DIRS) $(NATIVE_SOURCES)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(INSTALL) '.[dev]'
	touch $(VENV)/.installed $(VENV)/.demo-installed $(VENV)/.docs-installed $@

$(VENV)/.demo-installed: pyproject.toml $(PACKAGE_DIRS) $(NATIVE_SOURCES)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(INSTALL) '.[demo]'
	touch $(VENV)/.installed $@

$(VENV)/.docs-installed: pyproject.toml $(PACKAGE_DIRS) $(NATIVE_SOURCES)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(INSTALL) '.[docs]'
	touch $(VENV)/.installed $@

$(VENV)/.bench-installed: pyproject.toml $(PACKAGE_DIRS) $(NATIVE_SOURCES)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(INSTALL) '.[bench]'
	touch $(VENV)/.installed $@

demo: $(VENV)/.demo-installed
	$(PY) -m streamcalls demo

# The documentation site, into site/.  --strict: a broken link, a page left out of the
# nav, a missing reference or a docstring cross-reference that does not resolve fails
# the build.  Not --quiet: it hides the warnings that --strict counts, and the build passes.
# (NO_MKDOCS_2_WARNING: mkdocs-material's notice about mkdocs 2, on every build.)
docs: $(VENV)/.docs-installed
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict

# The site in a real browser (tests/support/site_check.py): builds it into a temporary folder, serves it
# on a loopback port and drives headless chromium: search finds pages (and a nonsense word none),
# the reference's signatures are formatted, no code block scrolls sideways.  About 15 seconds.
SITE_CHECK = env CHROMIUM=$(CHROMIUM) CHROMEDRIVER=$(CHROMEDRIVER) $(PY) -m tests.support.site_check
site-check: $(VENV)/.dev-installed
	$(SITE_CHECK)

# The "ai-sdk" writer's output read by the AI SDK's own client code (tests/integration/test_writer_node.py):
# the pinned ai package, installed into .node/ (git-ignored) by npm.  ai 6 runs on Node 18 and
# later (ai 7 wants 22).  STREAMCALLS_NODE_CHECK=1: a missing package fails the test, not skips it.
AI_SDK_VERSION := 6.0.325
NODE_AI := .node/.ai-$(AI_SDK_VERSION)
$(NODE_AI):
	npm install --prefix .node --no-save --no-package-lock --no-audit --no-fund --loglevel=error ai@$(AI_SDK_VERSION)
	touch $@
node-check: $(VENV)/.dev-installed $(NODE_AI)
	STREAMCALLS_NODE_CHECK=1 $(PY) -m pytest -q -p no:cacheprovider tests/integration/test_writer_node.py

# Every check runs, even after one fails, and the last lines are the verdict: one
# line per check.  The fuzz gate (fuzz/gate.py: a fixed seed and a fixed number of
# inputs, so the same code always gets the same verdict) prints one line and keeps
# libFuzzer's output in fuzz/gate.log; it runs before pytest, whose summary stays on
# the last screen.  `make fuzz` explores.
test: $(VENV)/.dev-installed
	@verdict=""; failed=0; \
	check() { name="$$1"; shift; echo "== $$name"; \
		if "$$@"; then verdict="$$verdict  passed  $$name\n"; \
		else verdict="$$verdict  FAILED  $$name\n"; failed=1; fi; }; \
	check "ruff check" $(PY) -m ruff check $(LINTED); \
	check "ruff format --check" $(PY) -m ruff format --check $(LINTED); \
	check "mypy --strict" $(PY) -m mypy; \
	check "docs build (mkdocs --strict)" env NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict; \
	check "fuzz gate (atheris, fixed seed)" $(PY) fuzz/gate.py; \
	if [ -x $(CHROMIUM) ] && [ -x $(CHROMEDRIVER) ]; then check "site in a browser (make site-check)" $(SITE_CHECK); \
	else verdict="$$verdict  skipped site in a browser: needs $(CHROMIUM) and $(CHROMEDRIVER) (apt-get install chromium chromium-driver)\n"; fi; \
	if command -v npm >/dev/null && node -e 'process.exit(+(process.versions.node.split(".")[0] < 18))' 2>/dev/null; \
	then check "ai-sdk stream read by the ai package in Node (make node-check)" $(MAKE) --no-print-directory node-check; \
	else verdict="$$verdict  skipped ai-sdk stream in Node: needs node 18 or later and npm\n"; fi; \
	if $(PY) -c 'import sys, streamcalls._native as n; sys.exit(n.speedups is None)'; \
	then verdict="$$verdict  passed  native fast path built: the differential tests ran (tests/*/test_native*.py)\n"; \
	else verdict="$$verdict  skipped native fast path: not built here (no compiler?) or STREAMCALLS_PURE_PYTHON=1\n"; fi; \
	rm -f .coverage .coverage.*; \
	check "pytest" $(PY) -m coverage run -m pytest; \
	echo "== coverage"; $(PY) -m coverage combine --quiet; \
	if line=$$($(PY) -m tests.support.coverage_floors $(COVERAGE_FLOOR) $(CORE_COVERAGE_FLOOR)); \
	then verdict="$$verdict  passed  $$line\n"; else verdict="$$verdict  FAILED  $$line\n"; failed=1; fi; \
	echo "$$line"; \
	if [ $$failed = 0 ]; then result="every check passed"; else result="FAILED"; fi; \
	printf '\n== make test: %s\n%b' "$$result" "$$verdict"; \
	exit $$failed

# Explore: hypothesis draws new inputs, then atheris runs for FUZZ_SECONDS.  A finding
# leaves a crash-* file: copy it into tests/fuzz_regressions/ with the fix.
fuzz: $(VENV)/.dev-installed
	STREAMCALLS_HYPOTHESIS=explore STREAMCALLS_FUZZ_EXAMPLES=20000 $(PY) -m pytest -q tests/corpus/test_fuzz.py
	$(PY) fuzz/run.py -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1

# The native fast path under AddressSanitizer and UndefinedBehaviorSanitizer (tests/support/sanitize.py):
# built apart into build/sanitize/, with Python's allocator switched to malloc, it runs the
# differential tests, the corpus, the fuzz tests and regressions, then the fuzz gate's inputs.
# Any read past a buffer or undefined behaviour stops it with the sanitizer's report.
sanitize: $(VENV)/.dev-installed
	$(PY) -m tests.support.sanitize

# Benchmark against the SDK accumulators and the re-parse approach; prints the
# tables and writes benchmarks/results/latest.json and chart.png, then ends with
# the regression guard: each row against the committed latest.json (a row more
# than 15% slower as a ratio to its floor, a missing row, memory over budget).
bench: $(VENV)/.bench-installed
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) .node .mypy_cache .ruff_cache .pytest_cache .hypothesis site build .coverage .coverage.*
	rm -f streamcalls/_native/*.so
