"""Slots read from free-form questions: model mentions inside text, methods, lengths, frameworks,
hardware, device counts, intents and language."""

from __future__ import annotations

import pytest

from assistant.offline.model import is_follow_up
from assistant.offline.parse import clean_text, cn_number, language


@pytest.mark.parametrize("q,model", [
    ("qwen2 72b 全参微调，序列长度4096，需要几个节点？", "qwen2-72b"),
    ("用MindSpeed-LLM全参微调llama3.1-70b 8k 最少多少卡", "llama3.1-70b"),
    ("How many Ascend cards for Llama-3-8B?", "llama3-8b"),
    ("千问2.5-72B 推理需要几张卡", "qwen2.5-72b"),
    ("通义千问 2.5 7B lora 用 llama factory 多少卡", "qwen2.5-7b"),
    ("cards for meta-llama/Meta-Llama-3.1-8B-Instruct lora", "llama3.1-8b"),
    ("Qwen/Qwen2.5-72B-Instruct-AWQ on 910B", "qwen2.5-72b"),
    ("qwen3_moe-30B_A3B full 8k", "qwen3-30b-a3b"),
    ("DeepSeek-V3/R1 lora with mindspeed", "deepseek-v3"),
    ("DeepSeek-R1-Distill-Qwen-7B 部署", "deepseek-r1-distill-qwen-7b"),
    ("Mixtral-8x7B-Instruct-v0.1 full", "mixtral-8x7b"),
    ("ＱＷＥＮ２．５－７Ｂ lora", "qwen2.5-7b"),
    ("fine-tune Yi 34B with LoRA", "yi-34b"),
    ("glm-4-9b-chat 全参", "glm4-9b"),
    ("Qwen2-VL-7B-Instruct full at 8192", "qwen2-vl-7b"),
])
def test_model_found_inside_text(parse, q, model):
    assert parse(q).model == model


@pytest.mark.parametrize("q,mention", [
    ("How many cards for gpt-99-ultra LoRA?", "gpt-99-ultra"),
    ("llama9-13b lora 多少卡", "llama9-13b"),
    ("qwen3 lora how many cards", "qwen3"),
])
def test_unknown_or_partial_model_mentions(parse, q, mention):
    s = parse(q)
    assert s.model is None and s.unknown_model == mention


def test_raw_size_is_a_shape_not_a_model(parse):
    s = parse("Estimate per-card memory for full fine-tuning a 13B model with ZeRO-3 on 8 cards at 4096 tokens")
    assert (s.model, s.params_b, s.method, s.zero_stage, s.devices, s.seq_len) == (None, 13.0, "full", 3, 8, 4096)
    assert {"memory", "estimate"} <= s.intents
    assert parse("70亿参数的模型 lora").params_b == 7.0


@pytest.mark.parametrize("q,method,stage", [
    ("qwen2-7b LoRA", "lora", None), ("qwen2-7b QLoRA 4bit", "qlora", None), ("qwen2-7b q-lora", "qlora", None),
    ("qwen2-7b 全参", "full", None), ("qwen2-7b 全量微调", "full", None), ("qwen2-7b full fine-tuning", "full", None),
    ("qwen2-7b freeze", "freeze", None), ("qwen2-7b DPO with lora", "lora", "dpo"), ("qwen2-7b 预训练", "full", "pt"),
    ("pretrain qwen2-7b", "full", "pt"), ("qwen2-7b SFT", None, "sft"), ("qwen2-7b 需要几张卡", None, None),
])
def test_methods_and_stages(parse, q, method, stage):
    s = parse(q)
    assert (s.method, s.stage) == (method, stage)


@pytest.mark.parametrize("q,seq", [
    ("qwen2-7b lora 4096", 4096), ("qwen2-7b lora 4k", 4096), ("qwen2-7b lora 8K", 8192), ("qwen2-7b 32k tokens", 32768),
    ("qwen2-7b 序列长度8192", 8192), ("qwen2-7b cutoff_len 8192", 8192), ("qwen2-7b cutoff_len: 6000", 6000),
    ("qwen2-7b at 3000 tokens", 3000), ("qwen2-7b max-model-len 16384", 16384), ("qwen2-7b 上下文 128k", 131072),
    ("qwen2-7b lora on 8 cards", None), ("qwen2-7b on RTX 4090", None), ("Qwen2.5-72B lora", None),
])
def test_sequence_lengths(parse, q, seq):
    assert parse(q).seq_len == seq


