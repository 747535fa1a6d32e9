"""Training follow-ups answer the change they ask about first (fresh 2026-12-07 follow11): a length or framework changed with
"does it go up / 变不变 / 能省卡吗" compares the two counts (seeds/004 via the hand-typed tests/golden seed), a GA or micro
batch changed says what it does to the global batch (GBS = MBS x DP x GA, by hand), a config asked after a plan keeps that
plan's offload, a count proposed is judged, and host RAM asked in other words leads with host RAM."""

from __future__ import annotations

import json
import re

from tests.offline.dialog import lead_line as lead
from tests.seedfiles import min_cards_rows, recipe_rows

from .dialog import converse


def seed_cards(model, strategy, seq, framework, hardware="Snt9B"):
    return next(c for m, s, q, fw, hw, c in min_cards_rows() if (m, s, q, fw, hw) == (model, strategy, seq, framework, hardware))


def test_a_longer_cutoff_asked_whether_the_count_goes_up(assistant):
    before, after = seed_cards("qwen2.5-32b", "lora", 4096, "LLaMA-Factory"), seed_cards("qwen2.5-32b", "lora", 8192, "LLaMA-Factory")
    assert (before, after) == (8, 16)
    *_, ans = converse(assistant, "Lowest card count for a Qwen2.5-32B LoRA run (ctx 4k) using LLaMA-Factory, Snt9B pool?",
                       "ok and bumping cutoff to 8192, does that number go up?")
    head = lead(ans)
    assert head.startswith("**Answer:** **Yes, it goes up**"), head
    assert f"8192 **{after} cards (vendor table)**" in head and f"4096 **{before} cards (vendor table)**" in head


def test_a_shorter_length_asked_whether_it_saves_cards_in_chinese(assistant):
    before, after = seed_cards("qwen2.5-7b", "full", 8192, "MindSpeed-LLM"), seed_cards("qwen2.5-7b", "full", 4096, "MindSpeed-LLM")
    assert (before, after) == (8, 4)
    *_, ans = converse(assistant, "qwen2.5-7b 全参 mindspeed-llm 8k 最少几卡", "改成 4k 能省卡吗")
    head = lead(ans)
    assert "数量减少" in head and f"4096 **{after} 张卡（厂商表格）**" in head and f"8192 **{before} 张卡（厂商表格）**" in head, head


def test_the_same_count_at_both_lengths_says_unchanged(assistant):
    ms = seed_cards("qwen3-32b", "full", 4096, "MindSpeed-LLM")
    assert ms == seed_cards("qwen3-32b", "full", 8192, "MindSpeed-LLM") == 16
    *_, ans = converse(assistant, "qwen3-32b 全参 4096，mindspeed-llm 在 snt9b 上要几张", "序列拉到8192 最少卡数变不变")
    head = lead(ans)
    assert "不变" in head and f"8192 仍是 **{ms} 张卡（厂商表格）**" in head, head
    assert "\n**qwen3-32b** · 全参微调 · 序列长度 8192" in ans.answer  # the new length's own rows follow


def test_a_framework_change_asked_for_a_difference_compares_the_counts(assistant):
    lf, ms = (seed_cards("llama3.2-1b", "full", 4096, fw, "Snt9B23") for fw in ("LLaMA-Factory", "MindSpeed-LLM"))
    *_, ans = converse(assistant, "llama3.2-1b 做全量微调，A3 机型（Snt9B23）上 llamafactory 至少占几个 die",
                       "框架换成 MindSpeed-LLM，占用有区别没")
    head = lead(ans)
    assert f"MindSpeed-LLM **{ms} DIE（厂商表格）**" in head and f"LLaMA-Factory **{lf} DIE（厂商表格）**" in head, head
    assert "显存" in head  # the memory per DIE of each, beside the counts


def test_a_changed_accumulation_says_what_it_does(assistant):
    row = next(r for r in recipe_rows() if r[0] == "GLM4 9B" and r[2:4] == ("full", 8192))
    ga, cards = row[4], row[7] * row[8]
    *_, ans = converse(assistant, "glm4-9b 全参 8192 llamafactory 推荐 zero 和卡数", "梯度累积改成 16 会怎样")
    head = lead(ans)
    # GBS = 1 x 8 x 8 = 64 before, 1 x 8 x 16 = 128 after; the memory per card does not move
    assert head.startswith(f"**结论**：**梯度累积 {ga} → 16**：全局 batch 从 {1 * cards * ga} 变为 {1 * cards * 16}"), head
    assert "显存不变" in head


