"""What a sizing question asks for first, read from the frame the reader made: host RAM per node, or a
verdict on a setting the user names ("zero2 行不行", "能不能不开 offload"). The router adds the estimate
of that setting on the user's devices; the writer (CapacityBlocks.asked_first) states it before any plan.

Also the one plausibility check every estimate passes before it is shown (``implausible``)."""

from __future__ import annotations

import math
import re
from typing import NamedTuple

from ..tools.estimates import PlanResult
from .frame import QuestionFrame
from .serving_words import KV_PER_TOKEN_ASKED
from .spans import Reading
from .vocab import ASKS_COUNT, INTENTS, NODES_ASKED

# 内存 is host RAM (device memory is 显存): "内存要多少", "要多少内存", "多少 host 内存"
HOST_RAM = re.compile(r"host\s*(?:ram|memory|内存)|cpu(?:[-\s]*side)?\s*(?:ram|memory)|(?:system|server|machine)\s+(?:ram|memory)|cpu\s*(?:侧|端)?\s*的?\s*内存|主机内存|cpu\s*内存|内存(?!不足)(?=.{0,6}(?:多少|多大|够))|"
                      r"(?:多少|多大)\s*的?\s*内存(?!不足)",
                      re.I)
NO_OFFLOAD = re.compile(r"不开\s*(?:cpu\s*)?offload|不用\s*(?:cpu\s*)?offload|关(?:掉|闭)?\s*offload|without\s+(?:cpu\s+)?offload|"
                        r"no\s+(?:cpu\s+)?offload|(?:skip|drop|turn\s+off|disable)\s+(?:the\s+)?(?:cpu\s+)?offload|"
                        # offload as the fallback ("host RAM for offload if not", "不够的话开 offload"): judged without it
                        r"offload\s+if\s+(?:not|needed|it\s+does\s*n[o']t)|(?:if\s+not|otherwise)\b.{0,30}offload|"
                        r"(?:不够|放不下|不行)(?:的话)?.{0,12}offload", re.I)
# ("ok, and …", "ok so …": an "ok" that opens the turn's next words acknowledges the last answer, it asks no yes/no)
VERDICT_WORDS = (r"行不行|行吗|可以吗|会不会|\boom\b|可不可以|能不能|能否|够不够|够吗|放得下|(?<![a-z])ok\b(?!\s*(?:[,，]|and\b|so\b|then\b|now\b|but\b))|okay|work|enough|will\s+it|"
                 r"would\s+it|(?:will|would)\s+(?:\d+|one|two|a|an)\s+(?:\w+\s+){0,3}do(?![a-z])|can\s+i|could\s+i|is\s+it\s+possible|fit|suffic|feasible|doable|viable|"
                 # "能跑吗", "跑得起来吗", "和配方一致吗", "does it match the recipe": a yes/no on the run the user describes
                 r"能跑|跑得(?:起来|动|了)|(?:能|可以)?(?:起|启动|拉)得?(?:起)?来(?:吗|不)|起得来|跑不跑得|一致吗|对不对|\bmatch(?:es)?\b|can\s+it\s+run|does\s+it\s+run|"
                 # "is this sensible?", "靠谱吗", "是不是可行的方案", "显存扛得住吗": a yes/no on the plan the user describes
                 r"sensible|reasonable\s*[?？]|(?:is|be|sounds?)\s+(?:\w+\s+)?reasonable|makes?\s+sense|(?:good|bad)\s+idea|overkill|"
                 r"靠谱|可行|合理吗|合不合理|是否合理|扛得住|撑得住|吃得消|划算吗")
JUDGE = re.compile(VERDICT_WORDS + r"|\?|？", re.I)
ASKS_VERDICT = re.compile(VERDICT_WORDS, re.I)  # a yes/no asked in words, not only by a question mark
# "is that sensible?", "合理吗", "overkill?": a judgement of the plan, not only whether it fits (a count far above the
# need fits, and is still no sensible plan)
PLAUSIBILITY = re.compile(r"sensible|reasonable|makes?\s+sense|(?:good|bad)\s+idea|overkill|合理|靠谱|划算|值得|有必要", re.I)


class NamedSetting(NamedTuple):
    """The DeepSpeed setting the user asks about: a ZeRO stage and whether CPU offload is on."""

    zero_stage: int
    offload: bool


