"""The DeepSpeed generator against LLaMA-Factory's own example files (copied verbatim from the
llamafactory 0.9.5 sdist into tests/configs/data/, Apache-2.0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.configs import deepspeed
from assistant.errors import SizingError

UPSTREAM = Path(__file__).parent / "data" / "llamafactory_0.9.5"
UPSTREAM_CASES = [(0, False), (2, False), (2, True), (3, False), (3, True)]


@pytest.mark.parametrize("stage,offload", UPSTREAM_CASES)
def test_same_as_llamafactory_example(stage, offload):
    upstream = json.loads((UPSTREAM / deepspeed.filename(stage, offload)).read_text())
    ours = json.loads(deepspeed.render(stage, offload))
    assert ours == upstream  # 5e8 in their files equals our 500000000
    assert list(ours) == list(upstream)
    assert list(ours["zero_optimization"]) == list(upstream["zero_optimization"])
    assert deepspeed.is_upstream(stage, offload)


@pytest.mark.parametrize("offload", [False, True])
def test_zero1_is_the_zero2_file_with_stage_1(offload):
    """LLaMA-Factory has no ZeRO-1 example; ours is the stage-2 file with the stage changed (the
    same DeepSpeed keys apply to stages 1 and 2)."""
    expected = json.loads((UPSTREAM / deepspeed.filename(2, offload)).read_text())
    expected["zero_optimization"]["stage"] = 1
    assert json.loads(deepspeed.render(1, offload)) == expected
    assert not deepspeed.is_upstream(1, offload)
    assert deepspeed.path(1, offload) == f"examples/deepspeed/ds_z1{'_offload' if offload else ''}_config.json"


def test_zero3_offload_moves_optimizer_and_parameters():
    z = deepspeed.config(3, True)["zero_optimization"]
    assert z["offload_optimizer"] == {"device": "cpu", "pin_memory": True}
    assert z["offload_param"] == {"device": "cpu", "pin_memory": True}
    assert "offload_param" not in deepspeed.config(2, True)["zero_optimization"]


def test_batch_and_precision_stay_auto():
    cfg = deepspeed.config(2, False)
    for key in ("train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "gradient_clipping"):
        assert cfg[key] == "auto"
    assert cfg["bf16"]["enabled"] == "auto" and cfg["fp16"]["enabled"] == "auto"


@pytest.mark.parametrize("stage,offload,field", [(0, True, "offload"), (4, False, "zero_stage"), (-1, False, "zero_stage")])
def test_impossible_combinations_are_refused(stage, offload, field):
    with pytest.raises(SizingError) as e:
        deepspeed.render(stage, offload)
    assert e.value.field == field