def test_a_changed_accumulation_asked_in_one_question(assistant):
    ans = assistant.ask("llama3.1-8b full 8k llamafactory snt9b: GA from 8 to 32, what changes?")
    assert lead(ans).startswith("**Answer:** **Gradient accumulation 8 → 32**: the global batch goes from 64 to 256"), lead(ans)


def test_the_config_for_that_choice_keeps_its_offload_and_a_count_proposed_is_judged(assistant):
    first, config, four = converse(assistant, "8 x L40S 48GB here. full finetune llama3.1-8b at 4k seq: zero 2 or 3?",
                                   "write out the ds_config for that choice", "what if I only get 4 of those GPUs?")
    needed = next(line for line in first.answer.splitlines() if line.startswith("**Needed:**"))
    assert "ZeRO-2 + offload" in needed  # the plan turn 1 gave
    files = re.findall(r"```json\n(.*?)```", config.answer, re.S)
    stage = json.loads(files[0])["zero_optimization"]
    assert stage["stage"] == 2 and stage["offload_optimizer"]["device"] == "cpu"
    # the stage and offload are the plan's (turn 1), not values the user set: the file says whose they are
    assert "- Set as you asked: devices, zero_stage; kept from the plan above: offload; the rest is the estimate's." in config.answer
    head = lead(four)
    assert head.startswith(("**Answer:** **Yes**", "**Answer:** **No**")) and "4 GPUs" in head, head
    assert "```" not in four.answer  # a verdict on the count, not another file


def test_host_ram_in_other_words_leads(assistant):
    *_, ans = converse(assistant, "Qwen2-VL-7B lora at 8192, recipe?", "and full at the same length?",
                       "and the CPU-side memory the optimizer offload eats, ballpark?")
    assert re.search(r"\*\*[\d,]+ GiB of host RAM per node\*\*", lead(ans)), lead(ans)
    *_, ans = converse(assistant, "Planning full SFT of qwen2.5-7b on 4x A100 80GB, 4k seq, deepspeed. Which ZeRO stage?",
                       "if i flip on offload_optimizer to cpu, what does that cost me in server RAM?")
    assert not ans.answer.startswith("Prices")  # a memory cost, not a price
    assert "GiB of host RAM per node" in lead(ans)


def test_a_count_proposed_after_so_is_judged(assistant):
    *_, ans = converse(assistant, "llama3 70b lora 8k — what does the llamafactory recipe table give?",
                       "so that's how many cards total - would 12 do?")
    head = lead(ans)
    assert head.startswith("**Answer:** **Not by the vendor tables**") and "16 cards" in head and "12 cards" in head, head


def test_a_config_for_the_recipe_row_says_its_stage_and_offload_are_the_plans(assistant):
    # seeds/000: qwen2-vl-7b full cutoff_len 8192 is ZeRO-2-Offload on 1 x 8; the user set nothing, the plan above did
    _, config = converse(assistant, "qwen2-vl-7b full 8192 recipe 里 zero 是啥", "把对应的 ds_config.json 发我")
    assert "- 沿用上面方案中的：offload，ZeRO 阶段；其余来自" in config.answer and "按你的要求设置" not in config.answer


def test_a_follow_up_that_changes_the_length_takes_that_lengths_row_not_the_last_plans_offload(assistant):
    # seeds/000: qwen2-vl-7b full is ZeRO-2-Offload at cutoff_len 8192 and ZeRO-2 without offload at 4096 (1 x 8, GA 8)
    first, shorter, config = converse(assistant, "Qwen2-VL-7B 全参 8192，LlamaFactory 推荐什么配置？", "4096 呢",
                                      "把 4096 这个方案的 llamafactory yaml 写出来")
    assert "ZeRO-2 + offload" in lead(first)
    for ans in (shorter, config):
        assert "ZeRO-2，micro batch 1，梯度累积 8" in lead(ans) and "offload" not in lead(ans), lead(ans)
        assert "ds_z2_config.json" in ans.answer and "offload_optimizer" not in ans.answer and "ds_z2_offload" not in ans.answer
    assert "沿用上面方案中的：ZeRO 阶段；" in config.answer  # the 4096 plan's stage (turn 2), without the 8192 plan's offload
