"""A test oracle: whether a written answer contradicts itself: the lead against the lines under it. The writer renders every line
from one set of tool results, so a contradiction is a bug in which result a line reads; this check names it. It reads
the rendered text (both languages), so tests can run it on any answer, generated questions included.

What it compares:
- the ZeRO stage and offload the lead judges against the "ZeRO stage" / "ZeRO 配置" line;
- the data parallelism a gradient-accumulation line divides by against the TP x PP of a plan line on the same devices
  (GBS = MBS x DP x GA, DP = devices / (TP x PP));
- a lead that says yes against a host-RAM line that says the offload's host RAM is short."""

from __future__ import annotations

import re

# the labelled line, and the bold lines right under it that still answer ("**Yes** ..." under a host-RAM figure)
LEAD = re.compile(r"^\*\*(?:Answer:|结论)\*\*[:：]?\s*(.*(?:\n\*\*(?!Needed|所需|Unlimited|不限卡数).*)*)", re.M)
SETTING = re.compile(r"ZeRO-(\d)(\s*\+\s*(?:CPU\s+)?offload)?", re.I)
ZERO_LINE = re.compile(r"^- \*\*(?:ZeRO stage|ZeRO 配置)\*\*[^:：]*[:：]\s*\*\*ZeRO-(\d)(\s*\+\s*offload)?\*\*", re.M)
# "Gradient accumulation 4** = global batch 128 / (micro batch 1 × data parallel 32 (= devices / (TP 8 × PP 4)))"
GA_LINE = re.compile(r"(?:Gradient accumulation|梯度累积设为) (\d+)\*\* = (?:global batch|全局 batch) (\d+) / \(micro batch (\d+) × "
                     r"(?:data parallel|数据并行) (\d+)(?:\s*[(（]= (?:devices|卡数) / \(?TP (\d+)(?: × PP (\d+))?\)?)?")
# "**32 cards** (4 nodes × 8), TP 8 × PP 4, micro batch 1, gradient accumulation 128"
PLAN = re.compile(r"\*\*(\d+) (?:cards?|GPUs?|DIE|NPUs?|devices?|张卡|张 GPU|个 DIE)\*\*[^\n]*?TP (\d+) × PP (\d+)[，,]\s*micro batch (\d+)")
YES = re.compile(r"^\*\*(?:Yes|可以|够)\*\*", re.M)
HOST_SHORT = re.compile(r"^(?:Host RAM:|主机内存：).*(?:is not enough|不够)", re.M)


def lead_of(answer: str) -> str:
    """The answer's first labelled paragraph (what it says first), or '' when it has none."""
    m = LEAD.search(answer)
    return m.group(1).strip() if m else ""


def contradictions(answer: str) -> list[str]:
    """What the answer says twice with different values; empty when it is consistent."""
    found: list[str] = []
    lead = lead_of(answer)
    judged = SETTING.search(lead) if lead else None
    zero_line = ZERO_LINE.search(answer)
    if judged and zero_line and lead.startswith("**") and not lead.startswith(("**ZeRO", "**TP")):
        said = (judged.group(1), bool(judged.group(2)))
        line = (zero_line.group(1), bool(zero_line.group(2)))
        if said != line:
            found.append(f"lead judges ZeRO-{said[0]}{' + offload' * said[1]}, the ZeRO line says ZeRO-{line[0]}{' + offload' * line[1]}")
    plans = {(int(p.group(1)), int(p.group(2)), int(p.group(3))) for p in PLAN.finditer(answer)}
    for ga in GA_LINE.finditer(answer):
        dp, tp, pp = int(ga.group(4)), int(ga.group(5) or 1), int(ga.group(6) or 1)
        devices = dp * tp * pp
        for n, ptp, ppp in sorted(plans):
            # the plan on the same devices, or (no split said on the GA line) any split the answer's plans use
            if (ptp, ppp) != (tp, pp) and (n == devices or (tp, pp) == (1, 1) and devices % (ptp * ppp) == 0):
                found.append(f"GA line divides by data parallel {dp} on {devices} devices (TP {tp} × PP {pp}); "
                             f"the plan on {n} devices is TP {ptp} × PP {ppp}")
    if lead and YES.search(lead) and HOST_SHORT.search(answer):
        found.append("lead says yes, the host-RAM line says the offload's host RAM is not enough")
    return found
