"""The vendor's dataset preprocessing line (scripts/<model>/1_preprocess_data.sh, preprocess_data.py): the input
file, the tokenizer type and files, the handler, and what the data is for (from the words around it or the launch
variables: SFT / LoRA or pretraining). What each may be is in rules.py."""

from __future__ import annotations

import re
import shlex

from .reading import Reading

_LINE = re.compile(r"preprocess_data\.(?:sh|py)\b")
_FLAGS = {"input": "data_input", "tokenizer-type": "tokenizer_type", "handler-name": "handler_name",
          "vocab-file": "vocab_file", "merge-file": "merge_file"}
# What the data is for: an instruction (SFT / LoRA) job or pretraining, said in the words or a launch variable
_SFT = re.compile(r"\bsft\b|\blora\b|instruction[- ]?tun|fine[- ]?tun|微调|指令|对话|RUN_TYPE=(?:sft|lora)|_(?:sft|lora)_",
                  re.IGNORECASE)
_PT = re.compile(r"\bpre-?train(?:ing)?\b|预训练|RUN_TYPE=pretrain|_pretrain_", re.IGNORECASE)


def read(text: str, out: Reading) -> None:
    joined = re.sub(r"\\\s*\n", " ", text)
    for line in joined.splitlines():
        if not _LINE.search(line):
            continue
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            words = line.split()
        out.add_kind("preprocess_command")
        for i, w in enumerate(words):
            name, eq, val = w.lstrip("-").partition("=")
            if not w.startswith("--") or name not in _FLAGS:
                continue
            value = val if eq else (words[i + 1] if i + 1 < len(words) and not words[i + 1].startswith("--") else None)
            if value:
                out.put(_FLAGS[name], value, f"--{name} {value}")
    if "preprocess_command" in out.kinds:
        said = re.sub(r"--handler-name[ =]\S+|\S*Handler\b", " ", text)  # the handler's own name says nothing
        purpose = "sft" if _SFT.search(said) else "pt" if _PT.search(said) else None
        if purpose:
            m = _SFT.search(said) if purpose == "sft" else _PT.search(said)
            out.put("data_purpose", purpose, f"question: {m.group(0).strip('_')}" if m else "question")
