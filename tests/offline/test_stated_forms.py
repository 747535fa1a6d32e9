"""A value stated in any form (prose, env var, YAML, JSON, CLI flag) reaches the same slot, and a value that cannot be
what it names is answered with why (fresh round 5, tests/eval/fresh/2026-12-04-round5-misses.md classes 2 and 4).

Hand computations: Megatron-style training runs data parallel over TP x PP x CP groups, so the device count must be a
multiple of their product (16 cards: TP 8 x PP 3 = 24 is not a divisor). Snt9B23 counts DIE, 2 DIE per card, and the
vendor's minimum-card table (seeds/004: "Snt9B23规格 … 2*DIE为最小单位") makes 2 DIE the smallest unit, so an odd
DIE count is no count. DeepSpeed ZeRO has stages 0-3."""

from __future__ import annotations

from assistant.offline import checks


def names(ans) -> list[str]:
    return [c.name for c in ans.tool_calls]


def refused(lang: str = "en", task: str = "training", **fields) -> str | None:
    """What the setup rules (setup_check/rules.py) refuse in values said in words, as the answer says it."""
    said = checks.stated(fields, task, lang)[0]
    return said[0] if said else None


def test_layout_must_divide_the_training_devices():
    said = refused(tp=8, pp=3, devices=16)
    assert said and said.startswith("No: TP 8 × PP 3 = 24 does not divide your 16 cards")
    assert "TP 8 × PP 2 (DP 1), TP 8 × PP 1 (DP 2)" in said  # 16 / (8 x 2) = 1, 16 / 8 = 2
    assert refused(tp=2, pp=2, devices=8) is None  # 8 / 4 = 2 data-parallel groups
    assert refused(tp=8, pp=2, cp=4, devices=64) is None  # 64 / 64 = 1
    assert refused(task="serving", tp=3, devices=8) is None  # vLLM only needs TP x PP <= devices
    assert "需要 16 个设备" in (refused("zh", "serving", tp=8, pp=2, devices=8) or "")


def test_an_odd_die_count_is_no_count_on_a_two_die_card():
    assert refused(die_count=4, dies_per_card=2, part_name="Snt9B23") is None
    said = refused("zh", die_count=3, dies_per_card=2, part_name="Snt9B23") or ""
    assert said.startswith("不能：Snt9B23 上不能用 3 个 DIE") and "2 或 4 个 DIE" in said
    assert refused(die_count=3, dies_per_card=1, part_name="Snt9B") is None  # one device per card: any count


def test_env_var_layout_is_checked_against_nodes_times_devices_per_node(assistant):
    ans = assistant.ask("MindSpeed 环境变量：MODEL_NAME=qwen2.5-72b FINETUNING_TYPE=lora TP=8 PP=3 MBS=1 GBS=128 SEQ_LEN=4096 "
                        "NNODES=2 NPUS_PER_NODE=8，这个TP/PP能整除吗").answer
    assert ans.startswith("不能：TP 8 × PP 3 = 24，不能整除你的 16 张卡")  # NNODES 2 x NPUS_PER_NODE 8 = 16, not 2 cards
    en = assistant.ask("torchrun --nnodes 1 --nproc_per_node 8 with TP=4 PP=4 for llama3.1-70b lora 8192: ok?").answer
    assert "TP 4 × PP 4 = 16 does not divide your 8 cards" in en


def test_an_odd_die_count_is_answered_not_doubled(assistant):
    ans = assistant.ask("qwen2.5-7b lora 4096 on 3 张 Snt9B23 DIE，奇数 DIE 可以吗").answer
    assert "3 个 DIE" in ans and "2 的倍数" in ans and "（6 DIE）" not in ans  # 3 DIE, not "3 张卡（6 DIE）"


