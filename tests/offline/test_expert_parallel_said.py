"""A MoE plan's expert parallel size is said with its layout: DeepSeek-V3's 671B parameters on TP 8 need the experts
split over the data-parallel ranks to fit a 64 GB card, so "TP 8 × PP 1" alone describes a layout that cannot hold it.
The rule (estimate/plan.py): EP is the largest power of two that divides both the routed experts and the data-parallel
size devices / (TP × PP × CP)."""

from __future__ import annotations

import re

import pytest

EXPERTS = {"deepseek-v3": 256, "qwen3-30b-a3b": 128}  # routed experts, from each model's config.json


def expected_ep(experts: int, dp: int) -> int:
    ep = 1
    while dp % (ep * 2) == 0 and experts % (ep * 2) == 0:
        ep *= 2
    return ep


@pytest.mark.parametrize("question,model,devices", [
    ("deepseek-v3 lora with MindSpeed on snt9b, how many cards and what parallelism?", "deepseek-v3", 64),
    ("qwen3-30b-a3b 全参 MindSpeed 16张卡 怎么切", "qwen3-30b-a3b", 16),
])
def test_moe_layout_names_its_expert_parallel(assistant, question, model, devices):
    answer = assistant.ask(question).answer
    m = re.search(r"TP (\d+) × PP (\d+)(?: × CP (\d+))?[,，]\s*EP (\d+)", answer)
    assert m, answer
    tp, pp, cp, ep = int(m[1]), int(m[2]), int(m[3] or 1), int(m[4])
    assert ep == expected_ep(EXPERTS[model], devices // (tp * pp * cp))


def test_dense_layout_names_no_expert_parallel(assistant):
    answer = assistant.ask("qwen2.5-72b full 4096 on snt9b with MindSpeed: which TP and PP?").answer
    assert re.search(r"TP \d+ × PP \d+", answer) and "EP " not in answer
