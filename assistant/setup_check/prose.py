"""The question around a paste: device counts ("8×910B", "on 8 A100s", "8卡", "2 nodes") and the words
that may name the hardware (the tool resolves them against the catalog)."""

from __future__ import annotations

import re

from . import deepspeed
from .reading import Finding, Reading
from .shell import MEGATRON_FLAGS, MINDSPEED_VARS, VLLM_FLAGS

_TIMES = re.compile(r"(?<![A-Za-z0-9_.])(\d{1,5})\s*[x×*]\s*([A-Za-z][\w.\-]*|\d{3,4}[A-Za-z]*[\w.\-]*)", re.IGNORECASE)
_COUNT = re.compile(r"(?<![A-Za-z0-9_.])(\d{1,5})\s*(?:张|块|个|-)?\s*(?:卡|cards?\b|GPUs?\b|NPUs?\b|devices?\b|DIEs?\b)", re.IGNORECASE)
_ON = re.compile(r"(?<![A-Za-z0-9_.])(\d{1,5})(?:\s*[张块]\s*|\s+)([A-Za-z][\w.\-]*\d[\w.\-]*|\d{3,4}[A-Za-z][\w.\-]*)s?"
                 r"(?![\w])")  # "8 A100s", "16 910B", "8张910B"
_NODES = re.compile(r"(?<![A-Za-z0-9_.])(\d{1,4})\s*(?:nodes?\b|机|台(?:机器)?|个节点)", re.IGNORECASE)
_PER_NODE = re.compile(r"\s*(?:of|×|x|\*|每台)?\s*")  # between a node count and the cards per node
_HW_WORD = re.compile(r"(?<![A-Za-z0-9_-])(snt9b23|snt9b|910[abc]\d?|atlas\s*\d{3}\w*|[ahlbt]\d{2,3}\w*|rtx\s*\d{4}|\d{4}(?:\s*ti)?|"
                      r"mi\d{3}x?|v100|a6000|300i\s*duo)(?:[-\s]?(\d{2,3})\s*g[bi]?)?(?![A-Za-z0-9_])", re.IGNORECASE)


_METHOD = [("qlora", re.compile(r"\bq-?lora\b", re.I)), ("lora", re.compile(r"(?<![\w-])lora\b", re.I)),
           ("full", re.compile(r"\bfull(?:[- ]?(?:param(?:eter)?s?|fine[- ]?tun\w*|finetun\w*|ft|sft))?\b|全参|全量", re.I)),
           ("freeze", re.compile(r"\bfreeze\b", re.I))]
_LEN_KEYED = re.compile(r"(?:cutoff(?:_len)?|seq(?:uence)?[_ ]?len(?:gth)?|max[_ ]?len|length|长度|上下文)\s*[:=]?\s*(\d{2,6})\s*(k\b)?",
                        re.I)
_LEN_BARE = re.compile(r"(?<![\w.])(512|1024|2048|4096|8192|16384|32768|65536|131072|[1-9]\d?k)(?![\w.])", re.I)
# the word right before a bare number that makes it something else: "global batch 2048", "rank 16"
_NOT_LENGTH = re.compile(r"(?:batch(?:[_ ]size)?|batched[-_ ]tokens|num[-_ ]seqs|GBS|MBS|\bbs|steps|iters?|rank|epochs?|样本|步)\s*[:=]?\s*$", re.I)
# vLLM's flags written among the words beside a pasted vLLM log ("2 张 910B, tp 2, --gpu-memory-utilization 0.9"): the
# serve line the log came from, so the answer uses the user's values, not vLLM's defaults
_VLLM_SAID = [(setting, re.compile(rf"(?<![\w-])--{flag}[ =]+(\d+(?:\.\d+)?)(?![\w.])", re.I))
              for flag, setting in VLLM_FLAGS.items() if setting in ("tp", "pp", "max_model_len", "gpu_memory_utilization",
                                                                      "max_num_seqs", "max_num_batched_tokens") and len(flag) > 2]
