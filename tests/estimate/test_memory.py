"""Hand-computed memory terms. Every expected value is worked out here from the formula with literal
numbers (shapes from the model configs, byte counts from DeepSpeed/Megatron), not by calling the code."""

from __future__ import annotations

import pytest

from assistant.estimate.inference import kv_bytes_per_token
from assistant.estimate.memory import TrainConfig, loss_gib, training_memory

GIB = 2**30


def approx(x):
    return pytest.approx(x, rel=1e-6, abs=1e-6)


# ---------------------------------------------------------------- 7B dense (Llama-2-7B, MHA)
# 32 layers, hidden 4096, ffn 11008, 32 heads = 32 KV heads of 128, vocab 32000, 6.738B parameters.
def test_llama2_7b_full_zero2_on_8_cards(shapes, devices):
    P = 6.738e9
    m = training_memory(shapes["llama2-7b"], TrainConfig(method="full", seq_len=4096, devices=8, zero_stage=2),
                        devices["snt9b"])
    # weights: bf16 copy replicated under ZeRO-2
    assert m.weights.gib == approx(2 * P / GIB)
    # gradients: bf16 (2) + fp32 partition (4) split 8 ways + reduce and allgather buckets 2 x 2 B x 5e8
    assert m.gradients.gib == approx((6 * P / 8 + 2 * 2 * 5e8) / GIB)
    # optimizer: fp32 master 4 + Adam 8, split 8 ways
    assert m.optimizer.gib == approx(12 * P / 8 / GIB)
    # activations with full recompute: a 2-byte layer input per token per layer, plus two layers
    # recomputed at 18h + 4·kv_dim + 8·ffn bytes per token = 18·4096 + 4·4096 + 8·11008 = 178,176
    ckpt = 2 * 4096 * 4096 * 32
    layer = 178_176 * 4096
    assert m.activations.gib == approx((ckpt + 2 * layer) / GIB)
    # logits: 4096 x 32000 x 12 B = 1.465 GiB, above the recompute peak (2 layers = 1.359 GiB), which
    # comes after the loss is done: only the excess adds.
    loss = 4096 * 32000 * 12
    assert loss > 2 * layer
    assert m.logits.gib == approx((loss - 2 * layer) / GIB)
    sub = (2 * P + 6 * P / 8 + 2e9 + 12 * P / 8 + ckpt + loss) / GIB
    # overhead: NPU runtime context 1 GiB + HCCL buffers 0.75 GiB (8 devices) + 15 % fragmentation
    assert m.overhead.gib == approx(1.0 + 0.75 + 0.15 * sub)
    # + cached blocks: LLaMA-Factory pads each batch to its longest sample, so one set of the loss buffers from a step
    # at another length stays in the pool (memory.cached_blocks), 1.465 GiB, in total_gib but not in the verdict
    assert m.cached_gib == approx(loss / GIB)
    assert m.total_gib == pytest.approx(sub * 1.15 + 1.75 + loss / GIB, abs=1e-3)
    assert m.usable_gib == pytest.approx(60.97, abs=1e-3)  # the NPU's reported capacity
    assert m.fits and m.verdict == "fits"


def test_llama2_7b_zero_stages_follow_the_deepspeed_partitioning(shapes, devices):
    P, n = 6.738e9, 8
    per = {}
    for z in (0, 1, 2, 3):
        m = training_memory(shapes["llama2-7b"], TrainConfig(method="full", devices=n, zero_stage=z), devices["snt9b"])
        per[z] = m.weights.gib + m.gradients.gib + m.optimizer.gib
    bucket = 2 * 2 * 5e8
    assert per[0] == approx((20 * P + 2 * 5e8) / GIB)  # 2 + 2 + 4 + 4 + 8 bytes replicated + reduce bucket
    assert per[1] == approx((2 * P + 2 * P + 4 * P / n + bucket + 12 * P / n) / GIB)
    assert per[2] == approx((2 * P + 6 * P / n + bucket + 12 * P / n) / GIB)
    # ZeRO-3: everything split; gathered in bf16: the largest module plus 2 layers. A Llama-2-7B layer
    # ((6.738e9 - 2 x 32000 x 4096) / 32 = 202M) is larger than its embedding (131M).
    layer = (P - 2 * 32000 * 4096) / 32
    assert layer > 32000 * 4096
    # ZeRO-3 reduces through one bucket of hidden^2 bf16 elements (reduce_bucket_size "auto")
    assert per[3] == approx((20 * P / n + 2 * (layer + 2 * layer) + 2 * 4096**2) / GIB)


