"""Table tools pinned to the vendor tables (hand transcriptions in tests/golden/*_seed.txt) and to
golden JSON of the full tool outputs."""

from __future__ import annotations

import json
import os

import pytest

from tests.seedfiles import GOLDEN, min_cards_printed_lines, min_cards_rows, recipe_rows

MIN_ROWS = list(min_cards_rows())
RECIPE_ROWS = list(recipe_rows())


def test_seed_transcriptions_have_every_row(ctx):
    # 124 model/strategy/length combinations x 4 framework/hardware columns in the seed table.
    assert len(MIN_ROWS) == 496
    assert ctx.kb.query("SELECT count(*) AS n FROM min_cards")[0]["n"] == len(MIN_ROWS)
    assert ctx.kb.query("SELECT count(*) AS n FROM recipes_llamafactory")[0]["n"] == len(RECIPE_ROWS) == 96


@pytest.mark.parametrize("model,strategy,seq,fw,hw,cards", MIN_ROWS, ids=lambda v: str(v))
def test_min_cards_row_matches_seed(call, model, strategy, seq, fw, hw, cards):
    out = call("min_cards", model=model, strategy=strategy, seq_len=seq, framework=fw, hardware=hw)
    assert "error" not in out, out
    assert out["cards"] == cards
    assert out["supported"] is (cards is not None)
    assert out["unit"] == ("card" if hw == "Snt9B" else "DIE")
    assert "004_" in out["source"]


@pytest.mark.parametrize("row", RECIPE_ROWS, ids=lambda r: f"{r[0]}-{r[2]}-{r[3]}")
def test_training_recipe_row_matches_seed(call, row):
    model, template, strategy, cut, ga, stage, offload, nodes, per_node = row
    out = call("training_recipe", model=model, strategy=strategy, seq_len=cut)
    assert "error" not in out, out
    assert out["seq_len_used"] == cut
    assert (out["template"], out["grad_accum"], out["zero_stage"], out["offload"]) == (template, ga, stage, offload)
    assert (out["nodes"], out["cards_per_node"], out["total_cards"]) == (nodes, per_node, nodes * per_node)
    assert "000_" in out["source"]