def test_a_zero_stage_beyond_three_is_named_in_any_form(assistant):
    pasted = assistant.ask('ds config check pls: {"zero_optimization": {"stage": 4, "offload_optimizer": {"device": "cpu"}}, '
                           '"train_micro_batch_size_per_gpu": 2} — for llama3.1-8b full on 8 910B').answer
    # the JSON inside the sentence is read as a paste: the setup rule's sentence (DeepSpeed's stages 0-3) leads
    assert pasted.startswith("**ZeRO-4: no such ZeRO stage**: DeepSpeed's ZeRO stages are 0 | 1 | 2 | 3")
    prose = assistant.ask("deepspeed stage 7 for qwen2.5-7b 全参, 8 卡 910B 行吗").answer
    assert "“stage 7”不是有效的 ZeRO 阶段" in prose


def test_a_paste_the_setup_checker_cannot_read_is_read_by_the_slots(assistant):
    ans = assistant.ask("per_device_train_batch_size: 1 gradient_accumulation_steps: 8 cutoff_len 4096 finetuning_type: lora  "
                        "model qwen3-14b   cards?? zero??")
    assert "min_cards" in names(ans) and "no setup I can read" not in ans.answer
    assert "**8 cards**" in ans.answer  # seeds/004: qwen3-14b LoRA 4096 on Snt9B, 8 cards
    plan = next(c for c in ans.tool_calls if c.name == "plan_training")
    assert plan.args.get("global_batch") != 1  # "per_device_train_batch_size" is no global "train_batch_size"
    serve = assistant.ask("vllm serve line for llama3.1-70b-instruct on 4 x 910B, max len 32k").answer
    assert "'line'" not in serve and "llama3.1-70b" in serve


def test_a_parameter_count_in_trillions_is_a_size_to_estimate(assistant):
    ans = assistant.ask("I want to fine-tune a 1.5 trillion parameter model on 2 cards with seq len 1M, how many cards?")
    plans = [c.args for c in ans.tool_calls if c.name == "plan_training"]
    assert plans and {(a["params_b"], a["seq_len"]) for a in plans} == {(1500.0, 2**20)}  # 1.5e12 parameters, 1M = 2^20
    assert "Which model" not in ans.answer and "nothing fits your 2 cards" in ans.answer
    zh = assistant.ask("1万亿参数模型 lora 4096 要多少张 910B")
    assert {c.args.get("params_b") for c in zh.tool_calls if c.name == "plan_training"} == {1000.0}


def test_a_stated_utilisation_is_the_one_the_longest_context_uses(assistant):
    ans = assistant.ask("qwen3-8b 推理，单卡 4090，显存利用率 0.8，最大上下文多少")
    (fits,) = [c for c in ans.tool_calls if c.name == "what_fits"]
    assert fits.args["gpu_memory_utilization"] == 0.8 and "gpu-memory-utilization 0.8" in ans.answer
    assert "gpu-memory-utilization 0.9" not in ans.answer


def test_a_batch_in_a_serving_question_is_the_sequences_at_once(assistant):
    ans = assistant.ask("KV cache GB for llama3.1-70b at 32k context, batch 8, bf16?").answer
    # 2 (K, V) x 80 layers x 8 KV heads x 128 x 2 B = 320 KiB per token; x 32768 = 10 GiB per sequence; x 8 = 80 GiB
    assert "**10.0 GiB** for one 32768-token sequence, **80.0 GiB** for 8 at once" in ans


def test_a_setting_a_tool_took_is_said_and_one_none_takes_is_named_with_why(assistant):
    ans = assistant.ask("llama3.1-8b qlora rank 128 alpha 256 on a single 3090, seq 4096 — fits?")
    assert [c.args.get("lora_rank") for c in ans.tool_calls if c.name == "plan_training"] == [128]
    assert ans.answer.splitlines()[0].endswith("· LoRA rank 128")
    assert "Not used from your question: “alpha 256” (LoRA alpha only scales" in ans.answer
    zh = assistant.ask("我有 4 张 H100 80G，想 lora 微调 qwen2.5-72b，seq 4096，lora_rank 16，batch 1，zero3 够不够").answer
    assert zh.splitlines()[0].endswith("· LoRA 秩 16")


