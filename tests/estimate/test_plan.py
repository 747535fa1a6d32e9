"""The planner: fastest setting first, fewest devices, whole nodes, DIE on Snt9B23, offload only when
devices run out. Expected device counts are the vendor tables' own where the planner agrees with them."""

from __future__ import annotations

import pytest

from assistant.estimate.memory import TrainConfig, training_memory
from assistant.estimate.plan import device_counts, fewer_devices, longest_seq_len, plan_training


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


def test_mindspeed_beyond_32k_always_uses_context_parallel(shapes, devices):
    # ModelArts MindSpeed-LLM: CP >= 2 when SEQ_LEN > 32768; at 32768 itself TP/PP suffice (glm4-9b 32K: TP2 PP2)
    dev = devices["snt9b"]
    for model in ("llama3.1-8b", "qwen2.5-7b", "qwen2.5-14b"):
        for method in ("lora", "full"):
            for seq in (32769, 65536, 131072):
                p = plan_training(shapes[model], TrainConfig(method=method, seq_len=seq, framework="MindSpeed-LLM"), dev)
                assert p.fits and p.cfg.cp >= 2, (model, method, seq)
                assert p.devices == p.cfg.tp * p.cfg.pp * p.cfg.cp * p.cfg.dp
            at = plan_training(shapes[model], TrainConfig(method=method, seq_len=32768, framework="MindSpeed-LLM"), dev)
            assert at.cfg.cp == 1


def test_mindspeed_128k_matches_the_vendor_script(shapes, devices):
    # MindSpeed-LLM pretrain_llama31_8b_128k_ptd: 32 cards, TP 8, PP 1, CP 4, 131072 tokens
    p = plan_training(shapes["llama3.1-8b"], TrainConfig(method="full", stage="pt", seq_len=131072,
                                                         framework="MindSpeed-LLM"), devices["snt9b"])
    assert (p.devices, p.cfg.tp, p.cfg.pp, p.cfg.cp) == (32, 8, 1, 4)


def test_mindspeed_beyond_32k_needs_two_devices(shapes, devices):
    p = plan_training(shapes["qwen2.5-0.5b"], TrainConfig(method="lora", seq_len=65536, framework="MindSpeed-LLM"),
                      devices["snt9b"], max_devices=1)
    assert not p.fits and "CP >= 2" in p.reason
    p2 = plan_training(shapes["qwen2.5-0.5b"], TrainConfig(method="lora", seq_len=65536, framework="MindSpeed-LLM"),
                       devices["snt9b"])
    assert p2.fits and p2.cfg.cp >= 2 and p2.devices >= 2


def test_longest_seq_len_is_the_last_that_fits(shapes, devices):
    s, dev = shapes["qwen2.5-7b"], devices["snt9b"]
    cfg = TrainConfig(method="lora", seq_len=32768, devices=8, zero_stage=3, offload=True)
    n = longest_seq_len(s, cfg, dev)
    assert 16384 <= n < 32768 and n % 1024 == 0
    assert training_memory(s, cfg._replace(seq_len=n), dev).plan_fits  # what the planner sizes on
    assert not training_memory(s, cfg._replace(seq_len=n + 1024), dev).plan_fits


def test_lora_practice_rule_is_ascend_only(shapes, devices):
    # The vendor-practice LoRA rule comes from the ModelArts tables; on a GPU the memory minimum stands.
    s = shapes["qwen2.5-72b"]
    npu = plan_training(s, TrainConfig(method="lora", seq_len=4096), devices["snt9b"])
    assert npu.practice and npu.devices > npu.memory_devices
    gpu = plan_training(s, TrainConfig(method="lora", seq_len=4096), devices["h100-80g"])
    assert gpu.practice is None and gpu.devices == gpu.memory_devices


def test_fewer_devices_with_the_slow_setting(shapes, devices):
    gib = 2**30
    # Qwen2.5-7B full fine-tuning: the recommendation is one node with ZeRO-2 (min-card table: 8 cards);
    # ZeRO-Offload keeps only the bf16 weights (2 B x 7.6B = 14.2 GiB) and the reduce/allgather buckets on the
    # device; each reduced gradient goes to host memory (DeepSpeed's estimator: "optimizer offload: GPU 2P"),
    # so one 64 GB card holds it, as the ZeRO-Offload paper trains a 10B model on one 32 GB GPU.
    s, dev = shapes["qwen2.5-7b"], devices["snt9b"]
    base = TrainConfig(method="full", seq_len=4096)
    p = plan_training(s, base, dev)
    f = fewer_devices(s, base, dev, p)
    assert p.devices == 8 and (f.devices, f.cfg.zero_stage, f.cfg.offload, f.tier) == (1, 2, True, "slow")
    assert f.memory.weights.gib == pytest.approx(2 * s.params / gib) and f.memory.optimizer.gib == 0
    assert f.memory.gradients.gib == pytest.approx(2 * 2 * 5e8 / gib)  # two 5e8-element bf16 buckets
    # fp32 master + Adam (12 B per parameter) live in host RAM, within a node's 1.5 TiB
    assert 12 * s.params / gib <= f.memory.host_ram_gib.gib <= 1536
    # Megatron: full recompute instead of more devices (sized on the point: on GPUs the default plan holds the upper
    # end of the range, at which even this plan needs recompute; the tier mechanics are the same)
    s32, h100 = shapes["qwen2.5-32b"], devices["h100-80g"]
    ms = TrainConfig(method="lora", seq_len=32768, framework="MindSpeed-LLM", tightest=True)
    p = plan_training(s32, ms, h100)
    f = fewer_devices(s32, ms, h100, p)
    assert not p.cfg.recompute and f.cfg.recompute and f.devices < p.devices
    # Nothing to offer when the recommendation is already one device
    lora = TrainConfig(method="lora", seq_len=4096)
    assert fewer_devices(s, lora, dev, plan_training(s, lora, dev)) is None


def test_fewer_devices_respects_host_ram(shapes, devices):
    # Llama-3.1-70B full: ZeRO-3 offload puts ~16 B x 70.6B = 1052 GiB of states in host RAM (x1.5 pinned):
    # one node's 1.5 TiB cannot hold it, two nodes can, so 16 cards and not 8.
    s, dev = shapes["llama3.1-70b"], devices["snt9b"]
    base = TrainConfig(method="full", seq_len=4096)
    f = fewer_devices(s, base, dev, plan_training(s, base, dev))
    assert (f.devices, f.cfg.zero_stage, f.cfg.offload) == (16, 3, True)
    assert f.memory.host_ram_gib.gib <= 1536
    assert not training_memory(s, base._replace(devices=8, zero_stage=3, offload=True), dev).host_ram_gib.gib <= 1536


def test_within_the_users_devices_a_slow_setting_uses_all_of_them(shapes, devices):
    # 70B full fine-tuning needs 64 cards at full speed (min-card table); capped at 16 the plan offloads, and
    # an offloaded job runs faster and needs less per device on all 16 than on the fewest that hold it
    s, dev = shapes["llama3.1-70b"], devices["snt9b"]
    mine = plan_training(s, TrainConfig(method="full"), dev, max_devices=16)
    fewest = plan_training(s, TrainConfig(method="full"), dev)
    assert mine.tier == "slow" and mine.cfg.offload and mine.devices == 16
    assert fewest.tier == "fast" and fewest.devices == 64  # without a cap: unchanged, the memory minimum at full speed
