"""Stated values of the kinds fresh round 12 misread (tests/eval/fresh/2026-12-06-round12-misses.md, classes 3 and 6),
each typed by the slot specification and used or named, never dropped or replaced: a deadline with its unit (not a card
count), a length written with a magnitude word, a part the catalog does not hold (named, never replaced by the default
part), a count of nodes asked for its cards, DIE and memory, and the conversation's carry-over of the user's own hardware
(kept across a new model; a part's quoted facts are not the user's devices).

Expected figures are hand computations: the vendor's formulas (ModelArts 590604: Time = tokens / (TPS × N) / η, N =
tokens / (Time × TPS), above 8 a multiple of 8; η = 0.9) and the hardware catalog read in this file
(knowledge/catalog/hardware.csv: devices per node, DIE per card, memory per device)."""

from __future__ import annotations

import csv
import math
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.tools.time_tools import devices_for_deadline
from tests.offline.dialog import last_answer as converse
from tests.offline.dialog import lead_line as lead

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = max(10, int(os.environ.get("QUESTION_EXAMPLES", "400")) // 8)
with open(ROOT / "knowledge/catalog/hardware.csv", encoding="utf-8", newline="") as f:
    HARDWARE = {r["id"]: r for r in csv.DictReader(f)}
ETA = 0.9  # the vendor's linear speed-up factor (线性度), the tool's default


def args_of(ans, tool):
    return [c.args for c in ans.tool_calls if c.name == tool]


def hand_devices(tokens: float, tps: float, hours: float) -> tuple[float, int]:
    """N = tokens / (Time × TPS) / η (η on more than one device); rounded up, above 8 to a multiple of 8."""
    n = tokens / (hours * 3600 * tps)
    n = n / ETA if n > 1 else n
    whole = math.ceil(n)
    return n, whole if whole <= 8 else math.ceil(whole / 8) * 8


# ---------------------------------------------------------------- a deadline: hours, with its unit read
@pytest.mark.parametrize("tokens,tps,hours,exact,needed", [
    (3e9, 2500, 24, 15.43, 16),  # round 12 c7-10: 3e9 / (86,400 × 2500) / 0.9 = 15.43 → 16
    (3e9, 2500, 12, 30.86, 32),
    (5e8, 1000, 72, 2.14, 3),  # under 8: rounded up only
    (1e8, 5000, 10, 0.56, 1),  # under one device: no speed-up factor
])
def test_devices_for_a_deadline_by_the_vendor_formula(tokens, tps, hours, exact, needed):
    got = devices_for_deadline(tokens, tps, hours, ETA)
    assert round(got[0], 2) == exact and got[1] == needed == hand_devices(tokens, tps, hours)[1]


def test_a_deadline_is_hours_not_cards(assistant):
    ans = assistant.ask("qwen2.5-7b full sft, 2B tokens, 2000 tokens/s per snt9b card, must finish within 20 hours: how many cards?")
    (args,) = args_of(ans, "estimate_training_time")
    assert args["deadline_hours"] == 20 and args.get("devices") != 20
    # 2e9 / (72,000 s × 2000) / 0.9 = 15.43 → 16 cards; on 16: 2e9 / (2000 × 16 × 0.9) = 69,444 s = 19.3 h
    assert lead(ans).startswith("**Answer:** **16 cards** to finish within 20 h") and "15.43" in lead(ans)
    assert "19.3 hours on them" in lead(ans)


def test_a_deadline_in_days_on_the_users_cards_is_a_verdict(assistant):
    zh = assistant.ask("qwen2.5-7b lora，我们有 8 张 910B，数据 10 亿 token，TPS 1000，2 天之内能训完吗")
    (args,) = args_of(zh, "estimate_training_time")
    assert args["deadline_hours"] == 48 and args["devices"] == 8
    # 1e9 / (1000 × 8 × 0.9) = 138,889 s = 38.6 h, within 48 h
    assert lead(zh).startswith("**结论**：**可以**：你的 8 张卡 约 38.6 小时，在 2 天以内")
    en = assistant.ask("llama3-8b lora on 16 Snt9B cards, 20B tokens at 1800 tok/s per card, deadline 3 days: will it finish?")
    # 2e10 / (1800 × 16 × 0.9) = 771,605 s = 8.9 days; 2e10 / (259,200 × 1800) / 0.9 = 47.63 → 48 cards
    assert lead(en).startswith("**Answer:** **No**: on your 16 cards ≈ 8.9 days, over your 3 days deadline; it needs **48 cards**")


def test_a_deadline_changed_in_a_follow_up_is_the_new_deadline(assistant):
    ans = converse(assistant, "qwen2.5-7b full on 3B tokens within 24 h at 2500 tokens/s per Snt9B card, how many cards?",
                   "and if the deadline were 12 h?")
    assert all(a["deadline_hours"] == 12 for a in args_of(ans, "estimate_training_time"))
    assert lead(ans).startswith("**Answer:** **32 cards** to finish within 12 h")  # 30.86 → 32
    assert not any(a.get("max_devices") == 12 or a.get("devices") == 12 for c in ans.tool_calls for a in [c.args])


def test_a_deadline_with_nothing_to_size_it_from_is_named_with_why(assistant):
    ans = assistant.ask("qwen2.5-7b lora 4096 on 8 snt9b, within 6 hours, which zero stage?")
    unused = next(line for line in ans.answer.splitlines() if line.startswith("Not used from your question"))
    assert "“within 6”" in unused and "measured TPS" in unused


# ---------------------------------------------------------------- a length with a magnitude word
def test_a_length_with_a_magnitude_word_is_read(assistant):
    ans = assistant.ask("qwen2.5-7b lora 序列长度 12 万 要几张卡")
    assert {a["seq_len"] for a in args_of(ans, "plan_training")} == {120_000}
    too_long = assistant.ask("llama3-8b 全参想直接训 400 万 token 长度的样本，要几张卡")
    assert too_long.answer.startswith("序列长度“400 万”过长") and not too_long.tool_calls  # 4,000,000 > 1,048,576
    en = assistant.ask("glm4-9b full fine-tune with 3 million token sequences, how many cards?")
    assert en.answer.startswith("“3 million” tokens is too long a sequence") and not en.tool_calls


def test_a_token_total_with_a_magnitude_word_is_no_length(assistant):
    ans = assistant.ask("qwen2.5-7b 全参 5000万 token 数据 要多久 8卡 tps 2000")
    (args,) = args_of(ans, "estimate_training_time")
    assert args["tokens"] == 5e7 and "seq_len" not in args  # 5e7 / (2000 × 8 × 0.9) = 3,472 s
    assert "3,472" in lead(ans)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.integers(1, 150), st.sampled_from(["序列长度 {n} 万", "长度 {n} 万 token", "{n}万 token 长度"]))
