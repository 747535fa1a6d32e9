# Two entry points for a fresh machine: `make run` (web chat) and `make test` (every test).
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test lint bench system-deps test-deps clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev,validate]'
	# LLaMA-Factory's own parser validates generated YAML; its gradio<=5.50 pin would downgrade the web chat's
	# gradio, so it goes on top without dependencies (what its parser needs is in the `validate` extra).
	$(BIN)/pip install -q --no-deps llamafactory==0.9.5
	touch $(STAMP)

install: $(STAMP)

## run: install and start the web chat on http://127.0.0.1:7860 (offline planner, embedded knowledge)
run: $(STAMP)
	$(BIN)/sizing web --host $${HOST:-127.0.0.1} --port $${PORT:-7860}

## system-deps: Debian packages the browser tests need (Chromium, CJK and emoji fonts) and wrk (bench load generator)
system-deps:
	@if [ ! -x /usr/bin/chromium ] || ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || ! command -v wrk >/dev/null; then \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk fonts-noto-color-emoji wrk >/dev/null; \
	fi

## test-deps: the MCP Inspector CLI (npm), a real MCP client the tests drive
INSPECTOR := $(VENV)/inspector/node_modules/.bin/mcp-inspector
$(INSPECTOR): | system-deps
	@command -v npm >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null)
	npm install -q --no-audit --no-fund --prefix $(VENV)/inspector @modelcontextprotocol/inspector@2.12.0
test-deps: $(INSPECTOR)

## test: install everything and run the whole test suite
test: $(STAMP) system-deps test-deps
	$(BIN)/ruff check .
	$(BIN)/pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
