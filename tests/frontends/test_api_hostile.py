"""What hostile or broken HTTP clients found (issue 16), against a real uvicorn on loopback: httpx for
requests, raw sockets for bodies that stop half-way or crawl. REST and /mcp share one policy."""

from __future__ import annotations

import json
import logging
import socket
import time

import httpx
import pytest

from assistant.frontends.server import compose_app
from tests.conftest import serving

MCP_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-06-18"}
PARTNER = "https://partner.example"


def _port(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


# ------------------------------------------------------------------ result cache
@pytest.mark.parametrize("order", [("null", "empty"), ("empty", "null")])
def test_cache_tells_an_empty_body_from_null(ctx, settings, order):
    """An empty body is a call without arguments (200); a literal null is refused (422), whichever came first."""
    expected = {"empty": 200, "null": 422}
    with serving(compose_app(ctx, settings)) as base:
        for _ in range(2):
            for kind in order:
                r = httpx.post(f"{base}/v1/tools/list_hardware", content=b"" if kind == "empty" else b"null")
                assert r.status_code == expected[kind], (kind, r.text)
        r = httpx.post(f"{base}/v1/tools/list_hardware", content=b"{}")
        assert r.status_code == 200 and any(h["id"] == "snt9b" for h in r.json()["hardware"])


# ------------------------------------------------------------------ bodies that stop or crawl
@pytest.fixture(scope="module")
def quick(ctx, settings):
    """A server that gives a client one second to send its body."""
    with serving(compose_app(ctx, settings.model_copy(update={"body_timeout_s": 1.0}))) as base:
        yield base


@pytest.mark.parametrize("path", ["/v1/tools/min_cards", "/v1/ask", "/mcp"])
def test_disconnect_mid_body_is_one_log_line(quick, path, caplog):
    caplog.set_level(logging.INFO)
    for _ in range(5):
        with socket.create_connection(("127.0.0.1", _port(quick))) as c:
            c.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      "Accept: application/json, text/event-stream\r\nContent-Length: 500\r\n\r\n{\"model\":".encode())
            time.sleep(0.1)
    time.sleep(0.5)
    records = [r for r in caplog.records if r.levelno >= logging.INFO and "HTTP Request" not in r.getMessage()]
    assert [r.levelname for r in records] == ["INFO"] * 5, [r.getMessage() for r in records]
    assert all("disconnected" in r.getMessage() and r.exc_info is None for r in records)
    assert httpx.get(f"{quick}/healthz").status_code == 200


@pytest.mark.parametrize("path", ["/v1/tools/min_cards", "/mcp"])
def test_incomplete_body_gets_408_soon(quick, path):
    with socket.create_connection(("127.0.0.1", _port(quick))) as c:
        c.settimeout(10)
        start = time.monotonic()
        c.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  "Content-Length: 100\r\n\r\n{".encode())
        first = c.recv(65536)
        took = time.monotonic() - start
        reply = (first + b"".join(iter(lambda: c.recv(65536), b""))).decode()  # 408 closes the connection
    assert reply.startswith("HTTP/1.1 408"), reply
    assert json.loads(reply.split("\r\n\r\n", 1)[1])["error"]["code"] == "request_timeout"
    assert 0.9 < took < 3, took


# ------------------------------------------------------------------ one Host/Origin and CORS policy
@pytest.fixture(scope="module")
def loopback(ctx, settings):
    with serving(compose_app(ctx, settings, host="127.0.0.1")) as base:
        yield base


@pytest.fixture(scope="module")
def with_partner(ctx, settings):
    with serving(compose_app(ctx, settings.model_copy(update={"cors_origins": [PARTNER]}))) as base:
        yield base


def _both(base: str, headers: dict) -> list[httpx.Response]:
    return [httpx.post(f"{base}/v1/tools/list_hardware", json={}, headers=headers),
            httpx.post(f"{base}/mcp", json=MCP_LIST, headers={**MCP_HEADERS, **headers})]


def test_rebinding_host_and_foreign_origin_refused_on_rest_and_mcp(loopback):
    for r in _both(loopback, {"Host": "evil.example:8000"}):
        assert r.status_code == 421 and r.json()["error"]["code"] == "misdirected_request", r.text
    for r in _both(loopback, {"Origin": "http://evil.example"}):
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden_origin", r.text
        assert "access-control-allow-origin" not in r.headers
    same = f"http://127.0.0.1:{_port(loopback)}"
    for r in _both(loopback, {"Origin": same}):  # a page this server served (e.g. /docs)
        assert r.status_code == 200, r.text
        assert "access-control-allow-origin" not in r.headers


