"""Out-of-memory messages (PyTorch CUDA, torch_npu) and vLLM start-up lines: the figures they print.

The three shapes read here:
  NPU out of memory. Tried to allocate 1.04 GiB (NPU 4; 60.97 GiB total capacity; 56.45 GiB already
      allocated; 56.45 GiB current active; 498.29 MiB free; 58.51 GiB reserved in total by PyTorch)
  CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 14.56 GiB already
      allocated; 11.44 MiB free; 14.68 GiB reserved in total by PyTorch)          (PyTorch < 2.1)
  CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which
      1.05 GiB is free. Including non-PyTorch memory, this process has 78.09 GiB memory in use. Of the
      allocated memory 75.50 GiB is allocated by PyTorch, and 1.97 GiB is reserved by PyTorch but
      unallocated.                                                                  (PyTorch >= 2.1)
"""

from __future__ import annotations

import re

from .reading import OomReport, Reading, VllmLog

_SIZE = r"([\d.,]+)\s*([KMGT]i?B|bytes)"
_UNIT = {"bytes": 1 / 2**30, "KB": 1 / 2**20, "KiB": 1 / 2**20, "MB": 1 / 2**10, "MiB": 1 / 2**10, "GB": 1.0,
         "GiB": 1.0, "TB": 1024.0, "TiB": 1024.0}
OOM = re.compile(r"(NPU|CUDA|GPU) out of memory\.?\s*Tried to allocate " + _SIZE, re.IGNORECASE)
_DEVICE = re.compile(r"\((?:NPU|GPU)\s*(\d+);|(?:NPU|GPU)\s+(\d+)\s+has a total capacity", re.IGNORECASE)
_FIELDS = {
    "capacity_gib": [_SIZE + r"\s*total capacity", r"total capacity of\s*" + _SIZE],
    "allocated_gib": [_SIZE + r"\s*already allocated", _SIZE + r"\s*is allocated by PyTorch"],
    "free_gib": [_SIZE + r"\s*free\b", r"of which\s*" + _SIZE + r"\s*is free"],
    "reserved_gib": [_SIZE + r"\s*reserved in total"],
    "in_use_gib": [r"(?:this process|Process \d+) has\s*" + _SIZE + r"\s*memory in use"],
}
_UNALLOCATED = re.compile(_SIZE + r"\s*is reserved by PyTorch but unallocated", re.IGNORECASE)


def gib(number: str, unit: str) -> float:
    return float(number.replace(",", "")) * _UNIT.get(unit, _UNIT.get(unit.replace("i", ""), 1.0))


def read_oom(text: str) -> OomReport | None:
    """The last out-of-memory message in the text (the one that stopped the run), or None."""
    hits = list(OOM.finditer(text))
    if not hits:
        return None
    m = hits[-1]
    tail = text[m.start(): m.start() + 700]
    end = tail.find(")")
    newer = "total capacity of" in tail
    body = tail if newer or end < 0 else tail[: end + 1]
    values: dict[str, float | None] = {}
    for name, patterns in _FIELDS.items():
        values[name] = None
        for p in patterns:
            f = re.search(p, body, re.IGNORECASE)
            if f:
                values[name] = round(gib(f.group(1), f.group(2)), 3)
                break
    if newer and values["allocated_gib"] is not None and (u := _UNALLOCATED.search(body)):
        values["reserved_gib"] = round(values["allocated_gib"] + gib(u.group(1), u.group(2)), 3)
    if values["capacity_gib"] is None:
        return None
    d = _DEVICE.search(body)
    device = int(d.group(1) or d.group(2)) if d else None
    platform = "npu" if m.group(1).upper() == "NPU" else "cuda"
    line_end = body.find("\n", 200)
    return OomReport(platform=platform, device_index=device, tried_gib=round(gib(m.group(2), m.group(3)), 3),
                     capacity_gib=values["capacity_gib"], allocated_gib=values["allocated_gib"],
                     reserved_gib=values["reserved_gib"], free_gib=values["free_gib"], in_use_gib=values["in_use_gib"],
                     line=" ".join(body[: line_end if line_end > 0 else 500].split())[:500])


_VLLM = [
    ("weights_gib", re.compile(r"(?:Model weights took|Loading (?:model )?weights took|model loading took)\s*([\d.]+)\s*(GiB|GB)", re.I)),
    ("kv_cache_gib", re.compile(r"Available KV cache memory:\s*([\d.]+)\s*(GiB|GB)", re.I)),
]
_KV_TOKENS = re.compile(r"(?:GPU|NPU)?\s*KV cache size:\s*([\d,]+)\s*tokens", re.I)
_TOO_LONG = re.compile(r"max seq len \((\d+)\) is larger than the maximum number of tokens that can be stored in KV "
                       r"cache \((\d+)\)", re.I)
_NEEDED = re.compile(r"max seq len \((\d+)\),?\s*\(?([\d.]+)\s*GiB KV cache is needed", re.I)  # vLLM V1
_NO_CACHE = re.compile(r"No available memory for the cache blocks", re.I)


def read_vllm_log(text: str) -> VllmLog | None:
    log = VllmLog()
    found = False
    for name, pattern in _VLLM:
        if m := pattern.search(text):
            setattr(log, name, round(float(m.group(1)), 2))
            log.lines.append(_line(text, m.start()))
            found = True
    if m := _KV_TOKENS.search(text):
        log.kv_tokens = int(m.group(1).replace(",", ""))
        log.lines.append(_line(text, m.start()))
        found = True
    if m := _TOO_LONG.search(text):
        log.max_seq_len, log.kv_capacity_tokens = int(m.group(1)), int(m.group(2))
        log.lines.append(_line(text, m.start()))
        found = True
    if m := _NEEDED.search(text):
        log.max_seq_len, log.kv_needed_gib = int(m.group(1)), float(m.group(2))
        log.lines.append(_line(text, m.start()))
        found = True
    if m := _NO_CACHE.search(text):
        log.no_cache_memory = True
        log.lines.append(_line(text, m.start()))
        found = True
    return log if found else None


def _line(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return text[start: end if end >= 0 else None].strip()[:300]


# The user's words beside the message: another process holding memory on the device ("npu-smi info 显示还挂着一个 python
# 进程占了 40GB", "a leftover process is using 38 GB"): what the message cannot show, the vendor's first OOM step
_HELD_ELSEWHERE = re.compile(
    r"(?:process(?:es)?|进程)[^\d\n]{0,25}?(?:using|holding|holds|uses|taking|takes|occupying|occupies|eating|with|"
    r"占了?|占用了?|占着|用了|吃了?)\s*(?:about\s+|约\s*)?([\d.]+)\s*(GiB|GB|G)(?![A-Za-z])", re.IGNORECASE)


def read_messages(text: str, out: Reading) -> None:
    if oom := read_oom(text):
        if held := _HELD_ELSEWHERE.search(text.replace(oom.line, " ")):
            oom.held_elsewhere_gib = round(gib(held.group(1), held.group(2)), 3)  # a bare "G" is read as GB
        out.oom = oom
        out.add_kind("oom_message")
    if log := read_vllm_log(text):
        out.vllm_log = log
        out.add_kind("vllm_log")
