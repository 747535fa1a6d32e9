"""check_setup through the registry on the project's fixtures (tests/setup_check/fixtures): the OOM
diagnosis against the figures of published reports, worked by hand; the verdict and the smallest change
that fits; the vendor row; bad input as the canonical error."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

FIXTURES = Path(__file__).parents[1] / "setup_check" / "fixtures"


def text(*names: str) -> str:
    return "\n".join(f"```\n{(FIXTURES / n).read_text(encoding='utf-8')}```" for n in names)


def ok(call, **args) -> dict:
    out = call("check_setup", **args)
    assert "error" not in out, out
    return out


# ---------------------------------------------------------------- out-of-memory messages
def test_oom_of_llamafactory_5491_is_too_big(call):
    """910B, 8 cards, loading shards of a large model: 59.57 GiB allocated of 60.97 when 386 MiB more was asked."""
    o = ok(call, text=(FIXTURES / "oom_5491_npu.log").read_text())["oom"]
    tried, free = round(386 / 1024, 3), round(16.54 / 1024, 3)
    assert o["cause"] == "too_big"
    assert o["allocated_share"] == round((59.57 + tried) / 60.97, 3) == 0.983
    assert o["cached_gib"] == round(60.06 - 59.57, 3)
    assert o["short_by_gib"] == round(tried - free, 3)
    # the 0.49 GiB cache could hold the 0.377 GiB request: expandable segments named as the secondary help
    assert o["allocator_setting"] == "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True"


def test_oom_vendor_sample_too_big_without_allocator_help(call):
    """The ModelArts OOM page's sample (knowledge/notes/oom.md): 1.04 GiB asked, 56.45 allocated, 1017.81 MiB free,
    56.84 reserved: 0.39 GiB of cache cannot hold 1.04 GiB, so the allocator setting would not help this request."""
    msg = ("RuntimeError: NPU out of memory. Tried to allocate 1.04 GiB (NPU 4; 60.97 GiB total capacity; 56.45 GiB already "
           "allocated; 56.45 GiB current active; 1017.81 MiB free; 56.84 GiB reserved in total by PyTorch)")
    out = ok(call, text=msg)
    o = out["oom"]
    assert out["kind"] == "oom_only" and out["verdict"] is None
    assert (o["cause"], o["device_index"], o["allocator_setting"]) == ("too_big", 4, None)
    assert o["allocated_share"] == round((56.45 + 1.04) / 60.97, 3) == 0.943
    assert o["short_by_gib"] == round(1.04 - round(1017.81 / 1024, 3), 3)


def test_oom_with_reserved_well_above_allocated_is_fragmenting(call):
    """vllm-ascend #19: 22 MiB asked with 10.24 allocated and 10.65 reserved of 60.97 GiB; 50 GiB held outside PyTorch."""
    o = ok(call, text=(FIXTURES / "oom_vllm_ascend_19.log").read_text())["oom"]
    assert o["cause"] == "fragmenting" and o["allocator_setting"] == "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True"
    assert o["cached_gib"] == round(10.65 - 10.24, 3)
    assert o["outside_gib"] == round(60.97 - 10.65 - round(19.79 / 1024, 3), 3)


def test_cuda_oom_new_format(call):
    """compressed-tensors #587 (A100/H100 80 GB): 1.96 GiB asked, 75.31 allocated + 1.83 cached of 79.18, 1.08 free."""
    o = ok(call, text=(FIXTURES / "oom_cuda_587.log").read_text())["oom"]
    assert (o["platform"], o["cause"], o["allocator_setting"]) == ("cuda", "too_big", None)  # 1.83 < 1.96
    assert o["allocated_share"] == round((75.31 + 1.96) / 79.18, 3)
    assert o["short_by_gib"] == round(1.96 - 1.08, 3)


