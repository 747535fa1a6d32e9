"""The training stack a question names is read and used (FSDP, pure bf16, eager attention), or named as not used and why;
every line speaks that stack's keys and the part's unit. Figures are the tools' own, checked against hand computations."""

from __future__ import annotations

GIB = 2**30


def calls(ans, name):
    return [c.args for c in ans.tool_calls if c.name == name]


def test_fsdp_is_sized_as_full_shard_and_said_in_its_words(assistant, call):
    ans = assistant.ask("用 FSDP 在 8 张 A100 上全参微调 llama3-8b，序列 8k，每卡显存多少？")
    (mem,) = calls(ans, "estimate_training_memory")
    assert mem["zero_stage"] == 3 and mem["framework"] == "transformers"  # FSDP full shard = ZeRO-3, no DeepSpeed refusals
    assert "FSDP 全分片（ZeRO-3）" in ans.answer and "FSDP" in ans.answer.splitlines()[0]
    assert f"**{call('estimate_training_memory', **mem)['total_gib']:.1f} GiB**" in ans.answer



def test_fsdp_named_with_llama_factory_keeps_fsdp_words_in_every_line(assistant):
    # the tools size FSDP full shard as ZeRO-3 and say "DeepSpeed ZeRO-3"; with FSDP named, no line says DeepSpeed,
    # the slower setting on fewer devices included; without FSDP named, the DeepSpeed words stay
    fsdp = assistant.ask("LLaMA-Factory with FSDP, qwen2.5-32b lora 4k on 8 A100 80G, does it fit?").answer
    assert "DeepSpeed" not in fsdp and "Fewer devices, slower: 1 GPU with FSDP full shard (ZeRO-3) + CPU offload" in fsdp
    zero = assistant.ask("qwen2.5-32b lora 4k on 8 A100 80G with zero3, fits?").answer
    assert "FSDP" not in zero and "DeepSpeed ZeRO-3 over data parallel" in zero

def test_fsdp_with_pure_bf16_uses_both(assistant, call):
    ans = assistant.ask("qwen2.5-7b full ft on 4 x h100 with fsdp + pure bf16, cutoff 4096 - per-gpu memory?")
    (mem,) = calls(ans, "estimate_training_memory")
    assert (mem["zero_stage"], mem["precision"], mem["devices"]) == (3, "pure_bf16", 4)
    r = call("estimate_training_memory", **mem)
    # bf16 gradients sharded over 4: 2 B x 7.62B / 4 = 3.5 GiB (no fp32 gradient copy, no master weights)
    assert abs(r["gradients_gib"] - 2 * 7.62e9 / 4 / GIB) < 0.2
    assert f"**{r['total_gib']:.1f} GiB per GPU**" in ans.answer and "not used" not in ans.answer


def test_a_precision_the_framework_refuses_is_said_and_the_default_estimated(assistant):
    ans = assistant.ask("qwen2.5-32b full sft on 8 H100, pure_bf16, zero3 on llama-factory — memory per GPU?")
    first, second = calls(ans, "estimate_training_memory")
    assert first["precision"] == "pure_bf16" and "precision" not in second  # LLaMA-Factory: pure_bf16 not with ZeRO-3
    assert "**pure_bf16 not used:** LLaMA-Factory rejects pure_bf16 with ZeRO-3." in ans.answer
    assert "GiB per GPU**" in ans.answer


def test_eager_attention_is_passed_and_said(assistant):
    ans = assistant.ask("Qwen3-8B lora with attn_implementation=eager on 1 A100 40GB at 8k tokens, will it OOM?")
    assert all(a.get("attention") == "eager" for a in calls(ans, "plan_training"))
    assert "eager attention" in ans.answer.splitlines()[0]


def test_torchtune_shards_with_fsdp_under_its_pure_bf16(call):
    # torchtune trains pure bf16: 2 + 2 + 4 (bf16 Adam moments) = 8 B per parameter; qwen2.5-3b (3.09B) on one 24 GB card
    # needs 24.7 GB of model states alone, over 2 with FSDP full shard 11.5 GiB: the plan finds ZeRO-3 on 2 GPUs
    r = call("plan_training", model="qwen2.5-3b", method="full", seq_len=2048, hardware="4090", framework="torchtune")
    assert (r["fits"], r["devices"], r["zero_stage"], r["offload"]) == (True, 2, 3, False)
    m = r["memory"]
    assert abs(m["gradients_gib"] + m["optimizer_gib"] - 6 * 3.09e9 / 2 / GIB) < 0.5


def test_torchtune_stages_are_named_in_fsdp_words(assistant):
    ans = assistant.ask("llama3.1-8b lora with torchtune on 2x 4090, 2k context, how much memory per card?")
    assert "no sharding (DDP, ZeRO-0)" in ans.answer and "torchtune ZeRO-0" not in ans.answer


def test_mindspeed_accumulation_is_set_by_its_script_variables(assistant):
    ans = assistant.ask("MindSpeed-LLM, qwen2.5-32b full sft on 32 snt9b cards, TP 8 PP 2, micro batch 1: "
                        "what GA gives a global batch of 128?")
    # DP = 32 / (8 x 2) = 2; GA = 128 / (1 x 2) = 64; MindSpeed-LLM's scripts take MBS and GBS (ModelArts pages)
    assert "**Gradient accumulation 64**" in ans.answer
    assert "set MBS=1 and GBS=128" in ans.answer and "gradient_accumulation_steps" not in ans.answer


def test_torchtune_accumulation_uses_its_config_keys(assistant):
    ans = assistant.ask("训练 qwen2.5-7b 用 torchtune，4 张 A100，batch_size 2，想要全局 batch 64，梯度累积设多少")
    # 64 / (2 x 4) = 8
    assert "**梯度累积设为 8**" in ans.answer and "torchtune 配置中设 batch_size: 2、gradient_accumulation_steps: 8" in ans.answer


def test_a_die_layout_is_said_per_die(assistant):
    ans = assistant.ask("mindspeed 跑 llama3-70b 全参 snt9b23 32 DIE，TP8 PP4，MBS 1，GBS 256，梯度累积是多少？")
    # DP = 32 / (8 x 4) = 1, GA = 256 / (1 x 1) = 256
    line = next(x for x in ans.answer.splitlines() if x.startswith("TP 8 × PP 4，数据并行 1"))
    assert "共 32 DIE：每 DIE 约" in line and "每卡" not in line
    assert "MindSpeed-LLM 脚本中设 MBS=1、GBS=256" in ans.answer
