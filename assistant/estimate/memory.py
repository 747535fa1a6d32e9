"""Per-device training memory: model states, activations, logits, overhead. Pure functions.

Two frameworks are modelled. LLaMA-Factory runs DeepSpeed ZeRO 0-3 (optionally with CPU offload)
over data parallel only. MindSpeed-LLM runs Megatron: tensor (with sequence) parallel, pipeline
parallel (1F1B), context parallel, expert parallel for MoE, the distributed optimizer, and optional
full recompute. Every term carries a one-line "how" that says how it was computed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NamedTuple, TypedDict

from . import constants as C
from .margin import open_upper, training_range, verdict
from .shape import Shape

METHODS = ("full", "freeze", "lora", "qlora")
STAGES = ("pt", "sft", "dpo", "kto", "rm", "ppo")
PRECISIONS = ("bf16", "fp16", "fp32", "pure_bf16")


def default_precision(dev: Device) -> str:
    """bf16 mixed precision, or fp16 on a part without BF16 (same bytes per value)."""
    return "bf16" if dev.bf16 else "fp16"
FRAMEWORKS = ("LLaMA-Factory", "MindSpeed-LLM")
# Frameworks whose memory follows the data-parallel (DeepSpeed ZeRO / FSDP) model, sized with their own loss
# default (constants.LOSS_DEFAULT); FSDP full sharding is sized as ZeRO-3.
DATA_PARALLEL_FRAMEWORKS = ("LLaMA-Factory", "torchtune", "litgpt", "unsloth", "axolotl", "transformers")
QUANT_BITS = (2, 3, 4, 8)


@dataclass(frozen=True)
class Device:
    """One device as the tables count it: a card (Snt9B, GPUs) or a DIE (Snt9B23)."""

    id: str
    kind: str  # npu | gpu
    memory_gb: float
    devices_per_node: int = 8
    min_unit: int = 1
    unit: str = "card"
    dies_per_card: int = 1
    fp8: bool = False  # FP8 tensor cores (Ada, Hopper); serving reads it, training does not
    bf16: bool = True  # computes in BF16; Volta/Turing GPUs and Ascend 910A/310P train in fp16 (same bytes)

    @property
    def capacity_gib(self) -> float:
        """What the framework reports as total capacity (nominal GB read as GiB of HBM, minus the reserve)."""
        return self.memory_gb * C.CAPACITY_FRACTION.get(self.kind, C.CAPACITY_FRACTION["gpu"])


class TrainConfig(NamedTuple):
    """One training setup. A NamedTuple because the planner derives hundreds of variants per call
    (`_replace` is cheap)."""

    method: str = "lora"
    stage: str = "sft"
    seq_len: int = 4096
    micro_batch: int = 1
    devices: int = 1
    framework: str = "LLaMA-Factory"
    zero_stage: int = 0  # DeepSpeed stage (LLaMA-Factory)
    offload: bool = False  # ZeRO-2: optimizer to host; ZeRO-3: optimizer and parameters (ds_z3_offload)
    tp: int = 1
    pp: int = 1
    cp: int = 1
    ep: int = 1
    precision: str = "bf16"
    recompute: bool = True
    lora_rank: int = C.DEFAULT_LORA_RANK
    lora_targets: str = "all"
    quant_bits: int = 4
    loss: str = ""  # constants.LOSS_IMPLS; "" = the framework's default (loss_impl)
    optimizer: str = "adamw"  # constants.OPTIMIZERS
    optimizer_in_backward: bool = False  # step and free each gradient during backward (torchtune optimizer_in_bwd)
    grad_accum: int = 1  # micro-batches per optimizer step; above 1 the gradients stay allocated between them
    activation_offload: bool = False  # saved activations go to host RAM between forward and backward
    expandable_segments: bool = False  # allocator with expandable segments: no fragmentation on GPUs
    compile: bool = False  # torch.compile: the partitioner saves matmul inputs/outputs, recomputes pointwise ops
    tightest: bool = False  # the planner sizes on the point estimate instead of the range's upper end (margin.py)
    attention: str = "fused"  # constants.ATTENTIONS: fused (FlashAttention / NPU_Flash_Attn, no s^2) or eager (scores kept)
    fixed_length: bool = False  # every batch the same length (packing, padding to the maximum): no cached_blocks
    attention_given: bool = True  # False: the user did not say; on Ascend the range's upper end then holds the s^2 scores
    zero_fixed: int | None = None  # the planner keeps to this ZeRO stage (the user said it); None: it picks one
    upper_end: bool = False  # the planner sizes on the likely range's upper end (verdict `fits`), not the planning margin
    offload_fixed: bool | None = None  # the planner keeps offload on (True) or off (False); None: it picks
    grad_accum_fixed: int | None = None  # the planner keeps this accumulation (the user's) when no global batch is given
    all_devices: bool = False  # the planner plans on all max_devices (the user's own count), not the fewest within them

    @property
    def loss_impl(self) -> str:
        return self.loss or C.LOSS_DEFAULT.get(self.framework, "fp32")

    @property
    def dp(self) -> int:
        return max(1, self.devices // (self.tp * self.pp * self.cp))

    @property
    def megatron(self) -> bool:
        return self.framework == "MindSpeed-LLM"


class FrameworkDefaults(TypedDict):
    activation_offload: bool
    expandable_segments: bool


def framework_defaults(framework: str) -> FrameworkDefaults:
    """What a framework sets on its own beside the loss (constants.LOSS_DEFAULT): activation offloading and the
    allocator's expandable segments (constants.ACTIVATION_OFFLOAD_DEFAULT, EXPANDABLE_SEGMENTS_DEFAULT)."""
    return FrameworkDefaults(activation_offload=framework in C.ACTIVATION_OFFLOAD_DEFAULT,
                             expandable_segments=framework in C.EXPANDABLE_SEGMENTS_DEFAULT)


class Term:
    """One figure in GiB and how it was computed. `how` may be given as a callable so the planner,
    which evaluates many candidates, only formats the text of the plan it returns."""

    __slots__ = ("gib", "_how")

    def __init__(self, gib: float, how):
        self.gib, self._how = gib, how

    @property
    def how(self) -> str:
        if callable(self._how):
            self._how = self._how()
        return self._how


NO_STEP_PEAK = "the optimizer step allocates nothing above the backward's peak"


