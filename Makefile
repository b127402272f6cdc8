# The two commands a newcomer needs: `make run` (the main job) and `make test` (everything CI runs).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test lint

run: $(VENV)/.runtime
	$(BIN)/steadypress run

test: $(VENV)/.test lint
	$(BIN)/python -m pytest

lint: $(VENV)/.test
	$(BIN)/ruff check scripts tests benchmarks
	$(BIN)/ruff format --check scripts tests benchmarks
	$(BIN)/mypy

$(VENV)/.runtime: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e .
	touch $@

$(VENV)/.test: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@ $(VENV)/.runtime
