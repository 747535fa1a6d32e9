"""Hardware questions (round 13 class 5): one hardware object drives reading and answers. A part the catalog lacks,
written with its memory, is a generic device of that memory; an accelerator line the catalog lacks is named as unknown;
conversions (nodes to rent with the idle devices, DIE vs physical cards, TP x PP layouts, memory-equivalent counts,
totals of the nodes said of each part) and mixed fleets are worked from the catalog. Expected figures are computed
here from knowledge/catalog/hardware.csv and knowledge/tables/min_cards.csv, never copied from an answer."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

KNOWLEDGE = Path(__file__).resolve().parents[2] / "knowledge"


def part(hw: str) -> dict:
    with (KNOWLEDGE / "catalog" / "hardware.csv").open(encoding="utf-8") as f:
        return next(row for row in csv.DictReader(f) if row["id"] == hw)


def min_cards(model: str, strategy: str, seq_len: int, framework: str, hardware: str) -> int:
    with (KNOWLEDGE / "tables" / "min_cards.csv").open(encoding="utf-8") as f:
        return next(int(r["cards"]) for r in csv.DictReader(f) if (r["model_id"], r["strategy"], int(r["seq_len"]),
                                                                     r["framework"], r["hardware"]) == (model, strategy, seq_len, framework, hardware))


A3, A2 = part("snt9b23"), part("snt9b")
A3_NODE, A3_DIES = int(A3["devices_per_node"]), int(A3["dies_per_card"])


@pytest.mark.parametrize("q, gb, count, name", [
    ("we have 4x MI250 64GB. can we lora qwen2.5-14b at 4k seq on them?", 64, 4, "MI250"),
    ("is the RTX 5090 32GB good enough to serve llama3.1-8b with 32k context?", 32, None, "RTX 5090"),
    ("Gaudi2 96GB x8 跑 llama3.1-70b lora 4k 够不够", 96, 8, "Gaudi2"),
])
def test_a_part_the_catalog_lacks_is_a_generic_device_of_its_stated_memory(parse, assistant, q, gb, count, name):
    s = parse(q)
    assert s.hardware == f"custom-{gb}gb-gpu" and s.devices == count
    ans = assistant.ask(q).answer
    assert f"“{name}”" in ans and f"{gb} GB" in ans
    assert "generic GPU" in ans or "通用GPU" in ans  # said as a generic device, not as a catalog part of that size
    assert "V100" not in ans and "Not used from your question" not in ans and "问题中未使用" not in ans


def test_a_stated_memory_no_catalog_gpu_has_is_a_generic_gpu(parse, assistant):
    q = "our cluster has 16 GPUs with 56GB each (custom SKU). full finetune llama3.1-8b at 4096 — does it fit?"
    assert parse(q).hardware == "custom-56gb-gpu"
    ans = assistant.ask(q).answer
    assert "56 GB" in ans and "Snt9B" not in ans


@pytest.mark.parametrize("q, name", [
    ("Ascend 910D 出了吗？跑 deepseek-v3 要几台", "Ascend 910D"),
    ("MI325X 你们目录里有吗", "MI325X"),
    ("do you support Gaudi 3? how many would I need for qwen2.5-72b lora", "Gaudi 3"),
])
def test_an_accelerator_the_catalog_lacks_is_named_as_unknown(assistant, q, name):
    ans = assistant.ask(q).answer
    assert f"“{name}”" in ans and ("not a part in the hardware catalog" in ans or "不是硬件目录中的型号" in ans)
    assert "rtx4080" not in ans.split("The parts it has")[0].split("目录中的硬件")[0]  # no likeness from one shared letter


def test_nodes_to_rent_say_the_idle_devices_of_the_last_one(assistant):
    cards_b = 20  # 20 Snt9B cards' worth: 1 DIE of Snt9B23 per Snt9B card (both 64 GB)
    rent = math.ceil(cards_b / A3_NODE)
    idle = rent * A3_NODE - cards_b
    ans = assistant.ask("need the equivalent of 20 910B cards but on 910C. nodes to rent + how many DIE sit idle?").answer
    assert f"so {rent} to rent: {idle} DIE ({idle // A3_DIES} cards) idle" in ans


def test_a_die_count_written_with_a_hyphen_is_die(assistant):
    ans = assistant.ask("how many physical 910C cards does a 24-DIE job occupy, and can it run on one server?").answer
    assert f"**{24 // A3_DIES} cards**" in ans and f"{24 / A3_NODE:g} nodes" in ans


def test_a_tp_pp_layout_is_counted_in_cards_and_nodes(assistant):
    dies = 8 * 2  # TP 8 x PP 2, one DIE per rank
    ans = assistant.ask("A3 上 PP=2 TP=8，总共要几张物理卡、几台机器").answer
    assert f"TP 8 × PP 2 = {dies} DIE = **{dies // A3_DIES} 张卡** = **{dies // A3_NODE} 台（节点）**" in ans


def test_a_memory_equivalent_in_die_keeps_to_whole_cards(assistant):
    total = 2 * float(part("h200-141g")["memory_gb"])
    need = math.ceil(total / float(A3["memory_gb"]))
    step = int(A3["min_parallel_unit"])
    whole = math.ceil(need / step) * step
    ans = assistant.ask("how many A3 DIEs match the memory of 2 H200s?").answer
    assert f"**{whole} DIE of Snt9B23**" in ans and f"rounded up to {need}" in ans and f"{whole // A3_DIES} physical cards" in ans


def test_totals_compare_the_nodes_said_of_each_part(assistant):
    one_a3 = 1 * A3_NODE * int(A3["memory_gb"])
    two_a2 = 2 * int(A2["devices_per_node"]) * int(A2["memory_gb"])
    assert one_a3 == two_a2
    ans = assistant.ask("一台 Snt9B23 的总 HBM 和两台 Snt9B 比，谁大").answer
    assert "相同" in ans.split("\n")[0] and f"{one_a3} GB" in ans.split("\n")[0]


def test_sixteen_a_node_on_snt9b23_is_read_as_die(parse, assistant):
    q = "we have 2 nodes of 16 cards Snt9B23, is that enough for llama3.1-70b full finetune at 4k?"
    s = parse(q)
    assert s.effective().devices == 2 * A3_NODE
    ans = assistant.ask(q).answer
    # seeds: the minimum-card table's own Snt9B23 rows decide on Snt9B23 (the recipe table's 4 x 8 = 32 counts Snt9B
    # cards in Snt9B nodes): MindSpeed-LLM 32 DIE is met, LLaMA-Factory 64 DIE is not; the lead names both
    lf, ms = (min_cards('llama3.1-70b', 'full', 4096, fw, 'Snt9B23') for fw in ('LLaMA-Factory', 'MindSpeed-LLM'))
    first = ans.split("**Needed:**")[0]
    assert "read as 16 DIE" in ans and f"Your {2 * A3_NODE} DIE cover" in first
    assert f"MindSpeed-LLM ({ms} DIE)" in first and f"needs {lf} DIE" in first
    assert "the minimum-card table's own Snt9B23 row decides" in ans


def test_a_mixed_fleet_sizes_each_part_on_its_own_nodes(assistant):
    ans = assistant.ask("1 Snt9B node plus 1 Snt9B23 node: can we pool them for qwen2.5-72b lora 4096?").answer
    assert "covered by no vendor page" in ans.split("\n")[0]
    ms_a3 = min_cards("qwen2.5-72b", "lora", 4096, "MindSpeed-LLM", "Snt9B23")
    assert f"Your {A3_NODE} DIE" in ans and f"MindSpeed-LLM ({ms_a3} DIE)" in ans  # the Snt9B23 node is not dropped
    assert f"{int(A2['devices_per_node'])} cards" in ans


def test_a_memory_equivalent_asked_in_nodes_leads_with_the_nodes(assistant):
    h100 = part("h100-80g")
    total = 3 * int(h100["devices_per_node"]) * float(h100["memory_gb"])  # a DGX H100 is one node of 8 H100 80GB
    dies = math.ceil(total / float(A3["memory_gb"]))
    nodes = math.ceil(dies / A3_NODE)
    ans = assistant.ask("how many 910C nodes give the same total HBM as 3 DGX H100 boxes?").answer
    assert f"**{nodes} nodes ({dies} DIE) of Snt9B23**" in ans and f"{total:g} GB" in ans


def test_parts_compared_on_their_own_nodes_are_no_pooled_job(assistant):
    ans = assistant.ask("一台 A3 能不能当两台 A2 用？跑 qwen2.5-32b 全参 4k").answer
    assert "合起来" not in ans  # a comparison, not one job over both
    ms = min_cards("qwen2.5-32b", "full", 4096, "MindSpeed-LLM", "Snt9B23")
    assert f"你的 {A3_NODE} DIE" in ans and f"MindSpeed-LLM（{ms} DIE）" in ans
    assert f"你的 {2 * int(A2['devices_per_node'])} 张卡" in ans


def test_an_unnamed_accelerator_with_its_memory_is_generic_not_a_catalog_stand_in(parse):
    # the catalog has a 40 GB GPU (A100 40GB), but an in-house chip is no A100
    s = parse("our in-house accelerator has 40GB per chip. how many to lora llama3.1-70b at 4k?")
    assert s.hardware == "custom-40gb-gpu"


def test_a_generic_part_compared_with_a_catalog_part_leads_with_both_counts(assistant):
    ans = assistant.ask("L20 48GB vs 910B 64GB for serving qwen2.5-14b — does either need more than one card?").answer
    lead = next(line for line in ans.split("\n") if line.startswith("**Answer:**"))
    assert "48 GB GPU (generic) **1 GPU (estimate)**" in lead and "Snt9B **1 card (vendor table)**" in lead


@pytest.mark.parametrize("q, hw, gb", [
    ("we got 2 nodes of H100 NVL 94GB (8 each). qwen2.5-72b full finetune 4k, enough?", "h100-80g", 94),
    ("4 张 H20 141G 部署 qwen2.5-72b-instruct 够吗", "h20-96g", 141),
])
def test_a_catalog_gpu_said_with_another_memory_is_a_generic_gpu_of_it(parse, assistant, q, hw, gb):
    assert float(part(hw)["memory_gb"]) != gb  # the catalog row is another variant
    assert parse(q).hardware == f"custom-{gb}gb-gpu"
    ans = assistant.ask(q).answer
    assert f"{part(hw)['memory_gb']} GB" in ans.split("\n")[0] and f"{gb} GB" in ans.split("\n")[0]


def test_an_ascend_part_said_with_another_memory_stays_a_corrected_premise(parse):
    assert parse("qwen2.5-7b inference on 910B (128GB per card) how many cards").hardware == "snt9b"
