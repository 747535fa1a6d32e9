"""The next out-of-memory remedy for a job whose error persists after remedies the user already applied: the vendor's
list for the trainer (knowledge/notes/oom.md, ordered in remedies.toml), without what the turn says is done and what the
job's stated values already do (MBS 1, ZeRO-3, offload, a TP × PP that spans every card). A MindSpeed-LLM split is made
concrete on the user's devices: TP × PP raised to fill them, or pipeline stages moved into TP when it already does.
Pure functions over the frame."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .frame import QuestionFrame

REMEDIES_FILE = Path(__file__).with_name("remedies.toml")
MAX_TP = 8  # TP stays within one node's devices (HCCS / NVLink): the vendor scripts never go past 8


@dataclass(frozen=True)
class RemedySpec:
    """remedies.toml, loaded."""

    order: dict[str, tuple[str, ...]]
    done: re.Pattern
    said: dict[str, re.Pattern]
    in_frame: dict[str, str]
    checks: frozenset[str]


def load(path: Path = REMEDIES_FILE) -> RemedySpec:
    with path.open("rb") as f:
        raw = tomllib.load(f)
    return RemedySpec({fw: tuple(codes) for fw, codes in raw["order"].items()},
                      re.compile("|".join(w for lang in ("en", "zh") for w in raw["done"][lang])),
                      {code: re.compile("|".join(words)) for code, words in raw["said"].items()},
                      dict(raw["in_frame"]), frozenset(raw.get("checks", ())))


SPEC = load()


def split_after(s: QuestionFrame) -> tuple[int, int] | None:
    """The MindSpeed-LLM TP × PP that saves memory on the same devices, from the one stated: TP doubled (up to 8) or PP
    doubled while TP × PP is below the device count; when it already spans them, pipeline stages moved into TP (fewer
    micro-batches' activations held on the first stage, each layer's activations split). None: no such split."""
    n = s.effective().devices
    if not n or not (s.tp or s.pp):
        return None
    tp, pp, cp = s.tp or 1, s.pp or 1, int(s.settings.get("cp") or 1)
    cap = min(MAX_TP, s.node_size or MAX_TP)
    if tp * pp * cp < n:
        if tp * 2 <= cap and n % (tp * 2 * pp * cp) == 0:
            return tp * 2, pp
        if n % (tp * pp * 2 * cp) == 0:
            return tp, pp * 2
        return None
    if pp > 1 and tp * 2 <= cap:
        return tp * 2, pp // 2
    return None


IN_FRAME: dict[str, Callable[[QuestionFrame], bool]] = {
    "expandable_segments": lambda s: bool(s.expandable_segments),
    "micro_batch_one": lambda s: s.micro_batch == 1,
    "zero_three": lambda s: (s.zero_stage or 0) >= 3,
    "offloaded": lambda s: bool(s.offload),
    # a split stated that no other split on the same devices improves: raising TP / PP is used up
    "split_spans_devices": lambda s: bool(s.tp or s.pp) and split_after(s) is None,
}
# the slots each of those reads: a value the turn only proposes ("TP8 PP2 行吗", proposal.py) is no remedy in place
IN_FRAME_SLOTS: dict[str, frozenset[str]] = {"expandable_segments": frozenset({"expandable_segments"}), "micro_batch_one": frozenset({"micro_batch"}),
                                             "zero_three": frozenset({"zero_stage"}), "offloaded": frozenset({"offload"}),
                                             "split_spans_devices": frozenset({"tp", "pp"})}


def in_place(s: QuestionFrame, code: str) -> bool:
    """The remedy ``code`` is what the job's stated values already do, and not only as the turn's proposal."""
    check = SPEC.in_frame.get(code)
    return check is not None and not (IN_FRAME_SLOTS[check] & s.proposed) and IN_FRAME[check](s)


def reports_done(question: str) -> bool:
    """The turn says something is already done, or that the error is still there."""
    return bool(SPEC.done.search(question.lower()))


def said_done(question: str) -> set[str]:
    """The remedies a turn says are in place ("重计算也已经开了", "checked npu-smi"): named in a turn saying so."""
    q = question.lower()
    if not reports_done(q):
        return set()
    return {code for code, rx in SPEC.said.items() if rx.search(q)}


@dataclass
class NextRemedy:
    code: str  # the remedy that leads (setup_answer.REMEDY's codes)
    split: tuple[int, int] | None = None  # TP, PP proposed for "tp_pp"
    done: list[str] = field(default_factory=list)  # in place already: not suggested again
    then: list[str] = field(default_factory=list)  # the remedies after it, in order
    check: bool = False  # the leftover-process check was never said done


def framework_of(s: QuestionFrame) -> str:
    return s.framework if s.framework in SPEC.order else ("MindSpeed-LLM" if s.tp or s.pp else "LLaMA-Factory")


def next_remedy(s: QuestionFrame) -> NextRemedy | None:
    """The next remedy for a persisting out-of-memory error on the frame's job; None when it is no such follow-up or
    every remedy is in place."""
    if not (s.oom_reported and s.oom_persists):
        return None
    order = SPEC.order[framework_of(s)]
    done = [c for c in order if c in s.remedies_tried or in_place(s, c)]
    left = [c for c in order if c not in done and c not in SPEC.checks]
    if not left:
        return None
    check = any(c in SPEC.checks and c not in done for c in order)
    return NextRemedy(left[0], split_after(s) if left[0] == "tp_pp" else None, done, left[1:], check)


def split_on_more_devices(oom_split: tuple[int, int, int], devices: int, node_size: int | None) -> tuple[int, int] | None:
    """TP × PP for ``devices`` after (TP, PP) ran out of memory on fewer: the extra devices go to model parallelism (TP
    doubled up to 8, then PP), so each device holds a smaller share of the model; None when the count is no larger or
    the old split does not divide it."""
    tp, pp, before = oom_split
    if devices <= before or devices % (tp * pp):
        return None
    cap = min(MAX_TP, node_size or MAX_TP)
    while tp * pp < devices and devices % (tp * pp * 2) == 0:
        if tp * 2 <= cap:
            tp *= 2
        else:
            pp *= 2
    return (tp, pp) if (tp, pp) != oom_split[:2] else None
