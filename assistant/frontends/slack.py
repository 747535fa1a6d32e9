"""Slack bridge: a slack-bolt app that answers mentions and direct messages with the same agent as
every other front end, from any number of processes and replicas.

- Replies go in the thread of the question, and the thread is the conversation: earlier turns are
  read back from Slack (``conversations.replies``), so every replica sees the same thread.
- Nothing a person asks is lost: an event is acknowledged once it is in a store every replica shares
  (slack_store.py: SQLite beside the cache, or Redis with ``SIZING_REDIS_URL``) and answered from that
  queue by worker threads, at least once: a worker killed mid-answer stops renewing its lease and
  another takes the question over; SIGTERM waits ``slack_drain_s`` for work in progress and hands
  the rest back. A retry (``X-Slack-Retry-Num``) of an event some process accepted is dropped; one
  nobody accepted is answered. Questions of one thread are answered in order.
- While the agent works the question gets an hourglass reaction and the thread a placeholder
  message; the placeholder is then replaced by the answer (``chat.update``), or by an apology. Slack's
  rate limits (429 with Retry-After) are waited out by slack_sdk's retry handler; when Slack still
  refuses, the question goes back to the queue and is tried again. Configs go out as code blocks
  when small (a file is never split across messages), as uploads (``files_upload_v2``) when not.
- Requests are verified on their raw bytes before anything is parsed (signature and a timestamp at
  most 5 minutes old; else 401; a signed body that is not a JSON object: 400). Bot messages, this
  bot's own included, are ignored.

``mount_slack`` adds POST /slack/events to an existing FastAPI app (``sizing serve``);
``build_http_app`` / ``run_http`` / ``run_socket_mode`` are the standalone runners of ``sizing slack``.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
from slack_bolt import App
from slack_bolt.adapter.starlette.handler import to_bolt_request, to_starlette_response
from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from ..answer import Answer, ChatTurn, GeneratedFile
from ..context import Context
from ..httpguard import Guard, HostPolicy, http_protocol, json_error
from ..settings import Settings
from .slack_format import code_block, split_message, to_mrkdwn
from .slack_store import Job, SlackStore, open_store

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
UNDELIVERED = {
    "en": "Sorry, Slack kept refusing this answer (rate limits). Please ask again in this thread in a few minutes.",
    "zh": "抱歉，Slack 多次拒收这条回答（频率限制）。请过几分钟在本话题中再问一次。",
}
ATTACHED = {"en": "`{name}`: attached below.", "zh": "`{name}`：见下方附件。"}
INLINE_FILE_CHARS = 2500  # configs up to this size are posted as a code block; larger ones are uploaded
INLINE_FILE_LINES = 60
HISTORY_TURNS = 20  # turns kept per thread
HISTORY_CHARS = 4000  # of each bot message read back from Slack (a posted config need not be re-read whole)
ANSWER_WORKERS = 4  # concurrent questions per process; more wait in the shared queue
QUEUE_POLL_S = 1.0  # how often an idle worker looks at the shared queue (questions this process accepts wake it at once)
RATE_LIMIT_RETRIES = 3  # 429s slack_sdk waits out (Retry-After) per call before the question goes back to the queue
RETRY_DELAY_S = 5.0  # a question Slack refused waits this long times its attempts before the next try
MAX_ATTEMPTS = 5  # then the placeholder gets UNDELIVERED instead of another try
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


class DeliveryFailed(RuntimeError):
    """Slack refused both the update of the placeholder and a new message (after its own retries)."""


def thread_key(channel: str, thread_ts: str) -> str:
    return f"{channel}:{thread_ts}"


def is_question_candidate(event: dict) -> bool:
    """An event that may be a question (a person's mention or message); the rest is acknowledged and dropped."""
    return event.get("type") in ("app_mention", "message") and is_from_person(event) and bool(event.get("channel"))


class SlackBridge:
    """What happens to one question: reaction and placeholder, the agent, the answer in the thread.
    State shared with other processes (accepted events, the queue, threads joined) is in ``store``."""

    def __init__(self, ctx: Context, assistant_factory: AssistantFactory, store: SlackStore, client: WebClient):
        self.ctx, self.factory, self.store, self.client = ctx, assistant_factory, store, client
        self.inline_file_chars, self.inline_file_lines = INLINE_FILE_CHARS, INLINE_FILE_LINES
        self._local = threading.local()  # one assistant per worker thread: no sharing, no locks
        self._ids: tuple[str | None, str | None] | None = None
        self._ids_lock = threading.Lock()
        self._warmed = threading.Event()
        self.warm_error: str | None = None

    def assistant(self):
        if getattr(self._local, "assistant", None) is None:
            self._local.assistant = self.factory(self.ctx)
        return self._local.assistant

    def warm_up(self) -> None:
        """Build an agent once at start-up (the imports behind it take a second or more), for /readyz."""
        try:
            self.assistant()
            self.warm_error = None
            self._warmed.set()
        except Exception as e:
            self.warm_error = f"{type(e).__name__}: {e}"
            log.error("Slack: the agent could not be built: %s", self.warm_error)

    def readiness(self) -> tuple[bool, str]:
        """(ready, why not): the agent built and the shared store answering."""
        if self.warm_error:
            return False, self.warm_error
        if not self._warmed.is_set():
            return False, "starting"
        try:
            self.store.pending()
        except Exception as e:
            return False, f"the shared store does not answer: {type(e).__name__}"
        return True, "ready"

    def bot_ids(self) -> tuple[str | None, str | None]:
        """(bot user id, bot id) from auth.test, asked once per process (on the first question, not at start)."""
        with self._ids_lock:
            if self._ids is None:
                resp = self._call(self.client.auth_test)
                if resp is None:
                    return None, None  # asked again next time
                self._ids = (resp.get("user_id"), resp.get("bot_id"))
            return self._ids

    # -- arriving events ------------------------------------------------------------------------
    def accept(self, payload: dict) -> bool:
        """Queue an event_callback's question in the shared store. False for a duplicate, a retry of
        an event already accepted (by any process) or answered, and anything that is not a question."""
        event = payload.get("event") if isinstance(payload, dict) else None
        if not isinstance(event, dict) or not is_question_candidate(event) or not isinstance(event.get("ts"), str):
            return False
        thread = thread_key(str(event["channel"]), str(event.get("thread_ts") or event["ts"]))
        event_id = str(payload.get("event_id") or f"{event['channel']}:{event['ts']}")
        return self.store.accept(event_id, thread, {"event": event})

    def handle(self, job: Job) -> None:
        """Answer one queued question (or drop it when, on a closer look, it is not for this bot)."""
        event = job.body["event"]
        bot_user_id, bot_id = self.bot_ids()
        if self.addressed(event, bot_user_id):
            self.answer(event, bot_user_id, bot_id, job)

    def addressed(self, event: dict, bot_user_id: str | None) -> bool:
        if event.get("type") == "app_mention" or event.get("channel_type") == "im":
            return True
        # In channels (only when message.channels is subscribed) a reply without a mention is answered
        # when it continues a thread the bot took part in; mentions come as app_mention.
        thread_ts = event.get("thread_ts")
        mentioned = bool(bot_user_id) and f"<@{bot_user_id}" in (event.get("text") or "")
        return bool(thread_ts) and not mentioned and self.store.in_thread(thread_key(event["channel"], str(thread_ts)))

    # -- one question ---------------------------------------------------------------------------
    def answer(self, event: dict, bot_user_id: str | None, bot_id: str | None, job: Job | None = None) -> None:
        client = self.client
        channel, ts = event["channel"], event["ts"]
        thread_ts = event.get("thread_ts") or ts
        question = question_text(event.get("text") or "", bot_user_id)
        lang = language(question)
        if not question:
            self._post(channel, thread_ts, EMPTY_QUESTION[lang])
            return
        history = self.thread_history(channel, thread_ts, ts, bot_user_id, bot_id) if thread_ts != ts else []
        self._call(client.reactions_add, channel=channel, timestamp=ts, name=THINKING_REACTION)
        placeholder = job.placeholder_ts if job else None
        if placeholder is None:
            placeholder = self._post(channel, thread_ts, PLACEHOLDER[lang])
            if placeholder and job:
                self.store.set_placeholder(job.event_id, placeholder)
        try:
            try:
                answer: Answer = self.assistant().ask(question, history=history)
            except Exception:
                log.exception("The agent failed on a Slack question in %s", channel)
                self._deliver_text(channel, thread_ts, placeholder, APOLOGY[lang])
                return
            text, files = self.attachments(answer, lang)
            self._deliver_text(channel, thread_ts, placeholder, to_mrkdwn(text))
            for f in files:
                self._deliver_file(channel, thread_ts, f.filename, f.content)
            self.store.join_thread(thread_key(channel, thread_ts))
        finally:
            self._call(client.reactions_remove, channel=channel, timestamp=ts, name=THINKING_REACTION)

    def give_up(self, job: Job) -> None:
        """The last attempt at a question whose answer Slack kept refusing: the apology, once more."""
        event = job.body["event"]
        channel, ts = event["channel"], event["ts"]
        lang = language(event.get("text") or "")
        with contextlib.suppress(DeliveryFailed):
            self._deliver_text(channel, event.get("thread_ts") or ts, job.placeholder_ts, UNDELIVERED[lang])
        self._call(self.client.reactions_remove, channel=channel, timestamp=ts, name=THINKING_REACTION)

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

    def thread_history(self, channel: str, thread_ts: str, current_ts: str,
                       bot_user_id: str | None, bot_id: str | None) -> list[ChatTurn]:
        """Earlier turns of the thread, read back from Slack: every replica sees the same thread."""
        resp = self._call(self.client.conversations_replies, channel=channel, ts=thread_ts, limit=100)
        turns = []
        for m in resp.get("messages", []) if resp else []:
            if m.get("ts") == current_ts or not m.get("text"):
                continue
            if current_ts and _ts_after(m.get("ts"), current_ts):
                continue  # a later turn (answered out of order after a crash) is not this question's context
            mine = (bot_user_id and m.get("user") == bot_user_id) or (bot_id and m.get("bot_id") == bot_id)
            if mine and m["text"] not in PLACEHOLDER.values():
                turns.append(ChatTurn(role="assistant", content=m["text"][:HISTORY_CHARS]))
            elif not mine and is_from_person(m):
                turns.append(ChatTurn(role="user", content=question_text(m["text"], bot_user_id)))
        return turns[-HISTORY_TURNS:]

    # -- posting --------------------------------------------------------------------------------
    def _deliver_text(self, channel, thread_ts, placeholder_ts, text: str) -> None:
        """The answer in place of the placeholder (or as a new message); DeliveryFailed when Slack
        takes neither, so the question goes back to the queue instead of leaving the placeholder."""
        chunks = split_message(text)
        first, rest = chunks[0], chunks[1:]
        updated = bool(placeholder_ts) and self._call(self.client.chat_update, channel=channel, ts=placeholder_ts,
                                                      text=first) is not None
        if not updated:
            if self._post(channel, thread_ts, first) is None:
                raise DeliveryFailed(f"Slack took neither chat.update nor chat.postMessage in {channel}")
            if placeholder_ts:  # the answer came as a new message: the placeholder must not stay behind
                self._call(self.client.chat_delete, channel=channel, ts=placeholder_ts)
        for chunk in rest:
            self._post(channel, thread_ts, chunk)

    def _deliver_file(self, channel, thread_ts, filename: str, content: str) -> None:
        if self.is_small(content):
            self._post(channel, thread_ts, code_block(content, filename))
            return
        uploaded = self._call(self.client.files_upload_v2, channel=channel, thread_ts=thread_ts, content=content,
                              filename=filename, title=filename)
        if uploaded is None:  # no files:write scope, or uploads blocked: the text still gets through
            for chunk in split_message(code_block(content, filename)):
                self._post(channel, thread_ts, chunk)

    def _post(self, channel, thread_ts, text: str) -> str | None:
        resp = self._call(self.client.chat_postMessage, channel=channel, thread_ts=thread_ts, text=text,
                          unfurl_links=False, unfurl_media=False)
        return resp.get("ts") if resp else None

    @staticmethod
    def _call(method, **kwargs):
        """One Web API call (slack_sdk retries 429s after Retry-After and connection errors itself);
        a failure is logged and returns None so one refused call does not sink the answer."""
        try:
            return method(**kwargs)
        except Exception as e:  # SlackApiError, a network error: never let a reaction sink an answer
            log.warning("Slack %s failed: %s", getattr(method, "__name__", method), e)
            return None


def _ts_after(ts: object, current: str) -> bool:
    try:
        return float(str(ts)) > float(current)
    except ValueError:
        return False


class AnswerWorkers:
    """Threads that take questions from the shared queue and answer them, with their leases renewed
    while they work. ``stop`` stops taking, waits up to ``drain_s`` for the questions in progress and
    hands the rest back to the queue."""

    def __init__(self, bridge: SlackBridge, *, workers: int = ANSWER_WORKERS, lease_s: float = 30.0,
                 poll_s: float = QUEUE_POLL_S, max_attempts: int = MAX_ATTEMPTS):
        self.bridge, self.store = bridge, bridge.store
        self.workers, self.lease_s, self.poll_s, self.max_attempts = workers, lease_s, poll_s, max_attempts
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.wake = threading.Event()
        self._stopping = threading.Event()
        self._in_progress: dict[str, Job] = {}
        self._lock = threading.Condition()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        if self._threads:
            return
        self._stopping.clear()
        self._threads = [threading.Thread(target=self._work, name=f"slack-answer-{i}", daemon=True)
                         for i in range(self.workers)]
        self._threads.append(threading.Thread(target=self._renew, name="slack-lease", daemon=True))
        for t in self._threads:
            t.start()

    def stop(self, drain_s: float) -> list[str]:
        """Stop taking questions; wait up to ``drain_s`` for those in progress; hand the rest back.
        Returns the event ids handed back."""
        self._stopping.set()
        self.wake.set()
        deadline = time.monotonic() + drain_s
        with self._lock:
            while self._in_progress and (left := deadline - time.monotonic()) > 0:
                self._lock.wait(left)
            handed_back = list(self._in_progress)
            self._in_progress.clear()  # their threads may still finish; they no longer mark anything done
        for event_id in handed_back:
            self._store_call(self.store.release, event_id)
        if handed_back:
            log.warning("Slack: handed %d question(s) in progress back to the queue at shutdown", len(handed_back))
        self._threads = []
        return handed_back

    def _work(self) -> None:
        while not self._stopping.is_set():
            job = self._store_call(self.store.take, self.owner, self.lease_s)
            if job is None:
                self.wake.wait(self.poll_s)
                self.wake.clear()
                continue
            with self._lock:
                if self._stopping.is_set():  # taken while shutting down: straight back
                    self._store_call(self.store.release, job.event_id)
                    return
                self._in_progress[job.event_id] = job
            outcome = self._answer(job)
            with self._lock:
                mine = self._in_progress.pop(job.event_id, None) is not None
                self._lock.notify_all()
            if not mine:
                continue  # handed back at shutdown meanwhile
            if outcome == "retry":
                self._store_call(self.store.release, job.event_id, RETRY_DELAY_S * job.attempts)
            else:
                self._store_call(self.store.done, job.event_id)

    def _answer(self, job: Job) -> str:
        try:
            if job.attempts > self.max_attempts:
                self.bridge.give_up(job)
            else:
                self.bridge.handle(job)
        except DeliveryFailed as e:
            log.warning("Slack: %s; question %s goes back to the queue (attempt %d)", e, job.event_id, job.attempts)
            return "retry"
        except Exception:  # the store or Slack failing mid-way (or a bug): tried again, at most max_attempts times
            log.exception("Slack: answering %s failed (attempt %d)", job.event_id, job.attempts)
            return "retry"
        return "done"

    def _renew(self) -> None:
        while not self._stopping.wait(self.lease_s / 3):
            with self._lock:
                ids = list(self._in_progress)
            if ids:
                self._store_call(self.store.renew, ids, self.owner, self.lease_s)

    @staticmethod
    def _store_call(method, *args):
        """A store step; the store being briefly unreachable (Redis restarting) is logged, not fatal."""
        try:
            return method(*args)
        except Exception as e:
            log.warning("Slack store %s failed: %s", getattr(method, "__name__", method), e)
            time.sleep(1.0)
            return None


def web_client(settings: Settings) -> WebClient:
    """slack_sdk's WebClient with its retry handlers: connection errors, and 429s retried after
    Slack's Retry-After (``RATE_LIMIT_RETRIES`` times; then the question goes back to the queue)."""
    assert settings.slack_bot_token is not None  # require_settings checked it
    kwargs: dict[str, Any] = {"token": settings.slack_bot_token.get_secret_value()}
    if settings.slack_api_url:
        kwargs["base_url"] = settings.slack_api_url
    client = WebClient(**kwargs)
    client.retry_handlers.append(RateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES))
    return client


