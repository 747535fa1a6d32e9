"""A setting the user proposes ("换成 TP4 PP4 行吗", "could we do ZeRO-3 instead?", "改成 PP4 呢") is judged as a plan that has
not run; a setting the user reports ("TP8 PP1 跑着 OOM 了", "改成 MBS 1 还是 OOM") is the run's state (carry.toml
[proposal], proposal.py, compose.proposal_first).

Hand computations: a Megatron split is valid when TP × PP divides the devices, DP = devices / (TP × PP) (ModelArts
MindSpeed-LLM pages, knowledge/notes/launch_scripts.md "What TP and PP must match": the converted weights must match TP
and PP, so a new split is converted again). TP 4 × PP 4 = 16 on 16 cards: DP 1; TP 8 × PP 2 = 16: DP 1; TP 8 × PP 4 =
32 does not divide 16, so PP 4 on 16 cards keeps TP 4 (16 / 4). glm4-9b has 2 KV heads (catalog), so TP 4 is refused and
the split before it stays. qwen2.5-32b has 40 query and 8 KV heads: TP 2 splits both. Vendor rows: seeds/004
qwen2.5-32b full 4096 MindSpeed-LLM 16 cards; glm4-9b full MindSpeed-LLM 8 cards."""

from __future__ import annotations

import re

import pytest

from assistant.offline import proposal, subquestions
from tests.offline.dialog import lead_line as lead

from .dialog import converse


def args_of(ans, tool: str) -> list[dict]:
    return [c.args for c in ans.tool_calls if c.name == tool]


@pytest.mark.parametrize(("question", "proposing"), [
    ("我现在 16 卡 TP8 PP1 跑着 OOM 了，换成 TP4 PP4 行吗", [False, True]),
    ("改成 MBS 1 还是 OOM，TP8 PP2 行吗", [False, True]),  # the MBS 1 is done (still OOM); the split is proposed
    ("could we do ZeRO-3 instead?", [True]),
    ("I am running ZeRO-2 with TP 4 and it OOMs", [False]),
    ("use zero3 instead", [False]),  # decided, not asked
    ("手上就 4 台机器共32卡，打算 TP8、PP4 这么切，合理吗", [False, True, True]),
])
def test_a_clause_proposes_when_it_asks_about_a_change_and_reports_no_state(question, proposing):
    assert [p for _, _, p in proposal.clauses(question)] == proposing


def test_the_proposed_split_is_judged_not_the_one_that_ran_out_of_memory(assistant):
    ans = assistant.ask("我现在 qwen2.5-32b 全参 16 卡 TP8 PP1 跑着 OOM 了，换成 TP4 PP4 行吗", [])
    first = lead(ans.answer)
    assert first.startswith("**结论**：**TP 4 × PP 4，16 张卡：可以")
    assert "TP × PP = 16" in first and "数据并行 1" in first and "TP 8 × PP 1（已显存溢出）" in first
    assert "重新转换权重" in first  # launch_scripts.md: the converted weights must match TP and PP
    assert any((a.get("tp"), a.get("pp"), a.get("devices")) == (4, 4, 16) for a in args_of(ans, "estimate_training_memory"))


def test_a_split_proposed_after_a_remedy_that_did_not_help_is_no_remedy_already_tried(assistant):
    *_, second = converse(assistant, "qwen2.5-32b 全参 MindSpeed 16 张 Snt9B 跑 MBS 2 OOM 了", "改成 MBS 1 还是 OOM，TP8 PP2 行吗")
    first = lead(second.answer)
    assert first.startswith("**结论**：**TP 8 × PP 2，16 张卡：可以") and "数据并行 1" in first and "重新转换权重" in first
    assert "已占满" not in second.answer  # round 18 c7-12#2: the proposal was read as a split already in place


def test_a_changed_pp_keeps_the_last_answers_tp_that_divides_the_cards(assistant):
    *_, second = converse(assistant, "qwen2.5-32b 全参 MindSpeed 16 张 Snt9B，TP 和 PP 推荐多少", "改成 PP4 呢")
    first = lead(second.answer)
    assert first.startswith("**结论**：**TP 4 × PP 4，16 张卡：")
    assert "TP 8 × PP 4 = 32 不能整除 16 张卡，所以 TP 取 4" in first


