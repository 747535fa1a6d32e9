#!/usr/bin/env bash
# `make test-llm LLM_GGUF=/path/model.gguf`: the LLM path against a real model (opt-in; not part of `make test`).
#
# Builds llama.cpp's llama-server once from the llama.cpp source vendored in the llama-cpp-python sdist
# (about 15 minutes on 2 cores; GGML_NATIVE=OFF and AMX off, since a native build crashes under this
# kind of virtualisation), serves the GGUF model on loopback with its own chat template (--jinja, so
# tool calls work for models whose template has them), and runs tests/agent/test_real_llm.py against it:
# plumbing (requests reach the model, answers come back) and the grounding check on real answers.
#
# Settings (environment): LLM_GGUF (required), LLAMA_CPP_PYTHON_VERSION (sdist version, default below),
# LLAMA_BUILD_DIR (build cache), JOBS (build jobs, default 2), LLM_CTX (context, default 8192),
# LLM_THREADS (default 2), SIZING_LLM_TIMEOUT_S / SIZING_LLM_BUDGET_S (a CPU model reads the prompt slowly).
set -euo pipefail

: "${LLM_GGUF:?set LLM_GGUF=/path/to/model.gguf (a model whose chat template supports tools, e.g. Qwen2.5-1.5B-Instruct)}"
[ -f "$LLM_GGUF" ] || { echo "error: LLM_GGUF=$LLM_GGUF is not a file" >&2; exit 2; }
PY=${PY:-.venv/bin/python}
VERSION=${LLAMA_CPP_PYTHON_VERSION:-0.3.36}
BUILD_ROOT=${LLAMA_BUILD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sizing/llama.cpp-$VERSION}
SERVER=$BUILD_ROOT/build/bin/llama-server

if [ ! -x "$SERVER" ]; then
  echo "building llama-server from llama-cpp-python $VERSION's llama.cpp into $BUILD_ROOT (once; ~15 min on 2 cores)"
  mkdir -p "$BUILD_ROOT"
  [ -f "$BUILD_ROOT/llama_cpp_python-$VERSION.tar.gz" ] || \
    "$PY" -m pip download -q --disable-pip-version-check --no-deps --no-binary :all: -d "$BUILD_ROOT" "llama-cpp-python==$VERSION"
  tar -xzf "$BUILD_ROOT/llama_cpp_python-$VERSION.tar.gz" -C "$BUILD_ROOT"
  cmake -S "$BUILD_ROOT/llama_cpp_python-$VERSION/vendor/llama.cpp" -B "$BUILD_ROOT/build" -DCMAKE_BUILD_TYPE=Release \
    -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
    -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF \
    -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF  # no web UI: the build would try to download one
  cmake --build "$BUILD_ROOT/build" --target llama-server -j "${JOBS:-2}"
fi

PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
LOG=$(mktemp -t llama-server.XXXXXX.log)
"$SERVER" -m "$LLM_GGUF" --host 127.0.0.1 --port "$PORT" --jinja -c "${LLM_CTX:-8192}" -n 1024 \
  --threads "${LLM_THREADS:-2}" >"$LOG" 2>&1 &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null || true' EXIT

for _ in $(seq 1 300); do  # loading a model can take a while on a shared machine
  if "$PY" -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:$PORT/health', timeout=2).status != 200)" 2>/dev/null; then
    break
  fi
  kill -0 "$SERVER_PID" 2>/dev/null || { echo "error: llama-server exited; its log:" >&2; tail -30 "$LOG" >&2; exit 2; }
  sleep 1
done
echo "llama-server: $LLM_GGUF on http://127.0.0.1:$PORT/v1 (log: $LOG)"

SIZING_TEST_LLM_BASE_URL="http://127.0.0.1:$PORT/v1" \
SIZING_LLM_TIMEOUT_S=${SIZING_LLM_TIMEOUT_S:-180} SIZING_LLM_BUDGET_S=${SIZING_LLM_BUDGET_S:-600} \
  "$PY" -m pytest -q -s tests/agent/test_real_llm.py
