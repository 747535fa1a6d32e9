"""A follow-up that asks one new quantity gets it first and the yes/no already given is not said again (carry.toml
one_quantity, compose.batch_after_lead, capacity.verdict); a yes/no turn does not carry the last turn's TP/PP ask.
Hand computations: GBS = MBS × DP × GA (ModelArts MindSpeed-LLM pages): 2 × 1 × 8 = 16, 4 × 8 × 4 = 128; GA =
256 / (1 × 64 / (8 × 2)) = 64. Vendor rows: seeds/004 qwen3-30b-a3b LoRA 4096 LLaMA-Factory 32 cards, qwen2.5-14b
LoRA 8192 LLaMA-Factory 4 cards. Fresh round 9 c7-03 t2, c7-08 t3, c3-06; lead-fact helper set."""

from __future__ import annotations

from .dialog import converse


def test_the_global_batch_asked_after_a_verdict_leads_and_the_verdict_is_not_restated(assistant):
    _, second = converse(assistant, "llama3.1-8b lora 8192，1 张 Snt9B，per_device 2，GA 8 能跑吗", "全局 batch 多少")
    body = second.answer.split("\n\n", 1)[1]
    assert body.startswith("**结论**：**全局 batch 为 16** = micro batch 2 × 数据并行 1 × 梯度累积 8")
    assert "**够**" not in second.answer


def test_the_global_batch_asked_in_english_leads(assistant):
    _, second = converse(assistant, "llama3-8b lora 4096，8 张 910B，per_device 4，梯度累积 4，能跑吗", "那全局 batch size 是多少")
    assert "**结论**：**全局 batch 为 128** = micro batch 4 × 数据并行 8 × 梯度累积 4" in second.answer


def test_a_yes_no_turn_after_a_split_answers_the_yes_no_not_the_split(assistant):
    *_, third = converse(assistant, "Can I LoRA Qwen3-30B-A3B at 4096 on 16 Snt9B cards with MindSpeed-LLM?",
                         "what TP/PP/EP would you use?", "switch to LLaMA-Factory — are 16 still enough?")
    first = third.answer.split("**Answer:**", 1)[1].splitlines()[0]
    assert first.startswith(" **Not by the vendor tables**") and "32 cards" in first and "TP 2" not in first


def test_an_ok_opening_is_no_yes_no(assistant):
    *_, third = converse(assistant, "qwen2.5-14b lora 8192 on 16 Snt9B with MindSpeed-LLM, enough?",
                         "how would you split TP and PP?", "ok and with LLaMA-Factory instead, do 16 cards suffice?")
    first = third.answer.split("**Answer:**", 1)[1].splitlines()[0]
    assert first.startswith(" **Yes.**") and "LLaMA-Factory (4 cards)" in first


def test_ga_asked_of_a_parts_die_is_the_batch_identity(assistant):
    ans = converse(assistant, "MindSpeed 在 Snt9B23 上用 64 个 DIE，TP 8 PP 2，MBS 1，GBS 256，梯度累积是多少")[0]
    assert ans.answer.startswith("**梯度累积设为 64** = 全局 batch 256 / (micro batch 1 × 数据并行 4")


def test_how_many_concurrent_asked_in_a_serving_follow_up_leads(assistant):
    """qwen3-32b: 64 layers × 8 KV heads × head_dim 128 × 2 (K and V) × 2 bytes = 256 KiB per token; the sequences
    of 65536 tokens are the KV tokens over 65536, rounded down (fresh round 9 c7-05 t3)."""
    import re
    *_, third = converse(assistant, "qwen3-32b 用 vllm 部署到 910B 上，几张卡", "上下文要 64k 呢", "那 4 张卡 TP=4 的话 64k 能并发几个")
    first = third.answer.split("\n\n")[1]
    m = re.match(r"\*\*结论\*\*：约 \*\*(\d+) 条 65536 token 的并发序列\*\*，\*\*4 张卡\*\*（TP 4）.*可容纳 ([\d,]+) 个 token（每 token 256 KiB）", first)
    assert m and int(m.group(1)) == int(m.group(2).replace(",", "")) // 65536


def test_how_many_nodes_asked_of_the_conversations_devices_leads(assistant):
    """8 Snt9B cards at 8 per node (catalog: Snt9B node = 8 cards) = 1 node."""
    _, second = converse(assistant, "llama3.1-8b full 8192 on 8 910B, mbs 2 ga 4, will it OOM?", "and how many nodes is that?")
    assert second.answer.split("\n\n")[1].startswith("**Answer:** **8 cards = 1 node** (8 per node on Snt9B")


def test_a_stage_or_accumulation_asked_with_no_recipe_row_leads_with_the_setting(assistant):
    """seeds/004 qwen2.5-72b LoRA 4096 LLaMA-Factory: 32 cards; seeds/000 has no qwen2.5-72b row, so the ZeRO stage
    and GA asked come from the estimate, said first with that reason; the table's count follows as what is needed."""
    _, second = converse(assistant, "qwen2.5-72b lora 4096 LLaMA-Factory on Snt9B, how many cards?",
                         "what gradient accumulation does the table use?")
    lines = second.answer.split("\n\n")[1].splitlines()
    assert lines[0].startswith("**Answer:** **ZeRO stage** (estimate; the recipe table has no row for this case)")
    assert lines[1] == "**Needed:** LLaMA-Factory: **32 cards** (4 nodes) (ModelArts minimum-card table (2025-06-24), Snt9B)."
