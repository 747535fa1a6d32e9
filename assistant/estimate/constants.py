"""Every calibrated constant of the estimator, in one place, each with the reason for its value.

Sizes are bytes unless the name says GiB. "Calibrated" means the value was chosen inside its
physically plausible range by running `sizing calibrate` against the vendor tables
(knowledge/tables/min_cards.csv and recipes_llamafactory.csv); the tables themselves are never read
by the estimator. Nothing here is specific to one model or one table row.
"""

from __future__ import annotations

GIB = 1024**3

# ---------------------------------------------------------------- device memory
# The fraction of the nominal device memory the framework reports as "total capacity".
# Ascend: the ModelArts OOM message reads "60.97 GiB total capacity" on a 64 GiB (HBM) Snt9B die;
# the rest is reserved by firmware/driver. NVIDIA: an 80 GB A100/H100 reports ~79.15 GiB.
CAPACITY_FRACTION = {"npu": 60.97 / 64, "gpu": 79.15 / 80}

# Overhead is three terms, each from what the runtime itself reserves (not a share of the estimate):
# - context: the runtime before the first tensor. CUDA: the context, its module images and the cuBLAS/cuDNN
#   handles, 0.3-0.6 GiB with lazy module loading (PyTorch CUDA notes); vLLM logs it as "non_torch" memory
#   (0.35 GiB on an RTX 3090, measurements vllm-kv-01). Ascend: the CANN runtime and torch_npu context, larger.
# - collectives: communicator buffers, only with more than one device. HCCL_BUFFSIZE is 200 MB per
#   communicator by default, one in and one out buffer, for the data-parallel and the global group (4 x 200 MB);
#   NCCL allots NCCL_BUFFSIZE 4 MiB per channel and peer, a few hundred MB on 2-8 GPUs.
# - fragmentation: caching-allocator blocks that are reserved but not reused. Tensors allocated once (weights,
#   optimizer states, DeepSpeed's flat buffers) leave no gaps, and ZeRO-3/FSDP gathers repeat the same sizes
#   every module; the gaps come from the activations and loss buffers (and gradients set to None), freed and
#   reallocated at many sizes every step. The one measurement with both figures: fsdp_qlora Llama-2-7B LoRA,
#   2048 tokens (measurements fq-03) peaks at 9.16 GiB allocated and 10.22 GiB reserved; 25 % of those
#   tensors, within 15-45 %. The ModelArts OOM FAQ's first remedy for the same effect on Ascend is
#   PYTORCH_NPU_ALLOC_CONF=expandable_segments:True. Ascend keeps 15 % of all tensors, the share the vendor
#   tables agreed with best (calibrated within 5-15 %; the tables' minimum counts also absorb CANN
#   workspaces that grow with the model), until Ascend measurements separate the two.
CONTEXT_GIB = {"npu": 1.0, "gpu": 0.5}
# Cached blocks the allocator gives back before an out-of-memory error. The caching allocator (PyTorch's CUDA
# allocator, torch_npu's NPU allocator) keeps every freed block for reuse and returns memory to the device only when an
# allocation fails: it then frees every cached segment with nothing alive in it and retries before raising the OOM
# (c10 CUDACachingAllocator::malloc: release_cached_blocks, then alloc_block again). So peak *reserved* on a device with
# room counts blocks an OOM is never judged on. The largest of them are the loss path's buffers (tokens x vocabulary:
# bf16 logits, the shifted copy, the fp32 upcast, the saved log-softmax and its gradients): batches padded to their
# longest sequence (HF Trainer's DataCollatorForSeq2Seq, LLaMA-Factory without packing, ms-swift, torchtune, litgpt)
# change length every step, and blocks cached at a shorter step are too small for a longer one, which allocates its
# own set beside them. One set of the loss buffers stays cached: POOL_CACHED_LOSS_SETS x the loss path at the
# micro-batch's length. Checked on ms-swift's benchmark (../shared/eval/measurements_dev2.csv d3-swift-01/03/04,
# torch.cuda.max_memory_reserved, Qwen vocabulary 151,936): Qwen-7B LoRA 512 tokens, the loss path 512 x 151,936 x
# 12 B = 0.87 GiB, measured 1.8 GiB above the tensors' estimate; 8192 tokens 13.9 GiB, measured 13.5 above. With
# expandable segments (unsloth) freed pages are unmapped instead of cached: no such blocks.
# What the evidence does and does not show (docs/measurements-diagnosis.md): ms-swift ran those tables with
# --truncation_strategy truncation_left (Benchmark.md as first published with them, ms-swift 306fa15a0), so at 512 tokens
# nearly every step has the same length, and the fixed-length fsdp_qlora rows (fq-03..11, peak reserved, dummy data padded
# to the context) also match only with this set counted: the extra pool is there at one length too. So read the set as
# the loss path's own segment pattern as much as a change of length: the forward's freed bf16 blocks are too small for
# the fp32 buffers of its backward, which cut new segments. The value is unchanged; `fixed_length` still drops the set.
POOL_CACHED_LOSS_SETS = 1.0
COLLECTIVES_GIB = {"npu": 0.75, "gpu": 0.5}
FRAGMENTATION = {"npu": 0.15, "gpu": 0.25}
FRAGMENTATION_OF = {"npu": "all", "gpu": "transient"}
# PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (the remedy PyTorch's own OOM message names) maps memory into
# segments that grow in place and unmaps freed pages, so freed blocks leave no reserved-but-unusable gaps: no
# fragmentation term on GPUs. Unsloth sets it when imported, so it is that framework's default. On Ascend the
# share stays: it was calibrated on the vendor's tables and also covers CANN workspaces.
EXPANDABLE_SEGMENTS_DEFAULT = ("unsloth",)
# The ModelArts MindSpeed-LLM launch scripts (their variables table, knowledge/notes/launch_scripts.md) take STAGE pt or sft and FINETUNING_TYPE full or
# lora: the only Megatron plans the planner writes or offers when DeepSpeed does not fit. MindSpeed-LLM itself has a
# --qlora switch, but no ModelArts script sets it, and Megatron-LM on GPUs has no 4-bit base at all.
MINDSPEED_STAGES = ("pt", "sft")
MINDSPEED_METHODS = ("lora", "full")
# Frameworks that neither shard nor offload model states (no DeepSpeed or FSDP integration): the planner keeps them
# to ZeRO-0, one full copy per device. Unsloth trains on one GPU or with plain data parallel.
UNSHARDED_FRAMEWORKS = ("unsloth",)
# Frameworks that shard with FSDP only (full shard, optionally with CPU offload): the planner offers them one copy per
# device (ZeRO-0) or FSDP full shard (sized as ZeRO-3), not DeepSpeed's ZeRO-1/2.
FSDP_FRAMEWORKS = ("torchtune", "litgpt")
# FSDP gradient accumulation without a reduce-scatter per micro-batch (memory.fsdp_unsharded_gradients). LitGPT's finetune
# scripts wrap every micro-batch but the last of an optimizer step in `fabric.no_backward_sync(model, enabled=
# is_accumulating)` (finetune/lora.py at 8641822, 2023-10; finetune/full.py today), which under Fabric's FSDPStrategy is
# FSDP's `no_sync()`: "FSDP will accumulate the full model gradients (instead of gradient shards) until the eventual
# sync" (PyTorch FSDP docs). So with gradient accumulation above 1 each rank holds the unsharded gradient of every FSDP
# unit that computes one, from the first micro-batch's backward until the last one's reduce-scatter. LitGPT wraps whole
# transformer Blocks as units (auto_wrap_policy={Block}, FSDP1 with use_orig_params): a Block holding one LoRA matrix
# computes the gradient of all its parameters ("gradient memory usage will be higher than expected (namely, equivalent to
# not freezing those parameters)", PyTorch FSDP docs; litgpt issue 1417). The gradient is in the parameter's storage dtype.
# LitGPT's LoRA script moved to FSDP2 (per-parameter sharding, fully_shard on the trained Linear layers) in v0.5.11
# (2025-08, #2086), where only the adapters' gradients exist; the full fine-tuning script keeps FSDP1. Sized here as the
# FSDP1 script the published runs used. Checked on litgpt's resource table (LitGPT 8641822, 2 x A100 40 GB, Llama-2-7B
# LoRA r 8 on q and v, micro-batch 1, global batch 128: 22.18 GB max allocated, measurements litgpt-08): shard 6.74e9 x
# 2 B / 2 = 6.28 GiB + unsharded Block gradients 32 x 202.4M x 2 B = 12.07 GiB.
FSDP_NO_SYNC_FRAMEWORKS = ("litgpt",)
FSDP_BLOCK_UNIT_FRAMEWORKS = ("litgpt",)

