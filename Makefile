# The whole set-up: `make demo` and `make test` (see README, Quick start).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_TEST := $(VENV)/.installed-test

.PHONY: demo test lint bench bench-full clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(STAMP_RUN)

demo: $(STAMP_RUN)
	$(BIN)/planner demo

test: $(STAMP_TEST)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -n 2 --nbmake tests notebooks

lint: $(STAMP_TEST)
	$(BIN)/ruff check .

bench: $(STAMP_TEST)
	$(BIN)/python -m benchmarks --suite quick

bench-full: $(STAMP_TEST)
	$(BIN)/python -m benchmarks --suite full

clean:
	rm -rf $(VENV) out .pytest_cache .ruff_cache
