"""Derived quantities of a model and a layout, each worked in the open: one term per quantity a question can ask
besides a device count (LoRA adapter parameters, layers per pipeline stage, ranks and data parallelism, the bytes of
the weights / gradients / optimizer states in all or per device, the KV room left beside the weights, tokens per
iteration, the cards a deadline needs). Every term returns its value with the arithmetic that gives it (the catalog's
figures and the user's put in) and what it assumes, so the answer can show both.

Terms are looked up by name (``TERMS``); the offline reader's table of quantities (offline/quantities.toml) names
the term each asked quantity is computed with. Adding a quantity is a term here (when no term computes it yet) and
a row there."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from . import constants as C
from .inference import kv_bytes_per_token
from .memory import TrainConfig, _activations, _vocab_loss
from .shape import Shape, _lora_modules

GIB = 2**30


class NotDerivable(ValueError):
    """A term lacks an input it needs (the ``field`` named) or the inputs do not divide as the layout requires."""

    def __init__(self, message: str, field: str, valid: list | None = None):
        super().__init__(message)
        self.field = field
        self.valid = valid or []


@dataclass(frozen=True)
class Inputs:
    """The user's figures a term may take (None: not said)."""

    lora_rank: int | None = None
    lora_targets: str = "all"
    tp: int | None = None
    pp: int | None = None
    cp: int | None = None
    devices: int | None = None
    unit: str = "card"  # what one device is: card, or DIE
    weight_bits: int = 16
    capacity_gib: float | None = None  # one device's memory as the runtime reports it
    memory_gb: float | None = None  # one device's memory as the vendor states it (64 GB): what a "does it fit" compares
    util: float = 0.9  # vLLM gpu-memory-utilization
    method: str = "full"
    zero_stage: int | None = None
    global_batch: int | None = None
    micro_batch: int | None = None
    grad_accum: int | None = None
    seq_len: int | None = None
    tokens_per_second: float | None = None  # measured training throughput per device
    hours: float | None = None  # a time window
    speedup: float = 1.0  # the vendor's linear speed-up factor η on more than one device
    iterations: int | None = None  # of the whole run
    iterations_done: int | None = None
    iteration_seconds: float | None = None
    dp: int | None = None  # a data-parallel size said outright ("8-way data parallel", "DP=4")
    bytes_per_param: float | None = None  # bytes of model states per parameter said ("16 bytes per parameter")
    tokens: float | None = None  # training tokens to run through ("1B tokens")
    samples: int | None = None  # training samples (sequences) in the data set ("120k samples", "SN")
    epochs: float | None = None  # passes over the data set
    parts: tuple[str, ...] = ()  # the memory parts a sum is asked of (MEMORY_PARTS), in the order named
    per_device: bool = False  # the parts asked per device, not for the whole model
    concurrency: int | None = None  # sequences served at once (the KV cache's)
    checkpoints: int | None = None  # checkpoints kept ("keep 5 checkpoints")
    disk_gb: float | None = None  # the disk they are written to
    save_interval: int | None = None  # iterations between two checkpoints (MindSpeed-LLM's SAVE_INTERVAL)
    step_tokens: float | None = None  # tokens one optimizer step takes (GBS × sequence length)
    figures: tuple[tuple[str, int], ...] = ()  # shape figures the user states with no model ("48 layers, 8 KV heads, head dim 128")
    kv_bytes: float = 2.0  # bytes of one KV-cache value (bf16 / fp16; 1 for an fp8 / int8 cache)
    recompute: bool | None = None  # full recompute (gradient checkpointing) said on or off
    fused_attention: bool = True  # a fused attention kernel (FlashAttention / NPU_Flash_Attn): no s² scores kept
    sample_tokens: int | None = None  # the data's tokens per sample on average ("avg 600 tokens each")
    packing: bool | None = None  # samples packed into full-length sequences (None: not said)


@dataclass(frozen=True)
class Derived:
    value: float
    unit: str  # "params", "bytes", "layers", "ranks", "tokens", "devices", "count"
    formula: str
    assumptions: list[str] = field(default_factory=list)
    per: str = ""  # what one value counts over ("per layer", "per device"), said after the value
    fits: bool | None = None  # a byte total set against the memory of the devices said: held or not (None: no devices)


def unit_word(i: Inputs, n: int = 1) -> str:
    """"card(s)" or "DIE" (the vendor's word, the same in the plural)."""
    return "DIE" if i.unit.lower() == "die" else ("card" if n == 1 else "cards")


def need(value: int | float | None, name: str, what: str) -> float:
    if not value:
        raise NotDerivable(f"{what} is needed for this quantity.", name)
    return value


def count(x: float) -> str:
    return f"{x:,.0f}"


# -- model facts ------------------------------------------------------------------------------------------------
def lora_module_widths(s: Shape) -> dict[str, int]:
    """d_in + d_out of each linear layer LoRA can target in one dense layer (the catalog's widths)."""
    h = s.hidden
    return {"q_proj": h + s.q_dim, "k_proj": h + s.kv_dim, "v_proj": h + s.kv_dim, "o_proj": s.q_dim + h,
            "gate_proj": h + s.ffn, "up_proj": h + s.ffn, "down_proj": s.ffn + h}


def lora_params(s: Shape, i: Inputs) -> Derived:
    r = int(need(i.lora_rank, "lora_rank", "The LoRA rank"))
    value = s.lora_params(r, i.lora_targets)
    share = f"{100 * value / s.params:.2f}% of {s.params / 1e9:g}B"
    if s.is_moe or s.is_mla:  # expert and latent projections: the estimator's own sum, not listed module by module
        formula = f"r {r} × Σ (d_in + d_out) over the targeted linear layers of every layer and expert = {count(value)}"
    else:
        widths = {k: v for k, v in lora_module_widths(s).items() if k in _lora_modules(i.lora_targets)}
        per_layer = sum(widths.values())
        terms = " + ".join(f"{k.split('_')[0]} {v:,}" for k, v in widths.items())
        formula = (f"r {r} × ({terms} = {per_layer:,}) = {r * per_layer:,} per layer × {s.layers} layers = {count(value)}")
    targets = "all linear layers (q,k,v,o,gate,up,down; not the LM head)" if i.lora_targets == "all" else i.lora_targets
    return Derived(value, "params", formula, [f"targets: {targets}", share, "A: r × d_in, B: d_out × r per targeted layer"])


def shape_field(name: str, label: str) -> Callable[[Shape, Inputs], Derived]:
    def term(s: Shape, i: Inputs) -> Derived:
        value = s.hd if name == "head_dim" else getattr(s, name)
        formula = f"hidden {s.hidden} / heads {s.heads} = {value}" if name == "head_dim" and not s.head_dim else f"{label} = {value}"
        return Derived(float(value), "count", formula)
    return term


def params(s: Shape, i: Inputs) -> Derived:
    """The model's parameter count, from the catalog (its Hugging Face config's size)."""
    active = [f"{s.active_params / 1e9:g}B active per token (MoE)"] if 0 < s.active_params < s.params else []
    return Derived(float(s.params), "params", f"params_b = {s.params / 1e9:g}B", active)


def params_per_layer(s: Shape, i: Inputs) -> Derived:
    """One transformer layer's parameters: attention (q, k, v, o) + MLP (gate, up, down) + two norms for a dense model;
    for MoE and MLA layers the catalog's total less the embeddings and LM head, over the layers (an average)."""
    if s.is_moe or s.is_mla or not s.ffn:
        body = s.language_params - s.embed_params - s.head_params
        return Derived(s.layer_params, "params", f"({s.language_params / 1e9:g}B − embeddings and LM head {(s.embed_params + s.head_params) / 1e9:.2f}B)"
                       f" / {s.layers} layers = {count(body / s.layers)}", ["an average: MoE and dense layers differ"], per="per layer")
    h = s.hidden
    attn = h * s.q_dim + 2 * h * s.kv_dim + s.q_dim * h
    mlp = 3 * h * s.ffn
    value = attn + mlp + 2 * h
    formula = (f"attention q {h}×{s.q_dim} + k,v 2 × {h}×{s.kv_dim} + o {s.q_dim}×{h} = {attn:,} + MLP 3 × {h}×{s.ffn} = {mlp:,} "
               f"+ 2 norms {2 * h:,} = {value:,}; × {s.layers} layers = {count(value * s.layers)}")
    rest = s.embed_params + s.head_params
    return Derived(float(value), "params", formula,
                   [f"embeddings{'' if s.tied else ' and LM head'} {rest / 1e9:.2f}B come on top of the layers",
                    "without bias terms (Qwen adds q, k, v biases: a few thousand per layer)"], per="per layer")


