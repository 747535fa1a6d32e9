"""The LLM path's failures as each front end shows them (issue 27), against the fake OpenAI-compatible
endpoint on loopback: `sizing ask` (a real process), REST `/v1/ask` (real uvicorn, httpx), the web
chat's answer handler and the Slack bridge's message. The checks themselves live in the agent layer (tests/agent/test_llm_failures.py);
here: that each front end gets them, and that /v1/ask leaves no LLM request running past its answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from assistant.context import Context
from assistant.frontends.server import compose_app
from tests.agent.fake_openai import FakeOpenAI, last_tool_result, sequence
from tests.conftest import serving

SIZING = str(Path(sys.executable).parent / "sizing")
QWEN3_8B = "qwen3-8b lora mindspeed minimum npus"  # seed 004: qwen3-8b lora 4096, MindSpeed-LLM on Snt9B = 8 cards
MIN_CARDS_72B = {"model": "Qwen2.5-72B-Instruct", "strategy": "lora", "seq_len": 4096, "framework": "LLaMA-Factory",
                 "hardware": "Snt9B"}


def small_model(body):
    """How a small model behaves: invents figures for one question, writes its tool call as text for the other."""
    question = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    if "qwen3-8b" in question:
        return {"content": "You need 12 nodes; a Snt9B node costs approximately 0.18 dollars."}
    result = last_tool_result(body)
    if result is None:
        return {"content": "```json\n" + json.dumps({"name": "min_cards", "arguments": MIN_CARDS_72B}) + "\n```"}
    return {"content": f"You need {result['cards']} cards (ModelArts minimum-card table, LLaMA-Factory, Snt9B)."}


def llm_settings(ctx, srv, **overrides):
    return ctx.settings.model_copy(update={"llm": "openai:small-model", "llm_base_url": srv.base_url, **overrides})


def llm_app(ctx, srv, **overrides):
    settings = llm_settings(ctx, srv, **overrides)
    return compose_app(Context(settings=settings, kb=ctx.kb), settings)


def test_sizing_ask(tmp_path, free_port):
    with FakeOpenAI(small_model, free_port) as srv:
        env = {**os.environ, "SIZING_CACHE_DIR": str(tmp_path), "SIZING_LLM": "openai:small-model",
               "SIZING_LLM_BASE_URL": srv.base_url}
        lines = f"{QWEN3_8B}\nMinimum cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?\n"
        p = subprocess.run([SIZING, "ask", "--json", "-"], input=lines, capture_output=True, text=True, env=env, timeout=180)
    assert p.returncode == 0, p.stderr
    invented, text_call = (json.loads(line) for line in p.stdout.splitlines() if line.startswith("{"))
    assert invented["model"] == "offline" and "**8 cards**" in invented["answer"]
    assert "12, 0.18" in invented["notice"] and "0.18" not in invented["answer"]
    # the tool call the model wrote as text was run; seed 004: qwen2.5-72b lora 4096, LLaMA-Factory on Snt9B = 32
    assert text_call["model"] == "openai:small-model" and text_call["answer"].startswith("You need 32 cards")
    assert [c["name"] for c in text_call["tool_calls"]] == ["min_cards"] and text_call["notice"] is None


def test_rest_ask(ctx, free_port):
    with FakeOpenAI(small_model, free_port) as srv, serving(llm_app(ctx, srv)) as url:
        r = httpx.post(f"{url}/v1/ask", json={"question": QWEN3_8B}, timeout=60)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["model"] == "offline" and "**8 cards**" in body["answer"] and "12, 0.18" in body["notice"]


def test_rest_ask_ends_the_llm_request_within_its_time_limit(ctx, free_port):
    # a slow model that would take 100 s: the answer comes from the offline planner inside the request's
    # 8 s, and the model's stream is closed rather than left running for the next caller to queue behind
    slow = sequence({"content": "You need eight cards. " * 200, "piece_delay": 0.5})
    with FakeOpenAI(slow, free_port) as srv, \
            serving(llm_app(ctx, srv, request_timeout_s=8)) as url:
        r = httpx.post(f"{url}/v1/ask", json={"question": QWEN3_8B}, timeout=60)
        body = r.json()
        assert r.status_code == 200, r.text
        assert body["model"] == "offline" and "time budget of 6 s" in body["notice"] and "**8 cards**" in body["answer"]
        for _ in range(100):  # the server notices the closed stream at its next write (0.5 s)
            if srv.cut:
                break
            time.sleep(0.05)
        assert srv.cut == 1 and srv.finished == 0 and len(srv.requests) == 1


def test_web_chat(ctx, free_port, tmp_path):
    from assistant.frontends.web import build_app

    with FakeOpenAI(small_model, free_port) as srv:
        settings = llm_settings(ctx, srv)
        demo = build_app(Context(settings=settings, kb=ctx.kb), settings, files_dir=tmp_path)
        answer = next(f.fn for f in demo.fns.values() if getattr(f.fn, "__name__", "") == "answer")
        *_, (chat, turns, banner) = answer(QWEN3_8B, [], [])
    shown = chat[-1]["content"]
    assert "**8 cards**" in shown and "0.18" not in shown and "12 nodes" not in shown
    assert banner["visible"] and "12, 0.18" in banner["value"] and "offline planner" in banner["value"]
    assert turns[-1] == {"role": "assistant", "content": shown}


def test_slack_message(ctx, free_port):
    """The Slack bridge's own assistant and message text (posting is tested in test_slack.py)."""
    from assistant.agent import Assistant
    from assistant.frontends.slack import SlackBridge

    with FakeOpenAI(small_model, free_port) as srv:
        # the message text needs neither the shared store nor Slack's client (posting is tested in test_slack.py)
        bridge = SlackBridge(Context(settings=llm_settings(ctx, srv), kb=ctx.kb), assistant_factory=Assistant,
                             store=None, client=None)  # type: ignore[arg-type]
        answer = bridge.assistant().ask(QWEN3_8B)
    text, _ = bridge.attachments(answer, "en")
    assert "**8 cards**" in text and "12 nodes" not in text.split("\n\n_")[0]
    assert text.endswith("_") and "12, 0.18" in text.rsplit("\n\n_", 1)[1]
