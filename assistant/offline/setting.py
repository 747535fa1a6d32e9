"""Framework and hardware in a question: the frameworks' words (vocab), every part of the hardware catalog
by its id, name or aliases (the one hardware vocabulary: a new spelling is a catalog alias, not code), and a
count written before the part ("8张910B")."""

from __future__ import annotations

import os
import re

from ..errors import SizingError
from ..resolve import squash
from . import numbers as num
from . import subquestions
from .frame import DEFAULT_HARDWARE
from .frame import QuestionFrame as Slots
from .spans import Reading
from .vocab import CHANGED_TO, FRAMEWORKS, changed_to, compared

DEVICE_WORD_AFTER = re.compile(r"\s*(?:s\b)?[\x27\x22\u2019\u201d\u300d]?\s*(?:的\s*)?(?:(?:\d+|几|多少)\s*(?:个|张)\s*(?:die|卡|npu)|hardware|硬件|cards?|npus?|dies?|devices?|nodes?|servers?|machines?|box(?:es)?|clusters?|super\s*pods?|"
                               r"卡|张|块|节点|机器|服务器|集群|超节点|机|台|上|呢|单机|单节点|整机|每台|一台|显存|算力|支持|有几|有多少|是什么|是啥|指的是|还是|(?:is|are)\s+(?:what|which)|in\s+modelarts|or\s+(?:an?\s+)?[a-z]*\d|(?:\d+|[一两二三四五六七八九十])\s*(?:台|张|块|个节点)|[（(]\s*\d+\s*(?:个|张)?\s*(?:die|卡|cards?|npus?)|\s(?:和|与|跟|vs\.?|versus)\s|(?:the\s+)?same\s|是同一|一样|也|同样|(?:also|too|as\s+well)(?![a-z]))")
# (a closing quote after the name is no other word: "we're getting 'A3' nodes")
# A count before a plural part name ("four A3s", "2 A2s", "a pair of A3s", "several A3s")
COUNT_BEFORE = re.compile(r"(?:(?<![a-z0-9.])\d{1,5}|\b(?:one|two|three|four|five|six|eight|ten|twelve|sixteen|thirty-two|sixty-four|"
                          r"pair\s+of|couple\s+of|several|few|multiple|some|our|my|the))\s*$", re.I)
PART_TOKEN = re.compile(r"[a-z0-9](?:[a-z0-9.\-]*[a-z0-9])?")  # no sentence-end dot
# A count glued to a part: "8xh100", "1x4090" (count first) and "h100x8", "910bx16" (count last, the part has a digit)
GLUED_BEFORE = re.compile(r"(\d{1,3}[x*])([a-z0-9].*)")
GLUED_AFTER = re.compile(r"(.*\d.*?)([x*]\d{1,3})")
MEMORY_ONLY = re.compile(r"\d+g(?:b)?")
SIZE_IN_NAME = re.compile(r"[\s\-_]*\d{2,3}\s*g(?:i?b)?$", re.I)
SIZE_JOINED = re.compile(r"\s*(?:和|与|跟|、|/|,|，|or|and|vs\.?|还是)\s*(\d{2,3})\s*g(?:i?b)?(?![a-z0-9])", re.I)
CJK = re.compile(r"[\u4e00-\u9fff]")
# a catalog spelling made of a series and a model number ("rtx4090", "h100", "mi300x", "rtxa6000"), and a word of that shape
SERIES_KEY = re.compile(r"([a-z]{1,7})(\d{2,5})[a-z]{0,3}")
SERIES_NAME = re.compile(r"([a-z]{1,7})(\d{2,5})([a-z]{0,3})")
# a length word after a number ("a 4096 cutoff", "8192-token context", "4096 长度"): the number is a sequence length
LENGTH_WORD_AFTER = re.compile(r"[\s-]*(?:cutoff|cut[-_ ]off|context|ctx|tokens?|seq(?:uence)?s?|length|len\b|长度|上下文|序列|token)", re.I)
COUNTED_BEFORE = re.compile(r"(?<![0-9.])\d{1,4}\s*(?:x|×|\*|张|块|台)?\s*$|(?:one|two|four|eight|sixteen|single|a|an)\s+$")
# (also a count with its unit right before the name: "3台A2", "2x A3")
PLACE_BEFORE = re.compile(r"(?:(?:(?<![a-z0-9./])[a-z]{0,6}\d{1,4}[a-z]{0,2}\s*|\s)[/、]|(?<![a-z])(?:on|with|using|use|to|onto|vs\.?|versus|between|and|than|what\s+is|what's|what\s+are|或|还是|or|if\s+(?:it|this|that)\s+(?:were|was|is))(?:\s+(?:an?|the|my|our|one))?|(?<![a-z])(?:the|my|our)|用|在|换成|改成|换到|改用|换|和|与|跟|"
                          r"(?<![0-9.])\d{1,4}\s*(?:台|套|张|块|个节点|x|×|\*)|[一两二三四五六七八九十]\s*(?:台|套|个节点)|"
                          r"(?:几|多少)\s*(?:台|套|个)\s*(?:完整|整)?的?|完整的?)\s*$")  # "2 台 A3", "3台A2", "2x A3", "几台完整的 A3"


