"""The agent with scripted chat models (no network): tool adapter, answer records, files, streaming,
input limits and the fallback to the offline planner."""

from __future__ import annotations

import json

import pytest
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage

from assistant.agent import Assistant, LLMUnavailable, langchain_tools
from assistant.answer import ChatTurn
from assistant.context import Context


class ScriptedModel(FakeMessagesListChatModel):
    """FakeMessagesListChatModel replays its responses; the agent needs bind_tools (LangChain 1.x)."""

    def bind_tools(self, tools, **kwargs):
        return self


class BrokenModel(ScriptedModel):
    def _generate(self, *args, **kwargs):
        raise ConnectionError("connection refused by the LLM host")


def call(name, args, i=0):
    return {"name": name, "args": args, "id": f"call-{i}", "type": "tool_call"}


def test_adapter_keeps_names_descriptions_and_schemas(ctx, registry):
    tools = langchain_tools(registry, ctx)
    assert [t.name for t in tools] == registry.names()
    for t in tools:
        reg = registry.get(t.name)
        assert t.description == reg.description
        # the same schema, but a plain object at the root for LLM function calling: no "model or params_b" anyOf
        assert t.args_schema == {k: v for k, v in reg.input_schema().items() if k != "anyOf"}
        assert "anyOf" not in t.args_schema


def test_adapter_returns_the_registry_result_and_error_shape(ctx, registry):
    tool = next(t for t in langchain_tools(registry, ctx) if t.name == "training_recipe")
    msg = tool.invoke(call("training_recipe", {"model": "Qwen2-72B-Instruct", "strategy": "full", "seq_len": 4096}))
    # seed 000: qwen2-72b full 4096 = 4 nodes x 8 cards, ZeRO-3-Offload, GA 4
    assert msg.artifact["total_cards"] == 32 and msg.artifact["deepspeed"] == "ZeRO-3-Offload"
    assert json.loads(msg.content) == msg.artifact
    bad = tool.invoke(call("training_recipe", {"model": "qwen2-72b", "strategy": "sideways"}))
    assert set(bad.artifact) == {"error"} and bad.artifact["error"]["field"] == "strategy"
    assert bad.artifact["error"]["valid"]


def test_scripted_model_runs_the_real_tools(ctx):
    model = ScriptedModel(responses=[
        AIMessage(content="", tool_calls=[call("min_cards", {"model": "llama3.1-70b", "strategy": "full", "seq_len": 8192,
                                                             "framework": "MindSpeed-LLM", "hardware": "Snt9B"})]),
        AIMessage(content="64 cards, from the minimum-card table."),
    ])
    ans = Assistant(ctx, llm=model).ask("用MindSpeed-LLM全参微调llama3.1-70b 8k 最少多少卡")
    assert ans.answer == "64 cards, from the minimum-card table."
    assert ans.model == "ScriptedModel"
    # seed 004: llama3.1-70b full 8192, MindSpeed-LLM on Snt9B = 64
    assert ans.tool_calls[0].result["cards"] == 64 and ans.tool_calls[0].result["unit"] == "card"


def test_generated_configs_become_files(ctx):
    model = ScriptedModel(responses=[
        AIMessage(content="", tool_calls=[call("generate_config", {"model": "llama3-8b", "method": "lora", "seq_len": 8192,
                                                                   "format": "llamafactory_yaml"})]),
        AIMessage(content="Here is the file."),
    ])
    ans = Assistant(ctx, llm=model).ask("yaml for llama3-8b lora 8192")
    names = [f.filename for f in ans.files]
    assert names[0].endswith(".yaml") and any(n.endswith(".json") for n in names[1:])
    assert "cutoff_len: 8192" in ans.files[0].content and "template: llama3" in ans.files[0].content
    assert ans.files[0].format == "llamafactory_yaml"


def test_stream_events_in_order(ctx):
    model = ScriptedModel(responses=[
        AIMessage(content="", tool_calls=[call("resolve_model", {"name": "千问2.5-72B"})]),
        AIMessage(content="qwen2.5-72b"),
    ])
    events = list(Assistant(ctx, llm=model).stream("which model is 千问2.5-72B?"))
    assert [e.kind for e in events][:2] == ["tool_call", "tool_result"]
    assert events[0].name == "resolve_model" and events[0].args == {"name": "千问2.5-72B"}
    assert events[1].result["id"] == "qwen2.5-72b"
    assert events[-1].kind == "final" and events[-1].answer.answer == "qwen2.5-72b"


def test_offline_stream_gives_tool_events_text_and_final(ctx):
    events = list(Assistant(ctx).stream("Which ZeRO stage for full fine-tuning Llama-3-8B?"))
    kinds = [e.kind for e in events]
    assert kinds[0] == "tool_call" and "tool_result" in kinds and kinds[-1] == "final"
    text = "".join(e.text for e in events if e.kind == "text")
    assert text.strip() == events[-1].answer.answer
    assert kinds.count("text") > 1  # the planner streams its answer line by line


def test_failing_llm_falls_back_to_offline(ctx):
    ans = Assistant(ctx, llm=BrokenModel(responses=[])).ask("qwen3-8b lora mindspeed minimum npus")
    assert ans.model == "offline" and "offline planner" in ans.notice and "connection refused" in ans.notice
    assert "**8 cards**" in ans.answer


def test_failing_llm_without_fallback_raises_one_line(ctx):
    strict = Context(settings=ctx.settings.model_copy(update={"llm_fallback": False}), kb=ctx.kb)
    with pytest.raises(LLMUnavailable) as err:
        Assistant(strict, llm=BrokenModel(responses=[])).ask("qwen3-8b lora")
    assert "\n" not in err.value.message and "BrokenModel" in err.value.message


def test_oversized_input_is_cut_with_a_notice(ctx):
    small = Context(settings=ctx.settings.model_copy(update={"max_question_chars": 200}), kb=ctx.kb)
    q = "How many cards to LoRA fine-tune qwen2-72b at 4096? " + "x" * 5000
    ans = Assistant(small).ask(q)
    assert ans.notice and "200" in ans.notice
    assert "**16 cards**" in ans.answer  # seed 000: qwen2-72b lora 4096 = 2 nodes x 8


def test_history_turns_reach_the_model(ctx):
    history = [ChatTurn(role="user", content="qwen2.5-7b lora how many cards?"), ChatTurn(role="assistant", content="...")]
    ans = Assistant(ctx).ask("用MindSpeed呢？", history)
    mc = next(c for c in ans.tool_calls if c.name == "min_cards")
    assert mc.args["model"] == "qwen2.5-7b" and mc.args["strategy"] == "lora"
    assert "MindSpeed-LLM：**2 张卡**" in ans.answer  # seed 004: qwen2.5-7b lora 4096 MindSpeed-LLM Snt9B = 2


def test_warm_up_builds_the_offline_planners_reader_before_the_first_question(ctx):
    # REST warms the assistant before /readyz says ready: an LLM that runs out of its budget is then replaced by the
    # offline planner at once (building its reader on a busy machine took longer than the request's time left)
    from assistant.agent import Assistant

    assistant = Assistant(ctx, llm="offline")
    assistant.warm_up()
    assert assistant._planner is not None and assistant._planner._parser is not None
