"""Conversations (fresh 2026-12-07 conv17): a method ruled out and another named ("skip full tuning and just do lora",
"不做全参只训 LoRA") changes the job's method, and the yes/no on the user's cards that follows is judged on it (counts
pinned to seeds/004 via the hand-typed tests/golden seed); a KV-cache budget the user states ("with 60 GB of KV
space") is what the concurrent sequences are counted in, by hand: 2 x 80 layers x 8 KV heads x 128 x 2 B = 320 KiB
per token for qwen2.5-72b, x 16384 tokens = 5 GiB = 5.3687 GB per sequence, 60 / 5.3687 = 11.2 -> 11."""

from __future__ import annotations

from assistant.offline.vocab import changed_to
from tests.seedfiles import min_cards_rows

from .dialog import converse, lead


def seed_cards(model, strategy, seq, framework, hardware="Snt9B"):
    return next(c for m, s, q, fw, hw, c in min_cards_rows() if (m, s, q, fw, hw) == (model, strategy, seq, framework, hardware))


def test_a_ruled_out_value_changes_to_the_next_one_named():
    text = "what if we skip full tuning and just do lora instead"
    assert changed_to(text, [(text.index("full"), text.index("full") + 4, "full"), (text.index("lora"), text.index("lora") + 4, "lora")]) == "lora"
    zh = "如果不做全参只训 lora 呢"
    assert changed_to(zh, [(zh.index("全参"), zh.index("全参") + 2, "full"), (zh.index("lora"), zh.index("lora") + 4, "lora")]) == "lora"
    cmp = "是不是全参比 lora 多很多"  # a question whether, no value ruled out
    assert changed_to(cmp, [(cmp.index("全参"), cmp.index("全参") + 2, "full"), (cmp.index("lora"), cmp.index("lora") + 4, "lora")]) is None


def test_skipping_full_tuning_for_lora_sizes_lora_and_the_next_verdict_uses_it(assistant):
    _, lora, verdict = converse(assistant, "min Snt9B cards to do full-parameter SFT of qwen2.5-32b with LLaMA-Factory at 4096 cutoff?",
                                "what if we skip full tuning and just do lora instead", "we only have 12 cards in the pool, does that work?")
    cards = seed_cards("qwen2.5-32b", "lora", 4096, "LLaMA-Factory")  # 8 in the min-card table (2025-06-24); full is 32
    assert f"**{cards} cards**" in lead(lora), lora.answer
    assert lead(verdict).startswith("**Yes.**"), verdict.answer  # 12 >= 8 for LoRA (not the 32 of full)


def test_a_stated_kv_budget_counts_the_sequences_in_it(assistant):
    _, kv = converse(assistant, "serving qwen2.5-72b in bf16 — what's the per-token KV footprint?",
                     "ok so with 60 GB of KV space how many 16k-token requests can I hold at once?")
    assert "about **11 concurrent sequences of 16384 tokens** in your 60 GB of KV cache" in lead(kv), kv.answer


def test_the_last_answers_count_split_per_node_is_never_called_yours(assistant):
    # the user never gave a card count: the 8 per node is the min-card row's (qwen2.5-14b LoRA 8192 MindSpeed-LLM)
    _, host = converse(assistant, "qwen2.5-14b LoRA 用 MindSpeed 训，8192 长度要几张 Snt9B", "每台机器 host memory 要多少？")
    assert "你的" not in host.answer, host.answer
