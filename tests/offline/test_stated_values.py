"""Every value a user states is used or said to be unused (issue 22), and the readings behind the misses of the
fresh-question round of 2026-12-04 (tests/eval/fresh/2026-12-04-round1*.{yaml,md}), each as its general class:
node counts checked like device counts, a catalog alias of a part ("A3"), QLoRA's bits, a LoRA rank and a learning
rate, a part's own facts, vLLM's utilisation bound, the KV cache's precision, a switch from training to serving, the
KV cache asked first, and a length beyond the model's own context.

Expected figures come from the hardware catalog (knowledge/catalog/hardware.csv: Snt9B23 = 16 DIE per node, 2 DIE per
card, 64 GB per DIE) and the model catalog (llama2-7b max_position_embeddings 4096), read in this file."""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.offline.dialog import last_answer as converse

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = max(10, int(os.environ.get("QUESTION_EXAMPLES", "400")) // 8)


def _catalog(name: str) -> dict[str, dict]:
    with open(ROOT / "knowledge/catalog" / name, encoding="utf-8", newline="") as f:
        return {r["id"]: r for r in csv.DictReader(f)}


HARDWARE, MODELS = _catalog("hardware.csv"), _catalog("models.csv")


def tool_numbers(value) -> set[float]:
    if isinstance(value, bool):
        return set()
    if isinstance(value, (int, float)):
        return {float(value)}
    if isinstance(value, dict):
        return {n for v in value.values() for n in tool_numbers(v)}
    if isinstance(value, list):
        return {n for v in value for n in tool_numbers(v)}
    return set()


def args_of(ans, tool):
    return [c.args for c in ans.tool_calls if c.name == tool]


# (phrase template, the value it states): what people add to a sizing question; some have a tool input, some not
PHRASES = [
    ("at {v} tokens", st.sampled_from([1024, 2048, 4096, 8192, 16384])),
    ("on {v} cards", st.integers(2, 64)),
    ("micro batch {v}", st.integers(2, 8)),
    ("lora rank {v}", st.sampled_from([4, 16, 32, 64, 128])),
    ("warmup {v} steps", st.integers(11, 999)),
    ("seed {v}", st.integers(1000, 99999)),
    ("save every {v} steps", st.integers(101, 5000)),
    ("max_grad_norm {v}", st.sampled_from([0.3, 0.5, 2.5])),  # a slot of the specification no tool takes
    ("{v} epochs", st.integers(2, 9)),
    ("within {v} hours", st.sampled_from([6, 12, 48])),  # a deadline (slots.toml deadline_hours): no count of cards
]


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(range(len(PHRASES))), min_size=1, max_size=4, unique=True), st.data())
def test_every_stated_number_is_used_or_named_as_unused(assistant, picks, data):
    stated = []
    for i in picks:
        template, values = PHRASES[i]
        v = data.draw(values)
        stated.append((template.format(v=v), v))
    question = "qwen2.5-7b lora " + ", ".join(p for p, _ in stated) + ", how many cards?"
    ans = assistant.ask(question)
    used = {n for c in ans.tool_calls for n in tool_numbers(c.args)}
    unused_line = next((line for line in ans.answer.splitlines() if line.startswith("Not used from your question")), "")
    for phrase, v in stated:
        assert float(v) in used or re.search(rf"(?<![0-9]){v}(?![0-9])", unused_line), (question, phrase, ans.answer)


def test_an_unread_value_is_named_in_both_languages(assistant):
    en = assistant.ask("qwen2.5-7b lora 4096 on 8 snt9b, warmup 300 steps, which zero?").answer
    assert "Not used from your question: “warmup 300”" in en
    zh = assistant.ask("qwen2.5-7b lora 4096，8张910B，学习率 2e-5，zero几").answer
    assert "问题中未使用的数值：“学习率 2e-5”" in zh


