"""Argument types shared by the tools: case-insensitive enums with aliases, bounded lengths."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BeforeValidator, Field
from pydantic_core import PydanticCustomError

MAX_SEQ_LEN = 1_048_576  # 1M tokens: beyond any released model's context; larger is a typo
MAX_DEVICES = 4096  # devices in one job or fleet: beyond the largest clusters a sizing question names


def _alias(mapping: dict[str, str]):
    def norm(v):
        if isinstance(v, str):
            key = v.strip().lower().replace("_", "-").replace(" ", "-")
            return mapping.get(key, key)
        return v

    return BeforeValidator(norm)


def _not_a_bool(v):
    # JSON true is not the integer 1 (Python's bool is an int, so Literal[0, 1, 2, 3] would take it).
    if isinstance(v, bool):
        raise PydanticCustomError("literal_error", "Input should be an integer, not true/false",
                                  {"expected": "an integer (a JSON number, not true/false)"})
    return v


NOT_A_BOOL = BeforeValidator(_not_a_bool)

Strategy = Annotated[
    Literal["lora", "full"],
    _alias({"全参": "full", "全量": "full", "full-finetune": "full", "full-ft": "full", "sft-full": "full", "lora-sft": "lora"}),
    Field(description="Fine-tuning strategy in the vendor tables: lora or full. The estimator and config tools call "
                      "the same choice `method` (which also has freeze and qlora, not in the tables)."),
]

Framework = Annotated[
    Literal["MindSpeed-LLM", "LLaMA-Factory"],
    _alias({
        "mindspeed-llm": "MindSpeed-LLM", "mindspeed": "MindSpeed-LLM", "ms": "MindSpeed-LLM", "modellink": "MindSpeed-LLM",
        "llama-factory": "LLaMA-Factory", "llamafactory": "LLaMA-Factory", "lf": "LLaMA-Factory", "llama-factory-": "LLaMA-Factory",
    }),
    Field(description="Training framework: MindSpeed-LLM or LLaMA-Factory."),
]

AscendPart = Annotated[
    Literal["Snt9B", "Snt9B23"],
    _alias({"snt9b": "Snt9B", "910b": "Snt9B", "ascend-910b": "Snt9B", "a2": "Snt9B",
            "snt9b23": "Snt9B23", "910c": "Snt9B23", "ascend-910c": "Snt9B23", "a3": "Snt9B23"}),
    Field(description="Ascend part of the vendor table: Snt9B (910B, cards) or Snt9B23 (910C, counted in DIE)."),
]

SeqLen = Annotated[int, Field(ge=1, le=MAX_SEQ_LEN, description="Sequence length in tokens (cutoff_len / SEQ_LEN).")]
ModelName = Annotated[str, Field(min_length=1, max_length=200, description="Model name in any common spelling, e.g. 'Qwen2.5-72B-Instruct', 'llama3.1 8b', '千问2.5-72B'.")]

NoteLang = Annotated[
    Literal["auto", "en", "zh"],
    _alias({"english": "en", "en-us": "en", "英文": "en", "英语": "en",
            "chinese": "zh", "zh-cn": "zh", "zh-hans": "zh", "cn": "zh", "中文": "zh", "汉语": "zh"}),
    Field(description="Language of the notes to search: auto (Chinese if the query is in Chinese, else English), en or zh."),
]
