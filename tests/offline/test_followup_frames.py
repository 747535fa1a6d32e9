"""Follow-ups that change one slot keep the thread's job, its other slots, its part and its language (fresh round 8,
F2: follow-up turns fell to 5/21). Frames are read through the planner's own path (OfflinePlanner.slots, the earlier
turns as messages); answers through the agent. Values are pinned to seeds/004 (minimum-card table, 2025-06-24) and to
hand computations (the vendor time formula Time = tokens / (TPS x N x eta), eta = 0.9)."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from assistant.offline.asked import asks_verdict
from assistant.offline.model import OfflinePlanner
from assistant.offline.vocab import INTENTS, changed_to

from .dialog import converse

KEPT = ("model", "method", "seq_len", "hardware", "framework", "devices")


@pytest.fixture(scope="module")
def planner(ctx):
    return OfflinePlanner(ctx=ctx)


@pytest.fixture(scope="module")
def frame(planner):
    """The conversation's frame after the last of ``turns`` (earlier answers stand in as short replies)."""
    def run(*turns: str):
        messages = []
        for t in turns[:-1]:
            messages += [HumanMessage(content=t), AIMessage(content="ok")]
        return planner.slots(messages + [HumanMessage(content=turns[-1])])[0]
    return run


FIRSTS = {
    "lf_en": "qwen2.5-7b lora 4096 with llamafactory on 8 Snt9B cards, how many cards do I need?",
    "ms_zh": "qwen2.5-14b 全参 4096，MindSpeed-LLM，16 张 Snt9B，够不够",
    "a3_mixed": "llama3.1-70b lora 4096 mindspeed 在 Snt9B23 上 32 个 DIE 够吗",
}
# one slot changed by each follow-up: (words, slot, new value)
CHANGES = [
    ("and with 8192?", "seq_len", 8192),
    ("那 8192 呢", "seq_len", 8192),
    ("same but full fine-tuning", "method", "full"),
    ("lora 换成全参呢", "method", "full"),
    ("全参换成 lora 呢", "method", "lora"),
    ("what about 32 cards?", "devices", 32),
    ("64 张卡呢", "devices", 64),
]


@pytest.mark.parametrize("first", sorted(FIRSTS))
@pytest.mark.parametrize(("words", "slot", "value"), CHANGES)
def test_a_one_slot_follow_up_keeps_every_other_slot(frame, first, words, slot, value):
    before = frame(FIRSTS[first])
    after = frame(FIRSTS[first], words)
    assert getattr(after, slot) == value
    assert after.methods == []  # "全参换成 lora" changes the method; it compares nothing
    for other in KEPT:
        if other != slot:
            assert getattr(after, other) == getattr(before, other), other
    assert after.task() == "training"


@pytest.mark.parametrize(("words", "slot", "value"), [
    ("全参换成 lora", "method", "lora"),
    ("use lora instead of full", "method", "lora"),
    ("switch from llama-factory to mindspeed", "framework", "MindSpeed-LLM"),
    ("LLaMA-Factory 换成 MindSpeed-LLM", "framework", "MindSpeed-LLM"),
    ("910B 换成 A3 呢", "hardware", "snt9b23"),
])
def test_a_value_changed_into_another_is_the_new_value(frame, words, slot, value):
    s = frame(f"qwen2.5-7b 4096 {words}")
    assert getattr(s, slot) == value
    assert not s.methods and not s.frameworks and not s.hardwares


def test_a_comparison_is_still_a_comparison(frame):
    assert frame("qwen2.5-7b lora vs full 4096").methods == ["lora", "full"]
    assert changed_to("lora compared to full", [(0, 4, "lora"), (17, 21, "full")]) is None


def test_another_trainer_leaves_the_deepspeed_stage_behind(frame, assistant):
    """seeds/004: qwen3-32b LoRA 8192 needs 16 DIE with LLaMA-Factory and 8 with MindSpeed-LLM on Snt9B23: 8 DIE
    meet MindSpeed-LLM's minimum, and MindSpeed-LLM has no ZeRO stage to judge (no 'ZeRO-None ... does not fit')."""
    first = "Snt9B23 上我只分到 8 个 DIE，llamafactory lora qwen3-32b 8192，ZeRO-3，per_device 1，GA 16，够不够？"
    second = "换 MindSpeed-LLM 的话 8 个 DIE 够吗"
    s = frame(first, second)
    assert (s.framework, s.zero_stage, s.devices, s.device_unit) == ("MindSpeed-LLM", None, 8, "die")
    answer = converse(assistant, first, second)[1].answer
    lead = answer.split("**结论**", 1)[1].splitlines()[0]
    assert "够" in lead and "不行" not in lead and "ZeRO" not in answer.split("**所需**")[0]
    assert "8 DIE" in lead