def test_node_counts_are_checked_like_device_counts(assistant):
    # a part of a node is said invalid with what is valid (hardware.csv: 8 cards per Snt9B node), and the job is still
    # sized without it (round 24 c8-06): qwen2.5-7b LoRA 4096 is 1 card on LLaMA-Factory (min-card table, seeds/004)
    half = assistant.ask("0.5 nodes for qwen2.5-7b lora?")
    assert half.answer.startswith("**“0.5” is not a valid node count: nodes come whole**, and a Snt9B node has 8 cards")
    assert "LLaMA-Factory: **1 card**" in half.answer and "Not used from your question" not in half.answer
    huge = assistant.ask("1e6 nodes of snt9b for llama3-8b full 4096, enough?")
    assert "“1e6” is too large a node count" in huge.answer and not huge.tool_calls
    assert "“0.5”不是有效的节点数：节点只能按整台算**，Snt9B 每个节点 8 张卡" in assistant.ask("用0.5台机器微调qwen2.5-7b").answer


def test_a_short_catalog_alias_names_the_part_when_placed_as_one(assistant):
    # hardware.csv: "a3" is an alias of snt9b23 (Atlas A3); "a2" of snt9b
    assert {a["hardware"] for a in args_of(assistant.ask("How many A3 cards to LoRA qwen2.5-72b at 8k?"), "min_cards")} == {"Snt9B23"}
    assert {a["hardware"] for a in args_of(assistant.ask("qwen3-32b lora on 2 A2 nodes?"), "plan_training")} == {"snt9b"}


def test_qlora_bits_rank_and_learning_rate_reach_the_config(assistant):
    ans = assistant.ask("give me the qlora yaml for qwen2.5-7b, 8bit quantization, lora rank 16, lr 2e-5, 3 epochs, on snt9b")
    (args,) = args_of(ans, "generate_config")
    assert (args["quantization_bit"], args["lora_rank"], args["learning_rate"], args["epochs"]) == (8, 16, 2e-5, 3.0)
    assert "quantization_bit: 8" in ans.answer and "lora_rank: 16" in ans.answer


def test_a_parts_own_facts_answer_a_question_about_the_part(assistant):
    a3 = HARDWARE["snt9b23"]
    per_node, dies = int(a3["devices_per_node"]), int(a3["dies_per_card"])
    en = assistant.ask("does a snt9b23 node have 16 cards?").answer
    assert en.splitlines()[0].startswith("**Answer:** **No**")
    assert f"node has {per_node // dies} cards, not 16" in en
    assert f"{per_node} DIE = {per_node // dies} cards per node" in en
    zh = assistant.ask("一台910C几张卡？").answer
    assert f"每节点 {per_node} 个 DIE（{per_node // dies} 张卡）" in zh and "Catalog" not in zh


def test_gpu_memory_utilization_above_one_is_refused(assistant):
    ans = assistant.ask("vllm qwen2.5-7b 4090 gpu-memory-utilization 1.5 可以吗")
    assert "“1.5”不是有效的 --gpu-memory-utilization" in ans.answer and not ans.tool_calls
    ok = assistant.ask("vllm qwen2.5-7b on a 4090, gpu-memory-utilization 95%")
    assert {a["gpu_memory_utilization"] for a in args_of(ok, "estimate_inference")} == {0.95}


def test_int8_kv_cache_is_the_kv_precision_not_the_weights(assistant):
    first = "vllm 部署 qwen2.5-32b 910B 64G 几张卡"
    history = [{"role": "user", "content": first}, {"role": "assistant", "content": assistant.ask(first).answer}]
    ans = assistant.ask("那用int8 kv cache呢", history)
    (args,) = args_of(ans, "estimate_inference")
    assert args.get("kv_cache_dtype") == "int8" and "weight_bits" not in args
    # qwen2.5-32b: 64 layers x 8 KV heads x 128 x 2 (K, V) x 1 B = 128 KiB per token in int8
    assert "每 token 128 KiB" in ans.answer and "KV cache 为 INT8" in ans.answer


def test_a_serving_follow_up_after_training_is_served(assistant):
    first = "I have 8x RTX 4090 24GB. LoRA on qwen2.5-7b, seq 2048, mbs 4"
    history = [{"role": "user", "content": first}, {"role": "assistant", "content": assistant.ask(first).answer}]
    ans = assistant.ask("what about serving it with vllm on those same cards, tp=2?", history)
    assert args_of(ans, "estimate_inference") and not args_of(ans, "plan_training")
    assert all(a.get("max_devices") == 2 for a in args_of(ans, "estimate_inference"))
    assert "LoRA" not in ans.answer.splitlines()[2]


