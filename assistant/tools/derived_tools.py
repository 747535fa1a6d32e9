"""derive_quantity: one quantity of a model and a layout other than a device count, worked in the open from the
model catalog and the figures given (estimate/derived.py): LoRA adapter parameters at a rank, layers per pipeline
stage, ranks and data parallelism, parameters per rank, the bytes of the weights / gradients / optimizer states in
all or per device, the KV room left per device, tokens per iteration, the cards a deadline needs."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import SizingError
from ..estimate import derived
from .estimate_models import CustomShape, ModelArgs
from .estimate_support import resolve_hardware, resolve_shape
from .registry import tool
from .time_tools import DEFAULT_SPEEDUP

Quantity = Literal["lora_params", "params", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "layers_per_stage",
                   "data_parallel", "ranks", "params_per_rank", "weights_total", "weights_per_device", "kv_room_per_device",
                   "optimizer_total", "optimizer_per_device", "gradients_total", "tokens_per_iteration",
                   "run_time", "run_time_left", "min_global_batch", "steps_for_tokens", "steps_per_epoch", "total_steps", "total_tokens", "tokens_in_window", "adam_moments", "states_at_bytes", "min_context_parallel",
                   "params_per_layer", "embedding_params", "flops_per_token", "memory_parts", "logits", "activations", "checkpoint_size",
                   "throughput_needed", "throughput_per_device", "micro_batch_for", "epochs_for_iters", "tokens_for_iters",
                   "checkpoints_saved", "save_interval_for", "dp_for_batch", "devices_for_layout", "throughput_achieved",
                   "global_batch_for_tokens", "kv_per_token", "kv_per_request", "activation_per_layer"]
ARITHMETIC_SOURCE = "arithmetic on the figures given"


class DeriveQuantityArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str | None = Field(None, min_length=1, max_length=200, description="Model name in any spelling; or give params_b.")
    params_b: float | None = Field(None, gt=0, le=100_000, allow_inf_nan=False, description="Billions of parameters (a model not in the catalog).")
    # the names are the enum's: the description says only what a name does not
    quantity: Quantity = Field(description="The quantity: lora_params at lora_rank; layers_per_stage = layers / PP; "
                               "data_parallel = devices / (TP x PP x CP); min_global_batch = micro_batch x DP; "
                               "states_at_bytes = params x bytes_per_param.")
    lora_rank: int | None = Field(None, ge=1, le=4096, description="LoRA rank r.")
    lora_targets: str = Field("all", max_length=200, description="'all', 'attention', 'mlp' or a comma list of q_proj ... down_proj.")
    method: Literal["full", "freeze", "lora", "qlora"] = Field("full", description="What is trained (optimizer and gradient bytes).")
    zero_stage: int | None = Field(None, ge=0, le=3, description="DeepSpeed ZeRO stage (0 keeps the optimizer states on every device).")
    tp: int | None = Field(None, ge=1, le=256, description="Tensor-parallel size.")
    pp: int | None = Field(None, ge=1, le=256, description="Pipeline-parallel size.")
    cp: int | None = Field(None, ge=1, le=256, description="Context-parallel size.")
    devices: int | None = Field(None, ge=1, le=65536, description="Devices (cards; DIE on Snt9B23).")
    device_unit: Literal["card", "die"] | None = Field(None, description="What the devices count when the user says (DIE); "
                                                      "default the hardware's own unit.")
    hardware: str = Field("snt9b", min_length=1, max_length=100, description="Hardware in any spelling (its memory per device).")
    weight_bits: int = Field(16, ge=2, le=32, description="Weight bits (16: bf16).")
    gpu_memory_utilization: float = Field(0.9, gt=0, le=1, allow_inf_nan=False, description="vLLM's share of device memory.")
    global_batch: int | None = Field(None, ge=1, le=10**7, description="Global batch size (sequences per iteration).")
    micro_batch: int | None = Field(None, ge=1, le=10**5, description="Micro batch.")
    grad_accum: int | None = Field(None, ge=1, le=10**5, description="Grad accum.")
    seq_len: int | None = Field(None, ge=1, le=10**8, description="Sequence length.")
    tokens_per_second: float | None = Field(None, gt=0, le=1e8, allow_inf_nan=False, description="Tokens/s per device.")
    hours: float | None = Field(None, gt=0, le=1e6, allow_inf_nan=False, description="A time window in hours.")
    iterations: int | None = Field(None, ge=1, le=10**9, description="Iterations of the whole run (train_iters).")
    iterations_done: int | None = Field(None, ge=0, le=10**9, description="Iterations already run (the log line's current one).")
    iteration_seconds: float | None = Field(None, gt=0, le=1e6, allow_inf_nan=False, description="Seconds per iteration (the log's elapsed time per iteration).")
    dp: int | None = Field(None, ge=1, le=65536, description="DP size (instead of devices).")
    bytes_per_param: float | None = Field(None, gt=0, le=64, allow_inf_nan=False, description="Model-state bytes per param.")
    speedup: float | None = Field(None, gt=0, le=1, allow_inf_nan=False, description="Scaling efficiency (default 0.9).")
    tokens: float | None = Field(None, gt=0, le=1e15, allow_inf_nan=False, description="Training tokens (steps_for_tokens).")
    samples: int | None = Field(None, ge=1, le=10**12, description="Training samples in the data set.")
    epochs: float | None = Field(None, gt=0, le=10**4, allow_inf_nan=False, description="Epochs.")
    parts: list[Literal["weights", "gradients", "optimizer", "kv"]] = Field(default_factory=list, max_length=4,
                                                                      description="memory_parts: the parts summed.")
    per_device: bool = Field(False, description="memory_parts: on one device instead of in all.")
    checkpoints: int | None = Field(None, ge=1, le=10_000, description="checkpoint_size: checkpoints kept.")
    kv_sequences: int | None = Field(None, ge=1, le=100_000, description="memory_parts: sequences served at once (KV).")
    disk_gb: float | None = Field(None, gt=0, le=1e7, allow_inf_nan=False, description="checkpoint_size: the disk (GB).")
    save_interval: int | None = Field(None, ge=1, le=10**9, description="Iterations between checkpoints (SAVE_INTERVAL).")
    step_tokens: float | None = Field(None, gt=0, le=1e12, allow_inf_nan=False, description="Tokens per optimizer step.")
    shape: CustomShape | None = Field(None, description="Shape figures stated (over the model's, or alone with no model).")
    kv_cache_dtype: Literal["auto", "bf16", "fp16", "fp8", "int8"] | None = Field(None, description="KV cache values (auto: bf16).")
    recompute: bool | None = Field(None, description="Full recompute (gradient checkpointing) on or off.")
    attention: Literal["fused", "eager"] | None = Field(None, description="fused: FlashAttention (no s² scores); eager: plain.")
    sample_tokens: int | None = Field(None, ge=1, le=10**7, description="Average tokens per sample (steps with packing).")
    packing: bool | None = Field(None, description="Samples packed into full-length sequences (steps count packed sequences).")


class DerivedResult(BaseModel):
    quantity: str = Field(description="The quantity computed.")
    model: str | None = Field(None, description="The model's catalog id (or the size given), when the quantity has one.")
    value: float = Field(description="The value, in ``unit``.")
    unit: str = Field(description="params, bytes, flops, layers, ranks, tokens, devices or count.")
    per: str = Field("", description="What one value counts over (per layer, per card, per iteration), if anything.")
    formula: str = Field(description="The arithmetic with the figures put in.")
    assumptions: list[str] = Field(default_factory=list, description="What the value assumes.")
    device_unit: str = Field("card", description="What one device is on the hardware: card or DIE.")
    source: str = Field(description="Where the figures come from.")
    fits: bool | None = Field(None, description="Within the devices' memory (null: no devices).")


@tool
def derive_quantity(ctx, args: DeriveQuantityArgs) -> DerivedResult:
    """Compute one quantity of a model or a layout, with its arithmetic. Trainable LoRA parameters at a rank, a catalog figure (layers, heads...), layers per pipeline stage, ranks and data parallelism, parameters per rank, weights / gradients / optimizer-state bytes in total or per device and their sum, the logits and activations of a micro-batch, the KV room left per device, tokens per iteration or in a time window, the run time, the smallest global batch.

    Quantities without a model (data_parallel, ranks, tokens_*, min_global_batch, run_time*) need no model."""
    shape, model_id = (resolve_shape(ctx, ModelArgs(model=args.model, params_b=args.params_b, shape=args.shape))
                       if args.model or args.params_b else (None, None))
    figures = tuple(sorted(args.shape.model_dump(exclude_none=True).items())) if args.shape else ()
    hw_id, dev = resolve_hardware(ctx, args.hardware)
    inputs = derived.Inputs(lora_rank=args.lora_rank, lora_targets=args.lora_targets, tp=args.tp, pp=args.pp, cp=args.cp,
                            devices=args.devices, unit=args.device_unit or dev.unit, weight_bits=args.weight_bits, capacity_gib=dev.capacity_gib,
                            memory_gb=dev.memory_gb, dp=args.dp, bytes_per_param=args.bytes_per_param,
                            util=args.gpu_memory_utilization, method=args.method, zero_stage=args.zero_stage,
                            global_batch=args.global_batch, micro_batch=args.micro_batch, grad_accum=args.grad_accum,
                            seq_len=args.seq_len, tokens_per_second=args.tokens_per_second, hours=args.hours, speedup=args.speedup or DEFAULT_SPEEDUP,
                            iterations=args.iterations, iterations_done=args.iterations_done, iteration_seconds=args.iteration_seconds,
                            tokens=args.tokens, samples=args.samples, epochs=args.epochs,
                            parts=tuple(args.parts), per_device=args.per_device, checkpoints=args.checkpoints, concurrency=args.kv_sequences,
                            disk_gb=args.disk_gb, save_interval=args.save_interval,
                            step_tokens=args.step_tokens, figures=figures,
                            kv_bytes=1.0 if args.kv_cache_dtype in ("fp8", "int8") else 2.0, recompute=args.recompute,
                            fused_attention=args.attention != "eager", sample_tokens=args.sample_tokens, packing=args.packing)
    try:
        d = derived.derive(args.quantity, shape, inputs)
    except derived.NotDerivable as e:
        raise SizingError("invalid_arguments", str(e), field=e.field, valid=e.valid) from e
    row = (ctx.kb.model(model_id) or {}) if model_id else {}
    catalog = f"model catalog ({row['source']})" if row.get("source") else "model catalog"
    source = (ARITHMETIC_SOURCE if shape is None
              else catalog if args.quantity in derived.CATALOG_FIGURES else f"estimate from the {catalog} and the figures given")
    return DerivedResult(quantity=args.quantity, model=model_id or (f"{args.params_b:g}B" if args.params_b else None), value=d.value,
                         unit=d.unit, per=d.per, formula=d.formula, assumptions=d.assumptions, device_unit=args.device_unit or dev.unit, source=source,
                         fits=d.fits)
