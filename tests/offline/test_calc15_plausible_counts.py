"""Arithmetic and plausibility on the user's own values (fresh 2026-12-07 calc15, round 22 c7-07 / c8-02 / c8-05): a
relative change of the device count said as "the number of NPUs" or "原来的两倍" changes the count a batch identity is
solved on (GBS = MBS x DP x GA, by hand); a count far above what the job needs fits and is still no sensible plan (the
vendor minimum-card table, seeds/004, via the hand-typed seed rows); a length or device count set to zero or below in
words ("设成 -1024", "set to -2") is bad input named with its valid range, never sized with its sign dropped."""

from __future__ import annotations

import pytest

from assistant.offline import checks
from assistant.offline.conversation import relative_devices
from tests.offline.dialog import lead_line as lead
from tests.seedfiles import min_cards_rows

from .dialog import converse


@pytest.mark.parametrize(("question", "base", "count"), [
    ("and if I halve the number of NPUs?", 16, 8),
    ("what about twice the number of cards", 8, 16),
    ("那要是卡数变成原来的两倍呢", 4, 8),
    ("卡数变成原来的一半呢", 16, 8),
    ("卡数砍到原来的一半呢", 32, 16),
])
def test_relative_device_counts_said_through_the_count_word(question, base, count):
    assert relative_devices(question, base) == count


def test_global_batch_follows_the_halved_device_count(assistant):
    *_, after = converse(assistant, "16 NPUs, micro batch 4 on each, gradient accumulation 2 -- what is my global batch size?",
                         "and if I halve the number of NPUs?")
    assert after.answer.startswith("**Global batch 64**"), after  # 4 x (16 / 2) x 2 = 64, by hand


@pytest.mark.parametrize(("text", "shown", "what"), [
    ("qwen2.5-14b lora，max_length 设成 -1024 行不行？", "-1024", "序列长度"),
    ("qwen2.5-7b lora 用 4 张卡、cutoff_len 设 0 可以吗？", "0", "序列长度"),
    ("mistral-7b lora with device count set to -2 and seq 4096", "-2", "device count"),
    ("卡数设为 0，qwen2.5-7b lora 能跑吗", "0", "卡数"),
])
def test_values_set_to_zero_or_below_in_words_are_bad_input(text, shown, what):
    lang = "en" if text.isascii() or "device count" in text else "zh"
    found = checks.problems(text.lower(), lang)
    assert found and f"“{shown}”" in found[0] and what in found[0], found


def test_a_count_far_above_the_need_is_not_sensible(assistant):
    # qwen2.5-0.5b full: the minimum-card table's LLaMA-Factory row is 1 card; 200 nodes x 8 = 1600 cards, global batch >= 1600
    one = next(c for m, s, q, fw, hw, c in min_cards_rows()
               if (m, s, q, fw, hw) == ("qwen2.5-0.5b", "full", 4096, "LLaMA-Factory", "Snt9B"))
    assert one == 1
    a = assistant.ask("qwen2.5-0.5b 全参，cutoff_len 2048，准备开 200 台 Snt9B 一起训，这样合理吗？").answer
    head = lead(a)
    assert "**不合理：1600 张卡远超这个任务所需**" in head and "至少为 1600" in head, head
    assert head.index("不合理") < head.index("满足厂商最小卡数"), head  # the judgement asked leads, the fit follows


def test_a_count_near_the_need_is_not_judged_oversized(assistant):
    # qwen2.5-72b LoRA: MindSpeed-LLM 16 cards in the minimum-card table; 16 of them is the need itself
    head = lead(assistant.ask("qwen2.5-72b lora 16 张 910b 够吗").answer)
    assert "远超" not in head and head.count("**够**") == 1, head
