"""Follow-ups that refer to an earlier turn's job keep its quantities (carry.toml [referents], [on_last_count],
conversation.referent / lead_count): "the first case", "第一种情况", "the original plan", "回到全参那个方案" carry that turn's
frame and its answer's headline count; "这个卡数" is the count the last answer led with; a TP said in the follow-up
replaces the one before and the accumulation is solved on the conversation's devices.

Hand computations and vendor rows:
- seeds/000 llama3 70B full: 4 nodes × 8 = 32 cards, ZeRO-3-Offload, GA 4; Time = 8e8 / (250 × 32 × 0.9) = 111,111 s ≈ 30.9 h.
- seeds/000 llama3.1 70B lora 4096: ZeRO-3, GA 8, 2 × 8; lora 8192: ZeRO-3-Offload; full 4096/8192: 4 × 8 = 32 cards.
- seeds/000 GLM4 9B full: 1 × 8 cards; Time = 5e8 / (1500 × 8 × 0.9) = 46,296 s ≈ 12.9 h.
- seeds/004 qwen2.5-7b full 8192 MindSpeed-LLM Snt9B23: 8 DIE; GA = GBS / (MBS × 8 / (TP × PP)): 64 / (1 × 4) = 16,
  128 / (2 × 8/4) = 32, 128 / (2 × 8/2) = 16.
- Host RAM of ZeRO-3 offload is shared by a node's devices: the full job's figure on 4 nodes is a quarter of one node's.
"""

from __future__ import annotations

import re

from assistant.offline.conversation import referent
from assistant.offline.frame import QuestionFrame

from .dialog import converse


def lead(answer: str) -> str:
    return next(line for line in answer.splitlines() if line.startswith(("**Answer:**", "**结论**", "**梯度累积", "**Gradient")))


def test_this_card_count_is_the_count_the_last_answer_led_with(assistant):
    *_, third = converse(assistant, "llama3-70b 做 lora，LlamaFactory，序列 8192，推荐配置？", "全参的话呢",
                         "按这个卡数跑 8 亿 token，每卡 250 tokens/s，多少小时")
    assert "**32 张卡**" in lead(_[1].answer)  # seeds/000 llama3 70B full: 4 × 8
    assert lead(third.answer).startswith("**结论**：**约 30.9 小时**（111,111 秒）")
    assert "32 张卡" in lead(third.answer)


def test_the_first_case_is_turn_ones_job_not_the_last(assistant):
    first, _, third = converse(assistant, "full finetune mistral-7b on 4x RTX 4090 24GB - which zero stage?",
                               "what if I switch to lora, same four cards?",
                               "for the first case, how much CPU memory does the offload take?")
    said = re.search(r"needs about (\d+) GiB of host RAM per node", first.answer)
    assert said  # the full fine-tune's own figure, stated in turn 1
    assert third.answer.startswith("**mistral-7b-v0.1** · full fine-tuning")
    assert f"about **{said.group(1)} GiB of host RAM per node**" in lead(third.answer)


def test_first_case_in_chinese_gives_that_rows_ga_and_stage(assistant):
    *_, third = converse(assistant, "用 LlamaFactory 给 llama3.1-70b 做 lora，长度 4096，Snt9B 卡数？",
                         "如果把截断长度提高到 8192，配置有什么变化", "第一种情况的梯度累积和 ZeRO 是多少")
    assert "序列长度 4096" in third.answer.splitlines()[0]
    assert "ZeRO-3（ZeRO-3，不开 offload），梯度累积 8" in lead(third.answer)  # seeds/000 llama3.1 70B lora 4096


def test_back_to_the_full_plan_sizes_host_ram_on_its_nodes(assistant):
    first, _, third = converse(assistant, "LlamaFactory 全参微调 llama3.1-70b 用 8k 序列，官方表里怎么配置", "lora 的话配方又是怎样",
                               "回到全参那个方案，每个节点要多少主机内存")
    assert "**32 张卡**" in lead(first.answer)
    m = re.search(r"每节点约需 \*\*([\d,]+) GiB 主机内存\*\*：ZeRO-3 \+ offload，4 个节点（32 张卡", lead(third.answer))
    assert m, lead(third.answer)
    one_node = converse(assistant, "llama3.1-70b 全参 8k LlamaFactory，ZeRO-3 offload，1 个节点 8 张 910B，每个节点要多少主机内存")[0]
    n = re.search(r"\*\*([\d,]+) GiB 主机内存\*\*", one_node.answer)
    assert n and abs(int(m.group(1).replace(",", "")) * 4 - int(n.group(1).replace(",", ""))) <= 4


def test_the_original_plan_is_timed_on_its_own_count(assistant):
    *_, third = converse(assistant, "glm4-9b full finetune 8k on Snt9B, LLaMA-Factory, cards?", "如果改为 LoRA 微调，卡数怎么变",
                         "ok go with the original plan - training 500M tokens at 1500 tok/s/card, hours?")
    assert third.answer.startswith("**glm4-9b** · full fine-tuning")
    assert lead(third.answer).startswith("**Answer:** **≈ 12.9 hours** (46,296 s) for 500,000,000 tokens on 8 cards")


