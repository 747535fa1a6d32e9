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

from rapidfuzz.distance import OSA

from . import checks
from .spans import Reading
from .vocab import cn_number

SPEC_FILE = Path(__file__).with_name("slots.toml")
CURRENT = "current_setting"  # a setting's value the run has now, beside the one the question proposes (proposal.py)
QUOTED_COUNT = "quoted_count"  # a device count the question quotes from the vendor's table ("表里写 LF 要 32 张"): compared
RESTATED_SLOT = "restated"  # the words of a value the question takes back ("GA 8 … actually GA 16"): said, not used
NOT_A_SETTING = "not_a_setting"  # the span of words a slot's ``elsewhere`` found: their digits are no stated value
# The words between a setting and its value, in prose, YAML, JSON, env-var and flag form: "rank 16", "lr=2e-5",
# "GA: 16", "batch size to 8", "rank goes to 128", "秩为 8", "TP 可以设成 3", "梯度累积设 0" (a bare 设 sets it too), "micro batch 取 1", '"stage": 4', "NNODES=2", "--lora-rank 64".
CONNECT = (r"[\"']?\s*(?:可以|能)?\s*(?:of|=|:|is|->|(?:should|must|needs?\s+to|has\s+to|ought\s+to)\s+be|(?:(?:goes|go|went|drops?|dropped|falls?|fell|rises?|rose|changed?|set|increased?|"
           r"decreased?|raised?|lowered?|bumped|moved?|up|down)\s+)?to|为|是|设为|设成|设置为|设置成|设置|设|改成|改为|换成|调到|调成|降到|升到|提高到|"
           r"增加到|减少到|变成|取|定为|写的是|写的|写着|写|给的是|给的|用的是|：)?\s*[\"']?")
# "GA 从 8 改成 16", "rank from 8 to 16", "micro batch 1 -> 2": one slot's value before and after a change
CHANGE_FROM = r"\s*(?:[:=]\s*)?(?:(?:is\s+)?from|从|由)?\s*"
CHANGE_TO = r"\s*(?:to|->|→|=>|改成|改为|换成|调到|调成|变成|升到|降到|加到|增加到|提高到|提到|涨到|减少到|减到|改到|到)\s*"
# "TP4 or TP8", "rank 16 vs rank 128", "tp 用 4 还是 8": two values of one slot offered side by side, each sized and
# compared (spec.alternative; a serving setting asked which is better: parse._changes)
CHOICE_JOIN = r"\s*(?:还是|或者|或是|或|(?<![a-z])(?:or|vs\.?|versus)(?![a-z]))\s*"
CHOICE_ASKED = re.compile(r"(?<![a-z])(?:which|better|best|should|recommend\w*|prefer\w*)(?![a-z])|哪个|哪一个|哪种|好|合适|推荐|选")
VALUE = {
    # "batch 4", not "batch 4k" (a length) or "4.5"; a sign after a space or "=" is read ("batch_size -4": said invalid)
    "int": r"((?:(?<=[\s=:：])-)?\d{1,7})(?![0-9]|\.\d|\s*(?:k|g|b|万|亿)(?![a-z]))",
    "float": r"(\d+(?:\.\d+)?(?:e-?\d+)?)(?![0-9])",
}


# A value the user quotes from a table, a recipe or a default ("the table says GA 8", "recipe uses zero 3", "表里是 GA 8",
# "默认 rank 8"): the reference the question sets its own value against, not a value of the user's job
QUOTED = re.compile(
    r"(?:(?<![a-z])(?:table|recipe|vendor|official|docs?|documentation|modelarts|guide)(?:'s)?\s+(?:says?|said|gives?|lists?|recommends?|"
    r"suggests?|shows?|has|uses)\s*(?:a|an|the)?\s*[:=]?\s*|(?<![a-z])(?:the\s+)?(?:default|recommended)(?:\s+(?:is|value))?\s*[:=]?\s*|"
    # "表里说 GA 8", "表格给的是", "表里 GA 是 8" (the table's place), "默认 rank 8"; "用配方表的 zero3" adopts the table's value: the user's
    r"(?:表|表格|配方|厂商|官方|文档)(?:\s*(?:里|中|上))?\s*(?:说|写的?是?|给的?是?|是|推荐|建议|值为?)\s*[:：]?\s*|"
    r"(?:表|表格|配方|文档)\s*(?:里|中|上)\s*|(?:默认|推荐|建议)(?:的|值|是|为)?\s*|"
    # "the table GA 8, mine is 16", "in the recipe: GA 8": the table's place in English
    r"(?<![a-z])(?:in\s+)?the\s+(?:table|recipe)(?:'s)?\s*[:：,]?\s*)$")

