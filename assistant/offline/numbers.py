"""Numbers in a question: model size, ZeRO stage, memory size, node and device counts (digits,
Chinese numerals, English words), sequence length, a custom shape ("80 layers, hidden 8192") and a
bare count in a follow-up ("and with 16?"). The readers of settings and amounts claim what they read
(spans.Reading); the count and length readers see only what no name, setting or amount claimed, so "8B"
or "A100 80G" is never a count."""

from __future__ import annotations

import re

from . import subquestions
from .frame import QuestionFrame as Slots
from .spans import Reading
from .vocab import (
    CHANGED_TO,
    DOUBLES,
    EN_COUNT,
    EN_NUMBERS,
    MAGNITUDE,
    NODE_WORDS,
    SAMPLES_RX,
    TOKEN_WORDS,
    TOKENS_AFTER_RX,
    TOKENS_RX,
    TPS_RX,
    TRAINER_PARTS,
    UNIT_WORDS,
    amount,
    cn_number,
    compared,
    scaled_length,
)

# "a few cards" / "a couple of GPUs" / "a lot of NPUs" are no count.
NOT_A_COUNT = r"(?!(?:few|couple|lot|bunch|number|total|handful|cluster|pair|minimum|maximum|max|min)\b)"
# A count written right before a hardware name: "16 A100 80G", "8x H100", "8张910B", "a single RTX 4090",
# "one 80GB A100", "two H100s". (台 is a machine, not a card: "2台910B" is read as nodes; "my 910B" says no count.)
COUNT_BEFORE_HW = re.compile(rf"(?:(?<![0-9.a-z])(\d{{1,3}})\s*(?:x|×|\*|张|块)?|(?<![a-z])({EN_COUNT}|an?)\s+"
                             r"(?:\d{2,3}\s*g(?:i?b)?\s+)?)\s*$")
NODES_BY_CARDS = re.compile(r"(?<![0-9.a-z])(\d{1,3})\s*[x×*]\s*(\d{1,2})\s*$")  # "4x8 910B": nodes x devices each
COUNT_AFTER_HW = re.compile(rf"\s*s?\s*(?:x|×|\*)\s*(\d{{1,3}})(?![0-9.a-z])(?!\s*{NODE_WORDS})")  # "3090 x2", "A100 * 4"
# A hardware name followed by one of these names a group of devices, not one: "a 910B node", "2 H100 nodes", "an A3
# (Snt9B23) pod" (the part's other name in brackets between them).
GROUP_AFTER_HW = re.compile(rf"\s*(?:[(（][^)）]{{0,30}}[)）]\s*)?(?:{NODE_WORDS}|clusters?|pods?|box(?:es)?|集群)")
MULTIPLIER_BEFORE = re.compile(r"(?<![0-9.])(\d{1,3})\s*[x×*]\s*$")
ONE_NODE_AFTER = re.compile(r"\s*(?:node|server|machine|host|box|节点|服务器|机器)(?![a-z])")
# A device count given per node ("4 nodes x 8 H100", "2 nodes of 8 GPUs each", "每台8卡"), not in total.
PER_NODE = re.compile(r"(?:nodes?|servers?|machines?|hosts?|box(?:es)?)\s*(?:x|×|\*|of)\s*\d+|(?<![0-9.])(?:\d+|[一二两三四五六七八九十]+)\s*(?:台|个节点|节点)\s*(?:x|×|\*)?\s*\d+\s*(?:张|块)?\s*(?:卡|gpus?|npus?|cards?)|"
                      r"\d+\s*(?:张|块|cards?|gpus?|npus?)?\s*(?:x|×|\*)\s*\d+\s*(?:个)?\s*(?:节点|台|nodes?|servers?|machines?)|\d+\s*(?:[a-z]+\s+)?(?:each|per\s+(?:node|server|machine)|/\s*node)(?![a-z])|"
                      r"每\s*(?:台|个节点|节点|机)[^0-9，,。]{0,4}\d+|\d+\s*(?:张|块)?\s*卡?\s*/\s*(?:台|节点|机)|"
                      # "2 台 8x H20", "2 nodes with 8x A800": the multiplier after the node count is the devices per node
                      r"(?<![0-9.])(?:\d+|[一二两三四五六七八九十]+)\s*(?:台|个节点|节点|nodes?|servers?|machines?|hosts?)\s*(?:with\s+|of\s+)?\d+\s*(?:x|×|\*)(?![0-9a-z])|"
                      # "每台1TB内存、8张卡", "每个节点 host RAM 512GB, 8 cards x 64GB", "each node has 1TB RAM and 8 NPUs": a
                      # device count in the list a per-node word opens, up to the sentence's end, is each node's
                      r"(?:每\s*(?:台|个节点|节点|个?机器?|个?服务器)|(?<![a-z])(?:each|every|per)\s+(?:node|server|machine|host|box)(?![a-z]))"
                      r"(?:[^。;；?？.]|\.(?=\d)){0,40}?(?<![0-9.])\d+\s*(?:张|块)?\s*(?:卡|npus?|gpus?|cards?|devices?)(?![a-z])")
