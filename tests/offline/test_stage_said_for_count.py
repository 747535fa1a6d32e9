"""A ZeRO stage said with a count question ("how many GPUs with ZeRO-3", "全参 zero2 要几张") sizes the plan at that
stage: the stage is used, not listed as "not used"."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("question, stage", [
    ("how many A100 80G to full finetune llama3.1-8b with zero3?", 3),
    ("llama3-70b full with zero3 offload, how many H100?", 3),
    ("qwen2.5-14b 全参 zero2 要几张 910B", 2),
])
def test_the_stage_said_is_the_plans(assistant, question, stage):
    answer = assistant.ask(question)
    plans = [c.result for c in answer.tool_calls if c.name == "plan_training" and c.result and "zero_stage" in c.result]
    assert plans and all(p["zero_stage"] == stage for p in plans)
    assert "Not used" not in answer.answer and "未使用" not in answer.answer
    assert f"ZeRO-{stage}" in answer.answer
