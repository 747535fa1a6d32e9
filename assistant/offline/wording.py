"""Answer wording shared by the offline planner's writers: phrases in English and Chinese, table
labels, and a base class with the small formatting helpers (units, nodes, sources)."""

from __future__ import annotations

import re
import string
import tomllib
from pathlib import Path
from typing import Any

from ..answer import source_as_known
from ..estimate import constants as C
from ..tools.estimate_support import generic_part
from ..wordings import in_language
from .parse import Slots
from .results import Results
from .route import Done, Effective, effective

# ---------------------------------------------------------------- wording
PHRASES_FILE = Path(__file__).with_name("phrases.toml")


def load_phrases(path: Path = PHRASES_FILE) -> dict[str, dict[str, str]]:
    """Phrase id -> {"en": ..., "zh": ...}: the writer's phrase catalogue (phrases.toml), checked so every
    phrase has both languages and neither uses a placeholder the other cannot be given (a language may leave
    one out: Chinese needs no plural verb)."""
    with path.open("rb") as fh:
        table = tomllib.load(fh)
    for key, pair in table.items():
        if set(pair) != {"en", "zh"} or not all(isinstance(v, str) for v in pair.values()):
            raise ValueError(f"{path.name}: phrase {key!r} needs an 'en' and a 'zh' string")
        for lang in pair:
            list(string.Formatter().parse(pair[lang]))  # a stray brace fails here, at load, not in an answer
    return table


