"""estimate_training_time: expected values computed by hand here, from the formulas in
knowledge/notes/training_time.md and the NVIDIA datasheet peaks (A100 312, H100 989 TFLOPS BF16 dense)."""

from __future__ import annotations

import pytest


def test_flops_estimate_by_hand(call):
    # 6 x 7e9 params x 1e9 tokens = 4.2e19 FLOPs; 8 A100 x 312e12 x MFU 0.35 = 8.736e14 FLOP/s -> 48,076.9 s
    out = call("estimate_training_time", params_b=7, tokens=1e9, devices=8, hardware="a100")
    assert out["basis"] == "flops_estimate" and out["hardware"] == "a100-80g"
    assert out["seconds"] == pytest.approx(4.2e19 / 8.736e14)
    assert out["hours"] == pytest.approx(48076.923 / 3600, rel=1e-6)
    assert out["total_flops"] == pytest.approx(4.2e19)
    # implied throughput: 312e12 x 0.35 / (6 x 7e9) = 2,600 tokens/s per GPU
    assert out["tps_per_device"] == pytest.approx(2600.0)
    assert (out["peak_tflops"], out["mfu"], out["flops_per_param_token"]) == (312, 0.35, 6)
    assumptions = " ".join(out["assumptions"])
    assert "MFU 0.35 (assumed" in assumptions and "312 TFLOPS" in assumptions and "6·P·T" in assumptions
    assert "general knowledge" in out["source"] and "not a vendor figure" in out["source"]


def test_recompute_and_mfu_change_the_estimate_as_the_formula_says(call):
    base = dict(params_b=7, tokens=1e9, devices=8, hardware="h100")
    # H100: 6 x 7e9 x 1e9 / (8 x 989e12 x 0.35) = 15,166.8 s
    assert call("estimate_training_time", **base)["seconds"] == pytest.approx(4.2e19 / (8 * 989e12 * 0.35))
    assert call("estimate_training_time", **base, recompute=True)["seconds"] == pytest.approx(5.6e19 / (8 * 989e12 * 0.35))
    assert call("estimate_training_time", **base, mfu=0.5)["seconds"] == pytest.approx(4.2e19 / (8 * 989e12 * 0.5))


def test_vendor_formula_with_a_measured_tps(call):
    # the note's worked example: 50,000 samples x 4096 tokens x 3 epochs = 614.4e6 tokens; TPS 1500 on 16 cards,
    # eta 0.9 -> 614.4e6 / (1500 x 16 x 0.9) = 28,444.4 s (the note: "about 28,400 s, 7.9 h")
    out = call("estimate_training_time", model="qwen2.5-7b", samples=50_000, seq_len=4096, epochs=3, devices=16, tps=1500)
    assert out["basis"] == "vendor_formula" and out["tokens"] == 614_400_000
    assert out["seconds"] == pytest.approx(614.4e6 / (1500 * 16 * 0.9))
    assert round(out["hours"], 1) == 7.9
    assert out["speedup"] == 0.9 and "η = 0.9" in " ".join(out["assumptions"])
    assert "samples × seq_len × epochs" in " ".join(out["assumptions"])
    assert out["formula"].startswith("Time = tokens / (TPS × N × η) = 6.144e8 / (1500 × 16 × 0.9)")
    # without the speed-up factor (eta = 1): 614.4e6 / (1500 x 16) = 25,600 s, as the note says
    assert call("estimate_training_time", model="qwen2.5-7b", tokens=614.4e6, devices=16, tps=1500, speedup=1)["seconds"] == \
        pytest.approx(25_600)


def test_one_device_has_no_scaling_loss(call):
    out = call("estimate_training_time", params_b=1, tokens=1e8, devices=1, tps=1000)
    assert out["seconds"] == pytest.approx(1e5) and out["speedup"] == 1.0


def test_ascend_without_a_throughput_says_so(call):
    out = call("estimate_training_time", model="llama3-8b", tokens=1e9, devices=8, hardware="910B")
    err = out["error"]
    assert err["code"] == "no_throughput" and err["field"] == "tps" and err["valid"] == ["tps", "tflops"]
    assert "no BF16 TFLOPS figure" in err["message"] and "not public" in err["message"]
    assert "Time = 1e9 / (TPS × 8 × 0.9) s" in err["message"]
    # a peak given by the user is used, and said to be given: 6 x 7e9 x 1e9 / (8 x 300e12 x 0.35)
    out = call("estimate_training_time", params_b=7, tokens=1e9, devices=8, hardware="snt9b", tflops=300)
    assert out["seconds"] == pytest.approx(4.2e19 / (8 * 300e12 * 0.35)) and "(given)" in " ".join(out["assumptions"])


def test_moe_counts_active_parameters(call):
    # Qwen3-30B-A3B: 3.3B of 30.5B parameters active per token (model card) -> 6 x 3.3e9 x 1e9 FLOPs
    out = call("estimate_training_time", model="Qwen3-30B-A3B", tokens=1e9, devices=8, hardware="a100")
    assert out["params_b"] == 3.3 and out["total_flops"] == pytest.approx(6 * 3.3e9 * 1e9)
    assert any("MoE" in n for n in out["notes"])


@pytest.mark.parametrize("args,field", [
    ({"model": "llama3-8b", "devices": 8, "tps": 1000}, "tokens"),
    ({"tokens": 1e9, "devices": 8, "hardware": "a100"}, "model"),  # no model, no TPS: neither formula applies
    ({"model": "llama3-8b", "tokens": 1e9, "tps": 1000}, "devices"),
    ({"model": "llama3-8b", "tokens": float("nan"), "devices": 8, "tps": 1000}, "tokens"),
    ({"model": "llama3-8b", "tokens": 1e9, "devices": 8, "tps": -5}, "tps"),
    ({"model": "llama3-8b", "tokens": 1e9, "devices": 8, "mfu": 1.5, "hardware": "a100"}, "mfu"),
])
def test_bad_input_is_the_canonical_error(call, args, field):
    err = call("estimate_training_time", **args)["error"]
    assert err["code"] == "invalid_arguments" and err["field"] == field


def test_the_vendor_formula_needs_no_model(call):
    # 1e9 tokens / (1000 tokens/s/card x 8 cards x 0.9) = 138,888.9 s
    out = call("estimate_training_time", tokens=1e9, devices=8, tps=1000)
    assert out["basis"] == "vendor_formula" and out["model"] is None
    assert out["seconds"] == pytest.approx(1e9 / (1000 * 8 * 0.9))
