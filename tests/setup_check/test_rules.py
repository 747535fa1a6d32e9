"""The setup rules (assistant/setup_check/rules.py) on plain fields, whatever they were read from: each broken rule
is one finding with the numbers it used, what is valid and where the rule is written. Expected values are worked
by hand from the rule (Megatron's batch and world-size checks, DeepSpeed's stages 0-3 and batch > 0, the ModelArts
LLaMA-Factory guide 590620, the benchmark page 5905029)."""

from __future__ import annotations

from assistant.setup_check.rules import SOURCES, check


def codes(fields: dict, task: str | None = "training") -> dict[str, object]:
    return {f.code: f for f in check(fields, task)}


def test_global_batch_not_divisible_by_micro_batch_times_data_parallel():
    # 24 NPUs / (TP 8 x PP 1) = DP 3; GBS 100 % (MBS 1 x 3) = 1: nearest multiples of 3 are 99 and 102
    f = codes(
        {"framework": "MindSpeed-LLM", "devices": 24, "tp": 8, "pp": 1, "micro_batch": 1, "global_batch": 100}
    )
    g = f["gbs_not_divisible"]
    assert (g.value, g.figures["dp"], g.figures["step"], g.figures["nearest"]) == (100, 3, 3, "99 / 102")
    assert "Megatron" in g.source and "5910041" in g.source


def test_divisible_global_batch_and_other_frameworks_are_left_alone():
    # 32 / (4 x 2) = DP 4; MBS 2 x 4 = 8 divides 64
    assert "gbs_not_divisible" not in codes(
        {"framework": "MindSpeed-LLM", "devices": 32, "tp": 4, "pp": 2, "micro_batch": 2, "global_batch": 64}
    )
    assert "gbs_not_divisible" not in codes(
        {"framework": "LLaMA-Factory", "devices": 24, "tp": 8, "micro_batch": 1, "global_batch": 100}
    )


def test_tp_times_pp_beyond_the_npus():
    # NPUS_PER_NODE=8, TP 4 x PP 4 = 16 > 8: the world size must be a multiple of TP x PP; PP 2 keeps TP 4
    f = codes({"devices": 8, "per_node": 8, "tp": 4, "pp": 4})["parallel_exceeds_devices"]
    assert (f.value, f.figures["over"], f.corrected, f.fix) == (16, True, "PP=2", {"tp": 4, "pp": 2})
    assert "parallel_exceeds_devices" not in codes({"devices": 16, "tp": 8, "pp": 2})


def test_zero_stages_are_0_to_3():
    f = codes({"zero_stage": 5})["zero_stage_range"]
    assert (f.value, f.valid, f.fix) == (5, "0 | 1 | 2 | 3", {"zero_stage": 3})
    assert f.source == SOURCES["deepspeed_zero"]
    assert all("zero_stage_range" not in codes({"zero_stage": z}) for z in (0, 1, 2, 3))


def test_batch_values_below_one_are_rejected_each():
    found = check({"micro_batch": -4, "grad_accum": 0, "global_batch": 64}, "training")
    assert [(f.code, f.value) for f in found] == [("batch_positive", -4), ("batch_positive", 0)]
    assert all(f.valid == "a whole number >= 1" for f in found)


def test_benchmark_lists_of_different_lengths():
    f = codes({"prompt_tokens": [512, 1024, 2048], "output_tokens": [128, 256]}, None)[
        "benchmark_list_lengths"
    ]
    assert (f.figures["prompts"], f.figures["outputs"]) == (3, 2)
    assert "5905029" in f.source
    assert not check({"prompt_tokens": [128, 2048], "output_tokens": [128, 2048]})


def test_the_corrected_benchmark_lists_keep_every_value_given():
    # round 24 c4-06: "--prompt-tokens 512 1024 2048 --output-tokens 128" became "--prompt-tokens 512 --output-tokens 128";
    # the pages pair the lists in order (5905029), so one output length goes with each of the three prompt lengths
    f = codes({"prompt_tokens": [512, 1024, 2048], "output_tokens": [128]}, None)["benchmark_list_lengths"]
    assert f.corrected == "--prompt-tokens 512 1024 2048 --output-tokens 128 128 128"
    f = codes({"prompt_tokens": [512], "output_tokens": [128, 256]}, None)["benchmark_list_lengths"]
    assert f.corrected == "--prompt-tokens 512 512 --output-tokens 128 256"


