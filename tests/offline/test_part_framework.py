"""A framework's requirement on a part (assistant/offline/part_facts.py framework_fit, the rule on device_memory_gb in
setup_check/rules.py): MindSpeed-LLM requires at least 64 GB of on-chip memory per NPU (MindSpeed-LLM
supported_models.md, research/modelarts.md §10). The catalog (knowledge/catalog/hardware.csv): 910B4 taken as 32 GB
(inferred), the 910A 32 GB, Snt9B 64 GB per card, Snt9B23 64 GB per DIE. No or yes leads, with both figures."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("question, lead, figures", [
    ("will mindspeed-llm run on our 910b4 boxes?", "**No**", ("64 GB", "32 GB")),
    ("旧的 910A 机器能不能用 MindSpeed-LLM 训练", "**不行**", ("64 GB", "32 GB")),
    ("does the A3 satisfy MindSpeed-LLM's per-NPU memory requirement", "**Yes", ("64 GB",)),
    ("MindSpeed-LLM 在 Snt9B 上显存够不够", "**满足", ("64 GB",)),
])
def test_framework_requirement_on_the_part_leads(assistant, question, lead, figures):
    ans = assistant.ask(question)
    head = ans.answer.split("\n")[0]
    assert lead in head and all(f in head for f in figures), ans.answer
    assert "supported_models.md" in ans.answer
    assert ans.answer.count("supported_models.md") == 1, ans.answer  # the reader's note and the lead are one sentence
    assert "Which model" not in ans.answer and "哪个模型" not in ans.answer