W: dict[str, dict[str, str]] = load_phrases()  # read once at import; Writer takes another catalogue as an argument
METHOD = {
    "en": {"lora": "LoRA", "qlora": "QLoRA", "full": "full fine-tuning", "freeze": "freeze (partial) fine-tuning", None: "LoRA and full"},
    "zh": {"lora": "LoRA 微调", "qlora": "QLoRA 微调", "full": "全参微调", "freeze": "冻结微调", None: "LoRA 与全参"},
}
# Pre-training (stage pt, "from scratch", "continued pretraining", "预训练") named by its method.
PRETRAIN = {
    "en": {"full": "pre-training (PT, full parameters)", "lora": "LoRA continued pre-training (PT)",
           "qlora": "QLoRA continued pre-training (PT)", "freeze": "freeze (partial) continued pre-training (PT)"},
    "zh": {"full": "预训练（PT，全参）", "lora": "LoRA 增量预训练（PT）", "qlora": "QLoRA 增量预训练（PT）", "freeze": "冻结增量预训练（PT）"},
}
STRATEGY = {"en": {"lora": "LoRA", "full": "full"}, "zh": {"lora": "LoRA", "full": "全参"}}
RECIPE_LABEL = {"en": "ModelArts LLaMA-Factory recipe table", "zh": "ModelArts LLaMA-Factory 配方表（NPU卡数、梯度累积值取值表）"}
MIN_LABEL = {"en": "ModelArts minimum-card table (2025-06-24)", "zh": "ModelArts 模型最小卡数表（2025-06-24）"}
VLLM_LABEL = {"en": "ModelArts vLLM inference table", "zh": "ModelArts vLLM 推理表"}
PASSAGE_CHARS = 900
# What each note (knowledge/notes/*.md) is about, in Chinese: a one-line lead-in before an English
# passage is quoted in a Chinese answer. A note missing here gets a generic lead-in.
NOTE_TOPIC_ZH = {
    "oom.md": "NPU 显存溢出（OOM）的报错特征与处理办法",
    "ckpt_timeout.md": "多机训练保存 checkpoint 超时的原因与解决办法",
    "flash_attention.md": "NPU FlashAttention（NPU_Flash_Attn）融合算子的使用约束",
    "bf16_fp16.md": "BF16 与 FP16 在昇腾上训练和推理时的区别与选择",
    "zero_stages.md": "DeepSpeed ZeRO 阶段与 offload 的选择",
    "snt9b_vs_snt9b23.md": "Snt9B 与 Snt9B23 的区别以及 DIE 的含义",
    "training_time.md": "训练时间与集群规模的估算方法",
    "vllm_faq.md": "昇腾上 vLLM 推理的卡数、max-model-len 与常见问题",
    "parallelism.md": "TP/PP/CP/EP 并行与 MindSpeed-LLM 启动变量",
    "llamafactory_on_ascend.md": "在 ModelArts 昇腾上使用 LLaMA-Factory 的配置、启动与限制",
    "lora_qlora.md": "LoRA、QLoRA 与冻结微调的显存计算",
    "tables_caveats.md": "厂商卡数表格中的异常与注意事项",
}
CJK_TEXT = re.compile(r"[\u4e00-\u9fff]")
# The estimator's assumptions, worded in Chinese for Chinese answers (the tools speak English; the
# answer is in the question's language throughout). Patterns not listed stay as the tool wrote them.
ASSUMPTION_ZH = [
    (re.compile(r"activations in (bf16|fp16|fp32) with FlashAttention \(no s\^2 term\)"), r"激活按 \1 计、启用 FlashAttention（无 s² 项）"),
    (re.compile(r"activations in (bf16|fp16|fp32) with memory-efficient SDPA, FlashAttention-2 needing Ampere or newer "
                r"\(no s\^2 term\)"), r"激活按 \1 计、使用 PyTorch SDPA 的省显存内核（无 s² 项；FlashAttention-2 需要 Ampere 及更新的 GPU）"),
    (re.compile(r"torch\.compile: the compiled layers keep 8h \+ 4·kv_dim \+ 4·ffn bytes per token and layer, a chunked "
                r"loss only the bf16 logits"), "torch.compile：编译后每层每 token 保留 8h + 4·kv_dim + 4·ffn 字节，分块 loss 只保留 bf16 logits"),
    (re.compile(r"allocator with expandable segments \(PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\): no fragmentation "
                r"term \((\S+) sets it\)"), r"显存分配器开启 expandable segments（PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True，\1 会自动设置）：不计碎片"),
    (re.compile(r"allocator with expandable segments \(PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\): no fragmentation "
                r"term"), "显存分配器开启 expandable segments（PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True）：不计碎片"),
    (re.compile(r"allocator with expandable segments \(PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\): Ascend keeps "
                r"its calibrated fragmentation share"), "显存分配器开启 expandable segments：昇腾仍按标定的碎片比例计"),
    (re.compile(r"(\S+) has no BF16: fp16 mixed precision assumed \(same bytes per value as bf16\)"),
     r"\1 不支持 BF16：按 fp16 混合精度计（每个值的字节数与 bf16 相同）"),
    (re.compile(r"(\S+): data parallel sized as DeepSpeed ZeRO-(\d) \(FSDP full shard\)"), r"\1：按 DeepSpeed ZeRO-\2（FSDP 全分片）的数据并行估算"),
    (re.compile(r"(\S+): data parallel sized as DeepSpeed ZeRO-(\d)"), r"\1：按 DeepSpeed ZeRO-\2 的数据并行估算"),
    (re.compile(r" with CPU offload; its default loss is (\w+)"), r"，开 CPU offload；其默认 loss 为 \1"),
    (re.compile(r"; its default loss is (\w+)"), r"；其默认 loss 为 \1"),
    (re.compile(r"activation offloading: the activations saved for backward wait in host RAM, (\d+) layers' worth on the device"
                r" \((\S+)'s default\)"), r"激活卸载：反向所需的激活暂存在主机内存，设备上只保留 \1 层（\2 的默认设置）"),
    (re.compile(r"activation offloading: the activations saved for backward wait in host RAM, (\d+) layers' worth on the device"),
     r"激活卸载：反向所需的激活暂存在主机内存，设备上只保留 \1 层"),
    (re.compile(r"usable memory = ([\d.]+) GB x ([\d.]+) reported capacity"), r"可用显存 = \1 GB × \2（运行时报告的容量）"),
    (re.compile(r"MindSpeed-LLM: distributed optimizer, sequence parallel with TP, 1F1B pipeline"),
     "MindSpeed-LLM：分布式优化器，开 TP 时开启序列并行，1F1B 流水线"),
    (re.compile(r"DeepSpeed ZeRO-(\d) with CPU offload over data parallel"), r"DeepSpeed ZeRO-\1 + CPU offload，数据并行"),
    (re.compile(r"DeepSpeed ZeRO-(\d) over data parallel"), r"DeepSpeed ZeRO-\1，数据并行"),
    (re.compile(r"shape inferred from the parameter count: "), "模型结构由参数量推断："),
]


