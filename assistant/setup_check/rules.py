"""The frameworks' and the vendor's rules on a setup, each in one place: which fields it needs, the test, what is
valid, and where the rule is written. ``check`` applies every rule whose fields are present, whatever they were read
from (a YAML, a DeepSpeed JSON, MindSpeed-LLM variables, command-line flags or the question's words), so a rule the
notes quote is also applied to the user's own numbers. The answer writers phrase each finding by its code."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..estimate import constants as C
from ..estimate import layout as L
from .reading import Finding

# Where each rule is written: the framework's own argument check, or the vendor page (and its date when it has one).
# where a layer count in a finding comes from: the model catalog, or the question's own words (a model not named)
LAYERS_FROM = {"catalog": {"en": "; layer counts from the model catalog (knowledge/catalog/models.csv, HF config.json)",
                           "zh": "；层数取自模型目录（knowledge/catalog/models.csv，HF config.json）"},
               "said": {"en": "; the layer count as you stated it", "zh": "；层数按你给出的值"}}
SOURCES = {
    "deepspeed_batch": "DeepSpeed's config check (deepspeed/runtime/config.py: micro batch, gradient accumulation and "
    "train batch > 0, train_batch_size = micro x GA x DP)",
    "deepspeed_zero": "DeepSpeed's ZeRO config (deepspeed/runtime/zero/config.py: stages 0-3)",
    "mindspeed_cp": "ModelArts MindSpeed-LLM 训练参数配置说明 (modelarts_llm_train_5901042: CP >= 2 when SEQ_LEN > 32768, "
    "Llama3 only)",
    "launcher_world": "PyTorch's torchrun (--nproc-per-node: workers per node; world size = nnodes x nproc-per-node); "
    "LLaMA-Factory's launcher (NNODES, NPROC_PER_NODE)",
    "megatron_world": "Megatron's argument check (arguments.py: world size divisible by TP x PP x CP); ModelArts "
    "显存溢出错误 (modelarts_llm_train_c_5910041)",
    "megatron_batch": "Megatron's micro-batch calculator (\"global batch size is not divisible by micro batch size times "
    'data parallel size"); ModelArts 显存溢出错误 (modelarts_llm_train_c_5910041)',
    "batch_identity": "ModelArts MindSpeed-LLM 训练参数配置说明 (modelarts_llm_train_5901042: GBS = MBS x DP x GA, "
    "DP = devices / (TP x PP)); DeepSpeed's train_batch_size = micro batch x GA x data-parallel size",
    "lf_parser": "LLaMA-Factory's argument parser (hparams/parser.py)",
    "hf_extra_keys": "LLaMA-Factory's argument parser (hparams/parser.py: HfArgumentParser.parse_dict with "
    "allow_extra_keys off raises \"Some keys are not used by the HfArgumentParser\")",
    "yaml_load": "YAML syntax: LLaMA-Factory reads the file with transformers' HfArgumentParser.parse_yaml_file (yaml.safe_load)",
    "lf_arguments": "LLaMA-Factory's argument definitions (hparams/finetuning_args.py, extras/constants.py)",
    "lf_quant": "LLaMA-Factory's quantization check (model/model_utils/quantization.py)",
    "lf_modelarts": "ModelArts LLaMA-Factory guide 修改训练yaml文件配置 (modelarts_llm_train_590620)",
    "mindspeed_variables": "ModelArts MindSpeed-LLM 训练参数配置说明 (modelarts_llm_train_5901042: STAGE pt or sft, "
    "FINETUNING_TYPE full or lora)",
    "lf_qlora_npu": "the notes' caveat (lora_qlora.md): bitsandbytes is built on CUDA kernels, not validated by the vendor",
    "cann_env": "CANN environment-variable reference (HCCL_EXEC_TIMEOUT envref_07_0078: default 1836 s; HCCL_CONNECT_TIMEOUT: "
    "default 120 s), quoted in the notes (ckpt_timeout.md)",
    "lf_recipe": "ModelArts: 模型NPU卡数、梯度累积值取值表, LLaMA-Factory (seeds/000)",
    "lf_template": "ModelArts: 模型NPU卡数、梯度累积值取值表, LLaMA-Factory (seeds/000: the Template column, e.g. Qwen2 -> "
    "qwen, llama3.1 -> llama3); the model catalog's template column (knowledge/catalog/models.csv); LLaMA-Factory README "
    "(the chat template of an instruct/chat model must be its own)",
    "lf_rope": "LLaMA-Factory's configure_rope (model/model_utils/rope.py: no scaling unless `rope_scaling` is set; then a "
    "factor of ceil(cutoff_len / max_position_embeddings)); the model's own context from the model catalog",
    "mindspeed_memory": "MindSpeed-LLM docs/en/pytorch/models/supported_models.md (>= 64 GB on-chip memory per NPU), quoted in "
    "research/modelarts.md §10 and the notes (snt9b_vs_snt9b23.md)",
    "part_training": "the hardware catalog's training column (knowledge/catalog/hardware.csv), from the torch_npu "
    "installation guide's hardware table: Atlas inference series not supported for training",
    "vllm": "vLLM's engine argument check",
    "benchmark": "ModelArts 语言模型推理性能测试 (modelarts_llm_infer_5905029, updated 2025-08-06)",
    "precision": "DeepSpeed's config check (\"bfloat16 and fp16 modes cannot be simultaneously enabled\"); transformers' "
    "TrainingArguments (\"At most one of fp16 and bf16 can be True\")",
    "megatron_heads": "Megatron's and vLLM's argument checks (attention heads divisible by the tensor-parallel size)",
    "vllm_kv_heads": "vLLM's QKVParallelLinear (vllm/model_executor/layers/linear.py: the key/value heads divided by "
    "the tensor-parallel size, or the tensor-parallel size by them when each rank keeps a copy)",
    "megatron_kv_heads": "Megatron-Core's attention (num_query_groups divided by the tensor-parallel size: every rank "
    "holds whole key/value groups)",
    "min_cards_die": "ModelArts: 模型最小卡数配置, 2025-06-24 (seeds/004: Snt9B23 单机 8 卡 = 16 DIE, 2 DIE 为最小单位)",
    "train_time": "ModelArts 训练时间估算 (modelarts_llm_train_590604: 卡数大于 8 时取 8 的倍数，且不小于最小卡数)",
    "lf_galore_deepspeed": "LLaMA-Factory's argument parser (hparams/parser.py: \"GaLore and APOLLO are incompatible with "
    "DeepSpeed yet.\")",
    "lf_galore_lora": "LLaMA-Factory's argument check (hparams/finetuning_args.py: \"Cannot use LoRA with GaLore, APOLLO or "
    "BAdam together.\")",
    "lf_quant_type": "LLaMA-Factory's argument parser (hparams/parser.py _verify_model_args: \"Quantization is only "
    "compatible with the LoRA or OFT method.\")",
    "peft_rank": "PEFT's LoRA layer (peft/tuners/lora/layer.py update_layer: \"`r` should be a positive integer value\")",
    "ds_offload_param": "DeepSpeed's ZeRO config (deepspeed/runtime/zero/config.py: offload_param \"Valid only with stage "
    "3\"; runtime/engine.py hands it only to the ZeRO-3 optimizer)",
    "megatron_layers": "Megatron's transformer build (megatron/legacy/model/transformer.py ParallelTransformer: "
    "\"num_layers must be divisible by pipeline_model_parallel_size\")" + LAYERS_FROM["catalog"]["en"],
    "mindspeed_layer_list": "MindSpeed-LLM's --num-layer-list / --noop-layers (its DeepSeek-V3 examples: "
    "examples/mcore/deepseek3/ckpt_convert_deepseek3_mcore2hf.sh, 61 layers as 16,15,15,15 on PP 4; the vendor's "
    "deepseek3/tune_deepseek3_671b_4k_lora_ptd runs TP 1 PP 4 EP 16 on 64 cards)",
    "mindspeed_recompute": "ModelArts 显存溢出错误 (modelarts_llm_train_c_5910041): recompute in 3_training.sh is "
    "--recompute-granularity full, --recompute-method block and --recompute-num-layers set to the model's num-layers; "
    "layer counts from the model catalog (knowledge/catalog/models.csv, HF config.json)",
    "preprocess": "ModelArts 训练的数据集预处理说明 (modelarts_llm_train_91113, updated 2025-07-29; "
    "modelarts_llm_train_908106, updated 2024-11-12: --input formats, --tokenizer-type, --handler-name)",
    "preprocess_tokenizer": "ModelArts 训练的数据集预处理说明 (modelarts_llm_train_91113: --tokenizer-type normally "
    "PretrainedFromHF); Megatron's build_tokenizer (GPT2BPETokenizer asserts --vocab-file and --merge-file)",
}
# The same sources worded for a Chinese answer (file paths and the frameworks' own messages kept as written).
SOURCES_ZH = {
    "deepspeed_batch": "DeepSpeed 的配置检查（deepspeed/runtime/config.py：micro batch、梯度累积、train batch 均须大于 0，"
    "train_batch_size = micro × GA × DP）",
    "deepspeed_zero": "DeepSpeed 的 ZeRO 配置（deepspeed/runtime/zero/config.py：stage 0-3）",
    "mindspeed_cp": "ModelArts MindSpeed-LLM《训练参数配置说明》(modelarts_llm_train_5901042：SEQ_LEN > 32768 时 CP ≥ 2，"
    "仅 Llama3 系列)",
    "launcher_world": "PyTorch torchrun（--nproc-per-node：每个节点的进程数；总进程数 = nnodes × nproc-per-node）；"
    "LLaMA-Factory 的启动变量（NNODES、NPROC_PER_NODE）",
    "megatron_world": "Megatron 的参数检查（arguments.py：总卡数须能被 TP × PP × CP 整除）；ModelArts 显存溢出错误 "
    "(modelarts_llm_train_c_5910041)",
    "megatron_batch": "Megatron 的 micro batch 计算（\"global batch size is not divisible by micro batch size times data "
    "parallel size\"）；ModelArts 显存溢出错误 (modelarts_llm_train_c_5910041)",
    "batch_identity": "ModelArts MindSpeed-LLM《训练参数配置说明》(modelarts_llm_train_5901042：GBS = MBS × DP × GA，"
    "DP = 卡数 / (TP × PP))；DeepSpeed 的 train_batch_size = micro batch × 梯度累积 × 数据并行数",
    "lf_parser": "LLaMA-Factory 的参数解析（hparams/parser.py）",
    "hf_extra_keys": "LLaMA-Factory 的参数解析（hparams/parser.py：HfArgumentParser.parse_dict 不允许多余的键，"
    "会报 \"Some keys are not used by the HfArgumentParser\"）",
    "yaml_load": "YAML 语法：LLaMA-Factory 用 transformers 的 HfArgumentParser.parse_yaml_file（yaml.safe_load）读取该文件",
    "lf_arguments": "LLaMA-Factory 的参数定义（hparams/finetuning_args.py、extras/constants.py）",
    "lf_quant": "LLaMA-Factory 的量化检查（model/model_utils/quantization.py）",
    "lf_modelarts": "ModelArts LLaMA-Factory 指南《修改训练yaml文件配置》(modelarts_llm_train_590620)",
    "mindspeed_variables": "ModelArts MindSpeed-LLM《训练参数配置说明》(modelarts_llm_train_5901042：STAGE 为 pt 或 sft，"
    "FINETUNING_TYPE 为 full 或 lora)",
    "lf_qlora_npu": "笔记 lora_qlora.md 的提示：bitsandbytes 基于 CUDA 内核，厂商未验证",
    "cann_env": "CANN 环境变量参考（HCCL_EXEC_TIMEOUT envref_07_0078：默认 1836 s；HCCL_CONNECT_TIMEOUT：默认 120 s），"
    "笔记 ckpt_timeout.md 引用",
    "lf_recipe": "ModelArts《模型NPU卡数、梯度累积值取值表》LLaMA-Factory (seeds/000)",
    "lf_template": "ModelArts《模型NPU卡数、梯度累积值取值表》LLaMA-Factory（seeds/000 的 Template 列，例如 Qwen2 → qwen、"
    "llama3.1 → llama3）；模型目录的 template 列（knowledge/catalog/models.csv）；LLaMA-Factory README（instruct/chat 模型必须用它自己的对话模板）",
    "lf_rope": "LLaMA-Factory 的 configure_rope（model/model_utils/rope.py：不设 `rope_scaling` 就不做缩放；设了则因子为 "
    "ceil(cutoff_len / max_position_embeddings)）；模型自身的上下文取自模型目录",
    "mindspeed_memory": "MindSpeed-LLM 文档 docs/en/pytorch/models/supported_models.md（每个 NPU 片上内存 ≥ 64 GB），"
    "research/modelarts.md §10 与笔记 snt9b_vs_snt9b23.md 引用",
    "part_training": "硬件目录的 training 列（knowledge/catalog/hardware.csv），依据 torch_npu 安装指南的产品硬件支持列表（训练场景）："
    "Atlas 推理系列产品不支持训练",
    "vllm": "vLLM 的引擎参数检查",
    "benchmark": "ModelArts《语言模型推理性能测试》(modelarts_llm_infer_5905029，更新于 2025-08-06)",
    "precision": "DeepSpeed 的配置检查（\"bfloat16 and fp16 modes cannot be simultaneously enabled\"）；transformers 的 "
    "TrainingArguments（\"At most one of fp16 and bf16 can be True\"）",
    "megatron_heads": "Megatron 和 vLLM 的参数检查（注意力头数须能被张量并行数整除）",
    "vllm_kv_heads": "vLLM 的 QKVParallelLinear（vllm/model_executor/layers/linear.py：KV 头数须能被张量并行数整除，"
    "或张量并行数能被 KV 头数整除（每个 rank 复制一份））",
    "megatron_kv_heads": "Megatron-Core 的 attention（num_query_groups 须能被张量并行数整除：每个 rank 持有完整的 KV 组）",
    "min_cards_die": "ModelArts《模型最小卡数配置》2025-06-24（seeds/004：Snt9B23 单机 8 卡 = 16 DIE，2 DIE 为最小单位）",
    "train_time": "ModelArts《训练时间估算》(modelarts_llm_train_590604：卡数大于 8 时取 8 的倍数，且不小于最小卡数)",
    "lf_galore_deepspeed": "LLaMA-Factory 的参数解析（hparams/parser.py：\"GaLore and APOLLO are incompatible with "
    "DeepSpeed yet.\"）",
    "lf_galore_lora": "LLaMA-Factory 的参数检查（hparams/finetuning_args.py：\"Cannot use LoRA with GaLore, APOLLO or "
    "BAdam together.\"）",
    "lf_quant_type": "LLaMA-Factory 的参数解析（hparams/parser.py _verify_model_args：\"Quantization is only compatible "
    "with the LoRA or OFT method.\"）",
    "peft_rank": "PEFT 的 LoRA 层（peft/tuners/lora/layer.py update_layer：\"`r` should be a positive integer value\"）",
    "ds_offload_param": "DeepSpeed 的 ZeRO 配置（deepspeed/runtime/zero/config.py：offload_param \"Valid only with stage "
    "3\"；runtime/engine.py 只把它交给 ZeRO-3 优化器）",
    "megatron_layers": "Megatron 的模型构建（megatron/legacy/model/transformer.py ParallelTransformer：\"num_layers must "
    "be divisible by pipeline_model_parallel_size\"）" + LAYERS_FROM["catalog"]["zh"],
    "mindspeed_layer_list": "MindSpeed-LLM 的 --num-layer-list / --noop-layers（其 DeepSeek-V3 示例 "
    "examples/mcore/deepseek3/ckpt_convert_deepseek3_mcore2hf.sh 把 61 层按 16,15,15,15 分到 PP 4；厂商的 "
    "deepseek3/tune_deepseek3_671b_4k_lora_ptd 在 64 卡上用 TP 1 PP 4 EP 16）",
    "mindspeed_recompute": "ModelArts《显存溢出错误》(modelarts_llm_train_c_5910041)：在 3_training.sh 中打开重计算要同时设 "
    "--recompute-granularity full、--recompute-method block 和 --recompute-num-layers（填模型的 num-layers）；层数取自模型目录"
    "（knowledge/catalog/models.csv，HF config.json）",
    "preprocess": "ModelArts《训练的数据集预处理说明》(modelarts_llm_train_91113，更新于 2025-07-29；modelarts_llm_train_908106，"
    "更新于 2024-11-12：--input 格式、--tokenizer-type、--handler-name)",
    "preprocess_tokenizer": "ModelArts《训练的数据集预处理说明》(modelarts_llm_train_91113：--tokenizer-type 通常为 "
    "PretrainedFromHF)；Megatron 的 build_tokenizer（GPT2BPETokenizer 要求 --vocab-file 和 --merge-file）",
}
ZERO_STAGES = (0, 1, 2, 3)
PREFERENCE_STAGES = ("dpo", "rm", "ppo")  # the guide: "DPO, RM and PPO only for the llama3 series"
PREFERENCE_SERIES = "llama3"  # llama3, llama3.1, llama3.2, llama3.3 (catalog ids)
LORAPLUS_MODEL = "qwen1.5-7b"  # the guide: "lora+ … 目前仅支持 qwen1.5-7B"
QUANT_TYPES = ("lora", "oft")  # LLaMA-Factory: quantization_bit only with these finetuning types
LF_LORA_RANK = 8  # LLaMA-Factory's lora_rank default (hparams/finetuning_args.py)
# CANN's defaults for the HCCL waits a launch script sets (SOURCES["cann_env"]), in seconds; 0 means "never time out"
HCCL_DEFAULTS = {"hccl_exec_timeout": ("HCCL_EXEC_TIMEOUT", 1836), "hccl_connect_timeout": ("HCCL_CONNECT_TIMEOUT", 120)}
# The vendor's benchmark scripts (modelarts_llm_infer_5905029): --backend values, and which URL ending each interface has
BENCHMARK_BACKENDS = ("tgi", "vllm", "mindspore", "openai")
BENCHMARK_URL_BACKEND = {"/v1/completions": "openai", "/generate": "vllm"}
# MindSpeed-LLM / AscendSpeed dataset preprocessing (modelarts_llm_train_91113, _908106; DATA_TYPE in _5901042)
PREPROCESS_FORMATS = ("parquet", "csv", "json", "jsonl", "txt", "arrow")
PREPROCESS_TOKENIZERS = ("BertWordPieceLowerCase", "BertWordPieceCase", "GPT2BPETokenizer", "PretrainedFromHF")
TOKENIZER_FILES = {"GPT2BPETokenizer": ("vocab_file", "merge_file"), "BertWordPieceLowerCase": ("vocab_file",),
                   "BertWordPieceCase": ("vocab_file",)}  # Megatron's build_tokenizer asserts these files
PRETRAIN_HANDLERS = ("GeneralPretrainHandler",)
INSTRUCTION_HANDLERS = ("GeneralInstructionHandler", "AlpacaStyleInstructionHandler", "SharegptStyleInstructionHandler",
                        "MOSSInstructionHandler", "MOSSMultiTurnHandler")


@dataclass(frozen=True)
class Broken:
    """A rule's finding on one setup: the value as written, what is valid, the numbers it used, and (when the
    estimate cannot run on the value as written) the settings it runs on instead."""

    value: Any
    valid: str
    figures: dict[str, Any] = field(default_factory=dict)
    corrected: str = ""
    fix: dict[str, Any] | None = None


@dataclass(frozen=True)
class Rule:
    code: str
    key: str  # the setting as users write it
    needs: tuple[str, ...]  # fields that must all be present (not None)
    test: Callable[[dict[str, Any]], Broken | None]
    source: str  # a key of SOURCES
    task: str | None = None  # "training" or "serving": the rule applies only there; None: both
    refuses: bool = False  # the framework refuses to start: a question in words gets only this (nothing is sized on it)
    said_held: bool = False  # a value compared with a documented default: said when it meets the rule too (phrase held_<code>)


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _positive(name: str) -> Callable[[dict[str, Any]], Broken | None]:
    def test(f: dict[str, Any]) -> Broken | None:
        v = f[name]
        return (
            None
            if _whole(v) and v >= 1
            else Broken(v, "a whole number >= 1", corrected=f"{name}: 1", fix={name: 1})
        )

    return test


def _zero_stage(f: dict[str, Any]) -> Broken | None:
    z = f["zero_stage"]
    if z in ZERO_STAGES:
        return None
    return Broken(
        z,
        " | ".join(map(str, ZERO_STAGES)),
        figures={"stages": f"ZeRO-{z}"},
        corrected='"zero_optimization": {"stage": 3}',
        fix={"zero_stage": 3},
    )


def _parallel(f: dict[str, Any]) -> tuple[int, int, int, int]:
    return int(f.get("tp") or 1), int(f.get("pp") or 1), int(f.get("cp") or 1), int(f["devices"])


def _cp_long(f: dict[str, Any]) -> Broken | None:
    """MindSpeed-LLM on ModelArts needs context parallel (CP >= 2) beyond 32768 tokens: a CP of 1 is said as wrong and the
    estimate runs on CP 2 (the smallest that is allowed); whether TP x PP x 2 still divides the devices is the next rule's."""
    if f.get("framework") != "MindSpeed-LLM" or int(f["seq_len"]) <= C.CP_REQUIRED_ABOVE or int(f["cp"] or 1) >= 2:
        return None
    tp, pp = int(f.get("tp") or 1), int(f.get("pp") or 1)
    model = str(f.get("model_id") or "")
    other = bool(model) and not model.startswith(PREFERENCE_SERIES)  # the page marks context parallel for Llama3 models
    return Broken(int(f["cp"] or 1), "CP >= 2", corrected="CP=2",
                  figures={"seq_len": f["seq_len"], "limit": C.CP_REQUIRED_ABOVE, "tp": tp, "pp": pp,
                           "unit": tp * pp * 2, "devices": f.get("devices"), "model": model,
                           **({"variant": "other_model"} if other else {})},
                  fix={"cp": 2})