def asks_host_ram(s: QuestionFrame) -> bool:
    """"How much host RAM per node": the CPU memory that offload needs, not device memory; or, with the host RAM
    stated, whether it is enough (judges_host_ram)."""
    if s.host_ram_gb and not HOST_RAM_QUANTITY.search(s.question):  # "1 TB host RAM per node — feasible?": stated, not asked
        return judges_host_ram(s)
    return (bool(HOST_RAM.search(s.question)) or s.host_ram_carried) and bool(s.model or s.params_b)


HOST_RAM_QUANTITY = re.compile(r"how much|how many|多少|多大|几", re.I)
# "is host memory enough?", "each node has 768GB of RAM, is that enough?", "每台主机内存 1TB 够吗": the host RAM the user
# states is what the yes/no judges (not the job as a whole: "1 TB host RAM — feasible?")
RAM_WORD = re.compile(HOST_RAM.pattern + r"|(?<![a-z])ram(?![a-z])|内存(?!不足)", re.I)
RAM_JUDGED = re.compile(r"(?<![a-z])(?:enough|sufficient|suffice)(?![a-z])|够", re.I)


def judges_host_ram(s: QuestionFrame) -> bool:
    """The host RAM stated is judged: its yes/no leads the answer, the devices' verdict after it."""
    return bool(s.host_ram_gb) and bool(RAM_WORD.search(s.question)) and bool(RAM_JUDGED.search(s.question)) \
        and bool(s.model or s.params_b)


def named_setting(s: QuestionFrame) -> NamedSetting | None:
    """The ZeRO stage (and offload) a training question asks to be judged on the user's own devices:
    "zero2 行不行", "ZeRO-3 能不能不开 offload". None when no stage is named or nothing is judged."""
    if s.zero_stage is None or not (s.method or "train" in s.intents) or "inference" in s.intents or stages_offered(s):
        return None
    if not (JUDGE.search(s.question) or s.verdict_carried):
        return None
    offload = False if NO_OFFLOAD.search(s.question) else bool(s.offload)
    return NamedSetting(s.zero_stage, offload)


RECIPE = re.compile(r"recipe|配方|取值表|(?:推荐|建议)的?\s*配置|recommended\s+(?:config(?:uration)?|setup|settings?)", re.I)


# "does it match the recipe?", "和配方一致吗": the recipe row is the yes/no; "the recipe says ZeRO-3 though, will ZeRO-2 work?"
# names the recipe without asking whether the setting matches it
RECIPE_MATCH = re.compile(r"\bmatch(?:es|ing)?\b|一致|符合|对得上|对不上|(?:same|different)\s+(?:as|from)\s+(?:the\s+)?recipe|"
                          r"(?:as|like)\s+(?:in\s+)?the\s+recipe\s*[?？]|跟配方.{0,6}一样|和配方.{0,6}一样|按配方.{0,8}(?:对吗|没错吧)", re.I)


# "is GA 16 a problem?", "I run GA 32, is that bad?", "梯度累积 16 有问题吗": the user's own accumulation judged
GA_JUDGED = re.compile(r"problem|(?<![a-z])(?:bad|wrong|fine|ok|okay|an?\s+issue|matter|hurt|harm)(?![-a-z])|too\s+(?:big|high|large|many)|"
                       r"有问题|有没有问题|有影响|影响大|要紧|没事吧|行吗|可以吗|合理|太大|"
                       # "does memory change?", "会影响显存吗": what the accumulation does to the memory, asked
                       r"(?:memory|vram)\s+(?:\w+\s+)?(?:change|differ|go\s+up|grow|increase)|(?:change|affect|impact)s?\s+(?:the\s+)?(?:memory|vram)|"
                       r"显存.{0,4}(?:会变|变化|变大|增加|涨)|影响.{0,3}显存", re.I)


def judges_grad_accum(s: QuestionFrame) -> bool:
    """The question states its gradient accumulation and asks whether it is a problem (not a ZeRO stage's yes/no)."""
    return bool(s.grad_accum and s.origin("grad_accum") == "said" and s.zero_stage is None and GA_JUDGED.search(s.question))


def asks_recipe_match(s: QuestionFrame) -> bool:
    """Whether the setting matches the recipe row is what the question asks (not only the recipe named beside a fit
    question)."""
    return asks_recipe(s) and bool(RECIPE_MATCH.search(s.question))


