"""The batch identity the vendor pages state (MindSpeed-LLM's GBS = MBS x DP x GA; LLaMA-Factory's global batch =
per_device_train_batch_size x devices x gradient_accumulation_steps), solved for the one figure a question asks when
it gives the other three: "16 cards, micro batch 2, global batch 256: what GA?". The figures are the user's own, so
no tool is involved; the rule is stated beside the result."""

from __future__ import annotations

from dataclasses import dataclass

from . import spec
from .frame import QuestionFrame
from .vocab import INTENTS
from .wording import W


@dataclass(frozen=True)
class BatchSum:
    asked: str  # "grad_accum" or "global_batch"
    value: int | None  # None: the figures do not divide into a whole accumulation
    data_parallel: int
    micro_batch: int
    grad_accum: int | None
    global_batch: int | None
    tp: int
    pp: int = 1
    cp: int = 1  # context parallel: its ranks hold one replica's sequence, so they are no data parallel either
    micro_assumed: bool = False  # no micro batch said: 1, the per_device_train_batch_size of every vendor recipe
    from_plan: bool = False  # micro batch and accumulation taken from the estimate's plan, not the user's figures
    kept_from_answer: bool = False  # the global batch kept is the one of the plan an earlier answer stated
    from_recipe: bool = False  # the accumulation (and, none said, the devices) is the LLaMA-Factory recipe row's


def solve(s: QuestionFrame, layout: tuple[int, int] | None = None, assume_mbs: bool = False,
          split: tuple[int, int] | None = None) -> BatchSum | None:
    """The asked figure from the other three, data parallelism being the devices over TP x PP: the split the user said,
    else ``layout``, the split of the plan the answer states (so the GA line and the plan line share one split);
    ``split`` another scenario's TP x PP in place of the one said (``scenarios``)."""
    said = split or ((s.tp or 1, s.pp or 1) if s.tp or s.pp else None)
    if not (said or layout) and s.framework == "MindSpeed-LLM":
        return None  # its data parallel is the devices over a TP x PP not yet chosen: the plan's accumulation answers
    tp, pp = said or layout or (1, 1)
    cp = int(spec.value_of(s, "cp") or 1)
    devices = s.devices or (s.nodes * (s.node_size or 8) if s.nodes else None)
    # the figure asked ("what GA for global batch 128 on 16 cards?") with no micro batch said: the vendor recipes' 1,
    # said as assumed (every LLaMA-Factory recipe on ModelArts sets per_device_train_batch_size 1)
    asks_ga = bool(s.global_batch and not s.grad_accum and "ga" in s.intents)
    asks_gbs = bool(s.grad_accum and not s.global_batch)
    # (``assume_mbs``: the writer's own lead asks it; the router and a MindSpeed-LLM plan's accumulation do not)
    mbs = s.micro_batch or (1 if assume_mbs and (asks_ga or asks_gbs and "gbs" in s.intents) else None)
    if not devices or not mbs or devices % (tp * pp * cp):
        return None
    dp = devices // (tp * pp * cp)
    assumed = not s.micro_batch
    if asks_ga and s.global_batch:
        per_step = mbs * dp
        value = s.global_batch // per_step if s.global_batch % per_step == 0 else None
        return BatchSum("grad_accum", value, dp, mbs, value, s.global_batch, tp, pp, cp, assumed,
                        kept_from_answer=s.origin("global_batch") == "last_answer")
    if asks_gbs and s.grad_accum:
        return BatchSum("global_batch", mbs * dp * s.grad_accum, dp, mbs, s.grad_accum, None, tp, pp, cp, assumed)
    return None


def pure_dp_at(s: QuestionFrame) -> int | None:
    """Where the question says a data-parallel-only layout in words (the tp slot's words that set TP 1 and PP 1,
    slots.toml: "plain DP", "纯数据并行"), else None."""
    text = s.question.lower()
    for rx, value, also in spec.BY_NAME["tp"].words:
        if value == 1 and also.get("pp") == 1 and (m := rx.search(text)):
            return m.start()
    return None