def test_offload_moves_states_to_host(shapes, devices):
    P, n = 6.738e9, 8
    on = training_memory(shapes["llama2-7b"], TrainConfig(method="full", devices=n, zero_stage=3, offload=True), devices["snt9b"])
    off = training_memory(shapes["llama2-7b"], TrainConfig(method="full", devices=n, zero_stage=3), devices["snt9b"])
    assert on.optimizer.gib == 0 and on.total_gib < off.total_gib
    # host per node: 8 ranks x (bf16 weights 2 + fp32 grads 4 + master/Adam 12) x P / 8 x 1.5 pinned
    assert on.host_ram_gib.gib == approx(8 * (2 + 4 + 12) * P / n * 1.5 / GIB)
    assert off.host_ram_gib.gib == 0


# ---------------------------------------------------------------- GQA (Llama-3.1-8B)
# 32 layers, hidden 4096, ffn 14336, 32 heads, 8 KV heads of 128, vocab 128256, 8.03B parameters.
def test_llama31_8b_lora_terms(shapes, devices):
    P = 8.03e9
    m = training_memory(shapes["llama3.1-8b"], TrainConfig(method="lora", seq_len=8192, devices=1, zero_stage=0),
                        devices["snt9b"])
    # LoRA rank 8 on q,k,v,o,gate,up,down: r x (d_in + d_out) per matrix, 32 layers
    per_layer = 8 * ((4096 + 4096) + (4096 + 1024) + (4096 + 1024) + (4096 + 4096) + 3 * (4096 + 14336))
    A = 32 * per_layer
    assert A == 20_971_520
    assert m.weights.gib == approx((2 * P + 4 * A) / GIB)  # frozen bf16 base + fp32 adapters
    # fp32 adapter grads; one device with ZeRO-0 reduces nothing, so no bucket (torchtune single-device
    # rows: measurements tt-08's states add up to its 24.9 GiB peak only without one)
    assert m.gradients.gib == approx(4 * A / GIB)
    assert m.optimizer.gib == approx(8 * A / GIB)
    # GQA: K and V are 8 x 128 = 1024 wide, not 4096: 18·4096 + 4·1024 + 8·14336 = 192,512 B/token/layer
    layer = 192_512 * 8192
    assert m.activations.gib == approx((2 * 4096 * 8192 * 32 + 2 * layer) / GIB)
    # logits 8192 x 128256 x 12 B, minus the recompute peak that follows it
    assert m.logits.gib == approx((8192 * 128256 * 12 - 2 * layer) / GIB)


def test_gqa_kv_cache_per_token(shapes):
    # 2 (K, V) x 32 layers x 8 KV heads x 128 x 2 B = 128 KiB (4x less than an MHA model of that width)
    assert kv_bytes_per_token(shapes["llama3.1-8b"])[0] == 2 * 32 * 8 * 128 * 2 == 131072
    assert kv_bytes_per_token(shapes["llama2-7b"])[0] == 2 * 32 * 32 * 128 * 2


def test_mla_kv_cache_per_token(shapes):
    # DeepSeek-V3: 61 layers x (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 B
    per, how = kv_bytes_per_token(shapes["deepseek-v3"])
    assert per == 61 * (512 + 64) * 2 == 70272 and "MLA" in how


