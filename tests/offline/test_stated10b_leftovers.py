"""Stated values and proposals, the first wave's leftovers (2026-12-07, stated10b): the model states per GPU asked with
no GPU named are one figure (they hold no term of the GPU's memory), and the user's own value written with no key right
after a quoted one ("表里 GA 是 8，我设了 16") is that setting's. Figures pinned to hand computations."""

from __future__ import annotations

import re

import pytest


def lead(ans) -> str:
    return next(line for line in ans.answer.splitlines() if line.startswith(("**Answer:**", "**结论**")))


# ---------------------------------------------------------------- the model states need no GPU type
# ZeRO-2, bf16 mixed precision with Adam, P parameters over N GPUs: bf16 weights 2P replicated, optimizer states
# (fp32 master 4 + Adam m, v 8) 12P / N. 13B over 8: weights 13e9 x 2 / 2^30 = 24.2 GiB, optimizer 13e9 x 12 / 8 /
# 2^30 = 18.2 GiB; the gradients' partition (2+4)P/N = 9.1 GiB plus the reduce/allgather buckets.
@pytest.mark.parametrize("q,weights,optimizer,zh", [
    ("13B, DeepSpeed stage 2, 8 GPUs, model states per GPU?", 13e9 * 2, 13e9 * 12 / 8, False),
    ("zero2 8 gpus 13b model, whats the optimizer state memory per gpu roughly", 13e9 * 2, 13e9 * 12 / 8, False),
    ("13b 模型 deepspeed zero-2，8 张显卡，每卡模型状态多少", 13e9 * 2, 13e9 * 12 / 8, True),
])
def test_states_without_a_gpu_are_one_figure(assistant, q, weights, optimizer, zh):
    ans = assistant.ask(q)
    head = lead(ans)
    assert f"{weights / 2**30:.1f}" in head and f"{optimizer / 2**30:.1f}" in head, head
    assert ("模型状态" in head) if zh else ("model states" in head), head
    # one estimate, not one per assumed GPU class, and the GPU said as not needed
    assert len([c for c in ans.tool_calls if c.name == "estimate_training_memory"]) == 1, ans.tool_calls
    assert ("与 GPU 型号无关" in ans.answer) if zh else ("do not depend on the GPU type" in ans.answer), ans.answer[:400]


def test_states_with_a_fit_asked_still_compare_gpus(assistant):
    """Whether it fits does depend on the GPU: the GPUs of each memory class are still compared."""
    ans = assistant.ask("13B full fine-tune, ZeRO-2 on 8 GPUs: model states per GPU, and does it fit?")
    assert len([c for c in ans.tool_calls if c.name == "estimate_training_memory"]) > 1


# ---------------------------------------------------------------- the user's value after a quoted one
@pytest.mark.parametrize("q,ga,quoted", [
    ("qwen2.5-7b lora 4096 8 张 snt9b，表里 GA 是 8，我设了 16，有问题吗", 16, 8),
    ("glm4-9b lora 单卡 snt9b，配方里 GA 写的是 8，我这边用 2 可以吗", 2, 8),
    ("qwen2.5-7b lora on 8 snt9b cards, the recipe has GA 8, mine is 24", 24, 8),
    ("qwen2.5-7b lora 8 snt9b, the table GA 4, I set it to 32", 32, 4),
    # a number with its unit after the quoted one is a count, not the setting
    ("qwen2.5-7b lora，表里 GA 是 8，我用 4 张卡", None, 8),
])
def test_own_value_after_quoted(parse, q, ga, quoted):
    s = parse(q)
    assert s.grad_accum == ga and s.quoted.get("grad_accum") == quoted, (s.grad_accum, s.quoted)


def test_own_ga_judged_against_quoted(assistant):
    """GBS = MBS x DP x GA: 1 x 4 x 24 = 96 against 1 x 4 x 8 = 32 with the GA quoted; memory and cards unchanged."""
    head = lead(assistant.ask("qwen2.5-14b lora 8192 on 4 snt9b cards, the recipe has GA 8, mine is 24 - does memory change?"))
    assert "GA 24 is no problem for memory" in head and re.search(r"\*\*96\*\* sequences per step instead of 32", head), head
