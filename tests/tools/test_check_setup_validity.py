"""check_setup judges whether a pasted setup is valid for its framework, not only whether it fits: values
LLaMA-Factory, DeepSpeed, vLLM or MindSpeed-LLM refuse at launch, each with what is valid and the corrected line
(LLaMA-Factory 0.9.5's own argument definitions, DeepSpeed's batch identity worked by hand, the catalog's
context lengths and head counts); values stated in the words around a paste; an OOM message with the model
named beside it sized and answered with the vendor's remedies, in the order the message calls for."""

from __future__ import annotations

import pytest

# LLaMA-Factory 0.9.5: hparams/finetuning_args.py finetuning_type Literal; extras/constants.py QuantizationMethod.
LF_FINETUNING_TYPES = "lora | oft | freeze | full"
LF_QUANT_METHODS = "bnb | gptq | awq | aqlm | quanto | eetq | hqq | mxfp4 | fp8"


def ok(call, **args) -> dict:
    out = call("check_setup", **args)
    assert "error" not in out, out
    return out


def findings(out: dict) -> dict[str, dict]:
    return {f["code"]: f for f in out["findings"]}


def lf_yaml(model: str, **keys) -> str:
    base = {"model_name_or_path": model, "stage": "sft", "cutoff_len": 2048, "per_device_train_batch_size": 1,
            "gradient_accumulation_steps": 8, "bf16": "true"}
    return "\n".join(f"{k}: {v}" for k, v in {**base, **keys}.items())


# ---------------------------------------------------------------- LLaMA-Factory values
@pytest.mark.parametrize("model", ["meta-llama/Meta-Llama-3-8B-Instruct", "Qwen/Qwen2.5-7B-Instruct"])
def test_qlora_is_not_a_finetuning_type_and_bitsandbytes_is_bnb(call, model):
    out = ok(call, text=lf_yaml(model, finetuning_type="qlora", quantization_bit=4, quantization_method="bitsandbytes"))
    f = findings(out)
    assert f["lf_finetuning_type"]["valid"] == LF_FINETUNING_TYPES
    assert f["lf_finetuning_type"]["corrected"] == "finetuning_type: lora"  # quantization_bit is already there
    assert f["lf_quantization_method"]["valid"] == LF_QUANT_METHODS
    assert f["lf_quantization_method"]["corrected"] == "quantization_method: bnb"
    # sized as what it means: LoRA on a 4-bit base
    assert {r["name"]: r["value"] for r in out["read"]}["method"] == "qlora"


def test_qlora_without_quantization_bit_gets_both_lines(call):
    f = findings(ok(call, text=lf_yaml("Qwen/Qwen2.5-7B-Instruct", finetuning_type="qlora")))
    assert f["lf_finetuning_type"]["corrected"] == "finetuning_type: lora\nquantization_bit: 4"


@pytest.mark.parametrize(("method", "bits", "valid"), [("eetq", 4, "8"), ("bnb", 2, "4 | 8")])
def test_quantization_bit_the_method_does_not_take(call, method, bits, valid):
    """quantization.py: EETQ only accepts 8-bit; bitsandbytes only 4-bit or 8-bit."""
    f = findings(ok(call, text=lf_yaml("Qwen/Qwen2.5-7B-Instruct", finetuning_type="lora", quantization_bit=bits,
                                       quantization_method=method)))
    assert f["lf_quantization_bits"]["valid"] == valid and "lf_quantization_method" not in f


def test_valid_values_give_no_finding(call):
    out = ok(call, text=lf_yaml("Qwen/Qwen2.5-7B-Instruct", finetuning_type="lora", quantization_bit=4,
                                quantization_method="bnb"), hardware="a100-80g")
    assert out["findings"] == []


def test_pure_bf16_with_zero3_is_corrected_to_bf16_and_sized(call):
    """parser.py: "`pure_bf16` is incompatible with DeepSpeed ZeRO-3." Not an error any more: a finding and an estimate."""
    out = ok(call, text=lf_yaml("/data/Qwen2.5-32B", finetuning_type="full", pure_bf16="true",
                                deepspeed="examples/deepspeed/ds_z3_offload_config.json"))
    f = findings(out)["lf_pure_bf16_zero3"]
    assert (f["corrected"], f["applied"]) == ("bf16: true", True)
    t = out["training"]
    same = dict(model="qwen2.5-32b", hardware="snt9b", method="full", seq_len=2048, micro_batch=1, grad_accum=8,
                devices=1, zero_stage=3, offload=True, framework="LLaMA-Factory")
    assert t["total_gib"] == call("estimate_training_memory", **same, precision="bf16")["total_gib"]
    assert "error" in call("estimate_training_memory", **same, precision="pure_bf16")  # what it refused before


