"""The estimator against published measurements (knowledge/catalog/measurements.csv): each row is a
measured figure with its source and the tool arguments that express it. The same check as the
project's external evaluation script, run in-process: `sizing calibrate` prints it beside the table
check. The tools are reached through `call(tool, args) -> result dict`, passed in by the caller.

Row kinds: kv_tokens (estimate_inference kv_tokens_fit, largest layout on n_gpus), weights_gib
(weights per device), train_peak_gib (estimate_training_memory total_gib), max_seq (longest seq_len
that fits), fits/oom (fits), capacity_gib (usable_gib). Units: GiB, GB1e9 (decimal GB), G? (read as GiB), tokens.
"""

from __future__ import annotations

import csv
import json
import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Call = Callable[[str, dict[str, Any]], dict[str, Any]]
GIB = 1024**3
SERVE_KINDS = ("kv_tokens", "weights_gib")


@dataclass
class Measured:
    id: str
    kind: str
    source: str
    measured: float | None  # GiB or tokens; None for fits/oom rows
    predicted: float | None = None
    measured_fits: bool | None = None
    predicted_fits: bool | None = None
    why_not: str = ""  # why the row cannot be expressed
    metric: str = ""  # reserved | allocated | unstated: what the row's source reports (metric_of)
    verdict: str | None = None  # fits | tight | does_not_fit (training rows)
    states: float | None = None  # model states GiB of the prediction (training peaks)
    rest: float | None = None  # activations + logits + overhead GiB of the prediction
    low: float | None = None  # the prediction's likely range (margin.py)
    high: float | None = None

    @property
    def factor(self) -> float | None:
        """k = (measured - states) / rest: how far the non-state terms were off on this row (margin.py)."""
        if self.kind != "train_peak_gib" or self.measured is None or self.states is None or not self.rest:
            return None
        return (self.measured - self.states) / self.rest

    @property
    def ratio(self) -> float | None:
        if self.measured and self.predicted is not None and self.measured > 0 and self.predicted > 0:
            return self.predicted / self.measured
        return None


def metric_of(text: str) -> str:
    """What a row's `metric` column says it measured: the allocator's pool (peak reserved, npu-smi / nvidia-smi
    device memory), the tensors (peak allocated or active), or unstated."""
    t = (text or "").lower()
    if "reserved" in t or "smi" in t:
        return "reserved"
    if "allocated" in t or "active" in t:
        return "allocated"
    return "unstated"


def load(path: Path) -> list[dict[str, Any]]:
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        r["tool_args"] = json.loads(r.get("tool_args") or "{}")
    return rows


def _int(x: Any, default: int | None = None) -> int | None:
    try:
        return int(float(x))
    except (TypeError, ValueError):
        return default


def _measured(r: dict[str, Any]) -> float | None:
    try:
        v = float(r["measured_value"])
    except (TypeError, ValueError):
        return None
    return v * 1e9 / GIB if (r.get("unit") or "").strip() == "GB1e9" else v


def train_args(r: dict[str, Any], seq_len: int | None = None) -> dict[str, Any]:
    a: dict[str, Any] = {"model": r["model"], "method": r["method"], "micro_batch": _int(r["micro_batch"], 1),
                         "devices": _int(r["n_gpus"], 1),
                         "seq_len": seq_len if seq_len is not None else _int(r["seq_len"], 4096),
                         "offload": str(r.get("offload", "")).strip().lower() == "true"}
    if (tp := _int(r["tp"], 1)) and tp > 1:
        a["tp"] = tp
    if (z := _int(r["zero_stage"])) is not None:
        a["zero_stage"] = z
    if r["precision"].strip() in {"bf16", "fp16", "fp32", "pure_bf16"}:
        a["precision"] = r["precision"].strip()
    return {**a, **r["tool_args"]}


def serve_args(r: dict[str, Any]) -> dict[str, Any]:
    return {"model": r["model"], "max_model_len": _int(r["seq_len"], 4096), "gpu_memory_utilization": float(r["gmu"] or 0.9),
            "max_devices": _int(r["n_gpus"], 1), "largest_layout": True, **r["tool_args"]}


def longest_fitting(call: Call, r: dict[str, Any], lo: int = 128, hi: int = 1 << 20) -> int:
    """Largest seq_len at which the training estimate fits (memory grows with length: binary search)."""
    def fits(n: int) -> bool:
        return bool(call("estimate_training_memory", train_args(r, n)).get("fits"))

    if not fits(lo):
        return 0
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    return lo