def test_a_stage_proposed_after_an_oom_report_is_judged_as_a_run_that_has_not_failed(assistant):
    *_, second = converse(assistant, "I'm running llama-3-8b full FT on 8x A100 80GB with ZeRO-2 and it OOMs at seq 8192",
                          "could we do ZeRO-3 instead?")
    assert lead(second.answer).startswith("**Answer:** **Yes** (estimate): ZeRO-3")
    assert "Your run is out of memory" not in second.answer


def test_a_split_refused_by_the_layout_rules_is_not_carried_into_the_next_turn(assistant):
    *_, second, third = converse(assistant, "glm4-9b 全参 MindSpeed 8 卡，TP PP 怎么切", "TP4 PP1 行不行", "ok 那 seq 改成 8k 呢，还放得下吗")
    assert second.answer.startswith("不能：TP 4")  # 2 KV heads: TP must divide 2
    assert not third.answer.startswith("不能") and "TP 4" not in lead(third.answer)
    assert any(a.get("seq_len") == 8192 for a in args_of(third, "plan_training") + args_of(third, "estimate_training_memory"))


def test_two_asks_joined_by_a_comma_are_two_sub_questions_and_both_are_answered(assistant):
    assert [p.text for p in subquestions.parts("那 GBS 128 的话 GA 多少，权重要不要重新转换")] == ["那 GBS 128 的话 GA 多少", "权重要不要重新转换"]
    assert len(subquestions.parts("qwen 7b lora，几张卡")) == 1  # a clause asking nothing is context
    *_, third = converse(assistant, "用MindSpeed-LLM全量训qwen2.5 72b，910B上 seq 4k 起步要多少卡", "手上就 4 台机器共32卡，打算 TP8、PP4 这么切，合理吗",
                         "那 GBS 128 的话 GA 多少，权重要不要重新转换")
    assert lead(third.answer).startswith("**结论**：**梯度累积 128**")  # DP = 32 / (8 × 4) = 1; GA = 128 / (1 × 1)
    assert "改了 TP 或 PP，就要重新转换权重" in third.answer


def test_a_tp_proposed_for_a_vllm_job_is_estimated(assistant):
    *_, second = converse(assistant, "planning to put qwen2.5-32b behind vLLM on 64G 910B, context 16k — card count?", "would tp=2 be enough?")
    assert any(a.get("max_devices") == 2 for a in args_of(second, "estimate_inference"))
    assert re.search(r"TP 2 splits the 40 attention heads", second.answer) and "Not used from your question" not in second.answer


def test_a_kv_precision_asked_about_beside_a_concurrency_leaves_the_concurrency_answered(assistant):
    *_, third = converse(assistant, "planning to put qwen2.5-32b behind vLLM on 64G 910B, context 16k — card count?", "would tp=2 be enough?",
                         "and at gpu-memory-utilization 0.85 how many 16k requests fit at once? also is fp8 kv cache supported on 910B?")
    # qwen2.5-32b: 2 (K, V) x 64 layers x 8 KV heads x 128 x 2 B = 256 KiB per token
    assert re.search(r"\*\*\d+ concurrent sequences of 16384 tokens\*\*", lead(third.answer)) and "256 KiB per token" in third.answer
    assert "fp8 is not available on Ascend NPUs" in third.answer
    assert any(a.get("gpu_memory_utilization") == 0.85 and not a.get("kv_cache_dtype") for a in args_of(third, "estimate_inference"))


@pytest.mark.parametrize(("question", "split", "verdict"), [
    # TP 8 × PP 1 = 8 on 8 cards: DP 1; qwen2.5-32b full needs 16 MindSpeed-LLM cards (seeds/004), so it does not fit
    ("we're on TP2 PP4 with 8 cards for qwen2.5-32b full and it runs out of memory. how about TP8 PP1?", "TP 8 × PP 1 on your 8 cards: no", "TP 2 × PP 4, which ran out"),
    # TP 4 × PP 8 = 32 on 32 cards: DP 1 (llama3.1-70b full MindSpeed-LLM: 32 cards, seeds/004)
    ("llama3.1-70b 全参 MindSpeed 32 卡，我想用 TP4 PP8，可以吗", "TP 4 × PP 8，32 张卡：可以", "数据并行 1"),
])
def test_a_split_the_user_wants_leads_with_its_verdict(assistant, question, split, verdict):
    first = lead(assistant.ask(question, []).answer)
    assert split in first and verdict in first
