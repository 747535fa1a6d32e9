"""What a part is, from its hardware catalog row (the list_hardware tool): memory per device and per card, devices
per node, the total of a node (or of the devices the user said), TFLOPS with their source, precisions and the
smallest parallel unit, for one part or several side by side. What is asked is read as intents (intents.toml,
``part_*``); a part named with none of them asked gets its whole row."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import NamedTuple

from ..kb import vendor_tables
from ..notes import DIFFERENCE_ASKED
from ..resolve import flavor_names
from ..setup_check import rules
from ..tools.tables import HardwareInfo, ListHardwareResult
from . import part_same, table_query
from .frame import QuestionFrame
from .memory_units import sizes_gb
from .route import (
    NODE_WORDS,
    NODES_ASKED,
    RANKS_ASKED,
    SUPPORT_ASKED,
    converts_parts,
    layout_devices,
    part_facts_asked,
)
from .wording import Writer

ASKED = ("part_memory", "part_node", "part_total", "part_compute", "part_precision", "part_unit")
# asked only by name: a part's whole row leaves them out
NAMED_ONLY = ("part_naming", "part_flavor", "part_topology", "part_job_devices", "part_cores")
# a count of the devices in a node ("几张卡", "几块 910C", "how many NPUs") and a memory word, for the order they are asked in
NODE_COUNT_WORD = re.compile(r"how\s+many|几\s*[张块个颗]|多少\s*[张块个颗]")
MEMORY_WORD = re.compile(r"memory|hbm|vram|显存|内存|容量")
# "can a job get 3 processors": a count said with a processor word (the reader's device count knows cards and DIE)
PROCESSORS = re.compile(r"(?<![0-9.])(\d+)\s*(?:个|颗|张)?\s*(?:processors?|处理器|npus?|dies?|芯片)(?![a-z])")
# "how many cards per node", "what is a DIE" (the hardware_facts intent): what a device and a node are
NODE_FACTS = {"part_memory", "part_node", "part_unit"}
# A count stated as the premise of another question ("一台 Snt9B 八张卡加起来一共多少 GB?", "an A3 node with its 16 DIE, how
# many GB?") is not asked: no yes/no leads when the question asks a figure and no yes/no
WH_ASKED = re.compile(r"多少|几|哪|什么|(?<![a-z])(?:what|which|how\s+(?:many|much))(?![a-z])")
YES_NO_ASKED = re.compile(r"吗|是不是|是否|对不对|对吧|(?<![a-z])(?:right|correct|true)\s*[?？]|^(?:is|does|do|has|are|can)\s")
# the physical cards asked of a count of DIE ("TP 8 占几张物理卡", "how many physical cards is TP 4")
CARDS_ASKED = re.compile(r"物理卡|(?:几|多少)\s*张\s*(?:物理)?\s*卡|卡\s*(?:是|有|为|算)?\s*(?:几|多少)\s*张|(?:几|多少)\s*张\s*[a-z0-9 ]{2,12}(?:卡)?(?![a-z0-9])|physical\s+(?:cards?|npus?)|"
                         r"how\s+many\s+(?:physical\s+)?(?:[a-z0-9-]+\s+){0,2}cards")  # "几张 Snt9B", "how many snt9b cards"


def squash_name(x: str) -> str:
    return re.sub(r"[^0-9a-z]", "", x.lower())


def fig(x: float) -> str:
    return f"{x:g}"


# "how many whole nodes, and how many DIE left?": the whole nodes and the remainder are both asked
# (whole nodes named: "left over" is what stays beyond them; with no whole nodes named, what is left over is the rented
# last node's idle devices, which the rounded-up count says)
WHOLE_AND_LEFT = re.compile(r"完整|整台|(?<![a-z])(?:whole|full|complete)\s+(?:\w+\s+)?nodes?")

class PartFactsBlocks(Writer):
    """The hardware block: the parts the question names, or the whole catalog for a list."""

    def hardware_list(self, r: ListHardwareResult) -> list[str]:
        asked = self.s.hardwares or (
            [self.s.hardware] if self.s.hardware and "list_hardware" not in self.s.intents else []
        )
        named = [h for hw in asked for h in r.hardware if h.id == hw]
        if converts_parts(self.s):
            converted = self.part_conversion(r.hardware)
            if converted:
                return converted
        if named:
            return self.part_facts(named)
        lines = [self.say("pf_hardware_list")]
        for h in r.hardware:
            lines.append(
                f"- {h.id}: {h.name}, {h.memory_gb:g} GB/{h.unit}, {h.devices_per_node} {h.unit}/node"
            )
            self.cite(h.source)
        return lines + [""]

    def part_facts(self, parts: list[HardwareInfo]) -> list[str]:
        """One line per part with what was asked, the first as the answer's headline; a count the user said of a
        node is checked against the catalog first."""
        asked = part_facts_asked(self.s)
        if {"part_compute", "part_precision"} <= asked and not SUPPORT_ASKED.search(self.s.question.lower()):
            asked.discard("part_precision")  # "FP16 TFLOPS": the precision names the figure asked ("支持 fp8 吗，算力多少": both)
        if "part_flavor" in asked and not FLAVOR_NAME_ASKED.search(self.s.question.lower()) and any(
                FLAVOR_WORD.match(self.s.question.lower(), sp.end) for sp in self.s.spans if sp.slot == "hardware"):
            asked.discard("part_flavor")  # "the Snt9B23 flavor": the word names the part's kind, its flavor names are not asked
        if asked and self.s.memory_gb and "part_memory" not in asked and self.s.hardware_text:
            asked.add("part_memory")  # "still 8 cards a node, 64GB each": the size said beside the question is checked too
        same = part_same.line(self.s, self.parts, self.zh)  # "Snt9b2 is the 910B3, right?", "1 DIE = 1 Snt9B card?"
        if same and parts and parts[0].id not in {r["id"] for r in same[1]}:
            return []  # "X 属于 A 还是 B": the block of the part X is leads, the other option's has nothing asked
        said_before = same is not None and same[0] in self.said_once  # parts compared: one block each, the identity said once
        if same:  # the identity leads; the names it settles and the counts it read are not asked again
            self.said_once.add(same[0])
            asked.discard("part_naming")
            for row in same[1]:
                self.cite(str(row.get("source") or ""))
            if not asked:
                return [] if said_before else [self.lead(same[0]), ""]
        if asked == {"part_framework"}:
            asked.add("part_memory")  # "is MindSpeed-LLM supported on 910B4?": the requirement leads, the part's memory beside
        if not asked:  # a part named and nothing in particular asked ("A2 和 A3 有什么区别"): its whole row
            asked = NODE_FACTS if "hardware_facts" in self.s.intents else set(ASKED) | {"whole_row"}
        said = (self.s.hardware_text or "").lower()
        flavor_named = any(said in {n.lower() for n in flavor_names(f)} for h in parts for f in (h.flavors or "").split(";"))
        if flavor_named:
            asked.add("part_flavor")  # "what is modelarts.bm.arm.24u.192g.npu.1d910b?": the flavor named is one of its own
            # "what card, how many?" of a flavour: its own NPU count answers the count, not a node's or a node's total
            asked -= {"part_node", "part_total", "part_compute", "part_precision", "part_unit", "whole_row"}
        # a node's count said beside another question ("how are the 8 cards in a 910B node connected?") is no yes/no question
        if "part_mixed_job" in asked:  # one job over two parts: one "not covered" line, not each part's names
            asked.discard("part_naming")
            parts = parts[:1]
        if "part_rank_each" in self.s.intents:
            asked.discard("part_naming")  # "一个 rank 还是两个": the either-or asks the ranks, not the part's other names
        if "part_ranks" in asked:
            asked.discard("part_job_devices")  # "how many ranks does a 2-node job have": the count, not the sizes a job may take
        lines = ([] if said_before else [self.lead(same[0])]) if same else [] if asked & set(NAMED_ONLY) or "part_ranks" in asked else [
            line for h in parts[:1] for line in self.part_count_said(h)]
        for h in parts:
            stated = self.fact_stated_count(h, asked) if len(parts) == 1 and not same else ""
            if stated:  # the nodes or cards the user said, in devices, cards and memory: it holds the rank count and the total
                asked = asked - {"part_ranks", "part_total"}
            # "支持 fp8 吗，算力多少": the yes or no asked of a precision leads the figures asked beside it
            q = self.s.question.lower()
            support, figure = SUPPORT_ASKED.search(q), FIGURE_WORD.search(q)
            precision_first = "part_precision" in asked and bool(support) and not (figure and figure.start() < support.start())  # type: ignore[union-attr]
            precision = self.fact_precision(h, asked)
            # "how many NPUs in the flavor?", "npu.2d910b 是两张 910B 吗，哪种芯片": the flavor named is answered before its names
            flavor_first = "cards" in self.s.intents or "part_naming" in asked
            dies = self.fact_dies(h)  # "每张卡是不是两个 die": its yes or no leads the part's facts
            dies_first = dies.startswith(tuple(self.L(x, y) for x, y in (("**Yes", "**是"), ("**No", "**不是"))))
            # "单台服务器几张卡、几个DIE、总显存多少": the node's count asked before the memory is said before it
            count, memory = NODE_COUNT_WORD.search(q), MEMORY_WORD.search(q)
            node_first = "part_node" in asked and bool(count) and not (memory and memory.start() < count.start())  # type: ignore[union-attr]
            node = self.fact_node(h, asked)
            facts = [
                f
                for f in (
                    dies if dies_first else "",
                    stated,
                    # "how many NPUs in the npu.1d910b flavor?": the flavor's own count first
                    self.fact_flavor(h, asked) if flavor_named and flavor_first else "",
                    precision if precision_first else "",
                    "" if same else self.fact_count(h, asked),
                    node if node_first else "",
                    self.fact_memory(h, asked),
                    "" if node_first else node,
                    self.fact_total(h, asked),
                    self.fact_compute(h, asked),
                    "" if precision_first else precision,
                    "" if dies_first else dies,
                    self.fact_unit(h, asked),
                    self.fact_naming(h, asked),
                    "" if flavor_named and flavor_first else self.fact_flavor(h, asked),
                    self.fact_topology(h, asked),
                    self.fact_job_devices(h, asked),
                    self.fact_cores(h, asked),
                    self.fact_tables(h, asked),
                )
                if f
            ]
            # a figure no catalog column holds: said unknown first, then what is known
            unheld = [NOT_HELD[a] for a in sorted(asked & set(NOT_HELD))] + (
                [BANDWIDTH] if ASKS_BANDWIDTH.search(self.s.question) else [])
            for en, zh, why_en, why_zh in reversed(unheld):
                facts.insert(0, self.not_in_catalog(en, zh, h) + self.L(why_en, why_zh))
            if unheld and len(facts) == len(unheld):
                facts.append(self.L("what the catalog has: ", "目录中有的是：") + self.L("; ", "；").join(
                    f for f in (self.fact_memory(h, {"part_memory"}), self.fact_node(h, {"part_node"})) if f))
            if asked & set(NAMED_ONLY) and all(self.missing(h, a) for a in asked & set(NAMED_ONLY)) and not asked & set(ASKED):
                # none of it in the catalog: say so, with what the catalog does have
                facts.append(self.L("what the catalog has: ", "目录中有的是：") + self.L("; ", "；").join(
                    f for f in (self.fact_memory(h, {"part_memory"}), self.fact_node(h, {"part_node"})) if f))
            if fit := self.framework_fit(h, asked):  # the framework's requirement on the part leads its facts
                lines.append(self.lead(fit))
            text = f"**{h.name}**{self.L(': ', '：')}" + self.L("; ", "；").join(facts) + self.L(".", "。")
            lines.append(self.lead(text) if len(parts) == 1 else f"- {text}")
            self.cite(h.source)
        if len(parts) > 1 and not self.headlined:
            lines.insert(0, self.lead(self.comparison_lead(parts[:2], asked) or self.say("pf_side_by_side")))
        return lines + [""]

    def catalog_comparison(self) -> str:
        """The comparison line of the parts the question compares, from the catalog rows listed."""
        if part_same.line(self.s, self.parts, self.zh):
            return ""  # "X 是 Snt9B 还是 Snt9B23": the part it is leads, the options are not compared
        rows = [h for r in self.r.values("list_hardware", ListHardwareResult) for h in r.hardware]
        parts = [h for hw in self.s.hardwares for h in rows if h.id == hw]
        return self.comparison_lead(parts[:2], part_facts_asked(self.s)) if len(parts) >= 2 else ""

    def comparison_lead(self, parts: list[HardwareInfo], asked: set[str]) -> str:
        """Two parts' lead: their difference when asked (a precision's yes/no asked before it first), else the figure
        and the precision compared."""
        diff = self.parts_differ(parts)
        if not diff:
            return self.compared_lead(parts, asked)
        q = self.s.question.lower()
        prec = self.precision_compared(parts, asked)
        p_at = min((q.find(p.lower()) for p in ("FP8", "BF16") if p.lower() in q), default=len(q))
        d_at = m.start() if (m := DIFFERENCE_ASKED.search(q)) else len(q)
        return self.L(" ", "").join([prec, diff]) if prec and p_at < d_at else diff

    def compared_lead(self, parts: list[HardwareInfo], asked: set[str]) -> str:
        """The figure compared and the precision compared, in the order the question asks them."""
        figure, precision = self.figure_compared(parts, asked), self.precision_compared(parts, asked)
        q = self.s.question.lower()
        p_at = min((q.find(p.lower()) for p in ("FP8", "BF16") if p.lower() in q), default=len(q))
        f_at = m.start() if (m := FIGURE_WORD.search(q)) else len(q)
        first, second = (precision, figure) if p_at < f_at else (figure, precision)
        return self.L(" ", "").join(x for x in (first, second) if x)

    def precision_compared(self, parts: list[HardwareInfo], asked: set[str]) -> str:
        """"A10 vs L4: which one has FP8?": the part(s) that compute in the precision named, from the catalog rows."""
        if "part_precision" not in asked:
            return ""
        q = self.s.question.lower()
        out = []
        named = sorted(((q.find(p.lower()), p, has) for p, has in (("FP8", lambda h: h.fp8), ("BF16", lambda h: h.bf16))
                        if p.lower() in q), key=lambda x: x[0])
        for _, p, has in named:
            yes = [self.short(h) for h in parts if has(h)]
            if len(yes) == len(parts):
                out.append(self.L(f"**Both have {p} compute**.", f"**两者都支持 {p} 计算**。"))
            elif yes:
                out.append(self.L(f"**Only {yes[0]} has {p} compute**.", f"**只有 {yes[0]} 支持 {p} 计算**。"))
            else:
                out.append(self.L(f"**Neither has {p} compute**.", f"**两者都不支持 {p} 计算**。"))
        return self.L(" ", "").join(out)

    def figure_compared(self, parts: list[HardwareInfo], asked: set[str]) -> str:
        """Two parts and one figure asked of both ("A2 vs A3 HBM per node", "which has more per card", "差多少"): the
        comparison itself leads (the ratio and the difference), each part's own line follows."""
        keys = [k for k in ("dies", "part_total", "part_memory", "part_node", "part_compute") if k in asked or
                (k == "dies" and DIES_PER_CARD.search(self.s.question))]
        if not keys:
            return ""
        if {"part_memory", "part_total"} <= set(keys) and MORE_PER_NODE.search(self.s.question.lower()):
            # "more HBM per card than the A2, and how much more per node?": both figures, in the order asked
            q = self.s.question.lower()
            cue = lambda k: (m.start() if (m := (PER_NODE if k == "part_total" else PER_CARD).search(q)) else len(q))  # noqa: E731
            keys = sorted(("part_memory", "part_total"), key=cue)
            return self.L(" ", "").join(x for x in (self.one_compared(parts, k, i == 0) for i, k in enumerate(keys)) if x)
        return self.one_compared(parts, keys[0])

    def one_compared(self, parts: list[HardwareInfo], key: str, verdict: bool = True) -> str:
        """One figure of two parts compared: the ratio and the difference (the yes or no asked first, when ``verdict``)."""
        en, zh, unit, value = COMPARABLE[key]
        (a, va), (b, vb) = ((h, value(h)) for h in parts)
        owns = [self.own_nodes(h) for h in parts]
        if key == "part_total" and all(owns) and owns[0] != owns[1]:
            # "一台 Snt9B23 的总 HBM 和两台 Snt9B 比": the nodes each part was said with, each node's total times its count
            (a, va), (b, vb) = ((h, n * value(h)) for h, n in zip(parts, owns, strict=True))
            en, zh = "memory in the nodes said", "所述节点的显存合计"
        short = self.short
        if not (va and vb):  # a figure the catalog lacks for one of them (no official TFLOPS): nothing to compare
            return ""
        # a DIE part beside a one-device card ("a Snt9B23 device vs a Snt9B device"): per card and per device differ
        per_device = ""
        q = self.s.question.lower()
        devices_asked = bool(re.search(r"device|设备|(?<![a-z])dies?(?![a-z])", q)) or not re.search(r"card|卡", q)  # "per card" asked: no
        dies_differ = (a.dies_per_card or 1) != (b.dies_per_card or 1)
        if key == "part_memory" and dies_differ and re.search(r"(?<![a-z])dies?(?![a-z])", q) and not re.search(r"card|卡", q):
            # "one A3 die vs one H100: memory each?": the device asked is compared, not a card of two DIE
            (a, va), (b, vb) = ((h, h.memory_gb) for h in parts)
            en, zh = "memory per device", "每设备显存"
        elif key in ("part_memory", "part_node") and dies_differ and devices_asked:
            dev = lambda h: self.count_word(h.unit, 2 if key == "part_node" else 1)  # noqa: E731
            each = (lambda h: f"{h.devices_per_node} {dev(h)}") if key == "part_node" else (lambda h: f"{fig(h.memory_gb)} GB/{dev(h)}")  # noqa: E731
            per_device = self.L(f" Per device ({key == 'part_node' and 'per node' or 'each'}): {short(a)} {each(a)} vs {short(b)} {each(b)} "
                                f"({short(a)} {a.dies_per_card or 1} DIE per card, {short(b)} {b.dies_per_card or 1}).",
                                f"按设备{'（每节点）' if key == 'part_node' else ''}：{short(a)} {each(a)}，{short(b)} {each(b)}"
                                f"（{short(a)} 每卡 {a.dies_per_card or 1} 个 DIE，{short(b)} 每卡 {b.dies_per_card or 1} 个）。")
        if va == vb:
            return self.L(f"**The same {en}**: {fig(va)}{unit} on both {short(a)} and {short(b)}.",
                          f"**{zh}相同**：{short(a)} 和 {short(b)} 都是 {fig(va)}{unit}。") + per_device
        (big, vbig), (small, vsmall) = sorted(((a, va), (b, vb)), key=lambda x: -x[1])
        ratio = fig(round(vbig / vsmall, 2)) if vsmall else ""
        lead = ""
        if verdict and SAME_FIGURE_ASKED.search(q) and not MORE_ASKED.search(q):
            lead = self.L("**No**. ", "**不一样**。")  # "a 910B4 and an A2 card, identical memory?": they differ
        elif verdict and (m := MORE_ASKED.search(q)) and YES_NO_ASKED.search(q):
            # "does the A3 have more HBM per card than the A2?": yes or no first, of the part the question names first
            more = not re.search(r"less|fewer|smaller|少|小", m.group(0))
            lead = self.L("**Yes**. " if (big is a) == more else "**No**. ", "**是**。" if (big is a) == more else "**不是**。")
        return lead + self.L(f"**{short(big)} has {ratio}× the {en} of {short(small)}**: {fig(vbig)}{unit} vs {fig(vsmall)}{unit} "
                      f"({fig(vbig - vsmall)}{unit} more).",
                      f"**{short(big)} 的{zh}是 {short(small)} 的 {ratio} 倍**：{fig(vbig)}{unit} 对 {fig(vsmall)}{unit}"
                      f"（多 {fig(vbig - vsmall)}{unit}）。") + per_device

    def parts_differ(self, parts: list[HardwareInfo]) -> str:
        """"H800 跟 H100 差在哪", "what's the difference between A2 and A3": the catalog columns that differ lead, with
        each part's value, then the ones they share; a row's remark that names the other part follows (the catalog's
        own word on how a variant differs)."""
        if not DIFFERENCE_ASKED.search(self.s.question.lower()):
            return ""
        a, b = parts
        short = self.short
        zh = self.lang == "zh"
        columns = [  # (English label, Chinese label, the value of a part as written)
            ("memory per device", "每设备显存", lambda h: f"{fig(h.memory_gb)} GB"),
            ("memory per card", "每卡显存", lambda h: f"{fig(h.memory_gb * (h.dies_per_card or 1))} GB"),
            ("devices per node", "每节点设备数", lambda h: f"{h.devices_per_node} {self.count_word(h.unit, 2)}"),
            ("DIE per card", "每卡 DIE 数", lambda h: str(h.dies_per_card or 1)),
            ("BF16 TFLOPS", "BF16 算力（TFLOPS）", lambda h: fig(h.bf16_tflops) if h.bf16_tflops else "?"),
            ("FP16 TFLOPS", "FP16 算力（TFLOPS）", lambda h: str(h.fp16_tflops) if h.fp16_tflops else "?"),
            ("BF16", "BF16", lambda h: self.L("yes" if h.bf16 else "no", "支持" if h.bf16 else "不支持")),
            ("FP8", "FP8", lambda h: self.L("yes" if h.fp8 else "no", "支持" if h.fp8 else "不支持")),
            ("interconnect", "互联", lambda h: ((h.interconnect_zh if zh else None) or h.interconnect or "?")),
        ]
        if (a.dies_per_card or 1) == (b.dies_per_card or 1) == 1:  # a card is the device on both: its memory is said once
            columns = [c for c in columns if c[0] not in ("memory per card", "DIE per card")]
        differ = [(en, cn, f(a), f(b)) for en, cn, f in columns if f(a) != f(b) and "?" not in (f(a), f(b))]
        same = [(en, cn, f(a)) for en, cn, f in columns if f(a) == f(b) and f(a) != "?" and en != "interconnect"]
        if not differ:
            return ""
        said = self.L("; ", "；").join(self.L(f"{en}: {short(a)} {va} vs {short(b)} {vb}", f"{cn}：{short(a)} {va}，{short(b)} {vb}")
                                      for en, cn, va, vb in differ)
        lead = self.L(f"**{short(a)} and {short(b)} differ in {', '.join(en for en, _, _, _ in differ)}**: {said}.",
                      f"**{short(a)} 和 {short(b)} 的区别在{'、'.join(cn for _, cn, _, _ in differ)}**：{said}。")
        if same:
            lead += self.L(" The same: " + ", ".join(f"{en} ({v})" for en, _, v in same) + ".",
                           "相同的：" + "、".join(f"{cn}（{v}）" for _, cn, v in same) + "。")
        for h, other in ((a, b), (b, a)):  # "China-market H100 variant: …" in the H800 row
            stem = re.sub(r"\s*\d+\s*GB.*$", "", short(other)).removeprefix("NVIDIA ").strip()
            remark = next((x.strip() for x in re.split(r"(?<=\.)\s+", h.notes or "") if stem and stem in x), None)
            # a Chinese answer quotes the row's Chinese remark naming the same part (notes_zh), else the English labelled
            remark_zh = next((x.strip() for x in re.split(r"(?<=。)", h.notes_zh or "") if stem and stem in x), None)
            if remark:
                lead += self.L(f" Catalog remark on {short(h)}: \"{remark.rstrip('.')}\".",
                               f"目录对 {short(h)} 的备注：“{remark_zh.rstrip('。')}”。" if remark_zh
                               else f"目录对 {short(h)} 的备注（英文原文）：“{remark.rstrip('.')}”。")
        return lead

    def own_nodes(self, h: HardwareInfo) -> int | None:
        """The node count written right before this part's name ("两台 Snt9B", part_same.said_of; "2 Snt9B23 nodes" reads
        the other way and is the question's own count), when the question names two or more parts; else None."""
        parts = [sp for sp in self.s.spans if sp.slot == "hardware" and sp.value]
        if len({sp.value for sp in parts}) < 2:
            return None
        for part in (sp for sp in parts if sp.value == h.id):
            if found := part_same.said_of(self.s.spans, self.s.question, part, {"said_nodes"}, "before"):
                return int(found.value)
        return None

    def part_conversion(self, rows: list[HardwareInfo]) -> list[str]:
        """A count of one part converted to the units asked, or to another part's nodes: devices = nodes × devices per
        node or cards × dies per card (catalog row); cards = devices / dies per card; nodes = devices / devices per
        node. Across parts the count is compared device for device (the vendor counts 1 DIE of Snt9B23 as 1 Snt9B
        card: both 64 GB), and a memory per device that differs is said."""
        by_id = {h.id: h for h in rows}
        src, dst = self.conversion_parts()
        a, b = by_id.get(src or ""), by_id.get(dst or "")
        if a is None:
            return []
        said = self.count_of(a)
        if said is None:
            return []
        n, unit, devices = said
        b = b or a
        self.cite(a.source)
        if b is not a:
            self.cite(b.source)
        if b is not a and "part_memory" in self.s.intents and a.memory_gb and b.memory_gb:
            return self.memory_conversion(a, b, n, unit, devices)
        word = self.count_word
        start = f"{n} {word(unit, n)}"
        dev_a = f"{devices} {word(a.unit, devices)}"
        how = "" if unit == a.unit or (unit == "card" and a.unit != "die") else self.L(f" = {dev_a}", f" = {dev_a}")
        if unit == "node":
            how = self.L(f" × {a.devices_per_node} = {dev_a}", f" × {a.devices_per_node} = {dev_a}")
        dies_b = b.dies_per_card or 1
        cards_b, nodes_b = devices / dies_b, devices / b.devices_per_node
        whole = math.ceil(nodes_b)
        nodes_text = fig(round(nodes_b, 2))
        idle = whole * b.devices_per_node - devices  # the rented last node's devices the job leaves idle
        idle_cards = self.L(f" ({fig(idle / dies_b)} {word('card', idle / dies_b)})", f"（{fig(idle / dies_b)} 张卡）") if dies_b > 1 else ""
        part_used = "" if nodes_b == whole else self.L(
            f" (so {whole} to rent: {idle} {word(b.unit, idle)}{idle_cards} idle on the last one)",
            f"（即要租 {whole} 台：最后一台空闲 {idle} {word(b.unit, idle)}{idle_cards}）")
        if nodes_b != whole and WHOLE_AND_LEFT.search(self.s.question.lower()):  # "几台完整的…还剩几个 DIE": both halves
            full, left = int(nodes_b), devices - int(nodes_b) * b.devices_per_node
            part_used = self.L(f": **{full} whole node{'s' if full != 1 else ''}** + **{left} {word(b.unit, left)} left over**",
                               f"：**{full} 台完整节点**，还剩 **{left} {word(b.unit, left)}**")
        figures = []
        if unit == "node" and b is a:  # "6 nodes of Snt9B": the devices (and on a DIE part the cards) they hold
            figures.append(f"**{dev_a}**")
            if a.unit == "die":
                figures.append(f"**{fig(cards_b)} {word('card', cards_b)}**")
            how = self.L(f" × {a.devices_per_node}", f" × {a.devices_per_node}")
        else:
            if b is a and unit == "card":
                how = ""  # "24 cards of Snt9B23": the DIE figure below says it
            if (b.unit == "die" and unit != "card") or b is not a:
                figures.append(f"**{fig(cards_b)} {word('card', cards_b)}**")
            if b.unit == "die" and unit != "die":
                figures.append(f"**{devices} DIE**")
            figures.append(self.L(f"**{nodes_text} node{'s' if nodes_b != 1 else ''}**", f"**{nodes_text} 台（节点）**") + part_used)
        said_text = self.L(f"{start} of {self.short(a)}{how}", f"{self.short(a)} {start}{how}")
        if not self.s.devices and layout_devices(self.s):  # the count is the layout's: say how it was made
            split = " × ".join(f"{k} {v}" for k, v in (("TP", self.s.tp), ("PP", self.s.pp)) if v)
            said_text = self.L(f"{split} = {start} of {self.short(a)}", f"{self.short(a)} 上 {split} = {start}")
        of_b = self.L(f" of {self.short(b)}", f"（{self.short(b)}）") if b is not a else ""
        if b is not a and CARDS_ASKED.search(self.s.question.lower()) and not NODES_ASKED.search(self.s.question.lower()):
            # "A3 的 8 个 DIE 相当于 A2 的几张卡": the other part's cards asked lead, its nodes follow
            cards_text = f"{fig(cards_b)} {word('card', cards_b)}" + (f" = {devices} DIE" if b.unit == "die" else "")
            nodes_part = self.L(f"{nodes_text} node{'s' if nodes_b != 1 else ''}", f"{nodes_text} 台") + part_used
            lead = self.L(f"**{cards_text} of {self.short(b)}** ({nodes_part}) match{'es' if cards_b <= 1 else ''} {said_text}.",
                          f"**{self.short(b)} {cards_text}**（{nodes_part}）对应 {said_text}。")
        elif b is not a:  # "how many A3 nodes match 4 Snt9B nodes": the other part's nodes lead, then what they hold
            holds = f"{fig(cards_b)} {word('card', cards_b)}" + (f" = {devices} DIE" if b.unit == "die" else "")
            lead = self.L(f"**{nodes_text} node{'s' if nodes_b != 1 else ''} of {self.short(b)}**{part_used} ({holds}) "
                          f"match{'es' if nodes_b <= 1 else ''} {said_text}.",
                          f"**{self.short(b)} {nodes_text} 台**{part_used}（{holds}）对应 {said_text}。")
        else:
            lead = self.L(f"{said_text} = " + " = ".join(figures) + of_b + ".",
                          f"{said_text} = " + " = ".join(figures) + of_b + "。")
        per = lambda h: self.L(  # noqa: E731
            f"{self.short(h)}: {h.devices_per_node} {word(h.unit, 2)} per node"
            + (f" = {h.devices_per_node // (h.dies_per_card or 1)} cards × {h.dies_per_card} DIE" if (h.dies_per_card or 1) > 1 else "")
            + f", {fig(h.memory_gb)} GB per {word(h.unit, 1)}",
            f"{self.short(h)}：每节点 {h.devices_per_node} {word(h.unit, 2)}"
            + (f" = {h.devices_per_node // (h.dies_per_card or 1)} 张卡 × {h.dies_per_card} 个 DIE" if (h.dies_per_card or 1) > 1 else "")
            + f"，每{word(h.unit, 1)} {fig(h.memory_gb)} GB")
        basis = [self.L("From the hardware catalog: ", "依据硬件目录：") + self.L("; ", "；").join(per(h) for h in ([a] if b is a else [a, b]))
                 + self.L(".", "。")]
        if b is not a:
            same = a.memory_gb == b.memory_gb
            # the vendor's equivalence of a DIE and a card (seeds/004) is one rule (part_same.device_equivalent)
            die_vs_card = part_same.device_equivalent(self.parts.get(a.id) or {"id": a.id}, self.parts.get(b.id) or {"id": b.id})
            basis.append(self.L(
                "Counted device for device" + (f" (each {fig(a.memory_gb)} GB" + ("; the vendor counts 1 DIE as one card of a one-DIE part" if die_vs_card else "") + ")"
                                               if same else f"; memory per device differs: {fig(a.memory_gb)} GB vs {fig(b.memory_gb)} GB, "
                                               "so the same count does not hold the same model") + ".",
                "按设备一对一折算" + (f"（每个设备 {fig(a.memory_gb)} GB" + ("；厂商把 1 个 DIE 算作 1 张单 DIE 卡" if die_vs_card else "") + "）"
                                     if same else f"；每设备显存不同：{fig(a.memory_gb)} GB 对 {fig(b.memory_gb)} GB，同样的数量放不下同样的模型") + "。"))
        return [self.lead(lead), *basis, ""]

    def memory_conversion(self, a: HardwareInfo, b: HardwareInfo, n: int, unit: str, devices: int) -> list[str]:
        """"4×H100 80G = how many 910B by memory": the memory the stated devices hold, over the other part's memory per
        device, rounded up to whole devices."""
        word = self.count_word
        total = devices * a.memory_gb
        count = total / b.memory_gb
        whole = math.ceil(count - 1e-9)
        said = f"{n} {word(unit, n)}" + (f" = {devices} {word(a.unit, devices)}" if unit != a.unit else "")
        sum_text = f"{devices} × {fig(a.memory_gb)} GB = {fig(total)} GB ÷ {fig(b.memory_gb)} GB = {fig(round(count, 2))}"
        up = "" if whole == count else self.L(f", rounded up to {whole}", f"，向上取整为 {whole}")
        step = b.min_parallel_unit or 1
        if whole % step:  # Snt9B23: a job takes DIE in steps of 2 (one card), so 5 DIE is rented as 6
            unit_whole = math.ceil(whole / step) * step
            up += self.L(f"; in steps of {step} {word(b.unit, 2)} (the smallest parallel unit) that is {unit_whole}",
                         f"；按最小并行单位 {step} 个 {word(b.unit, 2)} 计为 {unit_whole}")
            whole = unit_whole
        if (b.dies_per_card or 1) > 1:
            cards = whole / (b.dies_per_card or 1)
            up += self.L(f" = {fig(cards)} physical card{'s' if cards != 1 else ''}", f" = {fig(cards)} 张物理卡")
        held = self.L(f"{whole} {word(b.unit, whole)}", f"{whole} {word(b.unit, whole)}")
        if NODES_ASKED.search(self.s.question.lower()):  # "how many 910C nodes hold as much as 3 DGX H100": the nodes lead
            nodes = whole / b.devices_per_node
            rent = math.ceil(nodes - 1e-9)
            up += self.L(f" = {fig(round(nodes, 2))} nodes of {b.devices_per_node} {word(b.unit, 2)}",
                         f" = {fig(round(nodes, 2))} 台（每台 {b.devices_per_node} {word(b.unit, 2)}）")
            held = self.L(f"{rent} node{'s' if rent != 1 else ''}", f"{rent} 台") + (
                self.L(f" ({held})", f"（{held}）") if rent != nodes else "")
        lead = self.L(f"**{held} of {self.short(b)}** hold as much memory as {said} of {self.short(a)}: "
                      f"{sum_text}{up}.",
                      f"按显存折算，{self.short(a)} {said} 相当于 **{self.short(b)} {held}**：{sum_text}{up}。")
        basis = self.L(f"From the hardware catalog: {self.short(a)} {fig(a.memory_gb)} GB per {word(a.unit, 1)}, {self.short(b)} "
                       f"{fig(b.memory_gb)} GB per {word(b.unit, 1)}. Memory only: compute, interconnect and how a model splits "
                       "over the devices differ, so the same total does not mean the same speed or the same fit.",
                       f"依据硬件目录：{self.short(a)} 每{word(a.unit, 1)} {fig(a.memory_gb)} GB，{self.short(b)} 每{word(b.unit, 1)} "
                       f"{fig(b.memory_gb)} GB。这里只按显存总量折算：算力、互联和模型在设备间的切分都不同，总显存相同不代表速度相同或放得下同一个模型。")
        return [self.lead(lead), basis, ""]

    def short(self, h: HardwareInfo) -> str:
        """The part's name without its platform and its description; a one-word form factor stays ("H800 80GB (PCIe)" is
        not the SXM5 module)."""
        return re.sub(r"\s*\((?![A-Za-z0-9]+\))[^)]*\)$", "", h.name.removeprefix("ModelArts ")).strip()

    def count_word(self, unit: str, n: float) -> str:
        """The unit of a count as the answer writes it: node, card, DIE, chip."""
        if unit == "die":
            return "DIE"
        en = {"node": "node", "card": "card", "chip": "chip"}.get(unit, "card")
        zh = {"node": "台", "card": "张卡", "chip": "个芯片"}.get(unit, "张卡")
        return self.L(en + ("s" if n != 1 else ""), zh)

    def conversion_parts(self) -> tuple[str | None, str | None]:
        """The part the stated count is of (the part named nearest the count) and the part asked of (the other one
        named; the same part when only one is)."""
        spans = [(sp.start, sp.end, sp.value) for sp in self.s.spans if sp.slot == "hardware" and sp.value]
        ids = list(dict.fromkeys(v for _, _, v in spans))
        if len(ids) < 2:
            return self.s.hardware, self.s.hardware
        # the count's own words (the reader's typed spans: "one Snt9B23 node", "一台 A3"), else its digits as written
        counts = sorted((sp.start, sp.end) for sp in self.s.spans if sp.slot in ("said_nodes", "said_cards"))
        said = self.s.nodes or self.s.devices
        if not counts and said:
            counts = [m.span() for m in re.finditer(rf"(?<![0-9.]){said}(?![0-9.])", self.s.question)]
        if not counts and not said and (node := NODE_WORDS.search(self.s.question.lower())):
            # "a whole Snt9B23 server is worth how many Snt9B cards?": one node, of the part named nearest its node word
            near = min(spans, key=lambda sp: min(abs(sp[0] - node.end()), abs(node.start() - sp[1])))[2]
            return near, next(i for i in ids if i != near)
        if not counts:  # a count said in words ("一个 DIE"): of the part written first, asked of the other
            return (ids[0], ids[1]) if said else (self.s.hardware, self.s.hardware)
        c0, c1 = counts[0]
        inside = [sp for sp in spans if c0 <= sp[0] and sp[1] <= c1]  # "2 Snt9B23 nodes": the part named inside the count
        near = (inside or [min(spans, key=lambda sp: min(abs(sp[0] - c1), abs(c0 - sp[1])))])[0][2]
        return near, next(i for i in ids if i != near)

    def count_of(self, h: HardwareInfo) -> tuple[int, str, int] | None:
        """The count stated (number, unit as said: node, card or die) and the devices it makes on part ``h``."""
        dies = h.dies_per_card or 1
        if self.s.nodes and not (self.s.devices and self.s.origin("devices") == "said" and self.s.origin("nodes") != "said"):
            return self.s.nodes, "node", self.s.nodes * h.devices_per_node
        n, unit = self.s.devices, self.s.device_unit or "card"
        if not n and (n := layout_devices(self.s)):  # "A3 上 PP=2 TP=8 占几张物理卡": TP × PP devices, one per rank
            return n, ("die" if h.unit == "die" else "card"), n
        if not n:  # "24 physical cards of snt9b23": the count the device reader left to this answer
            said = counts_said(self.s)
            if said.nodes:
                return said.nodes, "node", said.nodes * h.devices_per_node
            n = said.cards
            if not n and NODE_WORDS.search(self.s.question.lower()) and len(set(hardware_ids(self.s))) > 1:
                return 1, "node", h.devices_per_node  # "a whole Snt9B23 server in Snt9B cards": one node, no count written
            if not n:
                return None
        if unit == "die" or h.unit not in ("die", "chip"):
            return n, ("die" if unit == "die" else "card"), n
        return n, "card", n * dies

    def part_count_said(self, h: HardwareInfo) -> list[str]:
        """ "Does a Snt9B23 node have 16 cards?": yes or no, with the catalog's count."""
        said, unit = self.s.devices, self.s.device_unit or "card"
        size = next((sp for sp in self.s.spans if sp.slot == "node_cards"), None)
        if not said and size is not None and size.value:  # "Snt9B 一台是 8 卡吗？": the node size said is the count asked about
            said = int(size.value)
            unit = "die" if "die" in self.s.question[size.start:size.end].lower() else "card"
        if not (said and said > 1 and NODE_WORDS.search(self.s.question.lower())):
            return []
        dies = h.dies_per_card or 1
        actual = (
            h.devices_per_node
            if unit == "die" and h.unit == "die"
            else (h.devices_per_node // dies if h.unit == "die" else h.devices_per_node)
        )
        word = "DIE" if unit == "die" else self.L("cards", "张卡")
        premise = WH_ASKED.search(self.s.question.lower()) or "part_total" in self.s.intents  # "8 卡加起来呢": the sum asked
        if said == actual and premise and not YES_NO_ASKED.search(self.s.question.lower()):
            return []  # "一台 Snt9B 八张卡加起来多少 GB": the count is the user's premise, right as stated; the figure asked leads
        if said == actual:
            return [
                self.lead(
                    self.L(
                        f"**Yes**: a {h.name} node has {actual} {word}.",
                        f"**是**：一个 {h.name} 节点有 {actual} {word}。",
                    )
                )
            ]
        return [
            self.lead(
                self.L(
                    f"**No**: a {h.name} node has {actual} {word}, not {said}.",
                    f"**不是**：一个 {h.name} 节点有 {actual} {word}，不是 {said}。",
                )
            )
        ]

    def part_device(self, h: HardwareInfo) -> str:
        """What one device of the part is called: DIE, chip (a card of several), GPU or card."""
        if h.unit in ("die", "chip"):
            return self.L("DIE" if h.unit == "die" else "chip", " DIE" if h.unit == "die" else "芯片")
        return self.L("GPU" if self.is_gpu(h.id) else "card", " GPU" if self.is_gpu(h.id) else "卡")

    def fact_count(self, h: HardwareInfo, asked: set[str]) -> str:
        """The devices (and HCCL ranks, one per device) of the nodes or cards the question says, worked from the
        catalog row: nodes × devices per node, or cards × dies per card on a part counted in DIE; that count is also
        the tensor-parallel size over all of them. Asked as ranks, world size, DIE or a TP size of the cards said."""
        dies = h.dies_per_card or 1
        said = counts_said(self.s)
        cards_on_dies = said.cards and h.unit == "die" and "part_unit" in asked
        if "part_ranks" not in asked and not cards_on_dies:
            return ""
        per = h.devices_per_node
        n = lambda k: self.devices(k, h.unit, h.id)  # noqa: E731  ("32 DIE", "32 cards", "32 张卡")
        node = self.L(f"a node has {n(per)}" + (f" ({per // dies} cards)" if dies > 1 else ""),
                      f"每节点 {n(per)}" + (f"（{per // dies} 张物理卡）" if dies > 1 else ""))
        if said.nodes:
            total = said.nodes * per
            how = self.L(f"{said.nodes} node{'s' if said.nodes > 1 else ''} × {n(per)}", f"{said.nodes} 个节点 × {n(per)}")
        elif said.cards or self.s.devices:
            cards = said.cards or self.s.devices or 0
            in_dies = h.unit == "die" and bool(said.cards or self.s.device_unit != "die")
            total = cards * dies if in_dies else cards
            how = self.L(f"{cards} card{'s' * (cards != 1)} × {dies} DIE", f"{cards} 张物理卡 × {dies} 个 DIE") if in_dies and dies > 1 else ""
        else:
            if "part_node" in asked:
                return ""  # "每节点几个 DIE": the node's own line says it
            return self.L(f"**{n(per)} per node**" + (f" ({per // dies} cards × {dies})" if dies > 1 else "") + ", one HCCL rank each",
                          f"**每节点 {n(per)}**" + (f"（{per // dies} 张物理卡 × {dies}）" if dies > 1 else "") + "，每个一个 HCCL rank")
        how = self.L(f"{how} = {n(total)}; " if how else "", f"{how} = {n(total)}；" if how else "")
        return self.L(f"**{n(total)} = {total} HCCL ranks** ({how}{node}; each one device and one rank), "
                      f"so a tensor-parallel size over all of them is **{total}**",
                      f"**{n(total)} = {total} 个 HCCL rank**（{how}{node}；每个设备一个 rank），"
                      f"全部用作张量并行时 tp-size 为 **{total}**")

    def fact_stated_count(self, h: HardwareInfo, asked: set[str]) -> str:
        """"3 Snt9B23 nodes: how many DIE, cards and HBM in total?": the nodes (or cards) the question states, worked from
        the catalog row: devices = nodes × devices per node (cards × DIE per card on a part counted in DIE), cards =
        devices / DIE per card, memory = devices × memory per device, one HCCL rank per device. Said when a total or a
        memory is asked of two or more nodes or cards, or cards of nodes."""
        said = counts_said(self.s)
        if (own := self.own_nodes(h)) is not None:  # "一台 Snt9B23 和两台 Snt9B": each part's own node count
            said = CountsSaid(own, None)
        count = said.nodes or said.cards
        cards_of_nodes = said.nodes and "cards" in self.s.intents and not RANKS_ASKED.search(self.s.question.lower())
        if not count or count < 2 or not (asked & {"part_memory", "part_total"} or cards_of_nodes):
            return ""
        dies = h.dies_per_card or 1
        per_card = dies if h.unit == "die" else 1
        devices = said.nodes * h.devices_per_node if said.nodes else said.cards * per_card  # type: ignore[operator]
        cards = devices // per_card
        n = lambda k: self.devices(k, h.unit, h.id)  # noqa: E731
        start = (self.L(f"{said.nodes} nodes × {n(h.devices_per_node)}", f"{said.nodes} 个节点 × {n(h.devices_per_node)}") if said.nodes
                 else self.L(f"{said.cards} card{'s' * (said.cards != 1)} × {dies} DIE", f"{said.cards} 张物理卡 × {dies} 个 DIE") if per_card > 1 else "")
        figures = [f"**{n(devices)}**"] + ([self.L(f"**{cards} physical cards**", f"**{cards} 张物理卡**")] if per_card > 1 else
                                          [] if not said.nodes else [])
        total = fig(devices * h.memory_gb)
        memory = self.L(f"{n(devices)} × {fig(h.memory_gb)} GB = **{total} GB** in all",
                        f"合计 {n(devices)} × {fig(h.memory_gb)} GB = **{total} GB**")
        ranks = self.L(f"{devices} HCCL ranks (one per device)", f"{devices} 个 HCCL rank（每个设备一个）")
        return (f"{start} = " if start else "") + " = ".join(figures) + self.L("; ", "；") + memory + self.L("; ", "；") + ranks

    def fact_memory(self, h: HardwareInfo, asked: set[str]) -> str:
        if "part_memory" not in asked:
            return ""
        dies, dev = h.dies_per_card or 1, self.part_device(h)
        if dies > 1:
            return self.L(
                f"**{fig(h.memory_gb)} GB per {dev}, {fig(h.memory_gb * dies)} GB per card** ({dies} {dev} per card)",
                f"**每个{dev} {fig(h.memory_gb)} GB，每张卡 {fig(h.memory_gb * dies)} GB**（每张卡 {dies} 个{dev}）",
            ) + self.memory_said_otherwise(h)
        otherwise = self.memory_said_otherwise(h)
        remark = ((h.naming_zh if self.lang == "zh" else h.naming) or "").rstrip(".。")
        hedge = "" if otherwise or not self.unverified(h) else self.L(
            f" ({remark})" if UNVERIFIED.search(remark) else f" (not verified: {remark})",
            f"（{remark}）" if "未经核实" in remark else f"（未经核实：{remark}）")
        return self.memory_confirmed(h) + self.say("pf_memory_per_device", gb=fig(h.memory_gb), dev=dev) + (otherwise or hedge)

    @staticmethod
    def unverified(h: HardwareInfo) -> bool:
        """A catalog row inferred, not read from a vendor page (its notes say so; a remark on its variants is not)."""
        return bool(UNVERIFIED.search(h.notes or ""))

    def memory_confirmed(self, h: HardwareInfo) -> str:
        """"H20 96G 显存对吗": the size said is the part's, asked yes or no: yes first; an inferred row's only as the
        catalog takes it (no yes the row's own remark takes back)."""
        said = set(sizes_gb(self.s.question))
        if len(said) > 1 and self.unverified(h) and any(abs(n - h.memory_gb) < 0.5 for n in said):
            # "910B4 是 32G 还是 64G": of the sizes offered, the row's, as the catalog takes it (the row is inferred)
            return self.L("**The catalog takes it so, not verified**: ", "**目录按此计，但未经核实**：")
        if len(said) == 1 and abs(said.pop() - h.memory_gb) < 0.5 and YES_NO_ASKED.search(self.s.question.lower()):
            return self.L("**The catalog takes it so, not verified**: ", "**目录按此计，但未经核实**：") if self.unverified(h) else \
                self.L("**Yes**, ", "**对**，")
        return ""

    def memory_said_otherwise(self, h: HardwareInfo) -> str:
        """A memory size the question offers that is not the part's ("180G 还是 192G", "32GB or 64GB?"): what the
        catalog row's remarks say of it (the sentence naming it), or that the catalog does not list it; an unverified
        row says so."""
        own = {h.memory_gb, h.memory_gb * (h.dies_per_card or 1), h.memory_gb * h.devices_per_node}
        said = sizes_gb(self.s.question)
        other = [n for n in dict.fromkeys(said) if all(abs(n - o) > 0.5 for o in own)]
        remarks = " ".join(x for x in (h.notes, h.naming) if x)
        sentences = [x.strip() for x in re.split(r"(?<=\.)\s+", remarks) if x.strip()]
        # a Chinese answer quotes the catalog's Chinese remark where it has one; an English-only remark is labelled as
        # the catalog's English original, not mixed into the Chinese sentence
        remarks_zh = " ".join(x for x in (h.notes_zh, h.naming_zh) if x)
        sentences_zh = [x.strip() for x in re.split(r"(?<=。)", remarks_zh) if x.strip()]
        out = []

        def remark(pick: Callable[[str], object]) -> str | None:
            en = next((x for x in sentences if pick(x)), None)
            if en is None:
                return None
            zh = next((x for x in sentences_zh if pick(x)), None)
            return self.L(f"the catalog's remark: \"{en.rstrip('.')}\"",
                          f"目录备注：“{zh.rstrip('。')}”" if zh else f"目录备注（英文原文）：“{en.rstrip('.')}”")

        for n in other:
            quote = remark(re.compile(rf"(?<![0-9.]){fig(n)}\s*(?:GB|G)(?![a-z])").search)
            out.append(f"{fig(n)} GB" + self.L(": ", "：") + quote if quote
                       else self.L(f"{fig(n)} GB is not a size the catalog lists for {self.short(h)}",
                                   f"目录中 {self.short(h)} 没有 {fig(n)} GB 这一规格"))
        if said and self.unverified(h) and not other:
            out.append(remark(UNVERIFIED.search) or "")
        return self.L(" (", "（") + self.L("; ", "；").join(out) + self.L(")", "）") if out else ""

    def fact_node(self, h: HardwareInfo, asked: set[str]) -> str:
        if "part_node" not in asked:
            return ""
        dies, dev, n = h.dies_per_card or 1, self.part_device(h), h.devices_per_node
        if dies > 1:
            return self.L(
                f"{n} {dev} = {n // dies} cards per node", f"每节点 {n} 个{dev}（{n // dies} 张卡）"
            )
        return self.say("pf_devices_per_node", n=n, dev=dev)

    def fact_total(self, h: HardwareInfo, asked: set[str]) -> str:
        """A node's memory (devices per node × memory per device), or that of the devices the user said."""
        if "part_total" not in asked:
            return ""
        n = 0 if NODE_TOTAL_ASKED.search(self.s.question.lower()) else self.s.devices or 0  # "一台机器总共多少显存": a node's
        if n and h.unit == "die" and self.s.device_unit != "die":
            n *= h.dies_per_card or 1  # "2 cards" of a DIE part: 4 DIE
        if n > 1 and n != h.devices_per_node:
            count = self.L(
                f"{self.s.devices} {'DIE' if self.s.device_unit == 'die' else 'devices'}",
                f"{self.s.devices} {'个 DIE' if self.s.device_unit == 'die' else '张'}",
            )
            return self.L(
                f"{count} in all: {n} × {fig(h.memory_gb)} GB = **{fig(n * h.memory_gb)} GB**",
                f"{count}合计 {n} × {fig(h.memory_gb)} GB = **{fig(n * h.memory_gb)} GB**",
            )
        per = h.devices_per_node
        return self.L(
            f"a node in all: {per} × {fig(h.memory_gb)} GB = **{fig(per * h.memory_gb)} GB**",
            f"整节点合计 {per} × {fig(h.memory_gb)} GB = **{fig(per * h.memory_gb)} GB**",
        )

    def fact_compute(self, h: HardwareInfo, asked: set[str]) -> str:
        """Peak dense TFLOPS per device in the precision named (both when none is), each with its source."""
        if "part_compute" not in asked:
            return ""
        q = self.s.question.lower()
        figures = {"BF16": fig(h.bf16_tflops) if h.bf16_tflops else None, "FP16": h.fp16_tflops}
        wanted = [p for p in figures if p.lower() in q] or list(figures)
        # a precision with no figure: say so, and give the other precision's figure where there is one
        shown = wanted + [
            p for p in figures if p not in wanted and figures[p] and not all(figures[w] for w in wanted)
        ]
        per = self.part_device(h)
        missing = self.L(" or ", " 或 ").join(p for p in shown if not figures[p])
        dense = self.L(" dense", "稠密") if not h.compute_source else ""  # third-party figures do not say
        said = (
            [self.L(f"no {missing} TFLOPS figure in the catalog", f"目录中没有 {missing} TFLOPS 数据")]
            if missing
            else []
        ) + [
            self.L(
                f"{p} **{figures[p]} TFLOPS**{dense} per {per}",
                f"{p} {dense}算力每{per} **{figures[p]} TFLOPS**",
            )
            for p in shown
            if figures[p]
        ]
        where = h.compute_source or h.source
        # "is there an official figure?": the catalog's source says none was found, so that is the answer, first
        official_asked = bool(ASKS_OFFICIAL.search(q) and NO_OFFICIAL.search(where or ""))
        none = "" if not official_asked else self.L("**No official figure**; the figures known: ", "**没有官方数字**；已知的数字：") \
            if any(figures[p] for p in shown) else self.L("**No official figure**: ", "**没有官方数字**：")
        return none + self.L(", ".join(said) + f" (source: {where})", "，".join(said) + f"（来源：{where}）")

    def fact_precision(self, h: HardwareInfo, asked: set[str]) -> str:
        """The precisions the question names ("does the L40S support FP8?") answered yes or no first; none named: both."""
        if "part_precision" not in asked:
            return ""
        has = {"BF16": h.bf16, "FP8": h.fp8}
        q = self.s.question.lower()
        named = [p for p in has if p.lower() in q]
        yes, no = self.L("Yes", "支持"), self.L("No", "不支持")
        unheld = [p for p in UNHELD_PRECISION.findall(q)]
        if unheld and not named:  # "910B 支持 INT8 吗": no column holds it; said so, then the precisions the row has
            return self.not_in_catalog(f"{unheld[0].upper()} flag", f"{unheld[0].upper()} 支持与否的记录", h) + self.L("; ", "；") + self.L("; ", "；").join(
                self.L(f"{p} compute: {'yes' if has[p] else 'no'}", f"{p} 计算：{yes if has[p] else no}") for p in has)
        if not named:  # nothing asked of a precision (a part's whole row): a plain fact, no yes/no headline
            return self.L("; ", "；").join(self.L(f"{p} compute: {'yes' if has[p] else 'no'}", f"{p} 计算：{yes if has[p] else no}")
                                          for p in has)
        return self.L("; ", "；").join(
            self.L(
                f"**{yes}**: {p} compute" if has[p] else f"**{no}**: no {p} compute",
                f"**{p} 计算：{yes if has[p] else no}**",
            ) + (self.say("pf_no_bf16_instead") if p == "BF16" and not has[p] else "")
            for p in named
        )

    def fact_dies(self, h: HardwareInfo) -> str:
        """"How many DIE per card": the catalog's dies per card (1 on a part whose card is one device)."""
        if not DIES_PER_CARD.search(self.s.question):
            return ""
        n = h.dies_per_card or 1
        verdict = ""
        q = self.s.question.lower()
        # "does the 910B have 2 dies per card like the 910C?", "does a Snt9B card have two dies?" (the reader's DIE count)
        said = int(m.group(1) or m.group(2)) if (m := DIES_SAID.search(q)) else next(
            (int(sp.value) for sp in self.s.spans if sp.slot == "said_dies" and sp.value), None)
        if said and YES_NO_ASKED.search(q):
            ok = said == n
            verdict = self.L("**Yes**: " if ok else "**No**: ", "**是**：" if ok else "**不是**：")
        # the other part named beside it ("like the 910C"): its own DIE per card, from its catalog row
        others = [self.parts.get(str(sp.value)) for sp in self.s.spans if sp.slot == "hardware" and sp.value and sp.value != h.id]
        beside = "".join(self.L(f" ({o['name'].removeprefix('ModelArts ').split(' (')[0]}: {o.get('dies_per_card') or 1} DIE per card)",
                                f"（{o['name'].removeprefix('ModelArts ').split(' (')[0]}：每张卡 {o.get('dies_per_card') or 1} 个 DIE）")
                         for o in others[:1] if o)
        return verdict + self.L(f"**{n} DIE per card**" + (" (one card is one device)" if n == 1 else " (each DIE its own device)"),
                                f"**每张卡 {n} 个 DIE**" + ("（一张卡就是一个设备）" if n == 1 else "（每个 DIE 是一个独立设备）")) + beside

    def fact_unit(self, h: HardwareInfo, asked: set[str]) -> str:
        """The smallest parallel unit and what it makes of TP: on a part whose card is 2 DIE the vendor counts a
        parallel strategy in steps of 2 DIE; a TP the user said is checked against it."""
        step = h.min_parallel_unit or 1
        if "part_unit" not in asked or ("whole_row" in asked and step <= 1) or (DIES_PER_CARD.search(self.s.question) and not self.s.tp):
            return ""
        tp = self.s.tp
        if step <= 1:
            said = (
                self.L(
                    f"TP {tp} is allowed when it divides the attention heads; ",
                    f"TP {tp} 可以，只要能整除注意力头数；",
                )
                if tp
                else ""
            )
            unit = "" if tp or not UNIT_ASKED.search(self.s.question.lower()) else self.L(  # "smallest parallel unit on Snt9B?"
                f"**the smallest parallel unit is {step} {self.part_device(h)}**; ", f"**最小并行单位是 {step} 张{self.part_device(h)}**；")
            return said + unit + self.L(
                f"one {self.part_device(h)} is one device, so TP need not be even: TP must divide the attention heads "
                "and TP × PP the device count",
                f"一张{self.part_device(h)}就是一个设备，TP 不必是偶数：TP 要整除注意力头数，TP × PP 要整除卡数",
            )
        options = [n for n in range(step, h.devices_per_node + 1, step) if h.devices_per_node % n == 0]
        verdict = ""
        n = self.s.devices if self.s.device_unit == "die" and h.unit == "die" else None
        if n and part_same.asked(self.s):
            n = None  # "is one DIE the same as one Snt9B card?": the DIE said is the identity's (part_same), no job's count
        # "why is 2 DIE the unit? can I use 1 DIE?": the count checked is the one asked about, the last one written
        written = [int(m.group(1)) for m in re.finditer(r"(?<![0-9.])(\d+)\s*(?:个|张)?\s*dies?(?![a-z])", self.s.question.lower())]
        if n and len(set(written)) > 1:
            n = written[-1]
        if n and not tp:  # "6 个 DIE = 几张物理卡，作为并行单位 OK 吗": the cards it is, and whether it keeps to the unit
            ok, cards = n % step == 0, n / (h.dies_per_card or 1)
            verdict = self.L(
                f"**{n} DIE = {cards:g} cards**; **{'yes' if ok else 'no'}**, {n} {'is' if ok else 'is not'} a multiple of {step} DIE; ",
                f"**{n} 个 DIE = {cards:g} 张卡**；**{'可以' if ok else '不可以'}**，{n} {'是' if ok else '不是'} {step} 的倍数；")
        if tp:
            ok = tp % step == 0
            verdict = self.L(
                f"**{'Yes' if ok else 'No'}**, TP {tp} {'is' if ok else 'is not'} a multiple of {step} DIE; ",
                f"**{'可以' if ok else '不可以'}**，TP {tp} {'是' if ok else '不是'} {step} 的倍数；",
            )
            if CARDS_ASKED.search(self.s.question.lower()) and (h.dies_per_card or 1) > 1:
                # "TP 8 on A3 = how many physical cards": the cards a TP group spans lead (one DIE per TP rank)
                cards = tp / (h.dies_per_card or 1)
                verdict = self.L(f"**TP {tp} = {tp} DIE = {cards:g} cards** ({h.dies_per_card} DIE per card); ",
                                 f"**TP {tp} = {tp} 个 DIE = {cards:g} 张物理卡**（每张卡 {h.dies_per_card} 个 DIE）；") + verdict
        listed = ", ".join(str(n) for n in options)
        return verdict + self.L(
            f"**TP counts DIE and goes in steps of {step} DIE** ({listed} within a node): the vendor makes {step} DIE "
            f"(one card) the smallest unit of a parallel strategy, each DIE being its own device and HCCL rank; "
            f"TP × PP must also divide the job's DIE count",
            f"**TP 按 DIE 计，以 {step} 个 DIE 为步长**（单节点内可取 {listed}）：厂商规定设置并行策略时 {step} 个 DIE（一张卡）为最小单位，"
            f"每个 DIE 是一个独立设备和 HCCL rank；TP × PP 还要整除作业的 DIE 数",
        )

    # -- names, flavors, wiring, job sizes, AI cores (asked by name only) --------------------------------------------
    def missing(self, h: HardwareInfo, asked: str) -> bool:
        column = {"part_naming": h.naming or len(self.spellings(h)) > 1, "part_flavor": h.flavors,
                  "part_topology": h.interconnect, "part_job_devices": h.job_devices, "part_cores": h.ai_cores}[asked]
        return not column

    def spellings(self, h: HardwareInfo) -> list[str]:
        """The spellings of the part the question wrote ("Snt9b2", "910B3"), once each."""
        return list(dict.fromkeys(self.s.question[sp.start:sp.end] for sp in self.s.spans if sp.slot == "hardware" and sp.value == h.id))

    def not_in_catalog(self, what_en: str, what_zh: str, h: HardwareInfo) -> str:
        return self.L(f"**not covered**: the catalog and notes have no {what_en} for {h.name}",
                      f"**未收录**：目录和笔记中没有 {h.name} 的{what_zh}")

    def framework_fit(self, h: HardwareInfo, asked: set[str]) -> str:
        """"Is MindSpeed-LLM supported on the 910B4?": the framework's memory requirement per NPU (setup_check/rules.py
        DEVICE_MEMORY_FLOOR_GB, the rule on device_memory_gb) against the part's memory per device, no or yes first."""
        from .setup_answer import finding_text  # (setup_answer reads parsed frames: imported when used)
        floor = rules.DEVICE_MEMORY_FLOOR_GB.get(self.s.framework or "")
        if "part_framework" not in asked or floor is None:
            return ""
        row = self.parts.get(h.id) or {}
        part = str(row.get("table_part") or row.get("name") or h.id)  # as the reader's rule note names it (parse.layout)
        fields = {"framework": self.s.framework, "device_memory_gb": h.memory_gb, "accelerator_kind": row.get("kind"),
                  "part_name": part}
        codes = {r.code for r in rules.RULES if "device_memory_gb" in r.needs}
        if found := rules.check(fields, "training", codes):
            return self.L("**No**. ", "**不行**。") + finding_text(found[0].model_dump(), self.lang)
        rule = next(r for r in rules.RULES if r.code in codes)
        return self.say(f"held_{rule.code}", part=part, framework=self.s.framework, floor=floor, gb=fig(h.memory_gb)) + \
            " " + self.say("finding_source", source=(rules.SOURCES_ZH if self.lang == "zh" else rules.SOURCES)[rule.source])

    def fact_tables(self, h: HardwareInfo, asked: set[str]) -> str:
        """"Does the min-card table apply to it?": whether the vendor table named has rows for the part (the catalog's
        vendor_tables column), and under which column name; "which column do I read?" names no table: all of them."""
        q = self.s.question.lower()
        tables = ("min_cards", "recipes", "vllm")
        named = [t for t in tables if table_query.names_table(q, t)] or (list(tables) if "part_table" in asked else [])
        if not named:
            return ""
        row = self.parts.get(h.id) or {}
        has = vendor_tables(row)
        # an inferred row (its notes say not verified) is the table's part only as the catalog takes it: said so, not
        # stated flat after the hedge
        applies = "pf_table_applies_inferred" if self.unverified(h) else "pf_table_applies"
        said = self.L("; ", "；").join(
            self.say(applies if t in has else "pf_table_not", table=self.say(f"pf_table_{t}"),
                     part=row.get("table_part") or self.short(h)) for t in named)
        # a part counted in DIE: its rows count DIE too (said once, after the tables)
        return said + (self.say("pf_table_in_die") if h.unit == "die" and has & set(named) else "")

    def fact_naming(self, h: HardwareInfo, asked: set[str]) -> str:
        """Other names and variants of the part, as the catalog row has them with their sources."""
        if "part_naming" not in asked:
            return ""
        text = (h.naming_zh if self.lang == "zh" else None) or h.naming
        said = self.spellings(h)
        if not text and len(said) == 1 and squash_name(said[0]) not in squash_name(h.id):
            # "A3": a spelling of this part with no naming remark: the part it names, by the catalog's own name
            return self.L(f"{said[0]} is {self.short(h)}", f"{said[0]} 即 {self.short(h)}") + self.say("pf_catalog_name", name=h.name)
        if not text and len(said) < 2:
            if len({sp.value for sp in self.s.spans if sp.slot == "hardware"}) > 1:
                return ""  # "H800 PCIe 和 H800 SXM 一样吗": two parts compared by their own names, no other name asked
            return self.not_in_catalog("other names or variants", "其他名称或子型号", h)
        verdict = ""
        if len(said) > 1:  # "is Snt9b2 the same chip as 910B3?": yes when the row's name or naming equates the spellings said
            same = part_same.equated({"naming": h.naming, "name": h.name}, said)
            both = self.L(" and ", " 和 ").join(said)
            verdict = self.L(f"**Yes**, {both} are the same part; " if same else f"{both} are one catalog part (their differences are not verified); ",
                             f"**是**，{both} 是同一款；" if same else f"{both} 在目录中是同一行（差别未经核实）；")
        if not text:
            return verdict.rstrip("；; ") + self.say("pf_catalog_name", name=h.name)
        return verdict + self.L(f"names: {text.rstrip('.')}", f"名称：{text.rstrip('。')}")

    def fact_flavor(self, h: HardwareInfo, asked: set[str]) -> str:
        """The ModelArts flavor names of the part; the one with the device count the user said first."""
        if "part_flavor" not in asked:
            return ""
        if not h.flavors:
            return self.not_in_catalog("ModelArts flavor name", " ModelArts 规格（flavor）名", h)
        flavors = [f.strip() for f in h.flavors.split(";") if f.strip()]
        count = lambda f: int(m.group(1)) if (m := re.search(r"\((\d+)", f)) else 0  # noqa: E731
        said, text = self.s.devices, self.s.question.lower()
        # the flavor the question names first, else the one with the device count said
        named_in = lambda f: any(n.lower() in text for n in flavor_names(f))  # noqa: E731  (its full or short name)
        flavors.sort(key=lambda f: (not named_in(f), count(f) != said))
        named = [self.L(f"`{f.split(' (')[0]}` ({count(f)} NPU{'s' if count(f) > 1 else ''})",
                        f"`{f.split(' (')[0]}`（{count(f)} 张 NPU）") for f in flavors]
        verdict = ""
        if said and YES_NO_ASKED.search(text):  # "npu.2d910b 是指两张 910B 吗": the count said checked first
            ok = count(flavors[0]) == said
            verdict = self.L(f"**{'Yes' if ok else 'No'}**, {count(flavors[0])} {self.short(h)} NPU{'s' * (count(flavors[0]) > 1)}: ",
                             f"**{'是' if ok else '不是'}**，{count(flavors[0])} 张 {self.short(h)} NPU：")
        total = ""
        if "part_total" in self.s.intents and named_in(flavors[0]) and (n := count(flavors[0])):
            # "npu.2d910b 显存一共多少": the flavor's own NPUs times the memory of each (catalog row)
            total = self.L(f"; in all {n} × {fig(h.memory_gb)} GB = **{fig(n * h.memory_gb)} GB**",
                           f"；合计 {n} × {fig(h.memory_gb)} GB = **{fig(n * h.memory_gb)} GB**")
        return verdict + self.L(f"ModelArts flavor **{named[0]}**", f"ModelArts 规格（flavor）**{named[0]}**") + (
            self.L(", also " + ", ".join(named[1:]), "，另有 " + "、".join(named[1:])) if named[1:] else "") + self.L(
            f" (source: {h.flavors_source})", f"（来源：{h.flavors_source}）") + total

    def fact_topology(self, h: HardwareInfo, asked: set[str]) -> str:
        if "part_topology" not in asked:
            return ""
        text = (h.interconnect_zh if self.lang == "zh" else None) or h.interconnect
        if not text:
            return self.not_in_catalog("interconnect", "互联方式", h)
        q = self.s.question.lower()
        verdict = ""
        if (link := LINK_NAMED.search(q)) and YES_NO_ASKED.search(q):  # "A2 里卡之间走的是 NVLink 吗": that link, yes or no
            # (a link the row names is said in its place by the wiring itself: where it sits is not a yes or no)
            said = self.s.question[link.start():link.end()]
            if link.group(0).replace(" ", "") not in (h.interconnect or "").lower().replace(" ", ""):
                verdict = self.L(f"**No**, not {said}: ", f"**不是** {said}：")
        return verdict + self.say("pf_wiring", text=text)

    def fact_job_devices(self, h: HardwareInfo, asked: set[str]) -> str:
        """The device counts a job may get on one node, and whether the count the user said is one of them."""
        if "part_job_devices" not in asked:
            return ""
        if not h.job_devices:
            return self.not_in_catalog("rule on the device counts a job may get", "作业可申请设备数的规定", h)
        allowed = [int(n) for n in h.job_devices.split(";") if n.strip()]
        m = PROCESSORS.search(self.s.question.lower())
        said = self.s.devices or (int(m.group(1)) if m else None)
        listed = ", ".join(str(n) for n in allowed)
        verdict = ""
        if said:
            ok = said in allowed
            verdict = self.L(f"**{'Yes' if ok else 'No'}**, {said} {'is' if ok else 'is not'} one of them: ",
                             f"**{'可以' if ok else '不可以'}**，{said} {'在' if ok else '不在'}其中：")
        return verdict + self.L(f"a job on one node gets **{listed}** processors (DIE) (source: {h.job_devices_source})",
                                f"单节点作业可分配 **{listed}** 个处理器（DIE）（来源：{h.job_devices_source}）")

    def fact_cores(self, h: HardwareInfo, asked: set[str]) -> str:
        if "part_cores" not in asked:
            return ""
        if not h.ai_cores:
            return self.not_in_catalog("AI-core count", " AI Core 数", h)
        return self.L(f"**{h.ai_cores} AI cores** (source: {h.ai_cores_source})",
                      f"**{h.ai_cores} 个 AI Core**（来源：{h.ai_cores_source}）")


class CountsSaid(NamedTuple):
    nodes: int | None
    cards: int | None


def hardware_ids(s: QuestionFrame) -> list[str]:
    """The parts the question names, in the order written (the reader's hardware spans)."""
    return [str(sp.value) for sp in sorted(s.spans, key=lambda sp: sp.start) if sp.slot == "hardware" and sp.value]


def counts_said(s: QuestionFrame) -> CountsSaid:
    """The last node count and the last card count the question states (None when it states none), from the reader's
    typed spans (numbers.COUNTS_SAID): "1 node = …, and 2 nodes?" asks of the last one."""
    def last(slot: str) -> int | None:
        found = sorted((sp.start, sp.value) for sp in s.spans if sp.slot == slot)
        return int(found[-1][1]) if found else None
    nodes = last("said_nodes")
    # cards said per node ("一台机器 8 张卡, 3 台机器") belong to the node; the node count is the job's
    return CountsSaid(nodes, None if nodes else last("said_cards"))


# the total asked of one node ("一台机器总共多少显存", "one node: …, total HBM"), whatever other count the question says
# ("一张卡是几个 DIE", "is the smallest job 2 DIE?")
NODE_TOTAL_ASKED = re.compile(r"(?:一台|每台|单台|整台|单机|整机|一个节点|每个节点|单节点).{0,12}(?:总共|一共|合计|总|加起来)|"
                              r"(?:one|a|per|each|single|whole)\s+(?:node|server|machine).{0,60}(?:total|in\s+all|altogether|combined)|"
                              r"(?:total|in\s+all|altogether|combined).{0,30}(?:per|a|one|each)\s+(?:node|server|machine)")
# "what's the HCCS bandwidth", "HBM 带宽是多少", "how fast is the link, in Gbit/s": the catalog has no bandwidth column
# for the Ascend parts
ASKS_BANDWIDTH = re.compile(r"(?i)bandwidth|带宽|\bGB/s\b|\bGbit|\bGbps\b|link\s+speed|how\s+fast\s+is\s+the\s+(?:link|interconnect|network)")
BANDWIDTH = ("bandwidth figure (HCCS, RoCE or HBM)", "带宽数值（HCCS、RoCE 或 HBM）", "", "")
# the figures asked by intent (intents.toml) that no catalog column or note holds: what, and where to look instead
NOT_HELD = {"part_host_ram": ("host (CPU) RAM figure", "主机内存（CPU 内存）数值",
                              " (it depends on the resource pool's flavor: check the flavor in the ModelArts console)",
                              "（取决于资源池的规格（flavor），请在 ModelArts 控制台查看所选规格）"),
            "part_power": ("power (TDP) figure", "功耗（TDP）数值", "", ""),
            "part_mixed_job": ("rule on one job spanning nodes of different parts", "同一作业跨不同型号节点的规定",
                               " (no vendor page says a job may mix them; plan each job on one part)",
                               "（没有厂商页面说明可以混用；请按单一型号规划每个作业）")}
ASKS_OFFICIAL = re.compile(r"(?i)official|官方")
NO_OFFICIAL = re.compile(r"(?i)no official|没有(?:找到)?官方")
# "the Snt9B23 flavor", "Snt9B 规格": the flavor word right after a part's name; "which flavor", "规格名": its names asked
FLAVOR_WORD = re.compile(r"\s*(?:flavou?rs?|规格|资源规格)")
FLAVOR_NAME_ASKED = re.compile(r"flavou?r\s+(?:names?|strings?|ids?)|(?:which|what)\s+(?:\w+\s+)?flavou?r|规格名|规格.{0,3}(?:叫|是)什么|"
                               r"哪(?:个|种)\s*规格|modelarts\.bm")
# the figure words of a part ("显存", "memory", "算力", "TFLOPS"): a precision's yes/no asked after one follows it
FIGURE_WORD = re.compile(r"显存|内存|算力|memory|hbm|vram|tflops|flops|compute")
# "does the 910B have 2 dies per card", "每张卡是 2 个 die 吗": the DIE count said, to check
DIES_SAID = re.compile(r"(?<![0-9.])(\d)\s*(?:个\s*)?dies?\s+(?:per|in\s+(?:a|one|each))\s+card|(?:每|一)张卡.{0,4}?(\d)\s*个?\s*die")
UNVERIFIED = re.compile(r"(?i)not\s+verified|unverified|inferred|未经核实|未核实|推断")
# "how many DIE per card", "每张卡几个 DIE"
DIES_PER_CARD = re.compile(r"(?i)dies?\s+(?:per|in\s+(?:a|one|each))\s+card|(?:每|一)张卡.{0,6}(?:几|多少|\d|[一两二三四])\s*个?\s*die|"
                           r"cards?\s+(?:have|has|hold|holds|contain|contains)\s+(?:\w+\s+)?dies?(?![a-z])")
# a link named of a part ("is it NVLink?", "走的是 HCCS 吗"): the catalog's interconnect says whether it has it
LINK_NAMED = re.compile(r"(?<![a-z])(?:nvlink|nvswitch|hccs|roce|infiniband|pcie|sio|infinity\s+fabric)(?![a-z])")
# a precision the catalog has no column for ("INT8", "FP4", "INT4"): not held, not a yes or no
UNHELD_PRECISION = re.compile(r"(?<![a-z0-9])(int8|int4|fp4|fp32|tf32)(?![a-z0-9])")
# the parallel unit asked ("smallest parallel unit", "最小并行单位")
UNIT_ASKED = re.compile(r"(?:smallest|minimum|min)\s+(?:\w+\s+)?unit|parallel(?:ism)?\s+unit|最小.{0,4}单位|并行单位")
# "does X have more … than Y", "X 比 Y 显存大吗": the comparison asked yes or no
# the same figure asked of two parts ("identical memory?", "显存一样吗"): answered no or yes
SAME_FIGURE_ASKED = re.compile(r"(?<![a-z])(?:same|identical|equal)(?![a-z])|一样|相同|相等")
MORE_ASKED = re.compile(r"(?<![a-z])(?:more|less|fewer|bigger|larger|smaller)(?![a-z])|比.{0,12}(?:多|大|少|小)")
# "how much more per node", "每台多多少": the node's total asked beside the per-card figure (figure_compared)
MORE_PER_NODE = re.compile(r"more\s+(?:[\w-]+\s+){0,2}(?:per|in\s+(?:a|one|each))\s+(?:[\w-]+\s+)?(?:node|server|machine)|(?:每台|每节点|每个节点|一台|整机).{0,6}(?:多|差)")
PER_NODE = re.compile(r"(?:per|in\s+(?:a|one|each))\s+(?:node|server|machine)|每台|每节点|每个节点|一台|整机")
PER_CARD = re.compile(r"(?:per|a|one|each)\s+card|每张卡|每卡|单卡")
# what two parts are compared on: (English label, Chinese label, unit, the figure from the catalog row)
COMPARABLE = {
    "dies": ("DIE per card", "每张卡 DIE 数", "", lambda h: h.dies_per_card or 1),
    "part_compute": ("BF16 TFLOPS (dense, per device)", "BF16 稠密算力（每设备）", " TFLOPS", lambda h: h.bf16_tflops or 0),
    "part_total": ("memory per node", "每节点显存合计", " GB", lambda h: h.devices_per_node * h.memory_gb),
    "part_memory": ("memory per card", "每张卡显存", " GB", lambda h: h.memory_gb * (h.dies_per_card or 1)),
    "part_node": ("cards per node", "每节点卡数", "", lambda h: h.devices_per_node // (h.dies_per_card or 1)),
}
