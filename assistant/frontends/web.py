"""Gradio web chat: the streamed chat with tool steps and config downloads, the Plan tab and the
Tables tab. ``build_app`` makes the Blocks, ``serve`` launches it on loopback with no telemetry.

Each browser session has its own chat and history (Gradio keeps component values and gr.State per
session); the Assistant itself is stateless between calls (history is passed in), so one instance
serves every session."""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from ..answer import ChatTurn
from ..context import Context
from ..settings import Settings
from . import web_downloads, web_history
from .web_chat import ChatRenderer, as_plain_text, compact_history, is_chinese

log = logging.getLogger(__name__)

# Set before Gradio (or huggingface_hub) is imported: no analytics, no update check, no hub calls.
QUIET_ENV = {"GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1",
             "DO_NOT_TRACK": "1", "GRADIO_SSR_MODE": "False", "GRADIO_RUN_HISTORY": "False", "LANGCHAIN_TRACING_V2": "false"}

EXAMPLES = [
    "Minimum cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?",
    "qwen2 72b 全参微调，序列长度4096，需要几个节点？",
    "Which ZeRO stage for full fine-tuning Llama-3-8B?",
    "用MindSpeed-LLM全参微调llama3.1-70b 8k 最少多少卡",
    "Generate the LLaMA-Factory yaml for llama3-8b LoRA 8192",
    "NPU 训练显存溢出怎么办？",
    "Can I full fine-tune Llama-3.1-8B on 4 A100 80G at 8k?",
    "Qwen2.5-72B 用 AWQ int4 部署，2 张 L40S、32k 上下文够吗？",
]
EMPTY_REPLY = "Please type a question, e.g. “How many Snt9B cards for Qwen2.5-72B LoRA at 4096?” / 请输入问题。"
STATIC_DIR = Path(__file__).with_name("web_static")
FONT = "Sizing Sans"  # Noto Sans CJK SC: Latin and CJK from one family, with a real bold face
FONT_STACK = [FONT, "Noto Sans CJK SC", "ui-sans-serif", "system-ui", "sans-serif"]
CJK_RANGES = "U+2E80-2FDF, U+3040-9FFF, U+AC00-D7AF, U+F900-FAFF, U+20000-2FA1F"
CSS = """
#llm-notice { background: #fff4e5; border: 1px solid #f0a020; border-radius: 6px; padding: 6px 12px; }
#chat-model { font-size: 0.95em; }
#conversation-bar { align-items: end; }
#conversation-bar button { max-height: 2.6em; }
/* a long saved title ends in an ellipsis before the dropdown's arrow instead of running under it (phones) */
#history input { padding-right: 2em; text-overflow: ellipsis; }
/* the grid's own sort and filter menus are hidden: the tab sorts and filters, so the CSV follows */
#table-grid button.cell-menu-button { display: none !important; }
/* the CSV link (to the app's download route) looks like the buttons beside it */
#table-csv { align-self: end; }
#table-csv a.csv-link { display: block; text-align: center; text-decoration: none; padding: var(--button-large-padding);
  border: var(--button-border-width) solid var(--button-secondary-border-color); border-radius: var(--button-large-radius);
  background: var(--button-secondary-background-fill); color: var(--button-secondary-text-color);
  font-weight: var(--button-large-text-weight); font-size: var(--button-large-text-size); }
#table-csv a.csv-link:hover { background: var(--button-secondary-background-fill-hover); }
@media (max-width: 640px) {
  .tab-container button[role="tab"] { padding-left: 6px !important; padding-right: 6px !important; }
  #table-grid table { font-size: 12px; }
  #table-grid th, #table-grid td { padding: 2px 4px !important; min-width: 0 !important; }
}
/* the question box in view without scrolling: the chat takes the height the window leaves it */
@media (min-width: 768px) { #chat { height: max(360px, calc(100dvh - 400px)) !important; } }
@media (max-width: 767px) {
  #title p, #chat-model { display: none; }
  #chat { height: max(280px, calc(100dvh - 530px)) !important; }  /* the tabs wrap to two rows on a phone */
  #chat pre, #chat pre code { white-space: pre-wrap !important; overflow-wrap: anywhere; }  /* no sideways scroll */
}
/* Gradio puts a "share to Hugging Face Spaces" button on file messages; it only works on Spaces */
#chat button[title="Share"], #chat button[aria-label="Share"] { display: none !important; }
/* text at 4.5:1 at least (WCAG AA), measured in Chromium: the file type on a download (#bbbbc2, 1.8:1), the
   selected tab (orange, 2.8:1), code tokens on the light code background (comments 3.7:1, booleans 2.1:1) and
   YAML comments in dark mode (2.5:1) */
#chat .file-type { color: #4b5563 !important; }
.dark #chat .file-type { color: #d1d5db !important; }
.tab-container button[role="tab"].selected { color: #c2410c !important; }
.dark .tab-container button[role="tab"].selected { color: #fb923c !important; }
#chat .token.comment, #chat .token.punctuation { color: #57606a !important; }
#chat .token.boolean, #chat .token.important, #chat .token.number { color: #9a4d00 !important; }
#chat .token.string { color: #3d6b00 !important; }
.dark #chat .token.comment { color: #a1a1aa !important; }  /* one selector per .dark rule: Gradio's CSS scoping */
.dark #chat .token.punctuation { color: #a1a1aa !important; }  /* kept only the first of a list in dark mode */
.dark #chat .token.boolean { color: #fdba74 !important; }
.dark #chat .token.important { color: #fdba74 !important; }
.dark #chat .token.number { color: #fdba74 !important; }
.dark #chat .token.string { color: #bef264 !important; }
/* the Plan tab's memory chart (web_chart): text in the theme's colours, light and dark */
.mem-chart { margin: 0; padding: 4px 2px; }
.mem-chart figcaption { font-weight: 600; margin-bottom: 8px; color: var(--body-text-color); }
.mem-chart text { fill: var(--body-text-color); font-size: 13px; }
.mem-chart text.tick { font-size: 12px; }
.mem-chart line.grid { stroke: var(--border-color-primary); stroke-width: 1; }
.mem-chart rect.part { stroke: var(--background-fill-primary); stroke-width: 1; }
.mem-chart ul.mem-legend { list-style: none; display: flex; flex-wrap: wrap; gap: 4px 14px; padding: 0; margin: 8px 0 0; }
.mem-chart ul.mem-legend li { display: flex; align-items: center; gap: 6px; margin: 0; padding: 0; font-size: 13px; }
.mem-chart .swatch { display: inline-block; width: 14px; height: 14px; border-radius: 3px; flex: none; }
#undo-delete { display: none !important; }  /* clicked by the Undo link of the bar a delete shows */
#undo-bar { position: fixed; left: 50%; bottom: 24px; transform: translateX(-50%); z-index: 1000; padding: 10px 16px;
  border-radius: 8px; background: #1f2937; color: #fff; box-shadow: 0 4px 16px rgba(0,0,0,.25); max-width: 90vw; }
#undo-bar button { margin-left: 12px; color: #93c5fd; font-weight: 600; text-decoration: underline; }
"""
STREAM_EVERY_S = 0.2  # at most five chat updates a second while an answer streams (plus the last)
# Bring the newest question to the top of the chat's scroll box (not the page), so the start of its
# answer is in view; the chat itself does not follow the stream to the bottom (autoscroll=False).
SCROLL_TO_QUESTION = """() => { setTimeout(() => {
  const qs = document.querySelectorAll("#chat [data-testid='user']"); const q = qs[qs.length - 1]; if (!q) return;
  let box = q.parentElement; while (box && box.scrollHeight <= box.clientHeight + 1) box = box.parentElement;
  if (box && box !== document.documentElement && box !== document.body)
    box.scrollTop += q.getBoundingClientRect().top - box.getBoundingClientRect().top - 40;  // below the toolbar
}, 80); }"""
# Focus the question box without scrolling: on a phone the autofocus scrolled the title out of view.
# Not when the reader has already clicked into something else (the list of conversations would close).
FOCUS_WITHOUT_SCROLL = """() => { setTimeout(() => {
  const idle = !document.activeElement || document.activeElement === document.body;
  if (idle && window.innerWidth >= 768) document.querySelector('#question textarea')?.focus({preventScroll: true});
  if (idle) window.scrollTo(0, 0); }, 100); }"""