# The tools' notes shown as bullets, worded in Chinese (every note generate_config and list_models write; a new one
# stays as written).
TOOL_NOTE_ZH = [
    (re.compile(r"^(\S+) ships with LLaMA-Factory; the JSON here is the same shape\.$"), r"\1 随 LLaMA-Factory 提供；这里的 JSON 与它相同。"),
    (re.compile(r"^LLaMA-Factory ships no (\S+): save this JSON as (\S+)\.$"), r"LLaMA-Factory 没有自带 \1：请把这份 JSON 保存为 \2。"),
    (re.compile(r"^TP/PP must match the Hugging Face -> Megatron weight conversion; re-convert when you change them\.$"),
     "TP/PP 必须与 Hugging Face → Megatron 权重转换时的设置一致；修改 TP/PP 后需要重新转换权重。"),
    (re.compile(r"^(\S+): in the older LLaMA-Factory recipe table, but '-' \(not supported\) for LLaMA-Factory in the "
                r"(\d{4}-\d{2}-\d{2}) minimum-card table, so left out\.$"),
     r"\1：较早的 LLaMA-Factory 配方表中有它，但 \2 的最小卡数表中 LLaMA-Factory 为“-”（不支持），因此未列入。"),
    # derive_quantity's sources (tools/derived_tools.py)
    (re.compile(r"^arithmetic on the figures given$"), "按你给出的数字计算"),
    (re.compile(r"^estimate from the model catalog \((.+)\) and the figures given$"), r"按模型目录（\1）和你给出的数字估算"),
    (re.compile(r"^estimate from the model catalog and the figures given$"), "按模型目录和你给出的数字估算"),
    (re.compile(r"^model catalog \((.+)\)$"), r"模型目录（\1）"),
    (re.compile(r"^model catalog$"), "模型目录"),
    # generate_config's check of a plan changed by the request (tools/configs.py _memory_note), one piece at a time
    (re.compile(r"^With (.+) so set the estimate is ([\d.]+) GiB per (\S+) \(likely ([\d.]+)-([\d.]+)\) of ([\d.]+) usable: it "),
     r"按这样设置的 \1，估算每个 \3 约 \2 GiB（可能在 \4-\5 之间），可用 \6 GiB："),
    (re.compile(r"^(按这样设置的 .*)每个 card "), r"\1每卡"),
    (re.compile(r"^(按这样设置的 .*：)fits\.$"), r"\1放得下。"),
    (re.compile(r"^(按这样设置的 .*：)does not fit\.$"), r"\1放不下。"),
    (re.compile(r"^(按这样设置的 .*：)is tight \(the likely range crosses the usable memory\)\.$"), r"\1偏紧（可能范围越过可用显存）。"),
    (re.compile(r"^(按这样设置的 .*：)is tight \(the likely range fits; a case beside it, such as pinned ZeRO-3 blocks, does not\)\.$"),
     r"\1偏紧（可能范围放得下，但旁边的情形（如被钉住的 ZeRO-3 权重块）放不下）。"),
    (re.compile(r" \+ full recompute$"), " + 完全重计算"),  # a slower setting: 'TP 4 × PP 1 + full recompute'
    (re.compile(r" \+ CPU offload$"), " + CPU offload 卸载"),
    (re.compile(r"^The vLLM table tested at most (\d+) tokens; (\d+) is beyond it\.$"), r"vLLM 表最长只测试到 \1 个 token；\2 超出了这个范围。"),
    (re.compile(r"^The vLLM table \(([^)]+)\) serves (\d+) tokens on (\d+) cards?; the estimate needs (\d+) for (\d+) tokens x (\d+)\.$"),
     r"vLLM 表（\1）在 \3 张卡上服务 \2 个 token；估算对 \5 个 token × \6 并发需要 \4 张。"),
]


def assumption_zh(text: str, table: list[tuple[re.Pattern[str], str]] | None = None) -> str:
    """``text`` with every pattern of ``table`` (the estimator's assumptions by default) worded in Chinese."""
    for rx, zh in ASSUMPTION_ZH if table is None else table:
        text = rx.sub(zh, text)
    return text


