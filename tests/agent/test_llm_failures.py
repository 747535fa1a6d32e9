"""Real models' failures, scripted in the fake OpenAI-compatible endpoint (issue 27), each with the
product's handling: no answer shows a number no tool gave without its mark, and none ends as
"(the model returned no answer)". The real ChatOpenAI client and LangChain agent loop run here;
the front ends share this layer (their own tests: tests/frontends/test_llm_frontends.py)."""

from __future__ import annotations

import json

import pytest

from assistant.agent import Assistant, LLMUnavailable
from assistant.answer import ChatTurn
from assistant.context import Context
from tests.agent.fake_openai import FakeOpenAI, last_tool_result, sequence

QWEN3_8B = "qwen3-8b lora mindspeed minimum npus"  # seed 004: qwen3-8b lora 4096, MindSpeed-LLM on Snt9B = 8 cards
QWEN3_8B_ARGS = {"model": "qwen3-8b", "strategy": "lora", "seq_len": 4096, "framework": "MindSpeed-LLM", "hardware": "Snt9B"}
NO_ANSWER = "(the model returned no answer)"


def assistant(ctx, srv, **overrides) -> Assistant:
    settings = ctx.settings.model_copy(update={"llm": "openai:small-model", "llm_base_url": srv.base_url, **overrides})
    return Assistant(Context(settings=settings, kb=ctx.kb))


def answered_offline(ans, *reason: str) -> None:
    assert ans.model == "offline", ans
    assert "**8 cards**" in ans.answer  # the offline planner's own answer from the vendor table
    assert ans.notice and "offline planner" in ans.notice
    for r in reason:
        assert r in ans.notice, ans.notice
    assert NO_ANSWER not in ans.answer


def answer_from_tool(body):
    """Answer from the min_cards result the agent sent back, as a well-behaved model does."""
    result = last_tool_result(body)
    return {"content": f"You need {result['cards']} {result['unit']}s (ModelArts minimum-card table, MindSpeed-LLM, Snt9B)."}


# ---------------------------------------------------------------- no tool call, invented numbers
def test_invented_numbers_are_replaced_by_the_offline_answer_with_the_figures_named(ctx, free_port):
    with FakeOpenAI(sequence({"content": "A Snt9B node costs approximately 0.18 dollars. You need 12 nodes."}), free_port) as srv:
        ans = assistant(ctx, srv).ask(QWEN3_8B)
    answered_offline(ans, "0.18", "12", "no tool returned")
    assert "0.18" not in ans.answer and "12 nodes" not in ans.answer


def test_support_claim_without_a_table_is_replaced(ctx, free_port):
    q = "Does LLaMA-Factory support DeepSeek-V3 on ModelArts?"
    with FakeOpenAI(sequence({"content": "LLaMA-Factory does not support DeepSeek-V3 on ModelArts."}), free_port) as srv:
        ans = assistant(ctx, srv).ask(q)
    assert ans.model == "offline" and "does not support" in ans.notice
    assert any(c.name == "min_cards" for c in ans.tool_calls)  # the planner read the table for its answer


def test_where_the_planner_cannot_answer_the_figures_are_marked(ctx, free_port):
    with FakeOpenAI(sequence({"content": "Sure! There are 12 kinds of nodes, and 7 of them are funny."}), free_port) as srv:
        ans = assistant(ctx, srv).ask("tell me a joke")
    assert ans.model == "openai:small-model"
    assert ans.answer == "Sure! There are 12 [not from a tool] kinds of nodes, and 7 [not from a tool] of them are funny."
    assert "12, 7" in ans.notice


def test_without_the_fallback_ungrounded_figures_are_marked(ctx, free_port):
    with FakeOpenAI(sequence({"content": "你需要12个节点。"}), free_port) as srv:
        ans = assistant(ctx, srv, llm_fallback=False).ask("qwen3-8b lora 需要几个节点")
    assert ans.answer == "你需要12［未经工具核实］个节点。" and "12" in ans.notice


def test_grounding_check_can_be_turned_off(ctx, free_port):
    with FakeOpenAI(sequence({"content": "You need 12 nodes."}), free_port) as srv:
        ans = assistant(ctx, srv, grounding_check=False).ask(QWEN3_8B)
    assert ans.answer == "You need 12 nodes." and ans.notice is None


