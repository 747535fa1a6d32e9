"""vLLM's fp8 KV cache variants ("--kv-cache-dtype fp8_e4m3", "fp8_e5m2") are the KV cache's precision only: the
suffix is no weight precision (fresh round 19 c7-09#2 sized the weights 8-bit). KV bytes per token = 2 (K, V) x layers
x KV heads x head_dim x bytes, from each model's config.json."""

from __future__ import annotations


def test_fp8_e4m3_kv_leaves_the_weights_alone(assistant):
    answer = assistant.ask("qwen2.5-72b vllm 32k on snt9b, kv-cache-dtype fp8_e4m3 — KV per sequence?").answer
    header, lead = answer.splitlines()[0], next(ln for ln in answer.splitlines() if ln.startswith("**Answer:**"))
    assert header.startswith("**qwen2.5-72b** · inference · 32768 tokens · Snt9B") and "e4m3" not in header
    # 2 x 80 x 8 x 128 x 1 B = 160 KiB per token; x 32768 = 5.0 GiB (Ascend's 8-bit KV cache is int8, said in the header)
    assert "**160 KiB per token**" in lead and "**5.0 GiB**" in lead


def test_fp8_e5m2_kv_on_a_gpu(assistant):
    answer = assistant.ask("llama3-8b on one H100, --kv-cache-dtype fp8_e5m2, 8k context: how many sequences?").answer
    # 2 x 32 x 8 x 128 x 1 B = 64 KiB per token; the weights stay at the checkpoint's BF16
    assert "at 64 KiB per token" in answer and "weights at the checkpoint's own precision (BF16)" in answer