def evaluate(rows: list[dict[str, Any]], call: Call) -> list[Measured]:
    out = []
    for r in rows:
        m = Measured(r["id"], r["kind"], r["source"], _measured(r), metric=metric_of(r.get("metric", "")))
        value = str(r["measured_value"]).strip().lower()
        m.measured_fits = False if r["kind"] == "oom" else (value in {"yes", "true"} if r["kind"] == "fits" else None)
        out.append(m)
        expressible = (r.get("expressible") or "yes").strip()
        if not expressible.lower().startswith("yes"):
            m.why_not = expressible.split(":", 1)[-1].strip()
            continue
        if r["kind"] == "max_seq":
            m.predicted = float(longest_fitting(call, r))
            continue
        x = call("estimate_inference", serve_args(r)) if r["kind"] in SERVE_KINDS else call("estimate_training_memory", train_args(r))
        if "error" in x:
            m.why_not = "tool error: " + str(x["error"].get("message", ""))
        elif r["kind"] == "kv_tokens":
            m.predicted = float(x["kv_tokens_fit"])
        elif r["kind"] == "weights_gib":
            m.predicted = float(x["weights_gib_per_device"])
        elif r["kind"] == "capacity_gib":
            m.predicted = float(x["usable_gib"])
        else:
            m.predicted, m.predicted_fits, m.verdict = float(x["total_gib"]), bool(x["fits"]), x.get("verdict")
            m.states = x["weights_gib"] + x["gradients_gib"] + x["optimizer_gib"]
            m.rest = x["total_gib"] - m.states
            m.low, m.high = x.get("low_gib"), x.get("high_gib")
    return out


def summary(results: list[Measured]) -> dict[str, Any]:
    """Median |ln(predicted/measured)|, shares within 1.25x and 2x (numeric rows), fits/OOM agreement,
    measured runs predicted to fit, and the rows the tools cannot express with the reason."""
    ratios = [m.ratio for m in results if m.ratio]
    logs = [abs(math.log(x)) for x in ratios]
    ran = [m for m in results if m.kind == "train_peak_gib" and m.predicted_fits is not None]
    fo = [m for m in results if m.kind in ("fits", "oom") and m.predicted_fits is not None]
    by_metric = {}
    for name in ("reserved", "allocated", "unstated"):
        rs = [m.ratio for m in results if m.kind == "train_peak_gib" and m.metric == name and m.ratio]
        if rs:
            by_metric[name] = {"rows": len(rs), "median_abs_log": round(statistics.median(abs(math.log(x)) for x in rs), 3),
                               "median_ratio": round(statistics.median(rs), 3)}
    ooms = [m for m in fo if m.kind == "oom"]
    verdict_right = sum((m.verdict != "fits") if m.kind == "oom" else (m.verdict != "does_not_fit") for m in fo)
    ranged = [(m.low, m.measured, m.high) for m in results if m.kind == "train_peak_gib"]
    spans = [(lo, x, hi) for lo, x, hi in ranged if lo is not None and x is not None and hi is not None]
    return {"numeric_rows": len(logs),
            "peaks_in_range": f"{sum(lo <= x <= hi for lo, x, hi in spans)}/{len(spans)}",
            "median_ratio": round(statistics.median(ratios), 3) if ratios else None,
            "train_peak_by_metric": by_metric,
            "verdicts_right": f"{verdict_right}/{len(fo)}",
            "oom_called_fits": f"{sum(m.verdict == 'fits' for m in ooms)}/{len(ooms)}",
            "runs_called_does_not_fit": f"{sum(m.verdict == 'does_not_fit' for m in ran)}/{len(ran)}",
            "median_abs_log": round(statistics.median(logs), 3) if logs else None,
            "within_1.25x": round(sum(v <= math.log(1.25) for v in logs) / len(logs), 3) if logs else None,
            "within_2x": round(sum(v <= math.log(2) for v in logs) / len(logs), 3) if logs else None,
            "fits_oom_agree": f"{sum(m.predicted_fits == m.measured_fits for m in fo)}/{len(fo)}",
            "runs_predicted_to_fit": f"{sum(bool(m.predicted_fits) for m in ran)}/{len(ran)}",
            "not_expressible": {m.id: m.why_not for m in results if m.why_not}}


def factor_spread(results: list[Measured], low_q: float = 0.1, high_q: float = 0.9) -> dict[str, float] | None:
    """The spread of k = (measured - states) / rest over the measured training peaks: the percentiles that
    constants.VARIABLE_RANGE holds (margin.py)."""
    ks = sorted(k for m in results if (k := m.factor) is not None)
    if len(ks) < 3:
        return None
    qs = statistics.quantiles(ks, n=20, method="inclusive")  # 5 %, 10 %, ... 95 %
    return {"rows": len(ks), "low": round(qs[round(low_q * 20) - 1], 2), "high": round(qs[round(high_q * 20) - 1], 2),
            "min": round(ks[0], 2), "max": round(ks[-1], 2)}
