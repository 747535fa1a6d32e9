"""The quantity each part of a question asks leads the answer (fresh round 10, class 3): the weights alone, the model
states alone, the devices and HCCL ranks of the nodes or cards said, both halves of a comparison, each part of a
how-to. Figures are pinned to hand computations and the vendor tables (tests/seedfiles.py), or read from the tool
results the answer was written from (Answer.tool_calls)."""

from __future__ import annotations

import math

import pytest

from assistant.offline.note_pick import parts_unanswered
from assistant.offline.part_facts import counts_said
from assistant.tools.tables import NotePassage
from tests.offline.dialog import lead_line as lead
from tests.seedfiles import recipe_rows


# ---------------------------------------------------------------- devices and ranks, from the hardware catalog
# Snt9B23 (A3): 16 DIE per node, 2 DIE per card, each DIE one HCCL rank (hcclug_000066; sglang ascend_npu_reference:
# "4 cards = tp-size 8"); Snt9B (A2): 8 cards per node, one rank per card.
@pytest.mark.parametrize("q,total", [
    ("On A3 is each die its own HCCL rank? So how many ranks does a 2-node Snt9B23 job have?", 2 * 16),
    ("On an A3 box, if I give vLLM/SGLang 4 physical cards, what tensor-parallel size is that?", 4 * 2),
    ("If I run SGLang on 2 Snt9B23 cards, what tp-size do I pass?", 2 * 2),
    ("how many HCCL ranks does a 4 node Snt9B job have", 4 * 8),
    ("snt9b23 16 cards -> world size?", 16 * 2),
    ("A3 上 6 张物理卡等于几个 DIE？tp 能设多少", 6 * 2),
    ("910C 一台机器 8 张卡，跑 3 台机器的训练总共多少个 rank？", 3 * 16),
])
def test_rank_and_tp_count_leads(assistant, q, total):
    head = lead(assistant.ask(q))
    assert f"{total} HCCL ranks" in head or f"{total} 个 HCCL rank" in head, head
    assert f"**{total}**" in head  # the tensor-parallel size over all of them


def test_ranks_follow_up_keeps_the_part(assistant):
    history = []
    first = assistant.ask("Snt9B23 每节点几个 DIE？", history)
    from assistant.answer import ChatTurn
    history = [ChatTurn(role="user", content="Snt9B23 每节点几个 DIE？"), ChatTurn(role="assistant", content=first.answer)]
    assert "16" in lead(first)
    assert "32 个 HCCL rank" in lead(assistant.ask("那 2 个节点一共多少个 rank？", history))


@pytest.mark.parametrize("q,nodes,cards", [
    ("a 2-node job", 2, None), ("3 台机器", 3, None), ("4 physical cards", None, 4), ("6 张物理卡", None, 6),
    ("Snt9B23 cards", None, None), ("一台机器 8 张卡，跑 3 台机器", 3, None), ("we rented 2 Snt9B23 nodes", 2, None),
    ("两台 A3 服务器", 2, None),
])
def test_counts_said(ctx, q, nodes, cards):
    from assistant.offline.parse import Parser  # the counts are the reader's typed spans

    assert counts_said(Parser(ctx.resolver, ctx.kb.models()).parse(q)) == (nodes, cards)


def test_lora_rank_is_no_rank_count(assistant):
    ans = assistant.ask("lora rank 8 on qwen2.5-7b, how many cards")
    assert "HCCL" not in lead(ans)


# ---------------------------------------------------------------- the weights alone
def test_weights_alone_lead_with_the_cards_that_hold_them(assistant):
    ans = assistant.ask("how much memory just for the bf16 weights of Qwen2.5-72B? and how many 64GB cards just to hold them?")
    head = lead(ans)
    weights = 72.7e9 * 2 / 2**30  # Qwen2.5-72B: 72.7B parameters (model card) × 2 bytes (bf16)
    assert f"{weights:.1f} GiB of weights" in head
    assert f"**{math.ceil(weights / 60.97)} cards**" in head  # 60.97 GiB: what a 64 GB 910B reports
    assert "```yaml" not in ans.answer and "LLaMA-Factory" not in head