def test_configured_origin_gets_cors_on_rest_and_mcp(with_partner):
    for r in _both(with_partner, {"Origin": PARTNER}):
        assert r.status_code == 200, r.text
        assert r.headers["access-control-allow-origin"] == PARTNER and "Origin" in r.headers["vary"]
    for path in ("/v1/tools/min_cards", "/mcp"):
        pre = httpx.options(f"{with_partner}{path}", headers={
            "Origin": PARTNER, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version"})
        assert pre.status_code == 204 and pre.headers["access-control-allow-origin"] == PARTNER
        allowed = pre.headers["access-control-allow-headers"].lower()
        assert all(h in allowed for h in ("authorization", "content-type", "mcp-protocol-version"))
    for r in _both(with_partner, {"Origin": "https://other.example"}):
        assert r.status_code == 403


def test_a_401_to_an_allowed_origin_carries_cors_headers(ctx, settings):
    """Issue 25: without them a browser app on the partner's site sees a network error, not the 401."""
    keyed = settings.model_copy(update={"cors_origins": [PARTNER], "api_keys": ["k-partner"]})
    with serving(compose_app(ctx, keyed)) as base:
        for r in _both(base, {"Origin": PARTNER}):
            assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized", r.text
            assert r.headers["access-control-allow-origin"] == PARTNER
            assert "www-authenticate" in r.headers["access-control-expose-headers"].lower()
        for r in _both(base, {"Origin": "https://other.example"}):
            assert r.status_code == 403 and "access-control-allow-origin" not in r.headers
        ok = httpx.post(f"{base}/v1/tools/list_hardware", json={}, headers={"Origin": PARTNER, "Authorization": "Bearer k-partner"})
        assert ok.status_code == 200 and ok.headers["access-control-allow-origin"] == PARTNER


def test_policy_settings_read_from_the_environment(monkeypatch):
    from assistant.settings import Settings

    monkeypatch.setenv("SIZING_CORS_ORIGINS", f"{PARTNER}, https://b.example")
    monkeypatch.setenv("SIZING_ALLOWED_HOSTS", "api.example")
    monkeypatch.setenv("SIZING_BODY_TIMEOUT_S", "2.5")
    s = Settings()
    assert (s.cors_origins, s.allowed_hosts, s.body_timeout_s) == ([PARTNER, "https://b.example"], ["api.example"], 2.5)


# ------------------------------------------------------------------ OpenAPI and /docs with keys
@pytest.fixture(scope="module")
def keyed(ctx, settings):
    with serving(compose_app(ctx, settings.model_copy(update={"api_keys": ["doc-key"]}))) as base:
        yield base


def test_openapi_declares_the_bearer_key_and_401s(keyed, registry):
    spec = httpx.get(f"{keyed}/openapi.json").json()  # open: the docs page must load it without a key
    assert spec["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    for name in registry.names():
        op = spec["paths"][f"/v1/tools/{name}"]["post"]
        assert op["security"] == [{"bearer": []}] and "401" in op["responses"], name
    assert "401" in spec["paths"]["/v1/ask"]["post"]["responses"]
    assert "security" not in spec["paths"]["/healthz"]["get"]


def test_docs_page_loads_without_a_key_and_offers_authorize(keyed):
    page = httpx.get(f"{keyed}/docs")
    assert page.status_code == 200 and "persistAuthorization" in page.text
    assert httpx.get(f"{keyed}/static-offline-docs/swagger-ui-bundle.js").status_code == 200
    assert httpx.post(f"{keyed}/v1/tools/list_hardware", json={}).status_code == 401
    r = httpx.post(f"{keyed}/v1/tools/list_hardware", json={}, headers={"Authorization": "Bearer doc-key"})
    assert r.status_code == 200


# ------------------------------------------------------------------ headers that never finish (`sizing serve` itself)
@pytest.fixture(scope="module")
def served(tmp_path_factory, settings):
    """`sizing serve` as a user runs it, giving clients one second for a request."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from tests.conftest import _free_port

    port = _free_port()
    env = {**os.environ, "SIZING_CACHE_DIR": str(settings.resolved_cache_dir()), "SIZING_BODY_TIMEOUT_S": "1"}
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with open(log, "w") as out:
        proc = subprocess.Popen([str(Path(sys.executable).parent / "sizing"), "serve", "--port", str(port)],
                                env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                break
        except httpx.TransportError:
            pass
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
        time.sleep(0.2)
    yield base, log
    proc.terminate()
    proc.wait(15)


@pytest.mark.parametrize("partial", [b"", b"POST /v1/tools/min_cards HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"PO"])
def test_incomplete_headers_are_closed_soon(served, partial):
    base, _ = served
    with socket.create_connection(("127.0.0.1", _port(base))) as c:
        c.settimeout(10)
        start = time.monotonic()
        c.sendall(partial)
        assert c.recv(100) == b""  # closed by the server
        took = time.monotonic() - start
    assert 0.9 < took < 3, took


def test_keep_alive_and_slow_but_steady_requests_still_work(served):
    base, _ = served
    with httpx.Client(base_url=base) as client:  # one connection, several requests
        for _ in range(3):
            assert client.post("/v1/tools/list_hardware", json={}).status_code == 200
            time.sleep(0.3)
    with socket.create_connection(("127.0.0.1", _port(base))) as c:  # headers in pieces, within the second
        c.settimeout(10)
        for piece in (b"POST /v1/tools/list_hardware HTTP/1.1\r\n", b"Host: 127.0.0.1\r\n", b"Content-Length: 2\r\n\r\n{}"):
            c.sendall(piece)
            time.sleep(0.2)
        assert c.recv(100).startswith(b"HTTP/1.1 200")
