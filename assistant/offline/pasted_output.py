"""Tool output pasted into a question, read as data: an `npu-smi info` table (HBM in use per device, AICore load, the
process rows) and Kubernetes output (a `kubectl get pods` table, a FailedScheduling event of `kubectl describe`). The
answer's lead is the diagnosis its values give ("about 60 GB in use on devices that compute nothing: leftover
processes hold it"), in the user's own figures and names; the notes' quote (OOM remedies, the Pending page) follows
it. Pure functions over the question; the vendor remedies named here are the ones the notes quote (oom.md step 1,
pod_pending.md), the thresholds are the note-writer's reading of an idle device."""

from __future__ import annotations

import re
from dataclasses import dataclass

# An idle Ascend device shows only the driver's and runtime's own share of HBM in use (about 3 GB of 64 GB on a 910B,
# general knowledge): a quarter of the device or more in use with no AICore load is memory some process holds.
HELD_SHARE = 0.25
# a device shown only by its process rows (no usage line, so no total): an idle device shows a few hundred MB to a few
# GB (the same reading), so a process holding more than this is memory a new job cannot have
IDLE_MB = 4096
# the second line of a device's pair: "| 0   | 0000:C1:00.0 | 0   0 / 0   58210/ 65536 |" (AICore %, memory, HBM used/total);
# an A3 table adds the chip's Phy-ID after the chip ("| 0     1   | 0000:9F:00.0 | …")
BUS_LINE = re.compile(r"^\s*\|\s*(\d+)(?:\s+\d+)?\s*\|\s*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d\s*\|\s*(\d+)\s+(.*?)\|?\s*$")
PAIR = re.compile(r"(\d+)\s*/\s*(\d+)")
# the smallest HBM total a device shows (MB): a smaller pair on a name line is another figure (Hugepages-Usage "0 / 0")
MIN_HBM_MB = 1024
# the first line of a pair: "| 0     910B3   | OK  | 95.1  40  0 / 0 |" (device id, chip name, health)
NAME_LINE = re.compile(r"^\s*\|\s*(\d+)\s+(\w+)\s*\|\s*(OK|Warning|Alarm|Critical|\w+)\s*\|")
# a process row: "| 0  0 | 123456 | python | 57000 |" (device, chip, PID, name, memory MB)
PROCESS_LINE = re.compile(r"^\s*\|\s*(\d+)\s+(\d+)\s*\|\s*(\d+)\s*\|\s*([^|]+?)\s*\|\s*(\d+)\s*\|?\s*$")
# "no job running", "没有任务在跑", "idle": the user says nothing of theirs runs on the devices
SAYS_IDLE = re.compile(r"no\s+(?:job|task|process|training)s?\s+(?:is\s+|are\s+)?running|nothing\s+(?:is\s+)?running|idle|"
                       r"没(?:有)?(?:任务|作业|进程|训练)(?:在)?(?:跑|运行)|空闲|没在跑|没跑", re.I)
# "I already Ctrl+C'd the last run", "killed the previous job", "上一个训练 kill 掉了", "已经停了": the user stopped the run
# whose processes the table still shows (a launcher stopped with Ctrl+C can leave its worker processes behind)
SAYS_STOPPED = re.compile(r"ctrl\s*[-+]?\s*c|\^c(?![a-z])|(?:killed|stopped|terminated|cancel+ed|interrupted|aborted)(?![a-z])|"
                          r"(?:kill|停|关|中断|结束|终止|取消)(?:\s*-9)?\s*(?:掉|了)|已经(?:停|关|结束|终止|杀)", re.I)
# the header of npu-smi's process table ("| NPU  Chip | Process id | Process name | Process memory(MB) |"): the rows under
# it are processes, whatever their first columns look like
PROCESS_HEADER = re.compile(r"process\s+id|process\s+name", re.I)


FEW_GB_MB = 8 * 1024  # free memory a sentence may call "a few GB"


@dataclass(frozen=True)
class NpuDevice:
    """One device of an `npu-smi info` table: HBM in MB as printed."""

    npu: int
    chip: int
    name: str | None
    aicore: int
    hbm_used_mb: int
    hbm_total_mb: int

    @property
    def share(self) -> float:
        return self.hbm_used_mb / self.hbm_total_mb if self.hbm_total_mb else 0.0

    @property
    def held(self) -> bool:
        """Memory held with no computing: a process that is not running a step keeps it."""
        return self.aicore == 0 and (self.share >= HELD_SHARE if self.hbm_total_mb else self.hbm_used_mb > IDLE_MB)


@dataclass(frozen=True)
class NpuProcess:
    npu: int
    pid: int
    name: str
    memory_mb: int