# Host RAM of one node (GiB), used only to bound CPU offload. ModelArts Snt9B/Snt9B23 bare-metal
# flavors ship 1.5 TiB; 8-GPU HGX servers commonly 1-2 TiB. DeepSpeed's estimator adds 1.5x for
# pinned buffers and fragmentation of offloaded states.
HOST_RAM_GIB_PER_NODE = 1536
HOST_OFFLOAD_FACTOR = 1.5

# ---------------------------------------------------------------- model states (bytes per parameter)
# Mixed precision with DeepSpeed and bf16: bf16 weight 2 + bf16 grad 2 + fp32 gradient
# accumulation/partition 4 + fp32 master 4 + Adam m 4 + Adam v 4 = 20 (DeepSpeed's BF16_Optimizer and
# ZeRO-1/2 keep the fp32 gradient partition; their own estimator counts 2 + 18).
WEIGHT_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4, "pure_bf16": 2}
GRAD_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4, "pure_bf16": 2}
FP32_GRAD_BYTES = {"bf16": 4, "fp16": 4, "fp32": 0, "pure_bf16": 0}
MASTER_BYTES = {"bf16": 4, "fp16": 4, "fp32": 0, "pure_bf16": 0}
ADAM_BYTES = {"bf16": 8, "fp16": 8, "fp32": 8, "pure_bf16": 4}  # pure_bf16 keeps Adam moments in bf16

