"""Slack bridge: a slack-bolt app that answers mentions and direct messages with the same agent as
every other front end.

- Replies go in the thread of the question, and the thread is the conversation: earlier turns come
  from a bounded in-process memory, or from ``conversations.replies`` when this process has not
  seen the thread (a restart, another worker).
- While the agent works the question gets an hourglass reaction and the thread a placeholder
  message; the placeholder is then replaced by the answer (``chat.update``). Configs go out as code
  blocks when small, as file uploads (``files_upload_v2``) when not.
- Requests are verified on their raw bytes before anything is parsed (signature and a timestamp at
  most 5 minutes old; else 401; a signed body that is not a JSON object: 400). Events are
  acknowledged before bolt sees them and answered on a worker thread, so Slack's 3-second deadline
  holds however long the agent takes. Retries (``X-Slack-Retry-Num``) are acknowledged and
  dropped, and event ids are deduplicated, so nothing is answered twice. Bot messages, this bot's
  own included, are ignored.

``mount_slack`` adds POST /slack/events to an existing FastAPI app (``sizing serve``);
``build_http_app`` / ``run_http`` / ``run_socket_mode`` are the standalone runners of ``sizing slack``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from slack_bolt import App, BoltResponse
from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response
from slack_sdk import WebClient
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from ..answer import Answer, ChatTurn, GeneratedFile
from ..context import Context
from ..httpguard import Guard, HostPolicy, http_protocol, json_error
from ..settings import Settings
from .slack_format import code_block, split_message, to_mrkdwn

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
DEFAULT_PORT = 3000  # bolt's usual port for the Events API
THINKING_REACTION = "hourglass_flowing_sand"
PLACEHOLDER = {"en": ":hourglass_flowing_sand: _Working it out…_", "zh": ":hourglass_flowing_sand: _正在计算…_"}
APOLOGY = {
    "en": "Sorry, something went wrong while answering this. Please try again in a moment, or rephrase the question.",
    "zh": "抱歉，回答这个问题时出错了。请稍后再试，或换个问法。",
}
EMPTY_QUESTION = {
    "en": "Ask me a sizing question, e.g. “How many cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?”",
    "zh": "请提一个算力规划问题，例如：“Qwen2.5-72B LoRA 微调，序列 4096，LLaMA-Factory，Snt9B 需要几张卡？”",
}
ATTACHED = {"en": "`{name}`: attached below.", "zh": "`{name}`：见下方附件。"}
INLINE_FILE_CHARS = 2500  # configs up to this size are posted as a code block; larger ones are uploaded
INLINE_FILE_LINES = 60
HISTORY_THREADS = 500  # threads remembered per process (least recently used dropped first)
HISTORY_TURNS = 20  # turns kept per thread
HISTORY_CHARS = 4000  # of each bot message read back from Slack (a posted config need not be re-read whole)
SEEN_EVENT_TTL_S = 3600.0  # Slack retries within minutes; an hour of event ids is ample
SEEN_EVENT_MAX = 10_000
ANSWER_WORKERS = 4  # concurrent questions per process; more wait in the executor's queue
# Message subtypes that are people writing; edits, deletions, joins and bot posts are not questions.
HUMAN_SUBTYPES = {None, "file_share", "thread_broadcast"}

AssistantFactory = Callable[[Context], Any]


class SlackSettingsError(ValueError):
    """Slack is selected but its tokens or secret are missing."""


def require_settings(settings: Settings, *, socket_mode: bool) -> None:
    """Raise a SlackSettingsError naming exactly what is missing for the chosen mode."""
    missing = []
    if not settings.slack_bot_token:
        missing.append("SLACK_BOT_TOKEN (the bot token, xoxb-…, from OAuth & Permissions)")
    if socket_mode and not settings.slack_app_token:
        missing.append("SLACK_APP_TOKEN (an app-level token, xapp-…, with connections:write)")
    if not socket_mode and not settings.slack_signing_secret:
        missing.append("SLACK_SIGNING_SECRET (Basic Information → App Credentials)")
    if missing:
        mode = "Socket Mode" if socket_mode else "the HTTP Events API"
        raise SlackSettingsError(
            f"Slack is not configured for {mode}: set " + " and ".join(missing)
            + " (or the SIZING_-prefixed names). See the README section 'Slack'."
        )


def language(text: str) -> str:
    return "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"


def question_text(text: str, bot_user_id: str | None) -> str:
    """The question as a person wrote it: the bot's mention removed, Slack's escapes and link
    markup undone (``<https://x|label>`` -> label, ``<@U1>`` kept for other users)."""
    if bot_user_id:
        text = re.sub(rf"<@{re.escape(bot_user_id)}(\|[^>]*)?>", " ", text)
    text = re.sub(r"<((?:https?|mailto):[^|>]+)\|([^>]+)>", r"\2", text)
    text = re.sub(r"<((?:https?|mailto):[^>]+)>", r"\1", text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return re.sub(r"[ \t]+", " ", text).strip()


def is_from_person(event: dict) -> bool:
    """A message a person wrote: no bot id or bot profile, a user, and a plain subtype."""
    return (
        not event.get("bot_id") and not event.get("bot_profile") and bool(event.get("user"))
        and event.get("subtype") in HUMAN_SUBTYPES
    )


def retry_number(headers: dict) -> int:
    """Slack's X-Slack-Retry-Num (bolt keeps header values as lists); 0 for a first delivery."""
    value = headers.get("x-slack-retry-num") or ["0"]
    value = value[0] if isinstance(value, list | tuple) else value
    return int(value) if str(value).strip().isdigit() else 1  # a malformed retry header is still a retry


class ThreadMemory:
    """Bounded in-process memory of the conversations: (channel, thread_ts) -> turns."""

    def __init__(self, max_threads: int = HISTORY_THREADS, max_turns: int = HISTORY_TURNS):
        self.max_threads, self.max_turns = max_threads, max_turns
        self._threads: OrderedDict[tuple[str, str], list[ChatTurn]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> list[ChatTurn] | None:
        with self._lock:
            if key not in self._threads:
                return None
            self._threads.move_to_end(key)
            return list(self._threads[key])

    def __contains__(self, key: tuple[str, str]) -> bool:
        with self._lock:
            return key in self._threads

    def record(self, key: tuple[str, str], earlier: list[ChatTurn], question: str, answer: str) -> None:
        turns = [*earlier, ChatTurn(role="user", content=question), ChatTurn(role="assistant", content=answer)]
        with self._lock:
            self._threads[key] = turns[-self.max_turns:]
            self._threads.move_to_end(key)
            while len(self._threads) > self.max_threads:
                self._threads.popitem(last=False)


class SeenEvents:
    """Event ids already taken, for a while: a second delivery of one event is dropped."""

    def __init__(self, ttl_s: float = SEEN_EVENT_TTL_S, max_size: int = SEEN_EVENT_MAX):
        self.ttl_s, self.max_size = ttl_s, max_size
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def first_time(self, event_id: str) -> bool:
        now = time.monotonic()
        with self._lock:
            while self._seen and (next(iter(self._seen.values())) < now - self.ttl_s or len(self._seen) >= self.max_size):
                self._seen.popitem(last=False)
            if event_id in self._seen:
                return False
            self._seen[event_id] = now
            return True


class SlackBridge:
    """What happens to one question: reaction and placeholder, the agent, the answer in the thread."""

    def __init__(self, ctx: Context, assistant_factory: AssistantFactory):
        self.ctx, self.factory = ctx, assistant_factory
        self.memory = ThreadMemory()
        self.inline_file_chars, self.inline_file_lines = INLINE_FILE_CHARS, INLINE_FILE_LINES
        self._local = threading.local()  # one assistant per worker thread: no sharing, no locks

    def assistant(self):
        if getattr(self._local, "assistant", None) is None:
            self._local.assistant = self.factory(self.ctx)
        return self._local.assistant

    # -- one question ---------------------------------------------------------------------------
    def answer(self, event: dict, client: WebClient, bot_user_id: str | None, bot_id: str | None) -> None:
        channel, ts = event["channel"], event["ts"]
        thread_ts = event.get("thread_ts") or ts
        question = question_text(event.get("text") or "", bot_user_id)
        lang = language(question)
        if not question:
            self._post(client, channel, thread_ts, EMPTY_QUESTION[lang])
            return
        key = (channel, thread_ts)
        history = self.memory.get(key)
        if history is None:
            history = self.thread_history(client, channel, thread_ts, ts, bot_user_id, bot_id) if thread_ts != ts else []
        self._call(client.reactions_add, channel=channel, timestamp=ts, name=THINKING_REACTION)
        placeholder = self._post(client, channel, thread_ts, PLACEHOLDER[lang])
        try:
            answer: Answer = self.assistant().ask(question, history=history)
        except Exception:
            log.exception("The agent failed on a Slack question in %s", channel)
            self._deliver_text(client, channel, thread_ts, placeholder, APOLOGY[lang])
        else:
            text, files = self.attachments(answer, lang)
            self._deliver_text(client, channel, thread_ts, placeholder, to_mrkdwn(text))
            for f in files:
                self._deliver_file(client, channel, thread_ts, f.filename, f.content)
            self.memory.record(key, history, question, answer.answer)
        finally:
            self._call(client.reactions_remove, channel=channel, timestamp=ts, name=THINKING_REACTION)

    def is_small(self, content: str) -> bool:
        return len(content) <= self.inline_file_chars and content.count("\n") < self.inline_file_lines

    def attachments(self, answer: Answer, lang: str) -> tuple[str, list[GeneratedFile]]:
        """The message text and the files to post after it. The agent usually shows each config in
        the answer already: a small one stays there (not posted twice), a large one is taken out of
        the text and uploaded. Files the text does not show are posted as well."""
        text = answer.answer + (f"\n\n_{answer.notice}_" if answer.notice else "")
        files = []
        for f in answer.files:
            shown = re.search(
                rf"(?:^`?{re.escape(f.filename)}`?:?[ \t]*\n)?^(`{{3,}})[^\n]*\n{re.escape(f.content.strip(chr(10)))}\n\1[ \t]*$",
                text, re.M,
            )
            if shown and self.is_small(f.content):
                continue
            if shown:
                text = text[: shown.start()] + ATTACHED[lang].format(name=f.filename) + text[shown.end():]
            files.append(f)
        return text, files

    def thread_history(self, client: WebClient, channel: str, thread_ts: str, current_ts: str,
                       bot_user_id: str | None, bot_id: str | None) -> list[ChatTurn]:
        """Earlier turns of a thread this process has not seen, read back from Slack."""
        resp = self._call(client.conversations_replies, channel=channel, ts=thread_ts, limit=100)
        turns = []
        for m in resp.get("messages", []) if resp else []:
            if m.get("ts") == current_ts or not m.get("text"):
                continue
            mine = (bot_user_id and m.get("user") == bot_user_id) or (bot_id and m.get("bot_id") == bot_id)
            if mine and m["text"] not in PLACEHOLDER.values():
                turns.append(ChatTurn(role="assistant", content=m["text"][:HISTORY_CHARS]))
            elif not mine and is_from_person(m):
                turns.append(ChatTurn(role="user", content=question_text(m["text"], bot_user_id)))
        return turns[-HISTORY_TURNS:]

    # -- posting --------------------------------------------------------------------------------
    def _deliver_text(self, client, channel, thread_ts, placeholder_ts, text: str) -> None:
        chunks = split_message(text)
        first, rest = chunks[0], chunks[1:]
        if not placeholder_ts or self._call(client.chat_update, channel=channel, ts=placeholder_ts, text=first) is None:
            self._post(client, channel, thread_ts, first)
        for chunk in rest:
            self._post(client, channel, thread_ts, chunk)

    def _deliver_file(self, client, channel, thread_ts, filename: str, content: str) -> None:
        if self.is_small(content):
            self._post(client, channel, thread_ts, code_block(content, filename))
            return
        uploaded = self._call(client.files_upload_v2, channel=channel, thread_ts=thread_ts, content=content,
                              filename=filename, title=filename)
        if uploaded is None:  # no files:write scope, or uploads blocked: the text still gets through
            for chunk in split_message(code_block(content, filename)):
                self._post(client, channel, thread_ts, chunk)

    def _post(self, client, channel, thread_ts, text: str) -> str | None:
        resp = self._call(client.chat_postMessage, channel=channel, thread_ts=thread_ts, text=text,
                          unfurl_links=False, unfurl_media=False)
        return resp.get("ts") if resp else None

    @staticmethod
    def _call(method, **kwargs):
        """One Web API call; a failure is logged and returns None so the answer still goes out."""
        try:
            return method(**kwargs)
        except Exception as e:  # SlackApiError, a network error: never let a reaction sink an answer
            log.warning("Slack %s failed: %s", getattr(method, "__name__", method), e)
            return None


def build_slack_app(ctx: Context, settings: Settings, assistant_factory: AssistantFactory | None = None,
                    *, socket_mode: bool = False) -> App:
    """The bolt app. ``assistant_factory(ctx)`` builds the agent (default: assistant.agent.Assistant)."""
    require_settings(settings, socket_mode=socket_mode)
    if assistant_factory is None:
        from ..agent import Assistant

        assistant_factory = Assistant
    assert settings.slack_bot_token is not None  # require_settings checked it
    client = (WebClient(token=settings.slack_bot_token.get_secret_value(), base_url=settings.slack_api_url)
              if settings.slack_api_url else WebClient(token=settings.slack_bot_token.get_secret_value()))
    app = App(
        client=client,
        signing_secret=settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else "",
        # Socket Mode requests arrive over the authenticated websocket and carry no signature.
        request_verification_enabled=not socket_mode,
        token_verification_enabled=False,  # auth.test runs on the first event instead of at start-up
        process_before_response=False,  # acknowledge first, answer on a worker thread
        listener_executor=ThreadPoolExecutor(max_workers=ANSWER_WORKERS, thread_name_prefix="slack-answer"),
    )
    bridge = SlackBridge(ctx, assistant_factory)
    seen = SeenEvents()
    app.slack_bridge = bridge  # type: ignore[attr-defined]  # for tests and for anyone composing the app

    @app.middleware
    def drop_retries_and_duplicates(req, resp, next):
        # Retries are dropped outright rather than matched against event ids: with several workers
        # the first delivery may have landed in another process, whose memory this one cannot see.
        # The ack is immediate (the answer runs after it), so a retry almost always means a slow
        # network, not a lost event; if the first delivery never arrived, the person asks again.
        # Socket Mode mirrors its envelope's retry_attempt into this header, as "0" on a first delivery.
        if retry_number(req.headers) > 0:
            return BoltResponse(status=200, body="", headers={"x-slack-no-retry": "1"})
        event_id = req.body.get("event_id")
        if event_id and not seen.first_time(event_id):
            return BoltResponse(status=200, body="")
        return next()

    def ids(context) -> tuple[str | None, str | None]:
        return context.get("bot_user_id"), context.get("bot_id")

    @app.event("app_mention")
    def on_mention(event, context, client):
        if is_from_person(event):
            bridge.answer(event, client, *ids(context))

    @app.event("message")
    def on_message(event, context, client):
        if not is_from_person(event):
            return
        if event.get("channel_type") == "im":
            bridge.answer(event, client, *ids(context))
            return
        # In channels (only when message.channels is subscribed) a reply without a mention is
        # answered when it continues a thread the bot took part in; mentions come as app_mention.
        bot_user_id = context.get("bot_user_id")
        thread_ts = event.get("thread_ts")
        mentioned = bool(bot_user_id) and f"<@{bot_user_id}" in (event.get("text") or "")
        if thread_ts and not mentioned and (event["channel"], thread_ts) in bridge.memory:
            bridge.answer(event, client, *ids(context))

    return app


SIGNATURE_MAX_AGE_S = 300  # Slack's rule: a request older than five minutes is a replay


def signature_ok(secret: bytes, headers, body: bytes, now: float | None = None) -> bool:
    """Slack's v0 signature over the raw bytes (computed before anything is parsed or decoded: a
    body that is not UTF-8 or not JSON is still only bytes here), and a timestamp within five minutes."""
    timestamp = headers.get("x-slack-request-timestamp", "")
    signature = headers.get("x-slack-signature", "")
    if not (timestamp.isascii() and timestamp.isdigit()) or not signature:
        return False
    if abs((time.time() if now is None else now) - int(timestamp)) > SIGNATURE_MAX_AGE_S:
        return False
    digest = hmac.new(secret, b"v0:" + timestamp.encode() + b":" + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(f"v0={digest}".encode(), signature.encode("utf-8", "replace"))


def _payload_type(body: bytes, content_type: str) -> str | None:
    """The payload's ``type`` for a signed body, or None when it is not a payload Slack sends."""
    try:
        text = body.decode("utf-8")
        if "application/x-www-form-urlencoded" in content_type:  # interactivity: payload=<json>
            from urllib.parse import parse_qs

            data = json.loads(parse_qs(text).get("payload", ["{}"])[0])
        else:
            data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return str(data.get("type") or "") if isinstance(data, dict) else None


def mount_slack(fastapi_app, ctx: Context, settings: Settings, assistant_factory: AssistantFactory | None = None,
                *, path: str = EVENTS_PATH) -> App:
    """Add POST ``path`` (Slack's Events API request URL) to an existing FastAPI app; returns the bolt app.

    The signature is checked on the raw bytes before anything is parsed (unsigned, badly signed or
    stale: 401), a signed body that is not a JSON object is 400, and an event is acknowledged before
    bolt sees it: bolt's first dispatch waits on auth.test, and Slack wants the 200 within 3 s."""
    bolt = build_slack_app(ctx, settings, assistant_factory)
    secret = settings.slack_signing_secret.get_secret_value().encode() if settings.slack_signing_secret else b""
    dispatcher = ThreadPoolExecutor(max_workers=2, thread_name_prefix="slack-dispatch")

    def dispatch_later(bolt_request) -> None:
        try:
            bolt.dispatch(bolt_request)
        except Exception:  # the ack has gone; a failure here can only be logged
            log.exception("Slack event dispatch failed")

    async def slack_events(request: Request):
        body = await request.body()
        if not signature_ok(secret, request.headers, body):
            return json_error("unauthorized", "Missing, wrong or stale Slack signature.", 401)
        kind = _payload_type(body, request.headers.get("content-type", ""))
        if kind is None:
            return json_error("bad_request", "The signed body is not a Slack payload (a JSON object).", 400)
        bolt_request = to_bolt_request(request, body)
        if kind == "event_callback":
            if retry_number(dict(request.headers)) > 0:  # acknowledged and dropped, as the bolt middleware does
                return Response(status_code=200, headers={"x-slack-no-retry": "1"})
            dispatcher.submit(dispatch_later, bolt_request)
            return Response(status_code=200)
        # url_verification (the challenge) and interactivity answer with a body: dispatch now.
        resp = await run_in_threadpool(bolt.dispatch, bolt_request)
        return to_starlette_response(resp)

    fastapi_app.add_api_route(path, slack_events, methods=["POST"], include_in_schema=False)
    fastapi_app.state.slack_app = bolt
    return bolt


def build_http_app(ctx: Context, settings: Settings, assistant_factory: AssistantFactory | None = None,
                   host: str | None = None):
    """The standalone app of `sizing slack`: /slack/events and /healthz, behind the same HTTP guard as
    `sizing serve` (Host policy, body limit and body time limit; Slack signs instead of an API key)."""
    from fastapi import FastAPI

    app = FastAPI(title="Sizing assistant: Slack bridge", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(Guard, api_keys=[], max_body_bytes=settings.max_body_bytes, body_timeout_s=settings.body_timeout_s,
                       open_paths={"/healthz", EVENTS_PATH},
                       policy=HostPolicy(host or settings.host, settings.allowed_hosts, settings.cors_origins))

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    mount_slack(app, ctx, settings, assistant_factory)
    return app


def run_http(settings: Settings, host: str, port: int = DEFAULT_PORT) -> None:
    import uvicorn

    require_settings(settings, socket_mode=False)
    app = build_http_app(Context.create(settings), settings, host=host)
    log.info("Slack Events API at http://%s:%d%s", host, port, EVENTS_PATH)
    uvicorn.run(app, host=host, port=port, log_level="info", timeout_graceful_shutdown=5,
                http=http_protocol(settings.body_timeout_s))


def socket_mode_handler(ctx: Context, settings: Settings, assistant_factory: AssistantFactory | None = None):
    """A Socket Mode handler (no public URL needed); ``.start()`` blocks, ``.connect()`` does not.
    Events are acknowledged on the websocket before bolt dispatches them (bolt's first dispatch
    waits on auth.test; Slack wants the ack within 3 s), as the HTTP endpoint does."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler
    from slack_bolt.adapter.socket_mode.internals import run_bolt_app
    from slack_sdk.socket_mode.response import SocketModeResponse

    class AckFirstHandler(SocketModeHandler):
        def handle(self, client, req) -> None:
            if req.type != "events_api":  # slash commands and interactivity may answer in the ack
                return super().handle(client, req)
            client.send_socket_mode_response(SocketModeResponse(envelope_id=req.envelope_id))
            run_bolt_app(self.app, req)

    require_settings(settings, socket_mode=True)
    assert settings.slack_app_token is not None  # require_settings checked it
    app = build_slack_app(ctx, settings, assistant_factory, socket_mode=True)
    return AckFirstHandler(app, settings.slack_app_token.get_secret_value())


def run_socket_mode(settings: Settings) -> None:
    require_settings(settings, socket_mode=True)
    socket_mode_handler(Context.create(settings), settings).start()
