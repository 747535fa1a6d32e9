"""Two variants compared by their fewest devices: which needs more and by how much follows the two counts in the lead
(fresh round 15 c1-01: "which one eats more NPUs and by how much?" got the two counts only). Counts from the ModelArts
minimum-card table (seeds/004, 2025-06-24)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("question,more", [
    # gemma3-27b full 8192: LLaMA-Factory 48; internvl2.5-38b full 4096/8192: 32 -> 16 more, 48 / 32 = 1.5
    ("Snt9B, LlamaFactory, full FT at 8k: gemma3-27b vs internvl2.5-38b, which one needs more NPUs and by how much?",
     "gemma3-27b needs 16 cards more than internvl2.5-38b (1.5×)."),
    # qwen2.5-7b lora 4096: fewest 1 (LLaMA-Factory); qwen2.5-14b lora 4096: 4 -> 3 more, 4x
    ("qwen2.5-7b 和 qwen2.5-14b lora 4096 分别要几张卡", "qwen2.5-14b 比 qwen2.5-7b 多 3 张卡（4 倍）。"),
    # qwen2.5-72b full: 4096 fewest 32 (MindSpeed-LLM), 8192 fewest 64 -> 32 more, 2x
    ("4096 和 8192 下 qwen2.5-72b 全参分别要几张卡", "8192 比 4096 多 32 张卡（2 倍）。"),
])
def test_the_difference_follows_the_two_counts(assistant, question, more):
    lead = next(line for line in assistant.ask(question).answer.splitlines() if line.startswith(("**Answer:**", "**结论**")))
    assert lead.endswith(more)


def test_counts_in_different_units_get_no_difference(assistant):
    # Snt9B counts cards and Snt9B23 DIE: a difference across them would mix units
    lead = assistant.ask("qwen2.5-72b full 4096: Snt9B vs Snt9B23, how many each?").answer.splitlines()[0]
    assert "more than" not in lead
