"""The quantity asked is computed from the inputs given and leads (helper derive11): parts of the memory named together
(their sum), the logits and activations of a micro-batch, host RAM judged, a memory size the vLLM tables lack, table
filters with a size bound, a table filter asked before a model's own question, the run time from the data set.
Expected values are hand computations from the models' HF config.json figures and the vendor tables (seeds/000, 004),
written out here."""

from __future__ import annotations

import pytest

from tests.offline.dialog import lead_line as lead


def called(ans, quantity: str) -> bool:
    return any(c.name == "derive_quantity" and c.args.get("quantity") == quantity for c in ans.tool_calls)


@pytest.mark.parametrize("q,text", [
    # Llama-3.1-8B: 8.03B x (bf16 weights 2 B + bf16 gradients 2 B) = 32.1 GB
    ("llama3.1-8b 全参训练，只算 bf16 权重和梯度，一共多大", "32.1 GB"),
    # Qwen2.5-7B (catalog 7.61B): 7.61B x (weights 2 + optimizer 12) = 15.2 + 91.3 = 106.5 GB
    ("qwen2.5-7b full finetune: weights plus optimizer states, how many GB altogether?", "106.5 GB"),
])
def test_two_memory_parts_named_lead_with_their_sum(assistant, q, text):
    ans = assistant.ask(q)
    assert called(ans, "memory_parts") and text in lead(ans)


def test_parts_on_one_device_are_split_by_the_zero_stage(assistant):
    # Llama-3.1-8B, ZeRO-2 on 8 cards: optimizer 8.03B x 12 B = 96.4 GB / 8 = 12.04 GB; bf16 gradients 16.1 GB / 8 = 2.01 GB
    ans = assistant.ask("llama3.1-8b full ft, zero2, 8 张卡, 每张卡上 optimizer states + gradients 占多少")
    head = lead(ans)
    assert "14.1 GB" in head and "12.04 GB" in head and "2.01 GB" in head


def test_all_three_states_lead_with_the_total_not_the_optimizer(assistant):
    """c3-09 (round 19): 参数+梯度+Adam 总共 — the model states in all lead (20 B x 14.7B = 294 GB, the 16-byte count 235 GB
    named), then ZeRO-3 over 16 cards per card; not the optimizer states alone (176 GB)."""
    head = lead(assistant.ask("qwen2.5-14b 全参，参数+梯度+Adam 状态总共多少 GB？zero3 切到 16 卡每卡多少"))
    assert "模型状态总量" in head and "294 GB" in head and "235 GB" in head and "176" not in head


@pytest.mark.parametrize("q,texts", [
    # Llama-3-8B, 8,192 tokens x vocab 128,256 = 1.05e9 entries: bf16 logits 2.1 GB, fp32 upcast 4.2 GB, loss backward 12 B 12.6 GB
    ("llama3-8b 训练 seq 8192，micro batch 1，光 logits 这块显存大概多少", ["12.6 GB", "2.1 GB", "4.2 GB"]),
    # Qwen2.5-7B, 2 x 4,096 x 152,064 = 1.246e9 entries: bf16 2.5 GB, fp32 5.0 GB, 12 B 14.9 GB
    ("logits memory for qwen2.5-7b training at seq 4096 with micro batch 2 - roughly how many GB?", ["14.9 GB", "2.5 GB", "5.0 GB"]),
])
def test_logits_of_a_micro_batch_lead_with_the_formula(assistant, q, texts):
    ans = assistant.ask(q)
    head = lead(ans)
    assert called(ans, "logits") and all(t in head for t in texts)


def test_activations_lead_with_and_without_recompute(assistant):
    ans = assistant.ask("roughly how much activation memory does llama3-8b need at seq 4096, mbs 1, with full recompute on?")
    head = lead(ans)
    assert called(ans, "activations") and head.startswith("**Answer:** **Activations") and "no recompute" in head


def test_parts_sent_to_the_host_ask_the_host_ram_not_their_sum(assistant):
    ans = assistant.ask("yi-34b 全参，ZeRO-3 参数和优化器全放 CPU，单机 8 卡，这台机器主机内存至少多大？")
    assert not called(ans, "memory_parts") and "主机内存" in lead(ans)