def test_a_settings_only_serving_turn_is_the_readers_in_the_threads_language(assistant):
    """'tp=2 呢' after a one-card serving answer is no pasted setup: it is answered (in Chinese) on TP 2. GLM-4-9B's KV
    cache is 2 (K,V) x 40 layers x 2 KV heads x 128 x 2 B = 40 KiB per token; 16 sequences of 131072 need 2,097,152
    tokens, which one 64 GB card does not hold and two do (estimate)."""
    answers = converse(assistant, "单卡 910B vllm 部署 glm-4-9b-chat，max-model-len 128k，max-num-seqs 16，kv cache 够吗",
                       "tp=2 呢")
    text = answers[1].answer
    assert "could not check" not in text and "无法检查" not in text
    lead = text.split("**结论**", 1)[1].splitlines()[0]
    assert "可以" in lead and "TP 2" in lead and "131072" in lead
    assert "40 KiB" in text


def test_a_serving_layout_said_later_is_its_devices(frame):
    s = frame("单卡 910B vllm 部署 glm-4-9b-chat，max-model-len 32768", "tp=2 呢")
    assert (s.tp, s.devices, s.task()) == (2, None, "serving")
    kept = frame("8 张 910B vllm 部署 glm-4-9b-chat，max-model-len 32768", "tp=2 呢")
    assert (kept.tp, kept.devices) == (2, 8)  # TP 2 on 8 cards: replicas, the cards stay


@pytest.mark.parametrize(("turns", "seconds"), [
    # 50,000 x 4096 x 3 = 614.4M tokens / (2000 x 8 x 0.9) = 42,667 s; x2 cards: 21,333 s; 2 epochs on 16: 14,222 s
    (["50k samples, cutoff 4096, 3 epochs, 8 Snt9B cards at 2000 tokens/s per card - how long? hours first"], "42,667"),
    (["50k samples, cutoff 4096, 3 epochs, 8 Snt9B cards at 2000 tokens/s per card - how long? hours first",
      "what if we double to 16 cards?"], "21,333"),
    (["50k samples, cutoff 4096, 3 epochs, 8 Snt9B cards at 2000 tokens/s per card - how long? hours first",
      "what if we double to 16 cards?", "and 2 epochs instead of 3, still 16 cards"], "14,222"),
    # 100,000 x 2048 x 2 = 409.6M / (1500 x 16 x 0.9) = 18,963 s; then 32 cards: 9,481 s; then 1 epoch: 4,741 s
    (["10万条数据，序列长度 2048，训练 2 个 epoch，16 张卡每卡 1500 tokens/s，要多久"], "18,963"),
    (["10万条数据，序列长度 2048，训练 2 个 epoch，16 张卡每卡 1500 tokens/s，要多久", "那 32 张卡呢"], "9,481"),
    (["10万条数据，序列长度 2048，训练 2 个 epoch，16 张卡每卡 1500 tokens/s，要多久", "那 32 张卡呢", "epoch 改成 1 呢"], "4,741"),
    # 50,000 x 4096 x 4 epochs (one more) = 819.2M / (2500 x 8 x 0.9) = 45,511 s; cards doubled to 16 with 3 epochs: 17,067 s
    (["llama3.1-8b lora，5万条样本，cutoff 4096，3 个 epoch，8 张 Snt9B 每卡 2500 tokens/s，要几个小时", "再加一个 epoch 呢"], "45,511"),
    (["llama3.1-8b lora, 50k samples, cutoff 4096, 3 epochs, 8 Snt9B cards at 2500 tokens/s per card, how long?",
      "double the cards?"], "17,067"),
])
def test_training_time_follow_ups_use_every_value(assistant, turns, seconds):
    answer = converse(assistant, *turns)[-1].answer
    first_line = next(line for line in answer.splitlines() if line.startswith(("**Answer:**", "**结论**")))
    assert seconds in first_line


PASTE = ("8 张 Snt9B 这个 yaml 能跑吗\nmodel_name_or_path: /home/ma-user/Llama-3.1-8B\nstage: sft\nfinetuning_type: full\n"
         "quantization_bit: 4\ndeepspeed: examples/deepspeed/ds_z2_config.json\ntemplate: llama3\ncutoff_len: 8192\n"
         "per_device_train_batch_size: 1\ngradient_accumulation_steps: 8")


