"""find_table_rows: a typed filter over a whole vendor table ("which models need more than 64 cards with
MindSpeed-LLM", "which recipe rows use ZeRO-0", "which have no MindSpeed entry"), returning the matching rows
with their source, so a question about the table as a whole is answered row by row from the table.

No ``from __future__ import annotations`` (see tables.py): pydantic compiles the models on first use."""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import SizingError
from .common import AscendPart, Framework, SeqLen, Strategy
from .model_filter import OPS, Compare, Op, in_family, model_passes  # noqa: F401  (Op and OPS: this module's interface too)
from .registry import tool

TableName = Literal["min_cards", "recipes", "vllm"]
# The database table behind each name, and the filters that mean something on it (the others are refused).
SQL_TABLE = {"min_cards": "min_cards", "recipes": "recipes_llamafactory", "vllm": "vllm_min_cards"}
APPLIES = {
    "min_cards": {"framework", "strategy", "seq_len", "hardware", "cards", "nodes", "supported", "versus"},
    "recipes": {"framework", "strategy", "seq_len", "zero_stage", "offload", "grad_accum", "grad_accum_not", "cards", "nodes", "per_node"},
    "vllm": {"seq_len", "cards", "supported", "memory_gb", "vllm_table"},
}
TITLE = {"min_cards": "ModelArts minimum-card table (模型最小卡数配置, 2025-06-24)",
         "recipes": "ModelArts LLaMA-Factory recipe table (模型NPU卡数、梯度累积值取值表)",
         "vllm": "ModelArts vLLM tables (推理部署, 32/64 GB cards)"}


class FilterModel(BaseModel):
    model_config = ConfigDict(defer_build=True)


class Versus(FilterModel):
    """A row vs its pair: {against: framework, op: gt}, framework MindSpeed-LLM: more cards than LLaMA-Factory's row."""

    against: Literal["framework", "hardware", "strategy"] = Field(description="framework, hardware or strategy.")
    op: Op | None = Field(None, description="This row's count vs the other's.")
    other: Compare | None = Field(None, description="The other row's count.")


class FindTableRowsArgs(FilterModel):
    # Descriptions lead with a short clause: the LLM sees that clause only (llm/schemas.py), REST and MCP the whole text.
    table: TableName = Field(description="Which table. min_cards: minimum cards per model, strategy, SEQ_LEN, framework and part; "
                             "recipes: the LLaMA-Factory recipe (ZeRO stage, offload, GA, nodes x cards); vllm: serving cards and tested length.")
    model: str | None = Field(None, max_length=60, description="Model id. With extreme max: 'the most cards deepseek-v3 "
                              "needs in the table'.")
    family: str | None = Field(None, min_length=2, max_length=40, pattern=r"^[a-z0-9.\-]+$", description="Model id prefix, e.g. qwen3. "
                               "Only models whose catalog id starts with this and a dash (qwen2: not qwen2.5-7b), or a name of letters alone and its version (llama: llama3.1-8b).")
    arch: Literal["dense", "moe"] | None = Field(None, description="dense or moe models only.")
    params_b: Compare | None = Field(None, description="Parameters (B) compared.")
    framework: Framework | None = Field(None, description="min_cards: only this framework's rows (the recipe table is LLaMA-Factory's).")
    strategy: Strategy | None = Field(None, description="lora or full (min_cards, recipes).")
    seq_len: SeqLen | None = Field(None, description="Row length. min_cards: SEQ_LEN; recipes: cutoff_len; vllm: tested max-model-len at least this.")
    hardware: AscendPart | None = Field(None, description="min_cards: Snt9B (cards) or Snt9B23 (DIE).")
    zero_stage: int | None = Field(None, ge=0, le=3, description="recipes only. The DeepSpeed ZeRO stage.")
    offload: bool | None = Field(None, description="recipes only. CPU offload on (true) or off (false).")
    grad_accum: int | None = Field(None, ge=1, le=4096, description="recipes only. gradient_accumulation_steps.")
    grad_accum_not: int | None = Field(None, ge=1, le=4096, description="recipes only. gradient_accumulation_steps other than this.")
    # the row's count: DIE on Snt9B23, total cards in the recipe table; a '-' row has no count and never matches
    cards: Compare | None = Field(None, description="Cards compared: {op: gt, value: 64}.")
    nodes: Compare | None = Field(None, description="Whole nodes compared. min_cards, recipes; 8 cards per Snt9B node, 16 DIE per Snt9B23 node.")
    per_node: Compare | None = Field(None, description="recipes: cards per node. 2 nodes x 8: nodes eq 2, per_node eq 8.")
    # the pair: the same model, method and length's row of the other framework (or part)
    versus: Versus | None = Field(None, description="min_cards: {against, op} vs pair row.")
    supported: bool | None = Field(None, description="With a count (true) or '-' (false). min_cards, vllm: only rows with a count (true) or only '-' rows (false).")
    memory_gb: int | None = Field(None, ge=1, le=1024, description="vllm: the 32 or 64 GB column.")
    vllm_table: Literal["vllm-v0.7.2", "vllm-newest", "vllm-newest-6.5.908", "vllm-older-fragment"] | None = Field(
        None, description="vllm: one of the vLLM tables (default: all).")
    extreme: Literal["max", "min"] | None = Field(None, description="Largest or smallest count only. Among the rows the other "
                                                  "filters keep ('which model needs the most cards').")
    whole_model: bool = Field(False, description="Models all of whose rows match. Only models every one of whose rows (under framework, "
                              "strategy, seq_len, hardware, memory_gb, vllm_table) matches the other filters: 'which models have no MindSpeed entry'.")


