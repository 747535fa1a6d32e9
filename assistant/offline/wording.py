"""Answer wording shared by the offline planner's writers: phrases in English and Chinese, table
labels, and a base class with the small formatting helpers (units, nodes, sources)."""

from __future__ import annotations

import re

from ..answer import source_as_known
from .parse import Slots
from .results import Results
from .route import ASCEND, Done, Effective, effective, per_node

# ---------------------------------------------------------------- wording
W: dict[str, dict[str, str]] = {
    "clarify": {
        "en": "Which model, and what would you like to know: training cards/nodes, ZeRO stage, memory, inference cards, "
              "or a config file? For example: “How many cards to LoRA fine-tune qwen2.5-7b at 4096 tokens?”",
        "zh": "请问是哪个模型，想了解什么：训练卡数/节点数、ZeRO 配置、显存、推理卡数，还是配置文件？"
              "例如：“qwen2.5-7b LoRA 微调，序列长度 4096，需要几张卡？”",
    },
    "unknown": {
        "en": "**“{name}” is not in the catalog**: this exact model (version or size) is not known here, so there are no "
              "vendor table rows and no shape for it. Closest catalog models: {closest}. Ask about one of these, or give the "
              "parameter count (e.g. “a 100B model”) or the shape (layers, hidden size, attention heads, e.g. “80 layers, "
              "hidden 8192, 64 heads”) for an estimate.",
        "zh": "**未找到模型“{name}”**：这个具体型号（版本或规格）不在模型目录中，因此没有厂商表格数据，也没有它的结构参数。"
              "目录中最接近的模型：{closest}。可以改问其中一个，或给出参数量（例如“100B 模型”）或模型结构（层数、hidden 维度、"
              "注意力头数，例如“80 层、hidden 8192、64 个头”）来估算。",
    },
    "which_size": {
        "en": "“{name}” is a model family, not one model. Which one do you mean: {closest}?",
        "zh": "“{name}”是一个模型系列，不是具体模型。请问是哪一个：{closest}？",
    },
    "not_covered": {
        "en": "**The notes do not cover this question**, so I have no information to answer it from. What I can answer: "
              "cards and nodes for fine-tuning or serving a model (Ascend Snt9B/Snt9B23 or GPUs), ZeRO stage and offload, "
              "memory per device, training time, ready configs (LLaMA-Factory YAML, DeepSpeed JSON, MindSpeed-LLM variables), "
              "and troubleshooting of out-of-memory errors, checkpoint-save timeouts, fused attention operators, the BF16/FP16 "
              "choice and vLLM serving on Ascend.",
        "zh": "**笔记中没有涉及这个问题**，我没有相关资料可以回答。我能回答的是：微调或推理部署某个模型需要的卡数和节点数"
              "（昇腾 Snt9B/Snt9B23 或 GPU）、ZeRO 阶段与 offload、每卡显存、训练时长、现成的配置（LLaMA-Factory YAML、"
              "DeepSpeed JSON、MindSpeed-LLM 环境变量），以及显存溢出、保存 checkpoint 超时、融合注意力算子、BF16/FP16 选择、"
              "昇腾上 vLLM 推理的排障。",
    },
    "answer": {"en": "**Answer:** ", "zh": "**结论**："},
    "sources": {"en": "Sources: ", "zh": "来源："},
    "assumed": {"en": "assumed", "zh": "默认"},
    # -- headlines: one entry per rule of the decision tables (capacity.py, sizing.py, serving.py) ------
    "yes_by_table": {"en": "**Yes.** Your {have} {cover} the vendor minimum for {ok}", "zh": "**够**。{yours}满足厂商最小卡数：{ok}"},
    "not_for": {"en": "; not for {short}", "zh": "；{short}，不够"},
    "need_item": {"en": "{who} ({n})", "zh": "{who}（{n}）"},
    "short_item": {"en": "{who}, which needs {n}", "zh": "{who} 需要 {n}"},
    "no_by_table": {"en": "**Not by the vendor tables**: they list at least {n} ({who}), you have {have}.",
                    "zh": "**按厂商表格不够**：表格至少需要 {n}（{who}），你只有 {have}。"},
    "no_by_bound": {
        "en": "**No.** The vendor tables have no row at {asked} tokens, but at {length} tokens they already need {listed}, and a "
              "longer sequence never needs fewer devices: {have} is below the minimum for {asked}.",
        "zh": "**不够**。厂商表格没有序列长度 {asked} 的行，但在 {length} 时就已需要 {listed}；序列更长，所需卡数只会更多，"
              "所以 {have}低于 {asked} 的最小卡数。",
    },
    "estimate_below_minimum": {
        "en": " The memory estimate does fit {yours} with {setting} — below the vendor's tested minimum, so an untested option, "
              "and slower than the table's setup.",
        "zh": "按显存估算，{yours}可以放下：{setting}——低于厂商实测的最小卡数，属于未经验证的选项，速度也会更慢。",
    },
    "estimate_none_fits_either": {"en": " The estimate finds no setting that fits {yours} either.", "zh": "按估算，{yours}也没有能放下的设置。"},
    "yes_by_estimate": {"en": "**Yes** (estimate): it fits {yours} with {setting}", "zh": "**可以**（估算）：{yours}可以放下，{setting}"},
    "fastest_uses": {"en": "; the fastest setting uses {n} with {setting}", "zh": "；最快的设置需要 {n}，{setting}"},
    "row_only_bound": {"en": "; the table's {length}-token row ({who}, {n}) is only a lower bound for {asked} tokens",
                       "zh": "；表中 {length} 的行（{who}，{n}）只是 {asked} 的下限"},
    "no_by_estimate": {"en": "**No** (estimate): nothing fits {yours}", "zh": "**不够**（估算）：{yours}放不下"},
    "it_needs": {"en": "; it needs {n} with {setting}", "zh": "；需要 {n}，{setting}"},
    "not_listed": {
        "en": "**{model} is not listed** in the {tables}, so the vendor publishes no tested {fw} setup for it (not listed is not "
              "the same as refused).",
        "zh": "**{model} 不在厂商表格中**：{tables}中没有列出它，因此厂商没有公布经过验证的 {fw} 配置（未列出不等于不能运行）。",
    },
    "by_the_estimate": {"en": " By the {estimate}", "zh": "按{estimate}"},
    "listed_yes": {"en": "**Yes**, listed: ", "zh": "**支持**，表中列出："},
    "estimate_with_bound": {
        "en": "estimate: {plans}. The vendor tables have no row at {asked} tokens; their {length}-token rows ({listed}) are only a "
              "lower bound for it.",
        "zh": "估算：{plans}。厂商表格没有序列长度 {asked} 的行；{length} 的行（{listed}）只是它的下限。",
    },
    "serving_yes_by_table": {"en": "**Yes.** Your {have} {cover} the {table} minimum for {model}: {tested}.",
                             "zh": "**可以**。你的 {have}满足{table}中 {model} 的最少卡数：{tested}。"},
    "serving_no_by_table": {"en": "**No, not by the {table}**: it lists at least {tested} for {model}; you have {have}.",
                            "zh": "**按厂商表格不够**：{table}中 {model} 至少需要 {tested}，你只有 {have}。"},
    "serving_yes_by_estimate": {"en": "**Yes** (estimate): {est}.", "zh": "**可以**（估算）：{est}。"},
    "serving_no_by_estimate": {"en": "**No** (estimate): {est}.", "zh": "**不够**（估算）：{est}。"},
    "bound_above_estimate": {
        "en": "at least {listed}: the vendor tables' {length}-token rows, a lower bound for {asked} tokens (a longer sequence "
              "needs no fewer devices). The estimate ({plans}) comes out below that bound: memory alone would allow it, but the "
              "vendor has not run it on fewer, so plan with at least the table's count.",
        "zh": "至少 {listed}：厂商表格序列长度 {length} 的行是 {asked} 的下限（序列更长，所需卡数不会更少）。估算（{plans}）"
              "低于这个下限：仅按显存可以，但厂商没有用更少的卡跑过，请至少按表中的数量规划。",
    },
    "estimate_with_upper": {
        "en": "estimate: {plans}. The vendor tables have no QLoRA rows; their LoRA rows ({listed}) are an upper bound for it "
              "(QLoRA's 4-bit base needs less memory than LoRA's 16-bit one).",
        "zh": "估算：{plans}。厂商表格没有 QLoRA 的行；LoRA 的行（{listed}）是它的上限（QLoRA 的 4 比特基座比 LoRA 的 16 比特基座省显存）。",
    },
    "upper_for_qlora": {"en": "; LoRA rows, an upper bound for QLoRA", "zh": "；LoRA 的行，是 QLoRA 的上限"},
    "lora_rows_upper": {"en": "; the vendor's LoRA rows ({listed}) are an upper bound for QLoRA, not a minimum",
                        "zh": "；厂商 LoRA 的行（{listed}）是 QLoRA 的上限，不是最低要求"},
    "compared": {"en": "fewest devices: {listed} (each one's rows and estimate below).",
                 "zh": "最少卡数对比：{listed}（各自的表格数据与估算见下）。"},
    "offer": {
        "en": "Ask “give me the yaml” (LLaMA-Factory), “the DeepSpeed json”, “the MindSpeed env” or “the launch command” for a ready config.",
        "zh": "需要配置文件可以继续问：“给我 yaml”（LLaMA-Factory）、“DeepSpeed json”、“MindSpeed 环境变量”或“启动命令”。",
    },
}
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
    (re.compile(r"SDPA on Ascend: the range's upper end adds the heads x s\^2 scores of its math fallback"), "昇腾上的 SDPA：范围上限计入其 math 回退路径的 heads × s² 注意力分数"),
    (re.compile(r"sequence lengths fixed \(packed or padded to seq_len\): the allocator reuses each step's blocks"), "序列长度固定（packing 或补齐到 seq_len）：分配器每步复用同样大小的显存块"),
    (re.compile(r"sequence lengths vary between steps: the allocator's pool keeps one more copy of the activations and loss buffers \(lengths: fixed if packed or padded to seq_len\)"), "各步序列长度不同：显存分配器的缓存池多保留一份激活与 loss 缓冲（已 packing 或补齐到 seq_len 时可设 lengths: fixed）"),
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
    (re.compile(r" \+ full recompute$"), " + 完全重计算"),  # a slower setting: 'TP 4 × PP 1 + full recompute'
    (re.compile(r" \+ CPU offload$"), " + CPU offload 卸载"),
    (re.compile(r"^The vLLM table tested at most (\d+) tokens; (\d+) is beyond it\.$"), r"vLLM 表最长只测试到 \1 个 token；\2 超出了这个范围。"),
    (re.compile(r"^The vLLM table \(([^)]+)\) serves (\d+) tokens on (\d+) cards; the estimate needs (\d+) for (\d+) tokens x (\d+)\.$"),
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
OOM_POLARITY = (("**Yes**", "**No OOM expected**"), ("**No**", "**Yes, it would run out of memory**"),
                ("**可以**", "**不会 OOM**"), ("**不够**", "**会 OOM**"), ("**够**", "**不会 OOM**"))


class Writer:
    """State of one answer being written: the slots, the tool results, the sources cited so far."""

    def __init__(self, s: Slots, done: list[Done], parts: dict[str, dict] | None = None):
        """``parts``: hardware id -> its hardware catalog row: the kind (npu, gpu) names a device (card or GPU), the
        devices per node count nodes."""
        self.s, self.done, self.lang = s, done, s.lang
        self.parts = parts or {}
        self.kinds = {hw: str(row.get("kind") or "") for hw, row in self.parts.items()}
        self.r = Results(done)
        self.headlined = False  # one headline per answer: the first block that answers leads with it
        self.e: Effective = effective(s)
        self.sources: list[str] = []
        self.zh = self.lang == "zh"

    # -- helpers -------------------------------------------------------------------------------
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
        return t("answer", self.lang) + text

    def say(self, key: str, **kw: object) -> str:
        """A phrase of the table above (W), in the answer's language."""
        return W[key][self.lang].format(**kw)

    def L(self, en: str, zh: str) -> str:
        return zh if self.zh else en

    def fw_name(self, framework: str | None, hardware: str | None = None) -> str:
        """The framework a plan names: MindSpeed-LLM is Ascend's Megatron, so on GPUs the same TP/PP/CP
        layout is Megatron-LM's."""
        if framework == "MindSpeed-LLM" and hardware and self.is_gpu(hardware):
            return "Megatron-LM"
        return framework or ""

    @staticmethod
    def parallel(zero_stage: int | None, offload: bool | None, tp: int | None = 1, pp: int | None = 1, cp: int | None = 1) -> str:
        """'ZeRO-3 + offload' (LLaMA-Factory) or 'TP 4 × PP 2' (× CP when used; MindSpeed-LLM)."""
        if zero_stage is not None:
            return f"ZeRO-{zero_stage}" + (" + offload" if offload else "")
        return f"TP {tp} × PP {pp}" + (f" × CP {cp}" if (cp or 1) > 1 else "")

    def method_name(self, method: str | None) -> str:
        """'full fine-tuning', or 'pre-training (PT, full parameters)' when the stage is pre-training."""
        if self.s.stage == "pt" and method in PRETRAIN[self.lang]:
            return PRETRAIN[self.lang][method]
        return METHOD[self.lang].get(method, method or "")

    def results(self, name: str, ok: bool | None = True) -> list[Done]:
        return [d for d in self.done if d.name == name and (ok is None or d.ok == ok)]

    def cite(self, source: str | None) -> None:
        source = source_as_known(source or "")
        if source and source not in self.sources:
            self.sources.append(source)

    def is_gpu(self, hardware: str | None) -> bool:
        """A GPU by the hardware catalog's kind (an Ascend inference card such as the Atlas 300I Duo is an
        NPU card); a part the catalog does not hold ("a 24GB GPU") is a GPU unless it is an Ascend id."""
        hw = hardware or self.e.hardware
        kind = self.kinds.get(hw)
        return kind == "gpu" if kind else hw not in ASCEND

    def node_size(self, hardware: str | None) -> int:
        """Devices in one node of ``hardware``, from its catalog row (16 DIE on Snt9B23, 4 on a 4-GPU server)."""
        hw = hardware or self.e.hardware
        row = self.parts.get(hw) or {}
        return int(row.get("devices_per_node") or per_node(hw))

    def devices(self, n: int | None, unit: str | None = "card", hardware: str | None = None) -> str:
        if n is None:
            return "?"
        if (unit or "").lower() == "die":
            return f"{n} DIE"
        if self.is_gpu(hardware):
            return self.L(f"{n} GPU" + ("s" if n != 1 else ""), f"{n} 张 GPU")
        return self.L(f"{n} card" + ("s" if n != 1 else ""), f"{n} 张卡")

    def per_device(self, unit: str | None = None, hardware: str | None = None) -> str:
        """What 'per device' is called: card, DIE (Snt9B23) or GPU; Chinese forms fit "每{x}约"."""
        if (unit or "").lower() == "die":
            return self.L("DIE", " DIE ")
        if self.is_gpu(hardware):
            return self.L("GPU", " GPU ")
        return self.L("card", "卡")

    def hw_name(self, hardware: str | None = None) -> str:
        hw = hardware or self.e.hardware
        return {"snt9b": "Snt9B", "snt9b23": "Snt9B23", "snt9b-32g": "Snt9B 32G"}.get(hw, hw)

    def nodes(self, n: int | None) -> str:
        return self.L(f"{n} node" + ("s" if n != 1 else ""), f"{n} 个节点") if n else ""

    def offload_text(self, offload: bool | None) -> str:
        if offload:
            return self.L("with offload to CPU", "开启 offload 卸载到 CPU")
        return self.L("no offload", "不开 offload")

    def estimate_label(self, assumptions: list[str], short: bool = False) -> str:
        shown = self.L("; ", "；").join(self.L(str(a), assumption_zh(str(a))) for a in assumptions[: 2 if short else 4])
        base = self.L("estimate", "估算")
        return self.L(f"{base}, assumptions: {shown}", f"{base}，假设：{shown}") if shown else base


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
}