def test_a_change_after_a_pasted_yaml_keeps_the_pasted_job(frame, assistant):
    """The paste's job (llama3.1-8b from its path, 8 cards, ZeRO-2, GA 8) carries; 'lora, keep quantization_bit 4' is
    QLoRA on a 4-bit base (LLaMA-Factory), the 4 no device count; the check asked no file, so no YAML is offered
    until one is asked for, and that YAML has the changes and the user's 8 cards x GA 8."""
    s = frame(PASTE, "那我改成 lora，保留 quantization_bit 4 呢")
    assert (s.model, s.method, s.weight_bits, s.devices, s.zero_stage, s.grad_accum) == ("llama3.1-8b", "qlora", 4, 8, 2, 8)
    assert "config" not in s.intents and asks_verdict(s)
    answers = converse(assistant, PASTE, "那我改成 lora，保留 quantization_bit 4 呢", "把改好的完整 yaml 贴给我")
    assert "```yaml" not in answers[1].answer
    yaml_text = answers[2].answer
    for line in ("finetuning_type: lora", "quantization_bit: 4", "gradient_accumulation_steps: 8", "cutoff_len: 8192",
                 "ds_z2_config.json"):
        assert line in yaml_text


def test_the_threads_yes_no_is_asked_again(frame):
    assert asks_verdict(frame("qwen2.5-14b 全参 4096 8 张 Snt9B，zero2 行不行", "那 zero3 呢"))
    assert not asks_verdict(frame("qwen2.5-14b 全参 4096 8 张 Snt9B 要几张卡", "那 8192 呢"))


def test_a_training_layout_follow_up_is_checked_as_training(assistant):
    """'TP 8 PP 4 on those 24 cards' in a MindSpeed-LLM thread breaks Megatron's divisibility (32 does not divide 24);
    no vLLM rule is said for it."""
    answers = converse(assistant, "mindspeed llama3.1-70b lora 4096 on 24 Snt9B cards, TP 8 PP 1, how many cards needed?",
                       "ok what about TP 8 PP 4 on those 24 cards?")
    text = answers[1].answer
    assert "vLLM" not in text and "24" in text and "32" in text


def test_change_words_are_no_hang():
    assert not INTENTS["problem"].search("post the full yaml with that change")
    assert INTENTS["problem"].search("training hangs at the barrier")


@pytest.mark.parametrize(("question", "lengths"), [
    ("qwen2.5-14b lora 用 llamafactory，A3 上 4096 和 8192 分别要几个 DIE", [4096, 8192]),
    ("qwen2.5-7b lora 4k vs 8k on 910B, how many cards each?", [4096, 8192]),
    ("qwen2.5-7b lora 4096 on 8 cards, 2048 batch", []),  # a batch is no second length
    ("qwen2.5-7b lora 4096 on 8 cards", []),
])
def test_lengths_compared_are_each_sized(frame, question, lengths):
    assert frame(question).seq_lens == lengths


def test_both_halves_of_a_length_comparison_are_answered(assistant):
    """seeds/004 qwen2.5-14b LoRA, LLaMA-Factory: 4 at 4096 and 4 at 8192 (one value spanning both columns, DIE on
    Snt9B23); the 8192 half is sized, not named unused."""
    answer = converse(assistant, "qwen2.5-14b lora 用 llamafactory，A3 上 4096 和 8192 分别要几个 DIE")[0].answer
    lead = answer.split("**结论**", 1)[1].splitlines()[0]
    assert "4096 **4 DIE" in lead and "8192 **4 DIE" in lead
    assert "SEQ_LEN 8192" in answer and "未使用" not in answer


def test_a_memory_said_later_replaces_the_part_of_the_other_memory(frame, assistant):
    """'the 64GB card' after 'a 32GB card' is the 64 GB Snt9B again, not the 32 GB part carried; with no length said,
    the serve line takes the vLLM table's tested length on that card (vllm-v0.7.2, 64 GB, 1 card: 131072 at 0.9)."""
    turns = ("DeepSeek-R1-Distill-Llama-8B on one 64GB 910B with vllm - what max-model-len can I use?",
             "what about on a 32GB card?", "give me the vllm serve line for the 64GB card at 0.9 util")
    assert frame(*turns[:2]).hardware == "snt9b-32g"
    s = frame(*turns)
    assert (s.hardware, s.memory_gb, s.gpu_util) == (None, 64, 0.9)
    line = next(x for x in converse(assistant, *turns)[2].answer.splitlines() if x.startswith("vllm serve"))
    assert "--tensor-parallel-size 1" in line and "--max-model-len 131072" in line and "--gpu-memory-utilization 0.9" in line


def test_a_turn_asking_its_own_quantity_on_those_cards_asks_no_count(frame, assistant):
    """seeds/004 qwen3-8b full 4096 LLaMA-Factory: 8 cards; 'those cards' are those 8 and the ZeRO stage and GA asked
    of them lead (the recipe table has no qwen3-8b row: the estimate's stage), not the count again."""
    turns = ("qwen3-8b full sft cutoff 4096 llamafactory, 最少几张 Snt9B", "on those cards, what ZeRO and GA?")
    s = frame(*turns)
    assert {"zero", "ga"} <= s.intents and "cards" not in s.intents
    first, second = converse(assistant, *turns)
    assert "**8 张卡**" in first.answer.split("**结论**", 1)[1].splitlines()[0]
    lead = second.answer.split("**Answer:**", 1)[1].splitlines()[0]
    assert "your 8 cards" in lead and "ZeRO-" in lead and "gradient accumulation" in lead


