"""A length and LoRA targets as people write them: a bare length before a full stop, "cutoff" alone, "8k sequences"
with no other length said, and the projections named by their letters ("on q,k,v,o")."""

from __future__ import annotations

import pytest

from tests.offline.dialog import lead_line as lead


@pytest.mark.parametrize("q, length", [
    ("llama2-70b LoRA cutoff 8192. we planned plain ZeRO-3", 8192),  # a full stop after the length is no decimal point
    ("llama2-70b LoRA at 8192. we planned ZeRO-3", 8192),
    ("qwen2.5-7b lora cutoff 4096 on 8 cards", 4096),
    ("fully fine-tune Gemma 3 27B with 8k sequences?", 8192),  # a power-of-two k, no other length: the length
])
def test_the_length_is_read(parse, q, length):
    frame = parse(q)
    assert frame.seq_len == length and frame.samples is None


@pytest.mark.parametrize("q, samples, length", [
    ("qwen2.5-7b lora, 100k sequences, global batch 64, steps?", 100_000, None),  # 100k is a data set
    ("seq 4096, 8k sequences, qwen2.5-7b lora steps?", 8_000, 4096),  # a length said apart: 8k counts sequences
])
def test_a_count_of_sequences_stays_a_count(parse, q, samples, length):
    frame = parse(q)
    assert frame.samples == samples and frame.seq_len == length


def test_gemma3_27b_full_at_8k_is_the_8192_row(assistant):
    # seeds/004: gemma3-27b full, SEQ_LEN 8192, LLaMA-Factory Snt9B 48 cards; MindSpeed-LLM '-'
    assert "**48 cards** (6 nodes)" in lead(assistant.ask("minimum accelerator count to fully fine-tune Gemma 3 27B with 8k sequences?"))


def test_lora_targets_by_their_letters(assistant):
    # llama3-8b: hidden 4096, KV 8 heads x 128 = 1024, 32 layers. r 16: q 16 x (4096 + 4096) = 131,072,
    # k 16 x (4096 + 1024) = 81,920, v 81,920, o 131,072 -> 425,984 per layer x 32 = 13,631,488
    first = lead(assistant.ask("lora r=16 on q,k,v,o of llama3-8b - how many trainable params?"))
    assert "13,631,488" in first and "41,943,040" not in first
    # r 8 on q/v: q 8 x 8192 = 65,536 + v 8 x 5120 = 40,960 -> 106,496 x 32 = 3,407,872
    assert "3,407,872" in lead(assistant.ask("llama3-8b lora rank 8 on q/v, trainable params?"))


def test_a_digit_before_the_word_card_count_is_no_count(parse, assistant):
    # "卡数" is the noun "card count": a stray digit before it ("…上0 卡数是多少", a typo) states no cards
    frame = parse("qwen3-30b-a3b 全量微调 4k 用mindspeed 在Snt9B23上0 卡数是多少")
    assert not any(sp.slot == "said_cards" for sp in frame.spans) and frame.devices is None
    assert "不是有效的卡数" in assistant.ask("qwen2.5-7b lora 0 张卡够吗").answer  # "0 张卡" still is one, refused
