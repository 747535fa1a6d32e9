"""A question reaches the tool or note that computes what it asks (helper route18; fresh round 24 c3-01, c3-02, c3-10,
c4-10, c4-15, c5-05 are examples of the class): the quantity asked decides (KV bytes, KV GB, hours, a timeout, a command,
where memory went), not the first topic word; a derived quantity with all its inputs stated is computed; a named model
supplies its architecture.

Figures are hand computations: KV bytes per token = 2 (K, V) x layers x kv_heads x head_dim x bytes (research/
sizing_formulas.md; shapes from the models' HF config.json in knowledge/catalog/models.csv); the vendor's training time
Time = tokens / (TPS x N x eta) (ModelArts 590604); the checkpoint-save timeout of 36 minutes and "does not affect the saved
weights" (ModelArts 保存ckpt时超时报错, knowledge/notes/ckpt_timeout.md); `ascendfactory-cli train <yaml> <model_name>
<exp_name>` (ModelArts LlamaFactory guide 590610); 60.97 GiB of a 64 GB card (the OOM note's reading of the vendor's sample)."""

from __future__ import annotations

import pytest

from tests.offline.dialog import lead_line as lead


@pytest.mark.parametrize(("question", "figure"), [
    # llama3.1-70b: 2 x 80 x 8 x 128 x 2 B = 327,680 B = 320 KiB; the size named by "footprint"
    ("llama3.1 70b kv footprint per token at fp16, in KiB", "320 KiB"),
    # qwen2.5-72b: 2 x 80 x 8 x 128 x 2 B = 320 KiB; "bytes of kv" names it by its unit (round 24 c3-01 got a LoRA plan)
    ("bytes of kv per generated token, qwen2.5 72b, bf16 cache — just the number pls", "320 KiB"),
    # glm4-9b: 2 x 40 x 2 x 128 x 2 B = 40,960 B = 40 KiB; the KV heads the user states are no how-to about them
    ("glm4 9b per-token KV bytes? it's GQA with only 2 kv heads i think", "40 KiB"),
])
def test_kv_bytes_per_token_of_a_named_model_lead(assistant, question, figure):
    ans = assistant.ask(question, [])
    assert "estimate_inference" in [c.name for c in ans.tool_calls]
    assert figure in lead(ans)


@pytest.mark.parametrize(("question", "figure"), [
    # llama3.1-8b: 128 KiB x 32768 = 4 GiB (round 24 c3-02 got the min-card row only)
    ("部署 llama3.1 8b，32768 token 的单条对话，光 KV 就要几个 G", "4.0 GiB"),
    # qwen2.5-7b: 2 x 28 x 4 x 128 x 2 = 56 KiB x 32768 = 1.75 GiB
    ("qwen2.5-7b 推理时 32768 长度的一条请求，KV 部分占几个 GB", "1.8 GiB"),
])
def test_kv_of_one_request_said_with_its_amount_leads(assistant, question, figure):
    assert figure in lead(assistant.ask(question, []))


def test_kv_heads_asked_are_no_kv_cache(parse):
    """"多少个 kv heads" asks a shape figure (the quantity row), not the KV cache's size."""
    assert "kv" not in parse("qwen2.5-14b 有多少个 kv heads").intents


@pytest.mark.parametrize(("question", "hours"), [
    # 3e9 / (2000 x 16 x 0.9) = 104,167 s = 28.9 h: "tokens total" is the tokens' total, the rate is per card
    ("3e9 tokens total, 16 cards, 2000 tok/s per card, speedup factor 0.9 -> hours?", "28.9"),
    # 8e8 / (3000 x 24 x 0.85) = 13,072 s = 3.6 h: "加速比按 0.85" is the user's η
    ("数据 8e8 token，打算 24 卡，每卡吞吐 3000 tokens/s，加速比按 0.85，大概多久能训完", "3.6"),
    # a node's whole rate: 1e9 / 9600 = 104,167 s = 28.9 h (the rate over 8 cards already holds the scaling)
    ("单机 8 卡整机吞吐 9600 tokens/s，10亿 token 要多久", "28.9"),
])
def test_training_time_with_every_input_stated_is_computed(assistant, question, hours):
    ans = assistant.ask(question, [])
    assert "estimate_training_time" in [c.name for c in ans.tool_calls]
    assert hours in lead(ans)


@pytest.mark.parametrize("question", [
    "after how long does the checkpoint save time out on a multi-node job?",
    "多机保存 checkpoint 的时候等多久算超时",
])
def test_a_timeout_asked_by_how_long_is_no_training_time(parse, question):
    assert "time" not in parse(question).intents