def test_weights_alone_in_chinese_with_a_precision(assistant):
    head = lead(assistant.ask("Qwen2.5-72B 的权重在 int8 下多大？"))
    assert f"{72.7e9 / 2**30:.1f} GiB" in head  # 1 byte per parameter


def test_weights_follow_up_in_a_training_thread(assistant):
    from tests.offline.dialog import converse
    _, ans = converse(assistant, "llama3-8b lora on Snt9B, how many cards?", "and how much memory do the weights alone take?")
    assert f"{8.03e9 * 2 / 2**30:.1f} GiB of weights" in lead(ans)  # Llama-3-8B: 8.03B parameters, bf16


# ---------------------------------------------------------------- the model states alone
@pytest.mark.parametrize("q", [
    "Qwen2.5-7B full FT with ZeRO-2 on 8 cards — per-card memory for model states only (weights+grads+Adam)?",
    "llama3.1-8b 全参训练，只算模型状态（权重+梯度+优化器）要多少 GB？",
])
def test_model_states_lead_before_the_total(assistant, q):
    ans = assistant.ask(q)
    head = lead(ans)
    calls = [c for c in ans.tool_calls if c.name in ("estimate_training_memory", "plan_training")]
    results = [c.result.get("memory", c.result) for c in calls]
    states = [r["weights_gib"] + r["gradients_gib"] + r["optimizer_gib"] for r in results]
    assert any(f"{x:.1f} GiB" in head for x in states), head
    assert head.index("GiB") < head.index(f"{results[0]['total_gib']:.1f}")  # the states first, the total after


# ---------------------------------------------------------------- a comparison answers both halves, no unasked file
def test_zero_setting_compared_for_both_lengths(assistant):
    ans = assistant.ask("qwen2-vl-7b 全参 cutoff_len 8192 和 4096 推荐的 zero 配置有啥区别")
    head = lead(ans)
    assert "```yaml" not in ans.answer
    for cutoff in (8192, 4096):
        ga, stage, offload, cards = next((ga, z, off, n * per) for m, _t, s, c, ga, z, off, n, per in recipe_rows()
                                         if (m, s, c) == ("Qwen2_vl 7B", "full", cutoff))
        said = f"{cutoff} **ZeRO-{stage}" + (" + offload" if offload else "") + f"，梯度累积 {ga}，{cards} 张卡"
        assert said in head, head


# ---------------------------------------------------------------- each part of a how-to
def test_each_part_of_a_how_to_leads(assistant):
    head = lead(assistant.ask("HCCL_EXEC_TIMEOUT 默认多少，最大能设多少，要不要调大？"))
    assert "1836" in head and "17340" in head and "调大" in head  # CANN env reference: default 1836 s, range (0, 17340]
    head = lead(assistant.ask("HCCL_EXEC_TIMEOUT — what's the default and the max, and should I raise it for the ckpt-save timeout?"))
    assert "1836" in head and "17340" in head and "raising" in head


def test_tp_pp_how_to_set_leads(assistant):
    head = lead(assistant.ask("2_convert_mg_hf.sh 做权重转换，TP PP 要怎么设，转出来放哪"))
    assert "TP 一般取单机卡数" in head and "converted_weights_TP" in head


def test_parts_unanswered_only_adds_what_the_lead_lacks():
    note = NotePassage(file="x.md", title="X", heading="FOO_TIMEOUT facts", score=1.0, source="-", lang="en", summary="",
                       text="- Default: 100 s.\n- Range (0, 500] s.\n- Raising it is a suggestion.")
    assert parts_unanswered("FOO_TIMEOUT default, and the max?", "Default: 100 s.", [note]) == ["Range (0, 500] s."]
    assert parts_unanswered("what's the max?", "Default: 100 s.", [note]) == []  # one part: the lead's own business
