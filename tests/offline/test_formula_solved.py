"""A formula of the run solved for the figure the question leaves out (estimate/derived.py FORMULAS), the asked figure
leading with the formula as its source; and the minimum-card table filtered on the framework the filter names. Figures
are hand computations and the vendor's minimum-card table (seeds/004)."""

from __future__ import annotations

import pytest

from assistant.estimate import derived
from tests.offline.dialog import lead_line as lead


@pytest.mark.parametrize("name,inputs,value", [
    # the vendor's Time = tokens / (TPS × N) / η solved for TPS: 2e9 / (48 h × 3600 × 16 × 0.9) = 803.8
    ("throughput_needed", dict(tokens=2e9, hours=48, devices=16, speedup=0.9), 2e9 / (48 * 3600 * 16 * 0.9)),
    # one device: no speed-up factor
    ("throughput_needed", dict(tokens=1e8, hours=10, devices=1, speedup=0.9), 1e8 / 36000),
    # GBS × seq / (step time × devices): 128 × 8192 / (4.5 × 16)
    ("throughput_per_device", dict(global_batch=128, seq_len=8192, iteration_seconds=4.5, devices=16), 128 * 8192 / 72),
    # GBS = MBS × DP × GA solved for MBS: 256 / (8 × 16)
    ("micro_batch_for", dict(global_batch=256, grad_accum=16, devices=8), 2),
    ("micro_batch_for", dict(global_batch=512, grad_accum=4, devices=32, tp=2, pp=2), 16),
    # TRAIN_ITERS = SN / GBS × EPOCH solved for EPOCH: 2000 × 128 / 64000
    ("epochs_for_iters", dict(iterations=2000, global_batch=128, samples=64000), 4),
    # steps × GBS × sequence length
    ("tokens_for_iters", dict(iterations=1500, global_batch=256, seq_len=4096), 1_572_864_000),
])
def test_formula_solved_for_the_figure_left_out(name, inputs, value):
    d = derived.derive(name, None, derived.Inputs(**inputs))
    assert d.value == pytest.approx(value)


def test_formula_names_the_figure_missing():
    with pytest.raises(derived.NotDerivable) as e:
        derived.derive("throughput_needed", None, derived.Inputs(tokens=1e9, devices=32))
    assert e.value.field == "seconds"


@pytest.mark.parametrize("q,expect", [
    ("我们有 16 张 910B，要在 48 小时内训完 20 亿 token，单卡吞吐至少得多少？", "804 tokens/s"),
    ("If one step is 4.5 s with GBS 128 and seq 8192 on 16 cards, what's the throughput per card in tokens/s?", "14,564 tokens/s"),
    ("GBS=256, GA=16, 8 cards pure data parallel: what micro batch does that imply?", "Micro batch: 2"),
    ("TRAIN_ITERS=2000, GBS=128, 样本 64000, 这相当于几个 epoch?", "epoch 数：4"),
    ("1500 steps at global batch 256 and seq len 4096 — how many tokens is that in total?", "1,572,864,000"),
    ("each iteration takes 3.2 s and I have 5000 iters total, how many hours is the run?", "4.4 h"),
])
def test_asked_figure_leads(assistant, q, expect):
    ans = assistant.ask(q)
    assert expect in lead(ans), ans.answer
    assert "如需具体数字" not in ans.answer  # no request for the figures the question gave


def test_kv_pool_in_gib_leads_on_the_devices_said(assistant):
    # 329,755 tokens × 256 KiB (2 × 64 layers × 8 KV heads × 128 × 2 B) = 80.5 GiB on the two GPUs
    head = lead(assistant.ask("qwen2.5-32b on 2x H100 80GB, tp2, gpu util 0.92: total KV cache size in GB?"))
    assert "KV cache pool **" in head and "GiB**" in head
    total = float(head.split("KV cache pool **")[1].split(" GiB")[0])
    tokens = int(head.split("room for **")[1].split(" tokens")[0].replace(",", ""))
    assert total == pytest.approx(tokens * 256 * 1024 / 2**30, abs=0.05)


# seeds/004: LLaMA-Factory is '-' on every row of qwen2-1.5b, mixtral-8x7b and DeepSeek-V3/R1; MindSpeed-LLM is '-' on
# every row of the qwen2-vl, qwen2.5-vl, internvl2.5 models and gemma3-27b
LF_DASH = {"qwen2-1.5b", "mixtral-8x7b", "deepseek-v3"}
MS_DASH = {"qwen2-vl-2b", "qwen2-vl-7b", "qwen2-vl-72b", "qwen2.5-vl-7b", "qwen2.5-vl-72b", "internvl2.5-8b", "internvl2.5-38b",
           "internvl2.5-78b", "gemma3-27b"}


