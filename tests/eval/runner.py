"""Run question files the way ../shared/eval/score.py does: one `sizing ask --json -` subprocess per
batch, plain questions as lines, conversations turn by turn as JSON lines {"question", "history"}
(the shape of REST's /v1/ask) with the earlier turns and answers."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
SIZING = str(Path(sys.executable).parent / "sizing")
NUM = re.compile(r"\\b(\d+)\\b")


@dataclass
class Turn:
    question: str
    answer: str
    must: list[str]
    must_not: list[str]
    lang: str | None
    label: str  # the conversation so far, for messages


def standalone_numbers(pat: str) -> str:
    """`\\b64\\b` means the number 64 on its own (as in score.py): also beside Chinese, not in 64B or 64k."""
    return NUM.sub(lambda m: rf"(?<![0-9.]){m.group(1)}(?!\.?[0-9]|\s?[bBkK](?![a-zA-Z]))", pat)


def ask_lines(lines: list[str], cache_dir: Path) -> list[dict]:
    env = {**os.environ, "SIZING_CACHE_DIR": str(cache_dir), "SIZING_LLM": "offline"}
    p = subprocess.run([SIZING, "ask", "--json", "-"], input="".join(line + "\n" for line in lines),
                       capture_output=True, text=True, env=env, timeout=900)
    assert p.returncode == 0, p.stderr[-2000:]
    out = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    assert len(out) == len(lines), (len(out), len(lines), p.stderr[-2000:])
    return out


def run_file(name: str, cache_dir: Path) -> list[Turn]:
    """Every answered turn of a question file: the single questions, then each conversation's turns."""
    items = yaml.safe_load((HERE / name).read_text(encoding="utf-8"))
    singles = [it for it in items if "turns" not in it]
    outs = ask_lines([it["q"].replace("\n", " ") for it in singles], cache_dir)
    turns = [Turn(it["q"], o.get("answer", ""), it.get("must", []), it.get("must_not", []), it.get("lang"), it["q"])
             for it, o in zip(singles, outs, strict=True)]
    convs = [it["turns"] for it in items if "turns" in it]
    history: list[list[dict]] = [[] for _ in convs]
    for k in range(max((len(c) for c in convs), default=0)):
        live = [j for j, c in enumerate(convs) if k < len(c)]
        reqs = [json.dumps({"question": convs[j][k]["q"], "history": history[j]}, ensure_ascii=False) for j in live]
        for j, o in zip(live, ask_lines(reqs, cache_dir), strict=True):
            t = convs[j][k]
            label = " / ".join(x["q"] for x in convs[j][: k + 1])
            turns.append(Turn(t["q"], o.get("answer", ""), t.get("must", []), t.get("must_not", []), t.get("lang"), label))
            history[j] += [{"role": "user", "content": t["q"]}, {"role": "assistant", "content": o.get("answer", "")}]
    return turns


def failures(turns: list[Turn]) -> list[str]:
    bad = []
    for t in turns:
        missing = [p for p in t.must if not re.search(standalone_numbers(p), t.answer, re.I | re.S)]
        present = [p for p in t.must_not if re.search(standalone_numbers(p), t.answer, re.I | re.S)]
        wrong_lang = t.lang == "zh" and not re.search(r"[\u4e00-\u9fff]{4}", t.answer.split("来源：")[0])
        if not t.answer or missing or present or wrong_lang:
            bad.append(f"{t.label[:160]!r}\n  missing={missing} present={present} zh={not wrong_lang}\n  answer: {t.answer[:600]!r}")
    return bad
