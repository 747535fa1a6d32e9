"""The count beside a tight plan on which the range's upper end fits is a memory figure: the fewest devices, not the
LoRA practice count (half of full fine-tuning's) that the recommendation itself may be raised to."""

from __future__ import annotations


def test_the_upper_end_count_is_the_fewest_devices_whose_upper_end_fits(call):
    # qwen2.5-7b LoRA at 32768 tokens with MindSpeed-LLM on Snt9B (61.0 GiB usable): the plan is 4 cards of TP 4, about
    # 60.9 GiB, whose range crosses the card (tight). TP 4 x PP 2 halves the layers per card, and on 8 cards (DP 1)
    # its upper end is within the card; more data parallel (32 cards, DP 4) does not lower the per-card memory.
    args = dict(model="qwen2.5-7b", method="lora", seq_len=32768, hardware="snt9b", framework="MindSpeed-LLM")
    plan = call("plan_training", **args)
    assert plan["devices"] == 4 and plan["verdict"] == "tight"
    safe = plan["upper_end_fits"]
    assert safe["devices"] == 8 and (safe["tp"], safe["pp"]) == (4, 2) and safe["verdict"] == "fits"
    assert safe["high_gib"] - safe["cached_gib"] <= plan["memory"]["usable_gib"]
    on_32 = call("estimate_training_memory", devices=32, tp=4, pp=2, recompute=False, **args)
    on_8 = call("estimate_training_memory", devices=8, tp=4, pp=2, recompute=False, **args)
    assert on_32["total_gib"] == on_8["total_gib"]  # DP adds no memory relief for LoRA's few trained parameters