def open_slack_store(settings: Settings, ctx: Context) -> SlackStore:
    """Redis when SIZING_REDIS_URL is set, else the SQLite file: the setting, or beside the knowledge
    base in the folder it was actually built in (writable, and private when it is the temp fallback)."""
    return open_store(settings.redis_url, settings.slack_state_file or ctx.kb.path.parent / "slack-state.sqlite")


def build_slack_app(ctx: Context, settings: Settings, assistant_factory: AssistantFactory | None = None,
                    *, socket_mode: bool = False) -> App:
    """The bolt app. ``assistant_factory(ctx)`` builds the agent (default: assistant.agent.Assistant).
    The runners put events in the shared queue themselves (``app.slack_bridge.accept``), first
    delivery or retry alike: a retry of an event some process accepted (or answered) is a duplicate
    and dropped; one nobody accepted is a question like any other. ``app.slack_workers`` answer them
    (started by the runners); bolt itself answers only the URL check and interactivity."""
    require_settings(settings, socket_mode=socket_mode)
    if assistant_factory is None:
        from ..agent import Assistant

        assistant_factory = Assistant
    client = web_client(settings)
    app = App(
        client=client,
        signing_secret=settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else "",
        # Socket Mode requests arrive over the authenticated websocket and carry no signature.
        request_verification_enabled=not socket_mode,
        token_verification_enabled=False,  # auth.test runs on the first event instead of at start-up
        process_before_response=False,
        raise_error_for_unhandled_request=False,
    )
    bridge = SlackBridge(ctx, assistant_factory, open_slack_store(settings, ctx), client)
    app.slack_bridge = bridge  # type: ignore[attr-defined]  # for tests and for anyone composing the app
    app.slack_workers = AnswerWorkers(bridge, lease_s=settings.slack_lease_s)  # type: ignore[attr-defined]

    @app.action(re.compile(".*"))
    def ignore_actions(ack):  # buttons in the bot's messages (none today): acknowledged, nothing else
        ack()

    return app