def stage_named_not_asked(s: QuestionFrame) -> bool:
    """"ZeRO-2 on 4 cards, sensible?": the user names the ZeRO stage and asks a yes/no on it, so the stage is no
    quantity asked: the verdict leads, and no stage is proposed beside it as "the ZeRO stage"."""
    named = s.zero_stage is not None and s.origin("zero_stage") in ("said", "conversation")
    # "would 2 be enough if I turn on offload?": offload named as the condition of the yes/no, no stage asked
    offload = bool(s.offload) and s.origin("offload") == "said" and not STAGE_ASKED.search(s.question)
    return (named or offload) and asks_verdict(s) and not stages_offered(s)


STAGE_ASKED = re.compile(r"(?<![a-z])(?:which|what)\s+(?:zero\s+)?(?:stage|zero|setting|config)|哪个|哪一|什么\s*(?:zero|阶段|配置)|几级", re.I)


def asks_recipe(s: QuestionFrame) -> bool:
    """"What does the recipe say?": the LLaMA-Factory recipe table is read whatever part the conversation is on."""
    return bool(RECIPE.search(s.question))


TABLE_NAMED = re.compile(r"\btable\b|表格|推理表|取值表|卡数表|按\s*(?:modelarts|厂商|官方)", re.I)
LENGTH_ASKED = re.compile(r"max[-_ ]?model[-_ ]?len|max(?:imum)?\s+context|context\s+length|上下文|最长|最大长度", re.I)


def asks_table_length(s: QuestionFrame, searched: bool = False, row_cards: int | None = None) -> bool:
    """"max-model-len per the ModelArts table?", "max-model-len 是多少", "max len on one 64G 910B": the vendor
    table's tested length is the answer, so it leads (the model's own limit and the memory estimate follow it).
    ``searched``: the longest context was also searched on the user's devices (what_fits); the table's length leads
    that when the table is named or its row runs on no fewer devices than the user says this turn (``row_cards``):
    a row on 1 card answers "one card", not "my 8 cards"."""
    asked = (bool(LENGTH_ASKED.search(s.question)) or "max_context" in s.intents) and not s.seq_len
    # the user's own count this turn ("on one 64G 910B"); a count carried from the last answer asks how far past it
    same_devices = row_cards is not None and s.origin("devices") == "said" and (s.devices or 0) <= row_cards and not s.nodes
    # no count said or carried ("what max-model-len for X?", "32G 的卡最大长度"): the search ran on the table's own card
    # count, so it only backs the vendor's row, which answers (round 9: the estimate led, the row came "for comparison")
    # (a thread that already stated a length asks how far past it: the search leads then)
    no_count = row_cards is not None and not (s.devices or s.nodes or s.length_before)
    return asked and (bool(TABLE_NAMED.search(s.question)) or not searched or same_devices or no_count)


def asks_verdict(s: QuestionFrame) -> bool:
    """"Enough? / 够吗 / does it fit / will it OOM": the yes/no comes first, every supporting figure after it."""
    return bool(ASKS_VERDICT.search(s.question)) or "oom_asked" in s.intents or s.verdict_carried


def weights_floor(p: PlanResult) -> int:
    """The fewest devices whose memory holds the model states alone (ZeRO-3 sharding, no activations):
    16 bytes per parameter for full fine-tuning (bf16 weights and gradients, fp32 master and Adam), the
    16-bit (4-bit for QLoRA) base for LoRA, over the plan's usable memory per device."""
    per_param = {"full": 16.0, "freeze": 16.0, "qlora": 0.55}.get(p.method, 2.0)
    need_gib = p.shape.params_b * 1e9 * per_param / 2**30
    return max(1, math.ceil(need_gib / max(p.memory.usable_gib, 1e-9)))


USABLE = re.compile(r"usable memory = ([\d.]+) GB")


def implausible(p: PlanResult, memory_gb: float | None = None) -> list[str]:
    """Why a plan cannot be shown as it is, one code per problem (empty when it holds together):
    ``over_usable``: a plan called fitting whose point estimate exceeds the usable memory;
    ``far_beyond_states``: far more devices than the model states need over ZeRO-3 while each one is
    nearly full: the estimate's per-device figures do not add up for that count (DeepSeek-V3 LoRA on A100s:
    256 GPUs at 79 GiB each, where its weights over ZeRO-3 need a few dozen);
    ``other_part_memory``: the usable memory explained with another part's size than the plan's part
    (``memory_gb``, from the hardware catalog): a GPU plan worded with the 64 GB of an Ascend card."""
    problems = []
    said = [float(m.group(1)) for a in getattr(p, "assumptions", None) or [] for m in [USABLE.search(str(a))] if m]
    if memory_gb and any(abs(x - memory_gb) > 0.5 for x in said):
        problems.append("other_part_memory")
    if p.fits and p.memory.total_gib > p.memory.usable_gib:
        problems.append("over_usable")
    floor = weights_floor(p)
    if p.fits and p.devices > max(8 * floor, 64) and p.memory.total_gib > 0.8 * p.memory.usable_gib:
        problems.append("far_beyond_states")
    return problems



