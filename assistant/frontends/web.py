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
from pathlib import Path
from typing import Any

from ..answer import ChatTurn
from ..context import Context
from ..settings import Settings
from .web_chat import ChatRenderer, is_chinese

log = logging.getLogger(__name__)

# Set before Gradio (or huggingface_hub) is imported: no analytics, no update check, no hub calls.
QUIET_ENV = {"GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1",
             "DO_NOT_TRACK": "1", "GRADIO_SSR_MODE": "False", "LANGCHAIN_TRACING_V2": "false"}

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
CSS = """
#llm-notice { background: #fff4e5; border: 1px solid #f0a020; border-radius: 6px; padding: 6px 12px; }
#chat-model { font-size: 0.95em; }
"""
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

    from . import web_plan, web_tables

    settings = settings or ctx.settings
    files_dir = Path(files_dir or tempfile.mkdtemp(prefix="sizing-web-"))
    files_dir.mkdir(parents=True, exist_ok=True)
    last_prune = [time.monotonic()]
    assistant, startup_notice = make_assistant(ctx, settings, assistant_factory or default_assistant_factory)

    def take_question(message: str, chat: list):
        text = message or ""
        chat = list(chat or [])
        if text.strip():
            chat.append({"role": "user", "content": text})
        return gr.update(value="", interactive=False), chat, text

    def take_example(chat: list, evt):
        value = evt.value if isinstance(evt.value, str) else (evt.value or {}).get("text", "")
        return take_question(value, chat)

    take_example.__annotations__["evt"] = gr.SelectData  # Gradio injects event data by this annotation

    def answer(text: str, chat: list, turns: list):
        chat = list(chat or [])
        if not (text or "").strip():
            yield chat + [{"role": "assistant", "content": EMPTY_REPLY}], turns, gr.skip()
            return
        history = [ChatTurn(role=t["role"], content=t["content"]) for t in turns or []]
        if time.monotonic() - last_prune[0] > 3600:  # at most hourly
            last_prune[0] = time.monotonic()
            prune_files(files_dir)
        r = ChatRenderer(files_dir)
        try:
            for ev in assistant.stream(text, history):
                r.feed(ev)
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

    def unlock():
        return gr.update(interactive=True)

    def new_conversation():
        return [], [], "", gr.update(value="", visible=False), gr.update(value="", interactive=True)

    # delete_cache: Gradio's copies of served files older than a day go, checked hourly (long-running servers)
    with gr.Blocks(title="Sizing assistant", analytics_enabled=False, fill_width=True,
                   delete_cache=(3600, FILE_MAX_AGE_S)) as demo:
        gr.Markdown("## Sizing assistant · 算力规划助手\nCards, nodes, ZeRO stage and configs for fine-tuning and "
                    "serving LLMs on Ascend NPUs and GPUs. Every number comes from a tool: the ModelArts "
                    "vendor tables or the estimator.")
        gr.Markdown(f"Chat model: **{model_label(assistant.model_name)}**", elem_id="chat-model")
        notice = gr.Markdown(f"⚠️ {startup_notice}" if startup_notice else "", visible=bool(startup_notice),
                             elem_id="llm-notice")
        turns = gr.State([])
        pending = gr.State("")
        with gr.Tabs():
            with gr.Tab("Chat · 对话", id="chat"):
                chatbot = gr.Chatbot(
                    height=620, elem_id="chat", label="Chat", buttons=["copy", "copy_all"],
                    examples=[{"text": q} for q in EXAMPLES], feedback_options=None,
                    placeholder="Ask in English or 中文 — e.g. how many cards, which ZeRO stage, give me the yaml.",
                )
                box = gr.Textbox(show_label=False, placeholder="Ask a sizing question · 输入问题，回车发送",
                                 lines=1, max_lines=8, submit_btn=True, elem_id="question", autofocus=True)
                with gr.Row():
                    new_btn = gr.Button("New conversation · 新对话", size="sm", scale=0, min_width=200,
                                        elem_id="new-conversation")
                gr.Examples(EXAMPLES, inputs=box, label="Examples — click one, then press Enter · 示例问题")

            with gr.Tab("Plan · 规划", id="plan"):
                web_plan.render_plan_tab(ctx)
            with gr.Tab("Tables · 表格", id="tables"):
                web_tables.render_tables_tab(ctx, files_dir)

        # --- chat events: lock the box, show the question, stream the answer, unlock the box ---
        def then_answer(event):
            answering = event.then(answer, [pending, chatbot, turns], [chatbot, turns, notice],
                                   concurrency_limit=CHAT_CONCURRENCY, concurrency_id="chat", show_progress="hidden")
            answering.then(unlock, None, box, queue=False)
            return answering

        answering = [
            then_answer(box.submit(take_question, [box, chatbot], [box, chatbot, pending], queue=False,
                                   show_progress="hidden")),
            then_answer(chatbot.example_select(take_example, [chatbot], [box, chatbot, pending], queue=False,
                                               show_progress="hidden")),
        ]
        # clearing mid-answer cancels the answer, so it cannot write the old conversation back
        for clear in (new_btn.click, chatbot.clear):
            clear(new_conversation, None, [chatbot, turns, pending, notice, box], cancels=answering, queue=False)

    demo.sizing_files_dir = files_dir
    demo.sizing_assistant = assistant
    return demo


def serve(demo, host: str = "127.0.0.1", port: int = 7860, *, prevent_thread_lock: bool = False, quiet: bool = False):
    """Launch on ``host:port``: no share link, no SSR (it would need Node), no MCP server, no
    monitoring; only the app's download folder is served besides Gradio's own assets."""
    import gradio as gr

    demo.queue(default_concurrency_limit=CHAT_CONCURRENCY)
    files_dir = demo.sizing_files_dir
    demo.launch(
        server_name=host, server_port=port, share=False, ssr_mode=False, mcp_server=False, pwa=False,
        enable_monitoring=False, allowed_paths=[str(files_dir)], prevent_thread_lock=prevent_thread_lock,
        quiet=quiet, show_error=False, footer_links=[], theme=gr.themes.Default(), css=CSS,
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