def scenarios(s: QuestionFrame) -> list[BatchSum]:
    """Each layout the question asks the figure for, in the order asked: "global batch with pure DP? and with TP 8, PP 2?"
    is two jobs on the same devices, the data-parallel-only one (TP 1, PP 1) and the split said; one question of one
    layout, its one sum."""
    b = solve(s)
    if b is None:
        return []
    at = pure_dp_at(s)
    if at is None or (b.tp == 1 and b.pp == 1) or (base := solve(s, split=(1, 1))) is None:
        return [b]
    split_at = min((m.start() for name in ("tp", "pp") if (m := spec.BY_NAME[name].pattern.search(s.question.lower()))),
                   default=len(s.question))
    return [base, b] if at < split_at else [b, base]


def render_all(sums: list[BatchSum], lang: str, framework: str | None = None) -> str:
    """One sum's answer; several layouts' each on its line, labelled with its layout (phrases.toml batch_layout)."""
    if len(sums) == 1:
        return render(sums[0], lang, framework)
    lines = []
    for b in sums:
        parts = [f"TP {b.tp}"] * (b.tp > 1) + [f"PP {b.pp}"] * (b.pp > 1) + [f"CP {b.cp}"] * (b.cp > 1)
        layout = ("、" if lang == "zh" else ", ").join(parts) or W["batch_layout_dp"][lang]
        lines.append(f"- {W['batch_layout'][lang].format(layout=layout)}{render(b, lang, framework)}")
    return "\n".join(lines)


def asked_at(s: QuestionFrame, b: BatchSum | None = None) -> int | None:
    """Where the question asks the figure ``solve`` gives (the offset of its words: "GA", "global batch"), so a
    question asking it beside other quantities ("DP 和 GA 分别是多少") has each answered in the order asked; None when
    the identity is not solved or its figure is not asked in words."""
    b = b or solve(s)
    if b is None:
        return None
    m = INTENTS["ga" if b.asked == "grad_accum" else "gbs"].search(s.question.lower())
    return m.start() if m else None


def of_plan(s: QuestionFrame, micro_batch: int, grad_accum: int, devices: int, layout: tuple[int, int]) -> BatchSum | None:
    """"global batch 该设多少" of a job the conversation sized (no batch figures of the user's): the plan's micro batch and
    accumulation on ``devices`` (the user's, or the plan's), data parallelism over the plan's split; a figure the user
    gave replaces the plan's."""
    tp, pp = s.tp or layout[0], s.pp or layout[1]  # a value the user stated, the plan's for the other
    if not devices or devices % (tp * pp):
        return None
    mbs, ga, dp = s.micro_batch or micro_batch, s.grad_accum or grad_accum, devices // (tp * pp)
    return BatchSum("global_batch", mbs * dp * ga, dp, mbs, ga, None, tp, pp, from_plan=True)


def of_recipe(s: QuestionFrame, grad_accum: int, devices: int) -> BatchSum:
    """"global batch 多少" beside a LLaMA-Factory recipe row (seed 000: cards and gradient_accumulation_steps, at
    per_device_train_batch_size 1): the row's accumulation on ``devices`` (the user's, else the row's), every device data
    parallel (LLaMA-Factory has no TP / PP); a micro batch or accumulation the user gave replaces the row's."""
    mbs, ga = s.micro_batch or 1, s.grad_accum or grad_accum
    return BatchSum("global_batch", mbs * devices * ga, devices, mbs, ga, None, 1, 1, micro_assumed=not s.micro_batch,
                    from_recipe=not s.grad_accum)


def where_set(b: BatchSum, lang: str, framework: str | None) -> str:
    """Where the figures are set, in the keys of the framework in context (phrases.toml batch_set_*): a TP/PP layout is
    MindSpeed-LLM's; none named, LLaMA-Factory's (the default framework)."""
    framework = framework or ("MindSpeed-LLM" if b.tp > 1 or b.pp > 1 or b.cp > 1 else "LLaMA-Factory")
    key = f"batch_set_{framework}" if f"batch_set_{framework}" in W else "batch_set_LLaMA-Factory"
    return W[key][lang].format(mbs=b.micro_batch, ga=b.value if b.asked == "grad_accum" else b.grad_accum,
                               gbs=b.global_batch if b.asked == "grad_accum" else b.value)


