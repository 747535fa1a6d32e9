"""Stated values misread, replaced by a default, or an assumption said as the user's fact (stated8 helper, 2026-12-06;
round 16 misses c3-06, c6-03, c1-01): a GPU said without its part, an assumed count said as assumed, dense / MoE as a
filter on lists, a part's memory said apart from its name, a multiplier before the memory, a change of a setting asked
as a factor ("does it double?") answered yes or no first.

Expected figures come from the catalogs (knowledge/catalog/hardware.csv, models.csv) and the vendor's minimum-card table
(knowledge/tables/min_cards.csv, seed 004, 2025-06-24), read in this file."""

from __future__ import annotations

import csv
import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.offline.frame import UNNAMED_GPU_MEMORY_GB
from tests.offline.dialog import last_answer as converse

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = max(10, int(os.environ.get("QUESTION_EXAMPLES", "400")) // 10)


def _rows(path: str) -> list[dict]:
    with open(ROOT / path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


HARDWARE = {r["id"]: r for r in _rows("knowledge/catalog/hardware.csv")}
MODELS = {r["id"]: r for r in _rows("knowledge/catalog/models.csv")}
MIN_CARDS = _rows("knowledge/tables/min_cards.csv")
MOE = {m for m, r in MODELS.items() if int(r.get("experts") or 0) > 0}


def first_gpu_of(gb: int) -> str:
    """The catalog's first GPU row with this much memory (catalog order): the part an unnamed GPU is sized on."""
    return next(h for h, r in HARDWARE.items() if r["kind"] == "gpu" and float(r["memory_gb"]) == gb)


def hardware_args(ans) -> set[str]:
    return {str(c.args["hardware"]) for c in ans.tool_calls if c.args.get("hardware")}


def min_cards(model: str, strategy: str, seq_len: int, framework: str, part: str = "Snt9B") -> int:
    return next(int(r["cards"]) for r in MIN_CARDS if (r["model_id"], r["strategy"], r["seq_len"], r["framework"], r["hardware"])
                == (model, strategy, str(seq_len), framework, part))


# -- a GPU said without its part --------------------------------------------------------------------
def test_an_unnamed_gpu_is_sized_on_each_memory_class_never_on_the_ascend_default(assistant):
    ans = assistant.ask("llama3-8b full fine-tune with ZeRO-2 across 8 GPUs, does it fit?")
    assert hardware_args(ans) == {first_gpu_of(gb) for gb in UNNAMED_GPU_MEMORY_GB}
    assert ans.answer.startswith("You did not say which GPU")
    lead = next(line for line in ans.answer.splitlines() if line.startswith("**Answer:**"))
    assert lead.startswith("**Answer:** on your 8 GPUs:") and "with ZeRO-2" in lead
    for gb in UNNAMED_GPU_MEMORY_GB:
        assert HARDWARE[first_gpu_of(gb)]["short_name"] in lead


def test_an_unnamed_gpu_in_chinese_and_in_a_follow_up(assistant):
    zh = assistant.ask("我们有 8 张显卡，想全参微调 llama3-8b，用 ZeRO-2 够不够？")
    assert "snt9b" not in hardware_args(zh) and zh.answer.startswith("你没有说是哪种 GPU")
    # a follow-up after an Ascend job moves to the unnamed GPUs; after the user's own A100 40GB it keeps them
    moved = converse(assistant, "qwen2.5-7b lora 4096 在 8 张 Snt9B 上够不够", "换成 4 张 GPU 呢")
    assert "snt9b" not in hardware_args(moved) and "你没有说是哪种 GPU" in moved.answer
    kept = converse(assistant, "qwen2.5-14b lora at 4096 on 4 A100 40GB, fits?", "what about on 2 GPUs?")
    assert hardware_args(kept) == {"a100-40g"} and "which GPU" not in kept.answer


def test_gpu_memory_and_per_gpu_name_no_device(parse):
    assert parse("how much gpu memory does llama3.1-8b need for inference in fp16 with 8k context").hardwares == []
    assert parse("llama3-8b lora: memory per GPU?").gpu_stand_ins == []


GPU_WORDS = [("on {n} GPUs", "en"), ("with {n} gpus", "en"), ("{n} 张显卡", "zh"), ("{n} 块 GPU", "zh")]


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(GPU_WORDS), st.integers(1, 16), st.sampled_from(["lora", "full"]), st.sampled_from([None, 2, 3]))
def test_every_gpu_count_is_used_on_gpus_only(assistant, words, n, method, zero):
    """Generated: a job said on N unnamed GPUs (and maybe a ZeRO stage): N reaches the tools, every call is on a GPU part
    of the catalog, the stage stated is the one estimated, and the answer says which parts stand in."""
    template, lang = words
    question = f"qwen2.5-7b {method} " + template.format(n=n) + (f", zero-{zero}" if zero is not None else "") + (
        ", fits?" if lang == "en" else "，够吗")
    ans = assistant.ask(question)
    assert hardware_args(ans) and all(HARDWARE[h]["kind"] == "gpu" for h in hardware_args(ans)), (question, hardware_args(ans))
    counts = {c.args.get("devices") or c.args.get("max_devices") for c in ans.tool_calls}
    assert n in counts, (question, counts)
    if zero is not None:
        assert any(c.args.get("zero_stage") == zero for c in ans.tool_calls if c.name == "estimate_training_memory"), question
    assert ("which GPU" in ans.answer) if lang == "en" else ("哪种 GPU" in ans.answer)


# -- counts and memories said around the part ------------------------------------------------------
def test_a_multiplier_before_the_memory_and_a_count_out_of_the_users_devices(parse):
    assert parse("4x 80GB GPUs, qwen2.5-32b LoRA, cutoff 4096: does it fit?").devices == 4
    assert parse("LLaMA-Factory full SFT of qwen2.5-72b at 4k: would 16 of our Snt9B cards be sufficient?").devices == 16


def test_a_parts_memory_said_apart_from_its_name_picks_that_row(parse):
    # hardware.csv: "a100" alone is the 80 GB row; "a100 40g" an alias of the 40 GB row
    assert parse("我们的 4 张 A100 是 40G 版本，qwen2.5-14b 全参 ZeRO-3 加 offload 能跑吗").hardware == "a100-40g"
    assert parse("qwen2.5-14b full on 4 A100").hardware == "a100-80g"


def test_the_users_16_cards_are_below_the_vendor_minimum(assistant):
    ans = assistant.ask("LLaMA-Factory full SFT of qwen2.5-72b at 4k: would 16 of our Snt9B cards be sufficient?")
    need = min_cards("qwen2.5-72b", "full", 4096, "LLaMA-Factory")  # 64 (seed 004)
    assert f"they list at least {need} cards (LLaMA-Factory), you have 16 cards" in ans.answer
    assert "Not used from your question" not in ans.answer


# -- an assumption is said as assumed ---------------------------------------------------------------
def test_a_pasted_setup_without_a_count_says_the_count_is_assumed(assistant):
    text = ("这个 yaml 哪里有问题?\nstage: sft\nfinetuning_type: full\npure_bf16: true\n"
            "deepspeed: examples/deepspeed/ds_z3_config.json\nmodel_name_or_path: /home/ma-user/qwen2.5-7b\ncutoff_len: 4096")
    ans = assistant.ask(text).answer
    need = min_cards("qwen2.5-7b", "full", 4096, "LLaMA-Factory")  # 8 (seed 004)
    assert "你只有" not in ans
    assert f"按假设的 1 卡（你没有给出卡数），也低于厂商最小卡数：最小卡数表中此任务为 {need} 卡" in ans
    assert "这个结论用的是假设值而非你给出的值" in ans and "micro_batch 8" in ans


# -- dense / MoE as a filter on lists ---------------------------------------------------------------
def test_dense_and_moe_filter_the_catalog_list(assistant):
    dense = assistant.ask("列一下目录里所有的稠密 qwen3 模型")
    (args,) = [c.args for c in dense.tool_calls if c.name == "list_models"]
    assert args["arch"] == "dense"
    listed = set(dense.answer.splitlines()[1].split(", "))
    assert listed == {m for m in MODELS if m.startswith("qwen3-") and m not in MOE} and "qwen3-30b-a3b" not in listed
    none = assistant.ask("which qwen2.5 models in your catalog are MoE?").answer
    assert none.startswith("**Answer:** **0** MoE (mixture-of-experts) qwen2.5 models in the model catalog.")


def test_dense_filters_a_vendor_tables_rows(assistant):
    ans = assistant.ask("Which dense models does the vendor min-card table list for Snt9B23?")
    (args,) = [c.args for c in ans.tool_calls if c.name == "find_table_rows"]
    assert args["arch"] == "dense"
    rows = [r for r in MIN_CARDS if r["hardware"] == "Snt9B23" and r["model_id"] not in MOE]
    models = {r["model_id"] for r in rows}
    assert f"**{len(rows)} rows** ({len(models)} models)" in ans.answer and "dense models only" in ans.answer
    assert not any(f"**{m}**" in ans.answer for m in MOE)


# -- a change asked as a factor: yes or no first ----------------------------------------------------
def test_a_method_change_asked_as_doubling_leads_with_yes_or_no(assistant):
    ans = assistant.ask("qwen2.5-14b 从 lora 换成全参，卡数会不会翻倍？").answer
    lora, full = (min_cards("qwen2.5-14b", s, 4096, "LLaMA-Factory") for s in ("lora", "full"))  # 4 and 8 (seed 004)
    assert full == 2 * lora
    assert ans.startswith(f"**结论**：**会**：LoRA 微调 **{lora} 张卡（厂商表格）**，全参微调 **{full} 张卡（厂商表格）**（2 倍）")


def test_a_length_change_asked_as_doubling_leads_with_no(assistant):
    ans = assistant.ask("If I go from 8k to 16k sequence length for qwen2.5-7b full fine-tuning on Snt9B, does the card count double?")
    assert ans.answer.startswith("**Answer:** **No**: 8192 **8 cards (vendor table)**")
    assert {c.args.get("seq_len") for c in ans.tool_calls} >= {8192, 16384}


def test_a_setting_change_asked_of_the_memory_sizes_both_values(assistant):
    ga = assistant.ask("梯度累积从 8 改成 16，llama3-8b 全参每卡显存会翻倍吗")
    # the accumulation changes the steps, not the memory per card: both values named, the same figure beside each
    assert ga.answer.startswith("**结论**：**不会**：梯度累积 8 每卡约") and "梯度累积 16 每卡约" in ga.answer.splitlines()[0]
    assert "（1 倍）" in ga.answer.splitlines()[0]
    rank = assistant.ask("If I double the LoRA rank from 8 to 16 on qwen2.5-7b, does the per-card memory double?")
    assert rank.answer.startswith("**Answer:** **No**: LoRA rank 8 about")
    assert {c.args.get("lora_rank") for c in rank.tool_calls} >= {8, 16}
    zero = assistant.ask("does switching from zero-2 to zero-3 halve the per-card memory for llama3-8b full finetune on 8 snt9b?")
    assert zero.answer.startswith("**Answer:** **No**: ZeRO-2 about")
    assert {c.args.get("zero_stage") for c in zero.tool_calls if c.name == "estimate_training_memory"} == {2, 3}


def test_a_size_bound_filters_a_list_of_models_not_a_model_to_size(assistant, parse):
    frame = parse("Which models under 10B parameters are dense and in the min-card table?")
    assert frame.params_b is None and frame.params_bound == ("lt", 10) and frame.table_query is not None
    assert frame.table_query.cards is None  # "under 10B" is no count of cards
    ans = assistant.ask("Which models under 10B parameters are dense and in the min-card table?")
    rows = [r for r in MIN_CARDS if r["hardware"] == "Snt9B" and r["model_id"] not in MOE
            and float(MODELS[r["model_id"]]["params_b"]) < 10]
    assert f"**{len(rows)} rows** ({len({r['model_id'] for r in rows})} models)" in ans.answer
    listed = assistant.ask("which qwen2.5 models are smaller than 10b?").answer.splitlines()[1].split(", ")
    assert set(listed) == {m for m, r in MODELS.items() if m.startswith("qwen2.5-") and float(r["params_b"]) < 10}
