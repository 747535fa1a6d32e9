"""The chat-model banner in a real browser: an LLM endpoint that refuses connections (a closed
loopback port) with fallback allowed answers from the offline planner under a visible notice; with
fallback forbidden the chat shows a readable error and stays usable. Apps run in-process."""

from __future__ import annotations

import re
import sys

import pytest
from playwright import sync_api

from tests.conftest import _free_port
from tests.frontends.conftest import needs_chromium

pytestmark = [needs_chromium,
              pytest.mark.filterwarnings("ignore:.*(no_silent_downcasting|copy keyword).*")]  # inside Gradio's queue
expect = sync_api.expect

QUESTION = "Minimum cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?"


_closed_port = _free_port  # bound then released: nothing listens there during the test


_AUDIT = {"on": False, "seen": []}


def _audit(event: str, args) -> None:
    if _AUDIT["on"] and event == "socket.connect":
        addr = args[1]
        if isinstance(addr, tuple) and addr and addr[0] not in ("127.0.0.1", "::1", "localhost"):
            _AUDIT["seen"].append(addr)


@pytest.fixture(scope="module", autouse=True)
def no_outbound_connections():
    """Building, launching and using the app (Gradio, LangChain, the agent) opens no socket beyond
    loopback: no analytics, no update checks, no hub calls. (Audit hooks cannot be removed, so this
    one is switched on only for this module.)"""
    sys.addaudithook(_audit)
    _AUDIT.update(on=True, seen=[])
    yield
    _AUDIT["on"] = False
    assert _AUDIT["seen"] == [], f"outbound connections: {_AUDIT['seen']}"



@pytest.fixture(scope="module")
def app_url(ctx, tmp_path_factory):
    """Start an in-process app for given LLM settings; every app is closed at the end."""
    from assistant.context import Context
    from assistant.frontends.web import build_app, serve

    apps = []

    def start(**overrides) -> str:
        settings = ctx.settings.model_copy(update={
            "llm": "openai:gpt-test", "llm_base_url": f"http://127.0.0.1:{_closed_port()}/v1",
            "llm_timeout_s": 3.0, **overrides})
        app_ctx = Context(settings=settings, kb=ctx.kb)
        demo = build_app(app_ctx, settings, files_dir=tmp_path_factory.mktemp("web-files"))
        port = _free_port()
        serve(demo, "127.0.0.1", port, prevent_thread_lock=True, quiet=True)
        apps.append(demo)
        return f"http://127.0.0.1:{port}/"

    yield start
    for demo in apps:
        demo.close()


def _ask(page, text: str) -> str:
    # the example questions show once the app is mounted and its load events have run
    expect(page.locator("#chat button").filter(has_text=QUESTION).first).to_be_visible(timeout=30_000)
    box = page.locator("#question textarea")
    box.fill(text)
    box.press("Enter")
    expect(page.locator("#chat [data-testid='user']")).to_have_count(1)
    expect(box).to_be_enabled(timeout=60_000)
    return "\n".join(page.locator("#chat [data-testid='bot']").all_inner_texts())


def test_failed_llm_falls_back_with_a_banner(browser, app_url):
    page = browser.new_page()
    page.goto(app_url(llm_fallback=True), wait_until="domcontentloaded")
    expect(page.locator("#chat-model")).to_contain_text("openai:gpt-test")
    expect(page.locator("#llm-notice")).to_be_hidden()
    reply = _ask(page, QUESTION)
    # the offline planner answered from the minimum-card table: 32 cards
    assert re.search(r"\b32\b", reply), reply
    banner = page.locator("#llm-notice")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("gpt-test")
    expect(banner).to_contain_text("offline planner")
    page.close()


def test_failed_llm_without_fallback_says_so_and_stays_usable(browser, app_url):
    page = browser.new_page()
    page.goto(app_url(llm_fallback=False), wait_until="domcontentloaded")
    reply = _ask(page, QUESTION)
    assert re.search(r"gpt-test", reply) and re.search(r"reach|connect|failed", reply, re.I), reply
    expect(page.locator("#llm-notice")).to_be_visible()
    expect(page.locator("#question textarea")).to_be_enabled()
    page.close()