@dataclass
class Breakdown:
    weights: Term
    gradients: Term
    optimizer: Term
    activations: Term
    logits: Term
    overhead: Term
    total_gib: float
    usable_gib: float
    fits: bool  # the verdict is "fits": the upper end of the range, less the cached blocks, fits the usable memory
    host_ram_gib: Term  # per node, for offload
    host_fits: bool
    assumptions: list[str] = field(default_factory=list)
    allocated_gib: float = 0.0  # the tensors alone (what torch.cuda.max_memory_allocated reports)
    low_gib: float = 0.0  # the range of the pool (total_gib) the measured errors allow (margin.py)
    high_gib: float = 0.0
    verdict: str = "fits"  # fits | tight | does_not_fit (margin.verdict)
    plan_fits: bool = True  # what the planner sizes on: point x constants.PLAN_MARGIN fits (the point with cfg.tightest)
    cached: Term = field(default_factory=lambda: Term(0.0, "no cached blocks"))  # cached_blocks: in total_gib, not in the verdict
    # A mechanism the inputs leave open (attention_unsure): its GiB, and the pool's upper end if it happens (cached blocks
    # added back like the range's). The verdict judges that upper end too; low_gib-high_gib stays the measured range.
    attention_open_gib: float = 0.0
    open_high_gib: float = 0.0
    # Gathered ZeRO-3 blocks the pool may keep pinned (gathered_block_pinning): a scenario like the attention fallback,
    # in open_high_gib (with attention_open_gib when both are open), not in low_gib-high_gib.
    pinned: Term = field(default_factory=lambda: Term(0.0, "no pinned gathered blocks"))
    # The optimizer step's own peak above the backward's (_step_peak): in total_gib and what the verdict judges.
    step: Term = field(default_factory=lambda: Term(0.0, NO_STEP_PEAK))
    # The caching allocator's pool alone (torch.cuda.max_memory_reserved, torch_npu.npu.max_memory_reserved): total_gib
    # less what the runtime allocates outside it (outside_pool_gib: the runtime context, the HCCL/NCCL buffers).
    reserved_gib: float = 0.0

    @property
    def cached_gib(self) -> float:
        return self.cached.gib


def _gib(b: float) -> float:
    return b / C.GIB


@dataclass(frozen=True)
class ParamSplit:
    """Parameter counts by how they are stored."""

    trainable: float  # full-precision trained weights (full / freeze)
    adapters: float  # LoRA weights (fp32, AdamW)
    frozen: float  # bf16 frozen weights (incl. vision tower, reference/reward copies)
    quantized: float  # quantised frozen weights (QLoRA)
    expert_share: float  # fraction of trainable+frozen that sits in routed experts (for EP)
    notes: tuple[str, ...]
    upcast: float = 0.0  # frozen weights kept in fp32 (QLoRA through peft's prepare_model_for_kbit_training)


def split_params(s: Shape, cfg: TrainConfig) -> ParamSplit:
    P, vision = s.params, s.vision_params
    notes: list[str] = []
    trainable = adapters = quantized = upcast = 0.0
    if cfg.method == "full":
        trainable, frozen = P - vision, vision
        if vision:
            notes.append("vision tower frozen (LLaMA-Factory freeze_vision_tower default)")
    elif cfg.method == "freeze":
        trainable = min(C.FREEZE_TRAINABLE_LAYERS, s.layers) * s.layer_params
        frozen = P - trainable
        notes.append(f"freeze tuning trains the last {C.FREEZE_TRAINABLE_LAYERS} layers (LLaMA-Factory default)")
    else:
        adapters = s.lora_params(cfg.lora_rank, cfg.lora_targets)
        frozen = P
        notes.append(f"LoRA rank {cfg.lora_rank} on {cfg.lora_targets} linear layers: {adapters / 1e6:.1f}M trainable")
        if cfg.method == "qlora":
            keep = s.embed_params + s.head_params + vision
            quantized, frozen = max(0.0, P - keep), min(P, keep)
            if kbit_upcast(cfg):
                upcast, frozen = frozen, 0.0
                notes.append(f"base linear layers quantised to {cfg.quant_bits} bit; embeddings, LM head, vision cast "
                             "to fp32 (peft prepare_model_for_kbit_training, called by TRL's SFTTrainer)")
            else:
                notes.append(f"base linear layers quantised to {cfg.quant_bits} bit; embeddings, LM head, vision in bf16")
    # RL stages: extra frozen copies. LoRA/QLoRA reuse the base with adapters disabled (LLaMA-Factory).
    extra = 0.0
    if cfg.stage in ("dpo", "kto", "ppo") and cfg.method in ("full", "freeze"):
        extra += P
        notes.append(f"{cfg.stage}: frozen reference model (bf16 copy of the policy)")
    if cfg.stage == "ppo":
        if cfg.method in ("full", "freeze"):
            extra += P
            notes.append("ppo: full reward model of the policy's size (bf16); value head shares the policy backbone")
        else:
            notes.append("ppo: reward model as a LoRA adapter on the same base (LLaMA-Factory reward_model_type lora)")
    expert_share = (s.expert_params / P) if s.is_moe and P else 0.0
    return ParamSplit(trainable, adapters, frozen + extra, quantized, expert_share, tuple(notes), upcast)


def _quant_bytes(cfg: TrainConfig) -> float:
    return (cfg.quant_bits + C.QUANT_OVERHEAD_BITS) / 8


def fp32_activations(cfg: TrainConfig) -> bool:
    """Whether the residual stream, and so most activations, is fp32: fp32 training, or QLoRA through peft's
    prepare_model_for_kbit_training, whose fp32 embeddings make every layer's input and (with the 4-bit
    layers returning their input's dtype) its outputs fp32; transformers warns that FlashAttention's
    inputs were "silently casted in float32" in that setup."""
    return cfg.precision == "fp32" or kbit_upcast(cfg)


def kbit_upcast(cfg: TrainConfig) -> bool:
    """QLoRA with the unquantised weights cast to fp32 (constants.KBIT_UPCAST_FRAMEWORKS, without DeepSpeed)."""
    return cfg.method == "qlora" and cfg.framework in C.KBIT_UPCAST_FRAMEWORKS and cfg.zero_stage == 0