@pytest.mark.parametrize("q,head", [
    # c2-06 (round 19): Qwen2-72B full, ZeRO-3 offload on 4 nodes needs about 457 GiB per node; 500 GB x 0.9 = 419 GiB usable
    ("host RAM is 500 GB per node. qwen2-72b full 4k on 4 snt9b nodes, zero3 offload like the recipe says. is host memory enough?",
     "**Answer:** **No: 500 GB of host RAM per node is not enough**"),
    ("qwen2-72b 全参 8k，4 台 snt9b 按配方表 zero3-offload 跑，每台主机内存 1TB 够吗", "**结论**：**够：每节点 1024 GB 主机内存够用**"),
])
def test_host_ram_stated_and_judged_leads_with_its_yes_no(assistant, q, head):
    first = lead(assistant.ask(q))
    assert first.startswith(head) and "457 GiB" in first


def test_weights_for_vllm_are_judged_against_the_utilisation_share(assistant):
    # Qwen2.5-32B bf16: 32.5B x 2 B = 65.0 GB = 60.5 GiB < 61.0 GiB of one 64 GB card, but > 0.9 x 61.0 = 54.9 GiB for vLLM
    head = lead(assistant.ask("is one 64GB card enough to hold qwen2.5-32b bf16 weights for vllm serving?"))
    assert "60.5 GiB of weights" in head and "65.0 GB" in head and "**No** for vLLM" in head and "54.9 GiB" in head


def test_recipe_filter_with_a_size_bound_returns_its_rows(assistant):
    """c1-09 (round 19): recipe table (seeds/000), GA 4 and a model under 70B: only Qwen1.5 32B full 8192 (2 nodes x 8);
    llama2-70b (68.98B by its config) is a 70B model by name and is left out."""
    ans = assistant.ask("in that llamafactory ZeRO/GA table, is there any model under 70B where grad accum drops to 4?")
    head = ans.answer
    assert lead(ans).startswith("**Answer:** Yes. **1 row**") and "Qwen1.5 32B | full | 8192 | ZeRO-3-Offload | 4" in head
    assert "llama2 70B" not in head


def test_min_card_filter_with_a_size_bound(assistant):
    # seeds/004, LLaMA-Factory full 4096 on Snt9B, models under 10B needing more than 4 cards: 8 cards each (qwen2-7b's 1 is out)
    ans = assistant.ask("min card table: any model under 10B whose LF full finetune needs more than 4 cards at 4096 on Snt9B?")
    assert "| llama3.1-8b | full | 4096 | LLaMA-Factory | Snt9B | 8 cards" in ans.answer and "qwen2-7b |" not in ans.answer


def test_a_table_filter_then_a_model_answers_both_in_order(assistant):
    """c1-06 (round 19): newest vLLM table, 64 GB, 1 card at 32K: Qwen3-0.6B/1.7B/4B/8B/14B; Qwen3-30B-A3B needs 2 cards."""
    ans = assistant.ask("In the latest vLLM min-card table (64GB), which Qwen3 models run on 1 card at 32k, and does Qwen3-30B-A3B?")
    text = ans.answer
    assert lead(ans).startswith("**Answer:** **5 rows**") and "| Qwen3-14B | vllm-newest | 64 GB | 1 card | 32768" in text
    assert text.index("Qwen3-14B") < text.index("**qwen3-30b-a3b**") and "at least 2 cards" in text


def test_the_filter_count_is_not_the_users_when_the_model_half_asks_a_count(assistant):
    # recipe table: Qwen1.5 0.5B / 1.8B full on 1 card; qwen1.5-7b full needs 1 node x 8 cards
    ans = assistant.ask("which qwen1.5 sizes can do full FT on one card per the recipe table, and how many cards does qwen1.5-7b full need?")
    assert "Qwen1.5 1.8B | full | 4096" in ans.answer and "you have 1 card" not in ans.answer and "= 8 cards" in ans.answer


@pytest.mark.parametrize("q,text", [
    # 100,000 // 128 = 781 x 2 = 1,562 steps (the launch script's whole-number arithmetic) x 5 s = 7,810 s = 2.2 h
    ("10万条样本, 2 个 epoch, GBS 128, 每步 5 秒, 总共要训多久", "2.2 小时（7,810 秒）"),
    # MBS 2 x DP 16 x GA 4 = GBS 128; x 8,192 = 1,048,576 tokens
    ("MBS 2, DP 16, GA 4, seq 8192: how many tokens go into one optimizer step?", "1,048,576 tokens"),
])
def test_questions_whose_inputs_are_all_given_are_computed(assistant, q, text):
    assert text in lead(assistant.ask(q))


