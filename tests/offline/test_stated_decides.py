"""A stated value or pasted detail that a fact in the catalog, the tables or the notes speaks to is compared with that
fact, and the consequence leads: a HCCL wait against CANN's default, QLoRA's bits on an NPU, a process holding memory in
a pasted npu-smi table, a device count quoted from the vendor's table. Expected values are from the sources named."""

from __future__ import annotations

import pytest


def first_paragraph(text: str) -> str:
    return text.split("\n\n")[0]


@pytest.mark.parametrize("question,words", [
    # CANN default 1836 s (ckpt_timeout.md): 600 and 900 are below it, so they are the likely trigger of a save timeout
    ("启动脚本里 export HCCL_EXEC_TIMEOUT=600，两机一保存 ckpt 就 hccl 超时，跟它有关吗", ["很可能有关", "600", "1836 s"]),
    ("HCCL_EXEC_TIMEOUT=900 on both nodes and the checkpoint save times out, is 900 the problem?", ["Yes, likely", "900", "1836 s"]),
    # at the default or above it the setting is not what shortens the wait
    ("HCCL_EXEC_TIMEOUT=1836 and saves still time out after 30 min, lower it?", ["No, do not lower it", "1836 s"]),
    ("HCCL_EXEC_TIMEOUT=7200 but checkpoint save still times out", ["Not this setting", "7200", "1836 s"]),
    # CANN default 120 s for the link set-up
    ("HCCL_CONNECT_TIMEOUT=60，32 卡任务启动建链超时", ["60", "120 s"]),
])
def test_a_hccl_wait_is_compared_with_cann_default_first(assistant, question, words):
    first = first_paragraph(assistant.ask(question).answer)
    assert all(w in first for w in words), first


def test_a_hccl_wait_asked_about_without_a_problem_follows_the_lead(assistant):
    # "what takes effect": the note's rounding rule leads (600 // 68 * 68 = 544), the default comparison follows
    text = assistant.ask("I set HCCL_EXEC_TIMEOUT=600 on an Atlas training box, what value actually takes effect?").answer
    assert "544" in first_paragraph(text) and "1836 s" in text and "1836 s" not in first_paragraph(text)


def test_qlora_bits_said_beside_qlora_reach_the_estimate_and_the_npu_caveat(assistant):
    ans = assistant.ask("910B 单卡想用 quantization_bit 8 跑 qwen2.5-7b 的 qlora，能跑吗")
    plans = [c for c in ans.tool_calls if c.name == "plan_training"]
    assert plans and all(c.args.get("quant_bits") == 8 for c in plans)
    # lora_qlora.md: bitsandbytes is built around CUDA kernels; QLoRA on Ascend is not vendor-validated
    assert "bitsandbytes" in first_paragraph(ans.answer) and "quantization_bit: 8" in first_paragraph(ans.answer)
    assert "未使用" not in ans.answer


def test_qlora_on_a_gpu_has_no_npu_caveat(assistant):
    ans = assistant.ask("llama3.1-8b qlora quantization_bit: 8 on one A100 80G, how much memory?")
    assert "bitsandbytes" not in ans.answer
    assert all(c.args.get("quant_bits") == 8 for c in ans.tool_calls if c.name == "plan_training")


@pytest.mark.parametrize("question,words", [
    # only the process rows pasted: the PID and what it holds lead, with the vendor's step 1 (oom.md: kill or wait)
    ("OOM 起不来，npu-smi info 的进程表：\n| NPU Chip | Process id | Process name | Process memory(MB) |\n"
     "| 5  0  | 13920 | python3 | 52310 |\n这张卡是不是被别人占了", ["PID 13920", "52,310 MB", "kill -9 13920"]),
    # two rows, one of them near the idle level (2105 MB): only the one holding memory is named
    ("training OOMs on card 2 at once. npu-smi:\n| 2     0 | 40411 | python | 38502 |\n| 6     0 | 40977 | python | 2105 |\n"
     "what should I do", ["PID 40411", "38,502 MB", "kill -9 40411"]),
    # said in words: a PID and the memory it holds, no total
    ("npu-smi info 显示 0 号卡 Process id 8812 python 占 60125MB，训练一起就 OOM", ["PID 8812", "60,125 MB", "kill -9 8812"]),
])
def test_a_process_holding_memory_leads(assistant, question, words):
    text = assistant.ask(question).answer
    first = first_paragraph(text)
    assert all(w in first for w in words), first
    assert "40977" not in first


