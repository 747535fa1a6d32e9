"""Whether two names are one part, or a device of one part is a device of another (helper hw14, part_same.py): the yes
or no first, from the hardware catalog rows. Expected figures are read from knowledge/catalog/hardware.csv and worked
here (the vendor's 1*DIE = 1 Snt9B card of seeds/004; cards x DIE per card; nodes x devices per node), never copied from
an answer."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.offline.dialog import lead

KNOWLEDGE = Path(__file__).resolve().parents[2] / "knowledge"


def part(hw: str) -> dict:
    with (KNOWLEDGE / "catalog" / "hardware.csv").open(encoding="utf-8") as f:
        return next(row for row in csv.DictReader(f) if row["id"] == hw)


def aliases(hw: str) -> set[str]:
    return {a.strip() for a in part(hw)["aliases"].split(";")}


def test_two_spellings_the_catalog_equates_are_yes(assistant):
    assert {"snt9b2", "910b3"} <= aliases("snt9b") and "Snt9b2 = Ascend 910B3" in part("snt9b")["naming"]
    ans = assistant.ask("Snt9b2 is the 910B3, right?")
    assert lead(ans).startswith("**Yes**, Snt9b2 and 910B3 are the same part")
    assert "Snt9b2 = Ascend 910B3" in lead(ans)  # the row's own word on the names, with its third-party source
    assert "notes have nothing" not in ans.answer


def test_two_spellings_of_one_row_the_catalog_does_not_equate_are_not_a_yes(assistant):
    """910B2 and 910B3 are both Snt9B aliases, but the row says the B variants' differences are not verified."""
    assert {"910b2", "910b3"} <= aliases("snt9b")
    ans = assistant.ask("910B2 就是 910B3 吗")
    assert not lead(ans).startswith("**是**") and "未经核实" in lead(ans)


def test_the_part_a_name_belongs_to_among_the_options(assistant):
    assert "910b1" in aliases("snt9b") and "910b1" not in aliases("snt9b23")
    ans = assistant.ask("910B1 属于 Snt9B 还是 Snt9B23？")
    assert lead(ans).startswith("**910B1 属于 Snt9B**，不是 Snt9B23")
    assert ans.answer.count("910B1 属于 Snt9B") == 1  # said once, not once per option


def test_a_name_mapped_to_the_vendor_part_and_its_sub_name(assistant):
    ans = assistant.ask("910B3 对应 Snt9b 几?")
    assert lead(ans).startswith("**910B3 就是 Snt9B**") and "Snt9b2 = 昇腾 910B3" in lead(ans)


@pytest.mark.parametrize("q, yes", [
    ("一个 DIE 跟一张 910B 卡等价吗？", "**是**"),
    ("Is a single Snt9B23 DIE equivalent to one Snt9B card? and the minimum parallel unit?", "**Yes**"),
])
def test_one_die_is_one_card_of_the_one_die_part(assistant, q, yes):
    a3, a2 = part("snt9b23"), part("snt9b")
    assert a3["unit"] == "die" and a2["unit"] == "card" and a3["memory_gb"] == a2["memory_gb"]  # 64 GB each
    ans = assistant.ask(q)
    assert lead(ans).startswith(yes)
    assert f"{float(a2['memory_gb']):g} GB" in lead(ans)
    assert "0.5 cards" not in ans.answer and "**no**" not in ans.answer  # the DIE said is the identity's, no job's count


def test_one_card_of_two_die_is_two_cards_of_one_die(assistant):
    dies = int(part("snt9b23")["dies_per_card"])
    ans = assistant.ask("is one 910C card basically two 910B cards glued together?")
    assert dies == 2
    assert lead(ans).startswith("**Yes**, device for device") and f"1 Snt9B23 card (= {1 * dies} DIE)" in lead(ans)


def test_two_different_chips_are_no(assistant):
    a2, a1 = part("snt9b"), part("ascend910a-32g")
    assert "ascend 910" in aliases("ascend910a-32g")
    ans = assistant.ask("is the 910B the same chip as the original Ascend 910?")
    assert lead(ans).startswith("**No**")
    assert f"{float(a2['memory_gb']):g} GB per device" in lead(ans) and f"{float(a1['memory_gb']):g} GB per device" in lead(ans)