def test_dpo_rm_ppo_only_for_the_llama3_series_on_modelarts():
    # ModelArts LLaMA-Factory guide (590620): "DPO, RM and PPO only for the llama3 series"; PPO not with ZeRO-3
    f = codes({"stage": "ppo", "model_id": "qwen2.5-7b", "accelerator_kind": "npu", "zero_stage": 3})
    assert f["lf_stage_model"].figures == {"stage": "PPO", "model": "qwen2.5-7b"}
    assert f["lf_ppo_zero3"].fix == {"zero_stage": 2}
    assert "590620" in f["lf_stage_model"].source
    assert "lf_stage_model" not in codes(
        {"stage": "dpo", "model_id": "llama3.1-8b", "accelerator_kind": "npu"}
    )
    assert "lf_stage_model" not in codes(
        {"stage": "dpo", "model_id": "qwen2.5-7b", "accelerator_kind": "gpu"}
    )
    assert "lf_stage_model" not in codes(
        {"stage": "sft", "model_id": "qwen2.5-7b", "accelerator_kind": "npu"}
    )


def test_every_finding_names_its_source():
    found = check(
        {
            "framework": "MindSpeed-LLM",
            "devices": 8,
            "tp": 3,
            "micro_batch": 0,
            "zero_stage": 7,
            "stage": "rm",
            "model_id": "glm4-9b",
            "accelerator_kind": "npu",
            "method": "full",
        },
        "training",
    )
    assert found and all(f.source for f in found)


def test_bf16_and_fp16_both_enabled_is_refused():
    # DeepSpeed's config check: "bfloat16 and fp16 modes cannot be simultaneously enabled"
    f = codes({"precisions_enabled": ["\"bf16\"", "\"fp16\""]})["both_precisions"]
    assert f.value == "bf16 + fp16" and "DeepSpeed" in f.source and f.corrected == "\"fp16\": {\"enabled\": false}"
    assert "both_precisions" not in codes({"precisions_enabled": ["bf16"]})


def test_lora_plus_only_for_qwen1_5_7b_on_modelarts():
    # research/modelarts.md (590620): "lora+ (loraplus_lr_ratio: 16.0) only for qwen1.5-7B"
    f = codes({"loraplus": 16.0, "model_id": "qwen2.5-7b", "accelerator_kind": "npu"})["lf_loraplus_model"]
    assert f.figures["model"] == "qwen2.5-7b" and "590620" in f.source
    assert "lf_loraplus_model" not in codes({"loraplus": 16.0, "model_id": "qwen1.5-7b", "accelerator_kind": "npu"})


def test_one_num_prompts_per_request_rate():
    # research/modelarts_pages.md (5905029): "--num-prompts needs one count per rate"; 3 rates, 2 counts
    f = codes({"request_rate": [1, 2, 4], "num_prompts": [100, 200]}, None)["benchmark_rates_prompts"]
    assert (f.figures["rates"], f.figures["counts"]) == (3, 2) and "5905029" in f.source
    assert f.corrected == "--request-rate 1 2 4 --num-prompts 100 200 200"


def test_cards_above_8_a_multiple_of_8():
    # research/modelarts.md (590604): "N > 8 must be rounded to a multiple of 8": 12 -> 8 or 16; 16 and 8 are fine
    f = codes({"devices": 12, "accelerator_kind": "npu"})["cards_multiple_of_8"]
    assert (f.figures["low"], f.figures["high"]) == (8, 16) and "590604" in f.source
    assert "cards_multiple_of_8" not in codes({"devices": 16, "accelerator_kind": "npu"})
    assert "cards_multiple_of_8" not in codes({"devices": 6, "accelerator_kind": "npu"})


