"""A DeepSpeed JSON config: ZeRO stage, offload, and the batch and precision it fixes (not "auto")."""

from __future__ import annotations

import json
import re
from typing import Any

from .errors import json_error
from .notices import notice
from .reading import Reading

# DeepSpeed's top-level config keys (deepspeed.runtime.config); anything else is listed as unknown.
KNOWN = frozenset(["train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "gradient_clipping", "zero_allow_untested_optimizer", "zero_force_ds_cpu_optimizer", "fp16", "bf16", "amp", "zero_optimization", "optimizer", "scheduler", "steps_per_print", "wall_clock_breakdown", "memory_breakdown", "dump_state", "activation_checkpointing", "communication_data_type", "seq_parallel_communication_data_type", "prescale_gradients", "gradient_predivide_factor", "sparse_gradients", "flops_profiler", "tensorboard", "wandb", "csv_monitor", "comet", "comms_logger", "data_types", "checkpoint", "elasticity", "aio", "data_efficiency", "curriculum_learning", "autotuning", "compile", "pipeline", "timers", "disable_allgather", "load_universal_checkpoint", "use_node_local_storage", "torch_autocast", "graph_harvesting"])


# LLaMA-Factory's example files (examples/deepspeed/ds_z2_config.json, ds_z3_offload_config.json) say their stage and
# offload in the name, wherever the name is written: a YAML's deepspeed line or the question's words ("ds_z2_config.json")
FILE_NAME = re.compile(r"(?<![A-Za-z0-9])ds_z([0-3])(_offload)?_config(?:\.json)?(?![A-Za-z0-9])")
_NAME = re.compile(FILE_NAME.pattern + "$")


def read_name(path: str, out: Reading) -> None:
    """A JSON named but not pasted: LLaMA-Factory's example files say their stage and offload in the name."""
    m = _NAME.search(path)
    if not m:
        out.notices.append(notice("deepspeed_not_pasted", path=path))
        return
    where = f"deepspeed: {path}"  # LLaMA-Factory's example file, known by its name
    out.put("zero_stage", int(m.group(1)), where)
    out.put("offload", bool(m.group(2)), where)


def parse(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise json_error(e, "DeepSpeed JSON", text) from None
    return data if isinstance(data, dict) else {}


def looks_like(data: dict[str, Any]) -> bool:
    return bool({"zero_optimization", "train_micro_batch_size_per_gpu", "train_batch_size"} & set(data))


def _fixed(value: Any) -> Any:
    """A value DeepSpeed takes as given; 'auto' lets the training YAML decide."""
    return None if value == "auto" else value


def read(data: dict[str, Any], out: Reading, name: str = "DeepSpeed JSON") -> None:
    out.add_kind("deepspeed_json")
    zero = data.get("zero_optimization") or {}
    if isinstance(zero, dict):
        if isinstance(zero.get("stage"), int):
            out.put("zero_stage", zero["stage"], f"{name}: zero_optimization.stage {zero['stage']}")
        opt = (zero.get("offload_optimizer") or {}).get("device") if isinstance(zero.get("offload_optimizer"), dict) else None
        par = (zero.get("offload_param") or {}).get("device") if isinstance(zero.get("offload_param"), dict) else None
        offload = [k for k, v in (("optimizer", opt), ("parameters", par)) if v in ("cpu", "nvme")]
        for setting, device, key in (("offload_optimizer_device", opt, "offload_optimizer"), ("offload_param_device", par,
                                                                                              "offload_param")):
            if device in ("cpu", "nvme"):  # where each offload goes: offload_param is a ZeRO-3 setting (rules.py)
                out.put(setting, device, f"{name}: zero_optimization.{key}.device {device}")
        out.put("offload", bool(offload), f"{name}: " + (", ".join(f"offload_{k} to {opt if k == 'optimizer' else par}"
                                                                     for k in offload) or "no offload_optimizer/offload_param"))
        if zero.get("stage") == 3 and len(offload) == 1:  # below ZeRO-3 offload_param is a finding (rules.py)
            out.notices.append(notice("offloads_one", name=name, what=offload[0]))
    for key, setting in (("train_micro_batch_size_per_gpu", "micro_batch"), ("gradient_accumulation_steps", "grad_accum"),
                         ("train_batch_size", "global_batch")):
        v = _fixed(data.get(key))
        if isinstance(v, int):
            out.put(setting, v, f"{name}: {key} {v}", keep=True)
    for key, precision in (("bf16", "bf16"), ("fp16", "fp16")):
        block = data.get(key)
        if isinstance(block, dict) and block.get("enabled") is True:
            out.put("precision", precision, f"{name}: {key}.enabled true", keep=True)
            out.precisions.append(f'"{key}"')  # a JSON key
    ac = data.get("activation_checkpointing")
    if isinstance(ac, dict) and ac.get("cpu_checkpointing") is True:
        out.put("activation_offload", True, f"{name}: activation_checkpointing.cpu_checkpointing true")
    used = {"zero_optimization", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "train_batch_size",
            "bf16", "fp16", "activation_checkpointing"}
    out.unused += [f"{name}: {k}" for k in data if k in KNOWN and k not in used]
    out.unknown += [f"{name}: {k}" for k in data if k not in KNOWN]