def act_bytes_per_token_layer(s: Shape, cfg: TrainConfig) -> float:
    """Bytes one token leaves in one layer without recompute (bf16, FlashAttention; twice that in fp32)."""
    moe_extra = 0.0
    if s.is_moe:  # token copies dispatched to k experts and back, fp32 router logits
        moe_extra = (4 * s.hidden * s.experts_per_token + 4 * s.experts) * s.moe_layers / s.layers
    if cfg.megatron:
        h_b, f_b = C.MEGATRON_ACT_H_BYTES, C.MEGATRON_ACT_FFN_BYTES
    elif cfg.framework == "unsloth" and cfg.method in ("lora", "qlora"):
        h_b, f_b = C.UNSLOTH_LORA_ACT_H_BYTES, C.UNSLOTH_LORA_ACT_FFN_BYTES
    elif cfg.compile:
        h_b, f_b = C.COMPILED_ACT_H_BYTES, C.COMPILED_ACT_FFN_BYTES
    else:
        h_b, f_b = C.ACT_H_BYTES, C.ACT_FFN_BYTES
    bf16 = h_b * s.hidden + C.ACT_KV_BYTES * s.kv_dim + f_b * s.ffn_for_activations() + moe_extra
    return 2 * bf16 if fp32_activations(cfg) else bf16


def _activations(s: Shape, cfg: TrainConfig, seqs: int, in_flight: int) -> tuple[Term, float]:
    """(activations on the device, bytes of saved activations offloaded to host RAM per rank)."""
    tokens = cfg.micro_batch * seqs * cfg.seq_len / cfg.cp
    shard = cfg.tp  # sequence parallel splits every activation by TP (Megatron); 1 for DeepSpeed
    layers = s.layers
    if cfg.method == "freeze":  # no gradient flows below the first trainable layer
        layers = min(C.FREEZE_TRAINABLE_LAYERS, s.layers)
    apt = act_bytes_per_token_layer(s, cfg)
    per_layer = apt * tokens / shard
    stage_layers = math.ceil(layers / cfg.pp)
    ckpt_h = C.CKPT_BYTES_PER_H * (2 if fp32_activations(cfg) else 1)
    saved = ckpt_h * s.hidden * tokens / shard if cfg.recompute else per_layer  # kept per layer
    held = stage_layers * in_flight  # layers whose saved tensors wait for backward
    on_device = min(held, C.ACTIVATION_OFFLOAD_LIVE_LAYERS) if cfg.activation_offload else held
    host = saved * (held - on_device)
    total = saved * on_device + (C.RECOMPUTE_PEAK_LAYERS * per_layer if cfg.recompute else 0.0)
    scores = _eager_scores(s, cfg, seqs, on_device if not cfg.recompute else 0)
    total += scores
    kv = 0.0
    if cfg.stage == "ppo":  # rollout generation keeps a KV cache for micro_batch sequences
        kv = 2 * s.layers * s.kv_dim * 2 * cfg.micro_batch * cfg.seq_len / (cfg.tp * cfg.pp)
        total += kv

    def how() -> str:
        if cfg.recompute:
            text = (f"full recompute: {stage_layers} layer inputs x {ckpt_h}·h B/token x {in_flight} in flight"
                    f" + {C.RECOMPUTE_PEAK_LAYERS:g} layer(s) recomputed at {apt / s.hidden:.1f}·h B/token")
        else:
            text = f"no recompute: {stage_layers} layers x {apt / s.hidden:.1f}·h B/token x {in_flight} in flight"
        if cfg.activation_offload:
            text += (f"; activation offloading: {on_device} of the {held} layers' saved tensors on the device, "
                     f"{_gib(host):.2f} GiB in host RAM")
        text += f"; {tokens:.0f} tokens/micro-batch" + (f", /{shard} sequence parallel" if shard > 1 else "")
        if scores:
            text += (f"; + eager attention scores {_gib(scores):.2f} GiB (heads x s^2: {C.EAGER_SCORE_SAVED_BYTES} B kept "
                     f"per score " + ("in the recomputed layer" if cfg.recompute else f"in each of {on_device} layers")
                     + f", {C.EAGER_SCORE_BACKWARD_BYTES} B more in its backward, one {C.EAGER_MASK_BYTES} B causal mask)")
        return text + (f"; + rollout KV cache {_gib(kv):.2f} GiB" if kv else "")

    return Term(_gib(total), how), host


def _eager_scores(s: Shape, cfg: TrainConfig, seqs: int, saved_layers: int) -> float:
    """Bytes of materialised attention scores (constants.EAGER_*) on one device; 0 with a fused kernel. With
    recompute only the layer being recomputed holds them; without, `saved_layers` layers keep theirs for backward,
    beside the backward working set of one layer."""
    if cfg.attention != "eager":
        return 0.0
    per_seq = cfg.seq_len / cfg.cp * cfg.seq_len  # this rank's queries x all keys
    per_layer = cfg.micro_batch * seqs * (s.heads / cfg.tp) * per_seq
    kept = per_layer * C.EAGER_SCORE_SAVED_BYTES * max(1, saved_layers)
    return kept + per_layer * C.EAGER_SCORE_BACKWARD_BYTES + cfg.micro_batch * seqs * per_seq * C.EAGER_MASK_BYTES


def _logits(s: Shape, cfg: TrainConfig, seqs: int) -> Term:
    tokens = cfg.micro_batch * seqs * cfg.seq_len / cfg.cp
    if cfg.stage == "rm":
        return Term(_gib(tokens * 4 * 2), "reward model: scalar value head, no vocabulary logits")
    impl = cfg.loss_impl
    vp = f" / {cfg.tp} vocab-parallel" if cfg.tp > 1 else ""
    if impl == "fused":
        b = tokens * s.hidden * C.FUSED_LOSS_BYTES_PER_H / cfg.tp
        return Term(_gib(b), lambda: f"fused loss: one fp32 chunk of logits and its gradient, {tokens:.0f} tokens x hidden "
                                     f"{s.hidden} x {C.FUSED_LOSS_BYTES_PER_H} B (the full logits never exist){vp}")
    per, what = _vocab_loss(impl, cfg.compile, cfg.framework)
    b = tokens * s.vocab * per / cfg.tp
    return Term(_gib(b), lambda: f"{tokens:.0f} tokens x vocab {s.vocab} x {per} B ({what}){vp}")