def test_an_odd_die_count_on_snt9b23():
    # seeds/004: "Snt9B23规格实际训练过程中设置并行策略时2*DIE为最小单位": 3 DIE -> 2 or 4
    f = codes({"die_count": 3, "dies_per_card": 2})["die_whole_cards"]
    assert (f.figures["low"], f.figures["high"]) == (2, 4) and "2025-06-24" in f.source


def test_the_recipe_rows_cards_beside_its_zero_stage():
    # seeds/000: Yi 34B lora 8192 -> ZeRO-3, 1*节点 & 4*Ascend; the user runs ZeRO-2 on 2 cards
    f = codes({"zero_stage": 2, "devices": 2, "recipe_zero_stage": 3, "recipe_devices": 4, "recipe_row": "yi-34b lora"})
    g = f["recipe_zero_mismatch"]
    assert (g.value, g.valid, g.figures["recipe_devices"]) == (2, "ZeRO-3", 4)
    same = codes({"zero_stage": 3, "devices": 2, "recipe_zero_stage": 3, "recipe_devices": 4, "recipe_row": "yi-34b lora"})
    assert same["recipe_zero_mismatch"].corrected == ""  # the stage is the recipe's; only the cards differ


def test_mindspeed_scripts_take_full_or_lora_only():
    # ModelArts 训练参数配置说明 (5901042): FINETUNING_TYPE full or lora; QLoRA and freeze are LLaMA-Factory's
    for method in ("qlora", "freeze"):
        f = codes({"framework": "MindSpeed-LLM", "method": method})["mindspeed_method"]
        assert (f.value, f.valid, f.corrected) == (method, "lora | full", "FINETUNING_TYPE=lora")
        assert "5901042" in f.source
    assert "mindspeed_method" not in codes({"framework": "MindSpeed-LLM", "method": "lora"})
    assert "mindspeed_method" not in codes({"framework": "LLaMA-Factory", "method": "qlora"})


def test_a_hccl_wait_below_canns_default_is_a_finding():
    # CANN env-var reference (ckpt_timeout.md): HCCL_EXEC_TIMEOUT defaults to 1836 s, HCCL_CONNECT_TIMEOUT to 120 s;
    # 600 < 1836 and 60 < 120 wait less than unset; 3600 > 1836, 1836 itself and 0 ("never time out") do not
    f = codes({"hccl_exec_timeout": 600, "hccl_connect_timeout": 60}, None)
    assert f["hccl_exec_timeout"].value == 600 and f["hccl_exec_timeout"].figures["default"] == 1836
    assert f["hccl_connect_timeout"].value == 60 and f["hccl_connect_timeout"].figures["default"] == 120
    assert "1836 s" in SOURCES["cann_env"]
    for fine in (3600, 1836, 0):
        assert "hccl_exec_timeout" not in codes({"hccl_exec_timeout": fine}, None)


def test_mindspeed_needs_64_gb_per_npu():
    # MindSpeed-LLM supported_models.md (research/modelarts.md §10): ">= 64 GB on-chip memory per NPU"; 910B4 taken as
    # 32 GB and the 910A is 32 GB: below it; Snt9B and a Snt9B23 DIE are 64 GB: at it; LLaMA-Factory states no floor
    f = codes({"framework": "MindSpeed-LLM", "device_memory_gb": 32, "accelerator_kind": "npu", "part_name": "910B4"})
    m = f["mindspeed_device_memory"]
    assert (m.value, m.figures["gb"], m.figures["floor"]) == ("910B4", "32", 64)
    assert "supported_models.md" in m.source
    assert "mindspeed_device_memory" not in codes({"framework": "MindSpeed-LLM", "device_memory_gb": 64, "accelerator_kind": "npu"})
    assert "mindspeed_device_memory" not in codes({"framework": "LLaMA-Factory", "device_memory_gb": 32, "accelerator_kind": "npu"})
    assert "mindspeed_device_memory" not in codes({"framework": "MindSpeed-LLM", "device_memory_gb": 32, "accelerator_kind": "npu"},
                                                  "serving")
