"""A device's memory said in two units, or short of its size ("npu-smi says 65536 MB but torch says 60.97 GiB total
capacity: where did the rest go?", "nvidia-smi shows 81920MiB, the spec says 80GB: which is right?"): each figure the
user wrote converted (npu-smi and nvidia-smi count in MiB: 1 MB there = 1024² bytes), the part's memory from the
hardware catalog row, and the capacity the framework reports (the estimator's CAPACITY_FRACTION, the one place that
fact lives) with the gap the driver and runtime keep. Nothing here names a part: the part is the one the question
names, else the catalog row whose memory per device the MiB figure is. Pure functions over the question and the rows."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..estimate import constants as C
from . import pasted_output

# a memory figure with its unit ("65536 MB", "81920MiB", "60.97 GiB", "80GB", "64G", Kubernetes' "64Gi"); bytes as a long number
FIGURE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*(mib|mb|gib|gb|gi|g|bytes)(?![a-z])", re.I)
# a bare MiB count the way npu-smi prints HBM ("HBM 显示 65536", "0 / 65536"): a multiple of 1024 of 4-6 digits
BARE_MIB = re.compile(r"(?<![\d.])(\d{4,6})(?![\d.]|\s*(?:mib|mb|gib|gb|g|bytes|tokens?|步|steps?)\b)", re.I)
MEMORY_WORD = re.compile(r"(?i)hbm|memory|vram|显存|内存|npu-smi|nvidia-smi|capacity")
# what is asked of the figures: where the rest went, which one is right, why they differ
ASKS = re.compile(r"(?i)where\s+(?:did|does|is|do|has|have)|which\s+(?:one|number|figure|value|is)|(?<![a-z])(?:right|correct|wrong)(?![a-z])|"
                  r"why\s+(?:only|does|do|is|are)|missing|the\s+rest|(?<![a-z])(?:gap|differen\w*|differ|discrepancy|mismatch|lost)(?![a-z])|"
                  r"same\s+(?:thing|memory|amount)|broken|faulty|defective|(?<![a-z])(?:normal|expected)(?![a-z])|正常|坏了|故障|有问题|哪去|去哪|哪里去|哪儿去|差的|差了|少了|差这么|为什么只有|只有|对不对|哪个对|哪个是对|一样吗|不一致|不一样|怎么回事|缺")
BROKEN = re.compile(r"(?i)broken|faulty|defective|(?<![a-z])(?:normal|expected)(?![a-z])|正常|坏了|故障|有问题")
NPU_WORDS = re.compile(r"(?i)npu|ascend|昇腾|910|snt9|atlas|cann")
GPU_WORDS = pasted_output.GPU_WORDS


@dataclass(frozen=True)
class Figure:
    value: float
    unit: str  # as written: MiB, MB, GiB, GB, bytes
    gib: float  # the figure in GiB (MB as the smi tools print it: MiB)


def figures(question: str) -> list[Figure]:
    """The memory figures the question states, in GiB, in the order written."""
    out: list[tuple[int, Figure]] = []
    for m in FIGURE.finditer(question):
        n, unit = float(m.group(1)), m.group(2).lower()
        gib = {"mib": n / 1024, "mb": n / 1024, "gib": n, "gi": n, "gb": n, "g": n, "bytes": n / C.GIB}[unit]
        shown = {"mib": "MiB", "mb": "MB", "gib": "GiB", "gi": "GiB", "gb": "GB", "g": "GB", "bytes": "bytes"}[unit]
        out.append((m.start(), Figure(n, shown, gib)))
    if MEMORY_WORD.search(question):
        taken = [m.span() for m in FIGURE.finditer(question)]
        for m in BARE_MIB.finditer(question):
            n = int(m.group(1))
            if n % 1024 == 0 and not any(a <= m.start() < b for a, b in taken):
                out.append((m.start(), Figure(n, "MB", n / 1024)))
    return [f for _, f in sorted(out, key=lambda x: x[0])]


def sizes_gb(question: str) -> list[float]:
    """The memory sizes the question writes in GB ("180G", "64 GB", "96GiB"), of two or three digits (a part's size,
    not a count), in the order written."""
    return [f.value for f in figures(question) if f.unit in ("GB", "GiB") and 10 <= f.value < 1000]


def asked(question: str) -> list[Figure] | None:
    """The figures when the question asks how a device's memory figures relate: an MiB figure of a device (1 GiB or
    more) with another figure or a smi tool named, and a question of where, which or why; else None."""
    figs = figures(question)
    mib = [f for f in figs if f.unit in ("MiB", "MB", "bytes") and f.gib >= 1]
    if not mib or not ASKS.search(question):
        return None
    if len(figs) < 2 and not re.search(r"(?i)npu-smi|nvidia-smi|rocm-smi", question):
        return None
    return figs


def part_of(figs: list[Figure], named: str | None, parts: dict[str, dict[str, Any]], question: str) -> dict[str, Any] | None:
    """The part named, else the catalog row whose memory per device the MiB figure is (of the kind the words say, the
    vendor-table row first when several share it)."""
    if named and named in parts:
        return parts[named]
    size = next((f.gib for f in figs if f.unit in ("MiB", "MB", "bytes")), None)
    if size is None:
        return None
    kind = "npu" if NPU_WORDS.search(question) else "gpu" if GPU_WORDS.search(question) else None
    rows = [r for r in parts.values() if abs(float(r.get("memory_gb") or 0) - size) < 0.5 and (kind is None or r.get("kind") == kind)]
    tabled = [r for r in rows if r.get("vendor_tables")]
    return (tabled or rows)[0] if tabled or rows else None


def g(x: float) -> str:
    return f"{round(x, 2):g}"


def render(figs: list[Figure], part: dict[str, Any] | None, question: str, zh: bool) -> str:
    """The gap first when a figure below the device's size is stated (what the runtime keeps), else the units; then
    each figure converted, the catalog's size and the capacity the framework reports."""
    kind = str(part.get("kind")) if part else ("npu" if NPU_WORDS.search(question) else "gpu")
    mib = next(f for f in figs if f.unit in ("MiB", "MB", "bytes") and f.gib >= 1)
    size = float(part.get("memory_gb") or 0) if part and part.get("memory_gb") else mib.gib
    frac = C.CAPACITY_FRACTION["npu" if kind == "npu" else "gpu"]
    usable = size * frac
    name = str(part.get("table_part") or part.get("short_name") or part.get("name")) if part else ""
    device = ("DIE" if part and part.get("unit") == "die" else ("芯片" if zh else "chip") if part and part.get("unit") == "chip"
              else ("卡" if zh else "card" if kind == "npu" else "GPU"))
    smi = "npu-smi" if kind == "npu" else "nvidia-smi"
    below = [f for f in figs if f.unit in ("GiB", "GB") and 0.85 * size <= f.gib < size - 0.05]
    spec = [f for f in figs if f.unit in ("GB", "GiB") and abs(f.gib - size) < 0.05]
    reported = below[0].gib if below else usable
    gap = size - reported
    decimal = mib.gib * C.GIB / 1e9
    units = (f"**{mib.value:g} {mib.unit} = {mib.value:g} ÷ 1024 = {g(mib.gib)} GiB**：{smi} 的 MB 是 MiB（1024² 字节），"
             f"所以这就是整块 {g(size)} GB 显存（按十进制 GB 是 {g(decimal)} GB）" if zh else
             f"**{mib.value:g} {mib.unit} = {mib.value:g} ÷ 1024 = {g(mib.gib)} GiB**: {smi} counts in MiB (1024² bytes), so this "
             f"is the whole {g(size)} GB of memory ({g(decimal)} GB in decimal gigabytes)")
    if mib.unit == "bytes":
        units = (f"**{mib.value:,.0f} 字节 = {g(mib.gib)} GiB**（÷ 1024³）" if zh else f"**{mib.value:,.0f} bytes = {g(mib.gib)} GiB** (÷ 1024³)")
    catalog = (f"硬件目录：{name} 每{device} {g(size)} GB" if zh else f"Hardware catalog: {name} has {g(size)} GB per {device}") if name else ""
    said_spec = (f"规格上的 {g(spec[0].value)} {spec[0].unit} 就是这 {g(size)} GiB（厂商标的显存 GB 按 1024 进制）" if zh else
                 f"the spec's {g(spec[0].value)} {spec[0].unit} is these {g(size)} GiB (vendors state HBM in binary gigabytes)") if spec else ""
    framework = "torch_npu" if kind == "npu" else "PyTorch"
    if kind == "npu":
        basis = ("依据：ModelArts 显存溢出示例报错在 64 GB 的设备上显示 60.97 GiB total capacity，估算器按同一比例计可用显存"
                 "（差额归于驱动/固件和运行时预留是推断）" if zh else
                 "Basis: the ModelArts out-of-memory sample reads 60.97 GiB total capacity on a 64 GB device, and the estimator "
                 "counts usable memory with the same share (the gap being the driver, firmware and runtime reserve is an inference)")
    else:
        basis = ("依据：80 GB 的 NVIDIA 卡在 PyTorch 中报约 79.15 GiB total capacity，估算器按同一比例计可用显存"
                 "（差额归于驱动和 CUDA 运行时预留是推断）" if zh else
                 "Basis: an 80 GB NVIDIA card reports about 79.15 GiB total capacity in PyTorch, and the estimator counts usable "
                 "memory with the same share (the gap being the driver and CUDA runtime reserve is an inference)")
    fine = ("**没坏，这是正常的**：" if zh else "**No, this is normal**: ") if BROKEN.search(question) else ""
    if below:
        lead = fine + (f"**差的 {g(size)} − {g(reported)} = {g(gap)} GiB 是驱动/固件和运行时预留的**，{framework} 看不到："
                f"{g(reported)} GiB 是框架报告的 total capacity，不是显存丢了。" if zh else
                f"**The missing {g(size)} − {g(reported)} = {g(gap)} GiB is held by the driver, firmware and runtime** before "
                f"{framework} sees the device: {g(reported)} GiB is the framework's total capacity; nothing is lost.")
        lines = [lead, f"- {units}。" if zh else f"- {units}."]
    else:
        lead = fine + (f"**两个数都对，是同一块显存的不同单位**：{units}" + (f"；{said_spec}" if said_spec else "") + "。" if zh else
                f"**Both are right, the same memory in different units**: {units}" + (f"; {said_spec}" if said_spec else "") + ".")
        lines = [lead]
        lines.append(f"- {framework} 实际能用的约为 {g(size)} × {frac:.3f} ≈ **{g(usable)} GiB**（total capacity），"
                     f"其余约 {g(size - usable)} GiB 由驱动/运行时预留。" if zh else
                     f"- What {framework} can use is about {g(size)} × {frac:.3f} ≈ **{g(usable)} GiB** (its total capacity); "
                     f"the other ~{g(size - usable)} GiB is kept by the driver and runtime.")
    if catalog:
        lines.append(f"- {catalog}。" if zh else f"- {catalog}.")
    lines.append(f"- {basis}。" if zh else f"- {basis}.")
    return "\n".join(lines)


def answer(question: str, named: str | None, parts: dict[str, dict[str, Any]], zh: bool) -> tuple[str, list[str]] | None:
    """The units answer with its catalog source, or None when the question asks no such thing."""
    if pasted_output.read_devices(question):
        return None  # a pasted npu-smi / nvidia-smi view: its own diagnosis leads (pasted_output.py), not the units of its figures
    figs = asked(question)
    if figs is None:
        return None
    part = part_of(figs, named, parts, question)
    sources = [str(part.get("source"))] if part and part.get("source") else []
    return render(figs, part, question, zh), sources