def _vocab_loss(impl: str, compiled: bool, framework: str = "") -> tuple[int, str]:
    """Bytes per token per vocabulary entry of a loss over the full logits, and what they hold."""
    if impl == "chunked" and compiled:
        return C.COMPILED_CHUNKED_LOGITS_BYTES, "compiled chunked loss: the bf16 logits; the fp32 softmax recomputed one chunk at a time"
    if impl == "chunked" and framework == "torchtune":
        return C.TORCHTUNE_CHUNKED_LOGITS_BYTES, ("torchtune chunked loss, not compiled: the bf16 logits + every chunk's "
                                                  "saved fp32 log-softmax; the upcast one chunk at a time")
    if impl == "chunked":
        return C.CHUNKED_LOGITS_BYTES, "chunked loss: bf16 logits + their bf16 gradient; fp32 one chunk at a time"
    held = "saved log-softmax + its gradient + the logits' gradient"
    if impl == "half":
        return C.HALF_LOGITS_BYTES, f"loss in half precision over the full vocabulary: {held}"
    return C.LOGITS_BYTES, f"loss over the full vocabulary in fp32: {held}"


def loss_gib(s: Shape, cfg: TrainConfig) -> float:
    """Logits and loss buffers of one micro-batch at their peak. The `logits` term of a Breakdown is
    only the part above the layer-recompute peak that follows it; this is the whole of it."""
    return _logits(s, cfg, C.SEQUENCES_PER_SAMPLE[cfg.stage]).gib


def _count(x: float) -> str:
    return f"{x / 1e9:.2f}B" if x >= 1e8 else f"{x / 1e6:.1f}M"


class States(NamedTuple):
    weights: Term
    gradients: Term
    optimizer: Term
    host: float = 0.0  # bytes per rank offloaded to host RAM


def _deepspeed_states(s: Shape, cfg: TrainConfig, ps: ParamSplit) -> States:
    """(weights, gradients, optimizer, host bytes per rank) under DeepSpeed ZeRO on N data-parallel devices.

    Trained weights T cost bw (bf16 2) + bg (bf16 grad 2) + fp32 grad 4 + master 4 + Adam 8 bytes;
    LoRA adapters A are fp32 (4 + 4 + 8); frozen weights F are bf16 (quantised ones Q at bits/8)."""
    p, n, z, off = cfg.precision, max(1, cfg.devices), cfg.zero_stage, cfg.offload
    bw, bg, b32, bm, ba = C.WEIGHT_BYTES[p], C.GRAD_BYTES[p], C.FP32_GRAD_BYTES[p], C.MASTER_BYTES[p], C.ADAM_BYTES[p]
    T, A, Q = ps.trainable, ps.adapters, ps.quantized
    F = ps.frozen + 2 * ps.upcast  # in bf16-sized units: an fp32 frozen weight counts twice
    aw = C.ADAPTER_BYTES[p] // 4  # adapter weight = its gradient: 4 B (fp32) or 2 B (pure_bf16)
    ba, opt_host = _adam_bytes(cfg, ba)
    qb = _quant_bytes(cfg)
    host = 0.0
    # -- weights: replicated below ZeRO-3; split over N by ZeRO-3 (a quantised base is not split)
    shard = n if z == 3 else 1
    # LLaMA-Factory stores a 4-bit base as bf16-typed bytes (bnb_4bit_quant_storage) under ZeRO-3 so
    # DeepSpeed partitions it; other bit widths are not partitioned (and LLaMA-Factory refuses them).
    q_shard = n if z == 3 and cfg.quant_bits == 4 else 1
    w = live = 0.0
    if z == 3 and off:  # offload_param: everything but the gathered modules lives in host RAM
        host += (bw * T + aw * A + 2 * F) / n
    else:
        w = (bw * T + aw * A + 2 * F) / shard
    if z == 3 and off and q_shard > 1:
        host += qb * Q / n
    else:
        w += qb * Q / q_shard
    if z == 3:  # gathered modules: the largest one plus the next layers (quantised layers at their bits)
        if Q:
            live = (4 if ps.upcast else 2) * max(s.embed_params, s.head_params) + (qb * C.ZERO3_LIVE_LAYERS * s.layer_params if q_shard > 1 else 0)
        else:
            live = 2 * min(T + A + F, s.largest_module_params + C.ZERO3_LIVE_LAYERS * s.layer_params)
        w += live

    def wh() -> str:
        parts = []
        if not (z == 3 and off):
            held = [f"{bw} B x {_count(T)} trained" if T else "", f"{aw} B x {_count(A)} LoRA" if A else "",
                    f"2 B x {_count(ps.frozen)} frozen" if ps.frozen else "",
                    f"4 B x {_count(ps.upcast)} frozen in fp32" if ps.upcast else ""]
            parts.append(" + ".join(x for x in held if x) + (f", / {n} (ZeRO-3)" if z == 3 else ", replicated"))
        if Q:
            parts.append(f"{qb * 8:.2f} bit x {_count(Q)} quantised" + (f", / {n}" if q_shard > 1 else " (not split)"))
        if z == 3:
            parts.append(f"gathered modules {_gib(live):.2f} GiB" + (" (parameters offloaded)" if off else ""))
        return "; ".join(parts)

    # -- gradients: bf16 grads (split from ZeRO-2) + fp32 accumulation (split from ZeRO-1)
    g16, g32 = bg * T + aw * A, b32 * T
    # bf16 buckets: reduce (every stage below 3) and allgather (ZeRO-1/2 re-gather updated partitions);
    # ZeRO-3 reduces through one bucket of reduce_bucket_size "auto" = hidden^2 elements (transformers).
    if n == 1 and z == 0:  # one device without DeepSpeed partitioning: no gradient reduction, no bucket
        bucket = 0.0
    elif z < 3:
        bucket = (1 if z == 0 else 2) * 2 * min(T + A, C.ZERO12_BUCKET_ELEMENTS)
    else:
        bucket = 2 * min(T + A, float(s.hidden) ** 2)
    unsharded = fsdp_unsharded_gradients(s, cfg, ps)
    if cfg.optimizer_in_backward:  # each gradient is stepped and freed as soon as it exists
        g = (bg + b32) * min(T, s.largest_module_params) + aw * A
    elif unsharded:  # FSDP no_sync accumulation: whole units' gradients until the last micro-batch's reduce-scatter
        g = unsharded
    elif off:  # DeepSpeed copies each reduced gradient partition to pinned host memory (fp32)
        g = bucket
        host += (4 * T + 4 * A) / n
    elif z == 0:
        g = g16 + g32 + bucket
    elif z == 1:
        g = g16 + g32 / n + bucket
    elif z == 2:
        g = g16 / n + g32 / n + bucket
    else:  # ZeRO-3 reduce-scatters through its bucket
        g = g16 / n + g32 / n + bucket

    def gh() -> str:
        if cfg.optimizer_in_backward:
            return "optimizer step in backward: one parameter's gradient at a time (the largest module)"
        if unsharded:
            return fsdp_unsharded_how(s, cfg, ps)
        if off:
            return f"reduced gradient partitions go to host RAM (fp32); on the device only the bucket {_gib(bucket):.2f} GiB"
        text = {0: f"({bg}+{b32}) B x trained + {aw} B x LoRA, replicated",
                1: f"{bg} B x trained + {b32} B x trained / {n} (fp32 partition)"}.get(
            z, f"({bg}+{b32}) B x trained + {aw} B x LoRA / {n}")
        return text + f"; {'reduce' if z in (0, 3) else 'reduce + allgather'} bucket(s) {_gib(bucket):.2f} GiB"
    # -- optimizer: fp32 master + Adam m, v (LoRA: Adam only, the adapter weights are the master copy)
    ad_states = (ba if cfg.optimizer != "adamw" else 2 * aw) * A
    states = ba * T + ad_states
    if opt_host:  # paged 8-bit states live in unified memory, paged out to the host
        host += states / max(1, n if z else 1)
        states = 0.0
    opt = bm * T + states
    name = {"adamw": "Adam", "adamw_8bit": "8-bit Adam", "paged_adamw_8bit": "paged 8-bit Adam (on the host)"}[cfg.optimizer]
    if z == 0:
        o, oh = opt, f"master {bm} B + {name} {ba} B x trained + {name} x LoRA, replicated"
    elif off:
        o, oh = 0.0, "offloaded to host RAM (optimizer step on the CPU)"
        host += opt / n
    else:
        o, oh = opt / n, f"master {bm} B + {name} {ba} B x trained + {name} x LoRA, / {n}"
    return States(Term(_gib(w), wh), Term(_gib(g), gh), Term(_gib(o), oh), host)


