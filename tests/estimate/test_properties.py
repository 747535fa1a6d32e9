"""Invariants of the memory model, checked with hypothesis over catalog models and settings."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from assistant.estimate.calibrate import device_from_row
from assistant.estimate.memory import TrainConfig, training_memory
from assistant.estimate.shape import from_catalog, from_params

from .conftest import read_csv

SHAPES = [from_catalog(r) for r in read_csv("catalog/models.csv") if r.get("layers") and int(r["layers"]) >= 8]
DEVICES = {r["id"]: device_from_row(r) for r in read_csv("catalog/hardware.csv")}

shape_st = st.one_of(st.sampled_from(SHAPES), st.floats(0.5, 400).map(from_params))
cfg_st = st.builds(
    TrainConfig,
    method=st.sampled_from(["full", "freeze", "lora", "qlora"]),
    stage=st.sampled_from(["pt", "sft", "dpo", "kto", "rm", "ppo"]),
    seq_len=st.integers(1, 131072),
    micro_batch=st.integers(1, 8),
    devices=st.sampled_from([2, 4, 8, 16, 64, 256]),
    zero_stage=st.integers(0, 3),
    offload=st.booleans(),
    precision=st.sampled_from(["bf16", "fp16", "fp32"]),
    recompute=st.booleans(),
    lora_rank=st.integers(1, 256),
    quant_bits=st.sampled_from([2, 3, 4, 8]),
    framework=st.just("LLaMA-Factory"), tp=st.just(1), pp=st.just(1), cp=st.just(1), ep=st.just(1),
    lora_targets=st.sampled_from(["all", "attention", "q_proj,v_proj"]),
    loss=st.sampled_from(["", "fp32", "chunked", "fused"]),
    optimizer=st.sampled_from(["adamw", "adamw_8bit", "paged_adamw_8bit"]),
    optimizer_in_backward=st.just(False),
    grad_accum=st.integers(1, 16),
    activation_offload=st.booleans(),
    expandable_segments=st.booleans(),
    compile=st.booleans(),
)
dev_st = st.sampled_from(sorted(DEVICES.values(), key=lambda d: d.id))
common = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def total(s, cfg, dev):
    return training_memory(s, cfg, dev).total_gib


@common
@given(shape_st, cfg_st, dev_st, st.sampled_from([2, 4, 8]))
def test_more_devices_never_more_memory_per_device(s, cfg, dev, k):
    cfg = cfg._replace(zero_stage=cfg.zero_stage, offload=cfg.offload and cfg.zero_stage > 0)
    assert total(s, cfg._replace(devices=cfg.devices * k), dev) <= total(s, cfg, dev) + 1e-9


@common
@given(shape_st, cfg_st, dev_st, st.integers(1, 8), st.integers(1, 4))
def test_more_data_parallel_never_more_memory_with_megatron(s, cfg, dev, tp_pow, k):
    tp = next(t for t in (8, 4, 2, 1) if t <= 2 ** (tp_pow % 4) and s.heads % t == 0 and s.kv_heads % t == 0)
    cfg = cfg._replace(framework="MindSpeed-LLM", tp=tp, pp=2, devices=tp * 2, offload=False)
    assert total(s, cfg._replace(devices=tp * 2 * 2 ** k), dev) <= total(s, cfg, dev) + 1e-9


@common
@given(shape_st, cfg_st, dev_st, st.sampled_from([4, 8, 16, 64, 256]))
def test_higher_zero_stage_never_more(s, cfg, dev, n):
    # ZeRO-3 adds gather buffers (largest module + 2 layers); from 4 devices on, partitioning saves more
    # than that. (On 2 devices a small QLoRA model can really use more under ZeRO-3.) LLaMA-Factory
    # allows ZeRO-3 with QLoRA only at 4 bits.
    # AdamW: with 8-bit moments a tiny LoRA saves less by partitioning than ZeRO-1's allgather bucket costs.
    # QLoRA below 1B: the bf16 embedding gathered whole (Gemma-3-270M's tied 168M of 268M) outweighs what a
    # 4-way split of a 4-bit base saves.
    assume(not (cfg.method == "qlora" and s.params < 1e9))
    cfg = cfg._replace(devices=n, quant_bits=4 if cfg.method == "qlora" else cfg.quant_bits, optimizer="adamw")
    values = [total(s, cfg._replace(zero_stage=z, offload=False), dev) for z in (0, 1, 2, 3)]
    assert all(b <= a + 1e-9 for a, b in zip(values, values[1:], strict=False)), values


@common
@given(shape_st, cfg_st, dev_st, st.integers(1, 8))
def test_longer_sequence_never_less(s, cfg, dev, extra):
    cfg = cfg._replace(offload=cfg.offload and cfg.zero_stage > 0)
    assert total(s, cfg._replace(seq_len=cfg.seq_len * (1 + extra)), dev) >= total(s, cfg, dev) - 1e-9


@common
@given(shape_st, cfg_st, dev_st)
def test_lora_never_more_than_full(s, cfg, dev):
    # Ranks up to 64 (LLaMA-Factory's default is 8). A rank in the hundreds adds fp32 adapters worth
    # several % of the model on every device, which at hundreds of ZeRO ranks can exceed full
    # fine-tuning's own per-device share: that is physical, not a bug.
    cfg = cfg._replace(offload=cfg.offload and cfg.zero_stage > 0, lora_rank=min(cfg.lora_rank, 64))
    full = total(s, cfg._replace(method="full"), dev)
    # Below ZeRO-3 the fp32 adapter weights (4 bytes each) are replicated on every device while full
    # fine-tuning's bf16 gradients shrink with N: on hundreds of devices that copy is the only margin.
    # (With offload the full job's gradients leave the device too, so the copy plus its allocator
    # fragmentation, at most 15 %, is the margin.)
    adapter_copy = 0 if cfg.zero_stage == 3 else 1.15 * 4 * s.lora_params(cfg.lora_rank, cfg.lora_targets) / 2**30
    assert total(s, cfg._replace(method="lora"), dev) <= full + adapter_copy + 1e-3
    if cfg.zero_stage < 3 or cfg.quant_bits == 4:  # ZeRO-3 partitions only a 4-bit base (LLaMA-Factory)
        assert total(s, cfg._replace(method="qlora"), dev) <= total(s, cfg._replace(method="lora"), dev) + 1e-9


@common
@given(shape_st, cfg_st, dev_st)
def test_offload_never_more_device_memory_and_needs_host_ram(s, cfg, dev):
    # a paged optimizer and activation offloading use host RAM without ZeRO offload
    cfg = cfg._replace(optimizer="adamw", activation_offload=False)
    for z in (2, 3):
        on = training_memory(s, cfg._replace(zero_stage=z, offload=True), dev)
        off = training_memory(s, cfg._replace(zero_stage=z, offload=False), dev)
        assert on.total_gib <= off.total_gib + 1e-9
        assert off.host_ram_gib.gib == 0 and on.host_ram_gib.gib >= 0
        if cfg.method in ("full", "freeze"):
            assert on.host_ram_gib.gib > 0


@common
@given(shape_st, cfg_st, dev_st)
def test_terms_are_non_negative_and_sum_to_the_total(s, cfg, dev):
    m = training_memory(s, cfg._replace(offload=cfg.offload and cfg.zero_stage > 0), dev)
    terms = [m.weights, m.gradients, m.optimizer, m.activations, m.logits, m.overhead, m.step, m.cached]
    assert all(t.gib >= 0 and t.how for t in terms)
    assert abs(sum(t.gib for t in terms) - m.total_gib) < 1e-2
    assert m.fits == (m.verdict == "fits")
    assert m.cached_gib <= max(0.0, m.usable_gib - (m.total_gib - m.cached_gib)) + 1e-3  # never beyond the free room
    # the three figures nest: tensors <= the allocator's segments <= the device (segments + runtime context + buffers)
    assert m.allocated_gib <= m.reserved_gib + 2e-3 and m.reserved_gib < m.total_gib


@common
@given(shape_st, cfg_st, dev_st)
def test_offloading_compile_and_expandable_segments_never_more_device_memory(s, cfg, dev):
    # totals are rounded to 0.001 GiB (Breakdown), so "never more" holds to that rounding
    on = training_memory(s, cfg._replace(activation_offload=True), dev)
    off = training_memory(s, cfg._replace(activation_offload=False), dev)
    assert on.total_gib <= off.total_gib + 1e-3
    assert on.host_ram_gib.gib >= off.host_ram_gib.gib
    compiled = training_memory(s, cfg._replace(compile=True), dev)
    assert compiled.total_gib <= training_memory(s, cfg._replace(compile=False), dev).total_gib + 1e-3
    expandable = training_memory(s, cfg._replace(expandable_segments=True), dev)
    assert expandable.total_gib <= training_memory(s, cfg._replace(expandable_segments=False), dev).total_gib + 1e-3
