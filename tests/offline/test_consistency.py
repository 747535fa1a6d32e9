"""One plan feeds every line: the lead and the lines under it state the same ZeRO stage and offload, the same
data parallelism for a gradient accumulation, and a yes/no that weighs every limit checked (host RAM for offload);
values the user states are kept (a 32 GB part, a misspelt ZeRO/offload, their framework, the recommended setup as
the yardstick of a yes/no). Checked with consistency.contradictions on pinned conversations and on generated ones.

Hand computations: GBS = MBS × DP × GA with DP = devices / (TP × PP) (ModelArts MindSpeed-LLM pages):
128 / (1 × 32 / (8 × 4)) = 128, 256 / (1 × 64 / (8 × 4)) = 128, 64 / (2 × 32 / (8 × 2)) = 16.
Vendor rows: seeds/000 (LLaMA-Factory recipe table) qwen1.5-32b full 8192: 2 × 8 = 16 cards, ZeRO-3-Offload, GA 4;
yi-34b full 8192: 4 × 8 = 32 cards, ZeRO-3, GA 8; llama3-8b full 4096: 1 × 8, ZeRO-2. Fresh round 10 c7-06 t3, c2-10,
c7-03 t2, c2-05, c2-03, c1-22, c2-13; consistency helper set (tests/eval/fresh/2026-12-06-consistency-helper.yaml)."""

from __future__ import annotations

import os
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.offline.answer_consistency import contradictions, lead_of

from .dialog import converse

