"""The tool schemas an LLM sees, compacted. The registry's full schemas (REST, MCP, `/v1/tools`) are
written for people and run to about 15,000 tokens for 14 tools; small and local models lose the
question under that, and hosted ones bill it every turn. The LLM gets each tool's first sentence plus
a line saying when to use it (``prompts/tool_use.md``) and the argument schema without titles, null
branches or long field descriptions. Same names and arguments: the registry validates every call."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

FIELD_DESCRIPTION_CHARS = 40
TOOL_SENTENCE_CHARS = 120
# Bounds and nested shapes stay in the registry, which checks every call and answers a bad value with
# the valid ones; the model needs the names, types, choices and defaults.
DROPPED_KEYS = {"title", "examples", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength",
                "maxLength", "pattern", "$defs"}


def first_sentence(text: str, limit: int, clause: bool = False) -> str:
    """The first sentence (with ``clause``, the first clause) of ``text``, at most ``limit`` characters."""
    text = " ".join(text.split())
    text = text.replace("e.g.", "e.g")
    m = re.match(r"(.+?)(?:,? e\.g|[.;:]\s|\s\(|[.]$)" if clause else r"(.+?[.])(?:\s|$)", text)
    short = m.group(1) if m else text
    return short if len(short) <= limit else short[: limit - 1].rsplit(" ", 1)[0] + "…"


def compact_schema(node: Any) -> Any:
    """A JSON schema without titles, examples, bounds, null defaults and ``anyOf [X, null]`` wrappers;
    a field keeps a short description only when it says more than the field's name and choices."""
    if isinstance(node, list):
        return [compact_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:  # a nested model (a custom shape): an object the registry validates
        return {k: v for k, v in {"type": "object", "description": node.get("description")}.items() if v}
    any_of = node.get("anyOf")
    if isinstance(any_of, list):
        kept = [b for b in any_of if b != {"type": "null"}]
        if len(kept) == 1 and len(kept) < len(any_of):
            merged = {**{k: v for k, v in node.items() if k != "anyOf"}, **kept[0]}
            return compact_schema(merged)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in DROPPED_KEYS or (key == "default" and value is None):
            continue
        if key == "description" and isinstance(value, str):
            continue  # a field's own is chosen by _with_description; the tool's is compact_description's
        if key == "properties" and isinstance(value, dict):  # field names are not schema keywords
            out[key] = {name: _with_description(name, prop, compact_schema(prop)) for name, prop in value.items()}
        else:
            out[key] = compact_schema(value)
    return out


def _with_description(name: str, full: dict[str, Any], compact: Any) -> Any:
    """A field's description when it says more than its name and choices: its first clause, short."""
    text = full.get("description") if isinstance(full, dict) else None
    if not isinstance(compact, dict) or not isinstance(text, str) or "enum" in compact:
        return compact
    short = first_sentence(text, FIELD_DESCRIPTION_CHARS, clause=True)
    if set(re.findall(r"[a-z]+", short.lower())) <= set(name.lower().split("_")) | {"the", "a", "of", "size", "s"}:
        return compact
    return {"description": short, **compact}



def tool_use_lines(prompts_dir: Path) -> tuple[dict[str, str], set[str]]:
    """``prompts/tool_use.md``: one ``- name: when to use it`` line per tool, and the arguments left out
    of what the LLM sees (``Not shown: a, b, …``)."""
    path = prompts_dir / "tool_use.md"
    lines: dict[str, str] = {}
    hidden: set[str] = set()
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            m = re.match(r"-\s*`?(\w+)`?\s*:\s*(.+)", line)
            if m:
                lines[m.group(1)] = m.group(2).strip()
            elif line.lower().startswith("not shown:"):
                hidden |= {w.strip(" .`") for w in line.split(":", 1)[1].split(",") if w.strip(" .`")}
            elif line.lower().startswith("values not shown:"):  # choices of an enum argument, kept as "value:<name>"
                hidden |= {VALUE_PREFIX + w.strip(" .`") for w in line.split(":", 1)[1].split(",") if w.strip(" .`")}
    return lines, hidden


VALUE_PREFIX = "value:"


def llm_schema(full: dict[str, Any], hidden: set[str]) -> dict[str, Any]:
    """A tool's argument schema as the LLM sees it: compact, without the arguments it is not shown
    (unless required)."""
    compact = compact_schema(full)
    required = set(compact.get("required", []))
    props = {k: v for k, v in compact.get("properties", {}).items() if k not in hidden or k in required}

    def choices(prop: Any) -> Any:  # an enum's choices the LLM is not shown ("Values not shown:")
        if isinstance(prop, dict) and isinstance(prop.get("enum"), list):
            return {**prop, "enum": [v for v in prop["enum"] if f"{VALUE_PREFIX}{v}" not in hidden]}
        return prop

    return {**compact, "properties": {k: choices(v) for k, v in props.items()}}


def compact_description(description: str, when: str | None) -> str:
    short = first_sentence(description, TOOL_SENTENCE_CHARS)
    return f"{short} {when}" if when else short


def prompt_tokens(text: str) -> int:
    """Tokens, roughly: characters / 4 (no tokenizer download; English JSON runs close to it)."""
    return (len(text) + 3) // 4
