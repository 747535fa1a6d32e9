"""Malformed YAML or JSON as the one error shape: the line, what is wrong there, and what is valid."""

from __future__ import annotations

import json
import re

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


# What a JSON parser's complaint means at the place it stops, in plain words: (problem code, English); the codes are
# worded in Chinese by the answer writer (setup_answer.JSON_PROBLEM_ZH).
JSON_PROBLEMS = {
    "trailing_comma": "a comma right before a closing bracket (JSON allows no trailing comma)",
    "double_comma": "two commas in a row (a value is missing between them)",
    "single_quotes": "single quotes: JSON keys and strings take double quotes",
    "unquoted_key": "a key without double quotes",
    "missing_comma": "a missing comma between two entries (or a bracket closed too early)",
    "unclosed": "the text ends before every bracket is closed",
    "comment": "a comment: JSON has no comments",
    "python_literal": "a Python value (True, False or None): JSON writes true, false and null",
    "other": "",
}


def json_problem(e: json.JSONDecodeError) -> tuple[str, int, int]:
    """(problem code, line, column) where the parser stopped; a trailing comma is reported at the comma itself."""
    doc, pos = e.doc, e.pos
    before = doc[:pos].rstrip()
    here = doc[pos:pos + 1]
    if pos >= len(doc.rstrip()):
        code = "unclosed"
    elif here in "}]" and before.endswith(","):
        code, pos = "trailing_comma", len(before) - 1
    elif here == "," and before.endswith(","):
        code = "double_comma"
    elif here == "'":
        code = "single_quotes"
    elif here == "/" or here == "#":
        code = "comment"
    elif _PY_VALUE.match(doc, pos):
        code = "python_literal"
    elif e.msg.startswith("Expecting property name") and (here.isalpha() or here == "_"):
        code = "unquoted_key"
    elif e.msg.startswith("Expecting ',' delimiter"):
        code, pos = "missing_comma", max(len(before) - 1, 0)  # said where the comma goes: after the entry before
    else:
        code = "other"
    line = doc.count("\n", 0, pos) + 1
    start = doc.rfind("\n", 0, pos) + 1
    indent = len(doc[start:]) - len(doc[start:].lstrip(" \t"))
    return code, line, pos - start - indent + 1  # counted in the line as shown (stripped): indentation varies in a chat


def json_error(e: json.JSONDecodeError, what: str, text: str) -> SizingError:
    code, line, column = json_problem(e)
    problem = JSON_PROBLEMS[code] or e.msg
    opened = max(text.count("{") - text.count("}"), 0) + max(text.count("[") - text.count("]"), 0)
    if opened:
        problem += f"; {opened} bracket(s) are never closed" if code != "unclosed" else f" ({opened} still open)"
    return SizingError("invalid_json", f"The {what} is not valid JSON{_where(text, line - 1, column)}: {problem}.",
                       field="text",
                       valid={"format": "a JSON object, double-quoted keys, no trailing commas or comments",
                              "line": line, "column": column, "problem": code, "unclosed": opened, "parser": e.msg,
                              "snippet": _line(text, line - 1), "repaired": repaired_json(text)})


JSON_VALUE = {"True": "true", "False": "false", "None": "null"}
_PY_VALUE = re.compile(r"(?:True|False|None)(?![\w])")
# Python's literals in a dict pasted as JSON ({'bf16': {'enabled': True}}), where a value goes: JSON's own
_PY_LITERAL = re.compile(r"([:\[,]\s*)(True|False|None)(?=\s*[,}\]])")
_LINE_COMMENT = re.compile(r"(?m)(^|[ \t])//[^\n]*")
MAX_REPAIRS = 20


def repaired_json(text: str) -> str | None:
    """The JSON as meant, when every fault the parser meets is one with a single fix: a trailing comma (dropped), a
    missing comma between two entries (put after the first), single quotes in a text with no double quote (made
    double, with Python's True/False/None made JSON's), // comments (dropped). None when any other fault remains."""
    fixed = text.strip()
    for _ in range(MAX_REPAIRS):
        try:
            return fixed if isinstance(json.loads(fixed), dict) else None
        except json.JSONDecodeError as e:
            code, _, _ = json_problem(e)
            if code == "trailing_comma":
                cut = len(fixed[:e.pos].rstrip()) - 1
                fixed = fixed[:cut] + fixed[cut + 1:]
            elif code == "missing_comma":
                end = len(fixed[:e.pos].rstrip())
                fixed = fixed[:end] + "," + fixed[end:]
            elif code == "single_quotes" and '"' not in fixed:
                fixed = _PY_LITERAL.sub(lambda m: m.group(1) + JSON_VALUE[m.group(2)], fixed.replace("'", '"'))
            elif code == "python_literal":
                m = _PY_VALUE.match(fixed, e.pos)
                fixed = fixed[:e.pos] + JSON_VALUE[m.group(0)] + fixed[m.end():]  # type: ignore[union-attr]
            elif code == "comment" and _LINE_COMMENT.search(fixed):
                fixed = _LINE_COMMENT.sub(r"\1", fixed)
            else:
                return None
    return None


def _line(text: str, index: int) -> str:
    lines = text.splitlines()
    return lines[index].strip()[:80] if 0 <= index < len(lines) else ""


def _where(text: str, index: int, column: int | None = None) -> str:
    lines = text.splitlines()
    at = f" at line {index + 1}" + (f", column {column}" if column else "")
    if not 0 <= index < len(lines):
        return at
    return f"{at} ({lines[index].strip()[:80]!r})"
