"""scripts/eval_llm.py: the project's scorer run on the offline planner and on an LLM (here the fake
endpoint, playing a small model that invents figures), scores side by side with how the LLM's answers
came out."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.agent.fake_openai import FakeOpenAI, sequence

ROOT = Path(__file__).resolve().parents[1]
SCORER = next((p for p in (ROOT.parent / "shared" / "eval" / "score.py", ROOT.parent.parent / "shared" / "eval" / "score.py")
               if p.exists()), ROOT / "missing")

QUESTIONS = """\
- q: "qwen3-8b lora mindspeed minimum npus"
  must: ['\\b8\\b']
- q: "Minimum cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?"
  must: ['\\b32\\b']
"""


@pytest.mark.skipif(not SCORER.exists(), reason="the shared scorer is not beside this checkout")
def test_llm_scored_beside_the_offline_planner(tmp_path, free_port):
    questions = tmp_path / "two.yaml"
    questions.write_text(QUESTIONS, encoding="utf-8")
    with FakeOpenAI(sequence({"content": "You need 12 nodes."}), free_port) as srv:
        env = {**os.environ, "SIZING_CACHE_DIR": str(tmp_path)}
        p = subprocess.run([sys.executable, str(ROOT / "scripts" / "eval_llm.py"), "--llm", "openai:small-model",
                            "--base-url", srv.base_url, str(questions)], capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr
    # seed 004: both answers are in the minimum-card table (8 and 32 cards); the small model's "12 nodes" is
    # replaced by the offline planner's answer each time, so both columns score 2/2
    assert "| two.yaml | 2/2 | 2/2 |" in p.stdout, p.stdout
    assert "   2  offline planner: the LLM's figures were not from a tool" in p.stdout, p.stdout
