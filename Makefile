# Entry points for a fresh machine: `make run` (web chat, runtime only), `make check` (fast tests),
# `make test` (every test; what CI runs). Installs come from the lock files in requirements/
# (pip-compile with hashes; `make lock` regenerates them from pyproject.toml).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip install -q --disable-pip-version-check
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
FAST_TIER := not browser and not real_frameworks and not packaging and not slow

.PHONY: install install-test run check test test-llm lint readme bench lock system-deps test-deps clean

$(BIN)/python:
	$(PY) -m venv $(VENV)

# The runtime: what the web chat, the API, Slack and the CLI import (no torch, DeepSpeed or LLaMA-Factory).
$(RUN_STAMP): requirements/run.lock pyproject.toml | $(BIN)/python
	$(PIP) --require-hashes -r requirements/run.lock
	$(PIP) --no-deps -e .
	touch $@

# The runtime plus the dev tools and the real frameworks the config tests check with (CPU torch 2.13.0).
$(TEST_STAMP): requirements/test.lock requirements/llamafactory.lock pyproject.toml | $(BIN)/python
	$(PIP) --require-hashes -r requirements/test.lock
	$(PIP) --require-hashes --no-deps -r requirements/llamafactory.lock
	$(PIP) --no-deps -e .
	touch $@ $(RUN_STAMP)

install: $(RUN_STAMP)
install-test: $(TEST_STAMP)

## run: install the runtime and start the web chat on http://127.0.0.1:7860 (offline planner, embedded knowledge)
run: $(RUN_STAMP)
	$(BIN)/sizing web --host $${HOST:-127.0.0.1} --port $${PORT:-7860}

## system-deps: Debian packages the tests need: Chromium, CJK and emoji fonts (browser tests), redis-server (the
## Slack replicas' shared store) and wrk (bench load generator)
system-deps:
	@if [ ! -x /usr/bin/chromium ] || ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || ! command -v wrk >/dev/null || ! command -v redis-server >/dev/null; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk fonts-noto-color-emoji wrk redis-server >/dev/null; \
	fi

## test-deps: the MCP Inspector CLI (npm), a real MCP client the tests drive
INSPECTOR := $(VENV)/inspector/node_modules/.bin/mcp-inspector
$(INSPECTOR): | system-deps
	@command -v npm >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null)
	npm install -q --no-audit --no-fund --prefix $(VENV)/inspector @modelcontextprotocol/inspector@2.12.0
test-deps: $(INSPECTOR)

## check: the fast tier (no browser, real frameworks, wheel build or slow files; short property-test rounds)
check: $(TEST_STAMP)
	HYPOTHESIS_PROFILE=check FUZZ_EXAMPLES=30 QUESTION_EXAMPLES=30 $(BIN)/pytest -q -m "$(FAST_TIER)"

## test: install everything, lint, and run the whole test suite (CI)
test: $(TEST_STAMP) system-deps test-deps lint
	$(BIN)/pytest -q

## test-llm: the LLM path against a real model (opt-in, not part of `test`): builds llama.cpp's llama-server once
## from the llama-cpp-python sdist (~15 min on 2 cores), serves LLM_GGUF=/path/model.gguf on loopback, runs a few questions
test-llm: $(TEST_STAMP)
	PY=$(BIN)/python LLM_GGUF="$(LLM_GGUF)" bash scripts/test_llm.sh

## lint: ruff, mypy over assistant/ (config in pyproject.toml), the README's generated tables
lint: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

readme: $(TEST_STAMP)
	$(BIN)/python scripts/readme_tables.py --write

bench: $(RUN_STAMP)
	$(BIN)/python bench/run_all.py

## lock: re-pin requirements/*.lock from pyproject.toml (needs the registry; a few minutes)
lock: $(TEST_STAMP)
	$(BIN)/pip-compile -q --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links \
	  --no-emit-trusted-host --extra dev --extra validate -o requirements/test.lock pyproject.toml
	$(BIN)/pip-compile -q --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links \
	  --no-emit-trusted-host -c requirements/test.lock -o requirements/run.lock pyproject.toml

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
