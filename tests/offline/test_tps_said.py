"""A per-card throughput said in words ("每卡每秒 900 token", "TPS per card 2500", "1500 tokens per second per card") is
the TPS of the vendor's time formula, Time = tokens / (TPS x N) / η (ModelArts 590604, η 0.9 on more than one card),
not a sequence length (fresh round 19 c7-05#2) or a missing figure (c3-10)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("question,lead", [
    # 2e8 / (900 x 16) / 0.9 = 15,432 s = 4.3 h
    ("mixtral-8x7b 全参 16 张卡，按每卡每秒 900 token，2e8 token 训完得几个小时", "**结论**：**约 4.3 小时**（15,432 秒）"),
    # 1e9 / (1500 x 8) / 0.9 = 92,593 s = 25.7 h
    ("llama3-8b, 1B tokens, 8 cards, 1500 tokens per second per card — how long?", "**Answer:** **≈ 25.7 hours** (92,593 s)"),
    # N = 2e9 / (86,400 x 2500) / 0.9 = 10.29 -> above 8, a multiple of 8: 16 (training-time note)
    ("2B tokens, need it done within 24h, TPS per card 2500 — how many Snt9B cards?", "**Answer:** **16 cards** to finish within 24 h"),
])
def test_a_rate_per_card_in_words_is_the_tps(assistant, question, lead):
    answer = assistant.ask(question).answer
    assert next(ln for ln in answer.splitlines() if ln.startswith(("**Answer:**", "**结论**"))).startswith(lead)
    assert "序列长度 900" not in answer
