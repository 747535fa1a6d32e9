"""Estimator tools (estimate_training_memory, plan_training, estimate_inference, compare_hardware).

The numbers come from assistant/estimate (pure functions); this module resolves names, validates
arguments into the canonical error shape and puts the vendor table row beside the estimate (the
`table` field), never into it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from ..errors import SizingError
from ..estimate import constants as C
from ..estimate.calibrate import TABLE_HARDWARE, device_from_row, flag_inconsistent
from ..estimate.inference import plan_inference
from ..estimate.memory import Breakdown, Device, TrainConfig, training_memory
from ..estimate.plan import Plan
from ..estimate.plan import plan_training as _plan
from ..estimate.shape import Shape, from_catalog, from_params, lora_targets_valid, with_overrides
from .common import MAX_SEQ_LEN, Framework, _alias
from .registry import tool

Method = Annotated[
    Literal["full", "freeze", "lora", "qlora"],
    _alias({"全参": "full", "全量": "full", "full-finetune": "full", "full-ft": "full", "sft-full": "full",
            "lora-sft": "lora", "q-lora": "qlora", "冻结": "freeze", "partial": "freeze"}),
    Field(description="Fine-tuning method (LLaMA-Factory finetuning_type): full, freeze, lora, or qlora (LoRA on a quantised base)."),
]
Stage = Annotated[
    Literal["pt", "sft", "dpo", "kto", "rm", "ppo"],
    _alias({"pretrain": "pt", "pre-train": "pt", "reward": "rm", "reward-model": "rm"}),
    Field(description="Training stage (LLaMA-Factory stage): pt, sft, dpo, kto, rm, ppo."),
]
Precision = Annotated[
    Literal["bf16", "fp16", "fp32", "pure_bf16"],
    _alias({"bfloat16": "bf16", "float16": "fp16", "half": "fp16", "float32": "fp32", "pure-bf16": "pure_bf16"}),
    Field(description="bf16/fp16 mixed precision (default), fp32, or pure_bf16 (bf16 weights and optimizer)."),
]
HardwareName = Annotated[str, Field(min_length=1, max_length=100,
                                    description="Hardware in any spelling: snt9b (910B), snt9b23 (910C, counted in DIE), "
                                                "snt9b-32g (32G cards), a100, h100, h200, l40s, 4090 ...")]


class CustomShape(BaseModel):
    """Shape fields that replace the catalog's (or the inferred) ones."""

    layers: int | None = Field(None, ge=1, le=1000)
    hidden: int | None = Field(None, ge=64, le=131072)
    ffn: int | None = Field(None, ge=64, le=1048576)
    heads: int | None = Field(None, ge=1, le=1024)
    kv_heads: int | None = Field(None, ge=1, le=1024)
    head_dim: int | None = Field(None, ge=8, le=1024)
    vocab: int | None = Field(None, ge=1, le=4_000_000)
    experts: int | None = Field(None, ge=0, le=4096)
    experts_per_token: int | None = Field(None, ge=0, le=256)
    moe_ffn: int | None = Field(None, ge=0, le=1048576)


class ModelArgs(BaseModel):
    model: str | None = Field(None, min_length=1, max_length=200,
                              description="Model name in any spelling; omit and give params_b for a model not in the catalog.")
    params_b: float | None = Field(None, gt=0, le=100_000, description="Total parameters in billions, for a model not in the catalog (shape inferred).")
    shape: CustomShape | None = Field(None, description="Custom shape overriding the catalog or inferred one.")


class ShapeInfo(BaseModel):
    model: str
    params_b: float
    active_params_b: float
    layers: int
    hidden: int
    ffn: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    moe: bool
    mla: bool
    inferred: list[str] = Field(default_factory=list, description="Fields assumed rather than read from the catalog.")


# ---------------------------------------------------------------- helpers
_HW_WORDS = ("cards", "card", "gpus", "gpu", "npus", "npu", "卡", "显卡", "nodes", "node")


def resolve_hardware(ctx, name: str) -> tuple[str, Device]:
    """Any catalog spelling; words like 'cards' or 'GPUs' are ignored ('32G cards' -> snt9b-32g)."""
    try:
        hw_id = ctx.resolver.hardware_id(name)
    except SizingError:
        cleaned = name.lower()
        for w in _HW_WORDS:
            cleaned = cleaned.replace(w, " ")
        cleaned = " ".join(cleaned.split())
        if not cleaned:
            raise
        hw_id = ctx.resolver.hardware_id(cleaned)
    return hw_id, device_from_row(ctx.kb.hardware_row(hw_id))