def render(b: BatchSum, lang: str, framework: str | None = None) -> str:
    """The answer first, then the identity with the user's figures in it; where to set them in ``framework``'s keys."""
    parts = [f"TP {b.tp}"] * (b.tp > 1) + [f"PP {b.pp}"] * (b.pp > 1) + [f"CP {b.cp}"] * (b.cp > 1)
    split = f"({' × '.join(parts)})" if len(parts) > 1 else "".join(parts)
    dp = f"{b.data_parallel}" + (f" (= devices / {split})" if split else "")
    dp_zh = f"{b.data_parallel}" + (f"（= 卡数 / {split}）" if split else "")
    # a micro batch not said is the vendor recipes' 1, and the answer says so
    mb = f"{b.micro_batch}" + (" (not said: 1, as in every ModelArts LLaMA-Factory recipe)" if b.micro_assumed else "")
    mb_zh = f"{b.micro_batch}" + ("（未给出，按 ModelArts LLaMA-Factory 配方一律取 1）" if b.micro_assumed else "")
    if b.asked == "global_batch":
        plan = (" Micro batch and accumulation are the estimate's plan below; the global batch scales with data parallel, so "
                "keep it by changing gradient_accumulation_steps when the device count changes.") if b.from_plan else ""
        plan_zh = ("micro batch 与梯度累积取自下面估算的方案；全局 batch 随数据并行变化，卡数变化时可改 gradient_accumulation_steps "
                   "保持它不变。") if b.from_plan else ""
        if b.from_recipe:
            plan, plan_zh = " " + W["batch_from_recipe"]["en"], W["batch_from_recipe"]["zh"]
        return (f"**Global batch {b.value}** = micro batch {mb} × data parallel {dp} × gradient accumulation "
                f"{b.grad_accum} (GBS = MBS × DP × GA, the ModelArts MindSpeed-LLM pages' identity; LLaMA-Factory's is the "
                "same with per_device_train_batch_size)." + plan) if lang == "en" else (
                f"**全局 batch 为 {b.value}** = micro batch {mb_zh} × 数据并行 {dp_zh} × 梯度累积 {b.grad_accum}"
                "（GBS = MBS × DP × GA，ModelArts MindSpeed-LLM 页面给出的关系；LLaMA-Factory 同理，用 per_device_train_batch_size）。" + plan_zh)
    per_step = b.micro_batch * b.data_parallel
    gbs = f"{b.global_batch}" + (" (the plan above: its micro batch × devices × accumulation)" if b.kept_from_answer else "")
    gbs_zh = f"{b.global_batch}" + ("（前面方案的全局 batch：micro batch × 卡数 × 梯度累积）" if b.kept_from_answer else "")
    if b.value is None:
        target = b.global_batch or per_step
        nearest = per_step * max(1, target // per_step)
        return (f"**No whole accumulation gives a global batch of {b.global_batch}**: each step takes micro batch "
                f"{b.micro_batch} × data parallel {dp} = {per_step} sequences, and {b.global_batch} is not a multiple of "
                f"{per_step} (GBS = MBS × DP × GA). Choose a global batch that is, e.g. {nearest}."
                ) if lang == "en" else (
                f"**没有整数的梯度累积能得到全局 batch {b.global_batch}**：每步处理 micro batch {mb_zh} × 数据并行 {dp_zh} = "
                f"{per_step} 条序列，而 {b.global_batch} 不是 {per_step} 的整数倍（GBS = MBS × DP × GA）。"
                f"请选它的整数倍，例如 {nearest}。")
    # with a TP / PP split and no framework in context the figure is MindSpeed-LLM's (where_set); LLaMA-Factory (data
    # parallel on every device) would need another, said beside it
    lf = (f"; LLaMA-Factory has no TP / PP: there DP is every device and GA = {b.global_batch} / (MBS × devices)"
          if split and not framework else "")
    lf_zh = (f"；LLaMA-Factory 没有 TP / PP：其 DP 为全部卡数，GA = {b.global_batch} / (MBS × 卡数)"
             if split and not framework else "")
    return (f"**Gradient accumulation {b.value}** = global batch {gbs} / (micro batch {mb} × data "
            f"parallel {dp}) (GBS = MBS × DP × GA, the ModelArts MindSpeed-LLM pages' identity; "
            f"{where_set(b, lang, framework)}{lf}).") if lang == "en" else (
            f"**梯度累积设为 {b.value}** = 全局 batch {gbs_zh} / (micro batch {mb_zh} × 数据并行 {dp_zh})"
            f"（GBS = MBS × DP × GA，ModelArts MindSpeed-LLM 页面给出的关系；{where_set(b, lang, framework)}{lf_zh}）。")
