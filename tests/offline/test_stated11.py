"""Stated values bound to their slot or said (2026-12-07, stated11): a setting's values offered as alternatives are each
sized; a value taken back and written again uses the later one and says so; the capacity a log or npu-smi states picks the
part; a part name with a variant word the catalog lacks is unknown; MindSpeed-LLM "sft" is full fine-tuning; vLLM's
memory share above 1 is refused. Figures pinned to hand computations."""

from __future__ import annotations

import pytest

from assistant.tools.setup_tools import CAPACITY_SHARE
from tests.offline.dialog import lead_line as lead


# ---------------------------------------------------------------- alternatives: every one evaluated
@pytest.mark.parametrize("q,slot,values", [
    ("serving qwen2.5-72b-instruct with vllm on 910B: TP4 or TP8, which one should I pick?", "tp", [4, 8]),
    ("llama3.1-8b lora rank 16 vs rank 128, 4096 seq on one A100 80G", "lora_rank", [16, 128]),
    ("qwen2.5-7b lora 4k, micro batch 1 或者 4，单卡 910B 放得下吗", "micro_batch", [1, 4]),
    ("mindspeed-llm qwen2.5-32b 全参 32 张 snt9b，TP 2 还是 TP 4", "tp", [2, 4]),
])
def test_alternatives_are_compared(parse, q, slot, values):
    s = parse(q)
    assert s.changes == {slot: values}, s.changes


def test_zero_stage_choice_stays_the_stage_chooser(parse):
    """"zero2 还是 zero3" is asked.stages_offered's (it leads with the stage to use), not a change."""
    assert parse("qwen2.5-32b lora 8k on 8 snt9b cards, zero2 还是 zero3 更合适？").changes == {}


def test_micro_batch_alternatives_both_sized(assistant):
    ans = assistant.ask("qwen2.5-7b lora 4k, micro batch 1 or 4 on a single 910B, which is faster and does 4 fit?")
    batches = {c.args.get("micro_batch") for c in ans.tool_calls if c.name == "plan_training"}
    assert batches == {1, 4}, batches
    head = lead(ans)
    assert "micro batch 1" in head and "micro batch 4" in head, head
    assert "Not used from your question" not in ans.answer


def test_rank_difference_leads(assistant):
    """The memory difference of two LoRA ranks, the larger rank needing more (its adapter and optimizer states)."""
    ans = assistant.ask("llama3.1-8b lora rank 16 vs rank 128, 4096 seq on one A100 80G - how much more memory does 128 need?")
    mem = {c.args["lora_rank"]: c.result["memory"]["total_gib"] for c in ans.tool_calls if c.name == "plan_training"}
    assert mem[128] > mem[16]
    assert f"{mem[128] - mem[16]:.1f} GiB less" in lead(ans), lead(ans)


def test_serving_layouts_lead_with_each_estimate(assistant):
    ans = assistant.ask("serving qwen2.5-72b-instruct with vllm on 910B: TP4 or TP8, which one should I pick?")
    head = lead(ans)
    assert "**TP 4**: **4 cards**" in head and "**TP 8**: **8 cards**" in head, head


# ---------------------------------------------------------------- a value taken back: the later one, said
@pytest.mark.parametrize("q,name,value", [
    ("qwen2.5-7b lora on snt9b, GA 8, batch 2, seq 4096 ... actually make GA 16. how many cards?", "grad_accum", 16),
    ("llama3-8b 全参 16 张卡，序列 8192……不对，是 32 张卡，zero3 每卡显存多少？", "devices", 32),
    ("qwen2.5-14b lora rank 8, sorry, I mean rank 32, on 2 910B", "lora_rank", 32),
])
def test_restated_value_is_the_later(parse, q, name, value):
    s = parse(q)
    assert getattr(s, name) == value and s.values_restated, (getattr(s, name), s.values_restated)
    assert s.values_restated[0] in s.rule_notes


def test_restated_said_in_the_answer(assistant):
    ans = assistant.ask("qwen2.5-7b lora on snt9b, GA 8, batch 2, seq 4096 ... actually make GA 16. how many cards and what global batch?")
    assert ans.answer.startswith("You wrote “GA 8” and then “GA 16”"), ans.answer[:200]
    assert "gradient accumulation 16" in ans.answer and "Not used from your question" not in ans.answer


