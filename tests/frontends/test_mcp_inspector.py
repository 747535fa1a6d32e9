"""MCP with a client nobody here wrote: the MCP Inspector CLI (npm, TypeScript SDK), over stdio
against `sizing mcp` and over streamable HTTP against the served app with an API key. The
TypeScript SDK checks structured content against a tool's output schema, so these tests are what
show that a tool error reaches such a client with its code, field and valid values.

The Inspector is installed by `make test-deps` (part of `make test`) into .venv/inspector."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.frontends.server import compose_app
from tests.conftest import serving

ROOT = Path(__file__).resolve().parents[2]
SIZING = str(Path(sys.executable).parent / "sizing")
INSPECTOR = ROOT / ".venv" / "inspector" / "node_modules" / ".bin" / "mcp-inspector"
KEY = "inspector-key-1"
MIN_CARDS_72B = ["model=qwen2.5-72b", "strategy=lora", "seq_len=4096", "framework=LLaMA-Factory", "hardware=Snt9B"]


@pytest.fixture(scope="module")
def inspector() -> str:
    path = os.environ.get("SIZING_MCP_INSPECTOR") or str(INSPECTOR)
    if Path(path).exists() and shutil.which("node"):
        return path
    if os.environ.get("CI"):
        pytest.fail(f"MCP Inspector not installed at {path}: `make test-deps` installs it")
    pytest.skip(f"MCP Inspector not installed at {path} (run `make test-deps`)")


def run(inspector: str, target: list[str], *args: str, env: dict | None = None) -> tuple[int, dict | None, str]:
    """One Inspector CLI call: (exit code, its JSON result or None, everything it printed)."""
    proc = subprocess.run([inspector, "--cli", *target, *args], capture_output=True, text=True, timeout=180,
                          cwd=str(ROOT), env={**os.environ, "HOME": os.environ.get("HOME", "/tmp"), **(env or {})})
    out = proc.stdout.strip()
    try:
        data = json.loads(out[out.index("{"):]) if "{" in out else None
    except ValueError:
        data = None
    return proc.returncode, data, proc.stdout + proc.stderr


def tool_error(result: dict | None) -> dict:
    """The canonical error a tool error carries as its text content."""
    assert result is not None and result.get("isError") is True, result
    assert "structuredContent" not in result, result
    return json.loads(result["content"][0]["text"])["error"]


def check_tools(inspector: str, target: list[str], **kw) -> None:
    # seeds/004: qwen2.5-72b | lora | 4096 | LLaMA-Factory Snt9B: 32*Ascend
    code, ok, text = run(inspector, target, "--method", "tools/call", "--tool-name", "min_cards", "--tool-arg",
                         *MIN_CARDS_72B, **kw)
    assert code == 0 and ok is not None and ok["structuredContent"]["cards"] == 32, text

    _, bad, text = run(inspector, target, "--method", "tools/call", "--tool-name", "min_cards", "--tool-arg", "model=5", **kw)
    err = tool_error(bad)
    assert (err["code"], err["field"]) == ("invalid_arguments", "model"), text

    _, unknown, text = run(inspector, target, "--method", "tools/call", "--tool-name", "min_cards", "--tool-arg",
                           "model=qwen9.9-1000b", **kw)
    err = tool_error(unknown)
    assert err["code"] == "unknown_model" and err["valid"], text

    _, bad_enum, text = run(inspector, target, "--method", "tools/call", "--tool-name", "min_cards", "--tool-arg",
                            "model=qwen2.5-72b", "hardware=tpu", **kw)
    err = tool_error(bad_enum)
    assert err["field"] == "hardware" and "Snt9B" in json.dumps(err), text


def test_inspector_over_stdio(inspector, tmp_path):
    env = {"SIZING_CACHE_DIR": str(tmp_path), "SIZING_LLM": "offline"}
    check_tools(inspector, [SIZING, "mcp"], env=env)


def test_inspector_over_http_with_the_documented_header(inspector, ctx, settings):
    keyed = settings.model_copy(update={"api_keys": [KEY]})
    with serving(compose_app(ctx, keyed)) as base:
        check_tools(inspector, [f"{base}/mcp", "--transport", "http", "--header", f"Authorization: Bearer {KEY}"])
        # Without the key: the Inspector stops (it offers OAuth, which a static key does not have);
        # the README says which header to set.
        code, _, text = run(inspector, [f"{base}/mcp", "--transport", "http"], "--method", "tools/list")
        assert code != 0 and ("401" in text or "auth" in text.lower()), text
