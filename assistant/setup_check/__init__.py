"""Reading a pasted setup: a LLaMA-Factory YAML and its DeepSpeed JSON, a DeepSpeed JSON alone,
MindSpeed-LLM launch variables or script, vLLM / torchrun / deepspeed / llamafactory-cli command lines,
out-of-memory messages and vLLM start-up lines, with or without code fences and a question around
them. One module per input kind; ``read_setup`` puts their findings into one ``Reading``.

Pure: YAML is read with yaml.safe_load, nothing is run, nothing is fetched. Malformed YAML or JSON is
a SizingError naming the line and the problem."""

from __future__ import annotations

import contextlib
import re
import textwrap

import yaml

from . import benchmark, deepspeed, framework_errors, llamafactory, oom, preprocess, prose, rules, shell
from .reading import Finding, OomReport, Reading, VllmLog
from .text import Block, blocks, cut_log

__all__ = ["Finding", "OomReport", "Reading", "VllmLog", "read_setup"]


def read_setup(text: str) -> tuple[Reading, list[str]]:
    """(what was read, the words of the question that may name the hardware)."""
    out = Reading()
    text, notice = cut_log(text.replace("\r\n", "\n"))
    if notice:
        out.notices.append(notice)
    oom.read_messages(text, out)
    benchmark.read(text, out)
    framework_errors.read(text, out)
    preprocess.read(text, out)
    found, question = blocks(text)
    json_blocks: list[dict] = []
    shell_blocks: list[str] = []
    for b in found:
        _read_block(b, out, json_blocks, shell_blocks)
    if "llamafactory_yaml" not in out.kinds:  # a parser's refusal with no YAML pasted: the argument it names, checked
        framework_errors.read_arguments(text, out)
    if shell_blocks:  # one script: variables set in one block are used in the next
        shell.read("\n".join(shell_blocks), out)
    for data in json_blocks:  # the YAML's own batch settings win over the JSON's fixed ones
        deepspeed.read(data, out, out.deepspeed_file.rsplit("/", 1)[-1] if out.deepspeed_file else "DeepSpeed JSON")
    if out.deepspeed_file and "zero_stage" not in out.settings:
        deepspeed.read_name(out.deepspeed_file, out)
    hardware_words = prose.read(question, out)
    prose.read_phase(question, out)
    if not {"vllm_command", "benchmark_command"} & set(out.kinds):  # a serve line's length is --max-model-len; a
        # benchmark's lengths are its lists
        prose.read_settings(question, out)
    return out, hardware_words


# a DeepSpeed config written as YAML ("zero_optimization:\n  stage: 2"): DeepSpeed's own keys at the top
DS_AS_YAML = re.compile(r"\s*(?:zero_optimization|train_micro_batch_size_per_gpu|train_batch_size)\s*:")


def _read_block(b: Block, out: Reading, json_blocks: list, shell_blocks: list) -> None:
    body = textwrap.dedent(b.text).strip()  # a block pasted indented as a whole ("  key: v" on every line) is its file
    if not body:
        return
    if b.lang == "json" or body.startswith("{"):
        data = deepspeed.parse(body)
        if {"num_hidden_layers", "hidden_size"} & set(data):
            out.hf_config = body
        elif deepspeed.looks_like(data):
            json_blocks.append(data)
        return
    if b.lang in ("sh", "bash", "shell", "console", "zsh") or _is_shell(body):
        shell_blocks.append(body)
        return
    if oom.OOM.search(body) or oom.read_vllm_log(body):
        return  # a log block: its messages were read from the whole text
    if b.lang in ("yaml", "yml", "") and DS_AS_YAML.match(body):  # a DeepSpeed config written as YAML: its JSON's keys
        with contextlib.suppress(yaml.YAMLError):
            data = yaml.safe_load(textwrap.dedent(b.text))  # its own indentation, as pasted (strip() would break it)
            if isinstance(data, dict) and deepspeed.looks_like(data):
                json_blocks.append(data)
                return
    if b.lang not in ("yaml", "yml", "") or not llamafactory.names_arguments(body):
        return  # prose that happens to look like 'key: value'
    data, repairs = llamafactory.parse_repaired(body)
    if llamafactory.looks_like(data):
        lines = {line for line, *_ in repairs}
        for i, (line, code, written, fixed) in enumerate(repairs):  # each fault said first, with its line; the rest of the
            # file is checked as corrected; the corrected line once, under the line's last fault
            last = i + 1 == len(repairs) or repairs[i + 1][0] != line
            src = "lf_parser" if code == "yaml_missing_colon" else "yaml_load"  # a key without colon: LLaMA-Factory's own word
            out.findings.append(Finding(code=code, key=written, value=line, valid="key: value",
                                        corrected=fixed if last and len(lines) == 1 else "", applied=len(lines) == 1 and last,
                                        source=rules.SOURCES[src], source_zh=rules.SOURCES_ZH[src]))
        for key, at, kept in llamafactory.duplicate_keys(body):  # safe_load keeps the last silently: said, with its value
            out.findings.append(Finding(code="yaml_duplicate_key", key=key, value=kept, valid=f"{key}: {kept}",
                                        figures={"lines": at, "first": at[0], "last_line": at[-1], "times": len(at)},
                                        source=rules.SOURCES["yaml_load"], source_zh=rules.SOURCES_ZH["yaml_load"]))
        if len(lines) > 1:  # several lines mended: the whole file as meant, ready to paste
            out.findings.append(Finding(code="yaml_fixed_file", key="", value=len(lines), valid="",
                                        corrected=llamafactory.mend(body)[0]))
        llamafactory.read(data, out)


def _is_shell(body: str) -> bool:
    first = next((ln for ln in body.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), "")
    return bool(shell.ASSIGN.match(first) or first.split()[0:1] and first.split()[0].rsplit("/", 1)[-1] in
                ("vllm", "python", "python3", "torchrun", "deepspeed", "llamafactory-cli", "accelerate", "bash", "sh",
                 "msrun", "export", "set", "cd", "source"))
