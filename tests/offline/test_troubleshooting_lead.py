"""A troubleshooting question is answered first: the note's own summary (its front matter, read here
from the knowledge file) leads the answer, in the question's language, before the quoted sections."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

NOTES = Path(__file__).resolve().parents[2] / "knowledge" / "notes"


def summary(file: str, lang: str) -> str:
    path = NOTES / ("zh" if lang == "zh" else "") / file
    front = path.read_text(encoding="utf-8").split("---")[1]
    return str(yaml.safe_load(front)["summary"]).strip()


@pytest.mark.parametrize("q,file,lang", [
    ("OOM with LoRA on 910B, what should I do?", "oom.md", "en"),
    ("训练时报 HCCL timeout 怎么办？", "ckpt_timeout.md", "zh"),
    ("bf16 还是 fp16？", "bf16_fp16.md", "zh"),
    ("My multi-node job times out while saving the checkpoint. Why?", "ckpt_timeout.md", "en"),
])
def test_the_notes_summary_leads(assistant, q, file, lang):
    first = assistant.ask(q).answer.splitlines()[0]
    head = "**结论**：" if lang == "zh" else "**Answer:** "
    assert first.startswith(head + summary(file, lang))


# ---------------------------------------------------------------- fresh round 5: a model named only as the example
@pytest.mark.parametrize("q,fact", [
    # seeds/002 NPU_Flash_Attn constraints: attn_mask bool or None
    ("What does NPU_Flash_Attn require for the attn_mask and head dim? My qwen2.5-7b has head_dim 128.", "attn_mask"),
    # the launch script checks the data and runs scripts/llama2/1_preprocess_data.sh itself
    ("训练的数据集预处理是怎么自动触发的？llama2-13b 举例", "1_preprocess_data"),
    # the vendor's benchmark page: multimodal models only have the static test, modal_benchmark_parallel.py
    ("多模态模型推理性能测试怎么做，qwen2.5-vl-7b", "modal_benchmark_parallel"),
    ("how do I run the serving benchmark for my qwen2.5-7b vllm service?", "benchmark"),
])
def test_a_how_to_naming_a_model_as_the_example_is_answered_from_the_notes(assistant, q, fact):
    ans = assistant.ask(q)
    assert [c.name for c in ans.tool_calls] == ["search_notes"], [c.name for c in ans.tool_calls]
    lead = ans.answer[:600]
    assert fact in lead and "4096" not in lead  # the answer, not a job header with an assumed length


@pytest.mark.parametrize("q", ["qwen2.5-7b lora how many cards?", "how do I pick the zero stage for qwen2.5-72b full 4096?",
                               "qwen2.5-14b 全参 8卡 训练时显存溢出怎么办"])
def test_a_job_stated_beside_a_how_to_is_still_sized(assistant, q):
    assert {"min_cards", "plan_training"} & {c.name for c in assistant.ask(q).tool_calls}
