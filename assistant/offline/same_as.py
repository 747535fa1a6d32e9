"""Whether a count of one part is "the same as" a count of another, asked beside a sizing ("16 DIE on a Snt9B23 node — is
that the same as two Snt9B nodes?", "一台 A3 的 16 个 DIE 相当于两台 910B 吗"): each count in devices from the hardware
catalog rows (nodes × devices per node; cards × DIE per card on a part counted in DIE), compared device for device and
in memory. Nothing here names a part. Pure functions over the question's frame and the catalog rows."""

from __future__ import annotations

import re
from typing import Any

from .frame import QuestionFrame
from .part_same import device_equivalent, said_of

SAME_AS = re.compile(r"(?i)same\s+as|equivalent|equal\s+to|(?<![a-z])(?:as\s+much\s+as|worth)(?![a-z])|相当于|等于|等同|一样|等效|顶")


def _count(s: QuestionFrame, sp: Any, first: bool) -> tuple[int, str] | None:
    """The count said of the part written at ``sp``: its node count ("two Snt9B nodes", "一台 A3", part_same.said_of), else
    (the first part only) the devices the question states."""
    if found := said_of(s.spans, s.question, sp, {"said_nodes"}, "around before"):
        return int(found.value), "node"
    if first and s.devices:
        return s.devices, s.device_unit or "card"
    return None


def line(s: QuestionFrame, parts: dict[str, dict[str, Any]], zh: bool) -> str | None:
    """The comparison of the two counts, yes or no first, or None when the question asks no such thing."""
    if not SAME_AS.search(s.question):
        return None
    spans = sorted((sp for sp in s.spans if sp.slot == "hardware" and sp.value in parts), key=lambda sp: sp.start)
    seen: list[Any] = []
    for sp in spans:
        if all(sp.value != o.value for o in seen):
            seen.append(sp)
    if len(seen) != 2:
        return None
    counted = []
    for i, sp in enumerate(seen):
        row = parts[str(sp.value)]
        count = _count(s, sp, i == 0)
        if count is None:
            return None
        n, unit = count
        per_node, dies = int(row.get("devices_per_node") or 8), int(row.get("dies_per_card") or 1)
        by_die = row.get("unit") == "die"
        devices = n * per_node if unit == "node" else n * dies if by_die and unit != "die" else n
        counted.append((row, n, unit, devices))
    (a, na, ua, da), (b, nb, ub, db) = counted
    name = lambda r: str(r.get("table_part") or r.get("short_name") or r["id"])  # noqa: E731
    word = lambda r, k: ("个 DIE" if zh else "DIE") if r.get("unit") == "die" else ("张卡" if zh else "cards" if k != 1 else "card")  # noqa: E731

    def said(r: dict[str, Any], n: int, unit: str, d: int) -> str:
        per_node, dies = int(r.get("devices_per_node") or 8), int(r.get("dies_per_card") or 1)
        cards = f"{d // dies} 张卡 × {dies} 个 DIE" if zh else f"{d // dies} cards × {dies} DIE"
        if unit == "node":
            head = f"{n} 台 {name(r)} = {n} × {per_node} = {d} {word(r, d)}" if zh else \
                f"{n} {name(r)} node{'s' * (n != 1)} = {n} × {per_node} = {d} {word(r, d)}"
        else:
            head = f"{name(r)} {d} {word(r, d)}" if zh else f"{d} {word(r, d)} of {name(r)}"
        return head + (f"（{cards}）" if zh else f" ({cards})") if dies > 1 else head

    ma, mb = float(a.get("memory_gb") or 0), float(b.get("memory_gb") or 0)
    same = da == db and ma == mb
    total_a, total_b = da * ma, db * mb
    # the vendor's DIE-for-card equivalence is one rule (part_same.device_equivalent), named with the two rows' own names
    die, card = (a, b) if a.get("unit") == "die" else (b, a)
    vendor = ((f"；厂商把 {name(die)} 的 1 个 DIE 算作 1 张 {name(card)} 卡" if zh else
               f"; the vendor counts 1 DIE of {name(die)} as one {name(card)} card")
              if a["id"] != b["id"] and device_equivalent(a, b) else "")
    if zh:
        verdict = "**是，按设备一对一相同**" if same else "**不相同**"
        return (f"{verdict}：{said(a, na, ua, da)}，每个 {ma:g} GB；{said(b, nb, ub, db)}，每个 {mb:g} GB；"
                f"显存合计 {total_a:g} GB 对 {total_b:g} GB{vendor}（硬件目录）。")
    verdict = "**Yes, device for device**" if same else "**No, not the same**"
    return (f"{verdict}: {said(a, na, ua, da)} of {ma:g} GB each; {said(b, nb, ub, db)} of {mb:g} GB each; "
            f"{total_a:g} GB vs {total_b:g} GB in all{vendor} (hardware catalog).")
