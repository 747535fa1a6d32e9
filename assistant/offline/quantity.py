"""What quantity a question asks when it is not a device count, read from the table of quantities (quantities.toml):
the router asks the derive_quantity tool for each (``call_args``), the writer states it first (quantity_blocks.py)
with its arithmetic and source. A card plan the router also makes follows it as support."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import spec, subquestions
from .frame import Effective, QuestionFrame
from .fused_attention import RECOMPUTE_OFF, RECOMPUTE_ON

TABLE_FILE = Path(__file__).with_name("quantities.toml")
# an amount asked in the same clause as the quantity's words ("total size of the optimizer states", "梯度一共占多少 GB")
AMOUNT = re.compile(r"how\s+(?:much|big|large|many)|(?<![a-z])size|what(?:'s|\s+is|\s+are)|多少|多大|几|占|(?<![a-z])in\s+gi?b(?![a-z])|"
                    r"(?<![a-z])total\s+(?:[kmg]i?b|memory|bytes)(?![a-z])", re.I)
ELLIPTIC_LENGTH = 60  # characters: a follow-up this short names the thing and leaves "how much" to the last turn
# how such a follow-up opens ("and the Adam states for those?", "那梯度呢"): not a yes/no about the thing ("…, right?")
ELLIPTIC_START = re.compile(r"\s*(?:and|what\s+about|how\s+about|then|plus|also|那么?|还有|再看|再问)(?![a-z])", re.I)
CLAUSE = re.compile(r"[?？。;；!！\n]|,\s|，")
MODULE = re.compile(r"(?<![a-z])(q|k|v|o|gate|up|down)[-_]?proj", re.I)
# the projections by their letters alone, two or more in a list ("on q,k,v,o", "q/v", "q、k、v"): one letter alone is no list
LETTER_LIST = re.compile(r"(?<![a-z0-9])[qkvo](?:\s*[,/、，]\s*[qkvo])+(?![a-z0-9])", re.I)
ALL_LINEAR = re.compile(r"all[-_ ]linear|all\s+(?:the\s+)?linear|every\s+linear|lora_target\s*[:=]?\s*all|全部线性|所有线性|全部.{0,4}层", re.I)
ATTENTION_ONLY = re.compile(r"(?:only|just)\s+(?:the\s+)?attention|attention\s+(?:only|projections?\s+only)|只(?:加|挂|用)?在?\s*attention", re.I)


@dataclass(frozen=True)
class QuantityRow:
    name: str
    words: re.Pattern
    with_: re.Pattern | None
    unless: re.Pattern | None
    amount: bool
    needs: tuple[str, ...]
    any: tuple[str, ...]
    model: bool
    replaces: tuple[str, ...]
    label: dict[str, str]
    note: dict[str, str]
    solves: tuple[str, ...] = ()  # the frame value a formula row solves for: said outright, it is no question
    term: str = ""  # the estimator term that computes it, when not the row's own name (two readings of one quantity)
    fits: dict[str, str] | None = None  # per language: the yes that leads when the value is set against what the user has
    over: dict[str, str] | None = None
    share_of: str = ""  # the total this row is one device's share of (asked in a later sub-question, see share_spans)
    share_only: bool = False  # a total asked only beside its share on each device (its words alone ask nothing)


def read_parts(path: Path = TABLE_FILE) -> tuple[dict[str, re.Pattern], str, str, re.Pattern]:
    """The memory parts' words (one pattern per part), the pattern of any one part, what joins two, and the words of
    a part asked on one device (quantities.toml [parts])."""
    with path.open("rb") as f:
        table = tomllib.load(f)["parts"]
    names = [k for k, v in table.items() if isinstance(v, list) and k not in ("per_device", "share")]
    each = {k: re.compile("|".join(table[k]), re.I) for k in names}
    one = "(?:" + "|".join(f"(?:{p})" for k in names for p in table[k]) + ")"
    return each, one, table["join"], re.compile("|".join(table["per_device"]), re.I)


PART_WORDS, ANY_PART, PART_JOIN, PER_DEVICE = read_parts()
# two different parts joined ("weights + gradients"); two words of one part ("fp32 master weights + Adam moments", both the
# optimizer's) ask that part alone
TWO_PARTS = "(?:" + "|".join(f"(?:{a.pattern}){PART_JOIN}(?:{b.pattern})" for na, a in PART_WORDS.items()
                             for nb, b in PART_WORDS.items() if na != nb) + ")"
with TABLE_FILE.open("rb") as _f:
    SHARE = re.compile("|".join(tomllib.load(_f)["parts"]["share"]), re.I)
# two memory parts named together ("bf16 权重和梯度", "weights + gradients"): the weights are one part of a sum asked
PARTS_JOINED = re.compile(TWO_PARTS, re.I)


def load(path: Path = TABLE_FILE) -> list[QuantityRow]:
    with path.open("rb") as f:
        rows = tomllib.load(f)["quantity"]

    def expand(p: str) -> str:  # {part}: any one memory part; {join}: what joins two
        if p == "{part}{join}{part}":
            return TWO_PARTS
        return p.replace("{part}", ANY_PART).replace("{join}", PART_JOIN)

    def joined(d: dict[str, list[str]] | None) -> re.Pattern | None:
        pats = [expand(p) for lang in ("en", "zh") for p in (d or {}).get(lang, [])]
        return re.compile("|".join(pats), re.I) if pats else None

    out = []
    for row in rows:
        words = joined(row["words"])
        assert words is not None, row["name"]
        out.append(QuantityRow(row["name"], words, joined(row.get("with")), re.compile("|".join(map(expand, row["unless"])), re.I) if row.get("unless") else None, bool(row.get("amount")), tuple(row.get("needs", ())),
                               tuple(row.get("any", ())), bool(row.get("model")), tuple(row.get("replaces", ())),
                               row["label"], row.get("note", {}), tuple(row.get("solves", ())), row.get("term", row["name"]),
                               row.get("fits"), row.get("over"), row.get("share_of", ""), bool(row.get("share_only"))))
    return out


ROWS: list[QuantityRow] = load()
BY_NAME = {row.name: row for row in ROWS}


def has(s: QuestionFrame, name: str) -> bool:
    e = s.effective()
    if name == "devices":
        return bool(e.devices)
    if name in ("shape", "figures"):  # the model's shape or the figures stated ("hidden 4096, 32 layers"); figures: those alone
        return bool(s.shape or (name == "shape" and s.model))
    return spec.value_of(s, name) not in (None, False)


def where_asked(row: QuantityRow, s: QuestionFrame) -> int | None:
    """Where the question asks ``row``'s quantity (the offset of its words), or None when it does not or cannot be
    computed from what the frame holds."""
    spans = spans_asked(row, s)
    return spans[0][0] if spans else None


def spans_asked(row: QuantityRow, s: QuestionFrame, inputs: bool = True) -> list[tuple[int, int]]:
    """Every place (start, end) the question asks ``row``'s quantity, in order; empty when it does not or (``inputs``)
    the frame cannot compute it."""
    if inputs and row.model and not (s.model or s.params_b):
        return []
    if inputs and missing(row, s):
        return []
    if any(has(s, n) for n in row.solves):
        return []
    out = own_spans(row, s)
    if row.share_of and row.share_of in BY_NAME:
        out = sorted({*out, *share_spans(row, s)})
    if row.share_only and out and not any(a > out[0][0] for share in ROWS if share.share_of == row.name
                                          for a, _ in [*own_spans(share, s), *share_spans(share, s, out)]):
        return []  # "权重一共多少" alone: the weights' own estimate answers it; its share on each device asked after it keeps it
    return out


def own_spans(row: QuantityRow, s: QuestionFrame) -> list[tuple[int, int]]:
    """Where the question's words ask ``row`` (its words, with the amount and the things measured they need)."""
    q = s.question
    if row.with_ is not None and not row.with_.search(q):
        return []
    if row.unless is not None and row.unless.search(q):
        return []
    # a short follow-up on the conversation's model ("and the Adam states for those?"): the amount is the turn itself
    elliptic = s.origin("model") == "conversation" and len(q) <= ELLIPTIC_LENGTH and bool(ELLIPTIC_START.match(q))
    out = []
    for m in row.words.finditer(q):
        if any(sp.slot in spec.BY_NAME and sp.how == "vocabulary" and sp.overlaps(m.start(), m.end()) for sp in s.spans):
            continue  # the words of a stated setting ("pure data parallel": TP 1, PP 1) say a value, they ask none
        if row.amount and not elliptic and not any(AMOUNT.search(c) for c in clause_of(q, m.start(), m.end())):
            continue
        out.append((m.start(), m.end()))
    return out