def test_a_part_named_in_a_follow_up_replaces_the_earlier_one(assistant):
    first = "qwen3-30b-a3b 全参 4096 910B 要几卡"
    history = [{"role": "user", "content": first}, {"role": "assistant", "content": assistant.ask(first).answer}]
    ans = assistant.ask("A3上呢", history)
    assert {a["hardware"] for a in args_of(ans, "min_cards")} == {"Snt9B23"} and "DIE" in ans.answer


def test_the_kv_cache_asked_comes_first(assistant):
    ans = assistant.ask("KV cache for qwen3-8b at 32k, one sequence, how many GB?")
    lead = next(line for line in ans.answer.splitlines() if line.startswith("**Answer:**"))
    # qwen3-8b: 36 layers x 8 KV heads x 128 x 2 (K, V) x 2 B = 144 KiB per token; x 32768 = 4.5 GiB
    assert "144 KiB per token" in lead and "4.5 GiB" in lead
    bf16 = assistant.ask("KV cache size per token for llama3-8b in bf16?").answer
    assert next(line for line in bf16.splitlines() if line.startswith("**Answer:**")).startswith("**Answer:** KV cache **128 KiB")


def test_a_length_beyond_the_models_context_is_said(assistant):
    limit = int(MODELS["llama2-7b"]["max_context"])
    ans = assistant.ask("llama2-7b 推理 max-model-len 200k 要几张910B").answer
    assert f"超出 llama2-7b 自身的上下文 {limit:,}" in ans
    en = assistant.ask("qwen3-8b full fine-tuning at 320000 tokens on snt9b, how many cards?").answer
    assert f"beyond qwen3-8b's own context of {int(MODELS['qwen3-8b']['max_context']):,}" in en


def test_the_batch_identity_answers_with_the_users_own_figures(assistant):
    # GBS = MBS x DP x GA (MindSpeed-LLM's identity on the ModelArts pages): 256 / (2 x 16) = 8
    ga = assistant.ask("16卡 910B，micro batch 2，想要global batch 256，梯度累积设多少")
    assert ga.answer.startswith("**梯度累积设为 8**") and not ga.tool_calls
    gbs = assistant.ask("8 GPUs, micro batch 4, GA 8, what's my global batch?").answer
    assert gbs.startswith("**Global batch 256**")  # 4 x 8 x 8
    odd = assistant.ask("16 cards mbs 2 gbs 100 what GA").answer  # 100 is no multiple of 2 x 16 = 32
    assert odd.startswith("**No whole accumulation gives a global batch of 100**") and "96" in odd
    named = assistant.ask("glm4-9b 全量 8卡 batch 2 梯度累积 16，全局batch多少")
    # 2 x 8 x 16, before the sizing: the global batch asked is the answer's headline
    assert named.answer.split("\n\n")[1].startswith("**结论**：**全局 batch 为 256**") and "**所需**：**够**" not in named.answer
    assert all(a.get("global_batch") == 256 for a in args_of(named, "plan_training"))


def test_that_many_cards_is_the_count_the_last_answer_led_with(assistant):
    # recipe table: llama3.1-70b full 8192 = 4 nodes x 8 = 32 cards, ZeRO-3-Offload, GA 4
    ans = converse(assistant, "llama3.1-70b lora 4096 on snt9b, 几个节点?", "改成 full 和 8k 呢", "那么多卡 zero 用哪个，要不要 offload")
    assert all(a.get("max_devices") in (None, 32) for a in args_of(ans, "plan_training"))
    assert any(a.get("max_devices") == 32 for a in args_of(ans, "plan_training"))
    assert next(line for line in ans.answer.splitlines() if line.startswith("**结论**")).startswith("**结论**：**ZeRO-3 + offload**")


