"""The Slack bridge against hostile and slow counterparts (issue 16): malformed and unsigned bodies
on /slack/events (400/401, never 500), the body limit of `sizing slack` on its own, and the first
event acknowledged while a slow auth.test is still running. Requests are signed with slack_sdk's
SignatureVerifier; the Web API is the loopback stand-in of test_slack.py."""

from __future__ import annotations

import hashlib
import hmac
import time

import httpx
import pytest
from pydantic import SecretStr

from assistant.frontends.server import compose_app
from assistant.frontends.slack import build_http_app
from tests.conftest import serving
from tests.frontends.test_slack import (
    BOT_TOKEN,
    SECRET,
    SlackStandIn,
    envelope,
    final_text,
    finished,
    mention,
    post,
    signed,
)

AUTH_TEST_DELAY_S = 5.0


class SlowAuthStandIn(SlackStandIn):
    """Slack's Web API with an auth.test that takes five seconds."""

    def answer(self, method: str, p: dict) -> dict:
        if method == "auth.test":
            time.sleep(AUTH_TEST_DELAY_S)
        return super().answer(method, p)


@pytest.fixture(scope="module")
def standin():
    s = SlowAuthStandIn()
    s.thread.start()
    yield s
    s.server.shutdown()


def slack_settings(settings, standin, **extra):
    """Settings of a bridge with a queue of its own (a SQLite file no other app in the test reads)."""
    import tempfile
    import uuid
    from pathlib import Path

    state = Path(tempfile.mkdtemp(prefix="slack-state-")) / f"{uuid.uuid4().hex[:6]}.sqlite"
    return settings.model_copy(update={"slack_bot_token": SecretStr(BOT_TOKEN), "slack_signing_secret": SecretStr(SECRET),
                                       "slack_api_url": standin.base_url, "slack_app_token": None,
                                       "slack_state_file": state, **extra})


@pytest.fixture(scope="module", params=["sizing slack", "sizing serve"])
def events_url(request, ctx, settings, standin):
    """/slack/events in both homes: the standalone bridge and beside the API."""
    s = slack_settings(settings, standin, max_body_bytes=50_000)
    app = build_http_app(ctx, s) if request.param == "sizing slack" else compose_app(ctx, s)
    with serving(app) as base:
        yield base + "/slack/events"


NOW = str(int(time.time()))
UNSIGNED = [  # (body, headers): what the fuzzing sent without a signature
    (b"not json", {"Content-Type": "application/json"}),
    (b"[1,2]", {"Content-Type": "application/json"}),
    (b"null", {"Content-Type": "application/json"}),
    (b"\xff\xfe{", {"Content-Type": "application/json"}),
    (b"{}", {"Content-Type": "application/json", "X-Slack-Request-Timestamp": "soon", "X-Slack-Signature": "v0=00"}),
    (b"{}", {"Content-Type": "application/json", "X-Slack-Request-Timestamp": "١٢٣".encode(), "X-Slack-Signature": "v0=00"}),
    (b"{}", {"Content-Type": "application/json", "X-Slack-Request-Timestamp": NOW, "X-Slack-Signature": b"v0=\xe9"}),
    (b"payload=%7B", {"Content-Type": "application/x-www-form-urlencoded"}),
]


@pytest.mark.parametrize(("body", "headers"), UNSIGNED)
def test_unsigned_malformed_bodies_are_401(events_url, body, headers):
    r = httpx.post(events_url, content=body, headers=headers)
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized", r.text


@pytest.mark.parametrize("text", ["not json", "[1,2]", "null", '"x"', "payload=%7B"])
def test_signed_bodies_that_are_not_a_payload_are_400(events_url, text):
    raw, headers = signed(text)
    if text.startswith("payload="):
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    r = httpx.post(events_url, content=raw, headers=headers)
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", r.text


def test_signed_bad_utf8_is_400(events_url):
    """Slack signs bytes: the v0 HMAC over 'v0:{timestamp}:' + body (slack_sdk's helper takes text only)."""
    raw = b'{"type": "event_callback", "x": "\xff"}'
    ts = str(int(time.time()))
    sig = "v0=" + hmac.new(SECRET.encode(), f"v0:{ts}:".encode() + raw, hashlib.sha256).hexdigest()
    r = httpx.post(events_url, content=raw, headers={"Content-Type": "application/json", "X-Slack-Request-Timestamp": ts,
                                                     "X-Slack-Signature": sig})
    assert r.status_code == 400, r.text


