"""Browser fixtures shared by the web tests: Debian's Chromium driven by Playwright (no browser
download), headless, as root, with Chromium's own background networking off."""

from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
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
