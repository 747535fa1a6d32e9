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


# ---------------------------------------------------------------- native checkpoint precision
# Public values (model cards / config.json): DeepSeek-V3 671B, vocab 129280 x hidden 7168, untied
# embeddings, published in block-scaled FP8 with embed_tokens and lm_head in bf16. gpt-oss-120b
# 116.8B, 36 layers x 128 experts x 3 x hidden 2880 x expert width 2880 in MXFP4 (4-bit values + an
# 8-bit scale per 32 = 4.25 bits), everything else bf16.
DS_PARAMS = 671e9
DS_EMBED = 129280 * 7168  # embeddings; the untied LM head is the same size
DS_FP8_BYTES = 2 * (2 * DS_EMBED) + (DS_PARAMS - 2 * DS_EMBED)  # 672_853_358_080 B
OSS_PARAMS = 116.8e9
OSS_EXPERTS = 36 * 128 * 3 * 2880 * 2880  # 114_661_785_600 parameters
OSS_BYTES = OSS_EXPERTS * 4.25 / 8 + 2 * (OSS_PARAMS - OSS_EXPERTS)  # 65_190_502_400 B


def test_catalog_native_precisions(shapes, devices):
    from assistant.estimate.inference import NATIVE_FORMATS

    assert shapes["deepseek-v3"].native_weights == "fp8"
    assert shapes["gpt-oss-20b"].native_weights == shapes["gpt-oss-120b"].native_weights == "mxfp4-experts"
    # DeepSeek-V2 / V2-Lite were published in bf16
    assert shapes["deepseek-v2"].native_weights == shapes["deepseek-v2-lite"].native_weights == ""
    assert {s.native_weights for s in shapes.values()} <= {"", *NATIVE_FORMATS}
    # FP8 tensor cores: Hopper, Ada (L40S, L4, RTX 40xx), Blackwell (B200); AMD CDNA 3 (MI300X) computes FP8 too
    assert {d for d, dev in devices.items() if dev.fp8} == {"h100-80g", "h100-pcie-80g", "h800-80g", "h800-pcie-80g", "h200-141g", "h20-96g", "l40s-48g",
                                                            "rtx4090-24g", "l4-24g", "rtx4060ti-16g", "rtx4080-16g",
                                                            "b200-180g", "mi300x-192g"}


def test_deepseek_v3_fp8_on_h200_vs_bf16_on_snt9b(shapes, devices):
    from assistant.estimate.inference import serving_weights

    s = shapes["deepseek-v3"]
    assert serving_weights(s, devices["h200-141g"]).bytes == DS_FP8_BYTES
    h200 = plan_inference(s, devices["h200-141g"], 4096, 0.9)
    # At TP 4 the FP8 weights alone (672.9 GB / 4 = 156.7 GiB) exceed a 141 GB card: one node of 8.
    assert DS_FP8_BYTES / 4 / GIB > 141
    assert (h200.devices, h200.tp, h200.pp, h200.fits) == (8, 8, 1, True)
    assert abs(h200.weights_gib - DS_FP8_BYTES / 8 / GIB) < 1e-3  # 78.33 GiB
    assert "FP8" in h200.weight_precision and "W8A8" in h200.weight_precision
    # Snt9B: no FP8, the checkpoint is converted to bf16 -> 2 B per parameter
    npu = plan_inference(s, devices["snt9b"], 4096, 0.9)
    assert abs(npu.weights_gib - 2 * DS_PARAMS / npu.devices / GIB) < 1e-3
    assert "converted to BF16" in npu.weight_precision
    # A100: no FP8 compute, but vLLM keeps the FP8 weights (weight-only Marlin): same bytes as on H200
    a100 = plan_inference(s, devices["a100-80g"], 4096, 0.9)
    assert abs(a100.weights_gib - DS_FP8_BYTES / a100.devices / GIB) < 1e-3 and "W8A16" in a100.weight_precision
    # bf16 on H200 would need 16: 1342 GB / 8 = 156.2 GiB per card does not fit a 141 GB card
    assert plan_inference(s, devices["h200-141g"], 4096, 0.9, weight_bits=16).devices == 16


