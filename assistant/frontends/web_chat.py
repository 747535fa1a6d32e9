"""Turn the agent's stream events into Gradio chat messages (plain dicts, so this module does not
import Gradio and is unit-testable): one collapsible step per tool call, the streamed answer text,
generated configs as code blocks plus downloadable files, and the notice when an LLM failed."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

from ..answer import AgentEvent, Answer, GeneratedFile, source_as_known
from .web_downloads import file_value

MAX_RESULT_CHARS = 4_000  # a tool step shows at most this much JSON; long row lists are cut
CODE_LANG = {"yaml": "yaml", "yml": "yaml", "json": "json", "sh": "bash", "env": "bash", "txt": "text"}
SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


ASCII_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
CONFIG_BLOCK = re.compile(r"\*\*[^*\n]+\*\*\n```[^\n]*\n.*\n```", re.S)  # a generated file shown as code (finish())
CODE_SPAN = re.compile(r"(```.*?(?:```|$)|`[^`\n]*`)", re.S)


def is_chinese(text: str) -> bool:
    return bool(re.search(r"[\u4e00-\u9fff]", text or ""))


def as_plain_text(text: str) -> str:
    """A user's message as the chat's Markdown shows it: every ASCII punctuation mark
    backslash-escaped (CommonMark allows it for all of them), so typed HTML, links, bare URLs and
    Markdown marks appear exactly as typed instead of being rendered."""
    return ASCII_PUNCTUATION.sub(r"\\\1", text or "")


def no_strikethrough(markdown: str) -> str:
    """Escape ``~`` outside code: the chat's GFM renders ``~text~`` as struck-through text, and an
    answer never means that (a stray ``~`` for "about" struck whole lines through)."""
    parts = CODE_SPAN.split(markdown or "")
    return "".join(p if i % 2 else p.replace("~", "\\~") for i, p in enumerate(parts))


def message_text(message: dict[str, Any]) -> str | None:
    """A chat message's text, whether its content is a string (as this module builds it) or a list
    of parts (as Gradio hands the chat back to a function); None for a file."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content and all(isinstance(p, dict) and p.get("type") == "text" for p in content):
        return "".join(str(p.get("text", "")) for p in content)
    return None


def compact_history(chat: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Earlier turns as they stay on screen: tool steps keep their title, source and arguments but
    drop the result JSON, and config code blocks already offered as downloads go. The browser
    re-renders every message on each update, so a long conversation would otherwise slow each new
    answer (measured: 0.8 s for the first, 7.5 s for the tenth)."""
    out = []
    for i, m in enumerate(chat):
        text = message_text(m)
        if text is not None and m.get("metadata") and "**Result**" in text:
            m = {**m, "content": text.split("\n\n**Result**")[0]}
        elif text is not None and CONFIG_BLOCK.fullmatch(text) and _is_file(chat, i + 1):
            continue
        out.append(m)
    return out


def _is_file(chat: list[dict[str, Any]], i: int) -> bool:
    return i < len(chat) and message_text(chat[i]) is None


def collect_sources(result: Any, limit: int = 6) -> list[str]:
    """Every distinct source document named in a tool result (``source`` fields of table rows and
    notes, ``citation`` of table rows set beside an estimate), top level first, in order."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if len(found) >= limit:
            return
        if isinstance(node, dict):
            for key in ("citation", "source"):
                src = node.get(key)
                # a bare table name (e.g. "min_cards" beside an estimate) is not a document
                if isinstance(src, str) and (" " in src or "/" in src):
                    known = source_as_known(src)  # the page as users know it, not the transcription file
                    if known and known not in found:
                        found.append(known)
            for v in node.values():
                if isinstance(v, dict | list):
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(result)
    return found[:limit]


def _json_block(obj: Any, limit: int = MAX_RESULT_CHARS) -> str:
    text = json.dumps(obj, ensure_ascii=False, indent=1, default=str)
    if len(text) > limit:
        text = text[:limit] + f"\n… ({len(text) - limit} more characters cut)"
    return f"```json\n{text}\n```"


def step_content(args: dict | None, result: dict | None) -> str:
    parts = []
    if result is not None:
        err = result.get("error") if isinstance(result, dict) and len(result) == 1 else None
        if isinstance(err, dict):
            msg = f"**Error** `{err.get('code')}`: {err.get('message')}"
            if err.get("valid") not in (None, [], ""):
                msg += f"\n\nValid: `{json.dumps(err['valid'], ensure_ascii=False, default=str)[:1000]}`"
            parts.append(msg)
        else:
            parts.append("**Source**: " + describe_source(result))
    parts.append("**Arguments**\n" + _json_block(args or {}))
    if result is not None and not (isinstance(result, dict) and len(result) == 1 and "error" in result):
        parts.append("**Result**\n" + _json_block(result))
    return "\n\n".join(parts)


def step_title(name: str, result: dict | None) -> str:
    """🔧 for a result; ℹ️ when a table simply has no row for the case (the agent then looks
    elsewhere, so it is not a failure); ⚠️ for a real error (unknown model, bad arguments, ...)."""
    err = result.get("error") if isinstance(result, dict) and len(result) == 1 else None
    if not isinstance(err, dict):
        return f"🔧 {name}"
    if err.get("code") == "no_table_row":
        return f"ℹ️ {name} — no table row"
    return f"⚠️ {name} — error"


def is_estimate(result: dict) -> bool:
    """Estimator results list their assumptions; table look-ups do not."""
    return "assumptions" in result


def describe_source(result: dict) -> str:
    sources = collect_sources(result)
    if is_estimate(result):
        return "estimate (assumptions in the result)" + (f"; vendor table beside it: {'; '.join(sources)}" if sources else "")
    return "; ".join(sources) if sources else "computed by the tool"


def step_log(result: dict | None) -> str:
    """A short line beside the step's title: the error code, or where the numbers come from."""
    if not isinstance(result, dict):
        return ""
    if len(result) == 1 and isinstance(result.get("error"), dict):
        code = str(result["error"].get("code", "error"))
        return "" if code == "no_table_row" else code  # the title already says "no table row"
    sources = collect_sources(result, limit=1)
    src = "estimate" if is_estimate(result) else (sources[0] if sources else "")
    return src if len(src) <= 70 else src[:67] + "…"


def code_language(f: GeneratedFile) -> str:
    ext = Path(f.filename).suffix.lstrip(".").lower()
    if ext in CODE_LANG:
        return CODE_LANG[ext]
    fmt = (f.format or "").lower()
    return next((lang for key, lang in (("yaml", "yaml"), ("json", "json"), ("env", "bash"), ("launch", "bash")) if key in fmt), "text")


def write_file(files_dir: Path, f: GeneratedFile) -> Path:
    """Save a generated config under its own random folder (sessions never overwrite each other)
    and return the path the chat serves for download."""
    name = SAFE_NAME.sub("_", Path(f.filename).name).strip("._") or "config.txt"
    folder = files_dir / uuid.uuid4().hex[:12]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f.content, encoding="utf-8")
    return path


