"""Config requests routed to generate_config with the right format and framework (the file shown as
a code block), and "which models does <framework> support" answered from that framework's rows.
Numbers are the vendor tables' (hand-typed seeds 000 and 004, tests/seedfiles.py)."""

from __future__ import annotations

import re

import pytest

from tests.seedfiles import min_cards_rows, recipe_rows


def calls(ans, tool):
    return [c.args for c in ans.tool_calls if c.name == tool]


@pytest.mark.parametrize("q,fmt,framework,fence,content", [
    ("给我 qwen2.5-72b lora 4096 的 MindSpeed 启动变量", "mindspeed_env", "MindSpeed-LLM", "bash", r"export TP=\d+"),
    ("MindSpeed env for llama3.1-70b full 8k", "mindspeed_env", "MindSpeed-LLM", "bash", r"export SEQ_LEN=8192"),
    ("MindSpeed-LLM environment variables for qwen3-8b LoRA", "mindspeed_env", "MindSpeed-LLM", "bash", r"export FINETUNING_TYPE=lora"),
    ("launch command for qwen2-7b lora on 2 nodes", "launch", "LLaMA-Factory", "bash", r"NNODES=2 NODE_RANK=1"),
    ("MindSpeed 启动脚本 qwen2.5-7b lora", "launch", "MindSpeed-LLM", "bash", r"#!/usr/bin/env bash"),
    ("LLaMA-Factory env variables for qwen2-7b full", "launch", "LLaMA-Factory", "bash", r"llamafactory-cli train"),
    # seed 000: Qwen2 7B full = ZeRO-2
    ("deepspeed json for qwen2-7b full", "deepspeed_json", "LLaMA-Factory", "json", r'"stage": 2'),
    ("给我 llama3-8b 全参 的 deepspeed json", "deepspeed_json", "LLaMA-Factory", "json", r'"stage": 2'),
    ("LLaMA-Factory yaml for qwen2-7b lora 8k", "llamafactory_yaml", "LLaMA-Factory", "yaml", r"cutoff_len: 8192"),
    # a DeepSpeed/YAML word with MindSpeed named: MindSpeed-LLM has no such file, its variables are given
    ("MindSpeed yaml for qwen2.5-7b lora", "mindspeed_env", "MindSpeed-LLM", "bash", r"export MODEL_NAME="),
])
def test_config_requests_get_the_asked_format(assistant, q, fmt, framework, fence, content):
    ans = assistant.ask(q)
    gen = calls(ans, "generate_config")
    assert gen and (gen[0]["format"], gen[0]["framework"]) == (fmt, framework), (q, gen)
    blocks = re.findall(r"```(\w+)\n(.*?)```", ans.answer, re.S)
    assert blocks and blocks[0][0] == fence, (q, ans.answer[:400])  # the asked file first, as a code block
    assert re.search(content, blocks[0][1]), (q, blocks[0][1][:600])
    assert {c.name for c in ans.tool_calls} == {"generate_config"}  # stating "2 nodes" asks for no sizing tables


def test_table_numbers_reach_the_config(assistant):
    # seed 004: llama3.1-70b full 8192 MindSpeed-LLM Snt9B = 64 cards -> 8 nodes
    ans = assistant.ask("MindSpeed env for llama3.1-70b full 8k")
    assert "**64 cards**" in ans.answer and "8 nodes" in ans.answer
    # seed 004: qwen2.5-72b lora 4096 MindSpeed-LLM = 16 cards
    ans = assistant.ask("给我 qwen2.5-72b lora 4096 的 MindSpeed 启动变量")
    assert "**16 张卡**" in ans.answer and ans.answer.count("```") >= 2


def test_nodes_asked_for_override_the_plan_and_say_so(assistant):
    ans = assistant.ask("launch command for qwen2-7b lora on 2 nodes")
    assert calls(ans, "generate_config")[0]["nnodes"] == 2
    assert "2 nodes × 8 cards = **16 cards**" in ans.answer
    assert "Set as you asked: nnodes" in ans.answer


def seed_supported(framework: str, resolve) -> set[str]:
    """Models with at least one card count for the framework in seed 004 (and, for LLaMA-Factory, the
    recipe table of seed 000 unless seed 004 marks every LLaMA-Factory row of the model '-')."""
    rows = list(min_cards_rows())
    ok = {resolve(m) for m, _, _, fw, _, cards in rows if fw == framework and cards is not None}
    if framework == "LLaMA-Factory":
        dashed = {resolve(m) for m, *_ in rows} - {resolve(m) for m, _, _, fw, _, c in rows if fw == framework and c is not None}
        ok |= {resolve(m.replace(" ", "-")) for m, *_ in recipe_rows()} - dashed
    return ok


def listed(ans) -> set[str]:
    body = ans.answer.splitlines()[1]
    return {x.strip() for x in body.split(",")}


@pytest.mark.parametrize("q,framework", [
    ("Which models are supported by MindSpeed-LLM?", "MindSpeed-LLM"),
    ("mindspeed 支持哪些模型", "MindSpeed-LLM"),
    ("LLaMA-Factory 支持哪些模型", "LLaMA-Factory"),
    ("What models does llama factory support?", "LLaMA-Factory"),
])
def test_framework_lists_only_its_supported_models(assistant, ctx, q, framework):
    ans = assistant.ask(q)
    assert calls(ans, "list_models") == [{"in_tables_only": True, "framework": framework}]
    expected = seed_supported(framework, ctx.resolver.model_id)
    assert listed(ans) == expected
    assert f"**{len(expected)} " in ans.answer.splitlines()[0]


def test_framework_lists_differ_where_the_tables_say_so(assistant):
    ms = listed(assistant.ask("Which models are supported by MindSpeed-LLM?"))
    lf_ans = assistant.ask("Which models does LLaMA-Factory support?")
    lf = listed(lf_ans)
    assert "deepseek-v3" in ms and "deepseek-v3" not in lf  # seed 004: DeepSeek-V3/R1 is '-' for LLaMA-Factory
    assert "gemma3-27b" in lf and "gemma3-27b" not in ms  # multimodal and gemma: '-' for MindSpeed-LLM
    assert "llama2-7b" in lf and "llama2-7b" not in ms  # only in the LLaMA-Factory recipe table
    assert "qwen2-1.5b" in ms and "qwen2-1.5b" not in lf and "qwen2-1.5b" in lf_ans.answer  # left out, and said why
    assert not {"bge-base-en-v1.5", "qwen3-reranker-8b"} & (ms | lf)  # vLLM-only models are no training support


def test_framework_list_with_a_strategy(assistant, ctx):
    ans = assistant.ask("which models does mindspeed support for LoRA?")
    assert calls(ans, "list_models") == [{"in_tables_only": True, "framework": "MindSpeed-LLM", "strategy": "lora"}]
    lora = {ctx.resolver.model_id(m) for m, s, _, fw, _, c in min_cards_rows() if fw == "MindSpeed-LLM" and s == "lora" and c}
    assert listed(ans) == lora and "mixtral-8x7b" not in lora  # seed 004: mixtral-8x7b has a full row only
