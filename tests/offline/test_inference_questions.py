"""Serving questions: the precision, concurrency, context and utilisation the user states become
estimate_inference arguments; a device count gets a yes or no first (the vLLM table's minimum, or the
estimate within the user's devices, and how many are needed when the answer is no); "how many users",
"how much KV cache" and "how fast" are answered as asked. Card counts are the vLLM table rows
(knowledge/tables/vllm_min_cards.csv, hand-checked against the vendor pages); KV sizes are computed by
hand; estimator figures are read from the tool results the planner received."""

from __future__ import annotations

import re

import pytest

from assistant.offline import serving_words
from assistant.offline.spans import Reading
from tests.offline.dialog import converse

CJK = re.compile(r"[\u4e00-\u9fff]")


def calls(ans, tool):
    return [c for c in ans.tool_calls if c.name == tool]


def answer_line(ans) -> str:
    return next(line for line in ans.answer.splitlines() if line.startswith(("**Answer:**", "**结论**")))


# ---------------------------------------------------------------- what the question says -> tool arguments
@pytest.mark.parametrize("q,bits", [
    ("deploy qwen2.5-72b-instruct AWQ int4 on 2 L40S, 32k context", 4),
    ("qwen2.5-72b-instruct gptq-int4 on 4090, how many?", 4),
    ("serve Qwen2.5-72B-Instruct-AWQ on H100", 4),
    ("llama3-70b w4a16 inference on A100 80G", 4),
    ("deepseek-r1-distill-llama-70b 4bit inference on one H100?", 4),
    ("llama3-70b 4-bit serving on 2 L40S", 4),
    ("Qwen2.5-72B 量化 int4 推理需要几张4090", 4),
    ("qwen2.5-72b 4比特量化部署，单机8卡910B能跑吗", 4),
    ("qwen3-32b w8a8 部署 910B 几张卡", 8),
    ("llama3.1-8b fp8 serve on L40S 64k context", 8),
    ("qwen2.5-72b int8 inference on H100", 8),
    ("serve llama3-70b with smoothquant on H100", 8),
    ("GPTQ int8 qwen2.5-72b serving on A100 80G", 8),  # a stated bit width wins over the method's usual 4
    ("mixtral-8x7b fp16 serving on 2 A100 80G, 32k", 16),
    ("qwen2.5-7b bf16 推理 H100", 16),
])
def test_stated_precision_is_the_weight_bits_sent_and_said(assistant, q, bits):
    ans = assistant.ask(q)
    est = calls(ans, "estimate_inference")
    assert est and all(c.args.get("weight_bits") == bits for c in est), [c.args for c in est]
    assert not calls(ans, "plan_training")  # a quantised checkpoint is served, not trained
    said = f"{bits} 比特" if CJK.search(answer_line(ans)) else f"{bits}-bit"
    assert said in answer_line(ans) or said in ans.answer.split("\n- ")[1], ans.answer[:600]


@pytest.mark.parametrize("q", ["deploy qwen2.5-72b on H100", "一张H100能跑qwen2.5-7b推理吗", "serve llama3-70b to 32 concurrent users at 8k on H100"])
def test_no_precision_stated_sends_none_and_says_the_checkpoints_own(assistant, q):
    ans = assistant.ask(q)
    est = calls(ans, "estimate_inference")
    assert est and all("weight_bits" not in c.args for c in est)
    assert re.search(r"checkpoint's own precision \(BF16\)|模型原始精度（BF16）", ans.answer)


def test_quantised_without_a_bit_width_is_not_guessed(assistant):
    ans = assistant.ask("qwen2.5-72b 量化部署需要几张卡")
    assert all("weight_bits" not in c.args for c in calls(ans, "estimate_inference"))
    assert "没有给出位宽" in ans.answer and "int4/AWQ" in ans.answer