# The user's own value written with no key right after a quoted one ("表里 GA 是 8，我设了 16", "the recipe has GA 8,
# mine is 24", "配方里写 8，我这边用 2"): the number is the same setting's, the user's (a count or a length has its unit)
OWN_BARE = re.compile(
    r"[^0-9。.?？!！]{0,12}?(?:我(?:这边|这里|自己|们)?(?:的|实际)?\s*(?:改成了?|改为|改到|换成了?|设了?|设成了?|设置了?|设为|设置成|调成了?|调到|"
    r"用了?|用的是?|跑的是?|是|写了?|开了?)|(?<![a-z])(?:mine(?:'s|\s+is)?|my\s+(?:value|setting|run)(?:'s|\s+is|\s+uses)?|"
    r"i(?:'m|\s+am|\s+have|'ve)?\s+(?:use[ds]?|using|set|run|running|changed\s+it\s+to|went\s+with|put|picked|chose)(?:\s+it)?(?:\s+(?:to|at))?))"
    r"\s*(?:[:=]\s*)?(\d{1,5})(?![0-9.]|\s*(?:k|g|b|m|卡|张|块|台|个|节点|nodes?|cards?|gpus?|npus?|tokens?|%|万|亿|倍|x)(?![a-z]))", re.I)


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
    words: tuple[tuple[re.Pattern, int | float, dict[str, int | float]], ...] = ()  # a value said in words ("no ZeRO at
    # all": stage 0), with the other slots the same words set ("pure data parallel": TP 1, and PP 1 too)
    spellings: tuple[str, ...] = ()  # the words of its keys: one slip from one of them is read as it, and said so
    elsewhere: re.Pattern | None = None  # where its words mean something else ("rank 0 saving checkpoint": a process)
    units: tuple[tuple[re.Pattern, float], ...] = ()  # the unit words beside a value and what each multiplies it by ("3 days": 72 h)
    change: re.Pattern | None = None  # the slot changed from one value to another ("GA 从 8 改成 16", "rank from 8 to 16")
    trainers: tuple[tuple[str, re.Pattern], ...] = ()  # (framework, its own spelling of the key): the trainer the key names
    alternative: re.Pattern | None = None  # right after a value: another value offered instead ("TP4 or TP8", "rank 16 vs 128")


    def valid(self, value: float) -> bool:
        low = self.min is None or (value > self.min if self.min_exclusive else value >= self.min)
        return low and (self.max is None or value <= self.max)

    def value(self, raw: str, words: str = "") -> int | float:
        """The value as the slot counts it: ``raw`` in the unit the ``words`` it was read from name (slots.toml ``units``;
        none named: the slot's own unit)."""
        factor = next((f for rx, f in self.units if rx.search(words)), 1.0)
        raw = raw.replace(",", "")  # "1,200 tokens": the thousands written with commas
        if (cn := cn_number(raw)) is not None and not raw.isdigit():  # "两个 epoch": a count in Chinese numerals
            raw = str(cn)
        return int(raw) if self.type == "int" else float(raw) * factor


@dataclass(frozen=True)
class Found:
    """A slot's value where it is written: the words it was read from (start..end of the question) and the value as
    written (a pattern's first non-empty group)."""

    start: int
    end: int
    raw: str


