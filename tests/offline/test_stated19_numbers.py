"""Numbers the user states are read and used (fresh 2026-12-08 stated19): "50w" is 万 typed in Latin letters
(50 x 10^4 = 500,000 samples), a bare "micro 1" is the micro batch, and "the script's default" names where the figure
asked comes from, not a file asked for. Hand computations: 500,000 / 128 = 3,906.25 -> 3,906 whole iterations x 3 epochs
= 11,718 (the launch script's TRAIN_ITERS = SN / GBS * EPOCH in shell integers); 1 x 8 x 32 = 256 sequences x 8192
tokens = 2,097,152 tokens per step; 30,000 / 64 = 468.75 -> 468."""

from __future__ import annotations

import pytest

from .dialog import converse, lead


@pytest.mark.parametrize(("question", "samples"), [
    ("我数据 50w 条样本，global batch 128，跑 3 轮，总共多少步", 500_000),
    ("样本数 3w, gbs 64, 一个 epoch 多少步", 30_000),
    ("SN 12w, GBS 256, 2 epochs, how many steps in total?", 120_000),
])
def test_w_after_a_count_is_wan(parse, question, samples):
    assert parse(question).samples == samples


def test_w_alone_is_no_magnitude_of_other_numbers(parse):
    assert parse("qwen2.5-7b lora on 8 cards, 300w power cap per card").samples is None


def test_a_bare_micro_is_the_micro_batch(parse):
    s = parse("tokens per step: micro 1, GA 8, 32 cards, seq 8192")
    assert (s.micro_batch, s.grad_accum) == (1, 8)


def test_the_scripts_default_asked_is_the_figure_not_a_file(assistant):
    (ans,) = converse(assistant, "我数据 50w 条样本，global batch 128，跑 3 轮。不写 TRAIN_ITERS 时脚本默认给多少步")
    assert "11,718" in lead(ans), ans.answer
    (ans,) = converse(assistant, "300k samples, gbs 512, 2 epochs: how many steps does the script default to?")
    assert "1,170" in lead(ans), ans.answer  # 300,000 / 512 = 585.9 -> 585 x 2


def test_tokens_per_step_then_the_thread_values_carry(assistant):
    t1, t2, t3 = converse(assistant, "tokens per step: micro 1, GA 8, 32 cards, seq 8192",
                          "if I double the cards but keep the global batch the same, what GA?",
                          "then how many steps per epoch for 100k samples?")
    assert "2,097,152" in lead(t1), t1.answer
    assert "Gradient accumulation 4" in lead(t2), t2.answer  # 256 / (1 x 64)
    assert "390" in lead(t3), t3.answer  # 100,000 / 256 = 390.6


def test_a_figure_worked_out_from_the_figures_said_needs_no_model(assistant):
    # 300,000 / 64 = 4,687.5 -> 4,687 whole iterations x 1 epoch
    (ans,) = converse(assistant, "30万条样本, global batch 64, 训练 1 轮, 脚本默认 TRAIN_ITERS 算出来多少")
    assert "4,687" in lead(ans), ans.answer


@pytest.mark.parametrize(("question", "devices"), [
    ("64GB 卡 x16，qwen2.5-72b lora 4096 够不够？用 llamafactory", 16),
    ("32G npu ×4 够跑 qwen2.5-7b lora 4096 吗", 4),
    ("qwen2.5-7b lora on cards x 2 nodes of 8", None),  # a multiplier of nodes counts no devices here
])
def test_a_multiplier_after_the_device_word_counts_them(parse, question, devices):
    assert parse(question).devices == devices


def test_a_count_written_after_the_device_word_gets_the_verdict(assistant):
    # seeds/004 qwen2.5-72b lora 4096 Snt9B: LLaMA-Factory 32, MindSpeed-LLM 16 -> 16 cards are short for LLaMA-Factory
    (ans,) = converse(assistant, "64GB 卡 x16，qwen2.5-72b lora 4096 够不够？用 llamafactory")
    assert lead(ans).startswith("**按厂商表格不够**"), ans.answer
    assert "32 张卡" in lead(ans) and "16 张卡" in lead(ans), ans.answer


@pytest.mark.parametrize(("question", "steps"), [
    ("4.5w条样本 gbs 96 两个epoch 几步", "936"),  # 45,000 / 96 = 468.75 -> 468 x 2 ("epoch 几步" asks steps, not epochs)
    ("5万条样本，GBS 128，训三轮，总共多少步", "1,170"),  # 50,000 / 128 = 390.6 -> 390 x 3
])
def test_epochs_in_chinese_numerals_are_read(assistant, question, steps):
    (ans,) = converse(assistant, question)
    assert steps in lead(ans), ans.answer


def test_tokens_per_step_asked_with_the_step_first(assistant):
    (ans,) = converse(assistant, "per-step token count with micro 1, GA 4, 64 cards and seq 4096?")
    assert "1,048,576" in lead(ans), ans.answer  # 1 x 4 x 64 = 256 sequences x 4096


def test_one_epoch_asked_is_no_epoch_count_said(assistant):
    # 500,000 / 256 = 1,953.1 -> 1,953 per epoch; x 2 epochs (said after) = 3,906
    (ans,) = converse(assistant, "数据 50 万条，全局 batch 256，一个 epoch 几步？训 2 个 epoch 呢？")
    assert "1,953" in ans.answer and "3,906" in ans.answer, ans.answer
