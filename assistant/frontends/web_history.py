"""Conversations kept in the reader's browser (Gradio's BrowserState, i.e. localStorage): the chat as
shown and the turns the assistant reads, so a reload reopens the conversation and earlier ones can be
picked from a list. Nothing is stored on the server. Plain functions over plain dicts (no Gradio)."""

from __future__ import annotations

import re
import uuid
from typing import Any

from .web_chat import compact_history, message_text

MAX_CONVERSATIONS = 30  # oldest dropped first: localStorage holds about 5 MB per site
TITLE_CHARS = 60
EMPTY_STORE: dict[str, Any] = {"conversations": []}
ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def raw_text(shown: str) -> str:
    """The text a user typed, from the escaped Markdown the chat shows (``as_plain_text`` inverted)."""
    return ESCAPED.sub(r"\1", shown or "")


def conversations(store: Any) -> list[dict[str, Any]]:
    convs = store.get("conversations") if isinstance(store, dict) else None
    return [c for c in convs or [] if isinstance(c, dict) and c.get("id")]


def title_of(chat: list[dict[str, Any]]) -> str:
    first = next((raw_text(message_text(m) or "") for m in chat if m.get("role") == "user"), "")
    first = " ".join(first.split())
    return first if len(first) <= TITLE_CHARS else first[:TITLE_CHARS - 1] + "…"


def save(store: Any, conv_id: str, chat: list[dict[str, Any]], turns: list[dict[str, str]],
         when: str) -> tuple[dict[str, Any], str]:
    """The store with this conversation saved first (newest first) and its id (a new one when the
    conversation had none). An empty chat is not saved."""
    convs = conversations(store)
    if not chat:
        return {"conversations": convs}, conv_id
    conv_id = conv_id or uuid.uuid4().hex[:12]
    entry = {"id": conv_id, "title": title_of(chat), "updated": when, "chat": compact_history(chat), "turns": turns}
    rest = [c for c in convs if c["id"] != conv_id]
    return {"conversations": [entry, *rest][:MAX_CONVERSATIONS]}, conv_id


def find(store: Any, conv_id: str) -> dict[str, Any] | None:
    return next((c for c in conversations(store) if c["id"] == conv_id), None)


def choices(store: Any) -> list[tuple[str, str]]:
    """(label, id) for the list of earlier conversations, newest first."""
    return [(f"{c.get('title') or '…'} · {str(c.get('updated', ''))[:16].replace('T', ' ')}", c["id"])
            for c in conversations(store)]


def delete(store: Any, conv_id: str) -> dict[str, Any]:
    return {"conversations": [c for c in conversations(store) if c["id"] != conv_id]}


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
