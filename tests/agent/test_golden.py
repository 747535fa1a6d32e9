"""What an LLM sees, pinned: the system prompt and the tool schemas exactly as the agent sends them.

A change to a tool's name, description or arguments, or to prompts/system.md, shows up here as a
diff to review. Regenerate after an intended change with:

    UPDATE_GOLDEN=1 .venv/bin/pytest tests/agent/test_golden.py

then read the diff of tests/golden/agent_*.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from langchain_core.utils.function_calling import convert_to_openai_tool

from assistant.agent import Assistant

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def check_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"{name} is missing: run with UPDATE_GOLDEN=1 and review it"
    assert path.read_text(encoding="utf-8") == actual, f"{name} changed; see tests/agent/test_golden.py to regenerate"


def test_system_prompt_golden(ctx):
    check_golden("agent_system_prompt.md", Assistant(ctx).system_prompt)


def test_tool_schemas_golden(ctx):
    """The compact schemas an LLM is sent (llm/schemas.py); REST and MCP show the registry's complete ones."""
    schemas = [convert_to_openai_tool(t) for t in Assistant(ctx).llm_tools]
    check_golden("agent_tool_schemas.json", json.dumps(schemas, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