# ---------------------------------------------------------------- training configs
def test_lora_micro_batch_4_lowered_to_1_keeping_the_global_batch(call):
    out = ok(call, text="OOM on 8 cards of 910B:\n" + text("qwen7b_lora_sft_z2.yaml", "ds_z2_config.json"))
    assert (out["model"], out["hardware"], out["verdict"]) == ("qwen2.5-7b", "snt9b", "does_not_fit")
    t = out["training"]
    assert t["total_gib"] > t["usable_gib"] == 60.97 and out["over_gib"] == round(t["total_gib"] - 60.97, 2)
    c = out["change"]
    # the first rung: micro batch 4 -> 1 with accumulation 2 -> 8, global batch 4 x 2 x 8 = 1 x 8 x 8 = 64
    assert (c["kind"], c["settings"]) == ("micro_batch", {"micro_batch": 1, "grad_accum": 8})
    assert c["verdict"] in ("fits", "tight") and c["total_gib"] < 60.97 and out["tried"] == []
    cfg = yaml.safe_load(c["files"][0]["content"])
    assert (cfg["per_device_train_batch_size"], cfg["gradient_accumulation_steps"], cfg["deepspeed"], cfg["cutoff_len"],
            cfg["lora_rank"], cfg["dataset"], cfg["model_name_or_path"]) == (
        1, 8, "examples/deepspeed/ds_z2_config.json", 8192, 16, "alpaca_zh_demo", "/home/ma-user/ws/models/Qwen2.5-7B-Instruct")
    assert "YAML: flash_attn" in out["unused"] and "YAML: dataset" in out["kept"]
    # seeds/004: LLaMA-Factory qwen2.5-7b lora 8192 on Snt9B: 1 card
    assert out["table"] == ["LLaMA-Factory qwen2.5-7b lora SEQ_LEN 8192 on Snt9B: 1 card (ModelArts: 模型最小卡数配置, 2025-06-24)"]


def test_full_without_checkpointing_gets_recompute_with_its_cost(call):
    out = ok(call, text=text("llama3_8b_full_sft_z3.yaml", "ds_z3_config.json"), hardware="a100-40g", devices=8)
    assert out["verdict"] == "does_not_fit" and out["training"]["zero_stage"] == 3
    c = out["change"]
    # micro batch 2 -> 1 alone is not enough; recompute alone is (the ladder keeps the smaller change)
    assert (c["kind"], c["settings"]) == ("recompute", {"recompute": True}) and out["tried"] == ["micro_batch"]
    assert "1/3 more compute" in c["speed_cost"]
    cfg = yaml.safe_load(c["files"][0]["content"])
    assert "disable_gradient_checkpointing" not in cfg and cfg["per_device_train_batch_size"] == 2
    assert c["files"][1]["filename"] == "ds_z3_config.json"


def test_qlora_on_one_4090_fits_and_says_what_it_assumed(call):
    out = ok(call, text=text("qwen14b_qlora_4090.yaml"), hardware="4090")
    # the point estimate is well inside the card's usable memory, and so is the likely range's upper end (the
    # estimator's measured spread, less the cached blocks the allocator gives back): fits, no change
    m = out["training"]
    assert m["total_gib"] < m["high_gib"] - m["cached_gib"] <= m["usable_gib"]
    assert out["verdict"] == "fits" and out["change"] is None
    assert out["training"]["method"] == "qlora" and out["training"]["devices"] == 1
    assert {"name": "devices", "value": 1, "why": "devices_not_given", "detail": ""} in out["assumed"]
    assert {"name": "zero_stage", "value": 0, "why": "framework_default", "detail": "LLaMA-Factory"} in out["assumed"]


def test_dpo_zero3_offload_reads_offload_and_stage(call):
    out = ok(call, text=text("qwen72b_lora_dpo_z3_offload.yaml", "ds_z3_offload_config.json"), devices=8)
    t = out["training"]
    assert (t["stage"], t["zero_stage"], t["offload"], t["method"]) == ("dpo", 3, True, "lora")
    assert t["host_ram_gib"] > 0 and out["verdict"] in ("fits", "tight")


