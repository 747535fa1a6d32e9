"""Whether two names are one part, or a device of one part is a device of another, with no model and no job ("Snt9b2 is
the 910B3, right?", "910B3 对应 Snt9b 几?", "910B1 属于 Snt9B 还是 Snt9B23？", "is the 910B the same chip as the original
Ascend 910?", "一个 DIE 跟一张 910B 卡等价吗？", "is one 910C card two 910B cards?"). Read from the hardware catalog rows
alone: two spellings that resolve to one row (its aliases, flavors) are one part; two rows are two parts, except device
for device, where the vendor counts one DIE of a part counted in DIE as one card of a part counted in cards of the same
vendor and memory per device (``device_equivalent``). The yes or no first, then the row's own word on its names. Nothing
here names a part. Pure functions over the question's frame and the catalog rows."""

from __future__ import annotations

import re
from typing import Any

from .frame import QuestionFrame

# a name said to be, to match or to belong to another ("X is the Y, right?", "same chip as", "X 对应/属于/就是 Y")
IDENTITY = re.compile(
    r"(?i)same\s+(?:as|chip|part|card|thing|hardware|device|npu|gpu|processor)|the\s+same|equivalent|(?<![a-z])equal(?:s|\s+to)?(?![a-z])|"
    r"(?<![a-z])(?:is|are)\s+(?:just\s+|basically\s+|really\s+)?(?:the|an?)\s|(?<![a-z])(?:right|correct)\s*[?？]|glued|basically|"
    r"对应|属于|就是|等价|等效|相当于|等于|一样|同一|算是|是不是|还是|吧\s*(?:[?？]|$)")
# two parts said to be one ("the same chip as", "X 就是 Y", "等价吗"), not one chosen between them ("X 还是 Y 哪个大")
SAME = re.compile(r"(?i)same|equivalent|(?<![a-z])equal|glued|basically|(?<![a-z])(?:is|are)\s+(?:just\s+|basically\s+|really\s+)?(?:the|an?)\s|"
                  r"等价|等效|相当于|等于|一样|同一|就是|是不是")
CHOICE = re.compile(r"(?i)哪个|哪一?种|which|more|less|bigger|faster|区别|差别|不同|differ|(?<![a-z])vs\.?(?![a-z])|比")
# options offered for the first name to belong to ("910B1 属于 Snt9B 还是 Snt9B23", "is the 910B1 a Snt9B or a Snt9B23")
OFFERED = re.compile(r"(?i)还是|(?<![a-z])or(?![a-z])|属于")
FIGURES = {"part_compute", "part_total", "part_precision", "part_topology"}
# the yes or no asked (not "which one", not "what is it")
YES_NO = re.compile(r"(?i)吗|吧\s*(?:[?？]|$)|same[^?？]*[?？]|是不是|对不对|对吧|(?<![a-z])(?:right|correct|true)\s*[?？]|^\s*(?:is|are|does|do)\s")
# a count of DIE said ("one DIE on Snt9B23", "一个 DIE", "2 die")
DIE_COUNT = re.compile(r"(?i)(?<![0-9.])(\d+|one|a|two|一|两|二)\s*(?:个|颗)?\s*dies?(?![a-z])")
# the words between a count and the part it counts: before it ("one DIE on a Snt9B23", "1 个 DIE 的 Snt9B23"), after it
# ("Snt9B23 上的 4 个 DIE", "Snt9B 的 4 张卡")
OF_PART = re.compile(r"(?i)\s*(?:of|on|in|x|×|的)?\s*(?:the\s+|an?\s+)?")
PARTS_OWN = re.compile(r"(?i)\s*(?:上|里|中)?\s*(?:的|'s)?\s*")
UNIT_OF = {"said_cards": "card", "said_dies": "die"}
# a count of nodes said ("两台", "2 nodes"): _count reads counts of devices only
NODE_COUNT = re.compile(r"(?i)(?<![0-9.])(?:\d+|one|two|three|four|一|两|二|三|四)\s*(?:台|个?节点|nodes?(?![a-z]))")


