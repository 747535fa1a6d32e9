"""Serving memory (vLLM-style): weights, KV cache per token (GQA-aware; MLA for DeepSeek), and the
fewest devices whose KV budget holds max_model_len x concurrency tokens. Pure functions."""

from __future__ import annotations

from dataclasses import dataclass

from . import constants as C
from .memory import Device
from .shape import Shape


def kv_bytes_per_token(s: Shape, kv_bytes: float = 2.0, seq_len: int | None = None) -> tuple[float, str]:
    """KV cache bytes for one token over all layers, and the formula used. With sliding-window layers
    and a sequence length, the average over a sequence of that length: those layers hold at most
    `window` tokens of it (constants.SLIDING_WINDOW_KV)."""
    if s.is_mla:  # vLLM's MLA caches the compressed latent plus the shared RoPE key per layer
        per = s.layers * (s.kv_lora_rank + s.qk_rope_head_dim) * kv_bytes
        return per, (f"MLA: layers {s.layers} x (kv_lora_rank {s.kv_lora_rank} + qk_rope_head_dim "
                     f"{s.qk_rope_head_dim}) x {kv_bytes:g} B")
    per_layer = 2 * s.kv_heads * s.hd * kv_bytes
    formula = f"2 (K,V) x layers {s.layers} x kv_heads {s.kv_heads} x head_dim {s.hd} x {kv_bytes:g} B"
    windowed = min(s.sliding_layers, s.layers) if C.SLIDING_WINDOW_KV and s.sliding_window else 0
    if not windowed or not seq_len or seq_len <= s.sliding_window:
        return per_layer * s.layers, formula
    full = s.layers - windowed
    per = per_layer * (full + windowed * s.sliding_window / seq_len)
    return per, (f"2 (K,V) x kv_heads {s.kv_heads} x head_dim {s.hd} x {kv_bytes:g} B x (full-attention layers {full} + "
                 f"sliding-window layers {windowed} x window {s.sliding_window} / {seq_len} tokens): average per token "
                 f"of a {seq_len}-token sequence")


def kv_bytes_per_token_per_device(s: Shape, tp: int, pp: int, kv_bytes: float = 2.0, seq_len: int | None = None) -> float:
    """Per device: KV heads split over TP (replicated when fewer heads than TP; the MLA latent is
    replicated on every TP rank), layers split over PP."""
    total, _ = kv_bytes_per_token(s, kv_bytes, seq_len)
    heads_share = 1.0 if s.is_mla else max(1, s.kv_heads // tp) / s.kv_heads
    return total * heads_share / pp


@dataclass
class InferencePlan:
    fits: bool
    devices: int
    tp: int
    pp: int
    weights_gib: float
    activation_gib: float
    overhead_gib: float
    budget_gib: float
    kv_cache_gib: float
    kv_per_token_total: float
    kv_per_token_device: float
    kv_formula: str
    kv_tokens: int
    max_sequences: int
    reason: str


def layouts(s: Shape, dev: Device, max_devices: int):
    """(devices, tp, pp) fastest first: TP (a power of two dividing the attention heads) within a node,
    then pipeline stages across nodes."""
    tp = 1
    while tp <= min(dev.devices_per_node, max_devices):
        if s.heads % tp == 0 and tp >= dev.min_unit:
            yield tp, tp, 1
        tp *= 2
    top = max((t for t in (1, 2, 4, 8, 16, 32) if t <= dev.devices_per_node and s.heads % t == 0), default=1)
    pp = 2
    while top * pp <= max_devices and pp <= s.layers:
        yield top * pp, top, pp
        pp *= 2


def plan_inference(s: Shape, dev: Device, max_model_len: int, util: float, concurrency: int = 1,
                   weight_bits: int = 16, max_devices: int = 64) -> InferencePlan:
    need = max_model_len * concurrency
    last = None
    for n, tp, pp in layouts(s, dev, max_devices):
        p = _evaluate(s, dev, n, tp, pp, util, weight_bits, max_model_len)
        last = p
        if p.kv_tokens >= need:
            p.fits, p.reason = True, f"KV cache holds {p.kv_tokens} tokens >= {need} needed"
            p.max_sequences = p.kv_tokens // max_model_len
            return p
    if last is None:
        last = _evaluate(s, dev, 1, 1, 1, util, weight_bits, max_model_len)
    last.reason = f"does not fit within max_devices={max_devices}: KV room for {last.kv_tokens} tokens, {need} needed"
    return last


def _evaluate(s: Shape, dev: Device, n: int, tp: int, pp: int, util: float, weight_bits: int,
              max_model_len: int) -> InferencePlan:
    gib = C.GIB
    weights = s.params * weight_bits / 8 / (tp * pp) / gib
    # Profiling run: max_num_batched_tokens of hidden states and MLP activations (sharded by TP),
    # plus fp32 logits for the sampler's batch.
    tokens = max(C.INFERENCE_ACTIVATION_TOKENS, 0)
    act = tokens * (C.ACT_H_BYTES * s.hidden + C.ACT_FFN_BYTES * s.ffn_for_activations() / tp) / gib
    act += 256 * s.vocab * 4 / tp / gib
    overhead = C.INFERENCE_OVERHEAD_GIB.get(dev.kind, C.INFERENCE_OVERHEAD_GIB["gpu"])
    budget = dev.capacity_gib * util
    kv_gib = budget - weights - act - overhead
    per_dev = kv_bytes_per_token_per_device(s, tp, pp, seq_len=max_model_len)
    total, formula = kv_bytes_per_token(s, seq_len=max_model_len)
    kv_tokens = int(max(0.0, kv_gib) * gib // per_dev) if per_dev else 0
    return InferencePlan(False, n, tp, pp, round(weights, 3), round(act, 3), overhead, round(budget, 3),
                         round(kv_gib, 3), total, per_dev, formula, kv_tokens, kv_tokens // max(1, max_model_len), "")
