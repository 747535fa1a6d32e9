"""Malformed YAML or JSON as the one error shape: the line, what is wrong there, and what is valid."""

from __future__ import annotations

import json

import yaml

from ..errors import SizingError


def yaml_error(e: yaml.YAMLError, what: str, text: str) -> SizingError:
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    problem = getattr(e, "problem", None) or str(e).splitlines()[0]
    if isinstance(e, yaml.constructor.ConstructorError) and "tag" in str(e):
        problem = "a YAML tag (!!python/..., !something) is not allowed; configs are plain keys and values"
    where = _where(text, mark.line) if mark is not None else ""
    return SizingError("invalid_yaml", f"The {what} is not valid YAML{where}: {problem}.", field="text",
                       valid="plain YAML: one 'key: value' per line, no tags")


def json_error(e: json.JSONDecodeError, what: str, text: str) -> SizingError:
    return SizingError("invalid_json", f"The {what} is not valid JSON{_where(text, e.lineno - 1)}: {e.msg}.",
                       field="text", valid="a JSON object, double-quoted keys, no trailing commas or comments")


def _where(text: str, index: int) -> str:
    lines = text.splitlines()
    if not 0 <= index < len(lines):
        return f" at line {index + 1}"
    return f" at line {index + 1} ({lines[index].strip()[:80]!r})"
