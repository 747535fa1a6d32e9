"""The LLM path end to end: a local OpenAI-compatible server (loopback) scripts tool calls, the
real ChatOpenAI client and the LangChain agent loop run them, and the final text is written from
the tool result the server received, proving tool results reach the answer. Failures of the
endpoint give one clear line or the offline planner with a notice."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from assistant.agent import Assistant, LLMUnavailable
from assistant.context import Context
from tests.agent.fake_openai import FakeOpenAI, last_tool_result

SIZING = str(Path(sys.executable).parent / "sizing")


def llm_ctx(ctx, **overrides) -> Context:
    """The session's knowledge base with other LLM settings."""
    return Context(settings=ctx.settings.model_copy(update=overrides), kb=ctx.kb)


def min_cards_script(body):
    """Ask min_cards once, then answer with the card count the tool returned."""
    result = last_tool_result(body)
    if result is None:
        return {"tool_calls": [("min_cards", {"model": "Qwen2.5-72B-Instruct", "strategy": "lora", "seq_len": 4096,
                                              "framework": "LLaMA-Factory", "hardware": "Snt9B"})]}
    if "error" in result:
        return {"content": f"tool error: {result['error']['code']}"}
    return {"content": f"You need {result['cards']} {result['unit']}s (ModelArts minimum-card table, LLaMA-Factory, Snt9B)."}


def test_tool_result_reaches_the_final_answer(ctx, free_port):
    with FakeOpenAI(min_cards_script, free_port) as srv:
        a = Assistant(llm_ctx(ctx, llm="openai:fake-model", llm_base_url=srv.base_url, llm_fallback=False))
        assert a.model_name == "openai:fake-model"
        ans = a.ask("Minimum cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?")
    # the vendor table (seed 004): qwen2.5-72b lora 4096, LLaMA-Factory on Snt9B = 32 cards
    assert ans.answer.startswith("You need 32 cards"), ans.answer
    assert ans.model == "openai:fake-model" and ans.notice is None
    assert [c.name for c in ans.tool_calls] == ["min_cards"]
    assert ans.tool_calls[0].result["cards"] == 32
    first, second = srv.requests
    # the model saw our system prompt and the registry's tools with their (compact) JSON schemas, max_tokens and streaming
    assert first["messages"][0]["role"] == "system" and "Every number" in first["messages"][0]["content"]
    names = {t["function"]["name"] for t in first["tools"]}
    assert {"min_cards", "training_recipe", "resolve_model", "search_notes"} <= names
    mc = next(t["function"] for t in first["tools"] if t["function"]["name"] == "min_cards")
    assert mc["parameters"]["properties"]["framework"]["enum"] == ["MindSpeed-LLM", "LLaMA-Factory"]
    assert first["max_tokens"] == first["max_completion_tokens"] == 1024 and first["stream"] is True
    # the tool result went back to the model as a tool message
    assert second["messages"][-1]["role"] == "tool" and '"cards": 32' in second["messages"][-1]["content"]


def test_streaming_through_the_endpoint(ctx, free_port):
    with FakeOpenAI(min_cards_script, free_port) as srv:
        a = Assistant(llm_ctx(ctx, llm="fake-model", llm_base_url=srv.base_url, llm_fallback=False))
        events = list(a.stream("Minimum cards for Qwen2.5-72B LoRA with LLaMA-Factory?"))
    kinds = [e.kind for e in events]
    assert kinds[0] == "tool_call" and "tool_result" in kinds and kinds[-1] == "final"
    # the server streamed the answer in 8-character pieces; the agent shows it once it passed the checks
    assert kinds.count("text") == 1
    assert "".join(e.text for e in events if e.kind == "text") == events[-1].answer.answer
    assert "32 cards" in events[-1].answer.answer
    assert any(r.get("stream") for r in srv.requests)


def test_bad_arguments_from_the_llm_come_back_as_the_canonical_error(ctx, free_port):
    def script(body):
        result = last_tool_result(body)
        if result is None:
            return {"tool_calls": [("min_cards", {"model": "qwen2.5-72b", "seq_len": -5}), ("no_such_tool", {})]}
        return {"content": "done"}

    with FakeOpenAI(script, free_port) as srv:
        ans = Assistant(llm_ctx(ctx, llm="openai:x", llm_base_url=srv.base_url, llm_fallback=False)).ask("q")
    assert ans.answer == "done"
    bad = ans.tool_calls[0].result["error"]
    assert bad["code"] == "invalid_arguments" and bad["field"] == "seq_len"
    tool_msgs = [m for m in srv.requests[1]["messages"] if m["role"] == "tool"]
    assert len(tool_msgs) == 2 and "no_such_tool" in tool_msgs[1]["content"]


def test_unreachable_endpoint_falls_back_to_offline_with_a_notice(ctx, free_port):
    dead = f"http://127.0.0.1:{free_port}/v1"  # nothing listens here
    a = Assistant(llm_ctx(ctx, llm="openai:x", llm_base_url=dead, llm_fallback=True, llm_timeout_s=5))
    ans = a.ask("qwen3-8b lora mindspeed minimum npus")
    assert ans.model == "offline"
    assert "cannot reach the endpoint" in ans.notice and "offline planner" in ans.notice
    assert "**8 cards**" in ans.answer  # seed 004: qwen3-8b lora 4096, MindSpeed-LLM on Snt9B = 8


def test_unreachable_endpoint_without_fallback_is_one_clear_error(ctx, free_port):
    dead = f"http://127.0.0.1:{free_port}/v1"
    a = Assistant(llm_ctx(ctx, llm="openai:x", llm_base_url=dead, llm_fallback=False, llm_timeout_s=5))
    with pytest.raises(LLMUnavailable) as err:
        a.ask("qwen3-8b lora")
    assert "cannot reach the endpoint" in err.value.message and "\n" not in err.value.message


def test_missing_api_key(ctx, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(LLMUnavailable) as err:
        Assistant(llm_ctx(ctx, llm="openai:gpt-4o-mini", llm_base_url=None, llm_api_key=None, llm_fallback=False))
    assert "missing API key" in err.value.message
    a = Assistant(llm_ctx(ctx, llm="openai:gpt-4o-mini", llm_base_url=None, llm_api_key=None, llm_fallback=True))
    ans = a.ask("Which ZeRO stage for full fine-tuning Llama-3-8B?")
    assert ans.model == "offline" and "missing API key" in ans.notice
    assert "ZeRO-2" in ans.answer  # seed 000: llama3-8b full = ZeRO-2


def test_missing_provider_package_is_one_line(ctx):
    with pytest.raises(LLMUnavailable) as err:
        Assistant(llm_ctx(ctx, llm="some-unknown-provider:model", llm_base_url=None, llm_fallback=False))
    assert "\n" not in err.value.message


def test_cli_reports_an_unreachable_endpoint_in_one_line(tmp_path, free_port):
    env = {**os.environ, "SIZING_CACHE_DIR": str(tmp_path), "SIZING_LLM": "openai:x",
           "SIZING_LLM_BASE_URL": f"http://127.0.0.1:{free_port}/v1", "SIZING_LLM_FALLBACK": "false"}
    p = subprocess.run([SIZING, "ask", "qwen3-8b lora"], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "cannot reach the endpoint" in lines[0]
    # with the fallback (the default) the same command answers offline and says so
    env["SIZING_LLM_FALLBACK"] = "true"
    p = subprocess.run([SIZING, "ask", "--json", "qwen3-8b lora mindspeed minimum npus"], capture_output=True, text=True,
                       env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert '"model": "offline"' in p.stdout and "offline planner" in p.stdout