def resolve_shape(ctx, args: ModelArgs) -> tuple[Shape, str | None]:
    """(shape, catalog id or None). A raw count infers a Llama-like shape (see estimate/shape.py)."""
    model_id = None
    if args.model:
        model_id = ctx.resolver.model_id(args.model)
        row = ctx.kb.model(model_id)
        if not row or not row.get("layers"):
            raise SizingError("no_shape", f"The catalog has no shape for {model_id}; give params_b or a shape.", field="model")
        shape = from_catalog(row)
    elif args.params_b:
        shape = from_params(args.params_b)
    else:
        raise SizingError("invalid_arguments", "Give a model name or params_b (total parameters in billions).",
                          field="model", valid=["model", "params_b"])
    if args.shape:
        shape = with_overrides(shape, **args.shape.model_dump(exclude_none=True))
        if shape.heads % shape.kv_heads:
            raise SizingError("invalid_arguments", f"kv_heads {shape.kv_heads} must divide heads {shape.heads}.",
                              field="shape.kv_heads", valid=[k for k in range(1, shape.heads + 1) if shape.heads % k == 0])
    return shape, model_id


def context_note(ctx, model_id: str | None, seq_len: int) -> list[str]:
    row = ctx.kb.model(model_id) if model_id else None
    limit = int(row["max_context"]) if row and row.get("max_context") else None
    if limit and seq_len > limit:
        return [f"{seq_len} tokens is beyond {model_id}'s max_position_embeddings ({limit}); it needs RoPE scaling "
                "(e.g. rope_scaling in LLaMA-Factory) and the estimate assumes it is used"]
    return []


def shape_info(s: Shape) -> ShapeInfo:
    return ShapeInfo(model=s.name, params_b=round(s.params / 1e9, 3), active_params_b=round((s.active_params or s.params) / 1e9, 3),
                     layers=s.layers, hidden=s.hidden, ffn=s.ffn, heads=s.heads, kv_heads=s.kv_heads, head_dim=s.hd,
                     vocab=s.vocab, moe=s.is_moe, mla=s.is_mla, inferred=list(s.inferred))


def check_seq_len(seq_len: int, field: str = "seq_len") -> None:
    if seq_len < 1 or seq_len > MAX_SEQ_LEN:
        raise SizingError("invalid_arguments", f"{field} must be between 1 and {MAX_SEQ_LEN} tokens, got {seq_len}.",
                          field=field, valid=f"1..{MAX_SEQ_LEN}")


class MemoryBreakdown(BaseModel):
    weights_gib: float
    gradients_gib: float
    optimizer_gib: float = Field(description="Optimizer states (fp32 master + Adam).")
    activations_gib: float
    logits_gib: float = Field(description="Logits and loss buffers.")
    overhead_gib: float = Field(description="Framework overhead: runtime, collectives, allocator fragmentation.")
    total_gib: float
    usable_gib: float = Field(description="What the device reports as total capacity.")
    headroom_gib: float
    fits: bool
    host_ram_gib: float = Field(description="Host RAM per node for offloaded states (0 without offload).")
    host_ram_fits: bool
    how: dict[str, str] = Field(description="How each figure was computed.")


def breakdown_model(b: Breakdown) -> MemoryBreakdown:
    terms = {"weights": b.weights, "gradients": b.gradients, "optimizer": b.optimizer, "activations": b.activations,
             "logits": b.logits, "overhead": b.overhead, "host_ram": b.host_ram_gib}
    how = {k: v.how for k, v in terms.items()}
    how["total"] = "sum of the terms above"
    how["usable"] = "nominal memory x reported-capacity fraction (Ascend: 60.97 of 64 GiB)"
    return MemoryBreakdown(
        weights_gib=round(b.weights.gib, 3), gradients_gib=round(b.gradients.gib, 3), optimizer_gib=round(b.optimizer.gib, 3),
        activations_gib=round(b.activations.gib, 3), logits_gib=round(b.logits.gib, 3), overhead_gib=round(b.overhead.gib, 3),
        total_gib=b.total_gib, usable_gib=b.usable_gib, headroom_gib=round(b.usable_gib - b.total_gib, 3), fits=b.fits,
        host_ram_gib=round(b.host_ram_gib.gib, 3), host_ram_fits=b.host_fits, how=how)