def test_every_length_in_wan_is_used_or_refused(assistant, n, form):
    """Issue 22 for the length slot: a length written in 万 (10,000 tokens) reaches the tools as that many tokens, or,
    beyond the tools' bound (1,048,576), is refused with the words as written; never planned at the default."""
    ans = assistant.ask("qwen2.5-7b lora " + form.format(n=n) + "，要几张卡")
    if n * 10_000 > 1_048_576:
        assert "过长" in ans.answer.splitlines()[0] and not ans.tool_calls, ans.answer
    else:
        assert {a["seq_len"] for a in args_of(ans, "plan_training")} == {n * 10_000}, ans.answer


# ---------------------------------------------------------------- a part the catalog does not hold
# model numbers of the catalog's series that it has no row for; each is named, with parts of its own series
UNKNOWN_PARTS = [("RTX 5090", "rtx"), ("RTX 9090", "rtx"), ("rtx 5080", "rtx"), ("H300", "h"), ("H400", "h"),
                 ("B300", "b"), ("RTX A5000", "rtx-a"), ("A900", "a"), ("MI355X", "mi")]


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(UNKNOWN_PARTS), st.sampled_from([2, 4, 8]), st.sampled_from(["en", "zh"]))
def test_an_unknown_part_is_named_never_replaced(assistant, part, count, lang):
    """Issue 22 for the part slot: a part the catalog lacks is said to be unknown, with the nearest parts of its series,
    and nothing is sized on the default part in its place."""
    name, series = part
    q = (f"qwen2.5-7b lora on {count} {name}, enough?" if lang == "en" else f"qwen2.5-7b lora 用 {count} 张 {name} 够不够")
    ans = assistant.ask(q)
    first = ans.answer.splitlines()[0]
    assert f"“{name}”" in first and ("not a part" in first or "不是硬件目录中的型号" in first), ans.answer
    closest = re.search(r"(?:Did you mean|是指) (.*?)(?:\?| 吗)", first).group(1)
    assert closest.startswith(series), closest  # the nearest parts are of its own series
    assert not args_of(ans, "plan_training") and not args_of(ans, "min_cards")


