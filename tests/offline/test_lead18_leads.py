"""The lead is the right sentence and agrees with the rest (helper lead18): a global batch worked on the LLaMA-Factory
recipe row shown (its gradient_accumulation_steps on its cards, seeds/000), the default of the setting the question
means among several a note states (ckpt_timeout: HCCL_EXEC_TIMEOUT 1836 s, HCCL_CONNECT_TIMEOUT 120 s, exit barrier
300 s), and a run time from samples x average tokens per sample by the vendor formula."""

from __future__ import annotations

from tests.offline.dialog import lead


def test_global_batch_on_the_recipe_rows_cards_uses_the_rows_accumulation(assistant):
    # seeds/000: Qwen2 7B LoRA 4096, 1 node x 1 card, GA 8 -> per-device batch 2: 2 x 1 x 8 = 16 (not GA 4 -> 8)
    first = lead(assistant.ask("qwen2-7b lora per recipe on one card, per_device_train_batch_size 2: global batch?"))
    assert "Global batch 16" in first and "gradient accumulation 8" in first, first


def test_global_batch_with_no_cards_said_is_worked_on_the_rows_cards(assistant):
    # seeds/000: GLM4 9B full 8192, 1 node x 8 cards, GA 8 -> per-device batch 2: 2 x 8 x 8 = 128
    first = lead(assistant.ask("glm4 9b 全参 8k 按表格来 per device bs=2 ，gbs 多少？"))
    assert "全局 batch 为 128" in first and "数据并行 8" in first and "梯度累积 8" in first, first


def test_the_default_of_the_notes_own_setting_leads_when_none_is_named(assistant):
    # ckpt_timeout note: the checkpoint-save wait is HCCL_EXEC_TIMEOUT, default 1836 s (not the exit barrier's 300 s)
    first = lead(assistant.ask("ckpt 保存超时默认是多少秒？是哪个环境变量控制的？"))
    assert "1836" in first and "300 s" not in first and first.index("1836") < first.index("HCCL_EXEC_TIMEOUT"), first


def test_a_default_named_in_words_keeps_its_own_line(assistant):
    # the connect timeout's own words (建链, 初始化): HCCL_CONNECT_TIMEOUT, CANN default 120 s
    first = lead(assistant.ask("建链超时默认几秒，大集群初始化老超时要调哪个变量"))
    assert "120 s" in first and "1836" not in first, first


def test_the_named_variables_default_asked_first_leads(assistant):
    # "what's the HCCL_EXEC_TIMEOUT default …, and how does it relate …": 1836 s first, not HCCL_CONNECT_TIMEOUT's 120 s
    first = lead(assistant.ask("what's the HCCL_EXEC_TIMEOUT default on A2 boxes, and how does that compare with the 36 minute checkpoint timeout?"))
    assert "1836" in first and ("120 s" not in first or first.index("1836") < first.index("120 s")), first


def test_run_time_from_samples_and_average_tokens_per_sample(assistant):
    # vendor formula: 200,000 x 1,500 x 2 = 6e8 tokens; 6e8 / (2,500 x 8 x 0.9) = 33,333 s = 9.3 h; no global batch needed
    first = lead(assistant.ask("200k samples averaging 1500 tokens, 2 epochs, 8 Snt9B cards at 2500 tokens/s per card — how long will training take?"))
    assert "33,333" in first and "global batch" not in first, first


def test_an_oom_whose_estimate_is_over_the_usable_memory_says_so(assistant):
    # the fit sentence compares the estimate with the usable memory it states: above it, the estimate agrees with the OOM
    import re

    ans = assistant.ask("RuntimeError: NPU out of memory. Tried to allocate 2.20 GiB (NPU 1; 60.97 GiB total capacity; "
                        "58.30 GiB already allocated; 0.8 GiB free)\nllama3-8b 全参 zero2 四张卡训练时报的，怎么处理")
    m = re.search(r"每卡约 ([\d.]+) GiB.*?可用 ([\d.]+) GiB", ans.answer)
    assert m, ans.answer[:1500]
    total, usable = float(m.group(1)), float(m.group(2))
    line = ans.answer[ans.answer.rfind("\n", 0, m.start()) + 1:ans.answer.find("\n", m.end())]
    if total > usable:
        assert "认为放得下" not in line and "超出" in line, line
    else:
        assert "认为放得下" in line, line