def test_gpt_oss_120b_mxfp4_experts_on_h100_vs_snt9b(shapes, devices):
    from assistant.estimate import constants as C

    s = shapes["gpt-oss-120b"]
    assert s.expert_params == OSS_EXPERTS
    h100 = plan_inference(s, devices["h100-80g"], 4096, 0.9)
    # 60.7 GiB of weights on one 80 GB card (vLLM's gpt-oss recipe: 120b fits a single 80 GB GPU)
    assert (h100.devices, h100.fits) == (1, True)
    assert abs(h100.weights_gib - OSS_BYTES / GIB) < 1e-3
    assert "MXFP4" in h100.weight_precision
    # Ampere keeps MXFP4 too (Marlin MXFP4 MoE): one A100 80GB
    assert plan_inference(s, devices["a100-80g"], 4096, 0.9).devices == 1
    # Snt9B: bf16, 233.6 GB. At TP 4 (58.4 GB = 54.39 GiB per card) the 0.9 x 60.97 GiB budget leaves
    # less than the 2 GiB NPU runtime overhead, so TP 8.
    npu = plan_inference(s, devices["snt9b"], 4096, 0.9)
    room_at_tp4 = 0.9 * 60.97 - 2 * OSS_PARAMS / 4 / GIB  # 0.48 GiB
    assert room_at_tp4 < C.INFERENCE_OVERHEAD_GIB["npu"]
    assert (npu.devices, npu.tp) == (8, 8)
    assert abs(npu.weights_gib - 2 * OSS_PARAMS / 8 / GIB) < 1e-3


def test_explicit_weight_bits_override_the_native_precision(shapes, devices):
    s = shapes["deepseek-v3"]
    p = plan_inference(s, devices["h200-141g"], 4096, 0.9, weight_bits=4)
    # int4 (AWQ/GPTQ) for every weight: 671e9 x 0.5 B = 335.5 GB, 78.1 GiB per card at TP 4
    assert p.devices == 4 and abs(p.weights_gib - DS_PARAMS * 0.5 / 4 / GIB) < 1e-3
    assert "4-bit" in p.weight_precision
    # W8A8 int8 on Ascend: 1 B per parameter
    w8 = plan_inference(s, devices["snt9b"], 4096, 0.9, weight_bits=8)
    assert abs(w8.weights_gib - DS_PARAMS / w8.devices / GIB) < 1e-3


def test_training_ignores_the_native_precision(shapes, devices):
    from dataclasses import replace

    from assistant.estimate.memory import TrainConfig, training_memory
    from assistant.estimate.plan import plan_training

    # Training runs in bf16: 2 B per parameter for gpt-oss-20b's 20.9B, replicated (ZeRO-0, one device)
    s = shapes["gpt-oss-20b"]
    b = training_memory(s, TrainConfig(method="full", zero_stage=0, devices=1), devices["h100-80g"])
    assert abs(b.weights.gib - 2 * 20.9e9 / GIB) < 1e-6
    d = shapes["deepseek-v3"]
    cfg = TrainConfig(method="lora", framework="MindSpeed-LLM")
    native = plan_training(d, cfg, devices["h200-141g"])
    plain = plan_training(replace(d, native_weights=""), cfg, devices["h200-141g"])
    assert (native.devices, native.memory.total_gib) == (plain.devices, plain.memory.total_gib)


