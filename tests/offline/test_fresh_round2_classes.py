"""The classes behind the misses of the fresh-question round of 2026-12-04 (round 2, tests/eval/fresh/2026-12-04-round2*),
each tested with wordings of our own: the asked quantity leads (concurrent requests, the longest context on the user's
cards), counts per node ("two machines of 8"), host RAM and PP read, a part's facts without a model, a pasted English
error in a Chinese question, the polarity of "will it OOM?" and "could that be the reason?", and notes chosen by
the question's own words. Expected figures: hardware.csv (Snt9B23: 16 DIE per node, 2 per card), the KV arithmetic
(qwen3-8b: 36 layers x 8 KV heads x 128 x 2 x 2 B = 144 KiB per token) and the batch identity GBS = MBS x DP x GA."""

from __future__ import annotations

from tests.offline.dialog import lead_line as lead


def args_of(ans, tool):
    return [c.args for c in ans.tool_calls if c.name == tool]


def test_how_many_concurrent_requests_leads_with_the_count(assistant):
    ans = assistant.ask("how many concurrent 8k requests can qwen3-8b serve on one 910B?")
    (args,) = args_of(ans, "estimate_inference")
    assert args["largest_layout"] is True and args["max_model_len"] == 8192
    # the estimate's KV room over 8192 tokens a sequence, as the tool reports it
    assert "concurrent sequences of 8192 tokens" in lead(ans)


def test_the_longest_context_on_the_users_ascend_cards_is_searched(assistant):
    ans = assistant.ask("qwen2.5-72b on 8 x 910B, what max context can I set?")
    assert any(a.get("goal") == "context" and a.get("devices") == 8 for a in args_of(ans, "what_fits"))
    assert args_of(ans, "inference_min_cards") and "tokens" in lead(ans)


def test_machines_of_n_cards_are_counted_per_machine(assistant):
    for q, total in (("我有两台8卡H100，想全参 qwen2.5-72b，4096", 16), ("qwen2.5-7b lora, 2张910B x2 节点，4096, 够吗", 4)):
        capped = [a["max_devices"] for a in args_of(assistant.ask(q), "plan_training") if a.get("max_devices")]
        assert capped == [total], (q, capped)


def test_host_ram_is_read_not_taken_for_a_length(assistant):
    ans = assistant.ask("Can I full finetune qwen3-8b on 2 A100 80GB with zero3 offload? 4096 seq, 256GB host RAM")
    assert {a["seq_len"] for a in args_of(ans, "plan_training")} == {4096}
    assert "Host RAM:" in ans.answer and "256 GB" in ans.answer


def test_pipeline_stages_divide_the_data_parallel_size(assistant):
    # 32 cards / (TP 8 x PP 2) = DP 2; GA = 64 / (1 x 2) = 32
    assert assistant.ask("32卡，micro batch 1，TP 8 PP 2，global batch 64，梯度累积设多少").answer.startswith("**梯度累积设为 32**")


def test_parts_without_a_model_get_their_facts(assistant):
    both = assistant.ask("A2 和 A3 有什么区别").answer  # hardware catalog: 8 cards per Snt9B node, 16 DIE = 8 cards per Snt9B23 node
    assert "Atlas A2)**：**每张卡 64 GB**；每节点 8 张卡" in both and "每节点 16 个 DIE（8 张卡）" in both
    unit = assistant.ask("what's the minimum parallel unit on snt9b23?").answer
    assert "the vendor makes 2 DIE (one card) the smallest unit of a parallel strategy" in unit and "Which model" not in unit


def test_a_pasted_english_error_keeps_a_chinese_question_chinese(assistant):
    ans = assistant.ask("vllm 启动报错 ValueError: User-specified max_model_len (65536) is greater than the derived max_model_len，怎么绕过")
    assert lead(ans).startswith("**结论**") and "VLLM_ALLOW_LONG_MAX_MODEL_LEN" in ans.answer


def test_will_it_oom_and_could_that_be_the_reason_are_answered_the_right_way_round(assistant):
    oom = lead(assistant.ask("qwen2.5-7b lora 4096 一张910B 会OOM吗"))
    assert oom.startswith("**结论**：**不会 OOM**") or oom.startswith("**结论**：**会 OOM**")
    cause = lead(assistant.ask("NPU_Flash_Attn is not used in my run; my head dim is 576, could that be the reason?"))
    assert "**Yes, that is the reason: head_dim D = 576 > 512" in cause  # the NPU_Flash_Attn limit D <= 512


def test_a_note_worded_like_the_question_is_the_one_quoted(assistant):
    image = lead(assistant.ask("How do I build a custom training image from a preset pytorch image? I need extra pip packages"))
    assert "(notes: Building a custom training image from a preset image)" in image and "install.sh" not in image
    back = lead(assistant.ask("how do i convert my trained megatron weights back to hugging face format after training?"))
    assert "CONVERT_MG2HF=TRUE" in back


def test_round3_classes(assistant):
    """Fresh round 3 (tests/eval/fresh/2026-12-04-round3*): a rule of thumb asked without a model is a knowledge
    question; "will <job> OOM on <cards>?" is answered yes or no; a memory size asked of a part gets the part's facts
    (hardware.csv: Snt9B 64 GB per card); a Chinese sentence around English identifiers is answered in Chinese."""
    zero = assistant.ask("when should I go from ZeRO-2 to ZeRO-3, and when do I need offload? rule of thumb pls")
    assert "Which model" not in zero.answer and args_of(zero, "search_notes")
    oom = lead(assistant.ask("will qwen2.5-7b full fine-tuning at 8192 OOM on 4 910B cards?"))
    assert oom.startswith(("**Answer:** **No OOM expected**", "**Answer:** **Yes, it would run out of memory**",
                           "**Answer:** **It may run out of memory**",  # a tight plan is not a plain no
                           "**Answer:** **It may run out of memory only if attention falls back**"))  # Ascend, kernel open
    assert "**每张卡 64 GB**" in assistant.ask("910B 单卡显存是32G还是64G").answer
    vllm = assistant.ask("vllm启动报错 max_model_len is greater than the derived max_model_len，怎么办")
    assert lead(vllm).startswith("**结论**")
    back = lead(assistant.ask("mindspeed训练完的权重怎么转回huggingface格式拿去推理"))
    assert "CONVERT_MG2HF=TRUE" in back
