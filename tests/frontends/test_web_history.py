"""The web chat's pure pieces added for people's expectations: user text shown as typed, no
strikethrough in answers, earlier turns compacted, conversations kept in browser storage,
regenerate, and the Tables tab's order and columns."""

from __future__ import annotations

import json
import re

from assistant.frontends import web_history, web_tables
from assistant.frontends.web_chat import as_plain_text, compact_history, no_strikethrough

HOSTILE = "<b>bold</b> <a href='http://evil.example'>x</a> https://x.example ~a~ **b** [l](http://y) `c` 中文"


def test_user_text_escapes_every_markdown_and_html_mark_and_round_trips():
    shown = as_plain_text(HOSTILE)
    assert not re.search(r"(?<!\\)[<>*\[\]~`]", shown)  # every mark escaped
    assert web_history.raw_text(shown) == HOSTILE
    assert as_plain_text("中文问题") == "中文问题"


def test_tilde_escaped_outside_code_only():
    md = "About ~5 GB and ~6 GB.\n\n`a~b`\n\n```yaml\npath: ~/x\n```\nthen ~7"
    out = no_strikethrough(md)
    assert out.count("\\~") == 3 and "`a~b`" in out and "path: ~/x" in out


def _turn(q: str, answer: str) -> list[dict]:
    return [{"role": "user", "content": as_plain_text(q)},
            {"role": "assistant", "content": "**Source**: t\n\n**Arguments**\n```json\n{}\n```\n\n**Result**\n```json\n{\"a\": 1}\n```",
             "metadata": {"title": "🔧 min_cards", "status": "done"}},
            {"role": "assistant", "content": f"**{answer}** then\n```yaml\nin: answer\n```"},
            {"role": "assistant", "content": "**x.yaml**\n```yaml\na: 1\n```"},
            {"role": "assistant", "content": {"path": "/tmp/x.yaml"}}]


def test_compact_history_drops_results_and_repeated_config_blocks():
    chat = _turn("q1", "32 cards")
    out = compact_history(chat)
    assert len(out) == 4 and "**Result**" not in out[1]["content"] and "**Arguments**" in out[1]["content"]
    assert out[2]["content"].startswith("**32 cards**") and out[3]["content"] == {"path": "/tmp/x.yaml"}
    # Gradio hands messages back with content as a list of parts: handled the same way
    parts = [{**m, "content": [{"type": "text", "text": m["content"]}]} if isinstance(m["content"], str) else m for m in chat]
    assert len(compact_history(parts)) == 4


def test_save_writes_one_conversation_and_lists_newest_first():
    ops, cid = web_history.save_ops("", _turn("Qwen <b>72B</b>?", "32"), [], "2026-12-03T09:00:00")
    (conv,) = json.loads(ops)["put"]
    assert cid and conv["id"] == cid and conv["title"] == "Qwen <b>72B</b>?"
    assert json.loads(web_history.save_ops(cid, _turn("Qwen", "32"), [], "t")[0])["put"][0]["id"] == cid  # same key
    index = [{"id": "b", "title": "second", "updated": "2026-12-03T09:05:00"}, {"id": cid, "title": conv["title"],
                                                                              "updated": conv["updated"]}]
    assert web_history.choices(index) == [("second · 2026-12-03 09:05", "b"), ("Qwen <b>72B</b>? · 2026-12-03 09:00", cid)]
    saved = json.dumps({"index": index, "open": conv})
    assert web_history.opened(saved)["chat"] == conv["chat"] and web_history.opened("junk") == {}
    assert web_history.save_ops("", [], [], "t") == ('{"put": []}', "")  # an empty chat is not saved
    assert web_history.conversations(None) == [] and web_history.conversations({"conversations": "junk"}) == []
    # the old whole-list key: its conversations move to their own keys, never over a newer one
    moved = json.loads(web_history.legacy_ops({"conversations": [conv, {"no": "id"}]}))
    assert moved == {"put": [conv], "if_absent": True}


def test_retry_point_drops_the_last_answer():
    chat = _turn("first", "a1") + _turn("how about <8192>?", "a2")
    turns = [{"role": "user", "content": "first"}, {"role": "assistant", "content": "a1"},
             {"role": "user", "content": "how about <8192>?"}, {"role": "assistant", "content": "a2"}]
    kept, kept_turns, question = web_history.retry_point(chat, turns)
    assert question == "how about <8192>?" and kept == chat[:6] and kept_turns == turns[:2]
    assert web_history.retry_point([], []) is None


def test_tables_drop_repeated_columns_and_sort_numbers_as_numbers(ctx, tmp_path):
    rows = [{"model_id": "a", "model": "a", "cards": 8}, {"model_id": "b", "model": "b", "cards": 16}]
    assert web_tables.blank_repeats(rows, ["model_id", "model", "cards"])[0] == ["model_id", "cards"]
    rows += [{"model_id": f"m{i}", "model": f"m{i}", "cards": 8} for i in range(3)] + [{"model_id": "c", "model": "C-1", "cards": 1}]
    cols, shown, notes = web_tables.blank_repeats(rows, ["model_id", "model", "cards"])
    assert cols == ["model_id", "model", "cards"] and [r["model"] for r in shown] == [None] * 5 + ["C-1"]
    assert notes == ["A blank model cell is the same as model_id."]
    rows = [{"v": 8}, {"v": None}, {"v": 128}, {"v": 16}]
    assert [r["v"] for r in web_tables.sort_rows(rows, "v", True)] == [128, 16, 8, None]
    df, caption, path = web_tables.table_view(ctx, tmp_path, "hardware", "", "memory_gb", True)
    most = max(r["memory_gb"] for r in ctx.kb.table_rows("hardware"))  # the catalog's largest memory
    assert df["memory_gb"].iloc[0] == most and "sorted by memory_gb descending" in caption
    assert float(path.read_text().splitlines()[1].split(",")[list(df.columns).index("memory_gb")]) == most
    df, caption, _ = web_tables.table_view(ctx, tmp_path, "min_cards", "")
    # the vendor's spelling differs from the catalog id for a few models only (e.g. qwen2vl-2b)
    assert set(df["model"].dropna()) and df["model"].isna().mean() > 0.5 and "same as model_id" in caption


def test_tables_never_blank_numbers_or_flags(ctx, tmp_path):
    """Qwen3's MoE configs have 128 experts and head_dim 128, and True == 1 in Python: neither is a
    repeated column (issue 24: both were blanked as "same as" an earlier column)."""
    df, caption, _ = web_tables.table_view(ctx, tmp_path, "models", "qwen3-30b-a3b")
    # Qwen3-30B-A3B config.json: num_experts 128, head_dim 128
    assert df["experts"].tolist() == [128] and df["head_dim"].tolist() == [128] and "blank" not in caption
    df, caption, _ = web_tables.table_view(ctx, tmp_path, "hardware", "")
    assert df["bf16"].isna().sum() == 0 and "blank" not in caption
    rows = [{"a": 1, "b": 1}, {"a": None, "b": None}, {"a": True, "b": 1}]
    assert web_tables.repeated_columns(rows, ["a", "b"]) == {}


def test_split_shown_keeps_the_last_questions_with_their_answers():
    chat = _turn("q1", "a1") + _turn("q2", "a2") + _turn("q3", "a3")
    earlier, shown = web_history.split_shown(chat, 2)
    assert earlier == chat[:5] and shown == chat[5:] and earlier + shown == chat
    assert web_history.split_shown(chat, 3) == ([], chat) and web_history.split_shown(chat, 0) == (chat, [])
