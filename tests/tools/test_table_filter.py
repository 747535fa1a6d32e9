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