def test_a_tp_that_does_not_divide_the_heads_is_said(assistant):
    # models.csv: llama3.1-8b has 32 attention heads, qwen2.5-7b 28; 3 divides neither
    assert refused(task="serving", tp=4, heads=32, model_id="llama3.1-8b") is None
    ans = assistant.ask("--model llama3.1-8b --tensor-parallel-size 3 --max-model-len 16384 on 4090s, ok?").answer
    assert ans.startswith("No: TP 3 does not divide the 32 attention heads of llama3.1-8b") and "TP 1 / 2 / 4 / 8" in ans
    assert assistant.ask("qwen2.5-7b 推理 TP 3 行不行").answer.startswith("不能：TP 3 不能整除 qwen2.5-7b 的 28 个注意力头")


def test_a_stated_layout_that_divides_the_devices_is_estimated_as_given(assistant):
    ans = assistant.ask("qwen2.5-14b 全参 8192，TP 2 PP 2，一共 8 张卡，能整除吗")
    (mem,) = [c.args for c in ans.tool_calls if c.name == "estimate_training_memory"]
    assert (mem["tp"], mem["pp"], mem["devices"]) == (2, 2, 8)
    assert "TP 2 × PP 2，数据并行 2，共 8 张卡" in ans.answer  # 8 / (2 x 2) = 2
    assert "问题中未使用的数值" not in ans.answer


def test_a_part_written_inside_a_serve_line_reaches_the_check(assistant):
    ans = assistant.ask("vllm serve qwen2.5-32b on 2 x A100 80G with --gpu-memory-utilization 0.85, how long can it go?")
    (call,) = [c for c in ans.tool_calls if c.name == "check_setup"]
    assert (call.args.get("hardware"), call.args.get("devices")) == ("a100-80g", 2)
    assert "gpu_memory_utilization 0.9 (vLLM's default)" not in ans.answer  # 0.85 read, its comma no part of it


def test_a_global_batch_must_split_over_the_data_parallel_groups(assistant):
    # 24 cards / (TP 8 x PP 1) = DP 3; GBS 100 / (MBS 1 x 3) is not whole; 99 and 102 are the nearest that are
    ans = assistant.ask("24 cards (3 nodes), TP 8 PP 1, MBS 1, GBS 100 — mindspeed refuses to start. why?").answer
    assert ans.startswith("No: the global batch 100 is not a multiple of MBS 1 × DP 3 = 3") and "GBS 99 or 102" in ans
    assert refused(global_batch=128, micro_batch=1, tp=8, pp=1, devices=16) is None  # 128 / (1 x 2) = 64


def test_a_negative_or_zero_batch_setting_is_refused_in_any_form(assistant):
    ans = assistant.ask("llama3.1-8b lora 8 cards, per_device_train_batch_size -4, gradient_accumulation_steps 0, "
                        "what global batch do I get").answer
    assert "“gradient_accumulation_steps 0” is not a valid gradient accumulation" in ans
    assert "“per_device_train_batch_size -4” is not a valid micro batch" in ans and "Yes" not in ans


def test_offload_ruled_out_is_not_planned(assistant):
    ans = assistant.ask("H20 96GB x8, full finetune qwen2.5-72b at 4096, zero3 without offload — enough memory?")
    (mem,) = [c.args for c in ans.tool_calls if c.name == "estimate_training_memory"]
    assert (mem["zero_stage"], mem.get("offload")) == (3, False) and "does not fit" in ans.answer


def test_a_stated_serving_tp_is_the_layout_sized(assistant):
    ans = assistant.ask("8 张 910B tp=8 部署 llama3.1-70b，util 0.9，max-model-len 32k，能同时跑多少个满长请求")
    (est,) = [c.args for c in ans.tool_calls if c.name == "estimate_inference"]
    assert est["max_devices"] == 8 and est["largest_layout"] is True and est["gpu_memory_utilization"] == 0.9
    assert "（TP 8）" in ans.answer and "28 条 32768 token 的序列" in ans.answer