def part_tokens(work: str, keys: dict[str, str]) -> list[tuple[int, int, str]]:
    """The words a part name can be made of, with a count glued to a catalog spelling split off ("8xh100" is "8x" and
    "h100"; "h100x8" is "h100" and "x8"), so the count is read beside the part as if spaced. A word that is itself a
    spelling stays whole ("mi300x")."""
    out = []
    for m in PART_TOKEN.finditer(work):
        word, at = m.group(0), m.start()
        pieces = None if squash(word) in keys else next(
            (g.groups() for rx, side in ((GLUED_BEFORE, 1), (GLUED_AFTER, 0)) if (g := rx.fullmatch(word))
             and re.search(r"[a-z]|\d{3}", g.group(side + 1)) and squash(g.group(side + 1)) in keys), None)  # "4x8": no part
        if pieces:
            cut = at + len(pieces[0])
            out += [(at, cut, pieces[0]), (cut, m.end(), pieces[1])]
        else:
            out.append((at, m.end(), word))
    return out


# Two frameworks asked one after the other ("先说 MindSpeed 再说 LlamaFactory", "LlamaFactory 够不够？MindSpeed 呢",
# "LF first, then MindSpeed"): each is a part of the question, answered in the order written
IN_TURN = re.compile(r"[?？;；]|再|然后|其次|接着|(?<![a-z])(?:then|next|after\s+that|also)(?![a-z])")
ONE_MORE = re.compile(r"^\s*(?:呢|怎么样|如何|又如何|what\s+about|how\s+about)")


def asked_in_turn(text: str, found: list[tuple[int, int, str]]) -> bool:
    """Every two framework mentions in a row are asked in turn: a question mark or a "then" between them, or the later
    one followed by "呢"."""
    spans = sorted(found)
    return all(IN_TURN.search(text[a[1]:b[0]]) or ONE_MORE.match(text[b[1]:]) for a, b in zip(spans, spans[1:], strict=False))


# the memory written right after a part's name: "L20 48GB", "MI210 (64 GB)", "l20-48g", "L20，48G 显存"
# accelerator lines whose model numbers name nothing but an accelerator, in or out of the catalog (Intel Gaudi, AWS
# Trainium/Inferentia, Google TPU, Cambricon MLU, AMD Instinct MI, Huawei Ascend 9xx): a number of one the catalog lacks
# is an unknown part even with no count or device word beside it ("Ascend 950 的卡你们表里有吗")
BRAND_PART = re.compile(r"(?<![a-z0-9])(?:gaudi\s*\d(?:\.\d)?|trainium\s*\d?|inferentia\s*\d?|tpu\s*v\d+[a-z]{0,2}|mlu\s*\d{3}[a-z]?|"
                        r"mi\s*\d{3}[a-z]{0,2}|(?:ascend|昇腾)\s*9\d\d[a-z]?\d?)(?![a-z0-9])")
