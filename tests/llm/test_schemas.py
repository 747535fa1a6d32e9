"""What the LLM sees stays small enough for small and local models: the system prompt and the compact
tool schemas at most about 4,000 tokens, measured as characters / 4 (printed with -s)."""

from __future__ import annotations

import json

from langchain_core.utils.function_calling import convert_to_openai_tool

from assistant.agent import Assistant
from assistant.llm.schemas import compact_schema, prompt_tokens
from assistant.tools import REGISTRY

# 4,000 held the first 15 tools; derive_quantity (quantities besides a card count, ~410) and find_table_rows (filters
# over a whole vendor table, ~330) took it to about 4,700; mindspeed_example (the example scripts' own values, ~130) to
# about 4,830; derive_quantity's five further quantities (params, steps_for_tokens, params_per_layer, embedding_params,
# flops_per_token) and find_table_rows' model/extreme filters (~55) to about 4,890, still small beside an 8K window;
# the dense/MoE and parameter-size filters of list_models and find_table_rows ("dense models under 10B", ~60) to about 4,950
PROMPT_TOKEN_LIMIT = 5_000


def test_llm_prompt_fits_small_models(ctx):
    a = Assistant(ctx)
    tools = json.dumps([convert_to_openai_tool(t) for t in a.llm_tools], ensure_ascii=False)
    full = json.dumps([convert_to_openai_tool(t) for t in a.tools], ensure_ascii=False)
    system, compact, complete = prompt_tokens(a.system_prompt), prompt_tokens(tools), prompt_tokens(full)
    print(f"\nLLM prompt: system {system} + tools {compact} = {system + compact} tokens (chars/4); "
          f"full schemas would be {complete} ({complete / compact:.1f}x)")
    assert system + compact <= PROMPT_TOKEN_LIMIT
    # same tools, same required arguments: only descriptions and optional extras are trimmed
    assert [t.name for t in a.llm_tools] == REGISTRY.names()
    for t in a.llm_tools:
        assert set(t.args_schema.get("required", [])) == set(REGISTRY.get(t.name).input_schema().get("required", []))


def test_front_ends_keep_the_complete_schemas(ctx):
    full = REGISTRY.get("min_cards").input_schema()
    assert "title" in json.dumps(full) and REGISTRY.schemas()[0]["input_schema"] == REGISTRY.get("resolve_model").input_schema()
    small = compact_schema(full)
    assert small["properties"]["framework"]["enum"] == ["MindSpeed-LLM", "LLaMA-Factory"]
    assert "title" not in json.dumps(small) and "anyOf" not in json.dumps(small)


def test_choices_the_llm_is_not_shown_stay_with_the_tool(ctx):
    """prompts/tool_use.md "Values not shown": derive_quantity's relations solved from figures the LLM is not shown either
    (SAVE_INTERVAL, the tokens per step) are left out of the enum it sees; REST and MCP keep every choice."""
    a = Assistant(ctx)
    seen = next(t for t in a.llm_tools if t.name == "derive_quantity").args_schema["properties"]["quantity"]["enum"]
    full = REGISTRY.get("derive_quantity").input_schema()["properties"]["quantity"]["enum"]
    assert "save_interval_for" in full and "save_interval_for" not in seen and "data_parallel" in seen
