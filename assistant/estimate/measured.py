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

from ..setup_check.oom import read_oom
from . import constants as C

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
    metric: str = ""  # reserved | device | allocated | unstated: what the row's source reports (metric_of)
    verdict: str | None = None  # fits | tight | does_not_fit (training rows)
    allocated: float | None = None  # the prediction's tensors alone (allocated_gib), for rows that report those
    reserved: float | None = None  # the prediction's allocator segments alone (reserved_gib), for rows reporting torch's reserved
    low: float | None = None  # the prediction's likely range (margin.py)
    high: float | None = None
    pinned: float = 0.0  # gathered ZeRO-3 blocks the pool may keep pinned, on the range's upper end (pinned_gib)
    contradicted: str = ""  # why the row cannot be held against the estimate (before_the_step), kept out of the verdicts

    @property
    def like_for_like(self) -> float | None:
        """The prediction of what the row measured: allocated_gib for rows reporting peak allocated/active tensors,
        reserved_gib for rows reporting the caching allocator's peak reserved (no runtime context, no HCCL/NCCL buffers:
        memory.outside_pool_gib), total_gib (the pool with the runtime beside it) for device-level and unstated rows."""
        if self.metric == "allocated" and self.allocated is not None:
            return self.allocated
        if self.metric == "reserved" and self.reserved:
            return self.reserved
        return self.predicted

    @property
    def ratio(self) -> float | None:
        if self.measured and self.predicted is not None and self.measured > 0 and self.predicted > 0:
            return self.predicted / self.measured
        return None

    @property
    def metric_ratio(self) -> float | None:
        """predicted / measured, like with like (like_for_like); training peaks only."""
        p = self.like_for_like
        if self.kind == "train_peak_gib" and self.measured and p and self.measured > 0:
            return p / self.measured
        return None


def metric_of(text: str) -> str:
    """What a row's `metric` column says it measured: the caching allocator's pool (peak reserved: torch's statistic,
    or a framework's log of it), the device memory in use (npu-smi / nvidia-smi: the pool with the runtime context and
    the collectives' buffers beside it), the tensors (peak allocated or active), or unstated."""
    t = (text or "").lower()
    if "smi" in t:
        return "device"
    if "reserved" in t:
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
    """Largest seq_len at which the training estimate does not rule the run out (memory grows with length: binary
    search). A length that trained is a run that happened, so it is held against "fits or tight", as the verdicts of
    the other rows that ran are: ``fits`` alone (the upper end fits) would make the longest length the range's floor."""
    def fits(n: int) -> bool:
        x = call("estimate_training_memory", train_args(r, n))
        return "error" not in x and x.get("verdict", "fits" if x.get("fits") else "does_not_fit") != "does_not_fit"

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
            m.allocated = x.get("allocated_gib")
            m.reserved = x.get("reserved_gib")
            m.low, m.high = x.get("low_gib"), x.get("high_gib")
            m.pinned = float(x.get("pinned_gib") or 0.0)
            m.contradicted = before_the_step(r, m)
    return out


def before_the_step(r: dict[str, Any], m: Measured) -> str:
    """Why a reported OOM contradicts the estimate of the training step, or "": its own error message (quoted in the
    row's notes) says fewer tensors were allocated when it failed than the step needs, below the low end of the
    estimate's allocated figure (allocated_gib x constants.RANGE_RATIO low). The run then failed before the step's
    tensors existed: at load, or in a pool the allocator could not free (reserved far above allocated), which no
    estimate of the step speaks to. Flagged the way `sizing calibrate` flags vendor rows that contradict the others:
    shown, and kept out of the verdict counts.

    ../shared/eval/measurements_dev2.csv d3-lfnpu-03 (LLaMA-Factory issue 4758, Qwen2-72B LoRA, ZeRO-3, 16 x 910B
    64 GB, 2048 tokens): 8.99 GiB allocated with 59.48 GiB reserved when 926 MiB was asked. 8.99 GiB is the bf16
    ZeRO-3 shard, 72.71e9 x 2 B / 16 = 8.46 GiB, plus 0.53; the estimate's step holds 20.1 GiB of tensors (the
    shard, 5.6 GiB of gathered modules, activations, loss). 926 MiB is 8192 x 29,568 x 4 B = 924.0 MiB (one whole
    Qwen2-72B MLP projection at 4 B per element, or two at 2 B; torch_npu's allocator adds 32 B and rounds a large
    block up to 2 MiB): a whole unit, not a 1/16 shard, asked while 50 GiB of pool sat in segments pinned by live
    shards. The vendor's minimum-card table runs a 72B LoRA with LLaMA-Factory on 16 Snt9B cards (Qwen2-VL-72B,
    1024 tokens), so the steady state is not what failed.

    Where the estimate's range holds such a pool (gathered ZeRO-3 blocks pinned on Ascend, memory.gathered_block_pinning:
    80 x 8192 x 29,568 x 2 B = 36.1 GiB for this row), it does speak to the failure, and the row counts in the verdicts."""
    if r["kind"] != "oom" or m.allocated is None or m.pinned > 0:
        return ""
    report = read_oom(r.get("notes") or "")
    if report is None or report.allocated_gib is None:
        return ""
    floor = m.allocated * C.RANGE_RATIO[0]
    if report.allocated_gib >= floor:
        return ""
    pool = f" ({report.reserved_gib:.2f} GiB reserved)" if report.reserved_gib else ""
    return (f"contradicted: it failed with {report.allocated_gib:.2f} GiB allocated{pool}, below the step's tensors "
            f"(estimate {m.allocated:.1f} GiB allocated, low end {floor:.1f}): it failed before the step (at load, or "
            "in a pool the allocator could not free), which the estimate of the step does not speak to")


