"""A follow-up asking a new quantity of the plan the conversation sized gets it first, on the conversation's devices
(carry.toml [asked.solved], compose.plan_batch, capacity.solved_split, conversation.lead_count).

Hand computations: GBS = MBS × DP × GA (ModelArts MindSpeed-LLM pages; LLaMA-Factory's with
per_device_train_batch_size): the estimate's plan for qwen2.5-7b full 8192 on Snt9B is 8 cards, micro batch 1, GA 8,
so 1 × 8 × 8 = 64, and on 16 cards 1 × 16 × 8 = 128; llama3.1-70b full 4096 MindSpeed-LLM on 32 cards with TP 8
gives PP ∈ {1, 2, 4} (32 / 8 = 4), DP = 32 / (8 × PP). Vendor rows: seeds/004 qwen2.5-7b full 8192 LLaMA-Factory
8 cards; llama3.1-70b full 4096 MindSpeed-LLM 32 cards; llama3.1-8b full 4096 LLaMA-Factory 8 cards (the recipe table:
8 cards, GA 8)."""

from __future__ import annotations

import re

from tests.offline.dialog import lead_line as lead

from .dialog import converse


def test_global_batch_asked_after_a_card_count_is_the_plans(assistant):
    first, second = converse(assistant, "Qwen2.5-7B 全参 8k LLaMA-Factory Snt9B 几张卡", "global batch 该设多少？")
    assert "**8 张卡**" in lead(first.answer)  # seeds/004 qwen2.5-7b full 8192 LLaMA-Factory Snt9B: 8
    assert lead(second.answer).startswith("**结论**：**全局 batch 为 64** = micro batch 1 × 数据并行 8 × 梯度累积 8")


def test_global_batch_is_kept_on_a_new_device_count(assistant):
    # the plan on the user's new count keeps the global batch of the 8-card plan (1 x 8 x GA 8 = 64): GA 64 / 16 = 4
    *_, third = converse(assistant, "Qwen2.5-7B 全参 8k LLaMA-Factory Snt9B 几张卡", "global batch 该设多少？", "如果换成 16 卡呢")
    assert lead(third.answer).startswith("**结论**：**全局 batch 为 64** = micro batch 1 × 数据并行 16 × 梯度累积 4")


def test_doubling_the_cards_after_a_global_batch_answer_keeps_it_with_half_the_accumulation(assistant):
    *_, third = converse(assistant, "Llama3.1-8B full fine-tuning at 4k with LLaMA-Factory on Snt9B, how many cards?",
                         "what global batch does that give?", "and if I double the cards?")
    # recipe row 1 x 8 cards, GA 8: global batch 64, kept on 16 cards with GA 64 / 16 = 4
    assert lead(third.answer).startswith("**Answer:** **Global batch 64** = micro batch 1 × data parallel 16 × gradient accumulation 4")


def test_pp_asked_beside_a_stated_tp_is_solved_on_the_conversations_cards(assistant):
    _, second = converse(assistant, "Llama3.1-70B full fine-tuning with MindSpeed-LLM at 4k on Snt9B — how many nodes?",
                         "with TP 8, what PP should I use?")
    m = re.match(r"\*\*Answer:\*\* \*\*TP 8 × PP (\d)\*\* with data parallel (\d) on 32 cards", lead(second.answer))
    assert m and int(m.group(1)) in (2, 4) and int(m.group(2)) == 32 // (8 * int(m.group(1)))
    assert "Not used from your question" not in second.answer  # TP 8 is used, not named as a LLaMA-Factory setting
    assert "TP 8 × PP 1 " in second.answer  # the other values are said with their estimate


def test_pp_asked_in_chinese_beside_a_stated_tp(assistant):
    _, second = converse(assistant, "Qwen2.5-72B 全参微调 4k 用 MindSpeed-LLM 在 Snt9B 上要几张卡", "TP 设 8 的话 PP 该设多少")
    m = re.match(r"\*\*结论\*\*：\*\*TP 8 × PP (\d)\*\*，数据并行 (\d)，共 32 张卡", lead(second.answer))
    assert m and int(m.group(2)) == 32 // (8 * int(m.group(1)))
    assert "问题中未使用的数值" not in second.answer


def test_global_batch_after_a_solved_split_uses_that_split(assistant):
    *_, third = converse(assistant, "Qwen2.5-72B 全参微调 4k 用 MindSpeed-LLM 在 Snt9B 上要几张卡", "TP 设 8 的话 PP 该设多少",
                         "那全局 batch 是多少？")
    m = re.match(r"\*\*结论\*\*：\*\*全局 batch 为 (\d+)\*\* = micro batch 1 × 数据并行 (\d+)（= 卡数 / \(TP 8 × PP (\d)\)） × 梯度累积 (\d+)",
                 lead(third.answer))
    assert m and int(m.group(2)) == 32 // (8 * int(m.group(3))) and int(m.group(1)) == int(m.group(2)) * int(m.group(4))


def test_host_ram_per_node_asked_after_a_count_is_on_its_nodes(assistant):
    """seeds/004 qwen2.5-72b full 4096 LLaMA-Factory Snt9B: 64 cards = 8 nodes; the per-node figure is the job's offload
    host RAM shared by 8 nodes (fp32 master + Adam alone, 12 bytes × 72.7e9 parameters / 8 ≈ 102 GiB, is below it)."""
    first, second = converse(assistant, "Qwen2.5-72B full fine-tuning on Snt9B with LLaMA-Factory at 4k, how many cards?",
                             "if I use ZeRO-3 offload, how much host RAM per node?")
    assert "**64 cards** (8 nodes)" in lead(first.answer)
    m = re.match(r"\*\*Answer:\*\* about \*\*([\d,]+) GiB of host RAM per node\*\* for ZeRO-3 \+ offload on 8 nodes \(64 cards",
                 lead(second.answer))
    assert m and int(m.group(1).replace(",", "")) >= 12 * 72.7e9 / 8 / 2**30


def test_host_ram_of_a_mindspeed_plan_says_it_offloads_nothing(assistant):
    *_, third = converse(assistant, "Llama3.1-70B full fine-tuning with MindSpeed-LLM at 4k on Snt9B — how many nodes?",
                         "with TP 8, what PP should I use?", "how much host RAM per node does that need?")
    first = lead(third.answer)
    assert first.startswith("**Answer:** **MindSpeed-LLM uses no CPU offload**")
    assert re.search(r"its plan \(below: TP 8 × PP \d on 32 cards\)", first)  # the split the last answer gave, not PP 1
    assert "on 4 nodes (32 cards" in first  # seeds/004: 32 cards = 4 Snt9B nodes


def test_fewer_cards_than_the_table_after_a_time_answer_is_said_first(assistant):
    """seeds/004 qwen2.5-72b full 4096 Snt9B: LLaMA-Factory 64 cards, MindSpeed-LLM 32. Time = 1e9 / (1200 × 32 × 0.9)
    = 28,935 s (the vendor formula with η = 0.9)."""
    _, second, third = converse(assistant, "Qwen2.5-72B 全参 4k 用 LLaMA-Factory 在 Snt9B 上训练 10 亿 token，TPS 1200，64 张卡要多久",
                                "如果只有 32 张呢", "换成 MindSpeed-LLM 呢")
    assert lead(second.answer).startswith("**结论**：**32 张卡 低于厂商给这个任务的最小卡数**（LLaMA-Factory 64 张卡")
    assert "28,935 秒" in second.answer
    assert lead(third.answer).startswith("**结论**：**约 8.0 小时**（28,935 秒）")  # MindSpeed-LLM's row is 32: no floor said
