"""Follow-up turns that must apply a change to the previous answer (fresh round 13 class 3; helper followups5): a
relative device change, a remedy the user already applied, a split asked on more devices after an OOM, the table's
count asked of kept devices, a global batch kept while its factors change, two models asked together. Values are pinned
to seeds/004 (minimum-card table, 2025-06-24), to the vendor OOM lists (knowledge/notes/oom.md) and to hand
computations: the vendor time formula Time = tokens / (TPS x N x eta), eta = 0.9; GBS = MBS x DP x GA with
DP = devices / (TP x PP); bf16 weights = 2 bytes x parameters."""

from __future__ import annotations

import pytest

from assistant.offline.next_remedy import split_after, split_on_more_devices

from .dialog import converse


def lead(answer) -> str:
    text = answer.answer
    for label in ("**Answer:**", "**结论**："):
        if label in text:
            return text.split(label, 1)[1].splitlines()[0].strip()
    return text.splitlines()[0]


# -- relative device changes ------------------------------------------------------------------------------------------
def test_cards_added_are_counted_once_not_read_as_the_new_total(assistant):
    """"再加 8 张卡" after 8 cards is 16: 1e9 / (2000 x 16 x 0.9) = 34,722 s."""
    _, more = converse(assistant, "llama3.1-8b lora 4096，8 张 910B，一共 1e9 tokens，单卡 2000 tokens/s，要训多久", "再加 8 张卡呢")
    assert "34,722" in lead(more) and "16 张卡" in lead(more)


def test_twice_as_many_cards_doubles_the_count(assistant):
    """32 cards doubled is 64: 8e8 / (600 x 64 x 0.9) = 23,148 s."""
    _, twice = converse(assistant, "qwen2.5-72b lora 4096 on 32 Snt9B cards, 800M tokens, ~600 tok/s per card. how long?",
                        "what if we get twice as many cards?")
    assert "23,148" in lead(twice) and "64 cards" in lead(twice)


# -- the table's count asked of the devices the conversation keeps ----------------------------------------------------
def test_the_table_minimum_asked_later_leads_with_the_count_not_a_verdict(assistant):
    """seeds/004: llama3.1-8b LoRA 4096, LLaMA-Factory 1 card."""
    *_, asked = converse(assistant, "llama3.1-8b lora 4096，8 张 910B，一共 1e9 tokens，单卡 2000 tokens/s，要训多久",
                         "再加 8 张卡呢", "表里 LlamaFactory 最少要几张卡")
    assert lead(asked).startswith("LLaMA-Factory：**1 张卡**") and "够" not in lead(asked)


def test_the_nearest_count_the_table_accepts_is_a_count_question(assistant):
    """seeds/004: qwen2.5-72b full 4096, LLaMA-Factory 64 cards (MindSpeed-LLM 32)."""
    *_, nearest = converse(assistant, "qwen2.5-72b full 4096 with mindspeed, we have 24 Snt9B cards. enough?",
                           "and with llamafactory instead?", "what's the nearest count the table would accept?")
    assert "**64 cards**" in lead(nearest) and "outside what I do" not in nearest.answer


# -- a remedy already applied is not suggested again ------------------------------------------------------------------
def test_persisting_mindspeed_oom_leads_with_the_next_split_not_recompute_again(assistant):
    """The user checked npu-smi, has MBS 1 and recompute on: the vendor's next step is TP/PP, on the same 8 cards
    TP 2 x PP 4 -> TP 4 x PP 2 (TP x PP still divides 8)."""
    _, again = converse(assistant, "MindSpeed 训 qwen2.5-14b 全参，SEQ_LEN 8192，8 张 910B，TP2 PP4，MBS 1，一跑就 NPU OOM，怎么办",
                        "npu-smi 看过了没有残留进程，重计算也已经开了，还是爆显存，下一步呢")
    first = lead(again)
    assert first.startswith("**下一步：") and "`TP 4` × `PP 2`" in first
    assert "完全重计算" in first.split("已经做过")[1]  # named as done, not as the next step
    assert "打开重计算" not in first


def test_persisting_llamafactory_oom_after_zero3_leads_with_the_vendor_next_step(assistant):
    """oom.md, LLaMA-Factory list: 1. expandable segments, 2. per-device batch, 3. ZeRO stage (done: ZeRO-3), 4. cards."""
    _, again = converse(assistant, "llamafactory lora on qwen2.5-32b, cutoff_len 8192, 8x 910B, ds_z2 config, it OOMs. suggestions?",
                        "i already switched to zero3 and it still runs out of memory")
    first = lead(again)
    assert first.startswith("**Next step: `export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True`")
    assert "Already in place, so not suggested again: ZeRO-3" in first


def test_recompute_already_on_in_english_moves_pipeline_stages_into_tp(assistant):
    """TP 1 x PP 4 on 4 cards spans them all: the next split on the same cards is TP 2 x PP 2."""
    _, again = converse(assistant, "mindspeed llama3.1-8b full, SEQ_LEN 8192, 4 Snt9B cards, TP1 PP4, MBS 1 -> NPU out of memory",
                        "recompute is already on (--recompute-granularity full), still OOM. next?")
    assert "`TP 2` × `PP 2`" in lead(again) and "full recomputation" in lead(again).split("Already in place")[1]