def found(m: re.Match) -> Found:
    return Found(m.start(), m.end(), next(g for g in m.groups() if g))


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
                            tuple(row.get("methods", ())), tuple(row.get("args", ())), row.get("default"),
                            tuple((re.compile("|".join(w.get("en", []) + w.get("zh", []))), w["value"], dict(w.get("also", {})))
                                  for w in row.get("words", [])),
                            tuple(row.get("spellings", ())),
                            re.compile("|".join(row["elsewhere"])) if row.get("elsewhere") else None,
                            tuple((re.compile(rx), float(f)) for rx, f in row.get("units", [])),
                            re.compile(f"(?:{'|'.join(keys)}){CHANGE_FROM}{VALUE[row['type']]}{CHANGE_TO}{VALUE[row['type']]}") if keys else None,
                            tuple((fw, re.compile(rx)) for fw, rx in row.get("trainers", {}).items()),
                            re.compile(f"{CHOICE_JOIN}(?:(?:{'|'.join(keys)}){CONNECT})?{VALUE[row['type']]}") if keys else None))
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
        if slot.elsewhere is not None:  # its words meaning something else are no value of it (nor of any slot)
            for other in list(r.finditer(slot.elsewhere)):
                r.claim_match(other, NOT_A_SETTING, None, "vocabulary")
        m = r.search(slot.pattern)
        quoted_end = -1
        while m and QUOTED.search(r.text[max(0, m.start() - 40):m.start()]):
            # "the table says GA 8 but I run GA 32": the table's value is quoted, the user's is the next one written
            r.claim_match(m, NOT_A_SETTING, None, "vocabulary")
            if (raw := found(m).raw) and slot.valid(quoted := slot.value(raw)) and hasattr(frame, "quoted"):
                frame.quoted.setdefault(slot.name, quoted)
                quoted_end = m.end()
            m = r.search(slot.pattern)
        if quoted_end >= 0 and (own := own_bare(r, slot, quoted_end)) is not None and (m is None or m.start() > own.start()):
            r.claim(own.start(1), own.end(1), slot.name, value := slot.value(own.group(1)))
            put(frame, slot.name, value)
            continue
        m = proposed_match(r, slot, frame) if m else None
        at = found(m) if m else None
        if not at and (said := said_in_words(r, slot)):  # "no ZeRO at all", "不用 ZeRO": the value the words mean
            r.claim_match(said[0], slot.name, said[1], "vocabulary")
            put(frame, slot.name, said[1])
            for name, also in said[2].items():  # "pure data parallel" is TP 1 and PP 1: the other slots they set
                if value_of(frame, name) is None:
                    put(frame, name, also)
            continue
        if not at and (slip := misspelt_key(r, slot)):  # "per_devcie 2", "micro_bacth 4": the key one slip away
            at, typed = slip
            frame.keys_read_as.append((typed, slot.name))
        if not at:
            continue
        value = slot.value(at.raw, r.text[at.start:at.end])
        if slot.valid(value) and (offered := alternative(r, slot, frame, at.end, value)):
            r.claim(at.start, offered[0], slot.name, value)  # both values are this slot's: compared, neither unused
            put(frame, slot.name, value)
            frame.changes = {slot.name: [value, offered[1]]}
            frame.alternatives = True
        elif slot.valid(value):
            r.claim(at.start, at.end, slot.name, value)
            put(frame, slot.name, value)
        else:  # said but out of range: no count or length either; the reason given, else the ledger names it
            r.claim(at.start, at.end, slot.name, None)
            if slot.invalid:
                typed = frame.question[at.start:at.end] if len(frame.question) == len(r.text) else r.text[at.start:at.end]  # as written
                checks.add(frame.problems, slot.invalid[frame.lang].format(text=re.sub(r"[\"']", "", typed).strip()), frame.lang)


def alternative(r: Reading, slot: SlotSpec, frame: Any, end: int, value: float) -> tuple[int, int | float] | None:
    """Another value of ``slot`` offered right after the one read ("TP4 or TP8", "rank 16 vs rank 128", "micro batch 1
    还是 4"): where its words end and the value, when it is valid, differs and the frame compares nothing else yet (a
    ZeRO stage offered as a choice is asked.stages_offered's: it leads with the stage to use)."""
    if slot.alternative is None or slot.type != "int" or slot.name == "zero_stage" or getattr(frame, "changes", None) \
            or slot.name not in type(frame).model_fields:
        return None
    m = slot.alternative.match(r.unread(), end)
    if not m or (other := slot.value(next(g for g in m.groups() if g))) == value or not slot.valid(other):
        return None
    return m.end(), other


def own_bare(r: Reading, slot: SlotSpec, after: int) -> re.Match | None:
    """The user's own value of ``slot`` written with no key right after the quoted one (OWN_BARE), when valid and unread."""
    m = OWN_BARE.match(r.text, after)
    if not m or r.claimed(m.start(1), m.end(1)) or slot.type != "int" or not slot.valid(slot.value(m.group(1))):
        return None
    return m


def proposed_match(r: Reading, slot: SlotSpec, frame: Any) -> re.Match | None:
    """The slot's first value written, or, when the question states it twice and only a later one is proposed ("TP8 PP1
    跑着 OOM 了，换成 TP4 PP4 行吗"), the proposed one; the run's current value is kept in ``frame.current`` (its words
    claimed as CURRENT, read and said)."""
    from . import proposal

    matches = list(r.finditer(slot.pattern))
    if len(matches) >= 2 and corrected(r.text, matches[0].end(), matches[-1].start()):
        # "GA 8 … actually make GA 16": the value taken back is claimed (no value of the job), the later one read
        first, last = matches[0], matches[-1]
        r.claim_match(first, RESTATED_SLOT, None, "vocabulary")
        typed = frame.question if len(frame.question) == len(r.text) else r.text
        restate(frame, typed[first.start():first.end()], typed[last.start():last.end()])
        return last
    if len(matches) < 2 or slot.name not in proposal.SPEC.slots:
        return matches[0] if matches else None
    parts = proposal.clauses(r.text)
    first = matches[0]
    if proposal.proposing(r.text, first.start(), parts):
        return first
    later = next((m for m in matches[1:] if proposal.proposing(r.text, m.start(), parts)), None)
    if later is None:
        return first
    at = found(first)
    value = slot.value(at.raw, r.text[at.start:at.end])
    if slot.valid(value):
        frame.current[slot.name] = value
        r.claim(at.start, at.end, CURRENT, value)
    return later