# ---------------------------------------------------------------- MoE (Mixtral-8x7B)
# 32 layers, hidden 4096, 8 experts of ffn 14336, top-2, 32 heads, 8 KV heads, vocab 32000, 46.7B total.
def test_mixtral_stores_all_experts_but_activates_two(shapes, devices):
    P = 46.7e9
    s = shapes["mixtral-8x7b"]
    m = training_memory(s, TrainConfig(method="full", seq_len=4096, devices=16, zero_stage=3), devices["snt9b"])
    # states count every expert: 20 B x 46.7B / 16
    layer = (P - 2 * 32000 * 4096) / 32  # 1.45B: the largest module; gathered with 2 more layers
    assert m.weights.gib + m.gradients.gib + m.optimizer.gib == approx((20 * P / 16 + 2 * (layer + 2 * layer)
                                                                       + 2 * 4096**2) / GIB)  # + ZeRO-3 reduce bucket
    # activations count the 2 routed experts: ffn 2 x 14336, plus dispatch copies 4·h·k and fp32 router logits 4·E
    per_token = 18 * 4096 + 4 * 1024 + 8 * (2 * 14336) + (4 * 4096 * 2 + 4 * 8)
    assert per_token == 340_000
    assert m.activations.gib == approx((2 * 4096 * 4096 * 32 + 2 * per_token * 4096) / GIB)


def test_mixtral_expert_parallel_splits_only_the_experts(shapes, devices):
    P = 46.7e9
    experts = 32 * 8 * 3 * 4096 * 14336  # routed-expert weights
    cfg = TrainConfig(method="full", seq_len=4096, devices=16, framework="MindSpeed-LLM", tp=4, pp=1, ep=4, recompute=True)
    m = training_memory(shapes["mixtral-8x7b"], cfg, devices["snt9b"])
    per_dev = (P - experts) / 4 + experts / (4 * 4)  # dense part / TP, experts / (TP x EP)
    assert m.weights.gib == approx(2 * per_dev / GIB)
    assert m.gradients.gib == approx(4 * per_dev / GIB)  # fp32 main grads
    assert m.optimizer.gib == approx(12 * P / 16 / GIB)  # distributed optimizer over TP x DP = 16


# ---------------------------------------------------------------- Megatron activations
def test_megatron_no_recompute_holds_pp_microbatches_on_the_first_stage(shapes, devices):
    # Llama-3.1-70B: 80 layers, hidden 8192, ffn 28672, 8 KV heads; TP 8 (sequence parallel), PP 4.
    cfg = TrainConfig(method="full", seq_len=4096, devices=32, framework="MindSpeed-LLM", tp=8, pp=4, recompute=False)
    m = training_memory(shapes["llama3.1-70b"], cfg, devices["snt9b"])
    per_token = 12 * 8192 + 4 * 1024 + 6 * 28672  # fused norms and SwiGLU
    # first stage: 20 layers x 4 micro-batches in flight = all 80 layers' worth, split by TP
    assert m.activations.gib == approx(per_token * 4096 / 8 * 20 * 4 / GIB)
    assert m.logits.gib == 0  # the logits live on the last stage, which holds one micro-batch


def test_dpo_holds_two_sequences_and_a_reference_model(shapes, devices):
    s, dev = shapes["llama2-7b"], devices["snt9b"]
    sft = training_memory(s, TrainConfig(method="full", stage="sft", devices=8, zero_stage=3), dev)
    dpo = training_memory(s, TrainConfig(method="full", stage="dpo", devices=8, zero_stage=3), dev)
    # reference model: a bf16 copy split 8 ways under ZeRO-3
    assert dpo.weights.gib - sft.weights.gib == approx(2 * 6.738e9 / 8 / GIB)
    # chosen + rejected: twice the tokens in each micro-batch
    assert dpo.activations.gib == approx(2 * sft.activations.gib)
    lora_sft = training_memory(s, TrainConfig(method="lora", stage="sft"), dev)
    lora_dpo = training_memory(s, TrainConfig(method="lora", stage="dpo"), dev)
    assert lora_dpo.weights.gib == lora_sft.weights.gib  # reference = base with adapters disabled


def test_qlora_base_at_bits_plus_scales(shapes, devices):
    P, emb = 6.738e9, 32000 * 4096
    m = training_memory(shapes["llama2-7b"], TrainConfig(method="qlora", quant_bits=4), devices["snt9b"])
    A = 32 * 8 * (4 * (4096 + 4096) + 3 * (4096 + 11008))
    # linear layers at 4 bits + double-quantised scales (an 8-bit absmax per 64 weights, an fp32 constant per
    # 256 absmax values: 0.127 bit), embeddings and LM head in bf16, adapters fp32
    bits = 4 + 8 / 64 + 32 / (64 * 256)
    assert m.weights.gib == approx(((P - 2 * emb) * bits / 8 + 2 * 2 * emb + 4 * A) / GIB)