@dataclass(frozen=True)
class NpuSmiTable:
    """The devices a monitoring tool shows: an `npu-smi info` table, an `nvidia-smi` table (tool "nvidia-smi": GPU-Util
    in place of AICore, MiB as printed), or the same figures said in words ("NPU 3 at 41000 / 65536 MB, pid 21877")."""

    devices: tuple[NpuDevice, ...]
    processes: tuple[NpuProcess, ...]
    says_idle: bool
    says_stopped: bool = False
    tool: str = "npu-smi"
    says_oom: bool = True  # the user reports an out-of-memory (else "is it free? can I start?" is asked)
    load_said: bool = True  # the load (AICore / GPU-Util) is shown; None said in words reads as unknown
    size_asked: int | None = None  # "is this a 32GB card?": the GB per device the user asks about

    @property
    def gpu(self) -> bool:
        return self.tool == "nvidia-smi"

    @property
    def command(self) -> str:
        return "nvidia-smi" if self.gpu else "npu-smi info"


@dataclass(frozen=True)
class Pod:
    name: str
    ready: str
    status: str
    age: str


@dataclass(frozen=True)
class PodsTable:
    """A `kubectl get pods` table."""

    pods: tuple[Pod, ...]


@dataclass(frozen=True)
class SchedulingEvent:
    """A FailedScheduling event: "0/4 nodes are available: 4 Insufficient cpu."."""

    nodes: int | None
    short: int | None
    resource: str
    message: str


PastedOutput = NpuSmiTable | PodsTable | SchedulingEvent

POD_HEADER = re.compile(r"^\s*NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\b", re.M)
POD_ROW = re.compile(r"^\s*([a-z0-9][a-z0-9.-]*)\s+(\d+/\d+)\s+([A-Za-z:]+)\s+\d+(?:\s+\([^)]*\))?\s+(\S+)", re.M)
INSUFFICIENT = re.compile(r"(?:(\d+)/(\d+)\s+nodes?\s+(?:are\s+)?available:\s*)?(\d+)\s+Insufficient\s+([\w./-]+[\w])", re.I)
NPU_RESOURCE = re.compile(r"ascend|npu", re.I)
# "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector": no node has the labels the pod asks for
AFFINITY = re.compile(r"(?:(\d+)/(\d+)\s+nodes?\s+(?:are\s+)?available:\s*)?(\d+)\s+node\(s\)\s+didn'?t\s+match\s+"
                      r"(?:Pod'?s\s+)?node\s+(?:affinity|selector)", re.I)
AFFINITY_RESOURCE = "node affinity/selector"


# "is this a 32GB card?", "是 64G 的卡吗": a size per device asked of the devices shown
SIZE_ASKED = re.compile(r"(?<![\d.])(\d{2,3})\s*gi?b?\s*(?:的)?\s*(?:cards?|卡|devices?|npus?|gpus?|版本|variant|model)", re.I)


def size_asked(own: str) -> int | None:
    m = SIZE_ASKED.search(own)
    return int(m.group(1)) if m else None


def read_npu_smi(question: str) -> NpuSmiTable | None:
    devices: list[NpuDevice] = []
    processes: list[NpuProcess] = []
    name: tuple[int, str] | None = None
    in_processes = one_line = False
    for line in question.splitlines():
        if PROCESS_HEADER.search(line):
            in_processes = True
        elif in_processes:
            if proc := process_row(line):  # under the process table's header: a process, with or without device lines
                processes.append(proc)
        elif m := BUS_LINE.match(line):
            pairs = PAIR.findall(m.group(3))
            if pairs:
                used, total = map(int, pairs[-1])  # the last pair of the line is HBM-Usage(MB)
                # a second chip of a card (an A3 card has two) follows its card's first chip without a name line
                npu = name[0] if name else devices[-1].npu if devices and int(m.group(1)) > 0 else len(devices)
                devices.append(NpuDevice(npu, int(m.group(1)), name[1] if name else None, int(m.group(2)), used, total))
            name = None
        elif m := PROCESS_LINE.match(line):  # a process row (before the name line, whose shape it also has): kept when
            # device lines, a header or the tool's name say so
            processes.append(NpuProcess(int(m.group(1)), int(m.group(3)), m.group(4), int(m.group(5))))
        elif m := NAME_LINE.match(line):
            name = (int(m.group(1)), m.group(2))
            hbm = [p for p in PAIR.findall(line[m.end():]) if int(p[1]) >= MIN_HBM_MB]
            if hbm:  # a one-line device row ("| 3  910B3 | OK | 180.2 55 | 58210 / 65536 |"): its HBM pair is on it
                used, total = map(int, hbm[-1])
                devices.append(NpuDevice(name[0], 0, name[1], 0, used, total))
                one_line = True
                name = None
    shown_alone = not devices and processes and (in_processes or SAID_TOOL.search(question))
    if shown_alone:
        # only the process rows pasted: each device is known by what its processes hold (its total is not shown)
        devices = [NpuDevice(npu, 0, None, 0, sum(p.memory_mb for p in processes if p.npu == npu), 0)
                   for npu in dict.fromkeys(p.npu for p in processes)]
    if not devices:
        return None
    own = "\n".join(line for line in question.splitlines() if "|" not in line)
    return NpuSmiTable(tuple(devices), tuple(processes), bool(SAYS_IDLE.search(own)), bool(SAYS_STOPPED.search(own)),
                       says_oom=bool(SAYS_OOM.search(own)), load_said=not (shown_alone or one_line), size_asked=size_asked(own))


