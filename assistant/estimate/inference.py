"""Serving memory (vLLM-style): weights (at the checkpoint's native precision where the hardware serves
it), KV cache per token (GQA-aware; MLA for DeepSeek), and the fewest devices whose KV budget holds
max_model_len x concurrency tokens. Pure functions."""

from __future__ import annotations

from dataclasses import dataclass

from . import constants as C
from .layout import tp_splits_heads
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


# MXFP4 (OCP microscaling): 4-bit E2M1 values plus one 8-bit E8M0 scale per block of 32 values.
MXFP4_BITS = 4 + 8 / 32
# catalog `native_weights` values (blank = bf16/fp16) and how they are named
NATIVE_FORMATS = {"fp8": "FP8", "mxfp4-experts": "MXFP4-expert"}


@dataclass(frozen=True)
class ServingWeights:
    bytes: float  # every weight of the model, bytes
    note: str  # which precision, and why (one line)


def serving_weights(s: Shape, dev: Device, weight_bits: int | None = None) -> ServingWeights:
    """Weight bytes as vLLM holds them. An explicit `weight_bits` (int4 AWQ/GPTQ, W8A8, bf16) applies to
    every weight. Otherwise the checkpoint's native precision where the device serves it, else bf16:
    - fp8 (DeepSeek-V3/R1, block-scaled e4m3): every linear weight 1 B; embeddings and LM head stay bf16
      as in the published checkpoint. GPUs with FP8 tensor cores run it W8A8; Ampere keeps the weights
      in FP8 and dequantises in the Marlin kernel (W8A16), dense and MoE layers alike.
    - mxfp4-experts (gpt-oss): routed experts at 4.25 bits, attention/embeddings/head bf16. vLLM's
      MXFP4 MoE runs from Ampere on (Marlin below Hopper, Triton/FlashInfer kernels on Hopper).
    - Ascend (910B/910C) has neither format: ModelArts converts such checkpoints to BF16.
    FP8 block scales (4 B per 128x128 weights) and the bf16 norms and router (counted at 1 B) are below
    0.02 % of the bytes and not counted separately."""
    if weight_bits is not None:
        return ServingWeights(s.params * weight_bits / 8, f"weights in {weight_bits}-bit, as requested (weight_bits)")
    native = s.native_weights
    if native not in NATIVE_FORMATS and not dev.bf16:
        return ServingWeights(2 * s.params, "weights in fp16 (16-bit): the device has no BF16, so the checkpoint is served in fp16")
    if native not in NATIVE_FORMATS:
        return ServingWeights(2 * s.params, "weights in bf16 (16-bit), the checkpoint's own precision")
    if dev.kind == "npu":
        return ServingWeights(2 * s.params, f"weights in bf16 (16-bit): the {NATIVE_FORMATS[native]} checkpoint is converted "
                                            "to BF16 on Ascend, which has no FP8 or MXFP4 support (weight_bits=8 for W8A8 int8)")
    if native == "fp8":
        bf16 = s.embed_params + s.head_params
        how = ("W8A8 on FP8 tensor cores" if dev.fp8 else
               "weight-only FP8 (W8A16 Marlin): this GPU has no FP8 compute but keeps the weights in FP8")
        return ServingWeights(2 * bf16 + (s.params - bf16),
                              f"weights in the checkpoint's FP8: 1 B per linear weight, embeddings and LM head bf16; vLLM {how}")
    experts = min(s.expert_params, s.params)
    return ServingWeights(experts * MXFP4_BITS / 8 + 2 * (s.params - experts),
                          f"weights as the checkpoint ships them: routed experts MXFP4 ({MXFP4_BITS:g} bits), the rest bf16; "
                          "vLLM keeps MXFP4 on NVIDIA GPUs from Ampere on (Marlin below Hopper)")


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
    weight_precision: str = ""  # ServingWeights.note
    kv_tokens_low: int = 0  # the KV capacity if the profiled peak and overhead run high (constants.INFERENCE_REST_RANGE)
    kv_tokens_high: int = 0
    verdict: str = "does_not_fit"  # fits | tight | does_not_fit: whether the KV range holds the tokens needed
    replicas: int = 1  # vLLM instances of tp x pp devices each (data parallel): devices = replicas x tp x pp