def test_will_it_oom_is_a_memory_question_not_a_problem_report(assistant):
    ans = converse(assistant, "GLM4-9B lora 在 910B 上训练 8192，推荐配置？", "batch size 改成 4 会OOM吗")
    assert all(a.get("micro_batch") == 4 for a in args_of(ans, "plan_training")) and args_of(ans, "plan_training")
    lead = next(line for line in ans.answer.splitlines() if line.startswith("**结论**"))
    assert "GiB" in lead and "npu-smi" not in lead
    reported = assistant.ask("glm4-9b lora 8192 910B 出现 NPU out of memory 了，怎么办").answer
    assert "npu-smi" in next(line for line in reported.splitlines() if line.startswith("**结论**"))


# One phrase per slot of the specification (slots.toml): each states the slot's value as people write it. A slot
# added to the specification without a phrase here fails test_every_slot_has_a_phrase.
SLOT_PHRASES = {
    "epochs": "epochs {v}", "global_batch": "GBS {v}", "grad_accum": "GA {v}", "micro_batch": "MBS {v}",
    "lora_rank": "lora rank {v}", "learning_rate": "lr {v}", "tp": "TP {v}", "pp": "PP {v}", "warmup_steps": "warmup {v}",
    "max_grad_norm": "max_grad_norm {v}", "zero_stage": "zero stage {v}", "nodes": "NNODES={v}", "per_node": "NPUS_PER_NODE={v}",
    "cp": "CP {v}", "lora_alpha": "lora alpha {v}", "ep": "EP {v}", "node_cards": "{v}-card nodes",
    "requested_devices": "the job requests {v} NPUs",
    "deadline_hours": "finish within {v} hours", "train_iters": "train_iters {v}", "iteration_now": "iteration {v}/ 1000 |",
    "iteration_ms": "elapsed time per iteration (ms): {v}", "iteration_s": "{v} s per iteration",
    "dp": "DP {v}", "bytes_per_param": "{v} bytes per parameter", "speedup": "scaling efficiency {v}%", "kv_budget_gb": "{v} GB of KV cache",
    "warmup_ratio": "warmup ratio {v}", "weight_decay": "weight decay {v}", "layers": "{v} layers",
    "save_interval": "SAVE_INTERVAL {v}", "checkpoints": "{v} checkpoints", "step_tokens": "{v} tokens per step",
    "hccl_exec_timeout": "HCCL_EXEC_TIMEOUT={v}", "hccl_connect_timeout": "HCCL_CONNECT_TIMEOUT={v}", "nvlink": "nvlink={v}",
    "sample_tokens": "averaging {v} tokens per sample", "packing": "packing={v}",
}
# Values valid together on 16 cards of a MoE model (qwen3-30b-a3b: 128 experts, 32 heads, 4 KV heads; models.csv):
# TP x PP = 4 leaves data parallel 4, which EP 2 or 4 divides.
SLOT_VALUES = {
    "epochs": st.sampled_from([2, 3]), "global_batch": st.sampled_from([64, 128]), "grad_accum": st.sampled_from([4, 16]),
    "micro_batch": st.sampled_from([1, 2]), "lora_rank": st.sampled_from([16, 64]), "learning_rate": st.sampled_from([2e-5, 1e-4]),
    "tp": st.just(2), "pp": st.just(2), "warmup_steps": st.sampled_from([100, 300]), "max_grad_norm": st.sampled_from([0.5, 2.5]),
    "lora_alpha": st.sampled_from([32, 128]), "ep": st.sampled_from([2, 4]), "node_cards": st.just(8),
    "zero_stage": st.sampled_from([1, 3]), "cp": st.just(2), "requested_devices": st.just(16),
    "deadline_hours": st.sampled_from([12, 24]), "warmup_ratio": st.sampled_from([0.03, 0.1]),
    "weight_decay": st.sampled_from([0.01, 0.1]),
    "hccl_exec_timeout": st.sampled_from([600, 3600]), "hccl_connect_timeout": st.sampled_from([60, 600]),
    "sample_tokens": st.sampled_from([600, 1200]), "packing": st.just(1),
}


def test_every_slot_has_a_phrase():
    from assistant.offline import spec

    assert {slot.name for slot in spec.SLOTS} <= set(SLOT_PHRASES)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(sorted(SLOT_VALUES)), min_size=1, max_size=4, unique=True), st.data())
