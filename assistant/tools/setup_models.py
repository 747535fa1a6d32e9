"""Types of the check_setup tool: its arguments and its result (what was read, the estimate, the
verdict, the out-of-memory diagnosis, the smallest change that fits with its file)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ..setup_check import Finding, VllmLog
from .estimate_models import HardwareName
from .estimates import InferenceResult, TrainingMemoryResult

Verdict = Literal["fits", "tight", "does_not_fit"]
ChangeKind = Literal["micro_batch", "zero_stage", "recompute", "offload", "devices", "seq_len", "kv_cache_dtype",
                     "tensor_parallel", "max_model_len"]
MAX_TEXT = 2_000_000  # a whole training log; cut to the lines that matter before reading


class CheckSetupArgs(BaseModel):
    text: str = Field(min_length=1, max_length=MAX_TEXT, description=(
        "The pasted setup, as is: a LLaMA-Factory YAML (with its DeepSpeed JSON), a DeepSpeed JSON, MindSpeed-LLM "
        "launch variables or script, a vllm serve / torchrun / deepspeed / llamafactory-cli command line, an "
        "out-of-memory message or vLLM start-up lines; code fences and a question around it are fine."))
    hardware: HardwareName | None = Field(None, description="The hardware, when the text does not name it (default: "
                                          "read from the text, else snt9b).")
    devices: int | None = Field(None, ge=1, le=65536, description="Devices in the job, when the text does not say.")
    model: str | None = Field(None, min_length=1, max_length=200, description="The model, when the text does not name "
                              "it (a DeepSpeed JSON alone); any spelling.")
    params_b: float | None = Field(None, gt=0, le=100_000, description="Parameters in billions, for a model the "
                                   "catalog does not know (or paste its config.json in text).")


class ReadSetting(BaseModel):
    name: str = Field(description="The setting in the estimator's terms (model, method, seq_len, micro_batch, ...).")
    value: Any = Field(description="The value as read, in the estimator's units.")
    source: str = Field(description="Where it was read: the key, flag or words as written.")


AssumedWhy = Literal["framework_default", "vllm_default", "model_context", "devices_not_given", "per_node_default",
                     "no_part_named", "capacity", "params_b", "config_json", "recipe_default", "trainer_fills"]


class Assumed(BaseModel):
    name: str = Field(description="The setting (estimator names).")
    value: Any = Field(description="The value taken.")
    why: AssumedWhy = Field(description="framework_default / vllm_default: the framework's default for a key the text "
                            "leaves out; model_context: vLLM's default max_model_len; devices_not_given; per_node_default; "
                            "no_part_named: the default part; capacity: the part whose reported capacity the OOM message "
                            "gives; params_b / config_json: the model's shape from its size or its config.json; recipe_default: the vendor "
                            "recipe tables' value, for an out-of-memory message pasted without its config; trainer_fills: a DeepSpeed JSON "
                            "alone leaves it to the trainer (\"auto\" or absent), so the value is unknown and the recipe "
                            "tables' is taken.")
    detail: str = Field("", description="The framework, the capacity or the other parts that match, as applies.")


RemedyCode = Literal["leftover_processes", "expandable_segments", "micro_batch", "zero_next", "offload", "more_devices",
                     "seq_len", "tp_pp", "mbs_1", "recompute", "lower_utilization", "max_model_len", "tensor_parallel",
                     "eval_batch"]


class Remedy(BaseModel):
    code: RemedyCode = Field(description="The remedy, from the vendor's OOM lists (ModelArts LLaMA-Factory FAQ, "
                             "MindSpeed-LLM OOM page, vLLM FAQ) and the CUDA equivalents.")
    value: Any = Field(None, description="Its value where it has one: the next ZeRO stage, the allocator setting.")


class OomDiagnosis(BaseModel):
    platform: Literal["npu", "cuda"] = Field(description="npu (Ascend) or cuda (NVIDIA), from the message's wording.")
    device_index: int | None = Field(None, description="The local device the message names (NPU 4, GPU 0).")
    cause: Literal["too_big", "fragmenting", "held_elsewhere"] = Field(
        description="too_big: allocated near capacity; fragmenting: reserved well above allocated; held_elsewhere: the "
                    "job's own share is not near capacity and the user says another process holds the rest.")
    capacity_gib: float = Field(description="Total capacity the device reports, GiB, from the message.")
    allocated_gib: float | None = Field(description="Allocated by PyTorch when it failed, GiB, from the message (null if not given).")
    reserved_gib: float | None = Field(description="Reserved by PyTorch's caching allocator, GiB, from the message (null if not given).")
    free_gib: float | None = Field(description="Free device memory, GiB, from the message (null if not given).")
    tried_gib: float = Field(description="The allocation that failed, GiB, from the message.")
    allocated_share: float | None = Field(description="(allocated + the failed request) / capacity.")
    cached_gib: float | None = Field(description="Reserved but not allocated (the allocator's cache).")
    outside_gib: float | None = Field(None, description="Capacity minus reserved minus free: memory held outside PyTorch's "
                                      "allocator (other processes, the runtime, communication buffers).")
    short_by_gib: float = Field(description="The failed request minus the free memory: a lower bound on how far over.")
    allocator_setting: str | None = Field(description="The environment setting that removes fragmentation, when it helps.")
    in_use_gib: float | None = Field(None, description="Memory the process had in use (newer CUDA messages), GiB.")
    remedies: list[Remedy] = Field(default_factory=list, description="What to change, first to last, ordered for what "
                                   "the message shows (fragmentation: the allocator setting first).")
    line: str = Field(description="The message as read (cut to 500 characters).")


class ConfigFileOut(BaseModel):
    filename: str = Field(description="File name.")
    content: str = Field(description="The file's text.")
    format: str = Field(description="File kind: llamafactory_yaml, deepspeed_json, mindspeed_env, launch or vllm_command.")


class Change(BaseModel):
    kind: ChangeKind = Field(description="What kind of change this is.")
    description: str = Field(description="The change in words, e.g. 'per_device_train_batch_size 4 -> 1, "
                             "gradient_accumulation_steps 2 -> 8 (global batch kept)'.")
    settings: dict[str, Any] = Field(description="The changed settings (estimator names).")
    before: dict[str, Any] = Field(default_factory=dict, description="The same settings as read (or assumed).")
    total_gib: float = Field(description="Per-device memory with the change, GiB (KV-cache budget for serving).")
    usable_gib: float = Field(description="Usable memory per device, GiB (what the device reports).")
    verdict: Verdict = Field(description="fits, tight or does_not_fit with the change (estimate).")
    host_ram_gib: float = Field(0.0, description="Host RAM per node the offload needs, GiB.")
    speed_cost: str = Field(description="What the change costs in speed.")
    files: list[ConfigFileOut] = Field(default_factory=list, description="The changed config, ready to use (and the "
                                       "files it names).")
    file_note: str | None = Field(None, description="Why no file was written, if none was.")


class CheckSetupResult(BaseModel):
    kind: Literal["training", "serving", "oom_only", "benchmark", "preprocess"] = Field(description="What was checked: training, serving, an out-of-memory message alone (oom_only), a benchmark command's lists and backend (benchmark), or a dataset preprocessing line (preprocess).")
    recognised: list[str] = Field(description="What the text held: llamafactory_yaml, deepspeed_json, mindspeed, "
                                  "vllm_command, launch_command, oom_message, vllm_log, benchmark_command.")
    model: str | None = Field(description="Canonical catalog id of the model the text names (null if none).")
    hardware: str | None = Field(description="Hardware catalog id the check used (null for an OOM message alone).")
    unit: str | None = Field(description="What one device is: card, or DIE on Snt9B23.")
    framework: str | None = Field(description="Framework the text was read as (LLaMA-Factory, MindSpeed-LLM, vLLM, ...).")
    read: list[ReadSetting] = Field(description="Settings read from the text, with where each was read.")
    assumed: list[Assumed] = Field(description="Values not in the text, and what was taken for them.")
    unused: list[str] = Field(description="Keys and flags read that do not change per-device memory (not modelled).")
    kept: list[str] = Field(default_factory=list, description="Keys carried into the changed file unchanged.")
    unknown: list[str] = Field(description="Keys the framework does not have: listed, not guessed.")
    notices: list[str] = Field(default_factory=list, description="Remarks about the reading (files named but not pasted, partial offload, no model named).")
    findings: list[Finding] = Field(default_factory=list, description="Values the framework would refuse at launch (or "
                                    "that contradict the question), with what is valid and the corrected line.")
    verdict: Verdict | None = Field(description="fits / tight / does_not_fit for the setup as read (none for an "
                                    "out-of-memory message alone).")
    over_gib: float | None = Field(None, description="Estimated per-device total minus usable memory, GiB (negative: headroom).")
    training: TrainingMemoryResult | None = Field(None, description="estimate_training_memory's result for the setup as read (training).")
    serving: InferenceResult | None = Field(None, description="estimate_inference's result for the setup as read (serving).")
    oom: OomDiagnosis | None = Field(None, description="What the out-of-memory message says, when one was pasted.")
    vllm_log: VllmLog | None = Field(None, description="Figures read from vLLM start-up lines, when pasted.")
    change: Change | None = Field(None, description="The smallest change that fits, in the order people accept them.")
    tried: list[str] = Field(default_factory=list, description="Changes tried that did not fit on their own.")
    table: list[str] = Field(default_factory=list, description="The vendor table row(s) for the same job, with source.")
    table_min_devices: int | None = Field(None, description="The vendor minimum-card table's count for the same job "
                                          "(same length), to set against the devices checked.")
