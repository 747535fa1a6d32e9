"""An open attention kernel is a second scenario beside the measured range, not part of it (margin.open_upper), and
the breakdown's parts add up to the pool with the allocator's cached blocks on their own line. Each expected value is
a hand computation; the comments cite the vendor row or measurement it was checked on."""

from __future__ import annotations

import pytest

from assistant.estimate import constants as C
from assistant.estimate.margin import open_upper, training_range, verdict
from assistant.estimate.memory import TrainConfig, training_memory

GIB = 2**30


def test_the_measured_range_is_not_widened_by_the_open_kernel(shapes, devices):
    # Round 8 s01: Llama-3.1-8B full fine-tuning, 8192 tokens, ZeRO-2, micro batch 1, LLaMA-Factory on 24 Snt9B cards
    # (the vendor recipe table 000 runs the same job on 8). The attention is not stated, so on Ascend SDPA may fall back
    # to the math path: 32 heads x 8192^2 scores x (6 B kept + 10 B in backward) + one 8192^2 bf16 mask = 32.125 GiB.
    s, snt9b = shapes["llama3.1-8b"], devices["snt9b"]
    cfg = TrainConfig(method="full", seq_len=8192, devices=24, zero_stage=2, attention_given=False)
    b = training_memory(s, cfg, snt9b)
    assert s.heads == 32
    open_gib = (32 * 8192**2 * 16 + 8192**2 * 2) / GIB
    assert open_gib == pytest.approx(32.125) and b.attention_open_gib == pytest.approx(open_gib, abs=1e-3)
    needed = b.total_gib - b.cached_gib
    # the range is the measured one, x 0.91-1.31 around what the verdict judges, cached blocks added back: the upper end
    # 1.31 x the point at most (round 8 read "about 55.1 GiB, likely 51.6-113.6 GiB", twice the point)
    assert b.low_gib - b.cached_gib == pytest.approx(0.91 * needed, abs=2e-3)
    assert b.high_gib - b.cached_gib == pytest.approx(1.31 * needed, abs=2e-3)
    assert b.high_gib <= 1.31 * b.total_gib
    # the fallback's own upper end: (needed + 32.125) x 1.31, judged by the verdict
    assert b.open_high_gib - b.cached_gib == pytest.approx(1.31 * (needed + open_gib), abs=2e-3)
    # with a fused kernel the measured range fits (58.5 of 61.0 GiB); only the fallback makes it tight
    assert b.high_gib - b.cached_gib <= b.usable_gib < b.open_high_gib - b.cached_gib
    assert b.verdict == "tight"
    fused = training_memory(s, cfg._replace(attention_given=True), snt9b)
    assert fused.verdict == "fits" and (fused.low_gib, fused.high_gib) == (b.low_gib, b.high_gib)
    assert fused.attention_open_gib == 0.0 and fused.open_high_gib == 0.0


def test_open_upper_is_the_scenario_point_times_the_measured_upper_ratio():
    # 40 GiB judged + 32 GiB of scores the inputs leave open: (40 + 32) x 1.31 = 94.32; nothing open: 0
    assert C.RANGE_RATIO == (0.91, 1.31)
    assert open_upper(40.0, 32.0) == pytest.approx(94.32)
    assert open_upper(40.0, 0.0) == 0.0
    lo, hi = training_range(40.0)
    assert (lo, hi) == pytest.approx((36.4, 52.4))
    assert verdict(lo, max(hi, open_upper(40.0, 32.0)), 61.0) == "tight"
    assert verdict(lo, hi, 61.0) == "fits"


def test_the_breakdown_parts_add_up_to_the_pool(call):
    # Round 8 q08: GLM-4-9B LoRA at 8192 tokens on 1 Snt9B card (vendor tables 004 and 000: 1 card). The pool (total_gib)
    # holds one set of the loss buffers at another batch length, 8192 x 151,552 x 12 B = 13.9 GiB, which the
    # allocator gives back before an OOM: the parts without it summed 40.4 GiB against a 54.3 GiB headline.
    m = call("estimate_training_memory", model="glm4-9b", method="lora", seq_len=8192, hardware="snt9b", devices=1)
    parts = (m["weights_gib"] + m["gradients_gib"] + m["optimizer_gib"] + m["activations_gib"] + m["logits_gib"]
             + m["overhead_gib"] + m["cached_gib"])
    assert parts == pytest.approx(m["total_gib"], abs=0.01)
    assert m["cached_gib"] == pytest.approx(8192 * 151552 * 12 / GIB, abs=0.05)
    # headroom is what the verdict judges: usable less the pool without the cached blocks
    assert m["headroom_gib"] == pytest.approx(m["usable_gib"] - (m["total_gib"] - m["cached_gib"]), abs=0.01)
    assert m["attention_open_gib"] > 0 and m["open_high_gib"] > m["high_gib"]


def test_the_headroom_is_not_zero_when_cached_blocks_fill_the_free_room(call):
    # Round 8 p08: Qwen2.5-7B full, 16384 tokens, ZeRO-3 on 8 Snt9B cards read "0.0 GiB to spare": the cached loss
    # buffers (16384 x 152,064 x 12 B = 27.9 GiB) are capped at the free room, so the pool equals the usable memory;
    # the room is what the job needs less than the usable memory.
    m = call("estimate_training_memory", model="qwen2.5-7b", method="full", seq_len=16384, hardware="snt9b", devices=8,
             zero_stage=3)
    assert m["total_gib"] == pytest.approx(m["usable_gib"], abs=0.01) and m["cached_gib"] < 16384 * 152064 * 12 / GIB
    assert m["headroom_gib"] == pytest.approx(m["usable_gib"] - m["total_gib"] + m["cached_gib"], abs=0.01)
    assert m["headroom_gib"] > 0.5
