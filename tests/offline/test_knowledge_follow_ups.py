"""Knowledge follow-ups keep the conversation's topic, and a how-to naming a model is answered from the notes (helper
knowfollow9, fresh round 17 class 7: c7-06.2/.3, c7-11.2, c7-12.3, c7-09.1). The topic is carried like a slot
(conversation.howto_follow_up, carry.toml [howto]): a follow-up naming the topic's note among others, judged out of scope on
its own few words, or stating a count as the topic's condition stays on it; the note the last answer quoted answers it,
with the piece its own words ask, not the lead said before (note_pick.follow_up_fact). Facts are the vendor pages' as the
notes hold them (../shared/research/modelarts_pages.md): Token valid 24 h, AK/SK, APP never expires, the API key in the
`api_key` field of the downloaded CSV (inference-modelarts-0097, inference2.0-modelarts-0010), a prediction request at
most 40 s through the API gateway (inference-modelarts-0105), the Pending page's scheduler restart
(modelarts_llm_train_c_5910043), the checkpoint-save timeout that does not affect the saved weights, NODE_RANK 0 on the
master; seeds/004: DeepSeek-V3/R1 has '-' (not supported) for LLaMA-Factory and 64 cards for LoRA 4096 on MindSpeed-LLM."""

from __future__ import annotations

import pytest

from assistant.notes import limit_checks

from .dialog import converse, lead

OUT_OF_SCOPE = ("That is outside what I do", "这不在我能回答的范围内")
WHICH_MODEL = ("Which model", "是哪个模型", "已记下")


def tools(ans) -> set[str]:
    return {c.name for c in ans.tool_calls}


PUBLIC = "my real-time service on ModelArts must be callable from the internet, how do I set that up?"


@pytest.mark.parametrize(("follow_up", "facts"), [
    # no word of the note's: judged out of scope on its own, read with the topic
    ("what auth options do I have?", ("Token", "AK/SK", "APP")),
    # "how long" names the training-time note too; the topic's note holds the Token line
    ("and how long is a token valid?", ("24 h",)),
    ("which one of those never expires?", ("**APP**", "never expires")),
    ("where do I find the API key itself?", ("`api_key` field", "CSV")),
])
def test_a_follow_up_of_the_public_access_topic_is_answered_from_its_note(assistant, follow_up, facts):
    ans = converse(assistant, PUBLIC, follow_up)[-1]
    assert tools(ans) == {"search_notes"} and not any(w in ans.answer for w in OUT_OF_SCOPE), ans.answer[:300]
    assert all(f in lead(ans.answer) for f in facts), lead(ans.answer)[:400]


def test_a_count_stated_as_the_topics_condition_asks_no_sizing(assistant):
    """"卡数够但还是 Pending": the cards are enough by the user's words; the Pending note's other causes answer it."""
    ans = converse(assistant, "作业一直 Pending，集群一共 8 张卡，我申请了 16 张", "那如果卡数够但还是 Pending 呢")[-1]
    assert tools(ans) == {"search_notes"} and not any(w in ans.answer for w in WHICH_MODEL), ans.answer[:300]
    assert "scheduler" in lead(ans.answer) and "kubectl describe pod" in lead(ans.answer)


def test_a_follow_up_does_not_lead_with_the_piece_said_before(assistant):
    """MASTER_ADDR was answered from the launch-script note; "NODE_RANK 呢" gets the line saying what NODE_RANK is set to."""
    first, ans = converse(assistant, "多机训练 MASTER_ADDR 该怎么设", "NODE_RANK 呢")
    assert "主节点为 0" in lead(ans.answer) and lead(ans.answer) != lead(first.answer)


def test_a_follow_up_in_few_words_gets_the_line_it_asks(assistant):
    ans = converse(assistant, "at the end of training on 4 nodes the ckpt save throws a timeout error",
                   "does that error damage the saved weights?")[-1]
    assert tools(ans) == {"search_notes"}
    assert "does not affect the weights that were actually saved" in lead(ans.answer)


