"""A second length asked as a fallback in a sub-question of its own ("8192 行不行？不行的话 4096 呢") is a job of its own:
both are sized, and on the user's devices each one's vendor yes/no leads. Fresh round 22 c2-09 named the 4096 unused.
Vendor rows: ModelArts minimum-card table (2025-06-24), seeds/004."""

from __future__ import annotations


def test_fallback_length_is_answered_with_the_table_verdict(assistant):
    # 004: qwen3-32b LoRA LLaMA-Factory Snt9B: 8192 -> 16 cards (no on 8), 4096 -> 8 cards (yes on 8)
    answer = assistant.ask("we only have 8 Snt9B cards: qwen3-32b lora at 8192 with LlamaFactory, ok? if not, what about 4096?").answer
    lead = answer.split("\n\n")[0]
    assert "no** by the vendor table (it needs 16 cards)" in lead and "yes** by the vendor table (it needs 8 cards)" in lead
    assert lead.index("8192") < lead.index("4096") and "unused" not in answer.lower()


def test_a_length_past_the_table_is_a_no_when_a_shorter_row_needs_more(assistant):
    # 004: qwen3-32b LoRA LLaMA-Factory Snt9B has no 16384 row; 8192 needs 16 cards, so 8 cards are a no at 16384 too
    answer = assistant.ask("8 Snt9B here. qwen3-32b LoRA with LLaMA-Factory at 16k, does it run? and at 8k?").answer
    lead = answer.split("\n\n")[0]
    assert "16384 **no** by the vendor table (a shorter length already needs 16 cards)" in lead