def _parallel_fits(f: dict[str, Any]) -> Broken | None:
    """TP x PP x CP must divide the devices (MindSpeed-LLM / Megatron); keep TP (it must match the weight conversion)
    and lower PP, else the largest TP x PP that divides the devices."""
    tp, pp, cp, devices = _parallel(f)
    if devices % (tp * pp * cp) == 0:
        return None
    layers = int(f.get("layers") or 0)  # a PP must also divide the layers (the next rule): offer only such layouts
    heads, kv = f.get("heads"), f.get("kv_heads")  # and a TP must split the heads (layout.py): offer only such TPs
    fits = [(t, p) for t in range(tp, 0, -1) for p in range(pp, 0, -1) if L.data_parallel(devices, t, p, cp)
            and L.pp_splits_layers(p, layers) and L.tp_splits_heads(t, heads, kv)]
    best = max(fits, key=lambda tp_pp: (tp_pp[0] == tp, tp_pp[0] * tp_pp[1], tp_pp[0]), default=None)
    corrected = "" if best is None else f"PP={best[1]}" if best[0] == tp else f"TP={best[0]}\nPP={best[1]}"
    keep = best[0] if best else None
    options = [] if keep is None else [(keep, p, devices // (keep * p * cp)) for p in range(min(pp, devices // (keep * cp)), 0, -1)
                                       if L.data_parallel(devices, keep, p, cp) and L.pp_splits_layers(p, layers)][:2]
    return Broken(tp * pp * cp, f"TP x PP x CP divides {devices}", corrected=corrected,
                  figures={"tp": tp, "pp": pp, "cp": cp, "devices": devices, "die": bool(f.get("die")), "options": options,
                           "over": tp * pp * cp > devices},
                  fix=None if best is None else {"tp": best[0], "pp": best[1]})


# the figure a finding names when no model is (its sentence's "of {model}"; the Chinese writer says 该模型)
UNNAMED_MODEL = "the model"


def _divisors(n: int, most: int = 16) -> list[int]:
    return [d for d in range(1, min(n, most) + 1) if n % d == 0]


RECOMPUTE_FLAG = re.compile(r"--recompute-(granularity|method|num-layers)(?:[= ]+([\w{}$]+))?")


def recompute_flags(text: str) -> dict[str, str] | None:
    """MindSpeed-LLM's recompute flags written in a script or a question ("--recompute-method block"): name -> value."""
    found = {m.group(1): m.group(2) or "" for m in RECOMPUTE_FLAG.finditer(text)}
    return found or None


def _recompute_layers(f: dict[str, Any]) -> Broken | None:
    """The vendor's OOM remedy turns recompute on with three flags: full granularity and the block method recompute
    nothing until --recompute-num-layers says how many layers (the model's num-layers: every layer)."""
    flags = f["recompute_flags"]
    if f.get("framework") not in (None, "MindSpeed-LLM") or "num-layers" in flags or flags.get("method") != "block":
        return None
    layers = f.get("layers")
    given = " ".join(f"--recompute-{k} {v}".strip() for k, v in flags.items())
    return Broken(given, "--recompute-num-layers (the model's num-layers)", figures={"layers": layers or "{NUM_LAYERS}"},
                  corrected=f"--recompute-num-layers {layers or '{NUM_LAYERS}'}")


def layer_split(layers: int, pp: int) -> str:
    """The balanced uneven split, earlier stages one layer more (61 over PP 4: 16,15,15,15, as the vendor's DeepSeek-V3
    weight conversion examples/mcore/deepseek3/ckpt_convert_deepseek3_mcore2hf.sh writes it)."""
    base, extra = divmod(layers, pp)
    return ",".join(str(base + (i < extra)) for i in range(pp))


def _layer_list(f: dict[str, Any]) -> Broken | None:
    """MindSpeed-LLM runs a PP that does not divide the layers when the split is written out (--num-layer-list, or
    --noop-layers padding to a multiple of PP): the vendor's DeepSeek-V3 LoRA script runs 61 layers on TP 1 PP 4 EP 16.
    A plan said in words is told the flag, not refused; a pasted script without it is (_layers_pp)."""
    if f.get("framework") != "MindSpeed-LLM" or f.get("pp_even_required"):
        return None
    layers, pp = int(f["layers"]), int(f["pp"] or 1)
    if pp <= 1 or layers % pp == 0 or pp > layers:
        return None
    split = layer_split(layers, pp)
    return Broken(pp, f"--num-layer-list {split}", corrected=f"--num-layer-list {split}",
                  figures={"layers": layers, "pp": pp, "split": split, "model": f.get("model_id") or UNNAMED_MODEL,
                           "pp_options": " / ".join(map(str, _divisors(layers)))})


def _layers_pp(f: dict[str, Any]) -> Broken | None:
    """Megatron builds num_layers / PP layers on every pipeline stage: PP must divide the model's layer count. The
    layouts offered keep TP (the weight conversion's) where the devices allow, with a PP that divides the layers."""
    if f.get("framework") not in (None, "MindSpeed-LLM") or f.get("framework") and not f.get("pp_even_required"):
        return None  # a MindSpeed-LLM plan in words may split the layers unevenly (_layer_list)
    layers, pp = int(f["layers"]), int(f["pp"] or 1)
    if pp <= 1 or layers % pp == 0:
        return None
    tp, cp = int(f.get("tp") or 1), int(f.get("cp") or 1)
    devices = int(f.get("devices") or 0)
    pps = _divisors(layers)
    options: list[tuple[int, int, int]] = []
    if devices:
        for t in [tp] + [t for t in range(tp - 1, 0, -1) if tp % t == 0]:
            options += [(t, p, devices // (t * p * cp)) for p in sorted(pps, key=lambda p: (abs(p - pp), -p))
                        if devices % (t * p * cp) == 0]
            if len(options) >= 2:
                break
        options = options[:2]
    best = options[0][:2] if options else (tp, min(pps, key=lambda p: (abs(p - pp), -p)))
    return Broken(pp, "a PP that divides " + str(layers) + ": " + " / ".join(map(str, pps)),
                  corrected=f"PP={best[1]}" if best[0] == tp else f"TP={best[0]}\nPP={best[1]}",
                  figures={"layers": layers, "pp": pp, "pp_options": " / ".join(map(str, pps)), "model": f.get("model_id")
                           or UNNAMED_MODEL, "tp": tp, "cp": cp, "devices": devices or None, "options": options,
                           "die": bool(f.get("die"))},
                  fix={"tp": best[0], "pp": best[1]})


def _gbs_divisible(f: dict[str, Any]) -> Broken | None:
    """Megatron: global batch = micro batch x data-parallel size x micro-batches per step (a whole number)."""
    if f.get("framework") not in (None, "MindSpeed-LLM") or not (f.get("tp") or f.get("pp")):
        return None  # a Megatron layout: LLaMA-Factory's data parallel is all the devices
    tp, pp, cp, devices = _parallel(f)
    gbs, mbs = f["global_batch"], f.get("micro_batch") or 1
    if devices % (tp * pp * cp) or not (_whole(gbs) and _whole(mbs)) or gbs < 1 or mbs < 1:
        return None  # the TP x PP rule, or the positive-value rules, speak first
    dp = devices // (tp * pp * cp)
    step = mbs * dp
    if gbs % step == 0:
        return None
    lower, upper = gbs // step * step, (gbs // step + 1) * step
    nearest = [v for v in (lower, upper) if v > 0]
    low = lower or step
    return Broken(
        gbs,
        f"a multiple of MBS x DP = {step}",
        corrected=f"GBS={nearest[0] if gbs - lower <= upper - gbs and lower else upper}",
        figures={
            "dp": dp,
            "mbs": mbs,
            "step": step,
            "tp": tp,
            "pp": pp,
            "cp": cp,
            "devices": devices,
            "nearest": " / ".join(map(str, nearest)),
            "low": low,
            "high": upper,
        },
    )


def _ds_batch_identity(f: dict[str, Any]) -> Broken | None:
    """DeepSpeed asserts train_batch_size == micro x GA x data-parallel size; only a JSON's own train_batch_size."""
    if not f.get("train_batch_size_in_json"):
        return None
    gbs, mbs, ga = f["global_batch"], f["micro_batch"], f["grad_accum"]
    if not all(_whole(v) and v >= 1 for v in (gbs, mbs, ga)):
        return None
    tp, pp, cp, devices = _parallel(f)
    dp = max(devices // (tp * pp * cp), 1)
    product = mbs * ga * dp
    if product == gbs:
        return None
    ga_fix = gbs // (mbs * dp) if gbs % (mbs * dp) == 0 else None
    return Broken(
        gbs,
        "train_batch_size = train_micro_batch_size_per_gpu x gradient_accumulation_steps x data-parallel "
        "size",
        corrected=f'"train_batch_size": {product}',
        figures={"micro": mbs, "ga": ga, "dp": dp, "product": product, "ga_fix": ga_fix},
    )


def _split_dp(f: dict[str, Any]) -> tuple[int, int, int, int, int] | None:
    """(TP, PP, CP, devices, DP) of a job whose TP x PP x CP divides its devices, else None (the layout rule speaks)."""
    tp, pp, cp, devices = _parallel(f)
    if not devices or devices % (tp * pp * cp):
        return None
    return tp, pp, cp, devices, devices // (tp * pp * cp)


def _per_node(f: dict[str, Any]) -> Broken | None:
    """A launcher's processes per node (NPROC_PER_NODE, --nproc_per_node) against the devices and nodes the user has: the
    launcher starts nodes x per-node processes, one per device, so the total they give ("all 16 cards of my 2 nodes" with
    NPROC_PER_NODE=16) is devices / nodes per node."""
    per, devices, nodes = f["per_node"], f["devices"], f.get("nodes") or 1
    if not (_whole(per) and _whole(devices) and _whole(nodes)) or nodes < 1 or devices % nodes or per * nodes == devices:
        return None
    want = devices // nodes
    return Broken(per, str(want), corrected=f"NPROC_PER_NODE={want}" + (f"\nNNODES={nodes}" if nodes > 1 else ""),
                  figures={"devices": devices, "nodes": nodes, "per": want, "started": per * nodes}, fix={"per_node": want})


def _dp_stated(f: dict[str, Any]) -> Broken | None:
    """A data-parallel size said beside the devices and the split: DP is the devices over TP x PP x CP, so a DP they do
    not give ("16 cards, TP 2 PP 2, DP 8") is said, and the batch arithmetic runs on the devices' DP."""
    split = _split_dp(f)
    said = f["dp"]
    if split is None or not _whole(said) or said == split[4]:
        return None
    tp, pp, cp, devices, dp = split
    return Broken(said, f"DP = devices / (TP x PP x CP) = {dp}",
                  figures={"tp": tp, "pp": pp, "cp": cp, "devices": devices, "dp": dp, "mp": tp * pp * cp,
                           "die": bool(f.get("die"))})


def _gbs_product(f: dict[str, Any]) -> Broken | None:
    """A global batch said beside the micro batch, the accumulation and the devices that do not multiply to it (GBS =
    MBS x DP x GA, DP the devices over TP x PP x CP): both figures are said, and the accumulation that gives the user's
    global batch when there is a whole one. A DeepSpeed JSON's own train_batch_size is DeepSpeed's rule."""
    split = _split_dp(f)
    gbs, ga, mbs = f["global_batch"], f["grad_accum"], f.get("micro_batch") or 1
    if split is None or f.get("train_batch_size_in_json") or not all(_whole(v) and v >= 1 for v in (gbs, ga, mbs)):
        return None
    tp, pp, cp, devices, dp = split
    product = mbs * dp * ga
    if product == gbs or gbs % (mbs * dp):  # a global batch no whole GA gives is the Megatron rule's (it refuses)
        return None
    return Broken(gbs, f"MBS x DP x GA = {product}",
                  figures={"tp": tp, "pp": pp, "cp": cp, "devices": devices, "dp": dp, "mbs": mbs, "ga": ga,
                           "product": product, "ga_fix": gbs // (mbs * dp), "die": bool(f.get("die")),
                           "split": tp * pp * cp > 1})


def _pure_bf16_zero3(f: dict[str, Any]) -> Broken | None:
    if f["precision"] != "pure_bf16" or f["zero_stage"] != 3:
        return None
    return Broken(True, "pure_bf16 with ZeRO-0/1/2; bf16 with ZeRO-3", corrected="bf16: true", fix={"precision": "bf16"})


def _quant_zero3(f: dict[str, Any]) -> Broken | None:
    method = f.get("quant_method") or "bnb"  # LLaMA-Factory's default
    if f["zero_stage"] != 3 or (method not in ("hqq", "eetq") and f["quant_bits"] == 4):
        return None
    return Broken(
        f["quant_bits"],
        "4-bit bnb with ZeRO-3",
        figures={"method": method},
        corrected="quantization_method: bnb\nquantization_bit: 4",
        fix={"quant_bits": 4},
    )


def _quant_type(f: dict[str, Any]) -> Broken | None:
    """LLaMA-Factory quantizes the base model only for adapters (LoRA, OFT): full or freeze with quantization_bit is
    refused. The estimate runs on the method as written without the quantization."""
    method = str(f["method"]).lower()
    if method in QUANT_TYPES or method == "qlora":
        return None
    return Broken(method, " | ".join(QUANT_TYPES), figures={"bits": f["quant_bits"], "as_run": True},
                  corrected=f"finetuning_type: lora\nquantization_bit: {f['quant_bits']}", fix={"quant_bits": None})


def _galore_deepspeed(f: dict[str, Any]) -> Broken | None:
    return Broken(True, "GaLore / APOLLO without a deepspeed config, or DeepSpeed without them",
                  figures={"galore": f["galore"], "ds": f["deepspeed_config"]}, corrected=f"{f['galore']}: false")


def _galore_lora(f: dict[str, Any]) -> Broken | None:
    if str(f["method"]).lower() not in ("lora", "qlora"):
        return None
    return Broken(f["method"], "finetuning_type: full or freeze with GaLore / APOLLO", figures={"galore": f["galore"]},
                  corrected="finetuning_type: full")


def _lora_rank(f: dict[str, Any]) -> Broken | None:
    r = f["lora_rank"]
    if (_whole(r) and r >= 1) or str(f.get("method") or "lora").lower() not in ("lora", "qlora"):
        return None
    return Broken(r, "a whole number >= 1 (LLaMA-Factory's default 8; 8-64 usual)", corrected=f"lora_rank: {LF_LORA_RANK}",
                  fix={"lora_rank": LF_LORA_RANK})


def _offload_param_stage(f: dict[str, Any]) -> Broken | None:
    """offload_param is read only by the ZeRO-3 optimizer: under ZeRO-0/1/2 nothing of the parameters is offloaded, and
    without offload_optimizer nothing at all. The estimate runs on what DeepSpeed does."""
    stage = f["zero_stage"]
    if stage == 3 or stage not in ZERO_STAGES:
        return None
    optimizer = bool(f.get("offload_optimizer_device"))
    return Broken(stage, "offload_param with ZeRO-3; offload_optimizer with ZeRO-1/2/3",
                  figures={"device": f["offload_param_device"], "variant": "optimizer" if optimizer else "none",
                           "as_run": True},
                  corrected=f'"offload_optimizer": {{"device": "{f["offload_param_device"]}", "pin_memory": true}}',
                  fix={"offload": optimizer})


def _benchmark_backend(f: dict[str, Any]) -> Broken | None:
    """The vendor's benchmark_parallel.py: --backend is one of four; a deployed service's --url ends in /v1/completions
    for the openai-style interface, /generate for the vllm one."""
    backend, url = str(f["benchmark_backend"]).lower(), str(f.get("benchmark_url") or "").rstrip("/")
    if backend not in BENCHMARK_BACKENDS:
        return Broken(backend, " | ".join(BENCHMARK_BACKENDS), figures={"variant": "value"}, corrected="--backend openai")
    ending = next((e for e in BENCHMARK_URL_BACKEND if url.endswith(e)), None)
    if ending is None or BENCHMARK_URL_BACKEND[ending] == backend:
        return None
    wanted = BENCHMARK_URL_BACKEND[ending]
    return Broken(backend, f"--backend {wanted} for a URL ending in {ending}",
                  figures={"url": url, "ending": ending, "wanted": wanted, "variant": "url"},
                  corrected=f"--backend {wanted}")


def _preprocess_input(f: dict[str, Any]) -> Broken | None:
    name = str(f["data_input"]).rstrip("/").rsplit("/", 1)[-1]
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if not ext or ext in PREPROCESS_FORMATS or "*" in name:
        return None  # a folder, a glob, or a format the script reads
    better = "csv" if ext in ("xls", "xlsx") else "jsonl"
    return Broken(f".{ext}", ", ".join(f".{e}" for e in PREPROCESS_FORMATS), figures={"input": f["data_input"]},
                  corrected=f"--input {str(f['data_input'])[: -len(ext)]}{better}")


def _preprocess_tokenizer(f: dict[str, Any]) -> Broken | None:
    t = str(f["tokenizer_type"])
    missing = [n for n in TOKENIZER_FILES.get(t, ()) if not f.get(n)]
    if t in PREPROCESS_TOKENIZERS and not missing:
        return None
    return Broken(t, " | ".join(PREPROCESS_TOKENIZERS),
                  figures={"missing": " ".join("--" + n.replace("_", "-") for n in missing),
                           "variant": "files" if t in PREPROCESS_TOKENIZERS else "unknown"},
                  corrected="--tokenizer-type PretrainedFromHF --tokenizer-name-or-path <the HF weight folder>")


def _preprocess_handler(f: dict[str, Any]) -> Broken | None:
    handler, purpose = str(f["handler_name"]), f.get("data_purpose")
    known = handler in PRETRAIN_HANDLERS + INSTRUCTION_HANDLERS
    wrong = (purpose == "sft" and handler in PRETRAIN_HANDLERS) or (purpose == "pt" and handler in INSTRUCTION_HANDLERS)
    if known and not wrong:
        return None
    wanted = PRETRAIN_HANDLERS[0] if purpose == "pt" else INSTRUCTION_HANDLERS[0]
    return Broken(handler, " | ".join(PRETRAIN_HANDLERS + INSTRUCTION_HANDLERS),
                  figures={"wanted": wanted, "variant": purpose if known else "unknown"},
                  corrected=f"--handler-name {wanted}" if purpose or not known else "")


def _quant_npu(f: dict[str, Any]) -> Broken | None:
    if f["accelerator_kind"] != "npu" or str(f.get("method") or "lora").lower() not in ("lora", "qlora", "oft"):
        return None
    return Broken(f["quant_bits"], "bf16 LoRA with ZeRO-2/3 on Ascend", figures={"method": f.get("quant_method") or "bnb"})


def _hccl_default(name: str) -> Callable[[dict[str, Any]], Broken | None]:
    """A HCCL wait set below CANN's default (0 = never time out): collectives that wait longer, such as the nodes that
    wait while others save a checkpoint, time out earlier than they would unset."""
    var, default = HCCL_DEFAULTS[name]

    def test(f: dict[str, Any]) -> Broken | None:
        v = f[name]
        if not v or v >= default:
            return None
        # a problem reported beside it ("ckpt save times out"): the likely trigger, said as the answer to it; else an aside
        variant = {} if f.get("problem_reported", True) else {"variant": "aside"}
        return Broken(v, f"{var} >= {default} s (CANN default), or unset", figures={"var": var, "default": default,
                                                                                     "minutes": round(default / 60, 1), **variant})
    return test


def hccl_held(name: str, value: float) -> dict[str, Any]:
    """The figures a HCCL wait at or above CANN's default is said with (rule said_held)."""
    var, default = HCCL_DEFAULTS[name]
    return {"var": var, "value": value, "default": default, "minutes": round(default / 60, 1)}


def _part_training(f: dict[str, Any]) -> Broken | None:
    """A part the catalog marks as not for training (the Atlas 300I Duo: torch_npu lists the Atlas inference series as
    unsupported for training)."""
    if str(f["part_training"]).lower() != "false":
        return None
    return Broken(f.get("part_name") or "this part", "Atlas A2/A3 training series (Snt9B, Snt9B23) or a GPU")


# The on-chip memory per NPU a framework requires (rule mindspeed_device_memory): MindSpeed-LLM's supported-models page,
# "at least 64 GB of on-chip memory per NPU"
DEVICE_MEMORY_FLOOR_GB = {"MindSpeed-LLM": 64}


def _device_memory_floor(f: dict[str, Any]) -> Broken | None:
    """A framework that requires a memory per NPU (MindSpeed-LLM: 64 GB) on a part below it (a 32 GB 910B4, the 910A).
    The memory per device is the hardware catalog's."""
    floor = DEVICE_MEMORY_FLOOR_GB.get(str(f["framework"]))
    if floor is None or f["accelerator_kind"] != "npu" or float(f["device_memory_gb"]) >= floor:
        return None
    return Broken(f.get("part_name") or "this part", f">= {floor} GB per NPU",
                  figures={"gb": f"{float(f['device_memory_gb']):g}", "floor": floor, "framework": f["framework"]})


def _preference_series(f: dict[str, Any]) -> Broken | None:
    """The ModelArts LLaMA-Factory guide: DPO, RM and PPO are supported only for the llama3 series."""
    if f["accelerator_kind"] != "npu" or f.get("framework", "LLaMA-Factory") != "LLaMA-Factory":
        return None
    stage = str(f["stage"]).lower()
    if stage not in PREFERENCE_STAGES or str(f["model_id"]).lower().startswith(PREFERENCE_SERIES):
        return None
    return Broken(stage, "the llama3 series", figures={"stage": stage.upper(), "model": f["model_id"]})


def _mindspeed_method(f: dict[str, Any]) -> Broken | None:
    """The ModelArts MindSpeed-LLM scripts train full or LoRA (FINETUNING_TYPE): QLoRA or freeze named with MindSpeed-LLM
    is a setting the scripts do not take; LLaMA-Factory is where those methods run."""
    method = str(f["method"]).lower()
    if f.get("framework") != "MindSpeed-LLM" or method in C.MINDSPEED_METHODS:
        return None
    return Broken(method, " | ".join(C.MINDSPEED_METHODS), corrected="FINETUNING_TYPE=lora")


def _ppo_zero3(f: dict[str, Any]) -> Broken | None:
    if (
        str(f["stage"]).lower() != "ppo"
        or f["zero_stage"] != 3
        or f.get("framework", "LLaMA-Factory") != "LLaMA-Factory"
    ):
        return None
    return Broken(3, "ZeRO-0 | 1 | 2", corrected="deepspeed: examples/deepspeed/ds_z2_config.json", fix={"zero_stage": 2})


def _dpo_lora(f: dict[str, Any]) -> Broken | None:
    if f["accelerator_kind"] != "npu" or str(f["stage"]).lower() != "dpo" or f["method"] in ("lora", "qlora"):
        return None
    return Broken(f["method"], "lora", corrected="finetuning_type: lora")


def _recipe_zero(f: dict[str, Any]) -> Broken | None:
    """The vendor recipe row for the same model, method and length names a ZeRO stage and a card count; the setup uses
    another (said in the answer's body, not only in the generated file's comment)."""
    same_zero = f["zero_stage"] == f["recipe_zero_stage"] and bool(f.get("offload")) == bool(f.get("recipe_offload"))
    devices, recipe_devices = f.get("devices"), f.get("recipe_devices")
    if same_zero and (not devices or not recipe_devices or devices == recipe_devices):
        return None
    offload = "_offload" if f.get("recipe_offload") else ""
    return Broken(
        # the user's stage as they run it: an offload the recipe does not use is the difference to name
        f"{f['zero_stage']} + offload" if f.get("offload") else f["zero_stage"],
        f"ZeRO-{f['recipe_zero_stage']}{' + offload' if offload else ''}",
        figures={"recipe": f["recipe_row"], "recipe_stage": f["recipe_zero_stage"], "devices": devices,
                 "recipe_devices": recipe_devices},
        corrected="" if same_zero else f"deepspeed: examples/deepspeed/ds_z{f['recipe_zero_stage']}{offload}_config.json",
    )


# LLaMA-Factory's templates for a model without a chat format of its own: fine on a base model, wrong on an instruct/chat one
GENERIC_TEMPLATES = ("default", "empty", "alpaca", "vicuna")
ROPE_TYPES = ("linear", "dynamic", "yarn", "llama3")  # LLaMA-Factory's RopeScaling values


def _template_model(f: dict[str, Any]) -> Broken | None:
    """The YAML's `template` against the catalog's template of the model (the vendor table's Template column): another
    model's chat format is wrong on any model; a generic one only on an instruct/chat variant (a base model has none)."""
    written, own = str(f["keep_template"]).strip().lower(), str(f["model_template"]).strip().lower()
    if not own or written == own or written in GENERIC_TEMPLATES and f.get("model_variant") not in ("instruct", "chat"):
        return None
    return Broken(f["keep_template"], own, corrected=f"template: {own}", fix={"keep_template": own},
                  figures={"model": f.get("model_id"), "template": own, **({"variant": "generic"} if written in GENERIC_TEMPLATES else {})})


def _cutoff_context(f: dict[str, Any]) -> Broken | None:
    """A LLaMA-Factory cutoff_len beyond the model's own context with no `rope_scaling`: LLaMA-Factory scales RoPE only
    when the key is set (then by ceil(cutoff_len / context)); without it the positions past the context are untrained."""
    if f.get("framework") != "LLaMA-Factory" or f.get("rope_scaling") or int(f["seq_len"]) <= int(f["max_context"]):
        return None
    factor = -(-int(f["seq_len"]) // int(f["max_context"]))
    return Broken(f["seq_len"], f"<= {f['max_context']}, or rope_scaling set", corrected="rope_scaling: linear",
                  figures={"context": f["max_context"], "model": f.get("model_id"), "factor": factor,
                           "types": " | ".join(ROPE_TYPES)})


def _utilization(f: dict[str, Any]) -> Broken | None:
    u = float(f["gpu_memory_utilization"])
    if 0 < u <= 1:
        return None
    return Broken(
        f["gpu_memory_utilization"],
        "0 < value <= 1 (a share of each device's memory)",
        corrected="--gpu-memory-utilization 0.9",
        fix={"gpu_memory_utilization": 0.9},
    )


def _max_model_len(f: dict[str, Any]) -> Broken | None:
    if not f["max_context"] or int(f["max_model_len"]) <= int(f["max_context"]):
        return None
    return Broken(
        f["max_model_len"],
        f"<= {f['max_context']}",
        corrected=f"--max-model-len {f['max_context']}",
        figures={"context": f["max_context"], "model": f.get("model_id")},
    )


def _tp_heads(f: dict[str, Any]) -> Broken | None:
    heads, tp = int(f["heads"] or 0), int(f["tp"] or 1)
    if not heads or heads % tp == 0:
        return None
    ok = [t for t in range(1, heads + 1) if heads % t == 0]
    # a TP worth offering also splits a node evenly (TP groups stay inside one node: 1/2/4/8 on an 8-device node), keeps
    # the key/value heads whole as the framework needs (layout.py) and fits the devices the user has; "TP 14" divides 28
    # heads but is no device count (round 9 c6-08)
    node = int(f.get("per_node") or 8)
    devices = int(f.get("devices") or node)
    serving = f.get("task") == "serving"
    usable = [t for t in L.tp_sizes(heads, f.get("kv_heads"), node, serving) if t <= devices] or [1]
    better = min((t for t in usable if t > tp), default=max(usable))
    return Broken(
        tp,
        ", ".join(str(t) for t in ok if t <= 64),
        corrected=f"--tensor-parallel-size {better}",
        figures={"heads": heads, "model": f.get("model_id") or UNNAMED_MODEL,
                 "tp_options": " / ".join(str(t) for t in usable), "offers": _tp_offers(usable, f)},
        fix={"tp": better},
    )


def _kv_split(serving: bool) -> Callable[[dict[str, Any]], Broken | None]:
    """Grouped-query models share each key/value head among several query heads: a TP that divides the query heads
    may still cut a key/value head (Llama-3.2-3B: 24 heads, 8 KV heads; TP 6 divides 24, not 8). vLLM also accepts
    a TP that is a multiple of the KV heads (each rank keeps a copy); Megatron needs whole groups per rank."""
    def test(f: dict[str, Any]) -> Broken | None:
        kv, tp, heads = int(f["kv_heads"] or 0), int(f["tp"] or 1), int(f.get("heads") or 0)
        if not kv or (heads and heads % tp) or L.tp_splits_heads(tp, heads, kv, serving):
            return None  # the query-heads rule speaks first when TP does not divide them
        node = int(f.get("per_node") or 8)  # and no more than the devices the user has (as the heads rule)
        usable = [t for t in L.tp_sizes(heads, kv, node, serving) if t <= int(f.get("devices") or node)] or [1]
        better = min((t for t in usable if t > tp), default=max(usable))
        return Broken(tp, " / ".join(str(t) for t in usable), corrected=f"--tensor-parallel-size {better}",
                      figures={"kv_heads": kv, "heads": heads, "model": f.get("model_id") or UNNAMED_MODEL,
                               "variant": "serving" if serving else "training",
                               "tp_options": " / ".join(str(t) for t in usable), "offers": _tp_offers(usable, f)},
                      fix={"tp": better})
    return test


def _tp_offers(tps: list[int], f: dict[str, Any]) -> list[tuple[int, int]]:
    """The TPs a heads rule offers, as layouts on the user's devices (the PP they said kept where TP x PP divides them),
    largest TP first: the answer estimates each before it offers it."""
    pp, cp, devices = int(f.get("pp") or 1), int(f.get("cp") or 1), int(f.get("devices") or 0)
    serving = f.get("task") == "serving"
    keep = [t for t in tps if not devices or (t * pp <= devices if serving else L.data_parallel(devices, t, pp, cp))]
    return [(t, pp) for t in sorted(keep, reverse=True)][:3]


def _tp_devices(f: dict[str, Any]) -> Broken | None:
    """vLLM runs one instance on TP x PP devices: more than the user has cannot start (fewer is a valid layout:
    replicas on the rest)."""
    tp, pp, devices = int(f["tp"] or 1), int(f.get("pp") or 1), int(f["devices"])
    if tp * pp <= devices:
        return None
    heads = int(f.get("heads") or 0)  # a TP that fits must also divide the heads (the rule before)
    room = devices // pp if devices >= pp else 0  # sizes that split the devices evenly (replicas on the rest)
    sizes = [t for t in range(room, 0, -1) if room % t == 0 and (not heads or heads % t == 0)][:2]
    fits = sizes[0] if sizes else None
    return Broken(tp, f"TP x PP <= {devices}", corrected=f"--tensor-parallel-size {fits}" if fits else "",
                  figures={"tp": tp, "pp": pp, "n": tp * pp, "devices": devices, "die": bool(f.get("die")), "over": True,
                           "fit_options": " / ".join(map(str, sizes)) or "-", "offers": [(t, pp) for t in sizes]},
                  fix={"tp": fits} if fits else None)  # the estimate runs on the devices the user has


def _filled(values: list[Any], n: int) -> list[Any]:
    """A list the benchmark pairs with another of ``n`` entries, made as long: every value the user gave kept, the last
    one repeated for the entries it lacks (one output length for every prompt length, one count for every rate)."""
    return (list(values) + [values[-1]] * n)[:max(n, len(values))]


def _benchmark_lists(f: dict[str, Any]) -> Broken | None:
    prompts, outputs = f["prompt_tokens"], f["output_tokens"]
    if len(prompts) == len(outputs):
        return None
    n = max(len(prompts), len(outputs))
    prompts_fixed, outputs_fixed = _filled(prompts, n), _filled(outputs, n)
    return Broken(
        len(prompts),
        "--prompt-tokens and --output-tokens with the same number of entries, paired in order",
        figures={
            "prompts": len(prompts),
            "outputs": len(outputs),
            "prompt_list": " ".join(map(str, prompts)),
            "output_list": " ".join(map(str, outputs)),
        },
        corrected=f"--prompt-tokens {' '.join(map(str, prompts_fixed))} --output-tokens {' '.join(map(str, outputs_fixed))}",
    )


def _whole_cards(f: dict[str, Any]) -> Broken | None:
    """A count in DIE on a part whose cards hold several: only whole cards can be had (seeds/004: 2 DIE the unit)."""
    dies, k = int(f["die_count"]), int(f["dies_per_card"])
    # the part's own list of the processor counts a job may take (catalog job_devices: a job on one Snt9B23 server
    # may take 1 DIE, and the minimum-card table lists 1 DIE rows) is the vendor's word over the general unit
    allowed = {int(n) for n in str(f.get("job_devices") or "").split(";") if n.strip().isdigit()}
    if k <= 1 or dies % k == 0 or dies in allowed:
        return None
    low = dies // k * k
    return Broken(dies, f"a multiple of {k} DIE", figures={"k": k, "low": low or k, "high": low + k,
                                                           "part": f.get("part_name") or "Snt9B23"})


def _both_precisions(f: dict[str, Any]) -> Broken | None:
    """bf16 and fp16 both enabled: DeepSpeed and the HF Trainer refuse to start; keep one (bf16 on Ascend)."""
    both = list(dict.fromkeys(f["precisions_enabled"]))
    if not {"bf16", "fp16"} <= {p.strip('"') for p in both}:
        return None
    json = any(p.startswith('"') for p in both)
    return Broken(" + ".join(p.strip('"') for p in both), "one of bf16 / fp16",
                  corrected='"fp16": {"enabled": false}' if json else "fp16: false")


def _loraplus_model(f: dict[str, Any]) -> Broken | None:
    """The ModelArts LLaMA-Factory guide: lora+ (loraplus_lr_ratio) is supported only for qwen1.5-7B."""
    if f["accelerator_kind"] != "npu" or str(f["model_id"]).lower() == LORAPLUS_MODEL:
        return None
    return Broken(f["loraplus"], LORAPLUS_MODEL, figures={"model": f["model_id"]}, corrected="# loraplus_lr_ratio: 16.0")


def _rates_prompts(f: dict[str, Any]) -> Broken | None:
    rates, counts = f["request_rate"], f["num_prompts"]
    if len(rates) == len(counts):
        return None
    n = len(rates)
    fixed = _filled(counts, n)[:n]  # (a count beyond the rates has no rate to go with)
    return Broken(len(counts), "one --num-prompts per --request-rate",
                  figures={"rates": len(rates), "counts": len(counts), "rate_list": " ".join(map(str, rates)),
                           "count_list": " ".join(map(str, counts))},
                  corrected=f"--request-rate {' '.join(map(str, rates))} --num-prompts {' '.join(map(str, fixed))}")


def _cards_multiple_of_8(f: dict[str, Any]) -> Broken | None:
    """The vendor's card-count rule for training on Snt9B: above 8 cards, a multiple of 8 (whole 8-card nodes)."""
    d = int(f["devices"])
    if f["accelerator_kind"] != "npu" or f.get("die") or d <= 8 or d % 8 == 0:
        return None
    return Broken(d, "a multiple of 8 above 8 cards", figures={"low": d // 8 * 8, "high": (d // 8 + 1) * 8})


RULES: list[Rule] = [
    Rule("batch_positive", "per_device_train_batch_size / MBS", ("micro_batch",), _positive("micro_batch"), "deepspeed_batch",
         "training", refuses=True),
    Rule("batch_positive", "gradient_accumulation_steps", ("grad_accum",), _positive("grad_accum"), "deepspeed_batch",
         "training", refuses=True),
    Rule("batch_positive", "global batch (GBS / train_batch_size)", ("global_batch",), _positive("global_batch"),
         "deepspeed_batch", "training", refuses=True),
    Rule("zero_stage_range", "ZeRO stage", ("zero_stage",), _zero_stage, "deepspeed_zero", "training"),
    Rule("die_whole_cards", "DIE", ("die_count", "dies_per_card"), _whole_cards, "min_cards_die", refuses=True),
    Rule("vllm_tp_heads", "--tensor-parallel-size", ("tp", "heads"), _tp_heads, "megatron_heads", refuses=True),
    Rule("tp_kv_heads", "--tensor-parallel-size", ("tp", "kv_heads"), _kv_split(True), "vllm_kv_heads", "serving",
         refuses=True),
    Rule("tp_kv_heads", "TP", ("tp", "kv_heads"), _kv_split(False), "megatron_kv_heads", "training", refuses=True),
    Rule("mindspeed_cp_long", "CP", ("seq_len", "cp"), _cp_long, "mindspeed_cp", "training", refuses=True),
    Rule("parallel_exceeds_devices", "TP x PP x CP", ("devices", "tp"), _parallel_fits, "megatron_world", "training",
         refuses=True),
    Rule("parallel_exceeds_devices", "TP x PP x CP", ("devices", "pp"), _parallel_fits, "megatron_world", "training",
         refuses=True),
    Rule("megatron_layers_pp", "PP", ("layers", "pp"), _layers_pp, "megatron_layers", "training", refuses=True),
    Rule("mindspeed_layer_list", "PP", ("layers", "pp"), _layer_list, "mindspeed_layer_list", "training"),
    Rule("mindspeed_recompute_layers", "--recompute-num-layers", ("recompute_flags",), _recompute_layers,
         "mindspeed_recompute", "training"),
    Rule("gbs_not_divisible", "GBS", ("global_batch", "devices"), _gbs_divisible, "megatron_batch", "training",
         refuses=True),
    Rule("dp_not_devices", "DP", ("dp", "devices"), _dp_stated, "megatron_world", "training"),
    Rule("launch_per_node", "NPROC_PER_NODE", ("per_node", "devices"), _per_node, "launcher_world", "training"),
    Rule("gbs_not_product", "GBS", ("global_batch", "grad_accum", "devices"), _gbs_product, "batch_identity", "training"),
    Rule("vllm_tp_devices", "--tensor-parallel-size", ("tp", "devices"), _tp_devices, "vllm", "serving", refuses=True),
    Rule("part_not_for_training", "hardware", ("part_training",), _part_training, "part_training", "training"),
    Rule("mindspeed_device_memory", "hardware", ("framework", "device_memory_gb", "accelerator_kind"), _device_memory_floor,
         "mindspeed_memory", "training"),
    Rule("cards_multiple_of_8", "devices", ("devices", "accelerator_kind"), _cards_multiple_of_8, "train_time", "training"),
    Rule("ds_train_batch_size", "train_batch_size", ("global_batch", "micro_batch", "grad_accum", "devices"),
         _ds_batch_identity, "deepspeed_batch", "training"),
    Rule("both_precisions", "bf16 / fp16", ("precisions_enabled",), _both_precisions, "precision", "training"),
    Rule("lf_pure_bf16_zero3", "pure_bf16", ("precision", "zero_stage"), _pure_bf16_zero3, "lf_parser", "training"),
    Rule("lf_quantization_type", "quantization_bit", ("quant_bits", "method"), _quant_type, "lf_quant_type", "training",
         refuses=True),
    Rule("lf_galore_deepspeed", "use_galore / deepspeed", ("galore", "deepspeed_config"), _galore_deepspeed,
         "lf_galore_deepspeed", "training", refuses=True),
    Rule("lf_galore_lora", "use_galore / finetuning_type", ("galore", "method"), _galore_lora, "lf_galore_lora",
         "training", refuses=True),
    Rule("lora_rank_positive", "lora_rank", ("lora_rank",), _lora_rank, "peft_rank", "training", refuses=True),
    Rule("ds_offload_param_stage", "offload_param", ("offload_param_device", "zero_stage"), _offload_param_stage,
         "ds_offload_param", "training"),
    Rule("lf_quantization_zero3", "quantization_bit", ("quant_bits", "zero_stage"), _quant_zero3, "lf_quant", "training"),
    Rule("lf_quantization_npu", "quantization_bit", ("quant_bits", "accelerator_kind"), _quant_npu, "lf_qlora_npu",
         "training"),
    Rule("hccl_exec_timeout", "HCCL_EXEC_TIMEOUT", ("hccl_exec_timeout",), _hccl_default("hccl_exec_timeout"), "cann_env",
         said_held=True),
    Rule("hccl_connect_timeout", "HCCL_CONNECT_TIMEOUT", ("hccl_connect_timeout",), _hccl_default("hccl_connect_timeout"),
         "cann_env", said_held=True),
    Rule("lf_stage_model", "stage", ("stage", "model_id", "accelerator_kind"), _preference_series, "lf_modelarts",
         "training"),
    Rule("mindspeed_method", "FINETUNING_TYPE", ("method",), _mindspeed_method, "mindspeed_variables", "training",
         refuses=True),
    Rule("lf_ppo_zero3", "stage: ppo", ("stage", "zero_stage"), _ppo_zero3, "lf_modelarts", "training"),
    Rule("lf_dpo_lora", "finetuning_type", ("stage", "method", "accelerator_kind"), _dpo_lora, "lf_modelarts", "training"),
    Rule("lf_loraplus_model", "loraplus_lr_ratio", ("loraplus", "model_id", "accelerator_kind"), _loraplus_model,
         "lf_modelarts", "training"),
    Rule("recipe_zero_mismatch", "deepspeed", ("zero_stage", "recipe_zero_stage", "recipe_row"), _recipe_zero,
         "lf_recipe", "training"),
    Rule("lf_template_model", "template", ("keep_template", "model_template"), _template_model, "lf_template", "training"),
    Rule("lf_cutoff_beyond_context", "cutoff_len", ("seq_len", "max_context"), _cutoff_context, "lf_rope", "training"),
    Rule("vllm_gpu_memory_utilization", "--gpu-memory-utilization", ("gpu_memory_utilization",), _utilization, "vllm",
         "serving"),
    Rule("vllm_max_model_len", "--max-model-len", ("max_model_len", "max_context"), _max_model_len, "vllm", "serving"),
    Rule("benchmark_list_lengths", "--prompt-tokens / --output-tokens", ("prompt_tokens", "output_tokens"),
         _benchmark_lists, "benchmark"),
    Rule("benchmark_rates_prompts", "--request-rate / --num-prompts", ("request_rate", "num_prompts"), _rates_prompts,
         "benchmark"),
    Rule("benchmark_backend_url", "--backend / --url", ("benchmark_backend",), _benchmark_backend, "benchmark"),
    Rule("preprocess_input_format", "--input", ("data_input",), _preprocess_input, "preprocess"),
    Rule("preprocess_tokenizer_type", "--tokenizer-type", ("tokenizer_type",), _preprocess_tokenizer,
         "preprocess_tokenizer"),
    Rule("preprocess_handler", "--handler-name", ("handler_name",), _preprocess_handler, "preprocess"),
]


def refuses(code: str) -> bool:
    """The framework refuses to start on this finding (a question in words is answered with it alone)."""
    return any(r.refuses for r in RULES if r.code == code)


def held(fields: dict[str, Any], task: str | None = None) -> list[str]:
    """The codes of the rules that apply to ``fields`` (their fields present, the task's) and that the values meet, in
    RULES order: what a "does TP 8 divide the heads?" is answered yes by. A rule that holds only because it does not
    concern this framework also returns None: the caller checks the arithmetic it says."""
    f = dict(fields)
    f.setdefault("task", task)
    out: list[str] = []
    for rule in RULES:
        if (task and rule.task and rule.task != task) or any(f.get(n) is None for n in rule.needs) or rule.code in out:
            continue
        if rule.test(f) is None:
            out.append(rule.code)
    return out


def check(fields: dict[str, Any], task: str | None = None, codes: set[str] | None = None) -> list[Finding]:
    """Every rule whose fields are present (and whose task is ``task``, when given): one finding per broken rule, in
    RULES order; a rule already found (same code and key) is not repeated. ``fields`` is not changed; each finding's
    ``fix`` says what the estimate can run on instead."""
    out: list[Finding] = []
    f = dict(fields)
    f.setdefault("task", task)  # the heads rule keeps KV heads whole for training, replicates them for vLLM (layout.py)
    for rule in RULES:
        if (task and rule.task and rule.task != task) or (codes is not None and rule.code not in codes):
            continue
        if any(f.get(n) is None for n in rule.needs):
            continue
        if any(x.code == rule.code and x.key == rule.key for x in out):
            continue
        broken = rule.test(f)
        if broken is None:
            continue
        out.append(
            Finding(
                code=rule.code,
                key=rule.key,
                value=broken.value,
                valid=broken.valid,
                corrected=broken.corrected,
                figures=broken.figures,
                applied=bool(broken.fix),
                source=SOURCES[rule.source],
                source_zh=SOURCES_ZH[rule.source],
                fix=broken.fix or {},
            )
        )
        if broken.fix:
            f.update(
                broken.fix
            )  # later rules see the value the estimate runs on (TP changed: the TP x PP rule)
    return out