def share_spans(row: QuantityRow, s: QuestionFrame, totals: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """Where a sub-question after the one asking ``row``'s total asks one device's share with no thing named ("…优化器状态
    一共多少 GB？ZeRO-2 切到 8 卡每张多少", "total bf16 weights, and per NPU with TP8?"): that share is ``row``'s."""
    q, parts = s.question, subquestions.asked_apart(s.question)
    if len(parts) < 2:
        return []
    totals = own_spans(BY_NAME[row.share_of], s) if totals is None else totals
    shift = len(q) - len(q.lstrip())  # parts() reads the stripped question
    out = []
    for p in parts:
        lo = p.start + shift
        if not any(a < lo for a, _ in totals):
            continue  # the total is asked in this part or after it: no share of it yet
        if m := SHARE.search(q, lo, lo + len(p.text)):
            out.append((m.start(), m.end()))
    return out


def missing(row: QuantityRow, s: QuestionFrame) -> list[str]:
    """The frame values ``row`` needs that the question (and the conversation) did not give: every name of ``needs``
    missing, and the first of ``any`` when none of them is given."""
    out = [n for n in row.needs if not has(s, n)]
    if row.any and not any(has(s, n) for n in row.any):
        out.append(row.any[0])
    return out


def wanting(s: QuestionFrame) -> list[tuple[QuantityRow, list[str]]]:
    """The quantities the question asks that need no model but lack a figure to compute them ("GBS 128, 一个 epoch
    多少步?" with no sample count), with the figures missing, in the order asked: the answer asks for those figures, not
    for a model."""
    if s.model or s.params_b:
        return []
    rows = chosen({row.name: sp for row in ROWS if not row.model and (sp := spans_asked(row, s, inputs=False))}, s.question)
    # a figure of its own said ("GBS 128, 一个 epoch 多少步"): the user works it out with their figures; with none ("TRAIN_ITERS
    # 默认多少", "token 多久过期") the words ask what the notes say, not arithmetic
    # (a serving question, "服务想测 … 的吞吐", asks no training quantity: one that needs a training value, the global batch,
    # is not asked of it when the question gives none of its training values, so its figures are not asked for either)
    return [(row, need) for row in rows if (need := missing(row, s)) and any(has(s, n) for n in (*row.needs, *row.any))
            and not ("inference" in s.intents and any(_training(n) for n in need)
                     and not any(has(s, n) and _training(n) for n in (*row.needs, *row.any)))]


def _training(slot: str) -> bool:
    """A slot of training only (slots.toml task), such as the global batch."""
    return slot in spec.BY_NAME and spec.BY_NAME[slot].task == "training"


def clause_of(text: str, start: int, end: int) -> list[str]:
    """The clause holding text[start:end] (between punctuation that ends a clause), and the clause after it."""
    cuts = [0] + [m.end() for m in CLAUSE.finditer(text)] + [len(text)]
    lo = max(c for c in cuts if c <= start)
    hi = min((c for c in cuts if c >= end), default=len(text))
    # the clause after it too: the amount is often asked there ("gradients alone for X, in GB?", "只算 Adam 的两个动量，占多少")
    after = min((c for c in cuts if c > hi), default=len(text))
    return [text[lo:hi], text[hi:after]]


def asked(s: QuestionFrame, inputs: bool = True) -> list[QuantityRow]:
    """The quantities the question asks and (``inputs``) the frame can compute, in the order the question asks them;
    with none asked in its words, those an earlier turn asked that the frame now computes (a turn that changes a value)."""
    found = {row.name: sp for row in ROWS if (sp := spans_asked(row, s, inputs))}
    rows = chosen(found, s.question)
    # a total asked before its share on each device (share_of) keeps its own answer, though the share replaces it
    for i, row in reversed(list(enumerate(rows))):
        total = BY_NAME.get(row.share_of)
        if total and total not in rows and found.get(total.name) and found[total.name][0][0] < found[row.name][0][0] \
                and share_spans(row, s, found[total.name]):
            rows.insert(i, total)
    if rows or not s.quantities_carried:
        return rows
    return [BY_NAME[n] for n in s.quantities_carried if n in BY_NAME and not missing(BY_NAME[n], s)
            and not any(has(s, v) for v in BY_NAME[n].solves)]


def chosen(spans: dict[str, list[tuple[int, int]]], question: str = "") -> list[QuantityRow]:
    """The rows asked, in the order asked, from where each one's words stand: words overlapping another quantity's
    longer words ask that one ("一个 epoch 多少步", "how many steps per epoch": the steps of an epoch, not of the run),
    and a row another one ``replaces`` is dropped."""
    found = [(at, row) for row in ROWS if (at := next((a for a, b in spans.get(row.name, []) if not any(
        o != row.name and o not in row.replaces and x < b and a < y and y - x > b - a for o, sp in spans.items() for x, y in sp)),
        None)) is not None]
    where = {row.name: a for a, row in found}
    # a row another one replaces is dropped, unless a sub-question of its own asks it ("how many steps is one epoch, and
    # how many epochs does TRAIN_ITERS=1000 cover?": each asked apart, each answered in the order asked)
    dropped = {r for _, row in found for r in row.replaces
               if not (question and r in where and subquestions.apart(question, sorted((where[r], where[row.name]))))}
    return [row for _, row in sorted(found, key=lambda x: x[0]) if row.name not in dropped]


def lora_targets(question: str) -> str:
    """The linear layers a LoRA question names ("q_proj,v_proj", "attention only"), else every linear layer."""
    if ALL_LINEAR.search(question):
        return "all"
    named = list(dict.fromkeys(m.group(1).lower() + "_proj" for m in MODULE.finditer(question)))
    named += [f"{x.lower()}_proj" for m in LETTER_LIST.finditer(question) for x in re.findall(r"[qkvo]", m.group(0), re.I)
              if f"{x.lower()}_proj" not in named]
    if named:
        return ",".join(named)
    return "attention" if ATTENTION_ONLY.search(question) else "all"


def call_args(s: QuestionFrame, e: Effective, row: QuantityRow) -> dict[str, Any]:
    """derive_quantity's arguments for ``row`` from the frame (None values are left out by the router)."""
    shaped = "shape" in row.needs  # the model's shape when named, else the figures stated
    model = {"model": s.model} if s.model else ({"params_b": s.params_b} if s.params_b and row.model else {})
    method = s.method if s.method in ("lora", "qlora", "freeze") else "full"
    return {"quantity": row.term, **(model if row.model or shaped and s.model else {}), "lora_rank": s.lora_rank, "lora_targets": lora_targets(s.question),
            "method": method, "zero_stage": s.zero_stage, "tp": s.tp, "pp": s.pp, "cp": spec.value_of(s, "cp"),
            "devices": e.devices, "hardware": e.hardware, "weight_bits": s.weight_bits if s.weight_bits else None,
            "gpu_memory_utilization": s.gpu_util, "global_batch": s.global_batch, "seq_len": s.seq_len,
            "micro_batch": s.micro_batch, "grad_accum": s.grad_accum, "tokens_per_second": spec.value_of(s, "tps"),
            "hours": spec.value_of(s, "deadline_hours"),
            "device_unit": "die" if s.device_unit == "die" else None,
            "iterations": spec.value_of(s, "train_iters"), "iterations_done": spec.value_of(s, "iteration_now"),
            "iteration_seconds": iteration_seconds(s), "dp": spec.value_of(s, "dp"),
            "bytes_per_param": spec.value_of(s, "bytes_per_param"), "speedup": spec.value_of(s, "speedup"),
            "tokens": s.tokens, "samples": s.samples, "epochs": s.epochs,
            "disk_gb": s.disk_gb, "checkpoints": spec.value_of(s, "checkpoints") or checkpoints_kept(s.question), "kv_sequences": s.concurrency,
            "save_interval": spec.value_of(s, "save_interval"),
            "step_tokens": spec.value_of(s, "step_tokens"),
            "shape": s.shape, "kv_cache_dtype": s.kv_cache_dtype if s.kv_cache_dtype in ("fp8", "int8") else None,
            "recompute": recompute_said(s.question), "attention": s.attention,
            **packed_args(s),
            **(memory_parts_args(s, e) if row.name == "memory_parts" else {})}


def packed_args(s: QuestionFrame) -> dict[str, Any]:
    """Packing as said (the steps count packed sequences, a token count takes full-length sequences; off: the samples as
    they are), and the tokens per sample only with packing on: without it they change no step count and are named as
    not used, with the slot's reason (slots.toml)."""
    per, packing = spec.value_of(s, "sample_tokens"), spec.value_of(s, "packing")
    if packing is None:
        return {}
    return {"packing": bool(packing), **({"sample_tokens": per} if per and packing else {})}


# "keep 5 checkpoints", "保留 5 个 checkpoint", "5 ckpts": how many are kept on the disk
CHECKPOINTS_KEPT = re.compile(r"(\d{1,4})\s*(?:个\s*)?(?:checkpoints|ckpts|checkpoint|ckpt|检查点|存档)", re.I)


def checkpoints_kept(question: str) -> int | None:
    m = CHECKPOINTS_KEPT.search(question)
    return int(m.group(1)) if m and int(m.group(1)) > 1 else None


def memory_parts_args(s: QuestionFrame, e: Effective) -> dict[str, Any]:
    """The memory parts the question names together, in the catalog's order, and whether it asks them on one device
    (per-device words and a device count known)."""
    parts = [name for name, rx in PART_WORDS.items() if rx.search(s.question)]
    return {"parts": parts, "per_device": bool(PER_DEVICE.search(s.question) and e.devices)}


def recompute_said(question: str) -> bool | None:
    """Full recompute (gradient checkpointing) said off ("不开重计算", "no recompute") or on; None when not said."""
    if RECOMPUTE_OFF.search(question):
        return False
    return True if RECOMPUTE_ON.search(question) else None


def iteration_seconds(s: QuestionFrame) -> float | None:
    """The time per iteration said in ms (MindSpeed's log) or in seconds."""
    ms, sec = spec.value_of(s, "iteration_ms"), spec.value_of(s, "iteration_s")
    return ms / 1000 if ms else sec