@pytest.mark.parametrize("q,framework", [
    ("qwen2-7b with MindSpeed-LLM", "MindSpeed-LLM"), ("qwen2-7b mindspeed", "MindSpeed-LLM"), ("用MindSpeed呢", "MindSpeed-LLM"),
    ("qwen2-7b LLaMA-Factory", "LLaMA-Factory"), ("llama factory qwen2-7b", "LLaMA-Factory"), ("qwen2-7b", None),
])
def test_frameworks(parse, q, framework):
    s = parse(q)
    assert s.framework == framework
    assert s.model in (None, "qwen2-7b")  # "llama factory" is not a llama model


@pytest.mark.parametrize("q,hw", [
    ("qwen2-7b on Snt9B", "snt9b"), ("qwen2-7b on 910B", "snt9b"), ("qwen2-7b on Snt9B23", "snt9b23"), ("qwen2-7b 910C", "snt9b23"),
    ("qwen2-7b on A100", "a100-80g"), ("qwen2-7b on A100 40GB", "a100-40g"), ("qwen2-7b H100", "h100-80g"),
    ("qwen2-7b on RTX 4090", "rtx4090-24g"), ("qwen2-7b 推理需要几张32G卡", "snt9b-32g"), ("qwen2-7b", None),
])
def test_hardware(parse, q, hw):
    assert parse(q).hardware == hw


@pytest.mark.parametrize("q,devices,nodes", [
    ("qwen2-7b on 8 cards", 8, None), ("qwen2-7b 8卡", 8, None), ("qwen2-7b 单机八卡", 8, 1), ("qwen2-7b on one card", 1, None),
    ("2机16卡 能跑 llama3.1-70b lora 吗", 16, 2), ("qwen2-7b 16 NPUs", 16, None), ("qwen2-7b on 4 nodes", None, 4),
    ("how many cards for qwen2-7b", None, None),
])
def test_device_counts(parse, q, devices, nodes):
    s = parse(q)
    assert (s.devices, s.nodes) == (devices, nodes)


@pytest.mark.parametrize("q,intent", [
    ("Which ZeRO stage for qwen2-7b full?", "zero"), ("qwen2-7b 梯度累积多少", "ga"), ("gradient accumulation for yi-6b", "ga"),
    ("qwen2-7b 显存需要多少", "memory"), ("serve qwen2-7b with vLLM", "inference"), ("qwen2-7b 推理部署", "inference"),
    ("give me the yaml", "config"), ("给我启动脚本", "config"), ("My job OOMs", "troubleshoot"), ("保存ckpt超时", "troubleshoot"),
    ("Which models are supported?", "list_models"), ("支持哪些模型", "list_models"), ("Does LLaMA-Factory support DeepSeek-V3?", "support"),
    ("compare hardware for qwen2-7b", "compare"), ("训练要多久", "time"),
])
def test_intents(parse, q, intent):
    assert intent in parse(q).intents


@pytest.mark.parametrize("q,fmt", [
    ("Generate the LLaMA-Factory yaml for llama3-8b", "llamafactory_yaml"), ("DeepSpeed config for qwen2-7b", "deepspeed_json"),
    ("give me the json", "deepspeed_json"), ("MindSpeed env for qwen3-8b", "mindspeed_env"), ("launch command please, give me", "launch"),
    ("给我启动脚本", "launch"), ("give me the config", "llamafactory_yaml"),
])
def test_config_formats(parse, q, fmt):
    assert parse(q).config_format == fmt


@pytest.mark.parametrize("q,lang", [
    ("qwen2 72b 全参微调，序列长度4096，需要几个节点？", "zh"), ("用MindSpeed-LLM全参微调llama3.1-70b 8k 最少多少卡", "zh"),
    ("How many cards for 千问2.5-72B LoRA?", "en"), ("How many cards for llama3.1-8b LoRA微调 with LlamaFactory?", "en"),
    ("qwen3-8b lora 多少卡", "zh"), ("那8k呢", "zh"), ("and with 8k?", "en"),
    # a scheduler event pasted into a Chinese question is not its language
    ("事件是 0/4 nodes are available: 4 Insufficient huawei.com/ascend-1980 and 4 node(s) had untolerated taint，我要 32 卡怎么办",
     "zh"),
    ("the job says 0/4 nodes are available: 4 Insufficient huawei.com/ascend-1980, why?", "en"),
])
def test_language(q, lang):
    assert language(q) == lang