SHAPE_FIELDS = [  # (field, regex): "80 layers" / "layers 80" / "80层", "hidden 8192" / "hidden size: 8192" ...
    ("layers", r"(?<![0-9.])(\d{1,3})\s*(?:transformer\s+)?(?:layers?|层)|(?:layers?|num_hidden_layers|层数)\s*[:=]?\s*(\d{1,3})(?![0-9])"),
    ("hidden", r"(?:hidden(?:[_ ]size|[_ ]dim)?|d_model|隐藏层?(?:维度|大小)?)\s*[:=]?\s*(\d{3,6})(?![0-9])|"
               r"(?<![0-9.])(\d{3,6})\s*(?:hidden(?:[_ ]size)?|d_model)"),
    ("kv_heads", r"(?<![0-9.])(\d{1,3})\s*(?:个\s*)?(?:kv|key[-_ ]value)[-_ ]?(?:heads?|头)|"
                 r"(?:kv[-_ ]?(?:heads?|头数?)|num_key_value_heads)\s*[:=]?\s*(\d{1,3})(?![0-9])"),
    ("head_dim", r"(?:head[-_ ]?dim(?:ension)?|每个?头\s*(?:的)?\s*维度|头维度)\s*(?:of\s+|is\s+|=|:|为|是)?\s*(\d{2,4})(?![0-9])|"
                 r"(?<![0-9.])(\d{2,4})\s*(?:-|的)?\s*head[-_ ]?dim"),
    ("heads", r"(?<![0-9.])(\d{1,3})\s*(?:个\s*)?(?:(?:attention\s+)?heads?|(?:注意力)?头)|"
              r"(?<![a-z_-])(?:heads?|num_attention_heads|注意力头数?|头数)\s*[:=]?\s*(\d{1,3})(?![0-9])"),
    ("ffn", r"(?:ffn|intermediate(?:[_ ]size)?|mlp)\s*[:=]?\s*(\d{3,6})(?![0-9])"),
    ("vocab", r"(?:vocab(?:ulary)?(?:[_ ]size)?|词表(?:大小)?)\s*[:=]?\s*(\d{4,7})(?![0-9])"),
]


SIZES = [  # (pattern, billions per unit): a parameter count as people write it
    (re.compile(r"(?<![a-z0-9.\-])(\d+(?:\.\d+)?)\s*(?:trillion|tn?)\s*(?:-\s*)?(?:params?|parameters?|参数)|"
                r"(?<![0-9.])(\d+(?:\.\d+)?)\s*(?:trillion(?![a-z])|万亿)"), 1000.0),
    (re.compile(r"(?<![a-z0-9.\-])(\d+(?:\.\d+)?)\s*(?:b|bn|billion|b\s*params?)(?![a-z0-9])"), 1.0),
    (re.compile(r"(?<![0-9.])(\d+(?:\.\d+)?)\s*(?:十亿|billion)"), 1.0),
    (re.compile(r"(?<![0-9.])(\d+)\s*亿"), 0.1),
]


def raw_size(work: str) -> tuple[float, re.Match] | None:
    """A parameter count in billions and where it is written: "13B", "7 billion", "70亿" (7.0), "130亿参数",
    "1.5 trillion parameters" (1500), "1T params", "1万亿参数" (1000): a size the estimator takes (it says itself when
    nothing fits)."""
    for rx, scale in SIZES:
        if m := rx.search(work):
            return float(next(g for g in m.groups() if g)) * scale, m
    return None


def offload(work: str) -> bool | None:
    """DeepSpeed's CPU offload named ("offload", "卸载"): True, or False when it is ruled out ("zero3 without offload",
    "不开 offload", "offload: none"); the ZeRO stage itself is a slot of slots.toml."""
    # "ofload", "offlaod", "oflaod": one slip in the word is still the switch (OFFLOAD)
    if re.search(rf"(?:without|no|not|w/o|disable[ds]?|不开|不用|不要|关闭|关掉|无|没有|不)\s*(?:cpu\s*)?(?:{OFFLOAD}|卸载)|"
                 rf"{OFFLOAD}(?:_optimizer|_param)?\s*(?:[:=]\s*)?[\"']?(?:none|false|off|disabled?)", work):
        return False
    return True if re.search(rf"{OFFLOAD}|卸载", work) or ON_CPU.search(work) else None


OFFLOAD = r"of{1,2}l(?:oa|ao)d"
# the model states put on the CPU in words ("参数和优化器全放 CPU", "optimizer states on the CPU"): the offload itself
ON_CPU = re.compile(r"(?:(?:全|都)\s*)?(?:放|放到|放在|搬到|挪到|卸到|丢到)\s*(?:cpu|主机内存)|"
                    r"(?:optimi[sz]er|param(?:eter)?s?|states?)\s+(?:\w+\s+){0,3}(?:on|to|into|in)\s+(?:the\s+)?cpu(?![a-z])")


def memory_gb(work: str) -> int | None:
    m = re.search(r"(?<![0-9.])(\d{1,3})\s*g(?:b|ib)?(?![a-z0-9])", work)
    if m and 8 <= int(m.group(1)) <= 256:
        return int(m.group(1))
    return None


