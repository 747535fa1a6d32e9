"""The Slack bridge's shared store: what one question costs in it (accept on the request path, then
take and done by a worker), SQLite beside the cache against a real redis-server on loopback, each
beside its floor (a bare INSERT into SQLite; a bare Redis PING). Slack's ack deadline is 3 s.

    .venv/bin/python bench/slack_queue.py [--quick]"""

from __future__ import annotations

import contextlib
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import median, ms, print_table

from assistant.frontends.slack_store import RedisStore, SqliteStore


def one_question(store, i: int) -> tuple[float, float]:
    """(accept seconds, take + done seconds) for one question in its own thread."""
    t0 = time.perf_counter()
    store.accept(f"Ev{i}", f"C:{i}", {"event": {"text": "q", "ts": str(i)}})
    t1 = time.perf_counter()
    job = store.take("bench", 60)
    store.done(job.event_id)
    return t1 - t0, time.perf_counter() - t1


def measure(store, n: int) -> tuple[float, float]:
    samples = [one_question(store, i) for i in range(n)]
    return median([a for a, _ in samples]), median([b for _, b in samples])


def sqlite_floor(path: Path, n: int) -> float:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)")
    out = []
    for i in range(n):
        t = time.perf_counter()
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO t VALUES (?, ?)", (str(i), "x"))
        db.execute("COMMIT")
        out.append(time.perf_counter() - t)
    db.close()
    return median(out)


@contextlib.contextmanager
def redis_server():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = shutil.which("redis-server") or "/usr/bin/redis-server"
    proc = subprocess.Popen([server, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        import redis

        client = redis.Redis(port=port)
        for _ in range(200):
            with contextlib.suppress(redis.ConnectionError):
                if client.ping():
                    break
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0", client
    finally:
        proc.terminate()
        proc.wait(10)


def main(quick: bool = False) -> list[list[object]]:
    n = 100 if quick else 500
    rows: list[list[object]] = []
    with tempfile.TemporaryDirectory() as d:
        store = SqliteStore(Path(d) / "state.sqlite")
        accept, work = measure(store, n)
        floor = sqlite_floor(Path(d) / "floor.sqlite", n)
        rows.append(["SQLite (one host)", ms(accept), ms(work), f"INSERT+COMMIT {ms(floor)}", f"{accept / floor:.1f}x"])
    with redis_server() as (url, client):
        store = RedisStore(url, prefix="bench")
        accept, work = measure(store, n)
        pings = []
        for _ in range(n):
            t = time.perf_counter()
            client.ping()
            pings.append(time.perf_counter() - t)
        floor = median(pings)
        rows.append(["Redis (N replicas)", ms(accept), ms(work), f"PING {ms(floor)}", f"{accept / floor:.1f}x"])
    print(f"\n## Slack queue: one question through the shared store, median of {n} (ms)\n")
    print_table(["store", "accept (request path)", "take + done (worker)", "floor", "accept / floor"], rows)
    return rows


if __name__ == "__main__":
    main("--quick" in sys.argv)
