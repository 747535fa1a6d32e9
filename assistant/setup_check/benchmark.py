"""The vendor's benchmark scripts (benchmark_parallel.py, modal_benchmark_parallel.py): the lists of prompt and output
lengths and of concurrency levels, read wherever they stand in the text (a command line, or the flags alone in a
sentence). The check that the lists pair up is in rules.py."""

from __future__ import annotations

import re

from .reading import Reading

LISTS = {"prompt-tokens": "prompt_tokens", "output-tokens": "output_tokens", "parallel-num": "parallel_num",
         "request-rate": "request_rate", "num-prompts": "num_prompts"}  # benchmark_serving.py: one count per rate
_LIST = re.compile(
    r"--(prompt-tokens|output-tokens|parallel-num|request-rate|num-prompts)(?:\s+|=)"
    r"((?:\d+(?:\.\d+)?(?:[ \t]+|$|(?=[^\d\s.])))+)", re.MULTILINE
)


_BACKEND = re.compile(r"--backend[ =]+([\w.-]+)")
_URL = re.compile(r"--url[ =]+['\"]?(\S+?)['\"]?(?=\s|$)")


def read(text: str, out: Reading) -> None:
    if "benchmark" in text and (m := _BACKEND.search(text)):  # benchmark_parallel.py / benchmark_serving.py
        out.add_kind("benchmark_command")
        out.put("benchmark_backend", m.group(1), f"--backend {m.group(1)}")
        if u := _URL.search(text):
            out.put("benchmark_url", u.group(1), f"--url {u.group(1)}")
    for m in _LIST.finditer(text):
        values = [float(v) if "." in v else int(v) for v in m.group(2).split()]
        if values:
            out.add_kind("benchmark_command")
            out.put(LISTS[m.group(1)], values, f"--{m.group(1)} {m.group(2).strip()}")
