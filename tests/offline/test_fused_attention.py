"""The fused attention operator's limits (vendor page NPU_Flash_Attn融合算子约束: N1, N2 ≤ 2048, D ≤ 512,
N1 a positive integer multiple of N2) applied to the numbers a question states."""

from __future__ import annotations

import pytest

from assistant.offline.fused_attention import check


@pytest.mark.parametrize("q,fits", [
    ("head_dim 576, does NPU_Flash_Attn support it?", False),  # 576 > 512
    ("D=512 ok for NPU_Flash_Attn?", True),  # the limit itself is allowed (D ≤ 512)
    ("40 query heads, 6 kv heads", False),  # 40 / 6 is not an integer
    ("40 heads and 8 kv heads, head_dim 128", True),  # 40 = 5 × 8, 128 ≤ 512
    ("N1=4096, N2=8", False),  # 4096 > 2048
    ("查询头数 64，KV 头数 8，head_dim 128", True),
])
def test_limits(q, fits):
    verdict = check(q)
    assert verdict is not None and verdict.fits is fits, verdict


def test_a_question_without_the_numbers_gets_no_verdict():
    assert check("what are the NPU_Flash_Attn constraints?") is None
    assert check("flash_attn ImportError on 8 cards") is None


def test_the_verdict_names_the_broken_rule_in_both_languages():
    verdict = check("40 query heads and 6 kv heads")
    assert verdict is not None
    assert verdict.text("en") == "No: 40 query heads are not a multiple of 6 KV heads, so NPU_Flash_Attn is not used."
    assert verdict.text("zh") == "不能：40 个查询头不是 6 个 KV 头的整数倍，因此不会使用 NPU_Flash_Attn。"


# The mask's dtype the question states is checked against the page's "attn_mask must be bool or None" (howto6)
@pytest.mark.parametrize("question,fits", [
    ("NPU_Flash_Attn 对 attention mask 有什么要求？我的 mask 是 float16 的", False),
    ("fused attention got skipped, I pass a float16 additive mask, is that why?", False),
    ("my attn_mask is bool, head_dim 128 — will NPU_Flash_Attn be used?", True),
])
def test_mask_dtype_is_checked(question, fits):
    from assistant.offline import fused_attention
    v = fused_attention.check(question)
    assert v is not None and v.fits is fits
    assert any("attn_mask" in r for r in v.reasons_en)


def test_float16_mask_leads_with_no(assistant):
    text = assistant.ask("NPU_Flash_Attn 对 attention mask 有什么要求？我的 mask 是 float16 的").answer
    assert text.startswith("**结论**：**不能：attn_mask 是 float16，而它必须是 bool 或 None")


def test_a_pasted_config_json_gives_the_heads():
    # a config.json's keys keep their closing quote before the colon ('"num_key_value_heads": 5'); the vendor page's
    # rule N1 a multiple of N2 (modelarts_llm_train_5901150): 24 is not a multiple of 5 (fresh round 17 c6-06)
    v = check('config.json: "num_attention_heads": 24, "num_key_value_heads": 5, "head_dim": 256. will NPU_Flash_Attn kick in?')
    assert v is not None and not v.fits
    assert v.text("en").startswith("No: ") and "24" in v.text("en") and "5" in v.text("en")
    ok = check('"num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128')
    assert ok is not None and ok.fits
