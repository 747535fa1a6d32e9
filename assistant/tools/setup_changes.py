"""The verdict of an estimate, the out-of-memory diagnosis, and the ladder of changes check_setup
tries, in the order people accept them: a lower micro batch with the global batch kept (more
accumulation), a higher ZeRO stage, recompute, CPU offload (with its host RAM), more devices, and a
shorter length last. Every figure comes from the estimator tools, called through the registry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .setup_models import OomDiagnosis, Remedy, Verdict

TIGHT_SHARE = 0.05  # headroom under 5 % of usable memory: fits on paper, no room for the allocator's spikes
NEAR_FULL = 0.90  # allocated + the failed request at 90 % of capacity or more: the job is too big

# What each change costs in speed (why, in the terms people check: FLOPs, bytes moved).
SPEED_COST = {
    "micro_batch": "about the same tokens per second: the same global batch in more, smaller micro-steps (smaller "
                   "matrix multiplies use the device a little less well)",
    "zero_stage": "ZeRO-1/2 move the same bytes as plain data parallel; ZeRO-3 also gathers the parameters in forward "
                  "and backward: about 1.5x the communication (3 vs 2 model sizes per step)",
    "recompute": "about 1/3 more compute per step: the forward pass runs again in backward (4 instead of 3 passes' FLOPs)",
    "offload": "slower steps: the optimizer runs on the host CPU and gradients and parameters cross PCIe each step; "
               "how much depends on the host (measure a few steps)",
    "devices": "no slower per step; the job uses more devices (and nodes)",
    "seq_len": "no slower; samples longer than the new length are truncated (a data change: check your lengths)",
    "kv_cache_dtype": "no slower in vLLM's benchmarks on supported parts; a small accuracy cost of the 8-bit cache",
    "tensor_parallel": "more devices; each token crosses the devices twice per layer (all-reduce)",
    "max_model_len": "no slower; requests longer than the new length are refused",
}


def verdict_of(result: dict[str, Any]) -> Verdict:
    """The estimator's verdict when it gives one; else fits / tight / does_not_fit from fits and headroom.
    The one place to switch to the estimator's own verdict (and range) once every result carries it."""
    if result.get("verdict") in ("fits", "tight", "does_not_fit"):
        return result["verdict"]
    if not result.get("fits"):
        return "does_not_fit"
    usable = result.get("usable_gib") or result.get("budget_gib") or 0.0
    headroom = result.get("headroom_gib")
    if headroom is not None and usable and headroom < TIGHT_SHARE * usable:
        return "tight"
    return "fits"


def diagnose_oom(o) -> OomDiagnosis:
    cached = None if o.reserved_gib is None or o.allocated_gib is None else round(o.reserved_gib - o.allocated_gib, 3)
    used = o.allocated_gib if o.allocated_gib is not None else o.in_use_gib  # newer CUDA messages: "in use" only
    share = None if used is None else round((used + o.tried_gib) / o.capacity_gib, 3)
    near_full = share is None or share >= NEAR_FULL
    cause = "fragmenting" if not near_full and cached is not None and cached >= o.tried_gib else "too_big"
    measured = None if o.reserved_gib is None or o.free_gib is None else round(o.capacity_gib - o.reserved_gib - o.free_gib, 3)
    outside = measured if measured is not None else o.held_elsewhere_gib  # the message's figure, else the user's words
    if not near_full and (o.held_elsewhere_gib or 0) > OUTSIDE_SHARE * o.capacity_gib:
        cause = "held_elsewhere"  # the job holds too little to be too big: the process the user sees holds the rest
    env = "PYTORCH_NPU_ALLOC_CONF" if o.platform == "npu" else "PYTORCH_CUDA_ALLOC_CONF"
    helps = cached is not None and cached >= o.tried_gib
    return OomDiagnosis(platform=o.platform, device_index=o.device_index, cause=cause, capacity_gib=o.capacity_gib, allocated_gib=o.allocated_gib,
                        reserved_gib=o.reserved_gib, free_gib=o.free_gib, tried_gib=o.tried_gib, allocated_share=share,
                        cached_gib=cached, outside_gib=outside, short_by_gib=round(max(o.tried_gib - (o.free_gib or 0.0), 0.0), 3),
                        allocator_setting=f"{env}=expandable_segments:True" if helps else None, line=o.line,
                        in_use_gib=o.in_use_gib)


OUTSIDE_SHARE = 0.10  # memory outside PyTorch's allocator worth a look for leftover processes