# Questions shown in the chat; older turns stay in the conversation (saved, read by the assistant) behind a
# "show earlier" button: the browser re-renders every shown message on each update (turn 30 took 1.65x turn 1).
SHOWN_QUESTIONS = 8
# Screen readers: the send button is an icon with no name (tried until the box is mounted).
NAME_CONTROLS = """() => { let tries = 0; const name = () => {
  const b = document.querySelector('#question button'); if (b) b.setAttribute('aria-label', 'Send · 发送');
  else if (tries++ < 50) setTimeout(name, 200); }; name(); }"""
# Copy buttons copy what the reader sees: Gradio's copy the stored Markdown (a question backslash-escaped
# by as_plain_text), an answer with all its tool steps' JSON, and "assistant: undefined" for a file. The
# page's text of each message instead, tool steps left out (they are folded away), a file by its name.
COPY_AS_SHOWN = """() => { if (window.sizingCopyAsShown) return; window.sizingCopyAsShown = true;
  const shown = row => [...row.querySelectorAll('[data-testid]')]
    .filter(m => !(m.firstElementChild && m.firstElementChild.classList.contains('thought-group')))
    .map(m => m.innerText.trim()).filter(t => t).join('\\n\\n');
  const whole = () => [...document.querySelectorAll('#chat .message-row')].map(r => {
    const t = shown(r); return t ? (r.classList.contains('user-row') ? 'You: ' : 'Assistant: ') + t : ''; })
    .filter(t => t).join('\\n\\n');
  // a message's buttons sit after its row, or inside it: the row itself or the nearest one before
  const rowOf = b => { let n = b; while (n && n !== document.body) {
    if (n.classList.contains('message-row')) return n;
    const p = n.previousElementSibling; if (!p) { n = n.parentElement; continue; }
    if (p.classList.contains('message-row')) return p;
    const inner = p.querySelectorAll('.message-row'); if (inner.length) return inner[inner.length - 1];
    n = p; } return document.createElement('div'); };
  window.addEventListener('click', e => {
    const b = e.target.closest && e.target.closest('#chat button[aria-label]'); if (!b) return;
    const label = b.getAttribute('aria-label');
    const text = label === 'Copy message' ? shown(rowOf(b))
      : label === 'Copy conversation' ? whole() : null;
    if (text === null) return;
    e.stopImmediatePropagation(); e.preventDefault();
    const done = () => { b.title = 'Copied · 已复制'; setTimeout(() => { b.title = label; }, 2000); };
    if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, err => console.error(err));
  }, true); }"""