# Megatron/MindSpeed with bf16 keeps gradients in an fp32 main-grad buffer (accumulate and all-reduce
# in fp32) and, with --use-distributed-optimizer, shards fp32 master + Adam (12 bytes) over data parallel.
MEGATRON_MAIN_GRAD_BYTES = 4
MEGATRON_OPTIMIZER_BYTES = 12

# LoRA adapters: LLaMA-Factory casts trainable parameters to fp32 (weight 4 + grad 4 + Adam 8), except with
# pure_bf16, where it leaves them in bf16 (weight 2 + grad 2 + bf16 Adam 4), as torchtune does with dtype bf16.
ADAPTER_BYTES = {"bf16": 16, "fp16": 16, "fp32": 16, "pure_bf16": 8}

# Optimizers. AdamW keeps two moments (ADAM_BYTES). bitsandbytes' 8-bit AdamW keeps them in 1 byte each
# with block-wise quantisation (one fp32 absmax per 2048 values, below 0.2 %): 2 B per trained parameter.
# The paged variant allocates them in CUDA unified memory, which the driver pages out to host RAM when the
# device runs short: they are counted on the host, not on the device (and not in torch's allocator).
# optimizer_in_backward (torchtune optimizer_in_bwd) steps each parameter as soon as its gradient exists
# and frees the gradient: only the largest parameter's gradient is alive at once.
OPTIMIZERS = ("adamw", "adamw_8bit", "paged_adamw_8bit")
# torch.optim.AdamW steps every parameter of a group with multi-tensor (foreach) kernels by default on the device
# (torch/optim/adamw.py _multi_tensor_adamw): `exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)` is a temporary
# of the second moment's size, live until the update, beside the weights, the whole gradients and the states (the
# activations are freed by then). Frameworks whose default AdamW is that one: the HF Trainer (optim adamw_torch; under
# DeepSpeed without an `optimizer` section in the config, which LLaMA-Factory's ds_z*_config.json lack, the Trainer's
# optimizer steps DeepSpeed's fp32 partitions) and LitGPT (torch.optim.AdamW). Not torchtune (its AdamW configs set
# fused: True), not Megatron/MindSpeed (fused Adam in the distributed optimizer), not unsloth (8-bit AdamW).
FOREACH_ADAMW_FRAMEWORKS = ("LLaMA-Factory", "transformers", "axolotl", "litgpt")
# DeepSpeed ZeRO-3 steps its fp32 partition in sub-groups of sub_group_size elements (stage3.py: one optimizer.step() per
# sub-group, the group's params swapped to that sub-group's flat fp32 tensor), so the foreach temporary holds one sub-group
# at most: 1e9 in LLaMA-Factory's ds_z3_config.json and DeepSpeed's default. ZeRO-1/2 step the whole partition at once.
ZERO3_SUB_GROUP_ELEMENTS = 1e9
ADAM_8BIT_BYTES = 2

# Quantised frozen base (QLoRA): bits per weight plus scales. Double quantisation is the default of
# LLaMA-Factory (double_quantization: True) and of bitsandbytes' Linear4bit (compress_statistics=True):
# one 8-bit absmax per 64 weights plus one fp32 constant per 256 absmax values, 8/64 + 32/(64*256) = 0.127 bit.
# torchao's NF4 (torchtune) is the same layout; GPTQ int4 with group size 128 (fp16 scale, 4-bit zero) is
# 0.16 bit. Embeddings and the LM head stay in bf16 (bitsandbytes skips them).
QUANT_OVERHEAD_BITS = 8 / 64 + 32 / (64 * 256)