# -- which serving quantity each part of a question asks, in the order asked ------------------------------------
# "which --tensor-parallel-size", "tensor-parallel-size 设多少", "tp 要设成几": the TP value itself is asked (a yes/no on
# the devices or a card count is not the answer to it)
TP_VALUE_ASKED = re.compile(
    r"(?:which|what)\s+(?:--)?(?:tensor[-_ ]parallel(?:[-_ ]size)?|tp(?:[-_ ]size)?)(?![a-z])|"
    r"(?:--)?(?:tensor[-_ ]parallel(?:[-_ ]size)?|(?<![a-z])tp(?:[-_ ]?size)?)\s*(?:要|应该|应|该)?\s*"
    r"(?:设置?|设成|设为|填|写|开|用|配)?\s*(?:成|为)?\s*(?:多少|几|多大)|"
    r"(?:tensor[-_ ]parallel(?:[-_ ]size)?|(?<![a-z])tp)\s+(?:should|do\s+i|to\s+(?:set|use|pass))", re.I)
# "how many bytes", "多少字节": an amount, not a count of devices
AMOUNT_WORDS = re.compile(r"how\s+many\s+(?:kv[-_ ]?(?:cache\s+)?)?(?:bytes|[kmg]i?b)(?![a-z])|多少\s*(?:个\s*)?(?:字节|bytes|[kmg]i?b)", re.I)
WHY_ASKED = re.compile(r"(?<![a-z])why(?![a-z])|为什么|为啥|为何|怎么(?:会|这么)", re.I)


# "why does the recipe table put X on (just) one card?", "配方表为什么只给 1 张卡": a count the vendor's table gives, asked
# about; the user's own count is said with OWN_DEVICES ("I have 8", "我们有")
TABLE_PUTS = re.compile(r"(?:(?<![a-z])why|how\s+come|为什么|为啥|为何).{0,50}(?:recipe|table|vendor|配方|表格?|厂商).{0,60}?"
                        r"(?:(?<![a-z])(?:puts?|runs?|uses?|lists?|gives?|assigns?|only)(?![a-z])|只用|只给|只要|只放|用|放|给|列)|"
                        r"(?:配方表?|表格?|厂商)(?:里|中|上)?\s*(?:为什么|为啥|为何).{0,40}?(?:只用|只给|只要|只放|用|放|给|列)")
# "表里写 LF 要 32 张", "the table says LF needs 8 cards", "docs say … is 4 cards": a device count the user quotes from the
# vendor's table (the reference their own count is set against), not their devices; the count is group "n"
TABLE_SAYS = re.compile(
    r"(?:(?<![a-z])(?:the\s+)?(?:table|recipe|docs?|documentation|vendor|modelarts)(?:'s)?\s+(?:says?|said|lists?|gives?|shows?|has)|"
    r"(?:表|表格|配方|文档|官方|厂商)(?:里|中|上)?\s*(?:说|写的?是?|给的?是?|列的?是?|要求))"
    r"[^。.?？!！;；\n]{0,60}?(?<![0-9.a-z])(?P<n>\d{1,4})\s*(?:x|×)?\s*"
    r"(?:cards?|npus?|gpus?|devices?|dies?|张|块|个\s*die|卡)(?![a-z])", re.I)
# the user's own count written bare beside a quoted one ("and I only have 8", "我们有 32", "4 of my 910B3")
OWN_COUNT = re.compile(r"(?:(?<![a-z])(?:i|we)\s+(?:only\s+)?(?:have|got|own)|我(?:们)?(?:这边|这里)?(?:只)?有|手上有?|手里有?)\s*"
                       r"(?:only\s+|just\s+|只有?\s*)?(\d{1,4})(?![0-9.])|(?<![0-9.])(\d{1,4})\s+of\s+(?:my|our)(?![a-z])", re.I)