# ---------------------------------------------------------------- estimate_training_memory
class EstimateTrainingMemoryArgs(ModelArgs):
    method: Method = "lora"
    stage: Stage = "sft"
    seq_len: int = Field(4096, description="Tokens per sequence (cutoff_len / SEQ_LEN), 1..1048576.")
    micro_batch: int = Field(1, description="Sequences per device per step (per_device_train_batch_size / MBS), >= 1.")
    devices: int = Field(1, description="Devices (cards; DIE on Snt9B23) in the job, >= 1.")
    zero_stage: Literal[0, 1, 2, 3] = Field(0, description="DeepSpeed ZeRO stage (LLaMA-Factory).")
    offload: bool = Field(False, description="CPU offload: optimizer (ZeRO-2) or optimizer and parameters (ZeRO-3).")
    tp: int = Field(1, description="Tensor parallel size (MindSpeed-LLM); must divide the attention and KV heads.")
    pp: int = Field(1, description="Pipeline parallel size (MindSpeed-LLM).")
    cp: int = Field(1, description="Context parallel size (MindSpeed-LLM).")
    precision: Precision = "bf16"
    recompute: bool = Field(True, description="Full activation recompute (gradient checkpointing; LLaMA-Factory's default).")
    lora_rank: int = Field(C.DEFAULT_LORA_RANK, description="LoRA rank, >= 1 (LLaMA-Factory default 8).")
    lora_targets: str = Field("all", max_length=200, description="'all', 'attention', 'mlp' or module names (q_proj,v_proj,...).")
    quant_bits: Literal[2, 3, 4, 8] = Field(4, description="QLoRA base quantisation bits.")
    hardware: HardwareName = "snt9b"
    framework: Framework | None = Field(None, description="LLaMA-Factory (DeepSpeed ZeRO) or MindSpeed-LLM (TP/PP); default LLaMA-Factory, or MindSpeed-LLM when tp/pp/cp > 1.")


class TrainingMemoryResult(MemoryBreakdown):
    model: str
    shape: ShapeInfo
    method: str
    stage: str
    seq_len: int
    micro_batch: int
    devices: int
    framework: str
    zero_stage: int | None
    offload: bool
    tp: int
    pp: int
    cp: int
    data_parallel: int
    hardware: str
    unit: str
    assumptions: list[str]
    notes: list[str] = Field(default_factory=list)


def _validate_train(a: EstimateTrainingMemoryArgs, s: Shape) -> str:
    check_seq_len(a.seq_len)
    for name in ("micro_batch", "devices", "tp", "pp", "cp"):
        v = getattr(a, name)
        if v < 1:
            raise SizingError("invalid_arguments", f"{name} must be at least 1, got {v}.", field=name, valid=">= 1")
    if a.micro_batch > 4096 or a.devices > 1_000_000:
        raise SizingError("invalid_arguments", "micro_batch <= 4096 and devices <= 1000000.", field="devices")
    if a.method in ("lora", "qlora") and a.lora_rank < 1:
        raise SizingError("invalid_arguments", f"lora_rank must be at least 1, got {a.lora_rank}.", field="lora_rank", valid=">= 1")
    if a.lora_rank > 65536:
        raise SizingError("invalid_arguments", "lora_rank must be at most 65536.", field="lora_rank", valid="1..65536")
    if not lora_targets_valid(a.lora_targets):
        raise SizingError("invalid_arguments", f"Unknown lora_targets {a.lora_targets!r}.", field="lora_targets",
                          valid=["all", "attention", "mlp", "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj"])
    kv = s.heads if s.is_mla else s.kv_heads
    if s.heads % a.tp or kv % a.tp:
        raise SizingError("invalid_arguments", f"tp={a.tp} must divide the attention heads ({s.heads}) and KV heads ({kv}).",
                          field="tp", valid=[t for t in range(1, s.heads + 1) if s.heads % t == 0 and kv % t == 0])
    if a.pp > s.layers:
        raise SizingError("invalid_arguments", f"pp={a.pp} exceeds the {s.layers} layers.", field="pp", valid=f"1..{s.layers}")
    mp = a.tp * a.pp * a.cp
    if a.devices % mp:
        raise SizingError("invalid_arguments", f"devices={a.devices} must be a multiple of tp x pp x cp = {mp}.",
                          field="devices", valid=[mp * k for k in range(1, 9)])
    framework = a.framework or ("MindSpeed-LLM" if mp > 1 else "LLaMA-Factory")
    if framework == "LLaMA-Factory" and mp > 1:
        raise SizingError("invalid_arguments", "LLaMA-Factory (DeepSpeed) has no tensor/pipeline/context parallelism; "
                          "use framework MindSpeed-LLM or tp=pp=cp=1.", field="tp", valid=[1])
    if a.stage == "ppo" and a.zero_stage == 3 and framework == "LLaMA-Factory":
        raise SizingError("invalid_arguments", "PPO does not support ZeRO-3 on ModelArts LLaMA-Factory.", field="zero_stage", valid=[0, 1, 2])
    if a.offload and (a.zero_stage == 0 or framework != "LLaMA-Factory"):
        raise SizingError("invalid_arguments", "offload needs DeepSpeed ZeRO-1, 2 or 3 (LLaMA-Factory).", field="offload", valid=[False])
    if a.method == "qlora" and a.zero_stage == 3 and a.quant_bits != 4:
        raise SizingError("invalid_arguments", "LLaMA-Factory allows QLoRA with ZeRO-3 only at 4 bits.",
                          field="quant_bits", valid=[4])
    if a.precision == "pure_bf16" and a.zero_stage == 3:
        raise SizingError("invalid_arguments", "LLaMA-Factory rejects pure_bf16 with ZeRO-3.", field="precision", valid=["bf16", "fp16", "fp32"])
    return framework


