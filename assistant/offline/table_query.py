"""A question about a vendor table as a whole ("which models in the min-card table need more than 64 Snt9B cards
with MindSpeed?", "配方表里哪些行用 ZeRO-0?"), read into a typed filter for the find_table_rows tool.

The words are data (table_query.toml); the framework, method, length and part come from the frame's own readers.
A question that names a model asks about that model's rows and is no table query."""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from .spans import Reading

VOCAB_FILE = Path(__file__).with_name("table_query.toml")
N = r"(?P<n>\d{1,5})(?![0-9.]|\s*k(?![a-z])|\s*g(?:i?b)?(?![a-z]))"  # no length (8k) or memory size (32GB)
# between a count and its unit: a measure word, "of the", a part's name (the hardware column's, or the vendor's brand)
# or a card memory ("4 of the 64GB cards")
BETWEEN = (r"\s*(?:x\s*)?(?:of\s+(?:the\s+)?)?(?:张|个|块)?\s*(?:{parts}|昇腾|ascend)?\s*(?:的)?\s*"
           r"(?:(?:32|64)\s*g(?:i?b)?\s*(?:的)?\s*)?")
MOST_CARDS = 4096  # a larger number without a unit is a length, not a count
ZERO = re.compile(r"zero[- _]?([0-3])(?![0-9])|ds_z([0-3])|stage\s*([0-3])(?![0-9])")
NO_OFFLOAD = re.compile(r"(?:no|without|not?)\s+(?:cpu\s+)?offload|(?:不开|不带|无|没有|不用)\s*offload")
# ("GA 4", "grad accum drops to 4", "梯度累积降到 4")
GA = re.compile(r"(?<![a-z])(?:ga|grad(?:ient)?[ _]?accum\w*(?:[ _]steps)?|梯度累积值?)\s*"
                r"(?:=|:|：|是|为|of|is|(?:drops?|dropped|goes|went|falls?|fell|is\s+set|equals?|gets?)\s+(?:down\s+)?to|降到|降为|变成|等于)?\s*(\d{1,4})(?![0-9])")

# ("梯度累积不是 8", "GA other than 8", "grad accum not equal to 8"): the rows of any other accumulation
GA_NOT = re.compile(r"(?<![a-z])(?:ga|grad(?:ient)?[ _]?accum\w*(?:[ _]steps)?|梯度累积值?)\s*(?:is\s+)?"
                    r"(?:不是|不等于|不为|不为|!=|≠|other\s+than|not(?:\s+equal\s+to)?|isn'?t|besides|except)\s*(\d{1,4})(?![0-9])")

Op = Literal["lt", "le", "eq", "ge", "gt"]


class Count(BaseModel):
    op: Op
    value: int


class Versus(BaseModel):
    against: Literal["framework", "hardware", "strategy"]
    op: Op | None = None
    other: Count | None = None


class TableQuery(BaseModel):
    """What a question asks of a whole vendor table: which one, and the tests its rows must pass (the framework,
    method, length and part are the frame's)."""

    table: Literal["min_cards", "recipes", "vllm"]
    table_named: bool = False  # the question names the table (else it is chosen from the filters)
    family: str | None = None  # "which qwen3 rows": the models whose catalog id starts with it
    arch: str | None = None  # "which dense models": only dense (or only MoE) models' rows
    params_b: tuple[str, int] | None = None  # "models under 10B": the models' total parameters compared (op, billions)
    cards: Count | None = None
    nodes: Count | None = None
    zero_stage: int | None = None
    offload: bool | None = None
    grad_accum: int | None = None
    grad_accum_not: int | None = None  # "GA 不是 8": the rows of any other accumulation
    supported: bool | None = None
    whole_model: bool = False
    vllm_table: str | None = None
    per_node: Count | None = None
    versus: Versus | None = None  # the row against its pair of the other framework, part or method
    this: str | None = None  # the framework or part whose rows are compared (the first named)
    yes_no: bool = False  # "any …?": answered yes or no first
    extreme: Literal["max", "min"] | None = None  # "which model needs the most cards": the rows of the largest count
    model: str | None = None  # "the most cards deepseek-v3 needs in the table": one model's rows, its largest
    framework: str | None = None  # the framework the filter itself is on ("LF 不支持的", "only with MindSpeed": LF's '-' rows)


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
    ungated: set[int] = field(default_factory=set)  # the compare blocks read with no table named (their index)
    nodes_unit: re.Pattern = re.compile("$^")
    columns: dict[str, dict[str, re.Pattern]] = field(default_factory=dict)
    versus: dict[str, re.Pattern] = field(default_factory=dict)
    only: dict[str, re.Pattern] = field(default_factory=dict)  # per framework: "only with it" (the other one's rows are '-')
    spec: dict[str, list[re.Pattern]] = field(default_factory=dict)  # each its own (they share group names)
    memory_cards: re.Pattern = re.compile("$^")
    yes_no: re.Pattern = re.compile("$^")
    minimum_said: re.Pattern = re.compile("$^")
    extreme: dict[str, re.Pattern] = field(default_factory=dict)
    extreme_of: re.Pattern = re.compile("$^")
    model_rows: re.Pattern = re.compile("$^")
    multi_node: re.Pattern = re.compile("$^")
    spelling: tuple[str, ...] = ()
    spelling_cutoff: float = 1.0