def embedding_params(s: Shape, i: Inputs) -> Derived:
    """The token-embedding matrix (vocab × hidden), its bytes at the weight width, and the LM head beside it."""
    value = float(s.vocab * s.hidden)
    b = weight_bytes(i)
    head = "the LM head is tied to it (no second copy)" if s.tied else (
        f"the LM head is a second matrix of the same size (untied): {2 * value * b / 1e9:.2f} GB for both")
    return Derived(value, "params", f"vocab {s.vocab:,} × hidden {s.hidden:,} = {count(value)} params × {b:g} B = "
                   f"{value * b / 1e9:.2f} GB ({value * b / GIB:.2f} GiB)", [f"{i.weight_bits}-bit weights", head])


def flops_per_token(s: Shape, i: Inputs) -> Derived:
    """Training FLOPs per token: 6 × the parameters a token passes through (forward 2, backward 4); with a length, the
    attention scores' 6 × layers × length × (heads × head_dim) on top; LoRA's backward skips the frozen weights'
    gradients (about 4 × N)."""
    n = s.active_params or s.params
    lora = i.method in ("lora", "qlora")
    k = 4 if lora else 6
    value = k * n
    formula = f"{k} × {n / 1e9:g}B active params = {value / 1e9:,.1f} GFLOPs"
    notes = [f"forward alone (inference, per generated token) 2 × N = {2 * n / 1e9:,.1f} GFLOPs",
             "LoRA: backward without the frozen weights' gradients, about 4 × N" if lora else "backward 4 × N (activations and weights)"]
    if i.seq_len:
        attn = k * s.layers * i.seq_len * s.q_dim
        value += attn
        formula += f" + attention {k} × {s.layers} layers × {i.seq_len:,} tokens × {s.q_dim} = {attn / 1e9:,.1f} GFLOPs → {value / 1e9:,.1f} GFLOPs"
    else:
        notes.append(f"attention adds {k} × layers × length × heads·head_dim per token ({k * s.layers * s.q_dim / 1e6:,.2f} MFLOPs per token of context)")
    return Derived(value, "flops", formula, notes, per="per token")


def layers_per_stage(s: Shape, i: Inputs) -> Derived:
    pp = int(need(i.pp, "pp", "The pipeline-parallel size (PP)"))
    each, left = divmod(s.layers, pp)
    notes = [] if not left else [f"{s.layers} is not a multiple of PP {pp}: {left} stage(s) hold {each + 1} layers, the rest {each} "
                                 "(MindSpeed-LLM takes an uneven split as --num-layer-list)"]
    return Derived(s.layers / pp, "layers", f"{s.layers} layers / PP {pp} = {s.layers / pp:g}", notes, per="per stage")


def model_parallel(i: Inputs) -> tuple[int, str]:
    split = [(n, v) for n, v in (("TP", i.tp), ("PP", i.pp), ("CP", i.cp)) if v]
    if not split:
        raise NotDerivable("A TP, PP or CP size is needed for this quantity.", "tp")
    return math.prod(v for _, v in split), " × ".join(f"{n} {v}" for n, v in split)


def data_parallel(s: Shape | None, i: Inputs) -> Derived:
    mp, words = model_parallel(i)
    devices = int(need(i.devices, "devices", "The device count"))
    if devices % mp:
        raise NotDerivable(f"{devices} devices do not divide by {words} = {mp}.", "devices",
                           [mp * k for k in range(1, 9)])
    return Derived(devices / mp, "count", f"DP = devices {devices} / ({words}) = {devices} / {mp} = {devices // mp}")


def ranks(s: Shape | None, i: Inputs) -> Derived:
    mp, words = model_parallel(i)
    if i.devices:
        dp = data_parallel(s, i)
        return Derived(float(i.devices), "ranks", f"one rank per {unit_word(i)}: {i.devices} = {words} × DP {dp.value:g}")
    return Derived(float(mp), "ranks", f"{words} = {mp} (with data parallel 1; each extra replica adds {mp} ranks)",
                   ["one process (rank) per device"])


def params_per_rank(s: Shape, i: Inputs) -> Derived:
    tp, pp = i.tp or 1, i.pp or 1
    if tp * pp == 1:
        raise NotDerivable("A TP or PP size is needed for this quantity.", "tp")
    value = s.params / (tp * pp)
    return Derived(value, "params", f"{s.params / 1e9:g}B / (TP {tp} × PP {pp}) = {value / 1e9:.2f}B",
                   ["an even split: the embedding and LM head sit on the first and last stage, so those hold somewhat more"],
                   per="per rank")


# -- bytes -----------------------------------------------------------------------------------------------------
def weight_bytes(i: Inputs) -> float:
    return i.weight_bits / 8


def against_memory(value: float, i: Inputs) -> tuple[str, bool | None]:
    """A byte total set against the memory of the devices said ("do 2 nodes hold it?"): the devices × the vendor's GB
    per device, and whether the total is within it (None and no words when no devices or memory are known)."""
    if not i.devices or not i.memory_gb:
        return "", None
    have = i.devices * i.memory_gb * 1e9
    fits = value <= have
    return (f"; against {i.devices} {unit_word(i, i.devices)} × {i.memory_gb:g} GB = {have / 1e9:,.0f} GB: "
            f"{value / 1e9:,.1f} GB {'≤' if fits else '>'} {have / 1e9:,.0f} GB"), fits


def weights_total(s: Shape, i: Inputs) -> Derived:
    b = weight_bytes(i)
    value = s.params * b
    vs, fits = against_memory(value, i)
    return Derived(value, "bytes", f"{s.params / 1e9:g}B params × {b:g} B = {value / 1e9:.1f} GB{vs}",
                   [f"weights at {i.weight_bits}-bit ({b:g} bytes per parameter)"] + (
                       ["the weights alone: the KV cache or activations, gradients and optimizer states need more"] if vs else []),
                   fits=fits)


def states_at_bytes(s: Shape, i: Inputs) -> Derived:
    """The model states at the bytes per parameter the user says ("16 bytes per parameter": bf16 weight 2 + gradient 2
    + fp32 master 4 + Adam m 4 + v 4), set against the devices said."""
    b = need(i.bytes_per_param, "bytes_per_param", "The bytes per parameter")
    value = s.params * b
    vs, fits = against_memory(value, i)
    return Derived(value, "bytes", f"{s.params / 1e9:g}B params × {b:g} B = {value / 1e9:,.1f} GB{vs}",
                   [f"{b:g} bytes per parameter as you said (16 is the usual bf16 mixed-precision AdamW count: weight 2 + "
                    "gradient 2 + fp32 master 4 + Adam m 4 + v 4)", "model states only: activations, logits and the "
                    "framework's own memory come on top"], fits=fits)


def device_split(i: Inputs) -> tuple[int, str]:
    if i.tp or i.pp:
        n, words = (i.tp or 1) * (i.pp or 1), " × ".join(f"{k} {v}" for k, v in (("TP", i.tp), ("PP", i.pp)) if v)
        return n, words
    n = int(need(i.devices, "devices", "A device count or a TP size"))
    return n, f"{n} {unit_word(i, n)}"


def weights_per_device(s: Shape, i: Inputs) -> Derived:
    total = weights_total(s, i)
    n, words = device_split(i)
    value = total.value / n
    return Derived(value, "bytes", f"{s.params / 1e9:g}B × {weight_bytes(i):g} B = {total.value / 1e9:.1f} GB / ({words}) "
                   f"= {value / 1e9:.2f} GB", total.assumptions + ["an even split over the devices"], per=f"per {unit_word(i)}")


