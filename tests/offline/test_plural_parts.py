"""A part written as a plural after a count is the part, with that count: "a pair of 910Bs" (Snt9B, 2 cards),
"four A3s" (Snt9B23, 4 cards). Fresh round 17 c5-07: "910Bs" was refused as an unknown part and "A3s" dropped for an
assumed Snt9B. A two-character alias needs the count: "a3s9" inside other words names no part."""

from __future__ import annotations

import pytest


def hardware_args(ans) -> set[str]:
    return {c.args["hardware"].lower() for c in ans.tool_calls if c.args.get("hardware")}


@pytest.mark.parametrize(("question", "hardware", "devices"), [
    ("Trying qwen2.5-7b on a pair of 910Bs, does lora 8k fit?", "snt9b", 2),
    ("qwen2.5-7b lora 8k on four A3s?", "snt9b23", 4),
    ("can 8 H100s do qwen2.5-32b full 4k", "h100-80g", 8),
])
def test_a_plural_part_after_a_count(assistant, question, hardware, devices):
    ans = assistant.ask(question)
    assert hardware_args(ans) == {hardware}, ans.answer[:300]
    assert "not a part in the hardware catalog" not in ans.answer
    assert str(devices) in ans.answer.split("\n\n")[1][:400]


def test_a_short_alias_inside_other_words_is_no_part(assistant):
    ans = assistant.ask("sha a3s9 checksum for qwen2.5-7b lora 8k")
    assert "snt9b23" not in hardware_args(ans)