def test_a_value_said_as_exceeded_is_past_the_limit():
    """"超过 40 秒" is more than 40 s: past the gateway's 40 s maximum (inference-modelarts-0105), not within it."""
    (check,) = limit_checks("那一个请求跑超过 40 秒会怎样", "单次预测请求的时长最长 **40 s**")
    assert check.kind == "max" and check.breaks
    (within,) = limit_checks("一个请求跑 30 秒可以吗", "单次预测请求的时长最长 **40 s**")
    assert not within.breaks


@pytest.mark.parametrize("follow_up", ["could LlamaFactory run that instead of MindSpeed?",
                                       "would llama factory be able to handle this model too, swapping out mindspeed?"])
def test_the_other_framework_asked_after_a_job_is_its_table_cell(assistant, follow_up):
    """seeds/004: DeepSeek-V3/R1 LoRA 4096 is '-' for LLaMA-Factory, 64 cards on MindSpeed-LLM; "MindSpeed" names the
    framework, not the offline-package note (which clones a MindSpeed commit)."""
    ans = converse(assistant, "deepseek-r1 lora 4096 on snt9b via mindspeed-llm, how many cards?", follow_up)[-1]
    first = lead(ans.answer)
    assert "LLaMA-Factory is **not supported**" in first and "**64 cards**" in first, first[:300]
    assert "offline" not in ans.answer.lower()


@pytest.mark.parametrize(("question", "fact"), [
    ("walk me through what the one-click script does for llama2-13b lora on ModelArts", "one-click script"),
    ("baichuan2-13b 的启动脚本里 SN 是啥意思", "样本数"),
    ("for qwen2-7b pretraining on ModelArts, where do the preprocessed data files end up?", "USER_PROCESSED_DATA_DIR"),
    # a script named beside the procedure ("pretrain script") is its setting, no config file asked (round 17 c7-09.1)
    ("how does dataset preprocessing work for the llama2-13b pretrain script?", "1_preprocess_data.sh"),
])
def test_a_how_to_naming_a_model_is_answered_from_the_notes(assistant, question, fact):
    ans = assistant.ask(question)
    assert tools(ans) == {"search_notes"}, tools(ans)
    assert fact in lead(ans.answer), lead(ans.answer)[:300]


def test_a_procedure_asked_of_the_job_just_sized_is_the_notes(assistant):
    """After a MindSpeed-LLM count, "how are the HF weights converted for that run?" is the launch-script note's
    conversion (2_convert_mg_hf.sh, hf2hg; TP/PP must match the converted weights), not the count again."""
    ans = converse(assistant, "qwen2.5-14b full 4096 mindspeed on snt9b how many cards",
                   "ok and how are the HF weights converted for that run?")[-1]
    assert "2_convert_mg_hf.sh" in lead(ans.answer) and "hf2hg" in lead(ans.answer), lead(ans.answer)[:300]


@pytest.mark.parametrize(("turns", "fact"), [
    # the Token line over the APP line that shares only "过期"
    (("在线服务怎么从公网调用", "那 token 多久过期"), "24 h"),
    # the line the answer before gave is the one asked about again
    (("how do I set MASTER_ADDR for a 2-node MindSpeed run?", "does every node need the same value?"), "same on every node"),
    (("ZeRO-3 是什么", "那 ZeRO-2 呢"), "切分梯度"),
])
def test_the_line_a_short_follow_up_asks_leads(assistant, turns, fact):
    ans = converse(assistant, *turns)[-1]
    assert fact in lead(ans.answer), lead(ans.answer)[:300]


def test_a_request_outside_the_scope_after_a_howto_topic_stays_outside(assistant):
    """A question on the topic is read with it; a request of another kind is still said to be outside the scope."""
    ans = converse(assistant, PUBLIC, "recommend me some good running earphones please")[-1]
    assert ans.answer.startswith(OUT_OF_SCOPE[0]) and not ans.tool_calls
