"""Pydantic types shared by the estimator tools: argument vocabularies (method, stage, precision,
hardware), the model-or-shape arguments, and the pieces several results embed (shape, memory
breakdown, vendor table row). Each tool's own argument and result models live beside it in
estimates.py; class names and docstrings here are part of the tool schemas, so keep them stable.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..estimate.memory import framework_defaults
from .common import _alias

Method = Annotated[
    Literal["full", "freeze", "lora", "qlora"],
    _alias({"全参": "full", "全量": "full", "full-finetune": "full", "full-ft": "full", "sft-full": "full",
            "lora-sft": "lora", "q-lora": "qlora", "冻结": "freeze", "partial": "freeze"}),
    Field(description="Fine-tuning method (LLaMA-Factory finetuning_type): full, freeze, lora, or qlora (LoRA on a quantised "
                      "base). The vendor-table tools (min_cards, training_recipe) call the same choice `strategy`."),
]
Stage = Annotated[
    Literal["pt", "sft", "dpo", "kto", "rm", "ppo"],
    _alias({"pretrain": "pt", "pre-train": "pt", "reward": "rm", "reward-model": "rm"}),
    Field(description="Training stage (LLaMA-Factory stage): pt, sft, dpo, kto, rm, ppo."),
]
Precision = Annotated[
    Literal["bf16", "fp16", "fp32", "pure_bf16"],
    _alias({"bfloat16": "bf16", "float16": "fp16", "half": "fp16", "float32": "fp32", "pure-bf16": "pure_bf16"}),
    Field(description="bf16/fp16 mixed precision (default), fp32, or pure_bf16 (bf16 weights and optimizer)."),
]
LossImpl = Annotated[
    Literal["fp32", "chunked", "fused", "half"],
    _alias({"hf": "fp32", "full": "fp32", "default": "fp32", "transformers": "fp32", "chunked-ce": "chunked",
            "torchtune": "chunked", "liger": "fused", "liger-kernel": "fused", "enable-liger-kernel": "fused",
            "fused-ce": "fused", "cut-cross-entropy": "fused", "fp16": "half", "bf16": "half", "no-upcast": "half"}),
    Field(description="Loss implementation: fp32 (full-vocabulary logits upcast to fp32: transformers' default, so "
                      "LLaMA-Factory's, MindSpeed-LLM's and axolotl's default), chunked (torchtune CEWithChunkedOutputLoss / "
                      "LinearCrossEntropyLoss, litgpt), fused (Liger fused linear cross entropy, LLaMA-Factory "
                      "enable_liger_kernel; unsloth), half (fp16/bf16 logits with no upcast: a model's own loss code, e.g. "
                      "Qwen-1's, under DeepSpeed fp16/bf16 without autocast). Omitted: the framework's default."),
]
Optimizer = Annotated[
    Literal["adamw", "adamw_8bit", "paged_adamw_8bit"],
    _alias({"adam": "adamw", "adamw-torch": "adamw", "adamw-8bit": "adamw_8bit", "adamw8bit": "adamw_8bit",
            "adamw-bnb-8bit": "adamw_8bit", "bnb-8bit": "adamw_8bit", "paged-adamw-8bit": "paged_adamw_8bit",
            "pagedadamw8bit": "paged_adamw_8bit", "paged-adamw8bit": "paged_adamw_8bit"}),
    Field(description="Optimizer: adamw (default; 8 B of moments per trained parameter), adamw_8bit (bitsandbytes, "
                      "2 B), paged_adamw_8bit (2 B in unified memory, paged to host RAM)."),
]
TrainingFramework = Annotated[
    Literal["MindSpeed-LLM", "LLaMA-Factory", "torchtune", "litgpt", "unsloth", "axolotl", "transformers"],
    _alias({"mindspeed-llm": "MindSpeed-LLM", "mindspeed": "MindSpeed-LLM", "ms": "MindSpeed-LLM", "modellink": "MindSpeed-LLM",
            "llama-factory": "LLaMA-Factory", "llamafactory": "LLaMA-Factory", "lf": "LLaMA-Factory",
            "torch-tune": "torchtune", "lit-gpt": "litgpt", "lightning": "litgpt", "hf": "transformers",
            "huggingface": "transformers", "hf-trainer": "transformers", "trl": "transformers", "peft": "transformers",
            "sfttrainer": "transformers"}),
    Field(description="LLaMA-Factory (DeepSpeed ZeRO), MindSpeed-LLM (TP/PP/CP), or torchtune, litgpt, unsloth, axolotl, "
                      "transformers (HF Trainer / TRL with peft: QLoRA keeps the unquantised weights in fp32) "
                      "(data parallel; FSDP full shard = zero_stage 3), each with its own default loss (see loss). "
                      "Default LLaMA-Factory, or MindSpeed-LLM when tp/pp/cp > 1."),
]
HardwareName = Annotated[str, Field(min_length=1, max_length=100,
                                    description="Hardware in any spelling: snt9b (910B), snt9b23 (910C, counted in DIE), "
                                                "snt9b-32g (32G cards), 910a, 300i duo, a100, h100, h200, b200, l40s, "
                                                "a6000, a10, l4, 4090, 3090, v100, t4, mi300x ...; or a memory size for a "
                                                "part not in the catalog: '24gb' (a GPU), '64gb npu'.")]


class CustomShape(BaseModel):
    """Shape fields that replace the catalog's (or the inferred) ones. Unknown keys are refused: a
    misspelt one (``layer``, ``hiden``) must not leave the shape silently unchanged."""

    model_config = ConfigDict(extra="forbid")

    layers: int | None = Field(None, ge=1, le=1000, description="Transformer layers (num_hidden_layers).")
    hidden: int | None = Field(None, ge=64, le=131072, description="Hidden size (hidden_size).")
    ffn: int | None = Field(None, ge=64, le=1048576, description="MLP intermediate size (intermediate_size).")
    heads: int | None = Field(None, ge=1, le=1024, description="Attention heads (num_attention_heads).")
    kv_heads: int | None = Field(None, ge=1, le=1024, description="Key/value heads (num_key_value_heads); must divide heads.")
    head_dim: int | None = Field(None, ge=8, le=1024, description="Size of one attention head; default hidden / heads.")
    vocab: int | None = Field(None, ge=1, le=4_000_000, description="Vocabulary size (vocab_size).")
    experts: int | None = Field(None, ge=0, le=4096, description="Routed experts per MoE layer (0: dense).")
    experts_per_token: int | None = Field(None, ge=0, le=256, description="Experts each token is routed to (top-k).")
    moe_ffn: int | None = Field(None, ge=0, le=1048576, description="Intermediate size of one expert (moe_intermediate_size).")
    sliding_window: int | None = Field(None, ge=0, le=10_000_000, description="Sliding-window attention span in tokens (0: none).")
    sliding_layers: int | None = Field(None, ge=0, le=1000, description="How many layers use the sliding window.")


class ModelArgs(BaseModel):
    # The tools need one of the two (estimate_support.resolve_shape); the schema says so.
    model_config = ConfigDict(json_schema_extra={"anyOf": [{"required": ["model"]}, {"required": ["params_b"]}]})

    model: str | None = Field(None, min_length=1, max_length=200,
                              description="Model name in any spelling; omit and give params_b for a model not in the catalog.")
    params_b: float | None = Field(None, gt=0, le=100_000, description="Total parameters in billions, for a model not in the catalog (shape inferred).")
    shape: CustomShape | None = Field(None, description="Custom shape overriding the catalog or inferred one.")


class TrainerOptions(BaseModel):
    """How the trainer runs beside its parallel layout: loss, optimizer, compilation, offloaded activations, allocator."""

    loss: LossImpl | None = Field(None, description="Loss implementation (see the values); omitted: the framework's default.")
    optimizer: Optimizer = "adamw"
    compile: bool = Field(False, description="torch.compile (torchtune compile, HF torch_compile): the compiled layers "
                          "save 8h + 4·kv + 4·ffn bytes per token instead of 18h + 4·kv + 8·ffn.")
    activation_offload: bool | None = Field(None, description="Keep the activations saved for backward in host RAM "
                                            "(torchtune enable_activation_offloading, unsloth's gradient checkpointing, "
                                            "DeepSpeed cpu_checkpointing). Omitted: the framework's default (on for unsloth).")
    expandable_segments: bool | None = Field(None, description="PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: no "
                                             "allocator fragmentation on GPUs (Ascend keeps its calibrated share). "
                                             "Omitted: the framework's default (on for unsloth, which sets it).")

    fixed_length: bool = Field(False, description="Every batch has the same length (packing: LLaMA-Factory packing, "
                               "ms-swift --packing, torchtune packed; or padding to the maximum length): no cached blocks "
                               "from steps at other lengths (cached_gib 0).")
    attention: Literal["fused", "eager"] | None = Field(None, description="fused: FlashAttention / NPU_Flash_Attn / "
                                                        "memory-efficient SDPA (no s x s scores); eager: the scores are "
                                                        "materialised (attn_implementation eager, SDPA's math fallback, "
                                                        "NPU_Flash_Attn constraints not met): heads x s^2 per layer. "
                                                        "Omitted: sized as fused; on Ascend outside MindSpeed-LLM the "
                                                        "range's upper end also holds the scores.")

    def trainer_config(self, framework: str) -> dict[str, Any]:
        """These options as TrainConfig fields, the framework's own defaults where one is not given."""
        defaults = framework_defaults(framework)
        return {"loss": self.loss or "", "optimizer": self.optimizer, "compile": self.compile,
                "attention": self.attention or "fused", "attention_given": self.attention is not None,
                "fixed_length": self.fixed_length,
                "activation_offload": defaults["activation_offload"] if self.activation_offload is None
                else self.activation_offload,
                "expandable_segments": defaults["expandable_segments"] if self.expandable_segments is None
                else self.expandable_segments}


