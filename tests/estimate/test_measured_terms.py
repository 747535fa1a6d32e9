"""Terms corrected against published measurements (knowledge/catalog/measurements.csv, each row with its
source). Each expected value is a hand computation with the shapes written out; the comment names the
measurement the term was checked on."""

from __future__ import annotations

import pytest

from assistant.estimate.memory import TrainConfig, training_memory

GIB = 2**30


def approx(x):
    return pytest.approx(x, rel=1e-6, abs=1e-6)


# Llama-3.2-3B: 28 layers, hidden 3072, ffn 8192, 8 KV heads of 128 (kv_dim 1024), vocab 128256.
def test_chunked_and_fused_loss_hold_a_fraction_of_the_fp32_loss(shapes, devices):
    s, a100 = shapes["llama3.2-3b"], devices["a100-80g"]
    cfg = TrainConfig(method="qlora", seq_len=4096, micro_batch=2, precision="pure_bf16", lora_rank=64,
                      lora_targets="q_proj,v_proj,o_proj,gate_proj,up_proj,down_proj")
    tokens = 2 * 4096
    # two layers recomputed at 18h + 4 kv_dim + 8 ffn = 55296 + 4096 + 65536 = 124928 B per token
    recompute_peak = 2 * 124_928 * tokens
    fp32 = training_memory(s, cfg, a100)
    assert fp32.logits.gib == approx((tokens * 128_256 * 12 - recompute_peak) / GIB)  # LLaMA-Factory's default
    # a chunked loss over bf16 logits (litgpt's chunked_cross_entropy; torchtune's own is test_torchtune_chunked_loss):
    # bf16 logits + their gradient
    chunked = training_memory(s, cfg._replace(loss="chunked"), a100)
    assert chunked.logits.gib == approx((tokens * 128_256 * 4 - recompute_peak) / GIB)
    # Liger's fused linear cross entropy: one fp32 chunk and its gradient, 8 B per token per hidden unit;
    # far below the recompute peak, so it adds nothing
    fused = training_memory(s, cfg._replace(loss="fused"), a100)
    assert tokens * 3072 * 8 < recompute_peak and fused.logits.gib == 0
    assert fp32.total_gib > chunked.total_gib > fused.total_gib


def test_pure_bf16_keeps_lora_adapters_in_bf16(shapes, devices):
    # Llama-2-7B LoRA r64 on q,k,v,gate,up,down (measurement fq-07, DDP, pure bf16: 22.04 GiB reserved, which
    # the fp32-adapter figure put above a 24 GB card). Per layer: 3 x (4096 + 4096) + 3 x (4096 + 11008).
    s, dev = shapes["llama2-7b"], devices["rtx3090-24g"]
    A = 64 * 32 * (3 * 8192 + 3 * 15104)
    cfg = TrainConfig(method="lora", seq_len=2048, micro_batch=4, lora_rank=64,
                      lora_targets="q_proj,k_proj,v_proj,gate_proj,up_proj,down_proj")
    mixed, pure = training_memory(s, cfg, dev), training_memory(s, cfg._replace(precision="pure_bf16"), dev)
    assert pure.optimizer.gib == approx(4 * A / GIB)  # bf16 Adam moments 2 x 2 B
    assert mixed.optimizer.gib == approx(8 * A / GIB)  # fp32 Adam moments
    assert mixed.weights.gib - pure.weights.gib == approx(2 * A / GIB)  # 4 B vs 2 B per adapter weight