@pytest.mark.parametrize("q,args", [
    ("serve llama3-70b to 32 concurrent users at 8k on H100", {"concurrency": 32, "max_model_len": 8192}),
    ("qwen2.5-32b 推理，并发 64，上下文 16k，需要几张卡", {"concurrency": 64, "max_model_len": 16384}),
    ("serve qwen2.5-14b with 128 concurrent requests at 4k on 910B", {"concurrency": 128, "max_model_len": 4096}),
    ("How many 910B to serve 100 users of qwen2.5-32b at 8k?", {"concurrency": 100, "max_model_len": 8192}),
    ("qwen3-8b 部署，16 路并发，32k，一张卡够吗", {"concurrency": 16, "max_model_len": 32768, "max_devices": 1}),
    ("qwen2.5-7b vllm max-model-len 128k on H100, gpu-memory-utilization 0.95",
     {"max_model_len": 131072, "gpu_memory_utilization": 0.95}),
    ("deploy llama3-70b with gpu-memory-utilization 95% on 2 H100", {"gpu_memory_utilization": 0.95, "max_devices": 2}),
    ("serve mixtral-8x7b with gpu_memory_utilization=0.85 on 4 L40S", {"gpu_memory_utilization": 0.85, "max_devices": 4}),
    ("qwen2.5-72b 推理，显存利用率 90%，128K 上下文，需要几张 H100", {"gpu_memory_utilization": 0.9, "max_model_len": 131072}),
    ("llama3.1-8b 128K context serving on A100 80G", {"max_model_len": 131072}),
    # a count's magnitude is a thousand ("10k users"), not a length's 1024; "1万" is ten thousand
    ("qwen2.5-7b serving 10k concurrent users 8k context on 910B how many cards", {"concurrency": 10000, "max_model_len": 8192}),
    ("qwen2.5-7b 推理 1万并发 8k上下文 需要几张910B", {"concurrency": 10000, "max_model_len": 8192}),
    ("serve llama3-8b for 2.5k concurrent requests at 4096 tokens on H100", {"concurrency": 2500, "max_model_len": 4096}),
    ("qwen3-8b 部署，支持 2千 个用户，上下文 4k", {"concurrency": 2000, "max_model_len": 4096}),
])
def test_concurrency_context_and_utilisation_are_sent(assistant, q, args):
    ans = assistant.ask(q)
    first = calls(ans, "estimate_inference")[0].args
    assert {k: first.get(k) for k in args} == args, first
    head = ans.answer.splitlines()[0]
    assert "LoRA" not in head  # "gpu-memory-utilization" is no training-memory question


# ---------------------------------------------------------------- yes or no for the user's devices
def test_table_yes_for_a_single_ascend_node(assistant):
    ans = assistant.ask("单机8卡910B能部署qwen2.5-72b吗")
    line = answer_line(ans)
    # vllm_min_cards.csv, vllm-newest: Qwen2.5-72B 4 cards, 32K, 64 GB, gpu-memory-utilization 0.95
    assert line.startswith("**结论**：**可以**") and "4 张卡" in line and "32768" in line
    assert calls(ans, "estimate_inference")[0].args["max_devices"] == 8


def test_table_no_says_what_the_table_needs_and_the_estimate_agrees(assistant):
    ans = assistant.ask("Can I serve qwen3-235b-a22b on 8 910B?")
    line = answer_line(ans)
    # vllm_min_cards.csv, vllm-newest: Qwen3-235B-A22B 16 cards at 64K
    assert line.startswith("**Answer:** **No, not by the ModelArts vLLM inference table**") and "16 cards" in line
    capped, free = calls(ans, "estimate_inference")
    assert capped.args["max_devices"] == 8 and not capped.result["fits"]
    assert "max_devices" not in free.args and free.result["fits"]
    assert f"it needs **{free.result['devices']} cards**" in line


def test_estimate_yes_for_gpus_with_the_stated_precision(assistant):
    ans = assistant.ask("deploy qwen2.5-72b-instruct AWQ int4 on 2 L40S, 32k context")
    (est,) = calls(ans, "estimate_inference")
    assert est.args == {"model": "qwen2.5-72b", "max_model_len": 32768, "hardware": "l40s-48g", "gpu_memory_utilization": 0.9,
                        "weight_bits": 4, "max_devices": 2}
    # by hand: 72.7B x 0.5 B = 36 GB of weights, 2 x 48 GB x 0.9 = 86 GB, one 32K sequence of KV = 10 GiB
    line = answer_line(ans)
    assert line.startswith("**Answer:** **Yes** (estimate): it fits your 2 GPUs") and "4-bit (awq int4, as you said)" in line