# ---------------------------------------------------------------- DeepSpeed batch identity
@pytest.mark.parametrize(("gbs", "micro", "ga", "gpus", "product", "ga_fix"),
                         [(256, 2, 8, 8, 128, 16), (100, 4, 4, 4, 64, None), (64, 1, 16, 8, 128, 8)])
def test_train_batch_size_must_be_micro_times_ga_times_world(call, gbs, micro, ga, gpus, product, ga_fix):
    js = (f'{{"train_batch_size": {gbs}, "train_micro_batch_size_per_gpu": {micro}, '
          f'"gradient_accumulation_steps": {ga}, "zero_optimization": {{"stage": 3}}}}')
    out = ok(call, text=f"deepspeed throws an assertion about train_batch_size on my {gpus} GPUs, why?\n{js}")
    f = findings(out)["ds_train_batch_size"]
    assert f["figures"]["product"] == micro * ga * gpus == product
    assert f["figures"]["ga_fix"] == ga_fix  # gbs / (micro x world) when whole
    assert f["corrected"].startswith(f'"train_batch_size": {product}')


def test_consistent_batch_has_no_finding(call):
    js = '{"train_batch_size": 128, "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 8}'
    assert ok(call, text=f"on 8 GPUs\n{js}")["findings"] == []


# ---------------------------------------------------------------- vLLM
@pytest.mark.parametrize("util", [1.2, 0])
def test_gpu_memory_utilization_outside_0_1_is_corrected(call, util):
    out = ok(call, text=f"vllm serve Qwen/Qwen3-14B --max-model-len 16384 --gpu-memory-utilization {util}",
             hardware="snt9b")
    f = findings(out)["vllm_gpu_memory_utilization"]
    assert (f["corrected"], f["applied"]) == ("--gpu-memory-utilization 0.9", True)
    assert out["serving"]["budget_gib"] > 0


@pytest.mark.parametrize(("model", "context"), [("meta-llama/Meta-Llama-3-8B-Instruct", 8192),
                                                ("meta-llama/Llama-2-7b-hf", 4096)])
def test_max_model_len_above_the_models_context(call, model, context):
    """The catalog's max_context (the HF config's max_position_embeddings): Llama-3-8B 8192, Llama-2-7B 4096."""
    out = ok(call, text=f"vllm serve {model} --max-model-len {2 * context}", hardware="a100-80g")
    f = findings(out)["vllm_max_model_len"]
    assert f["figures"]["context"] == context and f["corrected"] == f"--max-model-len {context}"


@pytest.mark.parametrize(("model", "tp", "heads", "better"), [("Qwen/Qwen2.5-32B-Instruct", 3, 40, 4),
                                                              ("meta-llama/Meta-Llama-3-8B-Instruct", 6, 32, 8)])
def test_tensor_parallel_must_divide_attention_heads(call, model, tp, heads, better):
    out = ok(call, text=f"vllm serve {model} --tensor-parallel-size {tp} --max-model-len 4096", hardware="a100-80g")
    f = findings(out)["vllm_tp_heads"]
    assert f["figures"]["heads"] == heads and f["corrected"] == f"--tensor-parallel-size {better}"
    assert out["serving"]["tp"] == better


@pytest.mark.parametrize(("tp", "options"), [(6, "1 / 2 / 4 / 8"), (3, "1 / 2 / 4 / 8")])
def test_tensor_parallel_must_split_the_kv_heads_whole(call, tp, options):
    """Llama-3.2-3B (HF config.json): 24 attention heads, 8 key/value heads. TP 6 and TP 3 divide the 24 query heads
    but not the 8 KV heads, and neither is a multiple of 8, so vLLM's QKVParallelLinear cannot split them; TP 1, 2,
    4 and 8 (8 = the KV heads: one each) on an 8-card node are valid."""
    out = ok(call, text=f"vllm serve meta-llama/Llama-3.2-3B --tensor-parallel-size {tp} --max-model-len 4096",
             hardware="a100-80g")
    f = findings(out)
    assert "vllm_tp_heads" not in f
    assert f["tp_kv_heads"]["figures"]["kv_heads"] == 8 and f["tp_kv_heads"]["figures"]["tp_options"] == options
    assert f["tp_kv_heads"]["corrected"] == "--tensor-parallel-size 4" if tp == 3 else "--tensor-parallel-size 8"


def test_tensor_parallel_beyond_the_stated_cards(call):
    out = ok(call, text="vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 4 --max-model-len 4096\non 2x A100 80G")
    f = findings(out)["vllm_tp_devices"]
    # Qwen2.5-7B has 28 heads: on 2 devices TP 2 or 1 (both divide 28 and the 2 devices)
    assert f["figures"] == {"tp": 4, "pp": 1, "n": 4, "devices": 2, "die": False, "over": True, "fit_options": "2 / 1",
                            "offers": [[2, 1], [1, 1]]}  # the layouts offered, each estimated before the answer offers it