def test_paged_8bit_adam_with_the_step_in_backward(shapes, devices):
    # Llama-3.1-8B full fine-tuning on one RTX 4090 (measurement tt-06: torchtune, PagedAdamW8bit,
    # optimizer_in_bwd, chunked loss, 2 x 2048 tokens, 18.9 GiB peak active).
    s, dev = shapes["llama3.1-8b"], devices["rtx4090-24g"]
    cfg = TrainConfig(method="full", seq_len=2048, micro_batch=2, precision="pure_bf16", optimizer="paged_adamw_8bit",
                      optimizer_in_backward=True, loss="chunked")
    m = training_memory(s, cfg, dev)
    P, embed = 8.03e9, 128_256 * 4096
    assert m.weights.gib == approx(2 * P / GIB)
    assert m.gradients.gib == approx(2 * embed / GIB)  # one parameter's bf16 gradient at a time: the embedding
    assert m.optimizer.gib == 0  # 8-bit moments (2 B) paged to the host
    assert m.host_ram_gib.gib == approx(2 * P * 1.5 / GIB)
    # activations: 32 layer inputs 2h + two layers at 18h + 4 kv_dim + 8 ffn = 192,512 B per token
    tokens = 4096
    act = 2 * 4096 * tokens * 32 + 2 * 192_512 * tokens
    assert m.activations.gib == approx(act / GIB)
    logits = max(0.0, tokens * 128_256 * 4 - 2 * 192_512 * tokens)
    tensors = (2 * P + 2 * embed + act + logits) / GIB
    assert m.logits.gib == approx(logits / GIB)
    # the tensors alone are the 18.9 GiB torchtune reports (allocator statistics exclude context and fragmentation)
    assert tensors == pytest.approx(18.9, rel=0.01)
    # one GPU: CUDA context, no NCCL; fragmentation 25 % of what is freed and reallocated each step
    assert m.overhead.gib == approx(0.5 + 0.25 * (act + logits) / GIB)


def test_overhead_is_context_collectives_and_fragmentation(shapes, devices):
    # GPU: CUDA context 0.5 GiB (vLLM logs 0.35 GiB of non-torch memory on an RTX 3090, vllm-kv-01), NCCL
    # buffers 0.5 GiB with more than one device, and fragmentation of the caching allocator as a share of the
    # activations and loss buffers, freed and reallocated at many sizes every step: weights, optimizer states
    # and ZeRO-3's same-size gathers leave no gaps. fq-03 (FSDP LoRA, 2048 tokens): 10.22 GiB reserved for
    # 9.16 allocated.
    s = shapes["llama2-7b"]
    cfg = TrainConfig(method="lora", seq_len=2048, devices=2, zero_stage=3, lora_rank=64)
    m = training_memory(s, cfg, devices["rtx3090-24g"])
    assert m.overhead.gib == approx(0.5 + 0.5 + 0.25 * (m.activations.gib + m.logits.gib))
    one = training_memory(s, cfg._replace(devices=1, zero_stage=0), devices["rtx3090-24g"])
    assert one.overhead.gib == approx(0.5 + 0.25 * (one.activations.gib + one.logits.gib))  # no NCCL on one device
    # Ascend keeps the share of all tensors the ModelArts tables agree with: 15 %, CANN context 1 GiB, HCCL 0.75 GiB
    m = training_memory(s, cfg, devices["snt9b"])
    tensors = m.weights.gib + m.gradients.gib + m.optimizer.gib + m.activations.gib + m.logits.gib
    assert m.overhead.gib == approx(1.0 + 0.75 + 0.15 * tensors)


def test_activations_per_token_and_layer_without_recompute(shapes, devices):
    # litgpt-05: Llama-2-13B LoRA (r8 on q,v), bf16-true, no activation checkpointing, one 1304-token sample:
    # torch.cuda.max_memory_allocated 38.12 GB = 35.50 GiB. Per layer and token a LoRA Llama block keeps the
    # two RMSNorm fp32 input copies (8h), the inputs of q/k/v, o_proj and the MLP (6h), q after RoPE and the
    # attention output (4h), k and v (4 kv_dim), and gate, SiLU, up and their product (8 ffn), bf16:
    # 18·5120 + 4·5120 + 8·13824 = 223,232 B.
    s, dev = shapes["llama2-13b"], devices["a100-40g"]
    cfg = TrainConfig(method="lora", seq_len=1304, precision="pure_bf16", recompute=False,
                      lora_targets="q_proj,v_proj", loss="chunked")
    m = training_memory(s, cfg, dev)
    act = 223_232 * 1304 * 40
    assert m.activations.gib == approx(act / GIB)
    # beside the bf16 weights (2 x 13.016B) this is the measured peak within 4 % (litgpt's LM head is chunked)
    assert (2 * 13.016e9 + act) / GIB == pytest.approx(35.50, rel=0.04)