def test_estimate_no_says_how_many_are_needed(assistant):
    ans = assistant.ask("一张4090能部署qwen2.5-72b吗")  # bf16 weights alone are 145 GB against 24 GB
    line = answer_line(ans)
    capped, free = calls(ans, "estimate_inference")
    assert capped.args["max_devices"] == 1 and not capped.result["fits"] and "max_devices" not in free.args
    assert line.startswith("**结论**：**不够**（估算）") and f"需要 **{free.result['devices']} 张 GPU**" in line
    assert CJK.search(line)


def test_snt9b23_counts_die_and_the_910b_table_does_not_decide(assistant):
    ans = assistant.ask("qwen2.5-72b 在 8 个 DIE 的 Snt9B23 上部署够吗")
    (est,) = calls(ans, "estimate_inference")
    assert est.args["hardware"] == "snt9b23" and est.args["max_devices"] == 8  # 8 DIE, as said
    assert answer_line(ans).startswith("**结论**：**可以**（估算）：你的 8 DIE 放得下")


def test_a_stated_count_that_is_enough_by_memory_alone(assistant):
    ans = assistant.ask("一张H100能跑qwen2.5-7b推理吗")  # 15 GB of bf16 weights on an 80 GB GPU
    assert answer_line(ans).startswith("**结论**：**可以**（估算）：你的 1 张 GPU 放得下")


# ---------------------------------------------------------------- users, KV cache, speed
def test_how_many_users_reads_the_room_on_the_users_devices(assistant):
    ans = assistant.ask("how many users can 8 910B serve with qwen2.5-72b at 32k")
    (est,) = calls(ans, "estimate_inference")
    assert est.args["max_devices"] == 8 and est.args["max_model_len"] == 32768
    r = est.result
    assert r["devices"] == 8 and r["tp"] == 8  # the largest layout within 8 cards (64 heads: TP 8)
    line = answer_line(ans)
    assert f"**{r['max_sequences_at_len']} concurrent sequences of 32768 tokens** on **8 cards** (TP 8)" in line
    assert f"{r['kv_tokens_fit']:,} tokens" in line and "needs 8 for" not in ans.answer


def test_how_many_concurrent_in_chinese(assistant):
    ans = assistant.ask("8张910B跑qwen2.5-72b，32k上下文，最多支持多少并发")
    r = calls(ans, "estimate_inference")[0].result
    assert f"约 **{r['max_sequences_at_len']} 条 32768 token 的并发序列**" in answer_line(ans)


def test_kv_cache_question_leads_with_the_kv_size(assistant):
    ans = assistant.ask("how much KV cache does llama3-70b need at 128K context")
    line = answer_line(ans)
    # by hand: 2 (K,V) x 80 layers x 8 KV heads x 128 x 2 B = 327,680 B = 320 KiB; x 131072 tokens = 40 GiB
    assert "KV cache **320 KiB per token**" in line and "**40.0 GiB** for one 131072-token sequence" in line


def test_kv_cache_in_chinese_with_concurrency(assistant):
    ans = assistant.ask("qwen2.5-7b KV cache 多大，32k 上下文，并发 4")
    line = answer_line(ans)
    # by hand: 2 x 28 layers x 4 KV heads x 128 x 2 B = 56 KiB; x 32768 = 1.75 GiB; x 4 = 7.0 GiB
    assert "每 token 56 KiB" in line and "约 **1.8 GiB**" in line and "4 条并发约 **7.0 GiB**" in line
    assert "LoRA" not in ans.answer.splitlines()[0]


def test_serving_memory_question_leads_with_the_weights(assistant):
    ans = assistant.ask("how much memory does qwen2.5-72b need for inference")
    # by hand: 72.7B parameters x 2 B (bf16) = 135 GiB; 320 KiB of KV cache per token (see above)
    line = answer_line(ans)
    assert line.startswith("**Answer:** about **135 GiB of weights** in all") and "320 KiB per token" in line
    assert calls(ans, "inference_min_cards") and calls(ans, "estimate_inference")


def test_a_layout_across_nodes_names_the_nodes(assistant):
    ans = assistant.ask("deploy deepseek-r1 on 910B how many nodes")
    r = calls(ans, "estimate_inference")[0].result
    assert r["devices"] > 8 and f"**{r['devices']} cards** (TP {r['tp']}, PP {r['pp']}; {r['devices'] // 8} nodes)" in answer_line(ans)


