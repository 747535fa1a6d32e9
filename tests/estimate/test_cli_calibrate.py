"""`sizing calibrate` prints every table row and the totals."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from assistant.frontends.cli import app


def test_calibrate_summary_and_rows(settings, monkeypatch):
    monkeypatch.setenv("SIZING_CACHE_DIR", str(settings.resolved_cache_dir()))
    runner = CliRunner()
    out = runner.invoke(app, ["calibrate", "--summary"])
    assert out.exit_code == 0, out.output
    assert "min_cards (412 rows): planner" in out.output and "model_states" in out.output and "flat_bytes" in out.output
    assert "recipes ZeRO stage agreement" in out.output and "flagged rows: min_cards" in out.output
    # the measurement check beside the table check (knowledge/catalog/measurements.csv: 64 rows, 57 numeric)
    assert "measurements (57 numeric rows, knowledge/catalog/measurements.csv): median |ln(predicted/measured)|" in out.output
    # per file: the verdicts, the training peaks by what they measured, and the spread the range is built from
    assert "  verdicts: 7/7 right; reported OOMs called 'fits' 0/6" in out.output
    # like with like (the row's `metric`): torch's peak reserved against reserved_gib (the allocator's segments, no
    # runtime context or NCCL buffers), the allocated rows against allocated_gib
    assert "  training peaks, reserved (vs reserved_gib): 6 rows" in out.output
    assert "  training peaks, allocated (vs allocated_gib): 11 rows" in out.output
    assert "  range: measured / predicted over 33 peaks (like with like): percentiles" in out.output
    js = runner.invoke(app, ["calibrate", "--table", "recipes", "--format", "json"])
    data = json.loads(js.output)
    m = data["measurements"]
    assert m["numeric_rows"] == 57 and m["not_expressible"] == {} and m["fits_oom_agree"] == "7/7"
    rows = [r for r in data["rows"] if r["table"] == "recipes"]
    assert len(rows) == 96 and {"table_value", "planner", "ratio", "model_states", "flat_bytes", "flag"} <= set(rows[0])
    row = next(r for r in rows if r["case"] == "llama3.1-8b full 8192")
    assert row["table_value"] == 8 and row["zero_stage_table"] == "ZeRO-2"
    assert runner.invoke(app, ["calibrate", "--table", "nope"]).exit_code == 2
    missing = runner.invoke(app, ["calibrate", "--summary", "--measurements", "no/such.csv"])
    assert missing.exit_code == 2 and "No measurement file no/such.csv" in missing.output
