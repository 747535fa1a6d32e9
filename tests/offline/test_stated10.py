"""Stated values read as meant (stated10 helper, 2026-12-07; round 18 misses c7-11, c3-12, c2-03, c2-06, c7-06): the
informal names of vLLM's memory share, a KV cache precision kept off the weights, a ZeRO stage with no method as full
training, the trainer a question's argument names belong to, a value quoted from a table set against the user's own,
and a software version named as unused.

Expected figures come from the vendor's LLaMA-Factory recipe table (knowledge/tables/recipes_llamafactory.csv, seed 000)
read in this file, and hand computations written beside each assertion."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from tests.offline.dialog import last_answer as converse

ROOT = Path(__file__).resolve().parents[2]


def recipe_ga(model: str, strategy: str, seq_len: int) -> int:
    with open(ROOT / "knowledge/tables/recipes_llamafactory.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    row = next(r for r in rows if (r["model_id"], r["strategy"], r["cutoff_len"]) == (model, strategy, str(seq_len)))
    return int(row["grad_accum"])


# -- vLLM's memory share, however it is named ---------------------------------------------------------
@pytest.mark.parametrize(("question", "util"), [
    ("qwen2.5-14b on one A100 80G with vllm, memory fraction 0.7, max-model-len 16k", 0.7),
    ("部署 qwen2.5-7b 到 RTX 4090，显存占用比例设成 0.85，32k 上下文能跑几路？", 0.85),
    ("llama3-8b vllm on L40S, gpu mem util knob at 0.75", 0.75),
    ("mem-frac 0.6 on one H100 80GB for qwen2.5-32b in vllm", 0.6),
    ("serve qwen2.5-7b on a 4090, raise utilization to 0.95", 0.95),
    ("vllm qwen2.5-7b, lower the util knob to 0.8 on a 4090", 0.8),
])
def test_informal_names_of_the_memory_share_are_read(parse, question, util):
    assert parse(question).gpu_util == util


def test_a_gpu_busy_percentage_is_no_memory_share(parse):
    assert parse("qwen2.5-7b lora on 8 A100s, GPU util 100% but slow, why?").gpu_util is None


def test_the_informal_share_is_used_and_not_named_unused(assistant):
    ans = assistant.ask("qwen2.5-14b on one A100 80G with vllm, memory fraction 0.7, max-model-len 16k - how many concurrent 16k requests?")
    assert all(c.args.get("gpu_memory_utilization") == 0.7 for c in ans.tool_calls if c.name == "estimate_inference")
    assert "gpu-memory-utilization 0.7" in ans.answer and "Not used" not in ans.answer


def test_a_share_set_in_a_turn_carries_into_the_next(assistant):
    ans = converse(assistant, "Qwen3-8B 推理，4090 一张，gpu_memory_utilization=0.7，最大上下文多少", "换成两张呢")
    assert {c.args.get("gpu_memory_utilization") for c in ans.tool_calls if "gpu_memory_utilization" in c.args} == {0.7}
    assert "gpu-memory-utilization 0.7" in ans.answer and "0.9" not in ans.answer


def test_the_share_said_when_nothing_fits_is_the_users(assistant):
    ans = assistant.ask("Qwen3-8B 推理，4090 一张，gpu_memory_utilization=0.7，最大上下文多少")
    # 24 GB x 0.7 = 16.8 GB against 16.4 GB of bf16 weights (8.2B x 2 B): no room; the share said is 0.7, not 0.9
    assert "gpu-memory-utilization 0.7" in ans.answer and "gpu-memory-utilization 0.9" not in ans.answer


# -- the KV cache's precision is the KV cache's -----------------------------------------------------
def test_a_bare_kv_follow_up_sets_the_kv_cache_not_the_weights(parse):
    f = parse("kv 改成 fp8 呢")
    assert f.kv_cache_dtype == "fp8" and f.weight_bits is None


def test_a_16_bit_kv_cache_beside_int4_weights_is_no_weight_precision(parse):
    f = parse("serve llama-3.1-70b with AWQ int4 weights and fp16 kv cache on 2x L40S")
    assert f.weight_bits == 4 and f.weight_bits_each == [] and f.kv_cache_dtype == "auto"


def test_an_fp8_kv_cache_leaves_the_weights_label_at_bf16(assistant):
    ans = assistant.ask("llama3-8b vllm on L40S, gpu mem util knob at 0.75 and kv cache in fp8, how many tokens fit in the kv cache?")
    assert "own precision (FP8)" not in ans.answer and "own precision (BF16)" in ans.answer
    # 2 (K,V) x 32 layers x 8 KV heads x 128 x 1 B = 64 KiB per token in FP8
    assert "64 KiB per token" in ans.answer and "KV cache FP8" in ans.answer


def test_the_kv_room_asked_on_the_users_cards_is_on_all_of_them(assistant):
    ans = assistant.ask("kv cache dtype 设成 fp8，权重保持 bf16，qwen2.5-32b 在两张 A100 80G 上 kv 能放多少 token？")
    lead = next(line for line in ans.answer.splitlines() if line.startswith("**结论**"))
    # 2 x 64 layers x 8 KV heads x 128 x 1 B = 128 KiB per token, on both GPUs (TP 2)
    assert "每 token 128 KiB" in lead and "**2 张 GPU**（TP 2）" in lead


# -- a ZeRO stage named with no method is full training ---------------------------------------------
@pytest.mark.parametrize("question", [
    "13B, DeepSpeed stage 2, 8 GPUs, model states per GPU?",
    "deepspeed zero stage 1, 7B, 4 gpus, bf16 mixed adam: per-gpu memory for params+grads+optimizer?",
    "Qwen2.5-7B 8卡 A100 80G，deepspeed 阶段2，每卡模型状态占多少显存？",
])
def test_a_zero_stage_with_no_method_is_full_training(parse, question):
    f = parse(question)
    assert f.method == "full" and f.origins.get("method") == "default" and f.zero_stage in (1, 2)


def test_a_lora_setting_keeps_lora_beside_a_zero_stage(parse):
    assert parse("qwen2.5-7b zero3, lora rank 16, 8 cards").method == "lora"


def test_zero_then_after_a_lora_plan_keeps_lora(assistant):
    ans = converse(assistant, "qwen2.5-7b lora on 8 A100 80GB, 4k, how much memory per GPU?", "and with zero 3?")
    assert {c.args.get("method") for c in ans.tool_calls if c.args.get("method")} == {"lora"}


def test_model_states_of_a_named_stage_are_full_training_states(assistant):
    ans = assistant.ask("13B, DeepSpeed stage 2, 8 A100 80GB, model states per GPU?")
    lead = next(line for line in ans.answer.splitlines() if "model states about" in line)
    # full training ZeRO-2 over 8: bf16 weights 2P whole, optimizer states 12P / 8 = 19.5 GB (18.2 GiB) > 0
    optimizer = float(re.search(r"optimizer states ([\d.]+) GiB", lead).group(1))
    assert optimizer > 15 and "full fine-tuning" in ans.answer


# -- the trainer the keys are written in -------------------------------------------------------------
def test_llamafactory_keys_ask_about_llamafactory(parse):
    f = parse("qwen3-8b lora，seq 16384，8张 snt9b，per_device_train_batch_size=2 GA=4，显存够不够")
    assert f.framework == "LLaMA-Factory" and f.micro_batch == 2 and f.grad_accum == 4


def test_mindspeed_flags_ask_about_mindspeed(parse):
    assert parse("qwen2.5-32b --micro-batch-size 1 --global-batch-size 64 on 16 snt9b").framework == "MindSpeed-LLM"


def test_the_global_batch_of_llamafactory_keys_is_over_every_card(assistant):
    ans = assistant.ask("qwen3-8b lora，seq 16384，8张 snt9b，per_device_train_batch_size=2 GA=4，显存够不够")
    # LLaMA-Factory is data parallel: 2 x 8 cards x 4 = 64 sequences per step, never the TP 8 plan's 2 x 1 x 4 = 8
    assert "**全局 batch 为 64**" in ans.answer and "全局 batch 为 8**" not in ans.answer
    assert "MindSpeed-LLM TP" not in ans.answer


def test_a_mindspeed_split_the_batch_line_uses_is_not_named_unused(assistant):
    ans = assistant.ask("MindSpeed 里 micro-batch-size 1、global-batch-size 64，TP 4 PP 2，16 卡训 qwen2.5-32b，梯度累积是多少？")
    # DP = 16 / (4 x 2) = 2; GA = 64 / (1 x 2) = 32
    assert "**梯度累积设为 32**" in ans.answer and "“TP 4”" not in ans.answer and "“PP 2”" not in ans.answer


# -- a value quoted from a table is the reference ----------------------------------------------------
def test_the_tables_value_quoted_is_not_the_users(parse):
    f = parse("qwen2.5-7b lora 4k on 1 snt9b card: the table says GA 8 but I run GA 32 with batch 1, is that bad?")
    assert f.grad_accum == 32 and f.quoted == {"grad_accum": 8}


def test_the_users_ga_is_judged_against_the_recipe_row_first(assistant):
    ga = recipe_ga("qwen1.5-7b", "lora", 4096)  # seed 000: 8
    ans = assistant.ask("qwen1.5-7b lora 4k on 1 snt9b, I use GA 16 - table says what, is 16 a problem?")
    lead = next(line for line in ans.answer.splitlines() if line.startswith("**Answer:**"))
    # one card, micro batch 1: 1 x 1 x 16 = 16 sequences per step against the row's 1 x 1 x 8
    assert "GA 16 is no problem" in lead and f"GA {ga})" in lead and "**16** sequences per step instead of 8" in lead


def test_the_ga_judgement_in_chinese_uses_the_quoted_value(assistant):
    ans = assistant.ask("qwen2.5-7b lora 4k，1 张 snt9b，表里 GA 是 8，我用梯度累积 32 有问题吗")
    lead = next(line for line in ans.answer.splitlines() if line.startswith("**结论**"))
    assert "梯度累积 32 对显存和卡数没有影响" in lead and "你引用的梯度累积 8" in lead


# -- a software version ------------------------------------------------------------------------------
def test_a_software_version_is_named_unused_with_why(assistant):
    ans = assistant.ask("我用 vllm 0.6.3 在一张 910B 上部署 qwen2.5-7b，gpu-memory-utilization 0.8，max-model-len 最大能开多少")
    assert "“vllm 0.6.3”（估算不依赖软件版本" in ans.answer


def test_a_vllm_table_version_is_no_unused_value(assistant):
    ans = assistant.ask("qwen2.5-7b in the vllm v0.7.2 table, how many cards?")
    assert "Not used" not in ans.answer


# -- an 8-bit KV cache in the other runtime's dtype --------------------------------------------------
def test_an_int8_kv_cache_on_a_gpu_is_sized_as_its_fp8_and_said(assistant):
    ans = converse(assistant, "llama-3.1-8b on one L4 24GB with vllm, 8k context, how many concurrent users?",
                   "swap the kv cache to int8 and raise utilization to 0.95")
    calls = [c for c in ans.tool_calls if c.name == "estimate_inference"]
    assert calls and all(c.args.get("kv_cache_dtype") == "fp8" and c.args.get("gpu_memory_utilization") == 0.95 for c in calls)
    # 2 x 32 layers x 8 KV heads x 128 x 1 B = 64 KiB per token
    assert "read the int8 KV cache as fp8" in ans.answer and "64 KiB per token" in ans.answer


def test_an_fp8_kv_cache_on_ascend_is_sized_as_its_int8_and_said(assistant):
    ans = assistant.ask("qwen2.5-7b 在一张 910B 上用 vllm，fp8 kv cache，32k 能并发几路")
    assert all(c.args.get("kv_cache_dtype") == "int8" for c in ans.tool_calls if c.name == "estimate_inference")
    # 2 x 28 layers x 4 KV heads x 128 x 1 B = 28 KiB per token
    assert "fp8 KV cache 按 int8 计" in ans.answer and "每 token 28 KiB" in ans.answer


def test_a_share_lowered_by_its_informal_name_carries_to_a_named_tp(assistant):
    ans = converse(assistant, "qwen2.5-7b 推理 on 一张 RTX 4090 24G, vllm, max-model-len 设多少合适",
                   "if I lower the util knob to 0.8 does 32k still fit?", "用两张 4090 tp=2 呢")
    assert {c.args.get("gpu_memory_utilization") for c in ans.tool_calls if c.name == "estimate_inference"} == {0.8}
    # 2 x (24 GB x 0.8 - 7.6 GB of weights per GPU - ~1 GB) ~ 21 GB / 56 KiB per token ~ 370k tokens; the yes leads
    lead = next(line for line in ans.answer.splitlines() if line.startswith("**结论**"))
    assert "**可以**" in lead and "TP 2" in lead
