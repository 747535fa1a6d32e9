""""What model can I fine-tune on X" and "what max context" are answered by the what_fits tool (whose
values are checked against the planners in tests/tools/test_fits_tools.py): the calls it is asked with
are read from the question, and the answer leads with the figure, bounded by the catalog's limits."""

from __future__ import annotations

import pytest


def calls(ans, tool):
    return [c.args for c in ans.tool_calls if c.name == tool]


def lead(ans) -> str:
    return next(line for line in ans.answer.splitlines() if line.startswith(("**Answer:**", "**结论**")))


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
