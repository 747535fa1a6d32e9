"""Layouts checked against the model, the devices and memory wherever one is read or offered (estimate/layout.py):
a user's GA enters the global batch over DP = devices / (TP x PP); a DP or global batch the devices do not give is said;
a layout offered instead of a refused one carries its memory estimate and the vendor minimum (seeds/004, 2025-06-24);
a vLLM tensor-parallel size asked about leads with whether it splits the heads. Expected numbers by hand."""

from __future__ import annotations

import pytest


def test_ga_said_enters_the_global_batch_over_data_parallel(assistant):
    # 24 cards / (TP 4 x PP 2) = DP 3; 1 x 3 x 32 = 96 (not 24 x 32 = 768); qwen2.5-32b full 4096 MindSpeed-LLM: 16 (004)
    a = assistant.ask("qwen2.5-32b full sft on 24 Snt9B cards with MindSpeed: TP 4, PP 2, MBS 1, GA 32. "
                      "What global batch does that give?").answer
    assert "**Global batch 96**" in a and "gradient accumulation 768" not in a
    assert "MindSpeed-LLM (16 cards)" in a


def test_stated_dp_and_global_batch_that_the_devices_do_not_give_are_said(assistant):
    # 16 cards / (TP 8 x PP 2) = DP 1, not 2; MBS 1 x DP 1 x GA 16 = 16, not 512; GA 512 gives 512
    a = assistant.ask("qwen2.5-32b full 4096 on 16 cards, TP 8 PP 2, MBS 1, GA 16, DP 2, so GBS 512 right?").answer
    assert a.startswith("**Your DP 2 is not what 16 cards give at TP 8 × PP 2**: data parallel = devices / (TP × PP) = 16 / 16 = **1**")
    assert "**Your global batch 512 is not MBS 1 × DP 1 × GA 16 = 16**" in a and "set GA 512" in a
    assert "MindSpeed-LLM for the TP / PP said" in a  # no framework named: TP / PP are Megatron's, said as assumed


def test_chinese_dp_contradiction(assistant):
    # 32 / (8 x 2) = 2; GBS = 1 x 2 x 16 = 32
    a = assistant.ask("32 张卡训 llama3.1-70b 全参，TP 8 PP 2，MBS 1，GA 16，DP 4，那 GBS 多少").answer
    assert a.startswith("**你写的 DP 4 与 32 张卡、TP 8 × PP 2 不符**")
    assert "**全局 batch 为 32**" in a and "LLaMA-Factory 配方表" not in a


def test_offered_layouts_carry_memory_and_the_vendor_minimum(assistant):
    # llama3.1-70b PT 4096 on 16 cards: TP 8 x PP 4 = 32 does not divide 16; the layouts that divide 16 do not fit
    # in memory, and the minimum-card table lists MindSpeed-LLM full 4096 at 32 cards (seeds/004)
    a = assistant.ask("llama3.1-70b pretrain 4096 on 2 nodes x 8 Snt9B with TP 8 PP 4, does it work?").answer
    assert a.startswith("No: TP 8 × PP 4 = 32 does not divide your 16 cards")
    assert "- TP 8 × PP 2 (DP 1):" in a and "→ does not fit" in a
    assert "None of them fits in memory on 16 cards" in a
    assert "lists at least 32 cards (4 nodes) for MindSpeed-LLM" in a and "below the vendor's tested minimum" in a


def test_training_heads_refusal_offers_only_layouts_that_fit(assistant):
    # glm4-9b (32 heads, 2 KV heads): Megatron needs whole KV groups, so TP 4 is refused; TP 2 and 1 are offered with
    # their memory on 8 cards (full 4096), and the table's MindSpeed-LLM minimum (8 cards, seeds/004)
    a = assistant.ask("MindSpeed full training glm4-9b 4096 on 8 Snt9B with TP 4 PP 1 — is that allowed?").answer
    assert a.startswith("No: TP 4 splits the 2 key/value heads of glm4-9b unevenly")
    assert "- TP 2 × PP 1 (DP 4):" in a and "- TP 1 × PP 1 (DP 8):" in a
    assert "lists 8 cards (1 node) for MindSpeed-LLM, full fine-tuning, SEQ_LEN 4096: your 8 cards cover it" in a


def test_serving_tp_refused_offers_sizes_by_memory(assistant):
    # qwen2.5-72b: 64 heads; TP 6 does not divide them; of TP 4 / 2 / 1, only TP 4 holds ~136 GiB of bf16 weights
    a = assistant.ask("Qwen2.5-72B 推理，用 6 张 910B，tp 设 6 可以吗").answer
    assert a.startswith("不能：TP 6 不能整除 qwen2.5-72b 的 64 个注意力头")
    assert "- TP 4：放得下" in a and "- TP 2：max-model-len 4,096 时放不下" in a


def test_serving_tp_yes_leads_with_the_heads_check(assistant):
    # qwen3-30b-a3b: 32 heads / 8 = 4 per rank; 4 KV heads < 8: vLLM keeps each on 2 ranks
    a = assistant.ask("qwen3-30b-a3b vllm on 8 910B, tensor-parallel-size 8 ok?").answer
    assert "**Answer:** **Yes.** TP 8 splits the 32 attention heads of qwen3-30b-a3b evenly (4 per rank)" in a
    assert "keeps a copy of each on 2 ranks" in a
    b = assistant.ask("glm4-9b 用 vLLM 部署，4 张 910B，tp=4 行不行").answer
    assert "**可以**。TP 4 能整除 glm4-9b 的 32 个注意力头（每个 rank 8 个）；KV 头只有 2 个" in b