def test_each_stated_setting_is_used_or_named_never_both(assistant, slots, data):
    """Issue 22: a generated question with N stated settings (slots.toml) yields an answer where each is used (a tool
    took it under the slot's name, or the answer states it) or named as not used, and none is both."""
    from assistant.offline import spec

    stated = {name: data.draw(SLOT_VALUES[name]) for name in slots}
    phrases = {name: SLOT_PHRASES[name].format(v=v) for name, v in stated.items()}
    question = "qwen3-30b-a3b lora 4096 mindspeed on 16 snt9b, " + ", ".join(phrases.values()) + ", is that enough?"
    ans = assistant.ask(question)
    if not ans.tool_calls:  # a layout that cannot be (EP 4 beside TP 2 x PP 2 x CP 2 on 16): said first, nothing planned
        assert any(f"“{phrase}”" in ans.answer.splitlines()[0] for phrase in phrases.values()), (question, ans.answer)
        return
    unused_line = next((line for line in ans.answer.splitlines() if line.startswith("Not used from your question")), "")
    for name, v in stated.items():
        slot = spec.BY_NAME[name]
        took = any(c.args.get(arg) == v for c in ans.tool_calls for arg in (name, *slot.args))
        used = took or slot.stated
        key = SLOT_PHRASES[name].split("{v}")[0].strip(" =").split(" ")[-1]  # “alpha 32”: the value with its key word
        named = bool(re.search(rf"“(?:[^”]*\s)?{re.escape(key)}\s*=?\s*{re.escape(str(v))}”", unused_line, re.I))
        assert used != named, (question, name, v, used, named, ans.answer)


# The same settings written as people also write them: a key misspelt by one slip ("per_devcie", "gradient_accumlation",
# "lerning rate") and a value said in words ("no ZeRO at all": stage 0). (form, the word a slip is made in, slot)
SLIPPED_FORMS = [("per_device {v}", "device", "micro_batch"), ("gradient_accumulation {v}", "accumulation", "grad_accum"),
                 ("micro_batch {v}", "batch", "micro_batch"), ("learning rate {v}", "learning", "learning_rate")]
WORDED_ZERO = ["no ZeRO at all", "plain DDP", "without deepspeed", "ZeRO disabled"]


@st.composite
def slip(draw, word: str) -> str:
    """``word`` with one slip: a letter left out, or two different neighbours swapped."""
    i = draw(st.integers(1, len(word) - 2))
    swapped = word[:i] + word[i + 1] + word[i] + word[i + 2:]
    return draw(st.sampled_from([word[:i] + word[i + 1:], *([swapped] if word[i] != word[i + 1] else [])]))


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(range(len(SLIPPED_FORMS))), min_size=1, max_size=3, unique_by=lambda i: SLIPPED_FORMS[i][2]),
       st.booleans(), st.data())
def test_a_setting_with_a_misspelt_key_or_said_in_words_is_used_or_named(assistant, picks, no_zero, data):
    """Issue 22, the forms of round 9 (c2-12, c2-14): each setting written with a slip in its key is read as the setting
    and said so in the header, then used or named as not used; ZeRO said off in words is planned as stage 0."""
    stated, phrases = {}, []
    for i in picks:
        form, word, name = SLIPPED_FORMS[i]
        v = data.draw(SLOT_VALUES[name])
        typed = data.draw(slip(word))
        stated[name] = (v, typed)
        phrases.append(form.replace(word, typed).format(v=v))
    if no_zero:
        phrases.append(data.draw(st.sampled_from(WORDED_ZERO)))
    question = "qwen2.5-7b full 4096 llamafactory on 8 snt9b, " + ", ".join(phrases) + ", does it fit?"
    ans = assistant.ask(question)
    head = ans.answer.splitlines()[0]
    unused_line = next((line for line in ans.answer.splitlines() if line.startswith("Not used from your question")), "")
    from assistant.offline import spec

    for name, (v, typed) in stated.items():
        assert f"read “{typed}” as {name.replace('_', ' ')}" in head, (question, ans.answer)
        took = any(c.args.get(name) == v for c in ans.tool_calls)
        named = bool(re.search(rf"“[^”]*(?<![0-9.]){re.escape(str(v))}(?![0-9.e])[^”]*”", unused_line))
        assert (took or spec.BY_NAME[name].stated) != named, (question, name, v, ans.answer)
    if no_zero:  # every memory estimate of the user's setting is at stage 0 (plain data parallel)
        assert {a.get("zero_stage") for a in args_of(ans, "estimate_training_memory")} == {0}, (question, ans.answer)


