"""The remarks a setup reading carries besides its findings, each in English and Chinese in one table.

The reading keeps a remark as its English text (the tool's output is English); an answer in Chinese gets the Chinese
wording (``assistant.wordings``)."""

from __future__ import annotations

from ..wordings import Wordings, in_language

__all__ = ["NOTICES", "in_language", "notice"]

NOTICES: dict[str, dict[str, str]] = {
    "long_paste": {
        "en": "The paste had {lines} lines ({kib} KiB); read the {kept} lines that name memory, an error, a command or a "
              "setting, and skipped the rest.",
        "zh": "贴出的文本有 {lines} 行（{kib} KiB）；只读取了其中提到显存、报错、命令或设置的 {kept} 行，其余跳过。",
    },
    "deepspeed_not_pasted": {
        "en": "The DeepSpeed file {path} was named but not pasted; its ZeRO stage is not known (paste it beside the YAML).",
        "zh": "YAML 指定了 DeepSpeed 文件 {path}，但没有贴出它的内容，无法知道它的 ZeRO stage（请把它和 YAML 一起贴上）。",
    },
    "offloads_one": {
        "en": "{name} offloads only the {what}; the estimate sizes DeepSpeed's offload of optimizer states and (on ZeRO-3) "
              "parameters together.",
        "zh": "{name} 只卸载了{what_zh}；估算把 DeepSpeed 的卸载按优化器状态和（ZeRO-3 下）参数一起卸载计算。",
    },
    "no_model": {
        "en": "The text names no model: give it (model) or its size (params_b) for the per-device memory and the verdict.",
        "zh": "文本未写明模型：请给出模型名（model）或参数量（params_b），以便估算每卡显存并给出结论。",
    },
}
# words a template fills in English that read differently in Chinese
WORDS_ZH = {"optimizer": "优化器状态（offload_optimizer）", "parameters": "参数（offload_param）"}
WORDINGS = Wordings(NOTICES, WORDS_ZH)
notice = WORDINGS.en
