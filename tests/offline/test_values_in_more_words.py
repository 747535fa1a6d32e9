"""Values written in words the reader did not take (round 20 c3-03, c3-01): the accumulation named by its last word,
users each holding a sequence, an optimizer update asked in Chinese. Figures by hand."""

from __future__ import annotations


def test_accumulation_alone_is_the_gradient_accumulation_and_an_update_asks_tokens_per_step(assistant):
    # 16 cards x micro batch 1 x accumulation 4 = 64 sequences of 8192 tokens = 524,288 tokens per update
    ans = assistant.ask("packing 打开后一次参数更新吃进去多少 token？我是 16 卡, 每卡 batch 1, accumulation 4, seq 8192")
    assert ans.answer.startswith("**结论**：**每个 iteration 的 token 数：524,288 个 token**"), ans.answer[:200]


def test_users_each_holding_a_context_are_sequences_at_once(assistant):
    # llama3.1-70b: 2 (K,V) x 80 layers x 8 KV heads x 128 x 2 B = 320 KiB per token; x 32,768 = 10 GiB; x 8 = 80 GiB
    ans = assistant.ask("llama3.1-70b: 8 users each holding a 32k context — total KV cache memory in bf16?")
    first = ans.answer.split("**Answer:**", 1)[1].split("\n", 1)[0]
    assert "**320 KiB per token**" in first and "**10.0 GiB** for one 32768-token sequence" in first
    assert "**80.0 GiB** for 8 at once" in first