def test_gradients_set_to_none_peak_after_the_activations(shapes, devices):
    # tt-08: torchtune full fine-tuning of Llama-3.2-3B (3.213B, tied embeddings) on one A100, all in bf16
    # (AdamW moments bf16), 2 x 4096 tokens, activation checkpointing, gradient accumulation 1: 24.9 GiB peak
    # active. Weights 2 + Adam 4 + gradients 2 B per parameter = 23.94 GiB; the gradients exist only during
    # backward and are complete when the activations are gone, so the activations do not add to them.
    s, dev = shapes["llama3.2-3b"], devices["a100-80g"]
    cfg = TrainConfig(method="full", seq_len=4096, micro_batch=2, precision="pure_bf16", loss="chunked")
    m = training_memory(s, cfg, dev)
    P, tokens = 3.213e9, 8192
    layer = (18 * 3072 + 4 * 1024 + 8 * 8192) * tokens  # the first layer's working set, at the end of backward
    start = m.activations.gib + m.logits.gib  # checkpoints + two recomputed layers + chunked logits above them
    assert m.gradients.gib == approx(max(0.0, (2 * P + layer) / GIB - start))
    assert m.weights.gib + m.optimizer.gib + m.gradients.gib + m.activations.gib + m.logits.gib == approx(
        (2 * P + 4 * P + 2 * P + layer) / GIB)
    assert (8 * P + layer) / GIB == pytest.approx(24.9, rel=0.01)
    # with gradient accumulation (or DeepSpeed's gradient buffers) the gradients are there from the start
    kept = training_memory(s, cfg._replace(grad_accum=8), dev)
    assert kept.gradients.gib == approx(2 * P / GIB)


def test_zero_offload_keeps_gradients_on_the_host(shapes, devices):
    # DeepSpeed's estimator counts gradients off the device with optimizer offload ("GPU 2P" for ZeRO-2,
    # "4LL + 2P/N" for ZeRO-3); on the device only the reduce bucket remains: hidden^2 bf16 elements
    # under ZeRO-3 (reduce_bucket_size "auto").
    s, dev, n, P = shapes["llama2-7b"], devices["a100-80g"], 8, 6.738e9
    m = training_memory(s, TrainConfig(method="full", devices=n, zero_stage=3, offload=True), dev)
    assert m.gradients.gib == approx(2 * 4096**2 / GIB)
    assert m.optimizer.gib == 0
    assert m.host_ram_gib.gib == approx(8 * (2 + 4 + 12) * P / n * 1.5 / GIB)


# Llama-3.1-8B: 32 layers, hidden 4096, ffn 14336, kv_dim 1024, vocab 128256, untied embedding and LM head of
# 128256 x 4096 = 525,336,576 parameters each. One layer keeps 18h + 4 kv_dim + 8 ffn = 192,512 B per token in bf16.
def test_hf_qlora_keeps_embeddings_and_the_residual_stream_in_fp32(shapes, devices):
    # us-01 / us-03 (unsloth README, 'Hugging Face + FA2' column): Llama-3.1-8B QLoRA r32 on all linear layers,
    # batch 1, trains up to 5,789 tokens on a 24 GB GPU and 15,502 on 48 GB. TRL's SFTTrainer prepares the 4-bit
    # model with peft's prepare_model_for_kbit_training, which casts the embeddings and LM head to fp32; the fp32
    # embedding output then makes the residual stream, every layer input and (the 4-bit layers return their
    # input's dtype) most activations fp32.
    s, dev = shapes["llama3.1-8b"], devices["rtx4090-24g"]
    cfg = TrainConfig(method="qlora", seq_len=4096, lora_rank=32, framework="transformers")
    hf, lf = training_memory(s, cfg, dev), training_memory(s, cfg._replace(framework="LLaMA-Factory"), dev)
    embed = 128_256 * 4096
    assert hf.weights.gib - lf.weights.gib == approx(2 * 2 * embed / GIB)  # 4 B instead of 2, embedding + head
    tokens, layer = 4096, 192_512
    assert hf.activations.gib == approx((32 * 4 * 4096 * tokens + 2 * 2 * layer * tokens) / GIB)
    assert lf.activations.gib == approx((32 * 2 * 4096 * tokens + 2 * layer * tokens) / GIB)
    assert hf.logits.gib == approx(max(0.0, tokens * 128_256 * 12 - 2 * 2 * layer * tokens) / GIB)
    # the measured limits: at the lengths that trained the point fits and the verdict is not does_not_fit; at 1.25x
    # of them the point does not fit and the verdict is not fits
    for measured, part in ((5789, "rtx4090-24g"), (15502, "l40s-48g")):
        ran = training_memory(s, cfg._replace(seq_len=measured), devices[part])
        assert ran.total_gib - ran.cached_gib <= ran.usable_gib and ran.verdict != "does_not_fit"
        over = training_memory(s, cfg._replace(seq_len=round(1.25 * measured)), devices[part])
        assert over.total_gib - over.cached_gib > over.usable_gib and over.verdict != "fits"
    # under DeepSpeed the engine casts the module back to bf16: no upcast
    z2 = cfg._replace(zero_stage=2)
    assert training_memory(s, z2, dev).weights.gib == training_memory(s, z2._replace(framework="LLaMA-Factory"), dev).weights.gib


