"""Each ask of a question leads in the order asked, once, with one value (helper lead14): a vendor row's own field
(the length the row is written for), the default TRAIN_ITERS before the checkpoints it gives, a timeout's wait (not the
training-time formula), the table the question names, and one lead label after a setup rule that leads."""

from __future__ import annotations

from tests.offline.dialog import lead


def test_the_rows_length_asked_first_leads_its_counts(assistant):
    # seed 004 (min cards 2025-06-24): qwen2vl-72b LoRA has only a SEQ_LEN 1024 row, LLaMA-Factory 16 cards
    first = lead(assistant.ask("qwen2vl-72b lora — which seq len is the min-card table row measured at, and how many cards for llamafactory?"))
    assert "1024" in first and "16 cards" in first and first.index("1024") < first.index("16 cards"), first


def test_the_rows_length_asked_in_chinese_is_no_longest_context_search(assistant):
    # seed 004: qwen2vl-72b full, SEQ_LEN 1024 only; LLaMA-Factory 32 cards (not a what-fits search of the longest length)
    ans = assistant.ask("qwen2vl-72b 全参，最小卡数表那一行是按多长的序列给的？LlamaFactory 几张卡？")
    first = lead(ans)
    assert "1024" in first and "32 张卡" in first and first.index("1024") < first.index("32 张卡"), first
    assert "what_fits" not in [c.name for c in ans.tool_calls]


def test_the_count_asked_first_comes_before_the_rows_length(assistant):
    # seed 004: DeepSeek-V3/R1 LoRA at 4096 only: LLaMA-Factory '-' (not supported), MindSpeed-LLM 64 cards
    first = lead(assistant.ask("deepseek-v3 lora 用 llamafactory 要几张卡？那一行是按多长的序列写的？"))
    assert "不支持" in first and "4096" in first and first.index("不支持") < first.index("SEQ_LEN **4096**"), first


def test_the_default_train_iters_leads_with_one_value(assistant):
    # 20,000 // 128 = 156 (156.25) x 3 = 468 (launch script arithmetic); checkpoints 468 // 100 + 1 = 5
    ans = assistant.ask("SN=20000, GBS=128, EPOCH=3: the default TRAIN_ITERS please, then the checkpoint count at SAVE_INTERVAL 100")
    first = lead(ans)
    assert first.index("468") < first.index("Checkpoints saved: 5"), first
    assert "468.75" not in ans.answer and "469" not in ans.answer, ans.answer[:800]


def test_steps_of_an_epoch_and_the_epochs_asked_apart_are_both_answered_in_order(assistant):
    # 25,600 / 256 = 100 steps per epoch; 400 x 256 / 25,600 = 4 epochs
    first = lead(assistant.ask("25600 samples with global batch 256: steps in each epoch? and how many epochs is TRAIN_ITERS=400?"))
    assert first.index("Steps per epoch: 100") < first.index("Epochs: 4"), first


def test_the_wait_before_a_save_timeout_is_no_training_time_question(assistant):
    # ckpt_timeout note: the waiting ranks time out after 36 minutes; the training-time formula is not asked
    ans = assistant.ask("两台机器训练结束存 ckpt 时报超时，要等多久才超时？")
    assert "36" in lead(ans) and "Tok_total" not in ans.answer, ans.answer[:600]


def test_a_setup_rule_that_leads_leaves_one_lead_label(assistant):
    # 600 s < CANN's default HCCL_EXEC_TIMEOUT of 1836 s: the rule leads; the note after it carries no second label
    ans = assistant.ask("我们 export HCCL_EXEC_TIMEOUT=600 之后多机保存 ckpt 就超时，为什么？")
    assert ans.answer.lstrip().startswith("很可能有关") and "**结论**" not in ans.answer, ans.answer[:500]


def test_the_recipe_table_named_answers_before_the_min_card_table(assistant):
    # seed 000: llama3.1-70b full 4096: 4 nodes x 8 = 32 cards, ZeRO-3-Offload (the min-card table says LF 64 cards)
    first = lead(assistant.ask("按配方表，llama3.1-70b 全参 4096 用 LLaMA-Factory 要几台机器？"))
    assert first.startswith("全参：4 个节点"), first