def test_lora_far_below_full_and_seq_len_scaling(shapes, devices):
    s, dev = shapes["qwen2.5-7b"], devices["snt9b"]
    full = training_memory(s, TrainConfig(method="full", devices=1), dev)
    lora = training_memory(s, TrainConfig(method="lora", devices=1), dev)
    assert lora.total_gib < full.total_gib / 3
    short = training_memory(s, TrainConfig(method="lora", seq_len=2048), dev)
    long = training_memory(s, TrainConfig(method="lora", seq_len=4096), dev)
    assert long.activations.gib == approx(2 * short.activations.gib)  # linear in tokens with FlashAttention


# ---------------------------------------------------------------- long context (LLaMA-Factory)
# Qwen2.5-7B: 28 layers, hidden 3584, ffn 18944, 28 heads, 4 KV heads of 128 (kv_dim 512), vocab 152064.
def test_qwen25_7b_lora_32k_counts_the_loss_once_and_the_recompute_apart(shapes, devices):
    s, dev = shapes["qwen2.5-7b"], devices["snt9b"]
    tokens = 32768
    ckpt = 2 * 3584 * tokens * 28  # each layer keeps its bf16 input: 6.125 GiB
    per_token = 18 * 3584 + 4 * 512 + 8 * 18944
    assert per_token == 218_112
    recompute = 2 * per_token * tokens  # two layers re-run in backward: 13.31 GiB
    # the loss over the full vocabulary in fp32: saved log-softmax 4 + its gradient 4 + the logits' gradient 4
    loss = tokens * 152064 * 12  # 55.69 GiB, once per micro-batch, not per layer
    assert loss / GIB == pytest.approx(55.69, abs=0.01)
    for z in (0, 1, 2, 3):  # ZeRO splits model states only: the per-sequence terms never change
        cfg = TrainConfig(method="lora", seq_len=tokens, devices=8, zero_stage=z)
        m = training_memory(s, cfg, dev)
        assert m.activations.gib == approx((ckpt + recompute) / GIB)
        # the recompute peak comes after the loss buffers are freed: only the loss's excess over it adds
        assert m.logits.gib == approx((loss - recompute) / GIB)
        assert loss_gib(s, cfg) == approx(loss / GIB)
    # so the sequence costs checkpoints + loss = 61.8 GiB, above the 60.97 GiB a 64 GB device reports,
    # whatever ZeRO stage or offload the model states get
    assert (ckpt + loss) / GIB == pytest.approx(61.82, abs=0.01) and (ckpt + loss) / GIB > 60.97
    off = training_memory(s, TrainConfig(method="lora", seq_len=tokens, devices=4096, zero_stage=3, offload=True), dev)
    assert not off.fits and off.activations.gib + off.logits.gib == approx((ckpt + loss) / GIB)


def test_megatron_cp_splits_tokens_and_the_optimizer_shard(shapes, devices):
    # Llama-3.1-8B full, TP 4 x CP 2 on 8 devices (DP 1): CP ranks hold the same weights, so weights and
    # main grads split by TP only; the distributed optimizer shards over DP x CP = 2 (Megatron's
    # data-parallel group with context parallel); activations and logits see 65536 / 2 tokens each.
    P = 8.03e9
    cfg = TrainConfig(method="full", seq_len=65536, devices=8, framework="MindSpeed-LLM", tp=4, pp=1, cp=2,
                      recompute=False)
    m = training_memory(shapes["llama3.1-8b"], cfg, devices["snt9b"])
    assert m.weights.gib == approx(2 * P / 4 / GIB)
    assert m.gradients.gib == approx(4 * P / 4 / GIB)
    assert m.optimizer.gib == approx(12 * P / (4 * 2) / GIB)
    per_token = 12 * 4096 + 4 * 1024 + 6 * 14336  # fused norms and SwiGLU
    assert m.activations.gib == approx(per_token * 32768 / 4 * 32 / GIB)
    assert m.logits.gib == approx(32768 * 128256 * 12 / 4 / GIB)  # vocab-parallel over TP, tokens over CP
