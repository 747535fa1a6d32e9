""""Which ZeRO stage / what gradient accumulation on my N cards": the setting leads, the yes/no backs it.
Recipe values are the hand-typed seeds (tests/seedfiles.py); the accumulation that keeps the row's global
batch on the user's count is computed here."""

from __future__ import annotations

from tests.offline.dialog import lead_line as lead
from tests.seedfiles import recipe_rows


def test_recipe_setting_leads_with_the_batch_kept_on_the_users_devices(assistant):
    _, _, _, _, ga, stage, offload, nodes, per_node = next(
        r for r in recipe_rows() if (r[0], r[2], r[3]) == ("llama3.1 8B", "full", 4096))
    ans = assistant.ask("llama3.1-8b full 4096, I have 16 cards, which zero stage and GA?")
    first = lead(ans)
    assert f"**ZeRO-{stage}**" in first and f"gradient accumulation **{ga}**" in first and not offload
    batch = ga * nodes * per_node
    assert f"global batch of {batch}" in first and f"gradient accumulation {batch // 16}" in first
    assert "**Yes.**" in ans.answer.split(first, 1)[1]  # the verdict follows the setting


def test_estimate_setting_leads_without_a_recipe_row(assistant):
    ans = assistant.ask("mistral-7b lora on 8x T4, which zero stage?")
    plan = next(c.result for c in ans.tool_calls if c.name == "plan_training" and c.args.get("max_devices") == 8)
    first = lead(ans)
    assert first.startswith(f"**Answer:** **ZeRO-{plan['zero_stage']}") and "on your 8 GPUs" in first
    # the plan is on all of the user's 8 (the count asked on, count14); fewer would hold it, said beside it, not instead
    assert plan["devices"] == 8 and "estimate: **8 GPUs**" in first
    assert plan["fewest"]["devices"] < 8 and f"Fewer would do: {plan['fewest']['devices']} GPU" in ans.answer


def test_the_time_asked_after_the_setting_follows_it(assistant):
    # "which zero stage and how long": the setting leads, the time comes after it
    ans = assistant.ask("qwen2.5-7b lora on 8 snt9b: zero stage? and how many hours for 2e8 tokens at 2500 tps per card")
    assert "ZeRO-" in lead(ans)
    # the vendor formula by hand: 2e8 / (2500 × 8 × 0.9) = 11,111 s
    assert "11,111 s" in ans.answer and ans.answer.index("ZeRO-") < ans.answer.index("11,111 s")


def test_a_ga_question_in_chinese_is_not_a_card_count_question(assistant):
    ans = assistant.ask("qwen2.5-7b lora 我有4张卡，梯度累积设多少？")
    assert "梯度累积" in lead(ans) and not lead(ans).startswith("**结论**：**够**")
