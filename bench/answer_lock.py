"""Behaviour lock for the offline planner: every question in a one-question-a-line file (default
/work/wt/prev_questions.txt) asked in-process through the offline planner, question -> answer text (plus
the tool calls), written to a JSON file. Run at a start commit and after each refactor, then diff: a
behaviour-preserving change leaves every answer byte-identical.

    PYTHONPATH=$PWD python bench/answer_lock.py OUT.json [--diff BEFORE.json] [--questions FILE] [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from multiprocessing import Pool
from pathlib import Path

from _common import ROOT  # noqa: F401  (puts the repo on sys.path)

from assistant.agent import Assistant
from assistant.context import Context
from assistant.settings import Settings

QUESTIONS = Path("/work/wt/prev_questions.txt")
_assistant: Assistant | None = None


def _init() -> None:
    global _assistant
    _assistant = Assistant(Context.create(Settings(cache_dir=Path(tempfile.mkdtemp()))), llm="offline")


def _ask(q: str) -> tuple[str, str]:
    assert _assistant is not None
    try:
        result = _assistant.ask(q)
        calls = [[c.name, c.args] for c in result.tool_calls]
        return q, json.dumps({"answer": result.answer, "tools": calls, "files": [f.content for f in result.files]}, ensure_ascii=False, sort_keys=True, default=str)
    except Exception as exc:  # a crash is behaviour too
        return q, json.dumps({"error": f"{type(exc).__name__}: {exc}"}, ensure_ascii=False)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--diff", type=Path)
    ap.add_argument("--questions", type=Path, default=QUESTIONS)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    qs = list(dict.fromkeys(q for q in args.questions.read_text(encoding="utf-8").splitlines() if q.strip()))
    with Pool(args.jobs, initializer=_init) as pool:
        answers = dict(pool.imap(_ask, qs, chunksize=8))
    args.out.write_text(json.dumps(answers, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"{len(answers)} answers -> {args.out}")
    if args.diff:
        old = json.loads(args.diff.read_text(encoding="utf-8"))
        diff = sorted(k for k in old.keys() | answers.keys() if old.get(k) != answers.get(k))
        print(f"{len(diff)} differ from {args.diff}")
        for k in diff[:30]:
            print("  ", k[:140])


if __name__ == "__main__":
    main()