def process_row(line: str) -> NpuProcess | None:
    """A row of the process table in any of npu-smi's layouts: the device (and chip) and the PID in one cell or
    apart ("| 0  0 | 123456 | python | 57000 |", "| 3  187342 | python | 54800 |"), then the name, then the memory."""
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    named = next((i for i, c in enumerate(cells) if re.search(r"[A-Za-z]", c)), None)
    if named is None or named == 0 or not cells[-1].isdigit() or named == len(cells) - 1:
        return None
    ids = [int(x) for c in cells[:named] for x in c.split()] if all(re.fullmatch(r"[\d\s]+", c) for c in cells[:named]) else []
    if len(ids) < 2:
        return None
    return NpuProcess(ids[0], ids[-1], cells[named], int(cells[-1]))


# nvidia-smi: the device line "|   0  NVIDIA A100-SXM...  On   | 00000000:07:00.0 Off |   0 |" and the line under it
# "| N/A   33C    P0    62W / 400W |  52113MiB / 81920MiB |      0%      Default |" (memory used / total, GPU-Util)
GPU_NAME_LINE = re.compile(r"^\s*\|\s*(\d+)\s+((?:NVIDIA|Tesla|Quadro|GeForce|AMD)[^|]*?)\s+(?:On|Off)\s*\|", re.I)
GPU_MEM_LINE = re.compile(r"\|\s*(\d+)\s*MiB\s*/\s*(\d+)\s*MiB\s*\|\s*(\d+)\s*%", re.I)
# "|    0   N/A  N/A     33412      C   python                          52108MiB |" (GPU, GI, CI, PID, type, name, memory)
GPU_PROCESS_LINE = re.compile(r"^\s*\|\s*(\d+)\s+(?:\S+\s+\S+\s+)?(\d+)\s+(?:C|G|C\+G)\s+(\S+)\s+(\d+)\s*MiB\s*\|?\s*$", re.I)
# the figures said in words: a tool or memory word, then "41000 / 65536 MB" (used of total) beside a device's number,
# its load and a PID ("NPU 3 already at 41000 / 65536 MB HBM used, process python pid 21877", "2 号卡 HBM 已经用了
# 58000/65536 MB，AICore 0%", "nvidia-smi 显示 78000MiB / 81920MiB，GPU-Util 100%")
SAID_TOOL = re.compile(r"npu-smi|nvidia-smi|hbm|显存|memory[-\s]usage|gpu-util|aicore", re.I)
SAID_PAIR = re.compile(r"(?<![\d.])(\d{3,6})\s*(?:mi?b)?\s*/\s*(\d{4,6})\s*(mi?b)(?![a-z])", re.I)
SAID_DEVICE = re.compile(r"(?:npu|gpu|card|device|卡)\s*(?:#|no\.?\s*)?(\d{1,2})(?!\d)|(\d{1,2})\s*号\s*(?:卡|npu|gpu)", re.I)
SAID_LOAD = re.compile(r"(?:aicore|gpu[-\s]?util(?:ization)?|util(?:ization)?|利用率|使用率)\s*(?:\(%\))?\s*[:=是为]?\s*(\d{1,3})\s*%|"
                       r"(?<![\d.])(\d{1,3})\s*%\s*(?:aicore|gpu[-\s]?util(?:ization)?|util(?:ization)?|利用率|load)", re.I)
SAID_PID = re.compile(r"(?:(?<![a-z])pid|process\s*id|进程\s*(?:号|id)?)\s*[:=#]?\s*(\d{2,8})", re.I)
SAID_PROCESS_NAME = re.compile(r"(python3?|torchrun|vllm|java|ray)", re.I)
# a GPU said in words: the vendor's words or a data-centre part's shape (a letter and 2-3 digits), no part names kept here
GPU_WORDS = re.compile(r"(?i)nvidia|cuda|gpu|(?<![a-z])(?:a|h|l|b|v|t)\d{2,3}(?![0-9])|rtx|mi\d{3}")
SAYS_OOM = re.compile(r"out\s+of\s+memory|(?<![a-z])oom|显存不足|显存溢出|溢出|爆显存|内存不足", re.I)


