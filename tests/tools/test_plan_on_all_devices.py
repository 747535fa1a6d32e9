"""plan_training with all_devices: the plan on the user's own count (not the fewest within it), its gradient
accumulation scaled to keep a global batch, the fewest devices beside it. Figures worked by hand from the recipe table
(seeds/000, ModelArts 模型NPU卡数、梯度累积值取值表; micro batch 1 in every row): GBS = MBS x DP x GA."""

from __future__ import annotations


def test_recipe_global_batch_kept_on_more_cards(call):
    # llama3.1 8B full 4096: 1 node x 8 cards, GA 8 -> global batch 1 x 8 x 8 = 64; on 16 cards GA = 64 / 16 = 4
    out = call("plan_training", model="llama3.1-8b", method="full", seq_len=4096, max_devices=16, all_devices=True)
    assert out["fits"] and out["devices"] == 16 and (out["nodes"], out["per_node"]) == (2, 8)
    assert out["kept_from"] == "recipe" and out["kept_global_batch"] == 64
    assert out["grad_accum"] == 4 and out["global_batch"] == 64
    assert out["fewest"]["devices"] == 8  # the fewest within the 16 (the recipe's count), said beside the plan


def test_nearest_accumulation_when_none_divides(call):
    # Qwen2 72B lora 4096: 2 nodes x 8 = 16 cards, GA 8 -> 128; on 24 cards 128 / 24 = 5.33: GA 5, global batch 120
    out = call("plan_training", model="qwen2-72b", method="lora", seq_len=4096, max_devices=24, all_devices=True)
    assert out["devices"] == 24 and (out["nodes"], out["per_node"]) == (3, 8)
    assert out["kept_global_batch"] == 128 and out["grad_accum"] == 5 and out["global_batch"] == 120


def test_megatron_split_divides_the_count(call):
    # MindSpeed-LLM on 24 cards: TP x PP must divide 24 with TP within a node: TP 8 x PP 1 leaves data parallel 3
    out = call("plan_training", model="qwen2-72b", method="lora", seq_len=4096, max_devices=24, all_devices=True,
               framework="MindSpeed-LLM")
    assert out["devices"] == 24 and 24 % (out["tp"] * out["pp"]) == 0 and out["tp"] <= 8


def test_count_off_whole_nodes_spreads_evenly(call):
    # 12 cards of 8-card nodes: 2 nodes x 6, not "2 nodes x 8"
    out = call("plan_training", model="llama3.1-8b", method="full", seq_len=4096, max_devices=12, all_devices=True)
    assert out["devices"] == 12 and (out["nodes"], out["per_node"]) == (2, 6)
    assert out["kept_global_batch"] == 64 and out["grad_accum"] == 5 and out["global_batch"] == 60  # 64 / 12 = 5.33


def test_users_global_batch_kept(call):
    out = call("plan_training", model="llama3.1-8b", method="full", seq_len=4096, max_devices=16, all_devices=True,
               global_batch=128)
    assert out["kept_from"] == "user" and out["grad_accum"] == 8 and out["global_batch"] == 128  # 128 / (1 x 16)


def test_without_all_devices_the_fewest_within(call):
    out = call("plan_training", model="llama3.1-8b", method="full", seq_len=4096, max_devices=16)
    assert out["devices"] == 8 and out["fewest"] is None and out["kept_global_batch"] is None


def test_recipe_rows_accumulation_kept_at_a_larger_micro_batch(call):
    # GLM4 9B lora 8192 (seeds/000): 1 node x 1 card, GA 8. The row fixes gradient_accumulation_steps, so per-device
    # batch 2 on its 1 card keeps GA 8: global batch 2 x 1 x 8 = 16 (not the micro-batch-1 batch 8 at GA 4)
    out = call("plan_training", model="glm4-9b", method="lora", seq_len=8192, max_devices=1, all_devices=True,
               micro_batch=2, zero_stage=2)
    assert out["kept_from"] == "recipe" and out["kept_global_batch"] == 16
    assert out["grad_accum"] == 8 and out["global_batch"] == 16
