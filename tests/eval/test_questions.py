"""Question sets run the way the scorer runs them: one `sizing ask --json -` subprocess, one
question per line in, one JSON object per line out. Every `must` regex has to match the answer
(numbers stand alone, as in the scorer: `\\b64\\b` matches "需要64卡" but not "64B" or "64k"), no
`must_not` regex may match, and `lang: zh` answers must be in Chinese.

- dev_questions.yaml: a copy of the project's development questions (all must pass).
- more_questions.yaml: our own, pinned to the vendor tables (seeds 000/004 and the vLLM tables).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

HERE = Path(__file__).resolve().parent
SIZING = str(Path(sys.executable).parent / "sizing")
NUM = re.compile(r"\\b(\d+)\\b")


def standalone_numbers(pat: str) -> str:
    return NUM.sub(lambda m: rf"(?<![0-9.]){m.group(1)}(?!\.?[0-9]|\s?[bBkK](?![a-zA-Z]))", pat)


def run_questions(items: list[dict], tmp_path) -> list[dict]:
    env = {**os.environ, "SIZING_CACHE_DIR": str(tmp_path), "SIZING_LLM": "offline"}
    stdin = "".join(it["q"].replace("\n", " ") + "\n" for it in items)
    p = subprocess.run([SIZING, "ask", "--json", "-"], input=stdin, capture_output=True, text=True, env=env, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    lines = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == len(items), (len(lines), len(items), p.stderr[-2000:])
    return lines


def failures(items: list[dict], outputs: list[dict]) -> list[str]:
    bad = []
    for it, out in zip(items, outputs, strict=True):
        ans = out.get("answer", "")
        missing = [p for p in it.get("must", []) if not re.search(standalone_numbers(p), ans, re.I | re.S)]
        present = [p for p in it.get("must_not", []) if re.search(standalone_numbers(p), ans, re.I | re.S)]
        wrong_lang = it.get("lang") == "zh" and not re.search(r"[\u4e00-\u9fff]{4}", ans.split("来源：")[0])
        if not ans or missing or present or wrong_lang:
            bad.append(f"{it['q'][:120]!r}\n  missing={missing} present={present} zh={not wrong_lang}\n  answer: {ans[:600]!r}")
    return bad


@pytest.mark.parametrize("name", ["dev_questions.yaml", "more_questions.yaml"])
def test_question_set(name, tmp_path):
    items = yaml.safe_load((HERE / name).read_text(encoding="utf-8"))
    outputs = run_questions(items, tmp_path)
    bad = failures(items, outputs)
    assert not bad, f"{len(bad)}/{len(items)} failed:\n" + "\n".join(bad)
    assert all(o["model"] == "offline" and isinstance(o["tool_calls"], list) for o in outputs)