def _assumptions(s: Shape, cfg: TrainConfig, dev: Device) -> list[str]:
    out = ["activations in bf16 with FlashAttention (no s^2 term)",
           f"usable memory = {dev.memory_gb:g} GB x {C.CAPACITY_FRACTION.get(dev.kind, 1):.3f} reported capacity"]
    if cfg.megatron:
        out.append("MindSpeed-LLM: distributed optimizer, sequence parallel with TP, 1F1B pipeline")
    else:
        out.append(f"DeepSpeed ZeRO-{cfg.zero_stage}" + (" with CPU offload" if cfg.offload else "") + " over data parallel")
    if s.inferred:
        out.append("shape inferred from the parameter count: " + ", ".join(s.inferred))
    return out


@tool
def estimate_training_memory(ctx, args: EstimateTrainingMemoryArgs) -> TrainingMemoryResult:
    """Estimate per-device training memory (GiB) for a model and setup: weights, gradients, optimizer states, activations, logits/loss buffers, framework overhead, total vs usable memory, fits, host RAM for offload; each figure says how it was computed.

    Methods full|freeze|lora|qlora; stages pt|sft|dpo|kto|rm|ppo; DeepSpeed ZeRO 0-3 with or without offload (LLaMA-Factory) or TP/PP/CP (MindSpeed-LLM). Give model, or params_b for a model not in the catalog."""
    s, model_id = resolve_shape(ctx, args)
    framework = _validate_train(args, s)
    hw_id, dev = resolve_hardware(ctx, args.hardware)
    cfg = TrainConfig(method=args.method, stage=args.stage, seq_len=args.seq_len, micro_batch=args.micro_batch,
                      devices=args.devices, framework=framework, zero_stage=args.zero_stage, offload=args.offload,
                      tp=args.tp, pp=args.pp, cp=args.cp, precision=args.precision, recompute=args.recompute,
                      lora_rank=args.lora_rank, lora_targets=args.lora_targets, quant_bits=args.quant_bits)
    b = training_memory(s, cfg, dev)
    notes = list(b.assumptions) + context_note(ctx, model_id, args.seq_len)
    if s.is_moe:
        notes.append(f"MoE: {s.params / 1e9:.1f}B parameters stored, {(s.active_params or s.params) / 1e9:.1f}B active per token")
    if args.devices == 1 and args.zero_stage in (1, 2, 3) and not args.offload:
        notes.append("ZeRO-1/2/3 on one device partitions nothing; only offload saves memory there")
    return TrainingMemoryResult(**breakdown_model(b).model_dump(), model=model_id or s.name, shape=shape_info(s),
                                method=args.method, stage=args.stage, seq_len=args.seq_len, micro_batch=args.micro_batch,
                                devices=args.devices, framework=framework,
                                zero_stage=None if cfg.megatron else args.zero_stage, offload=args.offload,
                                tp=args.tp, pp=args.pp, cp=args.cp, data_parallel=cfg.dp, hardware=hw_id, unit=dev.unit,
                                assumptions=_assumptions(s, cfg, dev), notes=notes)


# ---------------------------------------------------------------- plan_training
class PlanTrainingArgs(ModelArgs):
    method: Method = "lora"
    stage: Stage = "sft"
    seq_len: int = Field(4096, description="Tokens per sequence (cutoff_len / SEQ_LEN), 1..1048576.")
    hardware: HardwareName = "snt9b"
    framework: Framework = Field("LLaMA-Factory", description="LLaMA-Factory (DeepSpeed ZeRO ladder) or MindSpeed-LLM (TP/PP/CP).")
    max_devices: int | None = Field(None, description="Most devices available (cards; DIE on Snt9B23), >= 1.")
    global_batch: int | None = Field(None, description="Global batch in sequences; grad_accum is derived from it.")
    micro_batch: int = Field(C.DEFAULT_MICRO_BATCH, description="Sequences per device per step, >= 1.")
    precision: Precision = "bf16"
    lora_rank: int = Field(C.DEFAULT_LORA_RANK, description="LoRA rank, >= 1.")
    quant_bits: Literal[2, 3, 4, 8] = 4


