"""A follow-up that frees only part of the devices said before ("only two of those A100s are free", "two of them are
free") is sized on that many, a count word as well as digits (fresh round 17 c7-04.2: the 4-GPU answer was repeated)."""

from __future__ import annotations

import pytest

from .dialog import converse


def capped_devices(ans) -> set[int]:
    return {int(c.args["max_devices"]) for c in ans.tool_calls if c.name == "plan_training" and c.args.get("max_devices")}


@pytest.mark.parametrize("follow_up", [
    "suppose only two of those A100s are free — still doable?",
    "only two of them are free, still ok?",
    "what if only 2 of those A100s are available?",
])
def test_a_part_of_the_devices_said_before(assistant, follow_up):
    last = converse(assistant, "Qwen2.5-14B full fine-tune on 4x A100 80GB, seq 4096 — which ZeRO stage?", follow_up)[-1]
    assert capped_devices(last) == {2}, last.answer[:300]
    assert "your 2 GPUs" in last.answer.split("\n\n")[1]
