"""Serving words in a question: the weight precision ("AWQ int4", "w8a8", "4比特量化"), the concurrency
("32 concurrent users", "并发 64"), vLLM's --gpu-memory-utilization ("0.95", "95%"), and what a serving
question asks (how many users fit, how much KV cache, how fast). The readers claim what they read
(spans.Reading), so "gptq-int4" is no model, "64 并发" no device count and "gpu-memory-utilization" no
memory question."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .spans import Reading
from .vocab import CHANGE, INTENTS, amount

# Weight precision, first match wins: a stated bit width before a method name ("gptq int8" is 8-bit).
BITS = [
    (re.compile(r"(?<![a-z0-9])w(4|8)a\d{1,2}(?![a-z0-9])"), None),  # w4a16, w8a8, w8a16: the weight bits
    (re.compile(r"(?<![a-z0-9])int(4|8)(?![0-9])"), None),
    (re.compile(r"(?<![a-z0-9.])(4|8|16)\s*-?\s*(?:bits?|比特|位(?=\s*(?:量化|精度|权重)))(?![a-z])"), None),
    (re.compile(r"(?<![a-z0-9])(?:nf4|q4_k(?:_[a-z]+)?|q4_0)(?![a-z0-9])"), 4),
    (re.compile(r"(?<![a-z0-9])(?:fp8|e4m3|q8_0)(?![a-z0-9])"), 8),
    (re.compile(r"(?<![a-z])(?:awq|gptq)(?![a-z])"), 4),
    (re.compile(r"smooth\s*quant"), 8),
]
# the quantisation methods above: their width is a default ("gptq int8" is one 8-bit precision, not 4 and 8)
METHOD_DEFAULT = re.compile(r"awq|gptq|smooth")
# The KV cache's own precision (vLLM --kv-cache-dtype), read before the weight precision: "int8 kv cache" is
# no int8 weight.
# The KV cache's own precision, however the quantising is said ("kv cache 量化成 int8", "int8-quantized KV cache",
# "quantize the kv cache to fp8"): the weights keep theirs (a quantised KV cache is no int8 model)
_KV_QUANT = r"(?:[-_ ]?quanti[sz](?:ed|ation|ing|e)?|\s*量化(?:的)?)?"
_KV_JOIN = r"(?:=|:|用|为|是|in|of|to|as|into|成|设为|设成|改成|改为|换成|换为|转成|变成|到)?"
# A 16-bit KV cache ("fp16 kv cache", "kv 保持 bf16") is vLLM's "auto" (the model's own 16-bit type): a weight precision
# no more than an int8 one is. The bare "kv" names the cache too when a precision follows it ("kv 改成 fp8 呢").
# (vLLM's fp8 variants, "fp8_e4m3" / "fp8_e5m2" / "fp8_inc", are one value: their suffix is no weight precision)
_KV_TYPE = r"(int8|fp8(?:[-_](?:e4m3|e5m2|inc)(?:fn)?)?|8[-_ ]?bit|fp16|bf16|float16|bfloat16|auto)"
_KV_CHANGE = r"(?:\s*(?:保持|还是|用回|回到|stays?(?:\s+at)?|back\s+to|switch(?:ed)?\s+to|swap(?:ped)?\s+to))?"
KV_DTYPE = re.compile(rf"(?<![a-z0-9]){_KV_TYPE}{_KV_QUANT}\s*(?:的)?\s*(?:kv[-_ ]?cache|kv\s*缓存|kv)(?![a-z])|"
                      rf"(?<![a-z])(?:kv[-_ ]?cache|kv\s*缓存|kv)(?:[-_ ]?dtype)?{_KV_QUANT}{_KV_CHANGE}\s*{_KV_JOIN}\s*{_KV_TYPE}(?![0-9])|"
                      r"--kv[-_]cache[-_]dtype[= ]+(int8|fp8(?:[-_](?:e4m3|e5m2|inc)(?:fn)?)?|auto)")
KV_16 = ("fp16", "bf16", "float16", "bfloat16")
# "fp8 kv cache vs bf16", "int8 kv 和 bf16 比": a 16-bit type set against the KV precision named is the KV cache's default
KV_OTHER_HALF = re.compile(r"(?:(?<![a-z])(?:vs\.?|versus|or|against|compared\s+(?:to|with)|than)|和|跟|与|比|对比|相比|还是)\s*"
                           r"(?:the\s+)?(?:default\s+)?(bf16|fp16|bfloat16|float16|auto|默认)(?![0-9a-z])|"
                           r"(?<![a-z0-9])(bf16|fp16|bfloat16|float16)\s*(?:kv\s*)?(?:vs\.?|versus|or|和|跟|与|还是|对比)")
# Said, not claimed: "bf16" and "fp16" also ask the BF16-vs-FP16 note.
HALF = re.compile(r"(?<![a-z0-9])(?:bf16|fp16|bfloat16|float16|半精度)(?![0-9])")
QUANTIZED = re.compile(r"quanti[sz](?:ed|ation|e)|(?<![a-z])quant(?![a-z])|量化")

# A count of users or requests, with its magnitude: "10k concurrent", "1万并发", "2千个请求" (k is a thousand here,
# not the 1024 of a length)
COUNT = r"(\d{1,6}(?:\.\d+)?)\s*(k|千|万)?"
COUNT_ZH = r"(\d{1,6}(?:\.\d+)?)\s*(千|万)?"  # after "并发" a "k" is a length's ("并发 8k 上下文")
CONCURRENCY = [re.compile(p) for p in (
    # "16 并发" (not "max-model-len 32768 并发 8": a count written after 并发 is the concurrency, the next pattern)
    rf"(?<![0-9.]){COUNT}\s*(?:个|路|条)?\s*(?:concurrent|simultaneous|parallel(?=\s+(?:users?|requests?|sessions?|clients?))|并发(?!\s*(?:数|量)?\s*(?:为|是|=|:)?\s*\d{{1,6}}(?![0-9.kK])))"
    r"(?:\s*(?:users?|requests?|sessions?|sequences?|streams?|connections?|clients?|个?用户|个?请求|路))?",
    rf"(?:concurrency|(?<![a-z])(?:max[-_ ])?num[-_ ]seqs|并发(?:数|量|请求数?|用户数?)?)\s*(?:of|=|:|is|to|为|是|达到|到|要|{CHANGE})?\s*{COUNT_ZH}(?![0-9.kK])",
    rf"(?<![0-9.]){COUNT}\s*(?:users?|requests?|sessions?|clients?|chats?|conversations?|prompts?|个用户|用户|个请求|请求|个对话|对话)\s*"
    r"(?:(?:run(?:ning)?\s+|going\s+|active\s+)?(?:at\s+(?:once|the\s+same\s+time)|concurrently|in\s+parallel|simultaneously)|同时)",
    rf"(?:serv(?:e|ing)|support(?:ing)?|handle|for)\s+{COUNT}\s+(?:concurrent\s+)?(?:users?|requests?|clients?|sessions?)(?![a-z])",
    rf"(?:支持|服务|满足|承载)\s*{COUNT}\s*(?:个|路)?\s*(?:用户|请求|并发)",
    # "8 users each holding a 32k context", "4 个用户各 32k 上下文": each of them holds a sequence of its own at once
    rf"(?<![0-9.]){COUNT}\s*(?:users?|sessions?|clients?|chats?|conversations?|sequences?|个用户|用户|个会话|会话|个对话|对话|条序列)\s*"
    r"(?:,\s*)?(?:each(?![a-z])|every\s+one|各自?|每人|每个)",
    # "8192-token prompts, 16 of them concurrently": the requests just named, counted by "of them"
    rf"(?<![0-9.]){COUNT}\s+of\s+(?:them|these|those)\s+(?:(?:run(?:ning)?|going|active)\s+)?(?:at\s+(?:once|the\s+same\s+time)|concurrently|in\s+parallel|simultaneously)",
    # "10 路请求", "20 路": 路 counts concurrent streams by itself (not 路径 / 路由 / 路线)
    rf"(?<![0-9.]){COUNT}\s*路(?!径|由|线)\s*(?:请求|用户|会话|流|并发)?",
    # "what if it's 64 requests", "with 48 users", "再加 20 个用户": the noun says what the count counts, the requests (users)
    # served at once, never a count of devices (not a rate: "500 requests per second", "100 个请求每秒"; a k-number is the
    # requests' length: "how many 16k requests fit")
    rf"(?<![0-9.]){COUNT_ZH}(?![kK0-9.])\s*(?:users?|requests?|clients?|个用户|位用户|用户|个请求|条请求|请求)(?![a-z])"
    r"(?!\s*(?:/\s*(?:s|sec|min)|per\s+(?:second|sec|minute|min|hour|day)|a\s+(?:second|minute|day)|每秒|每分钟|/秒|每天))",
)]
# The setting however it is named: the flag, its short and informal names ("util knob", "utilization to 0.95", "mem
# fraction", "mem-frac 0.6", SGLang's --mem-fraction-static), and in Chinese (显存利用率, 显存占用比例, 显存占比); a bare
# "util" or "utilization" only before a fraction ("GPU util 100%" is compute load)
_UTIL_NAME = r"(?:[-_ ](?:knob|setting|flag|param(?:eter)?|value|ratio|fraction))?"
UTIL_WORD = (r"-{0,2}gpu[-_ ]?mem(?:ory)?[-_ ]?util(?:i[sz]ation)?|(?<![a-z])mem(?:ory)?[-_ ]util(?:i[sz]ation)?|"
             r"(?<![a-z])(?:gpu[-_ ]?)?mem(?:ory)?[-_ ]?frac(?:tion)?(?:[-_ ]static)?(?![a-z])|"
             rf"(?<![a-z_-])util(?:i[sz]ation)?{_UTIL_NAME}(?=\s*(?:=|:|is|of|at|to|set\s+to|{CHANGE})?\s*(?:0?\.\d|1\.0))|"  # "util 0.9", "util 降到 0.85"
             # "the util can only be 0.8", "util 只能给到 0.75", "util has to stay at 0.85": a few words, then the fraction
             r"(?<![a-z_-])util(?:i[sz]ation)?(?=[^\d\n,，。;；?？!！]{1,24}?(?<![0-9.])0?\.\d)|"
             r"显存\s*(?:占用|使用|利用|分配)?\s*(?:比例|比率|占比|率|系数)|显存占比")
UTIL_WORD_RX = re.compile(UTIL_WORD)
# a value said to change ("gpu-memory-utilization 改 0.8", "util drops to 0.85") is the new value (vocab.CHANGE); one set
# ("gpu_memory_utilization 设 70%") is the value used
# (a value above 1, "1.3" or "130%", is read and refused with the valid range: ServingWords.util_invalid)
UTIL = re.compile(rf"(?:{UTIL_WORD})\s*(?:of|=|:|is|to|at|为|是|设为|设置为|设成|设置|设|{CHANGE})?\s*(\d{{1,3}}(?:\.\d+)?\s*%|\d?\.\d+|\d)(?![0-9]|\.\d)|"
                  rf"(?<![0-9.])(\d{{1,3}}(?:\.\d+)?)\s*%\s*(?:of\s+)?(?:the\s+)?(?:{UTIL_WORD}|(?:gpu\s+|device\s+)?memory(?:\s+util\w*)?|显存)|"
                  # "at 0.9 util", "0.85 gpu util": the fraction written before the word
                  rf"(?<![0-9.])(0?\.\d+|1\.0+)\s*(?:gpu[-_ ]?)?(?:mem(?:ory)?[-_ ]?)?util(?:i[sz]ation)?(?![a-z])|"
                  # a few words between the setting and its fraction ("gpu-memory-utilization 只能给到 0.75", "util can only
                  # be 0.8", "显存利用率最多开到 85%"): a fraction or a percentage only (no bare "1" — "for 1 card" is a count)
                  rf"(?:{UTIL_WORD})[^\d\n,，。;；?？!！]{{1,24}}?(?<![0-9.])(\d{{1,3}}(?:\.\d+)?\s*%|0?\.\d+|1\.0+)(?![0-9])")

# "gpu util at 80%", "util 85%" in a serving question: vLLM's memory share said short, as a percentage (elsewhere "GPU
# util 100%" is a compute load, so only beside a serving word and below 100%)
UTIL_PERCENT = re.compile(rf"(?<![a-z_-])(?:(?:gpu|npu)[-_ ]?)?util(?:i[sz]ation)?\s*(?:of|=|:|is|at|to|set\s+to|为|是|设为|设成|{CHANGE})?\s*"
                          r"(\d{1,3}(?:\.\d+)?)\s*%|"
                          # "I can only spare 60% of the card for vllm", "卡的 70% 给 vllm": the share of the device vLLM gets
                          r"(?<![0-9.])(\d{1,2}(?:\.\d+)?)\s*%\s*of\s+(?:the\s+|each\s+|my\s+|a\s+|every\s+)?(?:cards?|gpus?|npus?|devices?|hbm|vram)(?![a-z])|"
                          r"(?:卡|gpu|npu)\s*的\s*(\d{1,2}(?:\.\d+)?)\s*%")
SERVING_CONTEXT = re.compile(r"vllm|(?<![a-z])serv(?:e|ing|ed)(?![a-z])|max[-_ ]model[-_ ]len|kv[-_ ]?cache|部署|推理|上线")

# What a serving question asks, beside "how many cards".
# A request length may stand between the words: "how many 4k requests", "多少个 4k 请求", "how many 8192-token sequences".
REQUEST_LEN = r"(?:\d+(?:\.\d+)?\s*k|\d{3,6})?\s*(?:[-\s]?tokens?\s*|的\s*)?"
# ("how many GB per sequence" asks the memory of one sequence: an amount of memory, no count of sequences)
CAPACITY = re.compile(rf"how\s+many\s+(?!(?:[gmtk]i?b|bytes?)(?![a-z]))(?:[a-z][\w-]*\s+){{0,3}}?{REQUEST_LEN}(?:[a-z][\w-]*\s+){{0,2}}?(?:users?|requests?|sessions?|sequences?|seqs?|clients?|"
                      r"streams?|people)|max(?:imum)?\s+concurren|how\s+many\s+(?:[a-z][\w-]*\s+){{0,3}}?(?:can\s+)?(?:run|be\s+served|fit)\s+concurrent|how\s+much\s+concurren|how\s+many\s+at\s+once|"
                      rf"(?:多少|几)(?:个|路|条)?\s*{REQUEST_LEN}[^，,。？?\s]{{0,4}}?(?:并发|用户|请求|序列|人)|并发(?:数|量)?\s*(?:能)?\s*(?:有|是|为|到|达到)?\s*(?:多少|几(?:个|路|条))|最大并发|几路|能服务多少|能支持多少")
# "kv per token", "kv/token", a misspelt "kv cahce": the KV cache asked all the same
KV_ASKED = re.compile(r"kv[-_ ]?cache|kv\s*缓存|键值缓存|(?<![a-z])kv\s*(?:size|memory|显存|占用)|"
                      r"(?<![a-z])kv\s*(?:per|/|每)\s*(?:个\s*)?tok|(?<![a-z])kv[-_ ]?c[aceh]{3,4}(?![a-z])|"
                      # the KV bytes of one token, the token said first ("per-token KV bytes", "每个 token 的 KV")
                      r"per[-_ ]?token\s+kv(?![a-z])|(?<![a-z])kv\s+bytes|每\s*(?:个\s*)?token\s*(?:的\s*)?kv(?![a-z])")
# The KV cache's size asked of the bare "kv" with its amount ("KV 要多少", "kv 占多少显存", "光 KV 就要几个 G", "KV 部分占几个
# GB": a verb of needing before the amount, a few words between) or named by its unit or word ("bytes of kv per token", "the
# kv footprint", "GB of KV"): the KV cache asked, whatever else the question names (not "kv heads": a shape figure)
KV_AMOUNT = (r"(?<![a-z])kv(?![a-z])(?!\s*heads?)[^?？。，,]{0,6}?(?:要|需要|得|占|占用|吃|吃掉|用|用掉)\s*"
             r"(?:多少|多大|几\s*(?:个)?\s*(?:[gmt]i?b?|字节|bytes?)(?![a-z]))|"
             r"(?:bytes?|[kmg]i?b)\s+of\s+(?:the\s+)?kv(?![a-z])(?!\s*heads?)|(?<![a-z])kv(?:[-_ ]?cache)?\s+(?:footprint|size|usage)(?![a-z])|"
             # "how much KV does one token cost", "KV total?": the amount asked of the bare "kv"
             r"how\s+much\s+kv(?![a-z])(?!\s*heads?)|(?<![a-z])kv(?:[-_ ]?cache)?\s+(?:in\s+)?total\s*[?？]")
# "kv cache 每 token 多大", "kv per token", "KV bytes per token": the KV bytes per token are asked
KV_PER_TOKEN_ASKED = re.compile(r"(?<![a-z])kv[-_ ]?(?:c[aceh]{3,4}\s*)?(?:的\s*)?(?:size\s*)?(?:per|/|每)\s*(?:个\s*)?tok|"
                                r"per[-_ ]?token\s+kv(?![a-z])|(?<![a-z])kv\s+bytes|每\s*(?:个\s*)?token\s*(?:的\s*)?kv(?![a-z])|"
                                r"(?<![a-z])kv[-_ ]?c[aceh]{3,4}(?![a-z])[^?？。]{0,20}(?:多大|多少|how\s+(?:big|much|many)|size)|"
                                # "KV cache for one 24k request in GiB": the amount asked by its unit
                                r"(?<![a-z])kv[-_ ]?c[aceh]{3,4}(?![a-z])[^?？。]{0,40}(?<![a-z])in\s+[kmg]i?b(?![a-z])|"
                                # "KV 一共多少", "kv total how much": the bare "kv" with an amount after it
                                r"(?<![a-z])kv(?![a-z])\s*(?:一共|总共|合计|加起来|总量|total|in\s+total)[^?？。]{0,8}(?:多大|多少|how\s+(?:big|much)|size)|"
                                + KV_AMOUNT + "|"
                                r"(?:how\s+(?:big|much|many\s+(?:bytes|[kmg]i?b))|多大|多少)[^?？。]{0,25}(?<![a-z])kv(?![a-z])|"
                                # "kv cache 为什么比 … 大", "why is the kv cache …", "每 token 各多少": the KV size asked all the same
                                r"(?<![a-z])kv[-_ ]?c[aceh]{3,4}(?![a-z])[^?？。]{0,12}(?:为什么|为啥|why)|(?:why|为什么|为啥)[^?？。]{0,30}(?<![a-z])kv(?![a-z])|"
                                r"(?:每|per)\s*(?:个\s*)?tok(?:en)?[^?？。]{0,8}(?:各|分别)?\s*(?:多少|多大|how\s+(?:big|much))", re.I)
# Serving speed: no tool has a figure; the answer says so and quotes the benchmark note. ("TPS" alone is
# the vendor's training throughput and stays a training-time word.)
SPEED = re.compile(r"throughput|吞吐|tokens?\s*(?:/|per)\s*(?:s|sec|second)(?![a-z])|tok/s|(?<![a-z])qps(?![a-z])|latency|延迟|"
                   r"ttft|first[-_ ]token|首\s*token|how\s+fast|速度|多快")
# What a changed KV precision does, asked of a follow-up ("token 容量呢", "how many tokens then", "能多放多少", "what does
# that buy me"): the two precisions are compared
KV_EFFECT = re.compile(r"(?<![a-z])(?:more|fewer|extra)\s+(?:tokens?|sequences?|context|room|users?)|how\s+many\s+(?:tokens?|sequences?)|"
                       r"capacity|gain|buy|change|differ|compare|effect|impact|"
                       r"容量|多放|多装|能放|能多|多了|少了|变化|变成|影响|区别|差别|对比|比较|提升|增加")
# How many copies of the served model the devices hold ("how many copies/instances/replicas can I run", "能起几个实例",
# not a training job's "how many data-parallel replicas",
# "一台能同时跑几个这样的", "how many of these fit on one node"): the devices (or one node) over the devices of one instance
INSTANCES_ASKED = re.compile(
    r"how\s+many\s+(?!data[-\s]?parallel)(?:[\w.-]+\s+){0,2}?(?:copies|instances|replicas|deployments|servers|endpoints)|"
    r"how\s+many\s+(?:of\s+)?(?:these|them|those|such)(?:\s+(?:jobs|services|models))?\s+(?:can\s+)?(?:fit|run|go|share)|"
    r"(?:能|可以|可)?(?:起|跑|放|部署|开|同时跑|同时起|同时部署|塞|放下)\s*(?:得下)?\s*(?:多少|几)\s*(?:个|份|套)\s*"
    r"(?:[^，,。？?]{0,20}?)(?:实例|副本|服务|任务|这样的|进程|模型)|(?:多少|几)\s*(?:个|份|套)\s*(?:实例|副本)")
# the copies named as served ones (an instance, a replica), not a training job ("同时跑几个这样的任务")
SERVED_COPY = re.compile(r"实例|副本|(?<![a-z])(?:instances?|replicas?|copies|deployments?|endpoints?)(?![a-z])")
# The devices one instance takes, as said ("每个实例要 2 卡", "each instance on 4 GPUs", "one replica per card", "2 cards per
# instance"): the divisor of the instance count, no device count of the user's
_DEV = r"(?:张\s*卡|张|卡|块\s*卡|块|cards?|gpus?|npus?|die|dies|devices?)"
_ONE = r"(\d{1,3}|one|a|an|single)"
PER_INSTANCE = re.compile(
    rf"(?:每个|每一个|每|单个|一个)\s*(?:[a-z][\w.\-]*\s*(?:的\s*)?)?(?:vllm\s*)?(?:实例|副本|服务|任务|replica|instance)\s*(?:要|用|占|需要|分|给|跑在|放在|上)?\s*(\d{{1,3}})\s*{_DEV}|"
    rf"(?<![a-z])(?:each|per|every)\s+(?:vllm\s+)?(?:instance|replica|copy|server|deployment)\s*(?:on|uses?|takes?|needs?|gets?|with|of|=|:)?\s*{_ONE}\s*{_DEV}(?![a-z])|"
    rf"(?<![0-9.]){_ONE}\s*(?:instance|replica|copy|server)s?\s+(?:per|on\s+each|for\s+each|each)\s*{_DEV}(?![a-z])|"
    rf"(?<![0-9.])(\d{{1,3}})\s*{_DEV}\s*(?:per|each|for\s+each|/)\s*(?:instance|replica|copy)|"
    rf"(?<![0-9.])(\d{{1,3}})\s*{_DEV}\s*(?:一个|一份|每个)\s*(?:实例|副本)")
_WORD_ONE = {"one": 1, "a": 1, "an": 1, "single": 1}
TRAINING_WORDS = re.compile(r"train|fine[-_ ]?tun|finetun|(?<![a-z])sft(?![a-z])|lora|微调|训练|全参|全量|精调|epoch")


@dataclass
class ServingWords:
    weight_bits: int | None = None
    quant_text: str | None = None  # the precision words as typed ("awq int4", "量化"), said back in the answer
    concurrency: int | None = None
    gpu_util: float | None = None
    kv_cache_dtype: str | None = None  # "int8 kv cache": estimate_inference kv_cache_dtype (int8 / fp8)
    # every weight precision named, in the order typed, when more than one ("bf16 and int8 weights", "int8 跟 int4 各要几张"):
    # each is sized and answered (``weight_bits`` stays the first quantised one)
    weight_bits_each: list[int] = field(default_factory=list)
    # the devices one served instance takes, as said ("每个实例要 2 卡", "one replica per card"): the instance count's divisor
    per_instance: int | None = None
    # every KV cache precision named, in the order typed, when more than one ("fp8 kv cache vs bf16 kv cache"): each is
    # sized and compared (frame.changes)
    kv_dtypes_each: list[str] = field(default_factory=list)
    util_invalid: str | None = None  # a memory share said outside (0, 1] ("util 1.3", "130%"), as typed: refused with the range


def read(r: Reading) -> ServingWords:
    """The serving words of the question; the precision, concurrency and utilisation words claimed."""
    out = ServingWords()
    for m in list(r.finditer(KV_DTYPE)):
        raw = next(g for g in m.groups() if g)
        value = "int8" if raw.startswith(("int8", "8")) else "fp8" if raw.startswith("fp8") else "auto" if raw in KV_16 else raw
        out.kv_cache_dtype = out.kv_cache_dtype or value
        out.kv_dtypes_each.append(value)
        r.claim_match(m, "kv_cache_dtype", value)  # still asks about the KV cache (serving_intents)
    # "fp8 kv cache vs bf16": the 16-bit one said alone beside the KV precision named is the other side of the comparison
    if out.kv_cache_dtype and len(set(out.kv_dtypes_each)) == 1 and out.kv_cache_dtype != "auto" and (
            half := r.search(KV_OTHER_HALF)):
        out.kv_dtypes_each.insert(0 if half.start() < next(sp.start for sp in r.slot("kv_cache_dtype")) else 1, "auto")
        r.claim_match(half, "kv_cache_dtype", "auto")
    # the model's own 16-bit cache first: the 8-bit one is what is compared against it
    out.kv_dtypes_each = sorted(dict.fromkeys(out.kv_dtypes_each), key=lambda v: v != "auto")
    if len(out.kv_dtypes_each) < 2:
        out.kv_dtypes_each = []
    said: list[tuple[int, str]] = []  # (position, words): said back in the order typed
    widths: list[tuple[int, int]] = []  # (position, bits) of every precision named
    for rx, bits in BITS:
        for m in list(r.finditer(rx)):
            if out.weight_bits is None:
                out.weight_bits = bits or int(m.group(1))
            said.append((m.start(), m.group(0).strip()))
            if not METHOD_DEFAULT.search(rx.pattern):
                widths.append((m.start(), bits or int(m.group(1))))
            r.claim_match(m, "weight_bits", bits or int(m.group(1)))
    if out.weight_bits is None and (half := r.search(HALF)):
        out.weight_bits = 16  # said, not claimed: "bf16" and "fp16" also ask the BF16-vs-FP16 note
        said.append((half.start(), half.group(0)))
    if widths and (half := r.search(HALF)):  # "bf16 and int8 weights": the 16-bit half is one of the precisions asked
        widths.append((half.start(), 16))
    each = list(dict.fromkeys(bits for _, bits in sorted(widths)))
    out.weight_bits_each = each if len(each) > 1 else []
    for m in list(r.finditer(QUANTIZED)):
        said.append((m.start(), m.group(0)))
        r.claim_match(m, "quant_text", m.group(0), "vocabulary")
    out.quant_text = " ".join(dict.fromkeys(w for _, w in sorted(said))) or None
    for m in list(r.finditer(UTIL)):
        raw = (m.group(1) or m.group(2) or m.group(3) or m.group(4) or "").replace(" ", "")
        value = float(raw.rstrip("%")) / (100 if raw.endswith("%") or m.group(2) else 1)
        if out.gpu_util is None and 0 < value <= 1:
            out.gpu_util = round(value, 4)
        elif not 0 < value <= 1:
            out.util_invalid = out.util_invalid or r.text[m.start():m.end()]
        r.claim_match(m, "gpu_util", round(value, 4))
    if out.gpu_util is None and SERVING_CONTEXT.search(r.text) and (pct := r.search(UTIL_PERCENT)):
        text = next(g for g in pct.groups() if g)
        value = round(float(text) / 100, 4)
        if 0 < value <= 1:
            out.gpu_util = value
        else:
            out.util_invalid = out.util_invalid or r.text[pct.start():pct.end()]
        r.claim_match(pct, "gpu_util", out.gpu_util)
    for m in list(r.finditer(UTIL_WORD_RX)):
        r.claim_match(m, "gpu_util", None, "vocabulary")  # the flag alone is no memory question
    for m in list(r.finditer(PER_INSTANCE)):
        raw = next(g for g in m.groups() if g)
        # "one replica per card": the count said first is the replicas, one device each
        n = 1 if m.group(3) is not None else _WORD_ONE.get(raw) or int(raw)
        out.per_instance = out.per_instance or n
        first = next(i for i in range(1, (m.re.groups or 0) + 1) if m.group(i))
        r.claim(m.start(first), m.end(), "per_instance", n)  # from the count on: a model named between "每个" and "实例" stays
    for rx in CONCURRENCY:
        for m in list(r.finditer(rx)):
            if out.concurrency is not None and (m.group(2) or "").lower() == "k":
                continue  # "8 concurrent 16k requests": with the count said, a k-number by the requests is their length
            count = round(amount(m.group(1), m.group(2)))
            if out.concurrency is None and count >= 1:
                out.concurrency = count
            r.claim_match(m, "concurrency", count)
    return out


def serving_intents(intents: set[str], work: str, training: bool, tps_given: bool, serving_only: bool, served: bool,
                    kv_said: bool = False) -> set[str]:
    """The serving intents: "capacity" (how many users fit), "kv" (how much KV cache), "throughput"
    (how fast; a serving question unless training is named or a TPS figure is given). A model that is
    only served (embeddings, rerankers), or quantised weights, concurrency or a memory utilisation
    without training words (``served``), ask about serving; a KV cache precision (``kv_said``) asks about the KV cache."""
    out = set(intents)
    if CAPACITY.search(work):
        out |= {"capacity", "inference"}
        if not Reading.claiming(work, "capacity", CAPACITY).search(INTENTS["cards"]):
            out.discard("cards")  # "how many users can 8 cards serve" asks users, not cards
    if KV_ASKED.search(work) or re.search(KV_AMOUNT, work, re.I) or kv_said:
        out |= {"kv", "inference"}
    training = training or bool(TRAINING_WORDS.search(work))
    if SPEED.search(work) and not tps_given and ("inference" in out or not training):
        out |= {"throughput", "inference"}
        out.discard("time")
    if (serving_only or served) and not training:
        out.add("inference")
    if INSTANCES_ASKED.search(work):  # copies of a served model: no card count of one copy
        out.add("instances")
        out.discard("cards")
        if SERVED_COPY.search(work) and not training:
            out.add("inference")
    return out