class TableRef(BaseModel):
    source: str = Field(description="min_cards (ModelArts minimum-card table) or recipes_llamafactory (recipe table).")
    cards: int | None = Field(description="The table's device count (cards; DIE on Snt9B23); null when not supported.")
    supported: bool = True
    zero_stage: int | None = None
    offload: bool | None = None
    grad_accum: int | None = None
    cell: str | None = None
    flagged: str | None = Field(None, description="Why the estimator considers this row inconsistent with the rest of the table.")
    citation: str | None = None


class PlanResult(BaseModel):
    model: str
    shape: ShapeInfo
    method: str
    stage: str
    seq_len: int
    hardware: str
    framework: str
    fits: bool
    devices: int = Field(description="Devices in the plan (cards; DIE on Snt9B23).")
    memory_devices: int | None = Field(None, description="Fewest devices memory alone needs; below `devices` when "
                                       "vendor practice for LoRA raises the recommendation (see `practice`).")
    practice: str | None = Field(None, description="Why the recommendation is above the memory minimum, if it is.")
    unit: str
    nodes: int
    per_node: int
    physical_cards: int | None = Field(None, description="Physical cards on Snt9B23 (2 DIE each).")
    zero_stage: int | None
    offload: bool
    tp: int
    pp: int
    cp: int
    ep: int
    recompute: bool
    distributed_optimizer: bool
    micro_batch: int
    grad_accum: int
    global_batch: int
    memory: MemoryBreakdown
    table: TableRef | None = Field(description="The vendor table row for this case (never the source of the estimate).")
    table_also: list[TableRef] = Field(default_factory=list, description="Other vendor rows for the same case.")
    note: str | None = Field(None, description="Where the table and the estimate disagree, or why nothing fits.")
    reason: str
    assumptions: list[str]
    notes: list[str] = Field(default_factory=list)


def _flags(ctx) -> dict[tuple, str]:
    """Consistency flags of the minimum-card table, computed once per context."""
    cache = ctx._cache
    if "min_card_flags" not in cache:
        rows = [dict(r) for r in ctx.kb.query("SELECT * FROM min_cards WHERE cards IS NOT NULL")]
        params = {m["id"]: float(m.get("params_b") or 0) for m in ctx.kb.models()}
        flags = flag_inconsistent(rows, params)
        cache["min_card_flags"] = {(r["model_id"], r["strategy"], r["seq_len"], r["framework"], r["hardware"]): flags[i]
                                   for i, r in enumerate(rows) if i in flags}
    return cache["min_card_flags"]


def table_refs(ctx, model_id: str | None, method: str, seq_len: int, framework: str, hw_id: str,
               stage: str = "sft") -> list[TableRef]:
    """Vendor rows for exactly this case: the tables cover SFT/PT, LoRA and full, on Snt9B/Snt9B23."""
    part = TABLE_HARDWARE_REV.get(hw_id)
    if not model_id or not part or method not in ("lora", "full") or stage not in ("sft", "pt"):
        return []
    out = []
    for r in ctx.kb.min_cards(model_id, method, framework, part):
        if r["seq_len"] == seq_len:
            flag = _flags(ctx).get((model_id, method, seq_len, framework, part))
            out.append(TableRef(source="min_cards", cards=r["cards"], supported=bool(r["supported"]), cell=r["cell"],
                                flagged=flag, citation=r["source"]))
    if framework == "LLaMA-Factory" and part == "Snt9B":
        for r in ctx.kb.recipes(model_id, method):
            if r["cutoff_len"] == seq_len:
                out.append(TableRef(source="recipes_llamafactory", cards=r["total_cards"], zero_stage=r["zero_stage"],
                                    offload=bool(r["offload"]), grad_accum=r["grad_accum"], cell=r["spec_cell"], citation=r["source"]))
    return out


TABLE_HARDWARE_REV = {v: k for k, v in TABLE_HARDWARE.items()}


def _units(n: int, unit: str) -> str:
    return f"{n} DIE" if unit.lower() == "die" else f"{n} {unit}{'s' if n != 1 else ''}"


def _setting(p: Plan) -> str:
    c = p.cfg
    if c.megatron:
        return f"TP{c.tp} PP{c.pp}" + (f" CP{c.cp}" if c.cp > 1 else "") + (" with recompute" if c.recompute else "")
    return f"ZeRO-{c.zero_stage}" + (" + offload" if c.offload else "")