def _columns(d: dict) -> dict[str, dict[str, re.Pattern]]:
    return {c: {k: _any(v) for k, v in vals.items()} for c, vals in d["columns"].items()}


def _any(patterns: list[str]) -> re.Pattern:
    return re.compile("|".join(f"(?:{p})" for p in patterns))


def load(path: Path = VOCAB_FILE) -> Vocab:
    with path.open("rb") as f:
        d: dict[str, Any] = tomllib.load(f)
    units = d["units"]
    unit = "(?P<unit>" + "|".join(units["nodes"] + units["cards"]) + ")"
    between = BETWEEN.replace("{parts}", "|".join(p for names in d["columns"]["hardware"].values() for p in names))

    def filled(p: str, op: str, unit_optional: bool = False) -> re.Pattern:
        # an equality names its unit ("need 32 cards"): a bare number beside "on" or "use" is too often something else
        for k, v in {"{n}": N, "{u}": between, "{unit}": unit if op == "eq" and not unit_optional else unit + "?"}.items():
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
        compare=[(c["op"], [filled(p, c["op"], c.get("unit_optional", False)) for p in c["patterns"]]) for c in d["compare"]],
        ungated={i for i, c in enumerate(d["compare"]) if c.get("ungated")},
        nodes_unit=re.compile("^(?:" + "|".join(units["nodes"]) + ")$"),
        columns={c: {k: _any(v) for k, v in vals.items()} for c, vals in d["columns"].items()},
        versus={k: _any(v) for k, v in d["versus"].items()},
        only={fw: _any([p.replace("{fw}", f"(?:{rx.pattern})") for p in d["unsupported"]["only"]]) for fw, rx in
              ((fw, rx) for fw, rx in _columns(d)["framework"].items())},
        spec={k: [re.compile(p) for p in v] for k, v in d["recipe_spec"].items()},
        memory_cards=_any(d["memory_cards"]["patterns"]),
        yes_no=_any(d["yes_no"]["patterns"]),
        minimum_said=_any(d["minimum_said"]["patterns"]),
        extreme={k: _any(v) for k, v in d["extreme"].items() if k in ("max", "min")},
        extreme_of=_any(d["extreme"]["of"]),
        model_rows=_any(d["model_rows"]["patterns"]),
        multi_node=_any(d["multi_node"]["patterns"]),
        spelling=tuple(d["spelling"]["words"]),
        spelling_cutoff=float(d["spelling"]["cutoff"]),
    )


VOCAB = load()


def names_table(text: str, table: str | None = None, v: Vocab = VOCAB) -> bool:
    """The question names a vendor table (or the one given: recipes, min_cards, vllm) by its own name ("the v0.7.2
    vllm table", "配方表")."""
    return any(rx.search(text) for name, rx in v.tables.items() if table in (None, name))


def vllm_versions_named(text: str, v: Vocab = VOCAB) -> list[str]:
    """The vLLM tables the question names by version ("v0.7.2", "the newest"), in table order."""
    return [name for name, rx in v.vllm_tables.items() if rx.search(text)]