def _fsdp_gradient_units(s: Shape, cfg: TrainConfig, ps: ParamSplit) -> tuple[float, int, str]:
    """(parameters FSDP computes a gradient for, bytes per gradient, which units): every trained parameter, and with
    adapters in a framework that wraps whole transformer Blocks (constants.FSDP_BLOCK_UNIT_FRAMEWORKS) every parameter of
    the Blocks that hold them. The gradient is in the parameter's storage dtype: fp32 under mixed precision (fp32 master
    parameters) and fp32 training, bf16/fp16 with pure half precision."""
    b = C.GRAD_BYTES[cfg.precision] if C.MASTER_BYTES[cfg.precision] == 0 else 4
    if ps.adapters and cfg.framework in C.FSDP_BLOCK_UNIT_FRAMEWORKS:
        return s.layers * s.layer_params + ps.adapters, b, f"{s.layers} Blocks x {_count(s.layer_params)} (whole units: frozen weights included)"
    return ps.trainable + ps.adapters, b, "the trained parameters"


def fsdp_unsharded_gradients(s: Shape, cfg: TrainConfig, ps: ParamSplit) -> float:
    """Bytes of unsharded gradients one rank holds while FSDP accumulates without syncing (constants.FSDP_NO_SYNC_FRAMEWORKS):
    FSDP full shard (zero_stage 3) over more than one device, gradient accumulation above 1, no offload; 0 otherwise.
    Each unit's gradient stays whole on every rank from the first micro-batch's backward until the last one's
    reduce-scatter, so it sits beside the activations of every micro-batch after the first.
    Checked on ../shared/eval/measurements_dev.csv litgpt-08 (LitGPT 8641822, Llama-2-7B LoRA r 8 on q, v, 2 x A100 40 GB,
    micro-batch 1, global batch 128, bf16-true): 32 Blocks x 202.4M x 2 B = 12.07 GiB beside the 6.28 GiB shard; measured
    22.18 GB = 20.66 GiB max allocated."""
    if (cfg.framework not in C.FSDP_NO_SYNC_FRAMEWORKS or cfg.zero_stage != 3 or cfg.devices < 2 or cfg.grad_accum < 2
            or cfg.offload or cfg.megatron):
        return 0.0
    n, b, _ = _fsdp_gradient_units(s, cfg, ps)
    return n * b


def fsdp_unsharded_how(s: Shape, cfg: TrainConfig, ps: ParamSplit) -> str:
    n, b, what = _fsdp_gradient_units(s, cfg, ps)
    return (f"FSDP no_sync over {cfg.grad_accum} micro-batches ({cfg.framework} accumulates without reduce-scatter): "
            f"unsharded gradients of {what} = {_count(n)} x {b} B = {_gib(n * b):.2f} GiB on every rank")


def _adam_bytes(cfg: TrainConfig, adam: int) -> tuple[int, bool]:
    """(bytes of optimizer moments per trained parameter, whether they are paged to the host)."""
    if cfg.optimizer == "adamw":
        return adam, False
    return C.ADAM_8BIT_BYTES, cfg.optimizer == "paged_adamw_8bit"