def kv_room_per_device(s: Shape, i: Inputs) -> Derived:
    one = not (i.tp or i.pp or i.devices)  # a part named with no count or split: one device of it
    if one:
        i = replace(i, devices=1)
    w = weights_per_device(s, i)
    cap = need(i.capacity_gib, "hardware", "The device's memory")
    budget = i.util * cap * GIB
    value = budget - w.value
    if value <= 0:
        raise NotDerivable(f"The weights ({w.value / GIB:.1f} GiB per device) already exceed gpu-memory-utilization {i.util:g} × "
                           f"{cap:.1f} GiB.", "tp")
    return Derived(value, "bytes", f"{i.util:g} × {cap:.1f} GiB = {budget / GIB:.1f} GiB − weights {w.value / GIB:.1f} GiB "
                   f"= {value / GIB:.1f} GiB", [f"capacity {cap:.1f} GiB as the runtime reports it",
                                               "vLLM also keeps activations of its profiling run and graph buffers out of this"]
                   + ["one device (no count or TP said)"] * one,
                   per=f"per {unit_word(i)}")


def trained(s: Shape, i: Inputs) -> tuple[float, str]:
    """(trained parameters, how said): every parameter for full fine-tuning, the adapters for LoRA."""
    if i.method in ("lora", "qlora"):
        r = i.lora_rank or C.DEFAULT_LORA_RANK
        a = s.lora_params(r, i.lora_targets)
        return a, f"{a / 1e6:.1f}M LoRA parameters (rank {r}{'' if i.lora_rank else ', the default'})"
    return s.params, f"{s.params / 1e9:g}B parameters"


def optimizer_total(s: Shape, i: Inputs) -> Derived:
    t, what = trained(s, i)
    b = C.MASTER_BYTES["bf16"] + C.ADAM_BYTES["bf16"]  # fp32 master + Adam m and v
    lora = i.method in ("lora", "qlora")
    if lora:  # the fp32 adapters are their own master copy: Adam's moments only
        b = C.ADAM_BYTES["bf16"]
    value = t * b
    parts = "Adam m 4 + v 4" if lora else "fp32 master 4 + Adam m 4 + v 4"
    return Derived(value, "bytes", f"{what} × {b} B ({parts}) = {value / 1e9:.{2 if value < 1e9 else 1}f} GB",
                   ["mixed precision bf16 with AdamW"])


def optimizer_per_device(s: Shape, i: Inputs) -> Derived:
    total = optimizer_total(s, i)
    n = int(need(i.devices, "devices", "The device count"))
    if i.zero_stage == 0:
        return Derived(total.value, "bytes", total.formula + ", replicated on every device (ZeRO-0)", total.assumptions,
                       per=f"per {unit_word(i)}")
    value = total.value / n
    return Derived(value, "bytes", total.formula + f" / {n} {unit_word(i, n)} = {value / 1e9:.2f} GB",
                   total.assumptions + ["split over the data-parallel devices (ZeRO-1 and above, or Megatron's distributed "
                                        "optimizer)"], per=f"per {unit_word(i)}")


def adam_moments(s: Shape, i: Inputs) -> Derived:
    """Adam's two moments alone (m and v in fp32, no master copy): 8 bytes per trained parameter."""
    t, what = trained(s, i)
    b = C.ADAM_BYTES["bf16"]
    value = t * b
    return Derived(value, "bytes", f"{what} × {b} B (Adam m 4 + v 4, fp32) = {value / 1e9:.1f} GB",
                   ["AdamW's first and second moments only; an fp32 master copy of the weights would add 4 B per trained "
                    f"parameter ({t * (b + C.MASTER_BYTES['bf16']) / 1e9:.1f} GB with it)" if i.method not in ("lora", "qlora")
                    else "LoRA adapters train in fp32 and are their own master copy"])


def gradients_total(s: Shape, i: Inputs) -> Derived:
    t, what = trained(s, i)
    b = C.GRAD_BYTES["bf16"]
    value = t * b
    return Derived(value, "bytes", f"{what} × {b} B (bf16) = {value / 1e9:.1f} GB",
                   [f"DeepSpeed also keeps an fp32 gradient partition ({C.FP32_GRAD_BYTES['bf16']} B per trained parameter, "
                    "split over the devices from ZeRO-1); Megatron's main gradients are fp32"])


# -- the parts of the memory named together ("weights + gradients", "optimizer states + gradients per card") ----------
MEMORY_PARTS = ("weights", "gradients", "optimizer", "kv")


def part_on_device(part: str, total: float, i: Inputs) -> tuple[float, str]:
    """One part's bytes on one device and how it is split: the weights over TP × PP (or ZeRO-3's data parallel), the
    gradients from ZeRO-2, the optimizer states from ZeRO-1 (a stage not said: the stage that splits that part)."""
    n = int(need(i.devices, "devices", "The device count"))
    if part == "weights":
        if i.tp or i.pp:
            mp = (i.tp or 1) * (i.pp or 1)
            return total / mp, f"/ (TP × PP {mp})"
        if i.zero_stage == 3:
            return total / n, f"/ {n} (ZeRO-3)"
        return total, "whole on every device" + (f" (ZeRO-{i.zero_stage})" if i.zero_stage is not None else " (ZeRO-0 to 2; ZeRO-3 splits it)")
    first = {"gradients": 2, "optimizer": 1}[part]
    if i.zero_stage is not None and i.zero_stage < first:
        return total, f"whole on every device (ZeRO-{i.zero_stage})"
    return total / n, f"/ {n}" + (f" (ZeRO-{i.zero_stage})" if i.zero_stage is not None else f" (split from ZeRO-{first})")


def memory_parts(s: Shape, i: Inputs) -> Derived:
    """The sum of the memory parts named together, each worked out: weights at the weight width, bf16 gradients of
    the trained parameters, fp32 master + Adam m and v (Adam's moments only for LoRA); in all, or on one device."""
    parts = [p for p in MEMORY_PARTS if p in i.parts] or list(MEMORY_PARTS[:3])
    totals = {"weights": weights_total(s, replace(i, devices=None)).value, "gradients": gradients_total(s, i).value,
              "optimizer": optimizer_total(s, i).value}
    each = {"weights": f"weights {weight_bytes(i):g} B", "gradients": f"gradients {C.GRAD_BYTES['bf16']} B",
            "optimizer": "optimizer " + ("8 B (Adam m, v)" if i.method in ("lora", "qlora") else "12 B (fp32 master + Adam m, v)")}
    if "kv" in parts:  # the KV cache of the sequences served at once, at the length said (bf16)
        seq, n = int(need(i.seq_len, "seq_len", "The sequence length")), i.concurrency or 1
        per, _ = kv_bytes_per_token(s, 2.0, seq)
        totals["kv"] = per * seq * n
        each["kv"] = f"KV {per / 1024:,.0f} KiB per token × {seq:,} tokens × {n} sequence{'s' if n != 1 else ''}"
    trains = bool({"gradients", "optimizer"} & set(parts))
    notes = (["bf16 mixed precision with AdamW; DeepSpeed also keeps an fp32 gradient partition (4 B per trained parameter, "
              "split from ZeRO-1)" if "gradients" in parts else "bf16 mixed precision with AdamW"] if trains else []) + (
        ["KV cache in bf16; vLLM's activations and graph buffers come on top"] if "kv" in parts else [])
    if i.method in ("lora", "qlora"):
        notes.append("LoRA: gradients and optimizer states are the adapters' only; the frozen weights have none")
    if i.per_device and i.devices:
        shares = {p: part_on_device(p, totals[p], i) for p in parts}
        value = sum(v for v, _ in shares.values())
        formula = " + ".join(f"{p} {totals[p] / 1e9:.1f} GB {how} = {v / 1e9:.2f} GB" for p, (v, how) in shares.items())
        return Derived(value, "bytes", f"{formula}; sum {value / 1e9:.2f} GB", notes + [
            "model states only: activations, logits and the framework's own memory come on top"], per=f"per {unit_word(i)}")
    value = sum(totals[p] for p in parts)
    formula = " + ".join(f"{p} {totals[p] / 1e9:.1f} GB" for p in parts)
    vs, fits = against_memory(value, i)
    return Derived(value, "bytes", f"{formula} = {value / 1e9:.1f} GB ({s.params / 1e9:g}B params: "
                   f"{', '.join(each[p] for p in parts)}){vs}", notes + ["all devices together"], fits=fits)


