"""DeepSpeed JSON in the shape of LLaMA-Factory's ``examples/deepspeed/ds_z*_config.json``.

Batch sizes, clipping and precision stay "auto" so the training YAML decides them (transformers'
HfTrainerDeepSpeedConfig fills them from TrainingArguments); only the ZeRO block differs per stage.
LLaMA-Factory ships z0, z2, z2_offload, z3 and z3_offload; ZeRO-1 has no example file, so its JSON
is generated here in the same shape and must be saved next to the others.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import SizingError

EXAMPLES_DIR = "examples/deepspeed"
# Files that exist in LLaMA-Factory's repository (v0.9.x); any other name must be shipped with the YAML.
UPSTREAM_FILES = frozenset({"ds_z0_config.json", "ds_z2_config.json", "ds_z2_offload_config.json",
                            "ds_z3_config.json", "ds_z3_offload_config.json"})

_BUCKET = 500_000_000  # 5e8 in LLaMA-Factory's files
_ZERO3_LIMIT = 1_000_000_000  # 1e9


def filename(zero_stage: int, offload: bool) -> str:
    check(zero_stage, offload)
    return f"ds_z{zero_stage}{'_offload' if offload else ''}_config.json"


def path(zero_stage: int, offload: bool) -> str:
    """The path a LLaMA-Factory YAML uses for this stage (relative to the LLaMA-Factory checkout)."""
    return f"{EXAMPLES_DIR}/{filename(zero_stage, offload)}"


def is_upstream(zero_stage: int, offload: bool) -> bool:
    return filename(zero_stage, offload) in UPSTREAM_FILES


def check(zero_stage: int, offload: bool) -> None:
    if zero_stage not in (0, 1, 2, 3):
        raise SizingError("invalid_arguments", f"ZeRO stage {zero_stage} does not exist.", field="zero_stage", valid=[0, 1, 2, 3])
    if offload and zero_stage == 0:
        # DeepSpeed only offloads partitioned optimizer state; stage 0 has none.
        raise SizingError("invalid_arguments", "CPU offload needs ZeRO stage 1, 2 or 3.", field="offload", valid=[1, 2, 3])


def _cpu() -> dict[str, Any]:
    return {"device": "cpu", "pin_memory": True}


def zero_block(zero_stage: int, offload: bool) -> dict[str, Any]:
    check(zero_stage, offload)
    z: dict[str, Any] = {"stage": zero_stage}
    if zero_stage == 3:
        if offload:  # like ds_z3_offload_config.json: optimizer states and parameters both on the host
            z["offload_optimizer"] = _cpu()
            z["offload_param"] = _cpu()
        z.update({
            "overlap_comm": False,
            "contiguous_gradients": True,
            "sub_group_size": _ZERO3_LIMIT,
            "reduce_bucket_size": "auto",
            "stage3_prefetch_bucket_size": "auto",
            "stage3_param_persistence_threshold": "auto",
            "stage3_max_live_parameters": _ZERO3_LIMIT,
            "stage3_max_reuse_distance": _ZERO3_LIMIT,
            "stage3_gather_16bit_weights_on_model_save": True,
        })
        return z
    if offload:
        z["offload_optimizer"] = _cpu()
    z.update({
        "allgather_partitions": True,
        "allgather_bucket_size": _BUCKET,
        "overlap_comm": False,
        "reduce_scatter": True,
        "reduce_bucket_size": _BUCKET,
        "contiguous_gradients": True,
        "round_robin_gradients": True,
    })
    return z


def config(zero_stage: int, offload: bool) -> dict[str, Any]:
    """The whole DeepSpeed config as a dict (key order as in LLaMA-Factory's files)."""
    return {
        "train_batch_size": "auto",
        "train_micro_batch_size_per_gpu": "auto",
        "gradient_accumulation_steps": "auto",
        "gradient_clipping": "auto",
        "zero_allow_untested_optimizer": True,
        "fp16": {
            "enabled": "auto",
            "loss_scale": 0,
            "loss_scale_window": 1000,
            "initial_scale_power": 16,
            "hysteresis": 2,
            "min_loss_scale": 1,
        },
        "bf16": {"enabled": "auto"},
        "zero_optimization": zero_block(zero_stage, offload),
    }


def render(zero_stage: int, offload: bool) -> str:
    return json.dumps(config(zero_stage, offload), indent=2) + "\n"