# "GA 8 … actually make GA 16", "16 张卡……不对，是 32 张卡", "rank 8, sorry, I mean 16": words that take back a value
# written before them; the value written after is the one meant (spec.proposed_match, parse._counts)
CORRECTION = re.compile(r"(?<![a-z])(?:actually|correction|i\s+mean|i\s+meant|sorry|scratch\s+that|my\s+bad|typo|oops|wait,?\s+no|"
                        r"no\s+wait|(?:make|change)\s+(?:it|that)(?:\s+to)?|not\s+\d+\s*,?\s*but)(?![a-z])|"
                        r"不对|说错了?|写错了?|打错了?|更正|纠正|其实是|应该是|准确地?说|不是\s*\d+\s*[,，]?\s*(?:而)?是")
RESTATED = {
    "en": "You wrote “{a}” and then “{b}”: the later value is the one used below.",
    "zh": "你先写了“{a}”，后面又写了“{b}”：下面按后写的值计算。",
}


def corrected(text: str, first_end: int, later_start: int) -> bool:
    """Words between two values of one setting that take the first back ("… actually make GA 16", "不对，是 32 张卡")."""
    return bool(CORRECTION.search(text[first_end:later_start]))


def restate(frame: Any, a: str, b: str) -> None:
    """Say before the answer that the later of two values written for one setting is used (a note, not a refusal)."""
    note = RESTATED[frame.lang].format(a=a.strip(), b=b.strip())
    if note not in frame.values_restated:
        frame.values_restated.append(note)


def trainer_of_keys(r: Reading) -> str | None:
    """The one trainer whose own argument names the question's settings are written in ("per_device_train_batch_size=2
    GA=4" is LLaMA-Factory's YAML), else None (none, or two trainers' names mixed)."""
    named = {fw for span in r.spans if (slot := BY_NAME.get(span.slot)) for fw, rx in slot.trainers
             if rx.search(r.text[span.start:span.end])}
    return named.pop() if len(named) == 1 else None


def said_in_words(r: Reading, slot: SlotSpec) -> tuple[re.Match, int | float, dict[str, int | float]] | None:
    """The first of the slot's value words found ("plain DDP" is ZeRO stage 0), with the value it means and the other
    slots' values the same words state."""
    for rx, value, also in slot.words:
        if m := r.search(rx):
            return m, value, also
    return None


KEY_WORD = re.compile(r"[a-z]{4,}")  # a key's word long enough that one slip still says which word it is


def misspelt_key(r: Reading, slot: SlotSpec) -> tuple[Found, str] | None:
    """The slot's pattern matched on the question with each word one slip from one of the slot's key words (a letter
    left out, added, or two neighbours swapped: misspelt_method's rule) read as that word: the match, spanning the
    words as typed, and the misspelt words; else None (also when no misspelt word is among the words read)."""
    if not slot.spellings:
        return None
    text = r.unread()
    fixed: list[str] = []
    where: list[int] = []  # for each character of the corrected text, its offset in the question
    slips: list[tuple[int, int, str]] = []
    at = 0
    for w in KEY_WORD.finditer(text):
        near = None if w.group(0) in slot.spellings else next((k for k in slot.spellings if slip_of(w.group(0), k)), None)
        if near is None:
            continue
        fixed.append(text[at:w.start()] + near)
        where.extend([*range(at, w.start()), *[w.start()] * len(near)])
        slips.append((w.start(), w.end(), w.group(0)))
        at = w.end()
    if not slips:
        return None
    fixed.append(text[at:])
    where.extend(range(at, len(text) + 1))
    m = slot.pattern.search("".join(fixed))
    if not m:
        return None
    start, end = where[m.start()], where[m.end() - 1] + 1
    typed = [word for a, b, word in slips if start <= a < end]
    if not typed:
        return None  # the value was read from words spelt right: the slip elsewhere is not this slot's
    end = max([end, *(b for a, b, _ in slips if start <= a < end)])
    return Found(start, end, next(g for g in m.groups() if g)), " ".join(typed)


def slip_of(word: str, key: str) -> bool:
    """True when ``word`` is ``key`` with one letter left out or added, or two neighbours swapped."""
    return OSA.distance(word, key) == 1 and (len(word) != len(key) or sorted(word) == sorted(key))


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