# a variant word after a part's name ("910B Ultra", "Ascend 910 Pro X", "H100 Max"): a part the catalog lacks when the
# spelling with it is none of the catalog's (Setting.qualified_part); "x 8" after a name is a count, not a variant
QUALIFIER = r"(?:pro|max|ultra|plus|lite|mini|super|turbo|next|prime)"
QUALIFIER_AFTER = re.compile(rf"[\s\-_]*{QUALIFIER}(?![a-z])(?:[\s\-_]*(?:x|max|plus|ultra|\d{{1,2}})(?![a-z0-9]))?")
QUALIFIED_BRAND = re.compile(rf"(?<![a-z0-9])(?:atlas|ascend|昇腾)\s*\d{{3}}[a-z]?\d?[\s\-_]*{QUALIFIER}(?![a-z])(?:[\s\-_]*(?:x|max|plus|ultra|\d{{1,2}})(?![a-z0-9]))?")
PART_MEMORY_AFTER = re.compile(r"\s*[-_(（,，]?\s*(\d{1,4})\s*g(?:i?b)?(?![a-z0-9])")


COMPARE_BEFORE = re.compile(r"(?i)compar|contrast|(?<![a-z])differen|比较|对比|区别")
# the words of a later sub-question moving the job to a part ("最少几卡？换成 Snt9B23 要几个 DIE", "…? and if it's on
# Snt9B23?"): the sub-question before asked it on the default part
SWITCHED = re.compile(rf"(?i){CHANGED_TO.pattern}|如果是|若是|要是|(?<![a-z])if\s+(?:it'?s|it\s+is|we\s+use|i\s+use)(?![a-z])")
JOINED = re.compile(r"(?i)(?<![a-z])(?:with|to|and|against)(?![a-z])|和|与|跟|同")


