""""Do my devices suffice / 够不够": one verdict on the user's own devices, stating how many of them the plan uses and
why, never contradicted by what follows (helper verdicts7, 2026-12-06).

- "Tight" only when no plan within the user's devices fits at the upper end of the estimate's range: when the plan
  tool's upper_end_fits (searched within max_devices) holds on no more devices than the user has, the lead is a yes
  on that plan, with the fewer-device plan named as tight (the why).
- When the two vendor tables split on one framework at the user's count (the LLaMA-Factory recipe table's row met,
  the minimum-card table's row, dated 2025-06-24, not), the lead names the split instead of a bare "enough".
- A time follow-up below the minimum says the minimum once.

Ground truth: ../shared/seeds/004 (minimum cards, 2025-06-24) and 000 (LLaMA-Factory recipe table)."""

from __future__ import annotations

from assistant.answer import ChatTurn
from tests.offline.dialog import lead_line as lead


def capped(ans) -> dict:
    return next(c.result for c in ans.tool_calls if c.name == "plan_training" and c.args.get("max_devices"))


def test_a_tight_fewest_count_is_no_verdict_when_more_of_the_users_gpus_fit_the_upper_end(assistant):
    # (at 12k tokens the planner now sizes 4 GPUs directly: PLAN_MARGIN 1.14; at 10k the fewest count is still tight)
    ans = assistant.ask("8 x A100 80G, qwen2.5-32b LoRA 10k, is it enough?")
    plan = capped(ans)
    safe = plan["upper_end_fits"]
    # the fewest-device plan is tight; the tool's plan whose range's upper end fits is within the user's 8
    assert plan["verdict"] == "tight" and safe["verdict"] == "fits" and plan["devices"] < safe["devices"] <= 8
    first = lead(ans)
    assert first.startswith("**Answer:** **Yes** (estimate)")
    assert f"{safe['devices']} GPUs of your 8 GPUs with LLaMA-Factory ZeRO-{safe['zero_stage']}" in first
    assert f"{plan['devices']} GPUs with ZeRO-{plan['zero_stage']} would be tight" in first  # why not fewer
    # both figures said without the cached blocks the verdict leaves out, so the upper end is within the usable memory
    high = float(first.split("upper end (")[1].split(" of ")[0])
    assert high == round(safe["high_gib"] - safe["cached_gib"], 1) and high <= plan["memory"]["usable_gib"]
    assert "**Tight**" not in ans.answer


def test_the_same_in_chinese_on_4090s(assistant):
    ans = assistant.ask("4 张 RTX 4090，LoRA 微调 qwen2.5-7b，序列 2048，够不够？")
    plan = capped(ans)
    safe = plan["upper_end_fits"]
    assert plan["verdict"] == "tight" and safe["devices"] <= 4
    first = lead(ans)
    assert first.startswith("**结论**：**够**（估算）") and f"你的 4 张 GPU 中用 {safe['devices']} 张 GPU" in first
    assert "偏紧" in first.split("；", 1)[1]  # the fewer-device plan, named as tight


def test_tight_stays_when_the_upper_end_needs_more_than_the_user_has(assistant):
    # 2 x A100 40GB, LoRA qwen2.5-14b at 6144: the tool's upper-end plan for this job without a cap needs 4 GPUs;
    # within 2 the plan that fits at the upper end is ZeRO-3 + offload on both (slower, said with its host RAM)
    ans = assistant.ask("2 张 A100 40G，lora qwen2.5-14b 6k，能跑吗？")
    plan = capped(ans)
    safe = plan["upper_end_fits"]
    first = lead(ans)
    assert safe["devices"] == 2 and safe["verdict"] == "fits" and safe["offload"]
    assert first.startswith("**结论**：**够**（估算）：你的 2 张 GPU 全部用上") and "ZeRO-3 + offload" in first
    assert "主机内存" in first


