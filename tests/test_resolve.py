"""Model and hardware name resolution on many spellings."""

from __future__ import annotations

import pytest

SPELLINGS = {
    "Qwen2.5-72B-Instruct": "qwen2.5-72b",
    "qwen2.5 72b": "qwen2.5-72b",
    "千问2.5-72B": "qwen2.5-72b",
    "通义千问2.5-72B": "qwen2.5-72b",
    "Qwen/Qwen2.5-72B-Instruct": "qwen2.5-72b",
    "Qwen2.5-72B-Instruct-AWQ": "qwen2.5-72b",
    "Meta-Llama-3.1-8B": "llama3.1-8b",
    "meta-llama/Meta-Llama-3.1-8B-Instruct": "llama3.1-8b",
    "Llama-3.1-8B": "llama3.1-8b",
    "llama3.1-8b": "llama3.1-8b",
    "Llama-3-8B": "llama3-8b",
    "llama2 7B": "llama2-7b",
    "Llama-2-7b-hf": "llama2-7b",
    "Llama-2-13b-chat-hf": "llama2-13b",
    "qwen3_moe-30B_A3B": "qwen3-30b-a3b",
    "Qwen3-30B-A3B": "qwen3-30b-a3b",
    "qwen3_moe-235B_A22B": "qwen3-235b-a22b",
    "Qwen3-235B-A22B-Thinking-2507": "qwen3-235b-a22b",
    "DeepSeek-V3/R1": "deepseek-v3",
    "DeepSeek-V3": "deepseek-v3",
    "deepseek-r1": "deepseek-v3",
    "Qwen1.5-32B": "qwen1.5-32b",
    "Qwen1.5 0.5B": "qwen1.5-0.5b",
    "qwen2vl-7b": "qwen2-vl-7b",
    "Qwen2-VL-7B-Instruct": "qwen2-vl-7b",
    "qwen2.5_vl-72b": "qwen2.5-vl-72b",
    "Qwen2.5-VL-7B-Instruct": "qwen2.5-vl-7b",
    "GLM-4-9B": "glm4-9b",
    "glm-4-9b-chat": "glm4-9b",
    "Yi-6B": "yi-6b",
    "Yi 34B": "yi-34b",
    "Mixtral-8x7B-Instruct-v0.1": "mixtral-8x7b",
    "DS-R1-Distill-Qwen-7B": "deepseek-r1-distill-qwen-7b",
    "DeepSeek-R1-Distill-Llama-70B": "deepseek-r1-distill-llama-70b",
    "QwQ-32B": "qwq-32b",
    "internvl2.5-78b": "internvl2.5-78b",
    "gemma3-27b": "gemma3-27b",
    "falcon2 11B": "falcon2-11b",
    "ＱＷＥＮ２．５－７Ｂ": "qwen2.5-7b",
    # a MoE model named by its total size alone (fresh round 10 c3-07): the one catalog model of that total size
    "qwen3 235B": "qwen3-235b-a22b",
    "Qwen3-30B": "qwen3-30b-a3b",
    "qwen3 moe 235b": "qwen3-235b-a22b",
    "千问3-235B": "qwen3-235b-a22b",
}


@pytest.mark.parametrize("name,expected", SPELLINGS.items())
def test_resolve_model_spellings(call, name, expected):
    out = call("resolve_model", name=name)
    assert out.get("id") == expected, out


def test_every_table_model_is_in_the_catalog(ctx):
    catalog = {m["id"] for m in ctx.kb.models()}
    assert ctx.kb.table_model_ids() <= catalog


@pytest.mark.parametrize("name", ["gpt-99-ultra", "qwen9-72b", "llama 3.1 8", "qwen3 100b", "qwen3 235"])
def test_unknown_model_lists_closest(call, name):
    out = call("resolve_model", name=name)
    err = out["error"]
    assert err["code"] == "unknown_model" and err["field"] == "model"
    assert name in err["message"]
    assert isinstance(err["valid"], list) and err["valid"]


def test_family_prefix_suggests_sizes(call):
    err = call("resolve_model", name="qwen2.5")["error"]
    assert "qwen2.5-72b" in err["valid"] or any(v.startswith("qwen2.5-") for v in err["valid"])


@pytest.mark.parametrize("name,expected", [("910B", "snt9b"), ("Snt9B23", "snt9b23"), ("910C", "snt9b23"), ("A100", "a100-80g"),
                                           ("H100", "h100-80g"), ("4090", "rtx4090-24g")])
def test_resolve_hardware(ctx, name, expected):
    assert ctx.resolver.hardware_id(name) == expected


@pytest.mark.parametrize(("typed", "model"), [
    ("lama3-8b", "llama3-8b"),                      # one letter missing
    ("mixtrel-8x7b", "mixtral-8x7b"),               # one letter wrong
    ("gema3-27b", "gemma3-27b"),
    ("qwen2.5-7b-instrcut", "qwen2.5-7b"),          # a transposition in a size-neutral suffix
    ("Qwen2.5-14B-Instuct", "qwen2.5-14b"),
])
def test_one_or_two_letter_typos_are_read_as_the_catalog_model(ctx, typed, model):
    assert ctx.resolver.correct(typed) == ([model], 1)


@pytest.mark.parametrize("typed", ["llama3-9b", "qwen9-13b", "gpt-99-ultra", "supernova-ultra"])
def test_a_different_number_or_an_unknown_name_is_no_typo(ctx, typed):
    assert ctx.resolver.correct(typed) == ([], 0)  # 9b is not a misspelt 8b: the numbers must agree
