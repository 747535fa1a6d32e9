"""The Slack bridge end to end: signed Events API requests POSTed into the app on a real uvicorn, with
slack_sdk's WebClient pointed at a loopback stand-in of Slack's Web API that records every call.
The agent is the real Assistant with the offline planner; numbers are pinned to the vendor tables
(knowledge/tables/min_cards.csv, recipes_llamafactory.csv)."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlparse

import httpx
import pytest
from pydantic import SecretStr
from slack_sdk.signature import SignatureVerifier

from assistant.frontends.slack import (
    APOLOGY,
    PLACEHOLDER,
    THINKING_REACTION,
    SlackSettingsError,
    build_http_app,
    require_settings,
    socket_mode_handler,
)
from tests.conftest import serving

SECRET = "test-signing-secret-0123456789abcdef"
BOT_TOKEN = "xoxb-test-token"
BOT_USER, BOT_ID = "UBOT", "BBOT"
ALICE = "UALICE"
WAIT_S = 30.0


# ---------------------------------------------------------------- a stand-in of Slack's Web API
class SlackStandIn:
    """Answers Web API methods like Slack does and records each call (method, params, headers).
    Messages posted by the bot and messages the test "writes" are kept per channel, so
    conversations.replies returns real threads. Methods in ``failing`` answer ``ok: false``; the next
    ``rate_limited[method]`` calls of a method get Slack's 429 with ``Retry-After: 1``; ``delays[method]``
    holds a method's answer back that many seconds."""

    def __init__(self):
        self.calls: list[dict] = []
        self.messages: dict[str, list[dict]] = {}
        self.uploads: dict[str, bytes] = {}
        self.failing: set[str] = set()
        self.rate_limited: dict[str, int] = {}
        self.delays: dict[str, float] = {}
        self.started: list[dict] = []  # calls of delayed methods, as they arrive
        self.socket_url = ""  # what apps.connections.open hands out (a loopback websocket in the Socket Mode test)
        self._n = itertools.count(1)
        self.cond = threading.Condition()
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's naming
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, payload = standin.handle(self.path, raw, dict(self.headers))
                out = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
                self.send_response(status)
                if status == 429:
                    self.send_header("Retry-After", "1")
                self.send_header("Content-Type", "text/plain" if isinstance(payload, str) else "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            do_GET = do_POST  # noqa: N815 - conversations.replies is a GET with query parameters

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/"

    def next_ts(self) -> str:
        return f"{1_700_000_000 + next(self._n)}.000100"

    def write(self, channel: str, text: str, *, thread_ts: str | None = None, user: str = ALICE) -> str:
        """A person's message, as Slack would store it; returns its ts."""
        ts = self.next_ts()
        msg = {"type": "message", "user": user, "text": text, "ts": ts, **({"thread_ts": thread_ts} if thread_ts else {})}
        with self.cond:
            self.messages.setdefault(channel, []).append(msg)
        return ts

    def handle(self, path: str, raw: bytes, headers: dict) -> tuple[int, dict | str]:
        url = urlparse(path)
        if url.path.startswith("/upload/"):
            file_id = url.path.rsplit("/", 1)[1]
            with self.cond:
                self.uploads[file_id] = raw
                self.calls.append({"method": "upload", "params": {"file_id": file_id}, "headers": headers})
                self.cond.notify_all()
            return 200, f"OK - {len(raw)}"
        method = url.path.removeprefix("/api/")
        params = dict(parse_qsl(url.query))
        ctype = headers.get("Content-Type", "")
        if raw and "json" in ctype:
            params.update(json.loads(raw))
        elif raw:
            params.update(parse_qsl(raw.decode()))
        if self.delays.get(method):  # recorded when it arrives (tests see it started), answered after the delay
            with self.cond:
                self.started.append({"method": method, "params": params})
                self.cond.notify_all()
            time.sleep(self.delays[method])
        with self.cond:
            self.calls.append({"method": method, "params": params, "headers": headers})
            try:
                if self.rate_limited.get(method, 0) > 0:
                    self.rate_limited[method] -= 1
                    self.calls[-1]["status"] = 429
                    return 429, {"ok": False, "error": "ratelimited"}
                return 200, self.answer(method, params)
            finally:
                self.cond.notify_all()

    def answer(self, method: str, p: dict) -> dict:
        if method in self.failing:
            return {"ok": False, "error": "missing_scope"}
        if method == "auth.test":
            return {"ok": True, "url": "https://example.slack.com/", "team": "T", "user": "sizing", "team_id": "T1",
                    "user_id": BOT_USER, "bot_id": BOT_ID, "is_enterprise_install": False}
        if method == "chat.postMessage":
            ts = self.next_ts()
            msg = {"type": "message", "user": BOT_USER, "bot_id": BOT_ID, "text": p.get("text", ""), "ts": ts}
            if p.get("thread_ts"):
                msg["thread_ts"] = p["thread_ts"]
            self.messages.setdefault(p["channel"], []).append(msg)
            return {"ok": True, "channel": p["channel"], "ts": ts, "message": msg}
        if method == "chat.update":
            for m in self.messages.get(p["channel"], []):
                if m["ts"] == p["ts"]:
                    m["text"] = p.get("text", "")
            return {"ok": True, "channel": p["channel"], "ts": p["ts"], "text": p.get("text", "")}
        if method == "apps.connections.open":
            return {"ok": True, "url": self.socket_url}
        if method == "chat.delete":
            self.messages[p["channel"]] = [m for m in self.messages.get(p["channel"], []) if m["ts"] != p["ts"]]
            return {"ok": True, "channel": p["channel"], "ts": p["ts"]}
        if method in ("reactions.add", "reactions.remove"):
            return {"ok": True}
        if method == "conversations.replies":
            thread = [m for m in self.messages.get(p["channel"], []) if p["ts"] in (m["ts"], m.get("thread_ts"))]
            return {"ok": True, "messages": sorted(thread, key=lambda m: float(m["ts"])), "has_more": False}
        if method == "files.getUploadURLExternal":
            file_id = f"F{next(self._n)}"
            return {"ok": True, "upload_url": f"http://127.0.0.1:{self.port}/upload/{file_id}", "file_id": file_id}
        if method == "files.completeUploadExternal":
            files = json.loads(p["files"]) if isinstance(p["files"], str) else p["files"]
            return {"ok": True, "files": [{"id": f["id"], "title": f.get("title"), "name": f.get("title")} for f in files]}
        return {"ok": False, "error": "unknown_method"}

    # -- what tests read ------------------------------------------------------------------------
    def of(self, method: str, channel: str | None = None) -> list[dict]:
        """The calls of ``method`` (in ``channel``) that Slack took (not the ones answered with a 429)."""
        with self.cond:
            return [c["params"] for c in self.calls
                    if c["method"] == method and c.get("status") != 429
                    and channel in (None, c["params"].get("channel"), c["params"].get("channel_id"))]

    def refused(self, method: str, channel: str) -> int:
        with self.cond:
            return sum(1 for c in self.calls if c["method"] == method and c.get("status") == 429
                       and c["params"].get("channel") == channel)

    def in_channel(self, channel: str) -> list[dict]:
        with self.cond:
            return [c for c in self.calls if c["params"].get("channel") == channel or c["params"].get("channel_id") == channel]

    def wait_for(self, predicate, timeout: float = WAIT_S):
        """Block until ``predicate()`` is truthy (re-checked on every recorded call); return its value."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                value = predicate()
                if value:
                    return value
                left = deadline - time.monotonic()
                assert left > 0, f"timed out; calls so far: {[c['method'] for c in self.calls]}"
                self.cond.wait(min(left, 0.5))

    def reaction_removed(self, channel: str, ts: str):
        return [r for r in self.of("reactions.remove", channel) if r["timestamp"] == ts]


# ---------------------------------------------------------------- the app under test
serve = serving


@pytest.fixture(scope="module")
def standin():
    s = SlackStandIn()
    s.thread.start()
    yield s
    s.server.shutdown()


@pytest.fixture(scope="module")
def slack_settings(settings, standin, tmp_path_factory):
    return settings.model_copy(update={"slack_bot_token": SecretStr(BOT_TOKEN), "slack_signing_secret": SecretStr(SECRET),
                                       "slack_api_url": standin.base_url, "slack_app_token": None,
                                       "slack_state_file": tmp_path_factory.mktemp("slack") / "state.sqlite"})


def own_state(settings, tmp_path, **extra):
    """Settings for a bridge with a queue of its own (another deployment, not a replica)."""
    return settings.model_copy(update={"slack_state_file": tmp_path / f"state-{uuid.uuid4().hex[:6]}.sqlite", **extra})


@pytest.fixture(scope="module")
def app(ctx, slack_settings):
    return build_http_app(ctx, slack_settings)


@pytest.fixture(scope="module")
def url(app):
    from tests.conftest import _free_port

    with serve(app, _free_port()) as base:
        yield base + "/slack/events"


def signed(body: dict | str, *, secret: str = SECRET, timestamp: int | None = None, **extra: str) -> tuple[bytes, dict]:
    raw = body if isinstance(body, str) else json.dumps(body)
    ts = str(int(time.time()) if timestamp is None else timestamp)
    headers = {"Content-Type": "application/json", "X-Slack-Request-Timestamp": ts,
               "X-Slack-Signature": SignatureVerifier(secret).generate_signature(timestamp=ts, body=raw), **extra}
    return raw.encode(), headers


def post(url: str, body: dict, **kw) -> httpx.Response:
    raw, headers = signed(body, **kw)
    return httpx.post(url, content=raw, headers=headers, timeout=10)


def envelope(event: dict, event_id: str | None = None) -> dict:
    return {"token": "legacy", "team_id": "T1", "api_app_id": "A1", "type": "event_callback",
            "event_id": event_id or f"Ev{uuid.uuid4().hex[:10]}", "event_time": int(time.time()), "event": event,
            "authorizations": [{"team_id": "T1", "user_id": BOT_USER, "is_bot": True}]}


def mention(standin: SlackStandIn, channel: str, text: str, thread_ts: str | None = None) -> dict:
    ts = standin.write(channel, f"<@{BOT_USER}> {text}", thread_ts=thread_ts)
    ev = {"type": "app_mention", "user": ALICE, "text": f"<@{BOT_USER}> {text}", "ts": ts, "channel": channel, "event_ts": ts}
    return ev | ({"thread_ts": thread_ts} if thread_ts else {})


def dm(standin: SlackStandIn, channel: str, text: str, thread_ts: str | None = None, **fields) -> dict:
    ts = standin.write(channel, text, thread_ts=thread_ts)
    ev = {"type": "message", "channel_type": "im", "user": ALICE, "text": text, "ts": ts, "channel": channel, "event_ts": ts}
    return ev | ({"thread_ts": thread_ts} if thread_ts else {}) | fields


def final_text(standin: SlackStandIn, channel: str, n: int = 1) -> list[str]:
    """Wait until ``n`` placeholders in ``channel`` have been replaced; return the answer texts."""

    def done():
        updates = standin.of("chat.update", channel)
        return [u["text"] for u in updates] if len(updates) >= n else None

    return standin.wait_for(done)


def finished(standin: SlackStandIn, event: dict) -> None:
    """Wait until the bridge is completely done with ``event``: the reaction goes last."""
    standin.wait_for(lambda: standin.reaction_removed(event["channel"], event["ts"]))


def settle(seconds: float = 1.0) -> None:
    """Give a (wrongly) started background answer time to show up in the stand-in's records."""
    time.sleep(seconds)


# ---------------------------------------------------------------- tests
def test_mention_is_answered_in_its_thread(url, standin):
    ev = mention(standin, "CMENTION", "How many cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
    t0 = time.monotonic()
    r = post(url, envelope(ev))
    ack_s = time.monotonic() - t0
    assert r.status_code == 200 and ack_s < 3.0
    [answer] = final_text(standin, "CMENTION")
    # min_cards.csv: qwen2.5-72b, lora, 4096, LLaMA-Factory, Snt9B -> 32 cards; MindSpeed-LLM -> 16
    assert "32 cards" in answer and "16 cards" in answer
    assert "**" not in answer and re.search(r"(?<![*\w])\*[^*\n]+\*(?![*\w])", answer)  # mrkdwn bold, not markdown
    [placeholder] = standin.of("chat.postMessage", "CMENTION")
    assert placeholder["thread_ts"] == ev["ts"] and placeholder["text"] == PLACEHOLDER["en"]
    [update] = standin.of("chat.update", "CMENTION")
    assert update["ts"] == next(m["ts"] for m in standin.messages["CMENTION"] if m.get("user") == BOT_USER)
    [added] = standin.of("reactions.add", "CMENTION")
    assert (added["channel"], added["timestamp"], added["name"]) == ("CMENTION", ev["ts"], THINKING_REACTION)
    finished(standin, ev)
    auth = [c for c in standin.calls if c["method"] == "auth.test"]
    assert auth and auth[0]["headers"]["Authorization"] == f"Bearer {BOT_TOKEN}"


def test_direct_message_in_chinese(url, standin):
    ev = dm(standin, "DCHINESE", "qwen2.5-7b 全参微调 4096 需要几张卡？")
    assert post(url, envelope(ev)).status_code == 200
    [answer] = final_text(standin, "DCHINESE")
    # min_cards.csv: qwen2.5-7b full 4096 Snt9B: LLaMA-Factory 8 cards, MindSpeed-LLM 4 cards
    assert "8 张卡" in answer and "4 张卡" in answer and "结论" in answer
    assert all(p["thread_ts"] == ev["ts"] for p in standin.of("chat.postMessage", "DCHINESE"))
    assert standin.of("chat.postMessage", "DCHINESE")[0]["text"] == PLACEHOLDER["zh"]


def test_follow_up_in_the_thread_keeps_the_context(url, standin):
    first = mention(standin, "CFOLLOW", "How many cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
    post(url, envelope(first))
    finished(standin, first)
    follow = mention(standin, "CFOLLOW", "and with full fine-tuning?", thread_ts=first["ts"])
    post(url, envelope(follow))
    answer = final_text(standin, "CFOLLOW", 2)[1]
    # The follow-up names no model: qwen2.5-72b and 4096 come from the thread.
    # min_cards.csv: qwen2.5-72b full 4096 Snt9B: LLaMA-Factory 64 cards, MindSpeed-LLM 32 cards
    assert "qwen2.5-72b" in answer and "4096" in answer
    assert "64 cards" in answer and "32 cards" in answer
    assert {p["thread_ts"] for p in standin.of("chat.postMessage", "CFOLLOW")} == {first["ts"]}


def test_give_me_the_yaml_in_a_dm_thread_posts_the_config(url, standin):
    first = dm(standin, "DYAML", "How many cards for llama2-7b full fine-tuning at 4096 with LLaMA-Factory on Snt9B?")
    post(url, envelope(first))
    finished(standin, first)
    [answer] = final_text(standin, "DYAML", 1)
    # recipes_llamafactory.csv: llama2-7b full 4096 -> 1 node x 8 cards, ZeRO-2, grad_accum 8
    assert "8 cards" in answer and "ZeRO-2" in answer
    post(url, envelope(dm(standin, "DYAML", "give me the yaml", thread_ts=first["ts"])))
    texts = final_text(standin, "DYAML", 2)[1:] + [p["text"] for p in standin.of("chat.postMessage", "DYAML")[2:]]
    joined = "\n".join(texts)
    assert "```" in joined and "gradient_accumulation_steps: 8" in joined
    assert "deepspeed: examples/deepspeed/ds_z2_config.json" in joined and "template: llama2" in joined
    assert "```yaml" not in joined  # the language tag is dropped: Slack would show it as code
    assert not standin.of("files.getUploadURLExternal", "DYAML")  # small configs stay inline
    assert all(len(t) <= 4000 for t in texts)


def test_large_configs_are_uploaded_as_files(url, app, standin):
    bridge = app.state.slack_app.slack_bridge
    old = bridge.inline_file_chars
    bridge.inline_file_chars = 1000  # the yaml (~1.2k) and launch script (~1.6k) go as files, the json stays
    try:
        first = dm(standin, "DUPLOAD", "How many cards for llama2-7b full fine-tuning at 4096 with LLaMA-Factory on Snt9B?")
        post(url, envelope(first))
        finished(standin, first)
        follow = dm(standin, "DUPLOAD", "the launch command", thread_ts=first["ts"])
        post(url, envelope(follow))
        finished(standin, follow)
    finally:
        bridge.inline_file_chars = old
    completes = standin.of("files.completeUploadExternal", "DUPLOAD")
    titles = sorted(f["title"] for c in completes for f in json.loads(c["files"]))
    assert titles == ["llama2-7b_full_sft_4096.yaml", "llama2-7b_full_sft_4096_launch.sh"]
    assert all(c["thread_ts"] == first["ts"] for c in completes)
    ids = [json.loads(c["files"])[0]["id"] for c in completes]
    uploaded = "\n".join(standin.uploads[i].decode() for i in ids)
    assert "gradient_accumulation_steps: 8" in uploaded and "llamafactory-cli train llama2-7b_full_sft_4096.yaml" in uploaded
    answer = final_text(standin, "DUPLOAD", 2)[1]
    assert "attached below" in answer and "gradient_accumulation_steps: 8" not in answer  # taken out of the text
    assert '"stage": 2' in answer  # ds_z2_config.json is small: still inline


def test_upload_refused_falls_back_to_code_blocks(ctx, slack_settings, standin, free_port, tmp_path):
    app = build_http_app(ctx, own_state(slack_settings, tmp_path))
    app.state.slack_app.slack_bridge.inline_file_chars = 100
    standin.failing.add("files.getUploadURLExternal")
    try:
        with serve(app, free_port) as base:
            first = dm(standin, "DNOSCOPE", "give me the LLaMA-Factory yaml for llama2-7b full fine-tuning at 4096 on Snt9B")
            post(base + "/slack/events", envelope(first))
            finished(standin, first)
    finally:
        standin.failing.discard("files.getUploadURLExternal")
    posts = [p["text"] for p in standin.of("chat.postMessage", "DNOSCOPE")]
    assert any(t.startswith("*llama2-7b_full_sft_4096.yaml*\n```") and "gradient_accumulation_steps: 8" in t for t in posts)


def test_retries_and_duplicate_deliveries_are_not_answered_twice(url, standin):
    ev = mention(standin, "CRETRY", "How many cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
    body = envelope(ev, event_id="EvRETRY1")
    assert post(url, body).status_code == 200
    retry = post(url, body, **{"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
    assert retry.status_code == 200 and retry.headers.get("x-slack-no-retry") == "1"
    assert post(url, body).status_code == 200  # the same event_id again, without retry headers
    final_text(standin, "CRETRY")
    settle()
    assert len(standin.of("chat.postMessage", "CRETRY")) == 1 and len(standin.of("chat.update", "CRETRY")) == 1
    assert len(standin.of("reactions.add", "CRETRY")) == 1


def test_bad_signature_unsigned_and_stale_requests_get_401_and_no_reply(url, standin):
    ev = mention(standin, "CFORGED", "How many cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
    wrong = post(url, envelope(ev), secret="not-the-secret")
    raw = json.dumps(envelope(ev)).encode()
    unsigned = httpx.post(url, content=raw, headers={"Content-Type": "application/json"}, timeout=10)
    stale = post(url, envelope(ev), timestamp=int(time.time()) - 6 * 60)  # correctly signed, 6 minutes old
    _, headers = signed(envelope(ev))
    tampered = httpx.post(url, content=raw.replace(b"CFORGED", b"CFORGEX"), headers=headers, timeout=10)
    assert [r.status_code for r in (wrong, unsigned, stale, tampered)] == [401, 401, 401, 401]
    settle()
    assert not standin.in_channel("CFORGED") and not standin.in_channel("CFORGEX")


def test_bot_messages_are_ignored(url, standin):
    bodies = [
        dm(standin, "DBOTS", "How many cards for qwen2.5-7b?", bot_id="BOTHER", subtype="bot_message", user=None),
        dm(standin, "DBOTS", "How many cards for qwen2.5-7b?", bot_id=BOT_ID, user=BOT_USER),  # this bot itself
        dm(standin, "DBOTS", "How many cards for qwen2.5-7b?", bot_id="BOTHER", user="UOTHERBOT"),
        dm(standin, "DBOTS", "", subtype="message_changed", user=None,
           message={"text": "How many cards for qwen2.5-7b?", "user": ALICE}),
    ]
    for ev in bodies:
        assert post(url, envelope(ev)).status_code == 200
    other_bot = {"type": "app_mention", "user": "UOTHERBOT", "bot_id": "BOTHER", "text": f"<@{BOT_USER}> hi",
                 "ts": standin.next_ts(), "channel": "DBOTS", "event_ts": "1"}
    assert post(url, envelope(other_bot)).status_code == 200
    settle()
    assert not standin.in_channel("DBOTS")


def test_agent_error_becomes_an_apology_in_the_thread(ctx, slack_settings, standin, free_port, tmp_path):
    class BrokenAssistant:
        """Slower than Slack's 3-second deadline, then fails: the ack must not wait for it."""

        def __init__(self, ctx):
            pass

        def ask(self, question, history=None):
            time.sleep(3.2)
            raise RuntimeError("model endpoint exploded")

    with serve(build_http_app(ctx, own_state(slack_settings, tmp_path), assistant_factory=BrokenAssistant), free_port) as base:
        ev = mention(standin, "CBROKEN", "How many cards for Qwen2.5-72B LoRA at 4096?")
        t0 = time.monotonic()
        assert post(base + "/slack/events", envelope(ev)).status_code == 200
        assert time.monotonic() - t0 < 3.0
        [text] = final_text(standin, "CBROKEN")
        finished(standin, ev)
    assert text == APOLOGY["en"] and "exploded" not in text
    assert standin.of("chat.postMessage", "CBROKEN")[0]["thread_ts"] == ev["ts"]


def test_thread_context_is_read_from_slack(url, standin):
    """Every replica sees the same thread: the follow-up's context comes from conversations.replies."""
    first = mention(standin, "CRESTART", "How many cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
    post(url, envelope(first))
    finished(standin, first)
    post(url, envelope(mention(standin, "CRESTART", "and with full fine-tuning?", thread_ts=first["ts"])))
    answer = final_text(standin, "CRESTART", 2)[1]
    assert [r["ts"] for r in standin.of("conversations.replies", "CRESTART")] == [first["ts"]]
    assert "qwen2.5-72b" in answer and "64 cards" in answer  # min_cards.csv: full 4096 LLaMA-Factory Snt9B


def test_url_verification_challenge(url):
    r = post(url, {"token": "legacy", "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
                   "type": "url_verification"})
    assert r.status_code == 200 and "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" in r.text


def test_missing_settings_give_a_clear_error(settings):
    bare = settings.model_copy(update={"slack_bot_token": None, "slack_signing_secret": None, "slack_app_token": None})
    with pytest.raises(SlackSettingsError, match="SLACK_BOT_TOKEN.*SLACK_SIGNING_SECRET"):
        require_settings(bare, socket_mode=False)
    with pytest.raises(SlackSettingsError, match="SLACK_APP_TOKEN"):
        require_settings(bare.model_copy(update={"slack_bot_token": SecretStr("xoxb-1")}), socket_mode=True)


def test_socket_mode_answers_events_from_a_websocket(ctx, slack_settings, standin, tmp_path):
    """Socket Mode: apps.connections.open hands out a loopback websocket that plays Slack's part:
    hello, an events_api envelope and its redelivery (retry_attempt 1); both are acknowledged,
    the question is answered once."""
    from websockets.sync.server import serve as ws_serve

    ev = mention(standin, "CSOCKET", "How many cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
    first = {"envelope_id": "env-1", "type": "events_api", "accepts_response_payload": False,
             "retry_attempt": 0, "retry_reason": "", "payload": envelope(ev)}
    redelivery = first | {"envelope_id": "env-2", "retry_attempt": 1, "retry_reason": "timeout"}
    acks: list[dict] = []

    def slack_side(ws):
        ws.send(json.dumps({"type": "hello", "num_connections": 1, "connection_info": {"app_id": "A1"}}))
        ws.send(json.dumps(first))
        ws.send(json.dumps(redelivery))
        with contextlib.suppress(Exception):
            while True:
                acks.append(json.loads(ws.recv(timeout=WAIT_S)))

    settings = own_state(slack_settings, tmp_path, slack_app_token=SecretStr("xapp-test"), slack_signing_secret=None)
    with ws_serve(slack_side, "127.0.0.1", 0) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        standin.socket_url = f"ws://127.0.0.1:{server.socket.getsockname()[1]}/link"
        handler = socket_mode_handler(ctx, settings)
        handler.connect()
        try:
            [answer] = final_text(standin, "CSOCKET")
            finished(standin, ev)
            standin.wait_for(lambda: len(acks) >= 2)
        finally:
            handler.close()
            server.shutdown()
    assert sorted(a["envelope_id"] for a in acks[:2]) == ["env-1", "env-2"]
    assert "32 cards" in answer  # min_cards.csv: qwen2.5-72b lora 4096 LLaMA-Factory Snt9B
    settle()
    assert len(standin.of("chat.postMessage", "CSOCKET")) == 1
    [opened] = [c for c in standin.calls if c["method"] == "apps.connections.open"]
    assert opened["headers"]["Authorization"] == "Bearer xapp-test"


def test_sizing_serve_mounts_the_events_endpoint(slack_settings, standin, free_port, tmp_path):
    """`sizing serve` composes the API app with /slack/events when Slack settings are present."""
    from assistant.frontends.server import build_app

    with serve(build_app(own_state(slack_settings, tmp_path)), free_port) as base:
        assert httpx.get(base + "/healthz", timeout=10).status_code == 200
        ev = mention(standin, "CSERVE", "How many cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
        assert post(base + "/slack/events", envelope(ev)).status_code == 200
        [answer] = final_text(standin, "CSERVE")
        finished(standin, ev)
        assert post(base + "/slack/events", envelope(ev), secret="wrong").status_code == 401
    assert "32 cards" in answer


def test_sizing_slack_command_serves_the_events_api(settings, standin, free_port, tmp_path):
    """`sizing slack --http` as a user runs it: a subprocess with Slack's usual variable names."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "SIZING_"))}
    env |= {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SECRET, "SIZING_SLACK_API_URL": standin.base_url,
            "SIZING_CACHE_DIR": str(settings.resolved_cache_dir()), "SIZING_LLM": "offline",
            "SIZING_SLACK_STATE_FILE": str(tmp_path / "state.sqlite")}
    sizing = str(Path(sys.executable).parent / "sizing")
    proc = subprocess.Popen([sizing, "slack", "--http", "--port", str(free_port), "--host", "127.0.0.1"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{free_port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stdout.read()
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline, "sizing slack did not start"
            time.sleep(0.2)
        ev = dm(standin, "DCLI", "How many cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
        assert post(base + "/slack/events", envelope(ev)).status_code == 200
        [answer] = final_text(standin, "DCLI")
    finally:
        proc.terminate()
        proc.wait(20)
    assert "32 cards" in answer


def test_sizing_slack_without_tokens_exits_with_a_clear_error(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "SIZING_"))}
    sizing = str(Path(sys.executable).parent / "sizing")
    p = subprocess.run([sizing, "slack"], env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 2
    assert "SLACK_BOT_TOKEN" in p.stderr and "SLACK_SIGNING_SECRET" in p.stderr and "Traceback" not in p.stderr
    p = subprocess.run([sizing, "slack", "--socket-mode"], env=env | {"SLACK_BOT_TOKEN": "xoxb-1"},
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "SLACK_APP_TOKEN" in p.stderr and "SLACK_BOT_TOKEN" not in p.stderr


# ---------------------------------------------------------------- issue 25: retries, rate limits, junk
def test_a_retry_of_an_event_nobody_accepted_is_answered(url, standin):
    """The first delivery died with a process before it was queued: Slack's retry is the question."""
    ev = mention(standin, "CRETRYNEW", "How many cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
    r = post(url, envelope(ev, event_id="EvNEVERSEEN"), **{"X-Slack-Retry-Num": "2", "X-Slack-Retry-Reason": "http_timeout"})
    assert r.status_code == 200
    [answer] = final_text(standin, "CRETRYNEW")
    assert "32 cards" in answer  # min_cards.csv: qwen2.5-72b lora 4096 LLaMA-Factory Snt9B
    finished(standin, ev)
    again = post(url, envelope(ev, event_id="EvNEVERSEEN"), **{"X-Slack-Retry-Num": "3", "X-Slack-Retry-Reason": "http_timeout"})
    assert again.status_code == 200 and again.headers.get("x-slack-no-retry") == "1"
    settle()
    assert len(standin.of("chat.update", "CRETRYNEW")) == 1 and len(standin.of("chat.postMessage", "CRETRYNEW")) == 1


def test_rate_limits_are_waited_out_and_the_placeholder_replaced(url, standin):
    """429 with Retry-After on the placeholder's update and on the fallback post (the failure of issue
    25): slack_sdk waits and retries, and the answer replaces the placeholder."""
    ev = mention(standin, "CLIMIT", "How many cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
    standin.rate_limited.update({"chat.update": 2, "chat.postMessage": 1})
    assert post(url, envelope(ev)).status_code == 200
    [answer] = final_text(standin, "CLIMIT")
    finished(standin, ev)
    assert "32 cards" in answer
    assert standin.refused("chat.update", "CLIMIT") == 2 and standin.refused("chat.postMessage", "CLIMIT") == 1
    [placeholder] = standin.of("chat.postMessage", "CLIMIT")
    assert placeholder["text"] == PLACEHOLDER["en"]
    assert next(m for m in standin.messages["CLIMIT"] if m["ts"] == standin.of("chat.update", "CLIMIT")[0]["ts"])["text"] == answer


def test_a_longer_rate_limit_sends_the_question_back_to_the_queue(ctx, slack_settings, standin, free_port, tmp_path):
    """Slack refuses chat.postMessage more often than slack_sdk retries (4 tries a call): no placeholder and
    no answer get through, so the question goes back to the queue; the next attempt answers it."""
    import assistant.frontends.slack as slack_module

    app = build_http_app(ctx, own_state(slack_settings, tmp_path))
    old, slack_module.RETRY_DELAY_S = slack_module.RETRY_DELAY_S, 0.5
    try:
        with serve(app, free_port) as base:
            ev = mention(standin, "CLIMIT2", "How many cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
            standin.rate_limited["chat.postMessage"] = 8  # 4 tries of the placeholder, 4 of the answer
            assert post(base + "/slack/events", envelope(ev)).status_code == 200
            [answer] = final_text(standin, "CLIMIT2")
            finished(standin, ev)
    finally:
        slack_module.RETRY_DELAY_S = old
    assert "32 cards" in answer
    assert standin.refused("chat.postMessage", "CLIMIT2") == 8
    assert [p["text"] for p in standin.of("chat.postMessage", "CLIMIT2")] == [PLACEHOLDER["en"]]  # one placeholder
    [bot_message] = [m for m in standin.messages["CLIMIT2"] if m.get("user") == BOT_USER]
    assert bot_message["text"] == answer  # the placeholder became the answer


def test_after_the_last_attempt_the_thread_gets_a_one_line_apology(ctx, slack_settings, standin, free_port, tmp_path):
    """Slack refused every try of the only allowed attempt: the next take posts UNDELIVERED (what
    happened and what to do) instead of trying forever or leaving nothing."""
    import assistant.frontends.slack as slack_module

    app = build_http_app(ctx, own_state(slack_settings, tmp_path))
    app.state.slack_app.slack_workers.max_attempts = 1
    old, slack_module.RETRY_DELAY_S = slack_module.RETRY_DELAY_S, 0.2
    try:
        with serve(app, free_port) as base:
            ev = mention(standin, "CGIVEUP", "How many cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
            standin.rate_limited["chat.postMessage"] = 8  # attempt 1: 4 tries of the placeholder, 4 of the answer
            assert post(base + "/slack/events", envelope(ev)).status_code == 200
            standin.wait_for(lambda: standin.of("chat.postMessage", "CGIVEUP"))
            finished(standin, ev)
    finally:
        slack_module.RETRY_DELAY_S = old
    [apology] = [p["text"] for p in standin.of("chat.postMessage", "CGIVEUP")]
    assert apology == slack_module.UNDELIVERED["en"] and "ask again" in apology and "\n" not in apology


def test_an_update_refused_for_good_posts_the_answer_and_removes_the_placeholder(url, standin):
    ev = mention(standin, "CLIMIT3", "How many cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
    standin.rate_limited["chat.update"] = 4  # more than slack_sdk retries
    assert post(url, envelope(ev)).status_code == 200
    finished(standin, ev)
    placeholder, answer = [p["text"] for p in standin.of("chat.postMessage", "CLIMIT3")]
    assert placeholder == PLACEHOLDER["en"] and "32 cards" in answer
    [deleted] = standin.of("chat.delete", "CLIMIT3")
    assert not [m for m in standin.messages["CLIMIT3"] if m["ts"] == deleted["ts"]]  # gone from the thread


def test_signed_block_actions_without_actions_is_400_without_a_traceback(url, caplog):
    from urllib.parse import urlencode

    payload = {"type": "block_actions", "user": {"id": ALICE}, "team": {"id": "T1"}, "api_app_id": "A1", "token": "legacy"}
    raw = urlencode({"payload": json.dumps(payload)})
    _, headers = signed(raw)
    headers["Content-Type"] = "application/x-www-form-urlencoded"
    with caplog.at_level("DEBUG"):
        r = httpx.post(url, content=raw.encode(), headers=headers, timeout=10)
    assert 400 <= r.status_code < 500  # issue 25: was a 500
    with_action = payload | {"actions": [{"action_id": "x", "block_id": "b", "type": "button", "value": "1"}]}
    raw = urlencode({"payload": json.dumps(with_action)})
    _, headers = signed(raw)
    headers["Content-Type"] = "application/x-www-form-urlencoded"
    assert httpx.post(url, content=raw.encode(), headers=headers, timeout=10).status_code == 200  # acknowledged
    for junk in ({"type": "totally_unknown", "event": "x"}, {"type": "event_callback", "event": "not an object"},
                 {"type": "event_callback", "event": {"type": "app_mention", "user": ALICE, "channel": 5, "ts": None}}):
        assert 200 <= post(url, junk).status_code < 500
    assert not any(rec.exc_info for rec in caplog.records)