def test_activation_offloading_keeps_two_layer_inputs_on_the_device(shapes, devices):
    # torchtune README 'Optimization flags' (commit 1814feb17): Llama-3.2-3B full fine-tuning, 2 x 4096 tokens,
    # activation checkpointing, optimizer step in backward: '+ Activation Offloading' takes the peak from 23.1 to
    # 21.8 GiB. The 28 layer inputs (2h B per token) go to host RAM but for the two in flight:
    # 26 x 2 x 3072 x 8192 B = 1.22 GiB.
    s, dev = shapes["llama3.2-3b"], devices["a100-80g"]
    cfg = TrainConfig(method="full", seq_len=4096, micro_batch=2, precision="pure_bf16", loss="chunked",
                      optimizer_in_backward=True, framework="torchtune")
    on, off = training_memory(s, cfg._replace(activation_offload=True), dev), training_memory(s, cfg, dev)
    tokens = 8192
    moved = 26 * 2 * 3072 * tokens
    assert off.activations.gib - on.activations.gib == approx(moved / GIB)
    assert (off.activations.gib - on.activations.gib) == pytest.approx(23.1 - 21.8, rel=0.1)
    assert on.activations.gib == approx((2 * 2 * 3072 * tokens + 2 * 124_928 * tokens) / GIB)
    assert on.host_ram_gib.gib - off.host_ram_gib.gib == approx(moved * 1.5 / GIB)  # pinned buffers, x 1.5


def test_unsloth_offloads_activations_by_default(ctx):
    from assistant.tools.estimates import EstimateTrainingMemoryArgs, estimate_training_memory

    base = {"model": "llama3.1-8b", "method": "qlora", "seq_len": 16384, "hardware": "rtx4090-24g"}
    uns = estimate_training_memory(ctx, EstimateTrainingMemoryArgs(**base, framework="unsloth"))
    assert uns.activation_offload and uns.loss == "fused"
    assert any("activation offloading" in a and "unsloth's default" in a for a in uns.assumptions)
    kept = estimate_training_memory(ctx, EstimateTrainingMemoryArgs(**base, framework="unsloth", activation_offload=False))
    assert not kept.activation_offload and kept.activations_gib > uns.activations_gib
    lf = estimate_training_memory(ctx, EstimateTrainingMemoryArgs(**base))
    assert not lf.activation_offload


def test_unsloth_lora_kernels_save_less_per_layer(shapes, devices):
    # Unsloth's context-length table (README, commit e3162dc5bf, 'Unsloth' column, the same rows as us-01/us-03):
    # Llama-3.1-8B QLoRA r32 trains to 78,475 tokens on a 24 GB GPU. Its LoRA_MLP saves X, e and g (2h + 4 ffn)
    # and recomputes the SwiGLU product; its RMSNorm keeps the bf16 input; with FlashAttention and LoRA_QKV's
    # input: 12h + 4 kv_dim + 4 ffn = 49,152 + 4,096 + 57,344 = 110,592 B per token and layer (HF: 192,512).
    s, dev = shapes["llama3.1-8b"], devices["rtx4090-24g"]
    cfg = TrainConfig(method="qlora", seq_len=32768, lora_rank=32, framework="unsloth", activation_offload=True,
                      expandable_segments=True)
    m = training_memory(s, cfg, dev)
    tokens = 32768
    # two layer inputs in flight (the rest offloaded by its gradient checkpointing) + two layers recomputed
    assert m.activations.gib == approx((2 * 2 * 4096 * tokens + 2 * 110_592 * tokens) / GIB)
    assert m.logits.gib == 0  # fused loss: 8 B x hidden per token, below the recompute peak
    # unsloth sets expandable_segments when imported: no fragmentation term, only the CUDA context
    assert m.overhead.gib == approx(0.5)
    # the longest length whose point fits is within 1.25x of the published one (the grid is 1,024 tokens); the
    # published length itself is not does_not_fit
    fits = [n for n in range(4096, 131072, 1024) if (m := training_memory(s, cfg._replace(seq_len=n), dev)).total_gib
            - m.cached_gib <= m.usable_gib]
    assert 78_475 / 1.25 < max(fits) < 78_475 * 1.25
    assert training_memory(s, cfg._replace(seq_len=78_475), dev).verdict != "does_not_fit"


