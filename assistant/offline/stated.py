"""Every number the user wrote is either used or said to be unused.

The reader fills the frame slot by slot; this module checks the result from the other side: it lists
each number written in the question (with its unit) and looks for a frame value it became. A number
that became nothing (a LoRA rank, a learning rate, "0.5" nodes that no slot took) is named in the
answer as not used, so nothing the user stated is dropped silently, whichever phrasing it came in.
Numbers inside the model's and the part's own names ("qwen2.5-7b", "A100 80GB"), the spans the reader claimed
for them, are part of a name."""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import spec
from .frame import QuestionFrame

# A number standing on its own: not glued to letters before it ("qwen2.5", "a100", "llama3-8b", "zero-3",
# "bf16"), with the units people write after it. ASCII-only look-arounds: "8卡" and "4096长度" are numbers.
MENTION = re.compile(
    r"(?<![a-z0-9_.])(?<![a-z0-9]-)(?P<num>\d+(?:\.\d+)?(?:e[-+]?\d+)?)"
    r"(?P<unit>\s?(?:k|m|b|bn|g|gb|gib|trillion|t|%|x|万亿|万|亿|千))?(?![a-z0-9_])(?!\.\d)")
# What a number with its unit can stand for: "1m" tokens is 2^20, "1.5 trillion" parameters 1500 (billion)
SCALE = {"k": (1000, 1024), "m": (1e6, 2**20), "b": (1, 1e9), "bn": (1, 1e9), "t": (1e12, 1000), "trillion": (1e12, 1000),
         "万亿": (1e12, 1000), "%": (0.01, 1), "万": (1e4,),
         "亿": (1e8, 0.1), "千": (1000,), "g": (1,), "gb": (1,), "gib": (1,), "x": (1,)}
# Frame slots the answer itself states whatever the tools take ("your 16 cards", "4096 tokens", "a 24 GB card");
# every other number counts as used only when a tool call of this turn took it as an argument.
STATED_SLOTS = ("seq_len", "devices", "memory_gb", "params_b", "weight_bits", "concurrency", "host_ram_gb",
                *(slot.name for slot in spec.SLOTS if slot.stated))
NAME_SLOTS = {"model", "models", "unknown_model", "hardware"}  # spans whose digits belong to a name
KEY_BEFORE = re.compile(r"([a-z_][a-z_\-]{1,30}|[\u4e00-\u9fff]{1,6})\s*[:=为是]?\s*$")


@dataclass(frozen=True)
class Mention:
    """One number as written: where it is, the words shown for it, and the values it can stand for."""

    start: int
    end: int
    text: str
    values: tuple[float, ...]


def mentions(question: str) -> list[Mention]:
    """Each number written in the question, with a few words around it as the user wrote them."""
    low = question.lower()
    out = []
    for m in MENTION.finditer(low):
        try:
            number = float(m.group("num"))
        except ValueError:
            continue
        unit = (m.group("unit") or "").strip()
        values = tuple(number * f for f in SCALE.get(unit, (1,)))
        key = KEY_BEFORE.search(low[max(0, m.start() - 32): m.start()]) if not unit else None
        start = m.start() - (len(key.group(0)) if key else 0)
        out.append(Mention(start, m.end(), question[start: m.end()].strip(), values))
    return out


def name_spans(frame: QuestionFrame) -> list[tuple[int, int]]:
    """Where the reader read model and part names in the question: their digits are part of a name."""
    return [(span.start, span.end) for span in frame.spans if span.slot in NAME_SLOTS]


def numbers_in(value: object) -> set[float]:
    """Every number inside a tool call's arguments (nested lists and objects included)."""
    if isinstance(value, bool):
        return set()
    if isinstance(value, (int, float)):
        return {float(value)}
    if isinstance(value, dict):
        return {n for v in value.values() for n in numbers_in(v)}
    if isinstance(value, (list, tuple)):
        return {n for v in value for n in numbers_in(v)}
    return set()


def frame_values(frame: QuestionFrame) -> set[float]:
    """The numbers the answer states from the frame, with what they can be derived from (per-node counts,
    DIE per card, a part's memory in its name, a shape's fields)."""
    values: set[float] = set()
    for slot in STATED_SLOTS:
        value = spec.value_of(frame, slot)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            values.add(float(value))
    if frame.nodes and frame.devices:
        values.add(frame.devices / frame.nodes)
    if frame.devices:
        values.add(frame.devices / 2)  # cards counted as DIE on Snt9B23
    for part in (frame.hardware or "", *frame.hardwares):
        values |= {float(d) for d in re.findall(r"\d+", part)}  # "h100-80g": the 80 of "H100 80GB"
    values |= {float(v) for v in (frame.shape or {}).values()}
    return values


def unused(frame: QuestionFrame, call_args: list[dict] | None = None) -> list[Mention]:
    """The numbers of this turn's question that neither the answer's own statements nor a tool call's arguments
    took (and that are not in a name)."""
    spans, held = name_spans(frame), frame_values(frame) | numbers_in(call_args or [])
    if frame.gpu_util:
        held |= {v * 100 for v in held if 0 < v <= 1}  # "--gpu-memory-utilization 95%"
    out = []
    for m in mentions(frame.question):
        if any(a <= m.start < b or a < m.end <= b for a, b in spans):
            continue
        if any(abs(v - h) <= 1e-9 * max(1.0, abs(h)) for v in m.values for h in held):
            continue
        out.append(m)
    return out