def _megatron_states(s: Shape, cfg: TrainConfig, ps: ParamSplit) -> States:
    """Megatron/MindSpeed: weights and fp32 main grads split by TP x PP (experts also by EP);
    fp32 master + Adam split by the distributed optimizer over data parallel x context parallel
    (Megatron shards it over get_data_parallel_group(with_context_parallel=True): CP ranks hold the
    same weights and reduce their gradients together, so they share the optimizer shard too)."""
    tp, pp, ep = cfg.tp, cfg.pp, max(1, cfg.ep)
    dp_cp = cfg.dp * cfg.cp
    e = ps.expert_share

    def per_dev(x: float) -> float:  # parameters held by one device
        return x * ((1 - e) / (tp * pp) + e / (tp * pp * ep))

    def per_dev_opt(x: float) -> float:
        return x / (tp * pp * dp_cp)

    T, A = ps.trainable, ps.adapters
    w = 2 * per_dev(T + ps.frozen) + 4 * per_dev(ps.upcast) + _quant_bytes(cfg) * per_dev(ps.quantized) + 4 * A / (tp * pp)
    g = C.MEGATRON_MAIN_GRAD_BYTES * per_dev(T) + 4 * A / (tp * pp)
    o = C.MEGATRON_OPTIMIZER_BYTES * per_dev_opt(T) + 8 * A / (tp * pp)
    split = f"/(TP {tp} x PP {pp}" + (f", experts /EP {ep}" if e else "") + ")"
    return States(Term(_gib(w), lambda: f"bf16 weights 2 B {split}"),
            Term(_gib(g), lambda: f"fp32 main grads {C.MEGATRON_MAIN_GRAD_BYTES} B x trainable {split}"),
            Term(_gib(o), lambda: f"distributed optimizer: {C.MEGATRON_OPTIMIZER_BYTES} B x trainable {split} / DP {cfg.dp}"
                                     + (f" x CP {cfg.cp}" if cfg.cp > 1 else "")))


def outside_pool_gib(dev: Device, cfg: TrainConfig) -> tuple[float, float]:
    """(runtime context, communicator buffers) in GiB: device memory the runtime takes outside the caching allocator.
    The CUDA context (with its module images) and torch_npu's CANN context exist before the first tensor; NCCL and HCCL
    allocate their buffers themselves (cudaMalloc / aclrtMalloc), not through PyTorch's allocator. So they are in what
    the device reports in use (nvidia-smi, npu-smi) and in what an out-of-memory error is judged on, but not in
    torch.cuda.max_memory_reserved. Checked on ../shared/eval/measurements_dev.csv fq-03 (fsdp_qlora, Llama-2-7B LoRA
    r 64, 2048 tokens, FSDP on 2 GPUs): 9.16 GiB peak allocated, 10.22 GiB peak reserved; the estimate's pool above its
    tensors is fragmentation 0.33 + cached loss blocks 0.73 = 1.06 GiB, the measured 10.22 - 9.16 = 1.06, and the
    context 0.5 + NCCL 0.5 GiB sit outside both figures."""
    ctx = C.CONTEXT_GIB.get(dev.kind, C.CONTEXT_GIB["gpu"])
    comm = C.COLLECTIVES_GIB.get(dev.kind, C.COLLECTIVES_GIB["gpu"]) if cfg.devices > 1 else 0.0
    return ctx, comm


def overhead(dev: Device, cfg: TrainConfig, all_gib: float, transient_gib: float) -> Term:
    """What the runtime reserves beside the tensors: its context, collective buffers (more than one
    device) and the caching allocator's fragmentation (constants.CONTEXT_GIB etc.). Fragmentation is a
    share of the tensors allocated and freed every step (`transient_gib`) on GPUs, of all tensors on
    Ascend (constants.FRAGMENTATION_OF)."""
    ctx, comm = outside_pool_gib(dev, cfg)
    share = C.FRAGMENTATION.get(dev.kind, C.FRAGMENTATION["gpu"])
    expandable = cfg.expandable_segments and dev.kind == "gpu"
    if expandable:
        share = 0.0
    of_transient = C.FRAGMENTATION_OF.get(dev.kind, "transient") == "transient"
    basis = transient_gib if of_transient else all_gib
    frag = share * basis
    lib = "HCCL" if dev.kind == "npu" else "NCCL"
    what = "the activations and loss buffers, freed and reallocated every step" if of_transient else "all tensors"
    return Term(ctx + comm + frag, lambda: f"runtime context {ctx:g} GiB" + (f" + {lib} buffers {comm:g} GiB" if comm else "")
                + (" + no allocator fragmentation (expandable segments)" if expandable else
                   f" + allocator fragmentation {share:.0%} of {what}, {basis:.2f} GiB = {frag:.2f} GiB"))


def cached_blocks(s: Shape, cfg: TrainConfig, room_gib: float) -> Term:
    """Blocks the caching allocator keeps from steps at other batch lengths, which it frees and retries with before
    an out-of-memory error (constants.POOL_CACHED_LOSS_SETS): in the pool (peak reserved), not in what an OOM is
    judged on, and never more than the room the device has left (`room_gib`: usable less the rest of the pool),
    since the allocator frees them when it runs out. None with fixed-length batches (packing, padding to the maximum
    length; MindSpeed-LLM pads to the sequence length) or expandable segments."""
    if cfg.megatron or cfg.fixed_length or cfg.expandable_segments:
        why = "expandable segments" if cfg.expandable_segments else "fixed-length batches"
        return Term(0.0, f"no cached loss blocks from other batch lengths ({why})")
    full = C.POOL_CACHED_LOSS_SETS * loss_gib(s, cfg)
    b = max(0.0, min(full, room_gib))
    return Term(b, lambda: f"{C.POOL_CACHED_LOSS_SETS:g} set of the loss buffers "
                           f"({full:.2f} GiB) from a step at another batch length"
                           + (", capped at the device's free room" if b < full else "")
                           + "; kept until an allocation fails, then freed and retried, so not in the verdict")


def gathered_block_pinning(s: Shape, cfg: TrainConfig, dev: Device) -> Term:
    """Gathered ZeRO-3 blocks the allocator's pool may keep pinned beside the tensors (constants.ZERO3_PINNING_KINDS):
    DeepSpeed ZeRO-3 over more than one device (not FSDP, not Megatron), on a part whose measured runs show it, without
    expandable segments. At most one largest gathered block per layer: the layer's widest weight matrix (the MLP's
    hidden x ffn, an expert's hidden x moe_ffn, or the query projection), at the bytes it is gathered in."""
    if (cfg.zero_stage != 3 or cfg.devices < 2 or cfg.megatron or cfg.framework in C.FSDP_FRAMEWORKS
            or cfg.expandable_segments or dev.kind not in C.ZERO3_PINNING_KINDS):
        return Term(0.0, "no pinned gathered blocks")
    width = max(s.ffn, s.dense_ffn, s.moe_ffn, s.q_dim)
    quantised = cfg.method == "qlora" and cfg.quant_bits == 4  # LLaMA-Factory partitions a 4-bit base under ZeRO-3
    per = _quant_bytes(cfg) if quantised else C.WEIGHT_BYTES[cfg.precision]
    layers = math.ceil(s.layers / cfg.pp)
    b = layers * s.hidden * width * per
    return Term(_gib(b), lambda: f"up to {layers} layers x one gathered block of hidden {s.hidden} x {width} x {per:g} B "
                                 f"= {_gib(b):.2f} GiB of pool pinned by tensors that outlive their layer (ZeRO-3 gathers "
                                 "without expandable segments): in the open scenario's upper end, not in the point or the likely range")