def test_expandable_segments_remove_fragmentation_on_gpus_only(shapes, devices):
    # PyTorch's OOM message names PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True for "reserved but unallocated"
    # memory: segments grow in place, so the gaps the 25 % fragmentation share stands for (fq-03: 10.22 GiB reserved
    # for 9.16 allocated) do not form. On Ascend the calibrated share stays (it also covers CANN workspaces).
    s = shapes["llama2-7b"]
    cfg = TrainConfig(method="lora", seq_len=2048, devices=2, zero_stage=3, lora_rank=64)
    gpu = training_memory(s, cfg._replace(expandable_segments=True), devices["rtx3090-24g"])
    assert gpu.overhead.gib == approx(0.5 + 0.5)  # CUDA context + NCCL buffers
    npu, npu_exp = (training_memory(s, cfg._replace(expandable_segments=e), devices["snt9b"]) for e in (False, True))
    assert npu.overhead.gib == npu_exp.overhead.gib


def test_torch_compile_saves_fewer_activations_and_only_bf16_logits(shapes, devices):
    # torchtune README 'Optimization flags' (commit 1814feb17), torch.compile on from '+ Compile' down. Compiled, the
    # partitioner keeps the layer input and the post-attention residual (4h), q after RoPE and the attention output
    # (4h), k and v (4 kv_dim), gate and up (4 ffn): 8·3072 + 4·1024 + 4·8192 = 61,440 B per token and layer for
    # Llama-3.2-3B; the chunked loss keeps only the bf16 logits (2 B), the fp32 softmax recomputed chunk by chunk.
    s, dev = shapes["llama3.2-3b"], devices["a100-80g"]
    cfg = TrainConfig(method="full", seq_len=4096, micro_batch=2, precision="pure_bf16", loss="chunked",
                      framework="torchtune", compile=True)
    m = training_memory(s, cfg, dev)
    tokens, layer = 8192, 61_440
    peak = 2 * layer * tokens  # two layers recomputed
    assert m.activations.gib == approx((28 * 2 * 3072 * tokens + peak) / GIB)
    assert m.logits.gib == approx((tokens * 128_256 * 2 - peak) / GIB)
    # '+ Activation Checkpointing' (tt-08, 24.9 GiB peak active) and '+ Activation Offloading' (21.8 GiB): the tensors
    # (allocated_gib: total less the context, fragmentation and cached blocks, which peak active does not count) within 5 %
    for flags, measured in (({}, 24.9), ({"optimizer_in_backward": True, "activation_offload": True}, 21.8)):
        r = training_memory(s, cfg._replace(**flags), dev)
        assert r.allocated_gib == pytest.approx(measured, rel=0.05)
        assert r.allocated_gib == pytest.approx(r.total_gib - r.overhead.gib - r.cached_gib, abs=2e-3)