def test_checkpoint_timeout_reaches_its_note(assistant):
    ans = assistant.ask("4 机训练跑完最后一步, 有的节点在写 checkpoint 其他节点就等到报错退出了, 这个 checkpoint 还可信吗, 等多久会触发", [])
    assert "36 分钟" in lead(ans)
    assert "estimate_training_time" not in [c.name for c in ans.tool_calls]


def test_ascendfactory_named_without_cli_reaches_its_launch_command(assistant):
    ans = assistant.ask("yaml 写好了放在 /home/ma-user/ws/qwen_sft.yaml，用 ascendfactory 的命令行怎么拉起来，后面还要跟哪些参数", [])
    assert "ascendfactory-cli train <yaml> <model_name> <exp_name>" in lead(ans)


@pytest.mark.parametrize("question", [
    "OOM 日志里 total capacity 才 60.97 GiB，少的那 3G 去哪了，是卡有问题吗",
    "torch_npu reports 60.97 GiB capacity vs the 64GB spec sheet... is ~3 GB being eaten by something?",
])
def test_a_quoted_piece_of_the_sample_message_gets_its_reading(assistant, question):
    line = lead(assistant.ask(question, []))
    assert "64 GB" in line and "Tried to allocate" not in line


def test_the_requests_counted_by_of_them_are_the_concurrency(assistant):
    # llama3.1-70b: 320 KiB x 8192 = 2.5 GiB per request; x 16 = 40 GiB
    line = lead(assistant.ask("llama3.1-70b, 8192 token prompts, 16 of them concurrently: total KV cache GB?", []))
    assert "2.5 GiB" in line and "40.0 GiB" in line


def test_an_ok_that_opens_a_follow_up_asks_no_yes_no(assistant):
    """"ok and per token, how many bytes of kv is that?": the KV bytes lead (llama3.1-8b: 2 x 32 x 8 x 128 x 2 = 128 KiB)."""
    from tests.offline.dialog import converse
    answers = converse(assistant, "I'm serving llama3.1-8b on snt9b", "ok and per token, how many bytes of kv is that?")
    assert lead(answers[-1]).startswith("**Answer:** KV cache **128 KiB per token**")


@pytest.mark.parametrize(("question", "shown"), [
    # 5e9 / (1800 x 32 x 0.9) = 96,451 s = 26.8 h = 1.1 days
    ("5e9 tokens, 32 npus, 1800 tokens/s per npu, linear scaling 0.9 — how many days of training?", "1.1 days (26.8 hours)"),
    # 1e11 / (1500 x 64 x 0.9) = 1,157,407 s = 321.5 h (asked in hours, though above two days)
    ("1e11 tokens, 64 cards, 1500 tok/s per card -> hours?", "321.5 hours"),
])
def test_the_run_time_is_said_in_the_unit_asked(assistant, question, shown):
    assert shown in lead(assistant.ask(question, []))


def test_a_kv_cost_in_kib_is_memory_not_a_price(assistant):
    # qwen2.5-32b: 2 x 64 x 8 x 128 x 2 B = 262,144 B = 256 KiB
    ans = assistant.ask("qwen2.5-32b: how much KV does one token cost in bf16 (KiB)?", [])
    assert ans.answer.lstrip().startswith("**qwen2.5-32b**") and "256 KiB per token" in lead(ans)


def test_kv_total_asked_bare_is_said(assistant):
    # llama3.1-8b: 128 KiB x 4096 = 0.5 GiB per request; x 24 = 12 GiB
    assert "12.0 GiB" in lead(assistant.ask("llama3.1-8b, 4096 tokens each, 24 of them at once — KV total?", []))


def test_figures_listed_with_slashes_and_eta_are_read(assistant):
    # 6e9 / (1600 x 48 x 0.92) = 84,918 s = 23.6 h
    line = lead(assistant.ask("6e9 tokens / 48 cards / 1600 tokens per sec per card / eta 0.92 -> days?", []))
    assert "23.6 hours" in line


def test_a_whole_rate_said_as_zhengti_is_over_the_cards(assistant):
    # 3e9 / 60000 = 50,000 s = 13.9 h (the 24 cards' rate together: 2500 per card, eta 1)
    assert "13.9" in lead(assistant.ask("三台机器 24 卡整体吞吐 60000 tokens/s，30 亿 token 大概几个小时", []))


def test_a_process_rank_still_saving_is_no_lora_rank(parse):
    assert parse("two-node job: rank 0 still saving ckpt, the other node died with a timeout. do I have to retrain?").problems == []
