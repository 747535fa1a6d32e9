"""The tool-call protocol as real models speak it. Many models (small local ones above all) write a
tool call as text instead of using the API's tool_calls field: JSON in a code block, Hermes/Qwen
``<tool_call>`` tags, Llama 3.1's ``<|python_tag|>``, Mistral's ``[TOOL_CALLS]``, ``<function=name>``.
These are read into real tool calls here; text that looks like a call but cannot be read is reported
so the model can be told. Replies that cannot be an answer (empty, cut at the token limit, repeating,
oversized) are named here too; ``guard.py`` decides what happens to them."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

# Where a tool call written as text sits: each pattern's group 1 is the JSON (or the arguments, for <function=…>).
TAGGED = [
    re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S),
    re.compile(r"<\|python_tag\|>\s*(.*?)\s*(?:<\|eom_id\|>|<\|eot_id\|>|$)", re.S),
    re.compile(r"\[TOOL_CALLS\]\s*(.*)$", re.S),
    re.compile(r"```(?:json|tool_call|tool_code)?\s*\n?(.*?)```", re.S),
]
FUNCTION_TAG = re.compile(r"<function=([\w.-]+)>\s*(.*?)\s*</function>", re.S)
NAME_KEYS = ("name", "tool", "tool_name", "function")
ARG_KEYS = ("arguments", "parameters", "args", "input")


@dataclass
class TextCalls:
    """Tool calls read from a reply's text; ``unreadable`` says why text that looked like a call was not one."""

    calls: list[tuple[str, dict[str, Any]]]
    unreadable: str | None = None


def _as_call(obj: Any, tool_names: set[str]) -> tuple[str, dict[str, Any]] | None:
    """A call from one JSON object: it names a known tool, or has the shape of a call (a name and
    arguments); an object that merely has a "name" (a config, a model card) is not one."""
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):  # OpenAI's own shape written out: {"type": "function", "function": {...}}
        return _as_call(obj["function"], tool_names)
    name = next((obj[k] for k in NAME_KEYS if isinstance(obj.get(k), str)), None)
    if name is None or (name not in tool_names and not any(k in obj for k in ARG_KEYS)):
        return None
    args: Any = next((obj[k] for k in ARG_KEYS if k in obj), {})
    if isinstance(args, str):  # arguments as a JSON string, as the API itself sends them
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            return None
    return (name, args) if isinstance(args, dict) else None


def _calls_in(payload: str, tool_names: set[str]) -> list[tuple[str, dict[str, Any]]] | None:
    """The calls in one JSON payload (an object or a list of objects), or None when it is not one."""
    try:
        obj = json.loads(payload)
    except ValueError:
        return None
    items = obj if isinstance(obj, list) else [obj]
    calls = [_as_call(i, tool_names) for i in items]
    return [c for c in calls if c] if calls and all(calls) else None


def read_text_calls(text: str, tool_names: set[str]) -> TextCalls:
    """Tool calls written as text in ``text``. Only payloads naming a tool (a known one, or an object of
    the {"name": ..., "arguments": ...} shape) count; ordinary JSON in an answer is left alone."""
    calls: list[tuple[str, dict[str, Any]]] = []
    for m in FUNCTION_TAG.finditer(text):
        try:
            args = json.loads(m.group(2) or "{}")
        except ValueError:
            return TextCalls([], f"the arguments of <function={m.group(1)}> are not valid JSON")
        calls.append((m.group(1), args if isinstance(args, dict) else {}))
    if calls:
        return TextCalls(calls)
    stripped = text.strip()
    payloads = [m.group(1) for p in TAGGED for m in p.finditer(stripped)]
    if stripped.startswith(("{", "[")):
        payloads.append(stripped)
    looked_like_call = False
    for payload in payloads:
        found = _calls_in(payload.strip(), tool_names)
        if found:
            calls += found
        elif any(f'"{n}"' in payload for n in tool_names) or re.search(r'"(?:arguments|parameters)"\s*:', payload):
            looked_like_call = True
    if calls:
        unique = list({json.dumps(c, sort_keys=True): c for c in calls}.values())
        return TextCalls(unique)
    if looked_like_call or "<tool_call>" in text or "<|python_tag|>" in text or "[TOOL_CALLS]" in text:
        return TextCalls([], "a tool call was written as text but is not valid JSON of the form "
                             '{"name": TOOL, "arguments": {...}}')
    return TextCalls([])


def repeating(text: str, times: int = 3) -> str | None:
    """A sentence or line (8+ characters) said ``times`` times or more: a model stuck in a loop."""
    counts: dict[str, int] = {}
    for part in re.split(r"(?<=[.!?。！？\n])\s*", text):
        key = " ".join(part.split()).lower()
        if len(key) >= 8:
            counts[key] = counts.get(key, 0) + 1
            if counts[key] >= times:
                return part.strip()
    return None


def reply_problem(text: str, finish_reason: str | None, max_chars: int) -> str | None:
    """Why a final reply cannot be shown as an answer, in a few words; None when it can."""
    if finish_reason == "length":
        return "the reply was cut at the token limit (finish_reason: length)"
    if len(text) > max_chars:
        return f"the reply was {len(text):,} characters (the limit is {max_chars:,})"
    if not text.strip():
        return "the model returned an empty reply"
    loop = repeating(text)
    if loop:
        return f"the reply repeats itself ({loop[:60]!r} …)"
    return None