EXAMPLES = max(8, int(os.environ.get("QUESTION_EXAMPLES", "400")) // 10)
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


# -- the check itself, on written answers --------------------------------------------------------------------
def test_the_check_names_a_zero_line_that_differs_from_the_lead():
    answer = ("**Answer:** **Yes** (estimate): ZeRO-3 + offload fits your 4 cards.\n"
              "- **ZeRO stage** (estimate; the recipe table has no row for this case): **ZeRO-2 + offload**, gradient accumulation 8.")
    assert contradictions(answer) == ["lead judges ZeRO-3 + offload, the ZeRO line says ZeRO-2 + offload"]
    assert contradictions(answer.replace("ZeRO-2 + offload**", "ZeRO-3 + offload**")) == []


def test_the_check_names_a_ga_line_that_ignores_the_plans_split():
    ga = "**Gradient accumulation 4** = global batch 128 / (micro batch 1 × data parallel 32) (GBS = MBS × DP × GA)"
    plan = "- estimate: **32 cards** (4 nodes × 8), TP 8 × PP 4, micro batch 1, gradient accumulation 128"
    assert contradictions(ga + "\n\n" + plan)
    right = "**Gradient accumulation 128** = global batch 128 / (micro batch 1 × data parallel 1 (= devices / (TP 8 × PP 4)))"
    assert contradictions(right + "\n\n" + plan) == []


def test_the_check_names_a_yes_beside_short_host_ram():
    answer = "**Answer:** **Yes** (estimate): fits.\n\nHost RAM: the offload setting above needs about 1,774 GiB per node; your 1024 GB is not enough."
    assert contradictions(answer)
    assert contradictions(answer.replace("**Yes** (estimate): fits.", "**No** (estimate): host RAM short.")) == []


# -- pinned conversations --------------------------------------------------------------------------------------
def ga_line(answer: str) -> tuple[int, int]:
    """(GA, data parallel) of the answer's gradient-accumulation line."""
    m = re.search(r"(?:Gradient accumulation|梯度累积设为) (\d+)\*\* = (?:global batch|全局 batch) \d+ / \(micro batch \d+ × "
                  r"(?:data parallel|数据并行) (\d+)", answer)
    assert m, answer
    return int(m.group(1)), int(m.group(2))


def test_ga_after_a_tp_pp_answer_divides_by_that_splits_data_parallel(assistant):
    *_, third = converse(assistant, "We have 4 nodes of 8 Snt9B. Qwen2.5-72B full at 4096 with MindSpeed, which TP/PP?",
                         "and GA if GBS is 128 and MBS 1?")
    split = re.search(r"TP (\d+) × PP (\d+)", third.answer)
    assert split
    dp = 32 // (int(split.group(1)) * int(split.group(2)))
    assert ga_line(third.answer) == (128 // dp, dp)
    assert contradictions(third.answer) == []


def test_ga_when_a_follow_up_changes_the_count_keeps_the_split(assistant):
    *_, third = converse(assistant, "qwen2.5-72b 全参 4096 MindSpeed 32 卡 TP/PP 怎么设", "GBS 256 MBS 1 的话 GA 多少", "换成 64 卡呢 GA 多少")
    assert "TP 8 × PP 4" in third.answer
    assert ga_line(third.answer) == (128, 2)  # 256 / (1 × 64 / (8 × 4))
    assert contradictions(third.answer) == []


def test_the_zero_line_keeps_the_stage_and_offload_the_user_chose(assistant):
    *_, second = converse(assistant, "qwen3-14b 全参 4096 llamafactory 几张卡", "只有 2 张，zero3 加 offload 能跑吗")
    assert "ZeRO-3 + offload" in lead_of(second.answer)
    assert "**ZeRO-2 + offload**" not in second.answer
    assert contradictions(second.answer) == []


def test_a_yes_weighs_the_host_ram_the_user_has(assistant):
    en = assistant.ask("8x H800, llama3-70b full fine-tune 8k with ZeRO-3 + CPU offload, 1 TB host RAM per node. feasible?").answer
    assert lead_of(en).startswith("**No** (estimate)") and "1024 GB" in lead_of(en), en
    zh = assistant.ask("8 张 A100 80G，qwen2.5-72b 全参 4096，ZeRO-3 + offload，每台机器内存 768GB，可行吗").answer
    assert lead_of(zh).startswith("**不行**（估算）") and "768 GB" in lead_of(zh), zh
    assert "未使用" not in zh  # the 768GB is read as host RAM, not listed as unused
    enough = assistant.ask("8x H100 80G, llama3.1-70b lora 8192, zero3 offload, 256 GB host RAM — feasible?").answer
    assert lead_of(enough).startswith("**Yes**") and "your 256 GB is enough" in enough
    for answer in (en, zh, enough):
        assert contradictions(answer) == []


def test_below_the_table_the_host_ram_is_part_of_the_verdict(assistant):
    answer = assistant.ask("llama3-70b full 8192 on 16 Snt9B cards with zero3 offload, host RAM 512GB per node — does it fit?").answer
    lead = lead_of(answer)
    assert lead.startswith("**Not by the vendor tables**") and "32 cards" in lead  # seeds/000: 4 × 8
    assert "host RAM per node, and you have 512 GB: not enough" in lead


def test_a_32_gb_part_written_beside_its_name_is_kept(assistant):
    for q in ("2 cards of 910B 32GB, qwen2.5-7b full 4096 with llamafactory zero3 — does it fit?",
              "qwen2-72b lora 4096 我们 4 张 32G 的 910B 用 LLaMA-Factory 能跑吗"):
        answer = assistant.ask(q).answer
        assert "Snt9B 32G" in answer.splitlines()[0] and "32 GB × 0.953" in answer.replace(" x ", " × "), answer


def test_the_vllm_rows_of_both_memory_columns_are_given(assistant):
    answer = assistant.ask("yi-6b on vllm: max-model-len on 32GB vs 64GB cards?").answer
    # research/modelarts.md §1 older fragment: yi-6b 32 GB 1/64K, 64 GB 1/128K
    assert "32 GB cards: 1 card, max-model-len 65,536" in answer and "64 GB cards: 1 card, max-model-len 131,072" in answer
    assert "Not used" not in answer and "v100-32g for the 32 GB" not in answer


def test_a_misspelt_stage_and_offload_are_judged(assistant):
    answer = assistant.ask("llama3.1-70b lora 8k, zreo-3 ofload, 1 node 8 npus, llamafactory ok?").answer
    assert "ZeRO-3 + offload" in lead_of(answer) and "“zreo”" in answer.splitlines()[0]


def test_a_deepspeed_users_needed_line_keeps_their_framework(assistant):
    answer = assistant.ask("4 cards of the 32GB 910B4 kind, qwen2.5-7b lora, cutoff 8192, zero2, per_device batch 2 — does it fit?").answer
    needed = next(line for line in answer.splitlines() if line.startswith("**Needed:**"))
    assert "MindSpeed-LLM TP" not in needed.split("Instead")[0], needed


def test_the_recommended_setup_is_the_yardstick_not_a_file(assistant):
    zh = assistant.ask("qwen1.5-32b 全参 8192 按推荐配置，我们一台 8 卡够不够").answer
    assert lead_of(zh).startswith("**按厂商表格不够**") and "16 张卡" in lead_of(zh) and "```" not in zh
    yi = assistant.ask("yi-34b 全参 8192，我们有 3 台 8 卡的 Snt9B，按推荐配置够吗").answer
    assert "32 张卡" in lead_of(yi) and "```" not in yi


def test_a_stage_chosen_in_a_follow_up_leads(assistant):
    *_, second = converse(assistant, "llama3-8b full 4096 llamafactory how many cards", "use zero3 instead")
    assert "ZeRO-3" in lead_of(second.answer) and "ZeRO-2" not in lead_of(second.answer)


# -- generated sizing conversations: the lead and the body never disagree --------------------------------------
MODELS = ["qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b", "qwen2.5-72b", "llama3.1-8b", "llama3-70b", "qwen3-14b", "yi-34b"]
SETTINGS_SAID = ["", "zero2", "zero3", "zero3 offload", "ZeRO-2 + offload", "zero-3 不开 offload", "zero3 加 offload"]
DEVICES = ["", "on 2 cards", "on 4 910B", "8 张卡", "16 cards", "2 nodes of 8 Snt9B", "4 台 8 卡", "8 x A100 80G"]
HOST = ["", "host RAM 512GB per node", "每台机器内存 1TB", "256 GB host RAM"]
ASKS = ["does it fit?", "能跑吗", "how many cards?", "which ZeRO stage?", "TP/PP?", "feasible?"]
FOLLOW = ["", "GBS 64 and MBS 1, what GA?", "换成 32 卡呢 GA 多少", "use zero3 instead", "那 GA 设多少，GBS 32，MBS 1"]


@SETTINGS
@given(model=st.sampled_from(MODELS), method=st.sampled_from(["lora", "full", "全参"]), length=st.sampled_from(["4096", "8k"]),
       framework=st.sampled_from(["", "llamafactory", "MindSpeed"]), setting=st.sampled_from(SETTINGS_SAID),
       devices=st.sampled_from(DEVICES), host=st.sampled_from(HOST), ask=st.sampled_from(ASKS), follow=st.sampled_from(FOLLOW))
def test_generated_sizing_answers_do_not_contradict_themselves(assistant, model, method, length, framework, setting, devices,
                                                               host, ask, follow):
    first = " ".join(x for x in (model, method, length, framework, setting, devices, host, ask) if x)
    for answer in converse(assistant, first, *([follow] if follow else [])):
        assert contradictions(answer.answer) == [], (first, follow, answer.answer)


def test_the_die_count_checked_is_the_one_asked(assistant):
    """Round 10 c5-07: "2 DIE is the unit, can I use 1 DIE?" was answered "yes, 2 is a multiple of 2" (seeds/004: on
    Snt9B23 2 DIE is the smallest parallel unit)."""
    answer = assistant.ask("Snt9B23 上为什么说 2 个 DIE 是最小单位？那我能只用 1 个 DIE 训练吗").answer
    assert "**不可以**，1 不是 2 的倍数" in answer and "2 是 2 的倍数" not in answer


def test_a_deepspeed_setting_is_judged_against_llama_factorys_rows(assistant):
    """seeds/004 qwen2.5-32b full 8192: LLaMA-Factory 32 cards, MindSpeed-LLM 16: a ZeRO-2 + offload user runs
    LLaMA-Factory, so the table's no names its 32; their 2 TB host RAM is read and weighed."""
    answer = assistant.ask("qwen2.5-32b full 8k, 8 张 910B, zero-2 offload, 内存 2TB, 能跑吗").answer
    assert "表格至少需要 32 张卡（LLaMA-Factory）" in lead_of(answer)
    assert "你的 2048 GB 够用" in answer
