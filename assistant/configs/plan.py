"""The plan a generated config is built from: devices, ZeRO stage, parallel layout, batch sizes.

A plan comes from a vendor table row or from the estimator (the tool layer fills it); the
generators in this package only read it. Keeping it one pydantic model means the tool result
can show the user exactly which numbers went into the file and where they came from.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from ..answer import source_as_known
from ..errors import SizingError
from ..estimate.layout import data_parallel, tp_splits_heads
from .messages import PLAN_ERRORS

Accelerator = Literal["npu", "gpu"]


class TrainingPlan(BaseModel):
    source: Literal["table", "estimate"] = Field(
        description="'table' when the numbers are a vendor table row, 'estimate' when they come from plan_training."
    )
    source_detail: str = Field(description="Which table and row, or the estimator's assumptions.")
    framework: Literal["LLaMA-Factory", "MindSpeed-LLM"] = Field(description="Training framework the config is for.")
    hardware: str = Field(description="Hardware catalog id, e.g. snt9b, snt9b23, h100-80g.")
    accelerator: Accelerator = Field(description="npu (Ascend) or gpu (NVIDIA), from the hardware catalog.")
    unit: str = Field("card", description="What one device is: card, or DIE on Snt9B23.")
    devices: int = Field(ge=1, description="Devices (ranks) in the job.")
    nodes: int = Field(ge=1, description="Nodes in the job.")
    per_node: int = Field(ge=1, description="Devices used on each node.")
    zero_stage: int | None = Field(None, ge=0, le=3, description="DeepSpeed ZeRO stage (LLaMA-Factory).")
    offload: bool = Field(False, description="DeepSpeed CPU offload (optimizer; parameters too on ZeRO-3).")
    tp: int = Field(1, ge=1, description="Tensor parallel size (MindSpeed-LLM).")
    pp: int = Field(1, ge=1, description="Pipeline parallel size (MindSpeed-LLM).")
    cp: int = Field(1, ge=1, description="Context parallel size (MindSpeed-LLM).")
    micro_batch: int = Field(1, ge=1, description="Sequences per device per step (per_device_train_batch_size / MBS).")
    grad_accum: int = Field(1, ge=1, description="Gradient accumulation steps.")
    seq_len: int = Field(description="Sequence length the config is for.")
    table_seq_len: int | None = Field(None, description="The table row's length when it differs from seq_len.")
    overrides: list[str] = Field(default_factory=list, description="Fields the caller set by hand.")
    notes: list[str] = Field(default_factory=list, description="Caveats about the plan: device rounding, how a table row was applied, the table's own assumptions.")

    @property
    def data_parallel(self) -> int:
        return self.devices // (self.tp * self.pp * self.cp)

    @property
    def global_batch(self) -> int:
        return self.micro_batch * self.grad_accum * self.data_parallel


# A source in parentheses that holds a transcription file and, inside it, the page as users know it:
# "(seeds/004_….txt (ModelArts: 模型最小卡数配置, 2025-06-24))".
_FILE_SOURCE = re.compile(r"\(([^()]*\.(?:txt|md|csv)[^()]*\([^()]*\)[^()]*)\)")


def comment_lines(header: list[str] | None) -> list[str]:
    """A config's header comments, each source named by its page title and date (never the file it was
    transcribed into), as every answer names it."""
    return [f"# {_FILE_SOURCE.sub(lambda m: f'({source_as_known(m.group(1))})', h)}" for h in header or []]


def nodes_for(devices: int, devices_per_node: int) -> tuple[int, int]:
    """Whole nodes for a job: (nodes, devices used per node). A job that spans nodes uses the same
    number of devices on each, so the count must split evenly."""
    if devices <= devices_per_node:
        return 1, devices
    nodes = -(-devices // devices_per_node)
    if devices % nodes:
        raise SizingError("invalid_plan", PLAN_ERRORS.en("uneven_nodes", devices=devices, nodes=nodes, per=devices_per_node), field="devices", valid=f"a multiple of {devices_per_node}")
    return nodes, devices // nodes


def check_parallel_layout(plan: TrainingPlan, seq_len: int, heads: int | None = None,
                          kv_heads: int | None = None) -> None:
    """The MindSpeed-LLM rules from the ModelArts pages: TP x PP (x CP) divides the device count,
    GBS divisible by MBS x DP, CP >= 2 beyond 32768 tokens; Megatron also needs TP to divide the
    attention heads and the KV groups."""
    model_parallel = plan.tp * plan.pp * plan.cp
    if data_parallel(plan.devices, plan.tp, plan.pp, plan.cp) is None:
        raise SizingError("invalid_plan", PLAN_ERRORS.en("layout_divides", tp=plan.tp, pp=plan.pp, cp=plan.cp,
                                                          mp=model_parallel, devices=plan.devices), field="tp",
                          valid=[d for d in range(1, plan.devices + 1) if plan.devices % d == 0])
    if seq_len > 32768 and plan.cp < 2:
        raise SizingError("invalid_plan", PLAN_ERRORS.en("long_needs_cp", seq=seq_len),
                          field="cp", valid=">= 2")
    for name, count, kv in (("attention heads", heads, None), ("KV heads", kv_heads, kv_heads)):
        if count and not tp_splits_heads(plan.tp, count, kv):
            raise SizingError("invalid_plan", PLAN_ERRORS.en("tp_heads", tp=plan.tp, count=count, name=name), field="tp",
                              valid=[t for t in (1, 2, 4, 8, 16) if tp_splits_heads(t, count, kv)])
