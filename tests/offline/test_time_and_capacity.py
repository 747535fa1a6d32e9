"""Training-time questions (the vendor formula from the notes; a FLOPs estimate only where the
catalog has a BF16 peak) and "can I do it with the N cards I have" (yes or no first). Time values are
computed by hand here; card counts are the hand-typed seeds (tests/seedfiles.py)."""

from __future__ import annotations

import pytest

from tests.seedfiles import min_cards_rows


def calls(ans, tool):
    return [c.args for c in ans.tool_calls if c.name == tool]


def first_answer_line(ans) -> tuple[int, str]:
    lines = ans.answer.splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith(("**Answer:**", "**结论**")))
    return i, lines[i]


def seed_cards(model, strategy, seq, framework, hardware):
    return next(c for m, s, q, fw, hw, c in min_cards_rows() if (m, s, q, fw, hw) == (model, strategy, seq, framework, hardware))


# ---------------------------------------------------------------- training time
@pytest.mark.parametrize("q,args", [
    ("How long to train llama3-8b on 1B tokens with 8 cards?", {"model": "llama3-8b", "tokens": 1e9, "devices": 8, "hardware": "snt9b"}),
    ("qwen2.5-7b 训练 10亿 token 用 8张910B 要多久", {"model": "qwen2.5-7b", "tokens": 1e9, "devices": 8, "hardware": "snt9b"}),
    ("How many hours to train a 7B model on 500M tokens with 8 H100?", {"params_b": 7.0, "tokens": 5e8, "devices": 8, "hardware": "h100-80g"}),
    ("qwen2.5-7b, 50000 samples at 4096, 3 epochs, TPS 1500, 16 cards: how long?",
     {"model": "qwen2.5-7b", "samples": 50000, "seq_len": 4096, "epochs": 3.0, "devices": 16, "hardware": "snt9b", "tps": 1500.0}),
    ("llama3-8b at 1500 tokens/s per card, 2B tokens on 16 cards, training time?",
     {"model": "llama3-8b", "tokens": 2e9, "devices": 16, "hardware": "snt9b", "tps": 1500.0}),
])
def test_time_questions_call_the_time_tool_and_the_note(assistant, q, args):
    ans = assistant.ask(q)
    assert calls(ans, "estimate_training_time") == [args]
    assert calls(ans, "search_notes")
    assert not calls(ans, "min_cards") and not calls(ans, "plan_training")  # "with 8 cards" is given, not asked
    assert "training_time.md" in {r["file"] for c in ans.tool_calls if c.name == "search_notes" for r in c.result["results"]}


def test_ascend_time_question_gives_the_formula_not_a_number(assistant):
    ans = assistant.ask("How long to train llama3-8b on 1B tokens with 8 cards?")
    i, line = first_answer_line(ans)
    assert "no time estimate for Snt9B" in line and "TPS table is not published" in line
    assert "**Time = tokens / (TPS × N) / η**" in ans.answer
    assert "`Time = 1e9 / (TPS × 8 × 0.9) s`" in ans.answer  # the user's numbers put into the formula
    assert "hours" not in ans.answer.split("From the notes:")[0]  # no made-up duration
    assert "The vendor's training-time formula" in ans.answer  # the note's formula section is quoted


def test_gpu_time_question_is_a_labelled_rough_estimate(assistant):
    # 6 x 7e9 x 5e8 / (8 x 989e12 x 0.35) = 7,583.4 s = 2.1 h
    ans = assistant.ask("How many hours to train a 7B model on 500M tokens with 8 H100?")
    _, line = first_answer_line(ans)
    assert "rough estimate **≈ 2.1 hours** (7,583 s)" in line and "not a vendor figure" in line
    assert "MFU 0.35 (assumed" in ans.answer and "989 TFLOPS" in ans.answer


def test_time_with_a_measured_tps_uses_the_vendor_formula(assistant):
    # 50,000 x 4096 x 3 = 614.4e6 tokens / (1500 x 16 x 0.9) = 28,444 s = 7.9 h
    ans = assistant.ask("qwen2.5-7b, 50000 samples at 4096, 3 epochs, TPS 1500, 16 cards: how long?")
    _, line = first_answer_line(ans)
    assert "**≈ 7.9 hours** (28,444 s)" in line and "vendor formula" in line
    zh = assistant.ask("qwen2.5-7b 50000条样本 序列长度4096 3轮 TPS 1500 16张卡 训练多久")
    _, line = first_answer_line(zh)
    assert "**约 7.9 小时**（28,444 秒）" in line


def test_how_to_estimate_without_numbers_answers_with_the_formula(assistant):
    ans = assistant.ask("训练时间怎么估算")
    _, line = first_answer_line(ans)
    assert line.startswith("**结论**：ModelArts 的训练时间估算公式为 **Time = tokens / (TPS × N) / η**")
    # the Chinese twin of knowledge/notes/training_time.md is quoted (knowledge/notes/zh/training_time.md)
    assert "以下摘自笔记《训练时间与卡数的估算》，原文引用如下：" in ans.answer