# ---------------------------------------------------------------- MindSpeed-LLM parallel sizes
# 24 cards with TP 8 leave PP 1 or 3; llama3.1-70b's 80 layers rule out PP 3 (Megatron: PP divides the layers)
@pytest.mark.parametrize(("cards", "tp", "pp", "new_pp"), [(16, 8, 4, 2), (24, 8, 4, 1)])
def test_tp_times_pp_beyond_the_cards(call, cards, tp, pp, new_pp):
    out = ok(call, text=f"MindSpeed on {cards} cards of 910B, llama3.1-70b lora:\nexport TP={tp}\nexport PP={pp}\n"
                        "export MBS=1\nexport GBS=128\nexport SEQ_LEN=4096", model="llama3.1-70b", devices=cards)
    f = findings(out)["parallel_exceeds_devices"]
    assert f["value"] == tp * pp and f["corrected"] == f"PP={new_pp}" and f["applied"]
    assert cards % (tp * new_pp) == 0 and out["training"]["pp"] == new_pp


# ---------------------------------------------------------------- values in the words around a paste
def test_method_and_length_in_the_question_fill_the_deepspeed_json(call):
    js = ('{"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 2, "bf16": {"enabled": true}, '
          '"zero_optimization": {"stage": 2}}')
    out = ok(call, text=f"will this fit? llama3-8b full finetune, cutoff 4096, on 8x A100 40GB\n{js}",
             model="llama3-8b", hardware="a100-40g", devices=8)
    read = {r["name"]: (r["value"], r["source"]) for r in out["read"]}
    assert read["method"][0] == "full" and read["seq_len"] == (4096, "question: cutoff 4096")
    assert out["training"]["seq_len"] == 4096 and out["training"]["devices"] == 8


def test_a_length_in_the_question_that_the_yaml_contradicts_is_named(call):
    out = ok(call, text="llama3-8b lora at seq_len 4096 on 8 cards\n" + lf_yaml("meta-llama/Meta-Llama-3-8B", cutoff_len=8192,
                                                                                finetuning_type="lora"))
    f = findings(out)["prose_conflict"]
    assert (f["key"], f["value"], f["valid"]) == ("seq_len", 4096, "8192")
    assert out["training"]["seq_len"] == 8192  # the block's value is used


# ---------------------------------------------------------------- OOM messages: parsed, sized, remedied
P05 = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity of 23.64 GiB "
       "of which 1.02 GiB is free. Including non-PyTorch memory, this process has 22.60 GiB memory in use.")


def test_cuda_message_with_only_memory_in_use(call):
    o = ok(call, text=P05)["oom"]
    assert (o["in_use_gib"], o["allocated_gib"]) == (22.6, None)
    assert o["allocated_share"] == round((22.60 + 1.96) / 23.64, 3)  # 1.039: over capacity
    assert o["short_by_gib"] == round(1.96 - 1.02, 3)
    assert [r["code"] for r in o["remedies"]][-1] == "expandable_segments"  # too big: the allocator setting last
    assert o["remedies"][-1]["value"] == "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"


def test_oom_with_the_model_in_the_question_is_sized(call):
    msg = ("llama3.1-8b full 8192 on 4 910B with ZeRO-2 keeps crashing: RuntimeError: NPU out of memory. Tried to allocate "
           "896.00 MiB (NPU 5; 60.97 GiB total capacity; 59.10 GiB already allocated; 0 bytes free)")
    out = ok(call, text=msg, model="llama3.1-8b", hardware="snt9b", devices=4)
    t = out["training"]
    assert out["kind"] == "training" and (t["devices"], t["seq_len"], t["method"], t["zero_stage"]) == (4, 8192, "full", 2)
    assert {a["name"]: a["why"] for a in out["assumed"]}["micro_batch"] == "recipe_default"
    codes = [r["code"] for r in out["oom"]["remedies"]]
    assert codes == ["micro_batch", "zero_next", "more_devices", "seq_len", "expandable_segments"]
    assert out["oom"]["remedies"][1]["value"] == 3  # ZeRO-2 -> ZeRO-3, one step


def test_fragmenting_puts_the_allocator_setting_first(call):
    msg = ("RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity; 40.00 GiB already "
           "allocated; 1.00 GiB free; 58.00 GiB reserved in total by PyTorch)")
    o = ok(call, text=msg)["oom"]
    assert o["cause"] == "fragmenting" and o["remedies"][0]["code"] == "expandable_segments"


def test_mindspeed_oom_gets_the_mindspeed_list(call):
    msg = ("MindSpeed qwen2.5-7b full: RuntimeError: NPU out of memory. Tried to allocate 1.00 GiB (NPU 0; 60.97 GiB total "
           "capacity; 59.00 GiB already allocated; 0 bytes free)")
    o = ok(call, text=msg)["oom"]
    assert [r["code"] for r in o["remedies"]] == ["tp_pp", "mbs_1", "seq_len", "recompute", "expandable_segments"]