OWN_DEVICES = re.compile(r"(?<![a-z])(?:i|we)\s+(?:have|got|own|only\s+have)|(?<![a-z])(?:my|our)\s+\d|我(?:们)?(?:只)?有|手上|手里", re.I)
# "we have 32.", "我们有 24 张" with the count standing alone at the end of its clause (no "GB", "tokens" after it): the
# devices the user has, in a thread about a job (the device word left out)
OWN_BARE = re.compile(r"(?:(?<![a-z])(?:i|we)\s+(?:only\s+|now\s+)?(?:have|got|own)|我(?:们)?(?:这边|这里)?(?:只)?有|手上有?|手里有?)\s*"
                      r"(?:only\s+|just\s+|只有?\s*)?(\d{1,4})(?=\s*(?:[.,;:!?，。；！？、)]|$|\s+(?:now|left|available|in\s+total|total)(?![a-z])))", re.I)
# a device count said as a cap, not as the devices the user has: "at most 16 cards", "up to 2 nodes", "最多给 8 张卡"
DEVICE_LIMIT = re.compile(
    r"(?<![a-z])(?:at\s+most|up\s+to|no\s+more\s+than|not\s+more\s+than|a\s+max(?:imum)?\s+of|max(?:imum)?|capped\s+at|"
    r"a\s+cap\s+of|limited\s+to|a\s+limit\s+of)\s*:?\s*\d{1,5}\s*(?:x\s*)?(?:[\w.-]+\s+)?(?:cards?|gpus?|npus?|devices?|dies?|nodes?)"
    r"|(?<![0-9.])\d{1,5}\s*(?:[\w.-]+\s+)?(?:cards?|gpus?|npus?|devices?|dies?|nodes?)\s+(?:at\s+most|max(?:imum)?|tops)(?![a-z])"
    r"|(?:最多|至多|不超过|顶多|上限(?:是|为)?)\s*(?:只)?(?:能)?(?:给|用|有|分配)?(?:我|我们)?\s*\d{1,5}\s*(?:张|块|台|个|卡)", re.I)
WEIGHTS_WORD = re.compile(r"权重|(?<![a-z])weights?(?![a-z])", re.I)


def kv_asked_before_weights(question: str) -> bool:
    """"KV cache 多大？权重多大？": the KV cache is asked before the weights, so its figure leads and the weights follow it."""
    kv, w = KV_PER_TOKEN_ASKED.search(question), WEIGHTS_WORD.search(question)
    return bool(kv and w and kv.start() < w.start())


def serving_parts_asked(question: str) -> list[str]:
    """The serving quantities a question asks, in the order it asks them: "kv" (bytes per token), "tp" (the
    tensor-parallel-size), "verdict" (a yes/no or a card count for the devices). The writer leads with the first
    it has a figure for and answers the others after it, in order."""
    amounts = Reading.claiming(question, "amount_asked", AMOUNT_WORDS)  # "how many bytes" asks an amount, not a count
    found = {"kv": KV_PER_TOKEN_ASKED.search(question), "tp": TP_VALUE_ASKED.search(question),
             "verdict": ASKS_VERDICT.search(question) or amounts.search(ASKS_COUNT)}
    return [k for k, m in sorted(((k, m) for k, m in found.items() if m), key=lambda km: km[1].start())]


# "do I even need the offload?", "does 64 cards remove the offload?", "还需要开 offload 吗": whether the job fits without
# it is asked; the writer answers it with the estimate of the same setting without offload
OFFLOAD_NEEDED = re.compile(
    r"need\s+(?:the\s+|to\s+use\s+|cpu\s+)*offload|offload\s+(?:even\s+|still\s+|really\s+)?(?:needed|necessary|required)|"
    r"(?:remove|drop|get\s+rid\s+of|do\s+without|lose)\s+(?:the\s+)?(?:cpu\s+)?offload|without\s+(?:the\s+)?offload\s*\?|"
    r"(?:还|仍|真的)?(?:需要|要|得|必须)(?:开|用|打开)?\s*(?:cpu\s*)?offload|offload\s*(?:还)?(?:有必要|必要|需要吗|要不要|是否需要)|"
    r"(?:去掉|不用|省掉|免掉|关掉)\s*(?:cpu\s*)?offload\s*(?:吗|行吗|可以吗)", re.I)


