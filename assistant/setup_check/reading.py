"""What the setup reader found in a pasted text: the settings (in the estimator's names), where each
was read, the keys it did not use, and any out-of-memory or vLLM start-up figures."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Kind = Literal["llamafactory_yaml", "deepspeed_json", "mindspeed", "vllm_command", "launch_command", "oom_message",
               "vllm_log", "benchmark_command", "framework_error", "preprocess_command"]


class OomReport(BaseModel):
    """The figures of one out-of-memory message (PyTorch on CUDA, torch_npu on Ascend), in GiB."""

    platform: Literal["npu", "cuda"]
    device_index: int | None = None
    tried_gib: float = Field(description="The allocation that failed.")
    capacity_gib: float = Field(description="Total capacity the device reports.")
    allocated_gib: float | None = Field(None, description="Allocated by PyTorch when it failed.")
    reserved_gib: float | None = Field(None, description="Reserved by PyTorch's caching allocator (allocated + cached).")
    free_gib: float | None = None
    in_use_gib: float | None = Field(None, description="Memory the process had in use, non-PyTorch included (newer CUDA messages).")
    line: str = Field(description="The message as read (cut to 500 characters).")
    held_elsewhere_gib: float | None = Field(None, description="Memory the user's words say another process holds on the "
                                             "device ('npu-smi shows a python process using 40GB').")


class VllmLog(BaseModel):
    """Figures from vLLM start-up lines."""

    weights_gib: float | None = Field(None, description="Memory the model weights took, GiB, as vLLM's start-up line reports it.")
    kv_cache_gib: float | None = Field(None, description="Available KV cache memory.")
    kv_tokens: int | None = Field(None, description="KV cache size in tokens.")
    max_seq_len: int | None = Field(None, description="The model's max seq len a 'larger than ... KV cache' error names.")
    kv_capacity_tokens: int | None = Field(None, description="Tokens the KV cache could hold, from that error.")
    kv_needed_gib: float | None = Field(None, description="KV cache one max-length request needs, from vLLM V1's error.")
    no_cache_memory: bool = Field(False, description="vLLM found no memory at all for the KV cache blocks.")
    lines: list[str] = Field(default_factory=list, description="The vLLM log lines the figures were read from, as written.")


FindingCode = Literal["lf_finetuning_type", "lf_quantization_method", "lf_quantization_bits", "lf_pure_bf16_zero3",
                      "lf_quantization_zero3", "lf_quantization_npu",
                      "ds_train_batch_size", "vllm_gpu_memory_utilization", "vllm_max_model_len", "vllm_tp_heads", "tp_kv_heads",
                      "vllm_tp_devices", "parallel_exceeds_devices", "prose_conflict", "batch_positive", "zero_stage_range",
                      "gbs_not_divisible", "lf_stage_model", "lf_ppo_zero3", "lf_dpo_lora", "recipe_zero_mismatch",
                      "benchmark_list_lengths", "benchmark_rates_prompts", "die_whole_cards", "cards_multiple_of_8",
                      "both_precisions", "lf_loraplus_model", "megatron_layers_pp", "lf_quantization_type",
                      "lf_galore_deepspeed", "lf_galore_lora", "lora_rank_positive", "ds_offload_param_stage",
                      "benchmark_backend_url", "preprocess_input_format", "preprocess_tokenizer_type",
                      "preprocess_handler", "part_not_for_training", "mindspeed_device_memory", "lf_stage", "mindspeed_cp_long", "yaml_missing_colon",
                      "yaml_tab_indent", "yaml_stray_indent", "yaml_unclosed_bracket", "yaml_unclosed_quote", "yaml_fixed_file",
                      "mindspeed_recompute_layers", "vllm_flag_value", "mindspeed_layer_list",
                      "lf_template_model", "lf_cutoff_beyond_context", "dp_not_devices", "launch_per_node", "gbs_not_product",
                      "mindspeed_method", "lf_misspelled_key", "lf_key_elsewhere", "yaml_duplicate_key", "yaml_doubled_colon",
                      "hccl_exec_timeout", "hccl_connect_timeout",
                      "lf_not_a_whole_number"]


class Finding(BaseModel):
    """A value the framework would refuse (or that contradicts another), with what is valid and the corrected line."""

    code: FindingCode = Field(description="Which check: the framework and the setting.")
    key: str = Field(description="The key or flag as written.")
    value: Any = Field(description="The value as written.")
    valid: str = Field(description="What the framework accepts (values or range), language-neutral.")
    corrected: str = Field("", description="The corrected line, ready to paste ('' when the user must choose).")
    figures: dict[str, Any] = Field(default_factory=dict, description="The numbers the check used (for the answer).")
    applied: bool = Field(False, description="The estimate used the corrected value.")
    source: str = Field("", description="Where the rule is written: the framework's own check or the vendor page.")
    source_zh: str = Field("", description="The same source worded for a Chinese answer.")
    fix: dict[str, Any] = Field(default_factory=dict, description="The settings the estimate ran on instead (applied).")


class Reading(BaseModel):
    kinds: list[Kind] = Field(default_factory=list, description="What was recognised, in order.")
    settings: dict[str, Any] = Field(default_factory=dict, description="Settings in the estimator's names.")
    sources: dict[str, str] = Field(default_factory=dict, description="Where each setting was read: the key or flag as written.")
    unused: list[str] = Field(default_factory=list, description="Keys read that do not change per-device memory.")
    unknown: list[str] = Field(default_factory=list, description="Keys or flags the framework does not have: listed, not guessed.")
    oom: OomReport | None = None
    vllm_log: VllmLog | None = None
    deepspeed_file: str | None = Field(None, description="The DeepSpeed JSON a YAML or launch line names.")
    command: str | None = Field(None, description="The vLLM command line as pasted (continuations joined).")
    hf_config: str | None = Field(None, description="A pasted Hugging Face config.json, for a model not in the catalog.")
    notices: list[str] = Field(default_factory=list)
    recompute_flags: dict[str, str] = Field(default_factory=dict, description="MindSpeed-LLM's --recompute-* flags as "
                                            "written (name -> value).")
    precisions: list[str] = Field(default_factory=list, description="Every precision switched on, as written "
                                  "('bf16', '\"fp16\"' in a JSON): more than one is a rule (rules.py).")
    findings: list[Finding] = Field(default_factory=list, description="Values the framework would refuse, with the fix.")

    def put(self, name: str, value: Any, source: str, *, keep: bool = False) -> None:
        """Record a setting; ``keep``: an earlier reading of the same setting wins (a YAML beats its 'auto' JSON)."""
        if value is None or (keep and name in self.settings):
            return
        self.settings[name] = value
        self.sources[name] = source

    def kinds_of_config(self) -> list[Kind]:
        """What was read besides messages and logs: the configs and command lines."""
        return [k for k in self.kinds if k not in ("oom_message", "vllm_log", "benchmark_command", "framework_error",
                                                   "preprocess_command")]

    def add_kind(self, kind: Kind) -> None:
        if kind not in self.kinds:
            self.kinds.append(kind)
