"""Conversations (fresh 2026-12-08 conv18): a follow-up's changed value is read in its role, with the conversation's own
values. The noun beside a number decides its slot ("64 requests" is the concurrency, never 64 cards); relative changes
("翻倍", "double", "halve", "再加 20 个用户") apply to the carried value; "that stage" is the stage the last answer
stated; a follow-up changing one input keeps the thread's asked quantity; a change asked with no trainer named is said
per column of the minimum-card table. Values by hand: KV per token = 2 (K, V) x layers x KV heads x head dim x 2 B
(llama3.1-8b: 2 x 32 x 8 x 128 x 2 = 128 KiB; qwen2.5-7b: 2 x 28 x 4 x 128 x 2 = 56 KiB); steps = ceil(tokens /
(GBS x seq)); counts pinned to the hand-typed seeds (tests/golden)."""

from __future__ import annotations

import re

from tests.seedfiles import min_cards_rows, recipe_rows

from .dialog import converse, lead


def seed_cards(model, strategy, seq, framework, hardware="Snt9B"):
    return next(c for m, s, q, fw, hw, c in min_cards_rows() if (m, s, q, fw, hw) == (model, strategy, seq, framework, hardware))


def test_a_count_of_requests_is_the_concurrency_and_the_same_count_stays_it(assistant):
    _, more, other = converse(assistant, "llama3.1-8b served with vllm, 16 concurrent requests at 8k context, bf16 - memory?",
                              "what if it's 64 requests", "and switch to qwen2.5-7b with the same 64")
    # 128 KiB x 8192 = 1 GiB per sequence: 64 GiB of KV cache + 15 GiB of weights, more than one card holds at 0.9
    assert "64 concurrent" in more.answer and "your 64 cards" not in more.answer, more.answer
    assert "**2 cards**" in lead(more), more.answer
    # qwen2.5-7b: 56 KiB x 8192 x 64 = 28 GiB of KV cache, 14.2 GiB of weights: one card
    assert "64 concurrent" in other.answer and "28.0 GiB KV cache" in lead(other) and "**1 card**" in lead(other), other.answer


def test_users_and_sequences_in_a_serving_thread_are_served_at_once(assistant):
    first, users = converse(assistant, "memory for llama3.1-8b on vLLM with 16 sequences of 8192 tokens, bf16?", "ok, 24 users then?")
    assert "16.0 GiB KV cache for 16 sequences of 8192" in lead(first), first.answer  # 16 x 1 GiB
    assert "24.0 GiB KV cache for 24 sequences of 8192" in lead(users), users.answer  # 24 x 1 GiB, not 24 cards


def test_relative_changes_apply_to_the_carried_concurrency(assistant):
    _, doubled = converse(assistant, "qwen2.5-7b 用 vllm 部署，并发 20，上下文 16k，几张卡", "并发翻倍的话呢")
    assert "并发 40" in doubled.answer.split("\n\n", 1)[0], doubled.answer
    _, added = converse(assistant, "qwen2.5-14b vllm 部署，10 个用户同时访问，16k 上下文，要几张卡", "再加 20 个用户")
    assert "并发 30" in added.answer.split("\n\n", 1)[0], added.answer  # 10 + 20, not 20 alone nor 20 cards


def test_a_doubled_global_batch_and_a_time_per_step_use_the_threads_values(assistant):
    _, doubled, timed = converse(assistant, "一共 20 亿 token，全局 batch 256，序列 4096，需要多少步",
                                 "GBS 翻倍的话", "每个 step 6 秒，一共跑多久")
    assert "954" in lead(doubled), doubled.answer  # 2e9 / (512 x 4096) = 953.7 -> 954
    assert "5,724" in lead(timed) and "1.6" in lead(timed), timed.answer  # 954 x 6 s = 5,724 s = 1.6 h
    _, halved = converse(assistant, "5B tokens, GBS 2048, seq 4096: how many optimizer steps?", "what if I halve the global batch")
    assert "1,193" in lead(halved), halved.answer  # 5e9 / (1024 x 4096) = 1192.1 -> 1,193


def test_a_token_total_written_after_its_word_is_the_tokens(parse):
    s = parse("总 token 50 亿，GBS 1024，序列 8192，训练多少步")
    assert s.tokens == 5e9 and s.params_b is None and s.model is None
    s = parse("how many optimizer steps for a billion tokens at gbs 128, seq 2048")
    assert s.tokens == 1e9


def test_a_follow_up_changing_one_input_keeps_the_threads_quantity(assistant):
    _, ga = converse(assistant, "MBS 1，GA 16，32 张卡，seq 2048，每个 step 多少 token", "GA 改成 32 的话")
    assert "2,097,152" in lead(ga), ga.answer  # 1 x 32 x 32 = 1024 sequences x 2048
    _, cards, steps = converse(assistant, "MBS 2, GA 8, 16 卡, seq 8192, 每个 step 多少 tokens", "卡数 double 到 32 cards 的话",
                               "按这个配置 10B tokens 要多少 steps")
    assert "4,194,304" in lead(cards), cards.answer  # 2 x 32 x 8 = 512 x 8192
    assert "2,385" in lead(steps), steps.answer  # 1e10 / 4,194,304 = 2384.2 -> 2,385


def test_that_stage_is_the_stage_the_last_answer_stated(assistant):
    stage = next(st for m, _t, s, c, *_rest in recipe_rows() for st in [_rest[1]] if m == "GLM4 9B" and s == "full" and c == 4096)
    recipe, states = converse(assistant, "glm4-9b 全参 8 卡，华为 LLaMA-Factory 配方用哪个 zero stage", "用那个 stage，每卡模型状态多少 GB")
    assert f"ZeRO-{stage}" in lead(recipe), recipe.answer
    assert re.search(rf"ZeRO-{stage}, 8 张卡", lead(states)), states.answer  # the recipe's stage, not the estimator's own


def test_which_column_changes_is_said_per_trainer(assistant):
    ms = [seed_cards("qwen2.5-14b", "lora", q, "MindSpeed-LLM") for q in (4096, 8192)]
    lf = [seed_cards("qwen2.5-14b", "lora", q, "LLaMA-Factory") for q in (4096, 8192)]
    assert ms[0] != ms[1] and lf[0] == lf[1]  # the seed: MindSpeed-LLM moves, LLaMA-Factory does not
    _, moved = converse(assistant, "min Snt9B cards for qwen2.5-14b lora at 4096?", "and at 8192, which framework's count moves?")
    text = lead(moved)
    assert text.startswith("**Yes**"), moved.answer
    assert f"MindSpeed-LLM goes up, {ms[0]} cards → **{ms[1]} cards**" in text and f"LLaMA-Factory stays at **{lf[0]} cards**" in text, moved.answer
    _, doubled = converse(assistant, "min card count for qwen2.5-14b lora, seq 4k", "double the cutoff - anything change?")
    assert f"MindSpeed-LLM goes up, {ms[0]} cards → **{ms[1]} cards**" in lead(doubled), doubled.answer
