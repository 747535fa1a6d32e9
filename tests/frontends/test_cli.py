"""The `sizing` CLI as a user runs it: a real subprocess."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SIZING = [str(Path(sys.executable).parent / "sizing")]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    env = {**os.environ, "SIZING_CACHE_DIR": str(tmp_path_factory.mktemp("cli-cache"))}

    def _run(*args, stdin: str | None = None):
        return subprocess.run(SIZING + list(args), input=stdin, capture_output=True, text=True, env=env, timeout=120)

    return _run


def test_tools_lists_every_tool_with_schema(run, registry):
    p = run("tools", "--json")
    assert p.returncode == 0, p.stderr
    names = [t["name"] for t in json.loads(p.stdout)]
    assert names == registry.names()
    assert {"resolve_model", "training_recipe", "min_cards", "inference_min_cards", "search_notes", "list_models", "list_hardware"} <= set(names)


def test_call_prints_result_json(run):
    p = run("call", "min_cards", "--args", json.dumps({"model": "Qwen2.5-72B", "strategy": "lora", "seq_len": 4096,
                                                        "framework": "LLaMA-Factory", "hardware": "Snt9B"}))
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["cards"] == 32


def test_call_error_exit_code_and_shape(run):
    p = run("call", "resolve_model", "--args", '{"name": "gpt-99-ultra"}')
    assert p.returncode == 1
    assert json.loads(p.stdout)["error"]["code"] == "unknown_model"
    p = run("call", "resolve_model", "--args", "{not json")
    assert json.loads(p.stdout)["error"]["code"] == "invalid_json"


def test_call_jsonl_batch_mode(run):
    lines = [
        {"model": "qwen2 72b", "strategy": "full", "seq_len": 4096, "framework": "MindSpeed-LLM", "hardware": "Snt9B"},
        "this is not json",
        {"model": "glm4-9b", "strategy": "lora", "seq_len": 8192, "framework": "LLaMA-Factory", "hardware": "Snt9B23"},
        {"model": "nope-1b"},
    ]
    stdin = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n\n"
    p = run("call", "min_cards", "-", stdin=stdin)
    out = [json.loads(line) for line in p.stdout.splitlines()]
    assert len(out) == 4  # one result per non-empty line, errors included, nothing lost
    assert out[0]["cards"] == 32
    assert out[1]["error"]["code"] == "invalid_json"
    assert out[2]["cards"] == 2
    assert out[3]["error"]["code"] == "unknown_model"
    assert p.returncode == 1


@pytest.mark.parametrize("fmt", ["csv", "json", "md"])
def test_tables_formats(run, fmt):
    p = run("tables", "recipes_llamafactory", "--format", fmt)
    assert p.returncode == 0, p.stderr
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(p.stdout)))
        assert len(rows) == 96 and rows[0]["source"]
    elif fmt == "json":
        assert len(json.loads(p.stdout)) == 96
    else:
        assert p.stdout.count("\n") == 96 + 2


def test_tables_unknown_name(run):
    p = run("tables", "secrets")
    assert p.returncode == 2 and "min_cards" in p.stderr


def test_call_path_imports_nothing_heavy(tmp_path):
    """`sizing call` must stay fast: no web framework, Gradio or LangChain on that path."""
    code = ("import sys; sys.argv=['sizing','call','resolve_model','--args','{\"name\":\"qwen2-7b\"}']\n"
            "from assistant.frontends import cli\n"
            "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('gradio','langchain','langchain_core','fastapi','uvicorn','fastmcp','slack_bolt','pandas','torch') if m in sys.modules]\n"
            "print('HEAVY=' + ','.join(heavy))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "SIZING_CACHE_DIR": str(tmp_path)})
    assert "HEAVY=\n" in p.stdout + "\n" and '"id": "qwen2-7b"' in p.stdout, p.stdout + p.stderr
