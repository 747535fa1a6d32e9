"""Property-based robustness: every registry tool, arbitrary strings, numbers and nesting for every
argument, returns a result or the canonical error — never raises, never hangs."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.tools import REGISTRY

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "1000"))

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=300),
    st.sampled_from(["qwen2.5-72b", "llama3.1-8b", "DeepSeek-V3/R1", "lora", "full", "qlora", "Snt9B23", "910B",
                     "LLaMA-Factory", "MindSpeed-LLM", "4096", "8k", "", " ", "\x00", "千问2.5-72B", "'; DROP TABLE models; --"]),
)
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=12)


def _arg_dicts(tool):
    names = list(tool.args_model.model_fields)
    known = st.fixed_dictionaries({}, optional={n: values for n in names}) if names else st.just({})
    return st.one_of(known, st.dictionaries(st.text(max_size=10), values, max_size=5))


def _check(out):
    assert isinstance(out, dict)
    json.dumps(out)  # JSON-serialisable
    if "error" in out:
        assert set(out["error"]) == {"code", "message", "field", "valid"}
        assert out["error"]["code"] != "internal_error", out


@pytest.mark.parametrize("name", REGISTRY.names())
def test_tool_never_raises(ctx, name):
    tool = REGISTRY.get(name)

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(args=_arg_dicts(tool))
    def run(args):
        _check(REGISTRY.call_json(name, args, ctx))

    run()


@pytest.mark.parametrize("name", REGISTRY.names())
def test_tool_raw_text_arguments(ctx, name):
    @settings(max_examples=max(50, EXAMPLES // 10), deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(raw=st.one_of(st.text(max_size=200), st.binary(max_size=200).map(lambda b: b.decode("latin-1"))))
    def run(raw):
        _check(REGISTRY.call_json(name, raw, ctx))

    run()
