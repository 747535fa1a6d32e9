""""What model can I fine-tune on X" and "what max context" are answered by the what_fits tool (whose
values are checked against the planners in tests/tools/test_fits_tools.py): the calls it is asked with
are read from the question, and the answer leads with the figure, bounded by the catalog's limits."""

from __future__ import annotations

import pytest

from tests.offline.dialog import lead_line as lead


def calls(ans, tool):
    return [c.args for c in ans.tool_calls if c.name == tool]


@pytest.mark.parametrize("q,args", [
    ("what model can I fully fine-tune on a single A100 80GB?",
     {"goal": "model", "workload": "training", "hardware": "a100-80g", "devices": 1, "method": "full", "seq_len": 4096}),
    ("单卡4090最大能跑多大的模型", {"goal": "model", "workload": "training", "hardware": "rtx4090-24g", "devices": 1,
                          "method": "lora", "seq_len": 4096}),
    ("What's the biggest model I can serve on 2 H100s?",
     {"goal": "model", "workload": "inference", "hardware": "h100-80g", "devices": 2, "seq_len": 4096}),
])
def test_largest_model_questions_search_the_catalog(assistant, q, args):
    ans = assistant.ask(q)
    assert calls(ans, "what_fits") == [args]
    assert not calls(ans, "plan_training") and not calls(ans, "min_cards")  # nothing sized at a default model


@pytest.mark.parametrize("q,model,limit,lang", [
    # models.csv max_context: gemma2-27b 8192, internlm2.5-20b 32768 (each config's max_position_embeddings)
    ("gemma2-27b serving on 2x L40S, what max context?", "gemma2-27b", "8,192", "en"),
    ("InternLM2.5-20B 推理 用 vLLM，单卡 Snt9B 能跑多长上下文？", "internlm2.5-20b", "32,768", "zh"),
])
def test_max_context_leads_with_the_model_limit_when_it_binds(assistant, q, model, limit, lang):
    ans = assistant.ask(q)
    (args,) = calls(ans, "what_fits")
    assert (args["goal"], args["workload"], args["model"]) == ("context", "inference", model)
    assert limit in lead(ans) and model in lead(ans)
    assert ("max_context" in lead(ans)) and (("上限" in lead(ans)) if lang == "zh" else ("own limit" in lead(ans)))
    assert not calls(ans, "estimate_inference")  # no 4096-token plan beside the longest-context answer


def test_a_given_length_is_not_a_max_context_question(assistant):
    ans = assistant.ask("qwen2.5-7b serving, max context 32768, how many 910B cards?")
    assert not calls(ans, "what_fits")


@pytest.mark.parametrize("earlier,q,hardware,devices", [
    ("Can I full fine-tune Llama-3-8B on 4 A100 80G at 8k?", "What model fits on one A100 80GB?", "a100-80g", 1),
    ("qwen2.5-72b lora 4096 on snt9b 最少几张卡", "单卡4090最大能跑多大的模型", "rtx4090-24g", 1),
    ("qwen2.5-72b lora 4096 on snt9b 最少几张卡", "what is the biggest model I can fine-tune on 8 H100?", "h100-80g", 8),
])
def test_which_model_fits_after_an_earlier_model_searches_the_catalog(assistant, earlier, q, hardware, devices):
    """Asking which model fits asks for a model: the earlier conversation's model is not carried into it."""
    from tests.offline.dialog import converse

    _, ans = converse(assistant, earlier, q)
    (args,) = calls(ans, "what_fits")
    assert (args["goal"], args["hardware"], args["devices"]) == ("model", hardware, devices) and "model" not in args
    assert not calls(ans, "plan_training") and not calls(ans, "min_cards")
    assert "llama3-8b" not in lead(ans) and "qwen2.5-72b" not in lead(ans)


@pytest.mark.parametrize("q,head", [
    ("What is the longest context for qwen2.5-7b serving on 8 Snt9B?", "ModelArts vLLM inference table, for comparison"),
    ("8张Snt9B部署qwen2.5-7b最长上下文是多少？", "ModelArts vLLM 推理表（厂商实测的长度，不是上限），供对照"),
])
def test_longest_context_on_ascend_is_searched_with_no_yes_or_no(assistant, q, head):
    """Issue 24: the searched length leads (the model's own limit binds before 8 cards' memory: with no variant named,
    Qwen2.5-7B-Instruct's config.json, max_position_embeddings 32768, not the base's 131072; round 9 class 2); the vLLM
    table's tested 32768 follows as a comparison, not a "Yes, your 8 cards cover it"."""
    ans = assistant.ask(q)
    assert calls(ans, "what_fits")[0]["goal"] == "context"
    assert "32,768" in lead(ans) and "Qwen2.5-7B-Instruct" in lead(ans) and "131,072" not in lead(ans)
    assert "**Yes.**" not in ans.answer and "**够**" not in ans.answer, ans.answer
    assert head in ans.answer and "32768" in ans.answer.split(head)[1]


@pytest.mark.parametrize("q,tp", [
    ("llama-3.2-3b vllm with tp 4 on snt9b, how long a context can I serve?", 4),
    ("qwen2.5-72b 用 vllm tp 8 在 910B 上最长能开多长上下文", 8),
])
def test_a_stated_serving_tp_is_the_instance_searched(assistant, q, tp):
    """"vllm tp 4": one instance of TP 4 holds a sequence, so the longest context is searched on that layout (on tp
    devices when no count is said) and the TP is used, never listed as a training-only setting left unused."""
    ans = assistant.ask(q)
    (args,) = calls(ans, "what_fits")
    assert args["tp"] == tp and args["devices"] == tp and args["workload"] == "inference"
    assert f"TP {tp}" in ans.answer
    assert "Not used" not in ans.answer and "未使用" not in ans.answer


def test_a_context_search_on_more_devices_than_the_plan_needs_says_so(assistant):
    # qwen2.5-72b's own limit is 32,768; the newest vLLM table serves that on 4 cards (modelarts_llm_infer_5910003), so
    # on 8 the plan line names its 4 and what the other 4 are for, instead of a TP 4 plan under "8 cards"
    ans = assistant.ask("qwen2.5-72b vllm on 8 910B cards, longest context?")
    line = next(ln for ln in ans.answer.splitlines() if ln.startswith("- Plan (estimate_inference)"))
    assert "TP 4 on 4 cards already serves max-model-len 32,768" in line and "the rest of your 8 cards" in line