def test_one_gpu_a_slower_setting_on_it_that_clears_the_upper_end_is_the_yes(assistant):
    # 1 x RTX 4090, LoRA qwen2.5-7b at 2048: ZeRO-0 on the one card is tight; the plan tool's upper-end plan within
    # 1 GPU is ZeRO-3 + offload (weights and optimizer in host RAM), which fits: a yes, slower, with its host RAM
    ans = assistant.ask("one RTX 4090, LoRA qwen2.5-7b at 2048, enough?")
    plan = capped(ans)
    safe = plan["upper_end_fits"]
    assert plan["verdict"] == "tight" and plan["zero_stage"] == 0
    assert safe["devices"] == 1 and safe["verdict"] == "fits" and safe["offload"]
    first = lead(ans)
    assert first.startswith("**Answer:** **Yes** (estimate): it fits your 1 GPU with LLaMA-Factory ZeRO-3 + offload")
    assert "ZeRO-0 would be tight" in first and "host RAM per node" in first


def test_recipe_and_minimum_card_tables_split_the_lead_names_both_dated(assistant):
    # seeds: recipe table Qwen2 72B full 4096/8192 = 4 nodes x 8 = 32 cards (ZeRO-3-Offload); minimum-card table
    # qwen2-72b full 4096: LLaMA-Factory 64, MindSpeed-LLM 32 (2025-06-24)
    ans = assistant.ask("32 cards Snt9B, qwen2-72b full fine-tuning at 4096 with LLaMA-Factory, enough?")
    first = lead(ans)
    assert first.startswith("**Answer:** **The vendor tables disagree** for LLaMA-Factory on your 32 cards")
    assert "ModelArts LLaMA-Factory recipe table lists 32 cards, which you have" in first
    assert "ModelArts minimum-card table (2025-06-24) lists 64 cards, which you do not" in first
    assert "**Yes.**" not in ans.answer


def test_split_in_chinese_lora(assistant):
    # seeds: recipe Qwen2 72B lora 4096 = 2 nodes x 8 = 16 (ZeRO-3); minimum-card qwen2-72b lora 4096 LLaMA-Factory 32
    ans = assistant.ask("16 张 Snt9B，qwen2-72b lora 4096，LLaMA-Factory 够吗")
    first = lead(ans)
    assert first.startswith("**结论**：**两张厂商表结论不一致**（LLaMA-Factory，你的 16 张卡）")
    assert "配方表（NPU卡数、梯度累积值取值表）为 16 张卡，满足" in first
    assert "ModelArts 模型最小卡数表（2025-06-24）为 32 张卡，不满足" in first
    assert "**够**" not in ans.answer


def test_split_the_other_way_round(assistant):
    # seeds: minimum-card qwen2-7b full 4096, LLaMA-Factory Snt9B: 1 card (a vendor oddity, kept as is); recipe
    # Qwen2 7B full: 1 node x 8 = 8 cards
    ans = assistant.ask("2 张 910B 用 LLaMA-Factory 全参微调 qwen2-7b，4096，够吗？")
    first = lead(ans)
    assert "ModelArts 模型最小卡数表（2025-06-24）为 1 张卡，满足" in first
    assert "配方表（NPU卡数、梯度累积值取值表）为 8 张卡，不满足" in first


def test_no_framework_named_the_other_frameworks_row_is_said_beside_the_split(assistant):
    ans = assistant.ask("32 Snt9B cards, full fine-tune qwen2-72b at 4096, enough?")
    first = lead(ans)
    assert "**The vendor tables disagree** for LLaMA-Factory" in first
    assert "they do cover MindSpeed-LLM (32 cards)" in first  # seeds: MindSpeed-LLM qwen2-72b full 4096 = 32


def test_tables_agree_plain_yes_stays(assistant):
    # seeds: qwen2.5-7b full 8192: MindSpeed-LLM 8, LLaMA-Factory 8 (no qwen2.5 row in the recipe table)
    ans = assistant.ask("8 张 910B 全参 qwen2.5-7b 8k 够不够")
    assert lead(ans).startswith("**结论**：**够**。你的 8 张卡满足厂商最小卡数")


