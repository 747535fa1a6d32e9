"""Each part of a question is answered, the part asked first leading with its own figure (fresh round 11, class 1):
the KV bytes per token (and why, when asked), the tensor-parallel-size, the longest context, the checkpoint count
through TRAIN_ITERS' default, the total model states, whether offload is needed, "TP 3 行不行" on Snt9B23.
Figures are pinned to hand computations from the models' config.json values and the vendor pages."""

from __future__ import annotations

import pytest

from assistant.notes import worked_formulas
from assistant.offline.asked import serving_parts_asked
from tests.offline.dialog import lead_line as lead


# ---------------------------------------------------------------- which serving part is asked first
@pytest.mark.parametrize("q,parts", [
    ("qwen3-8b 的 KV cache 每个 token 占多少？bf16", ["kv"]),
    ("deepseek-r1-distill-qwen-32b on vllm: kv per token in bf16? and how many cards", ["kv", "verdict"]),
    ("qwen2.5-7b vllm 一张 910B 能不能跑，kv cache 每 token 多大", ["verdict", "kv"]),
    ("which --tensor-parallel-size should i pass for qwen2.5-72b on 8 910b cards in vllm", ["tp"]),
    ("llama2-70b vllm 4卡，tp 要设成几，能开多长", ["tp"]),
    ("how many bytes of KV cache per token does qwen2.5-72b use", ["kv"]),
])
def test_serving_parts_in_order(q, parts):
    assert serving_parts_asked(q.lower())[:len(parts)] == parts


