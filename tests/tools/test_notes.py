"""Note search: ranked passages with their source, Chinese and English queries."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("query,topic_file", [
    ("checkpoint save timeout multi-node", "ckpt_timeout.md"),
    ("保存权重超时", "ckpt_timeout.md"),
    ("NPU out of memory", "oom.md"),
    ("显存溢出怎么办", "oom.md"),
    ("FlashAttention constraints", "flash_attention.md"),
    ("bf16 fp16 区别", "bf16_fp16.md"),
    ("which zero stage offload", "zero_stages.md"),
    ("DIE Snt9B23", "snt9b_vs_snt9b23.md"),
])
def test_search_notes_finds_the_topic(call, query, topic_file):
    out = call("search_notes", query=query)
    assert out["results"], out
    assert out["results"][0]["file"] == topic_file
    assert out["results"][0]["source"]


def test_checkpoint_note_states_36_minutes(call):
    text = " ".join(r["text"] for r in call("search_notes", query="checkpoint timeout", limit=5)["results"])
    assert "36" in text


def test_nonsense_query_returns_no_results_not_error(call):
    out = call("search_notes", query="zzzqqq xyzzy")
    assert out["results"] == []
