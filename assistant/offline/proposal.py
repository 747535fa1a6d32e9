"""Which settings of a question are the user's proposal and which the run's current state (carry.toml [proposal]):
"TP8 PP1 跑着 OOM 了，换成 TP4 PP4 行吗" runs TP 8 × PP 1 and proposes TP 4 × PP 4; "could we do ZeRO-3 instead?" after an
OOM report proposes ZeRO-3 for a run that has not failed; "改成 MBS 1 还是 OOM" reports MBS 1 as done. A proposal is
judged against the rules and the carried job (a yes/no on it), never taken as a remedy already tried. Pure functions
over the question's text and the reader's spans."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .asked import ASKS_VERDICT
from .subquestions import ASKS, MIN_CHARS

CARRY_FILE = Path(__file__).with_name("carry.toml")

CLAUSE = re.compile(r"(?:[^,，;；。?？!！\n.]|\.(?!\s|$))+[?？]*")  # a clause and the question marks closing it ("qwen2.5" keeps its dot)


@dataclass(frozen=True)
class ProposalSpec:
    slots: frozenset[str]
    words: re.Pattern
    state: re.Pattern
    reconvert: dict[str, str]  # the notes query for what a new TP / PP needs besides memory, per language
    asks: re.Pattern  # a proposal asking a yes/no of its own


def load() -> ProposalSpec:
    with CARRY_FILE.open("rb") as f:
        raw = tomllib.load(f)["proposal"]
    both = lambda table: re.compile("|".join(table["en"] + table["zh"]), re.I)  # noqa: E731
    return ProposalSpec(frozenset(raw["slots"]), both(raw["words"]), both(raw["state"]), dict(raw["reconvert"]), both(raw["asks"]))


SPEC = load()
LAYOUT = frozenset({"tp", "pp", "cp"})


def clauses(question: str) -> list[tuple[int, int, bool]]:
    """Each clause of the question as (start, end, proposes). A clause proposes when it asks (itself, or the clause right
    after it: "打算 TP8、PP4 这么切，合理吗"): "use zero3 instead" decides, it proposes nothing to judge."""
    found = [(m.start(), m.end(), m.group(0).strip().lower()) for m in CLAUSE.finditer(question) if m.group(0).strip()]
    out = []
    for i, (a, b, text) in enumerate(found):
        after = found[i + 1][2] if i + 1 < len(found) else ""
        # a short clause after it ("，可以吗", ", ok?") asks about it; a longer one with words of its own is its own proposal
        after_asks = bool(ASKS.search(after) or ASKS_VERDICT.search(after)) and (len(after) < MIN_CHARS or not SPEC.words.search(after))
        asked = bool(ASKS.search(text) or ASKS_VERDICT.search(text) or after_asks)
        out.append((a, b, asked and bool(SPEC.words.search(text)) and not SPEC.state.search(text)))
    return out


def proposing(question: str, at: int, parts: list[tuple[int, int, bool]] | None = None) -> bool:
    """Whether the character at offset ``at`` sits in a clause proposing something."""
    return any(a <= at < b and p for a, b, p in (parts if parts is not None else clauses(question)))


def proposed_slots(question: str, spans: Iterable) -> set[str]:
    """The setting slots (carry.toml [proposal] slots) read in a proposing clause."""
    parts = clauses(question)
    return {sp.slot for sp in spans if sp.slot in SPEC.slots and sp.value is not None and proposing(question, sp.start, parts)}


def proposes_layout(frame) -> bool:
    """A Megatron split the turn proposes ("TP8 PP2 行吗"), for training."""
    return bool(frame.proposed & LAYOUT) and frame.task() == "training"


def searched(query: object) -> bool:
    """The notes search made for a proposed split (route.layout_calls): said in the proposal's lead only."""
    return query in SPEC.reconvert.values()


def asks_yes_no(question: str) -> bool:
    """The proposal asks whether it works ("TP8 PP2 行吗", "could we do ZeRO-3 instead?"), not the quantity asked before."""
    return bool(ASKS_VERDICT.search(question) or SPEC.asks.search(question.lower()))
