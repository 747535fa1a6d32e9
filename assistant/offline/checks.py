"""Bad input, found before anything is read as a value: a device count or a sequence length that is
zero, negative, fractional or beyond any real job. Each rule is one row of data with one message per
language, saying what was wrong and what is valid; a question with a problem gets only these
sentences (never a silent substitution such as 4096 for "-4096")."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..setup_check import rules
from ..tools.common import MAX_SEQ_LEN  # the tools' own bound: a longer length reaches no tool
from .serving_words import UTIL_WORD
from .vocab import scaled_length

MAX_DEVICES = 100_000  # more accelerators than the largest clusters have
MAX_NODES = MAX_DEVICES // 8  # the same bound in 8-device servers

# A sign written as "-", "−" or 负 ("负4096", "负八张卡" once the numerals are digits).
# (digits after a thousands comma are part of their number: "2,000 tokens each" holds no "000 tokens")
NUMBER = r"(?P<sign>(?<![a-z0-9_.])(?:[-−]|负)\s?)?(?<![a-z0-9_.])(?!(?<=\d,)\d{3}(?![\d.]))(?P<num>\d+(?:\.\d+)?(?:e\d+)?)"
# (a word glued to "_" is a variable's name: "NNODES=0 NPUS_PER_NODE=8" has no "0 NPUs")
# (a part's name may stand between the number and the device word: "2.5 Snt9B cards", "1.5 张 910B 卡", "3 A100 GPUs")
_PART_WORD = r"(?:(?=[a-z\-]*\d)(?=[0-9\-]*[a-z])[a-z0-9][a-z0-9\-]*|ascend|nvidia|huawei)"
DEVICE_AFTER = re.compile(rf"\s*(?:x|×)?\s*(?:个\s*)?(?:张\s*)?(?:{_PART_WORD}\s*){{0,2}}(?:cards?|npus?|gpus?|devices?|dies?|accelerators?|张|块|卡(?!数))(?![a-z_])")
NODES_AFTER = re.compile(rf"\s*(?:x|×)?\s*(?:个\s*)?(?:{_PART_WORD}\s*)?(?:nodes?|servers?|machines?|hosts?|节点|台)(?![a-z_])")
LENGTH_AFTER = re.compile(r"\s*(?:[-\s]?tokens?(?:\s+(?:sequence|context|length))|个?\s*token(?:s)?\s*(?:的)?\s*(?:序列|长度|上下文))")
TOKENS_AFTER = re.compile(r"\s*(?:个\s*)?tokens?(?![a-z/])")  # "-4096 tokens"; "1e9 tokens" is a training amount
# how a value is given to the word before it: "cutoff_len 设 0", "max_length 设成 -1024", "device count set to -2"
_SET_TO = r"\s*(?:=|:|is|of|为|是|：|(?:is\s+)?set\s+to|设置?(?:成|为|到)?|改(?:成|为)|to)?\s*$"
LENGTH_BEFORE = re.compile(r"(?:seq(?:uence)?[-_ ]?len(?:gth)?|cutoff[-_ ]?len(?:gth)?|max[-_ ]?(?:model[-_ ]?)?len(?:gth)?|context(?:\s+length)?|"
                           r"长度|序列|上下文|length)" + _SET_TO)
# a device count named before its value ("device count set to -2", "卡数设为 0", "number of NPUs: -4")
DEVICES_BEFORE = re.compile(r"(?:(?:device|card|gpu|npu)s?[-_ ]?(?:count|number)|number\s+of\s+(?:devices|cards|gpus|npus)|卡数|卡的数量)" + _SET_TO)


MAGNITUDE_AFTER = re.compile(r"\s*(?:百万|万|千|million|m(?![a-z])|k(?![a-z]))")


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
# Memory said for one device beyond any real part: a part newer than the catalog may carry more than its largest, not
# this many times as much (the newest parts announced, 288 GB, are 1.5 times the catalog's largest, 192 GB)
MEMORY_BEYOND = 1.5
MEMORY_RULE = {
    "en": "“{text}” is not the memory of one accelerator: the largest in the hardware catalog is {largest} with {gb:g} GB per "
          "device, and a {default} has {default_gb:g} GB. Give the part (e.g. 910B or A100 80G) or its real memory per device.",
    "zh": "“{text}”不是单张加速卡的显存：硬件目录中显存最大的是 {largest}，每卡 {gb:g} GB；{default} 每卡 {default_gb:g} GB。"
          "请给出具体型号（例如 910B、A100 80G）或每卡的实际显存。",
}
# the rest of the question is answered all the same (when nothing else in it is refused), on the default part
MEMORY_SET_ASIDE = {"en": "The answer below leaves {text} out and uses the {default}'s {default_gb:g} GB.",
                    "zh": "下面的回答不用 {text}，按 {default} 每卡 {default_gb:g} GB 计算。"}
VALID = {
    "en": "Ask again with valid values, e.g. “qwen2.5-7b LoRA, sequence length 4096, I have 8 cards”.",
    "zh": "请用有效的数值重新提问，例如“qwen2.5-7b LoRA 微调，序列长度 4096，我有 8 张卡”。",
}


# A part of a node or device said in words ("one and a half nodes", "half a node", "半台机器", "一台半", "1 个半节点"):
# the "whole" rule of its role, with the words as written (a fraction in digits, "1.5 nodes", is read by NUMBER)
_HALF_EN = r"(?:\d+|one|two|three|four|a)\s+(?:and\s+a\s+)?half(?:\s+an?)?|(?:a\s+)?half\s+(?:an?|one)"
# (each part begins with its own word, so a long run of blanks, as a claimed paste leaves, starts no match)
_HALF_ZH = r"(?:(?:\d+|[一两二三四五六七八九十])\s*)?(?:(?:个|台|张|块)\s*)?半\s*(?:个|台|张|块)?"
FRACTION = re.compile(rf"(?<![a-z])(?:{_HALF_EN})\s+(?:[a-z][a-z0-9.\-]*\s+)?(?P<en>nodes?|servers?|machines?|boxes|box|cards?|npus?|gpus?|devices?)(?![a-z])|"
                      rf"(?<![0-9])(?:{_HALF_ZH})\s*(?P<zh>节点|机器|服务器|卡|台(?!阶))|"
                      r"(?<![0-9])(?:\d+|[一两二三四五六七八九十])\s*(?P<after>台|个节点|张卡|张|块卡)\s*半")
FRACTION_ROLE = {"nodes": ("node", "server", "machine", "box", "节点", "机器", "服务器", "台", "个节点"),
                 "devices": ("card", "npu", "gpu", "device", "卡", "张卡", "张", "块卡")}


def fractions(text: str, lang: str) -> list[str]:
    """The "whole" rule for each part of a device said in words (a part of a node is set aside: ``partial_nodes``)."""
    out = []
    for m in FRACTION.finditer(text):
        unit = m.group("en") or m.group("zh") or m.group("after")
        what = next((k for k, words in FRACTION_ROLE.items() if any(unit.startswith(w) for w in words)), None)
        rule = next((r for r in RULES if r.role == what and r.test == "whole"), None)
        if rule and what != "nodes":
            out.append((rule.zh if lang == "zh" else rule.en).format(text=m.group(0).strip()))
    return out


# A part of a node ("1.5 nodes", "半台机器", "0.5 of a node") is no job a scheduler gives, but the job it was said of can
# still be sized: the count is set aside (no slot takes it), and the answer says so with the part's own node (the
# catalog's devices per node) before the plan, which gives the whole nodes the job needs
NODES_SET_ASIDE = {
    "en": "**“{text}” is not a valid node count: nodes come whole**, and a {part} node has {n} {units} (a job takes whole "
          "nodes, or part of one node given as a {unit} count).",
    "zh": "**“{text}”不是有效的节点数：节点只能按整台算**，{part} 每个节点 {n} {unit_zh}（任务用整数个节点，或在一个节点内"
          "按{count_zh}申请）。",
}
NODES_SIZED = {"en": " The answer below leaves “{text}” out and gives the whole nodes the job needs.",
               "zh": "下面的回答不用“{text}”，给出这个任务需要的整数节点数。"}
# "0.5 of a node", "half of an 8-card server": a share of one node
SHARE_OF_NODE = re.compile(r"(?<![\d.])(0?\.\d+|\d+/\d+)\s+of\s+(?:an?|one|the|my)\s+(?:[\w.\-]+\s+){0,2}(?:nodes?|servers?|machines?)(?![a-z])")


def partial_nodes(text: str) -> list[str]:
    """The node counts in the (lower-cased) question that are a part of a node, as written ("1.5", "半台", "0.5 of a
    snt9b node"): set aside, never refused (the job they were said of is still sized)."""
    out = [(m.group("sign") or "") + m.group("num") for m in re.finditer(NUMBER, text)
           if role(text, m) == "nodes" and not m.group("sign") and 0 < float(m.group("num")) != int(float(m.group("num")))]
    out += [m.group(0).strip() for m in SHARE_OF_NODE.finditer(text)]
    for m in FRACTION.finditer(text):
        unit = m.group("en") or m.group("zh") or m.group("after")
        if any(unit.startswith(w) for w in FRACTION_ROLE["nodes"]):
            out.append(m.group(0).strip())
    return out


def nodes_set_aside(text: str, part: dict | None, lang: str, sized: bool = True) -> str:
    """The sentence setting a part of a node aside, with the part's node from the catalog row ``part`` (and, when a job
    is ``sized`` below, that its plan gives the whole nodes)."""
    part = part or {}
    n = int(part.get("devices_per_node") or 8)
    die = part.get("unit") == "die"
    name = part.get("short_name") or re.sub(r"\s*\(.*\)$", "", str(part.get("name") or "")).removeprefix("ModelArts ")
    return NODES_SET_ASIDE[lang].format(text=text, part=name or "an accelerator", n=n, unit="DIE" if die else "card",
                                        units="DIE" if die else "cards",
                                        unit_zh="个 DIE" if die else "张卡", count_zh="DIE 数" if die else "卡数") + (
        NODES_SIZED[lang].format(text=text) if sized else "")


# an index before a number (a process rank, a device id): the number names one of them, it counts none
INDEX_BEFORE = re.compile(r"(?<![a-z])(?:rank|device[_ ]?id|npu[_ ]?id|local[_ ]rank)\s*[_#:=]?\s*$")


def role(text: str, m: re.Match) -> str | None:
    """What a number stands for, from the words beside it: a device count or a sequence length."""
    after = text[m.end():]
    if INDEX_BEFORE.search(text[max(0, m.start() - 12): m.start()]):
        return None  # "the rank 0 machine", "rank0 那台": which node or process, not how many
    if DEVICE_AFTER.match(after) or DEVICES_BEFORE.search(text[max(0, m.start() - 24): m.start()]):
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
        if what is None or what == "seq_len" and MAGNITUDE_AFTER.match(text, m.end()):
            continue  # "上下文 12.8 万", "12.5k": a length with its magnitude word (checked as scaled below)
        value = float(m.group("num")) * (-1 if m.group("sign") else 1)
        limit = {"devices": MAX_DEVICES, "nodes": MAX_NODES}.get(what, MAX_SEQ_LEN)
        # (a part of a node has no rule here: it is set aside, the rest answered; partial_nodes)
        rule = next((r for r in RULES if r.role == what and failed(value, r.test, limit)), None)
        if rule:
            shown = ("-" if m.group("sign") else "") + m.group("num")
            out.append((rule.zh if lang == "zh" else rule.en).format(text=shown))
    if (scaled := scaled_length(text)) and scaled[0] > MAX_SEQ_LEN:  # "400 万 token 长度": the length as written
        out.append(too_long(scaled[1].group(0).strip(), lang))
    out += fractions(text, lang)
    for m in UTIL_GIVEN.finditer(text):
        value = float(m.group("num")) / (100 if m.group("pct") else 1)
        if not 0 < value <= 1:
            out.append(UTIL_RULE[lang].format(text=m.group("num") + (m.group("pct") or "")))
    return out + [VALID[lang]] if out else out


def too_long(text: str, lang: str) -> str:
    """The sentence refusing a sequence length above the tools' bound."""
    rule = next(r for r in RULES if r.role == "seq_len" and r.test == "max")
    return (rule.zh if lang == "zh" else rule.en).format(text=text)


def add(found: list[str], sentence: str, lang: str) -> None:
    """One more bad-input sentence (it says what is valid itself), kept before a closing "ask again with valid values"."""
    if sentence in found:
        return
    if found and found[-1] == VALID[lang]:
        found.insert(len(found) - 1, sentence)
    else:
        found.append(sentence)


def stated(fields: dict, task: str, lang: str, skip: frozenset[str] = frozenset()) -> tuple[list[str], list[str]]:
    """The setup rules (setup_check/rules.py) on the values a question states in words, the same rules a paste meets:
    (what the framework refuses: said instead of an answer, nothing sized on it; the vendor's limits and recipe
    differences: said before the answer). Each sentence names the user's numbers and the rule's source."""
    from .setup_answer import (
        finding_text,  # the writer's sentence for a finding; setup_answer reads parsed frames
    )

    refused: list[str] = []
    notes: list[str] = []
    for f in rules.check(fields, task):
        if f.code in skip:
            continue
        (refused if rules.refuses(f.code) else notes).append(finding_text(f.model_dump(), lang))
    return refused[:1], notes  # one refusal: the first broken layout rule, as the reader checks them in order


# a question about the rule itself ("头数能整除吗", "does that split the heads evenly?", "is that a legal combo?")
RULE_ASKED = re.compile(r"整除|除尽|除得尽|均分|合法|允许|(?<![a-z])(?:divi[ds]\w*|split\w*|evenly|valid|legal|allowed)(?![a-z])", re.I)
HOLDS = {
    "en": {"vllm_tp_heads": "TP {tp} divides the {heads} attention heads ({heads} / {tp} = {q})",
           "tp_kv_heads": "TP {tp} divides the {kv} KV heads ({kv} / {tp} = {kq})",
           "parallel_exceeds_devices": "TP × PP × CP = {mp} divides your {devices} devices (DP {dp})",
           "megatron_layers_pp": "PP {pp} divides the {layers} layers ({lq} per stage)",
           "gbs_not_divisible": "GBS {gbs} is a multiple of MBS {mbs} × DP {dp} (GA {ga})"},
    "zh": {"vllm_tp_heads": "TP {tp} 能整除 {heads} 个注意力头（{heads} / {tp} = {q}）",
           "tp_kv_heads": "TP {tp} 能整除 {kv} 个 KV 头（{kv} / {tp} = {kq}）",
           "parallel_exceeds_devices": "TP × PP × CP = {mp} 能整除你的 {devices} 张卡（DP {dp}）",
           "megatron_layers_pp": "PP {pp} 能整除 {layers} 层（每个 stage {lq} 层）",
           "gbs_not_divisible": "GBS {gbs} 是 MBS {mbs} × DP {dp} 的整数倍（GA {ga}）"},
}
# a layout said with no framework or task: checked with the training rules (a PP is a Megatron / MindSpeed-LLM layout)
ASSUMED_TRAINING = {
    "en": "(No framework or task named: checked as MindSpeed-LLM (Megatron) training, where TP × PP must divide the "
          "devices and PP the layers; for vLLM serving say so: there TP × PP only has to fit in the devices.)",
    "zh": "（未说明框架或任务：按 MindSpeed-LLM（Megatron）训练检查，TP × PP 须整除卡数、PP 须整除层数；若是 vLLM 推理请说明："
          "那里 TP × PP 只需不超过卡数。）",
}
HOLDS_LEAD = {"en": "**Yes**: {said}. (Rules: {sources}.)", "zh": "**可以**：{said}。（规则出处：{sources}）"}


def holds(fields: dict, task: str, lang: str) -> str:
    """The rules the stated layout meets, each with the user's numbers worked ("TP 8 divides the 40 attention heads
    (40 / 8 = 5)"), as a yes lead; '' when none of the worded rules applies."""
    tp, pp, cp = int(fields.get("tp") or 1), int(fields.get("pp") or 1), int(fields.get("cp") or 1)
    heads, kv, layers = fields.get("heads"), fields.get("kv_heads"), fields.get("layers")
    devices, gbs, mbs = fields.get("devices"), fields.get("global_batch"), fields.get("micro_batch") or 1
    mp = tp * pp * cp
    ok = {"vllm_tp_heads": bool(heads and fields.get("tp") and heads % tp == 0),
          "tp_kv_heads": bool(kv and fields.get("tp") and kv % tp == 0),
          "parallel_exceeds_devices": bool(devices and devices % mp == 0),
          "megatron_layers_pp": bool(layers and fields.get("pp") and pp > 1 and layers % pp == 0),
          "gbs_not_divisible": bool(devices and gbs and devices % mp == 0 and gbs % (mbs * (devices // mp)) == 0)}
    dp = devices // mp if devices and devices % mp == 0 else 0
    values = {"tp": tp, "pp": pp, "heads": heads, "kv": kv, "layers": layers, "devices": devices, "mp": mp, "dp": dp,
              "gbs": gbs, "mbs": mbs, "q": heads // tp if heads else 0, "kq": kv // tp if kv else 0,
              "lq": layers // pp if layers else 0, "ga": gbs // (mbs * dp) if gbs and dp else 0}
    codes = [c for c in rules.held(fields, task) if ok.get(c)]
    if not codes:
        return ""
    said = ("；" if lang == "zh" else "; ").join(HOLDS[lang][c].format(**values) for c in codes)
    src = rules.SOURCES_ZH if lang == "zh" else rules.SOURCES
    sources = ("；" if lang == "zh" else "; ").join(dict.fromkeys(src[r.source] for c in codes for r in rules.RULES
                                                                   if r.code == c and (not r.task or r.task == task)))
    return HOLDS_LEAD[lang].format(said=said, sources=sources)


def held_said(fields: dict, code: str, lang: str, reported: bool = True) -> str:
    """The sentence for a stated value a rule compares with a documented default and that meets it (rules.said_held):
    the value, the default and what follows (a problem ``reported``: why this setting is not its cause; else the
    comparison alone), with the rule's source."""
    from .wording import W  # the phrases (finding_* and held_*)

    rule = next(r for r in rules.RULES if r.code == code)
    src = (rules.SOURCES_ZH if lang == "zh" else rules.SOURCES)[rule.source]
    figures = rules.hccl_held(rule.needs[0], fields[rule.needs[0]])
    # the default itself, 0 ("never time out" on Atlas A2/A3, the notes), or above the default
    variant = "_default" if figures["value"] == figures["default"] else "_never" if not figures["value"] else ""
    if not reported:
        text = W["held_aside"][lang].format(relation=W[f"held_relation{variant}"][lang], **figures)
    elif f"held_{code}{variant}" in W:
        text = W[f"held_{code}{variant}"][lang].format(**figures)
    else:
        text = W["held_aside"][lang].format(relation=W[f"held_relation{variant}"][lang], **figures)
    return text + " " + W["finding_source"][lang].format(source=src)


def offered(fields: dict, task: str) -> list[tuple[int, int]]:
    """The layouts (TP, PP) the first refusing layout rule offers instead of the user's: the answer sizes each on their
    devices before offering it (a rule checks divisibility, not memory)."""
    for f in rules.check(fields, task):
        if rules.refuses(f.code):
            fig = f.figures or {}
            return [(int(o[0]), int(o[1])) for o in fig.get("offers") or fig.get("options") or []]
    return []


PART_MEMORY = {
    "en": "“{text}” is not what {name} has: the hardware catalog lists **{per:g} GB per {unit}**{card}; the answer below "
          "uses that.",
    "zh": "“{text}”与 {name} 不符：硬件目录中它是**每{unit_zh} {per:g} GB**{card_zh}；下面按这个显存作答。",
}


def part_memory(gb: float, text: str, part: dict, lang: str) -> str | None:
    """The sentence for a memory said of a named part that is not the part's (a false premise, "Snt9B has 128GB per
    card"), else None. A part counted in DIE has the memory per DIE and per card (2 DIE): either is its own."""
    per = float(part.get("memory_gb") or 0)
    k = int(part.get("dies_per_card") or 1) if part.get("unit") == "die" else 1
    if not per or any(abs(gb - v) <= 0.1 * v for v in {per, per * k}):
        return None
    die = k > 1
    return PART_MEMORY[lang].format(text=text, name=part.get("name"), per=per, unit="DIE" if die else "card",
                                    unit_zh=" DIE" if die else "卡", card=f" ({per * k:g} GB per card of {k} DIE)" if die else "",
                                    card_zh=f"（每卡 {k} 个 DIE，共 {per * k:g} GB）" if die else "")


def device_memory(gb: float, text: str, parts: dict[str, dict], default: str, lang: str, refused: bool = False) -> str | None:
    """The sentence for memory said of one device that no accelerator has (``parts``: the hardware catalog by id), else
    None; unless the question is ``refused`` for another bad value, it says the answer uses the default part instead."""
    largest = max(parts.values(), key=lambda h: float(h.get("memory_gb") or 0))
    if gb <= MEMORY_BEYOND * float(largest.get("memory_gb") or 0):
        return None
    base = parts.get(default) or largest
    values = {"text": text, "largest": largest.get("name"), "gb": float(largest.get("memory_gb") or 0),
              "default": base.get("name"), "default_gb": float(base.get("memory_gb") or 0)}
    return MEMORY_RULE[lang].format(**values) + ("" if refused else " " + MEMORY_SET_ASIDE[lang].format(**values))
