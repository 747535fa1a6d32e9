"""What a question asks: the intents of intents.toml found in it, refined by the rules that words alone
cannot carry (a memory amount asked is no card count; a stated device count asks nothing), and which
config file a config request means."""

from __future__ import annotations

import re

from . import serving_words
from .asked import ASKS_VERDICT
from .frame import QuestionFrame as Slots
from .quantity import PARTS_JOINED
from .spans import Reading
from .vocab import ASKS_COUNT, CONFIG_FORMATS, INTENTS, MEMORY_ASKED

# A question whether a setting would run out of memory, against a report that it did.
WILL_IT_OOM = re.compile(r"(?:(?<![a-z])(?:will|would|could|does|do|is\s+it\s+going\s+to|am\s+i\s+going\s+to)\s[^?.。！!]{0,80}?)"
                         r"(?<![a-z])(?:oom|run\s+out\s+of\s+memory|go\s+oom)|会不会\s*(?:oom|爆显存|显存不足|溢出)|会\s*(?:oom|爆显存|显存不足|溢出)|"
                         r"(?:oom|爆显存|溢出)\s*吗")
# a difference asked where the question names one catalog part (two of its spellings, or its variants B1/B2/B3)
DIFFERENCE = re.compile(r"differ|(?<![a-z])same(?![a-z])|区别|差别|不同|一样|有啥|还是")
# two figures offered to choose from ("16 还是 8", "180G 还是 192G", "32GB or 64GB"): a figure asked, not the part's names
NUMBERS_OFFERED = re.compile(r"(?<![a-z0-9.])\d+(?:\.\d+)?\s*(?:gi?b?|个|张|台|dies?|卡)?\s*(?:还是|或者?|or)\s*\d+(?:\.\d+)?")
# the weights named inside the model's own words ("qwen2.5-32b 权重 bf16", "llama3 weights fp16")
WEIGHTS_IN_NAME = re.compile(r"权重|(?<![a-z])weights?(?![a-z])", re.I)
REPORTED = re.compile(r"error|traceback|tried\s+to\s+allocate|报错|出现|got\s+(?:an?\s+)?oom|ran\s+out|已经|又")


# "按推荐配置够吗", "is 2 nodes enough per the recommended config?": the vendor's recommended setup is the yardstick of a
# yes/no, not a file asked for (round 10 c2-13: an unasked YAML forced to the user's count)
RECOMMENDED_YARDSTICK = re.compile(r"(?:推荐|建议|官方|厂商)的?\s*配置|recommended\s+(?:config(?:uration)?|setup|settings?)")
VERDICT_WORDS = re.compile(r"够|行不行|能不能|可以吗|能跑|enough|(?<![a-z])fits?(?![a-z])|(?<![a-z])ok\b")
FILE_ASKED = re.compile(r"ya?ml|json|配置文件|脚本|script|给我|生成|generate|写|write|give\s+me")
# a config pasted to be judged ("这个配置 … model_name_or_path: … cutoff_len: 8192，可行吗"): its keys are the job, the
# yes/no is the question; a file is asked only in words that ask for one (write, fix, give me, 改)
PASTED_KEYS = re.compile(r"(?<![\w-])(?:model_name_or_path|finetuning_type|deepspeed|cutoff_len|per_device_train_batch_size|"
                         r"gradient_accumulation_steps|zero_optimization|template|lora_rank|num_train_epochs)\s*[:=]")
FILE_REQUESTED = re.compile(r"给我|生成|写|改|修|generate|write|give\s+me|fix|correct|rewrite|adjust|edit|update", re.I)