def counts(text: str, table_named: bool, v: Vocab = VOCAB) -> tuple[Count | None, Count | None]:
    """The card and node comparisons written ("more than 64 cards", "2 个节点以上"), the first of each; an equality
    ("need 32 cards") only when a table or the minimum itself is named (else "I have 16 cards, which models fit?" would
    read as one)."""
    table_named = table_named or bool(v.minimum_said.search(text))
    found: dict[str, Count] = {}
    taken: list[tuple[int, int]] = []
    for i, (op, patterns) in enumerate(v.compare):
        if op == "eq" and not table_named and i not in v.ungated:
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


def named_values(text: str, column: str, v: Vocab = VOCAB) -> list[tuple[int, str]]:
    """Where each value of a column (a framework, a part) is named, in the order written, each value once."""
    seen: dict[str, int] = {}
    for value, rx in v.columns[column].items():
        if m := rx.search(text):
            seen[value] = m.start()
    return sorted((at, value) for value, at in seen.items())


def pair_counts(text: str, v: Vocab = VOCAB) -> list[tuple[str, int]]:
    """("8 cards on Snt9B but 16 DIE on Snt9B23"): each part with the count said beside it, in the order written."""
    parts = "|".join(rx.pattern for rx in v.columns["hardware"].values())
    for rx in (rf"{N}\s*(?:张|个)?\s*(?:cards?|卡|npus?|dies?)\s*(?:each\s+)?(?:on|for|with|在|用)?\s*(?P<p>{parts})",
               rf"(?P<p>{parts})\s*(?:上|需要|要|用|needs?|requires?|takes?|is|=|:|：)?\s*{N}\s*(?:张|个)?\s*(?:cards?|卡|npus?|dies?)"):
        found = [(m.start(), m.group("p"), int(m.group("n"))) for m in re.finditer(rx, text)]
        if len(found) >= 2:
            return [(next(k for k, r in v.columns["hardware"].items() if r.fullmatch(p)), n) for _, p, n in sorted(found)]
    return []


def versus(r: Reading, v: Vocab = VOCAB) -> tuple[Versus | None, str | None, Count | None]:
    """A row's count against its pair's: the first named framework (or part) against the other; with a count on each
    side, the first side's count and the second's. Returns the comparison, the first side and its own count; the
    counts said of the sides are claimed (no card count of their own)."""
    text = r.unread()
    pairs = pair_counts(text, v)
    if len(pairs) >= 2 and pairs[0][0] != pairs[1][0]:
        (this, n), (_, m) = pairs[0], pairs[1]
        r.claim_all(DIGIT, "pair_count")
        return Versus(against="hardware", other=Count(op="eq", value=m)), this, Count(op="eq", value=n)
    for column in ("framework", "hardware", "strategy"):
        named = named_values(text, column, v)
        if len(named) < 2:
            continue
        op = next((op for op, rx in v.versus.items() if rx.search(text)), None)
        if op:
            return Versus(against=column, op=op), named[0][1], None
    return None, None, None


DIGIT = re.compile(r"\d")


def recipe_spec(r: Reading, table_named: str | None, v: Vocab = VOCAB) -> tuple[Count | None, Count | None, Count | None]:
    """The recipe's nodes, cards per node and total cards said as its spec ("2 nodes x 8 cards", "单机4卡", "1×4"), each
    claimed."""
    for kind in ("per_node", "total", *(("bare",) if table_named == "recipes" else ())):
        if m := next((m for rx in v.spec[kind] if (m := r.search(rx))), None):
            a, b = Count(op="eq", value=int(m.group("a"))), Count(op="eq", value=int(m.group("b")))
            r.claim_match(m, "recipe_spec")
            return (a, None, b) if kind == "total" else (a, b, None)
    one_node, one_card = _any([rx.pattern for rx in v.spec["one_node"]]), _any([rx.pattern for rx in v.spec["one_card"]])
    node = r.search(one_node)
    r.claim_all(one_node, "one_node")
    card = r.search(one_card)
    per = None
    if node and (m := re.search(r"^\s*(\d{1,2})\s*(?:张|个)?\s*(?:卡|cards?|npus?)", r.unread()[node.start():])):
        per = Count(op="eq", value=int(m.group(1)))  # 单机4卡: one node of 4 cards
        r.claim(node.start(), node.start() + m.end(), "per_node")
    r.claim_all(one_card, "one_card")
    return Count(op="eq", value=1) if node else None, per, Count(op="eq", value=1) if card else None