@pytest.mark.parametrize("q,zh", [("qwen2.5-7b tokens per second on H100", False), ("qwen2.5-7b 推理 吞吐多少 tokens/s", True),
                                  ("what is the throughput of qwen2.5-72b on 4 910B", False)])
def test_serving_speed_is_no_number_but_the_benchmark_tools(assistant, q, zh):
    ans = assistant.ask(q)
    line = answer_line(ans)
    assert ("没有 " in line and "推理吞吐" in line) if zh else "no serving throughput figure" in line
    assert "benchmark_parallel.py" in ans.answer  # the vendor's static benchmark, quoted from the vLLM note
    assert not calls(ans, "estimate_training_time") and "Time = tokens" not in ans.answer
    assert "vllm_faq.md" in {r["file"] for c in calls(ans, "search_notes") for r in c.result["results"]}


def test_training_throughput_stays_a_training_time_question(assistant):
    ans = assistant.ask("llama3-8b at 1500 tokens/s per card, 2B tokens on 16 cards, training time?")
    assert calls(ans, "estimate_training_time") and not calls(ans, "estimate_inference")


# ---------------------------------------------------------------- embeddings, rerankers, unknown names
@pytest.mark.parametrize("q,model,cards,length", [
    # vllm_min_cards.csv: vllm-newest-6.5.908 Qwen3-Embedding-8B / Qwen3-Reranker-8B 1/40K; vllm-newest bge rows
    ("Qwen3-Embedding-8B 需要几张卡", "qwen3-embedding-8b", 1, 40960),
    ("deploy Qwen3-Reranker-8B on 910B", "qwen3-reranker-8b", 1, 40960),
    ("bge-reranker-v2-m3 推理要几张卡", "bge-reranker-v2-m3", 1, 8192),
    ("bge-large-en-v1.5 how many cards", "bge-large-en-v1.5", 1, 512),
])
def test_embedding_and_reranker_models_are_served(assistant, q, model, cards, length):
    ans = assistant.ask(q)
    assert [c.args["model"] for c in calls(ans, "inference_min_cards")] == [model]
    assert not calls(ans, "plan_training")  # vLLM-only models: no training plan even without a serving word
    line = answer_line(ans)
    assert (f"**{cards} 张卡**" if CJK.search(q) else f"**{cards} card**") in line and str(length) in line


def test_bge_m3_is_not_in_the_catalog_and_says_so(assistant):
    ans = assistant.ask("bge-m3 部署需要几张卡")
    assert "未找到模型“bge-m3”" in ans.answer and "bge-reranker-v2-m3" in ans.answer


def test_training_words_keep_a_quantised_question_a_training_one(assistant):
    ans = assistant.ask("llama3-8b QLoRA 4-bit how many cards")
    assert calls(ans, "plan_training") and not calls(ans, "estimate_inference")


# ---------------------------------------------------------------- follow-ups carry the serving setup
def test_follow_ups_carry_precision_and_concurrency(assistant):
    first, second, third = converse(assistant, "deploy qwen2.5-72b on 910B", "and with int4?", "并发 32 呢")
    assert calls(first, "inference_min_cards") and not calls(first, "estimate_inference")
    assert calls(second, "estimate_inference")[0].args["weight_bits"] == 4
    args = calls(third, "estimate_inference")[0].args
    assert args["weight_bits"] == 4 and args["concurrency"] == 32 and args["model"] == "qwen2.5-72b"
    assert CJK.search(answer_line(third))


# ---------------------------------------------------------------- training plans that fit nowhere
def test_ppo_that_fits_nowhere_says_why_and_points_to_lora(assistant):
    ans = assistant.ask("qwen2.5-14b PPO full 2048 snt9b how many cards")
    line = answer_line(ans)
    assert "does not fit at any device count" in line and "PPO cannot use ZeRO-3 on ModelArts" in line
    assert "policy, reference and reward models are replicated on every device" in line
    lora = [c for c in calls(ans, "plan_training") if c.args["method"] == "lora"]
    assert lora and lora[0].result["fits"] and f"LoRA PPO fits on {lora[0].result['devices']} card" in line
    assert "4096 cards" not in ans.answer
    # the ModelArts MindSpeed-LLM scripts take pt/sft only: no MindSpeed-LLM plan for PPO
    assert all(c.args.get("framework") != "MindSpeed-LLM" for c in calls(ans, "plan_training"))