def read_nvidia_smi(question: str) -> NpuSmiTable | None:
    devices: list[NpuDevice] = []
    processes: list[NpuProcess] = []
    name: tuple[int, str] | None = None
    for line in question.splitlines():
        if m := GPU_NAME_LINE.match(line):
            name = (int(m.group(1)), m.group(2).strip())
        elif m := GPU_MEM_LINE.search(line):
            npu, label = name if name else (len(devices), None)
            devices.append(NpuDevice(npu, 0, label, int(m.group(3)), int(m.group(1)), int(m.group(2))))
            name = None
        elif (m := GPU_PROCESS_LINE.match(line)) and devices:
            processes.append(NpuProcess(int(m.group(1)), int(m.group(2)), m.group(3), int(m.group(4))))
    if not devices:
        return None
    own = "\n".join(line for line in question.splitlines() if "|" not in line)
    return NpuSmiTable(tuple(devices), tuple(processes), bool(SAYS_IDLE.search(own)), bool(SAYS_STOPPED.search(own)),
                       "nvidia-smi", bool(SAYS_OOM.search(own)), size_asked=size_asked(own))


def read_said(question: str) -> NpuSmiTable | None:
    """One device's figures said in words, with no table pasted: used / total memory, its load and the PID holding it."""
    if "|" in question or not SAID_TOOL.search(question):
        return None
    pair = SAID_PAIR.search(question)
    pid = SAID_PID.search(question)
    held = SAID_HELD.search(question) if pid and not pair else None  # "PID 8812 python 占 60125MB": one amount, no total
    if held:
        return _held_said(question, pid, held)  # type: ignore[arg-type]
    if not pair or int(pair.group(1)) > int(pair.group(2)):
        return None
    gpu = bool(GPU_WORDS.search(question)) or pair.group(3).lower() == "mib" and "npu" not in question.lower()
    dev = SAID_DEVICE.search(question)
    npu = int(next(g for g in dev.groups() if g)) if dev else 0
    load = SAID_LOAD.search(question)
    pname = SAID_PROCESS_NAME.search(question)
    used, total = int(pair.group(1)), int(pair.group(2))
    device = NpuDevice(npu, 0, None, int(load.group(1) or load.group(2)) if load else 0, used, total)
    procs = (NpuProcess(npu, int(pid.group(1)), pname.group(1) if pname else "?", used),) if pid else ()
    return NpuSmiTable((device,), procs, bool(SAYS_IDLE.search(question)) or bool(BEFORE_START.search(question)),
                       bool(SAYS_STOPPED.search(question)), "nvidia-smi" if gpu else "npu-smi",
                       bool(SAYS_OOM.search(question)), load is not None)


# the memory a process holds, said with its PID and no total ("process id 8812 python 占 60125MB")
SAID_HELD = re.compile(r"(?<![\d.])(\d{3,6})\s*(mi?b)(?![a-z])", re.I)


def _held_said(question: str, pid: re.Match, held: re.Match) -> NpuSmiTable:
    """One process said in words with the memory it holds: the device it is on (its total not said) holds that much."""
    dev = SAID_DEVICE.search(question)
    npu = int(next(g for g in dev.groups() if g)) if dev else 0
    pname = SAID_PROCESS_NAME.search(question)
    used = int(held.group(1))
    gpu = bool(GPU_WORDS.search(question)) or held.group(2).lower() == "mib" and "npu" not in question.lower()
    return NpuSmiTable((NpuDevice(npu, 0, None, 0, used, 0),), (NpuProcess(npu, int(pid.group(1)), pname.group(1) if pname else "?", used),),
                       bool(SAYS_IDLE.search(question)) or bool(BEFORE_START.search(question)), bool(SAYS_STOPPED.search(question)),
                       "nvidia-smi" if gpu else "npu-smi", bool(SAYS_OOM.search(question)), load_said=False)


# "before I start training", "还没开始跑": nothing of the user's runs yet, so what is in use is held by something else
BEFORE_START = re.compile(r"before\s+(?:i\s+)?(?:start|launch|run)|还没(?:开始|启动|跑)|启动前|开始前|训练前", re.I)