def test_body_limit_applies_before_the_signature(events_url):
    big = b'{"type": "event_callback", "pad": "' + b"x" * 200_000 + b'"}'
    r = httpx.post(events_url, content=big, headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"

    def chunks():  # no Content-Length: the limit counts what arrives
        for _ in range(100):
            yield b"x" * 10_000

    r = httpx.post(events_url, content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413


def test_first_event_is_acknowledged_before_a_slow_auth_test(ctx, settings, standin):
    """A fresh bridge (auth.test not yet run): the ack must not wait for it (Slack's limit is 3 s)."""
    with serving(build_http_app(ctx, slack_settings(settings, standin))) as base:
        ev = mention(standin, "CSLOWAUTH", "How many cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
        t0 = time.monotonic()
        r = post(base + "/slack/events", envelope(ev))
        ack_s = time.monotonic() - t0
        assert r.status_code == 200 and ack_s < 1.0, ack_s
        [answer] = final_text(standin, "CSLOWAUTH")
        finished(standin, ev)
    assert "32 cards" in answer  # min_cards.csv: qwen2.5-72b lora 4096 LLaMA-Factory Snt9B
    assert [c["method"] for c in standin.calls].count("auth.test") >= 1


def test_a_retry_nobody_accepted_is_answered_and_its_next_retry_dropped(ctx, settings, standin):
    """Issue 25: the first delivery never reached a bridge (or died with one before it was queued):
    its retry is answered. A further retry of the same event is acknowledged and dropped."""
    with serving(build_http_app(ctx, slack_settings(settings, standin))) as base:
        ev = mention(standin, "CRETRY", "How many cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
        body = envelope(ev)
        r = post(base + "/slack/events", body, **{"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
        assert r.status_code == 200 and r.headers.get("x-slack-no-retry") == "1"
        [answer] = final_text(standin, "CRETRY")
        finished(standin, ev)
        again = post(base + "/slack/events", body, **{"X-Slack-Retry-Num": "2", "X-Slack-Retry-Reason": "http_timeout"})
        assert again.status_code == 200
        time.sleep(1.0)
    assert "32 cards" in answer  # min_cards.csv: qwen2.5-72b lora 4096 LLaMA-Factory Snt9B
    assert len(standin.of("chat.postMessage", "CRETRY")) == 1 and len(standin.of("chat.update", "CRETRY")) == 1


def test_socket_mode_acknowledges_before_a_slow_auth_test(ctx, settings, standin):
    """Socket Mode against a loopback websocket playing Slack's part: the envelope's ack comes back
    well within 3 s although auth.test takes 5 s, and the question is still answered."""
    import contextlib
    import json
    import threading

    from websockets.sync.server import serve as ws_serve

    from assistant.frontends.slack import socket_mode_handler

    ev = mention(standin, "CSOCKSLOW", "How many cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
    first = {"envelope_id": "env-slow", "type": "events_api", "accepts_response_payload": False,
             "retry_attempt": 0, "retry_reason": "", "payload": envelope(ev)}
    acks: list[tuple[float, dict]] = []
    sent: list[float] = []

    def slack_side(ws):
        ws.send(json.dumps({"type": "hello", "num_connections": 1, "connection_info": {"app_id": "A1"}}))
        sent.append(time.monotonic())
        ws.send(json.dumps(first))
        with contextlib.suppress(Exception):
            while True:
                acks.append((time.monotonic(), json.loads(ws.recv(timeout=30))))

    s = slack_settings(settings, standin, slack_app_token=SecretStr("xapp-test"), slack_signing_secret=None)
    with ws_serve(slack_side, "127.0.0.1", 0) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        standin.socket_url = f"ws://127.0.0.1:{server.socket.getsockname()[1]}/link"
        handler = socket_mode_handler(ctx, s)
        handler.connect()
        try:
            standin.wait_for(lambda: acks)
            [answer] = final_text(standin, "CSOCKSLOW")
            finished(standin, ev)
        finally:
            handler.close()
            server.shutdown()
    ack_at, ack = acks[0]
    assert ack["envelope_id"] == "env-slow" and ack_at - sent[0] < 1.0, ack_at - sent[0]
    assert "32 cards" in answer  # min_cards.csv: qwen2.5-72b lora 4096 LLaMA-Factory Snt9B