# ---------------------------------------------------------------- DeepSpeed ZeRO buffers
# ZeRO-1/2 bucket sizes in LLaMA-Factory's ds_z{0,2}_config.json: allgather 5e8 and reduce 5e8 elements
# (bf16), capped by the trainable parameter count.
ZERO12_BUCKET_ELEMENTS = 5e8
# ZeRO-3 gathers one module at a time and prefetches ahead (stage3_prefetch_bucket_size, and
# stage3_max_reuse_distance 1e9 keeps layers that backward re-gathers): the live set is the largest
# module (often the embedding or LM head) plus two transformer layers, in bf16. Calibrated within 1-2.
ZERO3_LIVE_LAYERS = 2.0
# DeepSpeed ZeRO-3 on Ascend: gathered blocks pinned in the allocator's pool (memory.gathered_block_pinning). Every
# forward, recompute and backward pass all-gathers each layer's weight matrices into full-size blocks and frees them
# after the module; tensors that outlive the layer (the saved layer input, its outputs) are carved out of those freed
# blocks by the caching allocator's best fit, which splits a large free block for a smaller request (NPUCachingAllocator,
# like c10's: round_size pads each request by 32 B to 512 B units, blocks above 1 MiB are split). A segment with one live
# tensor in it cannot be given back (before an out-of-memory error the allocator frees only wholly free segments), and the
# next layer's block of the same size no longer fits in what is left of it, so the pool can grow by up to one largest
# gathered block per layer beside the tensors: layers x the largest weight matrix of a layer (bf16 on device).
# Seen on Ascend (../shared/eval/measurements_dev2.csv d3-lfnpu-03, LLaMA-Factory issue 4758: Qwen2-72B LoRA, ZeRO-3 on
# 16 cards, out of memory with 8.99 GiB allocated, about its ZeRO-3 shard, and 59.48 GiB reserved: 50 GiB of pool held
# by blocks the allocator could not free; issue 6074 is the same job on 16 910B3 cards, also out of memory;
# ../shared/eval/measurements_dev.csv lf-04: DeepSeek-R1-Distill-Qwen-32B LoRA, ZeRO-3 on 8 Snt9B cards, 50 G in use
# where the tensors and overhead come to 32.3 GiB, the bound 64 x 27,648 x 5,120 x 2 B = 16.9 GiB). Not seen on the CUDA
# rows (measurements_dev.csv qwen-17: Qwen1.5-72B LoRA ZeRO-3 on 4 A100s, measured below the point), and the vendor's
# tested ZeRO-3 rows run at the point's counts, so it is no steady-state term: like the attention fallback it is a
# scenario beside the likely range (margin.open_upper), which the verdict judges, and the point and range stay. The vendor's first remedy for an OOM under
# LLaMA-Factory is PYTORCH_NPU_ALLOC_CONF=expandable_segments:True (../shared/research/modelarts.md), which maps pages
# instead of splitting blocks: then nothing is pinned.
ZERO3_PINNING_KINDS = ("npu",)

