"""Hardware fact questions (helper hardware9): a part named and no sizing asked is answered from its catalog row, the
attribute asked first. Memory figures in MiB beside GiB/GB are converted and the runtime's reserve worked out; a
precision's yes/no is answered first (with FP16 named where there is no BF16); a memory size offered is checked against
the row and its remark; two parts' difference is led by the columns that differ. Expected figures are computed here
from knowledge/catalog/hardware.csv and the estimator's CAPACITY_FRACTION, never copied from an answer."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from assistant.estimate.constants import CAPACITY_FRACTION
from assistant.offline import memory_units

KNOWLEDGE = Path(__file__).resolve().parents[2] / "knowledge"


def part(hw: str) -> dict:
    with (KNOWLEDGE / "catalog" / "hardware.csv").open(encoding="utf-8") as f:
        return next(row for row in csv.DictReader(f) if row["id"] == hw)


def g(x: float) -> str:
    return f"{round(x, 2):g}"


def test_npu_smi_mib_and_torch_gib_the_gap_is_the_runtime_reserve(assistant):
    """65536 MiB = 64 GiB (the Snt9B card's 64 GB); torch_npu's 60.97 GiB total capacity leaves 64 - 60.97 GiB."""
    q = "npu-smi 里 HBM 显示 65536，可是 torch 报错说 total capacity 60.97 GiB，差的那 3 个多 G 哪去了"
    ans = assistant.ask(q).answer
    size = float(part("snt9b")["memory_gb"])
    assert size == 65536 / 1024
    lead = ans.split("\n")[0]
    assert f"{g(size)} − 60.97 = {g(size - 60.97)} GiB" in lead and "预留" in lead  # the gap first
    assert f"65536 ÷ 1024 = {g(size)} GiB" in ans and "MiB" in ans
    assert "目录中的硬件" not in ans  # not the catalog's list


def test_nvidia_smi_mib_and_the_spec_gb_are_the_same_memory(assistant):
    q = "nvidia-smi shows 81920MiB on each of my A800s but the spec sheet says 80GB, which number is right?"
    ans = assistant.ask(q).answer
    size = float(part("a800-80g")["memory_gb"])
    assert ans.startswith("**Answer:** **Both are right")
    assert f"81920 ÷ 1024 = {g(size)} GiB" in ans
    assert f"{g(size * CAPACITY_FRACTION['gpu'])} GiB" in ans  # what PyTorch reports, the estimator's own fraction
    assert "do not cover" not in ans


def test_memory_units_reads_no_plain_sizing_question():
    assert memory_units.asked("how many 910B cards for qwen2.5-72b lora at 4096?") is None
    assert memory_units.asked("H100 80GB vs A100 80GB which is faster?") is None  # no MiB figure


@pytest.mark.parametrize("q, hw, en", [
    ("can I train in bf16 on V100 32G?", "v100-32g", True),
    ("T4 能不能用 bf16 训练", "t4-16g", False),
])
def test_bf16_asked_of_a_part_without_it_is_no_with_fp16_named(assistant, q, hw, en):
    assert part(hw)["bf16"] == "false"
    ans = assistant.ask(q).answer
    lead = ans.split("\n")[0]
    assert ("**No**: no BF16 compute" in lead and "FP16" in lead) if en else ("BF16 计算：不支持" in lead and "FP16" in lead)
    assert "昇腾" not in lead and "Ascend" not in lead  # not the Ascend BF16 note


def test_fp8_yes_no_asked_with_compute_leads(assistant):
    ans = assistant.ask("MI300X 支持 fp8 吗，单卡算力多少").answer
    row = part("mi300x-192g")
    assert row["fp8"] == "true"
    lead = ans.split("\n")[0]
    assert lead.index("FP8 计算：支持") < lead.index(f"{float(row['bf16_tflops']):g} TFLOPS")


def test_fp8_asked_as_a_not_a_question_is_read(assistant):
    ans = assistant.ask("4090 有没有 FP8 张量核").answer
    assert part("rtx4090-24g")["fp8"] == "true"
    assert "FP8 计算：支持" in ans.split("\n")[0]


def test_a_memory_size_offered_is_checked_against_the_row_and_its_remark(assistant):
    row = part("b200-180g")
    ans = assistant.ask("B200 每张显存到底是 180G 还是 192G").answer
    assert f"每张 GPU {float(row['memory_gb']):g} GB" in ans
    # the row's remark, quoted in the answer's language (notes_zh beside notes)
    assert "192 GB" in ans and "marketed with 192 GB" in row["notes"] and "芯片宣传为 192 GB" in row["notes_zh"]
    assert "芯片宣传为 192 GB" in ans and "marketed with" not in ans
    assert "其他名称" not in ans  # "还是" between two sizes asks no names


def test_an_inferred_row_says_it_is_inferred_when_its_size_is_asked(assistant):
    ans = assistant.ask("is a 910B4 a 32GB part or 64GB?").answer
    row = part("snt9b-32g")
    assert f"**{float(row['memory_gb']):g} GB per card**" in ans and "not verified" in ans
    assert "Which model" not in ans


def test_two_parts_differ_in_the_columns_that_differ(assistant):
    h800, h100 = part("h800-80g"), part("h100-80g")
    assert h800["memory_gb"] == h100["memory_gb"] and h800["interconnect"] != h100["interconnect"]
    ans = assistant.ask("H800 和 H100 有什么区别").answer
    lead = ans.split("\n")[0]
    # the rows' Chinese columns (interconnect_zh, notes_zh) in a Chinese answer
    assert "区别在互联" in lead and h800["interconnect_zh"] in lead and h100["interconnect_zh"] in lead
    assert "面向中国市场的 H100 变体" in lead and "China-market" not in lead  # the H800 row's own remark on the H100


def test_a_die_part_and_a_card_part_compared_per_device_and_per_card(assistant):
    a3, a2 = part("snt9b23"), part("snt9b")
    ans = assistant.ask("compare a Snt9B23 device with a Snt9B device: GB each, and count per server").answer
    per_card = float(a3["memory_gb"]) * int(a3["dies_per_card"])
    assert f"{per_card:g} GB vs {float(a2['memory_gb']):g} GB" in ans
    assert f"{float(a3['memory_gb']):g} GB/DIE" in ans and f"{a3['devices_per_node']} DIE" in ans
    assert "ModelArts Snt9B (Ascend 910B class" in ans  # both parts answered


def test_elliptic_sizes_of_one_line_are_two_parts(parse):
    s = parse("a100 40g 和 80g 都支持bf16吗，fp8 呢")
    assert s.hardwares == ["a100-40g", "a100-80g"]


def test_a2_slash_a3_names_both_parts(assistant):
    ans = assistant.ask("is the Snt9b2 flavor a 910B3? what's the A2/A3 naming about?").answer
    assert "**Yes**, Snt9b2 and 910B3 and A2 are the same part" in ans
    assert "A3 is Snt9B23" in ans


def test_dies_per_card_said_is_checked(assistant):
    ans = assistant.ask("Does the 910B have 2 dies per card like the 910C?").answer
    assert part("snt9b")["dies_per_card"] == "1" and part("snt9b23")["dies_per_card"] == "2"
    assert "**No**: **1 DIE per card**" in ans and "Snt9B23: 2 DIE per card" in ans


def test_a_single_node_summed_in_a_follow_up(assistant):
    first = assistant.ask("H20 显存多少").answer
    ans = assistant.ask("那一台 8 卡加起来呢", history=[{"role": "user", "content": "H20 显存多少"},
                                                  {"role": "assistant", "content": first}]).answer
    row = part("h20-96g")
    total = int(row["devices_per_node"]) * float(row["memory_gb"])
    assert f"**{total:g} GB**" in ans and "**是**" not in ans


def test_flavor_word_after_a_part_asks_no_flavor_names(assistant):
    ans = assistant.ask("Is the Atlas A3 the same hardware as the Snt9B23 flavor in ModelArts? which Ascend chip is inside it?").answer
    assert "**Yes**, Atlas A3 and Snt9B23 are the same part" in ans and "910C" in ans
    assert "not covered" not in ans


def test_a3_before_a_chinese_node_word_is_the_part(parse):
    s = parse("A3 单机 16 个 DIE，那单机 HCCL world size 是 16 还是 8？")
    assert s.hardware == "snt9b23" and "part_naming" not in s.intents


def test_which_of_two_parts_has_a_precision_leads(assistant):
    a10, l4 = part("a10-24g"), part("l4-24g")
    assert (a10["fp8"], l4["fp8"]) == ("false", "true")
    ans = assistant.ask("A10 vs L4: which one has FP8, and how much memory each?").answer
    assert ans.startswith("**Answer:** **Only NVIDIA L4 24GB has FP8 compute**")


def test_same_as_beside_a_sizing_compares_the_two_counts(assistant):
    a3, a2 = part("snt9b23"), part("snt9b")
    ans = assistant.ask("4 nodes of 910C — same as 8 nodes of 910B for qwen2.5-72b lora 4096?").answer
    d3, d2 = 4 * int(a3["devices_per_node"]), 8 * int(a2["devices_per_node"])
    assert d3 == d2 == 64
    assert f"**Answer:** **Yes, device for device**: 4 Snt9B23 nodes = 4 × {a3['devices_per_node']} = {d3} DIE" in ans
    assert "Not used" not in ans


def test_the_smallest_unit_quoted_is_not_the_users_devices(parse):
    s = parse("2 DIE 不是 Snt9B23 并行最小单位吗？那 llama3.2-1b lora 用 llama-factory 能只用 1 个 DIE 吗")
    assert s.devices == 1 and s.device_unit == "die"


def test_is_my_card_broken_over_mib_and_gib_says_no_first(assistant):
    ans = assistant.ask("my 910B box: npu-smi shows 8 NPUs with 65536MB each, torch.npu says 60.97GiB. is my card broken?").answer
    assert ans.startswith("**Answer:** **No, this is normal**") and f"{g(64 - 60.97)} GiB" in ans


def test_a_fact_of_a_part_the_catalog_lacks_says_what_is_known(assistant):
    ans = assistant.ask("RTX 5090 32GB: how many fit in a node according to your catalog?").answer
    assert "“RTX 5090” is not in the hardware catalog" in ans and "**Not in the catalog**" in ans and "32 GB per device" in ans
    assert "Which model" not in ans


def test_the_tables_own_cell_on_snt9b23_counts_die(assistant):
    # seeds/004's header: on Snt9B23 the table counts DIE, 2 DIE to a card (the catalog's dies_per_card), 16 DIE a node:
    # "4*Ascend" there is 4 DIE = 2 physical cards; "4 张卡" said as cards stays 4 cards = 8 DIE
    lead = next(x for x in assistant.ask("min card table 写 4*Ascend，在 Snt9B23 上这是几张物理卡？").answer.splitlines()
                if x.startswith("**结论**"))
    assert lead.startswith("**结论**：Snt9B23 4 DIE = **2 张卡**")
    cards = next(x for x in assistant.ask("4 张 Snt9B23 卡是几个 DIE").answer.splitlines() if x.startswith("**结论**"))
    assert cards.startswith("**结论**：Snt9B23 4 张卡 = **8 DIE**")