def note_lead_in_zh(file: str, title: str, text: str) -> str:
    """'以下摘自笔记《...》，原文引用如下：'; an English note (no Chinese twin found) also gets a gloss
    of its topic in Chinese: '…，讲的是…；笔记为英文，原文引用如下：'."""
    english = len(CJK_TEXT.findall(text)) < len(text) / 10
    if not english:
        return f"以下摘自笔记《{title}》，原文引用如下："
    topic = NOTE_TOPIC_ZH.get(file)
    about = f"，讲的是{' ' if topic[0].isascii() else ''}{topic}" if topic else ""
    return f"以下摘自笔记《{title}》{about}；笔记为英文，原文引用如下："


def t(key: str, lang: str, **kw) -> str:
    return W[key][lang].format(**kw)


def sentence_cut(text: str, limit: int) -> str:
    """Cut at the last sentence or line end before ``limit`` characters."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    ends = [m.end() for m in re.finditer(r"[.。!?！？\n](?=\s|$)|[。；]", cut)]
    return (cut[: ends[-1]] if ends and ends[-1] > limit // 3 else cut).rstrip() + " …"


# "Will it OOM?" is answered by the fit verdict with its polarity turned: "**Yes** … it fits" means no OOM.
OOM_POLARITY = (("**Tight only if attention falls back**", "**It may run out of memory only if attention falls back**"),
                ("**只有注意力回退时才偏紧**", "**只有注意力回退时才可能 OOM**"), ("**Yes**", "**No OOM expected**"), ("**No**", "**Yes, it would run out of memory**"),
                ("**可以**", "**不会 OOM**"), ("**不够**", "**会 OOM**"), ("**不行**", "**会 OOM**"), ("**够**", "**不会 OOM**"),
                ("**Tight**", "**It may run out of memory**"), ("**偏紧**", "**可能会 OOM**"))


class Writer:
    """State of one answer being written: the slots, the tool results, the sources cited so far."""

    def __init__(self, s: Slots, done: list[Done], parts: dict[str, dict] | None = None,
                 phrases: dict[str, dict[str, str]] | None = None):
        """``parts``: hardware id -> its hardware catalog row: the kind (npu, gpu) names a device (card or GPU), the
        devices per node count nodes. ``phrases``: the phrase catalogue (phrases.toml unless another is given)."""
        self.s, self.done, self.lang = s, done, s.lang
        self.phrases = phrases or W
        self.parts = parts or {}
        if generic := generic_part(s.hardware):  # a part known by its stated memory alone ("MI210 64GB")
            self.parts = {**self.parts, generic["id"]: generic}
        self.kinds = {hw: str(row.get("kind") or "") for hw, row in self.parts.items()}
        self.r = Results(done)
        self.headlined = False  # one headline per answer: the first block that answers leads with it
        self.stated: list[object] = []  # plans already stated in full: each plan is stated once
        # the user's devices below the minimum-card row, said once: by the time block (timing.below_floor) or by the
        # training verdict (capacity: the vendor tables' no), whichever comes first; the other leaves it out
        self.below_minimum_said = False
        self.said_micro_batch_1: set[tuple[int, str]] = set()  # the micro-batch-1 plan said once (plans.other_settings)
        self.said_once: set[str] = set()  # a line that two blocks could each write (part_facts: the identity of two names)
        self.e: Effective = effective(s)
        self.sources: list[str] = []
        self.zh = self.lang == "zh"

    # -- helpers -------------------------------------------------------------------------------
    def catalog_comparison(self) -> str:
        """The one-line comparison of the parts compared on a figure asked (part_facts.py writes it); none here."""
        return ""

    def lead(self, text: str) -> str:
        """``text`` as the answer's headline ("**Answer:** …") if none was written yet, else as it is:
        an answer has one headline, the blocks after it support it."""
        if self.headlined:
            return text
        self.headlined = True
        if "oom_asked" in self.s.intents:  # "will it OOM?": a fit verdict answers it the other way round
            for fits, oom in OOM_POLARITY:
                if text.startswith(fits):
                    text = oom + text[len(fits):]
                    break
        return self.say("answer") + text

    def say(self, key: str, **kw: object) -> str:
        """A phrase of the catalogue (phrases.toml), in the answer's language."""
        return self.phrases[key][self.lang].format(**kw)

    def error_text(self, call: Any) -> str:
        """A tool's refusal (its English message) in the answer's language: the Chinese wording of the Wordings table
        that made it (tools/error_messages.py, configs/messages.py)."""
        return in_language(call.error.message, self.lang)

    def L(self, en: str, zh: str) -> str:
        return zh if self.zh else en

    def fw_name(self, framework: str | None, hardware: str | None = None) -> str:
        """The framework a plan names: MindSpeed-LLM is Ascend's Megatron, so on GPUs the same TP/PP/CP
        layout is Megatron-LM's."""
        if framework == "MindSpeed-LLM" and hardware and self.is_gpu(hardware):
            return "Megatron-LM"
        return framework or ""

    def parallel(self, zero_stage: int | None, offload: bool | None, tp: int | None = 1, pp: int | None = 1, cp: int | None = 1,
                 ep: int | None = 1) -> str:
        """'ZeRO-3 + offload' (LLaMA-Factory) or 'TP 4 × PP 2' (× CP when used; MindSpeed-LLM), with ', EP 8' when a MoE
        plan splits its experts (over the data-parallel ranks, so it is no factor of the device group); a stage of a
        trainer that shards with FSDP (the estimator's FSDP_FRAMEWORKS, or FSDP named) in FSDP's words (phrases.toml
        stage_fsdp_*), the ZeRO stage it is sized as beside them."""
        if zero_stage is not None:
            return self.stage_words(zero_stage) + (" + offload" if offload else "")
        return f"TP {tp} × PP {pp}" + (f" × CP {cp}" if (cp or 1) > 1 else "") + (f"{self.say('comma')}EP {ep}" if (ep or 1) > 1 else "")

    def stage_words(self, zero_stage: int) -> str:
        """'ZeRO-3', or 'FSDP full shard (ZeRO-3)' in a conversation whose trainer shards with FSDP."""
        key = f"stage_fsdp_{zero_stage}"
        return self.say(key) if self.shards_with_fsdp and key in self.phrases else f"ZeRO-{zero_stage}"

    @property
    def shards_with_fsdp(self) -> bool:
        """FSDP named, or a trainer that shards only with FSDP (the estimator's FSDP_FRAMEWORKS) with no framework named."""
        s = getattr(self, "s", None)
        return bool(s is not None and (s.settings.get("fsdp") or (s.stack in C.FSDP_FRAMEWORKS and not s.framework)))

    def method_name(self, method: str | None) -> str:
        """'full fine-tuning', or 'pre-training (PT, full parameters)' when the stage is pre-training."""
        if self.s.stage == "pt" and method in PRETRAIN[self.lang]:
            return PRETRAIN[self.lang][method]
        return METHOD[self.lang].get(method, method or "")

    def results(self, name: str, ok: bool | None = True) -> list[Done]:
        return [d for d in self.done if d.name == name and (ok is None or d.ok == ok)]

    def table_source(self, table: str, source: str) -> str:
        """'ModelArts vLLM inference table vllm-newest (page modelarts_llm_infer_5910003, updated 2025-11-19)', in the
        answer's language: the vendor page by its id and date, as the transcription names it."""
        page = re.search(r"modelarts_llm_infer_\d+", source)
        date = re.search(r"\d{4}-\d{2}-\d{2}", source)
        # a table of unknown version: the era its source names ("version unknown, v0.5.0/v0.6.x era")
        era = re.search(r"version unknown,\s*(v[\w./]+)\s+era", source)
        en = ", ".join(x for x in (f"page {page.group(0)}" if page else "", f"updated {date.group(0)}" if date else "",
                                   f"version unknown, {era.group(1)} era" if era else "") if x)
        zh = "，".join(x for x in (f"页面 {page.group(0)}" if page else "", f"{date.group(0)} 更新" if date else "",
                                  f"版本不明，约 {era.group(1)} 时期" if era else "") if x)
        return f"{VLLM_LABEL[self.lang]} {table}" + (self.L(f" ({en})", f"（{zh}）") if en else "")

    def cite(self, source: str | None) -> None:
        source = source_as_known(source or "")
        if not source or any(source in s for s in self.sources):
            return  # already said, alone or inside a longer source (two parts' catalog rows citing the same pages)
        inside = [i for i, s in enumerate(self.sources) if s in source]
        if inside:  # a shorter source this one holds: this one in its place
            self.sources[inside[0]] = source
            self.sources[:] = [s for i, s in enumerate(self.sources) if i not in inside[1:]]
        else:
            self.sources.append(source)

    def is_gpu(self, hardware: str | None) -> bool:
        """A GPU by the hardware catalog's kind (an Ascend inference card such as the Atlas 300I Duo is an
        NPU card); a part the catalog does not hold ("a 24GB GPU") is a GPU (every Ascend part is in the catalog)."""
        hw = hardware or self.e.hardware
        kind = self.kinds.get(hw) or (self.e.facts.kind if hw == self.e.hardware else None)
        return kind != "npu"

    def unit_of(self, hardware: str | None) -> str:
        """What one device of ``hardware`` is, from its catalog row: "die" (Snt9B23) or "card"."""
        hw = hardware or self.e.hardware
        row = self.parts.get(hw)
        return str(row.get("unit") or "card") if row else (self.e.facts.unit if hw == self.e.hardware else "card")

    def node_size(self, hardware: str | None) -> int:
        """Devices in one node of ``hardware``, from its catalog row (16 DIE on Snt9B23, 4 on a 4-GPU server)."""
        hw = hardware or self.e.hardware
        row = self.parts.get(hw) or {}
        return int(row.get("devices_per_node") or self.e.per_node)

    def devices(self, n: int | None, unit: str | None = "card", hardware: str | None = None) -> str:
        if n is None:
            return "?"
        if (unit or "").lower() == "die":
            return f"{n} DIE"
        if (unit or "").lower() == "chip":  # a card of several chips counted per chip (Atlas 300I Duo: 2 per card)
            return self.L(f"{n} chip" + ("s" if n != 1 else ""), f"{n} 个芯片")
        if self.is_gpu(hardware):
            return self.L(f"{n} GPU" + ("s" if n != 1 else ""), f"{n} 张 GPU")
        return self.L(f"{n} card" + ("s" if n != 1 else ""), f"{n} 张卡")

    @staticmethod
    def pool_filled(m: Any) -> bool:
        """The allocator's cached blocks were capped at the device's free room (memory.cached_blocks), so the pool reads
        exactly the usable memory ("61.0 of 61.0 GiB"): that figure is the device, not the job."""
        return m.cached_gib >= 0.05 and m.total_gib >= m.usable_gib - 0.05

    def headroom(self, rows: list[tuple[str, float, float, str, str]]) -> str:
        """"哪个余量大", "which has more headroom": (label, memory per device, usable per device, what a device is called, the
        layout and devices it is sized on or '') of each setup compared; the one with the most free memory (usable minus the
        memory) named first, each one's free memory and the difference; within 0.5 GiB (the estimate's rounding) neither is
        said to have more."""
        ranked = sorted(((usable - used, used, usable, dev, label, how) for label, used, usable, dev, how in rows), key=lambda x: -x[0])
        items = self.say("comma").join(self.say("headroom_item", label=label, free=f"{free:.1f}", used=f"{used:.1f}",
                                                usable=f"{usable:.1f}", dev=dev, how=how)
                                       for free, used, usable, dev, label, how in ranked)
        diff = ranked[0][0] - ranked[1][0]
        if diff < 0.5:
            return self.say("headroom_same", items=items)
        return self.say("headroom_more", best=ranked[0][4], other=ranked[1][4], diff=f"{diff:.1f}", items=items)

    def point(self, m: Any) -> str:
        """The per-device figure an answer shows: the pool, or, when its cached blocks only fill the free room, what the
        job holds without them (the verdict is judged on that too); the cached blocks are said beside it (filled)."""
        return f"{m.total_gib - m.cached_gib if self.pool_filled(m) else m.total_gib:.1f}"

    def span(self, m: Any) -> tuple[str, str]:
        """The likely range beside point(m): without the cached blocks when the point is shown without them."""
        less = m.cached_gib if self.pool_filled(m) else 0.0
        return f"{m.low_gib - less:.1f}", f"{m.high_gib - less:.1f}"

    def filled(self, m: Any) -> str:
        """' (+2.3 GiB of cached blocks filling the rest …)' beside a point shown without them; else ''."""
        return self.say("cache_fills", cached=f"{m.cached_gib:.1f}", usable=f"{m.usable_gib:.1f}") if self.pool_filled(m) else ""

    def per_device(self, unit: str | None = None, hardware: str | None = None) -> str:
        """What 'per device' is called: card, DIE (Snt9B23) or GPU; Chinese forms fit "每{x}约"."""
        if (unit or "").lower() == "die":
            return self.say("per_device_die")
        if (unit or "").lower() == "chip":
            return self.say("per_device_chip")
        if self.is_gpu(hardware):
            return self.say("per_device_gpu")
        return self.say("assumed_card")

    def hw_name(self, hardware: str | None = None) -> str:
        hw = hardware or self.e.hardware
        row = self.parts.get(hw) or generic_part(hw) or {}
        if row.get("source") and generic_part(hw):  # "64 GB GPU (generic)", in the answer's language
            return self.L(str(row["short_name"]), f"通用 {row['memory_gb']:g} GB {'NPU' if row['kind'] == 'npu' else 'GPU'}")
        return str(row.get("short_name") or row.get("table_part") or hw)

    def nodes(self, n: int | None) -> str:
        return self.L(f"{n} node" + ("s" if n != 1 else ""), f"{n} 个节点") if n else ""

    def offload_text(self, offload: bool | None) -> str:
        if offload:
            return self.say("offload_text_with_offload_to")
        return self.say("trainer_label_no_offload")

    def sharding_words(self, text: str) -> str:
        """A tool's 'DeepSpeed ZeRO-3' / 'ZeRO-3 + CPU offload' in FSDP's words when the conversation's trainer shards
        with FSDP (stage_words): the tools size FSDP as the ZeRO stage it matches and name only that."""
        if not self.shards_with_fsdp or "FSDP" in text:  # a text that names FSDP itself already says it its way
            return text
        return _ZERO_WORDS.sub(lambda m: self.stage_words(int(m.group(1))), text)

    def estimate_label(self, assumptions: list[str], short: bool = False) -> str:
        shown = self.say("semicolon").join(self.sharding_words(self.L(str(a), assumption_zh(str(a))))
                                           for a in assumptions[: 2 if short else 4])
        base = self.say("config_plan_estimate")
        return self.say("estimate_label_assumptions", base=base, shown=shown) if shown else base


