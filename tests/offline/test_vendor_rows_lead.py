"""Vendor rows the answer must find and put first (fresh round 5, class 5). Figures are the hand-typed seeds
(tests/golden: 000 recipe table, 004 minimum-card table), read by tests/seedfiles.py."""

from __future__ import annotations

from tests.offline.dialog import lead_line as lead
from tests.seedfiles import min_cards_rows, recipe_rows


def recipe(model: str, strategy: str, cutoff: int):
    return next(r for r in recipe_rows() if r[0] == model and r[2] == strategy and r[3] == cutoff)


def test_the_recipe_row_is_read_in_a_follow_up_on_another_part(assistant):
    """'which zero stage and GA does the recipe say?' after the conversation moved to Snt9B23: 000's row, not an estimate."""
    _, _, _, _, ga, stage, offload, nodes, per_node = recipe("llama3.1 70B", "lora", 8192)
    history = []
    for q in ["I want to LoRA llama3.1-70b at 8192 on Snt9B23, how many DIE?", "what ZeRO and gradient accumulation does the recipe table give?"]:
        ans = assistant.ask(q, history or None)
        history += [{"role": "user", "content": q}, {"role": "assistant", "content": ans.answer}]
    first = lead(ans)
    assert f"ZeRO-{stage}" in first and offload and f"gradient accumulation {ga}" in first
    assert f"{nodes} nodes × {per_node}" in first and "(estimate" not in first
    assert "Snt9B (910B, 64 GB) cards" in ans.answer  # the recipe's cards are not the part asked


def test_a_dash_leads_and_a_recipe_row_for_the_same_job_is_named_as_a_conflict(assistant):
    (lf,) = [c for m, s, q, fw, hw, c in min_cards_rows() if (m, s, q, fw, hw) == ("qwen2-1.5b", "lora", 4096, "LLaMA-Factory", "Snt9B")]
    assert lf is None  # 004: '-'
    _, _, _, _, ga, stage, _, nodes, per_node = recipe("Qwen2 1.5B", "lora", 4096)
    first = lead(assistant.ask("qwen2-1.5b LoRA 用 LLaMA-Factory 最少几张卡？"))
    assert first.startswith("**结论**：qwen2-1.5b 在 LLaMA-Factory 上**不支持**")
    assert "两张厂商表格不一致" in first and f"DeepSpeed ZeRO-{stage}" in first and f"梯度累积 {ga}" in first
    assert f"= {nodes * per_node} 张卡" in first


def test_a_dash_at_the_shorter_bounding_row_leads_with_no_empty_brackets(assistant):
    history = []
    for q in ["qwen2-vl-72b full finetune at 1024, how many cards?", "and 2048?", "and with MindSpeed-LLM?"]:
        ans = assistant.ask(q, history or None)
        history += [{"role": "user", "content": q}, {"role": "assistant", "content": ans.answer}]
    first = lead(ans)
    assert "with MindSpeed-LLM is **not supported**" in first and "1024-token row" in first
    assert "()" not in ans.answer


def test_a_setting_sized_for_fewer_cards_than_the_headline_says_so(assistant):
    (lf,) = [c for m, s, q, fw, hw, c in min_cards_rows() if (m, s, q, fw, hw) == ("qwen2.5-72b", "lora", 4096, "LLaMA-Factory", "Snt9B")]
    ans = assistant.ask("qwen2.5-72b LoRA 4096 with LLaMA-Factory: how many nodes, which ZeRO stage, what GA?")
    assert f"**{lf} cards**" in lead(ans)
    zero = next(line for line in ans.answer.splitlines() if line.startswith("- **ZeRO stage**"))
    plan = next(c.result for c in ans.tool_calls if c.name == "plan_training")
    if plan["devices"] != lf:
        assert f"on the table's {lf} cards" in zero
