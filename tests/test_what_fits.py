""""What fits" searches the planning tools' answers: the value it returns fits on the devices and the
next one up does not (checked by calling the tool directly), for each goal."""

from __future__ import annotations

from assistant.tools import REGISTRY
from assistant.what_fits import what_fits


def caller(ctx):
    return lambda tool, args: REGISTRY.call_json(tool, args, ctx)


def fits(ctx, tool: str, args: dict) -> bool:
    res = REGISTRY.call_json(tool, args, ctx)
    return "error" not in res and bool(res.get("fits")) and res["devices"] <= args["max_devices"]


def test_longest_training_context_is_the_edge(ctx):
    args = {"model": "qwen2.5-7b", "method": "lora", "hardware": "snt9b"}
    out = what_fits(caller(ctx), "context", "training", args, devices=8)
    n = out["value"]
    assert n and out["plan"]["seq_len"] == n
    assert fits(ctx, "plan_training", {**args, "seq_len": n, "max_devices": 8})
    assert n == 1_048_576 or not fits(ctx, "plan_training", {**args, "seq_len": n + 1, "max_devices": 8})


def test_biggest_training_batch_is_the_edge(ctx):
    args = {"model": "llama3.1-8b", "method": "full", "seq_len": 4096, "hardware": "snt9b"}
    out = what_fits(caller(ctx), "batch", "training", args, devices=8)
    b = out["value"]
    assert b and fits(ctx, "plan_training", {**args, "micro_batch": b, "max_devices": 8})
    assert not fits(ctx, "plan_training", {**args, "micro_batch": b + 1, "max_devices": 8})


def test_largest_model_for_serving_is_the_biggest_that_fits(ctx):
    models = REGISTRY.call_json("list_models", {}, ctx)["models"]
    args = {"max_model_len": 8192, "hardware": "snt9b"}
    out = what_fits(caller(ctx), "model", "inference", args, devices=2, models=models)
    best = next(m for m in models if m["id"] == out["value"])
    assert fits(ctx, "estimate_inference", {**args, "model": best["id"], "max_devices": 2})
    bigger = [m for m in models if m["params_b"] > best["params_b"]]
    assert bigger and not any(fits(ctx, "estimate_inference", {**args, "model": m["id"], "max_devices": 2}) for m in bigger)


def test_most_sequences_served_and_nothing_fits(ctx):
    args = {"model": "qwen2.5-72b", "max_model_len": 32768, "hardware": "snt9b"}
    out = what_fits(caller(ctx), "batch", "inference", args, devices=4)
    assert out["value"] == out["plan"]["max_sequences_at_len"] >= 1
    # 72B parameters in bf16 are 145 GB: one 64 GB card cannot hold them
    none = what_fits(caller(ctx), "context", "inference", {**args}, devices=1)
    assert none["value"] is None and none["plan"] is None
