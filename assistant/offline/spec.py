"""The slot specification (slots.toml): one entry per stated setting, read by one generic reader.

Each entry declares its value's type, the words it follows per language or whole patterns, its valid range,
the task it belongs to (so a conversation leaves it behind when the task changes), whether the answer states
it, and the phase it is read in. The reader claims each value's words as a typed span; a value outside its
range is claimed (it is no count or length either) but not read, so the stated-value ledger names it."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .spans import Reading

SPEC_FILE = Path(__file__).with_name("slots.toml")
# The words between a setting and its value: "rank 16", "lr=2e-5", "GA: 16", "batch size to 8", "秩为 8", "TP 可以设成 3".
CONNECT = r"\s*(?:可以|能)?\s*(?:of|=|:|is|to|->|为|是|设为|设成|改成|改为|换成|调到|调成|：)?\s*"
VALUE = {
    "int": r"(\d{1,5})(?![0-9]|\.\d|\s*(?:k|g|b|万|亿)(?![a-z]))",  # "batch 4", not "batch 4k" (a length) or "4.5"
    "float": r"(\d+(?:\.\d+)?(?:e-?\d+)?)(?![0-9])",
}


@dataclass(frozen=True)
class SlotSpec:
    name: str
    type: str
    phase: str
    pattern: re.Pattern
    unit: str = ""
    min: float | None = None
    max: float | None = None
    min_exclusive: bool = False
    task: str | None = None
    stated: bool = False

    def valid(self, value: float) -> bool:
        low = self.min is None or (value > self.min if self.min_exclusive else value >= self.min)
        return low and (self.max is None or value <= self.max)

    def value(self, m: re.Match) -> int | float:
        raw = next(g for g in m.groups() if g)
        return int(raw) if self.type == "int" else float(raw)


def load(path: Path = SPEC_FILE) -> list[SlotSpec]:
    """The slots in the order written (an earlier one claims its words first)."""
    with path.open("rb") as f:
        rows = tomllib.load(f)["slot"]
    out = []
    for row in rows:
        keys = [k for lang in ("en", "zh") for k in row.get("keys", {}).get(lang, [])]
        alternatives = ([f"(?:{'|'.join(keys)}){CONNECT}{VALUE[row['type']]}"] if keys else []) + [
            p for lang in ("en", "zh") for p in row.get("patterns", {}).get(lang, [])]
        out.append(SlotSpec(row["name"], row["type"], row["phase"], re.compile("|".join(alternatives)), row.get("unit", ""),
                            row.get("min"), row.get("max"), bool(row.get("min_exclusive")), row.get("task"), bool(row.get("stated"))))
    return out


SLOTS: list[SlotSpec] = load()
BY_NAME = {slot.name: slot for slot in SLOTS}


def of_task(task: str) -> tuple[str, ...]:
    """The slots a conversation leaves behind when it switches away from ``task``."""
    return tuple(slot.name for slot in SLOTS if slot.task == task)


def read(r: Reading, frame: Any, phase: str) -> None:
    """Every slot of ``phase``: the first value written is the frame's (its attribute, else ``frame.settings``)."""
    for slot in SLOTS:
        if slot.phase != phase:
            continue
        m = r.search(slot.pattern)
        if not m:
            continue
        value = slot.value(m)
        if slot.valid(value):
            r.claim_match(m, slot.name, value)
            put(frame, slot.name, value)
        else:
            r.claim_match(m, slot.name, None)  # said but out of range: no count or length either; the ledger names it


def put(frame: Any, name: str, value: Any) -> None:
    if name in type(frame).model_fields and name != "settings":
        setattr(frame, name, value)
    else:
        frame.settings[name] = value


def value_of(frame: Any, name: str) -> Any:
    return getattr(frame, name) if name in type(frame).model_fields else frame.settings.get(name)