# ---------------------------------------------------------------- activations (per token, per layer)
# Bytes stored per token per transformer layer without recompute, bf16, FlashAttention (no s^2 term),
# Llama-style block as autograd saves it: the two RMSNorms keep their fp32 input copies (8h; the bf16 layer
# input and residual are not saved); the inputs of q/k/v, o_proj and the MLP (6h); q after RoPE and the
# attention output, which FlashAttention saves and o_proj reuses (4h); k and v (4·kv_dim); gate, SiLU output,
# up and their product, the down-projection input (8·ffn). 18h + 4·kv_dim + 8·ffn: Llama-2-13B without
# checkpointing keeps 223 KB per token and layer, litgpt measured 230 KB (measurements litgpt-05).
ACT_H_BYTES = 18
ACT_KV_BYTES = 4
ACT_FFN_BYTES = 8
# Megatron/MindSpeed uses fused RMSNorm (saves only its bf16 input) and fused SwiGLU (saves its 2·ffn
# input; the product is recomputed): norm inputs 4h, QKV input 2h, q 2h, k/v 4·kv_dim, attention
# output 2h, MLP input 2h, SwiGLU input 4·ffn, down-projection input 2·ffn.
MEGATRON_ACT_H_BYTES = 12
MEGATRON_ACT_FFN_BYTES = 6
# Unsloth's LoRA kernels (unsloth/kernels/fast_lora.py, fast_rms_layernorm): the RMSNorms keep only their bf16
# input and a per-token scale (4h for two), LoRA_QKV its input X (2h), FlashAttention q and the output (4h) and
# k, v (4·kv_dim), LoRA_MLP its input X (2h) and the gate and up outputs e and g (4·ffn); the SwiGLU product and
# the down-projection input are recomputed in backward, which writes dX into X's buffer.
UNSLOTH_LORA_ACT_H_BYTES = 12
UNSLOTH_LORA_ACT_FFN_BYTES = 4
# torch.compile (torchtune `compile: True`, HF `torch_compile`): AOTAutograd's min-cut partitioner saves what is
# expensive to recompute and recomputes pointwise ops in backward: the layer input and the post-attention residual
# (the norms and their outputs are recomputed from them, 4h), q after RoPE and the attention output (4h), k and v
# (4·kv_dim), the gate and up outputs (4·ffn; SiLU and the product are recomputed): 8h + 4·kv_dim + 4·ffn.
COMPILED_ACT_H_BYTES = 8
COMPILED_ACT_FFN_BYTES = 4
# Full recompute (gradient checkpointing, LLaMA-Factory's default; MindSpeed --recompute-granularity
# full): each layer keeps its bf16 input (2h per token); backward re-runs one layer at a time, which
# then holds that layer's activations and their gradients. Calibrated within 1-2 layers.
CKPT_BYTES_PER_H = 2
RECOMPUTE_PEAK_LAYERS = 2.0
# Attention without a fused kernel ("eager": transformers' attn_implementation="eager", or SDPA's math fallback where
# FlashAttention / NPU_Flash_Attn does not apply: a float mask, head dimensions or shapes outside the kernel's limits,
# older stacks). The scores are materialised per layer, per head, s x s per sequence. transformers' eager attention
# (LlamaAttention) computes q·kᵀ in bf16 (2 B), adds the causal mask into a new tensor (2 B), takes the softmax in fp32
# (4 B) and casts it back to bf16 (2 B) for the product with v. Autograd saves the fp32 softmax output (softmax
# backward) and the bf16 probabilities (matmul backward): 6 B per score kept for backward. At a layer's forward the
# working set beside them is the masked scores (2 B); in its backward the gradient of the probabilities (2 B), its fp32
# cast (4 B) and the softmax gradient (4 B): 10 B beside the 6 saved, the peak. One causal mask (bf16, s x s per
# sequence) is shared by every layer. Checked on LLaMA-Factory issue 4572 (d3-lfnpu-05 in
# ../shared/eval/measurements_dev2.csv: Qwen2-7B full, 8192 tokens, `flash_attn: sdpa` on 910B, out of memory).
ATTENTIONS = ("fused", "eager")
EAGER_SCORE_SAVED_BYTES = 6
EAGER_SCORE_BACKWARD_BYTES = 10
EAGER_MASK_BYTES = 2

# Logits and loss, bytes per token per vocabulary entry, by loss implementation:
# - "fp32" (transformers' ForCausalLMLoss, LLaMA-Factory's default; Megatron's vocab-parallel cross entropy):
#   below.
# - "chunked" (torchtune CEWithChunkedOutputLoss, litgpt's chunked LM head): the bf16 logits of the whole
#   micro-batch are kept (2) and, in backward, their bf16 gradient (2); the fp32 upcast is one chunk at a time.
# - "fused" (Liger's fused linear cross entropy, LLaMA-Factory enable_liger_kernel; MindSpeed-LLM's fused CE):
#   the logits never exist for the whole micro-batch; Liger picks chunks of about tokens x hidden / vocab
#   tokens, so one fp32 chunk of logits and its gradient is about 8 bytes per token per hidden unit.
# - "half": the cross entropy of fp16/bf16 logits without an upcast: a model whose own code does not call .float()
#   (Qwen-1's modeling_qwen.py and other trust_remote_code models) trained under DeepSpeed fp16/bf16, where the engine
#   casts the module to half and no autocast lifts the loss to fp32 (HF Trainer's autocast would): HALF_LOGITS_BYTES.
LOSS_IMPLS = ("fp32", "chunked", "fused", "half")
# Framework defaults, where the framework's own recipes state them: torchtune's recipe configs use
# CEWithChunkedOutputLoss (2024) and LinearCrossEntropyLoss (2025), both chunked over the sequence with the
# fp32 upcast one chunk at a time; LitGPT's finetune scripts run the LM head in 128-token chunks into
# chunked_cross_entropy; Unsloth computes the loss with its fused cross entropy (Apple's Cut Cross Entropy
# since late 2024), the full logits never materialised; Axolotl trains with the HF Trainer's loss unless a
# Liger/CCE plugin is configured.
LOSS_DEFAULT = {"LLaMA-Factory": "fp32", "MindSpeed-LLM": "fp32", "torchtune": "chunked", "litgpt": "chunked",
                "unsloth": "fused", "axolotl": "fp32", "transformers": "fp32"}
