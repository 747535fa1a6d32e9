"""Conversations kept in the reader's browser (localStorage), one storage key per conversation: the
chat as shown and the turns the assistant reads, so a reload reopens the conversation and earlier ones
can be picked from a list. Two tabs of one browser each write only the conversation they answered
(a whole-list value would let the last tab to answer erase the other's). Nothing is stored on the
server. Plain functions over plain dicts (no Gradio), and the small scripts the page runs to read and
write the keys (the server never sees the other conversations)."""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from .web_chat import compact_history, message_text

MAX_CONVERSATIONS = 30  # oldest dropped first: localStorage holds about 5 MB per site
TITLE_CHARS = 60
KEY_PREFIX = "sizing-assistant-conversation:"  # + the conversation's id: the conversation
TITLE_PREFIX = "sizing-assistant-title:"  # + the id: its title and time, so listing reads no chat
LEGACY_KEY = "sizing-assistant-conversations"  # the whole list in one (encrypted) key, before issue 24
EMPTY_STORE: dict[str, Any] = {"conversations": []}
ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")

# Read and write the per-conversation keys in the page. ``index()`` lists {id, title, updated}
# newest first; ``put`` writes one conversation and drops the oldest beyond the limit (or when the
# storage is full); each handler below passes JSON text to the server in the hidden ``saved`` box.
_STORE_JS = f"""const P = {json.dumps(KEY_PREFIX)}, T = {json.dumps(TITLE_PREFIX)}, MAX = {MAX_CONVERSATIONS};
const parse = k => {{ try {{ return JSON.parse(localStorage.getItem(k)); }} catch (e) {{ return null; }} }};
const read = id => parse(P + id);
const drop = id => {{ localStorage.removeItem(P + id); localStorage.removeItem(T + id); }};
const index = () => Object.keys(localStorage).filter(k => k.startsWith(T)).map(parse)
  .filter(c => c && c.id && localStorage.getItem(P + c.id) !== null)
  .sort((a, b) => String(b.updated).localeCompare(String(a.updated)));
const put = c => {{ const t = JSON.stringify({{id: c.id, title: c.title, updated: c.updated}});
  for (;;) {{ try {{ localStorage.setItem(P + c.id, JSON.stringify(c)); localStorage.setItem(T + c.id, t); break; }}
    catch (e) {{ const old = index().filter(o => o.id !== c.id); if (!old.length) return; drop(old.pop().id); }} }}
  index().slice(MAX).forEach(o => drop(o.id)); }};"""
# the page load: the list and the newest conversation (plus the other inputs unchanged)
RESTORE_JS = f"""(saved, ...rest) => {{ {_STORE_JS}
  const idx = index(); return [JSON.stringify({{index: idx, open: idx.length ? read(idx[0].id) : null}}), ...rest]; }}"""
# picking a conversation from the list: that one conversation
OPEN_JS = f"""(saved, id, ...rest) => {{ {_STORE_JS}
  return [JSON.stringify({{open: id ? read(id) : null}}), id, ...rest]; }}"""
UNDO_SECONDS = 10  # how long a deleted conversation can be brought back
# delete: remove its keys at once (no question asked), keep the conversation in the page and offer to undo
# for UNDO_SECONDS (a bar with an Undo link that clicks the hidden #undo-delete button); then the list and
# the newest one left
DELETE_JS = f"""(saved, id, ...rest) => {{ {_STORE_JS}
  const c = id ? read(id) : null; if (!c) return [JSON.stringify({{cancel: true}}), id, ...rest];
  drop(id); window.sizingDeleted = c;
  document.getElementById("undo-bar")?.remove(); clearTimeout(window.sizingUndoTimer);
  const bar = document.createElement("div"); bar.id = "undo-bar"; bar.setAttribute("role", "status");
  bar.append("Deleted “" + (c.title || "conversation") + "” · 已删除 ");
  const undo = document.createElement("button"); undo.type = "button"; undo.textContent = "Undo · 撤销";
  undo.onclick = () => document.querySelector("#undo-delete")?.click(); bar.append(undo); document.body.append(bar);
  window.sizingUndoTimer = setTimeout(() => {{ bar.remove(); window.sizingDeleted = null; }}, {UNDO_SECONDS * 1000});
  const idx = index();
  return [JSON.stringify({{index: idx, open: idx.length ? read(idx[0].id) : null}}), id, ...rest]; }}"""