def test_largest_layout_within_the_users_devices(shapes, devices):
    s, dev = shapes["qwen2.5-72b"], devices["snt9b"]
    fewest = plan_inference(s, dev, 32768, 0.9, max_devices=8)
    mine = plan_inference(s, dev, 32768, 0.9, max_devices=8, largest=True)
    assert fewest.devices == 4  # the newest vLLM table: 4 cards at 32K
    assert (mine.devices, mine.tp, mine.pp, mine.fits) == (8, 8, 1, True)
    # By hand at TP 8: KV 2 x 80 layers x (8 heads / 8) x 128 x 2 B = 40,960 B per token, 1.25 GiB per 32K
    # sequence; budget 0.9 x 60.97 GiB = 54.9, minus bf16 weights 2 x 72.7e9 / 8 = 16.9 GiB and ~3 GiB of
    # runtime and profiling reserve: ~35 GiB, about 27 sequences.
    assert mine.kv_per_token_device == 40960
    assert 25 <= mine.max_sequences <= 30 and mine.max_sequences > fewest.max_sequences


def test_profiling_run_reserves_one_mlp_over_the_batched_tokens_and_the_sampler(shapes, devices):
    # vllm-kv-03 (vLLM issue 12330, V0 log): Llama-3-8B on an A100 40GB, max_model_len 8192 (so 8192 batched tokens
    # profiled), max_num_seqs set high for a load test: "PyTorch activation peak 9.37 GiB", KV 91056 tokens.
    s, dev = shapes["llama3-8b"], devices["a100-40g"]  # hidden 4096, ffn 14336, vocab 128256, 8 KV heads of 128
    forward = 8192 * (6 * 14336 + 4 * 4096)  # gate/up (2 ffn) + SiLU product (ffn) + hidden and residual, bf16
    per_seq = 128256 * (2 + 4 + 4 + 4)  # bf16 logits, fp32 copy, probabilities, exponential draws
    default = plan_inference(s, dev, 8192, 0.9, largest=True, max_devices=1)
    assert default.activation_gib == round((forward + 256 * per_seq) / GIB, 3)  # 256 sequences by default
    # about 5120 sampled sequences reproduce the logged peak: the sampler, not the forward pass, dominates it
    busy = plan_inference(s, dev, 8192, 0.9, largest=True, max_devices=1, profile=(8192, 5120))
    assert busy.activation_gib == round((forward + 5120 * per_seq) / GIB, 3)
    assert abs(busy.activation_gib - 9.37) / 9.37 < 0.01
    # KV: 0.9 x 39.57 GiB - 14.96 GiB of weights - 9.34 - 1 GiB (context, CUDA graphs) at 128 KiB per token
    assert abs(busy.kv_tokens / 91056 - 1) < 0.1
    assert busy.kv_tokens < default.kv_tokens


def test_many_sequences_take_copies_of_the_instance_with_the_fewest_devices(shapes, devices):
    """qwen2.5-7b (28 layers, 4 KV heads of 128: 2 x 28 x 4 x 128 x 2 B = 56 KiB per token) at 8192 x 10,000 needs
    81,920,000 tokens of KV cache = 4,375 GiB: far beyond one 8-card node's 8 x 64 GB. Copies of one instance each
    hold their own cache, so their capacities add; sized on the range's low end."""
    need = 8192 * 10_000
    s, dev = shapes["qwen2.5-7b"], devices["snt9b"]
    assert need * 2 * 28 * 4 * 128 * 2 / GIB > 8 * 64
    p = plan_inference(s, dev, 8192, 0.9, concurrency=10_000, replica_devices=4096)
    assert p.fits and p.replicas > 1 and p.devices == p.replicas * p.tp * p.pp
    one = plan_inference(s, dev, 8192, 0.9, max_devices=p.tp * p.pp, largest=True)  # one copy, as the instance
    assert (one.tp, one.pp) == (p.tp, p.pp)
    assert p.replicas * one.kv_tokens_low >= need > (p.replicas - 1) * one.kv_tokens_low
    # no other single-node layout's copies take fewer devices
    for tp in (1, 2, 4):
        inst = plan_inference(s, dev, 8192, 0.9, max_devices=tp, largest=True)
        assert -(-need // inst.kv_tokens_low) * tp >= p.devices
    # within the default 64 devices and no fleet allowed: it does not fit
    assert plan_inference(s, dev, 8192, 0.9, concurrency=10_000).fits is False