def test_more_memory_asked_yes_or_no_then_per_card_and_per_node(assistant):
    a3, a2 = part("snt9b23"), part("snt9b")
    card3 = float(a3["memory_gb"]) * int(a3["dies_per_card"])  # 64 x 2 = 128
    node3, node2 = int(a3["devices_per_node"]) * float(a3["memory_gb"]), int(a2["devices_per_node"]) * float(a2["memory_gb"])
    ans = assistant.ask("does the A3 have more HBM per card than the A2, and how much more per node?")
    first = lead(ans)
    assert first.startswith("**Yes**.")
    per_card, per_node = f"{card3:g} GB vs {float(a2['memory_gb']):g} GB", f"{node3:g} GB vs {node2:g} GB ({node3 - node2:g} GB more)"
    assert per_card in first and per_node in first and first.index(per_card) < first.index(per_node)


def test_a_die_compared_with_a_gpu_per_device(assistant):
    a3, h100 = part("snt9b23"), part("h100-80g")
    ans = assistant.ask("one A3 die vs one H100 - how much memory each?")
    assert f"{float(h100['memory_gb']):g} GB vs {float(a3['memory_gb']):g} GB" in lead(ans)


def test_a_node_of_a_die_part_is_not_sixteen_cards(assistant):
    a3 = part("snt9b23")
    cards = int(a3["devices_per_node"]) // int(a3["dies_per_card"])  # 16 DIE / 2 = 8 cards
    ans = assistant.ask("Is an A3 node 16 cards?")
    assert lead(ans).startswith("**No**") and f"{cards} cards, not 16" in lead(ans)


def test_a_flavor_named_its_part_and_its_memory_in_all(assistant):
    flavors = part("snt9b")["flavors"]
    assert "modelarts.bm.arm.48u.384g.npu.2d910b (2 NPU)" in flavors
    ans = assistant.ask("modelarts.bm.arm.48u.384g.npu.2d910b 是 Snt9B 还是 Snt9B23？显存一共多少？")
    total = 2 * float(part("snt9b")["memory_gb"])
    assert lead(ans).startswith("**modelarts.bm.arm.48u.384g.npu.2d910b 属于 Snt9B**")
    assert f"2 × 64 GB = **{total:g} GB**" in ans.answer and "1024 GB" not in ans.answer  # no node total of the options


def test_a_flavor_shortened_to_its_last_fields_is_its_part_and_its_count(assistant):
    flavors = part("snt9b")["flavors"]
    assert "modelarts.bm.arm.24u.192g.npu.1d910b (1 NPU)" in flavors
    ans = assistant.ask("how many NPUs are in the npu.1d910b flavor?")
    assert "`modelarts.bm.arm.24u.192g.npu.1d910b` (1 NPU)" in lead(ans).split(";")[0]  # the count asked leads


def test_a_link_named_yes_or_no_from_the_interconnect_column(assistant):
    wiring = part("snt9b")["interconnect"]
    assert "HCCS" in wiring and "NVLink" not in wiring
    ans = assistant.ask("A2 机器里卡和卡之间走的是 NVLink 吗")
    assert "**不是** NVLink" in lead(ans) and "HCCS" in lead(ans)


def test_a_precision_no_column_holds_is_not_covered(assistant):
    ans = assistant.ask("910B 支持 INT8 吗")
    assert "**未收录**" in lead(ans) and "INT8" in lead(ans)
    assert "BF16 计算：支持" in lead(ans)  # what the row does have (bf16 true)


def test_the_smallest_unit_of_a_one_device_card(assistant):
    assert part("snt9b")["min_parallel_unit"] == "1" and part("snt9b23")["min_parallel_unit"] == "2"
    ans = assistant.ask("what's the smallest parallel unit on Snt9B, and on Snt9B23?")
    assert "the smallest parallel unit is 1 card" in ans.answer and "steps of 2 DIE" in ans.answer


