"""The what_fits tool: its answer is checked against the planning tools called directly (the value fits,
the next step up does not) and against the catalog's own limits, never against a copy of its output."""

from __future__ import annotations

import pytest


def fits(call, tool: str, **args) -> dict | None:
    res = call(tool, **args)
    ok = "error" not in res and res.get("fits") and res["devices"] <= args["max_devices"]
    return res if ok else None


def test_largest_model_without_offload_fits_and_no_bigger_one_does(call):
    out = call("what_fits", goal="model", hardware="a100-80g", method="full", devices=1)
    models = call("list_models")["models"]
    generative = [m for m in models if m["modality"] in ("text", "vision-language")]
    best = next(m for m in generative if m["id"] == out["value"])
    args = {"method": "full", "hardware": "a100-80g", "seq_len": 4096, "framework": "LLaMA-Factory", "max_devices": 1}
    plan = fits(call, "plan_training", model=best["id"], **args)
    assert plan and not plan["offload"]
    for m in (m for m in generative if m["params_b"] > best["params_b"]):
        bigger = fits(call, "plan_training", model=m["id"], **args)
        assert bigger is None or bigger["offload"], m["id"]
    # with offload allowed a larger model fits, and it is named beside the fast one with its host RAM
    slow = next(m for m in generative if m["id"] == out["offload_value"])
    assert slow["params_b"] > best["params_b"] and out["offload_plan"]["offload"] is True


def test_longest_serving_context_is_capped_by_the_model(call):
    # models.csv: gemma2-27b max_context 8192 (its config's max_position_embeddings)
    out = call("what_fits", goal="context", workload="inference", hardware="l40s-48g", devices=2, model="gemma2-27b")
    assert (out["value"], out["model_limit"], out["limited_by"]) == (8192, 8192, "model")
    assert out["memory_limit"] > 8192 and out["plan"]["max_model_len"] == 8192 and out["plan"]["fits"]


def test_longest_serving_context_at_a_stated_tp_is_one_instance_of_that_layout(call):
    """A sequence lives in one vLLM instance: with TP 2 stated on 8 devices, the longest context is the one an
    instance of TP 2 holds, the same as searching 2 devices' largest layout directly."""
    out = call("what_fits", goal="context", workload="inference", hardware="rtx4090-24g", devices=8, model="qwen2.5-14b",
               tp=2, gpu_memory_utilization=0.9)
    n = out["memory_limit"]  # what memory allows, before the model's own limit caps it
    assert out["plan"]["tp"] == 2 and out["devices"] == 8 and n < 1_048_576
    args = {"model": "qwen2.5-14b", "hardware": "rtx4090-24g", "max_devices": 2, "largest_layout": True}
    assert call("estimate_inference", max_model_len=n, **args)["fits"]
    assert not call("estimate_inference", max_model_len=n + 1, **args)["fits"]
    assert any("TP 2" in a for a in out["assumptions"])


def test_a_stated_tp_above_the_devices_is_refused(call):
    out = call("what_fits", goal="context", workload="inference", hardware="a100-80g", devices=2, model="qwen3-8b", tp=4)
    assert out["error"]["code"] == "invalid_arguments" and out["error"]["field"] == "tp"


def test_longest_serving_context_is_searched_at_the_utilisation_given(call):
    out = call("what_fits", goal="context", workload="inference", hardware="rtx4090-24g", devices=1, model="qwen3-8b",
               gpu_memory_utilization=0.8)
    n = out["value"]
    assert out["limited_by"] == "memory" and out["plan"]["gpu_memory_utilization"] == 0.8
    assert "gpu-memory-utilization 0.8" in out["assumptions"][0]
    args = {"model": "qwen3-8b", "hardware": "rtx4090-24g", "max_devices": 1, "gpu_memory_utilization": 0.8}
    assert call("estimate_inference", max_model_len=n, **args)["fits"]
    assert not call("estimate_inference", max_model_len=n + 1, **args)["fits"]


def test_longest_training_context_is_the_memory_edge(call):
    out = call("what_fits", goal="context", hardware="a100-80g", model="llama3.1-8b", method="lora")
    n = out["value"]
    assert out["limited_by"] == "memory" and n < out["model_limit"] == 131072  # models.csv: llama3.1-8b 131072
    args = {"model": "llama3.1-8b", "method": "lora", "hardware": "a100-80g", "framework": "LLaMA-Factory", "max_devices": 1}
    assert fits(call, "plan_training", seq_len=n, **args)
    assert not fits(call, "plan_training", seq_len=n + 1, **args)


@pytest.mark.parametrize("goal", ["context", "batch"])
def test_context_and_batch_need_a_model(call, goal):
    err = call("what_fits", goal=goal)["error"]
    assert err["code"] == "missing_model" and err["field"] == "model"


def test_longest_context_with_unsloth_uses_its_defaults(call):
    # Unsloth's README ('Context length benchmarks', commit e3162dc5bf): Llama-3.1-8B QLoRA r32 trains to 78,475
    # tokens on a 24 GB GPU, 5,789 with Hugging Face + FA2. Unsloth has no DeepSpeed/FSDP: one full copy per GPU.
    # the measurement is the longest run that happened: compared with the tightest plan (the point estimate fits)
    out = call("what_fits", goal="context", hardware="rtx4090-24g", model="llama3.1-8b", method="qlora", framework="unsloth",
               tightest=True)
    plan = out["plan"]
    assert plan["framework"] == "unsloth" and plan["zero_stage"] == 0 and not plan["offload"]
    assert 78_475 / 1.25 < out["value"] < 78_475 * 1.25
    assert any("unsloth's default" in a for a in plan["assumptions"])
    # the value fits and a longer one does not, by plan_training itself
    args = {"model": "llama3.1-8b", "method": "qlora", "hardware": "rtx4090-24g", "framework": "unsloth", "max_devices": 1,
            "tightest": True}
    assert fits(call, "plan_training", seq_len=out["value"], **args)
    assert not fits(call, "plan_training", seq_len=out["value"] + 1024, **args)
    refused = call("estimate_training_memory", model="llama3.1-8b", framework="unsloth", zero_stage=3, devices=2)
    assert refused["error"]["field"] == "zero_stage" and "unsloth" in refused["error"]["message"]


def test_serving_settings_stated_are_searched_with(call):
    # qwen2.5-14b: 48 layers, 8 KV heads, head_dim 128 (its config.json): the KV cache per token is 2 x 48 x 8 x 128 bytes at
    # int8 (96 KiB), half of bf16's; the utilisation is the one given, and the search's room is the planner's own at it.
    out = call("what_fits", goal="context", workload="inference", hardware="snt9b", devices=1, model="qwen2.5-14b",
               gpu_memory_utilization=0.85, kv_cache_dtype="int8")
    plan = out["plan"]
    assert plan["kv_bytes_per_token"] == 2 * 48 * 8 * 128 * 1 and plan["kv_cache_dtype"] == "int8"
    assert plan["gpu_memory_utilization"] == 0.85
    direct = call("estimate_inference", model="qwen2.5-14b", hardware="snt9b", max_model_len=4096, max_devices=1,
                  gpu_memory_utilization=0.85, kv_cache_dtype="int8")
    assert out["memory_limit"] <= direct["kv_tokens_fit"]  # no longer than the KV room at those settings
    assert any("0.85" in a and "INT8" in a for a in out["assumptions"])