# whether the job (still) takes CPU offload asked as a yes/no ("还开不开 offload", "offload 还要留着吗", "do I still need
# offload?", "要不要开 offload"): the offload is what is asked, no setting the plan keeps to
OFFLOAD_ASKED = re.compile(
    OFFLOAD_NEEDED.pattern + r"|(?:开不开|用不用|要不要|还开|还用|还得|仍然?要|还需|还留)\s*(?:cpu\s*)?offload|"
    r"offload\s*(?:还|仍然?|也)?\s*(?:要|需要|得|用|开)?\s*(?:留着|开着|保留|不保留|开|用)?\s*(?:吗|么|嘛|不)\s*[?？]?\s*$|"
    r"(?<![a-z])(?:still|even)\s+(?:need|use|require|keep|want)\s+(?:the\s+)?(?:cpu\s+)?offload|offload\s+or\s+not|"
    r"(?<![a-z])keep\s+(?:the\s+)?(?:cpu\s+)?offload|(?<![a-z])(?:is|does\s+it\s+use|is\s+there)\s+(?:cpu\s+)?offload\s+(?:on|used|enabled|needed)?\s*\?",
    re.I)


def offload_asked(s: QuestionFrame) -> bool:
    """Whether the job takes CPU offload is asked (a yes/no), not said: the plans and the table rows answer it."""
    return bool(OFFLOAD_ASKED.search(s.question))


def offload_said(s: QuestionFrame) -> bool | None:
    """The CPU offload the user set for the job: none when whether to take it is what is asked with no devices of theirs
    ("那 4096 呢，还要 offload 吗"): the vendor row and the plan answer that. On their devices the offload they run is theirs
    and the answer says whether they need it (asks_offload_needed)."""
    return None if offload_asked(s) and not s.effective().devices else s.offload


def asks_offload_needed(s: QuestionFrame) -> bool:
    """The user runs (or plans) CPU offload and asks whether it is needed at all on their devices."""
    return bool(s.offload) and bool(OFFLOAD_NEEDED.search(s.question)) and bool(s.model or s.params_b)


# "qwen3-32b lora 8192 在最小卡数表里有没有?", "is qwen2-7b full 8k listed in the min card table?": whether the table has the
# row is a part of its own (a yes or no), asked beside the count
LISTED_ASKED = re.compile(
    r"(?:表|表格)(?:里|中|上)?\s*(?:有没有|有吗|有没|列了吗|列出了吗)|在.{0,24}表.{0,6}(?:有没有|有吗)|有没有.{0,16}(?:这一?行|数据|条目|记录)|"
    r"(?<![a-z])(?:is|are)\s+(?:there\s+)?(?:an?\s+)?(?:[\w.-]+\s+){0,3}?(?:row|entry|entries|rows)\s+(?:for|of)|"
    # "最小卡数表里 qwen3-235b 有 8192 的行吗": the model and the row asked between the table and the question mark
    r"表(?:里|中|上).{0,30}?有.{0,16}?(?:行|数据|条目|记录)\s*(?:吗|么|嘛|[?？])|"
    r"(?<![a-z])(?:does|do)\s+the\s+(?:[\w-]+\s+){0,3}table\s+(?:list|have|include|cover)|(?:listed|in\s+the\s+(?:[\w-]+\s+){0,3}table)\s*\?")


def asks_listed(s: QuestionFrame) -> bool:
    """Whether the vendor table lists the job is asked (a yes/no half of its own)."""
    q = s.question.lower()
    m, length = LISTED_ASKED.search(q), INTENTS["row_length"].search(q)
    # ("what SEQ_LEN is that row for": the words ask the row's length, not whether the table lists it)
    return bool(s.model) and m is not None and not (length and length.start() < m.end() and m.start() < length.end())


# the global batch asked in words (intents.toml "gbs"): where, to order it against the other parts asked
GBS_WORDS = re.compile(r"global[-_ ]?batch|(?<![a-z])gbs(?![a-z])|effective\s+batch|全局\s*(?:batch|批)|总\s*(?:batch|批量)")


def batch_asked_before_verdict(s: QuestionFrame) -> bool:
    """"全局 batch 是多少，显存够不够", "samples per step? and does it fit?": the global batch (intents.toml "gbs") is asked
    before the yes/no, so its figure leads and the verdict follows it."""
    if "gbs" not in s.intents:
        return False
    q = s.question.lower()
    batch, verdict = INTENTS["gbs"].search(q), ASKS_VERDICT.search(q)
    return bool(batch and verdict and batch.start() < verdict.start())


