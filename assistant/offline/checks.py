"""Bad input, found before anything is read as a value: a device count or a sequence length that is
zero, negative, fractional or beyond any real job. Each rule is one row of data with one message per
language, saying what was wrong and what is valid; a question with a problem gets only these
sentences (never a silent substitution such as 4096 for "-4096")."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..tools.common import MAX_SEQ_LEN  # the tools' own bound: a longer length reaches no tool
from .serving_words import UTIL_WORD

MAX_DEVICES = 100_000  # more accelerators than the largest clusters have
MAX_NODES = MAX_DEVICES // 8  # the same bound in 8-device servers

# A sign written as "-", "−" or 负 ("负4096", "负八张卡" once the numerals are digits).
NUMBER = r"(?P<sign>(?<![a-z0-9_.])(?:[-−]|负)\s?)?(?<![a-z0-9_.])(?P<num>\d+(?:\.\d+)?(?:e\d+)?)"
# (a word glued to "_" is a variable's name: "NNODES=0 NPUS_PER_NODE=8" has no "0 NPUs")
DEVICE_AFTER = re.compile(r"\s*(?:x|×)?\s*(?:个\s*)?(?:cards?|npus?|gpus?|devices?|dies?|accelerators?|张|块|卡)(?![a-z_])")
NODES_AFTER = re.compile(r"\s*(?:x|×)?\s*(?:个\s*)?(?:nodes?|servers?|machines?|hosts?|节点|台)(?![a-z_])")
LENGTH_AFTER = re.compile(r"\s*(?:[-\s]?tokens?(?:\s+(?:sequence|context|length))|个?\s*token(?:s)?\s*(?:的)?\s*(?:序列|长度|上下文))")
TOKENS_AFTER = re.compile(r"\s*(?:个\s*)?tokens?(?![a-z/])")  # "-4096 tokens"; "1e9 tokens" is a training amount
LENGTH_BEFORE = re.compile(r"(?:seq(?:uence)?[-_ ]?len(?:gth)?|cutoff[-_ ]?len|max[-_ ]?(?:model[-_ ]?)?len|context(?:\s+length)?|"
                           r"长度|序列|上下文|length)\s*(?:=|:|is|of|为|是|：)?\s*$")


@dataclass(frozen=True)
class Rule:
    role: str  # "devices", "nodes" or "seq_len"
    test: str  # "positive", "whole", "max"
    en: str
    zh: str


RULES = [
    Rule("devices", "positive", "“{text}” is not a valid device count: it must be a whole number of at least 1 (e.g. 8 cards).",
         "“{text}”不是有效的卡数：卡数必须是大于 0 的正整数（例如 8 张卡）。"),
    Rule("devices", "whole", "“{text}” is not a valid device count: devices come whole, so give an integer (e.g. 2 or 3 cards).",
         "“{text}”不是有效的卡数：卡数必须是整数，不能是小数（例如 2 张或 3 张）。"),
    Rule("devices", "max", f"“{{text}}” is too large a device count: it exceeds any real cluster (more than {MAX_DEVICES:,}).",
         f"“{{text}}”卡数过大：超过任何实际集群的规模（超过 {MAX_DEVICES:,} 张）。"),
    Rule("nodes", "positive", "“{text}” is not a valid node count: it must be a whole number of at least 1 (e.g. 2 nodes).",
         "“{text}”不是有效的节点数：节点数必须是大于 0 的正整数（例如 2 个节点）。"),
    Rule("nodes", "whole", "“{text}” is not a valid node count: nodes come whole, so give an integer (e.g. 1 or 2 nodes; "
         "for part of a node give the device count, e.g. 4 cards).",
         "“{text}”不是有效的节点数：节点数必须是整数（例如 1 或 2 个节点；只用部分卡时请给卡数，例如 4 张卡）。"),
    Rule("nodes", "max", f"“{{text}}” is too large a node count: it exceeds any real cluster (more than {MAX_NODES:,}).",
         f"“{{text}}”节点数过大：超过任何实际集群的规模（超过 {MAX_NODES:,} 个节点）。"),
    Rule("seq_len", "positive", "“{text}” is not a valid sequence length: it must be a positive whole number of tokens (e.g. 4096).",
         "“{text}”不是有效的序列长度：序列长度必须是大于 0 的正整数（例如 4096）。"),
    Rule("seq_len", "whole", "“{text}” is not a valid sequence length: tokens come whole, so give an integer (e.g. 1000 or 1024).",
         "“{text}”不是有效的序列长度：序列长度必须是整数，不能是小数（例如 1000 或 1024）。"),
    Rule("seq_len", "max", f"“{{text}}” tokens is too long a sequence: it exceeds {MAX_SEQ_LEN:,} tokens, the longest "
         "context of any model in the catalog and the most the estimator takes.",
         f"序列长度“{{text}}”过长：超过 {MAX_SEQ_LEN:,} 个 token，即目录中任何模型的最长上下文，也是估算工具接受的上限。"),
]
# vLLM's --gpu-memory-utilization is the share of device memory it may take: in (0, 1], or a percentage up to 100.
UTIL_GIVEN = re.compile(rf"(?:{UTIL_WORD})\s*(?:of|=|:|is|to|at|为|是|设为|设置为|设成)?\s*(?P<num>-?\d+(?:\.\d+)?)\s*(?P<pct>%)?")
UTIL_RULE = {"en": "“{text}” is not a valid --gpu-memory-utilization: it is the share of each device's memory vLLM may use, "
                   "greater than 0 and at most 1 (e.g. 0.9, or 90%).",
             "zh": "“{text}”不是有效的 --gpu-memory-utilization：它是 vLLM 可使用的每卡显存比例，须大于 0 且不超过 1（例如 0.9 或 90%）。"}
VALID = {
    "en": "Ask again with valid values, e.g. “qwen2.5-7b LoRA, sequence length 4096, I have 8 cards”.",
    "zh": "请用有效的数值重新提问，例如“qwen2.5-7b LoRA 微调，序列长度 4096，我有 8 张卡”。",
}


def role(text: str, m: re.Match) -> str | None:
    """What a number stands for, from the words beside it: a device count or a sequence length."""
    after = text[m.end():]
    if DEVICE_AFTER.match(after):
        return "devices"
    if NODES_AFTER.match(after):
        return "nodes"
    small = float(m.group("num")) < 1e7
    if LENGTH_AFTER.match(after) or (small and TOKENS_AFTER.match(after)) or LENGTH_BEFORE.search(text[max(0, m.start() - 24): m.start()]):
        return "seq_len"
    return None


def failed(value: float, test: str, limit: int) -> bool:
    if test == "positive":
        return value <= 0
    if test == "whole":
        return value != int(value)
    return value > limit


def problems(text: str, lang: str) -> list[str]:
    """One sentence per bad number in the (lower-cased, cleaned) question, and what is valid."""
    out: list[str] = []
    for m in re.finditer(NUMBER, text):
        what = role(text, m)
        if what is None:
            continue
        value = float(m.group("num")) * (-1 if m.group("sign") else 1)
        limit = {"devices": MAX_DEVICES, "nodes": MAX_NODES}.get(what, MAX_SEQ_LEN)
        rule = next((r for r in RULES if r.role == what and failed(value, r.test, limit)), None)
        if rule:
            shown = ("-" if m.group("sign") else "") + m.group("num")
            out.append((rule.zh if lang == "zh" else rule.en).format(text=shown))
    for m in UTIL_GIVEN.finditer(text):
        value = float(m.group("num")) / (100 if m.group("pct") else 1)
        if not 0 < value <= 1:
            out.append(UTIL_RULE[lang].format(text=m.group("num") + (m.group("pct") or "")))
    return out + [VALID[lang]] if out else out


def add(found: list[str], sentence: str, lang: str) -> None:
    """One more bad-input sentence (it says what is valid itself), kept before a closing "ask again with valid values"."""
    if sentence in found:
        return
    if found and found[-1] == VALID[lang]:
        found.insert(len(found) - 1, sentence)
    else:
        found.append(sentence)


LAYOUT = {
    "training": {
        "en": "No: TP {tp} × PP {pp}{cp} = {n} does not divide your {have}. Megatron-style training (MindSpeed-LLM) splits the "
              "devices into TP × PP{cpx} groups and runs data parallel over the groups, so the device count must be a multiple "
              "of {n} ({devices} / {n} is not whole).{fix}",
        "zh": "不能：TP {tp} × PP {pp}{cp} = {n}，不能整除你的 {have}。Megatron 式训练（MindSpeed-LLM）把设备分成 TP × PP{cpx} 的组，"
              "组之间做数据并行，所以设备数必须是 {n} 的整数倍（{devices} / {n} 不是整数）。{fix}"},
    "serving": {
        "en": "No: TP {tp} × PP {pp} = {n} needs {n} devices, more than your {have}.{fix}",
        "zh": "不能：TP {tp} × PP {pp} = {n} 需要 {n} 个设备，超过你的 {have}。{fix}"},
}
LAYOUT_FIX = {"en": " Layouts that fit {devices}: {options}.", "zh": "{devices} 个设备可用的切分：{options}。"}


def layout(tp: int | None, pp: int | None, cp: int | None, devices: int | None, task: str, have: str, lang: str) -> str | None:
    """The user's TP × PP (× CP) against their devices: training needs the devices to be a multiple of the product
    (the rest is data parallel); serving needs at most the devices. None when it fits or nothing is said."""
    if not devices or not (tp or pp):
        return None
    tp, pp, cp = tp or 1, pp or 1, cp or 1
    n = tp * pp * cp
    training = task != "serving"
    if (devices % n == 0) if training else n <= devices:
        return None
    # the nearest layouts that do fit: the user's TP kept (or the largest TP dividing the devices), PP changed
    keep = next(t for t in range(min(tp, devices), 0, -1) if devices % (t * cp) == 0) if devices % cp == 0 else None
    options = [] if keep is None else [(keep, p) for p in range(min(pp, devices // (keep * cp)), 0, -1)
                                       if devices % (keep * p * cp) == 0][:2]
    dp = "({} {})" if lang == "en" else "（{}{}）"
    shown = (", " if lang == "en" else "，").join(
        f"TP {t} × PP {p}{f' × CP {cp}' if cp > 1 else ''}" + (" " if lang == "en" else "") + dp.format("DP" if lang == "en" else "数据并行 ", devices // (t * p * cp))
        for t, p in options)
    fix = LAYOUT_FIX[lang].format(devices=devices, options=shown) if shown else ""
    return LAYOUT["training" if training else "serving"][lang].format(
        tp=tp, pp=pp, cp=f" × CP {cp}" if cp > 1 else "", cpx=" × CP" if cp > 1 else "", n=n, devices=devices, have=have, fix=fix)


ODD_DIE = {
    "en": "No: {n} DIE cannot be used on {part}. One card is {k} DIE and the vendor's parallel settings take {k} DIE as the "
          "smallest unit (ModelArts minimum-card table: one Snt9B23 node = 8 cards = 16 DIE, 2 DIE the minimum unit), so "
          "the count must be a multiple of {k}: {low} or {high} DIE.",
    "zh": "不能：{part} 上不能用 {n} 个 DIE。一张卡是 {k} 个 DIE，设置并行策略时以 {k} 个 DIE 为最小单位（ModelArts 模型最小卡数表："
          "Snt9B23 单机 8 卡 = 16 DIE，2 DIE 为最小单位），所以 DIE 数必须是 {k} 的倍数：{low} 或 {high} 个 DIE。",
}


def whole_cards(dies: int | None, per_card: int, part: str, lang: str) -> str | None:
    """A count given in DIE on a part whose cards hold several: only whole cards can be had."""
    if not dies or per_card <= 1 or dies % per_card == 0:
        return None
    low = dies // per_card * per_card
    return ODD_DIE[lang].format(n=dies, part=part, k=per_card, low=low or per_card, high=low + per_card)


TP_HEADS = {
    "en": "No: TP {tp} does not divide the {heads} attention heads of {model}. vLLM and Megatron give every tensor-parallel "
          "rank the same number of heads, so TP must divide {heads}: TP {options}.",
    "zh": "不能：TP {tp} 不能整除 {model} 的 {heads} 个注意力头。vLLM 和 Megatron 给每个张量并行 rank 分同样多的头，"
          "所以 TP 必须整除 {heads}：TP {options}。",
}


def tp_heads(tp: int | None, heads: int | None, model: str, lang: str) -> str | None:
    """A stated TP against the model's attention heads (catalog): each TP rank holds heads / TP of them."""
    if not tp or not heads or heads % tp == 0:
        return None
    options = [str(t) for t in (1, 2, 4, 8, 16, 32) if heads % t == 0 and t <= max(tp * 2, 8)]
    return TP_HEADS[lang].format(tp=tp, heads=heads, model=model, options=" / ".join(options))