# undo: write the deleted conversation back under its own key and open it (the list's value is passed on
# unchanged: the server checks it against the choices it sent, which do not hold the restored one yet)
UNDO_JS = f"""(saved, id, ...rest) => {{ {_STORE_JS}
  const c = window.sizingDeleted; window.sizingDeleted = null; document.getElementById("undo-bar")?.remove();
  if (!c) return [JSON.stringify({{cancel: true}}), id, ...rest];
  put(c); return [JSON.stringify({{index: index(), open: read(c.id)}}), id, ...rest]; }}"""
# rename: the title the reader types is kept (a later save keeps it: see WRITE_JS), then the fresh list
RENAME_JS = f"""(saved, id, ...rest) => {{ {_STORE_JS}
  const c = id ? read(id) : null;
  const title = c ? prompt("New name for this conversation · 对话的新名称", c.title || "") : null;
  if (c && title && title.trim()) put({{...c, title: title.trim().slice(0, {TITLE_CHARS}), renamed: true}});
  return [JSON.stringify({{index: index()}}), id, ...rest]; }}"""
# after a save: write what the server returned ({{put: [...]}}), then hand back the fresh list
WRITE_JS = f"""(saved, ...rest) => {{ {_STORE_JS}
  let ops = {{}}; try {{ ops = JSON.parse(saved || "{{}}") || {{}}; }} catch (e) {{}}
  for (const c of ops.put || []) {{ if (!c || !c.id) continue; const was = read(c.id);
    if (ops.if_absent && was) continue;
    put(was && was.renamed ? {{...c, title: was.title, renamed: true}} : c); }}
  return [JSON.stringify({{index: index()}}), ...rest]; }}"""


# export: the open conversation as a Markdown file, made in the page from its stored copy (no server file)
EXPORT_JS = f"""(id) => {{ {_STORE_JS}
  const c = id ? read(id) : null; if (!c) return;
  const unescape = t => t.replace(/\\\\([!-\\/:-@\\[-`{{-~])/g, "$1");
  const text = m => typeof m.content === "string" ? m.content : Array.isArray(m.content) && m.content.every(p => p && p.type === "text")
    ? m.content.map(p => p.text || "").join("") : null;
  const file = m => {{ const f = Array.isArray(m.content) ? (m.content[0] || {{}}).file || m.content[0] : m.content;
    return f && (f.path || f.orig_name) ? String(f.orig_name || f.path).split("/").pop() : "file"; }};
  const out = ["# " + (c.title || "Conversation"), "", "Saved " + String(c.updated || "").replace("T", " ").slice(0, 16), ""];
  let answering = false;
  for (const m of c.chat || []) {{
    const t = text(m);
    if (m.role === "user") {{ out.push("## You", "", unescape(t || ""), ""); answering = false; continue; }}
    if (!answering) {{ out.push("## Assistant", ""); answering = true; }}
    if (m.metadata && m.metadata.title) out.push("> " + m.metadata.title + (m.metadata.log ? " · " + m.metadata.log : ""), "");
    else if (t !== null) out.push(t, "");
    else out.push("(file: " + file(m) + ")", "");
  }}
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([out.join("\\n")], {{type: "text/markdown;charset=utf-8"}}));
  a.download = (c.title || "conversation").replace(/[^\\w\\u4e00-\\u9fff.-]+/g, "_").slice(0, 60) + ".md";
  document.body.appendChild(a); a.click(); setTimeout(() => {{ URL.revokeObjectURL(a.href); a.remove(); }}, 1000); }}"""


