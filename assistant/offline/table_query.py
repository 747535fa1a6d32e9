"""A question about a vendor table as a whole ("which models in the min-card table need more than 64 Snt9B cards
with MindSpeed?", "配方表里哪些行用 ZeRO-0?"), read into a typed filter for the find_table_rows tool.

The words are data (table_query.toml); the framework, method, length and part come from the frame's own readers.
A question that names a model asks about that model's rows and is no table query."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

VOCAB_FILE = Path(__file__).with_name("table_query.toml")
N = r"(?P<n>\d{1,5})(?![0-9.]|\s*k(?![a-z])|\s*g(?:i?b)?(?![a-z]))"  # no length (8k) or memory size (32GB)
BETWEEN = r"\s*(?:x\s*)?(?:张|个|块)?\s*(?:snt9b23|snt9b|910b|910c|a2|a3|昇腾|ascend)?\s*(?:的)?\s*"
MOST_CARDS = 4096  # a larger number without a unit is a length, not a count
ZERO = re.compile(r"zero[- _]?([0-3])(?![0-9])|ds_z([0-3])|stage\s*([0-3])(?![0-9])")
NO_OFFLOAD = re.compile(r"(?:no|without|not?)\s+(?:cpu\s+)?offload|(?:不开|不带|无|没有|不用)\s*offload")
GA = re.compile(r"(?<![a-z])(?:ga|grad(?:ient)?[ _]?accum\w*(?:[ _]steps)?|梯度累积值?)\s*(?:=|:|：|是|为|of|is)?\s*(\d{1,4})(?![0-9])")

Op = Literal["lt", "le", "eq", "ge", "gt"]


class Count(BaseModel):
    op: Op
    value: int


class TableQuery(BaseModel):
    """What a question asks of a whole vendor table: which one, and the tests its rows must pass (the framework,
    method, length and part are the frame's)."""

    table: Literal["min_cards", "recipes", "vllm"]
    table_named: bool = False  # the question names the table (else it is chosen from the filters)
    family: str | None = None  # "which qwen3 rows": the models whose catalog id starts with it
    cards: Count | None = None
    nodes: Count | None = None
    zero_stage: int | None = None
    offload: bool | None = None
    grad_accum: int | None = None
    supported: bool | None = None
    whole_model: bool = False
    vllm_table: str | None = None


@dataclass(frozen=True)
class Vocab:
    tables: dict[str, re.Pattern]
    vllm_tables: dict[str, re.Pattern]
    asks: re.Pattern
    asks_weak: re.Pattern
    unsupported: re.Pattern
    models: re.Pattern
    rows: re.Pattern
    supported: re.Pattern
    compare: list[tuple[str, list[re.Pattern]]] = field(default_factory=list)
    nodes_unit: re.Pattern = re.compile("$^")


def _any(patterns: list[str]) -> re.Pattern:
    return re.compile("|".join(f"(?:{p})" for p in patterns))


def load(path: Path = VOCAB_FILE) -> Vocab:
    with path.open("rb") as f:
        d: dict[str, Any] = tomllib.load(f)
    units = d["units"]
    unit = "(?P<unit>" + "|".join(units["nodes"] + units["cards"]) + ")"

    def filled(p: str, op: str) -> re.Pattern:
        # an equality names its unit ("need 32 cards"): a bare number beside "on" or "use" is too often something else
        for k, v in {"{n}": N, "{u}": BETWEEN, "{unit}": unit if op == "eq" else unit + "?"}.items():
            p = p.replace(k, v)
        return re.compile(p)

    return Vocab(
        tables={k: _any(v) for k, v in d["tables"].items()},
        vllm_tables={k: _any(v) for k, v in d["vllm_tables"].items()},
        asks=_any(d["asks"]["en"] + d["asks"]["zh"]),
        asks_weak=_any(d["asks_weak"]["patterns"]),
        unsupported=_any(d["unsupported"]["patterns"]),
        models=_any(d["unsupported"]["models"]),
        rows=_any(d["unsupported"]["rows"]),
        supported=_any(d["supported"]["patterns"]),
        compare=[(c["op"], [filled(p, c["op"]) for p in c["patterns"]]) for c in d["compare"]],
        nodes_unit=re.compile("^(?:" + "|".join(units["nodes"]) + ")$"),
    )


VOCAB = load()


def counts(text: str, table_named: bool, v: Vocab = VOCAB) -> tuple[Count | None, Count | None]:
    """The card and node comparisons written ("more than 64 cards", "2 个节点以上"), the first of each; an equality
    ("need 32 cards") only when a table is named (else "I have 16 cards, which models fit?" would read as one)."""
    found: dict[str, Count] = {}
    taken: list[tuple[int, int]] = []
    for op, patterns in v.compare:
        if op == "eq" and not table_named:
            continue
        for rx in patterns:
            for m in rx.finditer(text):
                if any(a < m.end() and m.start() < b for a, b in taken):
                    continue
                n, unit = int(m.group("n")), m.groupdict().get("unit") or ""
                if n > MOST_CARDS and not unit:
                    continue
                what = "nodes" if v.nodes_unit.match(unit) else "cards"
                taken.append((m.start(), m.end()))
                found.setdefault(what, Count(op=op, value=n))
    return found.get("cards"), found.get("nodes")


def read(text: str, *, inference: bool = False, v: Vocab = VOCAB) -> TableQuery | None:
    """The table query of a question (lower-cased, numerals as digits), or None when it asks for no table's rows."""
    named = [name for name, rx in v.tables.items() if rx.search(text)]
    if not (v.asks.search(text) or named and v.asks_weak.search(text)):
        return None
    zero = next((int(next(g for g in m.groups() if g)) for m in ZERO.finditer(text)), None)
    offload = False if NO_OFFLOAD.search(text) else True if "offload" in text else None
    ga = next((int(m.group(1)) for m in GA.finditer(text)), None)
    blanked = GA.sub(" ", ZERO.sub(" ", text))  # a stage's or GA's digits are no count
    cards, nodes = counts(blanked, bool(named))
    unsupported = bool(v.unsupported.search(text))
    if not (named or cards or nodes or zero is not None or offload is not None or ga or unsupported):
        return None  # "which models does MindSpeed support?": the model list answers it
    table = named[0] if named else "recipes" if (zero is not None or offload is not None or ga) else "vllm" if inference else "min_cards"
    if table != "recipes":
        zero = offload = ga = None  # the recipe table's columns only
    supported = False if unsupported and table != "recipes" else True if table != "recipes" and v.supported.search(text) else None
    whole = supported is False and bool(v.models.search(text)) and not v.rows.search(text)
    vllm_table = next((k for k, rx in v.vllm_tables.items() if rx.search(text)), "vllm-newest") if table == "vllm" else None
    return TableQuery(table=table, table_named=bool(named), cards=cards, nodes=nodes, zero_stage=zero, offload=offload,
                      grad_accum=ga, supported=supported, whole_model=whole, vllm_table=vllm_table)