def most_of_model(text: str, model: str, v: Vocab = VOCAB) -> TableQuery | None:
    """"the most cards deepseek-v3 needs in the min-card table", "deepseek-v3 最多需要多少张卡": one model's rows, the largest
    count first (the fewest is the model's ordinary minimum-card lookup, not this)."""
    if not (v.extreme.get("max") and v.extreme["max"].search(text) and v.extreme_of.search(text) and COUNT_ASKED.search(text)):
        return None
    named = sorted((name for name, rx in v.tables.items() if rx.search(text)), key=lambda name: name != "vllm")
    if not (named or MOST_NEEDED.search(text)):
        return None  # "the max number of cards for qwen2.5-7b" may ask how far it scales: the table's row is said needed
    return TableQuery(table=named[0] if named else "min_cards", table_named=bool(named), extreme="max", model=model)


def rows_of_model(text: str, model: str, *, inference: bool = False, v: Vocab = VOCAB) -> TableQuery | None:
    """"recipe 表里 llama2-70b 哪几行要多机", "which of qwen2-72b's recipe rows turn on offload": one model's rows that pass a
    filter of the table's own columns (a count, nodes, ZeRO stage, offload, GA), every length and method the question does
    not narrow. ``text`` has the model's name blanked (its digits are no count). None when no row filter is asked."""
    if not v.model_rows.search(text):
        return None
    q = read(text, inference=inference, v=v)
    if q is None:
        return None
    filtered = (q.cards or q.nodes or q.per_node or q.zero_stage is not None or q.offload is not None or q.grad_accum
                or q.grad_accum_not or q.supported is not None)
    return q.model_copy(update={"model": model}) if filtered else None


# the largest count said as what the model needs ("最多需要", "the most cards it needs", "needs at most how many")
MOST_NEEDED = re.compile(r"最多(?:需要|要|得)|(?<![a-z])most\s+(?:[\w.-]+\s+){0,3}?(?:needs?|needed|requires?|required)(?![a-z])|"
                         r"(?:needs?|requires?)\s+the\s+most|largest\s+(?:minimum|count|row)")
# a count asked ("how many", "多少", "几张", "what is the largest …")
COUNT_ASKED = re.compile(r"how\s+many|多少|几\s*(?:张|个|台)|(?<![a-z])what(?:'s|\s+is|\s+are)\s+the\s+(?:most|largest|highest|max)")


def filtered_framework(text: str, supported: bool | None, whole: bool, v: Vocab) -> tuple[str | None, bool | None, bool]:
    """The framework a minimum-card filter is on, when the question names both: "only with X" asks for the models whose
    other framework's rows are all '-'; "LF 不支持", "MindSpeed shows a dash" for the '-' rows of the framework named
    just before the words of '-'. (framework, supported, whole model); no framework when it does not say."""
    names = [fw for fw, rx in v.columns["framework"].items() if rx.search(text)]
    if len(names) > 1 and supported is False and (m := v.unsupported.search(text)):
        # "a MindSpeed number but only a dash under LlamaFactory": the framework the '-' is said under (before "only X")
        after = re.match(r"\s*(?:under|for|in|on|at|of|with|from)\s+(?:the\s+)?", text[m.end():])
        under = [fw for fw, rx in v.columns["framework"].items() if after and rx.match(text, m.end() + after.end())]
        if under:
            return under[0], supported, whole
    only = [fw for fw, rx in v.only.items() if rx.search(text)]
    if len(only) == 1:
        return next(fw for fw in v.columns["framework"] if fw != only[0]), False, True
    if len(names) > 1 and supported is False and (m := v.unsupported.search(text)):
        before = [(x.end(), fw) for fw, rx in v.columns["framework"].items() for x in rx.finditer(text[: m.start()])]
        if before:
            return max(before)[1], supported, whole
    return None, supported, whole