def test_a_model_mention_never_spans_the_words_between_its_tokens(parse):
    # "llama3.1-8b 全参 bf16": "llama3.1-8b bf16" is a spelling of the model, but not across "全参", which is the method
    s = parse("llama3.1-8b 全参 bf16 要几张卡")
    assert s.model == "llama3.1-8b" and s.method == "full"


@pytest.mark.parametrize("q,head,rows", [
    # seeds/000: every LoRA row has gradient_accumulation_steps 8, so none is other than 8
    ("配方表里有没有梯度累积不是 8 的 lora 行？", "**结论**：没有。", 0),
    # full rows with GA 4: llama2/llama3/llama3.1 70B, Qwen2 72B, Qwen1.5 72B (4096 and 8192 each) and Qwen1.5 32B at 8192
    ("in the recipe table, which full rows use a GA other than 8?", "**Answer:** **11 rows** (6 models)", 11),
])
def test_a_negated_accumulation_filters_the_recipe_rows(assistant, q, head, rows):
    ans = assistant.ask(q)
    assert lead(ans).startswith(head) and ans.answer.count("| 4 |") == rows


def test_checkpoints_against_the_disk_said_lead_with_the_yes_no(assistant):
    # Qwen2.5-14B (catalog 14.7B) full: bf16 weights 29.4 GB + optimizer states 12 B x 14.7B = 176.4 GB = 205.8 GB each;
    # 5 kept: 1,029 GB > a 1 TB (1,000 GB) disk
    ans = assistant.ask("I want to keep 5 checkpoints (with optimizer states) of a qwen2.5-14b full finetune. Is a 1 TB disk enough?")
    head = lead(ans)
    assert head.startswith("**Answer:** **No: the disk is not enough.**") and "205.8 GB per checkpoint" in head and "1,029.0 GB" in head


@pytest.mark.parametrize("q,text", [
    # DeepSeek-R1-Distill-Qwen-7B: 7.616B x 2 B = 15.2 GB of weight files on a 50 GB disk
    ("DeepSeek-R1-Distill-Qwen-7B 的 bf16 权重大概多大？放 50G 的盘够不够", "**够**：50 GB 的盘放得下权重文件（15.2 GB"),
    # Qwen2.5-72B: 72.7B x 2 B = 145.4 GB > 100 GB
    ("qwen2.5-72b weights in bf16 - will they fit on a 100GB disk?", "**No**, a 100 GB disk does not hold the weight files (145.4 GB)"),
])
def test_weight_files_against_the_disk_said(assistant, q, text):
    assert text in lead(assistant.ask(q))


def test_run_time_with_the_step_time_said_as_one_step(assistant):
    # 80,000 // 256 = 312 x 3 = 936 steps (the launch script's whole-number arithmetic) x 12 s = 11,232 s = 3.1 h
    assert "3.1 小时（11,232 秒）" in lead(assistant.ask("8 万条数据，GBS 256，跑 3 个 epoch，一步 12 秒，大概要多少小时"))


@pytest.mark.parametrize("q,texts", [
    # Qwen2.5-72B: weights 72.7B x 2 B = 145.4 GB; KV 2 x 80 layers x 8 KV heads x 128 x 2 B = 320 KiB/token x 32,768 x 4 = 42.9 GB
    ("qwen2.5-72b serving at 32k with 4 concurrent requests: weights plus KV, total GB?", ["188.3 GB", "145.4 GB", "42.9 GB"]),
    # Llama-3.1-8B: 16.1 GB + 128 KiB/token x 131,072 = 17.2 GB -> 33.2 GB
    ("llama3.1-8b 部署，128k 上下文单请求，权重加 kv cache 一共多少显存", ["33.2 GB", "16.1 GB", "17.2 GB"]),
])
def test_weights_and_kv_named_together_lead_with_their_sum(assistant, q, texts):
    head = lead(assistant.ask(q))
    assert all(t in head for t in texts) and "AdamW" not in head