def test_full_length_sequences_are_no_full_fine_tuning(assistant):
    ans = assistant.ask("qwen3-30b-a3b on 2 910B, tp 2, util 0.95, 32k context - how many full length seqs can run at once?")
    (est,) = [c.args for c in ans.tool_calls if c.name == "estimate_inference"]
    assert est["gpu_memory_utilization"] == 0.95 and est["max_devices"] == 2
    assert "plan_training" not in names(ans) and "full fine-tuning" not in ans.answer


def test_an_invalid_variable_is_named_as_written_and_once(assistant):
    ans = assistant.ask("NNODES=0 NPUS_PER_NODE=8 qwen2.5-7b lora").answer
    assert ans == "“NNODES=0” is not a valid node count: a whole number of at least 1 (e.g. 2 nodes)."


def test_the_words_around_an_oom_paste_give_its_zero_stage_and_micro_batch(assistant):
    ans = assistant.ask("llamafactory 全参 qwen2.5-14b 8192，8 张 Snt9B，ds_z3，per_device 2，OOM 了：RuntimeError: NPU out of "
                        "memory. Tried to allocate 1.50 GiB (NPU 6; 60.97 GiB total capacity; 59.02 GiB already allocated)")
    (call,) = [c for c in ans.tool_calls if c.name == "check_setup"]
    read = {r["name"]: r["value"] for r in call.result.get("read", [])}
    assert (read.get("zero_stage"), read.get("micro_batch")) == (3, 2)  # "ds_z3", "per_device 2"


def test_a_follow_up_changes_one_stated_setting_and_keeps_the_layout(assistant):
    from .dialog import converse

    first, rank = converse(assistant, "qwen2.5-7b lora 4096 on 8 910B, lora rank 16", "what if lora rank goes to 128")
    assert [c.args.get("lora_rank") for c in rank.tool_calls if c.name == "plan_training"][:1] == [128]
    ok, bad = converse(assistant, "MindSpeed TP=8 PP=2 NNODES=2 NPUS_PER_NODE=8 qwen2.5-72b lora 4096, memory?", "and with PP=4?")
    assert "does not divide" not in ok.answer
    assert bad.answer.startswith("No: TP 8 × PP 4 = 32 does not divide your 16 cards")  # 2 nodes x 8, carried over


def test_a_lora_setting_carried_into_full_fine_tuning_is_not_said_as_its_setting(assistant):
    from .dialog import converse

    lora, full = converse(assistant, "8x A100 80GB, qwen2.5-14b lora 8192, lora rank 64, micro batch 2, zero2 - fits?",
                          "what if I switch to full finetune on the same cards?")
    assert lora.answer.splitlines()[0].endswith("· LoRA rank 64") and "LoRA rank" not in full.answer.splitlines()[0]


def test_a_tp_on_a_data_parallel_trainer_is_named_unused_with_why(assistant):
    ans = assistant.ask("qwen2.5-7b lora 4096 on 8 A100 80G with llama-factory, tp=2, which zero?")
    assert "estimate_training_memory" not in names(ans)
    assert "Not used from your question: “tp=2” (DeepSpeed ZeRO / FSDP trainers such as LLaMA-Factory are data parallel only" \
        in ans.answer
    mem = assistant.ask("llama3.1-70b full 8192 on 16 H100, TP 8 PP 2, memory per gpu?")
    (args,) = [c.args for c in mem.tool_calls if c.name == "estimate_training_memory"]
    assert (args["tp"], args["pp"], args["devices"]) == (8, 2, 16)  # 16 / (8 x 2) = DP 1


def test_util_alone_is_vllms_utilisation_only_as_a_share(assistant):
    ans = assistant.ask("my GPU util is 100 during training of qwen2.5-7b lora on 8 A100")
    assert "gpu-memory-utilization" not in ans.answer.split("\n", 1)[0]  # a compute load, no bad vLLM setting
    assert not any(c.args.get("gpu_memory_utilization") for c in ans.tool_calls)
