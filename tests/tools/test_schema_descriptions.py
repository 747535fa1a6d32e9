"""Issue 25: every property of every tool's schema carries a description, the output schemas included
(nested result models under $defs, list items, unions), so MCP clients, the OpenAPI page and the
README's tool table say what each figure is and where it comes from."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, Field

from assistant.tools import REGISTRY


def undescribed(schema: Any, where: str = "") -> list[str]:
    """Paths of the properties without a description anywhere in a JSON schema: top-level properties,
    every $defs model, and objects nested in items, anyOf/allOf/oneOf or additionalProperties."""
    missing: list[str] = []
    if isinstance(schema, dict):
        for name, prop in (schema.get("properties") or {}).items():
            if not (isinstance(prop, dict) and str(prop.get("description", "")).strip()):
                missing.append(f"{where}.{name}" if where else name)
        for key, value in schema.items():
            if key == "properties":
                for name, prop in value.items():
                    missing += undescribed(prop, f"{where}.{name}" if where else name)
            elif key == "$defs":
                for name, sub in value.items():
                    missing += undescribed(sub, f"$defs.{name}")
            elif isinstance(value, dict | list):
                missing += undescribed(value, where)
    elif isinstance(schema, list):
        for item in schema:
            missing += undescribed(item, where)
    return missing


@pytest.mark.parametrize("tool", REGISTRY.names())
def test_every_output_property_has_a_description(tool):
    missing = undescribed(REGISTRY.get(tool).output_schema())
    assert not missing, f"{tool}: output properties without a description: {', '.join(missing)}"


@pytest.mark.parametrize("tool", REGISTRY.names())
def test_every_input_property_has_a_description(tool):
    missing = undescribed(REGISTRY.get(tool).input_schema())
    assert not missing, f"{tool}: input properties without a description: {', '.join(missing)}"


def test_the_walk_finds_an_undescribed_property_in_a_nested_model():
    class Inner(BaseModel):
        cards: int
        unit: str = Field(description="card or DIE")

    class Outer(BaseModel):
        rows: list[Inner] = Field(description="rows")
        best: Inner | None = None
        by_name: dict[str, Inner] = Field(default_factory=dict, description="rows by name")

    assert undescribed(Outer.model_json_schema()) == ["best", "$defs.Inner.cards"]


def test_the_output_schemas_reach_the_nested_result_models():
    # the walk must see the nested models, or an empty $defs would pass vacuously
    defs = REGISTRY.get("check_setup").output_schema()["$defs"]
    assert {"TrainingMemoryResult", "InferenceResult", "ShapeInfo", "OomDiagnosis", "VllmLog"} <= set(defs)
    assert "MemoryBreakdown" in REGISTRY.get("plan_training").output_schema()["$defs"]