# ---------------------------------------------------------------- KV bytes per token lead
# 2 (K, V) x layers x kv_heads x head_dim x 2 bytes (bf16); config.json values of each model
@pytest.mark.parametrize("q,kib", [
    ("qwen3-8b 的 KV cache 每个 token 占多少？bf16", 2 * 36 * 8 * 128 * 2 // 1024),  # 144
    ("how many bytes of KV cache per token does qwen2.5-72b use in bf16?", 2 * 80 * 8 * 128 * 2 // 1024),  # 320
    ("glm4-9b 的 kv cache per token 是多少 KiB 呀", 2 * 40 * 2 * 128 * 2 // 1024),  # 40
    ("deepseek-r1-distill-qwen-32b on vllm: kv per token in bf16? and how many cards", 2 * 64 * 8 * 128 * 2 // 1024),  # 256
])
def test_kv_per_token_leads(assistant, q, kib):
    head = lead(assistant.ask(q))
    assert f"{kib} KiB" in head, head
    assert "KV cache" in head and "张卡**（64 GB" not in head.split("KV cache")[0]


def test_kv_why_names_the_kv_heads(assistant):
    ans = assistant.ask("how many bytes of KV cache per token does qwen2.5-72b use in bf16, and why is it so much smaller than the attention heads suggest?")
    head = lead(ans)
    assert "320 KiB" in head and "KV heads" in head and "GQA" in head and "(8 here)" in head


def test_kv_compared_between_models(assistant):
    # qwen3-32b: 64 layers x 8 KV heads (GQA) = 256 KiB; llama2-13b: 40 layers x 40 KV heads (MHA) = 800 KiB
    head = lead(assistant.ask("qwen3-32b 的kv cahce 每token多少 字节？为啥比 llama2-13b 小"))
    assert "256 KiB" in head and "800 KiB" in head, head


# ---------------------------------------------------------------- the tensor-parallel-size asked
@pytest.mark.parametrize("q,tp", [
    # newest vLLM table (modelarts_llm_infer_5910003, 2025-11-19): Llama3.1-70B 4 cards, Qwen2.5-32B 2, Qwen2.5-72B 4
    ("what tensor-parallel-size do I set to serve llama3.1-70b on 4 910B cards with vllm?", 4),
    ("qwen2.5-32b vllm 部署在 2 张 snt9b 上，tensor-parallel-size 设多少", 2),
    ("which --tensor-parallel-size should i pass for qwen2.5-72b on 8 910b cards in vllm", 4),
])
def test_tensor_parallel_size_leads(assistant, q, tp):
    head = lead(assistant.ask(q))
    assert f"--tensor-parallel-size {tp}**" in head or f"--tensor-parallel-size 设为 {tp}**" in head, head
    assert "**Yes.**" not in head and "**可以**" not in head


# ---------------------------------------------------------------- the length asked ("能开多长")
def test_how_long_leads_with_the_length(assistant):
    # newest vLLM table: Qwen2.5-3B 1 card, 32K tested; the model's own limit is 32,768 as well
    head = lead(assistant.ask("qwen2.5-3b 一张 910B vllm 能开多长"))
    assert "32,768" in head and "可以" not in head.split("32,768")[0]


# ---------------------------------------------------------------- Snt9B23: TP in steps of 2 DIE (seeds/004)
@pytest.mark.parametrize("q,word", [("Snt9B23 上 tp-size 设成 3 行不行？", "不可以"), ("Snt9B23 上 TP 设 5 可以吗", "不可以"),
                                    ("on snt9b23 can I set tp-size to 4?", "Yes")])
def test_tp_on_die_steps_gets_a_verdict(assistant, q, word):
    assert f"**{word}**" in lead(assistant.ask(q))


# ---------------------------------------------------------------- a formula reached through a default
def test_checkpoint_count_through_train_iters_default():
    text = ("`TRAIN_ITERS` is optional: left unset it defaults to `SN / GBS * EPOCH`. "
            "The number of checkpoints saved is `TRAIN_ITERS//SAVE_INTERVAL + 1`.")
    worked = worked_formulas("SN 12800，GBS 128，EPOCH 5，TRAIN_ITERS 没设，SAVE_INTERVAL 50，一共存几个 ckpt", text)
    # 12800 / 128 * 5 = 500 iterations; 500 // 50 + 1 = 11 checkpoints, the one asked, first
    assert worked[0][0] == "TRAIN_ITERS//SAVE_INTERVAL + 1" and worked[0][2] == 11
    assert ("SN / GBS * EPOCH", "12800 / 128 * 5", 500) in worked


def test_checkpoint_count_stated_iters_wins():
    text = "`TRAIN_ITERS` defaults to `SN / GBS * EPOCH`. Checkpoints: `TRAIN_ITERS//SAVE_INTERVAL + 1`."
    worked = worked_formulas("SN 12800 GBS 128 EPOCH 5 TRAIN_ITERS 200 SAVE_INTERVAL 50", text)
    assert ("TRAIN_ITERS//SAVE_INTERVAL + 1", "200//50 + 1", 5) in worked


@pytest.mark.parametrize("q,n", [
    ("SN 6400, GBS 64, EPOCH 3, SAVE_INTERVAL 100, how many checkpoints will be saved?", 6400 // 64 * 3 // 100 + 1),
    ("SN 12800，GBS 128，EPOCH 5，TRAIN_ITERS 没设，SAVE_INTERVAL 50，一共存几个 ckpt", 12800 // 128 * 5 // 50 + 1),
])
def test_checkpoint_count_leads(assistant, q, n):
    head = lead(assistant.ask(q))
    assert "SAVE_INTERVAL + 1 = " in head and head.split("SAVE_INTERVAL + 1 = ")[1].split(" = ")[1].startswith(str(n)), head


# ---------------------------------------------------------------- total model states
def test_total_model_states_lead(assistant):
    # glm4-9b 9.4B params x 20 B (bf16 2 + grad 2 + fp32 grad 4 + master 4 + Adam 8) = 188 GB; x 16 B = 150 GB
    head = lead(assistant.ask("model states only (weights+grads+adam) for full ft of glm4-9b — total, and per card with zero3 on 8 cards?"))
    assert "**188 GB**" in head and "150 GB" in head and "per card" in head


# ---------------------------------------------------------------- is the offload needed
def test_offload_needed_is_answered(assistant):
    ans = assistant.ask("llama3-8b lora 4096 on 4 910B with zero3 offload — does it fit, and is the offload even needed?")
    calls = [c for c in ans.tool_calls if c.name == "estimate_training_memory" and c.args.get("offload") is False]
    assert calls and calls[0].args["devices"] == 4 and calls[0].args["zero_stage"] == 3
    assert "**Offload needed? " in ans.answer


def test_kv_why_between_models_compares_the_kv(assistant):
    # llama2-7b: 32 layers x 32 KV heads (MHA) = 512 KiB; llama3-8b: 32 layers x 8 KV heads (GQA) = 128 KiB (round 11 c3-08)
    head = lead(assistant.ask("llama2-7b 的 kv cache 为什么比 llama3-8b 大那么多？每 token 各多少"))
    assert "512 KiB" in head and "128 KiB" in head and "最少卡数" not in head, head