def checkpoint_size(s: Shape, i: Inputs) -> Derived:
    """One checkpoint as DeepSpeed / the HF Trainer write it: the bf16 weights and, for full fine-tuning, the optimizer
    states (fp32 master + Adam m and v, 12 B per parameter) that resuming needs; LoRA saves the adapters and their Adam
    states only. Times the checkpoints kept, set against the disk said."""
    lora = i.method in ("lora", "qlora")
    if lora:
        t, what = trained(s, i)
        per = t * (4 + C.ADAM_BYTES["bf16"])  # fp32 adapters + Adam m and v
        one = f"{what} × 12 B (fp32 adapters 4 + Adam m, v 8) = {per / 1e9:.2f} GB"
    else:
        w, o = s.params * weight_bytes(i), s.params * (C.MASTER_BYTES["bf16"] + C.ADAM_BYTES["bf16"])
        per = w + o
        one = (f"weights {s.params / 1e9:g}B × {weight_bytes(i):g} B = {w / 1e9:.1f} GB + optimizer states × 12 B (fp32 master + "
               f"Adam m, v) = {o / 1e9:.1f} GB → {per / 1e9:.1f} GB per checkpoint")
    n = i.checkpoints or 1
    value = per * n
    formula = one + (f"; × {n} checkpoints = {value / 1e9:,.1f} GB" if n > 1 else "")
    fits = None
    if i.disk_gb:
        fits = value <= i.disk_gb * 1e9
        formula += f"; against the {i.disk_gb:,.0f} GB disk: {value / 1e9:,.1f} GB {'≤' if fits else '>'} {i.disk_gb:,.0f} GB"
    notes = ["a checkpoint without the optimizer states (save_only_model, or the final model) is the weights alone"
             + ("" if lora else f": {s.params * weight_bytes(i) / 1e9:.1f} GB"),
             "DeepSpeed's ZeRO shards are the same bytes split into files per rank"]
    return Derived(value, "bytes", formula, notes, fits=fits)


def logits(s: Shape, i: Inputs) -> Derived:
    """The logits and the loss over the full vocabulary for one micro-batch, in layers: the bf16 logits (2 B per token
    per vocabulary entry), the fp32 loss's upcast copy beside them (4 B), and the backward's peak the estimator sizes
    (constants.LOGITS_BYTES: saved fp32 log-softmax + its gradient + the logits' gradient), which leads."""
    seq = int(need(i.seq_len, "seq_len", "The sequence length"))
    mbs = i.micro_batch or 1
    entries = float(mbs * seq) * s.vocab / (i.tp or 1)
    per, what = _vocab_loss("fp32", False)
    value = entries * per
    bf16, up = entries * C.WEIGHT_BYTES["bf16"], entries * 4
    tp = f" / TP {i.tp} (vocab-parallel)" if i.tp and i.tp > 1 else ""
    return Derived(value, "bytes", f"micro batch {mbs} × {seq:,} tokens × vocab {s.vocab:,}{tp} = {entries:,.0f} entries: "
                   f"bf16 logits × 2 B = {bf16 / 1e9:.1f} GB, fp32 upcast for the loss × 4 B = {up / 1e9:.1f} GB more; "
                   f"the loss's backward peak × {per} B = {value / 1e9:.1f} GB ({value / GIB:.1f} GiB)",
                   [f"{what} (the default loss of LLaMA-Factory and MindSpeed-LLM)",
                    "a fused or chunked cross-entropy (e.g. enable_liger_kernel) never holds the full logits"] + (
                       [] if i.micro_batch else ["no micro batch said: 1"]))


def activations(s: Shape, i: Inputs) -> Derived:
    """The activations one micro-batch keeps for the backward pass on one device, with full recompute (gradient
    checkpointing, LLaMA-Factory's default) and without, by the estimator's own terms (memory.py)."""
    seq = int(need(i.seq_len, "seq_len", "The sequence length"))
    mbs = i.micro_batch or 1
    cfg = TrainConfig(method=i.method, seq_len=seq, micro_batch=mbs, tp=i.tp or 1, pp=i.pp or 1, cp=i.cp or 1)
    on, _ = _activations(s, cfg._replace(recompute=True), 1, 1)
    off, _ = _activations(s, cfg._replace(recompute=False), 1, 1)
    value = on.gib * GIB
    return Derived(value, "bytes", f"{on.how} = {on.gib:.1f} GiB; {off.how} = {off.gib:.1f} GiB", ["bf16 activations with a fused attention kernel (FlashAttention / NPU_Flash_Attn: "
                                         "no s² scores)", "per micro-batch on one device, one pipeline stage's layers"]
                   + ([] if i.micro_batch else ["no micro batch said: 1"]), per=f"per {unit_word(i)}")


# -- per-layer and per-token figures from a shape (the model's, or the figures the user states) --------------------
def stated_shape(s: Shape | None, i: Inputs, needs: tuple[str, ...]) -> Shape:
    """The model's shape (the user's figures already over it), else one built from the figures the user states, which
    must hold every field in ``needs``; the rest are no figures of the answer."""
    if s is not None:
        return s
    said = dict(i.figures)
    if "head_dim" in needs and "head_dim" not in said and {"hidden", "heads"} <= set(said):
        said["head_dim"] = said["hidden"] // said["heads"]
    if lacking := [n for n in needs if not said.get(n)]:
        raise NotDerivable(f"{', '.join(lacking)} is needed for this quantity (or a model name).", lacking[0])
    kv = said.get("kv_heads") or said.get("heads") or 1
    return Shape("stated figures", 0.0, said.get("layers", 1), said.get("hidden", 0), said.get("heads", kv), kv, 0,
                 head_dim=said.get("head_dim", 0))


def size(v: float) -> str:
    return f"{v / 1e9:.2f} GB ({v / GIB:.2f} GiB)" if v >= 1e8 else f"{v / 2**20:,.1f} MiB" if v >= 2**20 else f"{v / 2**10:,.0f} KiB"


def kv_per_token(s: Shape | None, i: Inputs) -> Derived:
    """KV-cache bytes one token holds over all layers: 2 (K, V) × layers × KV heads × head dim × bytes per value
    (research/sizing_formulas.md; the vLLM note), the formula the serving estimate uses (inference.kv_bytes_per_token)."""
    shape = stated_shape(s, i, ("layers", "kv_heads", "head_dim"))
    value, formula = kv_bytes_per_token(shape, i.kv_bytes, i.seq_len)
    return Derived(value, "bytes", f"{formula} = {value:,.0f} B = {size(value)}",
                   [f"{i.kv_bytes:g} B per value ({'bf16 / fp16' if i.kv_bytes == 2 else '8-bit cache'})",
                    "the whole model; with TP each device holds kv_heads / TP of the heads"])


def kv_per_request(s: Shape | None, i: Inputs) -> Derived:
    """The KV cache one request of the length said holds (× the sequences served at once, when said)."""
    seq = int(need(i.seq_len, "seq_len", "The request's length in tokens"))
    token = kv_per_token(s, i)
    n = i.concurrency or 1
    value = token.value * seq * n
    many = f" × {n} sequences" if n > 1 else ""
    return Derived(value, "bytes", f"{token.formula} per token × {seq:,} tokens{many} = {size(value)}", token.assumptions)