def test_a_job_asking_for_an_odd_count_of_die(assistant):
    allowed = part("snt9b23")["job_devices"].split(";")
    assert "5" not in allowed
    ans = assistant.ask("can my A3 job ask for 5 dies?")
    assert "**No**, 5 is not one of them" in lead(ans) and ", ".join(allowed) in lead(ans)


def test_a_count_of_die_written_after_the_part(assistant):
    ans = assistant.ask("are two Snt9B23 DIEs equal to two 910B cards in memory?")
    assert lead(ans).startswith("**Yes**, device for device: 2 Snt9B23 DIE")


def test_a_die_count_of_one_part_is_not_the_next_parts_count(assistant):
    """Each part's count is the typed span said of it (numbers.COUNTS_SAID): "一个 DIE" is Snt9B23's, "一张卡" Snt9B's.
    The 16-character window before a name read the Snt9B23's DIE as a DIE of the Snt9B (a part counted in cards)."""
    assert part("snt9b")["unit"] == "card" and part("snt9b23")["unit"] == "die"
    ans = assistant.ask("Snt9B23 的一个 DIE 和 Snt9B 的一张卡一样吗？")
    assert lead(ans).startswith("**是**") and "Snt9B 1 张卡" in lead(ans) and "Snt9B 1 个 DIE" not in ans.answer
    ans = assistant.ask("is 1 die of a snt9b23 equivalent to 1 snt9b card?")  # a DIE count before its part, joined by "of a"
    assert lead(ans).startswith("**Yes**, device for device: 1 Snt9B23 DIE")


def test_a_count_written_after_its_part_is_that_parts(assistant):
    """"A2 的 1 张卡和 A3 的 1 张卡": one Snt9B card is 1 device, one Snt9B23 card is 2 DIE (catalog dies_per_card), so
    1 vs 2 devices: no. Each count follows its own part, joined by 的."""
    a2, a3 = part("snt9b"), part("snt9b23")
    assert a2["unit"] == "card" and int(a3["dies_per_card"]) == 2
    ans = assistant.ask("A2 的 1 张卡和 A3 的 1 张卡一样吗")
    assert lead(ans).startswith("**不是**") and "Snt9B23 1 张卡（= 2 个 DIE）" in lead(ans) and "（1 对 2）" in lead(ans)
    ans = assistant.ask("Snt9B23 上的 4 个 DIE 等于 Snt9B 的 4 张卡吗？")  # 4 DIE vs 4 cards: 4 vs 4 devices, 64 GB each
    assert lead(ans).startswith("**是**") and "Snt9B23 4 个 DIE" in lead(ans) and "Snt9B 4 张卡" in lead(ans)


def test_a_row_alias_beside_the_rows_own_name_is_yes(assistant):
    assert "atlas 800t a2" in aliases("snt9b") and part("snt9b")["table_part"] == "Snt9B"
    ans = assistant.ask("Atlas 800T A2 and Snt9B — one and the same hardware?")
    assert lead(ans).startswith("**Yes**, Atlas 800T A2 and Snt9B are the same part")


def test_a_link_the_row_names_somewhere_is_no_flat_yes(assistant):
    """RoCE is in the Snt9B23 wiring, but between SuperPoDs, not between a server's cards: no yes is claimed."""
    assert "RoCE" in part("snt9b23")["interconnect"]
    ans = assistant.ask("do the cards in a Snt9B23 server use RoCE between them?")
    assert "**Yes**" not in ans.answer and "HCCS" in lead(ans)


def test_node_counts_of_two_parts_are_not_read_as_device_counts(assistant):
    # seeds/004: 1 DIE of Snt9B23 counts as 1 Snt9B card; a Snt9B23 node has 16 DIE, two Snt9B nodes 2 × 8 = 16 cards:
    # yes. The identity path read "16 个 DIE" as the 910B's count and one DIE for the A3, and said no.
    a = assistant.ask("一台 A3 的 16 个 DIE 相当于两台 910B 吗").answer
    assert a.startswith("**结论**：**是**"), a