def attention_unsure(s: Shape, cfg: TrainConfig, dev: Device, seqs: int) -> float:
    """GiB of materialised attention scores (constants.EAGER_*) the range's upper end holds when the inputs leave the
    kernel open: attention not stated, on Ascend, in a Hugging Face based stack (Megatron/MindSpeed-LLM runs
    NPU_Flash_Attn through --use-flash-attn). There `sdpa` (LLaMA-Factory's `flash_attn: auto` on NPU) reaches the
    fused kernel only on newer torch_npu and mask forms, and falls back to the math path (s x s per head) otherwise:
    LLaMA-Factory issue 4572 (../shared/eval/measurements_dev2.csv d3-lfnpu-05: Qwen2-7B full, 8192 tokens,
    `flash_attn: sdpa` on 910B, out of memory on 64 cards where the fused estimate is 22 GiB): 28 heads x 8192^2
    x (6 + 10) B + an 8192^2 x 2 B mask = 28.1 GiB."""
    if cfg.attention_given or cfg.attention == "eager" or cfg.megatron or dev.kind != "npu":
        return 0.0
    eager = cfg._replace(attention="eager")
    saved = 0 if cfg.recompute else math.ceil(s.layers / cfg.pp)
    return _gib(_eager_scores(s, eager, seqs, saved))


def foreach_step_temporary(s: Shape, cfg: TrainConfig, ps: ParamSplit) -> float:
    """Bytes of the temporary torch.optim.AdamW's multi-tensor (foreach) step allocates on one device
    (constants.FOREACH_ADAMW_FRAMEWORKS): sqrt(v) of every parameter it steps, at the moments' width, over the parameters
    this device steps (its ZeRO partition from stage 1; under DeepSpeed ZeRO-3 one sub-group of it). 0 for another optimizer, a step on the host (offload) or in
    backward, and Megatron."""
    if (cfg.optimizer != "adamw" or cfg.framework not in C.FOREACH_ADAMW_FRAMEWORKS or cfg.offload or cfg.megatron
            or cfg.optimizer_in_backward):
        return 0.0
    per = C.ADAM_BYTES[cfg.precision] / 2  # one of the two moments
    lora = C.ADAPTER_BYTES[cfg.precision] // 4  # an adapter's moment is its own width (fp32, or bf16 with pure_bf16)
    n = max(1, cfg.devices) if cfg.zero_stage else 1
    b = (per * ps.trainable + lora * ps.adapters) / n
    if cfg.zero_stage == 3 and cfg.framework not in C.FSDP_FRAMEWORKS:  # DeepSpeed steps ZeRO-3 one sub-group at a time
        b = min(b, per * C.ZERO3_SUB_GROUP_ELEMENTS)
    return b


def _step_peak(s: Shape, cfg: TrainConfig, dev: Device, ps: ParamSplit, w: Term, g: Term, o: Term,
               needed_gib: float) -> tuple[Term, float]:
    """(what the optimizer step adds above the backward's peak, GiB of tensors at the step). At the step the weights, the whole
    gradients and the optimizer states are live beside the foreach temporary (foreach_step_temporary); the activations
    and loss buffers are freed, and their cached blocks serve the temporary, so the step's peak is those tensors plus
    the runtime context and the collectives' buffers. Where it passes what the backward holds (`needed_gib`, the pool
    less its cached blocks), the difference is the `step` term of the breakdown.
    Checked on ../shared/eval/measurements_dev2.csv d3-swift-14 (ms-swift, HF Trainer's AdamW, Qwen-7B full fine-tuning
    in bf16 on one A100: 74.26 GiB max reserved): 7.72e9 x (2 weights + 2 gradients + 4 moments + 2 sqrt(v)) B = 71.9 GiB
    + context 0.5 GiB."""
    temp = foreach_step_temporary(s, cfg, ps)
    if not temp:
        return Term(0.0, NO_STEP_PEAK), 0.0
    ctx, comm = outside_pool_gib(dev, cfg)
    tensors = w.gib + g.gib + o.gib + _gib(temp)
    step = tensors + ctx + comm
    excess = max(0.0, step - needed_gib)
    def how() -> str:
        return (f"foreach AdamW's sqrt(v) temporary {_gib(temp):.2f} GiB beside the weights, whole gradients and states: "
                f"{tensors:.2f} GiB of tensors + the runtime's {ctx + comm:g} GiB = {step:.2f} GiB at the step (activations "
                f"and loss buffers freed) vs {needed_gib:.2f} GiB at the backward's peak: "
                + ("adds the difference" if excess else "adds nothing"))

    return Term(excess, how), tensors


def transient_gradients(cfg: TrainConfig) -> bool:
    """Whether the gradients exist only during backward: plain PyTorch training (no DeepSpeed gradient
    buffers: pure bf16 or fp32 on one device with ZeRO-0) that sets them to None after each step
    (optimizer.zero_grad(set_to_none=True), the default of torchtune and the HF Trainer) with no
    gradient accumulation. Backward frees each layer's activations as it writes that layer's gradients,
    so the gradients peak at its end, when the activations are gone."""
    return (not cfg.megatron and cfg.zero_stage == 0 and cfg.devices == 1 and cfg.grad_accum == 1
            and C.FP32_GRAD_BYTES[cfg.precision] == 0 and not cfg.optimizer_in_backward)