def _disagreement(p: Plan, refs: list[TableRef], unit: str) -> str | None:
    notes = []
    for t in refs:
        name = "minimum-card table" if t.source == "min_cards" else "LLaMA-Factory recipe table"
        if not t.supported or t.cards is None:
            notes.append(f"The {name} marks this case as not supported ('-').")
            continue
        if t.cards != p.devices:
            ratio = p.devices / t.cards
            s = (f"The {name} says {_units(t.cards, unit)}; the plan fits on {_units(p.devices, unit)} with {_setting(p)} ({ratio:.2g}x)"
                 + ("; the table is more conservative than memory requires" if ratio < 1 else "; the estimate is the more conservative"))
            if t.flagged:
                s += f"; this table row is flagged as inconsistent ({t.flagged})"
            notes.append(s + ".")
        if t.zero_stage is not None and p.cfg.zero_stage is not None and not p.cfg.megatron and (
                t.zero_stage != p.cfg.zero_stage or bool(t.offload) != p.cfg.offload):
            notes.append(f"The recipe table uses ZeRO-{t.zero_stage}{'-Offload' if t.offload else ''}; the planner picks "
                         f"ZeRO-{p.cfg.zero_stage}{'-Offload' if p.cfg.offload else ''}.")
    return " ".join(notes) or None