def test_mindspeed_block_beside_its_vendor_row(call):
    out = ok(call, text=(FIXTURES / "mindspeed_qwen72b_full.sh").read_text())
    t = out["training"]
    assert (t["framework"], t["devices"], t["tp"], t["pp"], t["data_parallel"], t["micro_batch"]) == (
        "MindSpeed-LLM", 32, 8, 4, 1, 2)
    # seeds/004: MindSpeed-LLM qwen2.5-72b full 8192 on Snt9B: 64 cards, beside the estimate, never in it
    assert out["table"] == ["MindSpeed-LLM qwen2.5-72b full SEQ_LEN 8192 on Snt9B: 64 cards (ModelArts: 模型最小卡数配置, 2025-06-24)"]


def test_too_big_for_any_rung_gets_more_devices_as_the_planner_plans(call):
    text_ = "8×910B\n```yaml\nmodel_name_or_path: Qwen/Qwen2.5-72B-Instruct\nstage: sft\nfinetuning_type: full\n" \
            "deepspeed: examples/deepspeed/ds_z2_config.json\ncutoff_len: 4096\nper_device_train_batch_size: 1\n" \
            "gradient_accumulation_steps: 8\nbf16: true\n```"
    out = ok(call, text=text_)
    plan = call("plan_training", model="qwen2.5-72b", method="full", seq_len=4096, hardware="snt9b", micro_batch=1,
                global_batch=64)
    c = out["change"]
    assert c["kind"] == "devices" and c["settings"]["devices"] == plan["devices"] and c["settings"]["zero_stage"] == plan["zero_stage"]
    assert out["tried"] == ["zero_stage", "offload"]  # micro batch is already 1


# ---------------------------------------------------------------- serving
def test_vllm_72b_on_two_cards_needs_four(call):
    out = ok(call, text="```bash\nvllm serve Qwen/Qwen2.5-72B-Instruct --tensor-parallel-size 2 --max-model-len 32768 "
                        "--gpu-memory-utilization 0.9 --served-model-name qwen\n```", hardware="snt9b")
    s = out["serving"]
    assert out["verdict"] == "does_not_fit" and (s["devices"], s["tp"]) == (2, 2)
    # Qwen2.5-72B KV cache: 2 x 80 layers x 8 KV heads x 128 x 2 B = 327,680 B per token
    assert s["kv_bytes_per_token"] == 2 * 80 * 8 * 128 * 2
    assert s["weights_gib_per_device"] == pytest.approx(s["shape"]["params_b"] * 1e9 * 2 / 2**30 / 2, rel=0.02)
    assert s["weights_gib_per_device"] > s["budget_gib"] == pytest.approx(0.9 * 60.97, abs=0.01)
    c = out["change"]
    assert (c["kind"], c["settings"]) == ("tensor_parallel", {"tp": 4}) and out["tried"] == ["kv_cache_dtype"]
    assert "--tensor-parallel-size 4" in c["files"][0]["content"] and "--served-model-name qwen" in c["files"][0]["content"]
    assert out["table"][0].startswith("ModelArts vLLM table: 4 cards for max_model_len 32768")


def test_vllm_startup_lines_alone_use_vllms_figures(call):
    out = ok(call, text=(FIXTURES / "vllm_startup.log").read_text())
    assert out["verdict"] == "does_not_fit" and out["over_gib"] == round(24.0 - 9.87, 2)
    # the KV cache's own size agrees: 9.87 GiB / (2 x 48 x 8 x 128 x 2 B per token, Qwen2.5-14B) = 53,903 tokens
    assert int(9.87 * 2**30 / (2 * 48 * 8 * 128 * 2)) == out["vllm_log"]["kv_tokens"]


# ---------------------------------------------------------------- bad input and unknown models
def test_unknown_model_asks_for_its_size_then_uses_it(call):
    t = "```yaml\nmodel_name_or_path: /data/my-company-llm-v3\nstage: sft\nfinetuning_type: lora\ncutoff_len: 4096\n```"
    err = call("check_setup", text=t)["error"]
    assert err["code"] == "unknown_model" and "params_b" in err["message"] and "config.json" in err["message"]
    out = ok(call, text=t, params_b=7.0)
    assert out["training"]["shape"]["params_b"] == pytest.approx(7.0, rel=0.05)
    assert {"name": "params_b", "value": 7.0, "why": "params_b", "detail": "/data/my-company-llm-v3"} in out["assumed"]
    assert out["change"] is None or out["change"]["files"] == []