def spelled(text: str, v: Vocab = VOCAB) -> str:
    """The question with a misspelled word of the table vocabulary read as that word ("wich modles … tabel" -> "which
    models … table"); the same length is not kept (nothing refers to positions in it)."""
    def fix(m: re.Match) -> str:
        w = m.group(0)
        if w in v.spelling:
            return w
        near = difflib.get_close_matches(w, v.spelling, n=1, cutoff=v.spelling_cutoff)
        # a word the vocabulary word starts with ("mode", "row") or that starts with it is another word, not a typo
        return near[0] if near and not (near[0].startswith(w) or w.startswith(near[0])) else w
    return re.sub(r"(?<![a-z0-9_.-])[a-z]{4,}(?![a-z0-9_])", fix, text)


def read(text: str, *, inference: bool = False, v: Vocab = VOCAB) -> TableQuery | None:
    """The table query of a question (lower-cased, numerals as digits), or None when it asks for no table's rows."""
    text = spelled(text, v)
    # the vLLM table's own name ("vllm 最小卡数表") holds the minimum-card table's words: the named vLLM table is the one
    named = sorted((name for name, rx in v.tables.items() if rx.search(text)), key=lambda name: name != "vllm")
    # "最小卡数表里 qwen2.5 系列最多是多少": a table named and its largest (smallest) count asked asks for rows too
    extreme_asked = bool(named) and bool(COUNT_ASKED.search(text)) and any(rx.search(text) for rx in v.extreme.values())
    if not (v.asks.search(text) or named and v.asks_weak.search(text) or extreme_asked):
        return None
    zero = next((int(next(g for g in m.groups() if g)) for m in ZERO.finditer(text)), None)
    offload = False if NO_OFFLOAD.search(text) else True if "offload" in text else None
    ga = next((int(m.group(1)) for m in GA.finditer(text)), None)
    ga_not = next((int(m.group(1)) for m in GA_NOT.finditer(text)), None)
    r = Reading.claiming(text, "recipe_column", ZERO, GA, GA_NOT)  # a stage's or GA's digits are no count
    multi = r.search(v.multi_node)  # "more than one node", "多机": read before "one node" is read as a single node
    r.claim_all(v.multi_node, "multi_node")
    spec_nodes, per_node, spec_cards = recipe_spec(r, named[0] if named else None, v)
    memory = r.search(v.memory_cards)  # "2 x 32GB cards": the count of serving cards
    if memory:
        r.claim_match(memory, "memory_cards")
    pair, this, this_count = versus(r, v)
    unread = r.unread()
    cards, nodes = counts(unread, bool(named) or bool(memory))
    cards = this_count or (Count(op="eq", value=int(memory.group("n"))) if memory else None) or spec_cards or cards
    nodes = spec_nodes or nodes or (Count(op="gt", value=1) if multi else None)
    unsupported = bool(v.unsupported.search(text))
    extreme = next((k for k, rx in v.extreme.items() if rx.search(unread)), None) if v.extreme_of.search(unread) else None
    if not (named or cards or nodes or zero is not None or offload is not None or ga or ga_not or unsupported or pair or extreme):
        return None  # "which models does MindSpeed support?": the model list answers it
    recipe_words = zero is not None or offload is not None or ga or ga_not or per_node
    table = (named[0] if named else "vllm" if memory else "recipes" if recipe_words else "vllm" if inference else "min_cards")
    if table != "min_cards":
        pair = this = None  # the pairs are the minimum-card table's (two frameworks, two parts)
    if table != "recipes":
        per_node = None
    if table != "recipes":
        zero = offload = ga = ga_not = None  # the recipe table's columns only
    supported = False if unsupported and table != "recipes" else True if table != "recipes" and v.supported.search(text) else None
    whole = supported is False and bool(v.models.search(text)) and not v.rows.search(text)
    framework = None
    if table == "min_cards" and not pair:
        framework, supported, whole = filtered_framework(text, supported, whole, v)
    # the newest table has 64 GB cards only: 32 GB cards are the older tables' (every table then, each row naming its own)
    default = None if memory and "32" in memory.group(0) else "vllm-newest"
    vllm_table = next((k for k, rx in v.vllm_tables.items() if rx.search(text)), default) if table == "vllm" else None
    return TableQuery(table=table, table_named=bool(named), cards=cards, nodes=nodes, zero_stage=zero, offload=offload,
                      grad_accum=ga, grad_accum_not=ga_not, supported=supported, whole_model=whole, vllm_table=vllm_table, per_node=per_node,
                      versus=pair, this=this, yes_no=bool(v.yes_no.search(text)), extreme=extreme, framework=framework)