# ---------------------------------------------------------------- round 7 (2026-12-05-round7.yaml), as classes
def test_expert_parallel_is_used_on_a_moe_layout(assistant):
    # s34. qwen3-30b-a3b has 128 experts (models.csv); TP 4 x PP 2 on 32 DIE leaves data parallel 4, which EP 2 divides.
    ans = assistant.ask("32 DIE on Snt9B23, mindspeed qwen3-30b-a3b full 8192, TP 4 PP 2 EP 2 — is that enough DIE?")
    (layout,) = [a for a in args_of(ans, "estimate_training_memory") if a.get("tp") == 4]
    assert (layout["pp"], layout["ep"], layout["devices"]) == (2, 2, 32)
    assert "EP 2" in ans.answer.splitlines()[0] and "Not used from your question" not in ans.answer
    # 004: qwen3_moe-30B_A3B full 8192, MindSpeed-LLM 32 (Snt9B23: DIE)
    assert "Your 32 DIE cover the vendor minimum for MindSpeed-LLM (32 DIE)" in ans.answer


def test_expert_parallel_on_a_dense_model_or_llamafactory_is_named_with_why(assistant):
    dense = assistant.ask("llama3.1-8b lora 4096 on 8 snt9b with mindspeed, TP 2 EP 2 ok?")
    assert all("ep" not in a for a in args_of(dense, "estimate_training_memory"))
    assert "Not used from your question: “EP 2” (EP splits the routed experts of a MoE model" in dense.answer
    zh = assistant.ask("qwen2.5-7b lora 4096 llamafactory 8 张 snt9b，ep 4，每卡显存多少").answer
    assert "问题中未使用的数值：“ep 4”（EP 把 MoE 模型的路由专家切到" in zh


def test_a_value_inside_a_name_or_a_node_size_is_not_listed_as_unused(assistant):
    # s03: the 0.6b is qwen3-0.6b's own size; 004 qwen3-0.6b lora 4096: MindSpeed-LLM 8
    small = assistant.ask("min cards for qwen3-0.6b lora 4096 with MindSpeed-LLM on Snt9B? seems like a lot for a 0.6b model")
    assert "MindSpeed-LLM: **8 cards**" in small.answer and "Not used from your question" not in small.answer
    # s18: "8-card nodes" is the node's size (Snt9B: 8 per node, hardware.csv), not the user's device count;
    # 004 llama3.1-70b full 8192: LLaMA-Factory 64 = 8 nodes
    nodes = assistant.ask("llama3.1-70b full 8192 with llama-factory on Snt9B: how many 8-card nodes?")
    assert "LLaMA-Factory: **64 cards** (8 nodes)" in nodes.answer.splitlines()[2]
    assert "Not used from your question" not in nodes.answer and "Your 8" not in nodes.answer
    # 004 qwen2.5-72b lora 4096: MindSpeed-LLM 16 (2 nodes), LLaMA-Factory 32 (4 nodes); no "你只有 8 张卡"
    zh = assistant.ask("qwen2.5-72b lora 4096 在 Snt9B 上要几台 8 卡的机器").answer
    assert "MindSpeed-LLM：**16 张卡**（2 个节点）" in zh and "你只有" not in zh and "你的 8" not in zh


def test_a_lora_setting_beside_full_fine_tuning_is_named_not_read_as_the_method(assistant):
    ans = assistant.ask("qwen3-8b full 8192 on 2 nodes of 8 snt9b, micro batch 2, gbs 64, lora rank 16 - fits?")
    assert {a["method"] for a in args_of(ans, "plan_training")} == {"full"}
    assert "“lora rank 16” (the LoRA rank sizes a LoRA or QLoRA adapter; full fine-tuning" in ans.answer  # as typed
    # GBS = MBS x DP x GA: 64 = 2 x 16 x 2
    assert "micro batch 2, gradient accumulation 2" in ans.answer


