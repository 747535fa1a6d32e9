"""Cutting a pasted text into blocks a reader can take: fenced code, or runs of lines that look like
YAML, JSON, shell or a log, and the prose around them. A very long paste (a whole training log) is cut
to the lines that matter first, with a notice."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..configs.llamafactory_names import ARGUMENT_NAMES
from .notices import notice

MAX_LINES = 600  # more than any config; a longer paste is a log
FENCE = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*([\w.+-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.MULTILINE | re.DOTALL)
# Lines of a long log worth keeping: memory figures, errors, commands and the settings they echo.
LOG_KEEP = re.compile(r"out of memory|tried to allocate|kv cache|model weights|model loading took|max seq len|"
                      r"gpu_memory_utilization|cache blocks|vllm serve|vllm\.entrypoints|torchrun|deepspeed|"
                      r"llamafactory-cli|^\s*export\s|^\s*[A-Za-z_][\w.]*\s*:\s|^\s*--[a-z]", re.IGNORECASE)


@dataclass
class Block:
    text: str
    lang: str = ""  # the fence's language tag, if any


def cut_log(text: str) -> tuple[str, str | None]:
    """The text, or its lines that matter when it is longer than MAX_LINES, with the notice to show."""
    lines = text.splitlines()
    if len(lines) <= MAX_LINES:
        return text, None
    # the question around a paste is its first or last lines ("why does this OOM?" / "为什么OOM"): kept as well
    edge = 3
    middle = [ln[:2000] for ln in lines[edge:-edge] if LOG_KEEP.search(ln)][-(MAX_LINES - 2 * edge):]
    kept = [ln[:2000] for ln in lines[:edge]] + middle + [ln[:2000] for ln in lines[-edge:]]
    return "\n".join(kept), notice("long_paste", lines=len(lines), kib=len(text) // 1024, kept=len(kept))


def blocks(text: str) -> tuple[list[Block], str]:
    """(code blocks, prose). With fences, each fenced block is one block and the rest is prose; without,
    the whole text is split into runs of config-like lines (see runs) and the rest is prose."""
    fenced = [Block(m.group(3), m.group(2).lower()) for m in FENCE.finditer(text)]
    if fenced:
        return fenced, FENCE.sub(" ", text)
    found = runs(text)
    prose = text
    for b in found:
        prose = prose.replace(b.text, " ")
    return found, prose


# (a colon typed twice, "finetuning_type:: lora", is still the file's line: llamafactory.line_faults mends and says it)
_YAML_LINE = re.compile(r"^\s*(#.*|[A-Za-z_][\w.\-]*\s*:(\s*:)?(\s.*)?|-\s+\S.*)$")
# A command line: vllm serve, or a launcher followed by a flag or a file ("deepspeed throws an assertion" is prose).
_SHELL_LINE = re.compile(r"^\s*(export\s+\w+=|\w+=\S*\s*(#.*)?$|(\S+=\S+\s+)*(vllm\s+serve\b|(vllm|python3?|torchrun|"
                         r"deepspeed|llamafactory-cli|accelerate|bash|sh|msrun)\s+(-|\S+\.(py|ya?ml|json|sh)\b|train\b|"
                         r"\$|\S*/))|--[\w-]+)")


# A line of words after a JSON object that was never closed: no quote, bracket or colon a JSON line has
_PROSE_AFTER_JSON = re.compile(r"^[^\"'{}\[\]:]*[A-Za-z\u4e00-\u9fff]{2}[^\"'{}\[\]:]*$")
# A config key written without its colon, "cutoff_len 4096", "learning_rate = 1e-4": an argument's snake_case name and
# one value (prose has spaces between more words, and rarely an underscore)
_KEY_WITHOUT_COLON = re.compile(r"^\s*[A-Za-z]+[_.][\w.\-]*(?:\s*=\s*|\s+)[^\s:=]+\s*$")
# A serve line written inside a sentence: a model and a flag after "vllm serve"
_INLINE_SERVE = re.compile(r"(?<![\w-])vllm\s+serve\s+\S+\s+--[a-z]")
_OBJECT_START = re.compile(r"\{\s*['\"]")  # '{"' or "{'" (a Python dict pasted as JSON is still meant as one)


def inline_json(line: str) -> str | None:
    """A JSON object written inside a sentence, from its first '{"' to the brace that closes it; one never closed runs
    to the end of the line (the parser then names what is missing rather than nothing being recognised)."""
    m = _OBJECT_START.search(line)
    if not m:
        return None
    start, depth = m.start(), 0
    for k, ch in enumerate(line[start:], start):
        depth += (ch == "{") - (ch == "}")
        if depth == 0:
            return line[start:k + 1]
    return line[start:].rstrip()


def closed_object(chunk: str) -> str:
    """A JSON object up to the brace that closes it: words after it on its last line ("{…} is this ok for 8 cards") are
    the question's prose, not more JSON. One never closed is kept whole (the parser names what is missing)."""
    depth = 0
    for k, ch in enumerate(chunk):
        depth += (ch == "{") - (ch == "}")
        if depth == 0 and ch == "}":
            return chunk[:k + 1]
    return chunk