BATCH_SPLIT = {
    "en": "No: the global batch {gbs} is not a multiple of MBS {mbs} × DP {dp} = {n} (DP = {devices} / (TP {tp} × PP {pp}{cp}) "
          "= {dp}). Megatron-style training (MindSpeed-LLM) runs GBS = MBS × GA × DP with a whole GA, so it refuses to "
          "start: use GBS {low} or {high}.",
    "zh": "不能：全局 batch {gbs} 不是 MBS {mbs} × DP {dp} = {n} 的整数倍（DP = {devices} / (TP {tp} × PP {pp}{cp}) = {dp}）。"
          "Megatron 式训练（MindSpeed-LLM）要求 GBS = MBS × GA × DP 且 GA 为整数，所以无法启动：改用 GBS {low} 或 {high}。",
}


def batch_split(gbs: int | None, mbs: int | None, tp: int | None, pp: int | None, cp: int | None, devices: int | None,
                lang: str) -> str | None:
    """A global batch against the data parallel a stated TP × PP (× CP) leaves on the devices: GBS / (MBS × DP) must be whole."""
    if not (gbs and devices and (tp or pp)):
        return None
    tp, pp, cp, mbs = tp or 1, pp or 1, cp or 1, mbs or 1
    if devices % (tp * pp * cp):
        return None  # the layout itself is said first
    dp = devices // (tp * pp * cp)
    n = mbs * dp
    if gbs % n == 0:
        return None
    low = gbs // n * n
    return BATCH_SPLIT[lang].format(gbs=gbs, mbs=mbs, dp=dp, n=n, devices=devices, tp=tp, pp=pp,
                                    cp=f" × CP {cp}" if cp > 1 else "", low=low or n, high=low + n)