def test_more_devices_after_an_oom_go_to_model_parallelism(assistant):
    """TP 8 x PP 1 ran out of memory on 8 cards; on 16: TP 8 x PP 2, DP = 16 / 16 = 1; GA = 64 / (1 x 1) = 64."""
    _, split, ga = converse(assistant, "MindSpeed llama3.1-70b lora SEQ_LEN 4096 on 8 Snt9B, TP8 PP1, MBS 1 -> OOM at startup. what should I change?",
                            "we can get 16 cards now. which TP and PP would you use, and what's the DP?",
                            "with GBS 64 and MBS 1, what GA is that?")
    assert lead(split).startswith("**TP 8 × PP 2**, data parallel 1, on 16 cards")
    assert "out of memory" not in lead(split).split(":")[0]
    assert ga.answer.split("\n\n")[1].startswith("**Gradient accumulation 64**")


@pytest.mark.parametrize(("oom", "devices", "grown"), [
    ((8, 1, 8), 16, (8, 2)), ((2, 4, 8), 16, (4, 4)), ((1, 4, 4), 8, (2, 4)), ((2, 2, 4), 4, None), ((8, 1, 8), 12, None)])
def test_split_on_more_devices(oom, devices, grown):
    assert split_on_more_devices(oom, devices, 8) == grown


@pytest.mark.parametrize(("question", "split"), [
    ("mindspeed qwen2.5-14b full 8192, 8 Snt9B, TP 2 PP 4", (4, 2)),  # spans the 8: a stage moved into TP
    ("mindspeed qwen2.5-14b full 8192, 8 Snt9B, TP 2 PP 2", (4, 2)),  # below the 8: TP doubled first
    ("mindspeed llama3.1-70b lora 4096, 8 Snt9B, TP 8 PP 1", None),  # TP at 8 and no pipeline to fold: used up
])
def test_split_after_on_the_same_devices(parse, question, split):
    assert split_after(parse(question)) == split


# -- a product kept while its factors change --------------------------------------------------------------------------
def test_same_global_batch_on_half_the_cards_solves_the_accumulation(assistant):
    """GBS = 1 x 8 x 4 = 32; on 4 cards: GA = 32 / (1 x 4) = 8; micro batch 2: GA = 32 / (2 x 4) = 4."""
    _, half, mbs = converse(assistant, "LLaMA-Factory qwen2.5-7b 全参 cutoff 4096，8 张 910B，per_device 1，梯度累积 4，全局 batch 多少",
                            "卡减半呢，想保持同样的全局 batch，梯度累积要改成多少", "那要是 per_device 改成 2 呢")
    assert lead(half).startswith("**梯度累积设为 8** = 全局 batch 32")
    assert lead(mbs).startswith("**梯度累积设为 4** = 全局 batch 32")


def test_same_global_batch_in_english_with_a_split(assistant):
    """GBS = 1 x 16 / (4 x 2) x 8 = 16; on 8 cards DP = 1: GA = 16 / (1 x 1) = 16."""
    _, half = converse(assistant, "mindspeed qwen2.5-14b full 4096, 16 Snt9B, TP 4 PP 2, MBS 1, GA 8 — what's the global batch?",
                       "we lose half the cards but want the same global batch. GA?")
    assert lead(half).startswith("**Gradient accumulation 16** = global batch 16")


# -- two models asked together -------------------------------------------------------------------------------------
def test_two_models_named_over_two_turns_are_summed_on_one_card(assistant):
    """bf16 weights: glm4-9b 9.40e9 x 2 B = 17.5 GiB, qwen2.5-1.5b 1.54e9 x 2 B = 2.9 GiB; both on one 64 GB card."""
    *_, both = converse(assistant, "glm4-9b on vllm ascend, cards and max len per the table?", "and qwen2.5-1.5b?",
                        "can we serve both of them on a single 910B card?")
    first = lead(both)
    assert first.startswith("**Yes, by memory** (estimate)")
    assert "glm4-9b about" in first and "weights 17.5" in first and "weights 2.9" in first
    assert "--gpu-memory-utilization" in first and "tested max-model-len" not in both.answer


def test_two_models_together_in_chinese(assistant):
    *_, both = converse(assistant, "qwen2.5-7b 用 vllm 在 910B 上部署，表里几张卡、多长", "bge-large-en-v1.5 呢",
                        "这俩能一起放在同一张 64G 的卡上吗")
    first = lead(both)
    assert first.startswith("**按显存可以**（估算）") and "qwen2.5-7b 约" in first and "bge-large-en-v1.5 约" in first


# -- a different quantity of the same plan ----------------------------------------------------------------------------
def test_ga_asked_of_a_mindspeed_plan_leads_with_the_accumulation(assistant):
    """GBS = MBS x DP x GA with DP = devices / (TP x PP): the headline's figures multiply out to the global batch asked
    (256 in the last turn), on the 16 cards of seeds/004 (qwen3-30b-a3b full 4096, MindSpeed-LLM 16)."""
    import re

    *_, ga, gbs = converse(assistant, "qwen3-30b-a3b 全参 4k，MindSpeed 16 张卡，TP PP 怎么设", "那梯度累积相当于多少",
                          "same 16 cards but I want GBS 256")
    assert lead(ga).startswith("**梯度累积 ")
    m = re.search(r"\*\*Gradient accumulation (\d+)\*\* .*micro batch (\d+), data parallel (\d+) on 16 cards, global batch (\d+)", lead(gbs))
    assert m is not None
    acc, mbs, dp, total = map(int, m.groups())
    assert total == 256 and acc * mbs * dp == 256