# Screen readers: Gradio labels each message with its raw Markdown (the tool steps' JSON too) and its step
# toggles have no expanded state. Each message is labelled with the text shown (a step by its title), each
# toggle says whether it is open (its arrow turns when it is), re-checked whenever the chat changes.
NAME_MESSAGES = """() => { if (window.sizingNameMessages) return; window.sizingNameMessages = true;
  const set = (el, k, v) => { if (el.getAttribute(k) !== v) el.setAttribute(k, v); };
  const name = () => { for (const m of document.querySelectorAll('#chat [data-testid="user"], #chat [data-testid="bot"]')) {
      const step = m.querySelector(':scope > .thought-group > .title');
      const text = (step || m).innerText.replace(/\\s+/g, ' ').trim().slice(0, 400);
      set(m, 'aria-label', (m.dataset.testid === 'user' ? 'Your question: ' : step ? 'Tool step: ' : 'Answer: ') + text); }
    for (const t of document.querySelectorAll('#chat .thought-group > .title[role="button"]')) {
      const arrow = t.querySelector('.arrow'); const turned = arrow && !/rotate\\(0deg\\)/.test(arrow.style.transform || 'rotate(0deg)');
      set(t, 'aria-expanded', turned ? 'true' : 'false'); } };
  let queued = false;
  new MutationObserver(() => { if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; name(); }); } })
    .observe(document.documentElement, {subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['style']}); }"""
# Gradio's client aborts its event stream (queue/data) as soon as the server says "close_stream", a moment
# before the server ends it: answers and plans showed a failed request in the browser's network log. The
# stream's request gets a signal that aborts a few seconds later instead, once the server has ended it (a
# stream the server still holds open, as when the page closes mid-answer, is aborted then). Gradio makes
# the request with `new Request(url, {signal})` and reads the body checking that same signal.
DEFER_STREAM_ABORT = """() => { if (window.sizingDeferStreamAbort) return; window.sizingDeferStreamAbort = true;
  const Native = window.Request;
  window.Request = class extends Native { constructor(input, init) {
    const signal = init && init.signal;
    if (signal && /\\/queue\\/data\\?/.test(input instanceof Native ? input.url : String(input))) {
      const later = new AbortController();
      signal.addEventListener('abort', () => setTimeout(() => later.abort(signal.reason), 3000), {once: true});
      init = {...init, signal: later.signal};
    }
    super(input, init); } }; }"""
