""""What fits" on given devices: the largest catalog model, the longest context or the biggest batch,
found by searching over the planning tools' own answers (plan_training for training,
estimate_inference for serving) with the device count as the cap. A pure function of the tool
caller passed in, so every figure is still a tool's number."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

Call = Callable[[str, dict[str, Any]], dict[str, Any]]
Goal = Literal["model", "context", "batch"]
Workload = Literal["training", "inference"]

MAX_CONTEXT = 1_048_576  # the tools' upper bound for a sequence length
MAX_BATCH = 1024
MIN_CONTEXT = 256


def _fits(call: Call, workload: Workload, args: dict[str, Any], devices: int) -> dict[str, Any] | None:
    """The tool's plan when it fits within ``devices``, else None (errors count as not fitting)."""
    if workload == "training":
        res = call("plan_training", {**args, "max_devices": devices})
    else:
        res = call("estimate_inference", {**args, "max_devices": devices})
    ok = isinstance(res, dict) and "error" not in res and res.get("fits") and res.get("devices", devices + 1) <= devices
    return res if ok else None


def _largest(call: Call, workload: Workload, args: dict[str, Any], devices: int, field: str,
             low: int, high: int) -> tuple[int, dict[str, Any]] | None:
    """The largest value of ``field`` in [low, high] that fits (binary search: more tokens or a
    bigger batch never needs less memory)."""
    best = None
    if not _fits(call, workload, {**args, field: low}, devices):
        return None
    while low <= high:
        mid = (low + high) // 2
        plan = _fits(call, workload, {**args, field: mid}, devices)
        if plan:
            best, low = (mid, plan), mid + 1
        else:
            high = mid - 1
    return best


def what_fits(call: Call, goal: Goal, workload: Workload, args: dict[str, Any], devices: int,
              models: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """{"goal", "value", "plan", "tried"}: the largest model (catalog id), context (tokens) or batch
    (micro batch per device for training, sequences at max-model-len for serving) that fits on
    ``devices`` of ``args["hardware"]``; value None when nothing fits. ``args`` are the other tool
    arguments (model, method, seq_len / max_model_len, ...); ``models`` the catalog rows for "model"."""
    tried = 0

    def counted(tool: str, a: dict[str, Any]) -> dict[str, Any]:
        nonlocal tried
        tried += 1
        return call(tool, a)

    value: Any = None
    plan: dict[str, Any] | None = None
    if goal == "model":
        for m in sorted(models or [], key=lambda m: -float(m.get("params_b") or 0)):
            a = {k: v for k, v in args.items() if k not in ("model", "params_b", "shape")}
            plan = _fits(counted, workload, {**a, "model": m["id"]}, devices)
            if plan:
                value = m["id"]
                break
    elif goal == "context":
        field = "seq_len" if workload == "training" else "max_model_len"
        found = _largest(counted, workload, args, devices, field, MIN_CONTEXT, MAX_CONTEXT)
        value, plan = found if found else (None, None)
    elif workload == "inference":  # the tool sizes the most sequences a set of devices holds
        res = counted("estimate_inference", {**args, "max_devices": devices, "largest_layout": True})
        if "error" not in res and res.get("fits"):
            value, plan = res.get("max_sequences_at_len"), res
    else:
        found = _largest(counted, workload, args, devices, "micro_batch", 1, MAX_BATCH)
        value, plan = found if found else (None, None)
    return {"goal": goal, "value": value, "plan": plan, "tried": tried}
