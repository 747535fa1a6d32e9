"""Issue 25's "also found" on the tools' arguments: misspelt keys inside ``shape`` refused on every
tool that takes a shape, ``zero_stage: true`` refused, every error naming what is valid (required
fields, length and pattern limits), the right field blamed, and schemas that state what the server
enforces (no unknown arguments, model or params_b, a description on every input property)."""

from __future__ import annotations

import pytest

from assistant.tools.estimate_models import CustomShape

SHAPE_TOOLS = ["estimate_training_memory", "plan_training", "compare_hardware", "estimate_inference"]
# derive_quantity takes a shape too, alone with no model ("48 layers, 8 KV heads, head dim 128"): its quantity is required


@pytest.mark.parametrize("tool", SHAPE_TOOLS)
@pytest.mark.parametrize("typo", ["layer", "hiden", "zzz"])
def test_a_misspelt_shape_key_is_refused(call, tool, typo):
    err = call(tool, model="qwen2.5-7b", shape={typo: 3})["error"]
    assert err["code"] == "invalid_arguments" and err["field"] == f"shape.{typo}"
    assert err["valid"] == sorted(CustomShape.model_fields)


def test_every_tool_with_a_shape_is_covered(registry):
    assert sorted(t.name for t in registry if "shape" in t.input_schema().get("properties", {})) == sorted([*SHAPE_TOOLS, "derive_quantity"])


@pytest.mark.parametrize("typo", ["layer", "hiden"])
def test_a_misspelt_shape_key_is_refused_by_derive_quantity(call, typo):
    err = call("derive_quantity", quantity="kv_per_token", shape={typo: 3})["error"]
    assert err["code"] == "invalid_arguments" and err["field"] == f"shape.{typo}"
    assert err["valid"] == sorted(CustomShape.model_fields)


@pytest.mark.parametrize("value", [True, False])
def test_zero_stage_true_is_not_stage_1(call, value):
    err = call("estimate_training_memory", model="qwen2.5-7b", zero_stage=value, devices=8)["error"]
    assert err["field"] == "zero_stage" and "true/false" in err["valid"]
    assert call("generate_config", model="qwen2.5-7b", zero_stage=value)["error"]["field"] == "zero_stage"


def test_a_missing_required_field_says_what_it_takes(call):
    err = call("resolve_model")["error"]
    assert err["field"] == "name" and err["valid"] == {"required": True, "type": "string", "minLength": 1, "maxLength": 200}


def test_length_and_pattern_limits_say_the_limit(call):
    assert call("resolve_model", name="x" * 201)["error"]["valid"] == "at most 200 characters"
    err = call("generate_config", model="qwen2.5-7b", template="bad template!")["error"]
    assert err["field"] == "template" and err["valid"].startswith("a string matching ^[A-Za-z0-9_.")


def test_inference_min_cards_at_a_memory_size_the_tables_lack_blames_memory_gb(call):
    # vllm_min_cards.csv: qwen2.5-72b has one row, on 64 GB cards (4 cards); none at 48 GB
    err = call("inference_min_cards", model="qwen2.5-72b", memory_gb=48)["error"]
    assert err["field"] == "memory_gb" and err["valid"] == [64]
    assert "48 GB" in err["message"]


def test_schemas_state_what_the_server_enforces(registry):
    for t in registry:
        schema = t.input_schema()
        assert schema.get("additionalProperties") is False, t.name
        defs = schema.get("$defs", {})
        for name, prop in schema.get("properties", {}).items():
            assert prop.get("description"), f"{t.name}.{name} has no description"
        for model_name, model in defs.items():
            if model_name == "CustomShape":
                assert model.get("additionalProperties") is False
                assert all(p.get("description") for p in model["properties"].values())
    for name in SHAPE_TOOLS:
        assert registry.get(name).input_schema()["anyOf"] == [{"required": ["model"]}, {"required": ["params_b"]}]


def test_an_unknown_argument_is_still_refused_with_the_valid_names(call):
    err = call("list_models", famly="qwen")["error"]
    assert err["field"] == "famly" and "family" in err["valid"]


@pytest.mark.parametrize(("field", "value", "valid"), [("method", "qlora", ["lora", "full"]), ("method", "freeze", ["lora", "full"]),
                                                       ("stage", "dpo", ["pt", "sft"])])
def test_a_mindspeed_plan_takes_the_scripts_stages_and_methods(call, field, value, valid):
    # ModelArts 训练参数配置说明 (5901042): STAGE pt or sft, FINETUNING_TYPE full or lora
    err = call("plan_training", model="qwen2.5-7b", framework="MindSpeed-LLM", hardware="snt9b", **{field: value})["error"]
    assert (err["code"], err["field"], err["valid"]) == ("invalid_arguments", field, valid)