def test_a_setting_glued_to_its_key_is_named_when_no_tool_takes_it(assistant):
    # "ds_z3" is no number standing alone; the reader's span is the mention. A count question keeps the plan to the
    # stage said (plan_training zero_stage), so it is used; a vLLM question takes no ZeRO stage, so there it is named.
    ans = assistant.ask("qwen2.5-7b lora ds_z3 on 8 910b how many cards")
    assert "Not used" not in ans.answer and "ZeRO-3" in ans.answer
    serving = assistant.ask("serve qwen2.5-7b with vllm on 2 910b, ds_z3, max-model-len?")
    assert "Not used from your question: “ds_z3”" in serving.answer
    used = assistant.ask("qwen3-30b-a3b lora 4096 mindspeed 16 snt9b TP4 PP2 EP2 够吗")
    assert "未使用" not in used.answer and "EP 2" in used.answer.splitlines()[0]


def test_an_expert_parallel_size_the_layout_cannot_take_is_said_first(assistant):
    # mixtral-8x7b: 8 experts (models.csv); TP 8 x PP 2 on 16 cards leaves data parallel 1, which EP 2 does not divide
    # (the vendor's mixtral script, research/modelarts.md: 16 cards, TP 8, PP 2, EP 1)
    ans = assistant.ask("mixtral-8x7b full 4096 mindspeed on 16 snt9b, tp 8 pp 2 ep 2 - memory per card?")
    assert ans.answer.startswith("“ep 2” is not a valid expert-parallel size here") and not ans.tool_calls
    zh = assistant.ask("qwen3-30b-a3b 全参 4096 在 Snt9B 上 16 卡，TP 4 PP 2 EP 8 能跑吗")
    assert zh.answer.startswith("“EP 8”在这里不是有效的专家并行大小") and not zh.tool_calls


# ---------------------------------------------------------------- round 9 (2026-12-05-round9.yaml), as classes
def test_a_node_asked_about_is_no_count_of_the_users(assistant):
    # c1-01's class. 004: qwen3-32b lora 4096 MindSpeed-LLM 8 DIE on Snt9B23 (16 DIE per node: hardware.csv)
    die = assistant.ask("qwen3-32b lora 4096 MindSpeed on an A3 (Snt9B23) pod — DIE count, and does it stay inside one node?")
    assert "MindSpeed-LLM: **8 DIE** (4 physical card(s), 1 node of 16 DIE)" in die.answer.splitlines()[2]
    assert "you have" not in die.answer and "Your " not in die.answer
    # 004: llama3.1-70b lora 4096 MindSpeed-LLM 16 cards = 2 Snt9B nodes: "or do I need two?" is answered by the table
    two = assistant.ask("llama3.1-70b lora 4096 w/ mindspeed on snt9b: does it fit within a single 8-card node or do I need two?")
    assert "MindSpeed-LLM: **16 cards** (2 nodes)" in two.answer.splitlines()[2] and "your 8" not in two.answer.lower()
    zh = assistant.ask("A3 上 qwen2.5-72b 全参 4096 要多少个 DIE？一个节点放得下吗？").answer
    assert "你只有" not in zh and "MindSpeed-LLM：**32 DIE**（16 张物理卡，2 个节点" in zh  # 004: 32 DIE = 2 nodes


def test_a_jobs_requested_count_is_no_count_of_the_users(assistant):
    # c4-05's class: pod_pending.md (dlug_installation_faq_025): a request above the cluster's total stays Pending forever
    en = assistant.ask("the training job requests 32 NPUs and the cluster has 16 in total, will it get scheduled eventually?").answer
    assert "stays Pending forever" in en.splitlines()[0] and "you have" not in en
    zh = assistant.ask("我们的训练作业申请了 32 张卡，可资源池总共才 16 张，等着会被调度上吗？").answer
    assert "一直处于 Pending" in zh and "你有" not in zh


def test_a_request_outside_the_assistants_scope_is_said_so(assistant):
    # c8-06's class, in both languages; a turn leaning on the conversation is never judged out of scope on its own words
    for question, said in (("Which laptop should I buy for college, a MacBook Air or a ThinkPad?", "That is outside what I do."),
                           ("给我推荐几部好看的科幻电影", "这不在我能回答的范围内。")):
        assert assistant.ask(question).answer.startswith(said)
    assert "outside what I do" not in assistant.ask("can you explain that again in more detail?").answer
    assert "outside what I do" not in assistant.ask("Which Docker image should I use on ModelArts?").answer  # the platform's ground