def device_equivalent(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """One device of ``a`` counts as one device of ``b``: the same row, or the vendor's equivalence of one DIE of a part
    counted in DIE with one card of a part counted in cards (seeds/004: 1*DIE 等效于 Snt9B 中的 1 卡), read as two NPU rows
    of one vendor with the same memory per device, one counted in DIE and one in cards."""
    if a["id"] == b["id"]:
        return True
    return (a.get("kind") == b.get("kind") == "npu" and a.get("vendor") == b.get("vendor")
            and {a.get("unit"), b.get("unit")} == {"die", "card"}
            and float(a.get("memory_gb") or 0) == float(b.get("memory_gb") or 0))


def equated(r: dict[str, Any], spelled: list[str]) -> bool:
    """The row's own name or its word on names ("Snt9b2 = Ascend 910B3 = Atlas A2") holds every spelling said: they are
    one part, not only one row whose variants' differences are unverified (910B1 and 910B3)."""
    if len(spelled) < 2:
        return True  # one name beside the row's own: it is one of the row's names
    text = squash(str(r.get("naming") or "") + str(r.get("name") or ""))
    return all(squash(x) in text for x in spelled)


def squash(x: str) -> str:
    return re.sub(r"[^0-9a-z]", "", x.lower())


def own(r: dict[str, Any]) -> set[str]:
    """The row's own names (its id, its vendor-table part, its short name), squashed."""
    return {squash(str(r.get(k) or "")) for k in ("id", "table_part", "short_name")} - {""}


# a catalog row inferred, not read from a vendor page (its notes say so)
INFERRED = re.compile(r"(?i)inferred|not\s+verified")


def name(r: dict[str, Any]) -> str:
    return str(r.get("table_part") or r.get("short_name") or r["id"])


def _spans(s: QuestionFrame, parts: dict[str, dict[str, Any]]) -> list[Any]:
    return sorted((sp for sp in s.spans if sp.slot == "hardware" and sp.value in parts), key=lambda sp: sp.start)


def asked(s: QuestionFrame) -> bool:
    """The question asks whether names or devices are the same: two names of parts written (or one and a DIE said of
    it) and a word of identity, no model."""
    names = [sp for sp in s.spans if sp.slot == "hardware" and sp.value]
    texts = {re.sub(r"\s+", "", s.question[sp.start:sp.end].lower()) for sp in names}
    die_said = bool(DIE_COUNT.search(s.question))
    return bool(IDENTITY.search(s.question)) and (len(texts) >= 2 or (len(names) == 1 and die_said))


def said_of(spans: list[Any], text: str, sp: Any, slots: set[str], ways: str = "around after before") -> Any:
    """The count span (numbers.COUNTS_SAID) of ``slots`` said of the part written at ``sp`` of ``text``, read the ``ways``
    given in order: around its name ("two 910B cards", "2 Snt9B23 DIEs"), just after it ("Snt9B 的 4 张卡") or just before
    it ("one DIE on Snt9B23", "一台 A3"); None when none is. A count said of another part is that part's."""
    counts = [c for c in spans if c.slot in slots and c.value]
    belongs = {"around": lambda c: c.start <= sp.start and sp.end <= c.end,
               "after": lambda c: sp.end <= c.start and PARTS_OWN.fullmatch(text[sp.end:c.start]),
               "before": lambda c: c.end <= sp.start and OF_PART.fullmatch(text[c.end:sp.start])}
    return next((c for way in ways.split() for c in counts if belongs[way](c)), None)


def _count(s: QuestionFrame, sp: Any, row: dict[str, Any]) -> tuple[int, str]:
    """The count said of the part written at ``sp`` and its unit (cards or DIE), else one of the part's own devices."""
    found = said_of(s.spans, s.question, sp, set(UNIT_OF))
    return (int(found.value), UNIT_OF[found.slot]) if found else (1, str(row.get("unit") or "card"))


def _devices(n: int, unit: str, row: dict[str, Any]) -> int:
    """A count in the row's devices: cards of a part counted in DIE are cards × DIE per card."""
    return n * int(row.get("dies_per_card") or 1) if unit == "card" and row.get("unit") == "die" else n


def line(s: QuestionFrame, parts: dict[str, dict[str, Any]], zh: bool) -> tuple[str, list[dict[str, Any]]] | None:
    """The identity asked, yes or no first when asked so, and the rows it was read from; None when not asked."""
    if not asked(s):
        return None
    spans = _spans(s, parts)
    ids = list(dict.fromkeys(str(sp.value) for sp in spans))
    q = s.question
    yes_no = bool(YES_NO.search(q))
    said = lambda sp: q[sp.start:sp.end]  # noqa: E731
    if len(ids) == 1 and len({said(sp).lower() for sp in spans}) >= 2:  # two spellings of one row
        r = parts[ids[0]]
        spelled = list(dict.fromkeys(said(sp) for sp in spans))
        both = " 和 ".join(spelled) if zh else " and ".join(spelled)
        if not yes_no:
            head = (f"**{spelled[0]} 就是 {name(r)}**（硬件目录：{r.get('name')}）。" if zh else
                    f"**{spelled[0]} is {name(r)}** (hardware catalog: {r.get('name')}).")
        elif equated(r, [x for x in spelled if squash(x) not in own(r)]):
            # (a name that is the row's own, "Snt9B", is the part itself: the other name said is checked against it)
            head = (f"**是**，{both} 是同一款（硬件目录：{r.get('name')}）。" if zh else
                    f"**Yes**, {both} are the same part (hardware catalog: {r.get('name')}).")
        else:  # one row that holds both names, the catalog not saying they are one chip
            head = (f"**未经核实**：{both} 在目录中是同一行（{r.get('name')}），它们的差别未经核实。" if zh else
                    f"**Not verified**: {both} are one catalog row ({r.get('name')}); their differences are not verified.")
        return head + _naming(r, zh), [r]
    if len(spans) >= 3 and len(ids) >= 2 and spans[0].value in {sp.value for sp in spans[1:]} and OFFERED.search(q):
        # "910B1 属于 Snt9B 还是 Snt9B23": the first name is one of the options offered
        r = parts[str(spans[0].value)]
        other = [parts[i] for i in ids if i != r["id"]]
        nots = "、".join(name(o) for o in other) if zh else ", ".join(name(o) for o in other)
        head = (f"**{said(spans[0])} 属于 {name(r)}**，不是 {nots}（硬件目录：{said(spans[0])} 是 {r.get('name')} 的名称之一）。" if zh else
                f"**{said(spans[0])} is {name(r)}**, not {nots} (hardware catalog: {said(spans[0])} is a name of {r.get('name')}).")
        return head + _naming(r, zh), [r]
    rows = [parts[i] for i in ids]
    if len(rows) == 1 and DIE_COUNT.search(q):  # "一个 DIE 跟一张 910B 卡等价吗": the DIE is the equivalent part's device
        die_rows = [p for p in parts.values() if p.get("unit") == "die" and device_equivalent(p, rows[0])]
        if len(die_rows) != 1:
            return None
        a, b = die_rows[0], rows[0]
        na, ua = next((int(c.value) for c in s.spans if c.slot == "said_dies" and c.value), 1), "die"
        nb, ub = _count(s, spans[0], b)
    elif len(rows) == 2 and len(spans) == 2 and SAME.search(q) and not CHOICE.search(q) and not s.intents & FIGURES \
            and not (NODE_COUNT.search(q) or any(c.slot == "said_nodes" for c in s.spans)):  # (counts of nodes, "一台 A3 … 两台 910B", are the node comparison's, not a device identity)
        # (a figure asked of both, "H800 PCIe 和 SXM 算力一样吗", is their comparison's, not an identity)
        a, b = rows
        sa = next(sp for sp in spans if sp.value == a["id"])
        sb = next(sp for sp in spans if sp.value == b["id"])
        (na, ua), (nb, ub) = _count(s, sa, a), _count(s, sb, b)
    else:
        return None
    da, db = _devices(na, ua, a), _devices(nb, ub, b)
    same = device_equivalent(a, b) and da == db
    unit = lambda r, n, u: (("个 DIE" if zh else "DIE") if u == "die" or (r.get("unit") == "die" and u != "card") else  # noqa: E731
                            ("张卡" if zh else "card" if n == 1 else "cards"))
    ga, gb = float(a.get("memory_gb") or 0), float(b.get("memory_gb") or 0)
    each = lambda r, n, u, d, g: ((f"{name(r)} {n} {unit(r, n, u)}" if zh else f"{n} {name(r)} {unit(r, n, u)}")  # noqa: E731
                                  + (f"（= {d} 个 DIE）" if zh else f" (= {d} DIE)") * (d != n)
                                  + (f"，每个设备 {g:g} GB" if zh else f", {g:g} GB per device"))
    if a["id"] == b["id"]:
        return None
    if same:
        head = (f"**是**（按设备一对一）：{each(a, na, ua, da, ga)}；{each(b, nb, ub, db, gb)}；厂商把 1 个 DIE 算作 1 张单 DIE 卡"
                f"（ModelArts 模型最小卡数配置）（硬件目录）。" if zh else
                f"**Yes**, device for device: {each(a, na, ua, da, ga)}; {each(b, nb, ub, db, gb)}; the vendor counts 1 DIE as one card "
                f"of a one-DIE part (ModelArts minimum-card page) (hardware catalog).")
    elif device_equivalent(a, b):  # the same device, a different count
        head = (f"**不是**：{each(a, na, ua, da, ga)}，{each(b, nb, ub, db, gb)}，设备数不同（{da} 对 {db}）（硬件目录）。" if zh else
                f"**No**: {each(a, na, ua, da, ga)} and {each(b, nb, ub, db, gb)} are {da} vs {db} devices (hardware catalog).")
    else:  # each part as the question spells it ("910B3", "910B4"), with the catalog's part; an inferred row's remark follows
        sa, sb = (said(next(sp for sp in spans if sp.value == r["id"])) for r in (a, b))
        as_said = lambda x, r: x if squash(x) in (squash(name(r)), squash(str(r["id"]))) else (  # noqa: E731
            f"{x}（{name(r)}）" if zh else f"{x} ({name(r)})")
        head = (f"**不是**：{as_said(sa, a)} 和 {as_said(sb, b)} 是硬件目录里的两个型号：{name(a)} 每设备 {ga:g} GB，{name(b)} 每设备 {gb:g} GB。"
                if zh else
                f"**No**: {as_said(sa, a)} and {as_said(sb, b)} are two parts in the hardware catalog: {a.get('name')}, {ga:g} GB per device; "
                f"{b.get('name')}, {gb:g} GB per device.")
        head += "".join(_naming(r, zh) for r in (a, b) if INFERRED.search(str(r.get("notes") or "")))
    return head, [a, b]


def _naming(r: dict[str, Any], zh: bool) -> str:
    """The row's own word on its names and variants (what is third-party or unverified), where it has one."""
    text = str(r.get("naming_zh" if zh else "naming") or "").strip()
    return "" if not text else (" " if not zh else "") + text
