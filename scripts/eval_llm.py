#!/usr/bin/env python3
"""Score an LLM beside the offline planner on question files in the shared eval format
(``../shared/eval/dev_questions*.yaml``), so a team can see which to run.

    .venv/bin/python scripts/eval_llm.py --llm openai:qwen2.5-7b-instruct --base-url http://HOST:8000/v1 [QUESTIONS.yaml ...]

Each file is scored twice by the project's scorer (``score.py``, run as it is, with ``--cmd``): once with
``sizing ask --json --llm offline -`` and once with ``--llm MODEL``. Besides the scores it counts how
the LLM's answers came out: answered by the LLM, replaced by the offline planner (and the commonest
reasons), or shown with figures marked. The LLM's key comes from SIZING_LLM_API_KEY (or the
provider's own variable); the other SIZING_LLM_* settings apply as usual.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# shared/ sits beside the checkout (a git worktree is one level deeper)
DEFAULT_SCORER = next((p for p in (ROOT.parent / "shared" / "eval" / "score.py", ROOT.parent.parent / "shared" / "eval" / "score.py")
                       if p.exists()), ROOT.parent / "shared" / "eval" / "score.py")


def relay(log: str, cmd: list[str]) -> int:
    """Run ``cmd`` with this process's stdin, copying its stdout to ours and to ``log`` (the scorer reads one)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    with open(log, "a", encoding="utf-8") as out:
        for line in proc.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            out.write(line)
    return proc.wait()


def outcomes(log: Path) -> collections.Counter:
    """How the answers came out: the model that answered, and for a fallback the reason's first words."""
    seen: collections.Counter = collections.Counter()
    for line in log.read_text(encoding="utf-8").splitlines():
        try:
            ans = json.loads(line)
        except ValueError:
            continue
        notice = ans.get("notice") or ""
        if ans.get("error"):
            seen["error: " + ans["error"].get("message", "")[:60]] += 1
        elif ans.get("model") != "offline":
            seen["marked figures" if "marked" in notice else "answered by the LLM"] += 1
        elif "no tool returned" in notice:
            seen["offline planner: the LLM's figures were not from a tool"] += 1
        else:
            reason = re.sub(r"^.*?LLM '[^']*' failed: ", "", notice.split(" Answered by")[0])
            reason = re.sub(r"\(.*", "", reason).strip(" .") or "?"
            seen["offline planner: " + reason[:70]] += 1
    return seen


def score(scorer: Path, questions: Path, llm: str, env: dict[str, str]) -> tuple[str, collections.Counter]:
    sizing = Path(sys.executable).parent / "sizing"
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "answers.jsonl"
        log.touch()
        cmd = shlex.join([sys.executable, __file__, "--relay", str(log), "--", str(sizing), "ask", "--json", "--llm", llm, "-"])
        p = subprocess.run([sys.executable, str(scorer), str(questions), "--cmd", cmd], capture_output=True, text=True,
                           env=env, cwd=ROOT)
        m = re.search(r"score: (\d+/\d+)", p.stdout)
        return (m.group(1) if m else f"(no score: {p.stdout[-200:]}{p.stderr[-200:]})"), outcomes(log)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--relay"]:  # the scorer's command: see relay()
        return relay(argv[1], argv[3:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--llm", required=True, help="provider string or model name (with --base-url), as SIZING_LLM takes")
    ap.add_argument("--base-url", help="OpenAI-compatible endpoint (sets SIZING_LLM_BASE_URL)")
    ap.add_argument("--scorer", type=Path, default=DEFAULT_SCORER, help=f"score.py (default {DEFAULT_SCORER})")
    ap.add_argument("questions", nargs="*", type=Path, help="question files (default: dev_questions*.yaml beside the scorer)")
    args = ap.parse_args(argv)
    if not args.scorer.exists():
        print(f"error: no scorer at {args.scorer} (give --scorer PATH)", file=sys.stderr)
        return 2
    files = args.questions or sorted(args.scorer.parent.glob("dev_questions*.yaml"))
    env = {**os.environ, **({"SIZING_LLM_BASE_URL": args.base_url} if args.base_url else {})}
    print(f"| questions | offline planner | {args.llm} |\n|---|---|---|")
    totals: collections.Counter = collections.Counter()
    for q in files:
        offline, _ = score(args.scorer, q, "offline", env)
        llm, seen = score(args.scorer, q, args.llm, env)
        totals.update(seen)
        print(f"| {q.name} | {offline} | {llm} |", flush=True)
    print(f"\nHow {args.llm}'s answers came out:")
    for what, n in totals.most_common():
        print(f"  {n:4d}  {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
