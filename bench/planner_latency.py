"""Offline planner, whole answer (question in, text out, through the LangChain agent loop), p50/p99
over the example questions, next to its floor: the sum of the tool calls that answer made, timed
directly. Target p50 <= 30 ms."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import yaml
from _common import ROOT, ms, pct, print_table

from assistant.agent import Assistant
from assistant.context import Context
from assistant.settings import Settings
from assistant.tools import REGISTRY

QUESTIONS = ROOT / "tests" / "eval" / "dev_questions.yaml"


def main(rounds: int = 15) -> None:
    ctx = Context.create(Settings(cache_dir=Path(tempfile.mkdtemp())))
    assistant = Assistant(ctx, llm="offline")
    questions = [q["q"] for q in yaml.safe_load(QUESTIONS.read_text(encoding="utf-8"))]
    answers = {q: assistant.ask(q) for q in questions}  # warm-up, and the tool calls each answer makes
    whole, floor = [], []
    for _ in range(rounds):
        for q in questions:
            t = time.perf_counter()
            assistant.ask(q)
            whole.append(time.perf_counter() - t)
            t = time.perf_counter()
            for c in answers[q].tool_calls:
                REGISTRY.call(c.name, c.args, ctx)
            floor.append(time.perf_counter() - t)
    p50 = pct(whole, 50)
    print(f"\nOffline planner, whole answer through the agent loop ({len(questions)} questions x {rounds} rounds, ms)")
    print_table(["what", "p50", "p99", "target"], [
        ["question -> answer (agent loop)", ms(p50), ms(pct(whole, 99)), "p50 <= 30 ms " + ("ok" if p50 <= 0.030 else "OVER")],
        ["floor: its tool calls alone", ms(pct(floor, 50)), ms(pct(floor, 99)), "-"],
        ["ratio", f"{p50 / max(pct(floor, 50), 1e-9):.1f}x", "", ""],
    ])


if __name__ == "__main__":
    main()