def test_a_known_part_is_not_unknown(assistant):
    ans = assistant.ask("qwen2.5-7b lora on 4 RTX 4090, enough?")
    assert {a["hardware"] for a in args_of(ans, "plan_training")} == {"rtx4090-24g"}


# ---------------------------------------------------------------- a count of nodes asked for its devices and memory
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.sampled_from([("Snt9B", "snt9b"), ("Snt9B23", "snt9b23"), ("A3", "snt9b23"), ("910B", "snt9b")]),
       st.integers(2, 12), st.sampled_from(["en", "zh"]))
def test_a_count_of_nodes_is_answered_for_that_count(assistant, part, nodes, lang):
    """Issue 22 for node counts of a part (round 12 c5-01): the devices, physical cards and memory of the nodes said,
    from the catalog row, never one node's figures."""
    name, hw = part
    row = HARDWARE[hw]
    per, dies, gb = int(row["devices_per_node"]), int(row["dies_per_card"] or 1), float(row["memory_gb"])
    devices = nodes * per
    q = (f"if we book {nodes} {name} nodes, how many cards and how much HBM is that altogether?" if lang == "en"
         else f"{nodes} 台 {name} 节点一共多少张卡、多少 GB 显存？")
    head = lead(assistant.ask(q))
    assert f"{devices * gb:g} GB**" in head, head
    if row["unit"] == "die":
        assert f"**{devices} DIE**" in head and (f"**{devices // dies} physical cards**" in head or f"**{devices // dies} 张物理卡**" in head)
    else:
        assert f"**{devices} cards**" in head or f"**{devices} 张卡**" in head


def test_one_node_of_a_part_in_another_parts_nodes(assistant):
    a3, a2 = HARDWARE["snt9b23"], HARDWARE["snt9b"]
    nodes = int(a3["devices_per_node"]) // int(a2["devices_per_node"])  # 16 DIE = 16 Snt9B cards = 2 nodes (seeds/004)
    assert lead(assistant.ask("按 DIE 算，一台 A3 顶几台 910B 服务器？")).startswith(f"**结论**：**Snt9B {nodes} 台**")
    assert lead(assistant.ask("in DIE terms, how many Snt9B nodes is one Snt9B23 node worth?")).startswith(
        f"**Answer:** **{nodes} nodes of Snt9B**")


# ---------------------------------------------------------------- carry-over of the user's own hardware
def test_the_users_hardware_persists_across_a_new_model(assistant):
    ans = converse(assistant, "I have 4x L40S. what's the largest model I can LoRA at 2048?",
                   "ok then qwen2.5-14b lora on those, which zero stage and memory per GPU?")
    plans = args_of(ans, "plan_training")
    assert plans and {a["hardware"] for a in plans} == {"l40s-48g"} and any(a.get("max_devices") == 4 for a in plans)
    zh = converse(assistant, "我有 4 张 A800。qwen2.5-14b lora 8k 行不行", "换 qwen3-32b lora 呢")
    assert {a["hardware"] for a in args_of(zh, "plan_training")} == {"a800-80g"}


