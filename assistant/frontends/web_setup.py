"""The "Check my setup" tab: paste a config, a command line or an out-of-memory message (or upload the
file) and get check_setup's answer, written by the same renderer as the chat's, so both say the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..offline.setup_answer import question_language, render_setup
from ..tools import REGISTRY

MAX_UPLOAD_BYTES = 2_000_000  # check_setup's own limit on text
PLACEHOLDER = ("Paste a LLaMA-Factory YAML (with its DeepSpeed JSON), MindSpeed-LLM variables, a vllm serve / torchrun / "
               "llamafactory-cli line or an out-of-memory message · 粘贴配置、启动命令或 OOM 报错")


def setup_text(pasted: str | None, upload: str | None) -> str:
    """The text to check: the uploaded file's (read as UTF-8, at most MAX_UPLOAD_BYTES) before the pasted text."""
    parts = []
    if upload:
        raw = Path(upload).read_bytes()[:MAX_UPLOAD_BYTES]
        parts.append(raw.decode("utf-8", errors="replace"))
    if pasted and pasted.strip():
        parts.append(pasted)
    return "\n\n".join(parts)


def check(ctx, pasted: str | None, upload: str | None, hardware: str | None, devices: Any) -> str:
    text = setup_text(pasted, upload)
    if not text.strip():
        return "Paste a setup or upload a file first. · 请先粘贴配置或上传文件。"
    args: dict[str, Any] = {"text": text}
    if hardware:
        args["hardware"] = hardware
    if devices and int(devices) >= 1:
        args["devices"] = int(devices)
    return render_setup(REGISTRY.call_json("check_setup", args, ctx), question_language(text))


def render_setup_tab(ctx) -> None:
    """Build the tab's inputs and answer inside the caller's Blocks context."""
    import gradio as gr

    hardware = [("from the text · 按文本", "")] + [(f"{h['name']} ({h['id']})", h["id"]) for h in ctx.kb.hardware()]
    with gr.Row():
        with gr.Column(scale=1, min_width=320):
            pasted = gr.Textbox(lines=14, max_lines=40, label="Your setup · 你的配置", placeholder=PLACEHOLDER,
                                elem_id="setup-text")
            upload = gr.File(label="or upload a file · 或上传文件", type="filepath", elem_id="setup-file",
                             file_types=[".yaml", ".yml", ".json", ".sh", ".txt", ".log"])
            with gr.Row():
                hw = gr.Dropdown(hardware, value="", label="Hardware (if the text does not say) · 硬件",
                                 elem_id="setup-hardware")
                # no minimum: an empty field arrives as 0, which means "not given"
                devices = gr.Number(None, precision=0, label="Devices (if not said) · 卡数",
                                    elem_id="setup-devices")
            run = gr.Button("Check · 检查", variant="primary", elem_id="setup-check")
        with gr.Column(scale=2):
            answer = gr.Markdown(elem_id="setup-answer")
    run.click(lambda p, u, h, d: check(ctx, p, u, h, d), [pasted, upload, hw, devices], answer)
