"""Run every benchmark in one process tree and print each figure beside its floor.

    make bench        # or: .venv/bin/python bench/run_all.py [--quick]

The output is also written to bench/results/latest.md (the README's Performance section quotes such
a run). Machines here are shared and noisy: read medians and ratios, not single times."""

from __future__ import annotations

import contextlib
import importlib
import io
import sys
import time
from typing import TextIO

from _common import ROOT, machine

BENCHES = ["tools_latency", "planner_latency", "cold_start", "serve_memory", "api_throughput", "slack_queue",
           "llm_fallback"]
RESULTS = ROOT / "bench" / "results" / "latest.md"


class Tee(io.TextIOBase):
    """Print to the terminal and keep a copy for the results file."""

    def __init__(self, *streams: TextIO) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for s in self.streams:
            s.write(text)
        return len(text)

    def flush(self) -> None:
        for s in self.streams:
            s.flush()


def main() -> int:
    copy = io.StringIO()
    with contextlib.redirect_stdout(Tee(sys.stdout, copy)):
        code = run_benches("--quick" in sys.argv)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(copy.getvalue(), encoding="utf-8")
    print(f"\n(written to {RESULTS.relative_to(ROOT)})")
    return code


def run_benches(quick: bool) -> int:
    print(f"# Benchmarks — {time.strftime('%Y-%m-%d %H:%M')} — {machine()}")
    failed = []
    for name in BENCHES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            print(f"\n({name}: not available: {e})")
            continue
        try:
            mod.main(**({"quick": True} if quick and "quick" in mod.main.__code__.co_varnames else {}))
        except Exception as e:  # one broken benchmark must not hide the others
            failed.append(name)
            print(f"\n{name} FAILED: {type(e).__name__}: {e}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
