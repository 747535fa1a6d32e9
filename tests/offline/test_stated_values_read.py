"""Stated serving values read as said: a k-length beside a concurrency already said is the requests' length, and a
KV cache said to be quantised keeps the weights' precision. KV sizes worked by hand from the models' configs."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("q, conc, seq", [
    ("qwen3-30b-a3b: how many GiB of KV cache for 8 concurrent 16k requests in bf16?", 8, 16384),
    ("llama3-8b kv cache for 4 concurrent 32k requests", 4, 32768),
    ("llama3-8b serving 10k concurrent users at 4096", 10000, 4096),  # a k-count said first is the concurrency
])
def test_the_length_beside_a_concurrency(parse, q, conc, seq):
    s = parse(q)
    assert (s.concurrency, s.seq_len) == (conc, seq)


@pytest.mark.parametrize("q, dtype", [
    ("qwen2.5-7b 推理 kv cache 量化成 int8，32k 上下文", "int8"),
    ("llama3-8b with int8-quantized kv cache at 8k", "int8"),
    ("kv cache quantized to fp8 for qwen2.5-7b", "fp8"),
])
def test_a_quantised_kv_cache_is_no_weight_precision(parse, q, dtype):
    s = parse(q)
    assert s.kv_cache_dtype == dtype and s.weight_bits in (None, 16)


def test_kv_for_eight_16k_requests(assistant):
    # qwen3-30b-a3b: 2 x 48 layers x 4 kv heads x 128 x 2 B = 96 KiB/token; x 16384 x 8 = 12 GiB
    a = assistant.ask("qwen3-30b-a3b: how many GiB of KV cache for 8 concurrent 16k requests in bf16?").answer
    assert "96 KiB" in a and "12.0 GiB" in a


def test_a_false_memory_premise_about_a_named_part_is_corrected(assistant):
    # catalog: Snt9B (910B) 64 GB per card; Snt9B23 64 GB per DIE = 128 GB per card of 2 DIE (its own, no note)
    a = assistant.ask("qwen2.5-7b inference on 910B (128GB per card) how many cards").answer
    assert a.startswith("“128GB” is not what") and "**64 GB per card**" in a
    b = assistant.ask("qwen2.5-7b inference on snt9b23 with 128GB per card, how many DIE?").answer
    assert "is not what" not in b