def test_stated_tp_in_a_mindspeed_follow_up_divides_the_conversations_dies(assistant):
    _, second = converse(assistant, "Snt9B23 上 MindSpeed-LLM 训 qwen2.5-7b 全参 8k 要几个 DIE", "GBS 64 MBS 1 TP 2 PP 1 梯度累积是几")
    assert lead(second.answer).startswith("**梯度累积设为 16** = 全局 batch 64 / (micro batch 1 × 数据并行 4（= 卡数 / TP 2）)")
    assert "问题中未使用的数值" not in second.answer


def test_a_lowered_tp_said_in_words_is_solved_again(assistant):
    *_, third = converse(assistant, "我们用 MindSpeed-LLM 在 snt9b23 上全参数训练 qwen2.5-7b，序列 8k，最少几个 die",
                         "MBS 2 全局批 128，张量并行 4 流水线 1，梯度累积该填几", "张量并行降到 2 的话梯度累积变成多少")
    assert "梯度累积设为 32" in _[1].answer and "问题中未使用的数值" not in _[1].answer
    # the accumulation asked leads, solved on the lowered TP (the figures from the conversation: 8 DIE, MBS 2, GBS 128)
    assert lead(third.answer).startswith("**梯度累积设为 16** = 全局 batch 128 / (micro batch 2 × 数据并行 4（= 卡数 / TP 2）)")


def frame(question: str, **values) -> QuestionFrame:
    return QuestionFrame(question=question, **values)


def test_referent_picks_the_turn_named_and_none_for_the_last():
    jobs = [frame("a", method="full", seq_len=4096), frame("b", method="lora", seq_len=4096), frame("c", method="lora", seq_len=8192)]
    assert referent(frame("back to the first case: memory?"), jobs) == 0
    assert referent(frame("第二种方案要多久"), jobs) == 1
    assert referent(frame("回到全参那个方案，主机内存多少", method="full"), jobs) == 0
    assert referent(frame("back to the 4k one", seq_len=4096), jobs) == 1
    assert referent(frame("the third option please"), jobs) is None  # the last turn: carried as any follow-up
    assert referent(frame("第一个 epoch 要多久"), jobs) is None  # an epoch counted, no turn named
    assert referent(frame("the first case"), jobs[:1]) is None


def test_a_size_said_in_a_follow_up_is_the_conversations_model_at_that_size(assistant):
    for follow in ("and the 14b one?", "换成 14b 的呢", "same setup but the 14b variant of qwen2.5?"):
        _, second = converse(assistant, "I have 2x RTX 4090. LoRA qwen2.5-7b at 2048 - which zero stage?", follow)
        header = second.answer.splitlines()[0]
        assert header.startswith("**qwen2.5-14b**") and "2048" in header and "RTX 4090 24GB" in header, header


def test_a_kept_global_batch_is_the_recipe_plans_when_none_was_said(assistant):
    # seeds/000 Qwen2 72B lora 4096: 2 nodes × 8 = 16 cards, GA 8, per_device_train_batch_size 1 -> GBS 128; on 8: GA 16
    _, second = converse(assistant, "Qwen2-72B LoRA 4096 on Snt9B with LLaMA-Factory: what does the recipe say?",
                         "we only have 8 cards - what GA keeps the global batch the same?")
    assert "**Gradient accumulation 16** = global batch 128 (the plan above" in second.answer
    assert "data parallel 8)" in second.answer


def test_a_length_after_an_article_is_no_part(assistant):
    first = converse(assistant, "Llama-3 8B full-parameter SFT on Snt9B nodes with a 4096 cutoff: card count?")[0]
    assert "not a part in the hardware catalog" not in first.answer
    assert "1 node × 8 cards = **8 cards**" in first.answer  # seeds/000 llama3 8B full: 1 × 8, ZeRO-2, GA 8


def test_memory_asked_with_much_after_its_word_is_no_count(assistant):
    # "显存大概多少": 多少 asks the memory; seeds/004 qwen2.5-14b lora 4096 LLaMA-Factory Snt9B23: 4 DIE (the count before)
    *_, third = converse(assistant, "Snt9B23 上 LLaMA-Factory lora 训 qwen2.5-14b 4k 要几个 DIE", "序列加到 8k 以后呢",
                         "第一个方案的话，每个 DIE 显存大概多少")
    assert "序列长度 4096" in third.answer.splitlines()[0]
    assert re.match(r"\*\*结论\*\*：估算：每 DIE 约 \*\*[\d.]+ GiB\*\*", lead(third.answer)), lead(third.answer)


def test_the_same_setup_with_a_new_value_is_no_way_back():
    jobs = [frame("a", method="lora", seq_len=8192), frame("b", method="full", seq_len=4096)]
    assert referent(frame("the same setup but at 8k?", seq_len=8192), jobs) is None
    assert referent(frame("go back to the 8k one", seq_len=8192), jobs) == 0
