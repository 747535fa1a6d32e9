"""The hardware answer (assistant/offline/part_facts.py): a question that names parts, no model and no job, and asks a
property of them is answered from the hardware catalog (knowledge/catalog/hardware.csv), one part, a node's total or
several parts side by side, each figure with its source (fresh round 5, sections 1 and 7). The expected figures are
computed here from the catalog rows: Snt9B 64 GB per card and 8 per node, Snt9B23 64 GB per DIE, 2 DIE per card and
16 DIE per node with a 2-DIE parallel unit (ModelArts pages 590804/5905044), H100 989 TFLOPS dense (NVIDIA data
sheet), the 910B's FP16 figures third-party only (research/modelarts.md §10: 280 ai.gitee.com vs ~320 boardor.com)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
with open(ROOT / "knowledge/catalog/hardware.csv", encoding="utf-8", newline="") as f:
    HARDWARE = {r["id"]: r for r in csv.DictReader(f)}
A2, A3, H100 = HARDWARE["snt9b"], HARDWARE["snt9b23"], HARDWARE["h100-80g"]


def g(x: str) -> str:
    return f"{float(x):g}"


def tools(ans) -> list[str]:
    return [c.name for c in ans.tool_calls]


@pytest.mark.parametrize(
    "question",
    [
        "difference between 910B and 910C in memory per card and cards per node?",
        "910B 和 910C 每卡显存、每节点卡数有什么区别？",
    ],
)
def test_two_parts_compared_on_memory_per_card_and_cards_per_node(assistant, question):
    ans = assistant.ask(question)
    assert (
        tools(ans) == ["list_hardware"] and "Which model" not in ans.answer and "哪个模型" not in ans.answer
    )
    per_card_a3 = g(str(float(A3["memory_gb"]) * int(A3["dies_per_card"])))
    cards_a3 = int(A3["devices_per_node"]) // int(A3["dies_per_card"])
    if question.isascii():
        assert f"**{g(A2['memory_gb'])} GB per card**; {A2['devices_per_node']} cards per node" in ans.answer
        assert (
            f"{per_card_a3} GB per card" in ans.answer
            and f"{A3['devices_per_node']} DIE = {cards_a3} cards per node" in ans.answer
        )
    else:
        assert f"**每张卡 {g(A2['memory_gb'])} GB**；每节点 {A2['devices_per_node']} 张卡" in ans.answer
        assert (
            f"每张卡 {per_card_a3} GB" in ans.answer
            and f"每节点 {A3['devices_per_node']} 个 DIE（{cards_a3} 张卡）" in ans.answer
        )


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Snt9B23 一个节点 memory 总共多少 GB", "整节点合计 {n} × {m} GB = **{t} GB**"),
        ("what is the total memory of a snt9b23 node?", "a node in all: {n} × {m} GB = **{t} GB**"),
    ],
)
def test_a_nodes_total_is_devices_per_node_times_memory(assistant, question, expected):
    n, m = int(A3["devices_per_node"]), float(A3["memory_gb"])  # 16 DIE x 64 GB = 1024 GB
    ans = assistant.ask(question)
    assert expected.format(n=n, m=g(str(m)), t=g(str(n * m))) in ans.answer.splitlines()[0]


def test_tflops_are_given_with_their_source_and_a_missing_official_figure_is_said(assistant):
    ans = assistant.ask("910B vs H100 — HBM and FP16 TFLOPS?").answer
    assert f"FP16 **{A2['fp16_tflops']} TFLOPS**" in ans and "ai.gitee.com" in ans and "boardor.com" in ans
    assert "no official figure" in ans  # the research found none for the 910B
    assert f"FP16 **{g(H100['fp16_tflops'])} TFLOPS** dense per GPU (source: {H100['source']})" in ans
    assert f"**{g(H100['memory_gb'])} GB per GPU**" in ans and f"**{g(A2['memory_gb'])} GB per card**" in ans
    zh = assistant.ask("昇腾910B 的 BF16 算力是多少 TFLOPS？").answer
    assert zh.startswith("**结论**") and "目录中没有 BF16 TFLOPS 数据" in zh and A2["fp16_tflops"] in zh


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        (
            "Snt9B23 上 2 DIE 是最小并行单位是什么意思？tp 必须是偶数吗",
            "**TP 按 DIE 计，以 2 个 DIE 为步长**",
        ),
        ("在 Snt9B23 上 TP 可以设成 3 吗？", "**不可以**，TP 3 不是 2 的倍数"),
        ("on snt9b23, can I use tp 4?", "**Yes**, TP 4 is a multiple of 2 DIE"),
    ],
)
def test_what_tp_must_be_on_a_part_whose_card_is_two_die(assistant, question, lead):
    assert A3["min_parallel_unit"] == "2"  # ModelArts: 并行策略时2*DIE为最小单位
    ans = assistant.ask(question).answer
    assert lead in ans.splitlines()[0] and "Which model" not in ans


def test_one_card_one_device_has_no_evenness_rule(assistant):
    ans = assistant.ask("on snt9b must tp be even?").answer
    assert "TP need not be even" in ans


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("Does the L40S support FP8?", "**Yes**: FP8 compute"),
        ("Does the A100 support FP8?", "**No**: no FP8 compute"),
        ("T4 支持 bf16 吗", "**BF16 计算：不支持**"),
    ],
)
def test_a_precision_asked_of_a_part_is_answered_yes_or_no(assistant, question, lead):
    ans = assistant.ask(question)
    assert tools(ans) == ["list_hardware"] and lead in ans.answer.splitlines()[0]


@pytest.mark.parametrize(
    "question",
    [
        "how many H100 do I need?",  # a need: the model is missing, not a fact of the part
        "8 张 910B 显存够吗",
        "How much does a Snt9B node cost per hour?",
    ],
)
def test_a_need_or_a_price_is_not_a_hardware_fact(assistant, question):
    assert "list_hardware" not in tools(assistant.ask(question))


# Names, flavors, wiring, job sizes and AI cores (catalog columns naming, flavors, interconnect, job_devices, ai_cores;
# fresh round 7 s62-s69): research/modelarts.md §10 (Snt9b2 = 910B3 = A2 and the two flavors, a third-party sample;
# B1/B2/B3 named by modelarts_llm_train_590604, their differences unverified; the 2019 910's 32 AI cores), hiascend
# MindCluster dl_affinity_0007/0040 (two processors joined by SIO form a HiAM, 8 HiAMs per server on HCCS; a job gets
# 1, 2, 4, 6, ... 16 processors).
@pytest.mark.parametrize(
    "question,lead",
    [
        (
            "is Snt9b2 the same chip as 910B3?",
            ("**Yes**, Snt9b2 and 910B3 are the same part", "Snt9b2 = Ascend 910B3"),
        ),
        ("910B3 和 Snt9b2 是同一款芯片吗？", ("**是**，910B3 和 Snt9b2 是同一款", "Snt9b2 = 昇腾 910B3")),
        ("Snt9B 的 B1 B2 B3 有啥区别，显存都是 64G 吗", ("64 GB", "B1、B2、B3", "未经核实")),
        # two aliases of one row (the catalog's name says 910C class, Atlas A3): the same part
        ("是不是 Snt9B23 和 A3 一样", ("**是**，Snt9B23 和 A3 是同一款",)),
        ("is A2 the same as 910B?", ("**Yes**, A2 and 910B are the same part",)),
        (
            "whats the diffrence between 910b1 and 910b2, same hbm?",
            ("64 GB", "one catalog part (their differences are not verified)"),
        ),
        (
            "modelarts 上 1 张 910b 的规格 flavor 名字叫什么",
            ("**`modelarts.bm.arm.24u.192g.npu.1d910b`（1 张 NPU）**",),
        ),
        (
            "what is the modelarts flavor name for 2 x 910B npus?",
            ("**`modelarts.bm.arm.48u.384g.npu.2d910b` (2 NPUs)**",),
        ),
        ("what is modelarts.bm.arm.24u.192g.npu.1d910b?", ("Snt9B", "64 GB per card")),
        (
            "A3 superpod server: how are the processors wired, how many HiAM modules per server?",
            ("two processors (DIE) joined by SIO", "8 HiAM modules per server joined by HCCS"),
        ),
        (
            "on an A3 box can a job get 3 processors, or only certain counts?",
            ("**No**, 3", "1, 2, 4, 6, 8, 10, 12, 14, 16"),
        ),
        (
            "Snt9B23 的 6 个 DIE = 几张物理卡？这个 count 作为并行单位 OK 吗",
            ("**6 个 DIE = 3 张卡**", "**可以**"),
        ),
        (
            "original Ascend 910 (the 2019 one): how many FP16 TFLOPS and AI cores?",
            ("256 TFLOPS", "32 AI cores"),
        ),
        ("how many AI cores does a 910B have?", ("not covered", "64 GB per card")),
    ],
)
def test_names_flavors_wiring_job_sizes_and_cores_come_from_the_catalog(assistant, question, lead):
    ans = assistant.ask(question)
    first = ans.answer.split("\n\n")[0]
    assert tools(ans) == ["list_hardware"], ans.answer[:300]
    assert all(x in first for x in lead), (lead, first)


# Fresh round 8 F4: a bandwidth figure is in no catalog column (research/modelarts.md "Not found": HCCS, RoCE and
# HBM bandwidth): the answer says so first, then what is known; a flavor named in the question leads its own line
# (2d910b = 2 NPUs, third-party sample, research/modelarts.md §10).
@pytest.mark.parametrize("question,said,known", [
    ("what's the HCCS / RoCE bandwidth between 910B cards in a snt9b node?", "no bandwidth figure", "HCCS"),
    ("910C 的 HBM 带宽是多少", "没有", "64 GB"),
])
def test_an_unknown_bandwidth_is_said_to_be_unknown_before_what_is_known(assistant, question, said, known):
    lead = assistant.ask(question).answer.split("\n")[0]
    assert said in lead and known in lead and lead.index(said) < lead.index(known), lead


def test_the_flavor_named_leads_its_own_line(assistant):
    lead = assistant.ask("what is the flavor modelarts.bm.arm.48u.384g.npu.2d910b - which chip and how many NPUs?").answer.split("\n")[0]
    assert "**`modelarts.bm.arm.48u.384g.npu.2d910b` (2 NPUs)**" in lead, lead


# Two parts compared on one figure lead with the comparison; figures no catalog column holds are said not covered
# first. Catalog (knowledge/catalog/hardware.csv): Snt9B 8 cards × 64 GB; Snt9B23 16 DIE × 64 GB, 2 DIE per card.
# Hand computations: 16 × 64 = 1024 GB vs 8 × 64 = 512 GB per node; 128 vs 64 GB per card. Fresh round 9 c5-01, c5-07.
@pytest.mark.parametrize(("question", "first"), [
    ("How does the total HBM of one A3 (Snt9B23) node compare to one A2 (Snt9B) node?",
     "**Answer:** **Snt9B23 has 2× the memory per node of Snt9B**: 1024 GB vs 512 GB (512 GB more)."),
    ("910B 和 910C 每张卡的显存分别是多少，差多少？", "**结论**：**Snt9B23 的每张卡显存是 Snt9B 的 2 倍**：128 GB 对 64 GB（多 64 GB）。"),
    ("A2 vs A3: how many DIE per card each?", "**Answer:** **Snt9B23 has 2× the DIE per card of Snt9B**: 2 vs 1 (1 more)."),
])
def test_two_parts_compared_on_one_figure_lead_with_the_comparison(assistant, question, first):
    from .dialog import converse
    ans = converse(assistant, question)[0]
    assert ans.answer.splitlines()[0] == first


@pytest.mark.parametrize(("question", "said"), [
    ("How much host (CPU) RAM does a Snt9B23 node have?", "**not covered**: the catalog and notes have no host (CPU) RAM figure"),
    ("how much CPU RAM on a single 910B node in modelarts?", "**not covered**: the catalog and notes have no host (CPU) RAM figure"),
    ("What's the power draw (TDP) of one Snt9B23 card?", "**not covered**: the catalog and notes have no power (TDP) figure"),
    ("910C 的 BF16 峰值算力官方公布了吗？", "**没有官方数字**：目录中没有 BF16 TFLOPS 数据"),
    ("Is there an official FP16 TFLOPS number for the 910B from Huawei?", "**No official figure**; the figures known: FP16 **280-320 TFLOPS**"),
])
def test_a_figure_not_held_is_said_so_first(assistant, question, said):
    from .dialog import converse
    first = converse(assistant, question)[0].answer.splitlines()[0]
    assert said in first and first.index(said) < 80


@pytest.mark.parametrize("question,per_node", [
    # a node said as one server or the whole machine: the catalog's devices per node (Snt9B 8 cards; Snt9B23 16 DIE = 8 cards)
    ("A3 超节点单台服务器几块 910C，每块显存多大？", f"每节点 {A3['devices_per_node']} 个 DIE（{int(A3['devices_per_node']) // 2} 张卡）"),
    ("整机 Atlas 800T A2 里面插几块 NPU", f"每节点 {A2['devices_per_node']} 张卡"),
    ("what does an Atlas 800T A2 server come with - how many NPUs and HBM per NPU?", f"{A2['devices_per_node']} cards per node"),
])
def test_the_cards_in_one_server_are_answered(assistant, question, per_node):
    assert per_node in assistant.ask(question).answer.splitlines()[0]


def test_the_node_count_asked_before_the_memory_is_said_first(assistant):
    # "几张卡、几个DIE、总显存多少": the catalog's 16 DIE (8 cards) per Snt9B23 node before the 64 GB per DIE
    lead = assistant.ask("Atlas 900 A3 SuperPoD 单台服务器几张卡、几个DIE、总显存多少").answer.splitlines()[0]
    node = f"每节点 {A3['devices_per_node']} 个 DIE"
    assert node in lead and lead.index(node) < lead.index(f"每个 DIE {g(A3['memory_gb'])} GB")