def _golden(name: str, produce):
    """Compare with tests/golden/NAME; UPDATE_GOLDEN=1 rewrites it (then review the diff)."""
    path = GOLDEN / name
    actual = produce()
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(json.dumps(actual, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    assert path.exists(), f"{path} is missing: run with UPDATE_GOLDEN=1 and review it"
    assert json.loads(path.read_text(encoding="utf-8")) == actual


def test_min_cards_golden_outputs(call):
    combos = sorted({(m, s, q) for m, s, q, *_ in MIN_ROWS})
    _golden("min_cards_outputs.json", lambda: {f"{m}|{s}|{q}": call("min_cards", model=m, strategy=s, seq_len=q) for m, s, q in combos})


def test_recipe_golden_outputs(call):
    combos = sorted({(r[0], r[2], r[3]) for r in RECIPE_ROWS})
    _golden("recipe_outputs.json", lambda: {f"{m}|{s}|{q}": call("training_recipe", model=m, strategy=s, seq_len=q) for m, s, q in combos})


def test_min_cards_golden_agrees_with_seed():
    """The golden JSON itself is checked against the hand transcription, row by row."""
    golden = json.loads((GOLDEN / "min_cards_outputs.json").read_text(encoding="utf-8"))
    for model, s, q, fw, hw, cards in MIN_ROWS:
        rows = golden[f"{model}|{s}|{q}"]["rows"]
        (row,) = [r for r in rows if r["framework"] == fw and r["hardware"] == hw]
        assert row["cards"] == cards, (model, s, q, fw, hw)


def test_seed_row_numbers_the_printed_line(ctx):
    """Rows expanded from one printed cell (`full/lora`, `4096/8192`) share the seed_row of that line."""
    lines = min_cards_printed_lines()
    rows = ctx.kb.query("SELECT model, strategy, seq_len, seed_row FROM min_cards")
    assert {(r["model"], r["strategy"], int(r["seq_len"])): int(r["seed_row"]) for r in rows} == lines
    assert max(lines.values()) == 75  # the seed's table has 75 printed lines


def test_omitted_filters_return_every_row(call):
    out = call("min_cards", model="qwen2.5-72b")
    assert len(out["rows"]) == 2 * 2 * 4  # full/lora x 4096/8192 x 4 columns
    assert out["cards"] is None  # several rows: no single answer


def test_snt9b23_counts_die_and_physical_cards(call):
    out = call("min_cards", model="qwen3_moe-235B_A22B", strategy="full", seq_len=4096, framework="MindSpeed-LLM", hardware="Snt9B23")
    row = out["rows"][0]
    assert (row["cards"], row["unit"], row["physical_cards"], row["nodes"]) == (256, "DIE", 128, 16)


def test_merged_cells_are_flagged(call):
    out = call("min_cards", model="llama3.1-8b", strategy="full", seq_len=4096, framework="LLaMA-Factory")
    by_hw = {r["hardware"]: r for r in out["rows"]}
    assert by_hw["Snt9B"]["merged_cell"] is False and by_hw["Snt9B23"]["merged_cell"] is True


def test_unlisted_seq_len_uses_next_listed_above(call):
    out = call("min_cards", model="qwen2.5-72b", strategy="lora", seq_len=6000, framework="LLaMA-Factory", hardware="Snt9B")
    assert (out["seq_len_used"], out["cards"]) == (8192, 32)
    assert any("8192" in n for n in out["notes"])
    beyond = call("training_recipe", model="qwen2-7b", strategy="full", seq_len=32768)
    assert beyond["found"] is False and "8192" in beyond["note"]


def test_practical_eight_card_note(call):
    out = call("min_cards", model="llama3.2-1b", strategy="lora", seq_len=4096, framework="LLaMA-Factory", hardware="Snt9B")
    assert out["cards"] == 1
    assert any("8" in n and "practice" in n for n in out["notes"])


def test_inference_tables(call):
    out = call("inference_min_cards", model="DS-R1-Distill-Llama-70B", memory_gb=32)
    assert out["cards"] == 8 and out["rows"][0]["max_model_len"] == 32 * 1024
    newest = call("inference_min_cards", model="Qwen3-235B-A22B-Instruct-2507")
    assert {(r["table"], r["cards"], r["max_model_len"]) for r in newest["rows"]} == {("vllm-newest", 16, 65536)}
    unsupported = call("inference_min_cards", model="qwen2.5-vl-72b", memory_gb=32)
    assert unsupported["rows"][0]["supported"] is False and unsupported["cards"] is None
    too_long = call("inference_min_cards", model="llama3.1-8b", max_model_len=200_000)
    assert too_long["cards"] is None and too_long["notes"]


def test_deepseek_not_supported_on_llamafactory(call):
    out = call("min_cards", model="DeepSeek-R1", framework="LLaMA-Factory")
    assert out["rows"] and all(r["supported"] is False and r["cards"] is None for r in out["rows"])


def test_list_hardware_parts_and_fp8(call):
    parts = {h["id"]: h for h in call("list_hardware")["hardware"]}
    # Snt9B23 counts DIE: 16 per node of 8 cards (the minimum-card table's note)
    assert parts["snt9b23"]["unit"] == "die" and parts["snt9b23"]["devices_per_node"] == 16
    assert parts["snt9b"]["memory_gb"] == 64 and parts["snt9b"]["devices_per_node"] == 8
    # FP8 tensor cores: Hopper and Ada have them, Ampere and the Ascend 910B/910C parts do not
    assert [parts[p]["fp8"] for p in ("h100-80g", "h200-141g", "l40s-48g")] == [True, True, True]
    assert [parts[p]["fp8"] for p in ("a100-80g", "snt9b", "snt9b23")] == [False, False, False]


# The newest vLLM table's rows at one card count (research/modelarts.md §1, modelarts_llm_infer_5910003, 2025-11-19):
# 4 cards / 32K for DS-R1-Distill-Llama-70B, Llama3-70B, Llama3.1-70B, Qwen2-72B, Qwen2.5-72B; 16 / 64K for Qwen3-235B-A22B.
@pytest.mark.parametrize(
    "cards,models,length",
    [
        (4, {"deepseek-r1-distill-llama-70b", "llama3-70b", "llama3.1-70b", "qwen2-72b", "qwen2.5-72b"}, 32768),
        (16, {"qwen3-235b-a22b"}, 65536),
    ],
)
def test_list_models_by_the_newest_vllm_tables_card_count(call, cards, models, length):
    out = call("list_models", in_tables_only=True, serving_cards=cards)
    assert {m["id"] for m in out["models"]} == models
    assert {m["vllm_cards"] for m in out["models"]} == {cards} and {m["vllm_max_model_len"] for m in out["models"]} == {length}
    assert "modelarts_llm_infer_5910003" in out["vllm_source"]
