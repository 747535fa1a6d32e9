"""The planner: fastest setting first, fewest devices, whole nodes, DIE on Snt9B23, offload only when
devices run out. Expected device counts are the vendor tables' own where the planner agrees with them."""

from __future__ import annotations

from assistant.estimate.memory import TrainConfig
from assistant.estimate.plan import device_counts, plan_training


def test_device_counts_round_to_powers_of_two_then_whole_nodes(devices):
    assert device_counts(devices["snt9b"], 64) == [1, 2, 4, 8, 16, 32, 64]
    assert device_counts(devices["snt9b23"], 64) == [2, 4, 8, 16, 32, 64]  # 2 DIE is the smallest unit
    assert device_counts(devices["snt9b"], 12) == [1, 2, 4, 8]


def test_lora_8b_fits_one_card_with_zero_0(shapes, devices):
    # min-card table: llama3.1-8b LoRA 4096 LLaMA-Factory = 1 card (Snt9B), 2 DIE (Snt9B23)
    p = plan_training(shapes["llama3.1-8b"], TrainConfig(method="lora", seq_len=4096), devices["snt9b"])
    assert (p.devices, p.cfg.zero_stage, p.cfg.offload, p.fits) == (1, 0, False, True)
    p23 = plan_training(shapes["llama3.1-8b"], TrainConfig(method="lora", seq_len=4096), devices["snt9b23"])
    assert p23.devices == 2 and p23.nodes == 1


def test_full_8b_uses_the_fastest_stage_that_fits_in_one_node(shapes, devices):
    # recipe table: llama3.1-8B full 8192 -> ZeRO-2 on 1 node x 8 cards; min-card table: 8 cards
    p = plan_training(shapes["llama3.1-8b"], TrainConfig(method="full", seq_len=8192), devices["snt9b"])
    assert (p.devices, p.nodes, p.per_node, p.cfg.zero_stage) == (8, 1, 8, 2)
    assert p.memory.weights.gib + p.memory.gradients.gib + p.memory.optimizer.gib < p.memory.usable_gib


def test_70b_full_spans_whole_nodes(shapes, devices):
    # min-card table: llama3.1-70b full 4096 LLaMA-Factory = 64 cards (8 nodes x 8)
    p = plan_training(shapes["llama3.1-70b"], TrainConfig(method="full", seq_len=4096), devices["snt9b"])
    assert (p.devices, p.nodes, p.per_node, p.cfg.zero_stage, p.cfg.offload) == (64, 8, 8, 3, False)


def test_max_devices_turns_on_offload_then_reports_no_fit(shapes, devices):
    s, dev = shapes["llama3.1-70b"], devices["snt9b"]
    p = plan_training(s, TrainConfig(method="full"), dev, max_devices=16)
    assert p.fits and p.devices <= 16 and p.cfg.offload and p.cfg.zero_stage == 3 and p.tier == "slow"
    assert p.memory.host_ram_gib.gib > 0
    p = plan_training(s, TrainConfig(method="full"), dev, max_devices=1)
    assert not p.fits and "max_devices=1" in p.reason


def test_mindspeed_70b_layouts_match_the_min_card_table(shapes, devices):
    # min-card table, MindSpeed-LLM Snt9B: llama3.1-70b full 4096 = 32, 8192 = 64
    s, dev = shapes["llama3.1-70b"], devices["snt9b"]
    p4 = plan_training(s, TrainConfig(method="full", seq_len=4096, framework="MindSpeed-LLM"), dev)
    p8 = plan_training(s, TrainConfig(method="full", seq_len=8192, framework="MindSpeed-LLM"), dev)
    assert p4.devices == 32 and p8.devices == 64
    assert p4.cfg.tp * p4.cfg.pp * p4.cfg.cp * p4.cfg.dp == 32 and 64 % p4.cfg.tp == 0
    assert not p4.cfg.recompute  # the fast tier (no recompute) fits


def test_mindspeed_recompute_only_when_devices_run_out(shapes, devices):
    s, dev = shapes["llama3.1-70b"], devices["snt9b"]
    p = plan_training(s, TrainConfig(method="full", seq_len=8192, framework="MindSpeed-LLM"), dev, max_devices=32)
    assert p.fits and p.devices == 32 and p.cfg.recompute


def test_global_batch_sets_grad_accum(shapes, devices):
    p = plan_training(shapes["llama3.1-8b"], TrainConfig(method="full", seq_len=4096), devices["snt9b"], global_batch=128)
    assert p.devices == 8 and p.grad_accum == 128 // (1 * 8) and p.global_batch == 128


def test_moe_and_mla_plans(shapes, devices):
    # min-card table, MindSpeed-LLM: DeepSeek-V3 full 4096 = 512 cards
    p = plan_training(shapes["deepseek-v3"], TrainConfig(method="full", framework="MindSpeed-LLM"), devices["snt9b"])
    assert p.devices == 512 and p.cfg.ep > 1


def test_ppo_never_uses_zero3(shapes, devices):
    p = plan_training(shapes["qwen2.5-72b"], TrainConfig(method="full", stage="ppo"), devices["snt9b"])
    assert p.cfg.zero_stage != 3


def test_bigger_card_never_needs_more_devices(shapes, devices):
    for model in ("llama3.1-8b", "qwen2.5-32b", "qwen2.5-72b"):
        for method in ("full", "lora"):
            cfg = TrainConfig(method=method, seq_len=4096)
            small = plan_training(shapes[model], cfg, devices["a100-40g"]).devices
            big = plan_training(shapes[model], cfg, devices["h200-141g"]).devices
            assert big <= small
