"""Readiness (issue 25): /readyz answers 503 until the agent is built and 200 only once a question
can be answered at once; /healthz (alive) answers from the start. Both servers, `sizing serve`'s API
and `sizing slack`'s bridge, on a real uvicorn, with an agent that takes 1.5 s to build (the delay
the issue measured: LangChain's imports)."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from pydantic import SecretStr

from assistant.answer import Answer
from assistant.frontends.api import create_app
from assistant.frontends.slack import build_http_app
from tests.conftest import serving

BUILD_S = 1.5


class SlowToBuild:
    built = threading.Event()

    def __init__(self, ctx):
        time.sleep(BUILD_S)
        SlowToBuild.built.set()

    def ask(self, question, history=None):
        return Answer(answer=f"echo: {question}", model="test")


class Unbuildable:
    def __init__(self, ctx):
        raise RuntimeError("no LLM endpoint at http://127.0.0.1:9/v1")


def probe_until_ready(base: str) -> list[int]:
    codes = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        codes.append(httpx.get(base + "/readyz", timeout=5).status_code)
        if codes[-1] == 200:
            return codes
        assert httpx.get(base + "/healthz", timeout=5).status_code == 200  # alive all along
        time.sleep(0.1)
    raise AssertionError(f"never ready: {codes[-5:]}")


@pytest.fixture()
def slack_settings(settings, tmp_path):
    return settings.model_copy(update={"slack_bot_token": SecretStr("xoxb-x"), "slack_signing_secret": SecretStr("s"),
                                       "slack_api_url": "http://127.0.0.1:9/api/", "slack_state_file": tmp_path / "s.sqlite"})


def test_api_readyz_waits_for_the_agent(ctx, settings):
    SlowToBuild.built.clear()
    with serving(create_app(ctx, settings, SlowToBuild)) as base:
        codes = probe_until_ready(base)
        assert SlowToBuild.built.is_set()
        t0 = time.monotonic()
        r = httpx.post(base + "/v1/ask", json={"question": "hi"}, timeout=10)
        assert r.status_code == 200 and r.json()["answer"] == "echo: hi"
        assert time.monotonic() - t0 < BUILD_S  # not built again on the first question
    assert codes[0] == 503 and codes[-1] == 200


def test_api_readyz_says_why_the_agent_cannot_be_built(ctx, settings):
    with serving(create_app(ctx, settings, Unbuildable)) as base:
        time.sleep(0.5)
        r = httpx.get(base + "/readyz", timeout=5)
        assert r.status_code == 503 and r.json()["status"] == "unavailable" and "no LLM endpoint" in r.json()["reason"]
        assert httpx.get(base + "/healthz", timeout=5).status_code == 200


def test_slack_bridge_readyz_waits_for_the_agent(ctx, slack_settings):
    SlowToBuild.built.clear()
    with serving(build_http_app(ctx, slack_settings, SlowToBuild)) as base:
        codes = probe_until_ready(base)
    assert codes[0] == 503 and codes[-1] == 200 and SlowToBuild.built.is_set()


def test_readyz_needs_no_api_key(ctx, settings):
    with serving(create_app(ctx, settings.model_copy(update={"api_keys": ["k1"]}), SlowToBuild)) as base:
        assert httpx.get(base + "/readyz", timeout=5).status_code in (200, 503)
        assert httpx.get(base + "/v1/tools", timeout=5).status_code == 401
