"""`sizing call` cold start (process start to JSON printed) vs `python -c "import duckdb, pydantic"`,
and the knowledge-base build time. Target: cold start under 2x that floor; nothing heavy imported on
that path. Rounds alternate floor and call so both see the same machine load; CPU time (user + sys
of the child) is reported beside wall time because it is steadier on a shared machine."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, median, print_table

from assistant.kb import build_database

BIN = Path(sys.executable).parent
HEAVY = ["gradio", "langchain", "langchain_core", "fastapi", "uvicorn", "fastmcp", "slack_bolt", "pandas", "torch",
         "typer", "yaml", "assistant.tools.estimates", "assistant.tools.configs"]


FLOOR = [sys.executable, "-c", "import duckdb, pydantic"]
TARGET_RATIO = 2.0


def _run(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def alternate(a: list[str], b: list[str], n: int) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """n runs of each command, interleaved a, b, a, b, ..."""
    runs_a, runs_b = [], []
    for _ in range(n):
        runs_a.append(_run(a))
        runs_b.append(_run(b))
    return runs_a, runs_b


def heavy_modules_on_call_path() -> list[str]:
    code = ("import sys; sys.argv=['sizing','call','min_cards','--args','{\"model\":\"qwen2-7b\"}']\n"
            "from assistant.frontends import cli\n"
            "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
            f"print('\\nHEAVY=' + ','.join(m for m in {HEAVY!r} if m in sys.modules))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    line = [x for x in p.stdout.splitlines() if x.startswith("HEAVY=")]
    return [m for m in line[0][6:].split(",") if m] if line else ["<failed: " + p.stderr[-200:] + ">"]


def main(n: int = 15) -> None:
    cache = tempfile.mkdtemp()
    env_cmd = ["env", f"SIZING_CACHE_DIR={cache}"]
    call = env_cmd + [str(BIN / "sizing"), "call", "min_cards", "--args", json.dumps({"model": "qwen2.5-72b", "strategy": "lora"})]
    subprocess.run(call, capture_output=True)  # build the cache once: we measure start-up, not the first build
    floor_runs, cli_runs = alternate(FLOOR, call, n)
    floor, cli = [w for w, _ in floor_runs], [w for w, _ in cli_runs]
    floor_cpu, cli_cpu = [c for _, c in floor_runs], [c for _, c in cli_runs]
    builds = []
    for _ in range(5):
        target = Path(tempfile.mkdtemp()) / "kb.duckdb"
        t = time.perf_counter()
        build_database(ROOT / "knowledge", target)
        builds.append(time.perf_counter() - t)
    heavy = heavy_modules_on_call_path()
    print("\nCold start and knowledge-base build (median of runs, seconds)")
    wall_ratio, cpu_ratio = median(cli) / median(floor), median(cli_cpu) / median(floor_cpu)
    print_table(["what", "median s", "floor (python -c 'import duckdb, pydantic')", "ratio", "target"], [
        ["sizing call min_cards, wall", f"{median(cli):.3f}", f"{median(floor):.3f}", f"{wall_ratio:.2f}x",
         f"< {TARGET_RATIO:g}x " + ("ok" if wall_ratio < TARGET_RATIO else "OVER")],
        ["sizing call min_cards, CPU (user+sys)", f"{median(cli_cpu):.3f}", f"{median(floor_cpu):.3f}", f"{cpu_ratio:.2f}x",
         f"< {TARGET_RATIO:g}x " + ("ok" if cpu_ratio < TARGET_RATIO else "OVER")],
        ["knowledge base build from knowledge/", f"{median(builds):.3f}", "-", "-", "< 1 s " + ("ok" if median(builds) < 1 else "OVER")],
    ])
    print(f"heavy modules imported on the `sizing call` path: {heavy or 'none'}")


if __name__ == "__main__":
    main()