class Setting:
    """Reads frameworks and hardware against one hardware catalog (the resolver's)."""

    def __init__(self, resolver):
        self.resolver = resolver

    def read(self, r: Reading, s: Slots) -> int | None:
        """Framework and hardware first; their words are claimed so "llama factory" is not a model.
        Returns a count written with the hardware ("8张910B", "3090 x2")."""
        self.frameworks(r, s)
        parts = self.catalog_parts(r)
        if not parts:
            return None
        parts = sorted(parts + self.other_sizes(r, parts))
        now = changed_to(r.text, [(a, b, hw) for (a, b), hw in parts])  # "910B 换成 A3": the part changed to
        # "要几张 Snt9B？换成 A100 要几张？": each part asked in its own question is a comparison, not a change
        # (a question mark between them: "910B 换成 A3 呢" alone is a change)
        spans = sorted(span for span, _ in parts)
        in_turn = len({hw for _, hw in parts}) > 1 and all(re.search(r"[?？]", r.text[a[1]:b[0]]) for a, b in zip(spans, spans[1:], strict=False))
        now = None if in_turn else now
        (start, end), s.hardware = next((p for p in parts if p[1] == now), parts[0])  # else the first part written
        s.hardware_text = r.text[start:end].strip()
        rest = r.unread()
        counted_in_die = (self.resolver.hardware.get(s.hardware) or {}).get("unit") == "die"
        hw_count = num.count_before_hardware(rest[:start], rest[end:], article_counts=not counted_in_die)
        for (a, b), hw in parts:  # "how many A3 DIE match 2 H200s": the count is written with the other part
            if hw_count is None and hw != s.hardware:
                hw_count = num.count_before_hardware(rest[:a], rest[b:], article_counts=False)
        if hw_count is None and (flavor := self.resolver.flavor_devices.get(squash(s.hardware_text))):
            s.settings["flavor_devices"] = flavor  # "we rent modelarts.bm.arm.24u.192g.npu.1d910b": its devices (parse._counts)
        ids = list(dict.fromkeys(hw for _, hw in parts))
        s.hardware_from = [hw for hw in ids if hw != s.hardware] if now else []
        # a part named twice in a row ("A3 (Snt9B23)") is one mention: the comparison joins the parts, not the names
        ordered = sorted(parts)
        mentions = [span for i, (span, hw) in enumerate(ordered) if i == 0 or ordered[i - 1][1] != hw]
        # "compare a Snt9B23 device with a Snt9B device", "比较 A2 和 A3": a compare word before the first part joins them
        compare_first = bool(COMPARE_BEFORE.search(r.text[:mentions[0][0]])) and all(
            JOINED.search(r.text[a[1]:b[0]]) for a, b in zip(mentions, mentions[1:], strict=False))
        # "910B3 和 910B4 分别多少显存？Snt9B 对应哪个？": a part named again later is the same mention as its first
        firsts = [span for i, (span, hw) in enumerate(ordered) if all(h != hw for _, h in ordered[:i])]
        if len(ids) > 1 and not now and (compared(r.text, mentions) or compared(r.text, firsts) or in_turn or compare_first):
            s.hardwares = ids  # "A100 vs 910B": each part named is sized, the first written leads
        elif len(ids) == 1 and ids[0] != DEFAULT_HARDWARE and (subs := subquestions.asked_apart(r.text)) and (
                later := next((p for p in subs[1:] if p.start <= start < p.start + len(p.text)), None)) and (
                SWITCHED.search(r.text[later.start:start])):
            # "qwen 72b lora 最少几卡？换成 Snt9B23 要几个 DIE": the first sub-question names no part, so it asks the
            # default part's count; the later one moves the job to the part named: both are sized, in the order asked
            s.hardwares = [DEFAULT_HARDWARE, s.hardware]
        return hw_count

    @staticmethod
    def frameworks(r: Reading, s: Slots) -> None:
        """The framework named (the vocabulary's first match), and every framework of a comparison."""
        found = []
        for rx, fw_name in FRAMEWORKS:
            matches = list(r.finditer(rx))
            found += [(m.start(), m.end(), fw_name) for m in matches]
            if found and s.framework is None:
                s.framework = fw_name
            for m in matches:
                r.claim_match(m, "framework", fw_name, "vocabulary")
        names = list(dict.fromkeys(name for _, _, name in sorted(found)))
        # "MindSpeed 全参和 lora 各几张？换成 LlamaFactory 呢": a change asked in a sub-question of its own asks both
        apart = len(names) > 1 and subquestions.apart(r.text, [a for a, _, _ in sorted(found)])
        if len(names) > 1 and not apart and (now := changed_to(r.text, found)):
            s.framework = now  # "LLaMA-Factory 换成 MindSpeed": the framework the job moves to
        elif len(names) > 1 and (apart or compared(r.text, [(a, b) for a, b, _ in found]) or asked_in_turn(r.text, found)):
            s.frameworks, s.framework = names, names[0]

    def catalog_parts(self, r: Reading, most: int = 5) -> list[tuple[tuple[int, int], str]]:
        """Every catalog part named, in the order written, each claimed."""
        parts: list[tuple[tuple[int, int], str]] = []
        while len(parts) < most and (found := self.catalog_part(r.unread())):
            span, hw = found
            parts.append((span, hw))
            r.claim(*span, "hardware", hw, "catalog")
        return sorted(parts)

    def other_sizes(self, r: Reading, parts: list[tuple[tuple[int, int], str]]) -> list[tuple[tuple[int, int], str]]:
        """"A100 40G 和 80G", "V100 16GB or 32GB": a memory size joined right after a part written with its size is the
        same line's part of that size, when the catalog has that spelling; each claimed."""
        found = []
        for (start, end), _ in parts:
            name = r.text[start:end]
            stem = SIZE_IN_NAME.sub("", name)
            m = SIZE_JOINED.match(r.text, end)
            if stem == name or not m:
                continue
            key = squash(f"{stem} {m.group(1)}g")
            if key in self.resolver.hardware_keys:
                found.append(((m.start(1), m.end()), self.resolver.hardware_keys[key]))
                r.claim(m.start(1), m.end(), "hardware", self.resolver.hardware_keys[key], "catalog")
        return found

    def catalog_part(self, work: str) -> tuple[tuple[int, int], str] | None:
        """Any part of the hardware catalog by its id, name or aliases ("910B", "A100 80G", "Atlas 800T A2",
        "MI300X"): the longest run of up to four words whose spelling the catalog knows, so new parts and
        spellings need no code."""
        keys = self.resolver.hardware_keys
        toks = part_tokens(work, keys)
        for i in range(len(toks)):
            for j in range(min(len(toks), i + 4), i, -1):
                if any(CJK.search(work[toks[k][1]:toks[k + 1][0]]) or re.search(r"[^\s\-_]", work[toks[k][1]:toks[k + 1][0]])
                       for k in range(i, j - 1)):
                    continue  # words a Chinese phrase or punctuation separates are not one name ("910B 支持 FP8", "910B (4 nodes)")
                key = squash(" ".join(t[2] for t in toks[i:j]))
                if MEMORY_ONLY.fullmatch(key):
                    continue  # "32G" alone is a memory size (see Parser._counts)
                # a plural: "two RTX 3090s", "8 V100s", "a pair of 910Bs", "four A3s"
                for spelling in (key, key[:-1]) if key.endswith("s") else (key,):
                    if self._names_part(spelling, keys, work[toks[j - 1][1]:], work[: toks[i][0]], plural=spelling != key):
                        return (toks[i][0], toks[j - 1][1]), keys[spelling]
        return None

    @staticmethod
    def _names_part(key: str, keys: dict[str, str], after: str = "", before: str = "", plural: bool = False) -> bool:
        """A catalog spelling with a digit. Two characters are too easily noise ("a3" in a hash), so a
        two-character word counts as the stem of the part's own id ("t4" for t4-16g, "l4" for l4-24g), or as
        any alias when a device or node word follows it ("A3 cards", "A2 节点", "a3 superpod") or a word that
        places the job on it comes before or after it ("on A3", "换成A3", "A3上呢"), or it is a plural after a count
        ("four A3s": the plural names devices)."""
        if key not in keys or not re.search(r"\d", key):
            return False
        return (len(key) >= 3 or keys[key].split("-")[0] == key or bool(DEVICE_WORD_AFTER.match(after))
                or bool(PLACE_BEFORE.search(before)) or (plural and bool(COUNT_BEFORE.search(before))))

    def unknown_part(self, work: str) -> str | None:
        """A word spelled like a catalog part that the catalog does not have ("Snt9B99", "snt9c", "MI300A"): it shares a
        part spelling's first four characters or more, letters and digits among them, and goes on differently. A count
        glued on ("h100x8"), a plural or other words glued on is no other part."""
        keys = [k for k in self.resolver.hardware_keys if re.search(r"\d", k)]
        if brand := self.unknown_brand_part(work):  # "Ascend 910D" whole, before its model number alone
            return brand
        for m in PART_TOKEN.finditer(work):
            word = squash(m.group(0))
            if word in self.resolver.hardware_keys or not (re.search(r"\d", word) and re.search(r"[a-z]", word)):
                continue
            if any(k.startswith(word) and (word.endswith(".") or k[len(word):len(word) + 1] == ".") for k in keys):
                continue  # the leading fields of a catalog flavor's name ("48u." of 48u.384g.npu.2d910b): a piece of it
            if re.fullmatch(r"\d+(?:\.\d+)?(?:g|gb|gib)", word):
                continue  # a memory size ("32GB cards", "64G"): it picks a table's column or a part by memory, not a name
            # the model number of a catalog part with another generation letter ("910D" beside 910b / 910c, "310Q"):
            # a part of the same line that the catalog lacks
            if (stem := re.fullmatch(r"(\d{3,})([a-z]{1,2}\d?)", word)) and any(
                    re.fullmatch(rf"{stem.group(1)}[a-z]{{1,2}}\d?", k) for k in keys):
                return m.group(0)
            shared = max((os.path.commonprefix([word, k]) for k in keys), key=len, default="")
            rest = word[len(shared):]  # a short tail: "99", "c", "a"; a longer one is other words glued on ("snt9blora")
            if (len(shared) >= 4 and re.search(r"\d", shared) and re.search(r"[a-z]", shared) and len(rest) <= 3
                    and not re.fullmatch(r"x\d+|s", rest)):
                return m.group(0)
        return self.unknown_series_part(work)

    def qualified_part(self, r: Reading) -> tuple[int, int, str | None] | None:
        """A part name followed by a variant word the catalog's spellings of it do not have ("910B Ultra", "Ascend 910 Pro
        X", "Atlas 900 Pro"): a part the catalog lacks, never the row its stem names. The words' start and end, and the
        catalog part the stem was read as (None for a brand's model number the catalog has no row of)."""
        keys = self.resolver.hardware_keys
        for sp in r.slot("hardware"):
            m = QUALIFIER_AFTER.match(r.text, sp.end)
            if m and squash(r.text[sp.start:m.end()]) not in keys:
                return sp.start, m.end(), sp.value
        for m in QUALIFIED_BRAND.finditer(r.unread()):
            if squash(m.group(0)) not in keys:
                return m.start(), m.end(), None
        return None

    def unknown_brand_part(self, work: str) -> str | None:
        """A model number of an accelerator line that only names accelerators ("Gaudi2", "Ascend 910D", "昇腾 950",
        "MI325X", "TPU v5e"), wherever it stands: a part the catalog lacks when its spelling is none of the catalog's."""
        for m in BRAND_PART.finditer(work):
            if squash(m.group(0)) not in self.resolver.hardware_keys:
                return m.group(0)
        return None

    def series(self) -> dict[str, int]:
        """The catalog's part series ("rtx" of rtx4090, "h" of h100, "mi" of mi300x, "rtxa" of rtx-a4000) with the fewest
        digits a model number of that series has: a new spelling in the catalog adds its series, no code."""
        out: dict[str, int] = {}
        for key in self.resolver.hardware_keys:
            if m := SERIES_KEY.fullmatch(key):
                out[m.group(1)] = min(out.get(m.group(1), 9), len(m.group(2)))
        return out

    def unknown_series_part(self, work: str) -> str | None:
        """A model number of a catalog series that the catalog does not hold ("RTX 5090", "H300", "RTX A5000"), placed as
        a part (a count or a placing word before it, or a device word after it): the user's part, said as unknown, never
        read as the default part. A one-letter series ("h", "a") needs three digits or more ("H300", not "A3")."""
        series, keys = self.series(), self.resolver.hardware_keys
        toks = part_tokens(work, keys)
        for i in range(len(toks)):
            for j in range(min(len(toks), i + 3), i, -1):
                if any(re.search(r"[^\s\-_]", work[toks[k][1]:toks[k + 1][0]]) for k in range(i, j - 1)):
                    continue
                key = squash(" ".join(t[2] for t in toks[i:j]))
                m = SERIES_NAME.fullmatch(re.sub(r"(?<=\d)s$", "", key))
                if not m or key in keys or m.group(1) not in series:
                    continue
                digits = len(m.group(2))
                before, after = work[: toks[i][0]], work[toks[j - 1][1]:]
                # its memory written after it ("L20 48GB") makes a short model number a part, as a device word does
                with_memory = bool(PART_MEMORY_AFTER.match(after)) and digits >= series[m.group(1)]
                # ... as a count before it and a device word after it do ("2 L20 cards", "4 x H30 GPUs")
                counted = bool(COUNTED_BEFORE.search(before) and DEVICE_WORD_AFTER.match(after)) and digits >= 2
                if digits < max(series[m.group(1)], 3 if len(m.group(1)) == 1 else 2) and not (with_memory or counted):
                    continue
                if LENGTH_WORD_AFTER.match(after) and not DEVICE_WORD_AFTER.match(after):
                    continue  # "with a 4096 cutoff", "a 8192-token context": a length after an article, no part
                if PLACE_BEFORE.search(before) or COUNTED_BEFORE.search(before) or DEVICE_WORD_AFTER.match(after) or with_memory:
                    return work[toks[i][0]:toks[j - 1][1]]
        return None

    def closest_parts(self, name: str) -> list[str]:
        """The catalog ids whose spellings share the longest start with ``name``; for a model number of a catalog series
        ("RTX 5090", "H300"), the three parts of that series with the nearest numbers."""
        word = squash(name)
        if (m := SERIES_NAME.fullmatch(word)) and m.group(1) in self.series():
            near: dict[str, int] = {}
            for k, hw in self.resolver.hardware_keys.items():
                if (same := SERIES_KEY.fullmatch(k)) and same.group(1) == m.group(1):
                    near[hw] = min(near.get(hw, 10**6), abs(int(same.group(2)) - int(m.group(2))))
            return sorted(near, key=lambda hw: near[hw])[:3]
        best: dict[str, tuple[int, bool]] = {}  # id -> (characters shared, a whole spelling of it shared)
        for k, hw in self.resolver.hardware_keys.items():
            n = len(os.path.commonprefix([word, k]))
            best[hw] = max(best.get(hw, (0, False)), (n, n == len(k)))
        top = max((n for n, _ in best.values()), default=0)
        # one letter shared ("Gaudi 3" and "geforce rtx 4090") is no likeness
        return sorted((hw for hw, (n, _) in best.items() if n == top and n > 1), key=lambda hw: not best[hw][1])

    def hardware_id(self, name: str) -> str:
        """Catalog id of a part's spelling; one the catalog lacks keeps its name (tools will say so)."""
        try:
            return self.resolver.hardware_id(name)
        except SizingError:
            return name

    def by_memory(self, gb: int, work: str = "") -> tuple[str | None, bool]:
        """The catalog part with this much memory ("a 24GB GPU" -> a 24 GB GPU row), marked as a guess. The device
        word picks the kind: "NPU" an Ascend part, anything else ("card", "GPU", "显卡") a GPU, because people
        say "a 48GB card" for a GPU, never for the Atlas 300I Duo inference card. Same-size parts: catalog order.
        The 64 GB Snt9B is the default anyway."""
        kind = "npu" if re.search(r"npu|昇腾|ascend", work) else "gpu"
        parts = [h for h in self.resolver.hardware.values() if h.get("memory_gb") == gb]
        same_kind = [h for h in parts if h.get("kind") == kind]
        said_gpu = bool(re.search(r"gpu|显卡", work))  # "card" alone may be the Ascend card
        if re.search(r"in-house|自研|custom|自定义|our own|accelerator|加速卡|chip|芯片", work) and kind == "gpu":
            return f"custom-{gb}gb-gpu", True  # "our in-house accelerator, 40GB per chip": no catalog part stands in for it
        if gb == 64 and not said_gpu:
            return None, False
        if not same_kind and (said_gpu or not parts):  # "our 56GB GPUs", "a 64 GB GPU": no catalog part has it, a generic one
            return f"custom-{gb}gb-{kind}", True
        return (same_kind or parts)[0]["id"], True
