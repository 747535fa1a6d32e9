"""One pasted setup, four ways in: the chat (offline planner), REST over HTTP (a real uvicorn), MCP through
the SDK's client, and the web app's "Check my setup" box (pasted and uploaded): the same tool result
everywhere, and the same words in the chat and the box."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from mcp import Client

from assistant.agent import Assistant
from assistant.frontends import web_setup
from assistant.frontends.mcp_server import build_mcp_server
from assistant.frontends.server import compose_app
from tests.conftest import serving

FIXTURES = Path(__file__).parents[1] / "setup_check" / "fixtures"
YAML = (FIXTURES / "qwen7b_lora_sft_z2.yaml").read_text()
QUESTION = f"OOM on 8 cards of 910B with this config:\n```yaml\n{YAML}```"


@pytest.fixture(scope="module")
def chat(ctx):
    return Assistant(ctx).ask(QUESTION)


def test_chat_rest_mcp_and_web_box_agree(ctx, settings, registry, chat, tmp_path):
    assert [c.name for c in chat.tool_calls] == ["check_setup"]
    in_chat = chat.tool_calls[0].result
    assert in_chat["verdict"] == "does_not_fit" and in_chat["change"]["settings"] == {"micro_batch": 1, "grad_accum": 8}

    with serving(compose_app(ctx, settings)) as url:
        r = httpx.post(f"{url}/v1/tools/check_setup", json={"text": QUESTION}, timeout=60)
    assert r.status_code == 200, r.text
    assert r.json() == in_chat

    async def over_mcp():
        async with Client(build_mcp_server(ctx, registry)) as client:
            return await client.call_tool("check_setup", {"text": QUESTION})

    import anyio

    result = anyio.run(over_mcp)
    assert not result.is_error and result.structured_content == in_chat

    pasted = web_setup.check(ctx, QUESTION, None, None, None)
    assert pasted == chat.answer
    upload = tmp_path / "train.yaml"
    upload.write_text(YAML, encoding="utf-8")
    uploaded = web_setup.check(ctx, None, str(upload), "snt9b", 8)
    # the same verdict and change; the uploaded file says nothing of the cards, the box's fields do
    assert uploaded.split("\n\n")[:2] == chat.answer.split("\n\n")[:2]


def test_web_box_errors_are_specific(ctx, tmp_path):
    assert web_setup.check(ctx, "", None, None, None).startswith("Paste a setup or upload a file first.")
    bad = tmp_path / "bad.yaml"
    bad.write_text("model_name_or_path: Qwen/Qwen2.5-7B\ncutoff_len: 4096: 8192\nstage: sft\n", encoding="utf-8")
    assert web_setup.check(ctx, None, str(bad), None, None).startswith(
        "I could not check this setup: The LLaMA-Factory YAML is not valid YAML at line")
    # a fault read as meant ("[4096" never closed is 4096) is named with its line, and the rest is checked
    bad.write_text("model_name_or_path: Qwen/Qwen2.5-7B\ncutoff_len: [4096\nstage: sft\n", encoding="utf-8")
    assert web_setup.check(ctx, None, str(bad), None, None).startswith("**Line 2 of the YAML, `cutoff_len: [4096`,")