@pytest.mark.parametrize(("method", "bits"), [("bnb", 8), ("hqq", 4), ("eetq", 8)])
def test_quantization_that_zero3_refuses(call, method, bits):
    """quantization.py: only 4-bit bitsandbytes with ZeRO-3; HQQ and EETQ are incompatible with ZeRO-3."""
    out = ok(call, text=lf_yaml("Qwen/Qwen2.5-7B-Instruct", finetuning_type="lora", quantization_bit=bits,
                                quantization_method=method, deepspeed="examples/deepspeed/ds_z3_config.json"),
             hardware="a100-80g")
    f = findings(out)["lf_quantization_zero3"]
    assert f["corrected"] == "quantization_method: bnb\nquantization_bit: 4" and "lf_quantization_npu" not in findings(out)
    assert f["applied"] and out["verdict"] is not None  # sized as the 4-bit it must be


def test_qlora_on_ascend_carries_the_notes_caveat(call):
    out = ok(call, text=lf_yaml("Qwen/Qwen2.5-7B-Instruct", finetuning_type="lora", quantization_bit=4), hardware="snt9b")
    assert findings(out)["lf_quantization_npu"]["figures"] == {"method": "bnb"}


# ---------------------------------------------------------------- the setup rules (setup_check/rules.py) on a paste
def test_ppo_on_a_qwen_model_names_the_vendor_limits_instead_of_failing(call):
    # ModelArts LLaMA-Factory guide (590620): DPO/RM/PPO only for the llama3 series; PPO does not support ZeRO-3
    out = ok(call, text="stage: ppo\nfinetuning_type: lora\nmodel_name_or_path: /data/Qwen2.5-7B-Instruct\n"
                        "deepspeed: examples/deepspeed/ds_z3_config.json\ncutoff_len: 2048\non 8 910B")
    f = findings(out)
    assert f["lf_stage_model"]["figures"] == {"stage": "PPO", "model": "qwen2.5-7b"}
    assert "590620" in f["lf_stage_model"]["source"]
    assert f["lf_ppo_zero3"]["applied"] and out["training"]["zero_stage"] == 2  # the estimate runs on ZeRO-2


def test_a_zero_stage_beyond_3_in_a_deepspeed_json(call):
    out = ok(call, text='{"zero_optimization": {"stage": 4}, "train_micro_batch_size_per_gpu": 1, '
                        '"gradient_accumulation_steps": 8}', model="qwen2.5-7b", hardware="a100-80g", devices=8)
    f = findings(out)["zero_stage_range"]
    assert (f["value"], f["valid"], f["applied"]) == (4, "0 | 1 | 2 | 3", True)
    assert out["training"]["zero_stage"] == 3


def test_a_yaml_zero_stage_other_than_the_recipe_rows(call):
    # seeds/000 (模型NPU卡数、梯度累积值取值表): glm4-9b full, cutoff_len 4096 -> ZeRO-3, GA 8, 1 x 8 cards
    out = ok(call, text=lf_yaml("/data/glm-4-9b-chat", finetuning_type="full", cutoff_len=4096,
                                deepspeed="examples/deepspeed/ds_z2_config.json") + "\non 8 910B")
    f = findings(out)["recipe_zero_mismatch"]
    assert (f["value"], f["valid"], f["corrected"]) == (2, "ZeRO-3", "deepspeed: examples/deepspeed/ds_z3_config.json")
    assert "seeds/000" in f["source"]


def test_mindspeed_global_batch_not_divisible_by_data_parallel(call):
    # 16 NPUs / (TP 4 x PP 2) = DP 2; MBS 2 x DP 2 = 4 does not divide GBS 30: nearest 28 / 32
    out = ok(call, text="NNODES=2\nNPUS_PER_NODE=8\nTP=4\nPP=2\nMBS=2\nGBS=30\nSEQ_LEN=4096\nMODEL_NAME=qwen2.5-14b")
    f = findings(out)["gbs_not_divisible"]
    assert (f["figures"]["dp"], f["figures"]["step"], f["figures"]["nearest"]) == (2, 4, "28 / 32")


def test_benchmark_lists_that_do_not_pair_up(call):
    out = ok(call, text="python benchmark_parallel.py --backend openai --tokenizer /data/m --prompt-tokens 512 1024 2048 "
                        "--output-tokens 128 256 --parallel-num 1 8")
    assert out["kind"] == "benchmark"
    f = findings(out)["benchmark_list_lengths"]
    assert (f["figures"]["prompts"], f["figures"]["outputs"]) == (3, 2)
