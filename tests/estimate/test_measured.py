"""The measurement check (assistant/estimate/measured.py): which reported OOMs it holds the estimate of the step to."""

from __future__ import annotations

import pytest

from assistant.estimate.measured import Measured, before_the_step
from assistant.estimate.memory import TrainConfig, training_memory

GIB = 1024**3
# ../shared/eval/measurements_dev2.csv d3-lfnpu-03 (LLaMA-Factory issue 4758): the error message as the row quotes it
MESSAGE = (
    "Error: 'NPU out of memory. Tried to allocate 926.00 MiB (NPU 14; 60.97 GiB total capacity; 8.99 GiB already "
    "allocated; ... 59.48 GiB reserved in total by PyTorch)'"
)


def oom_row(notes: str) -> dict:
    return {"id": "d3-lfnpu-03", "kind": "oom", "notes": notes}


def test_an_oom_with_fewer_tensors_than_the_step_is_flagged_not_held_against_it(shapes, devices):
    # Qwen2-72B LoRA (q_proj, v_proj, rank 8), ZeRO-3 on 16 Snt9B cards, 2048 tokens. The step holds at least the bf16
    # ZeRO-3 shard, 2 B x 72.71B / 16 = 8.46 GiB, plus the gathered modules (the embedding, 152,064 x 8192 x 2 B =
    # 2.32 GiB, and two layers), activations and loss: far above the 8.99 GiB the message reports, so the run failed
    # before the step (at load, in a 59.48 GiB pool the allocator could not free).
    s = shapes["qwen2-72b"]
    b = training_memory(
        s,
        TrainConfig(
            method="lora", seq_len=2048, devices=16, zero_stage=3, lora_rank=8, lora_targets="q_proj,v_proj"
        ),
        devices["snt9b"],
    )
    shard = 2 * s.params / 16 / GIB
    assert shard == pytest.approx(8.46, abs=0.01)
    assert b.allocated_gib > shard + 2 * 152064 * 8192 / GIB
    m = Measured(
        "d3-lfnpu-03", "oom", "LlamaFactory#4758", None, allocated=b.allocated_gib, verdict=b.verdict
    )
    why = before_the_step(oom_row(MESSAGE), m)
    assert why.startswith("contradicted: it failed with 8.99 GiB allocated (59.48 GiB reserved)")
    # the tried 926 MiB is one whole MLP projection at 4 B (8192 x 29,568 x 4 B = 924 MiB, + 32 B, rounded to 2 MiB)
    assert 8192 * 29568 * 4 / 2**20 == 924.0
    # once the estimate's range holds the pool that could not be freed (gathered ZeRO-3 blocks pinned on Ascend:
    # 80 x 8192 x 29,568 x 2 B = 36.1 GiB, test_zero3_pinning), the row speaks to the estimate and stays in the verdicts
    m.pinned = b.pinned.gib
    assert m.pinned == pytest.approx(80 * 8192 * 29568 * 2 / GIB)
    assert before_the_step(oom_row(MESSAGE), m) == ""


def test_an_oom_at_or_above_the_steps_tensors_stays_in_the_verdicts():
    # the message of LLaMA-Factory issue 5491 (59.57 GiB allocated): above any estimate of 20 GiB of tensors
    m = Measured("x", "oom", "", None, allocated=20.0)
    text = (
        "NPU out of memory. Tried to allocate 386.00 MiB (NPU 2; 60.97 GiB total capacity; 59.57 GiB already "
        "allocated; 59.57 GiB current active; 16.54 MiB free; 60.06 GiB reserved in total by PyTorch)"
    )
    assert before_the_step(oom_row(text), m) == ""
    assert before_the_step(oom_row("no message quoted"), m) == ""
    assert before_the_step({"kind": "train_peak_gib", "notes": MESSAGE}, m) == ""
