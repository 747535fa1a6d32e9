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


def test_two_methods_named_with_a_difference_asked_are_compared(assistant):
    # seeds/004 glm4-9b 8192 LLaMA-Factory Snt9B: full 8 cards, LoRA 1 card -> 7 more (8x)
    lead = assistant.ask("glm4-9b 8192 在 LlamaFactory 上全参比 LoRA 多几张卡？").answer.splitlines()[0]
    assert lead.startswith("**结论**：最少卡数对比：全参微调 **8 张卡") and lead.endswith("全参微调 比 LoRA 微调 多 7 张卡（8 倍）。")


def test_frameworks_joined_by_than_are_compared(assistant):
    # seeds/004 qwen2.5-72b full 4096 Snt9B: MindSpeed-LLM 32, LLaMA-Factory 64 -> 32 more (2x)
    lead = assistant.ask("qwen2.5-72b full 4096: how many fewer cards does MindSpeed need than LlamaFactory?").answer.splitlines()[0]
    assert lead.endswith("LLaMA-Factory needs 32 cards more than MindSpeed-LLM (2×).")


def test_frameworks_compared_on_the_minimum_card_rows_alike(assistant):
    # seeds/004 llama3.1-70b LoRA 8192 Snt9B: MindSpeed-LLM 16, LLaMA-Factory 32; the recipe table's 16-card LLaMA-Factory
    # row (seeds/000) is not set against MindSpeed-LLM's minimum-card row
    lead = assistant.ask("llama3.1-70b lora 8192: MindSpeed vs LlamaFactory card count, same or not?").answer.splitlines()[0]
    assert "LLaMA-Factory **32 cards" in lead and lead.endswith("LLaMA-Factory needs 16 cards more than MindSpeed-LLM (2×).")


def test_a_follow_up_asking_how_many_more_compares_with_the_earlier_value(assistant):
    from tests.offline.dialog import converse
    # seeds/004 qwen3-32b 4096 LLaMA-Factory Snt9B: LoRA 8, full 32 -> 24 more (4x)
    _, second = converse(assistant, "qwen3-32b LoRA 4096 min cards with LlamaFactory?",
                         "what about full fine-tuning - how many extra cards would that take?")
    assert second.answer.splitlines()[0].endswith("Full fine-tuning needs 24 cards more than LoRA (4×).")
    # seeds/004 llama3.1-8b full 4096 Snt9B: MindSpeed-LLM 4, LLaMA-Factory 8 -> 4 more (2x)
    _, zh = converse(assistant, "llama3.1-8b 全参 4096 用 MindSpeed 最少几张卡", "LlamaFactory 那边是几张，比这个多出多少？")
    assert zh.answer.splitlines()[0].endswith("LLaMA-Factory 比 MindSpeed-LLM 多 4 张卡（2 倍）。")


def test_a_follow_up_asking_to_save_memory_on_another_stack_answers_yes_or_no_with_both(assistant):
    from tests.offline.dialog import converse
    # fresh round 17 c7-07.3: after LLaMA-Factory full 8192 on 8 Snt9B, "MindSpeed 同样 8 张卡能省点显存吗" got a 4-card
    # estimate with no yes/no; now both stacks' per-card estimates (the plans their blocks state) and the saving lead
    *_, third = converse(assistant, "llama-factory qwen2.5-7b full 8192 on 8 snt9b with ds_z2 OOM 了，怎么办",
                         "换 zero3 了还是 OOM, next?", "换成 MindSpeed-LLM 框架，同样 8 张卡能省点显存吗")
    lead = third.answer.splitlines()[0]
    assert lead.startswith("**结论**：**能**，MindSpeed-LLM 每卡少约") and "LLaMA-Factory 每卡约" in lead


def test_less_memory_asked_of_two_methods_names_the_one_that_needs_less(assistant):
    # one question naming both: the smaller per-device estimate is the subject, whatever order they were named in
    lead = assistant.ask("For qwen3-8b, how much less memory per card does LoRA use than full on 8 cards at 4096?").answer.splitlines()[0]
    assert lead.startswith("**Answer:** **LoRA needs ") and "GiB less per device than full fine-tuning**" in lead


def test_a_ratio_asked_compares_and_the_comparison_carries_to_the_next_turn(assistant):
    from tests.offline.dialog import converse
    # seeds/004 deepseek-v3 4096 MindSpeed-LLM: LoRA 64, full 512 (Snt9B cards; Snt9B23 DIE, 16 per node):
    # "是 lora 的几倍" asks the ratio, 512 / 64 = 8; the next turn on Snt9B23 answers both: 512 DIE = 32 nodes, 64 DIE = 4
    _, second, third = converse(assistant, "deepseek-v3 做 lora 要多少卡", "那全量微调要多少，是 lora 的几倍",
                                "放在 Snt9B23 上是多少台机器")
    assert second.answer.splitlines()[0].endswith("全参微调 比 LoRA 微调 多 448 张卡（8 倍）。")
    lead = next(x for x in third.answer.splitlines() if x.startswith("**结论**"))
    assert "全参 MindSpeed-LLM：**512 DIE**" in lead and "32 个节点" in lead
    assert "LoRA MindSpeed-LLM：**64 DIE**" in lead and "4 个节点" in lead