def test_time_and_verdict_below_the_minimum_say_the_minimum_once(assistant):
    # seeds: qwen2.5-14b full 8192 LLaMA-Factory 16 cards; 8 cards are below it
    ans = assistant.ask("8 Snt9B cards, full fine-tune qwen2.5-14b at 8192 with LLaMA-Factory: enough? "
                        "and how long for 20k samples at TPS 2000?")
    text = ans.answer
    assert lead(ans).startswith("**Answer:** **8 cards is below the vendor's minimum for this job** (LLaMA-Factory 16 cards")
    assert "Not by the vendor tables" not in text
    assert text.count("below the vendor's minimum") == 1
    # 20,000 x 8192 tokens / (2000 x 8 x 0.9) = 11,378 s
    assert round(20_000 * 8192 / (2000 * 8 * 0.9)) == 11378 and "11,378 s" in text


def test_time_follow_up_below_the_minimum_once(assistant):
    history = [ChatTurn(role="user", content="qwen2.5-14b 全参 8k，LLaMA-Factory，910B 要几张卡？"),
               ChatTurn(role="assistant", content="**16 张卡**（ModelArts 模型最小卡数表（2025-06-24））。")]
    ans = assistant.ask("如果只有 8 张卡，要多久？TPS 1500，2 万条数据", history)
    text = ans.answer
    assert text.count("低于厂商给这个任务的最小卡数") == 1 and "按厂商表格不够" not in text


def test_time_without_tps_below_the_minimum_says_it(assistant):
    # no TPS: no time, the formula with the user's 16 cards; those are below LLaMA-Factory's 32 (qwen2.5-72b lora 4096)
    history = [ChatTurn(role="user", content="16 张 910B，LLaMA-Factory，lora qwen2.5-72b 4096 够吗"),
               ChatTurn(role="assistant", content="**按厂商表格不够**：表格至少需要 32 张卡（LLaMA-Factory），你只有 16 张卡。")]
    ans = assistant.ask("那要训练多久？10000 条样本，3 个 epoch", history)
    assert ans.answer.count("16 张卡 低于厂商给这个任务的最小卡数（LLaMA-Factory 32 张卡") == 1


def test_no_by_estimate_names_a_tight_count(assistant):
    ans = assistant.ask("8 x H100 80GB, full fine-tune llama3.1-70b at 4096, enough?")
    free = next(c.result for c in ans.tool_calls if c.name == "plan_training" and not c.args.get("max_devices"))
    first = lead(ans)
    assert first.startswith("**Answer:** **No** (estimate)")
    # 70.6e9 parameters x 16 B of model states / 32 GPUs = 32.9 GiB per GPU before activations: 32 is the fewest
    # ZeRO-3 count, tight; its range's upper end fits on 64
    assert free["devices"] == 32 and free["verdict"] == "tight" and free["upper_end_fits"]["devices"] == 64
    assert "it needs 32 GPUs with LLaMA-Factory ZeRO-3" in first and "(tight: 64 GPUs with ZeRO-3" in first


def test_qlora_reads_the_lora_rows_as_upper_bounds_not_as_a_split(assistant):
    # QLoRA has no rows; the LoRA rows (recipe 16, minimum-card 32 for qwen2-72b lora 4096) bound it from above, so
    # the recipe's 16 met is a yes and the two tables' split is not the verdict
    ans = assistant.ask("qlora qwen2-72b 4096 on 16 910B cards, LLaMA-Factory, enough?")
    first = lead(ans)
    assert first.startswith("**Answer:** **Yes.**") and "disagree" not in first


def test_the_tables_disagreement_note_counts_one_card_in_the_singular(assistant):
    # seeds/000: Qwen2 7B lora = 1 node x 1 card; seeds/004: qwen2-7b lora 4096, LLaMA-Factory Snt9B: 8 cards
    note = next(line for line in assistant.ask("qwen2 7b lora how many npus").answer.splitlines() if "tables disagree" in line)
    assert "the recipe table uses 1 card, the minimum-card table lists 8" in note
