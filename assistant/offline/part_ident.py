"""Which part a node is, told from what the user sees on it: a pasted `npu-smi info` table (its devices, the chips of
each, their HBM and chip names) or the same said in words ("16 个芯片，每个 65536 MB", "16 devices with 64 GB each").
The part is the hardware catalog row whose memory per device, devices per node and dies per card (or chip-name alias)
match; nothing here names a part. Pure functions over the question and the catalog rows."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from . import pasted_output
from .table_query import VOCAB as TABLE_VOCAB

# the two Ascend parts a question may choose between, as the vendor tables' hardware column spells them
PARTS = "|".join(rx.pattern for rx in TABLE_VOCAB.columns["hardware"].values())
# the question asks which part it is ("which part is this", "Snt9B or Snt9B23?", "A2 还是 A3", "是什么卡", "哪个型号")
ASKS = re.compile(
    r"(?<![a-z])(?:which|what)\s+(?:modelarts\s+)?(?:part|card|npu|chip|hardware|model|flavou?r|type|kind|machine|node|server)s?"
    r"\s+(?:is|are|does|do)\s+(?:this|that|it|these|those|mine|my|our)|(?<![a-z])(?:which|what)\s+(?:modelarts\s+)?(?:part|hardware)"
    r"(?![a-z])|(?<![a-z])is\s+(?:this|it|my\s+\w+|our\s+\w+)\s+(?:an?\s+)?[\w.-]+\s+or\s+(?:an?\s+)?[\w.-]+|"
    rf"(?<![a-z])(?:{PARTS})\s+or\s+(?:{PARTS})(?![a-z0-9])|"
    r"how\s+many\s+[\w.-]+\s+(?:cards?|nodes?)\s+is\s+(?:that|this|it)|"
    rf"(?:{PARTS})\s*还是\s*(?:{PARTS})|"
    r"哪(?:个|种|款)\s*(?:型号|硬件|卡|规格|机型)|什么\s*(?:型号|卡|硬件|机型)|"
    r"对应.{0,12}(?:型号|规格|机型)|"
    rf"是\s*(?:{PARTS})\s*(?:吗|还是)|算\s*几\s*张", re.I)
# a count of devices said in words, and their memory ("16 个芯片", "16 devices", "每个 65536 MB", "64 GB each")
COUNT = re.compile(r"(?<![0-9.])(\d{1,3})\s*(?:(?:个|颗|张|块)\s*(?:chips?|devices?|npus?|dies?|芯片|设备|处理器|die|卡)?|"
                   r"(?:chips?|devices?|npus?|dies?|cards?)(?![a-z]))", re.I)
MEMORY = re.compile(r"(?<![0-9.])(\d{2,6})\s*(mb|mib|gb|gib|g)(?![a-z])", re.I)


@dataclass(frozen=True)
class Seen:
    """What the user sees on one node: devices, chips per card (npu-smi's Chip column), MB per device, chip names."""

    devices: int | None
    chips_per_card: int | None
    memory_mb: int | None
    names: tuple[str, ...]
    pasted: bool


def seen(question: str) -> Seen | None:
    """The devices of a pasted npu-smi table, else the counts and memory said in words, or None."""
    if t := pasted_output.read_npu_smi(question):
        cards = {d.npu for d in t.devices}
        per_card = max(sum(1 for d in t.devices if d.npu == c) for c in cards)
        names = tuple(dict.fromkeys(d.name for d in t.devices if d.name))
        return Seen(len(t.devices), per_card, max(d.hbm_total_mb for d in t.devices), names, True)
    low = question.lower()
    count = COUNT.search(low)
    mem = MEMORY.search(low)
    if not (count and mem):
        return None
    n, unit = int(mem.group(1)), mem.group(2).lower()
    mb = n if unit.startswith("m") else n * 1024
    return Seen(int(count.group(1)), None, mb, (), False)


def _aliases(row: dict[str, Any]) -> set[str]:
    return {a.strip().lower().replace(" ", "") for a in str(row.get("aliases") or "").split(";") if a.strip()}


def identify(v: Seen, parts: dict[str, dict[str, Any]], question_said: str = "") -> tuple[dict[str, Any], str] | None:
    """The catalog part the node is, and how it was told (``name``: the chip name is one of its aliases; ``layout``: its
    memory per device and devices per node), or None when no part or more than one fits."""
    npus = [r for r in parts.values() if r.get("kind") == "npu"]
    for name in v.names:  # "910B3" printed in the Name column is an alias of one part
        key = name.lower().replace(" ", "")
        hit = [r for r in npus if key in _aliases(r) or key == str(r["id"]).lower()]
        if v.memory_mb and hit:  # a family name ("Ascend910" on an A3) is no part when its memory says otherwise
            hit = [r for r in hit if abs(float(r.get("memory_gb") or 0) - v.memory_mb / 1024) <= 0.06 * v.memory_mb / 1024]
        if len(hit) == 1:
            return hit[0], "name"
    if v.memory_mb is None:
        return None
    gb = v.memory_mb / 1024
    by_memory = [r for r in npus if abs(float(r.get("memory_gb") or 0) - gb) <= 0.06 * gb]
    fits = [r for r in by_memory if v.devices is None or int(r.get("devices_per_node") or 0) == v.devices]
    if v.chips_per_card and v.chips_per_card > 1:
        fits = [r for r in fits if int(r.get("dies_per_card") or 1) == v.chips_per_card] or fits
    # several rows share the layout (a 32 GB 910A and 910B4): the one whose names the question says, else the one the
    # vendor tables use
    low = re.sub(r"\s+", "", question_said.lower())
    tabled = [r for r in fits if any(a and a in low for a in _aliases(r))] if len(fits) > 1 else fits
    tabled = tabled if len(tabled) == 1 else [r for r in fits if r.get("vendor_tables")]
    if len(fits) == 1 or len(tabled) == 1:
        return (fits if len(fits) == 1 else tabled)[0], "layout"
    return None


def others(found: dict[str, Any], parts: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The vendor-table parts of the same memory per device that it is not (Snt9B beside Snt9B23), to say why not."""
    return [r for r in parts.values() if r.get("kind") == "npu" and r["id"] != found["id"] and r.get("table_part")
            and r.get("memory_gb") == found.get("memory_gb")]


def render(v: Seen, found: dict[str, Any], how: str, parts: dict[str, dict[str, Any]], zh: bool) -> str:
    """The part first, then the node in its devices and cards, then the part it is not and why."""
    name = str(found.get("table_part") or found.get("short_name") or found["id"])
    full = str(found.get("name") or name)
    mem, per_node = float(found.get("memory_gb") or 0), int(found.get("devices_per_node") or 0)
    dies = int(found.get("dies_per_card") or 1)
    unit = "DIE" if found.get("unit") == "die" else ("芯片" if zh else "chips") if found.get("unit") == "chip" else ("张卡" if zh else "cards")
    n = v.devices or per_node
    said = (f"你{'贴的 npu-smi' if v.pasted else '说的'}：{n} 个设备，每个 {v.memory_mb:,} MB（{v.memory_mb / 1024:g} GB）" if zh else
            f"What you {'pasted (npu-smi)' if v.pasted else 'describe'}: {n} devices of {v.memory_mb:,} MB ({v.memory_mb / 1024:g} GB) each") \
        if v.memory_mb else ""
    if how == "name":
        said += (f"，芯片名 {'、'.join(v.names)}" if zh else f", chip name {', '.join(v.names)}")
    lines = []
    if zh:
        head = f"**这是 {name}**（{full}）：{said}。"
        if dies > 1:
            head += f"目录：{name} 每节点 {per_node} 个 {unit}（{per_node // dies} 张卡 × 每卡 {dies} 个 DIE），每个 DIE {mem:g} GB。"
            if v.devices and v.devices % dies == 0:
                head += f"所以 {v.devices} 个 DIE = {v.devices // dies} 张 {name} 卡 = {v.devices / per_node:g} 个节点。"
        else:
            head += f"目录：{name} 每张卡 {mem:g} GB，每节点 {per_node} {unit}。"
    else:
        head = f"**This is {name}** ({full}): {said}."
        if dies > 1:
            head += (f" Catalog: {name} has {per_node} {unit} per node ({per_node // dies} cards × {dies} DIE each), "
                     f"{mem:g} GB per DIE.")
            if v.devices and v.devices % dies == 0:
                head += f" So {v.devices} DIE = {v.devices // dies} {name} cards = {v.devices / per_node:g} node{'s' * (v.devices != per_node)}."
        else:
            head += f" Catalog: {name} has {mem:g} GB per card, {per_node} {unit} per node."
    if naming := str(found.get("naming_zh" if zh else "naming") or ""):
        head += " " + naming  # the catalog's own word on the names (an inferred 910B4 row says so)
    lines.append(head)
    for o in others(found, parts):
        oname = str(o.get("table_part") or o["id"])
        odies, oper = int(o.get("dies_per_card") or 1), int(o.get("devices_per_node") or 0)
        shape = (f"{oper // odies} 张卡 × {odies} DIE = {oper} 个 DIE" if odies > 1 else f"{oper} 张卡（1 卡 = 1 DIE）") if zh else \
            (f"{oper // odies} cards × {odies} DIE = {oper} DIE" if odies > 1 else f"{oper} cards (1 card = 1 DIE)")
        lines.append(f"不是 {oname}：{oname} 每节点 {shape}，每个 {float(o.get('memory_gb') or 0):g} GB。" if zh else
                     f"Not {oname}: a {oname} node has {shape} of {float(o.get('memory_gb') or 0):g} GB each.")
    return "\n".join(lines)


def answer(question: str, parts: dict[str, dict[str, Any]], zh: bool) -> tuple[str, list[str]] | None:
    """The identification asked ("Snt9B or Snt9B23?" over a pasted npu-smi table), with its catalog sources, or None."""
    if not ASKS.search(question) or not (v := seen(question)) or not (hit := identify(v, parts, question)):
        return None
    found, how = hit
    sources: list[str] = []  # each row's source as written (a part's source that another's holds is said once)
    for r in (found, *others(found, parts)):
        src = str(r.get("source") or "").strip()
        if src and not any(src in s for s in sources):
            sources.append(src)
    return render(v, found, how, parts, zh), sources