def memory_sizes(work: str) -> list[int]:
    """Every distinct memory size written ("32G 的卡要几张？64G 的呢"), in the order written, when there are two or
    more: each is answered (the vLLM tables have a 32 GB and a 64 GB column); else empty."""
    sizes = [int(m.group(1)) for m in re.finditer(r"(?<![0-9.])(\d{1,3})\s*g(?:b|ib)?(?![a-z0-9])", work)
             if 8 <= int(m.group(1)) <= 256]
    found = list(dict.fromkeys(sizes))
    return found if len(found) > 1 else []


def memory_names_a_device(work: str) -> bool:
    """True when a memory size describes the device: "a 24GB GPU", "24G显卡", "GPU with 48 GB"."""
    return bool(re.search(r"(?<![0-9.])\d{2,3}\s*g(?:i?b)?\s*(?:的\s*)?(?:vram\s*|显存\s*|memory\s*)?(?:cards?|gpus?|npus?|devices?|"
                          r"accelerators?|显卡|卡)(?![a-z])|(?:cards?|gpus?|npus?|显卡|卡|accelerators?|chips?|芯片)\s*(?:with|of|has|有)?\s*\d{2,3}\s*g(?:i?b)?(?![a-z0-9])"
                          r"|(?<![0-9.])\d{2,3}\s*g(?:i?b)?\s*(?:per|each|a|/)\s*(?:chip|card|gpu|npu|device|accelerator)(?![a-z])",
                          work))


def count_word(word: str) -> int | None:
    """A count as written: digits or an English count word ("two", "a pair of")."""
    word = re.sub(r"\s+", " ", word.strip())
    return int(word) if word.isdigit() else EN_NUMBERS.get(word)


def nodes(work: str) -> int | None:
    # a process rank's node ("the rank 0 machine", "rank0 那台") counts no nodes
    m = re.search(rf"(?<![0-9.])(?<!rank)(?<!rank )(?<!rank_)(\d+|[一二两三四五六七八九十]+)\s*{NODE_WORDS}", work)
    if m and not re.search(r"几|多少", m.group(0)):
        return cn_number(m.group(1))
    m = re.search(rf"(?<![a-z])({EN_COUNT})\s+(?:[\w.\-]+\s+)?(?:nodes?|servers?|machines?|hosts?)(?![a-z])", work)
    if m:
        return EN_NUMBERS[re.sub(r"\s+", " ", m.group(1))]
    # "单机", "单节点", "on a node", "on a single 8-card snt9b node"
    if re.search(r"单机|单个?节点|单台(?:机器|服务器)?(?![0-9一二两三四五六七八九十])|(?:on|with|using|have|got)\s+(?:an?|one)\s+(?:single\s+)?(?:[\w.\-]+\s+){0,2}(?:node|server|machine)(?![a-z])",
                 work):
        return 1
    return None


# the smallest parallel unit said right after a count ("2 DIE 不是 Snt9B23 并行最小单位吗", "2 DIE is the smallest unit")
UNIT_RULE_AFTER = re.compile(r".{0,24}?(?:最小\s*(?:的\s*)?(?:并行\s*)?单位|(?:smallest|minimum|min)\s+(?:parallel(?:ism)?\s+)?unit)")


def devices(work: str) -> int | None:
    # "8 cards", "8x NPU", "an 8-card node"; "4096 卡数是多少" is no count
    for said in re.finditer(rf"(?<![0-9.a-z])(\d+)\s*(?:x|×|\*|-)?\s*{UNIT_WORDS}(?![a-z数])", work):
        if not UNIT_RULE_AFTER.match(work, said.end()):  # "2 DIE 不是最小单位吗": the vendor's rule quoted, no count of devices
            return int(said.group(1))
    # "64GB 卡 x16", "npus ×8", "cards * 4": a multiplier after the device word counts them ("3090 x2" after a part name
    # is count_before_hardware's)
    if m := re.search(rf"(?<![a-z]){UNIT_WORDS}(?<![张块个])\s*(?:x|×|\*)\s*(\d{{1,4}})(?![0-9.a-z])(?!\s*{NODE_WORDS})", work):
        return int(m.group(1))
    # "16 of our Snt9B cards", "8 of the H100s": the devices counted out of the user's
    m = re.search(rf"(?<![0-9.a-z])(\d{{1,5}}|{EN_COUNT})\s+of\s+(?:our|my|the|these|those|its|their)\s+(?:[\w.-]+\s+)?{UNIT_WORDS}(?![a-z数])", work)
    if m:
        return count_word(m.group(1))
    # "only two of them are free", "3 of those are available": a part of the devices said before, free for this job
    m = re.search(rf"(?<![0-9.a-z])(\d{{1,5}}|{EN_COUNT})\s+of\s+(?:them|those|these)\s+(?:are\s+|is\s+)?(?:still\s+)?"
                  r"(?:free|available|idle|left|usable|unused)(?![a-z])", work)
    if m:
        return count_word(m.group(1))
    # "4x 80GB GPUs", "2 × 48G 显卡": a multiplier before the devices' memory counts the devices
    m = re.search(rf"(?<![0-9.a-z])(\d{{1,4}})\s*(?:x|×|\*)\s*\d{{2,3}}\s*g(?:i?b)?\s*(?:vram\s*|hbm\s*|显存\s*)?(?:的\s*)?{UNIT_WORDS}(?![a-z数])", work)
    if m:
        return int(m.group(1))
    m = re.search(rf"([一二两三四五六七八九十单双]+)\s*{UNIT_WORDS}(?!数)", work)
    if m and (n := cn_number(m.group(1))):
        return n
    # "two 64GB Ascend NPUs", "a pair of 32G cards": the devices' memory may stand between the count and the part word
    m = re.search(rf"(?<![a-z])({EN_COUNT}|an?)\s+{NOT_A_COUNT}(?:\d{{2,3}}\s*g(?:i?b)?\s+)?(?:[\w.]+\s+)?"
                  r"(?:cards?|npus?|gpus?|devices?|dies?)(?![a-z])", work)
    if m and not re.search(r"(?:per|each|in|of)\s+an?$", work[: m.end(1)]):  # "cards per a node" is no count
        return EN_NUMBERS[re.sub(r"\s+", " ", m.group(1))]
    m = re.search(r"(?<![0-9])(\d+)\s*(?:机|nodes?\s*x?)\s*(\d+)\s*卡", work)  # "2机16卡" = 16 in total
    return int(m.group(2)) if m else None


