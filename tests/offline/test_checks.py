"""The setup rules (setup_check/rules.py) applied to the values a question states in words, not only to a paste:
the finding leads the answer, names the user's numbers and the rule's source; a batch value below 1 is bad input
(only the problem is answered, never "Yes, your cards cover"). Expected numbers are worked by hand from the rule."""

from __future__ import annotations

import pytest


def test_global_batch_not_divisible_by_dp_is_worked_out_in_chinese(assistant):
    # 16 cards / (TP 8 x PP 1) = DP 2; MBS 1 x 2 = 2 does not divide GBS 25: nearest 24 / 26 (Megatron's check)
    a = assistant.ask(
        "MindSpeed 训练 llama3-8b，16 张卡，TP=8 PP=1 MBS=1 GBS=25，启动时报错，为什么？"
    ).answer
    assert a.startswith("不能：全局 batch 25 不是 MBS 1 × DP 2 = 2 的整数倍（DP = 16 / (TP 8 × PP 1) = 2）")
    assert "GBS 24 或 26" in a and "Megatron" in a


def test_tp_not_dividing_the_cards_is_said_first(assistant):
    # TP 3 divides neither llama3.1-8b's 32 heads (models.csv) nor 8 cards: the first rule broken (heads) is said
    a = assistant.ask(
        "my mindspeed job on 8 cards with TP 3 and PP 1 for llama3.1-8b fails at init, what's wrong?"
    ).answer
    assert a.startswith("No: TP 3 does not divide the 32 attention heads of llama3.1-8b")
    b = assistant.ask("my mindspeed job on 12 cards with TP 8 and PP 1 for llama3.1-8b fails at init, what's wrong?").answer
    assert b.startswith("No: TP 8 × PP 1 = 8 does not divide your 12 cards")  # 12 / 8 is not whole


def test_zero_stages_that_do_not_exist_are_named_before_the_recommendation(assistant):
    a = assistant.ask("Should I pick ZeRO-4 or ZeRO-6 to LoRA fine-tune qwen2.5-7b on 8 910B cards?").answer
    assert a.startswith("“ZeRO-4” is not a ZeRO stage: DeepSpeed ZeRO has stages 0, 1, 2 and 3")


def test_batch_values_below_one_are_rejected_not_sized(assistant):
    a = assistant.ask(
        "qwen2.5-14b lora 8卡，per_device_train_batch_size 设为 -1，梯度累积 0，能跑吗？"
    ).answer
    assert "“per_device_train_batch_size 设为 -1”不是有效的 micro batch" in a and "“梯度累积 0”不是有效的梯度累积步数" in a
    assert "够" not in a


def test_reward_model_training_on_a_qwen_model_names_the_llama3_only_limit(assistant):
    a = assistant.ask(
        "在 ModelArts 上用 LLaMA-Factory 给 qwen2.5-7b 做 reward model（stage rm）训练，8 张 Snt9B 够吗？"
    ).answer
    assert a.startswith("**ModelArts LLaMA-Factory 的 RM 训练只支持 llama3 系列**") and "590620" in a


def test_a_llama3_model_meets_the_same_limit(assistant):
    a = assistant.ask(
        "在 ModelArts 上用 LLaMA-Factory 给 llama3.1-8b 做 reward model（stage rm）训练，8 张 Snt9B 够吗？"
    ).answer
    assert "只支持 llama3 系列" not in a


def test_serving_tensor_parallel_beyond_the_cards_is_said_first(assistant):
    # vLLM runs one instance on TP x PP devices: TP 8 cannot start on 4 cards
    a = assistant.ask("vLLM 部署 qwen2.5-14b，tensor parallel 8，只有 4 张 910B，行不行").answer
    assert a.startswith("不能：TP 8 × PP 1 = 8 需要 8 个设备，超过你的 4 张卡")


def test_serving_tensor_parallel_below_the_cards_is_no_finding(assistant):
    # fewer devices per instance than cards is a valid layout (the rest can serve replicas)
    a = assistant.ask("serve qwen2.5-14b with vllm, tensor parallel 2 on 8 910B cards").answer
    assert "does not match" not in a


def test_a_global_batch_said_in_words_is_split_and_twelve_cards_meet_the_vendor_rule(assistant):
    # fresh round 7 s27: 12 / (TP 4 x PP 1) = DP 3; GBS 96 / (MBS 1 x 3) = GA 32. 590604: above 8 cards, a multiple of 8
    a = assistant.ask("12 x 910B, qwen3-32b lora 8192 with mindspeed, TP 4 PP 1 MBS 1 GBS 96 — ok?").answer
    assert a.startswith("**12 cards is not a whole number of 8-card nodes**") and "590604" in a.split("\n")[0]
    assert "data parallel 3, gradient accumulation 32 (GBS 96 / (MBS 1 × DP 3))" in a


@pytest.mark.parametrize("q,text", [
    ("llama3.1-8b lora on 2.5 Snt9B cards with seq len 4096?", "“2.5” is not a valid device count"),
    ("qwen2.5-7b lora 4096，1.5 张 910B 卡够吗", "“1.5”不是有效的卡数"),
])
def test_a_fraction_of_a_device_with_the_part_named_between_is_refused(assistant, q, text):
    # the part's name between the number and "cards" does not hide the count (round 20 c8-01 read "on 2.5" as unused)
    assert assistant.ask(q).answer.startswith(text)


def test_a_gpu_memory_share_before_the_devices_is_no_device_count(assistant):
    ans = assistant.ask("qwen2.5-7b serve util 0.9 on 2 H100 GPUs?")
    assert "not a valid device count" not in ans.answer and "**Yes**" in ans.answer


def test_a_length_written_before_its_word_is_read_and_held_against_the_context():
    # "1M 上下文": 1M = 2^20 = 1,048,576 tokens (the same scale as "context 1M"); qwen3-8b's own context is 40,960
    from assistant.offline.vocab import scaled_length

    assert scaled_length("qwen3-8b 推理想开 1m 上下文，单卡 910b 行不行")[0] == 1_048_576
    assert scaled_length("a 2m context on 8 h100s")[0] == 2 * 1_048_576