def layouts(s: Shape, dev: Device, max_devices: int):
    """(devices, tp, pp) fastest first: TP (a power of two that splits the heads as vLLM does, layout.py) within a
    node, then pipeline stages across nodes."""
    kv = None if s.is_mla else s.kv_heads
    tp = 1
    while tp <= min(dev.devices_per_node, max_devices):
        if tp_splits_heads(tp, s.heads, kv, serving=True) and tp >= dev.min_unit:
            yield tp, tp, 1
        tp *= 2
    top = max((t for t in (1, 2, 4, 8, 16, 32) if t <= dev.devices_per_node and tp_splits_heads(t, s.heads, kv, serving=True)),
              default=1)
    pp = 2
    while top * pp <= max_devices and pp <= s.layers:
        yield top * pp, top, pp
        pp *= 2


def plan_inference(s: Shape, dev: Device, max_model_len: int, util: float, concurrency: int = 1,
                   weight_bits: int | None = None, max_devices: int = 64, largest: bool = False,
                   kv_bytes: float = 2.0, profile: tuple[int, int] | None = None,
                   replica_devices: int | None = None, layout: tuple[int, int] | None = None) -> InferencePlan:
    """weight_bits None: the checkpoint's native precision where `dev` serves it (serving_weights).
    largest: the largest layout within max_devices instead of the fewest devices that fit ("how many
    sequences do my 8 cards hold"). kv_bytes: bytes per cached K/V element (2 for bf16/fp16, 1 for
    vLLM's --kv-cache-dtype fp8 or an int8 KV cache). profile: (max_num_batched_tokens, max_num_seqs) of
    vLLM's profiling run; None: constants.INFERENCE_ACTIVATION_TOKENS and INFERENCE_PROFILE_SEQS. replica_devices: the
    most devices that copies of one instance may take when no single instance within max_devices holds the tokens
    (None: max_devices). layout: the (TP, PP) the user gives (--tensor-parallel-size, --pipeline-parallel-size), sized as
    given (the caller checked it splits the heads: layout.py)."""
    need = max_model_len * concurrency
    w = serving_weights(s, dev, weight_bits)
    if layout:
        tp, pp = layout
        p = _evaluate(s, dev, tp * pp, tp, pp, util, w, max_model_len, kv_bytes, profile)
        p.fits = p.kv_tokens >= need
        p.verdict = serving_verdict(p, need)
        p.max_sequences = p.kv_tokens // max(1, max_model_len)
        p.reason = f"the layout given, TP {tp} x PP {pp}: KV room for {p.kv_tokens} tokens, {need} needed"
        return p
    if largest:
        options = list(layouts(s, dev, max_devices))
        n, tp, pp = options[-1] if options else (1, 1, 1)
        p = _evaluate(s, dev, n, tp, pp, util, w, max_model_len, kv_bytes, profile)
        p.fits = p.kv_tokens >= need
        p.verdict = serving_verdict(p, need)
        p.reason = (f"largest layout within max_devices={max_devices}: KV room for {p.kv_tokens} tokens, "
                    f"{p.kv_tokens // max(1, max_model_len)} sequences of {max_model_len}")
        return p
    last = None
    for n, tp, pp in layouts(s, dev, max_devices):
        p = _evaluate(s, dev, n, tp, pp, util, w, max_model_len, kv_bytes, profile)
        last = p
        if p.kv_tokens >= need:
            p.fits, p.reason = True, f"KV cache holds {p.kv_tokens} tokens >= {need} needed"
            p.verdict = serving_verdict(p, need)
            p.max_sequences = p.kv_tokens // max_model_len
            # many sequences at once: pipeline stages only to hold more KV cost more devices than copies of a smaller
            # instance (the weights are stored once per instance, not once per stage)
            copies = replicated(s, dev, util, w, max_model_len, need, n - 1, kv_bytes, profile) if pp > 1 else None
            return copies or p
    copies = replicated(s, dev, util, w, max_model_len, need, replica_devices or max_devices, kv_bytes, profile)
    if copies is not None:
        return copies
    if last is None:
        last = _evaluate(s, dev, 1, 1, 1, util, w, max_model_len, kv_bytes, profile)
    last.verdict = serving_verdict(last, need)
    last.reason = f"does not fit within max_devices={max_devices}: KV room for {last.kv_tokens} tokens, {need} needed"
    return last