def test_a_stated_layout_on_more_devices_gets_no_second_layout(assistant):
    """TP 8 x PP 4 on 64 cards: DP = 64 / 32 = 2, GA = 256 / (1 x 2) = 128. No plan of the estimator's own within the
    64 cards (another layout, another GA) is offered beside it; the fewest-card need (seeds/004 MindSpeed-LLM full 4096:
    32) is said as the need."""
    answers = converse(assistant, "llama3.1-70b full 4096 mindspeed on 910B, TP 8 PP 4, 32 cards, MBS 1 GBS 256 - what GA?",
                       "and with 64 cards?")
    text = answers[1].answer
    assert text.split("\n\n")[1].startswith("**Gradient accumulation 128**")
    assert "estimate for your 64 cards" not in text
    assert "TP 8 × PP 4, data parallel 2, gradient accumulation 128" in text


@pytest.mark.parametrize(("words", "nodes"), [("2 台 A3 训练 llama3.1-70b", 2), ("2台A3", 2), ("A3 两台", 2)])
def test_a3_counted_in_machines_is_the_part(frame, words, nodes):
    s = frame(words)
    assert (s.hardware, s.nodes) == ("snt9b23", nodes)


def test_the_threads_layout_goes_into_the_env_file(assistant):
    """seeds/004 llama3.1-70b LoRA 8192 MindSpeed-LLM: 16 (a single value across both columns: 16 DIE on Snt9B23); the
    thread's 2 A3 nodes = 32 DIE with TP 8 x PP 4: DP = 32 / 32 = 1, GA = 128 / (1 x 1) = 128."""
    answers = converse(assistant, "2 台 A3（32 个 DIE），MindSpeed 全参 llama3.1-70b 4096，TP 8 PP 4，MBS 1，GBS 128，够不够？梯度累积多少",
                       "8192 不变，全参换成 lora 呢", "按这个 lora 方案把启动的环境变量写出来")
    assert "MindSpeed-LLM（16 DIE）" in answers[1].answer.split("**结论**", 1)[1].splitlines()[0]
    env = answers[2].answer
    assert "TP 8 x PP 4" in env and "grad accum 128" in env and "2 node(s) x 16 die(s) = 32" in env


def test_a_count_after_bingfa_is_the_concurrency(frame):
    s = frame("qwen2.5-7b-instruct vllm 910B max-model-len 32768 并发 8 几张卡")
    assert (s.seq_len, s.concurrency) == (32768, 8)
    assert frame("qwen2.5-7b vllm 16 并发 8k").concurrency == 16


@pytest.mark.parametrize(("turns", "seconds"), [
    # 500,000 x 1024 x 1 = 512M / (3000 x 8 x 0.9) = 23,704 s; cards doubled: 11,852 s; two more epochs (3): 35,556 s
    (["50万条样本，长度 1024，1 个 epoch，8 卡，每卡 3000 tokens/s，多久", "卡数翻倍呢"], "11,852"),
    (["50万条样本，长度 1024，1 个 epoch，8 卡，每卡 3000 tokens/s，多久", "卡数翻倍呢", "再加两轮呢"], "35,556"),
    # 200,000 x 2048 x 3 = 1,228.8M / (1800 x 8 x 0.9) = 94,815 s (one more epoch, then half the 16 cards)
    (["how long: 200k samples, seq 2048, 2 epochs, 16 cards, 1800 tokens/s per card", "and with one more epoch?",
      "half the cards?"], "94,815"),
])
def test_relative_changes_keep_the_time_question(assistant, turns, seconds):
    answer = converse(assistant, *turns)[-1].answer
    first_line = next(line for line in answer.splitlines() if line.startswith(("**Answer:**", "**结论**")))
    assert seconds in first_line


def test_a_utilisation_said_lower_is_used(frame):
    assert frame("qwen2.5-7b vllm 910B 32k", "gpu util 降到 0.85 呢").gpu_util == 0.85


def test_the_same_layout_on_more_cards_leads_with_its_estimate(assistant):
    """TP 8 x PP 2 on 32 cards: DP = 32 / 16 = 2, GA = 64 / (1 x 2) = 32."""
    answers = converse(assistant, "llama3.1-70b lora 4096 on 16 Snt9B with mindspeed TP 8 PP 2 MBS 1 GBS 64, GA?",
                       "what if 32 cards, same TP PP?")
    lead = answers[1].answer.split("**Answer:**", 1)[1].splitlines()[0]
    assert "TP 8 × PP 2, data parallel 2, gradient accumulation 32" in lead and "on 32 cards" in lead
