"""find_table_rows pinned to the hand transcriptions of the vendor tables (tests/golden/*_seed.txt) and to rows counted
by hand in seeds/000 (LLaMA-Factory recipe table) and seeds/004 (minimum-card table, 2025-06-24)."""

from __future__ import annotations

import pytest

from tests.seedfiles import min_cards_rows, recipe_rows

MIN_ROWS = list(min_cards_rows())
RECIPE_ROWS = list(recipe_rows())
OPS = {"gt": lambda a, b: a > b, "ge": lambda a, b: a >= b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "eq": lambda a, b: a == b}


def test_more_than_64_mindspeed_cards_on_snt9b(call):
    # seeds/004: qwen3_moe-235B_A22B full 4096 256, lora 4096 128; DeepSeek-V3 full 4096 512 (its lora 64 is not more than 64)
    out = call("find_table_rows", table="min_cards", framework="MindSpeed-LLM", hardware="Snt9B", cards={"op": "gt", "value": 64})
    assert sorted((r["model_id"], r["strategy"], r["seq_len"], r["cards"]) for r in out["rows"]) == [
        ("deepseek-v3", "full", 4096, 512), ("qwen3-235b-a22b", "full", 4096, 256), ("qwen3-235b-a22b", "lora", 4096, 128)]
    assert all("2025-06-24" in s for s in out["sources"])


def test_recipe_rows_with_zero_0(call):
    # seeds/000: Qwen2 7B lora; Qwen2 0.5/1.5B lora+full; Qwen2_vl 2B lora+full; Qwen2_vl 7B lora 4096 only; Qwen1.5 0.5/1.8B
    out = call("find_table_rows", table="recipes", zero_stage=0)
    assert out["count"] == 23
    assert {r["model"] for r in out["rows"]} == {"Qwen2 7B", "Qwen2 0.5B", "Qwen2 1.5B", "Qwen2_vl 2B", "Qwen2_vl 7B",
                                                "Qwen1.5 0.5B", "Qwen1.5 1.8B"}
    assert [(r["strategy"], r["seq_len"]) for r in out["rows"] if r["model"] == "Qwen2_vl 7B"] == [("lora", 4096)]


def test_models_without_a_mindspeed_entry(call):
    # seeds/004: every MindSpeed-LLM cell '-' for the vision-language models and gemma3-27b
    out = call("find_table_rows", table="min_cards", framework="MindSpeed-LLM", supported=False, whole_model=True)
    assert sorted(out["models"]) == ["gemma3-27b", "internvl2.5-38b", "internvl2.5-78b", "internvl2.5-8b", "qwen2-vl-2b",
                                     "qwen2-vl-72b", "qwen2-vl-7b", "qwen2.5-vl-72b", "qwen2.5-vl-7b"]


@pytest.mark.parametrize("op,value", [("gt", 64), ("ge", 64), ("le", 8), ("lt", 4), ("eq", 16)])
@pytest.mark.parametrize("fw,hw", [("MindSpeed-LLM", "Snt9B"), ("LLaMA-Factory", "Snt9B23")])
def test_card_comparisons_match_the_transcription(call, op, value, fw, hw):
    out = call("find_table_rows", table="min_cards", framework=fw, hardware=hw, cards={"op": op, "value": value})
    want = sorted((s, q, c) for _, s, q, f, h, c in MIN_ROWS if f == fw and h == hw and c is not None and OPS[op](c, value))
    assert sorted((r["strategy"], r["seq_len"], r["cards"]) for r in out["rows"]) == want


@pytest.mark.parametrize("stage,offload", [(0, None), (1, None), (2, False), (2, True), (3, False), (3, True)])
def test_recipe_stage_and_offload_match_the_transcription(call, stage, offload):
    out = call("find_table_rows", table="recipes", zero_stage=stage, offload=offload)
    want = sorted((s, c, n * p) for _, _, s, c, _, st, off, n, p in RECIPE_ROWS if st == stage and offload in (None, off))
    assert sorted((r["strategy"], r["seq_len"], r["cards"]) for r in out["rows"]) == want


def test_recipe_rows_on_two_nodes_or_more(call):
    out = call("find_table_rows", table="recipes", nodes={"op": "ge", "value": 2})
    assert out["count"] == sum(1 for row in RECIPE_ROWS if row[7] >= 2) == 24


def test_newest_vllm_table_more_than_4_cards(call):
    # the newest vLLM table (modelarts_llm_infer_5910003): only the Qwen3-235B-A22B rows need 16 cards; the 70B rows need 4
    out = call("find_table_rows", table="vllm", vllm_table="vllm-newest", cards={"op": "gt", "value": 4})
    assert {r["model_id"] for r in out["rows"]} == {"qwen3-235b-a22b"} and {r["cards"] for r in out["rows"]} == {16}


