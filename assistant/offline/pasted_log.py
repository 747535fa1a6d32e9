"""Training logs pasted into a question, read as data: the Hugging Face Trainer's start-of-training banner (which
LLaMA-Factory prints) and MindSpeed-LLM / Megatron iteration lines. The figures the log gives are the user's own,
so the numbers they imply are worked out here with no tool: the devices from the Trainer's identity
total batch = per-device batch x devices x gradient accumulation, the optimizer steps from examples / total batch x
epochs, and from an iteration line the time left and the throughput. The answer states the derived numbers first,
then the identity with the log's figures in it."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# The Trainer's banner ("***** Running training *****" and the lines under it); a figure may carry thousands commas.
NUM = r"([\d][\d,]*)"
BANNER = {
    "examples": re.compile(rf"Num\s+examples\s*=\s*{NUM}", re.I),
    "epochs": re.compile(r"Num\s+Epochs\s*=\s*([\d.]+)", re.I),
    "per_device": re.compile(rf"Instantaneous\s+batch\s+size\s+per\s+device\s*=\s*{NUM}", re.I),
    "total_batch": re.compile(rf"Total\s+train\s+batch\s+size[^=\n]*=\s*{NUM}", re.I),
    "grad_accum": re.compile(rf"Gradient\s+Accumulation\s+steps\s*=\s*{NUM}", re.I),
    "total_steps": re.compile(rf"Total\s+optimization\s+steps\s*=\s*{NUM}", re.I),
}
# A Megatron / MindSpeed-LLM iteration line: "iteration 200/ 2000 | consumed samples: 12800 | elapsed time per
# iteration (ms): 4100.0 | ... | global batch size: 64 |"
ITERATION = re.compile(r"iteration\s+(\d+)\s*/\s*(\d+)", re.I)
ELAPSED_MS = re.compile(r"elapsed\s+time\s+per\s+iteration\s*\(ms\)\s*:\s*([\d.]+)", re.I)
GBS = re.compile(r"global\s+batch\s+size\s*:\s*(\d+)", re.I)
CONSUMED = re.compile(r"consumed\s+samples\s*:\s*(\d+)", re.I)
# the sequence length the user states beside the line ("with SEQ_LEN 4096", "seq 8192", "序列长度 4096")
SEQ_LEN = re.compile(r"(?:seq(?:uence)?[_\s-]*len(?:gth)?|seq|cutoff(?:_len)?|序列长度|长度)\s*[:=为是]?\s*(\d{3,6})(?!\d)", re.I)
# the device count the user states beside the line ("on 16 cards", "8 张卡", "2 nodes x 8")
DEVICES = re.compile(r"(\d+)\s*(?:cards?|npus?|gpus?|devices?|张卡|张|卡)(?![a-z])", re.I)


# what the question asks of a banner, in its own words (outside the pasted lines)
STEPS_WORD = re.compile(r"(?<![a-z])steps?(?![a-z])|步数|多少步|几步", re.I)
# tokens asked of a banner ("一个 step 多少 token", "tokens per step", "一共多少 token"): with the length the user states
TOKENS_WORD = re.compile(r"token", re.I)
DEVICES_WORD = re.compile(r"(?<![a-z])(?:devices?|cards?|gpus?|npus?)(?![a-z])|几张|多少张|卡数|几卡", re.I)


def asked_first(question: str, first: re.Pattern[str], other: re.Pattern[str]) -> bool:
    """``first`` is asked before ``other`` in the user's own words (the banner's lines left out)."""
    own = "\n".join(line for line in question.splitlines() if "=" not in line and "*****" not in line)
    a, b = first.search(own), other.search(own)
    return a is not None and (b is None or a.start() < b.start())


def _int(text: str) -> int:
    return int(text.replace(",", ""))


@dataclass(frozen=True)
class TrainerBanner:
    """The figures of the Trainer's banner; None where the paste leaves a line out."""

    examples: int | None
    epochs: float | None
    per_device: int | None
    total_batch: int | None
    grad_accum: int | None
    total_steps: int | None
    seq_len: int | None = None  # the length the user states beside the banner ("cutoff_len 2048 with packing")

    @property
    def tokens_per_step(self) -> int | None:
        """Total batch × length: every sequence a full length (packed or padded)."""
        return self.total_batch * self.seq_len if self.total_batch and self.seq_len else None

    @property
    def devices(self) -> int | None:
        """Total batch = per-device batch x devices x GA, so devices = total / (per-device x GA) when it divides."""
        if not (self.total_batch and self.per_device and self.grad_accum):
            return None
        per_device_step = self.per_device * self.grad_accum
        return self.total_batch // per_device_step if self.total_batch % per_device_step == 0 else None

    def steps(self) -> Steps | None:
        """Optimizer steps over the run: examples / total batch per epoch, rounded down (a last partial accumulation
        dropped, older Trainers) or up (it counts as a step, newer ones), times the epochs."""
        if not (self.examples and self.total_batch and self.epochs):
            return None
        low = max(self.examples // self.total_batch, 1)
        high = math.ceil(self.examples / self.total_batch)
        return Steps(math.ceil(low * self.epochs), math.ceil(high * self.epochs), self.examples / self.total_batch,
                     self.examples, self.total_batch, self.epochs)

    def steps_range(self) -> tuple[int, int] | None:
        n = self.steps()
        return (n.low, n.high) if n else None


@dataclass(frozen=True)
class Steps:
    """The optimizer steps a banner implies, with the figures they come from."""

    low: int
    high: int
    per_epoch: float
    examples: int
    total_batch: int
    epochs: float


@dataclass(frozen=True)
class IterationLine:
    """One MindSpeed-LLM / Megatron iteration line, with the length and devices the user states beside it."""

    iteration: int
    total: int
    ms_per_iteration: float | None
    global_batch: int | None
    consumed: int | None
    seq_len: int | None
    devices: int | None

    @property
    def seconds(self) -> float | None:
        return self.ms_per_iteration / 1000 if self.ms_per_iteration else None

    @property
    def tokens_per_iteration(self) -> int | None:
        return self.global_batch * self.seq_len if self.global_batch and self.seq_len else None


# PEFT's print_trainable_parameters line: "trainable params: 4,194,304 || all params: 6,742,609,920 || trainable%: 0.0622"
ADAPTER_LINE = re.compile(rf"trainable\s+params\s*:\s*{NUM}\s*\|\|\s*all\s+params\s*:\s*{NUM}"
                          r"(?:\s*\|\|\s*trainable%\s*:\s*([\d.]+(?:e-?\d+)?))?", re.I)
# vLLM's start-up lines on the KV cache: "# NPU blocks: 2048, # CPU blocks: 512" (GPU on CUDA) and "Maximum concurrency
# for 4096 tokens per request: 42.50x"; the block size from the launch flag or the user's words ("block size 128")
KV_BLOCKS = re.compile(r"#\s*(NPU|GPU)\s+blocks\s*:\s*(\d+)(?:\s*,\s*#\s*CPU\s+blocks\s*:\s*(\d+))?", re.I)
KV_CONCURRENCY = re.compile(r"Maximum\s+concurrency\s+for\s+([\d,]+)\s+tokens\s+per\s+request\s*:\s*([\d.]+)\s*x", re.I)
KV_CACHE_TOKENS = re.compile(r"GPU\s+KV\s+cache\s+size\s*:\s*([\d,]+)\s+tokens", re.I)
BLOCK_SIZE = re.compile(r"block[-_\s]?size\s*(?:[:=为是]|of|is)?\s*(\d{1,4})(?!\d)", re.I)


# the target sets a PEFT line is matched against: PEFT's default for Llama/Qwen-style models (q_proj, v_proj), the
# attention projections, and every linear layer (LLaMA-Factory's `lora_target: all`)
ADAPTER_TARGETS = ("q_proj,v_proj", "attention", "all")
TARGET_WORDS = {"q_proj,v_proj": ("q_proj 和 v_proj（PEFT 对这类模型的默认目标）", "q_proj and v_proj (PEFT's default for this kind of model)"),
                "attention": ("q/k/v/o 四个注意力投影", "the four attention projections q/k/v/o"),
                "all": ("全部线性层（`lora_target: all`）", "every linear layer (`lora_target: all`)")}


def adapter_ranks(trainable: int, per_rank: dict[str, float]) -> list[tuple[int, str]]:
    """Every (rank, targets) whose adapter count is the trainable count (a whole multiple of one target set's parameters
    at rank 1), the smallest rank first: one count can fit two readings (Qwen2.5-7B: r 8 on every linear = r 64 on q,v)."""
    found = [(trainable // round(one), targets) for targets in ADAPTER_TARGETS if (one := per_rank.get(targets))
             and trainable % round(one) == 0 and 1 <= trainable // round(one) <= 1024]
    return sorted(found)


@dataclass(frozen=True)
class AdapterLine:
    """PEFT's count of trained and all parameters (LoRA adapters on a frozen base)."""

    trainable: int
    total: int
    percent: float | None  # the line's own share, as printed

    @property
    def share(self) -> float:
        return 100 * self.trainable / self.total


@dataclass(frozen=True)
class KvBlocks:
    """vLLM's KV-cache figures at start-up: the device blocks (with the block size, the tokens they hold) and the
    concurrency it prints for a request length."""

    device: str | None  # NPU or GPU
    blocks: int | None
    cpu_blocks: int | None
    block_size: int | None
    request_tokens: int | None
    concurrency: float | None
    cache_tokens: int | None = None  # newer vLLM prints the token count itself ("GPU KV cache size: 262,144 tokens")

    @property
    def tokens(self) -> int | None:
        if self.cache_tokens:
            return self.cache_tokens
        return self.blocks * self.block_size if self.blocks and self.block_size else None


# DeepSpeed's batch check: "train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size
# 16 != 2 * 4 * 4"
BATCH_CHECK = re.compile(r"train_batch_size\s+is\s+not\s+equal\s+to\s+micro_batch_per_gpu\s*\*\s*gradient_acc_step\s*\*\s*world_size"
                         r"\s*(\d+)\s*!=\s*(\d+)\s*\*\s*(\d+)\s*\*\s*(\d+)", re.I)


@dataclass(frozen=True)
class BatchCheck:
    """DeepSpeed's refusal: the train_batch_size it was given against micro batch × GA × world size."""

    given: int
    micro: int
    accum: int
    world: int

    @property
    def product(self) -> int:
        return self.micro * self.accum * self.world


PastedLog = TrainerBanner | IterationLine | AdapterLine | KvBlocks | BatchCheck


def read(question: str) -> PastedLog | None:
    """The log the question pastes: a Trainer banner with at least its batch lines, or an iteration line with its
    time per iteration; None when the question pastes neither."""
    found = {k: rx.search(question) for k, rx in BANNER.items()}
    if found["total_batch"] and (found["per_device"] or found["grad_accum"] or found["examples"]):
        return TrainerBanner(
            examples=_int(m.group(1)) if (m := found["examples"]) else None,
            epochs=float(m.group(1)) if (m := found["epochs"]) else None,
            per_device=_int(m.group(1)) if (m := found["per_device"]) else None,
            total_batch=_int(m.group(1)) if (m := found["total_batch"]) else None,
            grad_accum=_int(m.group(1)) if (m := found["grad_accum"]) else None,
            total_steps=_int(m.group(1)) if (m := found["total_steps"]) else None,
            seq_len=int(seq.group(1)) if (seq := SEQ_LEN.search(outside_banner(question))) else None,
        )
    if m := BATCH_CHECK.search(question):
        return BatchCheck(*(int(g) for g in m.groups()))
    if m := ADAPTER_LINE.search(question):
        return AdapterLine(_int(m.group(1)), _int(m.group(2)), float(m.group(3)) if m.group(3) else None)
    blocks, conc, cache = KV_BLOCKS.search(question), KV_CONCURRENCY.search(question), KV_CACHE_TOKENS.search(question)
    if blocks or conc or cache:
        size = BLOCK_SIZE.search(question)
        return KvBlocks(blocks.group(1).upper() if blocks else None, int(blocks.group(2)) if blocks else None,
                        int(blocks.group(3)) if blocks and blocks.group(3) else None, int(size.group(1)) if size else None,
                        _int(conc.group(1)) if conc else None, float(conc.group(2)) if conc else None,
                        _int(cache.group(1)) if cache else None)
    it, ms = ITERATION.search(question), ELAPSED_MS.search(question)
    if it and ms:
        rest = question[:it.start()] + " " + question[ms.end():]  # the user's own words around the line
        seq = SEQ_LEN.search(rest)
        dev = DEVICES.search(rest)
        return IterationLine(
            iteration=int(it.group(1)), total=int(it.group(2)), ms_per_iteration=float(ms.group(1)),
            global_batch=int(m.group(1)) if (m := GBS.search(question)) else None,
            consumed=int(m.group(1)) if (m := CONSUMED.search(question)) else None,
            seq_len=int(seq.group(1)) if seq else None, devices=int(dev.group(1)) if dev else None)
    return None


def outside_banner(question: str) -> str:
    """The user's own words: the question without the banner's lines (whose figures are no length)."""
    return "\n".join(line for line in question.splitlines() if not any(rx.search(line) for rx in BANNER.values()))


def _hours(seconds: float, lang: str) -> str:
    hours = seconds / 3600
    if lang == "zh":
        return f"{seconds:,.0f} 秒（约 {hours:.2f} 小时）" if hours >= 1 else f"{seconds:,.0f} 秒（约 {seconds / 60:.1f} 分钟）"
    return f"{seconds:,.0f} s (about {hours:.2f} h)" if hours >= 1 else f"{seconds:,.0f} s (about {seconds / 60:.1f} min)"


def render_banner(b: TrainerBanner, lang: str, question: str = "") -> str:
    zh = lang == "zh"
    lines: list[str] = []
    devices = b.devices
    if devices:
        lines.append(
            f"**{devices} 张卡（设备）**：总 batch {b.total_batch} = 每卡 batch {b.per_device} × 卡数 {devices} × 梯度累积 {b.grad_accum}，"
            f"即卡数 = {b.total_batch} / ({b.per_device} × {b.grad_accum})。" if zh else
            f"**{devices} devices**: total train batch {b.total_batch} = per-device batch {b.per_device} × {devices} devices × "
            f"gradient accumulation {b.grad_accum}, so devices = {b.total_batch} / ({b.per_device} × {b.grad_accum}).")
    elif b.total_batch and b.per_device and b.grad_accum:
        lines.append(
            f"总 batch {b.total_batch} 不能被 每卡 batch {b.per_device} × 梯度累积 {b.grad_accum} 整除，日志里的数字对不上卡数。" if zh else
            f"The total batch {b.total_batch} is not a multiple of per-device batch {b.per_device} × GA {b.grad_accum}: "
            "the banner's figures give no whole device count.")
    n = b.steps()
    if b.total_steps:
        check = ""
        if n:
            span = f"{n.low:,}" + (f"–{n.high:,}" if n.high != n.low else "")
            check = (f"；核对：{n.examples:,} / {n.total_batch} ≈ {n.per_epoch:.1f} 步/轮 × {n.epochs:g} 轮 = {span}" if zh else
                     f"; check: {n.examples:,} / {n.total_batch} = {n.per_epoch:.1f} steps per epoch × {n.epochs:g} epoch{'s' * (n.epochs != 1)} = {span}")
        lines.append(f"**总优化步数 {b.total_steps:,}**（日志给出{check}）。" if zh else
                     f"**{b.total_steps:,} optimizer steps** in all (the banner's own figure{check}).")
    elif n:
        value = f"{n.low:,}" if n.low == n.high else f"{n.low:,}–{n.high:,}"
        lines.append(
            f"**总优化步数约 {value}**：每轮 {n.examples:,} / {n.total_batch} ≈ {n.per_epoch:.1f} 步 × {n.epochs:g} 轮"
            "（最后不满一个总 batch 的部分，旧版 Trainer 舍去、新版计为一步）。" if zh else
            f"**About {value} optimizer steps** in all: {n.examples:,} examples / total batch {n.total_batch} = "
            f"{n.per_epoch:.1f} steps per epoch × {n.epochs:g} epoch{'s' * (n.epochs != 1)} (a last partial batch is dropped by older "
            "Trainers and counted as a step by newer ones).")
    per_step = b.tokens_per_step
    if per_step and TOKENS_WORD.search(outside_banner(question)):
        # "cutoff 4096 packing: tokens per step?": the total batch's sequences at that length, and over the logged steps
        steps = b.total_steps or (n.high if n else None)
        total = (f"；{steps:,} 步共 {steps * per_step:,} 个 token" if zh else f"; over {steps:,} steps, {steps * per_step:,} tokens") if steps else ""
        lines.append(f"**每个优化步 {per_step:,} 个 token** = 总 batch {b.total_batch} × 序列长度 {b.seq_len}{total}"
                     "（按每条序列都是满长计算：packing 或补齐到定长；动态长度会更少）。" if zh else
                     f"**{per_step:,} tokens per optimizer step** = total batch {b.total_batch} × length {b.seq_len}{total} "
                     "(every sequence a full length: packed or padded; dynamic lengths give fewer).")
        own = outside_banner(question)
        if not (STEPS_WORD.search(own) or DEVICES_WORD.search(own)):
            lines.insert(0, lines.pop())  # only the tokens are asked: they lead, the banner's other figures follow
    if not lines:
        return ""
    if len(lines) == 2 and devices and asked_first(question, STEPS_WORD, DEVICES_WORD):
        lines.reverse()  # "how many steps, and how many devices?": the figure asked first leads
    lines.append("（Hugging Face Trainer / LLaMA-Factory 的关系：总 batch = per_device_train_batch_size × 卡数 × gradient_accumulation_steps；"
                 "数字全部取自你贴的日志。）" if zh else
                 "(The Hugging Face Trainer's identity, which LLaMA-Factory uses: total batch = per_device_train_batch_size × "
                 "devices × gradient_accumulation_steps; every figure is from your log.)")
    return "\n".join(lines)


# the tokens line answers the throughput and the tokens of one iteration
THROUGHPUT_WORD = re.compile(r"(?<![a-z])tps(?![a-z])|tokens?\s*/\s*(?:s|iter)|tokens?\s+(?:per|each|an?)\s+(?:s|iter|step)|throughput|吞吐|"
                             r"每(?:个|一|次)?\s*(?:iteration|迭代|step|步)\s*(?:多少|几)?\s*(?:个)?\s*token", re.I)
TIME_WORD = re.compile(r"how\s+long|till\s+done|left|remaining|finish|多久|还要|剩|跑完|时间", re.I)


def render_iteration(x: IterationLine, lang: str, question: str = "") -> str:
    zh = lang == "zh"
    sec = x.seconds
    lines: list[str] = []
    if sec:
        left = max(x.total - x.iteration, 0)
        lines.append(
            f"**剩余约 {_hours(left * sec, lang)}**：还剩 {left:,} 次迭代（{x.iteration:,}/{x.total:,}）× 每次 {sec:g} 秒；"
            f"全部 {x.total:,} 次约 {_hours(x.total * sec, lang)}。" if zh else
            f"**About {_hours(left * sec, lang)} left**: {left:,} iterations to go ({x.iteration:,} of {x.total:,}) × {sec:g} s each; "
            f"all {x.total:,} iterations take about {_hours(x.total * sec, lang)}.")
    if x.global_batch and sec:
        tokens = x.tokens_per_iteration
        if tokens:
            rate = tokens / sec
            per_card = f"，每卡约 {rate / x.devices:,.0f} tokens/s（{x.devices} 张卡）" if zh and x.devices else (
                f", about {rate / x.devices:,.0f} tokens/s per card on {x.devices} cards" if x.devices else "")
            lines.append(
                f"**每次迭代 {tokens:,} tokens**（global batch {x.global_batch} × SEQ_LEN {x.seq_len}），吞吐约 {rate:,.0f} tokens/s{per_card}"
                "（按每条样本填满 SEQ_LEN 计，是上限）。" if zh else
                f"**{tokens:,} tokens per iteration** (global batch {x.global_batch} × SEQ_LEN {x.seq_len}), about {rate:,.0f} tokens/s"
                f"{per_card} (counting every sample as a full SEQ_LEN, an upper bound).")
        else:
            lines.append(
                f"吞吐约 {x.global_batch / sec:.1f} 条样本/s（global batch {x.global_batch} / {sec:g} 秒）；给出 SEQ_LEN 即可换算成 tokens/s。" if zh else
                f"About {x.global_batch / sec:.1f} samples/s (global batch {x.global_batch} / {sec:g} s); with SEQ_LEN that gives tokens/s.")
    if x.consumed and x.global_batch and x.consumed != x.iteration * x.global_batch:
        lines.append(f"注意：consumed samples {x.consumed:,} ≠ {x.iteration} × {x.global_batch}，global batch 可能中途变过（batch 渐增）。" if zh else
                     f"Note: consumed samples {x.consumed:,} ≠ {x.iteration} × {x.global_batch}; the global batch may have changed "
                     "during the run (batch ramp-up).")
    if not lines:
        return ""
    if len(lines) >= 2 and asked_first(question, THROUGHPUT_WORD, TIME_WORD):
        lines[0], lines[1] = lines[1], lines[0]  # "每卡 TPS 多少": the throughput asked leads
    lines[0] = ("**结论**：" if zh else "**Answer:** ") + lines[0]  # the figure asked first, labelled as every lead is
    lines.append("（数字全部取自你贴的 MindSpeed-LLM 迭代日志；时间按当前每次迭代耗时线性外推。）" if zh else
                 "(Every figure is from your MindSpeed-LLM iteration line; the time extrapolates the current time per iteration.)")
    return "\n".join(lines)


def render_adapter(a: AdapterLine, lang: str, per_rank: dict[str, float] | None = None, model: str | None = None) -> str:
    """The share trained, checked against the line's own percentage, what the two counts mean, and for a named model
    the rank and targets that give the count (the catalog's widths at rank 1)."""
    zh = lang == "zh"
    frozen = a.total - a.trainable
    check = ""
    if a.percent is not None:
        agrees = abs(a.percent - a.share) <= max(0.0005, 0.01 * a.share)
        check = ((f"，与日志的 trainable% {a.percent:g} 一致" if agrees else f"，与日志的 trainable% {a.percent:g} 不符") if zh else
                 (f", as the line's trainable% {a.percent:g} says" if agrees else f"; the line's trainable% {a.percent:g} does not match"))
    lead = (f"**结论**：**只训练 {a.trainable:,} 个参数（约 {a.trainable / 1e6:.2f}M），占全部 {a.total:,} 的 {a.share:.4f}%**"
            f"（{a.trainable:,} / {a.total:,}{check}）。" if zh else
            f"**Answer:** **{a.trainable:,} parameters (about {a.trainable / 1e6:.2f}M) are trained, {a.share:.4f}% of all "
            f"{a.total:,}** ({a.trainable:,} / {a.total:,}{check}).")
    meaning = (f"这是 PEFT 的 `print_trainable_parameters()` 输出：trainable 是 LoRA 适配器（每个目标线性层的 A、B 矩阵，r × d_in + d_out × r），"
               f"all 是冻结的基座 {frozen:,} 加上适配器本身。只有适配器有梯度和 Adam 状态（约 {a.trainable * 16 / 1e9:.2f} GB，按每参数 16 字节），"
               "基座只占权重显存；占比这么小是 LoRA 的正常情况。数字随 rank（`lora_rank`）和目标层（`lora_target`）成比例变化。" if zh else
               f"This is PEFT's `print_trainable_parameters()` line: trainable counts the LoRA adapters (per targeted linear layer an "
               f"A of r × d_in and a B of d_out × r), all is the frozen base ({frozen:,}) plus the adapters. Only the adapters get "
               f"gradients and Adam states (about {a.trainable * 16 / 1e9:.2f} GB at 16 bytes per parameter); the base costs its "
               "weights only, so a share this small is what LoRA looks like. The count scales with the rank (`lora_rank`) and with "
               "the layers targeted (`lora_target`).")
    match = ""
    if per_rank and model:
        found = adapter_ranks(a.trainable, per_rank)
        if found:
            each = [(f"rank {r}、目标为{TARGET_WORDS[t][0]}：{r} × {round(per_rank[t]):,}" if zh else
                     f"rank {r} on {TARGET_WORDS[t][1]}: {r} × {round(per_rank[t]):,}") for r, t in found]
            match = (f"\n**对得上**：{model} 上 LoRA " + "；或 ".join(each) + f" = {a.trainable:,}，正是日志的数字"
                     "（×号后是 rank 1 时的数量，按模型目录的各层宽度）。" if zh else
                     f"\n**That is right for {model}**: LoRA " + "; or ".join(each) + f" = {a.trainable:,}, the log's figure "
                     "(after × the count at rank 1, from the model catalog's layer widths).")
        else:
            sets = "；".join(f"{TARGET_WORDS[t][0]} 每个 rank {round(v):,}" for t, v in per_rank.items()) if zh else "; ".join(
                f"{TARGET_WORDS[t][1]}: {round(v):,} per rank" for t, v in per_rank.items())
            match = (f"\n{model} 上没有哪个常见目标组合的整数 rank 恰好给出 {a.trainable:,}（{sets}）：可能用了别的目标层或模型不是 {model}。" if zh else
                     f"\nNo common target set at a whole rank gives {a.trainable:,} on {model} ({sets}): other target layers, or "
                     f"another model than {model}.")
    return lead + match + "\n" + meaning + ("\n（数字全部取自你贴的日志。）" if zh else "\n(Every figure is from your log.)")


def render_kv_blocks(k: KvBlocks, lang: str) -> str:
    """The tokens the KV cache holds (blocks × block size, or the line's own count) and what the concurrency means."""
    zh = lang == "zh"
    lines: list[str] = []
    dev = k.device or ("NPU" if zh else "device")
    if k.tokens and k.blocks and k.block_size:
        lines.append(f"**KV cache 能放 {k.tokens:,} 个 token** = {k.blocks:,} 个 {dev} block × 每块 {k.block_size} 个 token"
                     "（所有并发请求共用这些 token；一条请求的 prompt 加输出都占用）。" if zh else
                     f"**The KV cache holds {k.tokens:,} tokens** = {k.blocks:,} {dev} blocks × {k.block_size} tokens per block "
                     "(shared by every request in flight; a request's prompt and output both take room).")
    elif k.tokens:
        lines.append(f"**KV cache 能放 {k.tokens:,} 个 token**（日志给出）。" if zh else f"**The KV cache holds {k.tokens:,} tokens** (the log's own figure).")
    elif k.blocks:
        lines.append(f"日志给出 {k.blocks:,} 个 {dev} block；能放的 token 数 = block 数 × block size（`--block-size`，昇腾上常用 128），"
                     "给出 block size 即可算出。" if zh else
                     f"The log gives {k.blocks:,} {dev} blocks; the tokens they hold = blocks × block size (`--block-size`, 128 is "
                     "usual on Ascend), so give the block size to get the figure.")
    if k.concurrency and k.request_tokens:
        lines.append(f"**Maximum concurrency {k.concurrency:g}x** 的意思：按每条请求 {k.request_tokens:,} 个 token 算，KV cache 同时能放下约 "
                     f"{int(k.concurrency)} 条满长请求（{k.concurrency:g} × {k.request_tokens:,} ≈ {k.concurrency * k.request_tokens:,.0f} 个 token）；"
                     "请求更短时能并发更多，`--max-num-seqs` 另设上限。" if zh else
                     f"**Maximum concurrency {k.concurrency:g}x** means: at {k.request_tokens:,} tokens per request, the KV cache holds about "
                     f"{int(k.concurrency)} full-length requests at once ({k.concurrency:g} × {k.request_tokens:,} ≈ "
                     f"{k.concurrency * k.request_tokens:,.0f} tokens); shorter requests fit more, and `--max-num-seqs` caps them separately.")
    if k.cpu_blocks and k.block_size:
        lines.append(f"CPU block {k.cpu_blocks:,} 个（{k.cpu_blocks * k.block_size:,} 个 token）是换出（swap）空间，不增加同时在算的容量。" if zh else
                     f"The {k.cpu_blocks:,} CPU blocks ({k.cpu_blocks * k.block_size:,} tokens) are swap space for preempted requests, "
                     "not extra room for requests being computed.")
    if not lines:
        return ""
    lines[0] = ("**结论**：" if zh else "**Answer:** ") + lines[0]
    lines.append("（数字全部取自你贴的 vLLM 启动日志。）" if zh else "(Every figure is from your vLLM start-up log.)")
    return "\n".join(lines)


def render_batch_check(b: BatchCheck, lang: str) -> str:
    """The product DeepSpeed computed against the value it was given, and the ways to make them agree."""
    zh = lang == "zh"
    p = b.product
    ga = b.given // (b.micro * b.world) if b.given % (b.micro * b.world) == 0 and b.given >= b.micro * b.world else None
    alt = ((f"；或保持 {b.given} 不变，把梯度累积改成 {ga}（{b.micro} × {ga} × {b.world} = {b.given}）" if zh else
            f"; or keep {b.given} and set gradient accumulation to {ga} ({b.micro} × {ga} × {b.world} = {b.given})") if ga else "")
    return (f"**结论**：**对不上：{b.micro} × {b.accum} × {b.world} = {p}，而 `train_batch_size` 是 {b.given}**（每卡 micro batch × 梯度累积 × world size）。"
            f"把 `train_batch_size` 改成 {p}，或设成 `\"auto\"` 让它按 YAML 的 `per_device_train_batch_size` 和 `gradient_accumulation_steps` 算出来{alt}。\n"
            "DeepSpeed 启动时检查 `train_batch_size` = `train_micro_batch_size_per_gpu` × `gradient_accumulation_steps` × 数据并行 rank 数；"
            "LLaMA-Factory 自带的 DeepSpeed 配置三个都写 `\"auto\"`，手写数字或换了卡数后没改就会报这个错。（数字取自你贴的报错。）" if zh else
            f"**Answer:** **They disagree: {b.micro} × {b.accum} × {b.world} = {p}, but `train_batch_size` is {b.given}** (micro batch per "
            f"device × gradient accumulation × world size). Set `train_batch_size` to {p}, or to `\"auto\"` so it follows the YAML's "
            f"`per_device_train_batch_size` and `gradient_accumulation_steps`{alt}.\n"
            "DeepSpeed checks `train_batch_size` = `train_micro_batch_size_per_gpu` × `gradient_accumulation_steps` × data-parallel ranks at "
            "start-up; LLaMA-Factory's own DeepSpeed files write all three as `\"auto\"`, so a hand-written number, or a device count changed "
            "without it, raises this. (The figures are from your error.)")


def render(log: PastedLog, lang: str, question: str = "", per_rank: dict[str, float] | None = None, model: str | None = None) -> str:
    if isinstance(log, AdapterLine):
        return render_adapter(log, lang, per_rank, model)
    if isinstance(log, KvBlocks):
        return render_kv_blocks(log, lang)
    if isinstance(log, BatchCheck):
        return render_batch_check(log, lang)
    return render_banner(log, lang, question) if isinstance(log, TrainerBanner) else render_iteration(log, lang, question)