def test_follow_up_detection():
    assert is_follow_up("and with 8k?") and is_follow_up("用MindSpeed呢？") and is_follow_up("what about qwen2-7b?")
    assert not is_follow_up("Which ZeRO stage for full fine-tuning Llama-3-8B on the Snt9B cluster we have?")


def test_history_fills_the_gaps(parse):
    first = parse("qwen2.5-7b lora 8k on Snt9B23 how many cards?")
    follow = parse("用MindSpeed呢？").with_history(first, follow_up=True)
    assert (follow.model, follow.method, follow.seq_len, follow.hardware, follow.framework) == (
        "qwen2.5-7b", "lora", 8192, "snt9b23", "MindSpeed-LLM")
    assert "cards" in follow.intents
    fresh = parse("Which ZeRO stage for full fine-tuning Llama-3-8B on the cluster we have?").with_history(first, follow_up=False)
    assert (fresh.model, fresh.seq_len, fresh.hardware) == ("llama3-8b", None, None)


def test_helpers():
    assert [cn_number(x) for x in ("八", "十六", "三十二", "两", "64")] == [8, 16, 32, 2, 64]
    assert clean_text("a\x00b\x1b[31mc\u200bd\n") == "a b [31mc d"


@pytest.mark.parametrize("q,method,typed", [
    ("qwen2.5-7b lroa 4096 on 8 h100", "lora", "lroa"),  # two letters swapped
    ("qwen2.5-7b loar 4k how many gpus", "lora", "loar"),
    ("llama3-8b ful finetune 8192 on snt9b", "full", "ful"),  # a letter left out
    ("llama3-8b fulll sft 4k", "full", "fulll"),  # a letter added
    ("qwen2.5-7b qlroa on a 4090", "qlora", "qlroa"),
])
def test_a_method_word_one_slip_away_is_read_as_the_method_and_said(parse, q, method, typed):
    s = parse(q)
    assert (s.method, s.method_read_as, s.origin("method")) == (method, typed, "read_as")


@pytest.mark.parametrize("q", ["how do I load qwen2.5-7b on 8 cards", "qwen2.5-7b fully sharded on 8 a100, memory per gpu",
                               "qwen2.5-7b on 8 cards, fill the node", "llama3-8b 8 cards, lord knows how long"])
def test_a_word_with_a_changed_letter_is_no_method(parse, q):
    # "load", "fill", "lord" differ from a method by a changed letter: words of their own, not slips
    assert parse(q).method_read_as is None


def test_the_answer_says_how_a_misspelt_method_was_read(assistant):
    head = assistant.ask("qwen2.5-7b lroa 4096 on h100x8, fits?").answer.splitlines()[0]
    assert "(read “lroa” as LoRA)" in head and "H100 80GB" in head


def test_low_rank_in_chinese_is_lora_not_a_rank_key(parse):
    # 低秩 is the method's own name (LoRA); the number after it is no rank
    s = parse("qwen2.5-7b 低秩 16384")
    assert (s.method, s.lora_rank, s.seq_len, s.problems) == ("lora", None, 16384, [])
    assert parse("qwen2.5-7b lora 秩 16").lora_rank == 16


def test_a_value_far_out_of_range_is_said_invalid(parse):
    # slots.toml: lora_rank 1-4096; a six-digit value is read and refused with the range, never left unused
    s = parse("qwen3-8b lora 4096, lora_rank 100000, 4 cards enough?")
    assert s.lora_rank is None and any("from 1 to 4096" in p for p in s.problems)


@pytest.mark.parametrize("question,lang", [
    # a Chinese message an English question quotes is the system's words (round 18 c7-08#1 was answered in Chinese)
    ("submitted config.yaml with kubectl apply, pods stuck Pending, event says 实例调度失败", "en"),
    ("the error message says 显存不足, what should I do?", "en"),
    # the user's own Chinese around the quote still decides
    ("pod pending, error: 实例调度失败 怎么办", "zh"),
    ("event显示实例调度失败，咋办", "zh"),
])
def test_a_quoted_chinese_message_is_not_the_questions_language(question, lang):
    assert language(question) == lang
