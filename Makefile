# Two commands: `make up` serves the embedded stack, `make test` runs the whole suite.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: up down test test-unit lint eval-retrieval bench-turns

# The project installs with uv (from PyPI, into the venv): about 10 s where pip takes about
# 100 s of CPU for the same 174 packages, most of a clean clone's fixed cost. uv does not
# read pip's configuration, so pip's find-links (where this machine keeps its CPU build of
# torch) are passed on; without uv (no registry) pip installs the same set.
UV_FIND_LINKS ?= $(or $(PIP_FIND_LINKS),$(shell $(PYTHON) -m pip config get global.find-links 2>/dev/null))
export UV_FIND_LINKS

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	( $(BIN)/python -m pip install -q uv \
	  && $(BIN)/uv pip install -q --python $(BIN)/python -e '.[dev]' ) \
	|| $(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

up: $(STAMP)
	$(BIN)/turnstile up

down: $(STAMP)
	$(BIN)/turnstile down

# mypy keeps its cache outside the checkout, so a clean clone on this machine (CI's) starts
# warm: 4 s instead of 62 s. A cached module is reused only when its source hash, mypy's
# version and its options match; a cold cache gives the same verdict, slower.
MYPY_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/turnstile/mypy

lint: $(STAMP)
	$(BIN)/ruff check --no-cache .
	$(BIN)/ruff format --no-cache --check .
	$(BIN)/mypy --cache-dir $(MYPY_CACHE)
	$(BIN)/lint-imports --no-cache

# Where the tests' processes keep compiled modules. This machine's environment sets
# PYTHONDONTWRITEBYTECODE, so every process (each pytest worker, each API, CLI and stack it
# starts) compiled every module it imported from source: about 30 s of CPU a pytest worker,
# a third of one test's time measured alone. The cache lives in the user's cache like
# mypy's and the worker's own (`worker.keep_bytecode`), never in the source tree, which is
# what that setting protects.
PYCACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/turnstile/pycache

test test-unit: export PYTHONPYCACHEPREFIX := $(PYCACHE)
test test-unit: export PYTHONDONTWRITEBYTECODE :=

# Compiled modules not rewritten for a week are dropped first: each run's temporary
# folders (a stack's home, the upgrade test's older tree) add their own, and a module still
# in use is only compiled again once.
#
# While lint runs, one process compiles what the test processes will import (the test
# modules with the code and plugins they import, and the local embedder's torch stack):
# on a clean clone the cache is cold, and four pytest workers starting at once would each
# compile the same modules (about 30 s of CPU each; 55 s once). Warm, it costs a few
# seconds beside lint.
test: $(STAMP)
	-find $(PYCACHE) -mindepth 1 -mtime +7 -delete 2>/dev/null
	$(BIN)/pytest --collect-only -q -p no:xdist -o addopts= >/dev/null & \
	$(BIN)/python -c "from backends.embeddings import LocalEmbedder; LocalEmbedder()" >/dev/null 2>&1 & \
	$(MAKE) --no-print-directory lint; status=$$?; wait; exit $$status
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