# how long a wait lasts before a timeout fires ("等多久会超时", "how long before it gives up"): the timeout's own figure
TIMEOUT_WAIT = re.compile(r"(?:多久|多长时间|几分钟|多少分钟|多少秒|几秒)[^，,。？?]{0,6}(?:超时|timeout|time\s*out)|"
                          r"(?:超时|timeout|time\s*out)[^，,。？?]{0,8}(?:多久|多长时间|几分钟|多少分钟|多少秒|几秒)|"
                          r"how\s+long\s+(?:before|until|till)\s+(?:[\w-]+\s+){0,3}?(?:times?\s*out|gives?\s+up|fails?|errors?\s+out|aborts?)|"
                          r"(?:time\s*out|timeout)\s+(?:after\s+)?how\s+long")


# how long something stays valid ("token 过几个小时失效", "how many hours until the API key expires"): a lifetime, not a
# duration of training
VALIDITY = re.compile(r"expir|(?<![a-z])(?:in)?valid(?:ity)?(?![a-z])|失效|过期|有效期|到期")


def read_intents(work: str, s: Slots, serving_only: bool) -> None:
    """The intents table (intents.toml), then what words alone cannot carry: "with 16 cards" states a
    count, "how many cards" asks one. ``serving_only``: the model is served, never trained."""
    s.intents = {name for name, rx in INTENTS.items() if rx.search(work)}
    if "row_length" in s.intents:
        s.intents.discard("max_context")  # "那一行是按多长的序列写的": the row's own length, not the longest that fits
    s.intents = serving_words.serving_intents(s.intents, work, bool(s.method or s.stage or "train" in s.intents),
                                              bool(s.tps or s.tokens), serving_only,
                                              bool(s.quant_text and s.weight_bits != 16 or s.concurrency or s.gpu_util),
                                              bool(s.kv_cache_dtype))
    if not (s.framework and s.hardware):
        s.intents.discard("part_framework")  # a framework's requirement is asked of a part only when both are named
    if {"memory", "cards"} <= s.intents and not Reading.claiming(work, "memory_asked", MEMORY_ASKED).search(INTENTS["cards"]):
        s.intents.discard("cards")  # "显存占用多少" / "how much memory per card" asks GiB, not a card count
    if "cards" in s.intents and (s.devices or s.nodes) and not ASKS_COUNT.search(work):
        s.intents.discard("cards")  # "with 16 cards" / "我只有16张卡" states what they have; nothing asks for a count
    if {"cards", "problem"} <= s.intents and not (s.devices or s.nodes) and not ASKS_COUNT.search(work):
        s.intents.discard("cards")  # "saving times out on multi-node": a device word in a report asks for no count
    if (s.tokens or s.tps) and not s.intents - {"train", "estimate", "time"}:
        s.intents.add("time")  # "llama3-8b on 1B tokens with 8 A100": a token total asks for a duration
    if s.settings.get("deadline_hours") and (s.tokens or s.tps or s.samples):
        s.intents.add("time")  # "3B tokens within 24 h at 2500 tok/s, how many cards": the cards the deadline needs
    if "time" in s.intents and VALIDITY.search(work) and not (s.tokens or s.tps or s.samples or s.method or "train" in s.intents):
        s.intents.discard("time")  # "token 过几个小时失效": the note that states the lifetime, not the training-time formula
    if "time" in s.intents and TIMEOUT_WAIT.search(work) and not (s.tokens or s.tps or s.samples):
        s.intents.discard("time")  # "等多久会超时": the wait a timeout allows (its note), not the training-time formula
    if WILL_IT_OOM.search(work) and not REPORTED.search(work):
        s.intents.discard("problem")  # "会OOM吗" / "will it OOM?" asks for the memory, it reports nothing
        s.intents.add("oom_asked")
    if RECOMMENDED_YARDSTICK.search(work) and VERDICT_WORDS.search(work) and not FILE_ASKED.search(work):
        s.intents.discard("config")
    if len(PASTED_KEYS.findall(work)) >= 2 and ASKS_VERDICT.search(work) and not FILE_REQUESTED.search(work):
        s.intents.discard("config")  # a pasted config judged: the verdict on its job, not the file written back
    if "memory" in s.intents and WEIGHTS_IN_NAME.search(s.model_text or "") and not s.intents & {"states_memory", "kv"}:
        s.intents.add("weights_memory")  # "qwen2.5-32b 权重 bf16 多大": the model's span took the weights word with it
    if "states_memory" in s.intents or PARTS_JOINED.search(work):
        # "weights + grads + Adam", "bf16 权重和梯度一共多大" name the weights as one of the states, not alone
        s.intents.discard("weights_memory")
    if s.intents & {"weights_memory", "states_memory"}:
        s.intents.add("memory")  # "model states only" / "权重本身多大": an amount of memory, whatever words it uses
        if "weights_memory" in s.intents and not (s.method or s.stage or "train" in s.intents):
            # the weights alone, of no training job: sized by the serving estimate (its weights figure), and a count
            # asked beside them ("how many cards just to hold them") is the count that holds the weights
            s.intents = (s.intents | {"inference"}) - {"cards"}
    if s.settings.get("requested_devices") and s.hardware_text and not (s.model or s.models or s.method):
        s.intents.add("part_job_devices")  # "A3 上一个任务可以申请 3 个 die 吗": a count a job requests of the part, no model
    if s.hardware_text and (s.dies_per_card or 1) > 1 and re.search(r"(?<![a-z])die", work):
        s.intents.add("cards")
    if s.hardware_text and not s.model and len(s.hardwares) < 2 and Reading.claiming(work, "offered", NUMBERS_OFFERED).search(DIFFERENCE):
        s.intents.add("part_naming")  # "910b1 和 910b2 有啥区别": spellings or variants of one catalog part, what its names are