TYPICAL_LENGTHS = {1024 * 2 ** i for i in range(9)}  # 1K .. 256K: lengths people write; as a device count implausible here
POSSESSION = re.compile(r"(?:have|with|using|use|own|got|on|my|our|我有|我们有|有|用|共|总共)\s*(?:only\s*|just\s*|只有?\s*)?$")


def length_beside_devices(work: str) -> tuple[int, re.Match] | None:
    """"llama3.1-8b full 16384 npus": a typical length written next to a device word, with nothing
    saying the user has that many, is a sequence length (the caller says so in the answer)."""
    m = re.search(rf"(?<![0-9.a-z])(\d+)\s*{UNIT_WORDS}(?![a-z数])", work)
    if not m or int(m.group(1)) not in TYPICAL_LENGTHS or POSSESSION.search(work[: m.start()].rstrip()):
        return None
    return int(m.group(1)), m


def count_before_hardware(before: str, after: str, article_counts: bool = True) -> int | None:
    """The count written right before a hardware mention ("8张910B"), or as a multiplier right after it ("3090 x2"),
    unless the mention names a node or cluster. Not ``article_counts``: "a"/"an" names the part, not one device (a
    part counted in DIE: "on an A3" is the kind of server, and the article says no number of DIE)."""
    if GROUP_AFTER_HW.match(after):
        # "an 8x MI300X box", "one 8×H100 node": a multiplier before the part names one node's devices (round 14 c5-06);
        # "4 H100 nodes" counts nodes, not devices
        many = MULTIPLIER_BEFORE.search(before)
        return int(many.group(1)) or None if many and ONE_NODE_AFTER.match(after) else None
    if grid := NODES_BY_CARDS.search(before):  # "4x8 910B": 4 nodes of 8, 32 devices
        return int(grid.group(1)) * int(grid.group(2)) or None
    m = COUNT_BEFORE_HW.search(before)
    if not m:
        times = COUNT_AFTER_HW.match(after)
        return int(times.group(1)) or None if times else None
    if m.group(1):
        return int(m.group(1)) or None
    word = re.sub(r"\s+", " ", m.group(2))
    return None if word in ("a", "an") and not article_counts else EN_NUMBERS[word]


# the lengths people write in k (1k … 256k): "8k sequences" with no other length said is their length
POW2_K = {str(2 ** i) for i in range(9)}
LENGTH_WORD = re.compile(r"seq(?:uence)?[-_ ]?len|(?<![a-z])seq(?![a-z])|cutoff|max[-_ ]?(?:model[-_ ]?)?len|context|ctx|长度|上下文|(?<![a-z])length", re.I)


def seq_len(work: str) -> int | None:
    if scaled := scaled_length(work):  # "400 万 token 长度", "序列长度 100 万", "3 million token samples", "2M-token sequences"
        return scaled[0]
    m = re.search(r"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s*k(?![a-z0-9])", work)
    if m:
        return int(float(m.group(1)) * 1024)
    keyword = r"(?:seq(?:uence)?[-_ ]?len(?:gth)?|seq|cutoff(?:[-_ ]?len)?|max[-_ ]?(?:model[-_ ]?)?len|context(?:\s+length)?|ctx|长度|序列|上下文|length)"
    m = re.search(keyword + r"\D{0,12}?(\d+(?:\.\d+)?)\s*m(?![a-z0-9])", work)  # "seq len 1M": 1,048,576 (2^20) tokens
    if m:
        return int(float(m.group(1)) * 1024 * 1024)
    m = re.search(keyword + r"\D{0,12}?(\d{3,8})(?![0-9])", work)  # 8 digits: an absurd length is read, then refused
    if m:
        return int(m.group(1))
    m = re.search(r"(?<![0-9.])(\d{3,8})\s*(?:tokens?|个token|token)", work)
    if m:
        return int(m.group(1))
    for m in re.finditer(r"(?<![0-9.a-z])(\d{3,7})(?![0-9]|\.\d)(?!\s*(?:x|×)?\s*(?:卡|张|块|步|节点|(?:cards?|npus?|gpus?|dies?|nodes?|gi?b?|steps?|iters?)(?![a-z])))", work):
        n = int(m.group(1))
        if n >= 512 and n % 256 == 0:
            return n
    return None


