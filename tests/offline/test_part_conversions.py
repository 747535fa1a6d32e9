"""Model-free hardware arithmetic (fresh round 11 class 2: c3-09, c5-03, c5-02, c5-08, c6-08): a question that names a
part and a count and asks a count of another unit (or of another part) is answered from the hardware catalog, never
"which model?". Figures are worked here from the catalog rows (knowledge/catalog/hardware.csv): Snt9B 8 cards per node,
one device per card; Snt9B23 16 DIE per node, 2 DIE per card (ModelArts pages 590804/5905044); H100 8 per node. The
vendor counts 1 DIE of Snt9B23 as one Snt9B card (seeds/004 模型最小卡数配置)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
with open(ROOT / "knowledge/catalog/hardware.csv", encoding="utf-8", newline="") as f:
    HARDWARE = {r["id"]: r for r in csv.DictReader(f)}
A2, A3, H100 = HARDWARE["snt9b"], HARDWARE["snt9b23"], HARDWARE["h100-80g"]
A3_NODE, A3_DIES = int(A3["devices_per_node"]), int(A3["dies_per_card"])
A2_NODE, H100_NODE = int(A2["devices_per_node"]), int(H100["devices_per_node"])

FALLBACK = ("Which model", "哪个模型", "Noted: you have", "已记下")


def lead(ans) -> str:
    return ans.answer.split("\n")[0]


def test_catalog_figures_the_tests_use():
    assert (A3_NODE, A3_DIES, A2_NODE, H100_NODE) == (16, 2, 8, 8)


@pytest.mark.parametrize("question, want", [
    # 256 DIE / 16 per node = 16 nodes; 256 / 2 = 128 cards (round 11 c3-09)
    ("256 DIE on Snt9B23 — how many nodes is that, and how many physical cards?", ("128 cards", "16 nodes")),
    ("128 个 DIE 的 Snt9B23 是几台机器、多少张物理卡？", ("64 张卡", "8 台")),
    ("snt9b23 48 DIE = how many cards ?", ("24 cards", "3 nodes")),
    # 6 nodes × 8 = 48 cards
    ("6 nodes of Snt9B — how many cards in total?", ("48 cards",)),
    ("3 台 910B 服务器一共几张卡？", ("24 张卡",)),
    # 2 nodes × 16 = 32 DIE = 16 cards
    ("2 台 Snt9B23 一共几张卡，多少个 DIE？", ("32 DIE", "16 张卡")),
    # 40 / 8 = 5 nodes; 20 / 8 = 2.5, so 3
    ("how many nodes is 40 H100 cards", ("5 nodes",)),
    ("20 张 910B 是几台机器？", ("2.5", "3 台")),
    # what the devices are for ("MindSpeed pretraining", "LoRA") names no job to size without a model: 96 / 8 = 12, 24 / 8 = 3
    ("I have 96 Snt9B cards for MindSpeed pretraining; how many 8-card nodes is that?", ("12 nodes",)),
    ("LoRA 微调，手上 24 张 910B，算下来是几台机器", ("3 台",)),
])
def test_a_count_is_converted_from_the_catalog(assistant, question, want):
    ans = assistant.ask(question)
    head = lead(ans)
    assert not any(f in ans.answer for f in FALLBACK), ans.answer
    assert all(w in head for w in want), head


@pytest.mark.parametrize("question, nodes, cards", [
    # 4 Snt9B nodes = 32 cards = 32 DIE-equivalents; 32 / 16 = 2 Snt9B23 nodes = 16 cards (round 11 c5-03)
    ("how many Snt9B23 nodes give me the same device count as 4 Snt9B nodes?", 2, 16),
    ("how many A3 nodes do I need to match 2 Snt9B nodes in device count?", 1, 8),
])
def test_nodes_of_another_part_lead(assistant, question, nodes, cards):
    head = lead(assistant.ask(question))
    assert f"{nodes} node" in head and "Snt9B23" in head and f"{cards} cards" in head, head
    assert head.index(f"{nodes} node") < head.index("Snt9B ×" if "Snt9B ×" in head else "match"), head


def test_each_die_is_an_hccl_rank(assistant):
    """hcclug_000066: each DIE is one HCCL rank, so one 910C card is 2 ranks (round 11 c5-02)."""
    ans = assistant.ask("910C 一张卡两个 die，在 HCCL 里算一个 rank 还是两个？")
    assert f"{A3_DIES} 个 HCCL rank" in lead(ans) and "未收录" not in ans.answer, ans.answer


def test_interconnect_said_in_chinese(assistant):
    """The Snt9B row's interconnect has a Chinese wording (round 11 c5-08)."""
    head = lead(assistant.ask("Snt9B 一台 8 卡之间是什么互联？"))
    assert "HCCS" in head and "RoCE" in head and "within" not in head and "between" not in head, head


@pytest.mark.parametrize("question", [
    "ascendfactory-cli train qwen2_7b_lora.yaml  -> usage error, what's missing?",
    "ascendfactory-cli train my_llama3_8b.yaml fails, what args are missing?",
])
def test_a_file_name_is_no_model(assistant, question):
    """The launch form is `ascendfactory-cli train <yaml> <model_name> <exp_name>` (round 11 c6-08)."""
    ans = assistant.ask(question)
    assert "not in the catalog" not in ans.answer and "<model_name> <exp_name>" in ans.answer, ans.answer


@pytest.mark.parametrize("q,expected", [
    # 6 x H100 80 GB = 480 GB / 64 GB per Snt9B card = 7.5 -> 8 cards
    ("6 块 H100 80G 的显存加起来，换成 910B 要几张？", "**Snt9B 8 张卡**"),
    # 3 x A100 80 GB = 240 GB / 64 GB per Snt9B23 DIE = 3.75 -> 4 DIE
    ("by memory, 3x A100 80GB is worth how many Snt9B23 DIE?", "**4 DIE of Snt9B23**"),
])
def test_memory_for_memory_across_parts(assistant, q, expected):
    assert float(H100["memory_gb"]) == 80 and float(A2["memory_gb"]) == 64 and float(A3["memory_gb"]) == 64
    ans = assistant.ask(q)
    assert expected in lead(ans), ans.answer
    assert not ans.answer.startswith(FALLBACK)


@pytest.mark.parametrize("q,expected", [
    # one DIE per TP rank, 2 DIE per Snt9B23 card: TP 16 = 16 DIE = 8 cards
    ("A3 上 TP=16 的话实际用了多少张物理卡？", f"TP 16 = 16 个 DIE = {16 // A3_DIES:g} 张物理卡"),
    # TP 2 = 2 DIE = 1 card
    ("snt9b23: TP 2 is how many physical cards?", f"TP 2 = 2 DIE = {2 // A3_DIES:g} cards"),
])
def test_tp_in_physical_cards(assistant, q, expected):
    ans = assistant.ask(q)
    assert expected in lead(ans), ans.answer
