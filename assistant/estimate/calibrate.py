"""Calibration against the vendor tables, in the open: the planner's card count for every table row,
beside two naive anchors computed the same way, plus the rows the table itself contradicts.

Pure functions over lists of row dicts (the CSV rows and catalog rows); `sizing calibrate` prints them.
The table value is only ever compared with, never fed into, the estimate.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..kb import vendor_tables
from .memory import Device, TrainConfig
from .plan import device_counts, plan_training
from .shape import Shape, from_catalog


def device_from_row(h: dict[str, Any]) -> Device:
    return Device(id=h["id"], kind=h.get("kind") or "gpu", memory_gb=float(h["memory_gb"]),
                  devices_per_node=int(h.get("devices_per_node") or 8), min_unit=int(h.get("min_parallel_unit") or 1),
                  unit=h.get("unit") or "card", dies_per_card=int(h.get("dies_per_card") or 1),
                  fp8=str(h.get("fp8")).strip().lower() in {"true", "1"},
                  bf16=str(h.get("bf16", True)).strip().lower() not in {"false", "0"})


def round_up(n_exact: float, dev: Device, limit: int = 1 << 16) -> int:
    """Smallest allowed device count (the planner's rounding) that is >= n_exact."""
    for n in device_counts(dev, limit):
        if n >= n_exact - 1e-9:
            return n
    return limit


# ---------------------------------------------------------------- naive anchors
def naive_model_states(s: Shape, method: str, dev: Device) -> int:
    """DeepSpeed's estimator: model states only, every parameter trainable, ZeRO-3 (its smallest):
    per device 18·P/N + 4·largest layer (bytes) must fit the device's reported capacity."""
    room = dev.capacity_gib * 2**30 - 4 * s.largest_module_params
    return round_up(18 * s.params / room, dev)


def naive_flat(s: Shape, method: str, dev: Device, quant_bits: int = 4) -> int:
    """LLaMA-Factory's README table: 18 GB per billion parameters for full (AMP), 2 GB for
    freeze/LoRA, 1 / 0.5 / 0.25 GB for QLoRA 8/4/2 bit; divided by the device memory."""
    per_b = {"full": 18.0, "freeze": 2.0, "lora": 2.0, "qlora": {8: 1.0, 4: 0.5, 2: 0.25, 3: 0.375}[quant_bits]}[method]
    return round_up(per_b * s.params / 1e9 / dev.memory_gb, dev)


# ---------------------------------------------------------------- consistency flags
# A model "clearly larger" than another: at least this many times the parameters. Below that,
# vocabulary and MLP width differences can legitimately reorder memory needs.
CLEARLY_LARGER = 1.25
def flag_inconsistent(rows: list[dict[str, Any]], params_b: dict[str, float], unit: dict[str, int] | None = None) -> dict[int, str]:
    """Rows the table contradicts itself on (index -> reason), decided from the table alone plus two
    byte counts, never from the planner:
    1. method inversion: LoRA needs more devices than full fine-tuning of the same model and length;
    2. length inversion: a shorter sequence needs more devices than a longer one (both rows);
    3. below the unit: fewer devices than the hardware's smallest parallel unit (Snt9B23: 2 DIE);
    4. size inversion: a model needs more devices than a clearly larger one (>= 1.25x the parameters)
       at the same or a longer length, same framework, hardware and method; the rows contradicting the
       most others are flagged first until no contradiction is left (the fewest rows that explain all)."""
    unit = unit or {"Snt9B23": 2}
    flags: dict[int, str] = {}
    key: dict[tuple[Any, ...], dict[tuple[Any, Any], int]] = defaultdict(dict)
    for i, r in enumerate(rows):
        key[(r["model_id"], r.get("framework"), r.get("hardware"))][(r["strategy"], r["seq_len"])] = i
    for cells in key.values():
        for (strat, seq), i in cells.items():
            if strat == "lora" and ("full", seq) in cells:
                j = cells[("full", seq)]
                lo, fu = rows[i]["cards"], rows[j]["cards"]
                if lo > fu:
                    flags[i] = flags[j] = f"method inversion: LoRA needs {lo} but full fine-tuning {fu}"
            for (s2, seq2), j in cells.items():
                if s2 == strat and seq2 > seq and rows[j]["cards"] < rows[i]["cards"]:
                    msg = f"length inversion: {seq} tokens need {rows[i]['cards']} but {seq2} need {rows[j]['cards']}"
                    flags.setdefault(i, msg)
                    flags.setdefault(j, msg)
    for i, r in enumerate(rows):
        if r["cards"] < unit.get(str(r.get("hardware")), 1) and i not in flags:
            flags[i] = f"below the {unit[r['hardware']]}-device minimum parallel unit of {r['hardware']}"
    cols = defaultdict(list)
    for i, r in enumerate(rows):
        if i not in flags:
            cols[(r.get("framework"), r.get("hardware"), r["strategy"])].append(i)
    for idx in cols.values():
        for i, j in _size_cover(idx, rows, params_b):
            larger = params_b.get(rows[j]["model_id"], 0) > params_b.get(rows[i]["model_id"], 0)
            flags[i] = (f"size inversion: {rows[i]['model_id']} at {rows[i]['seq_len']} tokens needs {rows[i]['cards']} while the "
                        f"{'larger' if larger else 'smaller'} {rows[j]['model_id']} at {rows[j]['seq_len']} needs {rows[j]['cards']}")
    return flags


def _size_cover(idx: list[int], rows, params_b) -> list[tuple[int, int]]:
    """Greedy vertex cover of size contradictions: (flagged row, a row it contradicts)."""
    def p(i):
        return params_b.get(rows[i]["model_id"], 0.0)

    edges = {(i, j) for i in idx for j in idx
             if p(j) >= CLEARLY_LARGER * p(i) and rows[j]["seq_len"] >= rows[i]["seq_len"]
             and rows[j]["cards"] < rows[i]["cards"]}
    out = []
    while edges:
        deg: dict[int, int] = defaultdict(int)
        for i, j in edges:
            deg[i] += 1
            deg[j] += 1
        worst = max(deg, key=lambda k: (deg[k], rows[k]["cards"]))
        other = next(j if i == worst else i for i, j in edges if worst in (i, j))
        out.append((worst, other))
        edges = {e for e in edges if worst not in e}
    return out


# ---------------------------------------------------------------- scoring
@dataclass
class Score:
    rows: float = 0
    exact: float = 0
    within2: float = 0

    def add(self, table: int, est: int, weight: float = 1.0) -> None:
        self.rows += weight
        self.exact += weight * (est == table)
        self.within2 += weight * (0.5 <= est / table <= 2)

    def share(self, what: str) -> float:
        return getattr(self, what) / self.rows if self.rows else math.nan


@dataclass
class CalRow:
    table: str
    label: str
    table_value: int
    planner: int
    anchor_states: int
    anchor_flat: int
    flag: str | None
    detail: str = ""
    stage_table: str | None = None
    stage_planner: str | None = None
    cell: tuple[str, str, str] | None = None  # min-card table: (printed line, framework, hardware); expanded rows share it

    @property
    def ratio(self) -> float:
        return self.planner / self.table_value


@dataclass
class Report:
    rows: list[CalRow] = field(default_factory=list)

    def scores(self, table: str, include_flagged: bool = True) -> dict[str, Score]:
        out = {"planner": Score(), "model_states": Score(), "flat_bytes": Score()}
        if table == "vllm":
            out = {"planner": Score(), "weights_only": Score()}
        for r in self.rows:
            if r.table != table or (r.flag and not include_flagged):
                continue
            out["planner"].add(r.table_value, r.planner)
            if table == "vllm":
                out["weights_only"].add(r.table_value, r.anchor_states)
                continue
            out["model_states"].add(r.table_value, r.anchor_states)
            out["flat_bytes"].add(r.table_value, r.anchor_flat)
        return out

    def cell_scores(self, hardware: str) -> dict[str, Score]:
        """The min-card table counted as printed: one unit per printed cell (line x framework column) on
        one hardware, so a `full/lora 4096/8192` cell weighs as much as a single-row cell; the rows
        expanded from a cell share its weight equally."""
        cells: dict[tuple[str, str, str], list[CalRow]] = defaultdict(list)
        for r in self.rows:
            if r.table == "min_cards" and r.cell and r.cell[2] == hardware:
                cells[r.cell].append(r)
        out = {"planner": Score(), "model_states": Score(), "flat_bytes": Score()}
        for rs in cells.values():
            for r in rs:
                w = 1 / len(rs)
                out["planner"].add(r.table_value, r.planner, w)
                out["model_states"].add(r.table_value, r.anchor_states, w)
                out["flat_bytes"].add(r.table_value, r.anchor_flat, w)
        return out

    def summary(self) -> dict[str, Any]:
        """Headline shares per table, with and without flagged rows, for the planner and both anchors;
        the min-card table also per printed cell on each hardware."""
        out: dict[str, Any] = {}

        def shares(sc: dict[str, Score]) -> dict[str, Any]:
            return {name: {"rows": round(v.rows), "exact": round(v.share("exact"), 3), "within_2x": round(v.share("within2"), 3)}
                    for name, v in sc.items()}

        for table in sorted({r.table for r in self.rows}):
            for inc in (True, False):
                out[table + ("" if inc else " (unflagged)")] = shares(self.scores(table, inc))
            if table == "min_cards":
                for hw in sorted({r.cell[2] for r in self.rows if r.table == "min_cards" and r.cell}):
                    out[f"min_cards (printed cells, {hw})"] = shares(self.cell_scores(hw))
        if any(r.table == "recipes" for r in self.rows):
            st, sto, n = self.stage_agreement()
            out["recipes zero_stage"] = {"same_stage": st, "same_stage_and_offload": sto, "rows": n}
        out["flagged"] = {t: sum(1 for r in self.rows if r.table == t and r.flag) for t in sorted({r.table for r in self.rows})}
        return out

    def stage_agreement(self) -> tuple[int, int, int]:
        """(same ZeRO stage, same stage and offload, rows) on the recipe table. On one device ZeRO-0/1/2
        are the same thing (nothing to partition), so they count as equal there."""
        rs = [r for r in self.rows if r.table == "recipes"]

        def same(r, with_offload):
            a, b = r.stage_table, r.stage_planner
            if not with_offload:
                a, b = a.split("+")[0], b.split("+")[0]
            one = r.table_value == 1 and r.planner == 1 and a.split("+")[0] != "ZeRO-3" and b.split("+")[0] != "ZeRO-3"
            return a == b or (one and a.endswith("offload") == b.endswith("offload"))

        return sum(same(r, False) for r in rs), sum(same(r, True) for r in rs), len(rs)


def _stage_name(z: int, off: bool) -> str:
    return f"ZeRO-{z}" + ("+offload" if off else "")


def run(min_cards: list[dict], recipes: list[dict], models: list[dict], hardware: list[dict],
        vllm: list[dict] | None = None) -> Report:
    shapes = {m["id"]: from_catalog(m) for m in models}
    devs = {h["id"]: device_from_row(h) for h in hardware}
    table_parts = {h["table_part"]: h["id"] for h in hardware if h.get("table_part")}  # the tables' column -> catalog id
    report = Report()
    known = [r for r in min_cards if r.get("cards") not in (None, "") and _truthy(r.get("supported", True))]
    known = [dict(r, cards=int(r["cards"]), seq_len=int(r["seq_len"])) for r in known]
    params_b = {k: v.params / 1e9 for k, v in shapes.items()}
    flags = flag_inconsistent(known, params_b)
    for i, r in enumerate(known):
        s, dev = shapes[r["model_id"]], devs[table_parts[r["hardware"]]]
        # the table lists the fewest cards that ran: compared with the tightest plan (sized on the point estimate);
        # the default plan adds the margin of the estimate's range (margin.py)
        base = TrainConfig(method=r["strategy"], stage="sft", seq_len=r["seq_len"], framework=r["framework"], tightest=True)
        p = plan_training(s, base, dev)
        report.rows.append(CalRow("min_cards", f"{r['model_id']} {r['strategy']} {r['seq_len']} {r['framework']} {r['hardware']}",
                                  r["cards"], p.devices, naive_model_states(s, r["strategy"], dev),
                                  naive_flat(s, r["strategy"], dev), flags.get(i), _describe(p),
                                  cell=(str(r["seed_row"]), r["framework"], r["hardware"]) if r.get("seed_row") not in (None, "") else None))
    rec = [dict(r, total_cards=int(r["total_cards"]), cutoff_len=int(r["cutoff_len"]), zero_stage=int(r["zero_stage"]))
           for r in recipes]
    rec_rows = [dict(r, cards=r["total_cards"], seq_len=r["cutoff_len"], framework="LLaMA-Factory", hardware="Snt9B") for r in rec]
    rec_rows = [dict(r, offload=_truthy(r["offload"])) for r in rec_rows]
    rflags = flag_inconsistent(rec_rows, params_b)
    dev = devs[next(h["id"] for h in hardware if "recipes" in vendor_tables(h))]  # the part the recipes describe
    for i, r in enumerate(rec):
        s = shapes[r["model_id"]]
        p = plan_training(s, TrainConfig(method=r["strategy"], seq_len=r["cutoff_len"], tightest=True), dev)
        report.rows.append(CalRow("recipes", f"{r['model_id']} {r['strategy']} {r['cutoff_len']}", r["total_cards"], p.devices,
                                  naive_model_states(s, r["strategy"], dev), naive_flat(s, r["strategy"], dev),
                                  rflags.get(i), _describe(p), _stage_name(r["zero_stage"], _truthy(r["offload"])),
                                  _stage_name(p.cfg.zero_stage, p.cfg.offload)))
    if vllm:
        report.rows += run_inference(vllm, models, hardware)
    return report


def _truthy(v) -> bool:
    return v is True or str(v).lower() in {"true", "1", "yes"}


def _describe(p) -> str:
    c = p.cfg
    what = (f"TP{c.tp} PP{c.pp}" + (f" CP{c.cp}" if c.cp > 1 else "") + (f" EP{c.ep}" if c.ep > 1 else "")
            + (" recompute" if c.recompute else "")) if c.megatron else _stage_name(c.zero_stage, c.offload)
    return f"{what} {p.memory.total_gib:.1f}/{p.memory.usable_gib:.1f} GiB"


# ---------------------------------------------------------------- vLLM tables


def run_inference(vllm: list[dict], models: list[dict], hardware: list[dict]) -> list[CalRow]:
    """Fewest devices for each vLLM table row's tested max-model-len and utilisation, beside the table's
    card count. Anchor: weights only (bf16 weights / (utilisation x memory)), rounded the same way."""
    from .inference import plan_inference

    shapes = {m["id"]: from_catalog(m) for m in models if m.get("layers")}
    devs = {h["id"]: device_from_row(h) for h in hardware}
    vllm_parts: dict[int, str] = {}  # the vLLM tables' memory column -> the card they measured (910B cards, not DIE)
    for h in hardware:
        if "vllm" in vendor_tables(h) and h.get("unit") != "die":
            vllm_parts.setdefault(int(float(h["memory_gb"])), h["id"])
    out = []
    for r in vllm:
        if not _truthy(r.get("supported")) or r.get("cards") in (None, "") or r["model_id"] not in shapes:
            continue
        s, dev = shapes[r["model_id"]], devs[vllm_parts[int(float(r["memory_gb"]))]]
        util, length, cards = float(r["gpu_memory_utilization"]), int(float(r["max_model_len"])), int(float(r["cards"]))
        p = plan_inference(s, dev, length, util)
        naive = round_up(2 * s.params / (util * dev.capacity_gib * 2**30), dev)
        out.append(CalRow("vllm", f"{r['model_id']} {r['table']} {r['memory_gb']}GB len {length}", cards, p.devices,
                          naive, naive, None, f"TP{p.tp} PP{p.pp} KV room {p.kv_tokens} tokens"))
    return out