def plan_result(ctx, s: Shape, model_id: str | None, hw_id: str, dev: Device, base: TrainConfig,
                max_devices: int | None, global_batch: int | None) -> PlanResult:
    p = _plan(s, base, dev, max_devices, global_batch)
    c = p.cfg
    refs = table_refs(ctx, model_id, base.method, base.seq_len, base.framework, hw_id, base.stage)
    if p.fits:
        note = _disagreement(p, refs, dev.unit)
    else:
        note = (p.reason + f". Even {_units(p.devices, dev.unit)} with the most memory-saving setting need "
                f"{p.memory.total_gib:.1f} GiB per device of {p.memory.usable_gib:.1f}.")
        seq_bound = p.memory.activations.gib + p.memory.logits.gib
        if not c.megatron and seq_bound > p.memory.usable_gib / 2:
            note += (f" Activations and logits alone take {seq_bound:.1f} GiB per device and ZeRO does not split them: "
                     "use MindSpeed-LLM with context parallel (CP) for this length, or a shorter cutoff_len.")
    notes = list(p.memory.assumptions) + context_note(ctx, model_id, base.seq_len)
    if p.fits and dev.devices_per_node and p.devices < min(8, dev.devices_per_node):
        notes.append("The ModelArts table notes that jobs needing fewer than 8 cards are usually run on 8.")
    if s.is_moe:
        notes.append(f"MoE: all {s.params / 1e9:.1f}B parameters are stored; {(s.active_params or s.params) / 1e9:.1f}B are active per token")
    return PlanResult(
        model=model_id or s.name, shape=shape_info(s), method=base.method, stage=base.stage, seq_len=base.seq_len,
        hardware=hw_id, framework=base.framework, fits=p.fits, devices=p.devices, memory_devices=p.memory_devices,
        practice=p.practice, unit=dev.unit, nodes=p.nodes,
        per_node=p.per_node, physical_cards=-(-p.devices // dev.dies_per_card) if dev.dies_per_card > 1 else None,
        zero_stage=None if c.megatron else c.zero_stage, offload=c.offload, tp=c.tp, pp=c.pp, cp=c.cp, ep=c.ep,
        recompute=c.recompute, distributed_optimizer=c.megatron, micro_batch=c.micro_batch, grad_accum=p.grad_accum,
        global_batch=p.global_batch, memory=breakdown_model(p.memory), table=refs[0] if refs else None,
        table_also=refs[1:], note=note, reason=p.reason, assumptions=_assumptions(s, c, dev), notes=notes)


def _check_plan_args(a: PlanTrainingArgs) -> None:
    check_seq_len(a.seq_len)
    if a.max_devices is not None and a.max_devices < 1:
        raise SizingError("invalid_arguments", f"max_devices must be at least 1, got {a.max_devices}.", field="max_devices", valid=">= 1")
    if a.max_devices is not None and a.max_devices > 65536:
        raise SizingError("invalid_arguments", "max_devices must be at most 65536.", field="max_devices", valid="1..65536")
    if a.global_batch is not None and not 1 <= a.global_batch <= 10_000_000:
        raise SizingError("invalid_arguments", f"global_batch must be between 1 and 10000000, got {a.global_batch}.",
                          field="global_batch", valid="1..10000000")
    if not 1 <= a.micro_batch <= 4096:
        raise SizingError("invalid_arguments", f"micro_batch must be between 1 and 4096, got {a.micro_batch}.", field="micro_batch", valid="1..4096")
    if a.method in ("lora", "qlora") and not 1 <= a.lora_rank <= 65536:
        raise SizingError("invalid_arguments", f"lora_rank must be at least 1, got {a.lora_rank}.", field="lora_rank", valid="1..65536")
    if a.global_batch is not None and a.global_batch % a.micro_batch:
        raise SizingError("invalid_arguments", f"global_batch {a.global_batch} must be a multiple of micro_batch {a.micro_batch}.",
                          field="global_batch")


@tool
def plan_training(ctx, args: PlanTrainingArgs) -> PlanResult:
    """Plan a fine-tuning job: the fewest devices (whole nodes when it spans nodes) and the fastest setting that fits — ZeRO stage/offload for LLaMA-Factory, TP/PP/CP + recompute for MindSpeed-LLM — with micro batch, grad_accum, the per-device memory breakdown, and the vendor table row beside it.

    Default framework LLaMA-Factory, hardware snt9b (910B; snt9b23 counts DIE). max_devices caps the plan ("I only have 16 cards"); nothing fitting is reported with fits=false."""
    s, model_id = resolve_shape(ctx, args)
    _check_plan_args(args)
    hw_id, dev = resolve_hardware(ctx, args.hardware)
    base = TrainConfig(method=args.method, stage=args.stage, seq_len=args.seq_len, micro_batch=args.micro_batch,
                       framework=args.framework, precision=args.precision, lora_rank=args.lora_rank, quant_bits=args.quant_bits)
    return plan_result(ctx, s, model_id, hw_id, dev, base, args.max_devices, args.global_batch)


# ---------------------------------------------------------------- compare_hardware
class CompareHardwareArgs(ModelArgs):
    method: Method = "lora"
    seq_len: int = Field(4096, description="Tokens per sequence, 1..1048576.")
    stage: Stage = "sft"
    framework: Framework = "LLaMA-Factory"


class HardwarePlan(BaseModel):
    hardware: str
    name: str
    memory_gb: float
    unit: str
    fits: bool
    devices: int
    nodes: int
    per_node: int
    physical_cards: int | None = None
    zero_stage: int | None
    offload: bool
    tp: int
    pp: int
    total_gib: float
    usable_gib: float
    table_cards: int | None = None


class CompareHardwareResult(BaseModel):
    model: str
    method: str
    seq_len: int
    framework: str
    plans: list[HardwarePlan]
    notes: list[str] = Field(default_factory=list)


@tool
def compare_hardware(ctx, args: CompareHardwareArgs) -> CompareHardwareResult:
    """Compare the training plan (devices, nodes, ZeRO stage or TP/PP, memory per device) for one model, method and sequence length on every hardware in the catalog (Ascend Snt9B/Snt9B23/32G and NVIDIA GPUs)."""
    s, model_id = resolve_shape(ctx, args)
    check_seq_len(args.seq_len)
    base = TrainConfig(method=args.method, stage=args.stage, seq_len=args.seq_len, framework=args.framework)
    plans = []
    for h in ctx.kb.hardware():
        dev = device_from_row(h)
        p = plan_result(ctx, s, model_id, h["id"], dev, base, None, None)
        plans.append(HardwarePlan(hardware=h["id"], name=h["name"], memory_gb=dev.memory_gb, unit=dev.unit, fits=p.fits,
                                  devices=p.devices, nodes=p.nodes, per_node=p.per_node, physical_cards=p.physical_cards,
                                  zero_stage=p.zero_stage, offload=p.offload, tp=p.tp, pp=p.pp, total_gib=p.memory.total_gib,
                                  usable_gib=p.memory.usable_gib, table_cards=p.table.cards if p.table else None))
    plans.sort(key=lambda x: (not x.fits, x.devices * x.memory_gb, x.hardware))
    return CompareHardwareResult(model=model_id or s.name, method=args.method, seq_len=args.seq_len, framework=args.framework,
                                 plans=plans, notes=["Snt9B23 counts DIE (2 per card); every other row counts cards.",
                                                     "Sorted by total device memory used: fewest GB first."])


# ---------------------------------------------------------------- estimate_inference
class EstimateInferenceArgs(ModelArgs):
    max_model_len: int = Field(4096, description="Context length to serve (vLLM --max-model-len), 1..1048576.")
    hardware: HardwareName = "snt9b"
    gpu_memory_utilization: float = Field(0.9, description="vLLM --gpu-memory-utilization, in (0, 1].")
    concurrency: int = Field(1, description="Sequences of max_model_len that must fit in the KV cache at once, >= 1.")
    weight_bits: Literal[4, 8, 16] = Field(16, description="Weight precision: 16 (bf16), 8 (W8A8/FP8) or 4 (AWQ/GPTQ).")
    max_devices: int = Field(64, description="Most devices to consider, >= 1.")


class InferenceResult(BaseModel):
    model: str
    shape: ShapeInfo
    hardware: str
    unit: str
    fits: bool
    devices: int = Field(description="Fewest devices (TP a power of two dividing the heads; PP across nodes).")
    tp: int
    pp: int
    max_model_len: int
    gpu_memory_utilization: float
    concurrency: int
    kv_bytes_per_token: float = Field(description="KV cache bytes per token over all layers (GQA-aware; MLA latent for DeepSeek).")
    kv_bytes_per_token_per_device: float
    kv_formula: str
    weights_gib_per_device: float
    activation_gib: float
    overhead_gib: float
    budget_gib: float = Field(description="gpu_memory_utilization x reported capacity.")
    kv_cache_gib: float
    kv_tokens_fit: int = Field(description="Tokens of KV cache that fit across the plan.")
    max_sequences_at_len: int
    table: dict[str, Any] | None = Field(description="The vLLM table row for this model and card memory, if any.")
    note: str | None = None
    reason: str
    assumptions: list[str]


@tool
def estimate_inference(ctx, args: EstimateInferenceArgs) -> InferenceResult:
    """Estimate vLLM serving: the fewest devices (tensor parallel a power of two dividing the heads) whose KV cache holds max_model_len x concurrency tokens, KV bytes per token (GQA-aware; MLA for DeepSeek), tokens of KV that fit, beside the ModelArts vLLM table row where there is one."""
    s, model_id = resolve_shape(ctx, args)
    check_seq_len(args.max_model_len, "max_model_len")
    if not 0 < args.gpu_memory_utilization <= 1:
        raise SizingError("invalid_arguments", f"gpu_memory_utilization must be in (0, 1], got {args.gpu_memory_utilization}.",
                          field="gpu_memory_utilization", valid="(0, 1]")
    if not 1 <= args.concurrency <= 100_000:
        raise SizingError("invalid_arguments", f"concurrency must be between 1 and 100000, got {args.concurrency}.",
                          field="concurrency", valid="1..100000")
    if not 1 <= args.max_devices <= 4096:
        raise SizingError("invalid_arguments", f"max_devices must be between 1 and 4096, got {args.max_devices}.",
                          field="max_devices", valid="1..4096")
    hw_id, dev = resolve_hardware(ctx, args.hardware)
    p = plan_inference(s, dev, args.max_model_len, args.gpu_memory_utilization, args.concurrency, args.weight_bits, args.max_devices)
    table, note = _vllm_row(ctx, model_id, dev, args, p)
    return InferenceResult(
        model=model_id or s.name, shape=shape_info(s), hardware=hw_id, unit=dev.unit, fits=p.fits, devices=p.devices, tp=p.tp,
        pp=p.pp, max_model_len=args.max_model_len, gpu_memory_utilization=args.gpu_memory_utilization,
        concurrency=args.concurrency, kv_bytes_per_token=p.kv_per_token_total, kv_bytes_per_token_per_device=p.kv_per_token_device,
        kv_formula=p.kv_formula, weights_gib_per_device=p.weights_gib, activation_gib=p.activation_gib, overhead_gib=p.overhead_gib,
        budget_gib=p.budget_gib, kv_cache_gib=p.kv_cache_gib, kv_tokens_fit=p.kv_tokens, max_sequences_at_len=p.max_sequences,
        table=table, note=note, reason=p.reason,
        assumptions=[f"weights in {args.weight_bits}-bit, KV cache bf16",
                     f"profiling reserve for {C.INFERENCE_ACTIVATION_TOKENS} batched tokens and 256 sequences' logits",
                     "sliding-window layers not modelled (full-length KV on every layer)"])


def _vllm_row(ctx, model_id, dev: Device, args: EstimateInferenceArgs, p) -> tuple[dict[str, Any] | None, str | None]:
    if not model_id or dev.kind != "npu":
        return None, None
    rows = [r for r in ctx.kb.vllm_rows(model_id) if int(r["memory_gb"]) == int(dev.memory_gb) and r["supported"]]
    if not rows:
        return None, None
    ok = [r for r in rows if (r["max_model_len"] or 0) >= args.max_model_len] or rows
    r = min(ok, key=lambda x: (x["cards"], -abs(x["gpu_memory_utilization"] - args.gpu_memory_utilization)))
    row = {k: r[k] for k in ("table", "cards", "max_model_len", "gpu_memory_utilization", "memory_gb", "cell", "source")}
    if r["max_model_len"] < args.max_model_len:
        return row, f"The vLLM table tested at most {r['max_model_len']} tokens; {args.max_model_len} is beyond it."
    if r["cards"] != p.devices:
        return row, (f"The vLLM table ({r['table']}) serves {r['max_model_len']} tokens on {r['cards']} cards; "
                     f"the estimate needs {p.devices} for {args.max_model_len} tokens x {args.concurrency}.")
    return row, None