def test_a_part_named_without_a_count_is_not_the_users(assistant):
    ans = converse(assistant, "qwen2.5-7b lora 8k on Snt9B23 how many cards?", "Which ZeRO stage for full fine-tuning Llama-3-8B?")
    assert {a["hardware"] for a in args_of(ans, "plan_training")} == {"snt9b"}


def test_a_parts_quoted_facts_are_not_the_users_devices(assistant):
    per = int(HARDWARE["snt9b23"]["devices_per_node"])
    ans = converse(assistant, "A3 一台服务器有几个 DIE、几张卡？", "那 qwen2.5-32b 全参 4096 用 MindSpeed 要几台")
    assert not any(a.get("max_devices") == per for a in args_of(ans, "plan_training"))
    assert f"你的 {per} DIE" not in ans.answer and lead(ans).startswith("**结论**：MindSpeed-LLM：")
    # said as theirs ("we rented"), the nodes are the user's devices: 2 × 16 DIE
    owned = converse(assistant, "we rented 2 Snt9B23 nodes. how many HCCL ranks is that?", "qwen3-32b lora 8192 on them, enough?")
    assert any(a.get("max_devices") == 2 * per for a in args_of(owned, "plan_training"))
    assert lead(owned).startswith(f"**Answer:** **Yes.** Your {2 * per} DIE")


# ---------------------------------------------------------------- a choice between two values about the last answer
# vLLM tables (knowledge/tables/vllm_min_cards.csv): vllm-newest (modelarts_llm_infer_5910003) at utilization 0.95,
# vllm-v0.7.2 (modelarts_llm_infer_5902037) at 0.9; qwen2.5-72b 64 GB: 4 cards / 32K; internvl2.5-38b 64 GB: 2 / 32K
def test_a_choice_between_two_values_is_answered_directly(assistant):
    first = "qwen2.5-72b on vllm with 64GB cards: what does the table say?"
    ans = converse(assistant, first, "is that at 0.95 or 0.9 utilization?")
    assert ans.answer.startswith("**Answer:** **0.95**, not 0.9") and "Not used from your question" not in ans.answer
    assert not any(c.args.get("gpu_memory_utilization") == 0.9 for c in ans.tool_calls)
    confirm = converse(assistant, "can I serve internvl2.5-38b with vllm on 32GB ascend cards?",
                       "ok, on 64GB cards then — how many and how long a context?", "so 0.9, not 0.95?")
    assert confirm.answer.startswith("**Answer:** **Yes, 0.9**, not 0.95")
    zh = converse(assistant, "qwen3-32b 用 vllm 部署在 64G 的卡上，表里怎么说", "那是 0.9 还是 0.95 的显存利用率测的？")
    assert zh.answer.startswith("**结论**：**0.95**，不是 0.9")
    length = converse(assistant, first, "so the tested length is 32k, not 128k?")
    assert length.answer.startswith("**Answer:** **Yes, 32k**, not 128k")


def test_two_lengths_to_size_are_no_choice_about_the_answer(assistant):
    ans = assistant.ask("qwen2.5-7b lora 4k or 8k, how many cards?")
    assert {a["seq_len"] for a in args_of(ans, "min_cards")} == {4096, 8192}


def test_the_card_count_rule_follows_a_verdict_on_the_users_cards(assistant):
    # min-card table (seeds/004): qwen2.5-14b LoRA 4096 needs LLaMA-Factory 4, MindSpeed-LLM 4 cards: 12 cover it; the
    # training-time page's "above 8, a multiple of 8" (590604) is said after that verdict, not instead of it
    ans = assistant.ask("we have 12 snt9b cards. qwen2.5-14b lora 4096, enough?").answer
    paragraphs = ans.split("\n\n")
    verdict = next(i for i, p in enumerate(paragraphs) if p.startswith("**Answer:** **Yes.** Your 12 cards"))
    rule = next(i for i, p in enumerate(paragraphs) if p.startswith("**12 cards is not a whole number of 8-card nodes**"))
    assert verdict < rule