def test_ppo_in_chinese(assistant):
    ans = assistant.ask("qwen2.5-72b 全参 PPO 需要多少卡")
    line = answer_line(ans)
    assert "在任何卡数下都放不下" in line and "不能使用 ZeRO-3" in line and "4096 张卡" not in ans.answer


def test_sequence_bound_plan_points_to_mindspeed_and_a_shorter_length(assistant):
    ans = assistant.ask("llama3-70b full fine-tuning 128k how many cards")
    lf = next(c for c in calls(ans, "plan_training") if not c.args.get("framework"))
    ms = next(c for c in calls(ans, "plan_training") if c.args.get("framework") == "MindSpeed-LLM")
    longest = re.search(r"at most (\d+) tokens per sequence fit", lf.result["note"]).group(1)
    line = next(x for x in ans.answer.splitlines() if x.startswith("- **Estimate, full fine-tuning, LLaMA-Factory**"))
    assert "does not fit at any device count — at 131072 tokens the activations and loss alone take" in line
    from assistant.offline.asked import implausible
    from assistant.tools.estimates import PlanResult

    # the MindSpeed-LLM plan named is the one the plausibility check passes: its slower setting when the fastest fails
    named = ms.result["fewer_devices"]["devices"] if implausible(PlanResult(**ms.result)) else ms.result["devices"]
    assert f"MindSpeed-LLM fits it on {named} cards" in line and f"at most {longest} tokens" in line
    assert "4096 cards" not in ans.answer


# ---------------------------------------------------------------- the readers themselves
@pytest.mark.parametrize("text,want", [
    ("awq int4", (4, None, None)), ("w8a16 2 cards", (8, None, None)), ("gpu-memory-utilization=0.92", (None, None, 0.92)),
    ("显存利用率95%", (None, None, 0.95)), ("64 并发", (None, 64, None)), ("并发数 128", (None, 128, None)),
    ("max-num-seqs 256", (None, 256, None)), ("20 users at once", (None, 20, None)), ("tensor parallel 8", (None, None, None)),
])
def test_serving_word_readers(text, want):
    r = Reading(text)
    words = serving_words.read(r)
    assert (words.weight_bits, words.concurrency, words.gpu_util) == want
    if any(want):
        assert not re.search(r"\d", r.unread()) or text == "w8a16 2 cards"  # what was read is claimed


def test_chinese_header_names_the_precision_in_chinese(assistant):
    head = assistant.ask("qwen2.5-72b 用 W8A8 量化部署，单机8卡910B 能支持多少并发（32k）").answer.splitlines()[0]
    assert "8 比特（w8a8 量化）" in head and "-bit" not in head
    head = assistant.ask("deploy qwen2.5-72b AWQ int4 on 2 L40S").answer.splitlines()[0]
    assert "4-bit (awq int4)" in head


@pytest.mark.parametrize("q", [
    "qwen2.5-14b vllm on 2x 910B, tp 2, max-model-len 32768: how many full-length sequences fit at once?",
    "vllm 部署 qwen2.5-14b，2 张 910B，tp 2，max-model-len 32768，能同时跑几条满长请求？",
    "how many 32k requests can qwen2.5-14b take at the same time on 2 910B cards, tp 2",
])
def test_a_count_asked_between_describing_words_leads_with_the_count(assistant, q):
    # "how many full-length sequences", "几条满长请求": the count asked leads, not a yes for the devices.
    # qwen2.5-14b: 48 layers x 8 KV heads x 128 dims x 2 (K and V) x 2 B = 196,608 B = 192 KiB per token
    ans = assistant.ask(q)
    line = answer_line(ans)
    assert "192 KiB" in line and ("32768 tokens**" in line or "32768 token 的并发序列**" in line)
    assert "**Yes.**" not in line and "可以" not in line


