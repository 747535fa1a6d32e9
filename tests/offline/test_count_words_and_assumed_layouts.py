"""Counts written as words before a memory size and a generic part word ("two 64GB Ascend NPUs", "a pair of 32G NPUs")
are the user's device count, as "2 x 910B" is; a layout with a PP and no task named is checked with the training
(Megatron / MindSpeed-LLM) rules and said as assumed; a layer count stated is what a PP must divide. Expected numbers by
hand and from the vLLM inference table (seeds: ModelArts vLLM table vllm-newest, 64 GB cards)."""

from __future__ import annotations

import pytest

from assistant.offline.numbers import devices


@pytest.mark.parametrize("text,n", [
    ("serving qwen2.5-32b on two 64gb ascend npus, enough?", 2),
    ("four 64 gb ascend cards for vllm", 4),
    ("lora on three 64g ascend cards", 3),
    ("can a single 64gb ascend npu serve it", 1),
    ("a pair of 32g npus", 2),
    ("eight 32gb npus", 8),
    ("per a 64gb card", None),  # "per a card" counts nothing
])
def test_count_words_before_a_memory_size_and_part_word(text, n):
    assert devices(text) == n


def test_pair_of_ascend_cards_below_the_vllm_table_is_a_no(assistant):
    # vLLM table vllm-newest: qwen2.5-72b on 64 GB cards needs 4; a pair is 2
    a = assistant.ask("vllm serving qwen2.5-72b, is a pair of 64GB Ascend NPUs enough?").answer
    assert "**No, not by the ModelArts vLLM inference table**" in a and "you have 2 cards" in a


def test_count_word_meeting_the_vllm_table_is_a_yes(assistant):
    # vLLM table vllm-newest: qwen2.5-32b on 64 GB cards needs 2
    a = assistant.ask("two 64GB ascend cards to serve qwen2.5-32b with vllm, does it work?").answer
    assert "**Yes.** Your 2 cards cover the ModelArts vLLM inference table minimum for qwen2.5-32b: 2 cards" in a


def test_training_count_word_meets_the_minimum_card_table(assistant):
    # minimum-card table (2025-06-24): qwen2.5-7b LoRA 4096: LLaMA-Factory 1, MindSpeed-LLM 2; three cards cover both
    a = assistant.ask("qwen2.5-7b lora 4096 on three 64G ascend cards, enough?").answer
    assert "**Yes.** Your 3 cards cover the vendor minimum" in a


@pytest.mark.parametrize("question,start", [
    # 28 % 3 = 1; divisors of 28 up to 16: 1 2 4 7 14
    ("PP 3 for a 28 layer model, allowed?", "No: PP 3 does not divide the 28 layers of the model."),
    ("流水线并行 3，模型 32 层，行不行", "不能：PP 3 不能整除 该模型 的 32 层。"),
    # 24 / (8 x 4) is not whole; TP 8 kept: PP 3 (DP 1) and PP 1 (DP 3) divide 24
    ("TP 8 PP 4 on 24 npus, will that run?", "No: TP 8 × PP 4 = 32 does not divide your 24 cards."),
])
def test_a_layout_with_no_task_gets_the_training_rule(assistant, question, start):
    a = assistant.ask(question).answer
    assert a.startswith(start)
    assert "No framework or task named" in a or "未说明框架或任务" in a


def test_training_layouts_that_divide_the_devices_are_offered(assistant):
    a = assistant.ask("TP 8 PP 4 on 24 npus, will that run?").answer
    assert "Layouts that fit 24: TP 8 × PP 3 (DP 1), TP 8 × PP 1 (DP 3)." in a
    assert "vLLM runs one instance" not in a


def test_stated_layers_name_their_source_and_a_yes_is_given(assistant):
    # 40 / 5 = 8 layers per stage; the count is the user's, not the catalog's
    a = assistant.ask("pp=5 for a model with 40 layers, ok?").answer
    assert a.startswith("**Yes**: PP 5 divides the 40 layers (8 per stage).")
    assert "the layer count as you stated it" in a and "models.csv" not in a.split("\n\n")[0]


def test_serving_said_keeps_the_vllm_rule(assistant):
    # vLLM: TP x PP must fit in the devices (32 > 24), no divisibility of the devices
    a = assistant.ask("tp 8 pp 4 on 24 cards for vllm serving, fine?").answer
    assert a.startswith("No: TP 8 × PP 4 = 32 needs 32 devices, more than your 24 cards")
    assert "No framework or task named" not in a


def test_a_memory_size_with_no_vendor_row_gets_the_estimate_verdict_on_the_count_said(assistant):
    # no vLLM table row for llama3.1-70b on 32 GB cards; ~131 GiB of BF16 weights do not fit 2 x 32 GB
    a = assistant.ask("I have a pair of 32G NPUs, can vllm serve llama3.1-70b on them?").answer
    lead = a.split("**Answer:** ", 1)[1]
    assert lead.startswith("**No** (estimate): max-model-len 4096 does not fit your 2 cards")
    assert "**32 GB cards: no row** for llama3.1-70b" in a