CHAT_CONCURRENCY = 4  # answers computed at once across sessions (the offline planner is CPU-light)

FILE_MAX_AGE_S = 86_400  # generated configs and CSVs stay downloadable for a day

AssistantFactory = Callable[..., Any]  # (ctx, llm: str | None = None) -> Assistant


def quiet_env() -> None:
    for k, v in QUIET_ENV.items():
        os.environ.setdefault(k, v)


def prune_files(files_dir: Path, max_age_s: float = FILE_MAX_AGE_S) -> None:
    """Remove download folders older than ``max_age_s``, so a server that runs for months does not
    fill its temp folder with generated configs."""
    now = time.time()
    for folder in [*files_dir.glob("*"), *files_dir.glob("tables/*")]:
        if folder.is_dir() and folder.name != "tables" and now - folder.stat().st_mtime > max_age_s:
            shutil.rmtree(folder, ignore_errors=True)


def default_assistant_factory(ctx: Context, llm: str | None = None):
    from ..agent import Assistant

    return Assistant(ctx, llm=llm)


def model_label(name: str) -> str:
    return "offline planner (deterministic, no LLM)" if name == "offline" else f"LLM `{name}`"


def make_assistant(ctx: Context, settings: Settings, factory: AssistantFactory) -> tuple[Any, str | None]:
    """The Assistant for the configured chat model, or the offline one with a notice when the LLM
    cannot even be set up and the settings allow falling back."""
    try:
        assistant = factory(ctx)
        return assistant, getattr(assistant, "startup_notice", None)
    except Exception as e:
        if not settings.llm_fallback or settings.llm == "offline":
            raise
        log.warning("LLM %s could not be set up (%s); using the offline planner", settings.llm, e)
        return factory(ctx, llm="offline"), f"The LLM `{settings.llm}` could not be set up ({type(e).__name__}: {e}); answering with the offline planner."