# Signed payloads other than events that bolt answers: the URL check and interactivity.
BOLT_PAYLOADS = {"url_verification", "block_actions", "block_suggestion", "view_submission", "view_closed",
                 "shortcut", "message_action", "interactive_message", "dialog_submission"}
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
    The answer workers run inside the app's lifespan: started with it, drained when it shuts down.

    The signature is checked on the raw bytes before anything is parsed (unsigned, badly signed or
    stale: 401), a signed body that is not a JSON object is 400, and an event is acknowledged as soon
    as it is in the shared queue (bolt's first dispatch would wait on auth.test; Slack wants the 200
    within 3 s). Other signed payloads (the URL check, interactivity) go to bolt; one bolt cannot
    handle is 400, never a 500 with a traceback."""
    bolt = build_slack_app(ctx, settings, assistant_factory)
    bridge: SlackBridge = bolt.slack_bridge  # type: ignore[attr-defined]
    workers: AnswerWorkers = bolt.slack_workers  # type: ignore[attr-defined]
    secret = settings.slack_signing_secret.get_secret_value().encode() if settings.slack_signing_secret else b""

    async def slack_events(request: Request):
        body = await request.body()
        if not signature_ok(secret, request.headers, body):
            return json_error("unauthorized", "Missing, wrong or stale Slack signature.", 401)
        kind = _payload_type(body, request.headers.get("content-type", ""))
        if kind is None:
            return json_error("bad_request", "The signed body is not a Slack payload (a JSON object).", 400)
        if kind == "event_callback":
            try:
                accepted = await run_in_threadpool(bridge.accept, json.loads(body))
            except Exception as e:  # the shared store is down: not acknowledged, so Slack delivers it again
                log.warning("Slack event not queued, the shared store failed: %s", type(e).__name__)
                return json_error("unavailable", "The queue of questions is unavailable; Slack will retry.", 503)
            if accepted:
                workers.wake.set()
            retried = retry_number(dict(request.headers)) > 0
            return Response(status_code=200, headers={"x-slack-no-retry": "1"} if retried else None)
        if kind not in BOLT_PAYLOADS:
            return json_error("bad_request", f"Unknown Slack payload type {kind[:40]!r}.", 400,
                              valid=sorted(BOLT_PAYLOADS | {"event_callback"}))
        # url_verification (the challenge) and interactivity answer with a body: dispatch now.
        try:
            resp = await run_in_threadpool(bolt.dispatch, to_bolt_request(request, body))
        except Exception as e:  # a signed payload bolt cannot read (e.g. block_actions without actions)
            log.warning("Slack %s payload not handled: %s", kind or "untyped", type(e).__name__)
            return json_error("bad_request", f"The signed {kind or 'untyped'} payload could not be handled.", 400)
        if resp.status >= 500:
            return json_error("bad_request", f"The signed {kind or 'untyped'} payload could not be handled.", 400)
        return to_starlette_response(resp)

    inner = fastapi_app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(a):
        async with inner(a):
            threading.Thread(target=bridge.warm_up, name="slack-warm-up", daemon=True).start()
            workers.start()
            try:
                yield
            finally:
                await anyio.to_thread.run_sync(workers.stop, settings.slack_drain_s)

    fastapi_app.router.lifespan_context = lifespan
    fastapi_app.add_api_route(path, slack_events, methods=["POST"], include_in_schema=False)
    fastapi_app.state.slack_app = bolt
    return bolt


def build_http_app(ctx: Context, settings: Settings, assistant_factory: AssistantFactory | None = None,
                   host: str | None = None):
    """The standalone app of `sizing slack`: /slack/events, /healthz (alive) and /readyz (able to answer), behind the same HTTP guard as
    `sizing serve` (Host policy, body limit and body time limit; Slack signs instead of an API key)."""
    from fastapi import FastAPI

    app = FastAPI(title="Sizing assistant: Slack bridge", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(Guard, api_keys=[], max_body_bytes=settings.max_body_bytes, body_timeout_s=settings.body_timeout_s,
                       open_paths={"/healthz", "/readyz", EVENTS_PATH},
                       policy=HostPolicy(host or settings.host, settings.allowed_hosts, settings.cors_origins))

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    bolt = mount_slack(app, ctx, settings, assistant_factory)
    bridge: SlackBridge = bolt.slack_bridge  # type: ignore[attr-defined]

    @app.get("/readyz")
    async def readyz() -> Response:
        """200 once questions can be answered (the agent built, the shared store answering), else 503."""
        ready, why = await run_in_threadpool(bridge.readiness)
        if ready:
            return Response('{"status":"ready"}', media_type="application/json")
        body = {"status": "starting" if why == "starting" else "unavailable", "reason": why}
        return Response(json.dumps(body), status_code=503, media_type="application/json", headers={"Retry-After": "1"})

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
    Events are acknowledged on the websocket once they are in the shared queue; ``.connect()`` starts the
    answer workers and ``.close()`` drains them (``slack_drain_s``)."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler
    from slack_sdk.socket_mode.response import SocketModeResponse

    require_settings(settings, socket_mode=True)
    assert settings.slack_app_token is not None  # require_settings checked it
    app = build_slack_app(ctx, settings, assistant_factory, socket_mode=True)
    workers: AnswerWorkers = app.slack_workers  # type: ignore[attr-defined]

    bridge: SlackBridge = app.slack_bridge  # type: ignore[attr-defined]

    class QueueingHandler(SocketModeHandler):
        def handle(self, client, req) -> None:
            if req.type != "events_api":  # slash commands and interactivity may answer in the ack
                return super().handle(client, req)
            try:
                accepted = bridge.accept(req.payload)
            except Exception as e:  # the shared store is down: no ack, so Slack delivers the envelope again
                log.warning("Slack event not queued, the shared store failed: %s", type(e).__name__)
                return
            client.send_socket_mode_response(SocketModeResponse(envelope_id=req.envelope_id))
            if accepted:
                workers.wake.set()

        def connect(self) -> None:
            workers.start()
            super().connect()

        def start(self) -> None:
            workers.start()
            super().start()

        def close(self) -> None:
            super().close()
            workers.stop(settings.slack_drain_s)

    return QueueingHandler(app, settings.slack_app_token.get_secret_value())


def run_socket_mode(settings: Settings) -> None:
    require_settings(settings, socket_mode=True)
    import signal

    handler = socket_mode_handler(Context.create(settings), settings)

    def drain_and_exit(*_) -> None:  # SIGTERM: questions in progress get slack_drain_s, the rest go back
        handler.close()
        os._exit(0)

    signal.signal(signal.SIGTERM, drain_and_exit)
    handler.start()
