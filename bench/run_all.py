"""Run every benchmark in one process tree and print each figure beside its floor.

    make bench        # or: .venv/bin/python bench/run_all.py [--quick]

Machines here are shared and noisy: read medians and ratios, not single times."""

from __future__ import annotations

import importlib
import sys
import time

from _common import machine

BENCHES = ["tools_latency", "planner_latency", "cold_start", "serve_memory", "api_throughput"]


def main() -> int:
    quick = "--quick" in sys.argv
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