# A setting at the end of a line of words ("yaml 哪里不对？ finetuning_type: lora", "what's wrong here? stage: sft"): the
# file's first line, written on the question's line; only a LLaMA-Factory argument's name starts one
_TAIL_SETTING = re.compile(r"(?:^|(?<=[\s？?：:，,。！!）)]))([A-Za-z_]\w*)\s*:\s+\S[^\u3400-\u9fff]*$")


def setting_tail(line: str, next_line: str) -> str | None:
    """The "key: value" a line of words ends with, when the next line goes on as a config (a YAML line, an indented
    one, a key without its colon): the first line of the file the user pasted, which must be kept, not dropped."""
    if not (_YAML_LINE.match(next_line) or _KEY_WITHOUT_COLON.match(next_line) or next_line[:1] in (" ", "\t")) \
            or not next_line.strip():
        return None
    for m in _TAIL_SETTING.finditer(line):
        if m.group(1) in ARGUMENT_NAMES:
            return line[m.start(1):]
    return None


def starts_without_colon(line: str, next_line: str) -> bool:
    """A LLaMA-Factory argument written without its colon ("model_name_or_path /data/qwen2.5-7b") on the line before a
    config line: the first line of the file, not prose (it is mended and said, never dropped)."""
    key = re.match(r"\s*([A-Za-z_][\w.\-]*)", line)
    return bool(_KEY_WITHOUT_COLON.match(line) and key and key.group(1) in ARGUMENT_NAMES and next_line.strip()
                and (_YAML_LINE.match(next_line) or _KEY_WITHOUT_COLON.match(next_line) or next_line[:1] in (" ", "\t")))


def runs(text: str) -> list[Block]:
    """Unfenced text: consecutive lines that are YAML-like, shell-like (with backslash continuations) or
    a JSON object from '{' to its closing '}' become blocks; prose lines end them."""
    out: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith("{"):
            depth, j = 0, i
            while j < len(lines):
                depth += lines[j].count("{") - lines[j].count("}")
                if depth <= 0 or j + 1 < len(lines) and _PROSE_AFTER_JSON.match(lines[j + 1]):
                    break  # closed, or cut off before the words after it ("{... "nvme"" then "this is my config")
                j += 1
            out.append(Block(closed_object("\n".join(lines[i:j + 1])), "json"))
            i = j + 1
            continue
        kind = "sh" if _SHELL_LINE.match(line) else "yaml" if _YAML_LINE.match(line) and line.strip() else ""
        tail = setting_tail(line, lines[i + 1]) if not kind and i + 1 < len(lines) else None
        if tail is not None:  # the file starts on the question's line: its setting is the first line of the YAML
            lines[i], kind = tail, "yaml"
        elif not kind and starts_without_colon(line, lines[i + 1] if i + 1 < len(lines) else ""):
            kind = "yaml"  # the file's first line written without its colon ("model_name_or_path /data/m"): kept, its line named
        if not kind:
            if obj := inline_json(line):  # "ds config: {"zero_optimization": …} — problems?": the object in the sentence
                out.append(Block(obj, "json"))
            elif m := _INLINE_SERVE.search(line):  # "帮我看下这条命令 vllm serve /m --tp 2": the command in the sentence
                out.append(Block(line[m.start():].strip(), "sh"))  # the words after it end it (shell.command_extent)
            i += 1
            continue
        j = i
        pattern = _SHELL_LINE if kind == "sh" else _YAML_LINE
        while j + 1 < len(lines) and (lines[j].rstrip().endswith("\\") or pattern.match(lines[j + 1])
                                      or (kind == "yaml" and lines[j + 1].startswith((" ", "\t")) and lines[j + 1].strip())
                                      or (kind == "yaml" and _KEY_WITHOUT_COLON.match(lines[j + 1]))):
            j += 1  # a key written without its colon ("cutoff_len 4096") stays in the YAML: the parser names its line
        chunk = "\n".join(lines[i:j + 1])
        if kind == "sh" or ":" in chunk:
            out.append(Block(chunk, kind))
        i = j + 1
    return out