# A length said as a bound ("prompts longer than 20k", "上下文至少 32k", "8k 以上"): the job needs at least that many
# tokens, so the length sized is the least it can be, and the answer says so
ABOVE_BEFORE = re.compile(r"(?:(?<![a-z])(?:longer\s+than|more\s+than|greater\s+than|over|above|exceed(?:s|ing)?|beyond|at\s+least|"
                          r"upwards\s+of|no\s+less\s+than|not\s+less\s+than)|>|≥|超过|大于|多于|长于|高于|至少|不少于|不低于|起码|最少)"
                          r"\s*(?:了\s*)?$")
ABOVE_AFTER = re.compile(r"^\s*(?:tokens?\s*)?(?:(?:or|and)\s+(?:more|longer|up|above)(?![a-z])|\+|以上|往上|或更长|或以上)")


def length_above(work: str, n: int) -> str | None:
    """The words of a bound below the length ``n`` as written ("longer than 20k", "至少 32k", "8k 以上"), else None."""
    for m in LENGTH_MENTION.finditer(work):
        value = int(float(m.group(1)) * 1024) if m.group(1) else int(m.group(2))
        if value != n:
            continue
        before, after = ABOVE_BEFORE.search(work[max(0, m.start() - 24): m.start()]), ABOVE_AFTER.match(work[m.end():])
        if before or after:
            start = m.start() - (len(before.group(0)) if before else 0)
            return work[start: m.end() + (after.end() if after else 0)].strip()
    return None


CORRECTED = re.compile(r"\s*[,，]?\s*(?:not|而不是|不是|instead\s+of|rather\s+than)\s*$")  # "8k, not 4k": one length, not two
# a full stop after a length ends the sentence ("at 4k and at 8k. table pls"); "4.5" is no length here
LENGTH_MENTION = re.compile(r"(?<![0-9.a-z])(?:(\d+(?:\.\d+)?)\s*k|(\d{3,6}))(?![0-9a-z]|\.\d)")
LENGTH_TO = re.compile(r"(?:改|调|加|增加|提高|升|降)?到")  # "从 4096 改到 8192", "4096 到 8192"
# "cutoff 4096→8192: what changes, do the cards change?": the lengths before and after a change are both asked
WHAT_CHANGES = re.compile(r"(?<![a-z])(?:what\s+changes|changes?\s*\?|does\s+\w+(?:\s+\w+){0,5}\s+change|do\s+\w+(?:\s+\w+){0,3}\s+change|"
                          r"differ\w*)(?![a-z])|区别|变化|有什么变|会不会变|变不变|会变|变吗|变了吗|不同|" + DOUBLES.pattern)


def lengths_compared(work: str) -> list[int]:
    """Two or more sequence lengths joined as a comparison ("4096 和 8192", "4k vs 8k", "4096/8192"), in the order
    written (a typical length: a multiple of 256 from 512 up); else empty."""
    found: list[tuple[int, int, int]] = []
    for m in LENGTH_MENTION.finditer(work):
        n = int(float(m.group(1)) * 1024) if m.group(1) else int(m.group(2))
        if n >= 512 and n % 256 == 0 and not re.match(r"\s*(?:x|×)?\s*(?:卡|张|块|个|台|节点|条|cards?|npus?|gpus?|dies?|nodes?|gi?b|tokens?/|batch|steps?|samples?|epochs?|rank|iters?|concurrent|并发)",
                                                      work[m.end():]):
            found.append((m.start(), m.end(), n))
    values = list(dict.fromkeys(n for _, _, n in found))
    if len(values) < 2:
        return []
    if any(CORRECTED.match(work[a[1]:b[0]]) for a, b in zip(found, found[1:], strict=False)):
        return []  # "8k, not 4k": the first length, the other one ruled out (seq_len reads the first)
    if compared(work, [(a, b) for a, b, _ in found]):
        return values
    if len(values) == len(found) and subquestions.apart(work, [a for a, _, _ in found]):
        return values  # "8192 行不行？不行的话改成 4096 呢": each length asked in a sub-question of its own is a job of its own
    joined = all(CHANGED_TO.search(work[a[1]:b[0]]) or LENGTH_TO.search(work[a[1]:b[0]]) for a, b in zip(found, found[1:], strict=False))
    return values if joined and WHAT_CHANGES.search(work) else []


