"""Serving estimates: KV cache per device, tensor-parallel choice, and the vLLM tables' card counts."""

from __future__ import annotations

from assistant.estimate.inference import kv_bytes_per_token_per_device, plan_inference

GIB = 2**30


def test_kv_heads_split_over_tp_and_replicate_below_one_head(shapes):
    s = shapes["qwen2.5-72b"]  # 80 layers, 8 KV heads of 128
    assert kv_bytes_per_token_per_device(s, tp=4, pp=1) == 2 * 80 * 8 * 128 * 2 / 4
    # TP 16 > 8 KV heads: each device keeps one head (vLLM replicates KV heads)
    assert kv_bytes_per_token_per_device(s, tp=16, pp=1) == 2 * 80 * 1 * 128 * 2
    # MLA: the latent is replicated on every TP rank
    d = shapes["deepseek-v3"]
    assert kv_bytes_per_token_per_device(d, tp=8, pp=1) == 61 * (512 + 64) * 2


def test_qwen25_72b_needs_4_cards_at_32k(shapes, devices):
    # newest vLLM table: Qwen2.5-72B on 64 GB cards, 4 cards at 32K (gpu-memory-utilization 0.95)
    p = plan_inference(shapes["qwen2.5-72b"], devices["snt9b"], 32768, 0.95)
    assert (p.devices, p.tp, p.fits) == (4, 4, True)
    # bf16 weights: 2 B x 72.7B / 4
    assert abs(p.weights_gib - 2 * 72.7e9 / 4 / GIB) < 1e-3
    assert p.kv_tokens >= 32768
    # two cards cannot even hold the weights' halves plus a 32K cache
    assert plan_inference(shapes["qwen2.5-72b"], devices["snt9b"], 32768, 0.95, max_devices=2).fits is False


def test_heads_constrain_tp(shapes, devices):
    s = shapes["qwen2.5-7b"]  # 28 heads: TP 1, 2 or 4 only
    p = plan_inference(s, devices["rtx4090-24g"], 131072, 0.9, concurrency=4)
    assert s.heads % p.tp == 0
