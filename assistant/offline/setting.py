"""Framework and hardware in a question: the frameworks' and Ascend parts' words (vocab), else any part
of the hardware catalog by its id, name or aliases, and a count written before the part ("8张910B")."""

from __future__ import annotations

import re

from ..errors import SizingError
from ..resolve import squash
from . import numbers as num
from .frame import QuestionFrame as Slots
from .vocab import FRAMEWORKS, HARDWARE, blank_span, compared

DEVICE_WORD_AFTER = re.compile(r"\s*(?:s\b)?\s*(?:cards?|npus?|dies?|devices?|nodes?|servers?|machines?|clusters?|super\s*pods?|"
                               r"卡|张|块|节点|机器|服务器|集群|超节点|机|上|呢|\s(?:和|与|跟|vs\.?|versus)\s)")
PLACE_BEFORE = re.compile(r"(?:(?<![a-z])(?:on|with|using|use|to|onto|vs\.?|versus)|用|在|换成|改成|换到|改用|换|和|与|跟)\s*$")


class Setting:
    """Reads frameworks and hardware against one hardware catalog (the resolver's)."""

    def __init__(self, resolver):
        self.resolver = resolver

    def read(self, low: str, s: Slots) -> tuple[str, int | None]:
        """Framework and hardware first; their words are blanked so "llama factory" is not a model.
        Returns the rest and a count written before the hardware ("8张910B")."""
        work = self.frameworks(low, s)
        work, hw_count, parts = self.vocab_hardware(work, s)
        if s.hardware is None:
            work, hw_count, parts = self._catalog_hardware(work, s)
        rest, more = self.catalog_parts(work) if s.hardware else (work, [])
        parts += more
        parts.sort()
        ids = list(dict.fromkeys(hw for _, hw in parts))
        if len(ids) > 1 and compared(low, [span for span, _ in parts]):
            s.hardwares, work = ids, rest  # "A100 vs 910B": each part named is sized, the first written leads
            (start, end), s.hardware = parts[0]
            s.hardware_text = low[start:end].strip()
        return work, hw_count

    @staticmethod
    def frameworks(low: str, s: Slots) -> str:
        """The framework named (the vocabulary's first match), and every framework of a comparison."""
        work, found = low, []
        for rx, fw_name in FRAMEWORKS:
            found += [(m.start(), m.end(), fw_name) for m in rx.finditer(work)]
            if found and s.framework is None:
                s.framework = fw_name
            work = rx.sub(lambda m: " " * len(m.group(0)), work)
        names = list(dict.fromkeys(name for _, _, name in sorted(found)))
        if len(names) > 1 and compared(low, [(a, b) for a, b, _ in found]):
            s.frameworks, s.framework = names, names[0]
        return work

    def vocab_hardware(self, work: str, s: Slots) -> tuple[str, int | None, list[tuple[tuple[int, int], str]]]:
        """Parts by the vocabulary's words (Ascend names, common GPUs): the first list entry that matches is
        the hardware, with the count written before it; every match is returned with its span."""
        hw_count = None
        parts: list[tuple[tuple[int, int], str]] = []
        for rx, name in HARDWARE:
            for m in rx.finditer(work):
                parts.append((m.span(), self.hardware_id(name, m)))
                if s.hardware is None:
                    s.hardware_text = m.group(0).strip()
                    s.hardware = parts[-1][1]
                    hw_count = num.count_before_hardware(work[: m.start()], work[m.end():])
            work = rx.sub(lambda m: " " * len(m.group(0)), work)
        return work, hw_count, parts

    def catalog_parts(self, work: str, most: int = 4) -> tuple[str, list[tuple[tuple[int, int], str]]]:
        """Further catalog parts named in the rest ("V100 vs A10"), with the rest blanked of them."""
        parts: list[tuple[tuple[int, int], str]] = []
        while len(parts) < most and (found := self.catalog_part(work)):
            span, hw = found
            parts.append((span, hw))
            work = blank_span(work, span)
        return work, parts

    def _catalog_hardware(self, work: str, s: Slots) -> tuple[str, int | None, list[tuple[tuple[int, int], str]]]:
        """The first catalog part named is the hardware, with the count written before it."""
        found = self.catalog_part(work)
        if not found:
            return work, None, []
        (start, end), s.hardware = found
        s.hardware_text = work[start:end]
        return blank_span(work, (start, end)), num.count_before_hardware(work[:start], work[end:]), [found]

    def catalog_part(self, work: str) -> tuple[tuple[int, int], str] | None:
        """Any part of the hardware catalog by its id, name or aliases ("V100", "MI300X", "Atlas 300I Duo"):
        the longest run of up to three words whose spelling the catalog knows, so new parts need no code."""
        keys = self.resolver.hardware_keys
        toks = [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"[a-z0-9](?:[a-z0-9.\-]*[a-z0-9])?", work)]  # no sentence-end dot
        for i in range(len(toks)):
            for j in range(min(len(toks), i + 3), i, -1):
                key = squash(" ".join(t[2] for t in toks[i:j]))
                memory_only = re.fullmatch(r"\d+g(?:b)?", key)  # "32G" alone is a memory size (see _counts)
                if memory_only:
                    continue
                for spelling in (key, re.sub(r"(?<=\d)s$", "", key)):  # a plural: "two RTX 3090s", "8 V100s"
                    if self._names_part(spelling, keys, work[toks[j - 1][1]:], work[: toks[i][0]]):
                        return (toks[i][0], toks[j - 1][1]), keys[spelling]
        return None

    @staticmethod
    def _names_part(key: str, keys: dict[str, str], after: str = "", before: str = "") -> bool:
        """A catalog spelling with a digit. Two characters are too easily noise ("a3" in a hash), so a
        two-character word counts as the stem of the part's own id ("t4" for t4-16g, "l4" for l4-24g), or as
        any alias when a device or node word follows it ("A3 cards", "A2 节点", "a3 superpod") or a word that
        places the job on it comes before or after it ("on A3", "换成A3", "A3上呢")."""
        if key not in keys or not re.search(r"\d", key):
            return False
        return (len(key) >= 3 or keys[key].split("-")[0] == key or bool(DEVICE_WORD_AFTER.match(after))
                or bool(PLACE_BEFORE.search(before)))

    def hardware_id(self, name: str | None, m: re.Match | None) -> str:
        """Catalog id of a hardware mention; an unknown GPU keeps its name (tools will say so)."""
        cands = [name] if name else []
        if not name and m is not None:
            size = m.group(2) if m.lastindex and m.lastindex >= 2 else None
            cands += [f"{m.group(1)} {size}g"] if size else []
            cands += [m.group(1), m.group(0).strip()]
        for cand in cands:
            try:
                return self.resolver.hardware_id(cand)
            except SizingError:
                continue
        return cands[-1]

    def by_memory(self, gb: int, work: str = "") -> tuple[str | None, bool]:
        """The catalog part with this much memory ("a 24GB GPU" -> a 24 GB GPU row), marked as a guess. The device
        word picks the kind: "NPU" an Ascend part, anything else ("card", "GPU", "显卡") a GPU, because people
        say "a 48GB card" for a GPU, never for the Atlas 300I Duo inference card. Same-size parts: catalog order.
        The 64 GB Snt9B is the default anyway."""
        kind = "npu" if re.search(r"npu|昇腾|ascend", work) else "gpu"
        parts = [h for h in self.resolver.hardware.values() if h.get("memory_gb") == gb]
        if not parts or gb == 64:
            return None, False
        same_kind = [h for h in parts if h.get("kind") == kind] or parts
        return same_kind[0]["id"], True
