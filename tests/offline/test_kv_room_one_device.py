"""The memory left for the KV cache asked of a part named with no count is one device of it (fresh round 19 c3-11 gave
tokens, not GB). Hand computation: qwen3-8b 8.19B x 2 B = 15.3 GiB of weights; 64 GB 910B reports 61.0 GiB
(64 GB x 0.953); 0.9 x 61.0 = 54.9 GiB; 54.9 - 15.3 = 39.6 GiB."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("question,lead", [
    ("qwen3-8b 在 64GB 910B 上 vllm gpu-memory-utilization 0.9，剩给 KV cache 的大概多少 GB",
     "**结论**：**留给 KV cache 的显存（每张卡）：42.5 GB（39.6 GiB）**"),
    ("qwen3-8b on 64GB 910B, util 0.9: how many GB are left for the KV cache?",
     "**Answer:** **Memory left for the KV cache: 42.5 GB (39.6 GiB) per card**"),
])
def test_kv_room_of_one_device(assistant, question, lead):
    answer = assistant.ask(question).answer
    assert next(ln for ln in answer.splitlines() if ln.startswith(("**Answer:**", "**结论**"))).startswith(lead)
    assert "54.9 GiB − weights 15.3 GiB = 39.6 GiB" in answer