def test_a_length_counted_in_sequences_is_the_length(assistant):
    # c3-11's class: "16k sequences" is a length, not 16,000 training samples. qwen2.5-14b's KV cache is 192 KiB per token
    # (2 x 48 layers x 8 KV heads x 128 x 2 B; models.csv), 3.0 GiB for one 16,384-token sequence
    ans = assistant.ask("qwen2.5-14b on 4x 910B with TP 4 — how many simultaneous 16k sequences fit in the KV cache?")
    assert "sequences of 16384 tokens" in ans.answer.splitlines()[2] and "Not used from your question" not in ans.answer
    assert "**192 KiB per token**" in ans.answer and "**3.0 GiB** for one 16384-token sequence" in ans.answer


def test_a_time_after_a_sized_job_runs_on_the_count_the_answer_gave(assistant):
    # c7-04 t4's class. 004: qwen2.5-32b full 4096 MindSpeed-LLM 16 cards; 5e8 / (800 x 16 x 0.9) = 43,403 s
    ans = converse(assistant, "qwen2.5-32b full 4096 with MindSpeed-LLM on Snt9B, how many cards?",
                   "how long for 500M tokens at 800 tokens/s per card?")
    (time,) = args_of(ans, "estimate_training_time")
    assert time["devices"] == 16 and "43,403 s" in ans.answer.splitlines()[2]
    assert "16 cards (the count an earlier answer gave)" in ans.answer


def test_zero_said_off_in_words_is_stage_zero(assistant):
    # c2-12's class: plain data parallel keeps the whole model state on each device (16 B per parameter for mixed-precision
    # AdamW: 8B x 16 B = 128 GB before activations), far above an 80 GB A100
    en = assistant.ask("llama3.1-8b full 4096 on 8 A100 80GB, no deepspeed, just DDP — will it fit?")
    assert {a["zero_stage"] for a in args_of(en, "estimate_training_memory")} == {0}
    assert en.answer.splitlines()[2].startswith("**Answer:** **No** (estimate): ZeRO-0 without offload does not fit")
    zh = assistant.ask("qwen2.5-7b 全参 4096，8 张 910B，不用 ZeRO，纯数据并行能跑吗")
    assert {a["zero_stage"] for a in args_of(zh, "estimate_training_memory")} == {0}
    assert zh.answer.splitlines()[2].startswith("**结论**：**不行**（估算）：你的 8 张卡用 ZeRO-0")


@pytest.mark.parametrize("q,shown", [("llama3.1-8b full seq 10000000", "“10,000,000” tokens is too long a sequence"),
                                     ("qwen2.5-7b lora 序列 20000000 几张卡", "序列长度“20000000”过长")])
def test_a_length_above_the_tools_bound_is_refused_however_it_is_said(assistant, q, shown):
    # tools.common.MAX_SEQ_LEN = 1,048,576: no tool is called with a longer length
    ans = assistant.ask(q)
    assert ans.answer.startswith(shown) and not ans.tool_calls


# Two faults in one question are both said (fresh round 15 c8-03: "llama5-900b on 3.7 nodes" named only the node count):
# the bad value first, the model the catalog lacks next, the "ask again" line last.
@pytest.mark.parametrize("question,value,model", [
    ("llama5-900b lora on 3.7 nodes of snt9b, how many cards do I actually get?", "**“3.7”", "“llama5-900b” is not in the catalog"),
    ("qwen9-7b 在 -4 张卡上 lora 要多久", "“-4”", "未找到模型“qwen9-7b”"),
])
def test_a_bad_value_and_an_unknown_model_are_both_said(assistant, question, value, model):
    parts = assistant.ask(question).answer.split("\n\n")
    assert parts[0].startswith(value) and model in parts[1]
    if value.startswith("“"):  # a refused value; a part of a node is only set aside (what is valid said with it)
        assert parts[-1].startswith(("Ask again with valid values", "请用有效的数值重新提问"))