_VLLM_SAID += [("tp", re.compile(r"(?<![\w-])tp\s*[:=]?\s*(\d{1,2})(?![\w.])", re.I))]
_ZERO = re.compile(r"\bzero[-_ ]?(?:stage[-_ ]?)?(\d)\b|(?:\b|(?<=ds_))z(\d)\b", re.I)  # a stage beyond 3 is a finding
# ("batch 2", "batch size 4" beside a pasted message is the per-device batch; "global batch 128" is not)
_MICRO = re.compile(r"(?:per_device(?:_train_batch_size)?|per device|micro[_ ]?batch(?:[_ ]?size)?|(?<![\w-])[mp]?bs|"
                    r"(?<![\w-])(?<!global )(?<!total )(?<!eval )(?<!effective )batch(?:[_ ]?size)?|\bmicro(?=\s*[:=]?\s*\d))\s*[:=]?\s*(\d{1,4})(?!\d|\.\d|\s*k\b)", re.I)
# ("GA 2", "grad accum 4", "gradient_accumulation_steps: 8", "梯度累积 8" beside a pasted message: the accumulation the run had,
# so a remedy that keeps the global batch keeps the user's, not the one with the default 1)
_ACCUM = re.compile(r"(?:gradient[_ ]accumulation(?:[_ ]steps)?|grad[_ ]?acc(?:um(?:ulation)?)?(?:[_ ]steps)?|\bGA|梯度累[积计加](?:步数|步)?)"
                    r"\s*[:=]?\s*(\d{1,4})(?!\d|\.\d)", re.I)
_FRAMEWORK = [("MindSpeed-LLM", re.compile(r"mindspeed", re.I)), ("LLaMA-Factory", re.compile(r"llama-?factory", re.I))]
# A layout said in words or flags beside a pasted log ("16 卡 TP 4 PP 2 MBS 2", "--tensor-model-parallel-size 8"): the
# script's own names (shell.py), so the estimate runs on the layout the log came from, not TP 1 PP 1.
_LAYOUT = [(setting, re.compile(rf"(?<![\w-])(?:{name}|--{flag})\s*[:=]?\s*(\d{{1,4}})(?![\w.])"))
           for setting in ("tp", "pp", "cp", "ep", "global_batch")
           for name in [k for k, v in MINDSPEED_VARS.items() if v == setting][:1]
           for flag in [k for k, v in MEGATRON_FLAGS.items() if v == setting][:1]]


def _length(m: re.Match) -> int:
    text = m.group(0) if m.re is _LEN_BARE else m.group(1) + (m.group(2) or "")
    digits = re.sub(r"\D", "", text.split(":")[-1])
    return int(digits) * (1024 if text.lower().endswith("k") else 1)


def read_settings(prose: str, out: Reading) -> None:
    """Method, length, ZeRO stage, micro batch, accumulation and framework stated in the words around the paste: they fill what the
    block lacks; a value the block sets otherwise is a conflict (named; the block's value is used)."""
    said: dict[str, tuple[object, str]] = {}
    for method, pattern in _METHOD:
        if m := pattern.search(prose):
            said["method"] = (method, m.group(0))
            break
    bare = [b for b in _LEN_BARE.finditer(prose) if not _NOT_LENGTH.search(prose[max(b.start() - 26, 0):b.start()])]
    if m := _LEN_KEYED.search(prose) or (bare[0] if bare else None):
        said["seq_len"] = (_length(m), m.group(0))
    if m := deepspeed.FILE_NAME.search(prose):  # a named example file states its stage and offload
        said["zero_stage"] = (int(m.group(1)), m.group(0))
        said["offload"] = (bool(m.group(2)), m.group(0))
    elif m := _ZERO.search(prose):
        said["zero_stage"] = (int(m.group(1) or m.group(2)), m.group(0))
    if m := _MICRO.search(prose):
        said["micro_batch"] = (int(m.group(1)), m.group(0))
    if m := _ACCUM.search(prose):
        said["grad_accum"] = (int(m.group(1)), m.group(0))
    for framework, pattern in _FRAMEWORK:
        if m := pattern.search(prose):
            said["framework"] = (framework, m.group(0))
            break
    for setting, pattern in _LAYOUT:
        if m := pattern.search(prose):
            said[setting] = (int(m.group(1)), m.group(0))
    if "vllm_log" in out.kinds:
        for setting, pattern in _VLLM_SAID:
            if setting not in said and (m := pattern.search(prose)):
                said[setting] = (float(m.group(1)) if setting == "gpu_memory_utilization" else int(m.group(1)), m.group(0))
    for name, (value, words) in said.items():
        block = out.settings.get(name)
        if block is not None and block != value and not (name == "method" and {block, value} == {"lora", "qlora"}):
            out.findings.append(Finding(code="prose_conflict", key=name, value=value, valid=str(block),
                                        figures={"question": words.strip(), "block": out.sources.get(name, "")}))
        out.put(name, value, f"question: {words.strip()}", keep=True)


