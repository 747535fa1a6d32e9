"""Calibration against the vendor tables. The shares are computed here from the CSV table values and
the planner's answers, row by row; nothing is copied from the code's own summary."""

from __future__ import annotations

import pytest

from assistant.estimate.calibrate import naive_flat, naive_model_states, run
from assistant.estimate.memory import TrainConfig
from assistant.estimate.plan import plan_training

from .conftest import read_csv

PART = {"Snt9B": "snt9b", "Snt9B23": "snt9b23"}


@pytest.fixture(scope="module")
def report():
    return run(read_csv("tables/min_cards.csv"), read_csv("tables/recipes_llamafactory.csv"),
               read_csv("catalog/models.csv"), read_csv("catalog/hardware.csv"), read_csv("tables/vllm_min_cards.csv"))


@pytest.fixture(scope="module")
def min_card_rows(shapes, devices, report):
    """(table cards, planner, model-states anchor, flat anchor, flagged) per min-card row with a count."""
    flagged = {r.label for r in report.rows if r.table == "min_cards" and r.flag}
    out = []
    for r in read_csv("tables/min_cards.csv"):
        if not r["cards"]:
            continue
        s, dev = shapes[r["model_id"]], devices[PART[r["hardware"]]]
        p = plan_training(s, TrainConfig(method=r["strategy"], seq_len=int(r["seq_len"]), framework=r["framework"]), dev)
        label = f"{r['model_id']} {r['strategy']} {r['seq_len']} {r['framework']} {r['hardware']}"
        out.append((int(r["cards"]), p.devices, naive_model_states(s, r["strategy"], dev), naive_flat(s, r["strategy"], dev),
                    label in flagged))
    return out


def shares(pairs):
    pairs = list(pairs)
    exact = sum(a == b for a, b in pairs) / len(pairs)
    within = sum(0.5 <= b / a <= 2 for a, b in pairs) / len(pairs)
    return exact, within


def test_every_min_card_row_with_a_count_is_scored(min_card_rows):
    rows = read_csv("tables/min_cards.csv")
    assert len(rows) == 496
    assert len(min_card_rows) == sum(1 for r in rows if r["cards"]) == 412


def test_min_card_targets_on_rows_the_table_does_not_contradict(min_card_rows):
    ok = [r for r in min_card_rows if not r[4]]
    assert len(ok) >= 250  # most rows are kept
    exact, within = shares((t, p) for t, p, *_ in ok)
    assert within >= 0.92 and exact >= 0.50
    for anchor in (2, 3):  # better than both naive anchors on the same rows
        a_exact, a_within = shares((r[0], r[anchor]) for r in ok)
        assert exact > a_exact + 0.15 and within > a_within


def test_min_card_all_rows_exact_share_beats_both_anchors(min_card_rows):
    exact, within = shares((t, p) for t, p, *_ in min_card_rows)
    assert exact >= 0.45
    for anchor in (2, 3):
        assert exact > shares((r[0], r[anchor]) for r in min_card_rows)[0]
    # Level with the model-states anchor on within-2x over all rows (the Qwen3 <= 14B block listed at 8
    # for every setting caps it; see README); recorded here so a regression is noticed.
    assert within >= 0.80 and exact >= 0.58


def test_min_card_printed_cells_beat_both_anchors(shapes, devices, report):
    """Counted as the vendor printed the table (one unit per printed line x framework column on Snt9B,
    expanded rows sharing their cell's weight), the naive model-states rule lands near 84 % within 2x
    and 38 % exact; the planner must be clearly ahead on exact and ahead on within-2x."""
    cells = {}
    for r in read_csv("tables/min_cards.csv"):
        if r["cards"] and r["hardware"] == "Snt9B":
            s, dev = shapes[r["model_id"]], devices["snt9b"]
            p = plan_training(s, TrainConfig(method=r["strategy"], seq_len=int(r["seq_len"]), framework=r["framework"]), dev)
            cells.setdefault((r["seed_row"], r["framework"]), []).append(
                (int(r["cards"]), p.devices, naive_model_states(s, r["strategy"], dev)))

    def cell_shares(col):
        exact = sum(sum(c[0] == c[col] for c in cs) / len(cs) for cs in cells.values()) / len(cells)
        within = sum(sum(0.5 <= c[col] / c[0] <= 2 for c in cs) / len(cs) for cs in cells.values()) / len(cells)
        return exact, within

    assert len(cells) == 126
    (exact, within), (a_exact, a_within) = cell_shares(1), cell_shares(2)
    assert 0.83 <= a_within <= 0.86 and 0.37 <= a_exact <= 0.40  # the guide's figures for the anchor
    assert exact >= 0.60 and within >= 0.87 and within > a_within
    summary = report.summary()["min_cards (printed cells, Snt9B)"]
    assert summary["planner"]["rows"] == 126 and abs(summary["planner"]["exact"] - exact) < 1e-3


def test_recipe_table_cards_and_zero_stage(shapes, devices):
    rows = read_csv("tables/recipes_llamafactory.csv")
    assert len(rows) == 96
    pairs, same_stage = [], 0
    for r in rows:
        p = plan_training(shapes[r["model_id"]], TrainConfig(method=r["strategy"], seq_len=int(r["cutoff_len"])), devices["snt9b"])
        pairs.append((int(r["total_cards"]), p.devices))
        one_card = int(r["total_cards"]) == 1 and p.devices == 1 and {int(r["zero_stage"]), p.cfg.zero_stage} <= {0, 1, 2}
        same_stage += int(r["zero_stage"]) == p.cfg.zero_stage or one_card
    exact, within = shares(pairs)
    assert within >= 0.9 and exact >= 0.65
    assert same_stage / len(rows) >= 0.85
    flat = shares((int(r["total_cards"]), naive_flat(shapes[r["model_id"]], r["strategy"], devices["snt9b"])) for r in rows)
    states = shares((int(r["total_cards"]), naive_model_states(shapes[r["model_id"]], r["strategy"], devices["snt9b"])) for r in rows)
    assert exact > max(flat[0], states[0]) and within > max(flat[1], states[1])


def test_vllm_tables(report):
    rows = [r for r in report.rows if r.table == "vllm"]
    assert len(rows) >= 70
    assert sum(r.planner == r.table_value for r in rows) / len(rows) >= 0.95


def test_known_inconsistencies_are_flagged_not_fitted(report):
    flags = {r.label: r.flag for r in report.rows if r.table == "min_cards"}
    # qwen2-7b on LLaMA-Factory: LoRA 8 cards but full fine-tuning 1
    assert "method inversion" in flags["qwen2-7b lora 4096 LLaMA-Factory Snt9B"]
    assert "method inversion" in flags["qwen2-7b full 4096 LLaMA-Factory Snt9B"]
    # Qwen3-0.6B needs 8 while larger models in the same column need 1
    assert flags["qwen3-0.6b lora 4096 LLaMA-Factory Snt9B"]
    # llama3.2-1b on Snt9B23 with 1 DIE, below the 2-DIE unit (and below its 0.5B neighbours' 2)
    assert flags["llama3.2-1b full 4096 LLaMA-Factory Snt9B23"]
    # the planner still answers those rows with its own estimate
    planner = {r.label: r.planner for r in report.rows if r.table == "min_cards"}
    assert planner["qwen2-7b full 4096 LLaMA-Factory Snt9B"] >= 4  # 7.6B x 16+ bytes cannot fit one 64 GB card