# QLoRA through the Hugging Face stack (TRL's SFTTrainer, or a script calling peft's
# prepare_model_for_kbit_training) casts every weight that is not quantised (embeddings, LM head, norms)
# from bf16/fp16 to fp32: 4 B instead of 2 per such parameter. LLaMA-Factory does not call it (it upcasts
# only the layer norms, and only with upcast_layernorm), nor does torchtune or unsloth. Under DeepSpeed
# (zero_stage 1-3) the engine casts the whole module back to its fp16/bf16 dtype, so only zero_stage 0 keeps it.
KBIT_UPCAST_FRAMEWORKS = ("transformers",)
# Frameworks that train entirely in bf16 by default: no fp32 master weights, bf16 gradients and bf16 optimizer moments
# (precision pure_bf16). torchtune's recipe configs set `dtype: bf16` and cast the whole model to it (it offers no mixed
# precision and refuses fp16); LitGPT's finetune scripts default to `--precision bf16-true` where the part supports
# bf16. Checked on torchtune's README (../shared/eval/measurements_dev.csv tt-08: Llama-3.2-3B full fine-tuning, 2 x 4096
# tokens, one A100, 24.9 GiB peak active; with fp32 master weights and Adam the states alone are 16 B x 3.213B = 48 GiB).
PURE_BF16_FRAMEWORKS = ("torchtune", "litgpt")
# Activation offloading (torchtune enable_activation_offloading, unsloth's use_gradient_checkpointing="unsloth",
# DeepSpeed activation_checkpointing.cpu_checkpointing): the tensors saved for backward (with recompute, the layer
# inputs) are copied to pinned host memory as forward leaves each layer and brought back as backward reaches it,
# on a side stream that overlaps the copies with compute. The device keeps the layer being written and the one
# being read back (or prefetched); the rest lives on the host. Unsloth turns it on in its notebooks and docs
# (use_gradient_checkpointing="unsloth"), so it is that framework's default.
ACTIVATION_OFFLOAD_LIVE_LAYERS = 2
ACTIVATION_OFFLOAD_DEFAULT = ("unsloth",)
CHUNKED_LOGITS_BYTES = 4
# torchtune's chunked losses, read from its code (torchtune/modules/loss): each chunk runs F.cross_entropy(logits.float())
# in eager mode (the configs' default is compile: False), and the log-softmax inside it saves its fp32 output for
# backward, so every chunk's fp32 log-probabilities (4 B) stay until backward; the upcast input is freed with the chunk.
# CEWithChunkedOutputLoss (the 2024 recipes) takes the model's bf16 logits as a list of chunks, which the recipe holds
# until the loss returns (`del logits` after it): 2 + 4 = 6 B per token per vocabulary entry at the end of the forward,
# beside one chunk's transient upcast. LinearCrossEntropyLoss (2025) projects each chunk inside the loss, so only that
# chunk's bf16 logits exist: 4 B plus a chunk. The figure is the former's, the larger. litgpt's chunked_cross_entropy
# runs on bf16 logits under bf16-true precision (no upcast): its saved log-softmax is bf16, CHUNKED_LOGITS_BYTES.
TORCHTUNE_CHUNKED_LOGITS_BYTES = 6
# "half": the saved log-softmax, its gradient and the logits' gradient, 2 B each (the fp32 path's 12 B at half width).
HALF_LOGITS_BYTES = 6
# Compiled (torchtune compiles the loss with the model), the chunked loss saves only each chunk's bf16 logits and its
# log-sum-exp and recomputes the fp32 softmax in backward, chunk by chunk: 2 B for the whole micro-batch.
COMPILED_CHUNKED_LOGITS_BYTES = 2
FUSED_LOSS_BYTES_PER_H = 8
# "fp32" in detail. LLaMA-Factory leaves the loss to transformers'
# ForCausalLMLoss over the full vocabulary (a fused or chunked loss, e.g. enable_liger_kernel, is not
# the default): the LM head writes bf16 logits (2), the loss upcasts them to fp32 (4) and log-softmax
# keeps its fp32 output (4) for backward: 10 in the forward peak (14 on transformers 4.46-4.47, which
# also copy the shifted logits). The bf16 logits are freed with the model output before backward, whose
# peak is the saved log-softmax (4) + its incoming gradient (4) + the gradient it produces (4) = 12.
# Each of these is held once per token of the micro-batch, not per layer. Large for 150k-260k
# vocabularies. Calibrated within 8-14.
LOGITS_BYTES = 12

# ---------------------------------------------------------------- RL stages
# Sequences per sample: DPO/KTO/RM score a chosen and a rejected (or KL) sequence in one batch.
SEQUENCES_PER_SAMPLE = {"pt": 1, "sft": 1, "dpo": 2, "kto": 2, "rm": 2, "ppo": 1}

