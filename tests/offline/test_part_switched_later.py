"""A count asked with no part named, then the job moved to a part in a later sub-question ("最少几卡？换成 Snt9B23 要几个
DIE"): the first asks the default part's (Snt9B) count, so both are answered, in the order asked. Fresh round 22 c1-11
answered only the part named. Vendor rows: ModelArts minimum-card table (2025-06-24), seeds/004."""

from __future__ import annotations


def test_default_part_first_then_the_one_switched_to(assistant):
    # 004: qwen3-32b LoRA 4096 LLaMA-Factory: Snt9B 8 cards; Snt9B23 8 DIE (one node of 16 DIE)
    answer = assistant.ask("qwen3-32b LoRA 4k with LlamaFactory, fewest cards? And if it's Snt9B23, how many DIE?").answer
    lead = answer.splitlines()[0]
    assert "Snt9B **8 cards" in lead and "Snt9B23 **8 DIE" in lead
    assert lead.index("Snt9B **") < lead.index("Snt9B23 **")


def test_one_part_named_in_one_question_is_that_part_only(assistant):
    # 004: qwen2.5-72b LoRA 4096 LLaMA-Factory on Snt9B23: 32 DIE
    answer = assistant.ask("Snt9B23 上 qwen2.5-72b lora 4k 用 LlamaFactory 要几个 DIE？").answer
    assert "LLaMA-Factory：**32 DIE**" in answer and "· Snt9B ·" not in answer