def test_time_follow_up_keeps_tokens_and_model(assistant):
    from assistant.answer import ChatTurn

    q1 = "How many hours to train llama3-8b on 1B tokens with 8 H100?"
    history = [ChatTurn(role="user", content=q1), ChatTurn(role="assistant", content=assistant.ask(q1).answer)]
    ans = assistant.ask("and with 16 cards?", history)
    assert calls(ans, "estimate_training_time") == [{"model": "llama3-8b", "tokens": 1e9, "devices": 16, "hardware": "h100-80g"}]
    assert "training time formula" in calls(ans, "search_notes")[0]["query"]


def test_a_token_total_is_not_a_model_size_or_a_length(ctx):
    from assistant.offline.parse import Parser

    parse = Parser(ctx.resolver, ctx.kb.models()).parse
    s = parse("How long to train on 1B tokens with 8 cards?")
    assert (s.params_b, s.tokens, s.seq_len, s.devices) == (None, 1e9, None, 8)
    s = parse("llama3-8b 1500 tokens/s, 32k tokens, 2亿 token")
    assert (s.tps, s.seq_len, s.tokens) == (1500.0, 32768, 2e8)


# ---------------------------------------------------------------- "can I, with the devices I have?"
def test_yes_from_the_tables_comes_first(assistant):
    cards = seed_cards("qwen2.5-72b", "lora", 4096, "MindSpeed-LLM", "Snt9B")  # 16
    ans = assistant.ask("Can I LoRA qwen2.5-72b with mindspeed on 16 cards?")
    i, line = first_answer_line(ans)
    assert line == f"**Answer:** **Yes.** Your 16 cards cover the vendor minimum for MindSpeed-LLM ({cards} cards)."
    assert ans.answer.splitlines()[i + 1].startswith("**Needed:** MindSpeed-LLM: **16 cards**")
    assert {c["max_devices"] for c in calls(ans, "plan_training") if c.get("max_devices")} == {16}


def test_not_by_the_tables_but_the_estimate_fits(assistant, call):
    ms = seed_cards("qwen2.5-72b", "full", 4096, "MindSpeed-LLM", "Snt9B")  # 32
    lf = seed_cards("qwen2.5-72b", "full", 4096, "LLaMA-Factory", "Snt9B")  # 64
    ans = assistant.ask("qwen2.5-72b 全参微调 我只有16张卡")
    i, line = first_answer_line(ans)
    assert line.startswith(f"**结论**：**按厂商表格不够**：表格至少需要 {ms} 张卡（MindSpeed-LLM），你只有 16 张卡。")
    capped = call("plan_training", model="qwen2.5-72b", method="full", seq_len=4096, hardware="snt9b", max_devices=16)
    assert capped["fits"] and f"每卡约 {capped['memory']['total_gib']:.1f} GiB" in line  # the estimator's figure, beside it
    assert f"**{lf} 张卡**" in ans.answer.splitlines()[i + 1]


def test_estimate_only_yes_and_no_on_gpus(assistant, call):
    ans = assistant.ask("Can I full fine-tune llama3-70b with 16 A100 80G?")
    assert {c.get("max_devices") for c in calls(ans, "plan_training")} == {None, 16}
    assert {c["hardware"] for c in calls(ans, "plan_training")} == {"a100-80g"}
    _, line = first_answer_line(ans)
    free = call("plan_training", model="llama3-70b", method="full", seq_len=4096, hardware="a100-80g")
    assert line.startswith("**Answer:** **Yes** (estimate): it fits your 16 GPUs with LLaMA-Factory ZeRO-3 + offload")
    assert f"the fastest setting uses {free['devices']} GPUs" in line
    ans = assistant.ask("llama3-70b full on 8 A100, possible?")
    _, line = first_answer_line(ans)
    assert line.startswith("**Answer:** **No** (estimate): nothing fits your 8 GPUs")


def test_snt9b23_cards_are_two_die(assistant):
    die = seed_cards("qwen2.5-72b", "lora", 4096, "MindSpeed-LLM", "Snt9B23")  # 16 DIE
    _, line = first_answer_line(assistant.ask("qwen2.5-72b lora 910C 我有8张卡 够吗"))
    assert line.startswith(f"**结论**：**够**。你的 8 张卡（16 DIE）满足厂商最小卡数：MindSpeed-LLM（{die} DIE）")
    _, line = first_answer_line(assistant.ask("qwen2.5-72b lora 910C 我有8个DIE 够吗"))
    assert line.startswith(f"**结论**：**按厂商表格不够**：表格至少需要 {die} DIE（MindSpeed-LLM），你只有 8 DIE。")


def test_a_stated_count_is_not_a_count_question(assistant):
    ans = assistant.ask("How many cards for qwen2.5-7b lora? I have 8")
    assert calls(ans, "min_cards")  # "how many" still asks
    ans = assistant.ask("DEEPSEEK R1 全参 用LLaMA-Factory 在Snt9B上 4096 卡数是多少")
    assert not any(c.get("max_devices") for c in calls(ans, "plan_training"))  # "4096 卡数" is no device count