def build_app(ctx: Context, settings: Settings | None = None, assistant_factory: AssistantFactory | None = None,
              files_dir: Path | None = None):
    """The Gradio Blocks app. Generated configs and CSV downloads are written under ``files_dir``
    (a fresh temp folder by default), which ``serve`` passes to Gradio as the one allowed path."""
    quiet_env()
    import gradio as gr

    from . import web_plan_form, web_setup, web_tables

    settings = settings or ctx.settings
    files_dir = Path(files_dir or tempfile.mkdtemp(prefix="sizing-web-"))
    files_dir.mkdir(parents=True, exist_ok=True)
    last_prune = [time.monotonic()]
    assistant, startup_notice = make_assistant(ctx, settings, assistant_factory or default_assistant_factory)

    def take_question(message: str, chat: list, busy: bool, earlier: list):
        if busy:  # a second submit that slipped in before the box locked: leave the chat alone
            return gr.skip(), gr.skip(), None, gr.skip(), gr.skip(), gr.skip()
        text = message or ""
        hidden, chat = web_history.split_shown(compact_history(list(chat or [])), SHOWN_QUESTIONS - 1)
        if text.strip():
            chat.append({"role": "user", "content": as_plain_text(text)})
        return (gr.update(value="", interactive=False), chat, text, gr.update(visible=True), True,
                [*(earlier or []), *hidden] if hidden else gr.skip())

    def take_example(chat: list, busy: bool, earlier: list, evt):
        value = evt.value if isinstance(evt.value, str) else (evt.value or {}).get("text", "")
        return take_question(value, chat, busy, earlier)

    take_example.__annotations__["evt"] = gr.SelectData  # Gradio injects event data by this annotation

    def take_retry(chat: list, turns: list, busy: bool):
        point = None if busy else web_history.retry_point(list(chat or []), turns)
        if point is None:
            return gr.skip(), gr.skip(), gr.skip(), None, gr.skip(), gr.skip()
        chat, turns, question = point
        return gr.update(value="", interactive=False), chat, turns, question, gr.update(visible=True), True

    def answer(text: str | None, chat: list, turns: list, request=None):
        if text is None:  # nothing was taken (see take_question)
            yield gr.skip(), gr.skip(), gr.skip()
            return
        chat = list(chat or [])
        if not (text or "").strip():
            yield chat + [{"role": "assistant", "content": EMPTY_REPLY}], turns, gr.skip()
            return
        history = [ChatTurn(role=t["role"], content=t["content"]) for t in turns or []]
        if time.monotonic() - last_prune[0] > 3600:  # at most hourly
            last_prune[0] = time.monotonic()
            prune_files(files_dir)
        r = ChatRenderer(files_dir, web_downloads.root_url(request, getattr(demo, "root_path", None) or None))
        shown = 0.0
        try:
            for ev in assistant.stream(text, history):
                r.feed(ev)
                if time.monotonic() - shown >= STREAM_EVERY_S:  # each update re-renders the chat in the browser
                    shown = time.monotonic()
                    yield chat + r.messages, turns, gr.skip()
        except Exception as e:  # the chat must stay usable whatever the agent or the LLM does
            log.exception("answering failed")
            r.error(("回答失败" if is_chinese(text) else "Sorry, answering failed")
                    + f": {type(e).__name__}: {str(e)[:500]}\n\n"
                    + ("应用仍在运行，请重试或换个问法。" if is_chinese(text) else "The app is still running: try again or rephrase."))
            yield chat + r.messages, turns, gr.update(value=f"⚠️ {type(e).__name__}: {str(e)[:300]}", visible=True)
            return
        ans = r.answer
        if ans is None:  # the stream ended without its final event (not expected): say so, keep no turn
            r.error("No final answer came back; try again. · 没有得到回答，请重试。")
            yield chat + r.messages, turns, gr.skip()
            return
        new_turns = [*(turns or []), {"role": "user", "content": text}, {"role": "assistant", "content": ans.answer}]
        # the banner shows this answer's notice (question cut, LLM failed and the offline planner answered)
        banner = gr.update(value=f"⚠️ {ans.notice}", visible=True) if ans.notice else gr.update(value="", visible=False)
        yield chat + r.messages, new_turns, banner

    answer.__annotations__["request"] = gr.Request  # the address the browser used, for download links

    def stopped(chat: list, question: str):
        """After Stop: a step still running says it was stopped, and so does the chat."""
        chat = [dict(m) for m in chat or []]
        for m in chat:
            md = m.get("metadata") or {}
            if md.get("status") == "pending":
                m["metadata"] = {**md, "status": "done", "title": f"{md.get('title', '')} — stopped"}
        zh = is_chinese(question or "")
        return [*chat, {"role": "assistant", "content": "⏹ 已停止：回答没有完成。" if zh else "⏹ Stopped: the answer was not finished."}]

    def unlock():
        return gr.update(interactive=True), gr.update(visible=False), False

    def save(conv: str, chat: list, turns: list, earlier: list):
        """This conversation (the turns hidden from the chat too) for the page to write under its own key."""
        return web_history.save_ops(conv, [*(earlier or []), *(chat or [])], list(turns or []),
                                    datetime.now().isoformat(timespec="milliseconds"))

    def shown(conv: dict) -> tuple[list, list]:
        """(chat shown, earlier turns hidden) for a conversation opened from the browser's storage."""
        hidden, chat = web_history.split_shown(conv.get("chat", []), SHOWN_QUESTIONS)
        return chat, hidden

    def show_earlier(earlier: list, chat: list, busy: bool):
        if busy:  # the answer on its way would write the chat it started from back over them
            return gr.skip(), gr.skip()
        return [], [*(earlier or []), *(chat or [])]

    def earlier_button(earlier: list):
        n = sum(1 for m in earlier or [] if m.get("role") == "user")
        return gr.update(visible=bool(n), value=f"Show {n} earlier question{'s' if n != 1 else ''} · 显示更早的 {n} 个问题")

    def list_saved(saved: str, conv: str):
        return gr.update(choices=web_history.choices(web_history.parse(saved).get("index")), value=conv or None)

    def restore(saved: str, legacy, chat: list, busy: bool = False):
        # A question was asked before the page finished loading: keep it. `chat` is the browser's value when the
        # page loaded; `busy` is server-side session state, so an example clicked after that but taken first counts.
        index = web_history.conversations(web_history.parse(saved).get("index"))
        old = web_history.conversations(legacy)  # saved before one key per conversation: moved to their own keys
        move = (web_history.legacy_ops(legacy), web_history.EMPTY_STORE) if old else (gr.skip(), gr.skip())
        listed = gr.update(choices=web_history.choices([*index, *[c for c in old if c["id"] not in {i["id"] for i in index}]]))
        if chat or busy:
            return gr.skip(), gr.skip(), gr.skip(), listed, *move, gr.skip()
        latest = web_history.opened(saved) or (old[0] if old else {})
        chat, hidden = shown(latest)
        return (chat, latest.get("turns", []), latest.get("id", ""),
                gr.update(choices=listed["choices"], value=latest.get("id")), *move, hidden)

    def open_conversation(saved: str, conv: str):
        found = web_history.opened(saved)
        chat, hidden = shown(found)
        return (chat, found.get("turns", []), found.get("id", ""), gr.update(value="", visible=False),
                gr.update(value="", interactive=True), gr.update(visible=False), False, hidden)

    def new_conversation():
        return ([], [], "", gr.update(value="", visible=False), gr.update(value="", interactive=True),
                gr.update(visible=False), "", gr.update(value=None), False, [])

    def delete_conversation(saved: str, conv: str):
        if web_history.parse(saved).get("cancel"):  # nothing open (or nothing to undo)
            return gr.skip(), gr.skip(), gr.skip(), gr.skip(), gr.skip()
        latest = web_history.opened(saved)
        chat, hidden = shown(latest)
        return (chat, latest.get("turns", []), latest.get("id", ""),
                gr.update(choices=web_history.choices(web_history.parse(saved).get("index")), value=latest.get("id")), hidden)

    # delete_cache: Gradio's copies of served files older than a day go, checked hourly (long-running servers)
    with gr.Blocks(title="Sizing assistant", analytics_enabled=False, fill_width=True,
                   delete_cache=(3600, FILE_MAX_AGE_S)) as demo:
        gr.Markdown("## Sizing assistant · 算力规划助手\nCards, nodes, ZeRO stage and configs for fine-tuning and "
                    "serving LLMs on Ascend NPUs and GPUs. Every number comes from a tool: the ModelArts "
                    "vendor tables or the estimator.", elem_id="title")
        gr.Markdown(f"Chat model: **{model_label(assistant.model_name)}**", elem_id="chat-model")
        notice = gr.Markdown(f"⚠️ {startup_notice}" if startup_notice else "", visible=bool(startup_notice),
                             elem_id="llm-notice")
        turns = gr.State([])
        pending = gr.State("")
        busy = gr.State(False)  # an answer is on its way in this session
        conv_id = gr.State("")
        earlier = gr.State([])  # this conversation's older turns, kept out of the chat so a turn costs the same at 30
        # Conversations are kept in the reader's browser only, one localStorage key each, read and written by
        # the page's scripts (web_history); this hidden box carries what they read or what the server saves.
        saved = gr.Textbox(visible=False, elem_id="saved-conversations")
        # before one key per conversation, the whole list in one key: read once, moved, then emptied
        legacy = gr.BrowserState(web_history.EMPTY_STORE, storage_key=web_history.LEGACY_KEY, secret=web_history.LEGACY_KEY)
        with gr.Tabs(overflow_behavior="wrap") as tabs:  # every tab in view on a phone, no "⋯" menu
            with gr.Tab("Chat 对话", id="chat"):
                with gr.Row(elem_id="conversation-bar"):
                    history_dd = gr.Dropdown([], value=None, label="Earlier conversations (kept in this browser) · 历史对话",
                                             elem_id="history", scale=4, min_width=220)
                    new_btn = gr.Button("New conversation · 新对话", size="sm", scale=1, min_width=150,
                                        elem_id="new-conversation")
                    export_btn = gr.Button("Export · 导出", size="sm", scale=0, min_width=90, elem_id="export-conversation")
                    rename_btn = gr.Button("Rename · 重命名", size="sm", scale=0, min_width=90, elem_id="rename-conversation")
                    delete_btn = gr.Button("Delete · 删除", size="sm", scale=0, min_width=90, elem_id="delete-conversation")
                    undo_btn = gr.Button("Undo delete", elem_id="undo-delete")  # hidden: the Undo link clicks it
                more_btn = gr.Button("Show earlier questions", size="sm", variant="secondary", visible=False,
                                     elem_id="show-earlier")
                chatbot = gr.Chatbot(
                    height=620, elem_id="chat", label="Chat", show_label=False, buttons=["copy", "copy_all"], autoscroll=False,
                    latex_delimiters=[], examples=[{"text": q} for q in EXAMPLES], feedback_options=None,
                    placeholder="Ask in English or 中文 — e.g. how many cards, which ZeRO stage, give me the yaml.",
                )
                # locked until the saved conversation is restored: a question typed before that would be
                # overwritten by the restore (the load event's chat is the empty one it was sent with)
                box = gr.Textbox(show_label=False, placeholder="Ask a sizing question · 输入问题，回车发送",
                                 lines=1, max_lines=8, submit_btn=True, elem_id="question", interactive=False)
                stop_btn = gr.Button("Stop · 停止", size="sm", variant="stop", visible=False, elem_id="stop")

            with gr.Tab("Plan 规划", id="plan"):
                web_plan_form.render_plan_tab(ctx, demo, tabs)
            with gr.Tab("Tables 表格", id="tables"):
                web_tables.render_tables_tab(ctx, files_dir)
            with gr.Tab("Check my setup 检查配置", id="setup"):
                web_setup.render_setup_tab(ctx)

        # --- chat events: lock the box, show the question, stream the answer, unlock the box, save ---
        def then_label(event):  # the "show earlier" button follows the turns hidden (a State's change event did not fire)
            return event.then(earlier_button, earlier, more_btn, queue=False, show_progress="hidden")

        def then_answer(event):
            then_label(event).then(None, js=SCROLL_TO_QUESTION)
            answering = event.then(answer, [pending, chatbot, turns], [chatbot, turns, notice],
                                   concurrency_limit=CHAT_CONCURRENCY, concurrency_id="chat", show_progress="hidden")
            saving(answering.then(unlock, None, [box, stop_btn, busy], queue=False)).then(None, js=SCROLL_TO_QUESTION)
            return answering

        def saving(event):
            """Save this conversation under its own key, then list what the browser holds (other tabs' too)."""
            return event.then(save, [conv_id, chatbot, turns, earlier], [saved, conv_id], queue=False).then(
                list_saved, [saved, conv_id], history_dd, js=web_history.WRITE_JS, queue=False)

        taken = [box, chatbot, pending, stop_btn, busy, earlier]
        answering = [
            then_answer(box.submit(take_question, [box, chatbot, busy, earlier], taken, queue=False, show_progress="hidden")),
            then_answer(chatbot.example_select(take_example, [chatbot, busy, earlier], taken, queue=False,
                                               show_progress="hidden")),
            then_answer(chatbot.retry(take_retry, [chatbot, turns, busy], [box, chatbot, turns, pending, stop_btn, busy],
                                      queue=False, show_progress="hidden")),
        ]
        then_label(more_btn.click(show_earlier, [earlier, chatbot, busy], [earlier, chatbot], queue=False,
                                  show_progress="hidden"))
        saving(stop_btn.click(unlock, None, [box, stop_btn, busy], cancels=answering, queue=False).then(
            stopped, [chatbot, pending], chatbot, queue=False, show_progress="hidden"))
        # clearing or switching mid-answer cancels the answer, so it cannot write the old conversation back
        for clear in (new_btn.click, chatbot.clear):
            then_label(clear(new_conversation, None,
                             [chatbot, turns, pending, notice, box, stop_btn, conv_id, history_dd, busy, earlier],
                             cancels=answering, queue=False))
        then_label(history_dd.input(open_conversation, [saved, history_dd],
                                    [chatbot, turns, conv_id, notice, box, stop_btn, busy, earlier],
                                    cancels=answering, queue=False, js=web_history.OPEN_JS))
        export_btn.click(None, history_dd, None, js=web_history.EXPORT_JS, queue=False)  # a Markdown file, made in the page
        # the list's value, not conv_id: the page's script reads component values, and a State stays on the server
        then_label(delete_btn.click(delete_conversation, [saved, history_dd], [chatbot, turns, conv_id, history_dd, earlier],
                                    cancels=answering, queue=False, js=web_history.DELETE_JS))
        then_label(undo_btn.click(delete_conversation, [saved, history_dd], [chatbot, turns, conv_id, history_dd, earlier],
                                  cancels=answering, queue=False, js=web_history.UNDO_JS))
        rename_btn.click(list_saved, [saved, history_dd], history_dd, queue=False, js=web_history.RENAME_JS)
        restored = demo.load(restore, [saved, legacy, chatbot, busy], [chatbot, turns, conv_id, history_dd, saved, legacy, earlier],
                             queue=False, js=web_history.RESTORE_JS)
        then_label(restored)
        # an answer on its way keeps the box locked; then the cursor goes into it (it was locked when the page
        # loaded, so focusing earlier did nothing) and the chat shows the last question, not the first
        restored.then(lambda b: gr.update(interactive=not b), busy, box, queue=False).then(
            None, js=FOCUS_WITHOUT_SCROLL).then(None, js=SCROLL_TO_QUESTION)
        restored.then(None, saved, None, js=web_history.WRITE_JS, queue=False)  # legacy conversations to their own keys
        demo.load(None, js=NAME_CONTROLS)  # apart: a load's js return value would replace its inputs

    demo.sizing_files_dir = files_dir
    demo.sizing_assistant = assistant
    return demo


