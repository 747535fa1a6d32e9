"""A follow-up that states a new length for the job ("序列长度 16k 可以吗", "seq len 32k ok?") asks about the same
job at that length: its words name note topics (sequence length, OOM) but it is no knowledge question, so the
conversation's model, method and devices carry into it."""

from __future__ import annotations

import pytest

from .dialog import converse


@pytest.mark.parametrize("turns, model, length", [
    (("我们有两台 910B 服务器，想做 glm4-9b 的 lora", "序列长度 16k 可以吗"), "glm4-9b", "16384"),
    (("qwen2.5-7b lora on 8 snt9b cards, which zero stage?", "seq len 32k ok?"), "qwen2.5-7b", "32768"),
    (("llama3.1-8b 全参 8 张 910B", "cutoff_len 改成 8192 行不行"), "llama3.1-8b", "8192"),
])
def test_a_new_length_is_the_same_job(assistant, turns, model, length):
    answer = converse(assistant, *turns)[-1]
    header = answer.answer.split("\n")[0]
    assert f"**{model}**" in header and length in header
    assert not any(c.name == "search_notes" for c in answer.tool_calls)  # sized, not a note quoted