# ---------------------------------------------------------------- tool calls written as text
TEXT_CALLS = {
    "json code block": "```json\n" + json.dumps({"name": "min_cards", "arguments": QWEN3_8B_ARGS}) + "\n```",
    "tool_call tags": "<tool_call>\n" + json.dumps({"name": "min_cards", "arguments": QWEN3_8B_ARGS}) + "\n</tool_call>",
    "llama python_tag": "<|python_tag|>" + json.dumps({"name": "min_cards", "parameters": QWEN3_8B_ARGS}),
    "mistral TOOL_CALLS": "[TOOL_CALLS] " + json.dumps([{"name": "min_cards", "arguments": QWEN3_8B_ARGS}]),
}


@pytest.mark.parametrize("form", list(TEXT_CALLS))
def test_tool_calls_written_as_text_are_run(ctx, free_port, form):
    def script(body):
        return answer_from_tool(body) if last_tool_result(body) else {"content": TEXT_CALLS[form]}

    with FakeOpenAI(script, free_port) as srv:
        ans = assistant(ctx, srv).ask(QWEN3_8B)
    assert ans.model == "openai:small-model" and ans.notice is None
    assert ans.answer == "You need 8 cards (ModelArts minimum-card table, MindSpeed-LLM, Snt9B)."
    assert [c.name for c in ans.tool_calls] == ["min_cards"] and ans.tool_calls[0].result["cards"] == 8
    assert srv.requests[1]["messages"][-1]["role"] == "tool"  # the result went back to the model as a tool message


def test_unreadable_tool_call_text_is_sent_back_then_given_up(ctx, free_port):
    broken = '```json\n{"name": "min_cards", "arguments": {model: qwen3-8b}\n```'
    with FakeOpenAI(sequence({"content": broken}), free_port) as srv:
        ans = assistant(ctx, srv).ask(QWEN3_8B)
    answered_offline(ans, "not valid JSON")
    assert len(srv.requests) == 3  # the first reply and two corrections (llm_max_corrections = 2)
    correction = srv.requests[1]["messages"][-1]
    assert correction["role"] == "user" and "could not be used" in correction["content"]


# ---------------------------------------------------------------- unknown tools, wrong and malformed arguments
def test_unknown_tool_goes_back_to_the_model_with_the_valid_names(ctx, free_port):
    def script(body):
        result = last_tool_result(body)
        if result is None:
            return {"tool_calls": [("get_cards", {"model": "qwen3-8b"})]}
        if "min_cards" in json.dumps(result) and "cards" not in result:  # the error listed the tools
            return {"tool_calls": [("min_cards", QWEN3_8B_ARGS)]}
        return answer_from_tool(body)

    with FakeOpenAI(script, free_port) as srv:
        ans = assistant(ctx, srv).ask(QWEN3_8B)
    assert ans.model == "openai:small-model" and "8 cards" in ans.answer
    error = next(m for m in srv.requests[1]["messages"] if m["role"] == "tool")["content"]
    assert "get_cards" in error and "min_cards" in error and "training_recipe" in error


def test_wrong_arguments_are_bounded_then_the_offline_planner_answers(ctx, free_port):
    with FakeOpenAI(sequence({"tool_calls": [("min_cards", {"model": "qwen3-8b", "strategy": "sideways"})]}), free_port) as srv:
        ans = assistant(ctx, srv).ask(QWEN3_8B)
    answered_offline(ans, "kept calling tools wrongly")
    first_error = json.loads(next(m for m in srv.requests[1]["messages"] if m["role"] == "tool")["content"])["error"]
    assert first_error["field"] == "strategy" and "lora" in first_error["valid"]  # the valid values went to the model
    assert len(srv.requests) == 3  # three bad rounds (the limit of two corrections), then no more requests


def test_malformed_arguments_are_corrected_once(ctx, free_port):
    script = sequence({"raw_tool_calls": [("min_cards", '{"model": "qwen3-8b", "strategy": lora')]},
                      {"tool_calls": [("min_cards", QWEN3_8B_ARGS)]})

    def reply(body):
        return answer_from_tool(body) if last_tool_result(body) else script(body)

    with FakeOpenAI(reply, free_port) as srv:
        ans = assistant(ctx, srv).ask(QWEN3_8B)
    assert ans.model == "openai:small-model" and "8 cards" in ans.answer
    assert "not valid JSON" in srv.requests[1]["messages"][-1]["content"]


def test_malformed_arguments_every_time_fall_back(ctx, free_port):
    with FakeOpenAI(sequence({"raw_tool_calls": [("min_cards", "{model: qwen3-8b")]}), free_port) as srv:
        ans = assistant(ctx, srv).ask(QWEN3_8B)
    answered_offline(ans, "not valid JSON")