def font_css() -> str:
    """@font-face rules for FONT: Latin and punctuation from the served subset, CJK from the same
    family installed on the reader's machine (20 MB per face is too much to serve)."""
    def face(weights: str, src: str, ranges: str | None = None) -> str:
        return (f'@font-face {{ font-family: "{FONT}"; font-weight: {weights}; font-display: swap; src: {src};'
                + (f" unicode-range: {ranges};" if ranges else "") + " }")

    def url(weight: str) -> str:
        # relative to the page, through the app's own route: a gradio_api/file= address names the install folder
        return f'url("{web_downloads.FONTS_ROUTE.lstrip("/")}/NotoSansSC-{weight}-latin.woff2") format("woff2")'

    return "\n".join([face("100 550", url("Regular")), face("551 900", url("Bold")),
                      face("100 550", 'local("Noto Sans CJK SC"), local("NotoSansCJKsc-Regular")', CJK_RANGES),
                      face("551 900", 'local("Noto Sans CJK SC Bold"), local("NotoSansCJKsc-Bold")', CJK_RANGES)])


def serve(demo, host: str = "127.0.0.1", port: int = 7860, *, prevent_thread_lock: bool = False, quiet: bool = False):
    """Launch on ``host:port``: no share link, no SSR (it would need Node), no MCP server, no
    monitoring; only the app's download folder is served besides Gradio's own assets."""
    import gradio as gr

    demo.queue(default_concurrency_limit=CHAT_CONCURRENCY)
    files_dir = demo.sizing_files_dir
    demo.launch(
        server_name=host, server_port=port, share=False, ssr_mode=False, mcp_server=False, pwa=False,
        # run_history off: Gradio would copy every call's inputs and outputs (the whole chat) into the
        # browser's storage, rewriting it on each update (what slowed long conversations), and offers
        # to upload it to a Hugging Face bucket
        # downloads at /download/<key>/<name> (web_downloads), not at Gradio's address of their path on the server
        app_kwargs={"routes": [web_downloads.download_route(files_dir), web_downloads.fonts_route(STATIC_DIR)]},
        enable_monitoring=False, run_history=False, prevent_thread_lock=prevent_thread_lock,
        quiet=quiet, show_error=False, footer_links=[], theme=gr.themes.Default(font=FONT_STACK), css=font_css() + CSS,
        head=f"<script>({COPY_AS_SHOWN})(); ({NAME_MESSAGES})(); ({DEFER_STREAM_ABORT})();</script>",  # in the head: set before any copy button can be clicked
    )
    return demo


def run(settings: Settings, host: str, port: int, *, prevent_thread_lock: bool = False, quiet: bool = False):
    """Build the context and the app and serve it (blocking unless ``prevent_thread_lock``); the
    download folder is removed when the process exits."""
    quiet_env()
    ctx = Context.create(settings)
    files_dir = Path(tempfile.mkdtemp(prefix="sizing-web-"))
    atexit.register(shutil.rmtree, files_dir, True)
    if threading.current_thread() is threading.main_thread():
        # `kill`, systemd and container stops send SIGTERM: exit normally so the folder is removed
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    demo = build_app(ctx, settings, files_dir=files_dir)
    return serve(demo, host, port, prevent_thread_lock=prevent_thread_lock, quiet=quiet)
