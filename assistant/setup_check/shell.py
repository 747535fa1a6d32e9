"""Shell text: variable assignments (MindSpeed-LLM's TP/PP/MBS/GBS/SEQ_LEN/NNODES block, device lists,
allocator settings) and command lines (vllm serve, python -m vllm.entrypoints..., torchrun, deepspeed,
llamafactory-cli, a MindSpeed-LLM script's Megatron flags). Variables used in flags (${TP}) are
substituted from the assignments. Nothing is run."""

from __future__ import annotations

import re
import shlex
from typing import Any

from ..configs.llamafactory_names import ARGUMENT_NAMES
from . import llamafactory
from .reading import Finding, Reading
from .rules import HCCL_DEFAULTS, SOURCES, SOURCES_ZH

ASSIGN = re.compile(r"^\s*(?:export\s+)?([A-Za-z_]\w*)=(.*)$")
# MindSpeed-LLM launch variables (ModelArts pages and the example scripts) -> setting
MINDSPEED_VARS = {"TP": "tp", "PP": "pp", "CP": "cp", "EP": "ep", "MBS": "micro_batch", "GBS": "global_batch",
                  "SEQ_LEN": "seq_len", "SEQ_LENGTH": "seq_len", "MODEL_NAME": "model", "FINETUNING_TYPE": "method",
                  "STAGE": "stage"}
NODE_VARS = {"NNODES": "nodes", "NUM_NODES": "nodes", "NPUS_PER_NODE": "per_node", "GPUS_PER_NODE": "per_node",
             "NPROC_PER_NODE": "per_node", "NUM_GPUS": "per_node", "WORLD_SIZE": "devices"}
HCCL_VARS = {var: setting for setting, (var, _) in HCCL_DEFAULTS.items()}  # HCCL_EXEC_TIMEOUT -> hccl_exec_timeout
_INT_SETTINGS = {"tp", "pp", "cp", "ep", "micro_batch", "global_batch", "seq_len", "nodes", "per_node", "devices",
                 "max_model_len", "max_num_seqs", "max_num_batched_tokens", "grad_accum", "layers", "lora_rank"}
# Megatron / MindSpeed-LLM flags -> setting
MEGATRON_FLAGS = {"tensor-model-parallel-size": "tp", "pipeline-model-parallel-size": "pp", "context-parallel-size": "cp",
                  "expert-model-parallel-size": "ep", "micro-batch-size": "micro_batch", "global-batch-size": "global_batch",
                  "seq-length": "seq_len", "lora-r": "lora_rank", "num-layers": "layers"}
VLLM_FLAGS = {"tensor-parallel-size": "tp", "tp": "tp", "pipeline-parallel-size": "pp", "pp": "pp",
              "data-parallel-size": "dp_replicas", "dp": "dp_replicas", "max-model-len": "max_model_len",
              "gpu-memory-utilization": "gpu_memory_utilization", "max-num-seqs": "max_num_seqs",
              "max-num-batched-tokens": "max_num_batched_tokens", "kv-cache-dtype": "kv_cache_dtype",
              "quantization": "quantization", "q": "quantization", "model": "model"}
LAUNCHER_FLAGS = {"nproc_per_node": "per_node", "nproc-per-node": "per_node", "nnodes": "nodes", "num_gpus": "per_node",
                  "num-gpus": "per_node", "num_nodes": "nodes", "num-nodes": "nodes", "num_processes": "devices",
                  "num-processes": "devices"}
_LAUNCHERS = ("torchrun", "deepspeed", "llamafactory-cli", "accelerate", "msrun")
_QUANT_BITS = {"awq": 4, "gptq": 4, "awq_marlin": 4, "gptq_marlin": 4, "bitsandbytes": 4, "fp8": 8, "w8a8": 8,
               "ascend": 8, "compressed-tensors": 8}


def _value(raw: str, env: dict[str, str]) -> str:
    raw = raw.split(" #", 1)[0].strip().strip("'\"").rstrip(",;，；。")  # "--gpu-memory-utilization 0.85, how long…"
    return re.sub(r"\$\{?(\w+)(?::-([^}]*))?\}?", lambda m: env.get(m.group(1), m.group(2) or m.group(0)), raw)


def _as(setting: str, value: str) -> Any:
    if setting in _INT_SETTINGS:
        return int(value) if value.isdigit() else None
    if setting == "gpu_memory_utilization":
        try:
            return float(value)
        except ValueError:
            return None
    return value or None


def read(text: str, out: Reading) -> None:
    env: dict[str, str] = {}
    joined = re.sub(r"\\\s*\n", " ", text)
    for line in joined.splitlines():
        m = ASSIGN.match(line)
        if m and " " not in m.group(2).split(" #", 1)[0].strip().strip("'\""):
            name, value = m.group(1), _value(m.group(2), env)
            env[name] = value
            _assignment(name, value, out)
            continue
        _command(line, env, out)