def test_half_precision_loss_of_a_models_own_code(shapes, devices):
    # qwen-19 (QwenLM/Qwen README, 'Profiling of Memory and Speed'): Qwen-72B Q-LoRA on one A100-SXM4-80G at 8192 tokens,
    # 75.6 GB. The Q-LoRA script runs DeepSpeed fp16 (the model cast to fp16, no autocast) and Qwen-1's own code takes
    # the cross entropy of the fp16 logits: saved log-softmax, its gradient and the logits' gradient at 2 B each, 6 B
    # per token per vocabulary entry instead of the fp32 path's 12. The run happened; with 12 B it is predicted not to fit.
    s, dev = shapes["qwen1.5-72b"], devices["a100-80g"]
    # Qwen's finetune.py pads every sample to model_max_length: fixed-length batches, no cached blocks
    cfg = TrainConfig(method="qlora", seq_len=8192, zero_stage=2, precision="fp16", lora_rank=64, fixed_length=True)
    half, fp32 = training_memory(s, cfg._replace(loss="half"), dev), training_memory(s, cfg, dev)
    tokens, layer = 8192, 18 * 8192 + 4 * 8192 + 8 * 24576  # Qwen-72B: 80 layers, hidden 8192, MHA (kv_dim 8192)
    peak = 2 * layer * tokens
    assert half.logits.gib == approx(max(0.0, tokens * 152_064 * 6 - peak) / GIB)
    assert fp32.logits.gib == approx(max(0.0, tokens * 152_064 * 12 - peak) / GIB)
    assert half.cached_gib == fp32.cached_gib == 0
    assert half.total_gib <= half.usable_gib < fp32.total_gib and half.verdict != "does_not_fit"
    assert half.total_gib == pytest.approx(75.6e9 / GIB, rel=0.1)


def test_torchtune_chunked_loss_keeps_every_chunks_fp32_log_softmax(shapes, devices):
    # torchtune/modules/loss/ce_chunked_output_loss.py: each of the 8 chunks runs F.cross_entropy(logits.float()), whose
    # log-softmax saves its fp32 output for backward (4 B), while the recipe holds the model's bf16 logit chunks until
    # the loss returns (2 B): 6 B per token per vocabulary entry, with the configs' default compile: False. Llama-3.2-3B,
    # 2 x 4096 tokens, vocabulary 128,256: 8192 x 128,256 x 6 B = 5.87 GiB (litgpt's bf16 chunked loss: 4 B, 3.91 GiB;
    # compiled, torchtune's loss keeps the bf16 logits only: 2 B, 1.96 GiB).
    s, a100 = shapes["llama3.2-3b"], devices["a100-80g"]
    cfg = TrainConfig(method="full", seq_len=4096, micro_batch=2, precision="pure_bf16", framework="torchtune",
                      recompute=False)
    tokens = 8192
    assert s.vocab == 128_256
    tt = training_memory(s, cfg, a100)
    assert cfg.loss_impl == "chunked"  # torchtune's default loss
    assert tt.logits.gib == approx(tokens * 128_256 * 6 / GIB) == pytest.approx(5.87, abs=0.01)
    bf16 = training_memory(s, cfg._replace(framework="litgpt"), a100)
    assert bf16.logits.gib == approx(tokens * 128_256 * 4 / GIB)
    compiled = training_memory(s, cfg._replace(compile=True), a100)
    assert compiled.logits.gib == approx(tokens * 128_256 * 2 / GIB)