@pytest.mark.parametrize("question,words", [
    # min-card table 2025-06-24: qwen2.5-72b full 4096 Snt9B MindSpeed-LLM 32 (16 is not its figure)
    ("表里说 qwen2.5-72b 全参 4096 MindSpeed 要 16 张？我们有 32 张 910B 够吗", ["表里不是 16", "MindSpeed-LLM 32 张卡", "你的 32 张卡"]),
    # qwen2.5-72b lora 4096 Snt9B LLaMA-Factory 32: the quoted 32 is the table's
    ("8 张 H20 96G 做 qwen2.5-72b lora 4096，snt9b 表里写 LF 要 32 张，我这 8 张 H20 够吗", ["你引用的 32", "LLaMA-Factory 32 张卡"]),
    # qwen2.5-32b lora 4096 Snt9B LLaMA-Factory 8, and the user's own 8 said bare
    ("the table says LF needs 8 cards for qwen2.5-32b lora 4096 on Snt9B, and I only have 8, enough?",
     ["The 8 you quoted matches", "Your 8 cards"]),
])
def test_a_count_quoted_from_the_table_is_checked_against_it(assistant, question, words):
    text = assistant.ask(question).answer
    assert all(w in text for w in words), text
    assert "未使用" not in text and "Not used" not in text


@pytest.mark.parametrize("question,shares", [
    ("vllm 跑 qwen2.5-32b，2 张 64G 910B，gpu-memory-utilization 设 0.9 还是 0.95 好", ("0.9", "0.95")),
    ("serving llama3.1-8b on one A10 24G, --gpu-memory-utilization 0.85 or 0.92, which leaves more KV room?", ("0.85", "0.92")),
])
def test_two_memory_shares_offered_are_both_sized(assistant, question, shares):
    ans = assistant.ask(question)
    utils = {c.args.get("gpu_memory_utilization") for c in ans.tool_calls if c.name == "estimate_inference"}
    assert {float(v) for v in shares} <= utils
    first = first_paragraph(ans.answer)
    assert all(f"gpu-memory-utilization {v}" in first for v in shares), first
    assert "未使用" not in ans.answer and "Not used" not in ans.answer


@pytest.mark.parametrize("question,tp,link", [
    # hardware catalog: RTX 4090 "PCIe Gen4 x16, no NVLink"; the plan on the 4 GPUs said is Megatron TP 4 (estimate)
    ("RTX 4090 24G x4 跑 qwen2.5-14b lora 8k, 没有 nvlink 行不行", "TP 4", "PCIe Gen4 x16"),
    # serving: TP 8 on 8 L40S ("PCIe Gen4 x16, no NVLink")
    ("8x L40S, PCIe only, serving qwen2.5-72b with vLLM tp 8, is the PCIe a problem?", "TP 8", "PCIe Gen4 x16, no NVLink"),
])
def test_no_nvlink_said_is_weighed_against_the_plans_tp(assistant, question, tp, link):
    text = assistant.ask(question).answer
    line = next(x for x in text.split("\n") if "NVLink" in x)
    assert tp in line and link in line
    assert text.index(line) < text.index("- ")  # right after the lead, before the supporting lines


def test_no_nvlink_with_a_zero_plan_says_only_gradients_cross_pcie(assistant):
    text = assistant.ask("4 张 RTX 3090 无 nvlink 桥，qwen2.5-7b 全参 4096，用 TP 还是 ZeRO").answer
    assert "不用 TP" in text and "PCIe Gen4 x16" in text