def raw_text(shown: str) -> str:
    """The text a user typed, from the escaped Markdown the chat shows (``as_plain_text`` inverted)."""
    return ESCAPED.sub(r"\1", shown or "")


def parse(saved: Any) -> dict[str, Any]:
    """What a page script passed in the hidden box ({"index": [...], "open": {...}}); {} when unreadable."""
    try:
        out = json.loads(saved) if isinstance(saved, str) and saved else {}
    except ValueError:
        return {}
    return out if isinstance(out, dict) else {}


def conversations(store: Any) -> list[dict[str, Any]]:
    """The conversations of a legacy whole-list store, or the summaries of an index."""
    convs = store.get("conversations") if isinstance(store, dict) else store
    return [c for c in convs or [] if isinstance(c, dict) and c.get("id")] if isinstance(convs, list) else []


def opened(saved: Any) -> dict[str, Any]:
    """The conversation a page script read (chat, turns, id), or {} when none."""
    conv = parse(saved).get("open")
    return conv if isinstance(conv, dict) and conv.get("id") else {}


def title_of(chat: list[dict[str, Any]]) -> str:
    first = next((raw_text(message_text(m) or "") for m in chat if m.get("role") == "user"), "")
    first = " ".join(first.split())
    return first if len(first) <= TITLE_CHARS else first[:TITLE_CHARS - 1] + "…"


def entry(conv_id: str, chat: list[dict[str, Any]], turns: list[dict[str, str]],
          when: str) -> tuple[dict[str, Any] | None, str]:
    """This conversation as it is stored, and its id (a new one when it had none); None for an empty chat."""
    if not chat:
        return None, conv_id
    conv_id = conv_id or uuid.uuid4().hex[:12]
    return {"id": conv_id, "title": title_of(chat), "updated": when, "chat": compact_history(chat), "turns": turns}, conv_id


def save_ops(conv_id: str, chat: list[dict[str, Any]], turns: list[dict[str, str]], when: str) -> tuple[str, str]:
    """(JSON for WRITE_JS, the conversation's id): write this one conversation's key."""
    found, conv_id = entry(conv_id, chat, turns, when)
    return json.dumps({"put": [found] if found else []}, ensure_ascii=False), conv_id


def legacy_ops(legacy: Any) -> str:
    """JSON for WRITE_JS that moves the conversations of the old whole-list key to their own keys
    (never over a conversation already saved under its own key)."""
    return json.dumps({"put": conversations(legacy), "if_absent": True}, ensure_ascii=False)


def choices(index: Any) -> list[tuple[str, str]]:
    """(label, id) for the list of earlier conversations, newest first."""
    return [(f"{c.get('title') or '…'} · {str(c.get('updated', ''))[:16].replace('T', ' ')}", c["id"])
            for c in conversations(index)]


def split_shown(chat: list[dict[str, Any]], questions: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(earlier messages, the last ``questions`` questions with their answers): the chat shows only
    the latter, so a long conversation costs the browser the same per turn as a short one."""
    starts = [i for i, m in enumerate(chat) if m.get("role") == "user"]
    if len(starts) <= questions:
        return [], list(chat)
    if questions <= 0:
        return list(chat), []
    return list(chat[:starts[-questions]]), list(chat[starts[-questions]:])


def retry_point(chat: list[dict[str, Any]], turns: list[dict[str, str]]) -> tuple[list, list, str] | None:
    """For "regenerate": the chat up to and including the last question, the turns without its
    answer, and the question as typed; None when there is no question to ask again."""
    idx = next((i for i in range(len(chat) - 1, -1, -1) if chat[i].get("role") == "user"), None)
    shown = message_text(chat[idx]) if idx is not None else None
    if idx is None or not shown:
        return None
    question = raw_text(shown)
    turns = list(turns or [])
    if len(turns) >= 2 and turns[-2].get("role") == "user" and turns[-2].get("content") == question:
        turns = turns[:-2]
    return chat[: idx + 1], turns, question
