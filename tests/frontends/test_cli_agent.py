"""`sizing ask` and `sizing chat` as a user runs them (real subprocesses, offline planner)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SIZING = str(Path(sys.executable).parent / "sizing")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    env = {**os.environ, "SIZING_CACHE_DIR": str(tmp_path_factory.mktemp("cli-agent-cache")), "SIZING_LLM": "offline",
           "COLUMNS": "200"}

    def _run(*args, stdin: str | None = None):
        return subprocess.run([SIZING, *args], input=stdin, capture_output=True, text=True, env=env, timeout=180)

    return _run


def test_ask_prints_the_answer(run):
    p = run("ask", "Which ZeRO stage for full fine-tuning Llama-3-8B?")
    assert p.returncode == 0, p.stderr
    assert "ZeRO-2" in p.stdout and "8 cards" in p.stdout  # seed 000: llama3-8b full = ZeRO-2, 1 x 8
    assert "training_recipe" in p.stdout  # the tool calls behind the answer are listed


def test_ask_json_one_object(run):
    p = run("ask", "--json", "qwen2 72b 全参微调，序列长度4096，需要几个节点？")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert {"answer", "tool_calls", "model"} <= set(out) and out["model"] == "offline"
    rec = next(c for c in out["tool_calls"] if c["name"] == "training_recipe")
    assert rec["args"] == {"model": "qwen2-72b", "strategy": "full", "seq_len": 4096}
    assert rec["result"]["nodes"] == 4 and rec["result"]["zero_stage"] == 3 and rec["result"]["offload"] is True
    assert "4 个节点" in out["answer"] and "ZeRO-3-Offload" in out["answer"]


def test_ask_json_stdin_one_line_per_question(run):
    questions = ["qwen3-8b lora mindspeed minimum npus", "", "How many cards for gpt-99-ultra LoRA?", "用MindSpeed-LLM全参微调llama3.1-70b 8k 最少多少卡"]
    p = run("ask", "--json", "-", stdin="\n".join(questions) + "\n")
    assert p.returncode == 0, p.stderr
    outs = [json.loads(line) for line in p.stdout.splitlines()]
    assert len(outs) == 3  # the empty line is skipped
    assert "**8 cards**" in outs[0]["answer"]
    assert "not in the catalog" in outs[1]["answer"] and outs[1]["tool_calls"][0]["result"]["error"]["code"] == "unknown_model"
    assert "**64 张卡**" in outs[2]["answer"]


def test_ask_json_config_request_carries_files(run):
    p = run("ask", "--json", "Generate the LLaMA-Factory yaml for llama3-8b LoRA 8192")
    out = json.loads(p.stdout)
    assert out["files"][0]["filename"].endswith(".yaml") and "cutoff_len: 8192" in out["files"][0]["content"]


def test_chat_keeps_the_conversation(run):
    script = "qwen2.5-7b lora how many cards?\nand with 8k?\n用MindSpeed呢？\n/reset\nand with 8k?\n/exit\n"
    p = run("chat", stdin=script)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert out.count("min_cards(") >= 3
    assert '"seq_len": 8192' in out  # the follow-up kept the model and method and changed the length
    assert "MindSpeed-LLM：**2 张卡**" in out or "MindSpeed-LLM：2 张卡" in out  # seed 004: qwen2.5-7b lora 8192 MindSpeed = 2
    assert "history cleared" in out
    assert "Which model" in out.split("history cleared")[1]  # after /reset a bare follow-up has nothing to refer to


def test_llm_option_is_listed(run):
    p = run("ask", "--help")
    assert "--llm" in p.stdout and "--json" in p.stdout