@pytest.mark.parametrize("q,models", [
    ("哪些模型只能用 MindSpeed-LLM 训？就是最小卡数表里 LF 不支持的那些", LF_DASH),
    ("Which models in the vendor min-card table can ONLY be trained with LlamaFactory, i.e. MindSpeed-LLM shows a dash?", MS_DASH),
    ("min card table: which models are MindSpeed-only?", LF_DASH),
])
def test_table_filtered_on_the_framework_named(assistant, q, models):
    head = lead(assistant.ask(q))
    assert f"{len(models)}" in head
    body = assistant.ask(q).answer
    for m in models:
        assert m in body
    assert "llama3.1-8b" not in body


def test_follow_up_changing_a_figure_solves_the_same_formula(assistant):
    # 2e9 / (72 h × 3600 × 16 × 0.9) = 536 tokens/s per card (the quantity of the turn before, on the new window)
    first = "我们有 16 张 910B，要在 48 小时内训完 20 亿 token，单卡吞吐至少得多少？"
    ans = assistant.ask("what if the window is 72 hours instead?", history=[
        {"role": "user", "content": first}, {"role": "assistant", "content": assistant.ask(first).answer}])
    assert "536 tokens/s" in lead(ans), ans.answer


def test_follow_up_keeps_the_devices_of_a_batch_sum(assistant):
    # GBS 2048 / (MBS 1 × DP 64 / TP 8) = GA 256
    first = "global batch 1024，mbs=1，64 卡 tp8 pp1，梯度累积设多少"
    ans = assistant.ask("那要是 GBS 改成 2048 呢，GA 变多少", history=[
        {"role": "user", "content": first}, {"role": "assistant", "content": assistant.ask(first).answer}])
    assert "256" in ans.answer.splitlines()[0], ans.answer


@pytest.mark.parametrize("q,expect", [
    # seeds/004: qwen3_moe-235B_A22B has 4096 rows only
    ("最小卡数表里 qwen3-235b 有 8192 的行吗？", "**没有**"),
    # seeds/004: internvl2.5-38b MindSpeed-LLM '-' on every row
    ("does the min card table list internvl2.5-38b for mindspeed-llm?", "not supported"),
    # seeds/004: mixtral-8x7b has full rows only (MindSpeed-LLM 16, LLaMA-Factory '-')
    ("is there a lora row for mixtral-8x7b in the min-card table?", "for full only"),
    ("mixtral 8x7b 做 lora 在最小卡数表里有没有？", "只有全参的行"),
])
def test_whether_the_table_lists_the_job_leads(assistant, q, expect):
    assert expect in lead(assistant.ask(q))


def test_kv_pool_on_all_the_devices_said(assistant):
    # "how many GB total go to KV" on 8 A100s: the pool of TP 8 (vLLM given all 8), not of the fewest layout (TP 2)
    head = lead(assistant.ask("KV budget for llama3.1-70b on 8x A100 80G, util 0.9 — how many GB total go to KV?"))
    assert "**8 GPUs** (TP 8)" in head and "KV cache pool **" in head, head


@pytest.mark.parametrize("q,expect", [
    # 600e6 / (14 h × 3600 × 8 × 0.9) = 1,653
    ("If we want to finish 600M tokens by tomorrow morning (14 hours) with 8 NPUs, per-NPU tokens/s must be at least?", "1,653 tokens/s per card"),
    # 512 × 4096 / (6 s × 64) = 5,461
    ("每步 6 秒，GBS 512，序列 4096，64 卡，每卡 tokens/s 是多少", "5,461 tokens/s"),
    # 800 × 64 × 8192
    ("800 optimizer steps, GBS 64, 8k seq — total tokens?", "419,430,400"),
])
def test_more_formulas_lead(assistant, q, expect):
    assert expect in lead(assistant.ask(q))


def test_a_catalog_stem_narrows_the_table_rows(assistant):
    # seeds/004: mixtral-8x7b has full rows only: no LoRA row matches "mixtral" (not the 122 LoRA rows of every model)
    head = lead(assistant.ask("is there a lora row for mixtral in the min-card table?"))
    assert head.startswith("**Answer:** No") and "mixtral" in head


def test_tokens_per_step_leads_with_the_global_batch_inside(assistant):
    # 8192 × 2 × 8 × 16 = 2,097,152 (round 18 c3-02): the asked figure first, its arithmetic holding the global batch 256
    ans = assistant.ask("qwen3-8b，seq 8192，micro batch 2，梯度累积 8，16 卡纯数据并行，一步多少 token？")
    assert "2,097,152" in lead(ans) and "全局 batch 为 256" not in ans.answer