def test_ga_lead_divides_by_the_split_it_leads_with(assistant):
    # 16 cards, the MindSpeed-LLM split TP 8 x PP 2 (DP 1): GA = 128 / (1 x 1) = 128, not 128 / 16 = 8
    a = assistant.ask("两台 910B 共 16 卡训 qwen2.5-32b 全参 4096，TP PP 怎么切？global batch 128 的话 GA 设多少").answer
    assert a.split("\n\n")[1].startswith("**梯度累积设为 128**")
    assert "**TP 8 × PP 2**，数据并行 1" in a


def test_mindspeed_plan_whose_split_does_not_divide_the_cards(assistant):
    # qwen2.5-32b full 4096: the plan fits 16 cards at TP 8 x PP 2, but 16 does not divide 24; of the layouts that divide
    # 24 (layout.py: 40 heads, 8 KV, 64 layers) TP 8 x PP 1 (DP 3) fits; the plan is made on all 24: GA = 384 / (1 x 3) = 128, GBS = 1 x 3 x 16 = 48
    a = assistant.ask("qwen2.5-32b 全参 mindspeed，3 台 24 卡，global batch 384，mbs 1，梯度累积设多少").answer
    assert a.split("\n\n")[1].startswith("**梯度累积设为 128** = 全局 batch 384 / (micro batch 1 × 数据并行 3（= 卡数 / TP 8）)")
    assert a.split("\n\n")[2].startswith("**结论**：你的 24 张卡用 **TP 8 × PP 1**")
    b = assistant.ask("qwen2.5-32b full fine-tune with mindspeed on 24 Snt9B, MBS 1 and GA 16, what's the global batch?").answer
    assert "**Global batch 48** = micro batch 1 × data parallel 3 (= devices / TP 8) × gradient accumulation 16" in b
    assert "data parallel 24" not in b and "gradient accumulation 384" not in b


def test_data_parallel_global_batch_contradiction_without_tp_pp(assistant):
    # LLaMA-Factory is data parallel on every device: 2 x 16 x 4 = 128, not 64; GA 2 gives 64
    a = assistant.ask("LLaMA-Factory llama3.1-8b lora on 16 cards, per_device 2, GA 4, that makes a global batch of 64 yes?").answer
    assert a.startswith("**Your global batch 64 is not MBS 2 × DP 16 × GA 4 = 128** (DP = all 16 devices, no TP / PP)")
    assert "set GA 2" in a


def test_vllm_tp_and_pp_said_are_sized_as_said(assistant):
    # qwen2.5-72b: 64 heads / 4 = 16 per rank, 8 KV heads / 4 = 2; TP 4 x PP 2 takes the 8 cards, PP is not dropped
    a = assistant.ask("qwen2.5-72b vllm tp 4 pp 2 on 8 cards ok?").answer
    assert "TP 4 splits the 64 attention heads of qwen2.5-72b evenly (16 per rank) and its 8 KV heads (2 per rank)" in a
    assert "(TP 4, PP 2)" in a and "Not used from your question" not in a
    # "张量并行开 4" is TP 4: qwen2.5-32b's 40 heads / 4 = 10, 8 KV heads / 4 = 2
    b = assistant.ask("部署 qwen2.5-32b，vllm 张量并行开 4，4 张 910B 够吗").answer
    assert "TP 4 能整除 qwen2.5-32b 的 40 个注意力头（每个 rank 10 个），也能整除 8 个 KV 头（每个 rank 2 个）" in b


@pytest.mark.parametrize("question,lead", [
    # qwen2.5-14b (catalog, HF config.json): 40 attention heads, 8 KV heads -> TP 8 divides both
    ("qwen2.5-14b TP 8 可以吗？头数能整除吗", "**可以**：TP 8 能整除 40 个注意力头（40 / 8 = 5）；TP 8 能整除 8 个 KV 头（8 / 8 = 1）。"),
    # 32 / (TP 4 x PP 2) = DP 4; GBS 32 / (MBS 1 x DP 4) = GA 8 (parallelism note: GBS = MBS x GA x DP)
    ("32 npus tp 4 pp 2, mbs 1, gbs 32 - is that a legal combo for mindspeed?",
     "**Yes**: TP × PP × CP = 8 divides your 32 devices (DP 4); GBS 32 is a multiple of MBS 1 × DP 4 (GA 8)."),
])
def test_a_layout_that_meets_the_rules_asked_about_is_said_yes_with_its_numbers(assistant, question, lead):
    assert lead in assistant.ask(question).answer.split("\n\n")[0]


def test_a_pipeline_split_asked_with_no_framework_is_checked_as_training(assistant):
    # llama3.1-8b: 32 layers (catalog, HF config.json); PP 4 -> 8 per stage (Megatron: layers divisible by PP)
    first = assistant.ask("PP 4 for llama3.1-8b, is 32 layers divisible by it?").answer.split("\n\n")[0]
    assert first.startswith("**Yes**: PP 4 divides the 32 layers (8 per stage).")
