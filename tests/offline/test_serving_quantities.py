"""A serving question asks one quantity — whether a stated gpu-memory-utilization still runs, the longest max-model-len
for N sequences at once, how many instances a node holds, what a KV cache precision or a TP choice changes — and the
answer leads with it (fresh round 19 c7-07 #2/#3, c7-02 #2; helper serve11). Figures are pinned to the vendor's vLLM
tables (research/modelarts.md §1: newest table at gpu-memory-utilization 0.95) and to hand computations of the KV bytes
(2 x layers x kv_heads x head_dim x bytes)."""

from __future__ import annotations

import re

import pytest

from assistant.offline.model import OfflinePlanner
from tests.offline.dialog import lead_line as lead

from .dialog import converse


@pytest.fixture(scope="module")
def planner(ctx):
    return OfflinePlanner(ctx=ctx)


def frame(planner, text: str):
    return planner.parser.parse(text)


@pytest.mark.parametrize(("text", "util"), [
    ("llama3.1-8b vllm，gpu-memory-utilization 只能给到 0.75，还跑得起来吗", 0.75),
    ("qwen2.5-7b on vllm, the util can only be 0.8 on our cluster", 0.8),
    ("显存利用率最多开到 85%，qwen2.5-7b 推理够吗", 0.85),
    ("vllm serve qwen2.5-14b, I can only spare 60% of the card for vllm", 0.6),
    # (round 20 c2-04: the utilisation alone, with no serving word, makes the question a serving one)
    ("qwen2.5-32b on two 64G cards (TP2); util has to stay at 0.85 because another process shares them", 0.85),
])
def test_the_util_is_read_across_a_few_words(planner, text, util):
    assert frame(planner, text).gpu_util == util


def test_a_count_after_the_util_word_is_no_util(planner):
    s = frame(planner, "vllm gpu-memory-utilization for 1 card of qwen2.5-7b?")
    assert s.gpu_util is None


def test_a_stated_util_with_no_devices_is_judged_on_the_fewest(assistant):
    # 32 GB 910B: 32 x 0.953 = 30.5 GiB reported; x 0.7 = 21.3 GiB; llama3.1-8b weights 8.03e9 x 2 B = 15.0 GiB: it fits
    # one card with a few GiB of KV room. The vendor has no 32 GB row for it (its 64 GB row ran at 0.95).
    first, second = converse(assistant, "vllm 部署 llama3.1-8b，32G 的 910B，几张", "显存利用率最多给 0.7，能起来吗")
    top = lead(second.answer)
    assert top.startswith("**结论**：**可以**（估算）：gpu-memory-utilization 0.7 时放得下——**1 张卡**"), top
    est = next(c for c in second.tool_calls if c.name == "estimate_inference")
    assert est.args["gpu_memory_utilization"] == 0.7 and est.result["fits"] and est.result["devices"] == 1


def test_the_longest_length_for_n_sequences_at_once(assistant):
    ans = assistant.ask("serving mistral-7b with vllm on one L40S at util 0.85: largest max-model-len if 8 chats run at once?")
    fits = next(c for c in ans.tool_calls if c.name == "what_fits")
    assert fits.args["concurrency"] == 8
    value, room = fits.result["value"], fits.result["plan"]["kv_tokens_fit"]
    assert value * 8 <= room and fits.result["plan"]["concurrency"] == 8  # each of the 8 that long, all held at once
    top = lead(ans.answer)
    assert f"**{value:,} tokens**" in top and "8 sequences of that length at once" in top


def test_the_longest_length_follow_up_on_a_memory_size_without_a_row(assistant):
    # "max-model-len 设多少" after a 32 GB question at util 0.75: the search on the estimate's count (one card) leads; the
    # 64 GB row (1 card / 32K at 0.95) is only a comparison
    answers = converse(assistant, "vllm 部署 qwen2.5-7b，32G 的卡，几张", "util 只能给到 0.75 的话呢", "那 max-model-len 设多少合适")
    top = lead(answers[-1].answer)
    fits = next(c for c in answers[-1].tool_calls if c.name == "what_fits")
    assert fits.args["devices"] == 1 and fits.args["gpu_memory_utilization"] == 0.75
    assert f"**{fits.result['value']:,} token**" in top and "1 张卡（Snt9B 32G）" in top, top


def test_instances_on_a_snt9b23_node(assistant):
    # newest vLLM table: qwen2.5-7b 1 card (64 GB) -> 1 DIE on Snt9B23; a node is 16 DIE (catalog): 16 instances
    ans = assistant.ask("一台 A3 (Snt9B23) 上 qwen2.5-7b 用 vllm 能部署多少个实例？")
    top = lead(ans.answer)
    assert "**16 个实例**" in top and "16 DIE ÷ 每个实例 1 DIE" in top, top


@pytest.mark.parametrize(("question", "n", "per"), [
    ("how many replicas of qwen2.5-7b fit on a single 8-card 910B node with vllm, each replica on 1 card?", 8, "1 card"),
    ("8 张 910B 上部署 qwen2.5-32b，每个实例 2 张卡，能放几个实例", 4, "2 张卡"),
])
def test_instances_of_a_stated_size(assistant, question, n, per):
    top = lead(assistant.ask(question).answer)
    assert re.search(rf"\*\*{n} (?:instances|个实例)\*\*", top) and per in top, top


def test_a_kv_precision_change_answers_the_factor_first(assistant):
    # qwen3-32b: 2 x 64 layers x 8 kv_heads x 128 x 2 B = 256 KiB per token in BF16, 128 KiB in INT8: the pool of the same
    # layout holds twice the tokens
    answers = converse(assistant, "qwen3-32b 用 vllm 部署在 910B 64G 上最少几张", "kv cache 改成 int8，能放的 token 会多一倍吗")
    top = lead(answers[-1].answer)
    assert top.startswith("**结论**：**是，约 2.00 倍**") and "128 KiB" in top and "256 KiB" in top, top


def test_two_kv_precisions_compared_in_one_question(assistant):
    top = lead(assistant.ask("llama3.1-70b on 8x H100, bf16 vs fp8 kv cache: how many more tokens fit?").answer)
    # llama3.1-70b: 2 x 80 x 8 x 128 x 2 B = 320 KiB per token in BF16, 160 KiB in FP8
    assert "with a FP8 KV cache against" in top and "160 vs 320 KiB per token" in top, top


def test_a_tp_choice_is_sized_both_ways(assistant):
    ans = assistant.ask("qwen2.5-72b 用 vllm 部署，8 张 A100 80G，tp 用 4 还是 8 好")
    devices = sorted(c.args.get("max_devices") for c in ans.tool_calls if c.name == "estimate_inference")
    assert devices == [4, 8]
    top = lead(ans.answer)
    assert "**TP 4**" in top and "**TP 8**" in top and "你的设备可放 2 个实例" in top, top