# `npu-smi info -t usages -i <id>`: "HBM Capacity(MB) : 65536", "HBM Usage Rate(%) : 91", "Aicore Usage Rate(%) : 0"
USAGES_CAPACITY = re.compile(r"HBM\s+Capacity\s*\(MB\)\s*:\s*(\d+)", re.I)
USAGES_RATE = re.compile(r"HBM\s+Usage\s+Rate\s*\(%\)\s*:\s*(\d+)", re.I)
USAGES_AICORE = re.compile(r"Aicore\s+Usage\s+Rate\s*\(%\)\s*:\s*(\d+)", re.I)
USAGES_ID = re.compile(r"-i\s+(\d+)")


def read_usages(question: str) -> NpuSmiTable | None:
    """The `npu-smi info -t usages` view of one device: its HBM in use is the rate of the capacity shown."""
    cap, rate = USAGES_CAPACITY.search(question), USAGES_RATE.search(question)
    if not (cap and rate):
        return None
    total = int(cap.group(1))
    aicore = USAGES_AICORE.search(question)
    dev = USAGES_ID.search(question)
    own = "\n".join(line for line in question.splitlines() if ":" not in line or "?" in line or "？" in line)
    device = NpuDevice(int(dev.group(1)) if dev else 0, 0, None, int(aicore.group(1)) if aicore else 0,
                       round(total * int(rate.group(1)) / 100), total)
    return NpuSmiTable((device,), (), bool(SAYS_IDLE.search(own)), bool(SAYS_STOPPED.search(own)),
                       says_oom=bool(SAYS_OOM.search(own)), load_said=aicore is not None, size_asked=size_asked(own))


def read_devices(question: str) -> NpuSmiTable | None:
    """The devices a pasted or said `npu-smi` / `nvidia-smi` view shows."""
    return read_npu_smi(question) or read_nvidia_smi(question) or read_usages(question) or read_said(question)


def read(question: str) -> PastedOutput | None:
    """The tool output the question pastes, or None."""
    if table := read_devices(question):
        return table
    if POD_HEADER.search(question):
        pods = tuple(Pod(*m.groups()) for m in POD_ROW.finditer(question[POD_HEADER.search(question).end():]))  # type: ignore[union-attr]
        if pods:
            return PodsTable(pods)
    if m := AFFINITY.search(question):
        line = next((ln.strip() for ln in question.splitlines() if m.group(0) in ln), m.group(0))
        return SchedulingEvent(int(m.group(2)) if m.group(2) else None, int(m.group(3)), AFFINITY_RESOURCE, line)
    if m := INSUFFICIENT.search(question):
        line = next((ln.strip() for ln in question.splitlines() if m.group(0) in ln), m.group(0))
        return SchedulingEvent(int(m.group(2)) if m.group(2) else None, int(m.group(3)), m.group(4), line)
    return None


def _gb(mb: int) -> str:
    return f"{mb / 1024:.1f}"