COMPARED = re.compile(r"differ|(?<![a-z])vs\.?(?![a-z])|versus|compar|区别|差别|不同|对比|有啥变化")
FILE_ASKED = re.compile(r"ya?ml|json|(?<![a-z])env|script|脚本|文件|file|give\s+me|给我|生成|写(?:一|个|份)|generate|write|launch|命令")


def read_config_format(work: str, s: Slots) -> None:
    """Which file a config request asks for, in the framework named."""
    for name, rx in CONFIG_FORMATS:
        if rx.search(work):
            s.config_format = name
            break
    if s.config_format in ("deepspeed_json", "llamafactory_yaml") and s.framework == "MindSpeed-LLM":
        s.config_format = "mindspeed_env"
        s.mark("read_as", "config_format")  # "the yaml" with MindSpeed-LLM: its launch variables
    if s.config_format == "mindspeed_env" and s.framework == "LLaMA-Factory":
        s.config_format = "launch"  # LLaMA-Factory's variables live in its launch script
        s.mark("read_as", "config_format")
    if s.config_format is None:
        s.config_format = "mindspeed_env" if s.framework == "MindSpeed-LLM" else "llamafactory_yaml"
        s.mark("default", "config_format")  # "give me the config": the framework's own file
    # "8192 和 4096 推荐的 zero 配置有啥区别", "zero config for 2048 vs 8192, what's the difference": the settings compared
    # are the answer, each length's; no file was asked for (a file needs its own word: yaml, json, 文件, give me, 生成)
    if COMPARED.search(work) and not FILE_ASKED.search(work):
        s.intents.discard("config")
        return
    # "config" alone on a sizing question ("which DeepSpeed config stage") is not a file request
    if not re.search(r"ya?ml|json|(?<![a-z])env|script|脚本|launch|torchrun|命令|变量|variables?|exports?|generate|生成|give\s+me|给我|写|"
                     r"(?<![a-z])(?:command|cmd)(?![a-z])|(?:serve|launch|run)\s+line|启动参数|(?:write|draft)\s+(?:me\s+)?(?:the|a|an|my)\b|"
                     r"config\s+file|配置文件|the\s+config|config\s+for|配置", work):
        s.intents.discard("config")