def test_pasted_config_json_sizes_an_unknown_model(call):
    cfg = ('{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32, '
           '"num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": false}')
    t = f"```yaml\nmodel_name_or_path: /data/private-8b\nstage: sft\nfinetuning_type: lora\n```\n```json\n{cfg}\n```"
    out = ok(call, text=t)
    # Llama-3-8B's shape: 8.03B parameters
    assert out["training"]["shape"]["params_b"] == pytest.approx(8.03, abs=0.01)


@pytest.mark.parametrize("bad,code", [
    ("```yaml\nmodel_name_or_path: Qwen/Qwen2.5-7B\nstage: sft\ncutoff_len: 4096: 8192\n```", "invalid_yaml"),
    ('```json\n{"zero_optimization": {"stage": 3,}}\n```', "invalid_json"),
    ("How many cards for qwen2.5-7b?", "nothing_recognised"),
])
def test_bad_input_is_the_canonical_error(call, bad, code):
    err = call("check_setup", text=bad)["error"]
    assert err["code"] == code and err["field"] == "text" and err["valid"]


def test_deepspeed_json_alone_is_read_and_asks_for_the_model(call):
    out = ok(call, text=text("ds_z3_offload_config.json"))
    read = {r["name"]: r["value"] for r in out["read"]}
    assert (out["kind"], read["zero_stage"], read["offload"], out["verdict"]) == ("training", 3, True, None)
    assert "names no model" in out["notices"][-1]
    # with the model and the cards given, the same JSON is sized as LLaMA-Factory with ZeRO-3 offload
    out = ok(call, text=text("ds_z3_offload_config.json"), model="qwen2.5-14b", devices=8)
    t = out["training"]
    assert (t["model"], t["zero_stage"], t["offload"], t["framework"]) == ("qwen2.5-14b", 3, True, "LLaMA-Factory")
    assert {"name": "method", "value": "lora", "why": "framework_default", "detail": "LLaMA-Factory"} in out["assumed"]


def test_llamafactory_recipe_row_beside_the_estimate(call):
    t = ("8 cards\n```yaml\nmodel_name_or_path: meta-llama/Llama-2-7b-hf\nstage: sft\nfinetuning_type: lora\n"
         "cutoff_len: 4096\nper_device_train_batch_size: 1\ngradient_accumulation_steps: 8\n```")
    out = ok(call, text=t)
    # seeds/000: llama2 7B lora 4096: ZeRO-1, gradient accumulation 8, 1 node x 1 card
    assert out["table"] == ["LLaMA-Factory recipe llama2-7b lora cutoff_len 4096: ZeRO-1, GA 8, 1 x 1 cards "
                            "(ModelArts: 模型NPU卡数、梯度累积值取值表, LLaMA-Factory)"]


def test_vllm_no_cache_blocks_line(call, ctx):
    from assistant.offline.setup_answer import render_setup

    line = ("ERROR 03-05 07:15:39 engine.py:387] ValueError: No available memory for the cache blocks. Try increasing "
            "`gpu_memory_utilization` when initializing the engine.")
    out = ok(call, text=line)
    assert out["vllm_log"]["no_cache_memory"] is True and out["verdict"] == "does_not_fit"
    # the log's own verdict leads (a server that did not start), with what frees room
    assert render_setup(out, "en").startswith("**vLLM stopped at start-up: no memory was left for the KV cache**")


def test_weights_are_the_shapes_parameters_in_bf16(call):
    """Hand check of one figure: LoRA keeps the frozen base in bf16, 2 bytes per parameter of the catalog shape
    (qwen2.5-7b: 7.61B), and the adapters in fp32 (rank 16 on every linear layer: 40.4M parameters, 4 bytes each)."""
    t = ok(call, text="OOM on 8 cards of 910B:\n" + text("qwen7b_lora_sft_z2.yaml"))["training"]
    assert t["shape"]["params_b"] == 7.61
    assert t["weights_gib"] == pytest.approx((7.61e9 * 2 + 40.4e6 * 4) / 2**30, abs=0.005)  # 14.326
