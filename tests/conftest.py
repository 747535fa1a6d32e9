"""Shared fixtures: one knowledge base per test session, built from the repo's knowledge/ into a
temporary cache folder; settings with telemetry off and no LLM; a free loopback port.

Test tiers are given by path here (markers registered in pyproject.toml), so test files need no
marks of their own: `make check` runs the fast tier, `make test` everything."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time

import pytest
from hypothesis import settings as hypothesis_settings

for _k, _v in {"GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1",
               "DO_NOT_TRACK": "1", "FASTMCP_SHOW_SERVER_BANNER": "false", "FASTMCP_CHECK_FOR_UPDATES": "off",
               "LANGCHAIN_TRACING_V2": "false"}.items():
    os.environ.setdefault(_k, _v)

from assistant.context import Context  # noqa: E402
from assistant.settings import Settings  # noqa: E402
from assistant.tools import REGISTRY  # noqa: E402

# Property tests: "full" (the default, `make test`) or "check" (`make check`: HYPOTHESIS_PROFILE=check).
# Tests that set max_examples themselves keep their own count.
hypothesis_settings.register_profile("full", deadline=None)
hypothesis_settings.register_profile("check", deadline=None, max_examples=25)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "full"))

# Tier marks by path (relative to tests/): what is slow or needs more than the runtime and dev extras.
TIERS = {
    "browser": ("frontends/test_web_browser.py", "frontends/test_web_llm.py"),
    "real_frameworks": ("configs/test_real_frameworks.py",),
    "packaging": ("packaging/",),
    # Seconds to tens of seconds each on 2 cores (`make check` timed with --durations): whole-table
    # calibration, many-thread runs, property tests with fixed large example counts, the eval question
    # sets, and the end-to-end runs of servers and `sizing` subprocesses (MCP, Slack, hostile HTTP
    # clients, bad input through every front end, LLM endpoint timeouts and failures, read-only homes).
    "slow": ("estimate/test_calibration.py", "estimate/test_cli_calibrate.py", "estimate/test_properties.py",
             "agent/test_concurrency_agent.py", "agent/test_llm_endpoint.py", "tools/test_concurrency.py", "eval/",
             "frontends/test_mcp_inspector.py", "frontends/test_mcp.py", "frontends/test_slack.py",
             "frontends/test_slack_hostile.py", "frontends/test_api_hostile.py", "frontends/test_bad_input.py",
             "frontends/test_cli_agent.py", "test_kb_environment.py", "agent/test_llm_failures.py",
             "frontends/test_llm_frontends.py", "test_eval_llm.py"),
}
TESTS = os.path.dirname(os.path.abspath(__file__))


def pytest_collection_modifyitems(config, items):
    for item in items:
        rel = os.path.relpath(str(item.path), TESTS).replace(os.sep, "/")
        for mark, paths in TIERS.items():
            if rel.startswith(paths):
                item.add_marker(mark)


@pytest.fixture(scope="session")
def settings(tmp_path_factory) -> Settings:
    return Settings(llm="offline", cache_dir=tmp_path_factory.mktemp("kb-cache"))


@pytest.fixture(scope="session")
def ctx(settings) -> Context:
    return Context.create(settings)


@pytest.fixture(scope="session")
def registry():
    return REGISTRY


@pytest.fixture()
def call(ctx, registry):
    """call(tool_name, **args) -> result as a JSON-ready dict (or the canonical error dict)."""

    def _call(_tool: str, /, **args):
        return registry.call_json(_tool, args, ctx)

    return _call


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def free_port() -> int:
    return _free_port()


@contextlib.contextmanager
def serving(app, port: int | None = None):
    """Run an ASGI ``app`` on a real uvicorn in a thread on a loopback port; yield its base URL."""
    import uvicorn

    port = port or _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
