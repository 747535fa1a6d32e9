"""Resident memory of `sizing serve` (one uvicorn worker, offline planner): idle after start-up, after
the first /v1/ask (which loads the agent and LangChain), under load, and idle again after the load.
The floor is a bare FastAPI app on the same uvicorn, idle.

    .venv/bin/python bench/serve_memory.py [--seconds 10] [--connections 8]

RSS is VmRSS from /proc/<pid>/status, summed over the server process and all its descendants. The
load comes from another process: keep-alive HTTP/1.1 clients cycling through POST
/v1/tools/min_cards, POST /v1/tools/plan_training and POST /v1/ask on loopback; every response must
be 200 (0 errors required, else the benchmark fails)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from _common import print_table

BIN = Path(sys.executable).parent
SAMPLE_EVERY_S = 0.1
SETTLE_S = 2.0  # after start-up or load: let the allocator and the GC settle before the idle reading
# What the load cycles through: two tools and the agent, with varied arguments so the tool result
# cache does not answer everything from one entry.
REQUESTS: list[tuple[str, dict]] = [
    *[("/v1/tools/min_cards", {"model": m, "strategy": s, "seq_len": q, "framework": "LLaMA-Factory", "hardware": "Snt9B"})
      for m, s, q in [("qwen2.5-72b", "lora", 4096), ("llama3.1-8b", "full", 4096), ("qwen2.5-7b", "lora", 8192)]],
    *[("/v1/tools/plan_training", {"model": m, "method": meth, "seq_len": q, "hardware": hw})
      for m, meth, q, hw in [("qwen2.5-7b", "lora", 4096, "snt9b"), ("llama3.1-70b", "full", 8192, "snt9b23"),
                             ("qwen2.5-32b", "qlora", 16384, "a100")]],
    *[("/v1/ask", {"question": q}) for q in [
        "How many cards to LoRA fine-tune qwen2.5-72b at 4096 tokens on Snt9B?",
        "llama3.1-70b 全参微调 用MindSpeed-LLM 序列长度8k 需要几张卡？",
        "给我 qwen2.5-7b LoRA 的 LLaMA-Factory yaml",
        "How much memory does qwen2.5-14b full fine-tuning need with ZeRO-3 on 8 cards?",
        "vLLM 推理 qwen2.5-32b 最少几张卡？",
        "训练时 OOM 了怎么办？"]],
]


# ------------------------------------------------------------------ memory
def _ppid(pid: str) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])  # the command name may contain spaces
    except (OSError, IndexError, ValueError):
        return None


def _vm_rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            return next((int(line.split()[1]) for line in f if line.startswith("VmRSS:")), 0)
    except OSError:
        return 0  # the process exited between listing and reading


def tree_rss_mib(pid: int) -> float:
    """VmRSS of ``pid`` and every descendant, in MiB (shared pages count once per process, as RSS does)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (ppid := _ppid(entry)) is not None:
            children.setdefault(ppid, []).append(int(entry))
    todo, total = [pid], 0
    while todo:
        p = todo.pop()
        total += _vm_rss_kib(p)
        todo += children.get(p, [])
    return total / 1024


# ------------------------------------------------------------------ servers (child processes)
def serve_bare(port: int) -> None:
    import uvicorn
    from fastapi import FastAPI

    app = FastAPI()

    @app.post("/bare")
    async def bare():
        return {"ok": True}

    uvicorn.run(app, host="127.0.0.1", port=port, workers=1, access_log=False, log_level="warning")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env() -> dict[str, str]:
    """The default configuration: no SIZING_/SLACK_ variables from the caller's shell (an LLM or Slack
    setting would change what is measured), a fresh knowledge-base cache, no API keys."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SIZING_", "SLACK_"))}
    env.update(SIZING_CACHE_DIR=tempfile.mkdtemp(prefix="sizing-bench-mem-"), SIZING_LLM="offline", SIZING_API_KEYS="",
               FASTMCP_SHOW_SERVER_BANNER="false", FASTMCP_CHECK_FOR_UPDATES="off", LANGCHAIN_TRACING_V2="false",
               GRADIO_ANALYTICS_ENABLED="False", HF_HUB_OFFLINE="1", DO_NOT_TRACK="1")
    return env


def start(cmd: list[str], port: int, probe: str) -> tuple[subprocess.Popen, float]:
    """Start a server and wait until ``probe`` answers; returns the process and its start-up seconds."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=server_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while time.perf_counter() - t0 < 60:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}{probe}", timeout=1)
            return proc, time.perf_counter() - t0
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"{cmd[0]} exited with {proc.returncode}: {proc.stderr.read().decode()[-500:]}") from None
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"{' '.join(cmd)} did not answer {probe} within 60 s")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def post(port: int, path: str, body: dict) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        r.read()
        return r.status