def replicated(s: Shape, dev: Device, util: float, w: ServingWeights, max_model_len: int, need: int, most: int,
               kv_bytes: float, profile: tuple[int, int] | None) -> InferencePlan | None:
    """The fewest devices, at most ``most``, as identical vLLM instances (data parallel) that together hold ``need``
    tokens of KV cache even at the low end of its range (verdict fits): each instance a layout holding at least one
    max_model_len sequence; fewer instances on a tie.
    Each instance keeps its own KV cache, so the capacities add up."""
    best: InferencePlan | None = None
    for n, tp, pp in layouts(s, dev, most):
        p = _evaluate(s, dev, n, tp, pp, util, w, max_model_len, kv_bytes, profile)
        if p.kv_tokens_low < max_model_len:
            continue
        copies = -(-need // p.kv_tokens_low)  # sized on the range's low end: the copies hold the tokens even then
        if copies * n > most or best is not None and copies * n >= best.devices:
            continue
        p.replicas, p.devices = copies, copies * n
        p.kv_tokens, p.kv_tokens_low, p.kv_tokens_high = (copies * t for t in (p.kv_tokens, p.kv_tokens_low, p.kv_tokens_high))
        p.fits, p.max_sequences = True, p.kv_tokens // max_model_len
        p.verdict = serving_verdict(p, need)
        p.reason = (f"{copies} instances of TP {tp}" + (f" x PP {pp}" if pp > 1 else "") +
                    f": {p.kv_tokens} tokens of KV cache together >= {need} needed")
        best = p
    return best


def profile_peak_bytes(s: Shape, tp: int, tokens: int, seqs: int) -> float:
    """Peak bytes of vLLM's profiling run on one device (constants.INFERENCE_*): the forward pass over
    `tokens` batched tokens (one MLP at a time) and the sampler over `seqs` last tokens."""
    ffn = s.ffn_for_activations()
    moe_out = 2 * s.hidden * s.experts_per_token * s.moe_layers / s.layers if s.is_moe else 0.0
    per_token = C.INFERENCE_MLP_FFN_BYTES * ffn / tp + C.INFERENCE_HIDDEN_BYTES * s.hidden + moe_out
    return tokens * per_token + min(seqs, tokens) * s.vocab * C.SAMPLER_BYTES_PER_VOCAB


def _evaluate(s: Shape, dev: Device, n: int, tp: int, pp: int, util: float, w: ServingWeights,
              max_model_len: int, kv_bytes: float = 2.0, profile: tuple[int, int] | None = None) -> InferencePlan:
    gib = C.GIB
    weights = w.bytes / (tp * pp) / gib
    tokens, seqs = profile or (C.INFERENCE_ACTIVATION_TOKENS, C.INFERENCE_PROFILE_SEQS)
    act = profile_peak_bytes(s, tp, tokens, seqs) / gib
    overhead = C.INFERENCE_OVERHEAD_GIB.get(dev.kind, C.INFERENCE_OVERHEAD_GIB["gpu"])
    budget = dev.capacity_gib * util
    kv_gib = budget - weights - act - overhead
    per_dev = kv_bytes_per_token_per_device(s, tp, pp, kv_bytes, seq_len=max_model_len)
    total, formula = kv_bytes_per_token(s, kv_bytes, seq_len=max_model_len)
    def tokens_at(k: float) -> int:
        return int(max(0.0, budget - weights - k * (act + overhead)) * gib // per_dev) if per_dev else 0

    lo_k, hi_k = C.INFERENCE_REST_RANGE
    kv_tokens = tokens_at(1.0)
    return InferencePlan(False, n, tp, pp, round(weights, 3), round(act, 3), overhead, round(budget, 3),
                         round(kv_gib, 3), total, per_dev, formula, kv_tokens, kv_tokens // max(1, max_model_len), "",
                         w.note, min(kv_tokens, tokens_at(hi_k)), max(kv_tokens, tokens_at(lo_k)))


def serving_verdict(p: InferencePlan, need: int) -> str:
    """fits: even the low end of the KV capacity holds `need` tokens; tight: the high end does, the low end not;
    does_not_fit: not even the high end does."""
    if p.kv_tokens_low >= need:
        return "fits"
    return "tight" if p.kv_tokens_high >= need else "does_not_fit"
