"""Conversations (fresh 2026-12-07 conv16): a turn asking why the last answer's count is what it is ("why 16 though?",
"为什么 … 要 8 张这么多") is answered on the same job, leading with where the count comes from (the vendor row, pinned to
seeds/004 via the hand-typed tests/golden seed) and what memory alone needs beside it; a value the turn quotes ("the 4k
row was only 8") is not a new length of the job, and the count it quotes is not the user's devices."""

from __future__ import annotations

from tests.seedfiles import min_cards_rows

from .dialog import converse, lead


def seed_cards(model, strategy, seq, framework, hardware="Snt9B"):
    return next(c for m, s, q, fw, hw, c in min_cards_rows() if (m, s, q, fw, hw) == (model, strategy, seq, framework, hardware))


def test_why_the_count_leads_with_the_vendor_row_of_the_same_job(assistant):
    first, why = converse(assistant, "How many Snt9B cards does LLaMA-Factory need for LoRA on qwen2.5-32b with an 8192 cutoff?",
                          "why 16 though? the 4k row was only 8 iirc")
    cards = seed_cards("qwen2.5-32b", "lora", 8192, "LLaMA-Factory")  # 16 in the min-card table (2025-06-24)
    assert f"**{cards} cards**" in lead(first)
    head = lead(why)
    assert head.startswith(f"**Why {cards} cards:**"), why.answer
    assert "SEQ_LEN 8192" in head and "minimum-card table" in head  # the row the count comes from, not the 4096 one
    assert "8192 tokens" in why.answer.splitlines()[0]  # the job's length is kept; "4k" was quoted, not a change


def test_why_in_chinese_does_not_read_the_quoted_count_as_the_users_devices(assistant):
    *_, why = converse(assistant, "GLM-4 9B 的 lora adapter 训练，8192 tokens，Snt9B 最低配几卡?",
                       "what about qwen3-8b, same settings?", "为什么 qwen3-8b 要 8 张这么多？")
    cards = seed_cards("qwen3-8b", "lora", 8192, "LLaMA-Factory")  # 8 in the min-card table (2025-06-24)
    head = lead(why)
    assert head.startswith(f"**为什么是 {cards} 张卡**"), why.answer
    assert "够" not in head  # no yes/no on 8 cards the user never said they have
    assert "只按显存估算需要" in head  # the estimate beside the vendor figure


def test_why_not_a_setting_is_a_proposal_not_a_reason_asked(assistant):
    from assistant.offline.conversation import CARRY

    assert CARRY.why.search("why 16?") and CARRY.why.search("为啥一下翻倍了")
    assert not CARRY.why.search("why not zero-2?") and not CARRY.why.search("为什么不用 zero2")


def test_the_last_answers_count_quoted_to_ask_it_in_nodes_leads_with_the_nodes(assistant):
    *_, nodes = converse(assistant, "qwen2.5-14b full fine-tuning 4096 LLaMA-Factory 在 Snt9B 上最少几张卡",
                         "cutoff 如果拉长一倍到 8192，卡数会跟着变吗", "那 16 张是几台机器")
    cards = seed_cards("qwen2.5-14b", "full", 8192, "LLaMA-Factory")  # 16 in the min-card table (2025-06-24)
    head = lead(nodes)
    assert head.startswith(f"**{cards} 张卡 = {cards // 8} 个节点**"), nodes.answer  # 8 cards per Snt9B node
    assert "够" not in head  # the 16 is the last answer's count, not devices the user has


def test_batch_arithmetic_follow_ups_carry_the_layout_and_the_kept_global_batch(assistant):
    # hand computation: DP = 16 / (TP 2 x PP 2) = 4, GBS = 1 x 4 x 16 = 64; TP 4: DP = 16 / (4 x 2) = 2, GBS = 32;
    # keeping 64 with DP 2 and micro batch 1: GA = 64 / (1 x 2) = 32
    first, changed, kept = converse(assistant, "16 张卡，TP 2 PP 2，micro batch 1，梯度累积 16，全局 batch 是多少",
                                    "假如张量并行从 2 提到 4，其他都不动，这个数变成多少", "想保持 64 的话梯度累积要设多少")
    assert first.answer.startswith("**全局 batch 为 64**"), first.answer
    assert changed.answer.startswith("**全局 batch 为 32**"), changed.answer
    assert kept.answer.startswith("**梯度累积设为 32**"), kept.answer


def test_other_values_unchanged_is_no_global_batch_kept(assistant):
    # "其他不变，全局 batch 呢" asks the global batch of the changed layout: 1 x 16 / (4 x 2) x 16 = 32, not a "你写的 64"
    _, changed = converse(assistant, "16 张卡，TP 2 PP 2，micro batch 1，梯度累积 16，全局 batch 是多少",
                          "张量并行改成 4，其他不变，全局 batch 呢")
    assert changed.answer.startswith("**全局 batch 为 32**"), changed.answer


def test_why_after_a_recipe_with_offload_says_offload_holds_it_on_fewer_cards(assistant):
    # seeds/000 (recipe table): Qwen2 72B full 4096 = 4 nodes x 8 cards, ZeRO-3-Offload, GA 4
    *_, why = converse(assistant, "Qwen2 72B 想全量训练，长度 4096，LlamaFactory 官方那张取值表里这一档是几机几卡、开没开 offload？",
                       "为什么要开 offload")
    head = lead(why)
    assert head.startswith("**为什么是 32 张卡**"), why.answer
    assert "CPU offload" in head and "主机内存" in head


def test_a_proposed_count_of_those_cards_in_a_serving_turn_leads_with_the_no(assistant):
    # vLLM newest table (0.95): Qwen2.5-72B 4 cards; 2 cards hold no bf16 weights of 72.7B x 2 B = ~145 GB
    *_, two = converse(assistant, "serving Qwen2.5-72B with vLLM on 64GB Snt9B cards, how many cards and what max-model-len does the table list?",
                       "now LoRA fine-tune that same model at 4096, how many cards?", "back to serving - would 2 of those cards do?")
    assert lead(two).startswith("**No"), two.answer


def test_a_method_ruled_out_before_the_other_is_not_the_jobs(assistant):
    # seeds/004: qwen3-32b lora 4096 MindSpeed-LLM 8 cards: the user's 8 910B cover it
    *_, lora = converse(assistant, "我有 8 张 A3 的卡，qwen3-32b 全参 4096 用 MindSpeed-LLM 够不够", "不对我说错了，是 910B 不是 A3",
                        "好吧，全参不行的话只训 LoRA 适配器，这 8 张 910B 撑得住吗")
    cards = seed_cards("qwen3-32b", "lora", 4096, "MindSpeed-LLM")
    assert "LoRA" in lora.answer.splitlines()[0], lora.answer
    assert lora.answer.count(f"**{cards} 张卡**") >= 1 and lead(lora).startswith("**够**"), lora.answer