def activation_per_layer(s: Shape | None, i: Inputs) -> Derived:
    """Activations one transformer layer keeps for the backward pass (research/sizing_formulas.md, Korthikanti et al.,
    2-byte activations): no recompute s·b·h·(34 + 5·a·s/h) B, a fused attention kernel dropping the 5·a·s/h scores term;
    full recompute keeps the layer's 2·s·b·h input; tensor + sequence parallel divides by TP. × layers is the model's
    (÷ PP the stage's)."""
    eager = not i.fused_attention and i.recompute is not True
    shape = stated_shape(s, i, ("hidden", "heads") if eager else ("hidden",))
    seq = int(need(i.seq_len, "seq_len", "The sequence length"))
    b, h, t = i.micro_batch or 1, shape.hidden, i.tp or 1
    sbh = f"s {seq:,} × b {b} × h {h:,}"
    if i.recompute:
        per, how = 2.0 * seq * b * h, f"{sbh} × 2 B (full recompute: only the layer's input is kept)"
    elif eager:
        extra = 5 * shape.heads * seq / h
        per, how = seq * b * h * (34 + extra), f"{sbh} × (34 + 5 × a {shape.heads} × s / h = {34 + extra:g}) B (no recompute)"
    else:
        per, how = 34.0 * seq * b * h, f"{sbh} × 34 B (no recompute; fused attention: no 5·a·s/h scores term)"
    if t > 1:
        per, how = per / t, f"{how} / TP {t}"
    text = f"{how} = {size(per)} per layer"
    layers = shape.layers if (s is not None or dict(i.figures).get("layers")) else None
    if layers:
        stage = layers / (i.pp or 1)
        text += f"; × {layers} layers = {size(per * layers)}" + (f"; one of PP {i.pp} stages ({stage:g} layers) = {size(per * stage)}"
                                                                   if i.pp and i.pp > 1 else "")
    notes = ["Korthikanti et al. (research/sizing_formulas.md), 2-byte activations"] + (
        [] if i.micro_batch else ["no micro batch said: 1"]) + (
        ["a fused attention kernel (FlashAttention / NPU_Flash_Attn), as on ModelArts; without it add 5·a·s/h"] if not eager and not i.recompute else [])
    return Derived(per, "bytes", text, notes, per="per layer")


