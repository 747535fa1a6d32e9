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

from . import checks
from .spans import Reading

SPEC_FILE = Path(__file__).with_name("slots.toml")
# The words between a setting and its value, in prose, YAML, JSON, env-var and flag form: "rank 16", "lr=2e-5",
# "GA: 16", "batch size to 8", "rank goes to 128", "秩为 8", "TP 可以设成 3", '"stage": 4', "NNODES=2", "--lora-rank 64".
CONNECT = (r"[\"']?\s*(?:可以|能)?\s*(?:of|=|:|is|->|(?:(?:goes|go|went|drops?|dropped|falls?|fell|rises?|rose|changed?|set|increased?|"
           r"decreased?|raised?|lowered?|bumped|moved?|up|down)\s+)?to|为|是|设为|设成|改成|改为|换成|调到|调成|降到|升到|提高到|"
           r"增加到|减少到|变成|：)?\s*[\"']?")
VALUE = {
    # "batch 4", not "batch 4k" (a length) or "4.5"; a sign after a space or "=" is read ("batch_size -4": said invalid)
    "int": r"((?:(?<=[\s=:：])-)?\d{1,7})(?![0-9]|\.\d|\s*(?:k|g|b|万|亿)(?![a-z]))",
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
    invalid: dict[str, str] | None = None  # per language: why a value outside the range is no value of this slot
    said: dict[str, str] | None = None  # per language: how the answer's header says the value a tool took ("LoRA rank {v}")
    unused: dict[str, str] | None = None  # per language: why no tool takes the value, said when it is named as unused
    methods: tuple[str, ...] = ()  # the training methods the setting belongs to (empty: any)
    args: tuple[str, ...] = ()  # tool arguments besides the slot's own name that take its value
    default: float | None = None  # the tools' own value: not said back in the header


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
                            row.get("min"), row.get("max"), bool(row.get("min_exclusive")), row.get("task"), bool(row.get("stated")),
                            row.get("invalid"), row.get("said"), row.get("unused"),
                            tuple(row.get("methods", ())), tuple(row.get("args", ())), row.get("default")))
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
        else:  # said but out of range: no count or length either; the reason given, else the ledger names it
            r.claim_match(m, slot.name, None)
            if slot.invalid:
                typed = frame.question[m.start():m.end()] if len(frame.question) == len(r.text) else m.group(0)  # as written
                checks.add(frame.problems, slot.invalid[frame.lang].format(text=re.sub(r"[\"']", "", typed).strip()), frame.lang)


def said_back(frame: Any, call_args: list[dict], lang: str) -> list[str]:
    """The stated values a tool took under the slot's own name, as the header says them ("LoRA rank 64"): a value
    used is also seen to be used."""
    out = []
    for slot in SLOTS:
        value = value_of(frame, slot.name)
        if slot.methods and getattr(frame, "method", None) not in slot.methods:
            continue  # "LoRA rank 64" carried into a full fine-tuning turn is no setting of it
        if slot.said and value is not None and value != slot.default and any(args.get(slot.name) == value for args in call_args):
            out.append(slot.said[lang].format(v=f"{value:g}"))
    return out


def why_unused(frame: Any, start: int, end: int, lang: str) -> str:
    """Why the value written at start..end is not used, when a slot read it and says why (else "")."""
    for span in frame.spans:
        slot = BY_NAME.get(span.slot)
        if slot and slot.unused and span.start < end and start < span.end:
            return slot.unused[lang]
    return ""


def put(frame: Any, name: str, value: Any) -> None:
    if name in type(frame).model_fields and name != "settings":
        setattr(frame, name, value)
    else:
        frame.settings[name] = value


def value_of(frame: Any, name: str) -> Any:
    return getattr(frame, name) if name in type(frame).model_fields else frame.settings.get(name)
