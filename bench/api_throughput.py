"""Throughput of the tool API: ``POST /v1/tools/min_cards`` against a bare FastAPI endpoint that
returns a constant, on the same uvicorn settings, in the same run, on loopback, with the load
generator in another process (``wrk`` when installed, else a small asyncio HTTP/1.1 client).

    .venv/bin/python bench/api_throughput.py [--seconds 5] [--rounds 3] [--connections 16]

Rounds alternate bare / tool / tool with the result cache off, so drift on a shared machine hits
all of them alike; the table shows each endpoint's median round, the ratio is the median of the
per-round ratios. Prints requests per second, p50 and p99
latency and the ratio tool / bare (target >= 0.70), and exits 1 when the ratio misses the target.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BODY = json.dumps({"model": "qwen2.5-72b", "strategy": "lora", "seq_len": 4096,
                   "framework": "LLaMA-Factory", "hardware": "Snt9B"})
TARGET = 0.70
# Same uvicorn settings for every server: one worker, no access log (it would dominate both).
UVICORN = dict(host="127.0.0.1", workers=1, access_log=False, log_level="warning")
# Servers on one CPU and the load generator on another, when there are two: they do not compete.
PINNED = hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) >= 2
SERVER_CPU, LOADGEN_CPU = 0, 1


def _pin(cpu: int):
    return (lambda: os.sched_setaffinity(0, {cpu})) if PINNED else None


# ------------------------------------------------------------------ the servers (child processes)
def serve(kind: str, port: int) -> None:
    import uvicorn

    if kind == "bare":
        from fastapi import FastAPI

        app = FastAPI()

        @app.post("/bare")
        async def bare():
            return {"ok": True}
    else:
        from assistant.context import Context
        from assistant.frontends.server import compose_app
        from assistant.settings import Settings

        settings = Settings(tool_cache_size=0 if kind == "tool-nocache" else Settings().tool_cache_size)
        app = compose_app(Context.create(settings), settings)
    uvicorn.run(app, port=port, **UVICORN)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(kind: str, env: dict) -> tuple[subprocess.Popen, int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, __file__, "--serve", kind, "--port", str(port)], env=env,
                            preexec_fn=_pin(SERVER_CPU))
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/openapi.json", timeout=1)
            return proc, port
        except OSError:
            if proc.poll() is not None:
                raise SystemExit(f"{kind} server exited with {proc.returncode}") from None
            time.sleep(0.1)
    raise SystemExit(f"{kind} server did not start")


# ------------------------------------------------------------------ load generators
def run_wrk(url: str, seconds: float, conns: int) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(f'wrk.method = "POST"\nwrk.body = {json.dumps(BODY)}\nwrk.headers["Content-Type"] = "application/json"\n')
        script = f.name
    try:
        out = subprocess.run(["wrk", "-t1", f"-c{conns}", f"-d{max(1, round(seconds))}s", "--latency", "-s", script, url],
                             capture_output=True, text=True, check=True, preexec_fn=_pin(LOADGEN_CPU)).stdout
    finally:
        os.unlink(script)

    def ms(label: str) -> float:
        m = re.search(rf"^\s*{label}%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        v, unit = float(m.group(1)), m.group(2)
        return v / 1000 if unit == "us" else v * 1000 if unit == "s" else v

    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)), "p50_ms": ms("50"), "p99_ms": ms("99"),
            "errors": int(errors.group(1)) if errors else 0}


async def _py_load(host: str, port: int, path: str, seconds: float, conns: int) -> dict:
    """Keep-alive HTTP/1.1 clients on raw sockets: far cheaper per request than an HTTP library."""
    req = (f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
           f"Content-Length: {len(BODY.encode())}\r\n\r\n{BODY}").encode()
    lat: list[float] = []
    errors = 0
    deadline = time.perf_counter() + seconds

    async def client():
        nonlocal errors
        reader, writer = await asyncio.open_connection(host, port)
        while time.perf_counter() < deadline:
            t0 = time.perf_counter()
            writer.write(req)
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(re.search(rb"content-length: (\d+)", head, re.I).group(1))
            await reader.readexactly(length)
            lat.append(time.perf_counter() - t0)
            errors += not head.startswith(b"HTTP/1.1 200")
        writer.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(conns)))
    elapsed = time.perf_counter() - t0
    lat.sort()
    return {"rps": len(lat) / elapsed, "p50_ms": lat[len(lat) // 2] * 1000,
            "p99_ms": lat[int(len(lat) * 0.99)] * 1000, "errors": errors}


def run_python_loadgen(url: str, seconds: float, conns: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--loadgen", url, "--seconds", str(seconds),
                          "--connections", str(conns)], capture_output=True, text=True, check=True,
                         preexec_fn=_pin(LOADGEN_CPU)).stdout
    return json.loads(out)


# ------------------------------------------------------------------ main
def main(quick: bool = False, argv: list[str] | None = None) -> int:
    """``quick`` (from run_all.py --quick): one 2-second round per endpoint."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--loadgen-tool", choices=["auto", "wrk", "python"], default="auto")
    ap.add_argument("--serve", help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--loadgen", help=argparse.SUPPRESS)
    a = ap.parse_args([] if argv is None else argv)
    if quick:
        a.seconds, a.rounds = 2.0, 1
    if a.serve:
        serve(a.serve, a.port)
        return 0
    if a.loadgen:
        m = re.match(r"http://([^:/]+):(\d+)(/.*)", a.loadgen)
        print(json.dumps(asyncio.run(_py_load(m.group(1), int(m.group(2)), m.group(3), a.seconds, a.connections))))
        return 0

    use_wrk = a.loadgen_tool == "wrk" or (a.loadgen_tool == "auto" and shutil.which("wrk"))
    load = run_wrk if use_wrk else run_python_loadgen
    env = {**os.environ, "SIZING_CACHE_DIR": tempfile.mkdtemp(prefix="sizing-bench-"), "SIZING_API_KEYS": "",
           "FASTMCP_SHOW_SERVER_BANNER": "false", "LANGCHAIN_TRACING_V2": "false"}
    kinds = {"bare": "/bare", "tool": "/v1/tools/min_cards", "tool-nocache": "/v1/tools/min_cards"}
    procs = {k: start(k, env) for k in kinds}
    results: dict[str, list[dict]] = {k: [] for k in kinds}
    try:
        for k, (_, port) in procs.items():  # warm-up: first-request imports, the KB cursor, the cache entry
            load(f"http://127.0.0.1:{port}{kinds[k]}", 1, a.connections)
        for _ in range(a.rounds):
            for k, (_, port) in procs.items():
                results[k].append(load(f"http://127.0.0.1:{port}{kinds[k]}", a.seconds, a.connections))
    finally:
        for proc, _ in procs.values():
            proc.terminate()
            proc.wait(10)

    def median_round(rs: list[dict]) -> dict:
        return sorted(rs, key=lambda r: r["rps"])[len(rs) // 2]

    summary = {k: median_round(v) for k, v in results.items()}
    print(f"load generator: {'wrk' if use_wrk else 'python asyncio'}, {a.connections} connections, "
          f"{a.rounds} x {a.seconds:g} s rounds per endpoint, 1 uvicorn worker each, {os.cpu_count()} CPUs"
          + (f" (servers on CPU {SERVER_CPU}, load generator on CPU {LOADGEN_CPU})" if PINNED else ""))
    print(f"{'endpoint':<44}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}{'non-2xx':>9}")
    labels = {"bare": "bare FastAPI POST /bare (constant)", "tool": "POST /v1/tools/min_cards",
              "tool-nocache": "POST /v1/tools/min_cards, result cache off"}
    for k, r in summary.items():
        print(f"{labels[k]:<44}{r['rps']:>10.0f}{r['p50_ms']:>9.2f}{r['p99_ms']:>9.2f}{r['errors']:>9}")
    # Each round's ratio pairs measurements taken seconds apart, so slow drift in the machine's load
    # cancels; the median of those is the figure.
    def paired_ratio(kind: str) -> float:
        return statistics.median(t["rps"] / b["rps"] for t, b in zip(results[kind], results["bare"], strict=True))

    ratio, ratio_nc = paired_ratio("tool"), paired_ratio("tool-nocache")
    spread = {k: f"{min(r['rps'] for r in v):.0f}-{max(r['rps'] for r in v):.0f}" for k, v in results.items()}
    print("req/s range over rounds: " + ", ".join(f"{k} {v}" for k, v in spread.items()))
    print(f"ratio tool / bare: {ratio:.2f} (target >= {TARGET:.2f}: {'met' if ratio >= TARGET else 'MISSED'}); "
          f"with the cache off: {ratio_nc:.2f}")
    print(json.dumps({"ratio": round(ratio, 3), "ratio_cache_off": round(ratio_nc, 3), **summary}))
    return 0 if ratio >= TARGET and not summary["tool"]["errors"] else 1


if __name__ == "__main__":
    sys.exit(main(argv=sys.argv[1:]))
