"""The grounding check: every number in an LLM's answer, and every vendor support claim, must be
traceable to something this turn actually had — a tool result, the question, the conversation or the
system prompt. Small and local models write answers that look right and carry invented figures
("a Snt9B node costs approximately 0.18 dollars", "12 nodes"); the design promises numbers come from
tools, so the agent checks before anything is shown.

The check is textual on purpose: it needs no model and no network, runs in microseconds, and says
exactly which figures failed. It errs on the side of accepting a figure that appears anywhere in the
sources (a number copied from the wrong row passes); what it catches is a number that came from
nowhere, which is the failure real models show.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

# A figure in the answer: not part of an identifier (Snt9B, H100, fp16, llama3 are names), digits with
# optional thousands separators and decimals, an optional k/K (4k = 4096 or 4000) or % after it.
ANSWER_NUMBER = re.compile(r"(?<![A-Za-z0-9_.\\])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s?([kK%])(?![A-Za-z]))?")
# Every digit run in a source counts, identifiers included ("llama2" grounds a "2").
SOURCE_NUMBER = re.compile(r"\d+(?:\.\d+)?")
LIST_MARKER = re.compile(r"^\s*\d+[.)]\s", re.M)  # "1. Install ..." numbers a list, it states nothing
DATE = re.compile(r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)")  # one figure: "2025-06-24" grounds no 6 or 24

# Vendor support claims: "not supported", "LLaMA-Factory supports", "不支持", "支持".
SUPPORT_CLAIM = re.compile(
    r"\b(?:not\s+supported|unsupported|(?:does|do|is|are)(?:\s+not|n't)\s+support(?:ed)?|supports?|supported)\b|不支持|支持",
    re.I,
)
TABLE_TOOLS = {"min_cards", "training_recipe", "inference_min_cards", "list_models", "resolve_model", "search_notes",
               "plan_training", "estimate_inference", "compare_hardware"}


@dataclass
class Figure:
    text: str  # as written in the answer
    start: int
    end: int


@dataclass
class Grounding:
    """What the check found: the figures no source gave, and support claims with no table behind them."""

    ungrounded: list[Figure] = field(default_factory=list)
    claims: list[Figure] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.ungrounded and not self.claims

    def named(self) -> list[str]:
        """The failing figures and claims as the notice names them, each once, in order."""
        seen: list[str] = []
        for f in [*self.ungrounded, *self.claims]:
            if f.text not in seen:
                seen.append(f.text)
        return seen


def source_values(texts: Iterable[str], results: Iterable[Any]) -> tuple[set[float], set[str]]:
    """Every number in the sources, and every date: the question, the conversation, the system prompt
    (as text) and the tool results (as JSON text: numbers as values and inside strings)."""
    values: set[float] = set()
    dates: set[str] = set()

    def add_text(text: str) -> None:
        dates.update(DATE.findall(text))
        for m in SOURCE_NUMBER.finditer(DATE.sub(" ", text).replace(",", "")):
            values.add(float(m.group()))

    for t in texts:
        add_text(LIST_MARKER.sub(" ", t or ""))  # the system prompt's rule numbers ground nothing
    for r in results:
        add_text(json.dumps(r, ensure_ascii=False))
    return values, dates


def _grounded(value: float, decimals: int, suffix: str, sources: set[float], per_node: Iterable[int] = ()) -> bool:
    candidates = {value}
    if suffix in ("k", "K"):
        candidates |= {value * 1000, value * 1024}
    if value == int(value):  # a node count from a device count: "32 cards = 4 nodes" (the prompt says how)
        candidates |= {value * n for n in per_node}
    for c in candidates:
        if c in sources:
            return True
    for v in sources:  # a figure rounded from a tool's (74.2 from 74.23, 32 from 31.6), or a share as a percent
        shares = (v, v * 100) if suffix == "%" else (v,)
        if any(round(x, decimals) == value for x in shares):
            return True
    return False


def check(answer: str, *, texts: Iterable[str], results: Iterable[Any], tools_called: Iterable[str] = (),
          per_node: Iterable[int] = ()) -> Grounding:
    """Check ``answer`` against the sources. ``results`` are this turn's tool results (JSON objects);
    ``tools_called`` the names of tools that returned without error (support claims need a table tool);
    ``per_node`` the devices (and DIE) per node of the catalog's hardware, so a node count worked out from
    a device count passes."""
    per_node = tuple(per_node)
    results = list(results)
    sources, dates = source_values(texts, results)
    body = LIST_MARKER.sub(lambda m: " " * len(m.group()), answer)
    out = Grounding()
    for m in DATE.finditer(body):
        if m.group() not in dates:
            out.ungrounded.append(Figure(m.group(), m.start(), m.end()))
    body = DATE.sub(lambda m: " " * len(m.group()), body)
    for m in ANSWER_NUMBER.finditer(body):
        whole, frac, suffix = m.group(1), m.group(2) or "", m.group(3) or ""
        value = float(whole.replace(",", "") + frac)
        if not _grounded(value, len(frac) - 1 if frac else 0, suffix, sources, per_node):
            out.ungrounded.append(Figure(answer[m.start():m.end()].strip(), m.start(), m.end()))
    if not TABLE_TOOLS & set(tools_called):
        out.claims = [Figure(m.group(), m.start(), m.end()) for m in SUPPORT_CLAIM.finditer(body)]
    return out


MARK_EN, MARK_ZH = " [not from a tool]", "［未经工具核实］"
MARKED = re.compile(r"[\d.,]+[kK%]?(?: \[not from a tool\]|［未经工具核实］)")


def without_marked(text: str) -> str:
    """An earlier answer as a source: the figures it showed marked ground nothing later in the conversation."""
    return MARKED.sub(" ", text)


def mark(answer: str, grounding: Grounding, chinese: bool) -> str:
    """The answer with each failing figure and claim marked where it stands."""
    tag = MARK_ZH if chinese else MARK_EN
    spans = sorted([*grounding.ungrounded, *grounding.claims], key=lambda f: f.start, reverse=True)
    text = answer
    for f in spans:
        text = text[:f.end] + tag + text[f.end:]
    return text