class ShapeInfo(BaseModel):
    model: str = Field(description="The model's catalog id, or the name of a custom shape.")
    params_b: float = Field(description="Total parameters, billions (from the catalog, or given).")
    active_params_b: float = Field(description="Parameters active per token, billions (equals params_b for dense models).")
    layers: int = Field(description="Transformer layers.")
    hidden: int = Field(description="Hidden size.")
    ffn: int = Field(description="Feed-forward (intermediate) size.")
    heads: int = Field(description="Attention heads.")
    kv_heads: int = Field(description="Key/value heads (GQA; equals heads without it).")
    head_dim: int = Field(description="Dimension per attention head.")
    vocab: int = Field(description="Vocabulary size.")
    moe: bool = Field(description="Mixture-of-experts model.")
    mla: bool = Field(description="Uses multi-head latent attention (DeepSeek); the KV cache is the latent.")
    sliding_window: int = Field(0, description="Sliding-window attention span in tokens; 0 when every layer attends to the whole sequence.")
    sliding_layers: int = Field(0, description="Layers using the sliding window (their KV cache is capped at the window).")
    inferred: list[str] = Field(default_factory=list, description="Fields assumed rather than read from the catalog.")


class MemoryBreakdown(BaseModel):
    weights_gib: float = Field(description="Model weights on one device, GiB (estimate; after ZeRO-3/TP/PP sharding).")
    gradients_gib: float = Field(description="Gradients on one device, GiB (estimate; trainable parameters only).")
    optimizer_gib: float = Field(description="Optimizer states (fp32 master + Adam).")
    activations_gib: float = Field(description="Saved activations on one device, GiB (estimate; with recompute, the checkpoints and one layer's peak).")
    logits_gib: float = Field(description="Logits and loss buffers.")
    overhead_gib: float = Field(description="Framework overhead: runtime, collectives, allocator fragmentation.")
    total_gib: float = Field(description="The point estimate of the allocator's pool on one device (reserved memory: the "
                             "tensors plus runtime context, HCCL/NCCL buffers and fragmentation), what an OOM is judged on.")
    metric: Literal["reserved"] = Field("reserved", description="What total_gib stands for: the allocator's pool with "
                                        "the runtime context and collective buffers beside it (nvidia-smi / npu-smi), not "
                                        "allocated tensors; the allocator's segments alone are reserved_gib.")
    allocated_gib: float = Field(description="The tensors alone (torch.cuda.max_memory_allocated): total_gib without overhead.")
    reserved_gib: float = Field(0.0, description="The caching allocator's segments alone (torch.cuda.max_memory_reserved, "
                                "torch_npu's max_memory_reserved): total_gib less the runtime context and the HCCL/NCCL "
                                "buffers, which the runtime allocates outside the allocator (nvidia-smi / npu-smi show them).")
    low_gib: float = Field(description="Lower end of the likely range of total_gib (from the estimator's measured errors).")
    high_gib: float = Field(description="Upper end of the likely range of total_gib; plans are sized so it fits unless "
                            "the tightest plan is asked for.")
    verdict: Literal["fits", "tight", "does_not_fit"] = Field(description="fits: the upper end fits; tight: the range "
                                                              "crosses the usable memory; does_not_fit: the lower end does "
                                                              "not fit (both ends less cached_gib).")
    usable_gib: float = Field(description="What the device reports as total capacity.")
    headroom_gib: float = Field(description="usable_gib minus what the verdict judges (total_gib less cached_gib), GiB "
                                "(negative: over by that much); the cached blocks fill free room but are given back.")
    fits: bool = Field(description="verdict == 'fits': the upper end of the likely range, less the cached blocks the "
                       "allocator frees before an out-of-memory error (cached_gib), fits the usable memory; false for "
                       "'tight' and 'does_not_fit'.")
    optimizer_step_gib: float = Field(0.0, description="What the optimizer step holds above the backward's peak (part of "
                                      "total_gib): torch AdamW's foreach temporary beside the whole gradients and states, "
                                      "once the activations are freed; 0 when the backward's peak is the larger.")
    cached_gib: float = Field(0.0, description="Blocks the caching allocator keeps from steps at other batch lengths "
                              "(part of total_gib, not of overhead_gib); it frees them and retries before an out-of-memory "
                              "error, so the verdict is judged without them.")
    attention_open_gib: float = Field(0.0, description="Attention scores (heads x s^2) that come on top if the attention "
                                      "kernel falls back to the math path, when the inputs leave it open (attention not "
                                      "stated, Ascend, a Hugging Face stack); 0 when settled. Not in low_gib-high_gib.")
    open_high_gib: float = Field(0.0, description="Upper end of total_gib if that fallback (or pinning) happens (0 when nothing is open); "
                                 "the verdict judges it too, so 'tight' can stand beside a measured range that fits.")
    pinned_gib: float = Field(0.0, description="Gathered ZeRO-3 blocks the allocator's pool may keep pinned on Ascend "
                              "without expandable segments: in open_high_gib's scenario, not in total_gib or low_gib-high_gib.")
    host_ram_gib: float = Field(description="Host RAM per node for offloaded states (0 without offload).")
    host_ram_fits: bool = Field(description="Whether host_ram_gib fits in a node's host RAM (the estimator assumes 1536 GiB per node).")
    how: dict[str, str] = Field(description="How each figure was computed.")


class TableRef(BaseModel):
    source: str = Field(description="min_cards (ModelArts minimum-card table) or recipes_llamafactory (recipe table).")
    cards: int | None = Field(description="The table's device count (cards; DIE on Snt9B23); null when not supported.")
    supported: bool = Field(True, description="False when the table marks the case '-' (not supported).")
    zero_stage: int | None = Field(None, description="DeepSpeed ZeRO stage of the recipe row (recipe table only).")
    offload: bool | None = Field(None, description="Whether the recipe row uses CPU offload (recipe table only).")
    grad_accum: int | None = Field(None, description="gradient_accumulation_steps of the recipe row (recipe table only).")
    cell: str | None = Field(None, description="The table cell as written.")
    flagged: str | None = Field(None, description="Why the estimator considers this row inconsistent with the rest of the table.")
    citation: str | None = Field(None, description="The vendor document the row was transcribed from (title, page id or seed file).")
