"""The "what fits" tool: the largest catalog model, the longest context or the biggest batch on a
given set of devices, found by searching over the planning tools' own answers (assistant/what_fits).
Every figure is still plan_training's or estimate_inference's; this tool only asks them in a loop.

A longest context is also bounded by the model itself: the catalog's max_context (its config's
max_position_embeddings) caps what memory would allow, and the result says which of the two binds."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ..errors import SizingError
from ..resolve import variant_of
from ..what_fits import what_fits as search
from .common import MAX_SEQ_LEN
from .estimate_models import HardwareName, Method, TrainerOptions, TrainingFramework
from .registry import REGISTRY, tool

SERVING_OPTIONS = {"gpu_memory_utilization", "weight_bits", "kv_cache_dtype", "concurrency"}  # passed to estimate_inference when set


class WhatFitsArgs(TrainerOptions):
    goal: Literal["model", "context", "batch"] = Field(
        description="model: the largest catalog model; context: the longest sequence (training) or max-model-len "
                    "(serving); batch: the biggest micro batch (training) or sequences at max-model-len (serving).")
    workload: Literal["training", "inference"] = Field("training", description="Fine-tuning or vLLM serving.")
    hardware: HardwareName = "snt9b"
    devices: int = Field(1, ge=1, le=4096, description="Devices available (cards; DIE on Snt9B23), >= 1.")
    model: str | None = Field(None, min_length=1, max_length=200,
                              description="Model (any spelling), for goal context or batch.")
    params_b: float | None = Field(None, gt=0, le=100_000, allow_inf_nan=False,
                                   description="Parameters in billions, for a model not in the catalog (context or batch).")
    method: Method = "lora"
    framework: TrainingFramework = Field("LLaMA-Factory", description="Training framework: LLaMA-Factory, MindSpeed-LLM, "
                                         "or torchtune, litgpt, unsloth, axolotl, transformers (their own defaults).")
    seq_len: int = Field(4096, ge=1, le=MAX_SEQ_LEN,
                         description="Tokens per sequence for goals model and batch (training length or max-model-len).")
    tightest: bool = Field(False, description="Training: count a plan whose point estimate fits (verdict may be 'tight') "
                           "instead of one whose likely range fits entirely (the default).")
    gpu_memory_utilization: float | None = Field(None, gt=0, le=1, description="Serving: vLLM --gpu-memory-utilization, "
                                                 "in (0, 1]; None: estimate_inference's default (0.9).")
    weight_bits: Literal[4, 8, 16] | None = Field(None, description="Serving: weight precision (16, 8 or 4 bits); None: the "
                                                  "checkpoint's own, as estimate_inference.")
    kv_cache_dtype: Literal["auto", "fp8", "int8"] | None = Field(None, description="Serving: KV cache precision (vLLM "
                                                                  "--kv-cache-dtype); None: the model's own (auto).")
    concurrency: int | None = Field(None, ge=1, le=100_000, description="Concurrency (serving): sequences of the length found "
                                    "that the KV cache holds at once; None: one.")
    tp: int | None = Field(None, ge=1, le=256, description="TP size (serving: the user's --tensor-parallel-size; one "
                           "instance of it is searched).")


class WhatFitsResult(BaseModel):
    goal: str = Field(description="What was searched for: model, context or batch.")
    workload: str = Field(description="training or inference.")
    hardware: str = Field(description="Hardware catalog id.")
    devices: int = Field(description="Devices available (cards; DIE on Snt9B23), as given.")
    value: str | int | None = Field(description="The model id, tokens or sequences found; None when nothing fits.")
    model: str | None = Field(None, description="The model the plan is for.")
    memory_limit: int | None = Field(None, description="goal context: the longest length device memory allows (tokens).")
    model_limit: int | None = Field(None, description="goal context: the model's own longest context (catalog max_context).")
    model_limit_variant: str | None = Field(None, description="goal context: the variant whose config gives model_limit "
                                            "(e.g. Qwen2.5-7B-Instruct), when the variants' limits differ.")
    model_limit_variant_named: bool = Field(False, description="goal context: the model's spelling named that variant "
                                            "(else it is the one used when none is named).")
    limited_by: Literal["memory", "model"] | None = Field(None, description="goal context: which limit binds.")
    verdict: Literal["fits", "tight", "does_not_fit"] = Field(description="The plan's memory verdict (fits: the likely "
                                                              "range fits; tight: it crosses the usable memory); does_not_fit when nothing fits.")
    plan_tool: str = Field(description="The tool whose plan is given: plan_training or estimate_inference.")
    plan: dict[str, Any] | None = Field(None, description="That tool's result for the value found, unchanged.")
    offload_value: str | None = Field(None, description="goal model, training: the largest model when CPU offload "
                                      "(slow, needs host RAM) is allowed too, if larger than value.")
    offload_plan: dict[str, Any] | None = Field(None, description="plan_training's result for offload_value.")
    tried: int = Field(description="Plans the search asked for.")
    assumptions: list[str] = Field(default_factory=list, description="What the search assumed (method, lengths, defaults).")


@tool
def what_fits(ctx, args: WhatFitsArgs) -> WhatFitsResult:
    """Find what fits on given devices: the largest catalog model, the longest context or the biggest batch, for fine-tuning or vLLM serving; the plan found is plan_training's or estimate_inference's own (an estimate), and a longest context is capped by the model's own limit.

    goal model searches the catalog from the largest model down; goal context and batch need model or params_b."""
    training = args.workload == "training"
    call_args: dict[str, Any] = {"hardware": args.hardware}
    devices = args.devices
    if args.tp and not training:
        if "devices" in args.model_fields_set and args.tp > args.devices:
            raise SizingError("invalid_arguments", f"tp {args.tp} needs {args.tp} devices for one vLLM instance; "
                              f"devices is {args.devices}.", field="tp", valid=f"1..{args.devices}")
        # one instance of the user's layout: its largest layout within tp devices is TP tp (the tool checks the heads)
        devices, call_args["largest_layout"] = args.tp, True
    if args.goal != "model":
        if not (args.model or args.params_b):
            raise SizingError("missing_model", f"goal {args.goal} needs a model (or params_b): which model's "
                              f"{'longest context' if args.goal == 'context' else 'biggest batch'}?", field="model")
        call_args.update({"model": args.model} if args.model else {"params_b": args.params_b})
    if training:  # the trainer's options go to plan_training as given (its defaults follow the framework)
        call_args.update(method=args.method, framework=args.framework,
                         **args.model_dump(include=set(TrainerOptions.model_fields), exclude_none=True))
        if args.tightest:
            call_args["tightest"] = True
    if not training:  # the serving settings stated go to estimate_inference as given (its defaults otherwise)
        call_args.update(args.model_dump(include=SERVING_OPTIONS, exclude_none=True))
    if args.goal != "context":
        call_args["seq_len" if training else "max_model_len"] = args.seq_len
    models = _candidates(ctx) if args.goal == "model" else None
    def call(name: str, a: dict[str, Any]) -> dict[str, Any]:
        return REGISTRY.call_json(name, a, ctx)

    slow = None
    if args.goal == "model" and training:  # the largest model at full speed first; offload only beside it
        slow = search(call, args.goal, args.workload, call_args, devices, models)
        out = search(without_offload(call), args.goal, args.workload, call_args, devices, models)
        out["tried"] += slow["tried"]
    else:
        out = search(call, args.goal, args.workload, call_args, devices, models)
    plan, value = out["plan"], out["value"]
    result = WhatFitsResult(goal=args.goal, workload=args.workload, hardware=plan.get("hardware", args.hardware) if plan
                            else args.hardware, devices=args.devices, value=value,
                            model=plan.get("model") if plan else args.model,
                            verdict=plan.get("verdict", "fits") if plan else "does_not_fit",
                            plan_tool="plan_training" if training else "estimate_inference", plan=plan, tried=out["tried"],
                            assumptions=_assumptions(args, training))
    if slow and slow["value"] not in (None, value):
        result.offload_value, result.offload_plan = slow["value"], slow["plan"]
    if args.goal == "context" and value is not None:
        _cap_by_model(ctx, result, call_args, devices)
    return result


def without_offload(call):
    """The same tool caller, with plans that offload to the host counted as not fitting."""
    def call_fast(name: str, a: dict[str, Any]) -> dict[str, Any]:
        res = call(name, a)
        return {**res, "fits": False} if res.get("offload") else res
    return call_fast


def _candidates(ctx) -> list[dict[str, Any]]:
    """Catalog generative models: embedding and reranker models are not what "the largest model" means."""
    rows = REGISTRY.call_json("list_models", {}, ctx).get("models", [])
    return [m for m in rows if m.get("modality") in (None, "text", "vision-language")]


def _cap_by_model(ctx, result: WhatFitsResult, call_args: dict[str, Any], devices: int) -> None:
    """The longest context is the smaller of what memory allows and the model's own limit; when the model's
    limit binds, the plan is asked again at that length so plan and value agree."""
    # the variant the model's spelling names ("glm-4-9b-chat": its own 131,072, not the base's 8,192)
    row = ctx.kb.model(result.model, variant_of(str(call_args.get("model") or ""))) if result.model else None
    limit = int(row["max_context"]) if row and row.get("max_context") else None
    result.memory_limit = int(result.value) if isinstance(result.value, int) else None
    result.model_limit = limit
    result.model_limit_variant = row.get("context_variant") if row else None
    result.model_limit_variant_named = bool(row and row.get("context_variant_named"))
    result.limited_by = "memory"
    if limit and result.memory_limit and limit <= result.memory_limit:  # equal: the search stopped at the model's limit
        field = "seq_len" if result.plan_tool == "plan_training" else "max_model_len"
        result.value, result.limited_by = limit, "model"
        result.plan = REGISTRY.call_json(result.plan_tool, {**call_args, field: limit, "max_devices": devices}, ctx)


def _assumptions(args: WhatFitsArgs, training: bool) -> list[str]:
    out: list[str] = ([f"{args.method} fine-tuning with {args.framework}: at each size the setting plan_training chooses "
            "within the devices (ZeRO stage and offload, or TP/PP)"] if training else
           [f"vLLM serving at gpu-memory-utilization {args.gpu_memory_utilization or 0.9}, weights at "
            + (f"{args.weight_bits} bits" if args.weight_bits else "the checkpoint's own precision")
            + (f", KV cache {args.kv_cache_dtype.upper()}" if args.kv_cache_dtype not in (None, "auto") else "")
            + (f", {args.concurrency} sequences of that length at once" if args.concurrency and args.concurrency > 1 else "")])
    if args.tp and not training:
        out.append(f"one vLLM instance at the stated TP {args.tp} ({args.tp} devices); more devices run copies of it")
    if args.goal == "model":
        out.append("largest = most parameters among the catalog's generative models that fit")
    return out