# The words beside an out-of-memory message saying it came from a server, not a training job ("vllm 推理服务在压测时报的",
# "while serving with vLLM under load"); under load ("并发 64", "concurrency", "压测"): the server had started, so the
# memory it lacks is the headroom beyond --gpu-memory-utilization (the vendor's Ascend-vLLM FAQ: lower it first)
_SERVING = re.compile(r"vllm|serv(?:e|ing|er)\b|inference|推理|服务|部署|在线", re.I)
_UNDER_LOAD = re.compile(r"under\s+load|load\s+test|benchmark|concurren|requests|qps|压测|并发|请求|高峰|一直正常|跑了一段", re.I)


# The words placing an out-of-memory message in evaluation ("到 eval 的时候报", "OOM during evaluation"), and the eval batch
_EVAL = re.compile(r"(?<![a-z])eval(?:uation|uating)?(?![a-z])|评估|验证集|做验证", re.I)
_EVAL_BATCH = re.compile(r"per_device_eval_batch_size\s*[:=]?\s*(\d{1,4})", re.I)


def read_phase(prose: str, out: Reading) -> None:
    """An out-of-memory message whose words place it in a vLLM server (and under load), or in evaluation: read as the phase
    it came from (with the eval batch the words give)."""
    if "oom_message" not in out.kinds:
        return
    if (m := _EVAL.search(prose)) and not _SERVING.search(prose):
        out.put("phase", "eval", f"question: {m.group(0)}", keep=True)
        if b := _EVAL_BATCH.search(prose):
            out.put("eval_batch", int(b.group(1)), f"question: {b.group(0)}", keep=True)
        return
    if not (m := _SERVING.search(prose)):
        return
    load = _UNDER_LOAD.search(prose)
    out.put("phase", "serving_load" if load else "serving", f"question: {(load or m).group(0)}", keep=True)


MAX_PER_NODE = 8  # the most devices one server holds (Snt9B/Snt9B23 nodes, 8-GPU servers)


def read(prose: str, out: Reading) -> list[str]:
    """Record device and node counts; return the words that may name the hardware, best first."""
    words: list[str] = []
    if m := _TIMES.search(prose):
        out.put("devices", int(m.group(1)), f"question: {m.group(0)}", keep=True)
        words.append(m.group(2))
    elif m := _COUNT.search(prose):
        out.put("devices", int(m.group(1)), f"question: {m.group(0).strip()}", keep=True)
    elif m := _ON.search(prose):
        out.put("devices", int(m.group(1)), f"question: {m.group(0)}", keep=True)
        words.append(m.group(2))
    if m := _NODES.search(prose):
        out.put("nodes", int(m.group(1)), f"question: {m.group(0)}", keep=True)
        per = _COUNT.match(prose, _PER_NODE.match(prose, m.end()).end())  # type: ignore[union-attr]
        if per and out.sources.get("devices", "").endswith(per.group(0).strip()) and int(per.group(1)) <= MAX_PER_NODE:
            # "2台8卡", "2 nodes of 8 cards"; "2 机 16 卡" is the total (no node holds more than 8 of these parts)
            out.put("devices", int(m.group(1)) * int(per.group(1)), f"question: {prose[m.start():per.end()].strip()}")
    words += [m.group(0) for m in _HW_WORD.finditer(prose)]
    return words
