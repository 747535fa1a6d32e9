"""Tool calls written as text, in the forms real models write them, and replies that cannot be answers."""

from __future__ import annotations

import pytest

from assistant.llm.protocol import read_text_calls, reply_problem

NAMES = {"min_cards", "training_recipe", "search_notes"}
ARGS = {"model": "qwen3-8b", "strategy": "lora"}


@pytest.mark.parametrize("text", [
    '```json\n{"name": "min_cards", "arguments": {"model": "qwen3-8b", "strategy": "lora"}}\n```',  # Qwen2.5-Coder-0.5B
    '<tool_call>\n{"name": "min_cards", "arguments": {"model": "qwen3-8b", "strategy": "lora"}}\n</tool_call>',  # Hermes/Qwen
    '<|python_tag|>{"name": "min_cards", "parameters": {"model": "qwen3-8b", "strategy": "lora"}}<|eom_id|>',  # Llama 3.1
    '[TOOL_CALLS] [{"name": "min_cards", "arguments": {"model": "qwen3-8b", "strategy": "lora"}}]',  # Mistral
    '<function=min_cards>{"model": "qwen3-8b", "strategy": "lora"}</function>',  # Llama 3.2 style
    '{"type": "function", "function": {"name": "min_cards", "arguments": "{\\"model\\": \\"qwen3-8b\\", \\"strategy\\": \\"lora\\"}"}}',
    'I will look it up.\n```\n{"tool": "min_cards", "args": {"model": "qwen3-8b", "strategy": "lora"}}\n```',
])
def test_text_tool_calls_are_read(text):
    found = read_text_calls(text, NAMES)
    assert found.calls == [("min_cards", ARGS)] and found.unreadable is None


def test_two_calls_in_one_reply():
    text = '<tool_call>{"name": "min_cards", "arguments": {}}</tool_call>\n<tool_call>{"name": "search_notes", "arguments": {"query": "OOM"}}</tool_call>'
    assert read_text_calls(text, NAMES).calls == [("min_cards", {}), ("search_notes", {"query": "OOM"})]


def test_broken_call_text_is_reported_and_ordinary_json_is_left_alone():
    broken = read_text_calls('```json\n{"name": "min_cards", "arguments": {model: qwen3-8b}\n```', NAMES)
    assert broken.calls == [] and "not valid JSON" in (broken.unreadable or "")
    config = read_text_calls('Here is the DeepSpeed config:\n```json\n{"zero_optimization": {"stage": 2}}\n```', NAMES)
    assert config.calls == [] and config.unreadable is None
    card = read_text_calls('```json\n{"name": "qwen2.5-72b", "params_b": 72.7}\n```', NAMES)  # a name, but no call
    assert card.calls == [] and card.unreadable is None


def test_replies_that_cannot_be_answers():
    assert "token limit" in reply_problem("You need", "length", 20_000)
    assert "empty" in reply_problem("  ", "stop", 20_000)
    assert "300,000 characters" in reply_problem("x" * 300_000, "stop", 20_000)
    assert "repeats itself" in reply_problem("The answer is 8 cards. " * 40, "stop", 20_000)
    assert reply_problem("You need 8 cards (ModelArts table).", "stop", 20_000) is None
