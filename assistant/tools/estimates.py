"""Estimator tools (estimate_training_memory, plan_training, estimate_inference, compare_hardware).

The numbers come from assistant/estimate (pure functions). This module holds the four tools and their
argument and result models; estimate_support.py resolves names and validates arguments into the
canonical error shape, estimate_tables.py puts the vendor table row beside the estimate (the `table`
field), never into it, and estimate_models.py holds the types several tools share.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from ..errors import SizingError
from ..estimate import constants as C
from ..estimate.calibrate import device_from_row
from ..estimate.inference import plan_inference
from ..estimate.layout import tp_splits_heads
from ..estimate.memory import Device, TrainConfig, training_memory
from ..estimate.plan import fewer_devices, smaller_micro_batch
from ..estimate.plan import plan_training as _plan
from ..estimate.shape import Shape
from .common import MAX_DEVICES, MAX_SEQ_LEN, NOT_A_BOOL, Framework
from .estimate_models import (
    HardwareName,
    MemoryBreakdown,
    Method,
    ModelArgs,
    Precision,
    ShapeInfo,
    Stage,
    TableRef,
    TrainerOptions,
    TrainingFramework,
)
from .estimate_support import (
    assumptions,
    breakdown_model,
    check_plan_args,
    check_seq_len,
    check_train_args,
    context_note,
    model_context,
    no_fit_note,
    precision_for,
    resolve_hardware,
    resolve_shape,
    sequence_bound_note,
    shape_info,
    vllm_row,
)
from .estimate_tables import disagreement, table_refs, units
from .registry import tool


# ---------------------------------------------------------------- estimate_training_memory
class EstimateTrainingMemoryArgs(TrainerOptions, ModelArgs):
    method: Method = "lora"
    stage: Stage = "sft"
    seq_len: int = Field(4096, ge=1, le=MAX_SEQ_LEN, description="Tokens per sequence (cutoff_len / SEQ_LEN), 1..1048576.")
    micro_batch: int = Field(1, ge=1, le=4096, description="Sequences per device per step (per_device_train_batch_size / MBS), >= 1.")
    devices: int = Field(1, ge=1, le=1_000_000, description="Devices (cards; DIE on Snt9B23) in the job, >= 1.")
    zero_stage: Annotated[Literal[0, 1, 2, 3], NOT_A_BOOL] = Field(0, description="DeepSpeed ZeRO stage (LLaMA-Factory).")
    offload: bool = Field(False, description="CPU offload: optimizer (ZeRO-2) or optimizer and parameters (ZeRO-3).")
    tp: int = Field(1, ge=1, description="Tensor parallel size (MindSpeed-LLM); must divide the attention and KV heads.")
    pp: int = Field(1, ge=1, description="Pipeline parallel size (MindSpeed-LLM).")
    cp: int = Field(1, ge=1, description="Context parallel size (MindSpeed-LLM).")
    ep: int = Field(1, ge=1, description="Expert parallel size (MoE).")
    precision: Precision | None = Field(None, description="bf16/fp16 mixed precision, fp32, or pure_bf16 (bf16 weights and optimizer). Omitted: pure_bf16 for torchtune/litgpt, else bf16; fp16 without BF16 (V100, T4, 910A/310P).")
    recompute: bool = Field(True, description="Full activation recompute (gradient checkpointing; LLaMA-Factory's default).")
    lora_rank: int = Field(C.DEFAULT_LORA_RANK, ge=1, le=65536, description="LoRA rank, >= 1 (LLaMA-Factory default 8).")
    lora_targets: str = Field("all", max_length=200, description="'all', 'attention', 'mlp' or module names (q_proj,v_proj,...).")
    quant_bits: Literal[2, 3, 4, 8] = Field(4, description="QLoRA base quantisation bits.")
    hardware: HardwareName = "snt9b"
    framework: TrainingFramework | None = Field(None, description="Training framework (see the values); default LLaMA-Factory, "
                                                "or MindSpeed-LLM when tp/pp/cp > 1.")
    optimizer_in_backward: bool = Field(False, description="Step each parameter in backward and free its gradient "
                                        "(torchtune optimizer_in_bwd); single device or ZeRO-0 only.")
    grad_accum: int = Field(1, ge=1, le=65536, description="Gradient accumulation steps; above 1 the gradients stay "
                            "allocated between micro-batches (matters for full fine-tuning without DeepSpeed).")


class TrainingMemoryResult(MemoryBreakdown):
    model: str = Field(description="Canonical catalog id of the model, or the name of a custom shape.")
    shape: ShapeInfo = Field(description="The model shape the estimate used (from the catalog, config.json, or inferred from params_b).")
    method: str = Field(description="Fine-tuning method: full, freeze, lora or qlora.")
    stage: str = Field(description="Training stage: pt, sft, dpo, kto, rm or ppo.")
    seq_len: int = Field(description="Tokens per sequence.")
    micro_batch: int = Field(description="Sequences per device per step.")
    devices: int = Field(description="Devices in the job (cards; DIE on Snt9B23), as given.")
    framework: str = Field(description="Training framework.")
    zero_stage: int | None = Field(description="DeepSpeed ZeRO stage; null for MindSpeed-LLM (Megatron parallelism instead).")
    offload: bool = Field(description="DeepSpeed CPU offload (optimizer; parameters too on ZeRO-3).")
    tp: int = Field(description="Tensor parallel size.")
    pp: int = Field(description="Pipeline parallel size.")
    cp: int = Field(description="Context parallel size.")
    ep: int = Field(1, description="Expert parallel size (MoE): the routed experts split over this many data-parallel ranks.")
    data_parallel: int = Field(description="Data-parallel replicas: devices / (tp x pp x cp).")
    hardware: str = Field(description="Hardware catalog id.")
    unit: str = Field(description="What one device is: card, or DIE on Snt9B23.")
    loss: str = Field(description="Loss implementation assumed (fp32, chunked or fused); the framework's default unless given.")
    optimizer: str = Field(description="Optimizer assumed (the framework's default unless given).")
    activation_offload: bool = Field(description="Whether the saved activations were sized in host RAM (given, or the framework's default).")
    expandable_segments: bool = Field(description="Whether the allocator was sized with expandable segments (given, or the framework's default).")
    assumptions: list[str] = Field(description="What the estimate assumed (precision, framework defaults, shape).")
    notes: list[str] = Field(default_factory=list, description="Caveats: MoE, context limits, vendor practice, the estimator's remarks.")


@tool
def estimate_training_memory(ctx, args: EstimateTrainingMemoryArgs) -> TrainingMemoryResult:
    """Estimate per-device training memory (GiB) for a model and setup: weights, gradients, optimizer states, activations, logits/loss buffers, framework overhead, total (the allocator's pool) vs usable memory with its likely range and verdict (fits | tight | does_not_fit), host RAM for offload; each figure says how it was computed.

    Methods full|freeze|lora|qlora; stages pt|sft|dpo|kto|rm|ppo; DeepSpeed ZeRO 0-3 with or without offload (LLaMA-Factory) or TP/PP/CP (MindSpeed-LLM). Give model, or params_b for a model not in the catalog."""
    s, model_id = resolve_shape(ctx, args)
    framework = check_train_args(args, s)
    hw_id, dev = resolve_hardware(ctx, args.hardware)
    cfg = TrainConfig(method=args.method, stage=args.stage, seq_len=args.seq_len, micro_batch=args.micro_batch,
                      devices=args.devices, framework=framework, zero_stage=args.zero_stage, offload=args.offload,
                      tp=args.tp, pp=args.pp, cp=args.cp, ep=args.ep, precision=precision_for(args.precision, dev, framework), recompute=args.recompute,
                      lora_rank=args.lora_rank, lora_targets=args.lora_targets, quant_bits=args.quant_bits,
                      optimizer_in_backward=args.optimizer_in_backward, grad_accum=args.grad_accum,
                      **args.trainer_config(framework))
    b = training_memory(s, cfg, dev)
    notes = list(b.assumptions) + context_note(ctx, model_id, args.seq_len)
    if s.is_moe:
        notes.append(f"MoE: {s.params / 1e9:.1f}B parameters stored, {(s.active_params or s.params) / 1e9:.1f}B active per token")
    if args.devices == 1 and args.zero_stage in (1, 2, 3) and not args.offload:
        notes.append("ZeRO-1/2/3 on one device partitions nothing; only offload saves memory there")
    if not b.fits and (why := sequence_bound_note(s, cfg, b)):
        notes.append(why)
    return TrainingMemoryResult(**breakdown_model(b).model_dump(), model=model_id or s.name, shape=shape_info(s),
                                method=args.method, stage=args.stage, seq_len=args.seq_len, micro_batch=args.micro_batch,
                                devices=args.devices, framework=framework,
                                zero_stage=None if cfg.megatron else args.zero_stage, offload=args.offload,
                                tp=args.tp, pp=args.pp, cp=args.cp, ep=args.ep, data_parallel=cfg.dp, hardware=hw_id, unit=dev.unit,
                                loss=cfg.loss_impl, optimizer=args.optimizer, activation_offload=cfg.activation_offload,
                                expandable_segments=cfg.expandable_segments,
                                assumptions=assumptions(s, cfg, dev), notes=notes)


# ---------------------------------------------------------------- plan_training
class PlanTrainingArgs(TrainerOptions, ModelArgs):
    method: Method = "lora"
    stage: Stage = "sft"
    seq_len: int = Field(4096, ge=1, le=MAX_SEQ_LEN, description="Tokens per sequence (cutoff_len / SEQ_LEN), 1..1048576.")
    hardware: HardwareName = "snt9b"
    framework: TrainingFramework = Field("LLaMA-Factory", description="LLaMA-Factory (DeepSpeed ZeRO ladder), MindSpeed-LLM "
                                         "(TP/PP/CP), or torchtune, litgpt, unsloth, axolotl, transformers (data parallel, "
                                         "sized on the same ZeRO ladder, FSDP full shard as ZeRO-3, with their own defaults).")
    max_devices: int | None = Field(None, ge=1, le=65536, description="Most devices available (cards; DIE on Snt9B23), >= 1.")
    global_batch: int | None = Field(None, ge=1, le=10_000_000, description="Global batch in sequences; grad_accum is derived from it.")
    keep_grad_accum: int | None = Field(None, ge=1, le=65536, description="Gradient accumulation to keep when no "
                                        "global_batch is given: the global batch then follows each plan's data parallel "
                                        "(MBS x DP x GA).")
    micro_batch: int = Field(C.DEFAULT_MICRO_BATCH, ge=1, le=4096, description="Sequences per device per step, >= 1.")
    precision: Precision | None = Field(None, description="bf16/fp16 mixed precision, fp32, or pure_bf16 (bf16 weights and optimizer). Omitted: pure_bf16 for torchtune/litgpt, else bf16; fp16 without BF16 (V100, T4, 910A/310P).")
    lora_rank: int = Field(C.DEFAULT_LORA_RANK, ge=1, le=65536, description="LoRA rank, >= 1.")
    quant_bits: Literal[2, 3, 4, 8] = Field(4, description="QLoRA base quantisation bits.")
    tightest: bool = Field(False, description="Size the plan on the point estimate (the tightest plan, verdict may be "
                           "'tight') instead of the point x the planning margin (GPUs 1.16, the 75th percentile of measured / "
                           "predicted; Ascend 1.0, the vendor-tested point).")
    zero_stage: Annotated[Literal[0, 1, 2, 3], NOT_A_BOOL] | None = Field(None, description="Keep this ZeRO stage; omitted: the planner picks.")
    offload: bool | None = Field(None, description="Keep CPU offload on or off. Omitted: the planner picks.")
    all_devices: bool = Field(False, description="Plan on all max_devices (the devices the user has) instead of the fewest "
                              "within them; without a global_batch the global batch of the recipe row (else of the fewest "
                              "plan) is kept by scaling gradient accumulation, the nearest whole one when none divides.")


class FewerDevices(BaseModel):
    """Another plan beside the recommendation: a slower one on fewer devices, or a faster one on more nodes."""

    devices: int = Field(description="Devices in that plan (cards; DIE on Snt9B23).")
    nodes: int = Field(description="Nodes the devices span.")
    per_node: int = Field(description="Devices used on each node.")
    zero_stage: int | None = Field(description="DeepSpeed ZeRO stage; null for MindSpeed-LLM (Megatron parallelism instead).")
    offload: bool = Field(description="DeepSpeed CPU offload (optimizer; parameters too on ZeRO-3).")
    tp: int = Field(description="Tensor parallel size.")
    pp: int = Field(description="Pipeline parallel size.")
    cp: int = Field(description="Context parallel size.")
    recompute: bool = Field(description="Full activation recompute (gradient checkpointing).")
    setting: str = Field(description="The slower setting, e.g. 'ZeRO-3 + CPU offload' or 'TP 4 x PP 1 + full recompute'.")
    total_gib: float = Field(description="Per-device memory of that plan, GiB.")
    low_gib: float = Field(description="Lower end of its likely range, GiB.")
    high_gib: float = Field(description="Upper end of its likely range, GiB.")
    verdict: Literal["fits", "tight", "does_not_fit"] = Field(description="That plan's memory verdict: fits, tight or does_not_fit.")
    cached_gib: float = Field(0.0, description="Cached blocks in its range that the allocator gives back before an "
                              "out-of-memory error (the verdict judges the range without them), GiB.")
    host_ram_gib_per_node: float = Field(description="Host RAM per node the offloaded states need, GiB (0 without offload).")


class SmallerMicroBatch(FewerDevices):
    """The plan at micro batch 1, beside a larger micro batch that does not fit or needs more devices."""

    micro_batch: int = Field(description="Sequences per device per step in that plan: 1.")
    grad_accum: int = Field(description="Gradient accumulation that keeps the sequences per optimizer step (the old "
                            "micro batch times the plan's accumulation, unless a global batch was given).")
    global_batch: int = Field(description="Sequences per optimizer step in that plan.")


class PlanResult(BaseModel):
    model: str = Field(description="Canonical catalog id of the model, or the name of a custom shape.")
    shape: ShapeInfo = Field(description="The model shape the estimate used (from the catalog, config.json, or inferred from params_b).")
    method: str = Field(description="Fine-tuning method: full, freeze, lora or qlora.")
    stage: str = Field(description="Training stage: pt, sft, dpo, kto, rm or ppo.")
    seq_len: int = Field(description="Tokens per sequence.")
    model_max_context: int | None = Field(None, description="The model's own context limit (max_position_embeddings); "
                                          "a longer seq_len needs RoPE scaling.")
    hardware: str = Field(description="Hardware catalog id.")
    framework: str = Field(description="Training framework.")
    fits: bool = Field(description="A plan was found: its point x the planning margin fits (or, with tightest, its point "
                       "estimate); its memory.verdict says whether the whole likely range fits.")
    verdict: Literal["fits", "tight", "does_not_fit"] = Field(description="The plan's memory verdict: fits (the upper end "
                                                              "of the range fits), tight (the range crosses the usable memory), does_not_fit.")
    tightest: bool = Field(False, description="Whether the plan was sized on the point estimate: asked for the tightest "
                           "plan, or no device count holds the point with its planning margin (then the verdict is tight).")
    devices: int = Field(description="Devices in the plan (cards; DIE on Snt9B23).")
    memory_devices: int | None = Field(None, description="Fewest devices memory alone needs with any setting that keeps "
                                       "the job on the devices (MindSpeed-LLM full recompute counts, CPU offload does not); "
                                       "below `devices` when vendor practice for LoRA raises the recommendation (see "
                                       "`practice`) or only full recompute fits on fewer.")
    practice: str | None = Field(None, description="Why the recommendation is above the memory minimum, if it is.")
    practice_full: int | None = Field(None, description="The full fine-tuning devices (estimate) the LoRA practice halves.")
    unit: str = Field(description="What one device is: card, or DIE on Snt9B23.")
    nodes: int = Field(description="Nodes the devices span.")
    per_node: int = Field(description="Devices used on each node.")
    physical_cards: int | None = Field(None, description="Physical cards on Snt9B23 (2 DIE each).")
    zero_stage: int | None = Field(description="DeepSpeed ZeRO stage; null for MindSpeed-LLM (Megatron parallelism instead).")
    offload: bool = Field(description="DeepSpeed CPU offload (optimizer; parameters too on ZeRO-3).")
    tp: int = Field(description="Tensor parallel size.")
    pp: int = Field(description="Pipeline parallel size.")
    cp: int = Field(description="Context parallel size.")
    ep: int = Field(description="Expert parallel size (MoE).")
    recompute: bool = Field(description="Full activation recompute (gradient checkpointing).")
    distributed_optimizer: bool = Field(description="Megatron distributed optimizer (optimizer states sharded over data-parallel ranks); true for MindSpeed-LLM.")
    micro_batch: int = Field(description="Sequences per device per step.")
    grad_accum: int = Field(description="Gradient accumulation steps.")
    global_batch: int = Field(description="Sequences per optimizer step: micro_batch x data-parallel devices x grad_accum.")
    memory: MemoryBreakdown = Field(description="The per-device memory breakdown of the plan (estimate).")
    table: TableRef | None = Field(description="The vendor table row for this case (never the source of the estimate).")
    table_also: list[TableRef] = Field(default_factory=list, description="Other vendor rows for the same case.")
    note: str | None = Field(None, description="Where the table and the estimate disagree, or why nothing fits.")
    reason: str = Field(description="Why this plan was chosen, or why nothing fits (estimator).")
    assumptions: list[str] = Field(description="What the estimate assumed (precision, framework defaults, shape).")
    notes: list[str] = Field(default_factory=list, description="Caveats: MoE, context limits, vendor practice, the estimator's remarks.")
    fewer_devices: FewerDevices | None = Field(None, description="A slower setting (CPU offload; full recompute) that fits "
                                               "on fewer devices than the recommendation, if there is one.")
    upper_end_fits: FewerDevices | None = Field(None, description="When the recommendation is tight (its likely range crosses "
                                                "the usable memory): the plan whose range's upper end fits (verdict fits), "
                                                "if any count holds it.")
    faster_devices: FewerDevices | None = Field(None, description="On GPUs, when the recommendation keeps the job on one node "
                                                "with CPU offload: the setting without offload and the nodes it needs.")
    smaller_micro_batch: SmallerMicroBatch | None = Field(None, description="When the micro batch asked for is above 1 and "
                                                          "does not fit, or needs more devices than micro batch 1: the plan "
                                                          "at micro batch 1 with gradient accumulation raised to keep the "
                                                          "sequences per step (activations and the loss shrink; the model "
                                                          "states do not).")
    fewest: FewerDevices | None = Field(None, description="With all_devices: the plan on the fewest devices within "
                                        "max_devices, when fewer than all of them hold the job.")
    kept_global_batch: int | None = Field(None, description="With all_devices: the global batch the gradient accumulation "
                                          "was scaled to keep (global_batch differs when no whole accumulation gives it).")
    kept_from: str | None = Field(None, description="Where kept_global_batch comes from: recipe (the recipe row's "
                                  "cards x GA), plan (the fewest plan's) or user (the global_batch given).")


def _alternative(p, dev: Device) -> FewerDevices | None:
    if p is None:
        return None
    c = p.cfg
    setting = (f"TP {c.tp} x PP {c.pp}" + (f" x CP {c.cp}" if c.cp > 1 else "") + (" + full recompute" if c.recompute else "")
               if c.megatron
               else f"ZeRO-{c.zero_stage}" + (" + CPU offload" if c.offload else ""))
    return FewerDevices(devices=p.devices, nodes=p.nodes, per_node=p.per_node, zero_stage=None if c.megatron else c.zero_stage,
                        offload=c.offload, tp=c.tp, pp=c.pp, cp=c.cp, recompute=c.recompute, setting=setting,
                        total_gib=round(p.memory.total_gib, 2), low_gib=round(p.memory.low_gib, 2),
                        high_gib=round(p.memory.high_gib, 2), verdict=p.memory.verdict, cached_gib=round(p.memory.cached_gib, 2), host_ram_gib_per_node=round(p.memory.host_ram_gib.gib, 1))


def plan_result(ctx, s: Shape, model_id: str | None, hw_id: str, dev: Device, base: TrainConfig,
                max_devices: int | None, global_batch: int | None, suggest: bool = True) -> PlanResult:
    """The plan as a tool result, with the vendor rows beside it. `suggest=False` (compare_hardware,
    which shows no note) skips searching for another framework when nothing fits."""
    refs = table_refs(ctx, model_id, base.method, base.seq_len, base.framework, hw_id, base.stage)
    # the LoRA practice rule estimates the vendor's count where its tables have no row; a row for this very job
    # is that count, so the estimate stays the memory plan and the row is shown beside it (never two counts
    # both called "the vendor's")
    row_for_job = any(r.supported and r.cards for r in refs)
    p = _plan(s, base, dev, max_devices, global_batch, practice=not row_for_job)
    c = p.cfg
    one = smaller_micro_batch(s, base, dev, p, max_devices, global_batch, practice=not row_for_job) if suggest else None
    if p.fits:
        note = disagreement(p, refs, dev.unit)
    else:
        note = no_fit_note(s, p, base, dev, max_devices, global_batch, suggest)
    if one is not None:  # the user's own lever first: it keeps the job on the fewest devices
        one_alt = _alternative(one, dev)
        note = (f"With micro batch 1 instead of {base.micro_batch} (gradient accumulation {one.grad_accum} keeps the "
                f"sequences per step) it fits on {units(one.devices, dev.unit)} ({one_alt.setting if one_alt else ''}, "
                f"about {one.memory.total_gib:.1f} GiB per device). " + (note or "")).strip()
    # a tight GPU recommendation (sized on the planning margin): the count on which the range's upper end fits beside
    # it, so "4 GPUs, tight" never stands alone. Not where the vendor ran this job on Ascend: its tables are runs at the
    # point's counts (constants.PLAN_MARGIN), and that row is said beside the plan instead
    safe = None
    vendor_ran_it = dev.kind != "gpu" and row_for_job
    # (a "tight" from an open scenario alone, the range itself fitting, is settled by a setting, not by more devices)
    range_fits = p.memory.high_gib - p.memory.cached_gib <= p.memory.usable_gib
    if suggest and p.fits and p.memory.verdict == "tight" and not range_fits and not base.tightest and not vendor_ran_it:
        # a memory figure: the fewest devices whose upper end fits. The LoRA practice rule (half of full fine-tuning's
        # count) is not a memory need; applied here it sent qwen2.5-7b LoRA at 32k (4 cards, tight) to 32 cards of
        # TP 4 x PP 2 where 8 hold the upper end. Kept only when memory alone would undercut the recommendation.
        safe = _plan(s, base._replace(upper_end=True), dev, max_devices, global_batch, practice=False)
        if safe.devices < p.devices:
            safe = _plan(s, base._replace(upper_end=True), dev, max_devices, global_batch, practice=not row_for_job)
        safe = safe if safe.fits else None
    notes = list(p.memory.assumptions) + context_note(ctx, model_id, base.seq_len)
    if p.fits and dev.devices_per_node and p.devices < min(8, dev.devices_per_node):
        notes.append("The ModelArts table notes that jobs needing fewer than 8 cards are usually run on 8.")
    if s.is_moe:
        notes.append(f"MoE: all {s.params / 1e9:.1f}B parameters are stored; {(s.active_params or s.params) / 1e9:.1f}B are active per token")
    return PlanResult(
        model=model_id or s.name, shape=shape_info(s), method=base.method, stage=base.stage, seq_len=base.seq_len,
        model_max_context=model_context(ctx, model_id), hardware=hw_id, framework=base.framework, fits=p.fits,
        verdict=p.memory.verdict, tightest=c.tightest, devices=p.devices, memory_devices=p.memory_devices,
        practice=p.practice, practice_full=p.practice_full, unit=dev.unit, nodes=p.nodes,
        per_node=p.per_node, physical_cards=-(-p.devices // dev.dies_per_card) if dev.dies_per_card > 1 else None,
        zero_stage=None if c.megatron else c.zero_stage, offload=c.offload, tp=c.tp, pp=c.pp, cp=c.cp, ep=c.ep,
        recompute=c.recompute, distributed_optimizer=c.megatron, micro_batch=c.micro_batch, grad_accum=p.grad_accum,
        global_batch=p.global_batch, memory=breakdown_model(p.memory), table=refs[0] if refs else None,
        table_also=refs[1:], note=note, reason=p.reason, assumptions=assumptions(s, c, dev), notes=notes,
        fewer_devices=_alternative(fewer_devices(s, base, dev, p, max_devices, global_batch), dev) if suggest else None,
        faster_devices=_alternative(p.faster, dev), upper_end_fits=_alternative(safe, dev),
        smaller_micro_batch=None if one is None else SmallerMicroBatch(
            **_alternative(one, dev).model_dump(), micro_batch=1, grad_accum=one.grad_accum,  # type: ignore[union-attr]
            global_batch=one.global_batch))


@tool
def plan_training(ctx, args: PlanTrainingArgs) -> PlanResult:
    """Plan a fine-tuning job: the fewest devices (whole nodes when it spans nodes) and the fastest setting that fits — ZeRO stage/offload for LLaMA-Factory, TP/PP/CP + recompute for MindSpeed-LLM — with micro batch, grad_accum, the per-device memory breakdown, and the vendor table row beside it.

    Default framework LLaMA-Factory, hardware snt9b (910B; snt9b23 counts DIE). max_devices caps the plan ("I only have 16 cards"); nothing fitting is reported with fits=false."""
    s, model_id = resolve_shape(ctx, args)
    check_plan_args(args)
    hw_id, dev = resolve_hardware(ctx, args.hardware)
    base = TrainConfig(method=args.method, stage=args.stage, seq_len=args.seq_len, micro_batch=args.micro_batch,
                       framework=args.framework, precision=precision_for(args.precision, dev, args.framework), lora_rank=args.lora_rank,
                       quant_bits=args.quant_bits, tightest=args.tightest, zero_fixed=args.zero_stage,
                       offload_fixed=args.offload, grad_accum_fixed=None if args.global_batch else args.keep_grad_accum,
                       **args.trainer_config(args.framework))
    if args.all_devices and args.max_devices:
        return plan_on_all(ctx, s, model_id, hw_id, dev, base, args.max_devices, args.global_batch)
    return plan_result(ctx, s, model_id, hw_id, dev, base, args.max_devices, args.global_batch)


def plan_on_all(ctx, s: Shape, model_id: str | None, hw_id: str, dev: Device, base: TrainConfig, have: int,
                global_batch: int | None) -> PlanResult:
    """The plan on all of the user's ``have`` devices: the fastest setting that fits on that count, its gradient
    accumulation scaled to keep a global batch (the user's; else the LLaMA-Factory recipe row's, cards x GA at micro
    batch 1, or on the row's own count at the user's micro batch, so it keeps the row's GA; else the fewest plan's), with the fewest devices within ``have`` beside it."""
    refs = table_refs(ctx, model_id, base.method, base.seq_len, base.framework, hw_id, base.stage)
    fewest = _plan(s, base, dev, have, global_batch, practice=not any(r.supported and r.cards for r in refs))
    recipe = next((r for r in refs if r.source == "recipes_llamafactory" and r.cards and r.grad_accum), None)
    kept, source = (global_batch, "user") if global_batch else (None, None)
    if kept is None and base.grad_accum_fixed is None:
        if recipe is not None and recipe.cards and recipe.grad_accum and base.framework == "LLaMA-Factory":
            # the row fixes cards and gradient_accumulation_steps (its runs at micro batch 1): on the row's own count its
            # accumulation at the user's micro batch (the plan's GA is the row's); on another count its global batch
            kept, source = recipe.cards * recipe.grad_accum * (base.micro_batch if have == recipe.cards else 1), "recipe"
        elif fewest.fits:
            kept, source = fewest.global_batch, "plan"
    # on a count the user has, a setting sized on its likely range's upper end before a faster one only its point fits
    result = plan_result(ctx, s, model_id, hw_id, dev, base._replace(all_devices=True, upper_end=True), have, kept)
    if not result.fits:
        result = plan_result(ctx, s, model_id, hw_id, dev, base._replace(all_devices=True), have, kept)
    if not result.fits:  # nothing on all of them: the plan within them, as without all_devices
        return plan_result(ctx, s, model_id, hw_id, dev, base, have, global_batch)
    result.fewer_devices = None  # the fewest within them is said instead
    result.fewest = _alternative(fewest, dev) if fewest.fits and fewest.devices < result.devices else None
    result.kept_global_batch, result.kept_from = kept, source
    return result


# ---------------------------------------------------------------- compare_hardware
class CompareHardwareArgs(ModelArgs):
    method: Method = "lora"
    seq_len: int = Field(4096, ge=1, le=MAX_SEQ_LEN, description="Tokens per sequence, 1..1048576.")
    stage: Stage = "sft"
    framework: Framework = "LLaMA-Factory"


class HardwarePlan(BaseModel):
    hardware: str = Field(description="Hardware catalog id.")
    name: str = Field(description="Hardware name from the catalog.")
    memory_gb: float = Field(description="Memory per device (per DIE on Snt9B23), GB, from the catalog.")
    unit: str = Field(description="What one device is: card, or DIE on Snt9B23.")
    fits: bool = Field(description="Whether a plan fits on this hardware.")
    verdict: Literal["fits", "tight", "does_not_fit"] = Field(description="The plan's memory verdict: fits, tight or does_not_fit.")
    devices: int = Field(description="Devices the plan needs (cards; DIE on Snt9B23).")
    nodes: int = Field(description="Nodes the devices span.")
    per_node: int = Field(description="Devices used on each node.")
    physical_cards: int | None = Field(None, description="Physical cards on Snt9B23 (2 DIE each); null elsewhere.")
    zero_stage: int | None = Field(description="DeepSpeed ZeRO stage; null for MindSpeed-LLM (Megatron parallelism instead).")
    offload: bool = Field(description="DeepSpeed CPU offload (optimizer; parameters too on ZeRO-3).")
    tp: int = Field(description="Tensor parallel size.")
    pp: int = Field(description="Pipeline parallel size.")
    total_gib: float = Field(description="Estimated per-device memory of the plan, GiB (the allocator's pool).")
    usable_gib: float = Field(description="Usable memory per device, GiB (what the device reports as capacity).")
    table_cards: int | None = Field(None, description="The vendor table's device count for the same case, if it has a row; null otherwise.")


class CompareHardwareResult(BaseModel):
    model: str = Field(description="Canonical catalog id of the model, or the name of a custom shape.")
    method: str = Field(description="Fine-tuning method: full, freeze, lora or qlora.")
    seq_len: int = Field(description="Tokens per sequence.")
    framework: str = Field(description="Training framework.")
    plans: list[HardwarePlan] = Field(description="One plan per catalog hardware, fewest total device memory first.")
    notes: list[str] = Field(default_factory=list, description="How to read the plans (units, order).")
    inference_only: list[str] = Field(default_factory=list, description="Catalog parts left out: inference cards that do not train (the catalog's training column).")


@tool
def compare_hardware(ctx, args: CompareHardwareArgs) -> CompareHardwareResult:
    """Compare the training plan (devices, nodes, ZeRO stage or TP/PP, memory per device) for one model, method and sequence length on every hardware in the catalog (Ascend Snt9B/Snt9B23/32G and NVIDIA GPUs)."""
    s, model_id = resolve_shape(ctx, args)
    check_seq_len(args.seq_len)
    base = TrainConfig(method=args.method, stage=args.stage, seq_len=args.seq_len, framework=args.framework)
    plans, inference_only = [], []
    for h in ctx.kb.hardware():
        if str(h.get("training", "true")).lower() == "false":  # an inference card (Atlas 300I Duo): no training plan
            inference_only.append(h["id"])
            continue
        dev = device_from_row(h)
        p = plan_result(ctx, s, model_id, h["id"], dev, base._replace(precision=precision_for(None, dev, args.framework)), None, None,
                        suggest=False)
        plans.append(HardwarePlan(hardware=h["id"], name=h["name"], memory_gb=dev.memory_gb, unit=dev.unit, fits=p.fits,
                                  verdict=p.verdict,
                                  devices=p.devices, nodes=p.nodes, per_node=p.per_node, physical_cards=p.physical_cards,
                                  zero_stage=p.zero_stage, offload=p.offload, tp=p.tp, pp=p.pp, total_gib=p.memory.total_gib,
                                  usable_gib=p.memory.usable_gib, table_cards=p.table.cards if p.table else None))
    plans.sort(key=lambda x: (not x.fits, x.devices * x.memory_gb, x.hardware))
    return CompareHardwareResult(model=model_id or s.name, method=args.method, seq_len=args.seq_len, framework=args.framework,
                                 plans=plans, notes=["Snt9B23 counts DIE (2 per card); every other row counts cards.",
                                                     "Sorted by total device memory used: fewest GB first."],
                                 inference_only=inference_only)


# ---------------------------------------------------------------- estimate_inference
class EstimateInferenceArgs(ModelArgs):
    max_model_len: int = Field(4096, ge=1, le=MAX_SEQ_LEN, description="Context length to serve (vLLM --max-model-len), 1..1048576.")
    hardware: HardwareName = "snt9b"
    gpu_memory_utilization: float = Field(0.9, gt=0, le=1, description="vLLM --gpu-memory-utilization, in (0, 1].")
    concurrency: int = Field(1, ge=1, le=100_000, description="Sequences of max_model_len that must fit in the KV cache at once, >= 1.")
    weight_bits: Literal[4, 8, 16] | None = Field(
        None, description="Weight precision for every weight: 16 (bf16), 8 (W8A8 int8/FP8) or 4 (AWQ/GPTQ int4). "
        "None (default): the checkpoint's native precision where the hardware serves it, else 16: DeepSeek-V3/R1 FP8 "
        "and gpt-oss MXFP4 experts on NVIDIA GPUs; Ascend converts them to bf16.")
    kv_cache_dtype: Literal["auto", "fp8", "int8"] = Field(
        "auto", description="KV cache precision (vLLM --kv-cache-dtype): auto = the model's bf16/fp16 (2 bytes per "
        "element); fp8 = 1 byte on GPUs; int8 = 1 byte, Ascend's KV-cache int8 quantisation (vllm-ascend).")
    max_devices: int = Field(64, ge=1, le=MAX_DEVICES, description="Most devices to consider, >= 1.")
    largest_layout: bool = Field(False, description="Size the largest layout within max_devices instead of the fewest "
                                 "devices that fit: how many sequences a given set of devices holds.")
    given_tp: int | None = Field(None, ge=1, le=256, description="The user's --tensor-parallel-size, sized as given with "
                                 "given_pp; it must split the attention heads (and the KV heads, or be a multiple of them).")
    given_pp: int | None = Field(None, ge=1, le=256, description="The user's --pipeline-parallel-size, sized as given.")
    max_num_batched_tokens: int = Field(C.INFERENCE_ACTIVATION_TOKENS, ge=1, le=MAX_SEQ_LEN, description=(
        "vLLM --max-num-batched-tokens: tokens of its memory-profiling forward pass (V1 default 8192; vllm serve 2048; "
        "V0 without chunked prefill profiled max(max_model_len, 2048))."))
    max_num_seqs: int = Field(C.INFERENCE_PROFILE_SEQS, ge=1, le=1_000_000, description=(
        "vLLM --max-num-seqs: sequences whose last token the profiling run samples (fp32 logits over the vocabulary)."))


class InferenceResult(BaseModel):
    model: str = Field(description="Canonical catalog id of the model, or the name of a custom shape.")
    shape: ShapeInfo = Field(description="The model shape the estimate used (from the catalog, config.json, or inferred from params_b).")
    hardware: str = Field(description="Hardware catalog id.")
    unit: str = Field(description="What one device is: card, or DIE on Snt9B23.")
    fits: bool = Field(description="Whether the KV cache holds max_model_len x concurrency tokens on the devices found.")
    devices: int = Field(description="Fewest devices (TP a power of two dividing the heads; PP across nodes): replicas x tp x pp.")
    replicas: int = Field(1, description="Identical vLLM instances (data parallel), each of tp x pp devices with its own "
                          "KV cache; more than 1 when one instance cannot hold the sequences at once.")
    tp: int = Field(description="Tensor parallel size (vLLM --tensor-parallel-size).")
    pp: int = Field(description="Pipeline parallel size (vLLM --pipeline-parallel-size).")
    max_model_len: int = Field(description="Context length sized, tokens (vLLM --max-model-len), as given.")
    gpu_memory_utilization: float = Field(description="vLLM --gpu-memory-utilization used, as given.")
    concurrency: int = Field(description="Sequences of max_model_len sized to fit at once, as given.")
    model_max_context: int | None = Field(None, description="The model's own context limit (max_position_embeddings); "
                                          "a longer max_model_len needs RoPE scaling (vLLM refuses it otherwise).")
    kv_cache_dtype: Literal["auto", "fp8", "int8"] = Field("auto", description="The KV cache precision sized: auto = the "
                                                           "model's bf16/fp16; fp8 / int8 = 1 byte per element.")
    kv_bytes_per_token: float = Field(description="KV cache bytes per token over all layers (GQA-aware; MLA latent for DeepSeek; with sliding-window layers, the average over a max_model_len sequence).")
    kv_bytes_per_token_per_device: float = Field(description="KV cache bytes per token on one device: KV heads split over TP (the MLA latent replicated), layers over PP.")
    kv_formula: str = Field(description="The KV-bytes-per-token formula with the model's numbers put in.")
    weights_gib_per_device: float = Field(description="Model weights on one device, GiB (estimate, at the weight precision in assumptions).")
    activation_gib: float = Field(description="Peak of vLLM's memory-profiling run on one device, GiB (estimate).")
    overhead_gib: float = Field(description="Runtime and communication overhead on one device, GiB (the estimator's constant for NPUs or GPUs).")
    budget_gib: float = Field(description="gpu_memory_utilization x reported capacity.")
    kv_cache_gib: float = Field(description="Memory left for the KV cache on one device, GiB: budget minus weights, activation and overhead.")
    kv_tokens_fit: int = Field(description="Tokens of KV cache that fit across the plan.")
    kv_tokens_low: int = Field(description="Low end of the KV capacity's likely range (the profiled peak and overhead "
                               "running as high as the measurements show).")
    kv_tokens_high: int = Field(description="High end of the KV capacity's likely range.")
    verdict: Literal["fits", "tight", "does_not_fit"] = Field(description="fits: the low end of the KV range holds "
                                                              "max_model_len x concurrency; tight: only the high end does; does_not_fit: neither.")
    max_sequences_at_len: int = Field(description="Sequences of max_model_len the KV cache holds at once (kv_tokens_fit / max_model_len).")
    max_num_seqs_needed: int | None = Field(None, description="The --max-num-seqs each instance needs to run its share of "
                                            "the concurrency at once (concurrency / replicas, rounded up), when above "
                                            "max_num_seqs (vLLM's default 256): below it the rest wait in the queue.")
    table: dict[str, Any] | None = Field(description="The vLLM table row for this model and card memory, if any.")
    note: str | None = Field(None, description="Where the vLLM table row differs from the estimate (a longer length than it tested, a different card count).")
    reason: str = Field(description="Why this layout was chosen, or why nothing fits (estimator).")
    assumptions: list[str] = Field(description="What the estimate assumed (weight and KV precision, vLLM's profiling run, sliding window).")


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
    kv_bytes, kv_label = _kv_cache_precision(args.kv_cache_dtype, dev)
    profile = (args.max_num_batched_tokens, args.max_num_seqs)
    given = (args.given_tp or 1, args.given_pp or 1) if args.given_tp or args.given_pp else None
    kv = None if s.is_mla else s.kv_heads
    if given and not tp_splits_heads(given[0], s.heads, kv, serving=True):
        raise SizingError("invalid_arguments", f"tp {given[0]} does not split the {s.heads} attention heads / {kv} KV heads "
                          "(vLLM: TP divides the heads, and divides the KV heads or is a multiple of them).", field="tp",
                          valid=[t for t in range(1, 65) if tp_splits_heads(t, s.heads, kv, serving=True)])
    # copies of one instance for many sequences at once: up to the devices the caller allows, else any fleet
    fleet = args.max_devices if "max_devices" in args.model_fields_set else MAX_DEVICES
    p = plan_inference(s, dev, args.max_model_len, args.gpu_memory_utilization, args.concurrency, args.weight_bits, args.max_devices,
                       largest=args.largest_layout, kv_bytes=kv_bytes, profile=profile, replica_devices=fleet, layout=given)
    table, note = vllm_row(ctx, model_id, dev, args.max_model_len, args.gpu_memory_utilization, args.concurrency, p.devices)
    return InferenceResult(
        model=model_id or s.name, shape=shape_info(s), hardware=hw_id, unit=dev.unit, fits=p.fits, devices=p.devices, replicas=p.replicas,
        tp=p.tp, pp=p.pp, max_model_len=args.max_model_len, gpu_memory_utilization=args.gpu_memory_utilization,
        concurrency=args.concurrency, model_max_context=model_context(ctx, model_id), kv_cache_dtype=args.kv_cache_dtype, kv_bytes_per_token=p.kv_per_token_total, kv_bytes_per_token_per_device=p.kv_per_token_device,
        kv_formula=p.kv_formula, weights_gib_per_device=p.weights_gib, activation_gib=p.activation_gib, overhead_gib=p.overhead_gib,
        budget_gib=p.budget_gib, kv_cache_gib=p.kv_cache_gib, kv_tokens_fit=p.kv_tokens, kv_tokens_low=p.kv_tokens_low,
        kv_tokens_high=p.kv_tokens_high, verdict=p.verdict, max_sequences_at_len=p.max_sequences,
        max_num_seqs_needed=_scheduler_seqs(args.concurrency, p.replicas, args.max_num_seqs) if p.fits else None,
        table=table, note=note, reason=p.reason,
        assumptions=[f"{p.weight_precision}; KV cache {kv_label}",
                     f"vLLM's profiling run: a forward pass over {args.max_num_batched_tokens} batched tokens and the sampler "
                     f"over {min(args.max_num_seqs, args.max_num_batched_tokens)} sequences' logits",
                     *_sliding_window_assumption(s)])


def _scheduler_seqs(concurrency: int, replicas: int, max_num_seqs: int) -> int | None:
    """Sequences one instance must run at once; vLLM's scheduler admits at most --max-num-seqs of them (default 256),
    so KV room alone does not serve more (vllm/config: SchedulerConfig.max_num_seqs)."""
    share = -(-concurrency // max(1, replicas))
    return share if share > max_num_seqs else None


# The 8-bit KV cache each runtime has: vLLM's CUDA/ROCm kernels quantise it to fp8, vllm-ascend to int8
KV_8BIT = {"gpu": "fp8", "npu": "int8"}


def _kv_cache_precision(dtype: str, dev) -> tuple[float, str]:
    """Bytes per cached K/V element. fp8 KV needs a GPU (vLLM's CUDA/ROCm kernels); Ascend quantises the
    KV cache to int8 instead (vllm-ascend), so each is refused where the runtime has no such cache."""
    if dtype == "auto":
        return 2.0, "bf16 (the model's dtype)"
    ascend = dev.kind == "npu"
    if dtype == "fp8" and ascend:
        raise SizingError("invalid_arguments", "kv_cache_dtype fp8 is not available on Ascend NPUs; use int8 "
                          "(vllm-ascend KV-cache quantisation) or auto.", field="kv_cache_dtype", valid="auto, int8")
    if dtype == "int8" and not ascend:
        raise SizingError("invalid_arguments", "kv_cache_dtype int8 is an Ascend (vllm-ascend) option; on GPUs vLLM "
                          "offers fp8.", field="kv_cache_dtype", valid="auto, fp8")
    return 1.0, f"{dtype} (1 byte per element, --kv-cache-dtype {dtype})"


def _sliding_window_assumption(s) -> list[str]:
    if not (s.sliding_window and s.sliding_layers):
        return []
    n = min(s.sliding_layers, s.layers)
    if not C.SLIDING_WINDOW_KV:
        return [f"{n} of {s.layers} layers use a {s.sliding_window}-token sliding window; sized at full length (older vLLM)"]
    return [f"{n} of {s.layers} layers use a {s.sliding_window}-token sliding window and keep at most that many tokens of KV "
            "per sequence (vLLM's hybrid KV cache manager, v0.10+; older releases reserve the full length)"]
