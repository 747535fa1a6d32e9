"""The estimator's training plans as answer lines (plan_training within and without the user's devices,
estimate_training_memory): the plan, where it agrees or disagrees with the vendor rows, the memory need
beside the vendor practice, the slower plan on fewer devices, and why nothing fits."""

from __future__ import annotations

from ..tools.estimates import PlanResult, TrainingMemoryResult
from .asked import implausible, weights_floor
from .capacity import CapacityBlocks, TrainingFacts
from .results import Result
from .wording import TOOL_NOTE_ZH, TRAINER_WORDS, assumption_zh


class PlanBlocks(CapacityBlocks):
    def plan_summary(self, p: PlanResult) -> str:
        """'64 cards (8 nodes × 8), ZeRO-3, micro batch 1, gradient accumulation 8, about 49.7 GiB per device'."""
        bits = [f"**{self.devices(p.devices, p.unit)}**"
                + self.L(f" ({self.nodes(p.nodes)} × {p.per_node})", f"（{p.nodes} 个节点 × 每节点 {p.per_node}）")]
        if p.zero_stage is not None:
            bits.append(self.parallel(p.zero_stage, p.offload))
        if p.tp > 1 or p.pp > 1 or p.cp > 1:
            bits.append(self.parallel(None, None, p.tp, p.pp, p.cp))
        bits.append(f"micro batch {p.micro_batch}")
        bits.append(self.L(f"gradient accumulation {p.grad_accum}", f"梯度累积 {p.grad_accum}"))
        bits.append(self.L(f"about {p.memory.total_gib:.1f} GiB per device", f"每{self.per_device(p.unit, p.hardware)}约 {p.memory.total_gib:.1f} GiB"))
        if p.verdict == "tight":  # the range's upper end does not fit (Ascend plans on the vendor-tested point, or no count holds it)
            bits.append(self.L(f"tight: likely up to {p.memory.high_gib:.1f} of {p.memory.usable_gib:.1f} GiB (estimate)",
                               f"偏紧：可能高达 {p.memory.high_gib:.1f} GiB，可用 {p.memory.usable_gib:.1f} GiB（估算）"))
        return self.L(", ", "，").join(bits)

    def capped_adds_nothing(self, call: Result[PlanResult], f: TrainingFacts) -> bool:
        """True when the plan without a cap (same method and framework) fits within the user's devices."""
        cap = call.arg("max_devices") or 0
        return any(x.value is not None and x.value.fits and x.value.devices <= cap for x in f.plans
                   if not x.arg("max_devices") and x.arg("method") == call.arg("method") and x.arg("framework") == call.arg("framework"))

    def plan_label(self, call: Result[PlanResult], p: PlanResult) -> str:
        method, fw, cap = self.method_name(p.method), self.fw_name(p.framework, p.hardware), call.arg("max_devices")
        if not cap:
            return self.L(f"Estimate, {method}, {fw}", f"估算（{method}，{fw}）")
        devs = self.devices(cap, p.unit)
        return self.L(f"Estimate within your {devs}, {method}, {fw}", f"估算（在你的 {devs}{' ' if devs[-1:].isascii() else ''}以内，{method}，{fw}）")

    def plan_lines(self, call: Result[PlanResult], f: TrainingFacts) -> list[str]:
        p = call.value
        if p is None:
            return [self.L(f"- Estimate not available: {call.error.message}", f"- 无法估算：{call.error.message}")]
        if call.arg("max_devices") and self.capped_adds_nothing(call, f):
            return []  # the plan without a cap already fits the user's devices: shown once
        label, how = self.plan_label(call, p), self.estimate_label(p.assumptions, short=True)
        if not p.fits:
            return [self.no_fit_line(call, p, label, how)]
        summary = self.say("plan_above") if any(x is p for x in self.stated) else self.plan_summary(p)
        self.stated.append(p)
        out = [self.L(f"- **{label}** ({how}): {summary}.", f"- **{label}**（{how}）：{summary}。")]
        return (out + self.plausibility(p) + self.table_comparison(p) + self.practice_lines(p) + self.fewer_line(call, p) + self.faster_line(p)
                + self.no_row_line(call, p, f))

    def no_fit_line(self, call: Result[PlanResult], p: PlanResult, label: str, how: str) -> str:
        mem = p.memory
        if mem.fits and not mem.host_ram_fits:
            return self.L(f"- **{label}**: does not fit — device memory would ({mem.total_gib:.1f} of {mem.usable_gib:.1f} GiB with "
                          f"offload), but offload needs {mem.host_ram_gib:,.0f} GiB of host RAM ({how}).",
                          f"- **{label}**：放不下——开启 offload 后每卡显存够用（{mem.total_gib:.1f}/{mem.usable_gib:.1f} GiB），"
                          f"但需要 {mem.host_ram_gib:,.0f} GiB 主机内存（{how}）。")
        if not call.arg("max_devices"):  # no device limit: it fits at no count; say why and what fits instead
            return self.L(f"- **{label}** ({how}): {self.no_fit_text(p)}.", f"- **{label}**（{how}）：{self.no_fit_text(p)}。")
        batch = self.L(f" at micro batch {p.micro_batch}", f"、micro batch {p.micro_batch}") if p.micro_batch > 1 else ""
        if mem.fits and mem.verdict == "tight":  # the point fits, the upper end of its range does not: plans hold it
            return self.L(f"- **{label}**: tight — {self.devices(p.devices, p.unit)} with the most memory-saving setting{batch} "
                          f"{'needs' if p.devices == 1 else 'need'} about {mem.total_gib:.1f} GiB per device, likely up to "
                          f"{mem.high_gib:.1f}, of {mem.usable_gib:.1f} ({how}); plans are sized so the upper end fits.",
                          f"- **{label}**：偏紧——{p.devices} 张卡并用最省显存的设置{batch}，每卡约 {mem.total_gib:.1f} GiB，"
                          f"可能高达 {mem.high_gib:.1f} GiB，可用 {mem.usable_gib:.1f} GiB（{how}）；方案按范围上限放得下来定。")
        return self.L(f"- **{label}**: nothing fits — even {self.devices(p.devices, p.unit)} with the most memory-saving setting{batch} "
                      f"{'needs' if p.devices == 1 else 'need'} {mem.total_gib:.1f} GiB per device of {mem.usable_gib:.1f} ({how}).",
                      f"- **{label}**：放不下——即使 {p.devices} 张卡并用最省显存的设置{batch}，每卡仍需 {mem.total_gib:.1f} GiB，"
                      f"可用 {mem.usable_gib:.1f} GiB（{how}）。")

    def table_comparison(self, p: PlanResult) -> list[str]:
        out = self.unsupported_row_note(p)
        for ref in [r for r in [p.table, *p.table_also] if r is not None and r.cards is not None]:
            name = self.L("minimum-card table", "最小卡数表") if ref.source == "min_cards" else self.L("recipe table", "配方表")
            if ref.cards == p.devices:
                out.append(self.L(f"  The estimate agrees with the {name} ({ref.cards}).", f"  估算与{name}一致（{ref.cards}）。"))
                continue
            more = self.L("the estimate is the more conservative", "估算更保守") if p.devices > (ref.cards or 0) else \
                self.L("the table is more conservative than memory requires", "表格比显存需求更保守")
            out.append(self.L(f"  The estimate and the {name} disagree: {p.devices} vs {ref.cards}; {more}. Both are shown.",
                              f"  估算与{name}不一致：{p.devices} 对 {ref.cards}；{more}。两者都列出。"))
        return out

    def plausibility(self, p: PlanResult) -> list[str]:
        """What the one plausibility check (asked.implausible) finds in a plan, said under it."""
        lines = []
        for problem in implausible(p, (self.parts.get(p.hardware) or {}).get("memory_gb")):
            if problem == "other_part_memory":
                lines.append(self.say("check_part_memory", part=p.hardware, gb=self.parts[p.hardware]["memory_gb"]))
            elif problem == "over_usable":
                lines.append(self.say("check_over_usable", total=f"{p.memory.total_gib:.1f}", usable=f"{p.memory.usable_gib:.1f}"))
            else:
                sharded = p.shape.params_b * 1e9 * (0.5 if p.method == "qlora" else 2) / p.devices / 2**30
                lines.append(self.say("check_far_beyond", devs=self.devices(p.devices, p.unit, p.hardware), floor=weights_floor(p),
                                      params=f"{p.shape.params_b:g}", sharded=f"{sharded:.1f}", weights=f"{p.memory.weights_gib:.1f}"))
        return lines

    def unsupported_row_note(self, p: PlanResult) -> list[str]:
        """An estimate beside the table's '-' for the same framework: what each says, so the two do not read as a contradiction."""
        if not any(r is not None and r.supported is False for r in [p.table, *p.table_also]):
            return []
        fw = p.framework
        return [self.L(f"  The minimum-card table marks {fw} '-' (not supported) for this case: the vendor gives no tested setup "
                       f"for it. This estimate is ours, from device memory alone; it does not mean {fw} runs this model, so check "
                       f"that {fw} supports it first.",
                       f"  最小卡数表中 {fw} 为“-”（不支持）：厂商没有为这个组合给出验证过的配置。以上是本工具按显存做的估算，"
                       f"并不表示 {fw} 能跑这个模型，请先确认 {fw} 支持它。")]

    def fewer_line(self, call: Result[PlanResult], p: PlanResult) -> list[str]:
        fewer = p.fewer_devices
        if fewer is None or call.arg("max_devices"):
            return []
        devs = self.devices(fewer.devices, p.unit, p.hardware)
        host = fewer.host_ram_gib_per_node
        ram = self.L(f", {host:,.0f} GiB host RAM per node", f"，每节点主机内存 {host:,.0f} GiB") if host else ""
        setting = fewer.setting.replace(" x ", " × ")  # the tool writes 'TP 4 x PP 1 + full recompute'
        return [self.L(f"  Fewer devices, slower: {devs} with {setting} (about {fewer.total_gib:.1f} GiB per device{ram}).",
                       f"  更少的卡（更慢）：{devs}，{assumption_zh(setting, TOOL_NOTE_ZH)}"
                       f"（每{self.per_device(p.unit, p.hardware)}约 {fewer.total_gib:.1f} GiB{ram}）。")]

    def faster_line(self, p: PlanResult) -> list[str]:
        """On GPUs a job kept on one node with offload: the setting without offload and the nodes it takes."""
        fast = p.faster_devices
        if fast is None:
            return []
        devs = self.devices(fast.devices, p.unit, p.hardware)
        return [self.L(f"  Faster, without offload: {devs} ({fast.nodes} nodes) with {fast.setting} (about "
                       f"{fast.total_gib:.1f} GiB per device); one node with CPU offload is planned instead, as DeepSpeed "
                       "advises before adding nodes.",
                       f"  不开 offload 更快：{devs}（{fast.nodes} 个节点），{fast.setting}（每{self.per_device(p.unit, p.hardware)}约 "
                       f"{fast.total_gib:.1f} GiB）；这里按 DeepSpeed 的建议先用一个节点加 CPU offload，而不是加节点。")]

    def no_row_line(self, call: Result[PlanResult], p: PlanResult, f: TrainingFacts) -> list[str]:
        if f.recipes or p.table or p.table_also or [r for r in f.rows if r.supported] or (f.bound and call.arg("max_devices")):
            return []
        if f.bound:
            return [self.L(f"  The vendor tables have no row at {f.asked} tokens, so this is an estimate; their {f.bound[0].seq_len}-token "
                           "rows above are a lower bound for it.",
                           f"  厂商表格没有序列长度 {f.asked} 的行，以上为估算值；上面 {f.bound[0].seq_len} 的行是它的下限。")]
        return [self.L("  The vendor tables have no row for this combination, so this is an estimate, not a vendor figure.",
                       "  厂商表格中没有这个组合的数据，以上为估算值，不是厂商数据。")]

    def practice_lines(self, p: PlanResult) -> list[str]:
        """The memory need and the vendor practice, each with its reason, and which one to plan with: a
        LoRA plan on Ascend is raised from the memory minimum to about half of full fine-tuning's devices."""
        need, rec = p.memory_devices, p.devices
        if not (p.practice and need and need < rec) or self.is_gpu(p.hardware):  # ModelArts practice is Ascend's
            return []
        if any(r is not None and r.supported is False for r in [p.table, *p.table_also]):
            return []  # the vendor marks the framework '-' here: there is no tested setup to match
        need_s, rec_s = self.devices(need, p.unit, p.hardware), self.devices(rec, p.unit, p.hardware)
        return [self.L(
            f"  Why {rec_s}: device memory alone holds the job on {need_s}; ModelArts practice sizes a LoRA job at "
            f"about half of the same model's full fine-tuning devices, which gives {rec_s}. Plan with {rec_s} to match "
            f"the vendor's tested setup; {need_s} is the memory minimum (fits by the estimate, not run by the vendor).",
            f"  为什么是 {rec_s}：仅按显存 {need_s}即可放下；ModelArts 的做法是 LoRA 任务按同一模型全参微调卡数的一半左右配置，"
            f"即 {rec_s}。按 {rec_s}规划与厂商验证过的配置一致；{need_s}是显存下限（估算可放下，厂商未实测）。")]

    def trainer_label(self, call: Result[TrainingMemoryResult]) -> str:
        """"With 8-bit AdamW (bitsandbytes), on 2 GPUs, ZeRO-2, no offload: " when the call carries the optimizer, loss
        or trainer the user named (route.trainer_args); else nothing."""
        named = [TRAINER_WORDS[v][self.lang] for v in (call.arg("optimizer"), call.arg("loss"), call.arg("framework")) if v in TRAINER_WORDS]
        if not named:
            return ""
        n = int(call.arg("devices") or 1)
        where = self.devices(n, "die" if call.arg("hardware") == "snt9b23" else "card", str(call.arg("hardware")))
        stage = call.arg("zero_stage")
        offload = self.L("with offload", "开 offload") if call.arg("offload") else self.L("no offload", "不开 offload")
        setting = self.L(", ", "、").join([where, *([f"ZeRO-{stage}"] if stage is not None else []), offload])
        return self.L(f"With {' and '.join(named)}, on {setting}: ", f"按你说的 {'、'.join(named)}，在 {setting} 下：")

    def memory(self, call: Result[TrainingMemoryResult]) -> list[str]:
        m = call.value
        if m is None:
            return [self.L(f"Memory estimate not available: {call.error.message}", f"无法估算显存：{call.error.message}"), ""]
        how = self.estimate_label(m.assumptions)
        lines = [self.lead(self.trainer_label(call) + self.L(f"about **{m.total_gib:.1f} GiB per device** ({how}).",
                                                             f"每卡约 **{m.total_gib:.1f} GiB**（{how}）。"))]
        parts = [f"{self.L(en, zh)} {v:.1f} GiB" for v, en, zh in (
            (m.weights_gib, "weights", "权重"), (m.gradients_gib, "gradients", "梯度"), (m.optimizer_gib, "optimizer states", "优化器状态"),
            (m.activations_gib, "activations", "激活"), (m.logits_gib, "logits/loss", "logits/loss"), (m.overhead_gib, "framework overhead", "框架开销"))]
        lines.append("- " + self.L(", ", "，").join(parts))
        word = {"fits": ("fits", "放得下"), "tight": ("tight", "偏紧"), "does_not_fit": ("does not fit", "放不下")}[m.verdict]
        lines.append(self.L(f"- Usable per device: {m.usable_gib:.1f} GiB; about {m.total_gib:.1f} GiB, likely {m.low_gib:.1f}-"
                            f"{m.high_gib:.1f} GiB (estimate: the allocator's pool, range from measured errors) → {word[0]}.",
                            f"- 每卡可用 {m.usable_gib:.1f} GiB；约 {m.total_gib:.1f} GiB，可能在 {m.low_gib:.1f}-{m.high_gib:.1f} GiB"
                            f"（估算：分配器占用的显存，范围来自实测误差）→ {word[1]}。"))
        if m.host_ram_gib:
            lines.append(self.L(f"- Host RAM for offload: {m.host_ram_gib:.1f} GiB per node.", f"- offload 所需主机内存：每节点 {m.host_ram_gib:.1f} GiB。"))
        return lines + [""]