class TableRowHit(FilterModel):
    model_id: str = Field(description="Canonical model id.")
    model: str = Field(description="Model as written in the table.")
    strategy: str | None = Field(None, description="lora or full (training tables).")
    seq_len: int | None = Field(None, description="SEQ_LEN (min_cards), cutoff_len (recipes) or tested max-model-len (vllm), tokens.")
    framework: str | None = Field(None, description="MindSpeed-LLM or LLaMA-Factory (min_cards; recipes are LLaMA-Factory).")
    hardware: str | None = Field(None, description="Snt9B or Snt9B23 (min_cards).")
    cards: int | None = Field(None, description="Cards (DIE on Snt9B23); recipes: total cards; null where the table has '-'.")
    unit: str = Field("card", description="card, or DIE on Snt9B23.")
    supported: bool = Field(True, description="False where the table has '-'.")
    nodes: int | None = Field(None, description="Whole nodes: the recipe's own, else cards over the part's devices per node.")
    cards_per_node: int | None = Field(None, description="recipes: cards per node.")
    other_cards: int | None = Field(None, description="versus: the other framework's (or part's) count; null where '-'.")
    other: str | None = Field(None, description="versus: the other row's framework, part or method.")
    zero_stage: int | None = Field(None, description="recipes: ZeRO stage.")
    offload: bool | None = Field(None, description="recipes: CPU offload.")
    deepspeed: str | None = Field(None, description="recipes: the deepspeed column as written.")
    grad_accum: int | None = Field(None, description="recipes: gradient_accumulation_steps.")
    memory_gb: int | None = Field(None, description="vllm: memory per card, GB.")
    gpu_memory_utilization: float | None = Field(None, description="vllm: --gpu-memory-utilization the table was tested with.")
    vllm_table: str | None = Field(None, description="vllm: which table.")
    cell: str = Field(description="The table cell as written.")
    source: str = Field(description="The vendor document (page id or seed file, date) the row was transcribed from.")


class FindTableRowsResult(FilterModel):
    table: str = Field(description="The table filtered.")
    title: str = Field(description="The table's name and date.")
    count: int = Field(description="Matching rows.")
    models: list[str] = Field(description="The matching rows' models, each once, in table order.")
    rows: list[TableRowHit] = Field(description="Every matching row, in table order.")
    sources: list[str] = Field(description="The vendor documents the rows come from.")