def shape(r: Reading) -> dict[str, int]:
    """A custom transformer shape ("80 layers, hidden 8192, 64 heads, 8 kv heads"), its fields claimed; at least
    two fields, so "freeze 10 layers" alone is no shape (a hidden size alone is: "hidden size 5120" names itself)."""
    found: list[tuple[re.Match, str, int]] = []
    work = r.unread()
    for name, rx in SHAPE_FIELDS:  # a field's words are not also another's ("8 kv heads" is no 8 heads)
        m = next((m for m in re.finditer(rx, work) if not any(f.start() < m.end() and m.start() < f.end() for f, _, _ in found)), None)
        if m:
            found.append((m, name, int(next(g for g in m.groups() if g))))
    if len(found) < 2 and not (found and found[0][1] == "hidden"):  # "hidden size 5120" alone: its own word names it
        return {}
    for m, name, value in found:
        r.claim_match(m, f"shape.{name}", value)
    return {name: value for _, name, value in found}


def shape_params_b(shape: dict[str, int]) -> float:
    """A starting size for a shape given without a parameter count: 12·layers·hidden² (attention and
    MLP of a standard block). The estimator recounts the parameters from the shape itself; this only
    seeds the fields the user did not give (ffn, vocabulary)."""
    return round(12 * shape["layers"] * shape["hidden"] ** 2 / 1e9, 1)


# A node, card or DIE count as written, digits or a Chinese numeral ("2-node", "3 台机器", "4 physical cards", "6 张物理卡", "2
# Snt9B23 nodes" with the part's name claimed between): each claimed as a typed span, so the hardware answer reads the
# counts the question states from the frame, never from the question's text again.
COUNT_NUMERAL = rf"(?<![a-z0-9.])(\d+|[一二两三四五六七八九十]|(?<![a-z]){EN_COUNT}(?=\s))"
COUNTS_SAID = (("said_nodes", re.compile(COUNT_NUMERAL + r"\s*(?:整\s*|(?:whole|full|entire)\s+)?(?:(?:-|个|台)?\s*(?:nodes?|servers?|machines?|boxes|节点|机器|服务器)(?![a-z])|台(?!阶))")),
               ("said_cards", re.compile(COUNT_NUMERAL + r"\s*(?:张)?\s*(?:physical\s+)?(?:cards?|物理卡|卡(?!数))(?![a-z])")),
               ("said_dies", re.compile(COUNT_NUMERAL + r"\s*(?:个|颗)?\s*dies?(?![a-z])")))  # "one DIE", "2 Snt9B23 DIEs", "一个 DIE"


def claim_counts(r: Reading) -> None:
    """Each node, card and DIE count the question writes, claimed with its value (``COUNTS_SAID``)."""
    for slot, rx in COUNTS_SAID:
        for m in list(r.finditer(rx)):
            value = cn_number(m.group(1)) or count_word(m.group(1))
            if value is not None:
                r.claim_match(m, slot, value)


def bare_count(work: str) -> int | None:
    """The one plain number left in a turn ("and with 16?", "那32个呢"): a device count when it follows
    a sizing answer. Two numbers, or one that looks like a length, are not read."""
    nums = re.findall(r"(?<![a-z0-9.\-])(\d{1,4})(?![a-z0-9.%\-])", work)
    if len(nums) != 1:
        return None
    n = int(nums[0])
    return n if 1 <= n <= 4096 and not (n >= 512 and n % 256 == 0) else None


def trainer_parts(r: Reading, s: Slots) -> None:
    """The optimizer, loss and trainer named ("paged AdamW 8bit", "Liger", "torchtune"), their words claimed (the 8 of
    "8-bit" is no count, "loss" no problem report)."""
    for kind, value, rx in TRAINER_PARTS:
        found = list(r.finditer(rx))
        if found:
            setattr(s, kind, getattr(s, kind) or value)
        for m in found:
            r.claim_match(m, kind, value, "vocabulary")


# a throughput said of all the devices together ("单机 8 卡整机吞吐 9600 tokens/s", "aggregate 50k tok/s over the cluster")
WHOLE_RATE = re.compile(r"整机|整个?节点|单机|整个?集群|集群|整体|总吞吐|总共|合计|一共|(?<![a-z])(?:total|aggregate|overall|combined|cluster|whole[-\s]node|"
                        r"per[-\s]node|node[-\s]level|all\s+(?:the\s+)?(?:cards|gpus|npus|devices))(?![a-z])", re.I)
PER_DEVICE_WORD = re.compile(r"单卡|每卡|每张卡|单张卡|(?<![a-z])per[-\s]?(?:card|gpu|npu|device)|/\s*(?:p|card|卡)(?![a-z])|each\s+(?:card|gpu|npu)", re.I)


# a count of sequences that is a batch: after the batch's words ("global batch of", "total batch should be") or per step
BATCH_BEFORE = re.compile(r"(?:batch(?:[-_ ]?size)?|gbs)\s*(?:should|must|needs?\s+to|has\s+to|is|of|=|:|be|\s)*$", re.I)
PER_STEP_AFTER = re.compile(r"\s*(?:per|each|every|an?)\s+(?:optimi[sz]er\s+)?(?:step|update|iteration)", re.I)


