"""Bad input gets the one canonical error shape: what was wrong and what is valid."""

from __future__ import annotations

import pytest


def _err(out):
    assert set(out) == {"error"}, out
    e = out["error"]
    assert set(e) == {"code", "message", "field", "valid"} and e["message"]
    return e


@pytest.mark.parametrize("seq", [-1, 0, 10**9])
def test_impossible_seq_len(call, seq):
    e = _err(call("min_cards", model="qwen2.5-7b", seq_len=seq))
    assert e["code"] == "invalid_arguments" and e["field"] == "seq_len"


def test_bad_strategy_names_the_valid_ones(call):
    e = _err(call("training_recipe", model="qwen2-7b", strategy="prefix-tuning"))
    assert e["field"] == "strategy" and "lora" in str(e["valid"]) and "full" in str(e["valid"])


def test_bad_framework_and_hardware(call):
    e = _err(call("min_cards", model="qwen2-7b", framework="megatron-xl"))
    assert e["field"] == "framework" and "MindSpeed-LLM" in str(e["valid"])
    e = _err(call("min_cards", model="qwen2-7b", hardware="tpu-v5"))
    assert e["field"] == "hardware" and "Snt9B23" in str(e["valid"])


def test_case_insensitive_values(call):
    out = call("min_cards", model="QWEN2.5-72B", strategy="LoRA", seq_len=4096, framework="llamafactory", hardware="SNT9B")
    assert out["cards"] == 32


def test_wrong_types_and_missing(call):
    assert _err(call("min_cards", model=["qwen"]))["field"] == "model"
    assert _err(call("min_cards"))["field"] == "model"
    assert _err(call("resolve_model", name=""))["field"] == "name"


def test_unknown_tool_and_malformed_json(ctx, registry):
    assert _err(registry.call_json("drop_tables", {}, ctx))["code"] == "unknown_tool"
    assert _err(registry.call_json("min_cards", '{"model": ', ctx))["code"] == "invalid_json"
    assert _err(registry.call_json("min_cards", "[1, 2]", ctx))["code"] == "invalid_arguments"
    deep = "[" * 5000 + "]" * 5000
    assert "error" in registry.call_json("min_cards", deep, ctx)


def test_no_row_is_an_error_that_lists_what_exists(call):
    e = _err(call("training_recipe", model="qwen2.5-72b", strategy="lora"))
    assert e["code"] == "no_table_row" and "qwen2-72b" in e["valid"]


def test_unsupported_row_is_a_result_not_an_error(call):
    out = call("min_cards", model="qwen2-1.5b", strategy="lora", seq_len=4096, framework="LLaMA-Factory", hardware="Snt9B")
    assert out["supported"] is False and out["cards"] is None


def test_misspelt_argument_is_an_error_not_a_default(call):
    e = _err(call("min_cards", model="qwen2.5-72b", cutoff_len=8192))
    assert e["code"] == "invalid_arguments" and e["field"] == "cutoff_len"
    assert "seq_len" in e["valid"]
