"""mindspeed_example: the Ascend/MindSpeed-LLM example scripts' values, as research/modelarts.md §11 lists them
(snapshot c77308a1, commit 42b24752); DP and gradient accumulation by hand: DP = devices / (TP x PP x CP),
GA = GBS / (MBS x DP)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    ("model", "method", "seq_len", "expected"),
    [
        # qwen3_moe/tune_qwen3_30b_a3b_4K_full_ptd: 16 cards, TP 4, PP 2, EP 2, MBS 4, GBS 64 -> DP 16/8 = 2, GA 64/(4x2) = 8
        ("qwen3-30b-a3b", "full", 4096, dict(devices=16, tp=4, pp=2, ep=2, mbs=4, gbs=64, dp=2, grad_accum=8)),
        # qwen25/tune_qwen25_72b_4k_full_ptd: 32 cards, TP 8, PP 2, MBS 1, GBS 32 -> DP 2, GA 16
        ("Qwen2.5-72B-Instruct", "full", 4096, dict(devices=32, tp=8, pp=2, ep=None, mbs=1, gbs=32, dp=2, grad_accum=16)),
        # llama31/tune_llama31_8b_4k_lora_ptd: 8 cards, TP 1, PP 1, MBS 1, GBS 8 -> DP 8, GA 1
        ("llama3.1-8b", "lora", 4096, dict(devices=8, tp=1, pp=1, ep=None, mbs=1, gbs=8, dp=8, grad_accum=1)),
        # qwen25/tune_qwen25_72b_32k_full_pack (A3): 64 DIE, TP 8, PP 2, CP 4, MBS 1, GBS 32 -> DP 64/64 = 1, GA 32
        ("qwen2.5-72b", "full", 32768, dict(devices=64, tp=8, pp=2, cp=4, mbs=1, gbs=32, dp=1, grad_accum=32, unit="die")),
    ],
)
def test_the_scripts_own_values_with_dp_and_ga_derived(call, model, method, seq_len, expected):
    out = call("mindspeed_example", model=model, method=method, seq_len=seq_len)
    assert out["found"] and out["exact"] and len(out["scripts"]) == 1
    script = out["scripts"][0]
    assert {k: script[k] for k in expected} == expected
    assert "c77308a1" in script["source"]


def test_a_model_without_a_script_is_said_to_have_none(call):
    out = call("mindspeed_example", model="internlm2.5-20b")
    assert not out["found"] and out["scripts"] == []
    assert "qwen3-30b-a3b" in out["models_with_scripts"] and "internlm2.5-20b" not in out["models_with_scripts"]


def test_another_length_lists_the_models_scripts_as_not_exact(call):
    out = call("mindspeed_example", model="qwen3-30b-a3b", method="full", seq_len=8192)
    assert out["found"] and not out["exact"] and [s["seq_len"] for s in out["scripts"]] == [4096]
