# The whole set-up: `make demo` and `make test` (see README, Quick start); `make docs` builds the site.
#
# Installs are locked: every package comes at the version in requirements.lock (the versions we
# tested), through PIP_CONSTRAINT so that pip's build environments obey it too. pyproject.toml keeps
# compatible ranges; `make lock` re-resolves them and rewrites the lock; `make test-latest` runs the
# suite against the newest releases in a separate environment (not part of CI).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
LOCK := requirements.lock
STAMP_RUN := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test
STAMP_DOCS := $(VENV)/.installed-docs
LATEST := .venv-latest
LOCKING := .venv-lock
PYTEST_ARGS := -q -n 2 --nbmake tests notebooks
# The simulator's modules that setup.py compiles with mypyc: an edit to one rebuilds the install.
COMPILED := setup.py planner/simulator/compiled.txt $(shell grep -v '^\#' planner/simulator/compiled.txt)

.PHONY: demo test lint docs bench bench-full lock test-latest clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	PIP_CONSTRAINT=$(CURDIR)/$(LOCK) $(BIN)/python -m pip install --quiet pip setuptools

$(STAMP_RUN): pyproject.toml $(LOCK) $(COMPILED) | $(BIN)/python
	PIP_CONSTRAINT=$(CURDIR)/$(LOCK) $(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP_TEST): pyproject.toml $(LOCK) $(COMPILED) | $(BIN)/python
	PIP_CONSTRAINT=$(CURDIR)/$(LOCK) $(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(STAMP_RUN) $(STAMP_DOCS)

$(STAMP_DOCS): pyproject.toml $(LOCK) $(COMPILED) | $(BIN)/python
	PIP_CONSTRAINT=$(CURDIR)/$(LOCK) $(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $@ $(STAMP_RUN)

demo: $(STAMP_RUN)
	$(BIN)/planner demo

test: $(STAMP_TEST)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(STAMP_TEST)
	$(BIN)/ruff check .

# The documentation site (docs/, mkdocs.yml) into site/; strict: any warning fails the build.
docs: $(STAMP_DOCS)
	$(BIN)/mkdocs build --strict --site-dir site

bench: $(STAMP_TEST)
	$(BIN)/python -m benchmarks --suite quick

bench-full: $(STAMP_TEST)
	$(BIN)/python -m benchmarks --suite full

# Resolve pyproject's ranges afresh (newest releases that fit, but for the versions held back in
# requirements-pins.txt, each with its reason) and write every installed version.
lock:
	rm -rf $(LOCKING)
	$(PYTHON) -m venv $(LOCKING)
	$(LOCKING)/bin/python -m pip install --quiet --upgrade pip setuptools
	PIP_CONSTRAINT=$(CURDIR)/requirements-pins.txt $(LOCKING)/bin/python -m pip install --quiet -e '.[test,notebooks]'
	{ echo "# The tested versions of every dependency: pip constraints, written by 'make lock'."; \
	  echo "# Used by 'make demo' and 'make test'; pyproject.toml keeps the compatible ranges."; \
	  $(LOCKING)/bin/python -m pip freeze --all --exclude-editable | grep -iv '^batchplan'; } > $(LOCK).tmp
	mv $(LOCK).tmp $(LOCK)
	rm -rf $(LOCKING)

# The suite against the newest releases, in its own environment: finds the next breaking release.
test-latest:
	rm -rf $(LATEST)
	$(PYTHON) -m venv $(LATEST)
	$(LATEST)/bin/python -m pip install --quiet --upgrade pip setuptools
	$(LATEST)/bin/python -m pip install --quiet --upgrade --upgrade-strategy eager -e '.[test]'
	$(LATEST)/bin/python -m pip freeze --exclude-editable > $(LATEST)/versions.txt
	@echo "newest releases installed: see $(LATEST)/versions.txt"
	$(LATEST)/bin/ruff check .
	$(LATEST)/bin/python -m pytest $(PYTEST_ARGS) -p no:cacheprovider

clean:
	rm -rf $(VENV) $(LATEST) $(LOCKING) out site .pytest_cache .ruff_cache .mypy_cache build planner/simulator/_build.json
	find planner -name "*.so" -delete
