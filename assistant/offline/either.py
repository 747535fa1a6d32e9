"""Two values of one slot offered as a choice about the last answer ("was that at 0.9 or 0.95 utilization?", "so the
tested length is 32k, not 128k?", "那是 0.9 还是 0.95 测的"): the question asks which value the answer's source states,
so the reader claims both as one span (no setting to plan with, no comparison of lengths) and the answer leads with
the value the vendor table holds, directly (round 12 c7-12 t3: "so 0.9, not 0.95?" needs a direct answer).

Each kind is one row of ``KINDS``: the slot, how a value is written, what a written value is in the slot's unit, and
the words that say the question is about that slot."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .serving_words import UTIL_WORD
from .spans import Reading


@dataclass(frozen=True)
class Kind:
    slot: str
    value: str  # one value as written (a regex with one group per form)
    read: Callable[[re.Match], float | None]  # the value in the slot's unit, None when it is no value of this slot
    about: re.Pattern  # words that say the question is about this slot (or the values' own form says it)


def _util(m: re.Match) -> float | None:
    raw = m.group(0).replace(" ", "")
    value = float(raw.rstrip("%")) / (100 if raw.endswith("%") else 1)
    return value if 0 < value <= 1 else None


def _length(m: re.Match) -> float | None:
    raw = m.group(0).replace(" ", "").lower()
    value = float(raw[:-1]) * 1024 if raw.endswith("k") else float(raw)
    return value if value >= 512 else None


KINDS = (
    Kind("gpu_util", r"(?<![0-9.])(?:0?\.\d{1,3}|1\.0+|\d{2,3}\s*%)(?![0-9])", _util,
         re.compile(rf"{UTIL_WORD}|utili[sz]ation|(?<![a-z])util(?![a-z])|利用率")),
    Kind("seq_len", r"(?<![0-9.a-z])(?:\d+(?:\.\d+)?\s*k|\d{3,7})(?![0-9a-z])", _length,
         # a length asked of a vLLM table's row ("so the tested length is 32k, not 128k?"); "so 8k, not 4k?" in a training
         # thread changes the job's length instead
         re.compile(r"(?:tested|measured|max[-_ ]?model[-_ ]?len|vllm|serv\w*|实测|测的|推理|部署).{0,40}(?:length|context|len|长度|上下文)|"
                    r"max[-_ ]?model[-_ ]?len")),
)
WHICH = r"\s*(?:or|还是|或者|或)\s*"  # "0.9 or 0.95": which one
NOT = r"\s*[,，]?\s*(?:not|rather\s+than|instead\s+of|而不是|不是)\s*"  # "0.9, not 0.95": this one, is it?
# words that ask about the last answer's figure ("is that…", "so…", "was it measured at…", "那是…测的", "对吗"): without
# them two values joined by "or" are two jobs to size ("4k or 8k, how many cards?")
ABOUT_ANSWER = re.compile(r"(?<![a-z])(?:so|is\s+(?:that|it|this)|was\s+(?:that|it|this)|were\s+(?:they|those)|that'?s|measured|"
                          r"tested|you\s+mean|right)(?![a-z])|那是|这是|是按|测的|实测|对吗|是吗|对吧|是不是")
SHORT = 60  # a turn this short that offers two fractions asks about the utilisation the answer gave ("so 0.9, not 0.95?")


@dataclass(frozen=True)
class Either:
    slot: str
    values: tuple[float, float]
    texts: tuple[str, str]
    confirm: bool  # "X, not Y?": asks whether X holds; "X or Y?": asks which


def read(r: Reading) -> Either | None:
    """The first two values of one kind joined as a choice, claimed as one span ("either")."""
    if not ABOUT_ANSWER.search(r.text):
        return None
    for kind in KINDS:
        for join, confirm in ((NOT, True), (WHICH, False)):
            rx = re.compile(rf"({kind.value}){join}({kind.value})")
            for m in r.finditer(rx):
                a, b = (re.search(kind.value, m.group(i)) for i in (1, 2))
                va, vb = (kind.read(x) if x else None for x in (a, b))
                if va is None or vb is None or va == vb:
                    continue
                if not (kind.about.search(r.text) or kind.slot == "gpu_util" and len(r.text) < SHORT):
                    continue
                r.claim_match(m, "either", (va, vb))
                return Either(kind.slot, (va, vb), (m.group(1).strip(), m.group(2).strip()), confirm)
    return None