def offload_asked_first(s: QuestionFrame) -> bool:
    """"Is the offload necessary? and the global batch?": the offload half is written before any fit question and
    before the global batch, so it is answered first."""
    m = OFFLOAD_NEEDED.search(s.question)
    if not (m and asks_offload_needed(s)):
        return False
    others = [x.start() for rx in (ASKS_VERDICT, GBS_WORDS) if (x := rx.search(s.question.lower())) and x.start() != m.start()]
    return all(m.start() < at for at in others)


# "which zero stage and how long for 50M tokens?": the sizing half is asked before the time half, so the plan leads
SIZING_ASKED = re.compile(r"(?<![a-z])(?:zero|stage|ga|offload|deepspeed|fits?|how\s+many\s+(?:cards|gpus|npus|nodes|devices))(?![a-z])|"
                          r"几张|几卡|几台|卡数|多少张|梯度累积|放得下|够不够", re.I)
TIME_ASKED = re.compile(r"how\s+long|how\s+many\s+(?:hours|days)|training\s+time|time\s+to\s+train|多久|多长时间|几天|几个?小时|耗时|训练时间",
                        re.I)


# "在这个卡数上训完得几个小时": a count pointed at ("this card count", "the same cards") is the one the time is asked on
POINTED_AT = re.compile(r"(?:这个|那个|这些|那些|同样的?|相同的?)\s*$")


def sizing_asked_before_time(question: str) -> bool:
    """The question asks a sizing (a ZeRO stage, a count, a fit) before it asks how long the run takes."""
    a = next((m for m in SIZING_ASKED.finditer(question) if not POINTED_AT.search(question[:m.start()])), None)
    b = TIME_ASKED.search(question)
    return a is not None and b is not None and a.start() < b.start()


# "ZeRO-2 or ZeRO-3, which one?", "zero2 还是 zero3 好": two or more stages offered as a choice on the user's devices
STAGE_OFFERED = re.compile(r"(?<![a-z])(?:zero|ds_z)[-_ ]?(?:stage[-_ ]?)?([0-3])(?![0-9])", re.I)
CHOICE = re.compile(r"(?<![a-z])(?:which|or|vs\.?|versus|better|pick|choose)(?![a-z])|哪个|哪一个|哪种|还是|选|更好|更合适", re.I)


# the stage the turn names set against the conversation's ("换成 zero3 会省多少显存", "what about stage 1 instead?")
STAGE_COMPARED = re.compile(r"(?<![a-z])(?:save[sd]?|saving|less|more|instead|what\s+about|how\s+about|worth|cost|trade-?off|faster|slower)(?![a-z])|"
                            r"省|节省|值得|代价|划算|更快|更慢|呢|行吗|可以吗|会怎样|有什么区别", re.I)


def stages_offered(s: QuestionFrame) -> list[int]:
    """The ZeRO stages a training question offers as a choice, in the order written (two or more), else empty: each is
    estimated on the user's devices and the answer leads with the one to use and why (zero_stages note: the fastest
    that fits)."""
    stages = list(dict.fromkeys(int(m.group(1)) for m in STAGE_OFFERED.finditer(s.question)))
    current = s.current.get("zero_stage")
    # (a stage proposed with offload, "zero3 offload 呢", is judged as that setting: offload trades speed for host RAM)
    if len(stages) < 2 and current is not None and s.zero_stage is not None and current != s.zero_stage and not s.offload \
            and (CHOICE.search(s.question) or STAGE_COMPARED.search(s.question)):
        # "would zero3 be better?", "换成 zero3 会省多少显存" after a ZeRO-2 plan: the conversation's stage beside the new one
        return [current, s.zero_stage] if s.method or "train" in s.intents else []
    if len(stages) < 2 or not CHOICE.search(s.question) or not (s.method or "train" in s.intents) or "inference" in s.intents:
        return []
    return stages


def nodes_of_devices_said(s: QuestionFrame) -> bool:
    """Nodes asked of the devices the question states, with no model to size ("64 DIE, TP 4 PP 4: DP? how many
    machines?"): the catalog's devices per node answer it (quantity_blocks.py says it after the quantities)."""
    return bool(s.devices and not (s.model or s.models or s.params_b or s.unknown_model)
                and NODES_ASKED.search(s.question.lower()))
