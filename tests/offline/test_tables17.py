"""Questions over the vendor tables and the hardware catalog (helper tables17): a ModelArts flavor shortened by its
leading fields, the per-job DIE counts asked yes or no, two counts asked 'the same?' answered yes or no first, a '-'
said under one framework, the table words misspelled. Expected values are worked here from the sources:
- catalog hardware.csv: Snt9B flavors modelarts.bm.arm.24u.192g.npu.1d910b (1 NPU) and ...48u.384g.npu.2d910b
  (2 NPU), 64 GB per card, so 2 x 64 = 128 GB; Snt9B23 job_devices 1;2;4;6;8;10;12;14;16 (MindCluster 7.3 guide).
- min_cards.csv (seeds/004, 2025-06-24), Snt9B: qwen2.5-7b LoRA 4096 MindSpeed-LLM 2, LLaMA-Factory 1; glm4-9b
  full 4096 both 8; models with a MindSpeed-LLM row and LLaMA-Factory '-': qwen2-1.5b, mixtral-8x7b, DeepSeek-V3/R1;
  MindSpeed-LLM LoRA 4096 = 16: llama3.1-70b, qwen2-72b, qwen2.5-32b, qwen2.5-72b, qwen3-30b-a3b."""

from __future__ import annotations

import re

import pytest

from assistant.offline.table_query import spelled
from assistant.resolve import flavor_names


def test_flavor_tails_name_the_part():
    names = flavor_names("modelarts.bm.arm.24u.192g.npu.1d910b (1 NPU)")
    assert {"bm.arm.24u.192g.npu.1d910b", "24u.192g.npu.1d910b", "npu.1d910b"} <= set(names)
    # one field alone is no flavor ("192g", "npu", "910b"), except the last when it says the devices and the chip
    # ("1d910b": 1 × 910b, how people shorten it; tests/offline/test_part_identity.py)
    assert "910b" not in names and "192g" not in names and "npu" not in names and "1d910b" in names


def test_table_words_misspelled_are_read():
    assert spelled("wich modles in the min-card tabel") == "which models in the min-card table"
    # other words stay: a word the vocabulary word starts with, or an unrelated one
    assert spelled("which mode, the label, much cache") == "which mode, the label, much cache"


@pytest.mark.parametrize("question, part, total", [
    ("我们的节点是 bm.arm.24u.192g.npu.1d910b，装的哪种昇腾、几张", "Snt9B", None),
    ("Got 48u.384g.npu.2d910b for my notebook - how much device memory do I get altogether?", "Snt9B", "128 GB"),
])
def test_shortened_flavor_identified(assistant, question, part, total):
    ans = assistant.ask(question).answer
    assert part in ans.split("\n")[0]
    if total:
        assert "2 × 64 GB = **128 GB**" in ans


@pytest.mark.parametrize("question, lead", [
    ("Can a single training job on Snt9B23 ask for 6 DIE?", "**Yes**, 6 is one of them"),
    ("一个训练任务在 A3 上可以申请 3 个 die 吗", "**不可以**，3 不在其中"),
    ("Snt9B23 上一个任务能要 12 个 die 吗", "**可以**，12 在其中"),
])
def test_job_die_count_asked_yes_or_no(assistant, question, lead):
    first = assistant.ask(question).answer.split("\n")[0]
    assert lead in first and "1, 2, 4, 6, 8, 10, 12, 14, 16" in first


@pytest.mark.parametrize("question, verdict, counts", [
    ("qwen2.5-7b LoRA 4096，MindSpeed 和 LlamaFactory 的最小卡数一致吗？", "**不一样**", ("2 张卡", "1 张卡")),
    ("glm4-9b full 4096: do MindSpeed and LlamaFactory need the same number of cards?", "**Yes**, the same count",
     ("8 cards", "8 cards")),
    ("llama3.2-1b 全参 4096 和 8192 是不是相同的卡数", "**一样**", ("1 张卡", "1 张卡")),
])
def test_same_count_asked_leads_with_yes_or_no(assistant, question, verdict, counts):
    first = assistant.ask(question).answer.split("\n")[0]
    assert verdict in first and all(c in first for c in counts)
    assert first.index(verdict) < first.index(counts[0])


def test_dash_under_one_framework(assistant):
    ans = assistant.ask("min card table: which models get a MindSpeed-LLM number but only a dash under LlamaFactory?").answer
    first = ans.split("\n\n")[0]
    assert "**3 models**" in first and all(m in first for m in ("qwen2-1.5b", "mixtral-8x7b", "deepseek-v3"))
    assert "gemma3" not in first


def test_dash_quoted_in_chinese(assistant):
    first = assistant.ask("最小卡数表里 LlamaFactory 列为“-”、MindSpeed 有卡数的是哪些模型").answer.split("\n\n")[0]
    assert "**3 个模型**" in first and all(m in first for m in ("qwen2-1.5b", "mixtral-8x7b", "deepseek-v3"))


def test_misspelled_table_filter(assistant):
    ans = assistant.ask("wich modles need 16 cards for lora in the min-card tabel with mindspeed at 4096?").answer
    rows = set(re.findall(r"^\| ([\w.-]+) \| LoRA \| 4096 \| MindSpeed-LLM \| Snt9B \| 16 cards", ans, re.M))
    assert rows == {"llama3.1-70b", "qwen2-72b", "qwen2.5-32b", "qwen2.5-72b", "qwen3-30b-a3b"}


def test_same_settings_is_a_premise_not_a_yes_no(assistant):
    # "at the same settings" states the job of the second model; the two counts (4 and 64, min_cards) lead, no yes/no
    first = assistant.ask("MindSpeed-LLM full 8192 on Snt9B: min cards for llama3.1-8b, and llama3.1-70b with the same settings?"
                          ).answer.split("\n")[0]
    assert "4 cards" in first and "64 cards" in first and "**No**" not in first and "**Yes**" not in first


def test_flavor_field_is_no_unknown_part(assistant):
    ans = assistant.ask("what is the 24u.192g in modelarts.bm.arm.24u.192g.npu.1d910b?").answer
    assert "not in the hardware catalog" not in ans and "Snt9B" in ans.split("\n")[0]


def test_one_card_total_is_no_sum_of_devices(assistant):
    # one Snt9B23 card: 2 DIE x 64 GB = 128 GB per card; no "1 devices in all" sum
    ans = assistant.ask("how much HBM does a single 910C card hold in total?").answer
    assert "128 GB per card" in ans and "devices in all" not in ans
