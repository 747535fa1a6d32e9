"""Follow-up turns that change what is asked rather than the job: a language asked for, a term explained between
sizing turns, a node count in place of a device count, a relative change of the count the last answer gave.
Numbers are the vendor tables' (seed 000 LLaMA-Factory recipe table, seed 004 minimum-card table, 2025-06-24) or
hand arithmetic on them."""

from __future__ import annotations

from tests.offline.dialog import converse
from tests.offline.dialog import lead_line as lead


def test_a_language_asked_repeats_the_answer_in_it(assistant):
    # seed 004: glm4-9b LoRA 4096/8192, LLaMA-Factory 1 card on Snt9B
    a1, a2 = converse(assistant, "glm4-9b lora 8k with llamafactory, cards needed?", "and in Chinese?")
    assert "**1 card**" in lead(a1)
    assert lead(a2).startswith("**结论**") and "**1 张卡**" in lead(a2)


def test_a_language_asked_in_the_other_language(assistant):
    # seed 000: Llama3.1 70B LoRA 4096 = 2 nodes x 8 cards, ZeRO-3, GA 8; asked in Chinese, then "say it in English"
    a1, a2 = converse(assistant, "llama3.1-70b lora 4096 要几张 910B", "用英文再说一遍")
    assert lead(a1).startswith("**结论**")
    assert lead(a2).startswith("**Answer:**") and "2 nodes × 8 = 16 cards" in lead(a2) and "ZeRO-3" in lead(a2)


def test_a_language_asked_repeats_the_last_question_not_the_first(assistant):
    # seed 000: GLM4 9B full = 1 node x 8 cards; the second turn asks memory on "that many" (8) cards, and the third
    # asks that memory again in English, not the card count of the first turn
    _, a2, a3 = converse(assistant, "glm4-9b 全参 4096 几张卡", "这么多卡的话每张卡显存大概多少", "英文回答一下")
    assert "每卡约" in lead(a2) and "8 张卡" in lead(a2)
    assert lead(a3).startswith("**Answer:** about **") and "per card" in lead(a3) and "8 cards" in lead(a3)


def test_a_term_explained_between_sizing_turns_drags_no_model(assistant):
    # seed 000: Qwen2 7B LoRA = 1 card, ZeRO-0 (the job comes back with "of it" after the detour)
    a1, a2, a3 = converse(assistant, "minimum cards for qwen2-7b full fine-tuning at 4096?",
                          "what does ZeRO-3 actually partition across cards?", "ok and for LoRA of it?")
    assert "qwen2-7b" in a1.answer.splitlines()[0]
    assert "qwen2-7b" not in a2.answer and "ZeRO-3" in lead(a2)
    assert a3.answer.splitlines()[0].startswith("**qwen2-7b** · LoRA")
    assert "1 node × 1 = 1 card" in lead(a3) and "ZeRO-0" in lead(a3)


def test_a_chinese_definition_after_sizing_is_its_own_question(assistant):
    _, a2 = converse(assistant, "llama3-8b 全参 8k 在 910B 上要几张卡", "什么是梯度累积")
    assert "llama3-8b" not in a2.answer


def test_one_node_instead_of_two(assistant):
    # "两台，每台 8 卡" = 16 GPUs; "只用一台" = 1 x 8 = 8 GPUs, not the 16 said before
    a1, _, a3 = converse(assistant, "两台 A100 80G 服务器（每台 8 卡）全参微调最大能训多大的模型", "换成 LoRA 呢", "那只用一台呢")
    assert "16 张 GPU" in lead(a1)
    assert "8 张 GPU" in lead(a3) and "LoRA" in lead(a3)


def test_double_the_count_the_answer_gave(assistant):
    # seed 004: qwen2.5-7b full 4096, LLaMA-Factory 8 cards; doubled = 16 (after a detour that gives no count)
    a1, _, a3 = converse(assistant, "how many cards to full finetune qwen2.5-7b 4k with llama-factory?",
                         "what's gradient checkpointing and does it save memory?",
                         "ok, back to that job - what if I double the cards?")
    assert "**8 cards**" in lead(a1)
    assert a3.answer.splitlines()[0].startswith("**qwen2.5-7b** · full fine-tuning")
    assert "16 cards" in a3.answer.split("**Needed:**")[0]


def test_translate_that_asks_the_answer_again(assistant):
    # seed 000: Llama3.1 70B full 4096 = 4 nodes x 8 cards, ZeRO-3-Offload, GA 4; "translate" is no off-topic request here
    _, a2 = converse(assistant, "llama3.1-70b 全参 4096 要几张卡", "translate that to english")
    assert lead(a2).startswith("**Answer:**") and "4 nodes × 8 = 32 cards" in lead(a2) and "ZeRO-3-Offload" in lead(a2)


def test_a_what_fits_follow_up_changing_the_method(assistant):
    # "能上多大" asks the largest model again, on the same 8 cards, now for LoRA; LoRA's frozen bf16 base (2 B/param)
    # lets a larger model fit than full fine-tuning's ~16 B/param, so the answer is a different, larger model
    a1, a2 = converse(assistant, "8 张 910B 全参 4k 能训的最大模型是哪个", "换成 LoRA 能上多大")
    assert "8 张卡" in lead(a2) and "LoRA" in lead(a2) and "最大目录模型" in lead(a2)
    assert lead(a1).split("**")[-2] != lead(a2).split("**")[-2]  # the model named last in bold
