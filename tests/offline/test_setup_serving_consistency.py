"""A pasted vLLM line checked against the model's context: the answer never corrects the length and then states a
fit at the uncorrected one as if nothing happened, and a question asked on the command's own line is answered in
its language (fresh round 5, class 6, s48). qwen3-8b's own context is 40,960 tokens (its config.json,
max_position_embeddings); qwen2.5-7b's is 131,072 (read from the catalog's figure in the finding)."""

from __future__ import annotations

import re


def test_a_fit_at_a_flagged_length_says_it_assumes_the_extended_context(assistant):
    ans = assistant.ask("vllm serve Qwen2.5-7B-Instruct --max-model-len 200000 on one 910B, will it work?").answer
    assert "is above qwen2.5-7b's own context" in ans
    fit = next(line for line in ans.splitlines() if "**Fits:" in line or "**Does not fit:" in line)
    assert fit.startswith("Only with the context extended to 200000 tokens (rope scaling")


def test_a_chinese_question_on_the_command_line_is_answered_in_chinese(assistant):
    ans = assistant.ask("vllm serve Qwen/Qwen3-8B --max-model-len 50000 --tensor-parallel-size 2 在两张910B上能跑吗").answer
    assert "超过 qwen3-8b 自身的上下文 40960 token" in ans
    assert not re.search(r"\*\*(Fits|Does not fit)", ans) and "仅在用 rope scaling 把上下文扩展到 50000 token 时" in ans
