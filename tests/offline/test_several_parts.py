"""Questions asking several things (helper multi12, 2026-12-07): a second model named in a later sub-question, by its
name or by a bare size, is a part of its own (not an unused value); a share on each device asked after a total gets its
own answer beside the total; jobs listed each as a method with its length are each sized. Counts are the vendor's
minimum-card table (seeds/004, 2025-06-24, Snt9B); byte figures are hand computations written beside each test."""

from __future__ import annotations

import pytest

from assistant.offline.subquestions import apart
from tests.offline.dialog import lead_line as lead

from .dialog import last_answer


def test_offsets_in_different_sub_questions():
    q = "qwen2.5-7b 最少几张卡？qwen2.5-72b 呢"
    assert apart(q, [0, q.index("qwen2.5-72b")])
    assert not apart("how many cards for qwen2.5-7b vs qwen2.5-72b?", [17, 34])  # one question
    s = "how many cards for qwen3-14b lora 4096, and for the 4b one?"
    assert apart(s, [s.index("qwen3"), s.index("4b one")])


@pytest.mark.parametrize(("question", "first", "second"), [
    # 004 LLaMA-Factory lora 8192: llama3.1-8b 1 card, llama3.1-70b 32 cards
    ("llama3.1-8b lora 8192 用 LlamaFactory 在 Snt9B 上最少几张？llama3.1-70b 呢", "llama3.1-8b **1 张卡", "llama3.1-70b **32 张卡"),
    # 004 MindSpeed-LLM full 4096: qwen2.5-7b 4 cards; qwen2.5-72b 32 cards (the 72b one is the same family at 72B)
    ("qwen2.5-7b full 4096 with MindSpeed on 910B: how many cards, and for the 72b one?", "qwen2.5-7b **4 cards",
     "qwen2.5-72b **32 cards"),
    # 004 LLaMA-Factory lora 8192: qwen3-32b 16 cards, qwen3-8b 8 cards
    ("qwen3-32b lora 8192 LLaMA-Factory 要几张 910B？那 8b 是不是少一半", "qwen3-32b **16 张卡", "qwen3-8b **8 张卡"),
])
def test_second_model_in_a_later_part_is_answered(assistant, question, first, second):
    ans = assistant.ask(question).answer
    line = lead(ans)
    assert first in line and second in line, line
    assert line.index(first) < line.index(second)
    assert "未使用" not in ans and "Not used" not in ans, ans[-400:]


def test_follow_up_with_a_length_then_a_size_answers_both_models(assistant):
    # 004 LLaMA-Factory lora 4096: qwen2.5-7b 1 card, qwen2.5-14b 4 cards (the first part asks of the conversation's model)
    ans = last_answer(assistant, "qwen2.5-7b lora 8192 LLaMA-Factory Snt9B 几张卡", "那 4096 呢？14b 在 4096 下呢").answer
    line = lead(ans)
    assert "qwen2.5-7b **1 张卡" in line and "qwen2.5-14b **4 张卡" in line, line


@pytest.mark.parametrize(("question", "total", "share"), [
    # 14.7B x 12 B (fp32 master 4 + Adam m 4 + v 4) = 176.4 GB; ZeRO-3 over 16 cards: 176.4 / 16 = 11.0 GB
    ("qwen2.5-14b 全参 adam 优化器状态一共多少 GB？ZeRO-3 切到 16 卡每张多少", "176.4 GB", "11.0 GB"),
    # 70.554B x 2 B = 141.1 GB of bf16 weights; TP 4: 141.1 / 4 = 35.3 GB per card
    ("llama3.1-70b bf16 weights: how big in total, and per card with TP 4?", "141.1 GB", "35.3 GB"),
])
def test_total_then_its_share_on_each_device(assistant, question, total, share):
    line_total, line_share = assistant.ask(question).answer.split("\n\n")[1].splitlines()[:2]
    assert total in line_total, line_total
    assert share in line_share, line_share


def test_total_of_the_weights_alone_is_no_share_question(assistant):
    # no share asked: the weights' own estimate answers ("权重总量" is the total beside a share only)
    ans = assistant.ask("qwen2.5-72b 的 bf16 权重一共多大").answer
    assert "权重总量" not in ans