def oom_remedies(d: OomDiagnosis, framework: str | None, s: dict[str, Any]) -> list[Remedy]:
    """The vendor's OOM remedies for the framework (knowledge/notes/oom.md), ordered for what the message shows:
    fragmentation puts the allocator setting first; a job too big starts with what shrinks it."""
    env = ("PYTORCH_NPU_ALLOC_CONF" if d.platform == "npu" else "PYTORCH_CUDA_ALLOC_CONF") + "=expandable_segments:True"
    out: list[Remedy] = []
    if (d.outside_gib or 0) > OUTSIDE_SHARE * d.capacity_gib:
        out.append(Remedy(code="leftover_processes"))
    if framework == "vLLM":  # the vendor's first remedy frees room others hold; a model too big needs more TP first
        vendor = [Remedy(code="lower_utilization"), Remedy(code="max_model_len"), Remedy(code="tensor_parallel")]
        # a server that ran under load before it ran out had room for its model: the headroom is short (vendor order)
        return out + (vendor if out or s.get("phase") == "serving_load" else vendor[::-1])
    if s.get("phase") == "eval":  # training steps ran; evaluation's own batch is what ran out
        out.append(Remedy(code="eval_batch", value=s.get("eval_batch") or "?"))
    allocator = Remedy(code="expandable_segments", value=env)
    if framework == "MindSpeed-LLM":
        rest = [Remedy(code="tp_pp"), Remedy(code="mbs_1"), Remedy(code="seq_len"), Remedy(code="recompute")]
    else:
        zero = s.get("zero_stage")
        rest = []
        if (s.get("micro_batch") or 2) > 1:
            rest.append(Remedy(code="micro_batch"))
        if zero is None or zero < 3:
            rest.append(Remedy(code="zero_next", value=None if zero is None else zero + 1))
        elif not s.get("offload"):
            rest.append(Remedy(code="offload"))
        rest += [Remedy(code="more_devices"), Remedy(code="seq_len")]
    return out + ([allocator, *rest] if d.cause == "fragmenting" else [*rest, allocator])


Estimate = Callable[[dict[str, Any]], dict[str, Any] | None]


def training_ladder(base: dict[str, Any], estimate: Estimate, plan: Callable[[], dict[str, Any] | None]
                    ) -> tuple[tuple[str, dict[str, Any], dict[str, Any]] | None, list[str]]:
    """(kind, changed settings, estimate) of the first change that fits, and the changes tried that did not.
    Each step is tried alone on the setup as read, then on top of the steps before it."""
    tried: list[str] = []
    cumulative: dict[str, Any] = {}
    megatron = base.get("framework") == "MindSpeed-LLM"
    steps: list[tuple[str, Callable[[dict[str, Any]], dict[str, Any] | None]]] = [
        ("micro_batch", _lower_micro_batch),
        *([] if megatron else [("zero_stage", _higher_zero)]),
        ("recompute", lambda s: {"recompute": True} if s.get("recompute") is False else None),
        *([] if megatron else [("offload", _offload)]),
    ]
    for kind, step in steps:
        for start in ({}, cumulative) if cumulative else ({},):
            change = step({**base, **start})
            if not change:
                continue
            settings = {**start, **change}
            r = estimate({**base, **settings})
            if r is not None and verdict_of(r) != "does_not_fit" and r.get("host_ram_fits", True):
                return (kind, settings, r), tried
        if change := step({**base, **cumulative}):
            cumulative.update(change)
            tried.append(kind)
    p = plan()
    if p is not None and p.get("fits"):
        keys = ("tp", "pp", "cp") if megatron else ("zero_stage", "offload")
        settings = {k: p[k] for k in ("devices", *keys, "micro_batch", "grad_accum") if p.get(k) is not None}
        settings["recompute"] = p.get("recompute", True)
        r = estimate({**base, **settings})  # the planner's count: its verdict may be tight (sized on the point)
        if r is not None and verdict_of(r) != "does_not_fit":
            return ("devices", settings, r), tried
    tried.append("devices")
    seq = base.get("seq_len") or 0
    while seq > 512:
        seq //= 2
        r = estimate({**base, **cumulative, "seq_len": seq})
        if r is not None and verdict_of(r) != "does_not_fit" and r.get("host_ram_fits", True):
            return ("seq_len", {**cumulative, "seq_len": seq}, r), tried
    tried.append("seq_len")
    return None, tried


def _lower_micro_batch(s: dict[str, Any]) -> dict[str, Any] | None:
    mbs = s.get("micro_batch") or 1
    if mbs <= 1:
        return None
    return {"micro_batch": 1, "grad_accum": (s.get("grad_accum") or 1) * mbs}


def _higher_zero(s: dict[str, Any]) -> dict[str, Any] | None:
    if (s.get("devices") or 1) <= 1 or (s.get("zero_stage") or 0) >= 3 or s.get("offload"):
        return None
    return {"zero_stage": 3}


def _offload(s: dict[str, Any]) -> dict[str, Any] | None:
    if s.get("offload"):
        return None
    return {"zero_stage": max(s.get("zero_stage") or 0, 2 if (s.get("devices") or 1) > 1 else 3), "offload": True}


def serving_ladder(base: dict[str, Any], estimate: Estimate, npu: bool, per_node: int
                   ) -> tuple[tuple[str, dict[str, Any], dict[str, Any]] | None, list[str]]:
    tried: list[str] = []
    if base.get("kv_cache_dtype", "auto") == "auto":
        change = {"kv_cache_dtype": "int8" if npu else "fp8"}
        r = estimate({**base, **change})
        if r is not None and r.get("fits"):
            return ("kv_cache_dtype", change, r), tried
        tried.append("kv_cache_dtype")
    tp = base.get("tp") or 1
    while tp * 2 <= per_node:
        tp *= 2
        r = estimate({**base, "tp": tp})
        if r is not None and r.get("fits"):
            return ("tensor_parallel", {"tp": tp}, r), tried
    tried.append("tensor_parallel")
    length = base.get("max_model_len") or 0
    while length > 1024:
        length //= 2
        r = estimate({**base, "max_model_len": length})
        if r is not None and r.get("fits"):
            return ("max_model_len", {"max_model_len": length}, r), tried
    tried.append("max_model_len")
    return None, tried