def test_a_part_named_as_hardware_in_a_follow_up_is_read(assistant):
    # min-card table (seeds/004): qwen2.5-72b full 8192 MindSpeed-LLM, Snt9B23: 64 DIE = 32 cards = 4 nodes of 16 DIE
    ans = converse(assistant, "qwen2.5-72b full 8192 minimum cards with mindspeed on snt9b", "and if it were A3 hardware?")
    assert {a["hardware"] for a in args_of(ans, "min_cards")} == {"Snt9B23"}
    assert "**64 DIE** (32 physical card(s), 4 nodes of 16 DIE)" in lead(ans)


def test_a_32g_ascend_card_stated_with_an_oom_is_that_part(assistant):
    # hardware.csv: snt9b-32g is the 32 GB Snt9B variant (Ascend 910B, 32 GB); the stated card is not replaced by the 64 GB part
    ans = assistant.ask("vllm 在 32G 的昇腾卡上起 qwen2.5-14b 单卡报：NPU out of memory. Tried to allocate 1.50 GiB (NPU 0; "
                        "29.50 GiB total capacity; 28.90 GiB already allocated) 怎么办")
    assert {a.get("hardware") for a in args_of(ans, "check_setup")} == {"snt9b-32g"}


def test_a_length_changed_in_a_training_thread_is_no_choice(assistant):
    ans = converse(assistant, "qwen2.5-7b lora 4k on snt9b, how many cards?", "so 8k, not 4k?")
    assert {a["seq_len"] for a in args_of(ans, "min_cards")} == {8192}


def test_a_fractional_length_with_its_magnitude_is_whole(assistant):
    # 12.8 万 = 128,000 tokens: a whole length (not "12.8 is not whole"); beyond qwen2.5-72b's native 32,768, said
    ans = assistant.ask("qwen2.5-72b 推理，上下文 12.8 万，4 张 910B 够吗")
    assert {a["max_model_len"] for a in args_of(ans, "estimate_inference")} == {128_000}
    assert "128,000 超出 qwen2.5-72b 自身的上下文" in ans.answer.splitlines()[0]


@pytest.mark.parametrize("q", ["full fine-tuning with LLaMA-Factory on Snt9B seq_len 4096 千问2-0.5B How many cards do I need?",
                               "4096 千卡集群上 qwen2.5-72b 全参要多久"])
def test_a_magnitude_character_starting_another_word_is_no_magnitude(q):
    """千问 (Qwen's Chinese name) and 千卡 (a cluster's size) start with 千: "4096 千问…" is a length of 4096 beside a
    model name, not 4,096,000 tokens."""
    from assistant.offline.vocab import scaled_length
    assert scaled_length(q.lower()) is None


def test_a_deadline_count_below_the_minimum_card_row_names_the_row(assistant):
    """2e9 tokens / (48 h x 3600 x 2000 TPS) / 0.9 = 6.43 -> 7 cards; seeds/004 gives llama3.1-8b full 4096 on Snt9B
    LLaMA-Factory 8 (MindSpeed-LLM 4): the vendor's rule keeps a job at or above its row, so the 8 is said."""
    from tests.seedfiles import min_cards_rows
    lf = next(c for m, s, q, fw, hw, c in min_cards_rows()
              if (m, s, q, fw, hw) == ("llama3.1-8b", "full", 4096, "LLaMA-Factory", "Snt9B"))
    ans = assistant.ask("llama3.1-8b 全参 20 亿 token，TPS 2000/卡，48 小时内训完要几张卡")
    lead = next(line for line in ans.answer.splitlines() if line.startswith("**结论**"))
    assert lead.startswith("**结论**：**7 张卡**") and f"LLaMA-Factory {lf} 张卡" in lead and "MindSpeed-LLM" not in lead