# ---------------------------------------------------------------- the capacity a log states picks the part
def test_capacity_share_tells_the_32g_card():
    """A 32 GB Ascend card reports about 29.5 GiB (29.48 / 32 = 0.921), a 64 GB one 60.97 GiB (0.953): both within the
    share, and no two catalog sizes overlap (0.88 x 32 = 28.2 > 24, 0.88 x 64 = 56.3 > 48)."""
    assert CAPACITY_SHARE[0] <= 29.48 / 32 <= CAPACITY_SHARE[1]
    assert CAPACITY_SHARE[0] <= 60.97 / 64 <= CAPACITY_SHARE[1]
    assert not CAPACITY_SHARE[0] <= 29.48 / 24 <= CAPACITY_SHARE[1] and not CAPACITY_SHARE[0] <= 29.48 / 40 <= CAPACITY_SHARE[1]


def test_oom_capacity_names_the_card(assistant):
    ans = assistant.ask("qwen2.5-14b lora crashed: RuntimeError: NPU out of memory. Tried to allocate 1.20 GiB (NPU 3; 29.48 GiB "
                        "total capacity; 28.01 GiB already allocated; 0.31 GiB free). what card is this?")
    assert "**The card: snt9b-32g**" in ans.answer, ans.answer[:600]
    assert "30.5 GiB usable on snt9b-32g" in ans.answer  # 32 GB x 0.953


@pytest.mark.parametrize("q,hw,seq", [
    ("what if the cards are actually the 32GB ones? log says 29.5 GiB total capacity, llama3-8b lora 4096 on 4 910B", "snt9b-32g", 4096),
    # 32768 MB / 1024 = 32 GB per device: a memory, no length
    ("npu-smi 显示每张卡 HBM 32768 MB，一共 8 张，想用 llamafactory 做 llama3-8b 的 lora，cutoff_len 4096，需要几张？", "snt9b-32g", 4096),
    ("npu-smi shows HBM 65536 MB on each of 8 npus; qwen2.5-7b lora 8k", "snt9b", 8192),
])
def test_capacity_and_mb_pick_the_part(parse, q, hw, seq):
    s = parse(q)
    assert s.hardware == hw and s.seq_len == seq and not s.seq_lens, (s.hardware, s.seq_len, s.seq_lens)


def test_mb_memory_is_not_listed_unused(assistant):
    ans = assistant.ask("npu-smi 显示每张卡 HBM 32768 MB，一共 8 张，想用 llamafactory 做 llama3-8b 的 lora，cutoff_len 4096，需要几张？")
    assert ans.answer.startswith("“32768 MB”即每卡 32 GB"), ans.answer[:200]
    assert "未使用的数值" not in ans.answer


# ---------------------------------------------------------------- unknown parts: never the stem's row
@pytest.mark.parametrize("q,shown,near", [
    ("How many cards does an 'Ascend 910 Pro X' node have and can it run llama3.1-70b lora?", "Ascend 910 Pro X", "ascend910a-32g"),
    ("we have '910B Ultra' NPUs, 8 per node. llama3-8b lora 4k - how many nodes?", "910B Ultra", "snt9b"),
    ("Atlas 900 Pro X 上跑 qwen2.5-7b 全参要几张卡？", "Atlas 900 Pro X", ""),
    ("qwen2-7b lora on 2 L20 cards how many gb each", "L20", "l40s-48g"),
])
def test_unknown_part_said(parse, q, shown, near):
    s = parse(q)
    assert s.hardware is None, s.hardware
    assert any(f"“{shown}”" in p and near in p for p in s.problems), s.problems


def test_variant_with_memory_is_a_generic_device(parse):
    s = parse("910B Ultra 64GB 8 cards, qwen2.5-7b full 4k ok?")
    assert s.hardware == "custom-64gb-npu" and "910B Ultra" in s.part_stand_in and s.devices == 8


def test_variant_with_memory_keeps_the_count(parse):
    s = parse("H100 Pro 96GB x4, qwen2.5-32b lora cutoff 4096, zero stage?")
    assert s.hardware == "custom-96gb-gpu" and s.devices == 4