def _names(items: list[str], zh: bool) -> str:
    if zh:
        return "、".join(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def render_npu_smi(t: NpuSmiTable, zh: bool) -> str:
    held = [d for d in t.devices if d.held]
    busy = [d for d in t.devices if d.aicore > 0]
    dev = "GPU" if t.gpu else "NPU"
    load = "GPU-Util" if t.gpu else "AICore"
    mem = "显存" if t.gpu else "HBM"
    mb = "MiB" if t.gpu else "MB"  # as the tool prints it

    def figure(d: NpuDevice) -> str:
        shown = f"，{load} {d.aicore}%" if t.load_said else ""
        if not d.hbm_total_mb:  # only its processes shown: what they hold
            return f"{dev} {d.npu} 上进程占 {d.hbm_used_mb:,} {mb}" if zh else f"{d.hbm_used_mb:,} {mb} held on {dev} {d.npu}"
        return (f"{dev} {d.npu} 已用 {d.hbm_used_mb:,} / {d.hbm_total_mb:,} {mb}（{d.share:.0%}）{shown}" if zh else
                f"{dev} {d.npu} {d.hbm_used_mb:,} / {d.hbm_total_mb:,} {mb} in use ({d.share:.0%}){shown.replace('，', ', ')}")

    figures = [figure(d) for d in (held or busy or t.devices)]
    totals = sorted({d.hbm_total_mb for d in t.devices if d.hbm_total_mb})
    lines: list[str] = []
    if t.size_asked and totals:  # "is this a 32GB card?": the size the table shows answers it first
        size = round(max(totals) / 1024)
        same = abs(size - t.size_asked) <= 2
        lines.append((f"**是：这些是 {size} GB 的卡**" if same else f"**不是：这些是 {size} GB 的卡，不是 {t.size_asked} GB**") +
                     f"（表中每张 {max(totals):,} {mb}）。" if zh else
                     (f"**Yes: these are {size} GB devices**" if same else f"**No: these are {size} GB devices, not {t.size_asked} GB**") +
                     f" ({max(totals):,} {mb} each in your table).")
    if held:
        procs = [p for p in t.processes if any(p.npu == d.npu for d in held)]
        pids = _names([(f"PID {p.pid}（{p.name}，{p.memory_mb:,} {mb}，{dev} {p.npu}）" if zh else
                        f"PID {p.pid} ({p.name}, {p.memory_mb:,} {mb} on {dev} {p.npu})") for p in procs], zh) if procs else ""
        kill = f"`kill -9 {' '.join(str(p.pid) for p in procs)}`" if procs else "`kill -9 <PID>`"
        gb = _gb(max(d.hbm_used_mb for d in held))
        one = len(held) == 1
        idle_zh = (f"{'这张卡' if one else '这些卡'}上没有在计算（{load} 0%），" if t.load_said else "你的任务没有在跑，") + \
            ("却有约" if one else "却各有约")
        idle_en = (f"{'This device computes' if one else 'These devices compute'} nothing ({load} 0%)" if t.load_said else
                   "Nothing of yours runs on it") + f", yet about {{gb}} GB{'' if one else ' each'} is taken"
        # "only a few GB left" needs the total shown, and little free on it
        few_left = t.says_oom and all(d.hbm_total_mb and d.hbm_total_mb - d.hbm_used_mb <= FEW_GB_MB for d in held)
        then_zh = "新任务一上来只剩几 GB，自然 OOM。" if few_left else "新任务启动时只能用剩下的部分，多半会 OOM。"
        then_en = ("so a new job finds only a few GB free and runs out at once." if few_left else
                   "so a new job gets only what is left and will likely run out of memory.")
        if zh:
            who = f"{pids} 还占着显存" if procs else "显存被残留进程占着"
            said = "你说上一个任务已经停了，但它的进程没有退出（Ctrl+C 只停了启动脚本时，worker 进程常会留下）；" if t.says_stopped else (
                "你说没有任务在跑，" if t.says_idle and t.load_said else "")
            lines.append(f"**{who}**：{_names(figures, True)}。{idle_zh} {gb} GB 被占用，"
                         f"{said}这是之前的训练或推理进程仍占着显存。{then_zh}")
            first = "" if t.gpu else "按厂商 OOM 页面的第一步："
            lines.append(f"{first}{kill} 结束{'这些进程' if procs else f'它们（PID 见 `{t.command}` 底部的进程表）'}，"
                         f"或等它们释放；再用 `{t.command}` 确认{mem}占用回到空闲时的几百 MB 到几 GB，然后重新启动。")
        else:
            who = f"{pids} still hold{'s' * (len(procs) == 1)} the memory" if procs else "Leftover processes hold the memory"
            said = (" You stopped the earlier run, but its processes did not exit (stopping the launcher with Ctrl+C often "
                    "leaves its worker processes behind)." if t.says_stopped else
                    " No job of yours is running." if t.says_idle and t.load_said else "")
            lines.append(f"**{who}**: {_names(figures, False)}. {idle_en.format(gb=gb)}.{said} Processes of an earlier run still hold it, {then_en}")
            first = "End" if t.gpu else "The vendor's OOM page, step 1: end"
            lines.append(f"{first} {'them' if procs else f'them (the PIDs are in the process table at the bottom of `{t.command}`)'} "
                         f"with {kill} or wait until they release the {'GPUs' if t.gpu else 'cards'}, check with `{t.command}` "
                         "that memory use drops back to the idle level (a few hundred MB to a few GB), then rerun.")
    elif busy:
        procs = [p for p in t.processes if any(p.npu == d.npu for d in busy)]
        running = _names([(f"PID {p.pid}（{p.name}，{dev} {p.npu}）" if zh else f"PID {p.pid} ({p.name} on {dev} {p.npu})")
                          for p in procs], zh) if procs else ""
        free = _gb(min(d.hbm_total_mb - d.hbm_used_mb for d in busy))
        lines.append((f"**这些卡正在被使用**（{running}）" if procs else "**这些卡正在被使用**") +
                     f"：{_names(figures, True)}：{load} 有负载，说明有任务在上面跑，只剩约 {free} GB 空闲；"
                     "再起一个任务（训练或 vLLM 服务）放不下，等它结束或换空闲的卡。" if zh else
                     (f"**These devices are in use** ({running})" if procs else "**These devices are in use**") +
                     f": {_names(figures, False)}: {load} is loaded, so a job is running on them, with only about {free} GB "
                     "free; a second job (training or a vLLM server) will not fit there: wait for it or use free devices.")
    elif not t.says_oom:
        lines.append(f"**{dev} 空闲，可以启动**：{_names(figures, True)}，只是驱动和运行时自身的空闲占用，没有进程占着显存。" if zh else
                     f"**Free: go ahead**: {_names(figures, False)}: only the idle share of the driver and runtime; "
                     "no process holds the memory.")
    else:
        lines.append(f"**没有进程占卡**：{_names(figures, True)}，只是驱动和运行时自身占用的空闲水平，OOM 来自任务本身。" if zh else
                     f"**Nothing holds the devices**: {_names(figures, False)}: only the idle share of the driver and "
                     "runtime, so the out-of-memory comes from the job itself.")
        if totals and max(totals) <= 32 * 1024 and not t.gpu:
            lines.append(f"注意这些是 {max(totals):,} MB（{max(totals) // 1024} GB）的卡，不是 64 GB：按每卡 {max(totals) // 1024} GB "
                         "规划（更多卡、更高的 ZeRO 阶段或更短的序列），下面是厂商的 OOM 处理办法。" if zh else
                         f"Note these are {max(totals):,} MB ({max(totals) // 1024} GB) devices, not 64 GB: size the job for "
                         f"{max(totals) // 1024} GB per device (more devices, a higher ZeRO stage or shorter sequences); "
                         "the vendor's OOM remedies follow.")
    lines.append(f"（数字取自你给出的 {t.tool} 读数；空闲判断是笔记作者的读法：空闲卡只占几百 MB 到几 GB。）" if zh else
                 f"(Figures from your `{t.command}`; the idle reading is the note-writer's: an idle device shows only a few "
                 "hundred MB to a few GB.)")
    return "\n".join(lines)


# A pod whose container fails (not one waiting to be scheduled): what its status says and the kubectl command that shows
# why (general Kubernetes knowledge, not a ModelArts page; the Pending page covers scheduling only)
CRASHED = {
    "CrashLoopBackOff": ("容器启动后反复退出，Kubernetes 在重启间隔里等待", "its container keeps exiting after it starts and Kubernetes "
                         "waits between restarts"),
    "Error": ("容器以非零退出码结束", "its container exited with a non-zero code"),
    "OOMKilled": ("容器超过了 Pod 的内存 limit（主机内存，不是 NPU 显存），被内核杀掉", "its container went over the pod's memory "
                  "limit (host RAM, not NPU memory) and the kernel killed it"),
    "ImagePullBackOff": ("镜像拉不下来（镜像地址、tag 或 SWR 权限）", "its image cannot be pulled (image address, tag or SWR access)"),
    "ErrImagePull": ("镜像拉不下来（镜像地址、tag 或 SWR 权限）", "its image cannot be pulled (image address, tag or SWR access)"),
}


def render_crashed(t: PodsTable, zh: bool) -> str:
    """Pods whose containers fail: the status read, its meaning, and the logs of the run that failed."""
    bad = [p for p in t.pods if p.status in CRASHED]
    if not bad:
        return ""
    first = bad[0]
    what = CRASHED[first.status][0 if zh else 1]
    names = _names([f"`{p.name}`" for p in bad], zh)
    if zh:
        return (f"**{names} 处于 {first.status}**：{what}。这不是调度问题（Pod 已经调度到节点上），原因在容器自己的日志里：\n"
                f"```\nkubectl logs {first.name} --previous\nkubectl describe pod {first.name}\n```\n"
                "`--previous` 看上一次（已退出的）运行的输出，末尾的报错就是原因（常见：启动脚本参数错、路径不存在、NPU OOM、"
                "HCCL 建链超时）；`describe` 的 Last State 给出退出码和 Reason。把日志末尾的报错贴过来可以接着查。"
                "（kubectl 通用做法，不是 ModelArts 页面的内容。）")
    return (f"**{names} {'is' if len(bad) == 1 else 'are'} in {first.status}**: {what}. This is not scheduling (the pod is on "
            f"a node); the cause is in the container's own log:\n```\nkubectl logs {first.name} --previous\n"
            f"kubectl describe pod {first.name}\n```\n`--previous` prints the run that exited, and its last error is the cause "
            "(often a wrong script argument, a missing path, an NPU out-of-memory, an HCCL link timeout); `describe` shows the "
            "exit code and reason under Last State. Paste the error at the end of the log to go on. (General kubectl practice, "
            "not a ModelArts page.)")


def render_pods(t: PodsTable, zh: bool) -> str:
    pending = [p for p in t.pods if p.status == "Pending"]
    if not pending:
        return render_crashed(t, zh)
    first = pending[0].name
    names = _names([f"`{p.name}`" for p in pending], zh)
    if zh:
        return (f"**{len(pending)} 个 Pod 处于 Pending（{names}，已 {pending[0].age}）**：它们还没被调度到任何节点。先看原因：\n"
                f"```\nkubectl describe pod {first}\n```\n"
                "读输出末尾 Events 里的调度失败信息：volcano 资源争抢就重启 scheduler Pod；`Insufficient <资源>` 是没有节点有足够的空闲资源；"
                "`not same node idle` 要重装 Ascend Device Plugin（见下面的笔记）。")
    return (f"**{len(pending)} pod{'s' * (len(pending) > 1)} Pending ({names}, for {pending[0].age})**: not scheduled on any node "
            f"yet. Read the cause first:\n```\nkubectl describe pod {first}\n```\n"
            "and look at the scheduling message under Events at the end: Volcano contention → restart the scheduler pod; "
            "`Insufficient <resource>` → no node has that much free; `not same node idle` → reinstall Ascend Device Plugin "
            "(the notes below).")


def render_event(e: SchedulingEvent, zh: bool) -> str:
    npu = bool(NPU_RESOURCE.search(e.resource))
    count = f"{e.short}/{e.nodes}" if e.nodes is not None else str(e.short)
    if e.resource == AFFINITY_RESOURCE:  # labels, not resources (general Kubernetes practice, not a ModelArts page)
        return (f"**没有节点符合 Pod 的节点选择条件（nodeSelector / 节点亲和性）**：事件说 {count} 个节点不匹配。Pod 要求的节点标签"
                "（作业 YAML 里的 nodeSelector 或 nodeAffinity，例如资源池或加速卡标签）没有节点具备。对照 "
                "`kubectl get pod <pod> -o yaml` 里的 nodeSelector/affinity 和 `kubectl get nodes --show-labels`，"
                "改作业里的标签或给节点打上对应标签。（Kubernetes 通用做法，不是 ModelArts 页面的内容。）" if zh else
                f"**No node matches the pod's node selector / affinity**: the event says {count} nodes did not match. The pod asks "
                "for node labels no node has (a nodeSelector or nodeAffinity in the job's YAML, such as a pool or accelerator "
                "label). Compare the nodeSelector/affinity in `kubectl get pod <pod> -o yaml` with `kubectl get nodes "
                "--show-labels`, then fix the label in the job or label the nodes. (General Kubernetes practice, not a "
                "ModelArts page.)")
    if zh:
        what = "NPU" if npu else f"`{e.resource}`"
        lead = (f"**没有节点有足够的空闲 {what}**：事件说 {count} 个节点 `Insufficient {e.resource}`，"
                f"即 Pod 申请的 `{e.resource}` 超过了每个节点的空闲量。")
        fix = ("核对作业 YAML 里申请的卡数和节点空闲卡数（8 卡节点给不了一个 Pod 16 张），停掉占卡的作业，或加节点。" if npu else
               f"卡不是瓶颈，缺的是 `{e.resource}`：调低 Pod 的 `{e.resource}` requests，或释放/增加节点的 `{e.resource}`"
               "（CCE FAQ cce_faq_00098 对 Insufficient 事件的解释）。")
        return lead + fix
    what = "NPUs" if npu else f"`{e.resource}`"
    lead = (f"**No node has enough free {what}**: the event says `Insufficient {e.resource}` on {count} nodes, so the pod "
            f"requests more `{e.resource}` than any node has free.")
    fix = (" Check the device count the job's YAML requests against what a node has free (an 8-card node cannot give one "
           "pod 16), stop jobs that hold the cards, or add nodes." if npu else
           f" The NPUs are not what is short, `{e.resource}` is: lower the pod's `{e.resource}` request, or free or add "
           f"nodes with more `{e.resource}` (CCE FAQ cce_faq_00098 reads Insufficient events this way).")
    return lead + fix


def note_of(out: PastedOutput) -> str | None:
    """The note whose remedies the diagnosis applies: the OOM note's step 1 for a table of devices, the Pending page's
    for Kubernetes output; None for pods whose containers fail (no note covers them)."""
    if isinstance(out, PodsTable) and not any(p.status == "Pending" for p in out.pods):
        return None
    if isinstance(out, NpuSmiTable):
        # the vendor's OOM page is Ascend's; a GPU's table or a free device's answer stands alone
        return "oom.md" if not out.gpu and (out.says_oom or any(d.held for d in out.devices)) else None
    return "pod_pending.md"


def render(out: PastedOutput, lang: str) -> str:
    zh = lang == "zh"
    if isinstance(out, NpuSmiTable):
        return render_npu_smi(out, zh)
    if isinstance(out, PodsTable):
        return render_pods(out, zh)
    return render_event(out, zh)
