"""Stated values and proposals, the first wave's leftovers (2026-12-07, stated10b): the model states per GPU asked with
no GPU named are one figure (they hold no term of the GPU's memory), and the user's own value written with no key right
after a quoted one ("表里 GA 是 8，我设了 16") is that setting's. Figures pinned to hand computations."""

from __future__ import annotations

import re

import pytest

from tests.offline.dialog import lead_line as lead

from .dialog import converse


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


# ---------------------------------------------------------------- a stage proposed against the conversation's
def _memory(ans, stage: int) -> float:
    """The estimate's own per-device figure for ``stage`` (the tool result the answer was written from)."""
    return next(c.result["total_gib"] for c in ans.tool_calls
                if c.name == "estimate_training_memory" and c.args.get("zero_stage") == stage and not c.args.get("offload"))


def test_zero3_against_the_plans_zero2(assistant):
    """"换成 zero3 会省多少显存，代价是什么" after a ZeRO-2 plan that fits: both stages on the same 8 GPUs, the saving and
    the cost (speed) said, the verdict that ZeRO-3 is not needed; "代价是什么" asks the cost, it defines no term."""
    *_, ans = converse(assistant, "llama3-8b 全参微调 8卡 A100 80G，zero2 每卡多少显存", "换成 zero3 会省多少显存，代价是什么")
    head = lead(ans)
    z2, z3 = _memory(ans, 2), _memory(ans, 3)
    assert z3 < z2
    assert head.startswith("**结论**：**没必要**") and "ZeRO-2" in head and "ZeRO-3" in head and "速度" in head, head
    assert f"少 {z2 - z3:.1f} GiB" in head, head


def test_zero3_against_the_stage_the_answer_planned(assistant):
    """"would zero3 be better?" after the answer planned ZeRO-1 (the stage read from the last answer's lead, the user
    named none): both stages on the same 8 GPUs, each one's memory per GPU in the lead."""
    *_, ans = converse(assistant, "qwen2.5-7b full fine-tune 4096 on 8 A100 80G, which zero stage?", "would zero3 be better?")
    head = lead(ans)
    assert "ZeRO-3" in head and "your ZeRO-1" in head, head
    assert f"{_memory(ans, 1):.1f}" in head and f"{_memory(ans, 3):.1f}" in head, head


def test_lower_stage_against_the_users(assistant):
    *_, ans = converse(assistant, "qwen2.5-7b full sft on 4 H100 with zero-2, seq 2048, memory per gpu?", "what about stage 1 instead?")
    head = lead(ans)
    assert "ZeRO-1 instead of your ZeRO-2" in head, head
    assert f"{_memory(ans, 1):.1f}" in head and f"{_memory(ans, 2):.1f}" in head, head