def test_fsdp_no_sync_accumulation_holds_whole_block_gradients(shapes, devices):
    # LitGPT 8641822 finetune/lora.py on 2 x A100 40 GB (measurement litgpt-08: Llama-2-7B LoRA r 8 on q and v, micro-batch
    # 1, global batch 128, bf16-true, FSDP with auto_wrap_policy={Block}: 22.18 GB = 20.66 GiB max allocated). Every
    # micro-batch but the last runs under fabric.no_backward_sync (FSDP no_sync), so each rank keeps the unsharded gradient
    # of every Block, frozen weights included (one LoRA matrix makes the whole flat parameter need a gradient).
    # Llama-2-7B: 6.738e9 params, embeddings and LM head 2 x 32000 x 4096 = 262,144,000, so the 32 Blocks hold 6,475,856,000;
    # the adapters 8 x 32 x (2 x (4096 + 4096)) = 4,194,304 (the table's "trainable parameters").
    s, a100 = shapes["llama2-7b"], devices["a100-40g"]
    cfg = TrainConfig(method="lora", seq_len=1304, micro_batch=1, devices=2, framework="litgpt", zero_stage=3,
                      precision="pure_bf16", lora_rank=8, lora_targets="q_proj,v_proj", loss="chunked", grad_accum=128)
    m = training_memory(s, cfg, a100)
    assert m.gradients.gib == approx((6_475_856_000 + 4_194_304) * 2 / GIB)  # 12.07 GiB, bf16 like the parameters
    assert "no_sync" in m.gradients.how
    # beside the 6.28 GiB shard, the gathered Blocks and the checkpointed activations: within 3 % of the measured peak
    assert m.allocated_gib == pytest.approx(22.18e9 / GIB, rel=0.03)
    # one micro-batch per step (nothing to accumulate), or FSDP in torchtune (no no_sync), or DeepSpeed ZeRO-3 in
    # LLaMA-Factory (gradients of the adapters only, partitioned): only the adapters' gradients
    for other in (cfg._replace(grad_accum=1), cfg._replace(framework="torchtune"),
                  cfg._replace(framework="LLaMA-Factory", precision="bf16")):
        assert training_memory(s, other, a100).gradients.gib < 0.1
    # Llama-2-13B on 4 A100s (litgpt-10: 35.57 GB = 33.13 GiB): 40 Blocks of (13.016e9 - 2 x 32000 x 5120) / 40
    # = 317,208,000 + adapters 8 x 40 x (2 x (5120 + 5120)) = 6,553,600, x 2 B = 23.65 GiB; on 2 A100s (litgpt-11, out of
    # memory) the shard doubles and the pool passes the 39.6 GiB the card reports: not "fits"
    s13 = shapes["llama2-13b"]
    m13 = training_memory(s13, cfg._replace(devices=4), a100)
    assert m13.gradients.gib == approx((40 * 317_208_000 + 6_553_600) * 2 / GIB)
    assert m13.allocated_gib == pytest.approx(35.57e9 / GIB, rel=0.03)
    assert training_memory(s13, cfg, a100).verdict != "fits"


def test_fsdp_no_sync_full_fine_tuning_holds_every_gradient(shapes, devices):
    # LitGPT's finetune/full.py (FSDP1, Block units, fabric.no_backward_sync): with accumulation every rank holds the whole
    # model's gradient in the parameters' dtype: 6.738e9 x 2 B (bf16-true), 4 B with fp32 master parameters (bf16-mixed).
    s, a100 = shapes["llama2-7b"], devices["a100-80g"]
    cfg = TrainConfig(method="full", seq_len=2048, devices=8, framework="litgpt", zero_stage=3, precision="pure_bf16",
                      grad_accum=4)
    assert training_memory(s, cfg, a100).gradients.gib == approx(6.738e9 * 2 / GIB)
    assert training_memory(s, cfg._replace(precision="bf16"), a100).gradients.gib == approx(6.738e9 * 4 / GIB)
    # offloaded or on one device: no FSDP gradient accumulation on the device
    assert training_memory(s, cfg._replace(offload=True), a100).gradients.gib < 1.0


def test_the_optimizer_step_peaks_above_the_backward_with_foreach_adamw(shapes, devices):
    # ms-swift's benchmark (../shared/eval/measurements_dev2.csv d3-swift-14): Qwen-7B full fine-tuning on one A100 80 GB,
    # 2048 tokens, weights, gradients and the HF Trainer's torch AdamW states all bf16: 74.26 GiB max reserved. AdamW's
    # foreach step (torch/optim/adamw.py _multi_tensor_adamw) allocates sqrt(v), one moment's size, beside the weights,
    # the whole gradients and the states: 7.721e9 x (2 + 2 + 4 + 2) B = 71.91 GiB, with the CUDA context 0.5 GiB =
    # 72.41 GiB, above the backward's peak; the cached loss blocks are reused by the temporary (none left).
    s, a100 = shapes["qwen1.5-7b"], devices["a100-80g"]
    cfg = TrainConfig(method="full", seq_len=2048, framework="transformers", precision="pure_bf16")
    m = training_memory(s, cfg, a100)
    P = 7.721e9
    assert m.allocated_gib == approx(round(10 * P / GIB, 3))
    assert m.total_gib - m.cached_gib == pytest.approx(10 * P / GIB + 0.5, abs=2e-3)
    assert m.step.gib > 9 and m.cached_gib == 0 and "foreach" in m.step.how
    assert m.total_gib == pytest.approx(74.26, rel=0.03)
    # a fused step (torchtune's AdamW configs set fused: True) or 8-bit AdamW has no such temporary: the backward's peak
    for other in (cfg._replace(framework="torchtune"), cfg._replace(optimizer="adamw_8bit")):
        assert training_memory(s, other, a100).step.gib == 0
    # LoRA: sqrt(v) of the adapters only, far below the activations the backward frees
    assert training_memory(s, cfg._replace(method="lora"), a100).step.gib == 0
    # DeepSpeed ZeRO-3 steps its fp32 partition one sub-group (1e9 elements, 4 B) at a time
    from assistant.estimate.memory import foreach_step_temporary, split_params
    z3 = TrainConfig(method="full", seq_len=2048, devices=2, zero_stage=3)
    assert foreach_step_temporary(s, z3, split_params(s, z3)) == approx(4 * 1e9)
    z2 = z3._replace(zero_stage=2)
    assert foreach_step_temporary(s, z2, split_params(s, z2)) == approx(4 * P / 2)