@pytest.mark.parametrize("q,model,tested", [
    ("yi-9b vllm max len on a 64G 910b?", "yi-9b", "65,536"),
    ("baichuan2-7b 用 vllm 部署，64G 的 910B 一张卡最大长度多少", "baichuan2-7b", "32,768"),
])
def test_the_tables_tested_length_leads_on_the_users_one_card(assistant, q, model, tested):
    # vllm_min_cards.csv, older fragment (research/modelarts.md §1), 64 GB column: yi-9b 1/64, baichuan2-7b 1/32. Both
    # models' configs say 4,096 (max_position_embeddings): the vendor's run goes past it, and the answer says so.
    ans = assistant.ask(q).answer
    lead = next(line for line in ans.splitlines() if line.startswith(("**Answer:**", "**结论**")))
    assert f"**{tested} token" in lead and "4,096" not in lead
    assert "4,096" in ans and ("goes past it" in ans or "超过了它" in ans)


@pytest.mark.parametrize("q", ["vllm serve command for qwen2.5-32b on 2 910B with 32k context",
                               "qwen2.5-32b 在 2 张 910B 上 vllm 的启动参数帮我写一下，32k"])
def test_a_command_asked_in_other_words_gets_the_serve_line(assistant, q):
    # vllm_min_cards.csv, newest table: qwen2.5-32b 2/32 on 64 GB cards: the layout is TP 2 at 32768
    ans = assistant.ask(q).answer
    assert "vllm serve /path/to/qwen2.5-32b" in ans and "--tensor-parallel-size 2" in ans and "--max-model-len 32768" in ans


def test_many_sequences_at_once_are_served_by_copies_of_one_instance(assistant):
    """10,000 sequences of 8K on 64 GB cards: no single instance within a node holds them, so the plan is copies
    of one instance, said as such; the devices are the copies times the instance's layout."""
    ans = assistant.ask("qwen2.5-7b 推理 1万并发 8k上下文 需要几张910B")
    (est,) = [c.result for c in calls(ans, "estimate_inference")]
    assert est["replicas"] > 1 and est["devices"] == est["replicas"] * est["tp"] * est["pp"]
    assert est["kv_tokens_low"] >= 8192 * 10000 and est["verdict"] == "fits"
    assert f"{est['replicas']} 个 vLLM 实例 × TP {est['tp']}" in answer_line(ans)


@pytest.mark.parametrize("q", ["qwen2.5-7b serve 10000 concurrent users at 8k context on snt9b, how many cards?",
                               "qwen2.5-7b 1000并发 4k 在 A100 80G 上要几张卡"])
def test_many_sequences_per_instance_name_the_max_num_seqs_to_start_with(assistant, q):
    """More sequences per instance than vLLM's default --max-num-seqs (256) are queued, not served at once: the answer
    gives the value each instance needs, ceil(concurrency / instances) from the estimate the planner received."""
    ans = assistant.ask(q)
    (est,) = [c.result for c in calls(ans, "estimate_inference")]
    share = -(-est["concurrency"] // est["replicas"])
    assert share > 256 and f"--max-num-seqs {share}" in ans.answer


def test_memory_asked_for_serving_is_the_jobs_need_summed(assistant):
    # llama3.1-8b: KV per token = 32 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes = 128 KiB; 8192 tokens -> 1.0 GiB
    ans = assistant.ask("how much gpu memory does llama3.1-8b need for inference in fp16 with 8k context, batch 1")
    first = ans.answer.split("**Answer:** ", 1)[1].split("\n", 1)[0]
    assert first.startswith("about **") and "GiB per device**" in first
    assert "1.0 GiB KV cache for 1 sequence of 8192 (128 KiB per token)" in first
    est = next(c.result for c in ans.tool_calls if c.name == "estimate_inference")
    need = est["weights_gib_per_device"] + 1.0 + est["activation_gib"] + est["overhead_gib"]
    assert f"**{need:.1f} GiB per device**" in first


@pytest.mark.parametrize("q,want", [
    # newest vLLM table: Qwen3-235B-A22B 16 cards, Qwen2.5-72B 4 cards (64 GB); Snt9B23: 64 GB and 2 DIE per card, 16 DIE a node
    ("qwen3-235b-a22b 用 vllm 推理，A3 上要几个节点", "在 Snt9B23 上即 **16 DIE**（8 张物理卡，1 个节点）"),
    ("serve qwen2.5-72b on snt9b23, how many DIE?", "On Snt9B23 that is **4 DIE** (2 physical card(s), 1 node)"),
])
def test_vllm_table_cards_on_a_die_part_are_said_as_die(assistant, q, want):
    ans = assistant.ask(q)
    assert want in ans.answer.split("\n- ", 1)[0]
