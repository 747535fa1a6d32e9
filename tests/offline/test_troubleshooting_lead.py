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
