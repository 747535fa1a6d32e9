"""Snapshot of the offline answers: every question in tests/eval/*.yaml, tests/eval/fresh/*.yaml and
/work/shared/eval/dev_questions*.yaml (conversations turn by turn, with the earlier answers as history),
question -> answer text, written to a JSON file. Run before and after a writer refactor and diff the two:
a behaviour-preserving change leaves every answer byte-identical.

    PYTHONPATH=$PWD python bench/answer_snapshot.py OUT.json [--diff BEFORE.json]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import yaml
from _common import ROOT

from assistant.agent import Assistant
from assistant.answer import ChatTurn
from assistant.context import Context
from assistant.settings import Settings

SHARED = Path("/work/shared/eval")


def conversations(path: Path) -> list[list[str]]:
    """Each item as its list of user questions (a single question is a one-turn conversation)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    items = data.get("items", []) if isinstance(data, dict) else data or []
    out: list[list[str]] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        if "q" in item:
            out.append([str(item["q"])])
        elif "question" in item:
            out.append([str(item["question"])])
        elif isinstance(item.get("turns"), list):
            qs = [str(t.get("question") or t.get("q")) for t in item["turns"] if isinstance(t, dict)]
            if qs:
                out.append(qs)
    return out


def files() -> list[Path]:
    found = sorted((ROOT / "tests" / "eval").glob("*.yaml")) + sorted(
        (ROOT / "tests" / "eval" / "fresh").glob("*.yaml")
    )
    return found + sorted(SHARED.glob("dev_questions*.yaml"))


def main(out: Path, before: Path | None) -> None:
    assistant = Assistant(Context.create(Settings(cache_dir=Path(tempfile.mkdtemp()))), llm="offline")
    answers: dict[str, str] = {}
    for path in files():
        for n, turns in enumerate(conversations(path)):
            history: list[ChatTurn] = []
            for i, q in enumerate(turns):
                text = assistant.ask(q, history or None).answer
                answers[f"{path.name}#{n}.{i} {q}"] = text
                history += [ChatTurn(role="user", content=q), ChatTurn(role="assistant", content=text)]
    out.write_text(json.dumps(answers, ensure_ascii=False, indent=1), encoding="utf-8")
    print(f"{len(answers)} answers -> {out}")
    # (a planner exception reaches the user as "internal error (…)": each one is a bug, listed whatever the diff says)
    for key, text in answers.items():
        if "internal error (" in text:
            print("   internal error:", key[:120])
    if before:
        old = json.loads(before.read_text(encoding="utf-8"))
        diff = [k for k in old.keys() | answers.keys() if old.get(k) != answers.get(k)]
        print(f"{len(diff)} differ from {before}")
        for k in sorted(diff)[:20]:
            print("  ", k[:120])


if __name__ == "__main__":
    # (argparse: a bare `--help` once became the name of a 5,000-answer output file)
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("out", type=Path, help="JSON file to write: question -> answer text")
    parser.add_argument("--diff", type=Path, metavar="BEFORE.json", help="an earlier snapshot to compare against")
    args = parser.parse_args()
    main(args.out, args.diff)