def _hits(table: str, raw: list[dict[str, Any]], per_node: dict[str, int]) -> list[TableRowHit]:
    out = []
    for r in raw:
        if table == "min_cards":
            cards = r["cards"]
            out.append(TableRowHit(model_id=r["model_id"], model=r["model"], strategy=r["strategy"], seq_len=r["seq_len"],
                                   framework=r["framework"], hardware=r["hardware"], cards=cards, unit=r["unit"],
                                   supported=bool(r["supported"]), nodes=-(-cards // per_node.get(r["hardware"], 8)) if cards else None,
                                   cell=r["cell"], source=r["source"]))
        elif table == "recipes":
            out.append(TableRowHit(model_id=r["model_id"], model=f"{r['family']} {r['size']}", strategy=r["strategy"],
                                   seq_len=r["cutoff_len"], framework="LLaMA-Factory", cards=r["total_cards"], nodes=r["nodes"],
                                   cards_per_node=r["cards_per_node"], zero_stage=r["zero_stage"], offload=bool(r["offload"]),
                                   deepspeed=r["deepspeed"], grad_accum=r["grad_accum"], cell=r["spec_cell"], source=r["source"]))
        else:
            out.append(TableRowHit(model_id=r["model_id"], model=r["model"], seq_len=r["max_model_len"], cards=r["cards"],
                                   supported=bool(r["supported"]), memory_gb=r["memory_gb"],
                                   gpu_memory_utilization=r["gpu_memory_utilization"], vllm_table=r["table"], cell=r["cell"],
                                   source=r["source"]))
    return out


def _selected(a: FindTableRowsArgs, h: TableRowHit) -> bool:
    """The row is in the part of the table asked about (the filters that pick rows, not those that test them)."""
    if a.framework and h.framework != a.framework or a.strategy and h.strategy != a.strategy:
        return False
    if a.hardware and h.hardware != a.hardware or a.memory_gb and h.memory_gb != a.memory_gb:
        return False
    if a.vllm_table and h.vllm_table != a.vllm_table:
        return False
    if a.family and not in_family(h.model_id, a.family) or a.model and h.model_id != a.model:
        return False
    return a.seq_len is None or a.table == "vllm" or h.seq_len == a.seq_len


OTHER = {"framework": {"MindSpeed-LLM": "LLaMA-Factory", "LLaMA-Factory": "MindSpeed-LLM"},
         "hardware": {"Snt9B": "Snt9B23", "Snt9B23": "Snt9B"},
         "strategy": {"full": "lora", "lora": "full"}}


def _paired(a: FindTableRowsArgs, rows: list[TableRowHit], every: list[TableRowHit]) -> list[TableRowHit]:
    """Each row with its counterpart's count (the same model, method, length and the other column value); a versus
    filter keeps the rows whose pair compares as asked (a '-' on either side never matches a comparison)."""
    v = a.versus
    if v is None:
        return rows

    def key(h: TableRowHit, swap: bool) -> tuple:
        cols = {"strategy": h.strategy, "framework": h.framework, "hardware": h.hardware}
        if swap:
            cols[v.against] = OTHER[v.against].get(cols[v.against] or "", cols[v.against])
        return h.model_id, cols["strategy"], h.seq_len, cols["framework"], cols["hardware"]
    index = {key(h, False): h for h in every}  # the other framework's or part's row is outside the selection by design
    out = []
    for h in rows:
        o = index.get(key(h, True))
        if o is None:
            continue
        h = h.model_copy(update={"other_cards": o.cards, "other": {"framework": o.framework, "hardware": o.hardware, "strategy": o.strategy}[v.against]})
        if v.op and (h.cards is None or o.cards is None or not OPS[v.op](h.cards, o.cards)):
            continue
        if v.other and (o.cards is None or not OPS[v.other.op](o.cards, v.other.value)):
            continue
        out.append(h)
    return out


def _passes(a: FindTableRowsArgs, h: TableRowHit) -> bool:
    """The row meets the tests asked (support, counts, DeepSpeed setting, a length the serving row was tested at)."""
    if a.supported is not None and h.supported != a.supported:
        return False
    if a.table == "vllm" and a.seq_len is not None and not (h.supported and (h.seq_len or 0) >= a.seq_len):
        return False
    for name, cmp in (("cards", a.cards), ("nodes", a.nodes), ("cards_per_node", a.per_node)):
        value = getattr(h, name)
        if cmp is not None and (value is None or not OPS[cmp.op](value, cmp.value)):
            return False
    for name in ("zero_stage", "offload", "grad_accum"):
        want = getattr(a, name)
        if want is not None and getattr(h, name) != want:
            return False
    return a.grad_accum_not is None or h.grad_accum != a.grad_accum_not


@tool
def find_table_rows(ctx, args: FindTableRowsArgs) -> FindTableRowsResult:
    """Vendor-table rows matching filters, with sources.

    Filters: framework, strategy, length, part, ZeRO stage, offload, GA and card or node counts ("more than 64 cards",
    "at most 8"); every matching row is returned with the vendor document it comes from.

    whole_model keeps only models all of whose selected rows match ("which models have no MindSpeed-LLM entry": framework
    MindSpeed-LLM, supported false, whole_model true); extreme keeps the rows of the largest or smallest count."""
    given = {k for k, v in args.model_dump(exclude={"table", "whole_model", "family", "extreme", "model", "arch", "params_b"}).items() if v is not None}
    wrong = sorted(given - APPLIES[args.table])
    if wrong:
        raise SizingError("invalid_arguments", f"{', '.join(wrong)} does not apply to the {args.table} table.",
                          field=wrong[0], valid=sorted(APPLIES[args.table]))
    per_node = {h["table_part"]: int(h.get("devices_per_node") or 8) for h in ctx.kb.hardware() if h.get("table_part")}
    every = _hits(args.table, ctx.kb.cached(f'SELECT * FROM "{SQL_TABLE[args.table]}" ORDER BY rowid'), per_node)
    if args.arch or args.params_b:  # "which dense models under 10B …": the catalog's facts of each row's model
        keep = {str(m["id"]) for m in ctx.kb.models() if model_passes(m, args.arch, args.params_b)}
        every = [h for h in every if h.model_id in keep]
    rows = _paired(args, [h for h in every if _selected(args, h)], every)
    hits = [h for h in rows if _passes(args, h)]
    if args.whole_model:
        failing = {h.model_id for h in rows if not _passes(args, h)}
        hits = [h for h in hits if h.model_id not in failing]
    if args.extreme and (counted := [h.cards for h in hits if h.cards is not None]):
        best = max(counted) if args.extreme == "max" else min(counted)
        hits = [h for h in hits if h.cards == best]
    models = list(dict.fromkeys(h.model_id for h in hits))
    sources = list(dict.fromkeys(h.source for h in hits))
    return FindTableRowsResult(table=args.table, title=TITLE[args.table], count=len(hits), models=models, rows=hits, sources=sources)
