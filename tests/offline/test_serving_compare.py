"""A serving question that compares the vLLM tables' memory columns ("how many 32G npus …, vs the 64G ones?") is answered
by the serving rows; compare_hardware's training plans are not added under it (fresh round 17 c1-08: a training
hardware comparison followed a vLLM table answer)."""

from __future__ import annotations


def test_a_serving_comparison_of_memory_columns_has_no_training_comparison(assistant):
    ans = assistant.ask("deepseek-r1-distill-llama-70b vllm 0.7.2: how many 32G npus, vs the 64G ones?")
    names = [c.name for c in ans.tool_calls]
    assert "compare_hardware" not in names and "inference_min_cards" in names
    # the vLLM v0.7.2 table (modelarts_llm_infer_5902037, research/modelarts.md): DS-R1-Distill-Llama-70B 8/32K on
    # 32 GB cards, 4/64K on 64 GB cards
    first = next(line for line in ans.answer.splitlines() if line.startswith("**Answer:**"))
    assert "32 GB cards: 8 cards, max-model-len 32,768" in first and "64 GB cards: 4 cards, max-model-len 65,536" in first
    assert "Hardware comparison" not in ans.answer


def test_a_training_comparison_still_compares_parts(assistant):
    ans = assistant.ask("compare H100 vs A100 80G for qwen2.5-7b full 4k")
    assert {c.args.get("hardware") for c in ans.tool_calls if c.name == "plan_training"} >= {"h100-80g", "a100-80g"}
