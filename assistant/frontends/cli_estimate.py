"""`sizing calibrate`: the planner against every vendor table row, beside two naive anchors."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

TABLES = ("min_cards", "recipes", "vllm")


def _report(ctx):
    from ..estimate.calibrate import run

    kb = ctx.kb
    return run(kb.table_rows("min_cards"), kb.table_rows("recipes_llamafactory"), kb.models(), kb.hardware(),
               kb.table_rows("vllm_min_cards"))


def _measured(ctx, path: Path) -> tuple[dict, list]:
    """The estimator against the published measurements in one measurement file (summary, per-row results)."""
    from ..estimate.measured import evaluate, load, ratio_spread, summary
    from ..tools import registry_for

    results = evaluate(load(path), lambda tool, args: registry_for(tool).call_json(tool, args, ctx))
    return {**summary(results), "range_ratio": ratio_spread(results)}, results


def _spread_line(what: str, f: dict) -> str:
    return (f"  {what}: measured / predicted over {f['rows']} peaks (like with like): percentiles 5th {f['p5']}, "
            f"10th {f['p10']}, 25th {f['p25']}, median {f['median']}, 75th {f['p75']}, 90th {f['p90']}, 95th {f['p95']} "
            f"(min {f['min']}, max {f['max']}); constants.RANGE_RATIO holds the 10th-90th of the files together, "
            "PLAN_MARGIN (GPU) the 75th")


def _metric_lines(by_metric: dict) -> list[str]:
    return [f"  training peaks, {metric} (vs {v['compared_with']}): {v['rows']} rows, median |ln| {v['median_abs_log']}, "
            f"median ratio {v['median_ratio']}" for metric, v in by_metric.items()]


def _measured_lines(name: str, m: dict) -> list[str]:
    """The measurement lines `sizing calibrate` prints for one file."""
    lines = [f"measurements ({m['numeric_rows']} numeric rows, {name}): median |ln(predicted/measured)| "
             f"{m['median_abs_log']}, median ratio {m['median_ratio']}, {m['within_1.25x']:.1%} within 1.25x, "
             f"{m['within_2x']:.1%} within 2x; fits/OOM rows {m['fits_oom_agree']} agree; runs that happened predicted "
             f"to fit {m['runs_predicted_to_fit']}"]
    lines.append(f"  verdicts: {m['verdicts_right']} right; reported OOMs called 'fits' {m['oom_called_fits']}; runs that "
                 f"happened called 'does_not_fit' {m['runs_called_does_not_fit']}; measured peaks inside the likely range "
                 f"{m['peaks_in_range']}")
    lines += _metric_lines(m["train_peak_by_metric"])
    if f := m.get("range_ratio"):
        lines.append(_spread_line("range", f))
    lines += [f"  not expressible: {rid}: {why}" for rid, why in m["not_expressible"].items()]
    lines += [f"  flagged, out of the verdicts: {rid}: {why}" for rid, why in m["contradicted"].items()]
    return lines


def _together_lines(results_by_file: list[list]) -> list[str]:
    """The files together, each measurement id once (the first file's row wins): per metric and the ratio spread."""
    from ..estimate.measured import metric_lines, ratio_spread, summary, unique

    rows = unique(results_by_file)
    s = summary(rows)
    lines = [f"measurements, {len(results_by_file)} files together ({len(rows)} distinct rows): fits/OOM rows "
             f"{s['fits_oom_agree']} agree; reported OOMs called 'fits' {s['oom_called_fits']}; runs that happened called "
             f"'does_not_fit' {s['runs_called_does_not_fit']}"
             + (f" (flagged, out of the verdicts: {', '.join(s['contradicted'])})" if s["contradicted"] else "")]
    lines += _metric_lines(metric_lines(rows))
    if f := ratio_spread(rows):
        lines.append(_spread_line("range", f))
    return lines


def _fmt_share(v: dict) -> str:
    return f"{v['exact']:.1%} exact, {v['within_2x']:.1%} within 2x"


def register(app: typer.Typer) -> None:
    @app.command("calibrate")
    def calibrate_cmd(
        table: Annotated[str, typer.Option("--table", "-t", help="min_cards, recipes, vllm or all.")] = "all",
        fmt: Annotated[str, typer.Option("--format", "-f", help="text, md or json.")] = "text",
        only_disagree: Annotated[bool, typer.Option("--disagree", help="Only rows where planner and table differ.")] = False,
        summary_only: Annotated[bool, typer.Option("--summary", help="Only the totals.")] = False,
        measurements: Annotated[list[Path] | None, typer.Option(
            "--measurements", "-m", help="Measurement CSV files (same columns as knowledge/catalog/measurements.csv); "
            "repeatable. Default: the project's copy.")] = None,
    ):
        """Compare the planner with every vendor table row (min-card table: both frameworks, Snt9B and
        Snt9B23; LLaMA-Factory recipe table; vLLM tables) beside two naive anchors, and list the rows
        the table contradicts itself on."""
        from .cli import context as _context

        if table not in (*TABLES, "all") or fmt not in ("text", "md", "json"):
            typer.echo(f"Valid: --table {', '.join(TABLES)}, all; --format text, md, json", err=True)
            raise typer.Exit(2)
        ctx = _context()
        rep = _report(ctx)
        rows = [r for r in rep.rows if table in ("all", r.table) and not (only_disagree and r.planner == r.table_value)]
        summary = rep.summary()
        files = measurements or [ctx.settings.knowledge_dir / "catalog" / "measurements.csv"]
        for f in files:
            if not f.is_file():
                typer.echo(f"No measurement file {f}: give CSV files with the columns of knowledge/catalog/measurements.csv.",
                           err=True)
                raise typer.Exit(2)
        root = ctx.settings.knowledge_dir.resolve().parent
        evaluated = {str(f.resolve().relative_to(root)) if f.resolve().is_relative_to(root) else str(f): _measured(ctx, f)
                     for f in files}
        measured = {name: m for name, (m, _) in evaluated.items()}
        together = _together_lines([r for _, r in evaluated.values()]) if len(files) > 1 else []
        if fmt == "json":
            out = {"summary": summary, "measurements": next(iter(measured.values())), "measurement_files": measured}
            if not summary_only:
                out["rows"] = [{"table": r.table, "case": r.label, "table_value": r.table_value, "planner": r.planner,
                                "ratio": round(r.ratio, 3), "model_states": r.anchor_states, "flat_bytes": r.anchor_flat,
                                "zero_stage_table": r.stage_table, "zero_stage_planner": r.stage_planner,
                                "plan": r.detail, "flag": r.flag} for r in rows]
            sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
            return
        md = fmt == "md"
        if not summary_only:
            head = ["table", "case", "table", "planner", "ratio", "states", "flat", "plan", "flag"]
            if md:
                typer.echo("| " + " | ".join(head) + " |")
                typer.echo("|" + "---|" * len(head))
            for r in rows:
                stage = f" [{r.stage_table} vs {r.stage_planner}]" if r.stage_table else ""
                cells = [r.table, r.label, str(r.table_value), str(r.planner), f"{r.ratio:.2g}", str(r.anchor_states),
                         str(r.anchor_flat), r.detail + stage, r.flag or ""]
                typer.echo("| " + " | ".join(c.replace("|", "/") for c in cells) + " |" if md else
                           f"{r.table:9s} {r.label:58s} {r.table_value:>4} {r.planner:>4} {r.ratio:>5.2g} "
                           f"{r.anchor_states:>4} {r.anchor_flat:>4}  {r.detail}{stage}" + (f"  FLAG {r.flag}" if r.flag else ""))
            typer.echo("")
        for key, val in summary.items():
            if key == "flagged":
                typer.echo("flagged rows: " + ", ".join(f"{k} {v}" for k, v in val.items()))
            elif key.endswith("zero_stage"):
                typer.echo(f"recipes ZeRO stage agreement: {val['same_stage']}/{val['rows']} stage, "
                           f"{val['same_stage_and_offload']}/{val['rows']} stage and offload")
            elif table in ("all", key.split(" ")[0]):
                unit = "cells" if "printed cells" in key else "rows"
                typer.echo(f"{key} ({val['planner']['rows']} {unit}): " + "; ".join(f"{name} {_fmt_share(v)}" for name, v in val.items()))
        for name, m in measured.items():
            for line in _measured_lines(name, m):
                typer.echo(line)
        for line in together:
            typer.echo(line)