_ZERO_WORDS = re.compile(r"(?:DeepSpeed )?ZeRO-(\d)(?![\d)）])")  # not the '(ZeRO-3)' stage_words itself writes


# The optimizer, loss and trainer values route.trainer_args passes, as users know them.
TRAINER_WORDS = {
    "adamw_8bit": {"en": "8-bit AdamW (bitsandbytes)", "zh": "8-bit AdamW（bitsandbytes）"},
    "paged_adamw_8bit": {"en": "paged 8-bit AdamW (bitsandbytes)", "zh": "paged 8-bit AdamW（bitsandbytes）"},
    "fused": {"en": "a fused loss (Liger fused linear cross-entropy)", "zh": "融合 loss（Liger fused linear cross-entropy）"},
    "chunked": {"en": "a chunked cross-entropy loss", "zh": "分块 cross-entropy loss"},
    "torchtune": {"en": "torchtune", "zh": "torchtune"},
    "litgpt": {"en": "litgpt", "zh": "litgpt"},
    "unsloth": {"en": "unsloth", "zh": "unsloth"},
    "axolotl": {"en": "axolotl", "zh": "axolotl"},
    "transformers": {"en": "Hugging Face Trainer / TRL", "zh": "Hugging Face Trainer / TRL"},
    "compile": {"en": "torch.compile", "zh": "torch.compile"},
    "activation_offload": {"en": "activation offloading", "zh": "激活卸载"},
    "expandable_segments": {"en": "expandable segments", "zh": "expandable segments"},
    "pure_bf16": {"en": "pure bf16 (no fp32 master weights)", "zh": "纯 bf16（无 fp32 主权重）"},
    "eager_attention": {"en": "eager attention (s² scores materialised)", "zh": "eager attention（物化 s² 注意力分数）"},
    "fused_attention": {"en": "fused attention (no s² scores)", "zh": "融合注意力（无 s² 分数）"},
    "fsdp": {"en": "FSDP (sized as the ZeRO stage it matches)", "zh": "FSDP（按对应的 ZeRO 阶段估算）"},
}
