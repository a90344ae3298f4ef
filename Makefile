# Two commands: `make up` serves the embedded stack, `make test` runs the whole suite.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: up down test test-unit lint eval-retrieval bench-turns

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

up: $(STAMP)
	$(BIN)/turnstile up

down: $(STAMP)
	$(BIN)/turnstile down

lint: $(STAMP)
	$(BIN)/ruff check --no-cache .
	$(BIN)/ruff format --no-cache --check .
	$(BIN)/mypy --no-incremental
	$(BIN)/lint-imports --no-cache

test: lint
	$(BIN)/turnstile eval --mode mock
	$(BIN)/pytest -q

# tests/unit alone: the pure layers (domain rules, parsing, scoring) and the PDF and OCR
# readers; 1,324 tests in about 90 s here, a few with an embedded index or PostgreSQL.
test-unit: $(STAMP)
	$(BIN)/pytest -q tests/unit

eval-retrieval: $(STAMP)
	$(BIN)/turnstile eval retrieval-ab --a question-as-typed --b today

bench-turns: $(STAMP)
	$(BIN)/python -m bench.turns
