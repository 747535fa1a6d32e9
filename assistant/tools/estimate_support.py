"""What the estimator tools share: name and shape resolution, argument checks that need the model's
shape or span several fields (raised as the canonical SizingError), and the wording around the
numbers (assumptions, context-length and no-fit notes, the vLLM row). The numbers themselves come
from assistant/estimate.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..errors import SizingError
from ..estimate import constants as C
from ..estimate.calibrate import device_from_row
from ..estimate.memory import Breakdown, Device, TrainConfig, default_precision, loss_gib
from ..estimate.plan import Plan, longest_seq_len, needs_cp, plan_training
from ..estimate.shape import Shape, from_catalog, from_params, lora_targets_valid, with_overrides
from .common import MAX_SEQ_LEN
from .error_messages import TOOL_ERRORS
from .estimate_models import MemoryBreakdown, ModelArgs, ShapeInfo
from .estimate_tables import setting, units

if TYPE_CHECKING:  # the argument models live with their tools; only their attributes are read here
    from .estimates import EstimateTrainingMemoryArgs, PlanTrainingArgs

# ---------------------------------------------------------------- resolution
_HW_WORDS = ("cards", "card", "gpus", "gpu", "npus", "npu", "卡", "显卡", "nodes", "node")


# "24gb", "24 GB card", "16g GPU", "48gb npu": a part the catalog does not list, known by its memory alone.
_CUSTOM_HW = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:gb|gib|g)\b\s*(.*)$", re.IGNORECASE)
_NPU_WORDS = ("npu", "ascend", "昇腾")


# the id a custom part gets ("custom-56gb-gpu"), read back as its memory and kind
_CUSTOM_ID = re.compile(r"^custom-(\d+(?:\.\d+)?)gb-(gpu|npu)$")
# a generic part's node: the catalog's usual 8 devices per server (its PCIe GPU rows say the same assumption)
GENERIC_NODE_SIZE = 8


def custom_device(name: str) -> tuple[str, Device] | None:
    """A custom part from "N GB [card|GPU|NPU]" (or its own id, "custom-N gb-gpu"): N GB of memory, 8 per node,
    counted in cards. A GPU unless the name says NPU/Ascend (the reported-capacity share differs). None if the name
    is not of that form."""
    if own := _CUSTOM_ID.match(name.strip().lower()):
        name = f"{own.group(1)}gb {own.group(2)}"
    m = _CUSTOM_HW.match(name)
    if not m or not 1 <= float(m.group(1)) <= 4096:
        return None
    rest = m.group(2).lower()
    leftover = rest
    for w in (*_HW_WORDS, *_NPU_WORDS):
        leftover = leftover.replace(w, " ")
    if leftover.strip():
        return None  # "32g 910b" or "24gb rtx": a named part, not a custom one
    kind = "npu" if any(w in rest for w in _NPU_WORDS) else "gpu"
    gb = float(m.group(1))
    hw_id = f"custom-{gb:g}gb-{kind}"
    return hw_id, Device(id=hw_id, kind=kind, memory_gb=gb)


def generic_part(hw_id: str | None) -> dict | None:
    """A generic part (a custom id: "custom-56gb-gpu") as a hardware catalog row: the stated memory per device, one
    device per card, the catalog's usual 8 per node, BF16 taken as supported and no vendor table. A part the user
    names with its memory and the catalog lacks ("MI210 64GB", "our 56GB GPUs") is sized as this; None for any other id."""
    custom = custom_device(hw_id or "") if (hw_id or "").startswith("custom-") else None
    if custom is None:
        return None
    dev = custom[1]
    kind = "NPU" if dev.kind == "npu" else "GPU"
    return {"id": custom[0], "name": f"generic {kind}, {dev.memory_gb:g} GB (stated memory)", "kind": dev.kind,
            "memory_gb": dev.memory_gb, "devices_per_node": GENERIC_NODE_SIZE, "unit": "card", "dies_per_card": 1,
            "min_parallel_unit": 1, "bf16": True, "training": True, "short_name": f"{dev.memory_gb:g} GB {kind} (generic)",
            "source": "stated memory (no catalog row, no vendor table)", "vendor_tables": ""}


def resolve_hardware(ctx, name: str) -> tuple[str, Device]:
    """Any catalog spelling; words like 'cards' or 'GPUs' are ignored ('32G cards' -> snt9b-32g). A name
    that is only a memory size ("24gb", "16 GB GPU") not in the catalog is a custom part (custom_device)."""
    try:
        hw_id = ctx.resolver.hardware_id(name)
    except SizingError:
        cleaned = name.lower()
        for w in _HW_WORDS:
            cleaned = cleaned.replace(w, " ")
        cleaned = " ".join(cleaned.split())
        if not cleaned:
            raise
        try:
            hw_id = ctx.resolver.hardware_id(cleaned)
        except SizingError:
            custom = custom_device(name)
            if custom is None:
                raise
            return custom
    return hw_id, device_from_row(ctx.kb.hardware_row(hw_id))


def resolve_shape(ctx, args: ModelArgs) -> tuple[Shape, str | None]:
    """(shape, catalog id or None). A raw count infers a Llama-like shape (see estimate/shape.py)."""
    model_id = None
    if args.model:
        refuse_unmodelled_family(args.model)
        model_id = ctx.resolver.model_id(args.model)
        row = ctx.kb.model(model_id)
        if not row or not row.get("layers"):
            raise SizingError("no_shape", TOOL_ERRORS.en("no_shape", model=model_id), field="model")
        shape = from_catalog(row)
        if args.params_b and abs(args.params_b * 1e9 - shape.params) > PARAMS_AGREE * shape.params:
            raise _invalid(TOOL_ERRORS.en("params_disagree", model=model_id, params=f"{shape.params / 1e9:.2f}",
                                           stated=f"{args.params_b:g}"), "params_b", [round(shape.params / 1e9, 2)])
    elif args.params_b:
        shape = from_params(args.params_b)
    else:
        raise SizingError("invalid_arguments", TOOL_ERRORS.en("model_or_params"),
                          field="model", valid=["model", "params_b"])
    if args.shape:
        shape = with_overrides(shape, **args.shape.model_dump(exclude_none=True))
        if shape.heads % shape.kv_heads:
            raise SizingError("invalid_arguments", TOOL_ERRORS.en("kv_heads_divide", kv=shape.kv_heads, heads=shape.heads),
                              field="shape.kv_heads", valid=[k for k in range(1, shape.heads + 1) if shape.heads % k == 0])
    return shape, model_id


# params_b beside a catalog model is accepted when it names the same size (a rounded "8B" for 8.03B); the
# catalog shape is used either way. Further apart, one of the two is wrong and the tool refuses.
PARAMS_AGREE = 0.10
# Encoder-decoder families: the memory model (one decoder stack, causal-LM loss, one KV cache per layer)
# does not describe them, so they are refused by name before the catalog lookup.
ENCODER_DECODER = re.compile(r"(?<![a-z])(?:flan-?t5|t5|mt5|umt5|byt5|long-?t5|code-?t5|ul2|bart|mbart|pegasus|"
                              r"marian|opus-mt|nllb|m2m-?100|whisper|seamless|prophetnet|switch-(?:base|large|xxl|c))"
                              r"(?![a-z])", re.IGNORECASE)


def refuse_unmodelled_family(name: str) -> None:
    m = ENCODER_DECODER.search(name.replace("_", "-"))
    if m:
        raise SizingError("unsupported_model", TOOL_ERRORS.en("encoder_decoder", name=repr(name), family=m.group(0)),
                          field="model")


def shape_info(s: Shape) -> ShapeInfo:
    return ShapeInfo(model=s.name, params_b=round(s.params / 1e9, 3), active_params_b=round((s.active_params or s.params) / 1e9, 3),
                     layers=s.layers, hidden=s.hidden, ffn=s.ffn, heads=s.heads, kv_heads=s.kv_heads, head_dim=s.hd,
                     vocab=s.vocab, moe=s.is_moe, mla=s.is_mla, sliding_window=s.sliding_window,
                     sliding_layers=min(s.sliding_layers, s.layers), inferred=list(s.inferred))


def breakdown_model(b: Breakdown) -> MemoryBreakdown:
    terms = {"weights": b.weights, "gradients": b.gradients, "optimizer": b.optimizer, "activations": b.activations,
             "logits": b.logits, "overhead": b.overhead, "cached": b.cached, "pinned": b.pinned, "host_ram": b.host_ram_gib, "optimizer_step": b.step}
    how = {k: v.how for k, v in terms.items()}
    how["total"] = ("sum of the terms above: the allocator's pool (peak reserved) with the runtime context and collective "
                    "buffers beside it (what nvidia-smi / npu-smi show); the tensors alone are allocated_gib, the allocator's "
                    "segments alone (torch.cuda.max_memory_reserved) reserved_gib; the total less cached blocks is what the "
                    "verdict judges")
    lo, hi = C.RANGE_RATIO
    how["range"] = (f"likely {b.low_gib:.1f}-{b.high_gib:.1f} GiB: the point less cached blocks x {lo:g}-{hi:g}, the 10th-90th "
                    "percentile of measured / predicted over the measurement files (constants.RANGE_RATIO), cached "
                    f"blocks {b.cached_gib:.2f} GiB added back; the verdict compares the range without them"
                    + (f"; if attention falls back to the math path, + {b.attention_open_gib:.1f} GiB of scores" if b.attention_open_gib else "")
                    + (f"; if the pool keeps ZeRO-3's gathered blocks pinned (no expandable segments), + {b.pinned.gib:.1f} GiB "
                       "(how: pinned)" if b.pinned.gib else "")
                    + (f": up to {b.open_high_gib:.1f} GiB, which the verdict also judges" if b.open_high_gib else ""))
    how["usable"] = "nominal memory x reported-capacity fraction (Ascend: 60.97 of 64 GiB)"
    return MemoryBreakdown(
        weights_gib=round(b.weights.gib, 3), gradients_gib=round(b.gradients.gib, 3), optimizer_gib=round(b.optimizer.gib, 3),
        activations_gib=round(b.activations.gib, 3), logits_gib=round(b.logits.gib, 3), overhead_gib=round(b.overhead.gib, 3),
        total_gib=b.total_gib, allocated_gib=b.allocated_gib, reserved_gib=b.reserved_gib, low_gib=b.low_gib, high_gib=b.high_gib, verdict=b.verdict,
        usable_gib=b.usable_gib, headroom_gib=round(b.usable_gib - (b.total_gib - b.cached_gib), 3), fits=b.fits,
        cached_gib=round(b.cached_gib, 3), attention_open_gib=round(b.attention_open_gib, 3), open_high_gib=b.open_high_gib,
        pinned_gib=round(b.pinned.gib, 3), optimizer_step_gib=round(b.step.gib, 3),
        host_ram_gib=round(b.host_ram_gib.gib, 3), host_ram_fits=b.host_fits, how=how)


# ---------------------------------------------------------------- argument checks
def _invalid(message: str, field: str, valid: Any = None) -> SizingError:
    return SizingError("invalid_arguments", message, field=field, valid=valid)


def check_seq_len(seq_len: int, field: str = "seq_len") -> None:
    if seq_len < 1 or seq_len > MAX_SEQ_LEN:
        raise _invalid(TOOL_ERRORS.en("seq_len_range", field=field, limit=MAX_SEQ_LEN, value=seq_len), field, f"1..{MAX_SEQ_LEN}")


def check_train_args(a: EstimateTrainingMemoryArgs, s: Shape) -> str:
    """Validate estimate_training_memory's arguments against each other and the shape; the framework."""
    check_seq_len(a.seq_len)
    for name in ("micro_batch", "devices", "tp", "pp", "cp"):
        v = getattr(a, name)
        if v < 1:
            raise _invalid(TOOL_ERRORS.en("at_least_one", field=name, value=v), name, ">= 1")
    if a.micro_batch > 4096 or a.devices > 1_000_000:
        raise _invalid(TOOL_ERRORS.en("batch_devices_limit"), "devices")
    if a.method in ("lora", "qlora") and a.lora_rank < 1:
        raise _invalid(TOOL_ERRORS.en("at_least_one", field="lora_rank", value=a.lora_rank), "lora_rank", ">= 1")
    if a.lora_rank > 65536:
        raise _invalid(TOOL_ERRORS.en("at_most_n", field="lora_rank", limit=65536), "lora_rank", "1..65536")
    if not lora_targets_valid(a.lora_targets):
        raise _invalid(TOOL_ERRORS.en("lora_targets", targets=repr(a.lora_targets)), "lora_targets",
                       ["all", "attention", "mlp", "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj"])
    kv = s.heads if s.is_mla else s.kv_heads
    if s.heads % a.tp or kv % a.tp:
        raise _invalid(TOOL_ERRORS.en("tp_heads", tp=a.tp, heads=s.heads, kv=kv), "tp",
                       [t for t in range(1, s.heads + 1) if s.heads % t == 0 and kv % t == 0])
    if a.pp > s.layers:
        raise _invalid(TOOL_ERRORS.en("pp_layers", pp=a.pp, layers=s.layers), "pp", f"1..{s.layers}")
    mp = a.tp * a.pp * a.cp
    if a.devices % mp:
        raise _invalid(TOOL_ERRORS.en("devices_multiple", devices=a.devices, mp=mp), "devices", [mp * k for k in range(1, 9)])
    if a.ep > 1 and not s.is_moe:
        raise _invalid(TOOL_ERRORS.en("ep_dense", ep=a.ep), "ep", [1])
    if a.ep > 1 and (s.experts % a.ep or (a.devices // mp) % a.ep):
        raise _invalid(TOOL_ERRORS.en("ep_divide", ep=a.ep, experts=s.experts, dp=a.devices // mp), "ep", [e for e in range(1, a.devices // mp + 1) if s.experts % e == 0 and (a.devices // mp) % e == 0])
    framework = a.framework or ("MindSpeed-LLM" if mp > 1 or a.ep > 1 else "LLaMA-Factory")
    if framework != "MindSpeed-LLM" and (mp > 1 or a.ep > 1):
        raise _invalid(TOOL_ERRORS.en("data_parallel_only", framework=framework), "tp", [1])
    if framework == "MindSpeed-LLM" and needs_cp(a.seq_len) and a.cp < 2:
        raise _invalid(TOOL_ERRORS.en("cp_rule", limit=C.CP_REQUIRED_ABOVE, seq=a.seq_len), "cp", [c for c in (2, 4, 8) if a.devices % (a.tp * a.pp * c) == 0] or ">= 2")
    if a.stage == "ppo" and a.zero_stage == 3 and framework == "LLaMA-Factory":
        raise _invalid(TOOL_ERRORS.en("ppo_zero3"), "zero_stage", [0, 1, 2])
    if a.zero_stage and framework in C.UNSHARDED_FRAMEWORKS:
        raise _invalid(TOOL_ERRORS.en("unsharded", framework=framework),
                       "zero_stage", [0])
    if a.offload and (a.zero_stage == 0 or framework == "MindSpeed-LLM"):
        raise _invalid(TOOL_ERRORS.en("offload_needs_zero"), "offload", [False])
    if a.optimizer_in_backward and (a.zero_stage != 0 or a.grad_accum != 1):
        raise _invalid("optimizer_in_backward steps each parameter as its gradient arrives: it needs zero_stage 0 and "
                       "grad_accum 1 (torchtune optimizer_in_bwd).", "grad_accum" if a.zero_stage == 0 else "zero_stage", [1] if a.zero_stage == 0 else [0])
    if framework == "LLaMA-Factory" and a.method == "qlora" and a.zero_stage == 3 and a.quant_bits != 4:
        raise _invalid(TOOL_ERRORS.en("qlora_zero3"), "quant_bits", [4])
    if framework == "LLaMA-Factory" and a.precision == "pure_bf16" and a.zero_stage == 3:
        raise _invalid(TOOL_ERRORS.en("pure_bf16_zero3"), "precision", ["bf16", "fp16", "fp32"])
    return framework


def check_plan_args(a: PlanTrainingArgs) -> None:
    check_seq_len(a.seq_len)
    if a.max_devices is not None and a.max_devices < 1:
        raise _invalid(TOOL_ERRORS.en("at_least_one", field="max_devices", value=a.max_devices), "max_devices", ">= 1")
    if a.max_devices is not None and a.max_devices > 65536:
        raise _invalid(TOOL_ERRORS.en("at_most_n", field="max_devices", limit=65536), "max_devices", "1..65536")
    if a.global_batch is not None and not 1 <= a.global_batch <= 10_000_000:
        raise _invalid(TOOL_ERRORS.en("between", field="global_batch", limit=10000000, value=a.global_batch), "global_batch", "1..10000000")
    if not 1 <= a.micro_batch <= 4096:
        raise _invalid(TOOL_ERRORS.en("between", field="micro_batch", limit=4096, value=a.micro_batch), "micro_batch", "1..4096")
    if a.method in ("lora", "qlora") and not 1 <= a.lora_rank <= 65536:
        raise _invalid(TOOL_ERRORS.en("at_least_one", field="lora_rank", value=a.lora_rank), "lora_rank", "1..65536")
    if a.global_batch is not None and a.global_batch % a.micro_batch:
        raise _invalid(TOOL_ERRORS.en("gbs_multiple", gbs=a.global_batch, mbs=a.micro_batch), "global_batch")
    if a.framework == "MindSpeed-LLM" and (a.method not in C.MINDSPEED_METHODS or a.stage not in C.MINDSPEED_STAGES):
        bad, valid = ("method", C.MINDSPEED_METHODS) if a.method not in C.MINDSPEED_METHODS else ("stage", C.MINDSPEED_STAGES)
        raise _invalid(f"The ModelArts MindSpeed-LLM scripts (Megatron-LM's layout on GPUs) take STAGE pt or sft with "
                       f"FINETUNING_TYPE full or lora, not {bad} {getattr(a, bad)!r}.", bad, list(valid))
    if a.framework == "MindSpeed-LLM" and (a.zero_stage is not None or a.offload):
        raise _invalid(TOOL_ERRORS.en("mindspeed_zero"), "zero_stage", [None])
    if a.offload and a.zero_stage in (0, 1):
        raise _invalid(TOOL_ERRORS.en("offload_stage"), "offload", [2, 3])


# ---------------------------------------------------------------- wording
def precision_for(requested: str | None, dev: Device, framework: str = "") -> str:
    """The precision asked for, or the default: pure_bf16 for a framework that trains all in bf16
    (constants.PURE_BF16_FRAMEWORKS) on a part with BF16, else the part's bf16 mixed precision, fp16 where it has no
    BF16 (V100, T4, 910A)."""
    if requested:
        return requested
    if framework in C.PURE_BF16_FRAMEWORKS and dev.bf16:
        return "pure_bf16"
    return default_precision(dev)


def assumptions(s: Shape, cfg: TrainConfig, dev: Device) -> list[str]:
    act = {"fp16": "fp16", "fp32": "fp32"}.get(cfg.precision, "bf16")
    # FlashAttention-2 needs Ampere or newer: on V100/T4 (the GPUs without BF16) PyTorch's SDPA picks its
    # memory-efficient kernel, which also keeps no s x s matrix.
    attn = "FlashAttention" if dev.kind == "npu" or dev.bf16 else "memory-efficient SDPA, FlashAttention-2 needing Ampere or newer"
    attn_text = (f"{attn} (no s^2 term)" if cfg.attention == "fused"
                 else "eager attention (the heads x s^2 scores materialised per layer)")
    out = [f"activations in {act} with {attn_text}",
           f"usable memory = {dev.memory_gb:g} GB x {C.CAPACITY_FRACTION.get(dev.kind, 1):.3f} reported capacity"]
    if cfg.megatron:
        out.append("MindSpeed-LLM: distributed optimizer, sequence parallel with TP, 1F1B pipeline")
    elif cfg.framework == "LLaMA-Factory":
        out.append(f"DeepSpeed ZeRO-{cfg.zero_stage}" + (" with CPU offload" if cfg.offload else "") + " over data parallel")
    else:
        out.append(f"{cfg.framework}: data parallel sized as DeepSpeed ZeRO-{cfg.zero_stage}"
                   + (" (FSDP full shard)" if cfg.zero_stage == 3 else "") + (" with CPU offload" if cfg.offload else "")
                   + f"; its default loss is {C.LOSS_DEFAULT.get(cfg.framework, 'fp32')}")
    if cfg.activation_offload:
        out.append("activation offloading: the activations saved for backward wait in host RAM, "
                   f"{C.ACTIVATION_OFFLOAD_LIVE_LAYERS} layers' worth on the device"
                   + (f" ({cfg.framework}'s default)" if cfg.framework in C.ACTIVATION_OFFLOAD_DEFAULT else ""))
    if cfg.compile:
        out.append("torch.compile: the compiled layers keep 8h + 4·kv_dim + 4·ffn bytes per token and layer, a chunked "
                   "loss only the bf16 logits")
    if cfg.expandable_segments:
        out.append("allocator with expandable segments (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True): "
                   + ("no fragmentation term" if dev.kind == "gpu" else "Ascend keeps its calibrated fragmentation share")
                   + (f" ({cfg.framework} sets it)" if cfg.framework in C.EXPANDABLE_SEGMENTS_DEFAULT else ""))
    if not dev.bf16:
        out.append(f"{dev.id} has no BF16: " + ("fp16 mixed precision assumed (same bytes per value as bf16)"
                                               if cfg.precision == "fp16" else f"{cfg.precision} as requested, which it cannot compute"))
    if s.inferred:
        out.append("shape inferred from the parameter count: " + ", ".join(s.inferred))
    return out


def model_context(ctx, model_id: str | None) -> int | None:
    """The model's own context limit (max_position_embeddings in the catalog), when known."""
    row = ctx.kb.model(model_id) if model_id else None
    return int(row["max_context"]) if row and row.get("max_context") else None


def context_note(ctx, model_id: str | None, seq_len: int) -> list[str]:
    limit = model_context(ctx, model_id)
    if limit and seq_len > limit:
        return [f"{seq_len} tokens is beyond {model_id}'s max_position_embeddings ({limit}); it needs RoPE scaling "
                "(e.g. rope_scaling in LLaMA-Factory) and the estimate assumes it is used"]
    return []


def sequence_bound_note(s: Shape, cfg: TrainConfig, b: Breakdown) -> str | None:
    """Why a LLaMA-Factory job is out of memory whatever the ZeRO stage: the per-sequence terms, with
    the loss spelled out (it is over the full vocabulary in fp32, held once per micro-batch and not
    at the same time as the layer recompute; constants.LOGITS_BYTES)."""
    seq_bound = b.activations.gib + b.logits.gib
    if cfg.megatron or seq_bound <= b.usable_gib / 2:
        return None
    text = f"Activations and logits alone take {seq_bound:.1f} GiB per device, and ZeRO splits only model states, not these"
    if cfg.stage == "rm" or cfg.loss_impl != "fp32":  # a scalar head, or a chunked/fused loss: no full fp32 logits
        return text + "."
    loss, added = loss_gib(s, cfg), b.logits.gib
    tokens = cfg.micro_batch * C.SEQUENCES_PER_SAMPLE[cfg.stage] * cfg.seq_len
    text += (f". {loss:.1f} GiB is the loss, which {cfg.framework} computes over the full vocabulary in fp32 ({tokens} "
             f"tokens x {s.vocab} x {C.LOGITS_BYTES} B: the saved log-softmax, its gradient and the logits' gradient; "
             "a fused or chunked loss such as enable_liger_kernel is not the default; loss=fused or chunked sizes one)")
    if added > 0:
        text += f", held with {seq_bound - loss:.1f} GiB of activations"
        if loss - added > 1e-3:
            text += (f"; the layer recompute ({loss - added:.1f} GiB) runs after the loss buffers are freed "
                     "and is not added to them")
    else:
        text += "; it is freed before the larger layer-recompute peak and is not added to it"
    return text + "."


def no_fit_note(s: Shape, p: Plan, base: TrainConfig, dev: Device, max_devices: int | None,
                global_batch: int | None, suggest: bool = True) -> str:
    """Why nothing fits and what would: for a sequence-bound LLaMA-Factory job, the MindSpeed-LLM plan
    (TP with sequence parallel and CP split activations and the vocab-parallel loss) and the longest
    cutoff_len LLaMA-Factory holds. `suggest=False` skips the MindSpeed-LLM search."""
    if max_devices:
        note = (p.reason + f". Even {units(p.devices, dev.unit)} with the most memory-saving setting need "
                f"{p.memory.total_gib:.1f} GiB per device of {p.memory.usable_gib:.1f}.")
    else:  # no cap from the caller: the search went to the largest count, so no count fits
        note = (f"It does not fit at any device count: even with the most memory-saving setting each device "
                f"needs {p.memory.total_gib:.1f} GiB of {p.memory.usable_gib:.1f}.")
    why = sequence_bound_note(s, p.cfg, p.memory)
    if why is None:
        return note
    note += " " + why
    if suggest and base.method in C.MINDSPEED_METHODS and base.stage in C.MINDSPEED_STAGES:
        ms = plan_training(s, base._replace(framework="MindSpeed-LLM"), dev, max_devices, global_batch)
        # MindSpeed-LLM is Ascend's Megatron; on GPUs the same layout is Megatron-LM's.
        megatron = "MindSpeed-LLM" if dev.kind == "npu" else "A Megatron-style layout (MindSpeed-LLM on Ascend, Megatron-LM on GPUs)"
        note += (f" {megatron} splits both by TP (sequence and vocab parallel) and CP: plan_training with framework "
                 f"MindSpeed-LLM fits it on {units(ms.devices, dev.unit)} ({setting(ms)})." if ms.fits else
                 f" {megatron}, whose TP and CP split both, does not fit it within max_devices either.")
    elif suggest:
        note += (" MindSpeed-LLM's TP and CP would split both, but the ModelArts MindSpeed-LLM scripts take only "
                 "pt/sft with full or lora.")
    longest = longest_seq_len(s, p.cfg, dev)
    if longest:
        note += f" On LLaMA-Factory at most {longest} tokens per sequence fit (cutoff_len)."
    return note


def vllm_row(ctx, model_id: str | None, dev: Device, max_model_len: int, gpu_memory_utilization: float,
             concurrency: int, devices: int) -> tuple[dict[str, Any] | None, str | None]:
    """The ModelArts vLLM table row for this model and card memory, and a note when it differs."""
    if not model_id or dev.kind != "npu":
        return None, None
    rows = [r for r in ctx.kb.vllm_rows(model_id) if int(r["memory_gb"]) == int(dev.memory_gb) and r["supported"]]
    if not rows:
        return None, None
    ok = [r for r in rows if (r["max_model_len"] or 0) >= max_model_len] or rows
    r = min(ok, key=lambda x: (x["cards"], -abs(x["gpu_memory_utilization"] - gpu_memory_utilization)))
    row = {k: r[k] for k in ("table", "cards", "max_model_len", "gpu_memory_utilization", "memory_gb", "cell", "source")}
    if r["max_model_len"] < max_model_len:
        return row, f"The vLLM table tested at most {r['max_model_len']} tokens; {max_model_len} is beyond it."
    if r["cards"] != devices:
        return row, (f"The vLLM table ({r['table']}) serves {r['max_model_len']} tokens on {r['cards']} "
                     f"card{'s' if r['cards'] != 1 else ''}; "
                     f"the estimate needs {devices} for {max_model_len} tokens x {concurrency}.")
    return row, None
