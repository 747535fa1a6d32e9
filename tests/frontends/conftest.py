"""Fixtures shared by the front-end tests: Debian's Chromium driven by Playwright (no browser
download), headless, as root, with Chromium's own background networking off; a real redis-server."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"  # Debian's redis-server (`make system-deps`)
CHROME_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
               "--no-first-run", "--disable-sync"]
needs_chromium = pytest.mark.browser  # the browser tier (tests/conftest.py); Chromium missing is a failure, not a skip


@pytest.fixture(scope="module")
def browser():
    from playwright import sync_api

    assert Path(CHROMIUM).exists(), "Debian chromium is not installed: run `make system-deps`"
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROME_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def redis_url():
    """A real redis-server on a free loopback port, no persistence, stopped at the end."""
    import redis

    from tests.conftest import _free_port

    assert Path(REDIS_SERVER).exists(), "redis-server is not installed: run `make system-deps`"
    port = _free_port()
    proc = subprocess.Popen([REDIS_SERVER, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no",
                             "--protected-mode", "yes"], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    client = redis.Redis(port=port)
    deadline = time.monotonic() + 20
    while True:
        with contextlib.suppress(redis.ConnectionError):
            if client.ping():
                break
        assert proc.poll() is None and time.monotonic() < deadline, "redis-server did not start"
        time.sleep(0.05)
    yield f"redis://127.0.0.1:{port}/0"
    client.close()
    proc.terminate()
    proc.wait(10)