# ---------------------------------------------------------------- planner
# Device counts below one node: 1, 2, 4, 8 (power-of-two data parallel divides the global batch and
# TP/PP sizes); above one node: whole nodes, in powers of two (global batch and PP x DP split evenly;
# the vendor tables list 16/32/64/128/256/512 cards, and 48 once).
NODE_COUNT_RULE = "power_of_two"
MAX_DEVICES_DEFAULT = 4096
# DeepSpeed (LLaMA-Factory): "start with the fastest ZeRO stage and step down when out of memory"
# (HF DeepSpeed guide, ModelArts OOM FAQ) within one node, where adding data-parallel cards is cheap;
# beyond one node, the fewest devices. Alternative: "fewest_devices" everywhere.
DEEPSPEED_POLICY = "fastest_stage_in_node"
# The "node" for that rule is 8 devices: the ModelArts table's own note says jobs under 8 cards are
# run on 8 (one Snt9B node; on Snt9B23 8 DIE = 4 cards, since the table counts 1 DIE ~ 1 Snt9B card).
FAST_STAGE_BUDGET = 8
# Vendor practice for LoRA device counts (an empirical rule, kept apart from the memory model).
# Memory alone says LoRA (2 bytes per frozen parameter) fits on about 1/8 of the devices full
# fine-tuning needs. The ModelArts tables size LoRA far more generously: across both frameworks the
# minimum-card table gives LoRA about half of full fine-tuning's count (70B/72B: 16 vs 32 on
# MindSpeed-LLM, 32 vs 64 on LLaMA-Factory; 7B-14B on MindSpeed-LLM: 2-4 vs 4-8), and the recipe
# table does the same (72B LoRA 2x8 vs full 4x8). The likely reasons are throughput (a workable
# data-parallel width for the global batch) and MindSpeed-LLM keeping a model-parallel layout that
# the converted weights were cut for. The planner therefore recommends
#   max(memory minimum, PRACTICE_LORA_FRACTION x the same job's full fine-tuning devices)
# for MindSpeed-LLM at every size, and for LLaMA-Factory once full fine-tuning spans more than one
# node (within one node LLaMA-Factory's LoRA rows are 1-2 cards, as memory says). The memory minimum
# is always reported beside it. Calibrated on the tables: 0.5 (1.0 and 0.25 both agree less). Applied on
# Ascend parts only: the tables are ModelArts' practice; on GPUs the memory minimum is the answer.
PRACTICE_LORA_FRACTION = 0.5
PRACTICE_LF_FULL_ABOVE = 8

# MindSpeed-LLM context parallel: the ModelArts parameter table (research/modelarts.md §7) says CP must
# be >= 2 when SEQ_LEN > 32768. At or below that the vendor scripts split long sequences with TP
# (sequence parallel) and PP only (glm4-9b 32K: TP2 PP2), so the planner offers CP only above it, and
# then from 2 up. Powers of two up to 8 (the 128K llama3.1-8b script uses CP4 with TP8).
CP_REQUIRED_ABOVE = 32768
MAX_CP = 8

# LLaMA-Factory examples and the vendor recipe table use per_device_train_batch_size 1 and
# gradient_accumulation_steps 8.
DEFAULT_MICRO_BATCH = 1
DEFAULT_GRAD_ACCUM = 8
DEFAULT_LORA_RANK = 8  # LLaMA-Factory's default lora_rank
FREEZE_TRAINABLE_LAYERS = 2  # LLaMA-Factory's default freeze_trainable_layers (last 2 layers)

