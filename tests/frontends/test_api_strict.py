"""Strict tool input (issue 16), seen by REST (httpx on a real uvicorn) and MCP (the SDK's client):
no coercion of booleans or strings into numbers, JSON integers still fill number fields, and every
limit the code enforces is in the published JSON schema."""

from __future__ import annotations

import json

import httpx
import pytest
from mcp import Client

from assistant.frontends.mcp_server import build_mcp_server
from assistant.frontends.server import compose_app
from tests.conftest import serving

# llama3-8b, 1e9 tokens, 8 devices at 1500 tokens/s: vendor formula 1e9 / (1500 x 8 x 0.9) s (the 0.9 is the
# tool's default linear speed-up)
TIME_ARGS = {"model": "llama3-8b", "devices": 8, "tps": 1500}
REFUSED = [
    ("min_cards", {"model": "qwen2.5-72b", "seq_len": True}, "seq_len"),
    ("min_cards", {"model": "qwen2.5-72b", "seq_len": "4096"}, "seq_len"),
    ("estimate_training_time", {**TIME_ARGS, "tokens": "1e3"}, "tokens"),
    ("estimate_training_time", {**TIME_ARGS, "tokens": True}, "tokens"),
    ("estimate_training_time", {**TIME_ARGS, "tokens": 1e9, "devices": "8"}, "devices"),
    ("search_notes", {"query": "OOM", "limit": 2.5}, "limit"),
    ("plan_training", {"model": "qwen2.5-7b", "seq_len": 0}, "seq_len"),
    ("estimate_inference", {"model": "qwen2.5-7b", "gpu_memory_utilization": 1.5}, "gpu_memory_utilization"),
    ("estimate_training_memory", {"model": "qwen2.5-7b", "micro_batch": 5000}, "micro_batch"),
]


@pytest.fixture(scope="module")
def base(ctx, settings):
    with serving(compose_app(ctx, settings)) as url:
        yield url


@pytest.mark.parametrize(("tool", "args", "field"), REFUSED)
def test_loose_values_are_refused_over_rest(base, tool, args, field):
    r = httpx.post(f"{base}/v1/tools/{tool}", content=json.dumps(args))
    assert r.status_code == 422, r.text
    err = r.json()["error"]
    assert (err["code"], err["field"]) == ("invalid_arguments", field) and err["valid"], err


def test_json_integers_fill_number_fields(base):
    r = httpx.post(f"{base}/v1/tools/estimate_training_time", content=json.dumps({**TIME_ARGS, "tokens": 1000000000}))
    assert r.status_code == 200, r.text
    assert abs(r.json()["seconds"] - 1e9 / (1500 * 8 * 0.9)) < 1e-6


def test_range_errors_say_what_is_valid(base):
    r = httpx.post(f"{base}/v1/tools/estimate_inference", json={"model": "qwen2.5-7b", "concurrency": 0})
    err = r.json()["error"]
    assert r.status_code == 422 and err["field"] == "concurrency" and err["valid"] == ">= 1", err


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_loose_values_are_refused_over_mcp(ctx, registry, anyio_backend):
    async with Client(build_mcp_server(ctx, registry)) as client:
        for tool, args, field in REFUSED:
            result = await client.call_tool(tool, args)
            assert result.is_error, (tool, args)
            assert json.loads(result.content[0].text)["error"]["field"] == field


# Limits the tools check (assistant/tools/estimate_support.py and the tools' own checks) that a
# client must be able to read from the schema: (tool, property) -> (minimum, maximum).
ENFORCED = {
    ("estimate_training_memory", "seq_len"): (1, 1_048_576), ("estimate_training_memory", "micro_batch"): (1, 4096),
    ("estimate_training_memory", "devices"): (1, 1_000_000), ("estimate_training_memory", "lora_rank"): (1, 65536),
    ("estimate_training_memory", "tp"): (1, None), ("estimate_training_memory", "pp"): (1, None),
    ("estimate_training_memory", "cp"): (1, None),
    ("plan_training", "seq_len"): (1, 1_048_576), ("plan_training", "max_devices"): (1, 65536),
    ("plan_training", "global_batch"): (1, 10_000_000), ("plan_training", "micro_batch"): (1, 4096),
    ("compare_hardware", "seq_len"): (1, 1_048_576),
    ("estimate_inference", "max_model_len"): (1, 1_048_576), ("estimate_inference", "concurrency"): (1, 100_000),
    ("estimate_inference", "max_devices"): (1, 4096),
}


def _number_schema(prop: dict) -> dict:
    """The numeric branch of a property (``anyOf`` with null for optional ones)."""
    for branch in prop.get("anyOf", [prop]):
        if branch.get("type") in ("integer", "number"):
            return branch
    raise AssertionError(prop)


def test_enforced_limits_are_in_the_schema(base, registry):
    tools = {t["name"]: t for t in httpx.get(f"{base}/v1/tools").json()["tools"]}
    for (tool, prop), (lo, hi) in ENFORCED.items():
        schema = _number_schema(tools[tool]["input_schema"]["properties"][prop])
        assert schema.get("minimum") == lo and schema.get("maximum") == hi, (tool, prop, schema)
    util = _number_schema(tools["estimate_inference"]["input_schema"]["properties"]["gpu_memory_utilization"])
    assert (util.get("exclusiveMinimum"), util.get("maximum")) == (0, 1)
    # and every numeric argument of every tool has a lower bound (or is an enumeration)
    for t in registry:
        for name, prop in t.input_schema().get("properties", {}).items():
            branches = [b for b in prop.get("anyOf", [prop]) if b.get("type") in ("integer", "number")]
            for b in branches:
                assert "enum" in b or "const" in b or {"minimum", "exclusiveMinimum"} & set(b), (t.name, name, b)