def test_torchs_peak_reserved_holds_neither_the_runtime_context_nor_the_nccl_buffers(shapes, devices):
    # fsdp_qlora benchmarks_03_2024.md (measurement fq-03): Llama-2-7B LoRA r 64 on q,k,v,gate,up,down, 2048 tokens,
    # FSDP full shard on 2 x 24 GB GPUs, torch.cuda.max_memory_allocated 9.16 GiB and max_memory_reserved 10.22 GiB.
    # The CUDA context (0.5 GiB) and NCCL's own buffers (0.5 GiB, cudaMalloc'ed by NCCL) are in total_gib (what
    # nvidia-smi shows, what an OOM is judged on) but in neither torch statistic: reserved_gib = total_gib - 1.0.
    s, dev = shapes["llama2-7b"], devices["rtx3090-24g"]
    cfg = TrainConfig(method="lora", seq_len=2048, devices=2, zero_stage=3, lora_rank=64,
                      lora_targets="q_proj,k_proj,v_proj,gate_proj,up_proj,down_proj")
    b = training_memory(s, cfg, dev)
    assert b.reserved_gib == approx(round(b.total_gib - 0.5 - 0.5, 3))
    # The pool above the tensors: 25 % fragmentation of the activations and loss buffers beside the cached set of
    # loss buffers, 2048 x 32,000 x 12 B = 0.73 GiB; measured 10.22 - 9.16 = 1.06 GiB.
    frag = 0.25 * (b.activations.gib + b.logits.gib)
    assert b.cached_gib == approx(2048 * 32000 * 12 / GIB)
    assert b.reserved_gib - b.allocated_gib == pytest.approx(frag + b.cached_gib, abs=2e-3)
    assert b.reserved_gib - b.allocated_gib == pytest.approx(10.22 - 9.16, abs=0.05)
    assert b.reserved_gib == pytest.approx(10.22, rel=0.06) and b.total_gib / 10.22 > 1.15  # total_gib: 15 % over
    # one device: no communicator, only the context stays outside the allocator
    one = training_memory(s, cfg._replace(devices=1, zero_stage=0), dev)
    assert one.reserved_gib == approx(round(one.total_gib - 0.5, 3))
    # Ascend: the CANN context (1 GiB) and HCCL's buffers (0.75 GiB) likewise outside torch_npu's allocator
    npu = training_memory(s, cfg._replace(devices=8), devices["snt9b"])
    assert npu.reserved_gib == approx(round(npu.total_gib - 1.0 - 0.75, 3))


def test_a_row_is_compared_with_the_figure_its_source_reports():
    from assistant.estimate.measured import Measured, metric_of

    assert metric_of("torch.cuda peak reserved (GiB)") == metric_of("peak memory reserved (GB, 1e9)") == "reserved"
    assert metric_of("npu-smi HBM usage") == metric_of("nvidia-smi memory.used") == "device"
    assert metric_of("torch.cuda.max_memory_allocated()/1e9") == metric_of("peak active memory") == "allocated"
    assert metric_of("'G' per the table (tool not stated)") == "unstated"
    m = Measured("fq-03", "train_peak_gib", "", 10.22, predicted=11.777, allocated=9.736, reserved=10.777)
    assert m.like_for_like == 11.777  # metric not set: the device figure
    m.metric = "reserved"
    assert m.like_for_like == 10.777 and m.metric_ratio == pytest.approx(10.777 / 10.22)
    m.metric = "device"
    assert m.like_for_like == 11.777
    m.metric = "allocated"
    assert m.like_for_like == 9.736