def test_a_filter_the_table_has_no_column_for_is_refused(call):
    out = call("find_table_rows", table="min_cards", zero_stage=3)
    assert out["error"]["code"] == "invalid_arguments" and out["error"]["field"] == "zero_stage"


def _pairs(against):
    """(this row's key, its count, the pair's count) over the transcription: the same model, method and length."""
    cols = {(m, s, q, f, h): c for m, s, q, f, h, c in MIN_ROWS}
    swap = {"MindSpeed-LLM": "LLaMA-Factory", "LLaMA-Factory": "MindSpeed-LLM", "Snt9B": "Snt9B23", "Snt9B23": "Snt9B"}
    for (m, s, q, f, h), c in cols.items():
        other = (m, s, q, swap[f], h) if against == "framework" else (m, s, q, f, swap[h])
        yield (m, s, q, f, h), c, cols[other]


@pytest.mark.parametrize("against,this,op", [("framework", "MindSpeed-LLM", "gt"), ("framework", "LLaMA-Factory", "gt"),
                                             ("framework", "MindSpeed-LLM", "eq"), ("hardware", "Snt9B23", "gt"),
                                             ("hardware", "Snt9B23", "lt")])
def test_a_row_against_its_pair_matches_the_transcription(call, against, this, op):
    # "more MindSpeed cards than LF cards": each row of one framework (part) against the other's row of the same model,
    # method and length; a '-' on either side never compares
    fixed = {"framework": this, "hardware": "Snt9B"} if against == "framework" else {"hardware": this}
    out = call("find_table_rows", table="min_cards", versus={"against": against, "op": op}, **fixed)
    want = sorted((s, q, c, o) for (_, s, q, f, h), c, o in _pairs(against)
                  if all({"framework": f, "hardware": h}[k] == v for k, v in fixed.items())
                  and c is not None and o is not None and OPS[op](c, o))
    assert sorted((r["strategy"], r["seq_len"], r["cards"], r["other_cards"]) for r in out["rows"]) == want


def test_pair_counts_by_hand(call):
    # seeds/004 as transcribed (min_cards_seed.txt), counted: on Snt9B, MindSpeed-LLM needs more cards than LLaMA-Factory in 10 rows (llama3.1-8b lora,
    # qwen2-7b full, ...); Snt9B23 never needs fewer DIE than Snt9B cards, and 40 rows need more
    more = call("find_table_rows", table="min_cards", framework="MindSpeed-LLM", hardware="Snt9B", versus={"against": "framework", "op": "gt"})
    assert more["count"] == 10
    assert ("llama3.1-8b", "lora", 4096, 4, 1) in {(r["model_id"], r["strategy"], r["seq_len"], r["cards"], r["other_cards"]) for r in more["rows"]}
    assert call("find_table_rows", table="min_cards", hardware="Snt9B23", versus={"against": "hardware", "op": "lt"})["count"] == 0
    assert call("find_table_rows", table="min_cards", hardware="Snt9B23", versus={"against": "hardware", "op": "gt"})["count"] == 40


@pytest.mark.parametrize("nodes,per_node", [(1, 1), (1, 4), (1, 8), (2, 8), (4, 8)])
def test_recipe_nodes_times_cards_per_node_match_the_transcription(call, nodes, per_node):
    out = call("find_table_rows", table="recipes", nodes={"op": "eq", "value": nodes}, per_node={"op": "eq", "value": per_node})
    want = sorted((s, c) for _, _, s, c, _, _, _, n, p in RECIPE_ROWS if (n, p) == (nodes, per_node))
    assert sorted((r["strategy"], r["seq_len"]) for r in out["rows"]) == want


def test_recipe_1x4_and_single_card_zero_3_by_hand(call):
    # seeds/000: 1*节点 & 4*Ascend is Qwen1.5 4B full, Qwen1.5 32B lora, Yi 6B full (both lengths) and Yi 34B lora 8192;
    # the only one-card ZeRO-3 rows are Qwen1.5 14B lora
    four = call("find_table_rows", table="recipes", nodes={"op": "eq", "value": 1}, per_node={"op": "eq", "value": 4})
    assert four["count"] == 7
    one = call("find_table_rows", table="recipes", zero_stage=3, cards={"op": "eq", "value": 1})
    assert {r["model"] for r in one["rows"]} == {"Qwen1.5 14B"} and one["count"] == 2


def test_a_pair_is_refused_outside_the_min_card_table(call):
    out = call("find_table_rows", table="recipes", versus={"against": "framework", "op": "gt"})
    assert out["error"]["field"] == "versus"


def test_in_family_takes_a_name_of_letters_before_its_version():
    from assistant.tools.model_filter import in_family
    assert in_family("llama3.1-8b", "llama") and in_family("qwen2.5-7b", "qwen") and in_family("qwen2-7b", "qwen2")
    assert not in_family("qwen2.5-7b", "qwen2") and not in_family("qwq-32b", "qwen")