def _gradient_peak(s: Shape, cfg: TrainConfig, g: Term, act: Term, logits: Term, seqs: int) -> Term:
    """The gradient term as it adds to the peak when gradients are transient: at the end of backward all
    gradients exist beside the first layer's working set (recomputed or stored), at its start the
    activations and logits; only the part of the former above the latter adds."""
    tokens = cfg.micro_batch * seqs * cfg.seq_len
    layer = _gib(act_bytes_per_token_layer(s, cfg) * tokens)
    start, end = act.gib + logits.gib, g.gib + layer
    return Term(max(0.0, end - start),
                lambda: f"{g.how} = {g.gib:.2f} GiB, allocated during backward and set to None after the step "
                        f"(no ZeRO buffers, gradient accumulation 1): at the end of backward gradients + the first "
                        f"layer's working set {layer:.2f} GiB = {end:.2f} GiB vs activations + logits {start:.2f} GiB "
                        "at its start: adds max(0, difference)")


def training_memory(s: Shape, cfg: TrainConfig, dev: Device) -> Breakdown:
    ps = split_params(s, cfg)
    seqs = C.SEQUENCES_PER_SAMPLE[cfg.stage]
    host = 0.0
    st = _megatron_states(s, cfg, ps) if cfg.megatron else _deepspeed_states(s, cfg, ps)
    w, g, o, host = st.weights, st.gradients, st.optimizer, st.host
    # 1F1B: the first pipeline stage holds pp micro-batches in flight; the last holds one plus the logits.
    act, act_host = _activations(s, cfg, seqs, cfg.pp)
    host += act_host
    logits = _logits(s, cfg, seqs)
    if cfg.pp > 1:
        last, _ = _activations(s, cfg, seqs, 1)
        if last.gib + logits.gib > act.gib:
            act = Term(last.gib, lambda t=last: "last pipeline stage: " + t.how)
        else:
            act = Term(act.gib, lambda t=act: "first pipeline stage: " + t.how)
            logits = Term(0.0, lambda t=logits: "on the last pipeline stage, which is not the peak: " + t.how)
    if cfg.recompute and logits.gib > 0:
        # The loss (and its logits buffers) is done before backward starts recomputing layers, so
        # the two transient peaks do not coexist: only the part of the logits above the recompute
        # peak adds to the total.
        peak = C.RECOMPUTE_PEAK_LAYERS * act_bytes_per_token_layer(s, cfg) * (
            cfg.micro_batch * seqs * cfg.seq_len / cfg.cp) / cfg.tp / C.GIB
        full = logits
        logits = Term(max(0.0, full.gib - peak),
                      lambda f=full, p=peak: f"{f.how} = {f.gib:.2f} GiB, live before the layer recompute "
                                             f"({p:.2f} GiB) starts: adds max(0, difference)")
    transient = act.gib + logits.gib
    if transient_gradients(cfg):
        g = _gradient_peak(s, cfg, g, act, logits, seqs)
        transient += g.gib
    subtotal = w.gib + g.gib + o.gib + act.gib + logits.gib
    ov = overhead(dev, cfg, subtotal, transient)
    usable = dev.capacity_gib
    cache = cached_blocks(s, cfg, usable - subtotal - ov.gib)
    total = subtotal + ov.gib + cache.gib
    # the optimizer step, after backward: the activations and loss buffers are free, the step's own temporary is not
    step, step_tensors = _step_peak(s, cfg, dev, ps, w, st.gradients, o, total - cache.gib)
    allocated = max(subtotal, step_tensors)
    if step.gib:  # the step's temporary is cut from the cached blocks first: the pool is the larger of the two peaks
        kept = max(0.0, cache.gib - step.gib)
        cache = Term(kept, lambda c=cache, k=kept: f"{c.how}; the optimizer step's temporary reuses them: {k:.2f} GiB left")
        total = subtotal + ov.gib + step.gib + cache.gib
    per_node = min(cfg.devices, dev.devices_per_node)
    host_node = _gib(host) * per_node * C.HOST_OFFLOAD_FACTOR
    host_t = Term(host_node, lambda: (f"{per_node} ranks x {_gib(host):.2f} GiB offloaded x {C.HOST_OFFLOAD_FACTOR} "
                                      "(pinned buffers)" if host else "no offload"))
    notes = list(ps.notes)
    if seqs > 1:
        notes.append(f"{cfg.stage}: {seqs} sequences per sample in each micro-batch")
    # The verdict and the plan are judged on what the allocator cannot give back: the pool less its cached blocks
    # (cached_blocks). The range reported is the pool's (the cached blocks added back to both ends).
    needed = total - cache.gib
    open_gib = attention_unsure(s, cfg, dev, seqs)
    if open_gib:
        notes.append(f"if attention falls back to the math path, {open_gib:.1f} GiB of attention scores (s x s per head) "
                     "come on top: whether SDPA reaches NPU_Flash_Attn on Ascend depends on the torch_npu version and the "
                     "mask; say attention 'fused' or 'eager' to settle it")
    pinned = gathered_block_pinning(s, cfg, dev)
    if pinned.gib:
        notes.append(f"ZeRO-3 on {dev.id}: the allocator's pool may keep up to {pinned.gib:.1f} GiB of gathered blocks "
                     "pinned by tensors that outlive their layer (reported out-of-memory errors show the pool far above "
                     "the tensors); PYTORCH_NPU_ALLOC_CONF=expandable_segments:True avoids it (say expandable segments)")
    # the measured range, and beside it the scenario of what the inputs leave open (the attention kernel, the pool's
    # pinned gathered blocks): its own upper end, which the verdict judges too (a "tight" that names its cause)
    low, high = training_range(needed)
    eager_high = open_upper(needed, open_gib + pinned.gib)
    word = verdict(low, max(high, eager_high), usable)
    margin = 1.0 if cfg.tightest else C.PLAN_MARGIN.get(dev.kind, C.PLAN_MARGIN["gpu"])
    # sized on the upper end: the range's, with the fused kernel. A fallback to the math path is a kernel to settle, not
    # a count to buy: its scores stay per sequence whatever the number of devices
    plan_fits = verdict(low, high, usable) == "fits" if cfg.upper_end else needed * margin <= usable
    return Breakdown(w, g, o, act, logits, ov, round(total, 3), round(usable, 3), word == "fits",
                     host_t, host_node <= C.HOST_RAM_GIB_PER_NODE, notes, round(allocated, 3), round(low + cache.gib, 3),
                     round(high + cache.gib, 3), word, plan_fits, cache, open_gib,
                     round(eager_high + cache.gib, 3) if open_gib or pinned.gib else 0.0, pinned, step,
                     round(total - sum(outside_pool_gib(dev, cfg)), 3))
