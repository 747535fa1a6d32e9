"""Concurrency said in Chinese measure words is the concurrency, and a KV total asked with a bare "KV 要多少" leads
(fresh round 17 c3-02, c7-08.3: "10 路请求" and "并发 20 条" were listed as unused values)."""

from __future__ import annotations

import pytest


def lead(ans) -> str:
    return next(line for line in ans.answer.splitlines() if line.startswith("**结论**"))


@pytest.mark.parametrize(("question", "per_token", "total"), [
    # glm4-9b: 2 (K, V) x 40 layers x 2 KV heads x 128 x 2 B = 40 KiB per token; x 32768 = 1.25 GiB; x 10 = 12.5 GiB
    ("glm4-9b 上 10 路请求、每路 32k，KV cache 吃掉多少显存？", "40 KiB", "10 条并发约 **12.5 GiB**"),
    # qwen2.5-7b: 2 x 28 x 4 x 128 x 2 B = 56 KiB per token; x 8192 = 0.4375 GiB; x 20 = 8.75 GiB
    ("qwen2.5-7b vllm 910B 并发 20 条 8k，KV 要多少", "56 KiB", "20 条并发约 **8.8 GiB**"),
])
def test_the_concurrency_said_in_measure_words_multiplies_the_kv(assistant, question, per_token, total):
    ans = assistant.ask(question)
    first = lead(ans)
    assert per_token in first and total in first, first
    assert "未使用" not in ans.answer


def test_rows_of_a_data_set_stay_samples(assistant):
    # "12000 条" with no concurrency word is the data set: 12,000 // 64 = 187 x 5 = 935 steps
    # (the launch script's whole-number arithmetic: the last partial batch of each epoch is not a step)
    assert "935" in lead(assistant.ask("数据集 12000 条，GBS 64，EPOCH 5，默认跑多少步？"))