# -- run arithmetic (no model needed) ---------------------------------------------------------------------------
def global_batch_of(i: Inputs) -> tuple[int, str]:
    """The global batch said, else GBS = MBS × DP × GA (the ModelArts MindSpeed-LLM pages' identity) from its parts."""
    if i.global_batch:
        return i.global_batch, f"global batch {i.global_batch}"
    mbs = int(need(i.micro_batch, "global_batch", "The global batch size (or the micro batch and the device count)"))
    ga = i.grad_accum or 1
    if i.dp:  # the data-parallel size said outright: no device count to divide
        gbs = mbs * i.dp * ga
        return gbs, f"(micro batch {mbs} × DP {i.dp} × GA {ga} = global batch {gbs})"
    devices = int(need(i.devices, "devices", "The device count"))
    mp = math.prod(v for v in (i.tp, i.pp, i.cp) if v)
    if devices % mp:
        raise NotDerivable(f"{devices} devices do not divide by TP × PP × CP = {mp}.", "devices", [mp * k for k in range(1, 9)])
    gbs = mbs * (devices // mp) * ga
    return gbs, f"(micro batch {mbs} × DP {devices // mp} × GA {ga} = global batch {gbs})"


def tokens_per_iteration(s: Shape | None, i: Inputs) -> Derived:
    gbs, words = global_batch_of(i)
    seq = int(need(i.seq_len, "seq_len", "The sequence length"))
    notes = ["fixed-length (packed or padded) sequences; dynamic lengths give fewer"]
    if not i.global_batch and not i.grad_accum:
        notes.append("no gradient accumulation said: GA 1")
    return Derived(float(gbs * seq), "tokens", f"{words} × sequence length {seq} = {gbs * seq:,}", notes, per="per iteration")


def steps_for_tokens(s: Shape | None, i: Inputs) -> Derived:
    """Optimizer steps to train a token count: tokens / (global batch × sequence length), rounded up (a part-filled
    last step is still a step)."""
    tokens = need(i.tokens, "tokens", "The token count")
    gbs, words = global_batch_of(i)
    seq = int(need(i.seq_len, "seq_len", "The sequence length"))
    per_step = gbs * seq
    value = math.ceil(tokens / per_step)
    return Derived(float(value), "count", f"{tokens:,.0f} tokens / ({words} × sequence length {seq} = {per_step:,} per step) = {value:,}",
                   ["fixed-length (packed or padded) sequences; dynamic lengths take more steps"])


# The one rounding rule of a run's step count from its samples. MindSpeed-LLM's launch script defaults TRAIN_ITERS to
# `SN / GBS * EPOCH` (launch-script note; SN is a variable of the script only, so the script computes it): shell
# arithmetic, whole numbers left to right, ⌊SN / GBS⌋ × EPOCH; the last partial batch of each epoch is not a step. A
# trainer that keeps it (HF Trainer, LLaMA-Factory) runs ⌈SN / GBS⌉ per epoch, said beside it when the two differ.
ITERS_RULE = "TRAIN_ITERS = SN / GBS * EPOCH in the launch script's whole-number shell arithmetic: ⌊SN / GBS⌋ × EPOCH"


def epoch_iters(n: int, gbs: int) -> int:
    """Iterations of one epoch by the launch script's rule (``ITERS_RULE``): ⌊SN / GBS⌋."""
    return n // gbs


def run_iters(n: int, gbs: int, epochs: float) -> int:
    """Iterations of the whole run by the launch script's rule (``ITERS_RULE``): ⌊SN / GBS⌋ × EPOCH."""
    return math.floor(epoch_iters(n, gbs) * epochs)


def iters_text(n: int, gbs: int, epochs: float | None, words: str, what: str = "samples") -> str:
    """The arithmetic of ``run_iters`` (or of one epoch) with the figures put in: "50,000 samples / GBS 64 = 781.25 → 781
    (whole iterations) × 2 epochs = 1,562"."""
    exact = n / gbs
    one = f"{epoch_iters(n, gbs):,}" if n % gbs == 0 else f"{round(exact, 3):,} → {epoch_iters(n, gbs):,} (whole iterations)"
    text = f"{n:,} {what} / {words} = {one}"
    return text if epochs is None else f"{text} × {epochs:g} epochs = {run_iters(n, gbs, epochs):,}"


def partial_batch_note(n: int, gbs: int, epochs: float = 1) -> list[str]:
    if not n % gbs:
        return []
    kept = math.ceil(n / gbs)
    return [f"a trainer that keeps each epoch's last partial batch (HF Trainer, LLaMA-Factory) runs {kept:,}"
            + (f" × {epochs:g} = {kept * epochs:,.0f}" if epochs != 1 else "")]


def sequences_of(i: Inputs) -> tuple[int, str, str, list[str]]:
    """The sequences one epoch runs through, what they are, the arithmetic before the steps and its notes. Each sample is
    one sequence, except with packing: samples are packed into full-length sequences, ⌈samples × tokens per sample /
    sequence length⌉ of them (LLaMA-Factory packing, ms-swift --packing; the last one part-filled). Tokens per sample
    without packing, or packing without them, leave the samples as the count, and a note says why."""
    n = int(need(i.samples, "samples", "The number of training samples"))
    per, seq = i.sample_tokens, i.seq_len
    if i.packing and per and seq:
        packed = math.ceil(n * per / seq)
        return packed, "packed sequences", (f"{n:,} samples × {per:,} tokens / sequence length {seq:,} = {packed:,} packed "
                                            "sequences; "), ["packing: the average tokens per sample fill sequences of the full length"]
    if per and i.packing is False:
        return n, "samples", "", [f"without packing each sample is one sequence: the {per:,} tokens per sample do not change the step count"]
    if per and not i.packing:
        return n, "samples", "", [f"each sample taken as one sequence (no packing said); with packing the {per:,} tokens per sample give "
                                  + (f"{math.ceil(n * per / seq):,} sequences of {seq:,}" if seq else "sample × tokens / sequence length sequences")]
    if i.packing:
        return n, "samples", "", ["packing: the steps count packed sequences; give the average tokens per sample (and the sequence "
                                  "length) to count them — here each sample is taken as one sequence"]
    return n, "samples", "", []


def steps_per_epoch(s: Shape | None, i: Inputs) -> Derived:
    """Optimizer steps in one pass over the data: ⌊sequences / global batch⌋ (``ITERS_RULE``; ``sequences_of``)."""
    n, what, before, said = sequences_of(i)
    gbs, words = global_batch_of(i)
    notes = [ITERS_RULE, *partial_batch_note(n, gbs), *said]
    if not i.global_batch and not i.grad_accum:
        notes.append("no gradient accumulation said: GA 1")
    return Derived(float(epoch_iters(n, gbs)), "count", before + iters_text(n, gbs, None, words, what), notes)


def total_steps(s: Shape | None, i: Inputs) -> Derived:
    """Optimizer steps of the whole run: MindSpeed-LLM's default TRAIN_ITERS, ⌊SN / GBS⌋ × EPOCH (``ITERS_RULE``; SN the
    sequences, ``sequences_of``)."""
    epochs = need(i.epochs, "epochs", "The number of epochs")
    n, what, before, said = sequences_of(i)
    gbs, words = global_batch_of(i)
    notes = [ITERS_RULE, *partial_batch_note(n, gbs, epochs), *said]
    if not i.global_batch and not i.grad_accum:
        notes.append("no gradient accumulation said: GA 1")
    return Derived(float(run_iters(n, gbs, epochs)), "count", before + iters_text(n, gbs, epochs, words, what), notes)


def total_tokens(s: Shape | None, i: Inputs) -> Derived:
    """Tokens of the whole run: sequence length × samples × epochs (the vendor's Tok_total for fixed-length sequences)."""
    n = int(need(i.samples, "samples", "The number of training samples"))
    seq = int(need(i.seq_len, "seq_len", "The sequence length"))
    epochs = i.epochs or 1
    value = float(n) * seq * epochs
    ep = f" × {epochs:g} epochs" if i.epochs else ""
    notes = ["fixed-length (packed or padded) sequences; dynamic lengths give fewer"] + ([] if i.epochs else ["no epochs said: one epoch"])
    return Derived(value, "tokens", f"{n:,} samples × sequence length {seq:,}{ep} = {value:,.0f} (≈ {value / 1e9:.2f}B)", notes)


def min_global_batch(s: Shape | None, i: Inputs) -> Derived:
    """The smallest global batch a layout allows: GA at least 1 in GBS = MBS × DP × GA, so GBS is a multiple of MBS × DP."""
    mbs = int(need(i.micro_batch, "micro_batch", "The micro batch size"))
    dp = data_parallel(s, i)
    value = mbs * int(dp.value)
    return Derived(float(value), "count", f"{dp.formula}; smallest GBS = MBS {mbs} × DP {dp.value:g} × GA 1 = {value}",
                   [f"GBS = MBS × DP × GA with GA a whole number ≥ 1: any multiple of {value} is legal"])


def min_context_parallel(s: Shape | None, i: Inputs) -> Derived:
    """The smallest context-parallel size a length allows on MindSpeed-LLM: CP >= 2 above 32768 tokens (the vendor's
    parameter page), else 1; with the devices and a TP / PP said, whether TP x PP x CP still divides them."""
    seq = int(need(i.seq_len, "seq_len", "The sequence length"))
    above = seq > C.CP_REQUIRED_ABOVE
    value = 2 if above else 1
    formula = (f"SEQ_LEN {seq} > {C.CP_REQUIRED_ABOVE}: CP ≥ 2" if above
               else f"SEQ_LEN {seq} ≤ {C.CP_REQUIRED_ABOVE}: CP 1 (context parallel is required only above {C.CP_REQUIRED_ABOVE})")
    notes = ["ModelArts MindSpeed-LLM 训练参数配置说明 (modelarts_llm_train_5901042): CP ≥ 2 when SEQ_LEN > 32768, marked "
             "for Llama3 models; a larger CP (the 128k example script uses CP 4) splits each sequence further"]
    if i.devices and (i.tp or i.pp):
        mp = (i.tp or 1) * (i.pp or 1) * value
        notes.append(f"{i.devices} {unit_word(i, i.devices)} / (TP {i.tp or 1} × PP {i.pp or 1} × CP {value}) = "
                     + (f"DP {i.devices // mp}" if i.devices % mp == 0 else f"{i.devices / mp:g}: not a whole DP, change TP or PP"))
    return Derived(float(value), "count", formula, notes)


def tokens_in_window(s: Shape | None, i: Inputs) -> Derived:
    """Tokens trained in a time window: the vendor's formula Time = tokens / (TPS × N) / η turned round."""
    tps = need(i.tokens_per_second, "tokens_per_second", "The throughput per device (tokens/s)")
    n = int(need(i.devices, "devices", "The device count"))
    h = need(i.hours, "hours", "The time window")
    eta = i.speedup if n > 1 else 1.0
    value = tps * n * h * 3600 * eta
    eta_words = f" × η {eta:g}" if eta != 1 else ""
    return Derived(value, "tokens", f"{tps:,.0f} tokens/s × {n} {unit_word(i, n)} × {h:g} h × 3600 s{eta_words} = {value:,.0f}"
                   f" (≈ {value / 1e9:.2f}B)",
                   [f"η {eta:g} is the vendor's linear speed-up factor on more than one device (at η 1: "
                    f"{tps * n * h * 3600:,.0f})" if eta != 1 else "one device: no speed-up factor",
                    "the throughput holds for the whole window (no evaluation or checkpoint pauses)"])


def devices_for_deadline_count(tokens: float, per_device: float, deadline_hours: float, speedup: float) -> tuple[float, int]:
    """The vendor's card formula N = tokens / (Time × TPS) with the speed-up factor η on more than one device, and the
    count the vendor's rule makes of it: rounded up, and above 8 up to a multiple of 8 (ModelArts 590604)."""
    n = tokens / (deadline_hours * 3600 * per_device)
    if n > 1:
        n /= speedup
    whole = max(1, math.ceil(n - 1e-9))
    return n, whole if whole <= 8 else math.ceil(whole / 8) * 8


def duration(seconds: float) -> str:
    return f"{seconds / 3600:.1f} h" if seconds >= 3600 else f"{seconds / 60:.1f} min"


def run_time(s: Shape | None, i: Inputs) -> Derived:
    """The run's time from its steps and the time per step; the steps said, or worked out from the data set (samples /
    GBS × epochs, total_steps) or from a token total (tokens / (GBS × sequence length), steps_for_tokens) when only that
    is said."""
    steps = (None if i.iterations else total_steps(s, replace(i, epochs=i.epochs or 1)) if i.samples
             else steps_for_tokens(s, i) if i.tokens else None)
    n = int(steps.value) if steps else int(need(i.iterations, "iterations", "The run's iterations"))
    per = need(i.iteration_seconds, "iteration_seconds", "The time per iteration")
    total = n * per
    formula = (f"steps {steps.formula}; " if steps else "") + f"{n:,} iterations × {per:g} s = {total:,.0f} s = {duration(total)}"
    if i.iterations_done and i.iterations_done < n:
        left = (n - i.iterations_done) * per
        formula += f"; left after iteration {i.iterations_done:,}: {n - i.iterations_done:,} × {per:g} s = {duration(left)}"
    notes = (steps.assumptions + ([] if i.epochs or not i.samples else ["no epochs said: one epoch"])) if steps else []
    return Derived(total, "seconds", formula, notes + ["the logged time per iteration holds for the rest of the run (no "
                                                       "evaluation or checkpoint pauses)"])


def run_time_left(s: Shape | None, i: Inputs) -> Derived:
    n = int(need(i.iterations, "iterations", "The run's iterations"))
    done = int(need(i.iterations_done, "iterations_done", "The iteration reached"))
    per = need(i.iteration_seconds, "iteration_seconds", "The time per iteration")
    left = max(0, n - done) * per
    return Derived(left, "seconds", f"({n:,} − {done:,}) iterations × {per:g} s = {left:,.0f} s = {duration(left)}; "
                   f"the whole run {n:,} × {per:g} s = {duration(n * per)}",
                   ["the logged time per iteration holds for the rest of the run (no evaluation or checkpoint pauses)"])


# -- one identity solved for the figure left out ------------------------------------------------------------------
@dataclass(frozen=True)
class Formula:
    """An identity of products, lhs = rhs (each a product of named figures), which a question may state all but one of:
    the one left out is solved for ("1B tokens in 10 h on 32 cards: what TPS per card?"). ``floor``: the lhs is a whole
    count the rhs only reaches by integer division (checkpoints saved = TRAIN_ITERS // SAVE_INTERVAL + 1): a solved
    figure of the rhs is rounded down, and the lhs solved is the smallest that gives the rhs."""

    lhs: tuple[str, ...]
    rhs: tuple[str, ...]
    source: str
    whole: frozenset[str] = frozenset()  # figures that must come out whole (a micro batch, a GA)
    floor: bool = False
    names: dict[str, str] = field(default_factory=dict)  # the source's own spelling of a figure (TRAIN_ITERS), said in the arithmetic


FORMULAS: dict[str, Formula] = {
    # ModelArts 模型训练时间、集群规模预测 (590604): Time = Tok_total / (TPS × N) / η
    "time": Formula(("tokens",), ("tokens_per_second", "devices", "seconds", "eta"),
                    "the vendor's formula Time = tokens / (TPS × N) / η (ModelArts 590604)"),
    # the MindSpeed-LLM pages' GBS = MBS × DP × GA
    "batch": Formula(("global_batch",), ("micro_batch", "dp", "grad_accum"), "GBS = MBS × DP × GA (ModelArts MindSpeed-LLM pages)",
                     frozenset({"micro_batch", "grad_accum", "dp"})),
    # Megatron's layout: the devices are the data-parallel replicas times one replica's TP × PP × CP ranks
    "devices": Formula(("devices",), ("dp", "tp", "pp", "cp"), "devices = DP × TP × PP × CP (Megatron / MindSpeed-LLM layout)",
                       frozenset({"dp", "tp", "pp", "cp"})),
    # a run's tokens: steps × GBS × sequence length (fixed-length sequences)
    "run_tokens": Formula(("tokens",), ("iterations", "global_batch", "seq_len"), "tokens = steps × GBS × sequence length"),
    # the launch-script note's TRAIN_ITERS = SN / GBS × EPOCH
    "epochs": Formula(("iterations", "global_batch"), ("samples", "epochs"), "TRAIN_ITERS = SN / GBS × EPOCH (launch-script note)"),
    # a run's tokens over its time and devices, as measured: no speed-up factor (η plans a run; a measurement holds it)
    "measured": Formula(("tokens",), ("tokens_per_second", "devices", "seconds"),
                        "throughput = tokens / (N × time), as measured (the vendor's η belongs to planning, ModelArts 590604)"),
    # a step's tokens over its time and the devices: the measured throughput per device
    "step_rate": Formula(("tokens_per_second", "devices", "iteration_seconds"), ("global_batch", "seq_len"),
                         "TPS per device = GBS × sequence length / (step time × devices)"),
    # one step's tokens: GBS × sequence length (fixed-length sequences)
    "step_tokens": Formula(("step_tokens",), ("global_batch", "seq_len"), "tokens per step = GBS × sequence length (fixed-length sequences)",
                           frozenset({"global_batch"})),
    # the launch-script note: checkpoints saved = TRAIN_ITERS // SAVE_INTERVAL + 1 (the saves at each interval and the last)
    "saves": Formula(("iterations",), ("save_interval", "saves"), "checkpoints = TRAIN_ITERS // SAVE_INTERVAL + 1 (launch-script note)",
                     frozenset({"save_interval", "saves"}), floor=True, names={"iterations": "TRAIN_ITERS"}),
}
SYMBOL = {"tokens": "tokens", "tokens_per_second": "TPS", "devices": "N", "seconds": "time (s)", "eta": "η", "global_batch": "GBS",
          "micro_batch": "MBS", "dp": "DP", "grad_accum": "GA", "iterations": "steps", "iteration_seconds": "step time (s)",
          "seq_len": "sequence length", "samples": "samples", "epochs": "epochs", "tp": "TP", "pp": "PP", "cp": "CP",
          "save_interval": "SAVE_INTERVAL", "saves": "(checkpoints − 1)",
          "step_tokens": "tokens per step"}
# figures a formula may leave unsaid at their neutral value: no TP / PP / CP said is 1 (no model parallelism)
NEUTRAL = {"tp": 1.0, "pp": 1.0, "cp": 1.0}
# a figure the user says that stands for another one of a formula: the checkpoints counted are the saves plus one
OFFSET = {"saves": ("checkpoints", -1)}


def figure(name: str, formula: str, i: Inputs, steps: list[str] | None = None, depth: int = 1) -> float | None:
    """A figure of a formula from the inputs (None: not said and not computable from what is). A figure not said is
    solved from another formula whose other figures are (``depth`` such steps), each step's arithmetic appended to
    ``steps`` ("DP = GBS 64 / (MBS 1 × GA 8) = 8" before "N = DP 8 × TP 8 × PP 2 = 128")."""
    if name == "seconds":
        return i.hours * 3600 if i.hours else None
    if name == "eta":
        return i.speedup if (i.devices or 1) > 1 else 1.0
    if name == "tokens":
        if i.tokens:
            return i.tokens
        return float(i.samples * i.seq_len * (i.epochs or 1)) if i.samples and i.seq_len else None
    if name in OFFSET:
        said, by = OFFSET[name]
        v = getattr(i, said, None)
        return float(v + by) if v is not None else None
    if name == "dp":
        if i.dp:
            return float(i.dp)
        mp = math.prod(v for v in (i.tp, i.pp, i.cp) if v)
        if i.devices and i.devices % mp == 0:
            return i.devices / mp
    elif name == "global_batch" and formula != "batch" and not i.global_batch:
        try:
            return float(global_batch_of(i)[0])
        except NotDerivable:
            pass
    elif (v := getattr(i, name, None)) is not None:
        return float(v)
    elif name in NEUTRAL:
        return NEUTRAL[name]
    if name == "iterations" and formula != "epochs" and i.samples and i.epochs:  # the run's default TRAIN_ITERS, one rule
        try:
            gbs, words = global_batch_of(i)
        except NotDerivable:
            return None
        if steps is not None:
            steps.append(f"TRAIN_ITERS = {iters_text(int(i.samples), gbs, i.epochs, words)}")
        return float(run_iters(int(i.samples), gbs, i.epochs))
    if depth <= 0:
        return None
    for other, f in FORMULAS.items():  # solved from another relation whose other figures are all said
        if other == formula or name not in (*f.lhs, *f.rhs):
            continue
        try:
            d = solved(other, name, "count", depth=depth - 1)(None, i)
        except NotDerivable:
            continue
        if steps is not None:
            steps.append(d.formula)
        return d.value
    return None


def solved(formula: str, asked: str, unit: str, per: str = "", depth: int = 1) -> Callable[[Shape | None, Inputs], Derived]:
    """The term giving ``asked`` from the other figures of ``formula``: the product of the side without it over the rest
    of its own side; a figure the question does not say is first solved from another relation (``figure``), and those
    steps lead the arithmetic."""
    f = FORMULAS[formula]

    def term(s: Shape | None, i: Inputs) -> Derived:
        target = next((k for k, (said, _) in OFFSET.items() if said == asked), asked)  # "checkpoints" is the saves + 1
        own, other = (f.lhs, f.rhs) if target in f.lhs else (f.rhs, f.lhs)
        rest = [n for n in own if n != target]
        steps: list[str] = []
        values = {n: figure(n, formula, i, steps, depth) for n in (*rest, *other)}
        if lacking := [n for n, v in values.items() if v is None]:
            raise NotDerivable(f"{SYMBOL[target]} = {' × '.join(SYMBOL[n] for n in other)} / ({' × '.join(SYMBOL[n] for n in rest)}) "
                               f"needs {', '.join(SYMBOL[n] for n in lacking)}.", lacking[0])
        top, bottom = math.prod(values[n] for n in other), math.prod(values[n] for n in rest)  # type: ignore[misc]
        if not bottom:
            raise NotDerivable(f"{SYMBOL[target]} cannot be solved: {' × '.join(SYMBOL[n] for n in rest)} is 0.", rest[0])
        value = top / bottom
        notes = [f.source]
        if f.floor and target in f.rhs:  # a whole count reached by integer division: the largest that still gives it
            low = top / (bottom + 1)
            value = float(math.floor(value))
            if value < 1:
                raise NotDerivable(f"{SYMBOL[target]} would be below 1: {SYMBOL[f.lhs[0]]} {top:,.0f} is too few.", target)
            if math.floor(low) + 1 < value:
                notes.append(f"any {SYMBOL[target]} from {math.floor(low) + 1:,} to {value:,.0f} gives the same count")

        def num(v: float) -> str:
            return f"{v:,.0f}" if v == int(v) else f"{v:,.4g}"

        def shown(names: list[str] | tuple[str, ...]) -> str:
            return " × ".join(f"{SYMBOL[n]} {num(values[n])}" for n in names  # type: ignore[arg-type]
                              if values[n] != 1 or n not in ("eta", *NEUTRAL))

        if target in f.whole and abs(value - round(value)) > 1e-9:
            notes.append(f"{value:,.2f} is not a whole number: the other figures do not divide evenly (the nearest whole values are "
                         f"{math.floor(value):,} and {math.ceil(value):,})")
        if "eta" in rest and (eta := values["eta"]) is not None and eta != 1:
            notes.append(f"η {eta:g} is the vendor's linear speed-up factor on more than one device (at η 1: {value * eta:,.0f})")
        if "tokens" in values and not i.tokens and i.samples:
            notes.append("tokens = samples × sequence length × epochs (fixed-length sequences)")
        exact = (f"{value:,.2f}" if target in f.whole and value != int(value)  # a whole figure that does not come out whole
                 else f"{value:,.0f}" if abs(value) >= 100 or value == int(value) else f"{value:,.3g}")
        kept = [n for n in rest if values[n] != 1 or n not in ("eta", *NEUTRAL)]
        over = f" / ({shown(kept)})" if len(kept) > 1 else f" / {shown(kept)}" if kept else ""
        op = " // " if f.floor and target in f.rhs else " / "
        over = over.replace(" / ", op, 1)
        text = f"{SYMBOL[target]} = {shown(other)}{over} = {exact}"
        if f.floor and len(other) == 1 and len(kept) == 1:  # the source's own form: TRAIN_ITERS//SAVE_INTERVAL + 1
            text = floor_text(f, target, asked, other[0], kept[0], values, value)  # type: ignore[arg-type]
        if target != asked:  # the figure said stands for another: the checkpoints are the saves + 1
            value -= OFFSET[target][1]
        return Derived(value, unit, "; ".join([*steps, text]), notes, per=per)

    return term


def floor_text(f: Formula, target: str, asked: str, whole: str, by: str, values: dict[str, float], value: float) -> str:
    """The arithmetic of a whole-count relation in its source's own spelling, with the user's figures put in and the
    count it gives checked: "checkpoints = TRAIN_ITERS//SAVE_INTERVAL + 1 = 1200//300 + 1 = 5"."""
    def name(n: str) -> str:
        return f.names.get(n, SYMBOL[n])

    def fig(v: float) -> str:
        return f"{v:.0f}"

    if target == asked:  # the interval (the divisor) from the count: the largest that still gives it
        said, off = next(((s, b) for k, (s, b) in OFFSET.items() if k == by), (by, 0))
        count = values[by] - off
        check = f"{fig(values[whole])}//{fig(value)}" + (f" + {-off}" if off else "")
        return (f"{name(target)} = {name(whole)} // ({said} − {-off}) = {fig(values[whole])} // ({fig(count)} − {-off}) = {fig(value)}; "
                f"check: {check} = {fig(values[whole] // value - off)}") if off else (
                f"{name(target)} = {name(whole)} // {name(by)} = {fig(values[whole])} // {fig(values[by])} = {fig(value)}")
    said, off = OFFSET[target]
    return (f"{said} = {name(whole)}//{name(by)} + {-off} = {fig(values[whole])}//{fig(values[by])} + {-off} = {fig(value - off)}")


TERMS: dict[str, Callable[..., Derived]] = {
    "lora_params": lora_params,
    "params": params,
    "layers": shape_field("layers", "num_hidden_layers"),
    "hidden": shape_field("hidden", "hidden_size"),
    "heads": shape_field("heads", "num_attention_heads"),
    "kv_heads": shape_field("kv_heads", "num_key_value_heads"),
    "head_dim": shape_field("head_dim", "head_dim"),
    "ffn": shape_field("ffn", "intermediate_size"),
    "vocab": shape_field("vocab", "vocab_size"),
    "layers_per_stage": layers_per_stage,
    "params_per_layer": params_per_layer,
    "embedding_params": embedding_params,
    "flops_per_token": flops_per_token,
    "data_parallel": data_parallel,
    "ranks": ranks,
    "params_per_rank": params_per_rank,
    "weights_total": weights_total,
    "weights_per_device": weights_per_device,
    "kv_room_per_device": kv_room_per_device,
    "optimizer_total": optimizer_total,
    "optimizer_per_device": optimizer_per_device,
    "gradients_total": gradients_total,
    "adam_moments": adam_moments,
    "memory_parts": memory_parts,
    "checkpoint_size": checkpoint_size,
    "logits": logits,
    "activations": activations,
    "kv_per_token": kv_per_token,
    "kv_per_request": kv_per_request,
    "activation_per_layer": activation_per_layer,
    "states_at_bytes": states_at_bytes,
    "tokens_per_iteration": tokens_per_iteration,
    "min_global_batch": min_global_batch,
    "min_context_parallel": min_context_parallel,
    "steps_per_epoch": steps_per_epoch,
    "total_steps": total_steps,
    "total_tokens": total_tokens,
    "steps_for_tokens": steps_for_tokens,
    "tokens_in_window": tokens_in_window,
    "run_time": run_time,
    "run_time_left": run_time_left,
    "throughput_needed": solved("time", "tokens_per_second", "tokens/s", "per device"),
    "throughput_per_device": solved("step_rate", "tokens_per_second", "tokens/s", "per device"),
    "micro_batch_for": solved("batch", "micro_batch", "count"),
    "epochs_for_iters": solved("epochs", "epochs", "count"),
    "tokens_for_iters": solved("run_tokens", "tokens", "tokens"),
    "checkpoints_saved": solved("saves", "checkpoints", "count"),
    "save_interval_for": solved("saves", "save_interval", "count"),
    "dp_for_batch": solved("batch", "dp", "count"),
    "devices_for_layout": solved("devices", "devices", "devices"),
    "throughput_achieved": solved("measured", "tokens_per_second", "tokens/s", "per device"),
    "global_batch_for_tokens": solved("step_tokens", "global_batch", "count"),
}
CATALOG_FIGURES = frozenset({"params", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab"})
MODEL_FREE = frozenset({"kv_per_token", "kv_per_request", "activation_per_layer", "steps_per_epoch", "total_steps", "total_tokens", "steps_for_tokens", "data_parallel", "ranks", "tokens_per_iteration", "min_global_batch", "min_context_parallel", "tokens_in_window", "run_time", "run_time_left", "throughput_needed", "throughput_per_device", "micro_batch_for", "epochs_for_iters", "tokens_for_iters", "checkpoints_saved", "save_interval_for", "dp_for_batch", "devices_for_layout", "throughput_achieved", "global_batch_for_tokens"})


def derive(name: str, s: Shape | None, i: Inputs) -> Derived:
    if name not in TERMS:
        raise NotDerivable(f"No quantity {name!r}.", "quantity", sorted(TERMS))
    if s is None and name not in MODEL_FREE:
        raise NotDerivable("A model (or params_b) is needed for this quantity.", "model")
    return TERMS[name](s, i)