def training_amounts(r: Reading, s: Slots) -> None:
    """Token totals, samples and TPS into ``s``; their text claimed (epochs: slots.toml). "4096 tokens" and "32k
    tokens" stay: a plain count under 10 million or a k suffix is a sequence length."""
    for m in list(r.finditer(TPS_RX)):
        given = m.group(1) or m.group(3) or m.group(4) or m.group(5) or m.group(6) or m.group(8)
        k = m.group(2) or m.group(7) or m.group(9)
        # (the words of its own clause: "3e9 tokens total, 16 cards, 2000 tok/s per card" says the tokens' total, and the
        # per-device word may follow the rate)
        before = re.split(r"[,，;；。]", r.text[max(0, m.start() - 24):m.start()])[-1]
        after = r.text[m.end():m.end() + 12]
        if WHOLE_RATE.search(before) and not PER_DEVICE_WORD.search(m.group(0) + before[-8:] + after):
            # "整机吞吐 9600 tokens/s", "total throughput 20k tok/s": the rate of all the devices together, no TPS per card;
            # the router divides it by the devices (route.py tps_per_device)
            s.settings["tps_total"] = s.settings.get("tps_total") or amount(given, k)
            r.claim_match(m, "tps_total", amount(given, k))
            continue
        s.tps = s.tps or amount(given, k)
        r.claim_match(m, "tps", amount(given, k))
    for m in list(r.finditer(TOKENS_RX)):
        mag = (m.group(2) or "").lower()
        n = amount(m.group(1), mag)
        if mag == "k" or n < 1e7:
            continue
        s.tokens = s.tokens or n
        r.claim_match(m, "tokens", n)
    for m in list(r.finditer(TOKENS_AFTER_RX)):
        if m.group(3):  # "a billion tokens", "half a billion tokens"
            n = TOKEN_WORDS.get(m.group(3), 0.5) * MAGNITUDE[m.group(4)]
        else:
            n = amount(m.group(1), m.group(2))
            if not m.group(2) or m.group(2).lower() == "k" or n < 1e7:
                continue  # "token 4096", "tokens 32k": a length, not a total
        s.tokens = s.tokens or n
        r.claim_match(m, "tokens", n)
    work = r.unread()
    for m in list(SAMPLES_RX.finditer(work)):
        if (m.group(2) or "").lower() == "k" and m.group(0).rstrip().endswith("sequences") and \
                re.search(r"(?:how\s+many|concurrent|simultaneous|parallel|active|in-flight)\s*$", work[: m.start()]):
            continue  # "how many (concurrent) 32k sequences fit": a length to count sequences of, not a training set
        if (m.group(2) or "").lower() == "k" and m.group(0).rstrip().endswith("sequences") and m.group(1) in POW2_K \
                and not LENGTH_WORD.search(work):
            continue  # "fine-tune with 8k sequences": a power-of-two k with no other length said is the length, not a data set
        if m.group(0).rstrip().endswith("sequences") and (BATCH_BEFORE.search(work[: m.start()]) or PER_STEP_AFTER.match(work[m.end():])):
            continue  # "total batch should be 256 sequences", "256 sequences per step": a batch in sequences, not a data set
        # "12 万条样本", "SN 6400" or "样本 64000": the first alternative that matched
        num, mag = next((m.group(k), m.group(k + 1)) for k in (1, 3, 5) if m.group(k))
        s.samples = s.samples or int(amount(num, mag))
        r.claim_match(m, "samples", int(amount(num, mag)))


# "does it fit in one node?", "一个节点放得下吗": a node count the question asks about, not the user's own devices; the
# answer's node count (the table's "1 node of 16 DIE") answers it.
FIT_INTO = r"(?<![a-z])(?:fits?|fitting|stay|stays|run|runs|go|squeeze[ds]?|be\s+done)\s+(?:in|into|within|inside|on)\s+"
NODE_FIT_ASKED = re.compile(FIT_INTO + r"(?:a\s+single|one|1|a|an)\s+(?:[\w.\-]+\s+){0,2}?(?:node|server|machine|box)(?![a-z])|"
                            r"(?:一个|1\s*个|单个?)\s*(?:节点|机器)\s*(?:内|里|上|之内)?\s*(?:就)?\s*(?:能|可以)?\s*"
                            r"(?:放得下|放下|装得下|装下|跑得下|跑得动|够|塞得下)")


# "does it fit within a single 8-card node?": the words before a node's size that make it the one node asked about
FIT_INTO_ONE = re.compile(FIT_INTO + r"(?:a\s+single|one|1|an?)\s*$")


def node_fit_asked(r: Reading) -> bool:
    """Claim "fits in one node" (the question's, not a count of the user's), so no node or device count is read from it;
    True when found (it asks the count, in nodes)."""
    # read on the question as typed: the part's name or the node's size inside it ("a single 8-card Snt9B node") stay
    # theirs, the words around them are claimed
    found = [m for m in re.finditer(NODE_FIT_ASKED, r.text)
             if all(sp.slot in ("hardware", "node_cards") for sp in r.spans if sp.overlaps(m.start(), m.end()))]
    for m in found:
        start = None
        for i in range(m.start(), m.end() + 1):
            free = i < m.end() and not r.claimed(i, i + 1)
            if free and start is None:
                start = i
            elif not free and start is not None:
                r.claim(start, i, "asked_nodes", None, "vocabulary")
                start = None
    return bool(found)


