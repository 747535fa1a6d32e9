"""What a part is, asked by its chip or in another part's devices (assistant/offline/part_facts.py). Expected values from
the hardware catalog (knowledge/catalog/hardware.csv) and its sources: Snt9b2 = Ascend 910B3 and the flavors
modelarts.bm.arm.24u.192g.npu.1d910b (1 NPU) / ….48u.384g.npu.2d910b (2 NPU) (third-party sample,
research/modelarts.md §10); a Snt9B23 node is 8 cards = 16 DIE and the vendor counts 1 DIE as 1 Snt9B card (seeds/004,
ModelArts 模型最小卡数配置 2025-06-24), so one Snt9B23 node = 16 Snt9B cards = 2 Snt9B nodes of 8."""

from __future__ import annotations

import pytest

from assistant.resolve import flavor_names


def test_a_flavor_is_named_by_its_last_field_too():
    # "2d910b": 2 × 910b, how people shorten modelarts.bm.arm.48u.384g.npu.2d910b
    assert "2d910b" in flavor_names("modelarts.bm.arm.48u.384g.npu.2d910b (2 NPU)")
    assert flavor_names("a.b.c") == ["a.b.c"]


@pytest.mark.parametrize("question, wanted", [
    ("which chip is inside the 48u.384g 2d910b flavour, and how many npus", ("2 NPU", "910B3")),
    ("what exact processor is a Snt9B built on", ("910B3",)),
    ("Snt9B 里面是什么芯片", ("910B3",)),
])
def test_the_chip_of_a_part_is_named(assistant, question, wanted):
    ans = assistant.ask(question)
    assert all(w in ans.answer for w in wanted), ans.answer
    assert "Which model" not in ans.answer and "哪个模型" not in ans.answer


@pytest.mark.parametrize("question, lead", [
    ("a whole snt9b23 server is worth how many snt9b cards?", "16 cards of Snt9B"),
    ("one entire Snt9B23 box equals how many Snt9B cards", "16 cards of Snt9B"),
    ("一整台 Snt9B23 相当于几张 Snt9B 卡", "Snt9B 16 张卡"),
    ("Snt9B23 的一台机器，折算成 Snt9B 的卡是几张", "Snt9B 16 张卡"),
])
def test_a_node_of_one_part_in_another_parts_cards(assistant, question, lead):
    head = assistant.ask(question).answer.split("\n")[0]
    assert lead in head, head


@pytest.mark.parametrize("question, lead, wanted", [
    # Snt9B (910B3) 64 GB per device; 910B4 taken as the 32 GB Snt9B part, inferred (hardware.csv snt9b-32g)
    ("is a 910b3 the same memory as the 910b4", "**No**", ("910b3 (Snt9B)", "64 GB", "32 GB", "not verified")),
    ("910b4 和 910b3 是一样的卡吗", "**不是**", ("910b4（Snt9B 32G）", "64 GB", "32 GB", "未经核实")),
])
def test_two_parts_not_the_same_lead_with_no_as_spelled_and_hedged(assistant, question, lead, wanted):
    ans = assistant.ask(question).answer
    assert lead in ans.split("\n")[0] and all(w in ans for w in wanted), ans


@pytest.mark.parametrize("question, wanted", [
    ("does a snt9b card have two dies?", ("**No**", "1 DIE per card")),
    ("A3 上一张物理卡对应几个 HCCL rank", ("2 个 HCCL rank",)),
    ("sum of hbm across every die of one snt9b23 server?", ("1024 GB",)),
    ("does the LLaMA-Factory recipe table cover snt9b23?", ("does not cover it",)),
])
def test_identity_facts_asked_in_other_words(assistant, question, wanted):
    ans = assistant.ask(question).answer
    assert all(w in ans for w in wanted), ans


@pytest.mark.parametrize("question, wanted", [
    ("whats the chip inside a 2d910b flavour", ("910B3",)),
    ("how many snt9b cards does one full A3 server match", ("16 cards of Snt9B",)),
    ("910B4 vs an A2 card: identical memory per card?", ("**No**", "64 GB vs 32 GB")),
    ("Snt9B23 一张卡是不是 2 个 die", ("**是**：**每张卡 2 个 DIE**",)),
])
def test_identity_yes_no_and_chip_lead(assistant, question, wanted):
    head = assistant.ask(question).answer.split("\n")[0]
    assert all(w in head for w in wanted), head
