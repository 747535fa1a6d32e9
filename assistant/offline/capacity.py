""""Can I do it with the devices I have?": a direct yes or no, first, from the vendor tables'
minimum counts and the estimator's plan within the user's count (plan_training with max_devices)
against the plan without a cap (what the job needs).

A table row at a shorter sequence than the one asked is a lower bound: a longer sequence never needs
fewer devices, so when that row already needs more than the user has, the answer is no whatever the
estimate finds (the estimate's slower setting is then offered as an untested option)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from ..tools.estimate_models import MemoryBreakdown
from ..tools.estimates import FewerDevices, PlanResult, TrainingMemoryResult
from ..tools.tables import MinCardsResult, MinCardsRow, TrainingRecipeResult
from .asked import (
    PLAUSIBILITY,
    NamedSetting,
    asks_host_ram,
    asks_offload_needed,
    asks_recipe_match,
    implausible,
    judges_grad_accum,
    judges_host_ram,
    named_setting,
    offload_asked_first,
    stages_offered,
)
from .conversation import asks_count_of_kept_devices, asks_other_than_verdict, solved_slot
from .next_remedy import split_on_more_devices
from .results import Result
from .route import table_strategy
from .vocab import HEADROOM_ASKED
from .wording import MIN_LABEL, RECIPE_LABEL, TOOL_NOTE_ZH, Writer, assumption_zh

FAR_ABOVE = 8  # a count this many times the need (and above one node) is judged as far more than the job needs
SAID_ALREADY = "\0"  # a rule that applies with nothing left to say (its verdict was said earlier in the answer)


class Need(NamedTuple):
    """One vendor row's device count: who (framework or table), how many, the unit, the row's length."""

    who: str
    devices: int
    unit: str
    seq_len: int
    framework: str = ""
    table: str = ""  # "recipe" (the LLaMA-Factory recipe table) or "min" (the minimum-card table)


@dataclass
class TrainingFacts:
    """What the training tools found, read once: the table rows at the length asked (or the next one
    above it), the rows at the nearest shorter length when none reach it (a lower bound), the plans."""

    asked: int
    recipes: list[TrainingRecipeResult]
    rows: list[MinCardsRow]
    bound: list[MinCardsRow] = field(default_factory=list)
    recipe_bound: list[TrainingRecipeResult] = field(default_factory=list)
    min_call: Result[MinCardsResult] | None = None
    plans: list[Result[PlanResult]] = field(default_factory=list)

    @property
    def bound_len(self) -> int | None:
        lens = [r.seq_len for r in self.bound] + [r.cutoff_len for x in self.recipe_bound for r in x.rows]
        return max(lens) if lens else None


def shorter_rows(rows: list[MinCardsRow], asked: int) -> list[MinCardsRow]:
    """The rows at the longest listed length below ``asked``: a lower bound for ``asked``."""
    below = [r.seq_len for r in rows if r.seq_len < asked]
    return [r for r in rows if below and r.seq_len == max(below)]


def open_scenario_only(m: MemoryBreakdown) -> bool:
    """Whether a "tight" comes only from what the inputs leave open (the attention kernel, ZeRO-3's gathered blocks
    pinned in the pool): the measured range, less the cached blocks the allocator gives back, fits; the scenario where
    attention falls back or the blocks stay pinned does not."""
    return m.verdict == "tight" and (m.attention_open_gib > 0 or m.pinned_gib > 0) and m.high_gib - m.cached_gib <= m.usable_gib


class CapacityBlocks(Writer):
    # The one verdict of an answer is derived once: the vendor table's no leads (the named setting's estimate then
    # follows it, named as the estimate); else the estimator's verdict on the setting the user names leads and the
    # table's counts follow as counts. ``setting_led``/``setting_after`` record which.
    setting_led = False
    setting_after: Result[TrainingMemoryResult] | None = None
    host_ram_of_plan = False  # the host RAM asked was the plan's own: the offload estimate beside it is not shown

    def training_facts(self) -> TrainingFacts:
        recipe_calls = self.r.of("training_recipe", TrainingRecipeResult, ok=None)
        own = self.s.model
        mins = [m for m in self.r.of("min_cards", MinCardsResult) if m.arg("model") in (None, own)]  # not a twin's rows
        f = TrainingFacts(self.e.seq_len, [r.value for r in recipe_calls if r.value and r.value.found], [],
                          recipe_bound=[r.value for r in recipe_calls if r.value and not r.value.found],
                          plans=self.r.of("plan_training", PlanResult, ok=None))
        with_rows = [m for m in mins if m.value and m.value.rows]
        every_call = [m for m in self.r.of("min_cards", MinCardsResult, ok=None) if m.arg("model") in (None, own)]
        f.min_call = with_rows[0] if with_rows else (every_call[-1] if every_call else None)
        answered = mins[0].value if mins else None
        if answered and answered.rows:
            f.rows = answered.rows
        elif with_rows and with_rows[0].value:  # no row at the length asked: every listed length was fetched
            every = with_rows[0].value.rows
            f.bound = [] if "seq_len" in self.e.assumed else shorter_rows(every, f.asked)
            f.rows = every if "seq_len" in self.e.assumed else []
        return f

    def wanted_rows(self, rows: list[MinCardsRow]) -> list[MinCardsRow]:
        """The minimum-card rows of the framework asked (all frameworks when none was named)."""
        fw = self.s.framework
        return [r for r in rows if not fw or r.framework == fw]

    def setting(self, p: PlanResult, within: int | None = None) -> str:
        """'LLaMA-Factory ZeRO-3 + offload, about 29.4 GiB per GPU' from a plan_training result; with
        ``within`` (the user's count) and a plan that uses fewer, also how many it uses ('on 1 card')."""
        par = f"{self.fw_name(p.framework, p.hardware)} {self.parallel(p.zero_stage, p.offload, p.tp, p.pp, p.cp, p.ep)}"
        if within and p.devices < within:
            par += self.say("setting_on", devs=self.devices(p.devices, p.unit, p.hardware))
        per = self.per_device(p.unit, p.hardware)
        # the figure the plan's own line shows (without cached blocks that only fill the free room), so the two agree
        return par + self.say("setting_about_gib_per", total_gib=float(self.point(p.memory)), per=per)

    def have(self) -> str:
        """The user's count as they said it, with DIE beside cards on Snt9B23 ('16 cards (32 DIE)')."""
        have, s = self.e.devices, self.s
        if self.unit_of(None) == "die":
            if s.devices and s.device_unit == "card":
                return self.say("have_cards_die", devices=s.devices, have=have)
            return self.devices(have, "DIE")
        return self.devices(have)

    def yours(self) -> str:
        yours = self.say("your", devs=self.have())
        return yours + " " if self.zh and yours[-1].isascii() and yours[-1].isalnum() else yours  # "你的 8 DIE 可以放下"

    def table_needs(self, strategy: str | None, recipes: list[TrainingRecipeResult], rows: list[MinCardsRow]) -> list[Need]:
        """Every vendor row of this strategy: minimum-card rows of the asked framework, recipe rows."""
        unit = "DIE" if self.e.facts.unit == "die" else "card"  # the recipe's N*Ascend is N DIE on a part counted in DIE
        recipe = [Need(self.say("table_needs_llama_factory_recipe"), r.total_cards, unit, r.seq_len_used or r.seq_len,
                       "LLaMA-Factory", "recipe")
                  for r in recipes if r.total_cards and (strategy is None or r.strategy == strategy)]
        # beside a recipe row, say which table a LLaMA-Factory minimum-card row comes from
        table = self.say("table_needs_minimum_card_table") if recipe else ""
        # a DeepSpeed setting said with no framework ("zero-2 offload, 8 张 910B 能跑吗") is a LLaMA-Factory job in these
        # tables: its verdict weighs LLaMA-Factory's rows, not MindSpeed-LLM's smaller count
        deepspeed = not self.s.framework and (self.s.zero_stage is not None or bool(self.s.offload))
        needs = [Need(r.framework + (table if r.framework == "LLaMA-Factory" else ""), r.cards, r.unit, r.seq_len, r.framework, "min")
                 for r in self.wanted_rows(rows) if r.supported and r.cards and (strategy is None or r.strategy == strategy)
                 and not (deepspeed and r.framework != "LLaMA-Factory")]
        # the recipe rows count Snt9B cards in Snt9B nodes: on a part counted in DIE whose own minimum-card row for
        # LLaMA-Factory is listed, that row decides the count (a "2 x 8 = 16" recipe is no yes for one 16-DIE node)
        if unit == "DIE" and any(n.framework == "LLaMA-Factory" and n.unit == "DIE" for n in needs):
            return needs
        return needs + recipe

    def verdict(self, f: TrainingFacts) -> str | None:
        """One sentence per method: yes/no for the user's device count, said before any detail."""
        if not self.e.devices or self.s.origin("devices") == "last_answer":  # the last answer's count is not the user's
            return None
        if asks_other_than_verdict(self.s):  # "全局 batch 多少" after "够吗": the yes/no was the last answer's
            return None
        if asks_count_of_kept_devices(self.s):  # "表里最少要几张" on the conversation's cards: the count leads
            return None
        methods = [self.s.method] if self.s.method else self.e.strategies
        parts = [v for m in methods if (v := self.method_verdict(m, f, len(methods) > 1))]
        return (" " if not self.zh else "").join(parts) or None

    def method_verdict(self, method: str | None, f: TrainingFacts, many: bool) -> str | None:
        """The first rule that applies, in order: the table at the length asked; a shorter row that
        already needs more (a lower bound); the estimate within the user's devices."""
        v = Verdict(self, method, f)
        rules: list[Callable[[Verdict], str | None]] = [
            self.yes_by_table, self.no_by_table, self.no_by_bound, self.yes_by_estimate, self.no_by_estimate,
        ] if not self.setting_led else [self.yes_by_table]
        rule, line = next(((rule, text) for rule in rules if (text := rule(v))), (None, None))
        if line is None or line == SAID_ALREADY:
            return None
        if rule in (self.yes_by_table, self.yes_by_estimate) and (far := self.far_above_need(v)):
            # a yes on a count far above the need is no "sensible": asked so, that judgement leads; else it follows
            # (the yes that follows the judgement is said as the fit alone, so the two do not read as opposite answers)
            line = f"{far} {self.say('far_fit_alone')}{line}" if PLAUSIBILITY.search(self.s.question) else f"{line} {far}"
        return (f"{self.method_name(method)}{self.say('colon')}" if many else "") + line

    def far_above_need(self, v: Verdict) -> str | None:
        """The user's count against the fewest devices the job needs (the vendor rows', else the estimate's plan): at
        FAR_ABOVE times that and more than one node, every extra device is one more data-parallel replica, so the global
        batch is at least the count (micro batch 1, no accumulation: GBS = MBS × DP × GA) and the all-reduce spans them."""
        need = [(n.devices, n.who) for n in v.needs if n.devices] + [
            # (a plan the estimate calls tight is no need met: the count that fits even at the range's upper end is)
            (p.devices, self.say("far_src_estimate")) for p in (v.free, v.fitting, v.upper_end_plan) if p is not None and p.verdict == "fits"]
        if not need or not v.have:
            return None
        n, who = min(need, key=lambda x: x[0])
        node = int((self.parts.get(self.e.part or "") or {}).get("devices_per_node") or 8)
        if v.have < FAR_ABOVE * n or v.have <= node:
            return None
        return self.say("far_above_need_lead" if PLAUSIBILITY.search(self.s.question) else "far_above_need",
                        have=self.have(), n=self.devices(n), who=who, ratio=v.have // n, gbs=v.have)

    # -- the rules, each None when it does not apply -------------------------------------------
    def need_list(self, needs: list[Need], key: str = "need_item") -> str:
        return self.say("comma").join(self.say(key, who=n.who, n=self.devices(n.devices, n.unit)) for n in needs)

    def yes_by_table(self, v: Verdict) -> str | None:
        ok = [n for n in v.needs if n.devices <= v.have]
        if not ok:
            return None
        short = [n for n in v.needs if n.devices > v.have]
        # (QLoRA: the LoRA rows are only upper bounds, so a split between them is no verdict of its own)
        if not self.setting_led and not v.upper and (split := self.tables_disagree(v, ok, short)):
            return split
        # under the verdict on the setting the user named, the counts their devices meet (no yes of its own)
        line = self.say("table_counts", yours=self.yours(), ok=self.need_list(ok)) if self.setting_led else self.say(
            "yes_by_table", have=self.have(), yours=self.yours(), cover="covers" if v.have == 1 else "cover", ok=self.need_list(ok))
        if short:
            line += self.say("not_for", short=self.need_list(short, "short_item"))
        named = named_setting(self.s) if self.setting_led else None
        other = [r for r in v.recipes if named and r.zero_stage is not None and r.total_cards and r.total_cards <= v.have
                 and (r.zero_stage, bool(r.offload)) != (named.zero_stage, named.offload)]
        if named and other and lighter_recipe(named, other[0]):  # the lead said theirs is more than the job needs
            line += self.say("recipe_setting_lighter", recipe=self.parallel(other[0].zero_stage, other[0].offload),
                             n=self.devices(other[0].total_cards, "DIE" if self.e.facts.unit == "die" else "card"))
        elif named and other:  # the recipe's own setting is not the one named: the count alone does not say theirs runs
            line += self.say("recipe_setting_differs", recipe=self.parallel(other[0].zero_stage, other[0].offload),
                             named=self.parallel(named.zero_stage, named.offload))
        elif v.capped and not v.fitting and not self.setting_led and not self.below_unit_only(v):
            line += self.say("table_yes_estimate_no", yours=self.yours())  # the estimate on their devices says otherwise
        return line + self.say("period")

    def below_unit_only(self, v: Verdict) -> bool:
        """Every plan within the user's devices fits in memory on the part's smallest parallel unit, which is more than
        they have (1 DIE on Snt9B23): the estimate's unit, not memory, is what it lacks (plans.py says so per plan)."""
        step = lambda p: int((self.parts.get(p.hardware) or {}).get("min_parallel_unit") or 1)  # noqa: E731
        return bool(v.capped) and all(p.memory.fits and p.devices <= step(p) and p.devices > (self.e.devices or 0) for p in v.capped)

    def tables_disagree(self, v: Verdict, ok: list[Need], short: list[Need]) -> str | None:
        """The two vendor tables split on one framework at the user's count (the recipe table's row is met, the
        minimum-card table's is not, or the other way round): no bare yes; the lead names which table says what, dated,
        then the other frameworks' rows and what the estimate finds on the user's devices."""
        pair = next(((a, b) for a in ok for b in short if a.framework and a.framework == b.framework and a.table != b.table), None)
        if pair is None:
            return None
        met, unmet = pair
        label = {"recipe": RECIPE_LABEL[self.lang], "min": MIN_LABEL[self.lang]}
        line = self.say("tables_disagree", fw=met.framework, have=self.have(), met_table=label[met.table],
                        met_n=self.devices(met.devices, met.unit), unmet_table=label[unmet.table],
                        unmet_n=self.devices(unmet.devices, unmet.unit))
        others_ok = [n for n in ok if n.framework != met.framework]
        others_short = [n for n in short if n.framework != met.framework]
        if others_ok:
            line += self.say("tables_disagree_others_met", ok=self.need_list(others_ok))
        if others_short:
            line += self.say("not_for", short=self.need_list(others_short, "short_item"))
        if (safe := v.upper_end_plan) is not None and v.fitting is not None:  # the plan within their devices that fits at the upper end
            setting = f"{self.fw_name(v.fitting.framework, v.fitting.hardware)} {self.parallel(safe.zero_stage, safe.offload, safe.tp, safe.pp, safe.cp)}"
            if safe.devices < v.have:
                setting += self.say("setting_on", devs=self.devices(safe.devices, v.fitting.unit, v.fitting.hardware))
            line += self.say("tables_disagree_estimate", yours=self.yours(), setting=setting, word=self.say("verdict_fits"))
        elif v.fitting is not None:  # the memory estimate on their devices, named as the estimate
            m = v.fitting.memory
            word = self.say("verdict_" + v.fitting.verdict) if not open_scenario_only(m) else self.say(
                "verdict_fits_if_released" if m.pinned_gib > 0 else "verdict_fits_if_fused")
            line += self.say("tables_disagree_estimate", yours=self.yours(), setting=self.setting(v.fitting, v.have), word=word)
        elif v.capped:
            line += self.say("table_yes_estimate_no", yours=self.yours())
        return line + self.say("period")

    def no_by_table(self, v: Verdict) -> str | None:
        if not v.needs or v.upper:  # QLoRA: the LoRA rows are an upper bound, so fewer devices may still do
            return None
        least = min(v.needs, key=lambda n: n.devices)
        n = self.devices(least.devices, least.unit)
        return self.table_no(self.say("no_by_table", n=n, who=least.who, have=self.have()), self.below_minimum(v, n))

    def table_no(self, head: str, estimate: str) -> str | None:
        """The vendor tables' no, said once per answer: after the time block said the devices are below the minimum,
        only what the estimate finds on them is left to say."""
        if self.below_minimum_said:  # (SAID_ALREADY stops the rules: no estimate's yes after the tables' no)
            return estimate.strip() or SAID_ALREADY
        self.below_minimum_said = True
        return head + estimate

    def no_by_bound(self, v: Verdict) -> str | None:
        """No row at the length asked, and the nearest shorter row already needs more than the user has."""
        if v.needs or not v.bounds or any(n.devices <= v.have for n in v.bounds):
            return None
        listed = self.say("comma").join(f"{n.who} {self.devices(n.devices, n.unit)}" for n in sorted(v.bounds, key=lambda n: n.devices))
        least = min(v.bounds, key=lambda n: n.devices)
        return self.table_no(self.say("no_by_bound", asked=v.asked, length=v.bounds[0].seq_len, listed=listed, have=self.have()),
                             self.below_minimum(v, self.devices(least.devices, least.unit)))

    def below_minimum(self, v: Verdict, least: str) -> str:
        """What the estimate says on the user's devices, after a no from the vendor rows: the setting the user named
        when there is one (its estimate disagrees or agrees, said as such), else the plan within their devices."""
        if (call := self.setting_after) is not None and call.value is not None:
            m = call.value
            return self.say("setting_below_minimum", setting=self.parallel(m.zero_stage, m.offload), yours=self.yours(),
                            word=self.say("verdict_" + m.verdict), total=self.point(m), high=self.span(m)[1],
                            usable=f"{m.usable_gib:.1f}", per=self.per_device(m.unit, m.hardware), n=least) + self.host_ram_clause(m)
        if v.fitting:
            return self.say("estimate_below_minimum", yours=self.yours(), setting=self.setting(v.fitting, v.have))
        if v.capped and self.e.facts.unit == "die" and (p := min(v.capped, key=lambda p: p.devices)).devices > v.have \
                and p.devices <= self.e.facts.dies_per_card and p.verdict != "does_not_fit":
            # the tool's smallest count is above the user's (Snt9B23 runs in steps of 2 DIE): no memory verdict on theirs
            return self.say("estimate_below_unit", yours=self.yours(), n=self.devices(p.devices, p.unit, p.hardware),
                            part=self.hw_name(p.hardware))
        return self.say("estimate_none_fits_either", yours=self.yours()) if v.capped else ""

    def yes_by_estimate(self, v: Verdict) -> str | None:
        if not v.fitting:
            return None
        free, fit = v.free, v.fitting
        safe = v.upper_end_plan
        # the tool's verdict, judged without the cached blocks the allocator frees (the range's upper end may hold them)
        if safe is not None:  # the fewest devices tight; more of the user's own fit at the range's upper end: a yes on those
            usable = fit.memory.usable_gib
            # both figures without the cached blocks the allocator gives back (what the verdict judges), said as such
            key = "yes_upper_end_by_estimate" if safe.devices < v.have else "yes_upper_end_all_by_estimate" if v.have > 1 \
                else "yes_upper_end_one_by_estimate"
            line = self.say(key, yours=self.yours(),
                            n=self.devices(safe.devices, fit.unit, fit.hardware), have=self.have(),
                            setting=f"{self.fw_name(fit.framework, fit.hardware)} {self.parallel(safe.zero_stage, safe.offload, safe.tp, safe.pp, safe.cp)}",
                            total=f"{safe.total_gib - safe.cached_gib:.1f}", high=f"{safe.high_gib - safe.cached_gib:.1f}",
                            usable=f"{usable:.1f}", cached=self.say("upper_less_cached", cached=f"{safe.cached_gib:.1f}")
                            if safe.cached_gib >= 0.05 else "",
                            per=self.per_device(fit.unit, fit.hardware), fewer=self.devices(fit.devices, fit.unit, fit.hardware),
                            fewer_setting=self.parallel(fit.zero_stage, fit.offload, fit.tp, fit.pp, fit.cp),
                            fewer_high=self.span(fit.memory)[1]) + (
                self.say("upper_end_offload", ram=f"{safe.host_ram_gib_per_node:,.0f}") if safe.offload else "")
        elif fit.verdict == "tight" and not open_scenario_only(fit.memory):  # not a plain yes
            more = fit.upper_end_fits  # why tight: the count the upper end needs is beyond the user's devices (or none holds it)
            line = self.say("tight_by_estimate", yours=self.yours(), setting=self.setting(fit, v.have),
                            high=self.span(fit.memory)[1], usable=f"{fit.memory.usable_gib:.1f}") + (
                self.say("tight_upper_needs", n=self.devices(more.devices, fit.unit, fit.hardware),
                         setting=self.parallel(more.zero_stage, more.offload, more.tp, more.pp, more.cp))
                if more is not None and more.devices > v.have else "")
        elif open_scenario_only(fit.memory):  # the measured range fits; the open attention kernel's scenario does not
            line = self.say("tight_pinned_by_estimate" if fit.memory.pinned_gib > 0 else "tight_open_by_estimate",
                            yours=self.yours(), setting=self.setting(fit, v.have)) \
                + self.open_attention(fit.memory).rstrip(".。")
        else:
            line = self.say("yes_by_estimate", yours=self.yours(), setting=self.setting(fit, v.have))
        if safe is None and fit.offload and fit.memory.host_ram_gib:  # an offload plan names the host RAM it takes
            line += self.say("upper_end_offload", ram=f"{fit.memory.host_ram_gib:,.0f}")
        why_fits = self.cached_back(fit.memory)  # a "yes" beside an upper end past the usable memory says why
        # the fastest setting is one without offload (an offload plan on fewer devices is the slower fallback, never it)
        if free and free.fits and not free.offload and (free.devices != v.fitting.devices or free.offload != v.fitting.offload) \
                and not (safe is not None and free.verdict != "fits"):  # a tight fastest plan is not offered over the yes
            line += self.say("fastest_uses", n=self.devices(free.devices, free.unit, free.hardware), setting=self.setting(free)) + (
                self.say("fastest_tight") if free.verdict == "tight" else "")  # a tight fastest plan is named as tight
        if v.upper and v.needs:
            line += self.say("lora_rows_upper", listed=self.say("comma").join(f"{n.who} {self.devices(n.devices, n.unit)}" for n in v.needs))
        if v.bounds:  # the shorter rows fit the user's count: a lower bound only, said as such
            least = min(v.bounds, key=lambda n: n.devices)
            line += self.say("row_only_bound", length=least.seq_len, who=least.who, n=self.devices(least.devices, least.unit), asked=v.asked)
        return line + self.say("period") + why_fits

    def no_by_estimate(self, v: Verdict) -> str | None:
        if not v.capped:
            return None
        free = v.free
        line = self.say("no_by_estimate", yours=self.yours())
        if free and free.fits:
            line += self.say("it_needs", n=self.devices(free.devices, free.unit, free.hardware), setting=self.setting(free))
            if free.verdict == "tight" and (more := free.upper_end_fits) is not None:  # that count is itself tight: say so
                line += self.say("it_needs_tight", n=self.devices(more.devices, free.unit, free.hardware),
                                 setting=self.parallel(more.zero_stage, more.offload, more.tp, more.pp, more.cp))
        return line + self.say("period")

    # -- nothing fits at any count -------------------------------------------------------------
    def no_fit_why(self, p: PlanResult) -> str | None:
        """Why a plan without a device limit fits nowhere, in one clause, when its result says so: PPO
        without ZeRO-3 (every device holds each model's weights), or a sequence whose activations and
        loss alone exceed a device (ZeRO splits model states only)."""
        notes = " ".join(p.notes).lower()
        if p.stage == "ppo" and p.framework == "LLaMA-Factory" and p.zero_stage != 3:
            models = [("policy", "策略模型")] + [("reference", "参考模型")] * ("reference model" in notes) \
                + [("reward", "奖励模型")] * ("full reward model" in notes)
            en = ", ".join(m for m, _ in models[:-1]) + (" and " if len(models) > 1 else "") + models[-1][0]
            return self.L(f"PPO cannot use ZeRO-3 on ModelArts, so the weights of the {en} model{'s' if len(models) > 1 else ''} "
                          "are replicated on every device",
                          f"ModelArts 上 PPO 不能使用 ZeRO-3，{'、'.join(z for _, z in models)}的权重在每张卡上各存一份")
        m = re.search(r"alone take ([\d.]+) GiB", p.note or "")
        if m:
            return self.say("no_fit_why_at_tokens_the", seq_len=p.seq_len, value=m.group(1))
        return None

    @staticmethod
    def plausible_fewer(p: PlanResult) -> FewerDevices | None:
        """The plan's slower setting on fewer devices when it passes the plausibility check (asked.implausible):
        shown instead of a plan that fails it."""
        alt = p.fewer_devices
        if not alt or alt.verdict == "does_not_fit" or alt.total_gib > p.memory.usable_gib:
            return None
        memory = p.memory.model_copy(update={"total_gib": alt.total_gib})
        return None if implausible(p.model_copy(update={"devices": alt.devices, "memory": memory})) else alt

    def no_fit_alternative(self, p: PlanResult) -> str | None:
        """What does fit, as shown below it: MindSpeed-LLM, LoRA, or a shorter sequence (the tool's longest cutoff_len)."""
        alts = []
        for r in self.r.of("plan_training", PlanResult):
            q = r.value
            if q is None or r.arg("max_devices") or not q.fits:
                continue
            devs = self.devices(q.devices, q.unit, q.hardware)
            how = self.setting(q).split(" ", 1)[1]
            if implausible(q):  # the plan that passes the check is the one named (its slower setting), or none
                fewer = self.plausible_fewer(q)
                if fewer is None:
                    continue
                devs = self.devices(fewer.devices, q.unit, q.hardware)
                how = self.L(f"{fewer.setting.replace(' x ', ' × ')}, about {fewer.total_gib:.1f} GiB per {self.per_device(q.unit, q.hardware)}",
                             f"{assumption_zh(fewer.setting.replace(' x ', ' × '), TOOL_NOTE_ZH)}，每{self.per_device(q.unit, q.hardware)}约 {fewer.total_gib:.1f} GiB")
            if q.framework != p.framework and q.method == p.method:
                alts.append(self.say("no_fit_alternative_fits_it_on", fw=self.fw_name(q.framework, q.hardware), devs=devs, how=how))
            elif q.method != p.method and q.framework == p.framework:
                what = self.method_name(q.method) + (f" {q.stage.upper()}" if q.stage not in (None, "sft") else "")
                alts.append(self.say("no_fit_alternative_fits_on_below", what=what, devs=devs))
        m = re.search(r"at most (\d+) tokens per sequence fit", p.note or "")
        if m:
            alts.append(self.say("no_fit_alternative_sequence_of_at", value=m.group(1)))
        return self.say("semicolon").join(alts) or None

    def no_fit_text(self, p: PlanResult) -> str:
        """'does not fit at any device count — <why>; <what fits instead>' (estimate)."""
        mem = p.memory
        why = self.no_fit_why(p)
        alt = self.no_fit_alternative(p)
        figures = dict(total=f"{mem.total_gib:.1f}", high=f"{mem.high_gib:.1f}", usable=f"{mem.usable_gib:.1f}")
        # the point fits, the upper end of its range does not (plans hold it): tight
        need = self.say("no_fit_need_tight" if mem.fits and mem.verdict == "tight" else "no_fit_need", **figures)
        text = self.say("no_fit_anywhere", why=why or need) + (self.say("bracketed", text=need) if why else "")
        if alt:
            text += self.say("instead", alt=alt)
        return text

    # -- what was asked first: host RAM per node, or a verdict on the setting the user names ----------
    def asked_first(self) -> list[str]:
        """The yes/no on the setting the user names (the estimator's own verdict), then the host RAM per node the
        offload setting needs: a verdict asked for comes before any figure that supports it."""
        if self.headlined:
            return []
        calls = self.r.of("estimate_training_memory", TrainingMemoryResult)
        if ga := self.ga_judged():
            return [self.lead(ga), ""]
        if split := self.split_first():
            return [self.lead(split[0]), *split[1:], ""]
        if choice := self.stage_choice(calls):
            return [self.lead(choice), ""]
        setting = named_setting(self.s)
        judged = next((c for c in calls if setting and c.arg("zero_stage") == setting.zero_stage
                       and bool(c.arg("offload")) == setting.offload and c.arg("devices")), None)
        lines = []
        if judged is not None and judged.value is not None and self.r.of("plan_training", PlanResult):
            f = self.training_facts()
            if asks_recipe_match(self.s) and setting and (match := self.recipe_match(f, setting)):
                self.setting_led = True  # "matches the recipe?": the recipe row answers; the estimate of their setting backs it
                lines += [match, "- " + self.setting_verdict(judged, after=True)]
            elif setting and (ran := self.recipe_ran(f, setting)):
                # the vendor ran this very job with this setting on no more devices: its row settles the yes, the
                # estimate (whose range is its measured error) backs it instead of contradicting it (round 9 c2-13)
                self.setting_led = True
                lines += [ran, "- " + self.setting_verdict(judged, after=True) + self.say("vendor_ran_estimate")]
            elif self.e.devices and Verdict(self, self.s.method, f).table_says_no:
                self.setting_after = judged  # the table's no leads (training); this estimate is said under it
            else:
                self.setting_led = True
                lines.append(self.setting_verdict(judged) + (self.more_than_needed(f, setting, judged) if setting else ""))
        if asks_offload_needed(self.s) and (line := self.offload_needed(calls)):
            if offload_asked_first(self.s):  # "is the offload necessary? …": the half asked first leads, the verdict backs it
                lines = [line.removeprefix("- ")] + [x if x.startswith("- ") else "- " + x for x in lines]
            else:
                lines.append(line)  # the second part asked ("and do I even need the offload?"), after the verdict
        if asks_host_ram(self.s) and (line := self.host_ram_first(calls)):
            # the host RAM of the offload setting the user chose is the answer; as the fallback ("if not"), it follows the
            # verdict; the user's own host RAM judged ("is host memory enough?") leads with its yes/no
            lines.insert(0 if (setting and setting.offload) or judges_host_ram(self.s) else len(lines), line)
        return [self.lead(line) if not line.startswith("- ") else line for line in lines] + [""] if lines else []

    def stage_choice(self, calls: list[Result[TrainingMemoryResult]]) -> str | None:
        """"ZeRO-2 or ZeRO-3, which one and why?": the fastest stage offered that fits the user's devices (the zero_stages
        note's rule: start with the fastest, step to the next stage on running out of memory; speed falls and memory
        saving rises from ZeRO-0 to ZeRO-3), each stage's estimate beside it."""
        offered = stages_offered(self.s)
        found = {c.arg("zero_stage"): c for c in calls if c.value is not None and c.arg("zero_stage") in offered
                 and not c.arg("offload")}
        if len(found) < 2:
            return None
        order = sorted(found)  # ZeRO-0 fastest, ZeRO-3 slowest
        ms = {z: m for z in order if (m := found[z].value) is not None}
        cur, new = self.s.current.get("zero_stage"), self.s.zero_stage
        if cur is not None and new is not None and cur in ms and new in ms and cur != new:
            return self.stage_vs_current(ms[cur], ms[new], int(cur), new)
        # fits; else tight with its whole likely range within the usable memory; else tight: the fastest of each kind
        pick = next((z for z, m in ms.items() if m.verdict == "fits"), None) or next(
            (z for z, m in ms.items() if m.verdict == "tight" and m.high_gib <= m.usable_gib), None) or next(
            (z for z, m in ms.items() if m.verdict == "tight" and m.total_gib <= m.usable_gib), None)
        each = self.say("semicolon").join(
            self.say("stage_each", stage=z, word=self.say("verdict_" + m.verdict), total=self.point(m), high=self.span(m)[1],
                     usable=f"{m.usable_gib:.1f}", per=self.per_device(m.unit, m.hardware)) for z, m in ms.items())
        if pick is None:  # the ladder's next rung: the stage after the highest offered, else offload or more devices
            nxt = self.say("stage_next", stage=order[-1] + 1) if order[-1] < 3 else ""
            return self.say("stage_choice_none", stages=" / ".join(f"ZeRO-{z}" for z in order), each=each, next=nxt)
        m = found[pick].value
        assert m is not None
        # "zero2 跟 zero3 哪个余量更大": the stage with more free memory per device first, then the choice
        room = self.headroom([(f"ZeRO-{z}", float(self.point(x)), x.usable_gib, self.per_device(x.unit, x.hardware), "")
                              for z, x in ms.items()]) + self.say("period") + self.L(" ", "") if HEADROOM_ASKED.search(self.s.question) else ""
        return room + self.say("stage_choice_tight" if m.verdict == "tight" and m.high_gib > m.usable_gib else "stage_choice",
                               stage=pick, devs=self.devices(m.devices, m.unit, m.hardware), each=each,
                               others=" / ".join(f"ZeRO-{z}" for z in order if z != pick))

    def stage_vs_current(self, a: TrainingMemoryResult, b: TrainingMemoryResult, cur: int, new: int) -> str:
        """"would zero3 be better?" after a ZeRO-2 plan: the stage proposed against the conversation's, each one's memory
        per device on the same devices, the difference, and what it costs (the zero_stages note's rule: speed falls and
        memory saving rises from ZeRO-0 to ZeRO-3, so the fastest stage that fits is the one to run)."""
        ok = lambda m: m.verdict == "fits" or m.verdict == "tight" and m.high_gib <= m.usable_gib  # noqa: E731
        if not ok(b):  # a higher stage still tight where the current one does not fit: better, but with little room
            key = "stage_vs_current_tight" if b.verdict == "tight" and new > cur and a.verdict == "does_not_fit" else "stage_vs_current_no"
        elif new > cur:
            key = "stage_vs_current_not_needed" if ok(a) else "stage_vs_current_yes"
        else:
            key = "stage_vs_current_faster"
        delta = float(self.point(a)) - float(self.point(b))
        per = self.per_device(b.unit, b.hardware)
        change = self.say("stage_vs_current_less" if delta >= 0 else "stage_vs_current_more", gib=f"{abs(delta):.1f}", per=per)
        return self.say(key, cur=cur, new=new, devs=self.devices(b.devices, b.unit, b.hardware), per=per,
                        new_gib=self.point(b), cur_gib=self.point(a), new_high=self.span(b)[1], cur_high=self.span(a)[1],
                        usable=f"{b.usable_gib:.1f}", change=change, word_new=self.say("verdict_" + b.verdict),
                        word_cur=self.say("verdict_" + a.verdict))

    def offload_needed(self, calls: list[Result[TrainingMemoryResult]]) -> str | None:
        """"Do I even need the offload?": the same stage without offload on the user's devices, fits or not (estimate)."""
        c = next((c for c in calls if c.arg("offload") is False and c.arg("devices") and c.value is not None), None)
        if c is None or c.value is None:
            return None
        v = c.value
        key = "offload_not_needed" if v.fits else "offload_tight" if v.verdict == "tight" else "offload_needed"
        return "- " + self.say(key, zero=c.arg("zero_stage"), have=self.devices(c.arg("devices"), self.unit_of(self.e.hardware), self.e.hardware),
                               gib=v.total_gib, high=v.high_gib, usable=v.usable_gib)

    def recipe_ran(self, f: TrainingFacts, named: NamedSetting) -> str | None:
        """Yes, from the recipe table: its row at the length asked runs the setting the user names (stage and offload)
        on no more devices than they have, at the table's micro batch 1. None when any of that differs."""
        if not self.e.devices or (self.s.micro_batch or 1) != 1 or self.s.stage not in (None, "sft", "pt"):
            return None
        row = next((r for r in f.recipes if r.found and r.seq_len_used == r.seq_len and r.zero_stage is not None
                    and r.total_cards and r.total_cards <= self.e.devices
                    and (r.zero_stage, bool(r.offload)) == (named.zero_stage, named.offload)
                    and self.s.method is not None and r.strategy == table_strategy(self.s.method)), None)
        if row is None:
            return None
        n = self.devices(row.total_cards, "DIE" if self.e.facts.unit == "die" else "card")
        # on Snt9B23 the recipe's single card is below the 2-DIE unit: the minimum-card table's own DIE count is said beside it
        floor = max((r.cards for r in f.rows if self.e.facts.unit == "die" and r.hardware == self.e.part
                     and r.framework == "LLaMA-Factory" and r.supported and r.cards and r.strategy == row.strategy), default=0)
        if floor > (row.total_cards or 0):
            n += self.say("recipe_ran_die_floor", n=self.devices(floor, "DIE"), label=MIN_LABEL[self.lang])
        return self.say("recipe_ran", recipe=self.parallel(row.zero_stage, row.offload), n=n,
                        ga=row.grad_accum, seq=row.seq_len, label=RECIPE_LABEL[self.lang], yours=self.yours())

    def more_than_needed(self, f: TrainingFacts, named: NamedSetting, call: Result[TrainingMemoryResult]) -> str:
        """A setting that fits but is heavier than the recipe row run on no more devices than the user has ("ZeRO-3 +
        offload on one card, sensible?" where the recipe runs ZeRO-1 on one card): it runs, and it is more than the job
        needs, with why (one device has nothing to shard over; offload slows each step and takes host RAM)."""
        m = call.value
        if m is None or m.verdict == "does_not_fit" or not self.e.devices:
            return ""
        strategy = table_strategy(self.s.method) if self.s.method else None
        row = next((r for r in f.recipes if r.zero_stage is not None and r.total_cards and r.total_cards <= self.e.devices
                    and (strategy is None or r.strategy == strategy) and lighter_recipe(named, r)), None)
        if row is None:  # no recipe row: a faster setting the estimate fits on the user's devices (fits, not tight)
            plan = next((r.value for r in f.plans if r.arg("max_devices") and r.value is not None and r.value.verdict == "fits"
                         and r.value.framework == m.framework and lighter_recipe(named, r.value)), None)
            if plan is None:
                return ""
            return self.say("more_than_needed_estimate", setting=self.setting(plan, self.e.devices), yours=self.yours())
        why = [self.say("one_device_shards_nothing", stage=named.zero_stage)] * (self.e.devices == 1 and named.zero_stage > 0) + [
            self.say("zero3_gathers")] * (self.e.devices > 1 and named.zero_stage == 3 and (row.zero_stage or 0) < 3) + [
            self.say("offload_only_slows", ram=f"{m.host_ram_gib:,.0f}")] * (named.offload and not row.offload and bool(m.host_ram_gib))
        return self.say("more_than_needed" if why else "more_than_needed_plain", recipe=self.parallel(row.zero_stage, row.offload), label=RECIPE_LABEL[self.lang],
                        n=self.devices(row.total_cards, "DIE" if self.e.facts.unit == "die" else "card"),
                        why=self.say("semicolon").join(why))

    def ga_judged(self) -> str | None:
        """"Is GA 16 a problem?": the user's accumulation against the recipe row's (or the value they quote from a table):
        it changes neither the memory per device nor the count, only the global batch (GBS = MBS × DP × GA)."""
        s = self.s
        if not (judges_grad_accum(s) or len(s.changes.get("grad_accum") or []) == 2) or not s.grad_accum:
            return None
        strategy = table_strategy(s.method) if s.method else None
        row = next((r for r in self.training_facts().recipes if r.found and r.grad_accum
                    and (strategy is None or r.strategy == strategy)), None)
        ref = row.grad_accum if row else int(s.quoted.get("grad_accum") or 0)
        ga = s.grad_accum
        if len(offered := s.changes.get("grad_accum") or []) == 2:  # "GA 4 or 16?": the second judged against the first
            ref, ga, row = int(offered[0]), int(offered[1]), None
        mbs = s.micro_batch or 1
        dp = max(1, (self.e.devices or 1) // ((s.tp or 1) * (s.pp or 1)))
        gbs = mbs * dp * ga
        if not ref or ref == ga:
            return self.say("ga_judged_same" if ref else "ga_judged", ga=ga, gbs=gbs, mbs=mbs, dp=dp)
        source = self.say("ga_ref_row", ref=ref, label=RECIPE_LABEL[self.lang]) if row else \
            self.say("ga_ref_offered" if offered else "ga_ref_quoted", ref=ref)
        return self.say("ga_judged_larger" if ga > ref else "ga_judged_smaller", ga=ga, ref=ref, source=source,
                        gbs=gbs, ref_gbs=mbs * dp * ref, mbs=mbs, dp=dp, ratio=f"{max(ga, ref) / min(ga, ref):g}")

    def recipe_match(self, f: TrainingFacts, named: NamedSetting) -> str | None:
        """Yes or no: the setting and device count the user runs against the recipe row for the job."""
        row = next((r for r in f.recipes if r.zero_stage is not None and r.total_cards
                    and (self.s.method is None or r.strategy == table_strategy(self.s.method))), None)
        if row is None:
            return None
        recipe = self.parallel(row.zero_stage, row.offload)
        # what they run, as they stated it, each part that differs from the row named: setting, device count, accumulation
        theirs = [self.parallel(named.zero_stage, named.offload)] + [self.devices(self.e.devices)] * bool(self.e.devices) + [
            self.say("grad_accum", n=self.s.grad_accum)] * bool(self.s.grad_accum)
        same = (row.zero_stage, bool(row.offload)) == (named.zero_stage, named.offload) and (
            not self.e.devices or self.e.devices == row.total_cards) and (self.s.grad_accum in (None, row.grad_accum))
        return self.say("recipe_matches" if same else "recipe_differs", theirs=self.say("comma").join(theirs), recipe=recipe,
                        n=self.devices(row.total_cards), ga=row.grad_accum, label=RECIPE_LABEL[self.lang])

    def split_first(self) -> list[str]:
        """"TP PP 怎么切" on a count (the user's, or the one the last answer led with): MindSpeed-LLM's TP x PP from the
        plan within that count, the rest of it data parallel; LLaMA-Factory splits nothing (DeepSpeed data parallel)."""
        s = self.s
        if "tp" in s.intents and solved_slot(s):
            return self.solved_split()
        if "tp" not in s.intents or s.tp or s.pp:
            return []
        if s.oom_split and self.e.devices and (grown := split_on_more_devices(s.oom_split, self.e.devices, s.node_size)):
            # the split that ran out of memory is not proposed again on more devices: the extra ones split the model
            tp0, pp0, before = s.oom_split
            counted = self.unit_of(self.e.hardware)
            return [self.say("split_after_oom", tp=grown[0], pp=grown[1], dp=self.e.devices // (grown[0] * grown[1]),
                             devs=self.devices(self.e.devices, counted, self.e.hardware), tp0=tp0, pp0=pp0,
                             devs0=self.devices(before, counted, self.e.hardware), parts=grown[0] * grown[1], parts0=tp0 * pp0)]
        within = [c for c in self.r.of("plan_training", PlanResult) if c.arg("max_devices") and c.value and c.value.fits]
        # no count said ("TP 和 PP 分别设多少"): the split of the fewest devices the MindSpeed-LLM plan needs
        free = [c for c in self.r.of("plan_training", PlanResult) if not c.arg("max_devices") and c.value and c.value.fits]
        ms = next((c for c in within if c.value and c.value.framework == "MindSpeed-LLM" and c.value.tp), None) or (
            None if self.e.devices else next((c for c in free if c.value and c.value.framework == "MindSpeed-LLM" and c.value.tp), None))
        if ms is None or ms.value is None:
            return []
        p = ms.value
        count = int(ms.arg("max_devices") or p.devices)
        unit = p.tp * (p.pp or 1) * (p.cp or 1)
        if count % unit:
            return []
        out = [self.say("split_first", split=self.parallel(None, None, p.tp, p.pp, p.cp, p.ep), dp=count // unit,
                        devs=self.devices(count, p.unit, p.hardware), gib=f"{p.memory.total_gib:.1f}",
                        per=self.per_device(p.unit, p.hardware))]
        if s.framework == "LLaMA-Factory" or any(c.value and c.value.framework == "LLaMA-Factory" for c in within):
            out.append("- " + self.say("split_not_in_lf"))
        return out

    def solved_split(self) -> list[str]:
        """"With TP 8, what PP?": the smallest value of the asked slot whose estimate fits (the most data parallel), then
        what the others need; none fitting is said as such."""
        tried = sorted((c.value for c in self.r.of("estimate_training_memory", TrainingMemoryResult) if c.value),
                       key=lambda m: m.tp * m.pp)
        if not tried:
            return []
        # the smallest that fits; else, of the tight ones, the one with the most room at its range's upper end
        tight = sorted((m for m in tried if m.verdict == "tight"), key=lambda m: m.high_gib)
        best = next((m for m in tried if m.verdict == "fits"), None) or next(iter(tight), None)
        per = self.per_device(tried[0].unit, tried[0].hardware)
        others = [f"{self.parallel(None, None, m.tp, m.pp, m.cp, m.ep)} {m.total_gib:.1f} GiB ({self.say('verdict_' + m.verdict)})"
                  for m in tried if m is not best]
        if best is None:
            return [self.say("split_none_fits", devs=self.devices(tried[0].devices, tried[0].unit, tried[0].hardware),
                             tried=self.say("comma").join(others), per=per)]
        out = [self.say("split_first", split=self.parallel(None, None, best.tp, best.pp, best.cp, best.ep), dp=best.data_parallel,
                        devs=self.devices(best.devices, best.unit, best.hardware), gib=f"{best.total_gib:.1f}", per=per)]
        if others:
            out.append("- " + self.say("split_others", tried=self.say("comma").join(others), per=per))
        return out

    def host_ram_first(self, calls: list[Result[TrainingMemoryResult]]) -> str | None:
        """'About **460 GiB of host RAM per node** for ZeRO-3 + offload on your 4 nodes (32 cards; estimate)'; with the
        user's host RAM judged, its yes/no before it ('**No: 500 GB of host RAM per node is not enough** — …')."""
        line = self.host_ram_line(calls)
        if line is None or not judges_host_ram(self.s) or not (gib := HOST_RAM_GIB.search(line)):
            return line
        have = self.s.host_ram_gb or 0
        need = float(gib.group(1).replace(",", ""))
        key = "host_ram_enough" if need <= host_ram_usable_gib(have) else "host_ram_not_enough"
        return self.say(key, have=have, usable=f"{host_ram_usable_gib(have):,.0f}", line=line[0].lower() + line[1:])

    def host_ram_line(self, calls: list[Result[TrainingMemoryResult]]) -> str | None:
        with_ram = [c for c in calls if c.value is not None and c.value.offload]
        # the plan shown on the user's devices offloads: its own host RAM is the answer, for its own setting (not the
        # ZeRO-3 offload estimated beside it for this question; round 17 c7-04.3 said 370 GiB under a ZeRO-2 offload plan)
        named = named_setting(self.s)
        plan = next((r.value for r in self.r.of("plan_training", PlanResult) if r.arg("max_devices") and r.value is not None
                     and r.value.fits and r.value.offload and r.value.memory.host_ram_gib), None)
        if plan is not None and self.s.zero_stage is None and not self.s.offload and not (named and named.offload) \
                and self.s.framework != "MindSpeed-LLM":
            self.host_ram_of_plan = True
            nodes = max(1, math.ceil(plan.devices / self.node_size(plan.hardware)))
            return self.say("host_ram_first", gib=f"{plan.memory.host_ram_gib:,.0f}", setting=self.parallel(plan.zero_stage, plan.offload),
                            nodes=self.nodes(nodes), devs=self.devices(plan.devices, plan.unit, plan.hardware))
        if with_ram:
            # on the user's devices when one of them is estimated there ("if we only have 2 nodes?" after the host RAM on
            # the recipe's 4): the host RAM per node of the count asked, not of the recipe's
            m = next((c.value for c in with_ram if c.value is not None and c.value.devices == self.e.devices), with_ram[0].value)
            assert m is not None
            devs = self.devices(m.devices, m.unit, m.hardware)
            nodes = max(1, math.ceil(m.devices / self.node_size(m.hardware)))
            line = self.say("host_ram_first", gib=f"{m.host_ram_gib:,.0f}", setting=self.parallel(m.zero_stage, m.offload),
                            nodes=self.nodes(nodes), devs=devs)
            if self.s.framework == "MindSpeed-LLM" and m.framework != "MindSpeed-LLM":
                # MindSpeed-LLM offloads nothing: its plan needs no host RAM for it; DeepSpeed's offload is the option
                plan = next((r.value for r in self.r.of("plan_training", PlanResult) if r.value and r.value.fits), None)
                layout = next((c.value for c in calls if c.value and c.value.framework == "MindSpeed-LLM"), None)
                said = self.setting(plan, self.e.devices) if plan else self.parallel(None, None, layout.tp, layout.pp, layout.cp) + (
                    self.L(" on ", " ，") + self.devices(layout.devices, layout.unit, layout.hardware)) if layout else "MindSpeed-LLM"
                return self.say("host_ram_mindspeed", plan=said, offload=line[0].lower() + line[1:])
            # the plan for the user's devices keeps everything on them: its host RAM is nil, the offload figure an option
            yours = next((r.value for r in self.r.of("plan_training", PlanResult) if r.arg("max_devices") and r.value
                          and r.value.fits and not r.value.offload), None)
            if yours is not None and not (named_setting(self.s) or NamedSetting(0, False)).offload:
                return self.say("host_ram_not_needed", plan=self.setting(yours, self.e.devices), offload=line[0].lower() + line[1:])
            return line
        return None

    def setting_verdict(self, call: Result[TrainingMemoryResult], after: bool = False) -> str:
        """'**ZeRO-2 on your 8 GPUs: no** (estimate): about 30.1 GiB per GPU, likely up to 41.9, of 23.7 usable.';
        ``after``: under another verdict, the same figures without a yes/no of their own."""
        m = call.value
        assert m is not None
        key = {"fits": "setting_yes", "tight": "setting_tight", "does_not_fit": "setting_no"}[m.verdict]
        if m.verdict == "tight" and m.total_gib > m.usable_gib:  # the tool's "tight" with its point above the usable memory
            key = "setting_tight_over"
        if open_scenario_only(m):  # tight only in the scenario the inputs leave open: pinned blocks, the attention kernel
            key = "setting_tight_pinned" if m.pinned_gib > 0 else "setting_tight_open"
        short = self.host_ram_short(m)
        if short and m.verdict != "does_not_fit":  # the verdict weighs every limit checked: host RAM too, not the device alone
            key = "setting_no_host_ram"
        if after:
            key = "setting_estimate_after"
        setting = self.parallel(m.zero_stage, m.offload) if m.offload else self.stage_words(m.zero_stage or 0) + self.say("without_offload")
        # ' (micro batch 2, gradient accumulation 4, as you set)': the user's own batch figures, echoed with the verdict
        ga = call.arg("grad_accum")
        said = [self.say("micro_batch", n=m.micro_batch)] * (self.s.micro_batch is not None) + \
            [self.say("grad_accum", n=ga)] * (self.s.grad_accum is not None and ga is not None)
        return self.say(key, setting=setting, word=self.say("verdict_" + m.verdict), yours=self.say("your", devs=self.devices(m.devices, m.unit, m.hardware)), total=self.point(m),
                        high=self.span(m)[1], low=self.span(m)[0], usable=f"{m.usable_gib:.1f}",
                        per=self.per_device(m.unit, m.hardware), batch=self.say("as_you_set", values=self.say("comma").join(said)) if said else "",
                        ram=f"{m.host_ram_gib:,.0f}", have=self.say("host_ram_yours", have=self.s.host_ram_gb) if self.s.host_ram_gb else ""
                        ) + ("" if short else self.cached_back(m) + self.open_attention(m))

    def host_ram_clause(self, m: MemoryBreakdown) -> str:
        """' Its offload also needs about 887 GiB of host RAM per node, and you have 512 GB: not enough.' (or nothing)."""
        if not self.host_ram_short(m):  # an offload setting still names the host RAM it takes
            return self.say("setting_host_ram_need", ram=f"{m.host_ram_gib:,.0f}") if getattr(m, "offload", False) and m.host_ram_gib else ""
        return self.say("setting_host_ram_short", ram=f"{m.host_ram_gib:,.0f}",
                        have=self.say("host_ram_yours", have=self.s.host_ram_gb) if self.s.host_ram_gb else "")

    def host_ram_short(self, m: MemoryBreakdown) -> bool:
        """An offload setting whose host RAM per node is more than there is: the user's own figure when they gave one
        (host_ram_usable_gib), else the estimator's assumed node."""
        if not (getattr(m, "offload", False) and m.host_ram_gib):
            return False
        have = self.s.host_ram_gb
        return m.host_ram_gib > host_ram_usable_gib(have) if have else not m.host_ram_fits

    def open_attention(self, m: MemoryBreakdown) -> str:
        """Why a measured range that fits still reads "tight": the attention kernel the inputs leave open (Ascend, a
        Hugging Face stack, attention not stated); its s² scores are a second scenario beside the range, said with
        their own upper end (round 8 F6: "likely 56.5-124.0 GiB" folded the two into one range)."""
        if not open_scenario_only(m):
            return ""
        if m.pinned_gib > 0:  # the pool's pinned blocks: a setting settles it (the attention fallback, if open, beside it)
            return self.say("open_pinned", pinned=f"{m.pinned_gib:.1f}", eager=f"{m.open_high_gib:.1f}",
                            judged=f"{m.high_gib - m.cached_gib:.1f}", usable=f"{m.usable_gib:.1f}",
                            attention=self.say("open_also_attention", open=f"{m.attention_open_gib:.1f}") if m.attention_open_gib else "")
        return self.say("open_attention_cached" if m.cached_gib >= 0.05 else "open_attention", open=f"{m.attention_open_gib:.1f}",
                        eager=f"{m.open_high_gib:.1f}", cached=f"{m.cached_gib:.1f}", judged=f"{m.high_gib - m.cached_gib:.1f}",
                        usable=f"{m.usable_gib:.1f}")

    def cached_back(self, m: MemoryBreakdown) -> str:
        """Why a range whose upper end passes the usable memory is still a fit: the estimator judges it without the
        allocator's cached blocks (freed before an out-of-memory error); said, so "fits" never stands beside a larger
        figure unexplained (round 7 s30: "Yes … likely up to 91.8, of 79.2 GiB usable")."""
        if m.verdict != "fits" or m.high_gib <= m.usable_gib or not m.cached_gib:
            return ""
        return self.say("cached_back", high=f"{m.high_gib:.1f}", cached=f"{m.cached_gib:.1f}",
                        judged=f"{m.high_gib - m.cached_gib:.1f}", usable=f"{m.usable_gib:.1f}")


def lighter_recipe(named: NamedSetting, row: TrainingRecipeResult | PlanResult) -> bool:
    """The recipe row (or a plan) runs the job with less than the setting named: no offload where the user offloads, or
    a lower ZeRO stage with the same offload (both faster)."""
    if row.zero_stage is None or getattr(row, "tp", 1) not in (None, 1) or getattr(row, "pp", 1) not in (None, 1):
        return False
    return (named.offload and not row.offload) or (named.zero_stage > row.zero_stage and named.offload == bool(row.offload))


# the host RAM per node a host-RAM line states ("about **460 GiB of host RAM per node**", "每节点约需 **460 GiB 主机内存**")
HOST_RAM_GIB = re.compile(r"\*\*([\d,.]+) GiB")

def host_ram_usable_gib(have_gb: int) -> float:
    """The host RAM an offload plan may fill: about nine tenths of what the user has (the OS, data loaders and pinned
    buffers keep the rest); one rule for the verdict and the host-RAM line."""
    return have_gb * 1e9 / 2**30 * 0.9


class Verdict:
    """The facts one method's yes/no is decided from."""

    def __init__(self, w: CapacityBlocks, method: str | None, f: TrainingFacts):
        plans = [r for r in f.plans if r.arg("method") == method and r.value is not None]
        self.have = w.e.devices or 0
        self.asked = f.asked
        self.free = next((r.value for r in plans if not r.arg("max_devices")), None)
        self.capped = [r.value for r in plans if r.arg("max_devices") and r.value is not None]
        self.fitting = next((p for p in self.capped if p.fits), None)
        # a "tight" on the fewest devices is not the verdict when a plan within the user's count fits at the range's upper
        # end (the plan tool's upper_end_fits, searched within max_devices): that plan is the yes
        safe = self.fitting.upper_end_fits if self.fitting is not None and self.fitting.verdict == "tight" else None
        self.upper_end_plan = safe if safe is not None and safe.verdict == "fits" and safe.devices <= self.have else None
        self.needs = w.table_needs(table_strategy(method), f.recipes, f.rows)
        self.upper = method == "qlora"  # answered from the LoRA rows, which bound QLoRA from above
        strategy = table_strategy(method)
        # the lower bounds: rows at the nearest shorter length (minimum-card table, recipe table)
        self.bounds = w.table_needs(strategy, [], f.bound) + [
            Need(w.say("table_needs_llama_factory_recipe"), r.total_cards, "card", r.cutoff_len, "LLaMA-Factory", "recipe")
            for x in f.recipe_bound
            for r in x.rows if r.cutoff_len == f.bound_len and (strategy is None or r.strategy == strategy)]
        self.recipes = [r for r in f.recipes if r.total_cards and (strategy is None or r.strategy == strategy)]

    @property
    def table_says_no(self) -> bool:
        """The vendor rows need more devices than the user has (at the length asked, or a shorter row that already
        needs more): that no is the answer's verdict, whatever an estimate says."""
        if self.needs:
            return not self.upper and all(n.devices > self.have for n in self.needs)
        return bool(self.bounds) and all(n.devices > self.have for n in self.bounds)
