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


def _gemma3_27b_like():
    """Gemma-3-27B's text shape (config.json: 62 layers, 16 KV heads of 128, sliding_window 1024,
    sliding_window_pattern 6: every sixth layer global, so 10 global and 52 windowed)."""
    from assistant.estimate.shape import Shape

    return Shape(name="g3", params=27e9, layers=62, hidden=5376, heads=32, kv_heads=16, vocab=262208, ffn=21504,
                 head_dim=128, sliding_window=1024, sliding_layers=52)


def test_sliding_window_layers_cap_the_kv_cache(monkeypatch):
    from assistant.estimate import constants as C
    from assistant.estimate.inference import kv_bytes_per_token

    s = _gemma3_27b_like()
    per_layer = 2 * 16 * 128 * 2  # K and V, 16 heads of 128, bf16: 8192 B per token per layer
    # Beyond the window: 10 global layers per token + 52 windowed layers holding 1024 of the 131072 tokens
    total, formula = kv_bytes_per_token(s, seq_len=131072)
    assert total == per_layer * (10 + 52 * 1024 / 131072) == 85248
    assert "sliding-window layers 52" in formula
    # Within the window every layer holds every token
    assert kv_bytes_per_token(s, seq_len=1024)[0] == per_layer * 62
    assert kv_bytes_per_token(s)[0] == per_layer * 62  # no length given: the full per-token size
    # Per device: KV heads split over TP as for any GQA model
    assert kv_bytes_per_token_per_device(s, tp=4, pp=1, seq_len=131072) == 85248 / 4
    monkeypatch.setattr(C, "SLIDING_WINDOW_KV", False)  # older vLLM: full length on every layer
    assert kv_bytes_per_token(s, seq_len=131072)[0] == per_layer * 62


def test_sliding_window_lets_more_long_sequences_fit(devices):
    from dataclasses import replace

    s = _gemma3_27b_like()
    windowed = plan_inference(s, devices["h100-80g"], 131072, 0.9)
    full = plan_inference(replace(s, sliding_window=0, sliding_layers=0), devices["h100-80g"], 131072, 0.9)
    # One H100: 71.2 GiB budget (0.9 x 79.15) - 50.3 GiB bf16 weights leaves ~17.6 GiB. A 131072-token
    # sequence needs 131072 x 85248 B = 10.4 GiB windowed, but 131072 x 62 x 8192 B = 62 GiB at full length.
    assert (windowed.devices, windowed.fits) == (1, True)
    assert full.devices == 2
    one = plan_inference(replace(s, sliding_window=0, sliding_layers=0), devices["h100-80g"], 131072, 0.9, max_devices=1)
    assert not one.fits and one.weights_gib == windowed.weights_gib
    # Same budget on one device: the KV per token falls 62 / (10 + 52/128) ~ 6x, so ~6x the tokens fit
    assert 5.5 < windowed.kv_tokens / one.kv_tokens < 6.5


def test_sliding_window_in_a_custom_shape(call):
    out = call("estimate_inference", params_b=27, max_model_len=131072, hardware="h100",
               shape={"layers": 62, "hidden": 5376, "heads": 32, "kv_heads": 16, "head_dim": 128,
                      "sliding_window": 1024, "sliding_layers": 52})
    assert out["kv_bytes_per_token"] == 85248
    assert out["shape"]["sliding_window"] == 1024 and out["shape"]["sliding_layers"] == 52
    assert "layers" not in out["shape"]["inferred"]  # given by the caller, not assumed
    assert any("sliding window" in a for a in out["assumptions"])


def test_catalog_sliding_windows(shapes):
    from assistant.estimate.inference import kv_bytes_per_token

    # Gemma-3-27B as in the catalog: the same hand computation as the custom shape above
    assert kv_bytes_per_token(shapes["gemma3-27b"], seq_len=131072)[0] == 85248
    # Gemma-2-9B alternates: 21 global + 21 windowed (4096) layers, 8 KV heads of 256
    per_layer = 2 * 8 * 256 * 2
    assert kv_bytes_per_token(shapes["gemma2-9b"], seq_len=8192)[0] == per_layer * (21 + 21 * 4096 / 8192)
    # Mistral-7B-v0.1 windows every layer: a 32K sequence holds 4096 tokens of KV per layer
    assert kv_bytes_per_token(shapes["mistral-7b-v0.1"], seq_len=32768)[0] == 2 * 8 * 128 * 2 * 32 * 4096 / 32768
    # ... v0.3 has no window
    assert kv_bytes_per_token(shapes["mistral-7b-v0.3"], seq_len=32768)[0] == 2 * 8 * 128 * 2 * 32


def test_mistral_v02_is_the_windowless_row(call):
    assert call("resolve_model", name="Mistral-7B-Instruct-v0.2")["id"] == "mistral-7b-v0.3"
    assert call("resolve_model", name="mistral-7b-v0.1")["id"] == "mistral-7b-v0.1"