def _assignment(name: str, value: str, out: Reading) -> None:
    where = f"{name}={value}"
    if name in MINDSPEED_VARS:
        out.add_kind("mindspeed")
        out.put("framework", "MindSpeed-LLM", "MindSpeed-LLM launch variables")
        out.put(MINDSPEED_VARS[name], _as(MINDSPEED_VARS[name], value), where)
    elif name in NODE_VARS:
        out.put(NODE_VARS[name], _as(NODE_VARS[name], value), where)
    elif name in HCCL_VARS:  # a HCCL wait: the rules compare it with CANN's default
        out.put(HCCL_VARS[name], int(value) if value.isdigit() else None, where)
    elif name in ("ASCEND_RT_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES") and re.fullmatch(r"\d+(,\d+)*", value):
        out.put("per_node", len(value.split(",")), where, keep=True)
        out.put("accelerator", "npu" if name.startswith("ASCEND") else "gpu", where)
    elif name in ("PYTORCH_NPU_ALLOC_CONF", "PYTORCH_CUDA_ALLOC_CONF"):
        out.put("expandable_segments", "expandable_segments:true" in value.lower(), where)
        out.put("accelerator", "npu" if "NPU" in name else "gpu", where, keep=True)
    else:
        out.unused.append(f"shell: {name}")


def _command(line: str, env: dict[str, str], out: Reading) -> None:
    try:
        words = [_value(w, env) for w in shlex.split(line, comments=True)]
    except ValueError:  # an apostrophe in the user's words after the command ("… what's wrong?"): split on spaces
        words = [_value(w, env) for w in line.split("#")[0].split()]
    if words[:1] == ["export"]:  # "export NNODES=2 TP=8 CP=1 ...": several assignments on one line
        words.pop(0)
    while words and ASSIGN.match(words[0]):  # FORCE_TORCHRUN=1 NNODES=2 llamafactory-cli ...
        m = ASSIGN.match(words.pop(0))
        if m:
            _assignment(m.group(1), m.group(2), out)
    if not words:
        return
    text = " ".join(words)
    megatron = any(w.startswith(("--tensor-model-parallel-size", "--micro-batch-size")) for w in words)
    if (words[0] == "vllm" and len(words) > 1 and words[1] == "serve" and (len(words) == 2 or words[2].startswith("-")
                                                                           or MODEL_WORD.fullmatch(words[2]))) \
            or "vllm.entrypoints" in text:  # ("vllm serve 启动失败:" is a sentence about the command, not the command)
        _vllm(words, out)
    elif megatron:  # a MindSpeed-LLM training script: Megatron flags, its launcher's device counts
        for name, val in _flags(words, out, MEGATRON_FLAGS, "MindSpeed-LLM flag"):
            if name in LAUNCHER_FLAGS and val and val.isdigit():
                out.put(LAUNCHER_FLAGS[name], int(val), f"launch line --{name} {val}", keep=True)
    elif words[0].rsplit("/", 1)[-1] in _LAUNCHERS or "torch.distributed.run" in text:
        _launcher(words, out)


def _pairs(words: list[str]) -> list[tuple[str, str | None]]:
    """(flag, value) for every --flag / -f in the words; value None for a bare switch."""
    out: list[tuple[str, str | None]] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w.startswith("-") and len(w) > 1 and not w[1:2].isdigit():
            name, eq, val = w.lstrip("-").partition("=")
            if eq:
                out.append((name, val))
            elif i + 1 < len(words) and not words[i + 1].startswith("-"):
                out.append((name, words[i + 1]))
                i += 1
            else:
                out.append((name, None))
        i += 1
    return out


# The form of a vLLM flag's value (argparse refuses anything else at start-up), language-neutral
_VLLM_FORM = {"gpu_memory_utilization": "0 < x ≤ 1"}
_NUMBER_SLIPS = str.maketrans("oOlI", "0011")  # letters typed for digits ("0.9O", "O.95", "l6")


def _vllm_value_finding(name: str, setting: str, val: str | None, out: Reading) -> None:
    """A vLLM flag written with no value ("--tensor-parallel-size --max-model-len 32768") or a value that is no number
    ("0.9O"): vLLM stops with an argparse error before loading anything, so the line is named, not read past."""
    if setting not in _INT_SETTINGS and setting not in _VLLM_FORM or val is not None and _as(setting, val) is not None:
        return
    if setting == "max_model_len" and val and re.fullmatch(r"\d+(?:\.\d+)?[kKmM]", val):
        return  # newer vLLM reads "32k" / "1m" for --max-model-len
    form = _VLLM_FORM.get(setting, "integer ≥ 1")
    if val is None:
        out.findings.append(Finding(code="vllm_flag_value", key=f"--{name}", value="", valid=form,
                                    figures={"variant": "missing"}, source=SOURCES["vllm"], source_zh=SOURCES_ZH["vllm"]))
        return
    slip = val.translate(_NUMBER_SLIPS)
    fixed = slip if _as(setting, slip) is not None else ""
    out.findings.append(Finding(code="vllm_flag_value", key=f"--{name}", value=val, valid=form,
                                corrected=f"--{name} {fixed}" if fixed else "", figures={"variant": "number"},
                                source=SOURCES["vllm"], source_zh=SOURCES_ZH["vllm"]))