# ------------------------------------------------------------------ load generator (its own process)
async def _load(port: int, seconds: float, conns: int) -> dict:
    """Keep-alive HTTP/1.1 clients on raw sockets, each cycling through REQUESTS from its own offset."""
    raw = []
    for path, body in REQUESTS:
        data = json.dumps(body, ensure_ascii=False).encode()
        raw.append((path, (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                           f"Content-Length: {len(data)}\r\n\r\n").encode() + data))
    stats = {path: {"requests": 0, "errors": 0} for path, _ in REQUESTS}
    lat: list[float] = []
    deadline = time.perf_counter() + seconds

    async def client(offset: int) -> None:
        reader = writer = None
        i = offset
        while time.perf_counter() < deadline:
            path, req = raw[i % len(raw)]
            i += 1
            t0 = time.perf_counter()
            try:
                if writer is None:
                    reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.write(req)
                head = await reader.readuntil(b"\r\n\r\n")
                m = re.search(rb"content-length:\s*(\d+)", head, re.I)
                if m is None:
                    raise ValueError("response without Content-Length")
                await reader.readexactly(int(m.group(1)))
                ok = head.startswith(b"HTTP/1.1 200")
            except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
                ok = False
                if writer is not None:
                    writer.close()
                reader = writer = None
            stats[path]["requests"] += 1
            stats[path]["errors"] += not ok
            lat.append(time.perf_counter() - t0)
        if writer is not None:
            writer.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(client(k * 3) for k in range(conns)))
    elapsed = time.perf_counter() - t0
    lat.sort()
    return {"seconds": elapsed, "routes": stats, "rps": len(lat) / elapsed,
            "p50_ms": lat[len(lat) // 2] * 1000 if lat else 0.0, "p99_ms": lat[int(len(lat) * 0.99)] * 1000 if lat else 0.0}


# ------------------------------------------------------------------ main
def measure_sizing_serve(seconds: float, conns: int) -> dict:
    port = free_port()
    proc, startup_s = start([str(BIN / "sizing"), "serve", "--port", str(port), "--workers", "1", "--no-access-log"],
                            port, "/healthz")
    out: dict = {"startup_s": startup_s}
    try:
        time.sleep(SETTLE_S)
        out["idle"] = tree_rss_mib(proc.pid)
        for path, body in REQUESTS:  # every request once: the agent is built, every route warm
            if (status := post(port, path, body)) != 200:
                raise RuntimeError(f"warm-up {path} answered {status}")
        time.sleep(SETTLE_S)
        out["warm"] = tree_rss_mib(proc.pid)
        loadgen = subprocess.Popen([sys.executable, __file__, "--loadgen", "--port", str(port), "--seconds", str(seconds),
                                    "--connections", str(conns)], stdout=subprocess.PIPE, text=True)
        samples = []
        while loadgen.poll() is None:
            samples.append(tree_rss_mib(proc.pid))
            time.sleep(SAMPLE_EVERY_S)
        result, _ = loadgen.communicate()
        if loadgen.returncode != 0:
            raise RuntimeError(f"load generator exited with {loadgen.returncode}")
        out["load"] = json.loads(result)
        out["load_median"], out["load_peak"] = statistics.median(samples), max(samples)
        time.sleep(SETTLE_S)
        out["after"] = tree_rss_mib(proc.pid)
        if proc.poll() is not None:
            raise RuntimeError(f"sizing serve died during the load (exit {proc.returncode})")
    finally:
        stop(proc)
    return out


def measure_bare() -> float:
    port = free_port()
    proc, _ = start([sys.executable, __file__, "--serve-bare", "--port", str(port)], port, "/openapi.json")
    try:
        time.sleep(SETTLE_S)
        return tree_rss_mib(proc.pid)
    finally:
        stop(proc)


def main(quick: bool = False, argv: list[str] | None = None) -> int:
    """``quick`` (from run_all.py --quick): 3 s of load instead of 10."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--connections", type=int, default=8)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--serve-bare", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--loadgen", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args([] if argv is None else argv)
    if a.serve_bare:
        serve_bare(a.port)
        return 0
    if a.loadgen:
        print(json.dumps(asyncio.run(_load(a.port, a.seconds, a.connections))))
        return 0
    if quick:
        a.seconds = 3.0

    floor = measure_bare()
    m = measure_sizing_serve(a.seconds, a.connections)
    load = m["load"]
    routes = load["routes"]
    total = sum(r["requests"] for r in routes.values())
    errors = sum(r["errors"] for r in routes.values())

    def row(what: str, mib: float, note: str) -> list[str]:
        return [what, f"{mib:.0f}", f"{floor:.0f}", f"{mib / floor:.1f}x", note]

    print(f"\nResident memory of `sizing serve` (1 uvicorn worker, offline planner; VmRSS of the process tree, MiB; "
          f"start-up to /healthz {m['startup_s']:.1f} s)")
    print_table(["what", "RSS MiB", "floor: bare FastAPI idle", "ratio", "note"], [
        row("idle after start-up", m["idle"], "knowledge base, tools, REST + MCP app"),
        row("after one request per route", m["warm"], "+ the agent (LangChain) built by the first /v1/ask"),
        row(f"under load, median of {a.seconds:g} s", m["load_median"], f"sampled every {SAMPLE_EVERY_S:g} s"),
        row("under load, peak", m["load_peak"], f"growth over warm: {m['load_peak'] - m['warm']:+.0f} MiB"),
        row(f"idle {SETTLE_S:g} s after the load", m["after"], "no growth expected (stateless)"),
    ])
    per_route = ", ".join(f"{p} {r['requests']} ({r['errors']} errors)" for p, r in routes.items())
    print(f"load: {a.connections} keep-alive connections from another process for {load['seconds']:.1f} s, {total} requests "
          f"({load['rps']:.0f} req/s, p50 {load['p50_ms']:.1f} ms, p99 {load['p99_ms']:.1f} ms): {per_route}")
    print(f"errors under load: {errors} (required: 0) " + ("ok" if errors == 0 else "FAILED"))
    if errors:
        raise RuntimeError(f"{errors} of {total} requests under load did not answer 200")
    return 0


if __name__ == "__main__":
    sys.exit(main(argv=sys.argv[1:]))