# ---------------------------------------------------------------- the method a MindSpeed "sft" means
@pytest.mark.parametrize("q,method", [
    ("mindspeed sft llama2-13b keeps OOMing on 8 cards even with MBS 1", "full"),
    ("mindspeed-llm sft qwen2.5-14b 序列 4096，手上 16 张 910B，TP 4 PP 2 够不够？", "full"),
    ("mindspeed-llm lora sft qwen2.5-14b on 8 910B", "lora"),
    ("llama3-8b sft on 8 910B with llamafactory, no lora, zero3", "full"),
    ("qwen2.5-7b 不用 lora，8 张 910B 微调", "full"),
])
def test_sft_method(parse, q, method):
    assert parse(q).method == method


# ---------------------------------------------------------------- vLLM's memory share above 1
@pytest.mark.parametrize("q,typed", [
    ("two 4090s, vllm, qwen2.5-14b-instruct awq, gpu util set to 130%, context 8k - will the server come up?", "130%"),
    ("vllm qwen2.5-7b 显存利用率 1.5，单卡 L40S 能起来吗", "1.5"),
])
def test_util_above_one_refused(parse, q, typed):
    s = parse(q)
    assert s.gpu_util is None and any(typed in p and ("at most 1" in p or "不超过 1" in p) for p in s.problems), s.problems


def test_batch_beside_oom_message_is_used(assistant):
    ans = assistant.ask("CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0; 23.64 GiB total capacity; 22.80 GiB already "
                        "allocated) -- full finetune qwen2.5-1.5b, cutoff 2048, batch 2. which gpu size is that?")
    check = next(c for c in ans.tool_calls if c.name == "check_setup")
    read = {x["name"]: x["value"] for x in check.result["read"]}
    assert read.get("micro_batch") == 2 and read.get("seq_len") == 2048, read


# ---------------------------------------------------------------- second wave: GA and layouts offered, smi MiB
def test_ga_alternatives_judged(assistant):
    """GBS = MBS x DP x GA: 1 x 8 x 16 = 128 against 1 x 8 x 4 = 32; memory and cards unchanged."""
    head = lead(assistant.ask("llama2-7b lora on 8 snt9b, grad accum 4 or 16 - which gives the better global batch for 8k seqs "
                              "and does memory change?"))
    assert "GA 16 is no problem for memory" in head and "GA 4" in head and "**128**" in head and "instead of 32" in head, head


def test_layout_alternatives_judged_on_the_devices(assistant):
    ans = assistant.ask("qwen2.5-14b 全参 mindspeed，PP 2 还是 PP 4，32 张卡，seq 4096")
    pp = {c.args.get("pp"): c.result["total_gib"] for c in ans.tool_calls if c.name == "estimate_training_memory"}
    assert set(pp) == {2, 4} and pp[4] < pp[2], pp
    head = lead(ans)
    assert "在你的 32 张卡 上" in head and f"{pp[2]:.1f}" in head and f"{pp[4]:.1f}" in head, head


@pytest.mark.parametrize("q,hw,gb", [
    # nvidia-smi prints what the runtime sees: 24564 MiB = 23.99 GiB of a 24 GB card, 46068 MiB = 45.0 GiB of a 48 GB one
    ("跑 qwen2.5-7b lora 的机器 nvidia-smi 显示 24564MiB，两张卡，cutoff 2048 够吗", "rtx4090-24g", 24),
    ("nvidia-smi says 46068MiB per gpu, 4 of them, llama3-8b full 4k zero3?", "l40s-48g", 48),
])
def test_smi_mib_picks_the_part(parse, q, hw, gb):
    s = parse(q)
    assert s.hardware == hw and s.memory_gb == gb and s.seq_len in (2048, 4096), (s.hardware, s.memory_gb, s.seq_len)


@pytest.mark.parametrize("q,devices", [
    ("qwen2-72b lora 4k on 16 910B... wait no, 24 910B. is that enough?", 24),
    ("llama3-8b lora on 8 A100s, sorry, 4 A100s", 4),
])
def test_restated_count_before_a_part(parse, q, devices):
    s = parse(q)
    assert s.devices == devices and s.values_restated, (s.devices, s.values_restated)