# ---------------------------------------------------------------- replies that are not answers
@pytest.mark.parametrize("reply, reason", [
    ({"content": ""}, "empty reply"),
    ({"content": "You need 8 cards for", "finish_reason": "length"}, "token limit"),
    ({"content": "The answer is 8 cards. " * 60}, "repeats itself"),
    ({"content": "x" * 300_000}, "20,000 characters"),
    ({"content": "You need 8 cards because " * 10, "drop_after": 3}, "stream ended before the model finished"),
])
def test_replies_that_are_not_answers_fall_back(ctx, free_port, reply, reason):
    with FakeOpenAI(sequence(reply), free_port) as srv:
        ans = assistant(ctx, srv).ask(QWEN3_8B)
    answered_offline(ans, reason)


def test_runaway_reply_is_cut_while_it_streams(ctx, free_port):
    with FakeOpenAI(sequence({"content": "x" * 300_000, "piece_delay": 0.001}), free_port) as srv:
        ans = assistant(ctx, srv).ask(QWEN3_8B)
    answered_offline(ans, "passed 20,000 characters")
    assert srv.finished == 0  # the agent closed the stream: the server could not write the rest (no runaway generation)


def test_without_the_fallback_a_bad_reply_is_one_clear_error(ctx, free_port):
    with FakeOpenAI(sequence({"content": ""}), free_port) as srv, pytest.raises(LLMUnavailable) as err:
        assistant(ctx, srv, llm_fallback=False).ask(QWEN3_8B)
    assert "empty reply" in err.value.message and "\n" not in err.value.message


# ---------------------------------------------------------------- the endpoint itself
@pytest.mark.parametrize("reply, reason", [
    ({"status": 500}, "Error code: 500"),
    ({"body": "<html>Bad gateway</html>"}, "not an OpenAI-compatible chat completion"),
    ({"sleep": 30, "content": "late"}, "timed out"),
])
def test_endpoint_failures_fall_back_without_retrying(ctx, free_port, reply, reason):
    with FakeOpenAI(sequence(reply), free_port) as srv:
        ans = assistant(ctx, srv, llm_timeout_s=1).ask(QWEN3_8B)
    answered_offline(ans, reason)
    assert len(srv.requests) == 1  # no retry: the budget is the product's, not the client library's


def test_step_limit(ctx, free_port):
    with FakeOpenAI(sequence({"tool_calls": [("min_cards", QWEN3_8B_ARGS)]}), free_port) as srv:
        ans = assistant(ctx, srv, llm_max_steps=3).ask(QWEN3_8B)
    answered_offline(ans, "more than 3 steps")
    assert len(srv.requests) == 3


def test_wall_clock_budget(ctx, free_port):
    with FakeOpenAI(sequence({"sleep": 0.6, "tool_calls": [("min_cards", QWEN3_8B_ARGS)]}), free_port) as srv:
        ans = assistant(ctx, srv, llm_budget_s=1).ask(QWEN3_8B)
    answered_offline(ans, "time budget of 1 s")
    assert len(srv.requests) == 2  # the third model call was not made: the budget had run out


# ---------------------------------------------------------------- the conversation as a source
def test_a_follow_up_may_use_the_figures_of_the_conversation(ctx, free_port):
    # seed 004: qwen2.5-72b lora 4096, LLaMA-Factory on Snt9B = 32 cards (said in the earlier answer);
    # 32 cards / 8 per node = 4 nodes is worked out, not invented
    history = [ChatTurn(role="user", content="Minimum cards for Qwen2.5-72B LoRA with LLaMA-Factory on Snt9B?"),
               ChatTurn(role="assistant", content="32 cards (ModelArts minimum-card table, 2025-06-24).")]
    with FakeOpenAI(sequence({"content": "32 cards are 4 nodes of 8."}), free_port) as srv:
        ans = assistant(ctx, srv).ask("how many nodes is that?", history)
    assert ans.model == "openai:small-model" and ans.answer == "32 cards are 4 nodes of 8." and ans.notice is None
    # a figure the earlier answer showed marked grounds nothing
    history[1] = ChatTurn(role="assistant", content="About 12 [not from a tool] nodes.")
    with FakeOpenAI(sequence({"content": "Yes, 12 nodes."}), free_port) as srv:
        ans = assistant(ctx, srv, llm_fallback=False).ask("so how many nodes?", history)
    assert ans.answer == "Yes, 12 [not from a tool] nodes." and "12" in ans.notice
