"""`sizing call` cold start (process start to JSON printed) vs `python -c "import duckdb"`, and the
knowledge-base build time. Target: cold start <= 0.6 s; nothing heavy imported on that path."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, median, print_table

from assistant.kb import build_database

BIN = Path(sys.executable).parent
HEAVY = ["gradio", "langchain", "langchain_core", "fastapi", "uvicorn", "fastmcp", "slack_bolt", "pandas", "torch"]


def _time(cmd: list[str], n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        out.append(time.perf_counter() - t)
    return out


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
    floor = _time([sys.executable, "-c", "import duckdb"], n)
    cli = _time(call, n)
    builds = []
    for _ in range(5):
        target = Path(tempfile.mkdtemp()) / "kb.duckdb"
        t = time.perf_counter()
        build_database(ROOT / "knowledge", target)
        builds.append(time.perf_counter() - t)
    heavy = heavy_modules_on_call_path()
    print("\nCold start and knowledge-base build (median of runs, seconds)")
    print_table(["what", "median s", "floor", "ratio", "target"], [
        ["sizing call min_cards (process start to JSON)", f"{median(cli):.3f}", f"{median(floor):.3f} (python -c 'import duckdb')",
         f"{median(cli) / median(floor):.1f}x", "<= 0.6 s " + ("ok" if median(cli) <= 0.6 else "OVER")],
        ["knowledge base build from knowledge/", f"{median(builds):.3f}", "-", "-", "< 1 s " + ("ok" if median(builds) < 1 else "OVER")],
    ])
    print(f"heavy modules imported on the `sizing call` path: {heavy or 'none'}")


if __name__ == "__main__":
    main()