class ChatRenderer:
    """Accumulates the assistant's side of one turn as a list of chat-message dicts."""

    def __init__(self, files_dir: Path | None, root: str | None = None):
        self.files_dir = files_dir
        self.root = root  # the app's public address: files are linked at <root>/download/..., not by their path
        self.messages: list[dict[str, Any]] = []
        self._pending: list[int] = []  # indexes of steps still waiting for their result
        self._text_at: int | None = None
        self._raw = ""  # the answer text as streamed, before escaping for display
        self.answer: Answer | None = None
        self.files: list[Path] = []

    def _text(self, text: str, append: bool) -> None:
        if self._text_at is None:
            self._text_at, self._raw = len(self.messages), ""
            self.messages.append({"role": "assistant", "content": ""})
        self._raw = (self._raw + text) if append else text
        self.messages[self._text_at]["content"] = no_strikethrough(self._raw)

    def feed(self, ev: AgentEvent) -> None:
        if ev.kind == "tool_call":
            self._pending.append(len(self.messages))
            self.messages.append({
                "role": "assistant",
                "content": step_content(ev.args, None),
                "metadata": {"title": f"🔧 {ev.name}", "status": "pending", "id": f"step-{len(self.messages)}"},
            })
            self._text_at, self._raw = None, ""  # text after a tool call goes below it
        elif ev.kind == "tool_result":
            idx = next((i for i in self._pending if self.messages[i]["metadata"]["title"].endswith(f" {ev.name}")),
                       self._pending[0] if self._pending else None)
            if idx is None:  # a result without its call: show it as a finished step of its own
                idx = len(self.messages)
                self.messages.append({"role": "assistant", "content": "", "metadata": {"id": f"step-{idx}"}})
            else:
                self._pending.remove(idx)
            md = self.messages[idx]["metadata"]
            md.update(status="done", title=step_title(ev.name or "tool", ev.result), log=step_log(ev.result))
            self.messages[idx]["content"] = step_content(ev.args if ev.args is not None else self._args_of(idx), ev.result)
        elif ev.kind == "text" and ev.text:
            self._text(ev.text, append=True)
        elif ev.kind == "final" and ev.answer is not None:
            self.finish(ev.answer)

    def _args_of(self, idx: int) -> dict | None:
        m = re.search(r"```json\n(.*?)\n```", self.messages[idx]["content"], re.S)
        try:
            return json.loads(m.group(1)) if m else None
        except ValueError:
            return None

    def finish(self, answer: Answer) -> None:
        self.answer = answer
        for i in self._pending:  # a call whose result never came (should not happen): close it
            self.messages[i]["metadata"]["status"] = "done"
        self._pending.clear()
        self._text(answer.answer or "", append=False)
        for f in answer.files:
            if f.content.strip() and f.content.strip() not in (answer.answer or ""):
                self.messages.append({"role": "assistant",
                                      "content": f"**{f.filename}**\n```{code_language(f)}\n{f.content.rstrip()}\n```"})
            if self.files_dir is not None:
                path = write_file(self.files_dir, f)
                self.files.append(path)
                value = file_value(self.files_dir, path, self.root)
                self.messages.append({"role": "assistant", "content": {"file": value} if isinstance(value, dict) else {"path": value}})

    def error(self, message: str) -> None:
        for i in self._pending:
            md = self.messages[i]["metadata"]
            md.update(status="done", title=md["title"] + " — interrupted")
        self._pending.clear()
        self._text(message, append=False)
