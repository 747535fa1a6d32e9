"""The vendor row beside the estimate: which table rows match a planned case, whether the estimator
considers a row inconsistent with the rest of its table, and the note when table and plan disagree.
The rows are only ever compared with the plan, never fed into it.
"""

from __future__ import annotations

from ..estimate.calibrate import flag_inconsistent
from ..estimate.plan import Plan
from ..kb import vendor_tables
from .estimate_models import TableRef


def table_flags(ctx) -> dict[tuple, str]:
    """Consistency flags of the minimum-card table, computed once per context."""
    cache = ctx._cache
    if "min_card_flags" not in cache:
        rows = [dict(r) for r in ctx.kb.query("SELECT * FROM min_cards WHERE cards IS NOT NULL")]
        params = {m["id"]: float(m.get("params_b") or 0) for m in ctx.kb.models()}
        flags = flag_inconsistent(rows, params)
        cache["min_card_flags"] = {(r["model_id"], r["strategy"], r["seq_len"], r["framework"], r["hardware"]): flags[i]
                                   for i, r in enumerate(rows) if i in flags}
    return cache["min_card_flags"]


def table_refs(ctx, model_id: str | None, method: str, seq_len: int, framework: str, hw_id: str,
               stage: str = "sft") -> list[TableRef]:
    """Vendor rows for exactly this case: the tables cover SFT/PT, LoRA and full, on Snt9B/Snt9B23."""
    hw = ctx.kb.hardware_row(hw_id) or {}
    part, tables = hw.get("table_part"), vendor_tables(hw)  # the part's column; the tables that describe it
    if not model_id or not part or method not in ("lora", "full") or stage not in ("sft", "pt"):
        return []
    out = []
    for r in ctx.kb.min_cards(model_id, method, framework, part):
        if r["seq_len"] == seq_len:
            flag = table_flags(ctx).get((model_id, method, seq_len, framework, part))
            out.append(TableRef(source="min_cards", cards=r["cards"], supported=bool(r["supported"]), cell=r["cell"],
                                flagged=flag, citation=r["source"]))
    if framework == "LLaMA-Factory" and "recipes" in tables:
        for r in ctx.kb.recipes(model_id, method):
            if r["cutoff_len"] == seq_len:
                out.append(TableRef(source="recipes_llamafactory", cards=r["total_cards"], zero_stage=r["zero_stage"],
                                    offload=bool(r["offload"]), grad_accum=r["grad_accum"], cell=r["spec_cell"], citation=r["source"]))
    return out


def units(n: int, unit: str) -> str:
    """'8 cards', '1 card', '16 DIE'."""
    return f"{n} DIE" if unit.lower() == "die" else f"{n} {unit}{'s' if n != 1 else ''}"


def setting(p: Plan) -> str:
    """The plan's parallel setting in the vendor's words: 'ZeRO-3 + offload', 'TP4 PP2 CP2'."""
    c = p.cfg
    if c.megatron:
        return f"TP{c.tp} PP{c.pp}" + (f" CP{c.cp}" if c.cp > 1 else "") + (" with recompute" if c.recompute else "")
    return f"ZeRO-{c.zero_stage}" + (" + offload" if c.offload else "")


def disagreement(p: Plan, refs: list[TableRef], unit: str) -> str | None:
    """Where the vendor rows and the plan differ (device count, ZeRO stage/offload), or None."""
    notes = []
    for t in refs:
        name = "minimum-card table" if t.source == "min_cards" else "LLaMA-Factory recipe table"
        if not t.supported or t.cards is None:
            notes.append(f"The {name} marks this case as not supported ('-').")
            continue
        if t.cards != p.devices:
            ratio = p.devices / t.cards
            s = (f"The {name} says {units(t.cards, unit)}; the plan fits on {units(p.devices, unit)} with {setting(p)} ({ratio:.2g}x)"
                 + ("; the table is more conservative than memory requires" if ratio < 1 else "; the estimate is the more conservative"))
            if t.flagged:
                s += f"; this table row is flagged as inconsistent ({t.flagged})"
            notes.append(s + ".")
        if t.zero_stage is not None and p.cfg.zero_stage is not None and not p.cfg.megatron and (
                t.zero_stage != p.cfg.zero_stage or bool(t.offload) != p.cfg.offload):
            notes.append(f"The recipe table uses ZeRO-{t.zero_stage}{'-Offload' if t.offload else ''}; the planner picks "
                         f"ZeRO-{p.cfg.zero_stage}{'-Offload' if p.cfg.offload else ''}.")
    return " ".join(notes) or None