# Inference (vLLM): before sizing the KV cache, vLLM runs one profiling forward pass over
# max_num_batched_tokens tokens spread over max_num_seqs requests and samples the last token of each
# (gpu_model_runner.profile_run: _dummy_run + _dummy_sampler_run); the KV budget is what is left of
# gpu_memory_utilization x capacity after the weights, that pass's peak and non-torch memory. Defaults: vLLM
# V1's for GPUs under 70 GiB with the LLM class (8192 tokens, 256 sequences; `vllm serve` takes 2048 tokens, and
# 16384/8192 tokens with 1024 sequences on larger GPUs other than the A100). V0 without chunked prefill profiled
# max(max_model_len, 2048) tokens (vllm-kv-01: 20000 tokens, a 2.07 GiB peak for Llama-3.1-8B).
INFERENCE_ACTIVATION_TOKENS = 8192
INFERENCE_PROFILE_SEQS = 256
# The forward pass keeps nothing for backward: its peak is one MLP at a time over all batched tokens,
# the gate/up output (2 x ffn) and the SiLU product (ffn) beside the hidden state and the residual (2 x h),
# bf16: 6·ffn/TP + 4·h bytes per token (MoE: the fused-MoE caches of the top-k experts, ffn = k x moe_ffn,
# plus the k expert outputs of h each). The sampler holds the bf16 logits of each sampled token, their fp32
# copy, the probabilities and the exponential draws of random sampling: 2 + 4 + 4 + 4 = 14 B per vocab entry.
INFERENCE_MLP_FFN_BYTES = 6
INFERENCE_HIDDEN_BYTES = 4
SAMPLER_BYTES_PER_VOCAB = 14
# Beside the profiled peak: non-torch memory (CUDA context and NCCL: vLLM logs 0.10-0.35 GiB on one GPU,
# vllm-kv-01/03) and the CUDA-graph pool, which current vLLM counts in its profile (about 0.5 GiB for the
# default capture sizes); Ascend's CANN context and ACL graphs are larger.
INFERENCE_OVERHEAD_GIB = {"npu": 2.0, "gpu": 1.0}
# Sliding-window attention layers (Gemma 2/3, Mistral-7B-v0.1, gpt-oss) keep at most `window` tokens
# of KV per sequence in vLLM since its hybrid KV-cache manager (v0.10, 2025); older releases reserve
# the full length for every layer. True: size the KV cache the way current vLLM allocates it.
SLIDING_WINDOW_KV = True

# ---------------------------------------------------------------- ranges (margin.py)
# Each training figure comes with a range read off the estimator's own errors after every term above is modelled:
# over the measured training peaks of the three measurement files (knowledge/catalog/measurements.csv and the two
# published-run files of ../shared/eval, given to `sizing calibrate -m`; a row in two files counted once, the
# project's copy first), the ratio measured / predicted, like with like (rows reporting peak allocated or active
# memory against allocated_gib, rows reporting torch's peak reserved against reserved_gib, the allocator's segments
# without the runtime context and NCCL buffers (memory.outside_pool_gib), every other row against total_gib, the pool
# with the runtime beside it). RANGE_RATIO holds its 10th and 90th
# percentile ("likely": 8 measured peaks in 10 fall inside): the range is [point x low, point x high] around what the
# allocator cannot give back (total_gib less cached_gib; the cached blocks are added back to report the pool's range).
# Measured (53 peaks; `sizing calibrate` prints the percentiles it measures): 5th 0.89, 10th 0.92, 25th 0.97, median
# 1.03, 75th 1.14, 90th 1.32, 95th 1.43 (with torch's peak-reserved rows held against total_gib, before reserved_gib:
# 10th 0.91, 75th 1.11, 90th 1.31; the range's ends moved by 0.01 and are kept, PLAN_MARGIN moved by 0.03). The same rows spread 0.70-2.65 in the per-term factor used before the cached-blocks term
# (memory.cached_blocks) and the fixed-length input were modelled.
RANGE_RATIO = (0.91, 1.31)
# What the planner sizes on (TrainConfig.tightest forces the point everywhere). GPUs: the point x PLAN_MARGIN, the
# 75th percentile of the same ratio (three measured peaks in four lie below it; 1.11 while torch's peak-reserved rows
# were held against total_gib, whose runtime context and NCCL buffers they do not count). Sizing on the range's upper end
# (x 1.35) made plans over-conservative against public practice: Llama-3.1-8B LoRA at 2048 tokens, which
# LLaMA-Factory's hardware table puts in the 16 GB class for 7-8B LoRA, would need 2 RTX 4090s instead of 1 (before
# this range: 4); the verdict still says `tight` where the range crosses the usable memory. Ascend: the point, because
# the vendor's minimum-card and recipe tables are runs that happened at the point's counts (the Ascend constants above
# were calibrated on them): a margin on Ascend would contradict the tested rows.
PLAN_MARGIN = {"gpu": 1.14, "npu": 1.0}
# Serving (vLLM): the KV cache is what the budget leaves after the weights (exact to 1-2 %, measurements vllm-w-*)
# and the profiled peak plus non-torch memory; the latter is where the measured KV capacities scatter. Each
# measured capacity implies k = (budget - weights - measured KV) / (profiled peak + overhead): 1.18 (vllm-kv-01),
# 4.3 (vllm-kv-03, an older vLLM whose CUDA-graph pool sat outside its profile) and 1.04 (vllm-kv-05). The KV
# range spans them; the verdict is `fits` when the low end of the KV cache holds the tokens asked for. Plans stay
# sized on the point: vLLM measures its own peak at start-up and refuses to start when the KV cache cannot hold
# one max_model_len sequence, so the vLLM tables (tested counts) are compared with the point.
INFERENCE_REST_RANGE = (1.0, 4.3)
