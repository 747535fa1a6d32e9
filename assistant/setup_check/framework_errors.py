"""A framework's own error line pasted with the question ("AssertionError: num_layers (80) must be divisible by
pipeline_model_parallel_size (3)"): the numbers it names become settings, so the rule behind the message (rules.py)
explains it with the user's numbers and offers the layouts that start."""

from __future__ import annotations

import re

from .reading import Reading

# Megatron's ParallelTransformer / MindSpeed-LLM at start-up; the message's wording varies a little between versions
_LAYERS_PP = re.compile(r"num[_ ]layers\s*\(?(\d+)\)?\s*(?:must|should)\s+be\s+divisible\s+by\s+(?:the\s+)?"
                        r"pipeline[_ ](?:model[_ ])?parallel[_ ](?:world[_ ])?size\s*\(?(\d+)\)?", re.IGNORECASE)


def read(text: str, out: Reading) -> None:
    if m := _LAYERS_PP.search(text):
        out.add_kind("framework_error")
        where = f"error: {m.group(0)}"
        out.put("layers", int(m.group(1)), where)
        out.put("pp", int(m.group(2)), where, keep=True)  # a PP=… the script sets is the same number
        out.put("framework", "MindSpeed-LLM", where, keep=True)


def is_framework_error(text: str) -> bool:
    return bool(_LAYERS_PP.search(text))
