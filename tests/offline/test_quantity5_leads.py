"""Derived quantities of the quantity5 class lead the answer, worked on the frame's own figures: Adam's moments alone,
the model states at the bytes per parameter said against the devices' memory, the weights against a node, tokens per
step from MBS x DP x GA, a window said as two clock times, a stated scaling efficiency and a throughput of all the
devices together. Expected values are hand computations from the models' HF config.json parameter counts (the
catalog) and the vendor's formula Time = tokens / (TPS x N x eta) (ModelArts 590604), written out here."""

from __future__ import annotations

import pytest

from assistant.offline import clock
from assistant.offline.spans import Reading
from tests.offline.dialog import lead_line as lead


def called(ans, quantity: str) -> bool:
    return any(c.name == "derive_quantity" and c.args.get("quantity") == quantity for c in ans.tool_calls)


@pytest.mark.parametrize("q,quantity,text", [
    # Adam m + v alone, fp32: 8 B x 14.7e9 = 117.6 GB
    ("For full fine-tuning of qwen2.5-14b, how many GB do just the Adam first and second moments take (fp32)?", "adam_moments", "117.6 GB"),
    # 8 B x 8.03e9 = 64.24 GB = 59.8 GiB
    ("llama3.1-8b 全参，不算主权重，只算 Adam 的两个动量，占多少 GiB", "adam_moments", "59.8 GiB"),
    # 8 B x 9.4e9 = 75.2 GB (round 13 c3-03)
    ("glm4-9b full finetune, Adam 的 m 和 v（fp32）一共占多少 GB？不算 master weights", "adam_moments", "75.2 GB"),
    # bf16 gradients 2 B x 70.554e9 = 141.1 GB ("in GB" in the next clause asks the amount)
    ("gradients alone for llama3.1-70b full ft in bf16, in GB?", "gradients_total", "141.1 GB"),
    # 16 B x 72e9 = 1,152 GB > 8 x 64 GB = 512 GB
    ("16 字节每参数乘 72B，对比 8 张 910B 一共 512 GB，全参训练够不够", "states_at_bytes", "1,152.0 GB > 512 GB"),
    # MBS 1 x DP 4 x GA 32 = 128 sequences x 8192 = 1,048,576 (a key=value paste with no setup in it)
    ("MBS=1, GA=32, DP=4, seq_len 8192, 一个 step 吃多少 token", "tokens_per_iteration", "1,048,576"),
    # 2 x 8 x 16 x 4096 = 1,048,576 (round 13 c3-07)
    ("MBS 2, grad accum 16, 8-way data parallel, seq 4096 packed — how many tokens per optimizer step?", "tokens_per_iteration", "1,048,576"),
    # a typo in "tokens": 256 x 8192 = 2,097,152
    ("how many tokns per step: gbs 256, seqlen 8k", "tokens_per_iteration", "2,097,152"),
    # Fri 18:00 -> Mon 06:00 = 60 h: 1500 x 24 x 216,000 s x 0.9 = 6,998,400,000 (round 13 c3-10)
    ("we get the cluster from Fri 18:00 to Mon 06:00. 24 Snt9B cards at ~1500 tok/s each — how many tokens can we push through?",
     "tokens_in_window", "6,998,400,000"),
    # 周六 08:00 -> 周日 20:00 = 36 h: 2500 x 16 x 129,600 s x 0.9 = 4,665,600,000
    ("周六早上 8 点到周日晚上 8 点能用 16 张 910B，每卡大约 2500 tokens/s，这段时间最多能训多少 token", "tokens_in_window", "4,665,600,000"),
])
def test_quantity_leads(assistant, q, quantity, text):
    ans = assistant.ask(q)
    assert called(ans, quantity), ans.tool_calls
    assert text in lead(ans)


def test_states_against_memory_says_no(assistant):
    lead_line = lead(assistant.ask("16 字节每参数乘 72B，对比 8 张 910B 一共 512 GB，全参训练够不够"))
    assert "放不下" in lead_line


@pytest.mark.parametrize("q,text", [
    # 72.7e9 x 2 B = 145.4 GB = 135.4 GiB, within 4 x 61.0 GiB (the weights-fit lead)
    ("qwen2.5-72b bf16 weights 一共多大？4 张 910B 放得下不", "135.4 GiB"),
    # 70.554e9 x 2 B = 141.1 GB = 131.4 GiB on one 8-card Snt9B node
    ("can llama3.1-70b's bf16 weights sit in 8 Snt9B cards?", "131.4 GiB"),
])
def test_weights_against_devices(assistant, q, text):
    lead_line = lead(assistant.ask(q))
    assert text in lead_line and ("放得下" in lead_line or "**Yes**" in lead_line)


