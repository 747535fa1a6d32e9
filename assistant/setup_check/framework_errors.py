"""A framework's own error line pasted with the question ("AssertionError: num_layers (80) must be divisible by
pipeline_model_parallel_size (3)"): the numbers it names become settings, so the rule behind the message (rules.py)
explains it with the user's numbers and offers the layouts that start.

An argument parser's refusal names the argument and the value it refused ("argument --finetuning_type: invalid choice:
'qlora'", "invalid choice for quantization_method: 'bitsandbytes'", "Template qwen2.5 does not exist", "Some keys are
not used by the HfArgumentParser: ['zero_stage']"): read as that argument written in a LLaMA-Factory YAML, with the
other LLaMA-Factory arguments the words write as ``key: value`` ("yaml 里写的 quantization_bit: 4"), so the YAML's own
checks (llamafactory.py) say what is valid and the corrected line."""

from __future__ import annotations

import ast
import re
from typing import Any

from ..configs.llamafactory_names import ARGUMENT_NAMES
from . import llamafactory
from .reading import Reading

# Megatron's ParallelTransformer / MindSpeed-LLM at start-up; the message's wording varies a little between versions
_LAYERS_PP = re.compile(r"num[_ ]layers\s*\(?(\d+)\)?\s*(?:must|should)\s+be\s+divisible\s+by\s+(?:the\s+)?"
                        r"pipeline[_ ](?:model[_ ])?parallel[_ ](?:world[_ ])?size\s*\(?(\d+)\)?", re.IGNORECASE)
# vLLM's config check at start-up ("Total number of attention heads (28) must be divisible by tensor parallel size (8)"):
# the server's TP, which the heads rule (rules.py) checks against the model the words name
_HEADS_TP = re.compile(r"(?:total\s+)?number\s+of\s+attention\s+heads\s*\((\d+)\)\s*must\s+be\s+divisible\s+by\s+"
                       r"tensor\s+parallel\s+size\s*\((\d+)\)", re.IGNORECASE)
# argparse ("argument --finetuning_type: invalid choice: 'qlora' (choose from ...)") and LLaMA-Factory's own wording of
# it ("invalid choice for quantization_method: 'bitsandbytes'"); the value as quoted
_INVALID_CHOICE = re.compile(r"argument\s+--?([A-Za-z_][\w.-]*)\s*:\s*invalid\s+choice\s*:\s*['\"‘“]?([^'\"’”\s(]+)|"
                             r"invalid\s+(?:choice|value)\s+for\s+(?:argument\s+)?(?:--?)?([A-Za-z_][\w.-]*)\s*[:=]\s*['\"‘“]?([^'\"’”\s(,，]+)",
                             re.IGNORECASE)
_NO_TEMPLATE = re.compile(r"Template\s+['\"]?([\w.\-]+)['\"]?\s+does\s+not\s+exist", re.IGNORECASE)
_EXTRA_KEYS = re.compile(r"Some\s+keys\s+are\s+not\s+used\s+by\s+the\s+HfArgumentParser\s*:\s*(\[[^\]\n]*\])", re.IGNORECASE)
# a LLaMA-Factory argument written "key: value" among the words ("quantization_bit: 4 + quantization_method: bnb")
_WRITTEN = re.compile(r"(?<![\w.\-])([A-Za-z_][\w]*)\s*[:：]\s*['\"]?([^\s,，;；+'\"、)）。！？!?\u4e00-\u9fff]+)")


def read(text: str, out: Reading) -> None:
    if m := _LAYERS_PP.search(text):
        out.add_kind("framework_error")
        where = f"error: {m.group(0)}"
        out.put("layers", int(m.group(1)), where)
        out.put("pp", int(m.group(2)), where, keep=True)  # a PP=… the script sets is the same number
        out.put("framework", "MindSpeed-LLM", where, keep=True)
    if m := _HEADS_TP.search(text):
        out.add_kind("vllm_log")  # a vLLM server's start-up line: checked as the server it came from
        out.put("tp", int(m.group(2)), f"error: {m.group(0)}", keep=True)


def refused_arguments(text: str) -> dict[str, Any]:
    """The LLaMA-Factory arguments an argument parser's message names with the value it refused (an extra key with
    None: the parser names only the key)."""
    said: dict[str, Any] = {}
    for m in _INVALID_CHOICE.finditer(text):
        key, value = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        said[key.replace("-", "_")] = value
    if t := _NO_TEMPLATE.search(text):
        said["template"] = t.group(1)
    if e := _EXTRA_KEYS.search(text):
        try:
            keys = ast.literal_eval(e.group(1))
        except (ValueError, SyntaxError):
            keys = re.findall(r"[A-Za-z_]\w*", e.group(1))
        said |= {str(k): None for k in keys if str(k) not in said}
    return said


def read_arguments(text: str, out: Reading) -> None:
    """An argument parser's refusal with no YAML pasted: the argument it names, with the arguments the message and the
    words write as ``key: value``, checked as the YAML's lines they are."""
    refused = refused_arguments(text)
    if not refused:
        return
    written = {m.group(1): yaml_value(m.group(2)) for m in _WRITTEN.finditer(text)
               if m.group(1) in ARGUMENT_NAMES or m.group(1) in refused}
    data = written | {k: v for k, v in refused.items() if v is not None or k not in written}
    out.add_kind("framework_error")
    llamafactory.read(data, out, "error message" if not written else "error message and question")


def yaml_value(word: str) -> Any:
    """A value as YAML reads it (4 -> int, true -> bool), the word as written otherwise."""
    import yaml

    try:
        value = yaml.safe_load(word)
    except yaml.YAMLError:
        return word
    return value if isinstance(value, (int, float, bool, str)) else word


def is_framework_error(text: str) -> bool:
    return bool(_LAYERS_PP.search(text) or _HEADS_TP.search(text) or refused_arguments(text))