@pytest.mark.parametrize(("question", "jobs"), [
    # 004 LLaMA-Factory qwen2.5-72b: full 4096 64 cards, lora 8192 32 cards
    ("qwen2.5-72b with LLaMA-Factory on Snt9B: full 4096, lora 8192 - cards for each?",
     ["full fine-tuning · 4096 tokens **64 cards", "LoRA · 8192 tokens **32 cards"]),
    # 004 MindSpeed-LLM llama3.1-70b: full 8192 64 cards, lora 4096 16 cards, full 4096 32 cards
    ("llama3.1-70b 用 MindSpeed：全参 8k、lora 4k、全参 4k 各几张 910B",
     ["全参微调 · 序列长度 8192 **64 张卡", "LoRA 微调 · 序列长度 4096 **16 张卡", "全参微调 · 序列长度 4096 **32 张卡"]),
])
def test_jobs_listed_each_with_its_length_are_each_sized(assistant, question, jobs):
    line = lead(assistant.ask(question).answer)
    assert all(j in line for j in jobs), line
    assert [line.index(j) for j in jobs] == sorted(line.index(j) for j in jobs)


def test_jobs_listed_read_as_method_and_length_together(parse):
    s = parse("full 4096 / lora 4096 / full 8192 for llama3.1-70b with MindSpeed-LLM")
    assert s.changes == {"method": ["full", "lora", "full"], "seq_len": [4096, 4096, 8192]}
    assert [(v.method, v.seq_len) for v in s.variants()] == [("full", 4096), ("lora", 4096), ("full", 8192)]
    # one method at two lengths is the lengths compared, as before
    assert not parse("llama3.1-70b lora 4096 和 8192 各几张").changes


def test_master_weights_with_adam_are_the_optimizer_states(parse):
    from assistant.offline import quantity
    # fp32 master 4 B + Adam m 4 B + v 4 B: the optimizer states whole, not weights + optimizer summed
    s = parse("qwen2.5-7b full: how big are the fp32 master weights + adam moments in total?")
    assert [r.name for r in quantity.asked(s)] == ["optimizer_total"]
    # two different parts joined still ask their sum
    s = parse("qwen2.5-7b full: weights + gradients in GB?")
    assert [r.name for r in quantity.asked(s)] == ["memory_parts"]


def test_acknowledged_follow_up_with_a_second_size(assistant):
    # 004 LLaMA-Factory lora 8192: qwen3-8b 8 cards, qwen3-32b 16 cards ("ok." before the follow-up still continues it)
    ans = last_answer(assistant, "qwen3-8b lora 4096 with LLaMA-Factory on Snt9B - fewest cards?",
                      "ok. and at 8192? plus what does the 32b need there?").answer
    line = lead(ans)
    assert "qwen3-8b **8 cards" in line and "qwen3-32b **16 cards" in line, line


@pytest.mark.parametrize(("question", "word", "counts"), [
    # 004 LLaMA-Factory lora 8192: qwen2.5-7b 1 card, glm4-9b 1 card: the same count
    ("qwen2.5-7b lora 8192 LLaMA-Factory on 910B - cards? does the same count apply to glm4-9b?", "**Yes, it stays the same**",
     ("glm4-9b **1 card", "qwen2.5-7b")),
    # 004 LLaMA-Factory lora 4096: llama3.1-8b 1 card, llama3.1-70b 32 cards: not the same
    ("llama3.1-8b lora 4k 用 LF 要几张卡？llama3.1-70b 也一样吗", "**否，数量增加**", ("llama3.1-70b **32 张卡", "llama3.1-8b **1 张卡")),
])
def test_same_count_asked_of_the_second_model_leads_with_yes_or_no(assistant, question, word, counts):
    line = lead(assistant.ask(question).answer)
    assert line.startswith(("**Answer:** " + word, "**结论**：" + word)), line
    assert all(c in line for c in counts), line


def test_framework_changed_in_a_later_part_is_asked_too(assistant):
    # 004 qwen2.5-72b 4096 Snt9B: MindSpeed-LLM full 32, lora 16; LLaMA-Factory full 64, lora 32 (MindSpeed asked first)
    line = lead(assistant.ask("qwen2.5-72b 4k 在 910B 上用 MindSpeed，全参和 lora 分别最少多少卡？换成 LlamaFactory 呢").answer)
    said = ["全参微调 · MindSpeed-LLM **32 张卡", "LoRA 微调 · MindSpeed-LLM **16 张卡",
            "全参微调 · LLaMA-Factory **64 张卡", "LoRA 微调 · LLaMA-Factory **32 张卡"]
    assert all(x in line for x in said), line
    assert [line.index(x) for x in said] == sorted(line.index(x) for x in said)