@pytest.mark.parametrize("q,hours", [
    # 1e9 / (4000 x 16 x 0.7) = 22,321 s (the stated 70% in place of the vendor's 0.9)
    ("throughput is 4000 tok/s per card on paper but we only reach ~70% of that. 1B tokens on 16 cards for qwen2.5-7b, how long?", "22,321"),
    # 5e8 / (3000 x 8 x 0.6) = 34,722 s (round 13 c2-04)
    ("集群实际利用率只有 60%，单卡 3000 tokens/s，8 张卡训 llama3.1-8b，5 亿 token 跑一遍要多久", "34,722"),
    # a node's 9600 tokens/s over its 8 cards = 1200 per card, scaling in it: 3e8 / 9600 = 31,250 s
    ("单机 8 卡整机吞吐 9600 tokens/s，训 qwen2.5-7b 3 亿 token 要多久", "31,250"),
])
def test_stated_throughput_figures_are_used(assistant, q, hours):
    assert hours in lead(assistant.ask(q))


@pytest.mark.parametrize("q,cards", [
    # 10:00 today -> 22:00 tomorrow = 36 h: 2e9 / (129,600 s x 3000) / 0.9 = 5.72 -> 6 cards
    ("It's 10:00 now and it has to finish by 22:00 tomorrow. 2B tokens of qwen2.5-7b LoRA at 4096, measured 3,000 tok/s per 910B card — how many cards?", "6 cards"),
    # Mon 09:00 -> Wed 09:00 = 48 h: 3.5e9 / (172,800 s x 2600) / 0.9 = 8.66 -> 16 cards (round 13 c2-03)
    ("It's Monday 09:00 and the run has to be done by Wednesday 09:00. 3.5B tokens, llama3.1-8b full sft at 4096, we measured 2,600 tok/s per Snt9B card. how many cards?", "16 cards"),
])
def test_clock_deadline_gives_cards(assistant, q, cards):
    assert cards in lead(assistant.ask(q))


@pytest.mark.parametrize("text,hours", [
    ("from fri 18:00 to mon 06:00, 1500 tok/s", 60.0),
    ("周五晚上六点到下周一早上六点，每卡 1800 tokens/s", 60.0),
    ("it's 10:00 now and it has to finish by 22:00 tomorrow, 3000 tok/s", 36.0),
    ("22:00 到 06:00 之间 2000 tokens/s", 8.0),
    ("2024-05-01 10:00:01 step 3 2024-05-01 10:05:00 2000 tokens/s", None),  # a log's timestamps are no window
])
def test_clock_window_hours(parse, text, hours):
    assert parse(text).settings.get("deadline_hours") == hours


def test_clock_needs_a_training_amount():
    from assistant.offline.frame import QuestionFrame
    s = QuestionFrame(lang="en", question="meeting from fri 18:00 to mon 06:00")
    clock.read(Reading(s.question), s)
    assert "deadline_hours" not in s.settings


def test_lora_adam_states_beside_the_params(assistant):
    # Llama-3.1-70B q_proj + v_proj at r 16: 16 x (16,384 + 9,216) x 80 = 32,768,000; Adam m + v 8 B -> 0.26 GB (round 13 c3-02)
    ans = assistant.ask("llama3.1-70b 只在 q_proj 和 v_proj 上挂 lora，rank 16，可训练参数多少？这些参数的 Adam 状态占多少内存")
    assert called(ans, "lora_params") and called(ans, "optimizer_total")
    assert "32,768,000" in lead(ans) and "0.26 GB" in ans.answer


def test_trainer_banner_tokens_per_step(assistant):
    # total batch 256 x cutoff 4096 = 1,048,576 tokens per step; 938 steps -> 983,564,288 (round 13 c6-03)
    q = ("Trainer 日志:\n  Num examples = 120,000\n  Num Epochs = 2\n  Instantaneous batch size per device = 4\n"
         "  Total train batch size (w. parallel, distributed & accumulation) = 256\n  Gradient Accumulation steps = 4\n"
         "  Total optimization steps = 938\n用了几张卡？cutoff 4096 packing 的话一个 step 多少 token")
    ans = assistant.ask(q).answer
    assert "16 张卡" in ans and "1,048,576" in ans and "983,564,288" in ans


def test_log_rank_is_no_lora_rank(parse):
    s = parse("fp16 run keeps printing `[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 1` on 910B. what now?")
    assert s.lora_rank is None and not s.problems


def test_nodes_of_8x_gpus(parse):
    assert parse("2 台 8x H20 96GB，qwen2.5-72b 全参 sft 4096，zero3 不 offload，放得下吗").devices == 16


def test_elliptic_follow_up_asks_the_amount(assistant):
    # Qwen3-8B all linear layers at r 64: 174,587,904 params x 8 B (Adam m + v) = 1.40 GB
    first, second = "qwen3-8b lora on 1 Snt9B at 4096, ok?", "how many LoRA params at rank 64, all linear layers?"
    history = []
    for q in (first, second):
        history += [{"role": "user", "content": q}, {"role": "assistant", "content": assistant.ask(q, history=list(history)).answer}]
    ans = assistant.ask("and the Adam states for those?", history=history)
    assert called(ans, "optimizer_total") and "1.4 GB" in lead(ans)
    # a yes/no about the same thing asks no amount
    yes_no = assistant.ask("the optimizer states are sharded by ZeRO-1, right?", history=history[:2])
    assert not called(yes_no, "optimizer_total")
