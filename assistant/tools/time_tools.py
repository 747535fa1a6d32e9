"""Training-time tool (estimate_training_time).

Two ways to a number, never a made-up one:
- the vendor's formula (ModelArts 模型训练时间、集群规模预测): Time = tokens / (TPS x N) / eta, with
  TPS the measured tokens/s per device. The vendor's TPS benchmark table is not published, so TPS
  must come from the user (a few hundred steps of their own job);
- a rough cross-check from the 6·P·tokens FLOPs rule (general knowledge, not vendor): Time =
  6·P·T / (N x peak x MFU), only when a peak BF16 figure exists (the hardware catalog has one for the
  NVIDIA parts; none is published for Ascend) or the user gives one.
Every default (MFU, eta, 6 vs 8 FLOPs per parameter and token) is reported as an assumption.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from ..errors import SizingError
from ..estimate.derived import devices_for_deadline_count as devices_for_deadline
from .common import MAX_SEQ_LEN
from .estimate_support import resolve_hardware
from .registry import tool

DEFAULT_MFU = 0.35  # a typical achieved model-FLOPs utilisation for dense LLM training; an assumption, not a measurement
DEFAULT_SPEEDUP = 0.9  # the vendor's "linear speed-up factor" (线性度), typically >= 0.9 for multi-card scaling
FLOPS_PER_PARAM_TOKEN = 6  # 2 forward + 4 backward (Kaplan et al. 2020)
FLOPS_WITH_RECOMPUTE = 8  # full recomputation runs the forward pass twice
VENDOR_SOURCE = "ModelArts 模型训练时间、集群规模预测 (modelarts_llm_train_590223 / 590604): Time = Tok_total / (TPS × N)"
FLOPS_SOURCE = "6·P·T FLOPs rule (Kaplan et al. 2020; general knowledge, not a vendor figure)"


class EstimateTrainingTimeArgs(BaseModel):
    model: str | None = Field(None, min_length=1, max_length=200,
                              description="Model name in any spelling; or give params_b. Not needed with tps (the vendor formula has no model term).")
    params_b: float | None = Field(None, gt=0, le=100_000, allow_inf_nan=False, description="Parameters in billions, for a model not in the catalog.")
    tokens: float | None = Field(None, ge=1, le=1e16, allow_inf_nan=False,
                                 description="Training tokens per epoch (e.g. 1e9). Or give samples and seq_len.")
    samples: int | None = Field(None, ge=1, le=10**12, description="Samples per epoch; tokens = samples x seq_len (fixed-length data).")
    seq_len: int | None = Field(None, ge=1, le=MAX_SEQ_LEN, description="Sequence length, used with samples.")
    epochs: float = Field(1.0, gt=0, le=1000, allow_inf_nan=False, description="Passes over the data.")
    devices: int = Field(ge=1, le=65536, description="Devices training (cards; DIE on Snt9B23).")
    hardware: str = Field("snt9b", min_length=1, max_length=100, description="Hardware in any spelling: snt9b, snt9b23, a100, h100 ...")
    tps: float | None = Field(None, gt=0, le=1e7, allow_inf_nan=False,
                              description="Measured training throughput, tokens/s per device (the vendor's TPS). Uses the vendor formula.")
    tflops: float | None = Field(None, gt=0, le=100_000, allow_inf_nan=False,
                                 description="Peak dense BF16 TFLOPS per device; default the hardware catalog's figure (none for Ascend).")
    mfu: float = Field(DEFAULT_MFU, gt=0, le=1, allow_inf_nan=False, description="Model-FLOPs utilisation assumed for the FLOPs estimate.")
    speedup: float = Field(DEFAULT_SPEEDUP, gt=0, le=1, allow_inf_nan=False,
                           description="Linear speed-up factor (scaling efficiency) for the vendor formula on more than one device; 1 = none.")
    recompute: bool = Field(False, description="Full activation recomputation: 8·P·T instead of 6·P·T FLOPs.")
    deadline_hours: float | None = Field(None, gt=0, le=87_600, allow_inf_nan=False,
                                         description="Hours the training must finish in: also returns the devices the formula needs for it.")


class DeadlineFit(BaseModel):
    hours: float = Field(description="The deadline, hours.")
    devices_exact: float = Field(description="Devices the formula needs to finish in time: tokens / (deadline × TPS per device × η).")
    devices_needed: int = Field(description="That count rounded up, and above 8 up to a multiple of 8 (the vendor's rule).")
    formula: str = Field(description="The device formula with the numbers put in.")
    hours_on_needed: float = Field(description="Training time on devices_needed, hours.")
    meets: bool = Field(description="Whether the devices given finish within the deadline.")


class TrainingTimeResult(BaseModel):
    model: str | None = Field(None, description="The model, when one was given (the vendor formula needs none).")
    params_b: float | None = Field(None, description="Parameters in the FLOPs count, billions (active parameters for MoE).")
    tokens: float = Field(description="Total training tokens (all epochs).")
    devices: int = Field(description="Devices (cards; DIE on Snt9B23), as given.")
    unit: str = Field(description="What one device is: card or DIE.")
    hardware: str = Field(description="Hardware catalog id.")
    basis: Literal["vendor_formula", "flops_estimate"] = Field(
        description="vendor_formula: from the TPS you gave; flops_estimate: rough, from 6·P·T and an assumed MFU.")
    formula: str = Field(description="The formula with the numbers put in.")
    seconds: float = Field(description="Training time, seconds.")
    hours: float = Field(description="Training time, hours.")
    days: float = Field(description="Training time, days.")
    tps_per_device: float = Field(description="Tokens/s per device: the one given, or the one the FLOPs estimate implies.")
    total_flops: float | None = Field(None, description="Total training FLOPs (flops_per_param_token x P x tokens); FLOPs estimate only.")
    flops_per_param_token: int | None = Field(None, description="6 (2 forward + 4 backward), 8 with full recomputation.")
    peak_tflops: float | None = Field(None, description="Peak BF16 TFLOPS per device: given, or from the hardware catalog.")
    mfu: float | None = Field(None, description="Model FLOPs utilisation assumed (FLOPs estimate only).")
    speedup: float | None = Field(None, description="Speed-up factor η applied in the vendor formula (1 on one device); null for the FLOPs estimate.")
    assumptions: list[str] = Field(description="What the estimate assumed.")
    notes: list[str] = Field(default_factory=list, description="Cross-checks and caveats.")
    source: str = Field(description="The vendor document of the formula, or the FLOPs rule.")
    deadline: DeadlineFit | None = Field(None, description="With deadline_hours: the devices it needs, and whether the devices given meet it.")


def _params(ctx, args: EstimateTrainingTimeArgs) -> tuple[str | None, float | None, list[str]]:
    """(name, parameters per token in the FLOPs, notes): MoE models count their active parameters. With a
    measured TPS the model may be left out: the vendor formula is tokens / (TPS × N) / η, no model term."""
    if args.model:
        model_id = ctx.resolver.model_id(args.model)
        row = ctx.kb.model(model_id) or {}
        total = float(row.get("params_b") or 0)
        if not total:
            raise SizingError("no_shape", f"The catalog has no parameter count for {model_id}; give params_b.", field="model")
        active = float(row.get("active_params_b") or total)
        notes = [f"MoE: {active:g}B of {total:g}B parameters are active per token; the FLOPs use the active ones."] if active < total else []
        return model_id, active, notes
    if args.params_b:
        return f"{args.params_b:g}B model", args.params_b, []
    if args.tps:
        return None, None, []
    raise SizingError("invalid_arguments", "Give a model name or params_b, or a measured tps for the vendor formula.",
                      field="model", valid=["model", "params_b", "tps"])


def _tokens(args: EstimateTrainingTimeArgs) -> tuple[float, list[str]]:
    if args.tokens is not None:
        return args.tokens * args.epochs, []
    if args.samples and args.seq_len:
        return float(args.samples) * args.seq_len * args.epochs, [
            "tokens = samples × seq_len × epochs: fixed-length (padded or packed) data, the MindSpeed-LLM and LLaMA-Factory "
            "default; dynamic length gives fewer tokens"]
    raise SizingError("invalid_arguments", "Give tokens, or samples and seq_len.", field="tokens", valid=["tokens", "samples+seq_len"])


def _fmt(x: float) -> str:
    """1e9 -> '1e9', 6.144e8 -> '6.144e8', 1500 -> '1500'."""
    return re.sub(r"e\+?0*(\d)", r"e\1", f"{x:.4g}") if x >= 1e6 else f"{x:g}"


def _deadline(args: EstimateTrainingTimeArgs, tokens: float, per_device: float, seconds: float, rate: str) -> DeadlineFit | None:
    """The devices the deadline needs by the same formula, and whether the devices given meet it."""
    if not args.deadline_hours:
        return None
    exact, needed = devices_for_deadline(tokens, per_device, args.deadline_hours, args.speedup)
    eta = f" / {args.speedup:g}" if exact > 1 else ""
    formula = (f"N = tokens / (Time × {rate}){eta} = {_fmt(tokens)} / ({args.deadline_hours * 3600:,.0f} s × {_fmt(per_device)})"
               f"{eta} = {exact:.2f}")
    on_needed = tokens / (per_device * needed * (args.speedup if needed > 1 else 1.0)) / 3600
    return DeadlineFit(hours=args.deadline_hours, devices_exact=exact, devices_needed=needed, formula=formula,
                       hours_on_needed=on_needed, meets=seconds <= args.deadline_hours * 3600)


@tool
def estimate_training_time(ctx, args: EstimateTrainingTimeArgs) -> TrainingTimeResult:
    """Estimate training time from tokens and device count: the vendor formula Time = tokens / (TPS × N) / speed-up factor when you give a measured TPS (tokens/s per device), else a rough 6·P·tokens FLOPs estimate with an assumed MFU, only on hardware with a peak BF16 figure.

    The vendor's TPS table is unpublished and the catalog has no BF16 figure for Ascend: there, give tps (or tflops) or get an error saying so. With tps the model may be left out (the vendor formula has no model term). Every assumption is listed."""
    name, params_b, notes = _params(ctx, args)
    tokens, assumptions = _tokens(args)
    hw_id, dev = resolve_hardware(ctx, args.hardware)
    row = ctx.kb.hardware_row(hw_id) or {}
    unit = dev.unit
    n = args.devices
    k = FLOPS_WITH_RECOMPUTE if args.recompute else FLOPS_PER_PARAM_TOKEN
    peak = args.tflops or (float(row["bf16_tflops"]) if row.get("bf16_tflops") else None)
    peak_from = "given" if args.tflops else f"hardware catalog ({row.get('source') or hw_id})"
    notes.append("Vendor rule for the card count: above 8, round up to a multiple of 8, and never below the model's "
                 "minimum card count (min_cards); check the job fits memory (plan_training).")
    if args.tps:
        eta = args.speedup if n > 1 else 1.0
        seconds = tokens / (args.tps * n * eta)
        formula = f"Time = tokens / (TPS × N × η) = {_fmt(tokens)} / ({_fmt(args.tps)} × {n} × {eta:g}) = {seconds:,.0f} s"
        if n > 1:
            assumptions.append(f"linear speed-up factor η = {eta:g}" + (" (default; the vendor gives ≥ 0.9 as typical)"
                                                                      if args.speedup == DEFAULT_SPEEDUP else
                                                                      " (the scaling efficiency given, in place of the vendor's 0.9)"))
        if peak and params_b:
            implied = args.tps * k * params_b * 1e9 / (peak * 1e12)
            notes.append(f"Cross-check: {_fmt(args.tps)} tokens/s per {unit} is {implied:.0%} of the {peak:g} TFLOPS peak "
                         f"({k}·P FLOPs per token); above ~60% the TPS is suspicious.")
        return TrainingTimeResult(model=name, params_b=params_b, tokens=tokens, devices=n, unit=unit, hardware=hw_id,
                                  basis="vendor_formula", formula=formula, seconds=seconds, hours=seconds / 3600,
                                  days=seconds / 86400, tps_per_device=args.tps, speedup=eta, peak_tflops=peak,
                                  assumptions=assumptions + [f"TPS {_fmt(args.tps)} tokens/s per {unit} as given"],
                                  notes=notes, source=VENDOR_SOURCE,
                                  deadline=_deadline(args, tokens, args.tps, seconds, "TPS"))
    if not peak or not params_b:
        raise SizingError(
            "no_throughput",
            f"No throughput for {hw_id}: the hardware catalog has no BF16 TFLOPS figure for it (none is officially published) "
            f"and the vendor's TPS table is not public. Give tps (measured tokens/s per {unit}) for the vendor formula "
            f"Time = {_fmt(tokens)} / (TPS × {n}{f' × {args.speedup:g}' if n > 1 else ''}) s, or tflops for a 6·P·tokens estimate.",
            field="tps", valid=["tps", "tflops"])
    flops = k * params_b * 1e9 * tokens
    per_device = peak * 1e12 * args.mfu
    seconds = flops / (n * per_device)
    formula = (f"Time = {k}·P·T / (N × peak × MFU) = {k} × {_fmt(params_b * 1e9)} × {_fmt(tokens)} / "
               f"({n} × {peak:g}e12 × {args.mfu:g}) = {seconds:,.0f} s")
    assumptions += [f"MFU {args.mfu:g}" + (" (assumed default; measured MFU is often 0.3-0.5)" if args.mfu == DEFAULT_MFU else " (given)"),
                    f"peak {peak:g} TFLOPS BF16 dense per {unit} ({peak_from})",
                    f"{k}·P·T FLOPs" + (" (full recomputation)" if args.recompute else " (no recomputation; 8·P·T with it)")]
    notes.append(f"{k}·P·T counts full fine-tuning; LoRA skips most weight gradients (about 4·P·T), so for LoRA this is on the long side.")
    return TrainingTimeResult(model=name, params_b=params_b, tokens=tokens, devices=n, unit=unit, hardware=hw_id,
                              basis="flops_estimate", formula=formula, seconds=seconds, hours=seconds / 3600,
                              days=seconds / 86400, tps_per_device=per_device / (k * params_b * 1e9), total_flops=flops,
                              flops_per_param_token=k,
                              peak_tflops=peak, mfu=args.mfu, assumptions=assumptions, notes=notes, source=FLOPS_SOURCE,
                              deadline=_deadline(args, tokens, per_device / (k * params_b * 1e9), seconds, "tokens/s"))