def summary(results: list[Measured]) -> dict[str, Any]:
    """Median |ln(predicted/measured)|, shares within 1.25x and 2x (numeric rows), fits/OOM agreement,
    measured runs predicted to fit, and the rows the tools cannot express with the reason."""
    ratios = [m.ratio for m in results if m.ratio]
    logs = [abs(math.log(x)) for x in ratios]
    ran = [m for m in results if m.kind == "train_peak_gib" and m.predicted_fits is not None]
    # verdicts over the rows that can be held against the estimate (flagged ones listed under "contradicted")
    fo = [m for m in results if m.kind in ("fits", "oom") and m.predicted_fits is not None and not m.contradicted]
    by_metric = metric_lines(results)
    ooms = [m for m in fo if m.kind == "oom"]
    verdict_right = sum((m.verdict != "fits") if m.kind == "oom" else (m.verdict != "does_not_fit") for m in fo)
    # like with like: a row reporting tensors is held against the range shifted down to allocated_gib
    ranged = [(m.low - shift, m.measured, m.high - shift) for m in results if m.kind == "train_peak_gib"
              and m.low is not None and m.high is not None and m.predicted is not None
              for shift in [m.predicted - (m.like_for_like or m.predicted)]]
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
            "not_expressible": {m.id: m.why_not for m in results if m.why_not},
            "contradicted": {m.id: m.contradicted for m in results if m.contradicted}}


def metric_lines(results: list[Measured]) -> dict[str, dict[str, Any]]:
    """Training peaks per metric, like with like (Measured.metric_ratio): rows reporting the caching allocator's peak
    reserved against reserved_gib, rows reporting tensors against allocated_gib, device-level rows (npu-smi /
    nvidia-smi) and rows whose statistic is unstated against total_gib."""
    out = {}
    against = {"reserved": "reserved_gib", "allocated": "allocated_gib"}
    for name in ("reserved", "device", "allocated", "unstated"):
        rs = [r for m in results if m.metric == name and (r := m.metric_ratio)]
        if rs:
            out[name] = {"rows": len(rs), "median_abs_log": round(statistics.median(abs(math.log(x)) for x in rs), 3),
                         "median_ratio": round(statistics.median(rs), 3),
                         "compared_with": against.get(name, "total_gib")}
    return out


def unique(results_by_file: list[list[Measured]]) -> list[Measured]:
    """The rows of several files, a measurement id counted once (the first file's row wins)."""
    seen: dict[str, Measured] = {}
    for results in results_by_file:
        for m in results:
            seen.setdefault(m.id, m)
    return list(seen.values())


def ratio_spread(results: list[Measured]) -> dict[str, Any] | None:
    """Percentiles of measured / predicted over the training peaks, like with like: the numbers constants.RANGE_RATIO
    (10th and 90th) and PLAN_MARGIN (75th) hold (margin.py)."""
    xs = sorted(1 / r for m in results if (r := m.metric_ratio))
    if len(xs) < 3:
        return None
    qs = statistics.quantiles(xs, n=20, method="inclusive")  # 5 %, 10 %, ... 95 %
    return {"rows": len(xs), "p5": round(qs[0], 2), "p10": round(qs[1], 2), "p25": round(qs[4], 2),
            "median": round(qs[9], 2), "p75": round(qs[14], 2), "p90": round(qs[17], 2), "p95": round(qs[18], 2),
            "min": round(xs[0], 2), "max": round(xs[-1], 2)}
