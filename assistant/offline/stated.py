"""Every number the user wrote is either used or said to be unused.

The reader fills the frame slot by slot and claims the words of each value it read as a typed span. This module
checks the result from the other side: it lists each number written in the question (with its unit) and asks
where it went. A number inside a span is judged by that span's provenance: the digits of a model's or a part's
name are part of the name; a stated setting (slots.toml) is used when the answer states it or a tool call of this
turn took it under the slot's own name, and otherwise is named as not used with the slot's reason (a LoRA rank in
a full fine-tuning, EP on a dense model). Only a number no extractor claimed (counts and lengths read without a
span) is matched by value against what the answer used. Nothing the user stated is dropped silently, and nothing
the answer used is listed as unused."""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import batch_math, spec, table_query
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
UNIT_READ = {"memory_gb"}  # spans of a frame value the answer states in its own unit, not as written
ASKED_SLOTS = {"asked_nodes", "either"}  # spans whose digits the question asks about ("fit in 1 node?"): no value stated
# A software version ("vllm 0.6.3", "CANN 8.0.RC2", "torch 2.1.0"): three parts, or two after a software name; no number
# the sizing takes, so it is named as unused (with why) unless it names one of the vendor's vLLM tables (table_query.toml)
VERSION = re.compile(r"(?:(?<![a-z0-9_.])v?\d+\.\d+\.\d+(?:[.-]?(?:rc|post|dev|b)\d*)*|"
                     r"(?:vllm(?:-ascend)?|cann|torch|pytorch|torch_npu|transformers|deepspeed|mindspeed(?:-llm)?|llama-?factory|"
                     r"python|cuda|driver|firmware|mindie)\s*(?:version\s*|版本\s*)?(?:v|=|==)?\s*\d+\.\d+(?:\.\w+)*)(?![0-9]|\.\d)")  # not an address
KEY_BEFORE = re.compile(r"([a-z_][a-z_\-]{1,30}|[\u4e00-\u9fff]{1,6})\s*[:=为是]?\s*$")


@dataclass(frozen=True)
class Mention:
    """One number as written: where it is (with its key words; the number itself from ``at``), the words shown
    for it, and the values it can stand for."""

    start: int
    end: int
    text: str
    values: tuple[float, ...]
    at: int = -1


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
        out.append(Mention(start, m.end(), question[start: m.end()].strip(), values, m.start()))
    return out


def name_spans(frame: QuestionFrame) -> list[tuple[int, int]]:
    """Where the reader read model and part names in the question: their digits are part of a name."""
    return [(span.start, span.end) for span in frame.spans
            if span.slot in NAME_SLOTS | ASKED_SLOTS | {spec.NOT_A_SETTING, spec.CURRENT, spec.RESTATED_SLOT, spec.QUOTED_COUNT}
            # a value read in another unit than the answer says it in ("HBM 32768 MB" is the 32 GB per device stated)
            or span.slot in UNIT_READ and span.value is not None and spec.value_of(frame, span.slot) == span.value]


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
    for model in (frame.model or "", *frame.models):  # "seems a lot for a 0.6b model": the size of qwen3-0.6b
        values |= {float(d) for d in re.findall(r"\d+(?:\.\d+)?", model)}
    values |= {float(v) for v in (frame.shape or {}).values()}
    if "config" in frame.intents:  # a port, a save interval: the file (or the vllm serve line) says them as written
        values |= numbers_in({k: v for k, v in (frame.file_values or {}).items() if not isinstance(v, str)})
    return values


def slot_used(frame: QuestionFrame, name: str, value: object, call_args: list[dict]) -> bool:
    """Whether the setting ``name`` read as ``value`` reached the answer: stated by it (its frame value is set), or
    taken by a tool call under the slot's own name (or a name slots.toml declares for it)."""
    slot = spec.BY_NAME[name]
    if value is None or slot.methods and frame.method not in slot.methods:
        return False  # out of range (said as a problem), or a LoRA setting in a full fine-tuning
    if name in STATED_SLOTS and spec.value_of(frame, name) is not None:
        return True
    if name in ("tp", "pp") and frame.framework != "LLaMA-Factory" and batch_math.solve(frame, assume_mbs=True) is not None:
        return True  # the batch identity's data parallel (devices / (TP × PP)) is stated with the split the user said
    # a LLaMA-Factory argument said by its name ("lora alpha 128") is written into the YAML under that name
    return any(args.get(arg) == value or (args.get("yaml_keys") or {}).get(arg) == value
               for args in call_args for arg in (name, *slot.args))


def unused(frame: QuestionFrame, call_args: list[dict] | None = None) -> list[Mention]:
    """The numbers of this turn's question that the answer did not use: a stated setting by its span's provenance,
    a number no extractor claimed by value (neither the answer's own statements nor a tool call's arguments hold it);
    the digits of a name are the name's."""
    args = call_args or []
    spans, held = name_spans(frame), frame_values(frame) | numbers_in(args)
    if frame.gpu_util:
        held |= {v * 100 for v in held if 0 < v <= 1}  # "--gpu-memory-utilization 95%"
    out, seen = [], []
    low = frame.question.lower()
    versions = [v for v in VERSION.finditer(low) if not table_query.vllm_versions_named(v.group(0))]
    for v in versions:  # said once, as typed ("vllm 0.6.3"); the digits inside it are no other value
        out.append(Mention(v.start(), v.end(), frame.question[v.start():v.end()].strip(), (), v.start()))
    spans += [(v.start(), v.end()) for v in versions]
    for m in mentions(frame.question):
        if any(a <= m.start < b or a < m.end <= b for a, b in spans):
            continue
        settings = [sp for sp in frame.spans if sp.slot in spec.BY_NAME and sp.overlaps(m.at, m.end)]
        seen += settings
        if settings:  # read as a setting: its own provenance decides, never a coincidence of values
            if not any(slot_used(frame, sp.slot, sp.value, args) for sp in settings):
                start = min(m.start, *(sp.start for sp in settings))  # "warmup ratio 0.03": the setting's words as typed
                out.append(Mention(start, m.end, frame.question[start:m.end].strip(), m.values, m.at))
            continue
        if any(abs(v - h) <= 1e-9 * max(1.0, abs(h)) for v in m.values for h in held):
            continue
        out.append(m)
    # a setting whose value is glued to its key ("zero3", "EP2", "ds_z2") is no number standing alone: its span is
    # the mention
    for sp in frame.spans:
        if sp.slot in spec.BY_NAME and sp not in seen and not slot_used(frame, sp.slot, sp.value, args):
            out.append(Mention(sp.start, sp.end, frame.question[sp.start:sp.end].strip(), (), sp.start))
    return sorted(out, key=lambda m: m.start)