HOST_RAM = re.compile(r"(?<![0-9.])(\d{1,5})\s*(?:g|gb|gib|t|tb)\s*(?:of\s+)?(?:host|cpu|system|主机|机器)\s*(?:ram|memory|mem|内存)|"
                      r"(?:host|cpu|system|主机)\s*(?:ram|memory|mem|内存)\s*(?:of|=|:|is|为|是|有)?\s*(\d{1,5})\s*(?:g|gb|gib|t|tb)(?![a-z])|"
                      # "512GB RAM", "内存 2TB", "每台机器内存 768GB": RAM and 内存 name host memory (显存 is the device's)
                      r"(?<![0-9.])(\d{1,5})\s*(?:g|gb|gib|t|tb)\s*(?:of\s+)?(?:ram\b|(?<!显)内存)|"
                      r"(?:\bram|(?<!显)内存)\s*(?:per node|每节点|每台)?\s*(?:of|=|:|：|is|为|是|有)?\s*(\d{1,5})\s*(?:g|gb|gib|t|tb)(?![a-z])")


DISK = re.compile(r"(?<![0-9.])(\d{1,5})\s*(?:g|gb|gib|t|tb)\s*(?:的)?\s*(?:of\s+)?(?:local\s+|free\s+)?(?:disks?|ssds?|nvme|storage|磁盘|硬盘|(?<!显)盘|存储)|"
                  r"(?:disks?|ssds?|storage|磁盘|硬盘|存储)\s*(?:空间)?\s*(?:of|=|:|：|is|为|是|有|只有)?\s*(\d{1,5})\s*(?:g|gb|gib|t|tb)(?![a-z])")


def size_gb(m: re.Match, per_tb: int) -> int:
    """The GB a size match says: its number, times ``per_tb`` when written in terabytes ("1 TB", "2T")."""
    value = int(next(g for g in m.groups() if g))
    return value * (per_tb if re.search(r"\d\s*t", m.group(0).lower()) else 1)


def disk(r: Reading, s: Slots) -> None:
    """The disk the user has ("a 1 TB disk", "放 50G 的盘", "磁盘 500GB"): checkpoints or weight files are checked against
    it; claimed, so it is no device memory."""
    if m := r.search(DISK):
        s.disk_gb = size_gb(m, per_tb=1000)  # disks are sold in decimal terabytes
        r.claim_match(m, "disk_gb", s.disk_gb)


def host_ram(r: Reading, s: Slots) -> None:
    """Host RAM the user has ("256GB host RAM", "主机内存 512G"): offload is checked against it; claimed, so it is
    no device memory and no length."""
    if m := r.search(HOST_RAM):
        s.host_ram_gb = size_gb(m, per_tb=1024)  # memory comes in binary terabytes
        r.claim_match(m, "host_ram_gb", s.host_ram_gb)


# Memory said of one device: "1.5 TB HBM", "640 GB of VRAM", "显存 2TB", "my NPU has 1.5 TB", "卡有 2TB 显存" (host RAM is
# claimed before: HOST_RAM)
DEVICE_MEMORY = re.compile(
    r"(?<![0-9.])(?P<a>\d+(?:\.\d+)?)\s*(?P<ua>tb|tib|t|gb|gib|g)(?![a-z])\s*(?:of\s+)?(?:hbm\w*|vram|显存|device\s+memory|"
    r"memory\s+(?:per|on\s+(?:each|every|one|the|my))\s+(?:card|npu|gpu|device|die))|"
    r"(?:hbm\w*|vram|显存)\s*(?:of|is|=|:|为|是|有)?\s*(?P<b>\d+(?:\.\d+)?)\s*(?P<ub>tb|tib|t|gb|gib|g)(?![a-z])|"
    r"(?:cards?|npus?|gpus?|devices?|显卡|卡)\s*(?:has|have|with|of|有|带)\s*(?P<c>\d+(?:\.\d+)?)\s*(?P<uc>tb|tib|t|gb|gib|g)(?![a-z])"
    r"(?!\s*(?:of\s+)?(?:host|cpu|system)?\s*(?:ram|内存))|"
    # a part said to have an amount per card ("Snt9B has 128GB per card", "910B (128GB per card)"): what it has, not
    # what a job needs ("needs 40 GB per card" has no such verb)
    r"(?:has|have|with|is|are|got|\()\s*(?P<d>\d+(?:\.\d+)?)\s*(?P<ud>tb|tib|t|gb|gib|g)\s*(?:of\s+(?:memory|hbm|vram)\s+)?"
    r"(?:per|each|a|/)\s*(?:card|npu|gpu|device|die)(?![a-z])")


def device_memory_said(work: str) -> tuple[float, tuple[int, int]] | None:
    """(GB, where the amount is written) of the memory said for one device, else None."""
    m = DEVICE_MEMORY.search(work)
    if not m:
        return None
    k = next(k for k in "abcd" if m.group(k))
    return float(m.group(k)) * (1000 if m.group("u" + k).startswith("t") else 1), (m.start(k), m.end("u" + k))