def _flags(words: list[str], out: Reading, table: dict[str, str], what: str) -> list[tuple[str, str | None]]:
    rest = []
    for name, val in _pairs(words):
        if table is VLLM_FLAGS and name in table:
            _vllm_value_finding(name, table[name], val, out)
        if name in table and val is not None:
            out.put(table[name], _as(table[name], val), f"{what} --{name} {val}")
        else:
            rest.append((name, val))
    if table is MEGATRON_FLAGS:
        out.add_kind("mindspeed")
        out.put("framework", "MindSpeed-LLM", "Megatron flags (MindSpeed-LLM)")
        for name, val in rest:
            if name.startswith("recompute-"):  # every recompute flag is kept: the rules check them together
                out.recompute_flags[name.removeprefix("recompute-")] = val or ""
            if name == "recompute-granularity":
                out.put("recompute", val == "full", f"{what} --recompute-granularity {val}")
            elif name in ("bf16", "fp16"):
                out.put("precision", name, f"{what} --{name}")
            elif name == "use-distributed-optimizer" or name in LAUNCHER_FLAGS or name in ("node_rank", "master_addr", "master_port"):
                continue
            elif name in ("tokenizer-name-or-path", "load") and val:  # the model, when no MODEL_NAME says it
                out.put("model", val, f"{what} --{name} {val}", keep=True)
            else:
                out.unused.append(f"{what} --{name}")
    return rest


def command_extent(words: list[str]) -> list[str]:
    """The words of a command line up to where the user's own words start: after the first flag, each word is a flag
    or the value of the flag before it; the first word that is neither ("on 2x 910B", "单张 910B 能起吗", "-> ValueError")
    ends the command, so a generated command carries only real flags."""
    first = next((i for i, w in enumerate(words) if w.startswith("-")), len(words))
    out = words[:first]
    for w in words[first:]:
        flag = w.startswith("-") and len(w) > 1 and not w[1:2].isdigit()
        value_of_flag = out and out[-1].startswith("-") and "=" not in out[-1] and not out[-1][1:2].isdigit()
        if not (flag or value_of_flag) or w in ("->", "=>", "|"):
            break
        if m := PROSE_GLUED.search(w):  # "--max-model-len 16384，一张 910B 能起吗": the sentence goes on after the value
            out.append(w[:m.start()])
            break
        out.append(w)
    return out


# punctuation with the user's own words glued on after it ("16384，一张", "0.9,够吗"): the command ends before it
PROSE_GLUED = re.compile(r"[,，。、；;？?](?=[^\x00-\x7f])")


MODEL_WORD = re.compile(r"[\w./~@+-]*[A-Za-z0-9][\w./~@+-]*(?<![:：])", re.ASCII)


def _vllm(words: list[str], out: Reading) -> None:
    words = command_extent(words)
    out.add_kind("vllm_command")
    out.command = shlex.join(words)
    # the model is a path or a name ("vllm serve 启动失败:" is the user's sentence, not a model)
    if words[:2] == ["vllm", "serve"] and len(words) > 2 and not words[2].startswith("-") and MODEL_WORD.fullmatch(words[2]):
        out.put("model", words[2], f"vllm serve {words[2]}")
    for name, _val in _flags(words, out, VLLM_FLAGS, "vllm"):
        if name not in ("host", "port", "served-model-name", "trust-remote-code", "api-key", "m") and name not in VLLM_FLAGS:
            # (a flag of the table left here has no value: named as a finding)
            out.unused.append(f"vllm --{name}")
    q = out.settings.pop("quantization", None)
    if q is not None:
        out.sources.pop("quantization", None)
        if q in _QUANT_BITS:
            out.put("weight_bits", _QUANT_BITS[q], f"vllm --quantization {q}")
        else:
            out.unused.append(f"vllm --quantization {q} (not modelled)")


def _launcher(words: list[str], out: Reading) -> None:
    out.add_kind("launch_command")
    lf_args: dict[str, Any] = {}
    for i, w in enumerate(words):
        if w.endswith((".yaml", ".yml")) and "config_file" not in out.settings:
            out.put("config_file", w, f"launch line: {w}")
        elif "=" in w and not w.startswith("-") and w.split("=", 1)[0] in ARGUMENT_NAMES:
            k, v = w.split("=", 1)  # llamafactory-cli train x.yaml cutoff_len=8192
            lf_args[k] = v
        elif w == "--include" and i + 1 < len(words) and (m := re.search(r":([\d,]+)$", words[i + 1])):
            out.put("per_node", len(m.group(1).split(",")), f"deepspeed --include {words[i + 1]}")
    for name, val in _pairs(words):
        if name in LAUNCHER_FLAGS and val is not None and val.isdigit():
            out.put(LAUNCHER_FLAGS[name], int(val), f"launch line --{name} {val}")
        elif name in ARGUMENT_NAMES:
            lf_args[name] = True if val is None else val
        elif name not in ("node_rank", "node-rank", "master_addr", "master-addr", "master_port", "master-port",
                          "hostfile", "include", "rdzv_backend", "rdzv_endpoint"):
            out.unused.append(f"launch line --{name}")
    if lf_args:
        llamafactory.read(lf_args, out, "launch line")
