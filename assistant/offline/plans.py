"""The estimator's training plans as answer lines (plan_training within and without the user's devices,
estimate_training_memory): the plan, where it agrees or disagrees with the vendor rows, the memory need
beside the vendor practice, the slower plan on fewer devices, and why nothing fits."""

from __future__ import annotations

from ..tools.estimates import PlanResult, TrainingMemoryResult
from .asked import implausible, weights_floor
from .capacity import CapacityBlocks, TrainingFacts, open_scenario_only
from .results import Result
from .vocab import HEADROOM_ASKED
from .wording import TOOL_NOTE_ZH, TRAINER_WORDS, assumption_zh


class PlanBlocks(CapacityBlocks):
    def plan_summary(self, p: PlanResult) -> str:
        """'64 cards (8 nodes × 8), ZeRO-3, micro batch 1, gradient accumulation 8, about 49.7 GiB per device'."""
        bits = [f"**{self.devices(p.devices, p.unit)}**"
                + self.L(f" ({self.nodes(p.nodes)} × {p.per_node})", f"（{p.nodes} 个节点 × 每节点 {p.per_node}）")]
        if p.zero_stage is not None:
            bits.append(self.parallel(p.zero_stage, p.offload))
        if p.tp > 1 or p.pp > 1 or p.cp > 1:
            bits.append(self.parallel(None, None, p.tp, p.pp, p.cp, p.ep))
        bits.append(f"micro batch {p.micro_batch}")
        bits.append(self.say("plan_summary_gradient_accumulation", grad_accum=p.grad_accum))
        # the per-device figure, its likely range and the usable memory, each named; "tight" when the range crosses it
        m = p.memory
        key = "plan_memory_tight" if p.verdict == "tight" else "plan_memory"
        if open_scenario_only(m):
            # the measured range fits; only what the inputs leave open (the attention kernel, pinned blocks) makes it tight
            key = "plan_memory_pinned" if m.pinned_gib > 0 else "plan_memory_open"
        low, high = self.span(m)
        bits.append(self.say(key, total=self.point(m), low=low, high=high,
                             usable=f"{m.usable_gib:.1f}", per=self.per_device(p.unit, p.hardware),
                             open=f"{m.attention_open_gib:.1f}", eager=f"{m.open_high_gib:.1f}", pinned=f"{m.pinned_gib:.1f}",
                             attention=self.say("open_also_attention", open=f"{m.attention_open_gib:.1f}") if m.attention_open_gib else "")
                   + self.filled(m))
        if (safe := p.upper_end_fits) is not None:  # a tight plan never stands alone: the count its upper end fits on
            setting = safe.setting.replace(" x ", " × ")
            bits.append(self.say("plan_upper_end_fits", devs=self.devices(safe.devices, p.unit, p.hardware),
                                 setting=assumption_zh(setting, TOOL_NOTE_ZH) if self.zh else setting))
        return self.say("comma").join(bits)

    def plan_lines(self, call: Result[PlanResult], f: TrainingFacts) -> list[str]:
        """One plan: the line, then what the check, the vendor rows, the practice and the other settings say of it."""
        p = call.value
        if p is None:
            return [self.say("estimate_unavailable", why=self.error_text(call))]
        cap = call.arg("max_devices")
        on_yours = bool(cap and call.arg("all_devices") and p.fits and p.devices == cap)  # the plan on all the user's devices
        if cap and any(x.value is not None and x.value.fits and x.value.devices <= cap and (not on_yours or x.value.devices == cap)
                       for x in f.plans if not x.arg("max_devices")
                       and (x.arg("method"), x.arg("framework")) == (call.arg("method"), call.arg("framework"))):
            return []  # the plan without a cap (same method and framework) already is the one on the user's devices: shown once
        method, fw, devs = self.method_name(p.method), self.fw_name(p.framework, p.hardware), self.devices(cap, p.unit)
        yours = self.s.origin("devices") != "last_answer"  # the count the last answer led with is not the user's
        label = self.say("plan_label_estimate", method=method, fw=fw) if not cap else self.say(
            "plan_label_on_yours", devs=devs + (" " if self.zh and devs[-1:].isascii() else ""), method=method, fw=fw) if on_yours and yours else self.L(
            f"Estimate within your {devs}, {method}, {fw}", f"估算（在你的 {devs}{' ' if devs[-1:].isascii() else ''}以内，{method}，{fw}）") if yours else self.L(
            f"Estimate within {devs}, {method}, {fw}", f"估算（{devs}{' ' if devs[-1:].isascii() else ''}以内，{method}，{fw}）")
        how = self.estimate_label(p.assumptions, short=True)
        if not p.fits:
            return [self.no_fit_line(call, p, label, how)]
        summary = self.say("plan_above") if any(x is p for x in self.stated) else self.plan_summary(p)
        self.stated.append(p)
        # a plan on the user's own count is no count the job needs: the vendor rows are set against the fewest plan, not it
        return ([self.say("plan_line", label=label, how=how, summary=summary)] + self.on_yours(p) + self.plausibility(p)
                + ([] if on_yours else self.table_comparison(p)) + self.practice_lines(p) + self.other_settings(call, p) + self.no_row_line(call, p, f))

    def kept_batch(self, p: PlanResult) -> str | None:
        """The global batch a plan on the user's devices keeps with its gradient accumulation (the user's, the recipe row's
        or the fewest plan's), or the nearest whole accumulation when none keeps it exactly."""
        if not p.kept_global_batch or not p.kept_from:
            return None
        dp = max(1, p.devices // max(1, p.tp * p.pp * p.cp))
        figures = dict(source=self.say("kept_source_" + p.kept_from), batch=p.kept_global_batch, mb=p.micro_batch, dp=dp,
                       ga=p.grad_accum, devs=self.devices(p.devices, p.unit, p.hardware))
        if p.global_batch == p.kept_global_batch:
            # (on the row's own count the row's accumulation is kept at the user's micro batch: plan_on_all)
            mb_kept = (p.kept_from == "recipe" and p.micro_batch > 1 and p.table is not None
                       and p.table.source == "recipes_llamafactory" and p.table.cards == p.devices)
            return self.say("kept_batch_recipe_mb" if mb_kept else "kept_batch", **figures)
        return self.say("kept_batch_nearest", got=p.global_batch, **figures)

    def on_yours(self, p: PlanResult) -> list[str]:
        """Under a plan on all of the user's devices: the global batch its accumulation keeps, and the fewest that would do."""
        lines = [line] if (line := self.kept_batch(p)) else []
        if (few := p.fewest) is not None:
            setting = self.sharding_words(few.setting.replace(" x ", " × "))
            lines.append(self.say("fewest_within", devs=self.devices(few.devices, p.unit, p.hardware),
                                  total=f"{few.total_gib - few.cached_gib:.1f}",
                                  setting=assumption_zh(setting, TOOL_NOTE_ZH) if self.zh else setting,
                                  per=self.per_device(p.unit, p.hardware)))
        return lines

    def no_fit_line(self, call: Result[PlanResult], p: PlanResult, label: str, how: str) -> str:
        mem = p.memory
        figures = dict(label=label, how=how, total=f"{mem.total_gib:.1f}", high=f"{mem.high_gib:.1f}",
                       usable=f"{mem.usable_gib:.1f}", devs=self.devices(p.devices, p.unit),
                       batch=self.say("at_micro_batch", n=p.micro_batch) if p.micro_batch > 1 else "")
        if mem.fits and not mem.host_ram_fits:
            return self.say("no_fit_host_ram", ram=f"{mem.host_ram_gib:,.0f}", **figures)
        if not call.arg("max_devices"):  # no device limit: it fits at no count; say why and what fits instead
            return self.say("plan_line", label=label, how=how, summary=self.no_fit_text(p))
        step = int((self.parts.get(p.hardware) or {}).get("min_parallel_unit") or 1)
        if mem.fits and p.devices > call.arg("max_devices") and p.devices <= step:
            # "能只用 1 个 DIE 吗" on Snt9B23: the estimate plans in the part's parallel unit; memory is not what stops it
            return self.say("no_fit_unit", cap=self.devices(call.arg("max_devices"), p.unit), step=step, **figures)
        # the point fits, the upper end of its range does not (plans hold it): tight; else nothing fits
        return self.say("no_fit_tight" if mem.fits and mem.verdict == "tight" else "no_fit_capped", **figures)

    def table_comparison(self, p: PlanResult) -> list[str]:
        """The plan against each vendor row for the same job: agrees, disagrees (which is the more conservative), or
        '-' (the estimate is ours, not a tested setup)."""
        refs = [r for r in [p.table, *p.table_also] if r is not None]
        out = [self.say("estimate_beside_dash", fw=p.framework)] if any(r.supported is False for r in refs) else []
        for ref in [r for r in refs if r.cards is not None]:
            name = self.say("min_table_name" if ref.source == "min_cards" else "recipe_table_name")
            if ref.cards == p.devices:
                out.append(self.say("estimate_agrees", name=name, n=ref.cards))
                continue
            more = self.say("estimate_more_conservative" if p.devices > (ref.cards or 0) else "table_more_conservative")
            out.append(self.say("estimate_disagrees", name=name, n=p.devices, table=ref.cards, more=more))
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

    def other_settings(self, call: Result[PlanResult], p: PlanResult) -> list[str]:
        """Beside the plan: a slower setting on fewer devices (not within the user's cap), and on GPUs a job kept on
        one node with offload: the setting without offload and the nodes it takes."""
        lines, per = [], self.per_device(p.unit, p.hardware)
        if (fewer := p.fewer_devices) is not None and not call.arg("max_devices"):
            ram = self.say("host_ram_per_node", gib=f"{fewer.host_ram_gib_per_node:,.0f}") if fewer.host_ram_gib_per_node else ""
            setting = self.sharding_words(fewer.setting.replace(" x ", " × "))  # the tool writes 'TP 4 x PP 1 + full recompute'
            lines.append(self.say("fewer_devices", devs=self.devices(fewer.devices, p.unit, p.hardware), per=per, ram=ram,
                                  setting=assumption_zh(setting, TOOL_NOTE_ZH) if self.zh else setting, total=f"{fewer.total_gib:.1f}"))
        said = self.said_micro_batch_1  # one such line per answer (each plan carries it)
        if (one := p.smaller_micro_batch) is not None and p.micro_batch > 1 and (one.devices, one.setting) not in said:
            said.add((one.devices, one.setting))
            # the activations and the logits grow with the micro batch on every device, and more devices do not split
            # them: micro batch 1 (the same sequences per step through accumulation) is the remedy, not more devices
            setting = one.setting.replace(" x ", " × ")
            lines.append(self.say("smaller_micro_batch", mb=p.micro_batch, ga=one.grad_accum, gbs=one.global_batch, per=per,
                                  devs=self.devices(one.devices, p.unit, p.hardware), total=f"{one.total_gib:.1f}",
                                  setting=assumption_zh(setting, TOOL_NOTE_ZH) if self.zh else setting))
        if (fast := p.faster_devices) is not None:
            lines.append(self.say("faster_devices", devs=self.devices(fast.devices, p.unit, p.hardware), nodes=fast.nodes,
                                  setting=fast.setting, total=f"{fast.total_gib:.1f}", per=per))
        return lines

    def no_row_line(self, call: Result[PlanResult], p: PlanResult, f: TrainingFacts) -> list[str]:
        if f.recipes or p.table or p.table_also or [r for r in f.rows if r.supported] or (f.bound and call.arg("max_devices")):
            return []
        if f.bound:
            return [self.say("no_row_at_length", asked=f.asked, length=f.bound[0].seq_len)]
        return [self.say("no_row_for_job")]

    def practice_lines(self, p: PlanResult) -> list[str]:
        """The memory need and the vendor practice, each with its reason, and which one to plan with: a
        LoRA plan on Ascend is raised from the memory minimum to about half of full fine-tuning's devices."""
        need, rec = p.memory_devices, p.devices
        if not (p.practice and need and need < rec) or self.is_gpu(p.hardware):  # ModelArts practice is Ascend's
            return []
        if any(r is not None and r.supported is False for r in [p.table, *p.table_also]):
            return []  # the vendor marks the framework '-' here: there is no tested setup to match
        # with no vendor row for this job the practice is the tables' rule carried over, not a setup the vendor ran
        key = "lora_practice" if p.table is not None or p.table_also else "lora_practice_no_row"
        full = self.devices(p.practice_full, p.unit, p.hardware) if p.practice_full else rec
        return [self.say(key, need=self.devices(need, p.unit, p.hardware), rec=self.devices(rec, p.unit, p.hardware), full=full)]

    def trainer_label(self, call: Result[TrainingMemoryResult]) -> str:
        """"With 8-bit AdamW (bitsandbytes), on 2 GPUs, ZeRO-2, no offload: " when the call carries the optimizer, loss
        or trainer the user named (route.trainer_args); else nothing."""
        said = (call.arg("optimizer"), call.arg("loss"), call.arg("framework"), call.arg("precision"),
                f"{call.arg('attention')}_attention" if call.arg("attention") else None)
        named = [TRAINER_WORDS[v][self.lang] for v in said if v in TRAINER_WORDS]
        if not named:
            return ""
        n = int(call.arg("devices") or 1)
        where = self.devices(n, self.unit_of(str(call.arg("hardware"))), str(call.arg("hardware")))
        stage = call.arg("zero_stage")
        offload = self.say("trainer_label_with_offload") if call.arg("offload") else self.say("trainer_label_no_offload")
        setting = self.say("enum").join([where, *([self.stage_words(int(stage))] if stage is not None else []), offload])
        return self.L(f"With {' and '.join(named)}, on {setting}: ", f"按你说的 {'、'.join(named)}，在 {setting} 下：")

    def memory(self, call: Result[TrainingMemoryResult]) -> list[str]:
        m = call.value
        if getattr(self, "host_ram_of_plan", False) and call.arg("offload") and m is not None and m.zero_stage != self.s.zero_stage:
            return []  # estimated only for the host RAM asked, which the plan shown answered with its own setting
        if m is None:
            field = call.error.field or ""
            if call.arg(field) is not None and field in ("precision", "attention", "optimizer", "loss"):
                # a trainer setting named but refused with the rest: said not used, the estimate without it follows (route.setting_refused)
                return [self.say("setting_refused", value=call.arg(field), why=self.error_text(call)), ""]
            return [self.say("memory_unavailable", why=self.error_text(call)), ""]
        # a Megatron layout as given: its groups and the data parallel they leave ("TP 2 × PP 2, DP 2, on 8 devices")
        # and the gradient accumulation a stated global batch makes of it (GBS = MBS × DP × GA; a GBS that does not
        # split is refused before any sizing, rules.py gbs_not_divisible)
        gbs, step = self.s.global_batch, m.micro_batch * m.data_parallel
        ga = self.L(f", gradient accumulation {gbs // step} (GBS {gbs} / (MBS {m.micro_batch} × DP {m.data_parallel}))",
                    f"，梯度累积 {gbs // step}（GBS {gbs} / (MBS {m.micro_batch} × DP {m.data_parallel})）") \
            if gbs and step and gbs % step == 0 else ""
        stated = self.s.tp is not None or self.s.pp is not None  # "pure data parallel": the user's TP 1 × PP 1 said back
        split = "" if m.tp * m.pp * m.cp == 1 and not stated else self.say(
            "memory_tp_pp_data", tp=m.tp, pp=m.pp, cp=f" × CP {m.cp}" if m.cp > 1 else "", data_parallel=m.data_parallel,
            ga=ga, devices=self.devices(m.devices, m.unit, m.hardware))
        per = self.per_device(m.unit, m.hardware)  # the part's own unit: a DIE on Snt9B23, a GPU, a card
        # "how much headroom per card?": the usable memory less the estimate, beside it
        room = self.say("memory_headroom", free=f"{m.usable_gib - float(self.point(m)):.1f}", usable=f"{m.usable_gib:.1f}",
                        per=per) if HEADROOM_ASKED.search(self.s.question) else ""
        lines = [self.lead(self.trainer_label(call) + split + self.say("memory_lead", total=self.point(m), per=per,
                                                                        how=self.estimate_label(m.assumptions)) + room)]
        # every part of the headline pool, the allocator's cached blocks on their own line-item, so the parts add up to
        # it (round 8 F6: "parts 43.3 GiB vs 55.1 GiB")
        terms = [("weights", m.weights_gib), ("gradients", m.gradients_gib), ("optimizer", m.optimizer_gib),
                 ("activations", m.activations_gib), ("logits", m.logits_gib), ("overhead", m.overhead_gib)]
        terms += [("optimizer_step", m.optimizer_step_gib)] if m.optimizer_step_gib >= 0.05 else []
        terms += [("cached", m.cached_gib)] if m.cached_gib >= 0.05 else []
        lines.append("- " + self.say("comma").join(f"{self.say('term_' + k)} {v:.1f} GiB" for k, v in terms))
        low, high = self.span(m)
        lines.append(self.say("memory_range", usable=f"{m.usable_gib:.1f}", total=self.point(m), low=low, per=per,
                              high=high, word=self.say("verdict_" + m.verdict)) + self.filled(m).strip()
                     + ("" if self.setting_led or self.setting_after else self.cached_back(m) + self.open_attention(m)))  # said once, by the verdict
        if m.host_ram_gib:
            lines.append(self.say("memory_host_ram", gib=f"{m.host_ram_gib:.1f}"))
        return lines + [""]
