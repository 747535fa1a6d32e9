"""Why a training plan cannot be written as a config, in English and Chinese (``assistant.wordings``): the configs raise
the English text, a Chinese answer shows the Chinese wording."""

from __future__ import annotations

from ..wordings import Wordings

PLAN_ERRORS = Wordings({
    "uneven_nodes": {
        "en": "{devices} devices do not split evenly over {nodes} nodes of {per}.",
        "zh": "{devices} 张卡不能平均分到 {nodes} 个每台 {per} 张卡的节点上。",
    },
    "layout_divides": {
        "en": "TP x PP x CP = {tp} x {pp} x {cp} = {mp} does not divide {devices} devices.",
        "zh": "TP × PP × CP = {tp} × {pp} × {cp} = {mp}，不能整除 {devices} 张卡。",
    },
    "long_needs_cp": {
        "en": "SEQ_LEN {seq} > 32768 needs CP >= 2 (ModelArts MindSpeed-LLM rule).",
        "zh": "SEQ_LEN {seq} 超过 32768 时需要 CP ≥ 2（ModelArts MindSpeed-LLM 规则）。",
    },
    "tp_heads": {
        "en": "TP {tp} does not divide the model's {count} {name}.",
        "zh": "TP {tp} 不能整除模型的 {count} 个{name_zh}。",
    },
    "ppo_zero3": {
        "en": "PPO does not support ZeRO-3 (ModelArts LLaMA-Factory guide).",
        "zh": "PPO 不支持 ZeRO-3（ModelArts LLaMA-Factory 指南）。",
    },
}, {"attention heads": "注意力头", "KV heads": "KV 头"})
