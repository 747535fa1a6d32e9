"""Training-sizing blocks of the answer: the two vendor tables (recipe, minimum cards), where they
disagree, the user's own device count, and the estimator's plan and memory breakdown beside them.
The headline is the first rule of a short table that applies; the blocks under it follow in a fixed order."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from ..estimate.memory import TrainConfig
from ..tools.estimates import PlanResult, TrainingMemoryResult
from ..tools.tables import MinCardsRow, TrainingRecipeResult
from . import table_query
from .asked import (
    TABLE_PUTS,
    asks_listed,
    asks_recipe,
    asks_verdict,
    implausible,
    named_setting,
    offload_said,
    stage_named_not_asked,
    weights_floor,
)
from .capacity import TrainingFacts
from .plans import PlanBlocks
from .setup_answer import VERDICT
from .spans import Reading
from .vendor_rows import TableBlocks
from .vocab import ASKS_COUNT, INTENTS
from .wording import MIN_LABEL, RECIPE_LABEL, STRATEGY, TOOL_NOTE_ZH, assumption_zh

PREFERENCE_STAGES = ("dpo", "kto", "ppo", "rm")  # the vendor tables size SFT/PT jobs only


class TrainingBlocks(TableBlocks, PlanBlocks):
    """Blocks for cards/nodes/ZeRO/GA questions: a one-line answer, then every row it came from."""

    def training(self) -> list[str]:
        f = self.training_facts()
        if not (f.recipes or f.recipe_bound or f.min_call or f.plans):
            return []
        body: list[str] = []
        verdict = self.verdict(f)  # "can I with my 16 cards?": yes or no before the details
        if why := self.count_why(f):  # "why 16?": where the figure comes from leads; the rows and estimate follow
            body.append(self.lead(why))
        # the setting on the user's devices, unless the verdict on the setting they named already leads
        # ("ZeRO-2 on my 4 cards, sensible?" names the stage and asks a yes/no: the verdict leads, no stage is proposed)
        setting = self.setting_on_your_devices(f) if verdict and not self.headlined and not self.setting_after \
            and not stage_named_not_asked(self.s) else None
        if setting and verdict:  # "which ZeRO stage / what GA on my 4 cards": that setting is the answer, the yes/no backs it
            body += [self.lead(setting), "- " + verdict]
        elif verdict and self.setting_led:  # the verdict on the named setting leads; the table's counts back it
            body.append("- " + verdict)
        elif verdict:
            # "how much memory per card on my 1 card?" (no yes/no asked): the figure leads, the verdict on it follows
            mem = next((r.value for r in f.plans if r.value is not None and r.value.fits and r.arg("max_devices")), None) \
                if "memory" in self.s.intents and not asks_verdict(self.s) else None
            body += [self.lead(self.memory_summary(mem) + self.say("period")), "- " + verdict] if mem else [self.lead(verdict)]
        # "which ZeRO stage / what GA" with no count asked and no row in the recipe table: the estimate's setting is the
        # answer, the table's card count backs it
        zero_lines = self.zero_from_estimate(f)
        if zero_lines and not verdict and not self.headlined and "cards" not in self.s.intents:
            body.append(self.lead(zero_lines.pop(0).removeprefix("- ")))
        if not verdict and not self.headlined and asks_listed(self.s) and not self.asks_support() and (listed := self.listed(f)):
            body.append(self.lead(listed))  # "在表里有没有? … 要几张": the yes/no half first, the count after it
        headline = None if verdict and self.same_as_yours(f) else self.training_headline(f)
        if headline and self.headlined and not verdict:
            body.append(self.say("needed") + headline)
        elif headline:
            # beside a yes, a larger count is what the job takes without the user's limit, not what it needs
            beyond = not (f.recipes or f.rows) and any(p.fits and p.devices > (self.e.devices or 0) for p in self.free_plans(f))
            said_no = not verdict or verdict.startswith(("**No", "**不", "**Not", "**按"))
            label = "unlimited" if beyond and not said_no else "needed"
            body.append(self.say(label) + headline if verdict or self.setting_led else self.lead(headline))
        if self.s.stage == "pt" and (f.recipes or f.rows or f.plans):
            body.append(self.pretrain_note(bool(f.recipes or f.rows)))
        body += zero_lines
        if self.s.stage in PREFERENCE_STAGES and (f.recipes or f.rows):
            body.append(self.say("training_the_vendor_tables", value=self.s.stage.upper()))
        for r in self.r.of("training_recipe", TrainingRecipeResult, ok=None):
            body += self.recipe_lines(r)
        body += self.recipe_why(f)
        if f.min_call:
            body += self.min_lines(f)
        body += self.disagreement(f)
        for p in f.plans:
            body += self.plan_lines(p, f)
        return body + [""]

    def count_why(self, f: TrainingFacts) -> str | None:
        """"why 16?" after a count (frame.why_asked, carry.toml [why]): the figure is the vendor table's row (the recipe
        row when one covers the job, else the minimum-card row of the framework), which gives no reason per row; the
        estimate says what memory alone needs beside it. None when no table row gives the count (the estimate's plan
        lines say how it was found)."""
        if not self.s.why_asked:
            return None
        fw = self.s.framework
        recipe = next((r for r in f.recipes if r.found and r.total_cards), None) if fw in (None, "LLaMA-Factory") else None
        row = next((r for r in f.rows if r.supported and r.cards and (fw is None or r.framework == fw)), None)
        if recipe is not None and recipe.total_cards:
            count, unit, label, method = recipe.total_cards, "card", RECIPE_LABEL[self.lang], recipe.strategy
            what = f"{self.s.model} {STRATEGY[self.lang].get(recipe.strategy, recipe.strategy)} cutoff_len {recipe.seq_len_used}"
            self.cite(recipe.source)
        elif row is not None and row.cards:
            count, unit, label, method = row.cards, row.unit, MIN_LABEL[self.lang], row.strategy
            what = f"{self.s.model} {STRATEGY[self.lang].get(row.strategy, row.strategy)} SEQ_LEN {row.seq_len} {row.framework} {row.hardware}"
            self.cite(row.source)
        else:
            return None
        n = self.devices(count, unit)
        plan = next((c.value for c in f.plans if c.value is not None and c.value.fits and not c.arg("max_devices")
                     and c.value.method == method and self.users_framework_plan(c.value)), None)
        memory = ""
        if plan is not None:
            need = plan.devices  # the plan whose memory is said beside it (not a fewer-device memory minimum)
            rel = "why_table_above" if need < count else "why_table_same" if need == count else "why_table_below"
            if recipe is not None and recipe.offload and not plan.offload and need > count:
                rel = "why_table_offload"  # the recipe's ZeRO-3-Offload holds the job on fewer cards than a plan without it
            memory = self.say("why_memory", n=self.devices(need, plan.unit, plan.hardware), summary=self.memory_summary(plan),
                              rel=self.say(rel))
        return self.say("why_count", n=n, label=label, what=what, memory=memory)

    def recipe_why(self, f: TrainingFacts) -> list[str]:
        """"Why does the recipe table put X on one card with ZeRO-3?": the table gives no reason (its values are for
        reference, measured with NPU FlashAttention on, seeds/000); on one card a ZeRO stage has no other device to split
        the model states over, so it saves nothing there."""
        if not TABLE_PUTS.search(self.s.question.lower()):
            return []
        row = next((r for r in f.recipes if r.total_cards and r.zero_stage is not None), None)
        if row is None:
            return []
        one = self.say("recipe_why_one_card", stage=row.zero_stage) if row.total_cards == 1 and row.zero_stage else ""
        return ["- " + self.say("recipe_why", label=RECIPE_LABEL[self.lang], one=one)]

    def listed(self, f: TrainingFacts) -> str | None:
        """Whether the minimum-card table lists the job at the length asked: yes, or no with the row that answers instead."""
        call = f.min_call
        if call is None:
            return None
        strat = STRATEGY[self.lang][call.arg("strategy")] if call.arg("strategy") else ""
        if call.value is None:
            if call.error is None or call.error.field != "strategy":
                return None
            # the model listed for another method only ("mixtral-8x7b: full rows, no LoRA row")
            others = self.say("semicolon").join(STRATEGY[self.lang].get(x, x) for x in call.error.valid or [])
            return self.say("row_listed_no", label=MIN_LABEL[self.lang], what=f"{self.s.model} {strat}",
                            instead=self.say("row_listed_other_method", model=self.s.model, listed=others))
        asked, used = call.arg("seq_len"), call.value.seq_len_used
        if asked is None and self.s.seq_len and self.s.origin("seq_len") == "said":
            # a length said but the rows fetched whole (the shorter row bounds it): whether that length is listed
            asked = self.s.seq_len
            lengths = {r.seq_len for r in call.value.rows}
            used = asked if asked in lengths else (f.bound[0].seq_len if f.bound else None)
        what = " ".join(x for x in (self.s.model, strat, f"SEQ_LEN {asked}" if asked else "") if x)
        if asked is None or used == asked:
            # listed, but '-' for the framework asked of ("does the table list internvl2.5-38b for MindSpeed-LLM?")
            fw = self.s.framework
            rows = [r for r in call.value.rows if r.framework == fw and (used is None or r.seq_len == used)] if fw else []
            if rows and not any(r.supported for r in rows):
                return self.say("row_listed_dash", label=MIN_LABEL[self.lang], what=what, framework=fw)
            return self.say("row_listed_yes", label=MIN_LABEL[self.lang], what=what)
        return self.say("row_listed_no", label=MIN_LABEL[self.lang], what=what,
                        instead=self.say("row_listed_instead", used=used) if used else "")

    def setting_on_your_devices(self, f: TrainingFacts) -> str | None:
        """The ZeRO stage / gradient accumulation asked for, on the user's devices: the recipe row's when its
        count fits them (with the accumulation that keeps the row's global batch on the user's count), else
        the estimator's plan within them. None when the question asks for a device count too."""
        if not self.s.intents & {"zero", "ga"} or "cards" in self.s.intents or not self.e.devices:
            return None
        have = self.e.devices
        recipe = next((r for r in f.recipes if r.total_cards and r.total_cards <= have and self.tables_size_it()), None)
        if recipe and recipe.grad_accum and recipe.total_cards and recipe.zero_stage is not None:
            batch = recipe.grad_accum * recipe.total_cards  # micro batch 1 in the recipe table
            nearest = max(1, round(batch / have))  # no whole accumulation keeps it: the nearest, and the batch it gives
            keep = "" if have == recipe.total_cards else self.say(
                "setting_on_your_devices_to_keep_its", batch=batch, devs=self.devices(have), value=batch // have) if batch % have == 0 \
                else self.say("setting_on_your_devices_nearest", batch=batch, devs=self.devices(have), value=nearest, got=nearest * have)
            if self.s.global_batch:  # the user's own global batch replaces the row's
                keep = self.users_batch(have)
            return self.L(f"**{self.parallel(recipe.zero_stage, recipe.offload)}**, gradient accumulation **{recipe.grad_accum}** "
                          f"on {self.devices(recipe.total_cards)} ({RECIPE_LABEL['en']}){keep}.",
                          f"**{self.parallel(recipe.zero_stage, recipe.offload)}**，梯度累积 **{recipe.grad_accum}**，"
                          f"{self.devices(recipe.total_cards)}（{RECIPE_LABEL['zh']}）{keep}。")
        plan = next((r.value for r in f.plans if r.value and r.arg("max_devices") and r.value.fits), None)
        if plan is None:
            return None
        fw = self.fw_name(plan.framework, plan.hardware)
        self.stated.append(plan)  # stated here in full: the plan's line below refers to it
        # "which stage with offload?": say whether offload is needed at all
        offload = "" if not self.s.offload else self.say("setting_on_your_devices_cpu_offload_is") if plan.offload else \
            self.say("setting_on_your_devices_no_cpu_offload")
        devs = self.devices(have, plan.unit, plan.hardware)
        if plan.framework == "MindSpeed-LLM" and plan.devices < have and have % (plan.tp * plan.pp * plan.cp):
            return self.split_on_all(plan, have, fw)  # data parallel on the rest is no Megatron layout: one that divides all
        if plan.devices < have:  # the setting asked is for the user's count: fewer devices hold it, the rest add data parallel
            setting = self.parallel(plan.zero_stage, plan.offload, plan.tp, plan.pp, plan.cp, plan.ep)
            return self.say("setting_on_your_devices_fewer_needed", devs=devs, setting=setting, plan_summary=self.plan_summary(plan),
                            fw=fw, offload=offload)
        setting = self.parallel(plan.zero_stage, plan.offload, plan.tp, plan.pp, plan.cp, plan.ep)
        return self.say("setting_on_your_devices_estimate_for_your", devs=devs, setting=setting, plan_summary=self.plan_summary(plan),
                        fw=fw, offload=offload)

    def split_on_all(self, plan: PlanResult, have: int, fw: str) -> str:
        """A MindSpeed-LLM plan on fewer of the user's devices whose TP x PP x CP does not divide all of them: the layout
        that does (route.all_devices_layouts estimated them, estimate/layout.py keeps them valid), fits first; else the
        plan on part of them, said as such."""
        mine = [m for m in self.r.values("estimate_training_memory", TrainingMemoryResult)
                if m.devices == have and m.framework == "MindSpeed-LLM" and m.verdict != "does_not_fit"]
        best = min(mine, key=lambda m: (m.verdict != "fits", m.high_gib), default=None)
        unit = plan.tp * plan.pp * plan.cp
        devs = self.devices(have, plan.unit, plan.hardware)
        plan_split = self.parallel(None, None, plan.tp, plan.pp, plan.cp, plan.ep)
        if best is None:
            return self.say("split_on_part", split=plan_split, n=self.devices(plan.devices, plan.unit, plan.hardware), devs=devs,
                            fw=fw, plan_summary=self.plan_summary(plan), mp=unit, have=have)
        return self.say("split_on_all", split=self.parallel(None, None, best.tp, best.pp, best.cp, best.ep), dp=best.data_parallel,
                        devs=devs, fw=fw, gib=f"{best.total_gib:.1f}", per=self.per_device(plan.unit, plan.hardware),
                        verdict=VERDICT[best.verdict][self.lang], plan_split=plan_split,
                        n=self.devices(plan.devices, plan.unit, plan.hardware), mp=unit, have=have)

    def same_as_yours(self, f: TrainingFacts) -> bool:
        """No vendor row, and the plan without a limit is the one on the user's devices: said once, by the verdict."""
        capped = [r.value for r in f.plans if r.value is not None and r.arg("max_devices") and r.value.fits]
        free = [p for p in self.free_plans(f) if p.fits]
        return bool(free) and not (f.recipes or f.rows or f.bound) and all(
            any((c.devices, c.zero_stage, c.offload, c.tp, c.pp) == (p.devices, p.zero_stage, p.offload, p.tp, p.pp) for c in capped)
            for p in free)

    def users_batch(self, have: int) -> str:
        """'; for your global batch of 64 on all your 8 cards (micro batch 1): gradient accumulation 8' (GA = global batch /
        (micro batch x devices)), or why it does not divide."""
        g, m = self.s.global_batch or 0, self.s.micro_batch or 1
        devs = self.devices(have)
        if g % (m * have):
            return self.say("users_batch_your_global_batch", g=g, value=m, devs=devs)
        return self.say("users_batch_for_your_global", g=g, devs=devs, value=m, value2=g // (m * have))

    def pretrain_note(self, rows: bool) -> str:
        """Pre-training is sized like SFT: same memory per device for the same method and length."""
        per = self.per_device().strip()
        if rows:
            why = self.say("pretrain_note_the_modelarts_minimum")
        else:
            why = self.say("pretrain_note_so_the_estimate")
        return self.say("pretrain_note_pre_training_stage", per=per, why=why)

    def free_plans(self, f: TrainingFacts) -> list[PlanResult]:
        """The plans without the user's device cap (what the job needs)."""
        return [r.value for r in f.plans if r.value is not None and not r.arg("max_devices")]

    def zero_from_estimate(self, f: TrainingFacts) -> list[str]:
        """"Which ZeRO stage / GA" when the recipe table has no row: the minimum-card table gives cards only,
        so the stage comes from the estimate, said right under the card count."""
        if not self.s.intents & {"zero", "ga"} or f.recipes or not self.wanted_rows(f.rows) or self.s.framework == "MindSpeed-LLM":
            return []
        if stage_named_not_asked(self.s) and "ga" not in self.s.intents:  # the stage is theirs, judged above: none proposed
            return []
        within = [r.value for r in f.plans if r.value is not None and r.arg("max_devices")]  # on the user's devices first
        # the stage and offload the user chose are the answer's one setting: a plan with another is an alternative,
        # never stated as "the ZeRO stage" beside a lead that judges theirs
        plan = next((p for p in within + self.free_plans(f) if p.fits and p.zero_stage is not None and self.keeps_setting(p)), None)
        if not plan:
            return []
        zero = self.parallel(plan.zero_stage, plan.offload)
        devs = self.devices(plan.devices, plan.unit, plan.hardware)
        # the headline's count is the table's: a setting sized for another count says so, so the two do not contradict
        table = min((r.cards for r in self.wanted_rows(f.rows) if r.supported and r.cards and r.framework == plan.framework), default=None)
        if table and table != plan.devices and not any(plan is p for p in within):  # a plan on the user's devices is theirs
            return [self.say("zero_from_estimate_other", zero=zero, ga=plan.grad_accum, devs=devs,
                             table=self.devices(table, plan.unit, plan.hardware))]
        return [self.say("zero_from_estimate", zero=zero, ga=plan.grad_accum, devs=devs)]

    def keeps_setting_row(self, r) -> bool:
        """The recipe row runs the ZeRO stage and offload the user said (or they said neither)."""
        zero, offload = self.s.zero_stage, offload_said(self.s)
        return (zero is None or r.zero_stage == zero) and (offload is None or bool(r.offload) == offload)

    def keeps_setting(self, p: PlanResult) -> bool:
        """The plan has the ZeRO stage and offload the user said (in this turn or earlier), or they said neither; a stage
        judged without offload named ("zero2 能跑吗") is judged without it, so a plan with offload is another setting."""
        named = named_setting(self.s)
        zero, offload = self.s.zero_stage, named.offload if named else offload_said(self.s)
        return (zero is None or p.zero_stage == zero) and (offload is None or p.offload == offload)

    # -- the headline: the first rule that applies ---------------------------------------------
    def training_headline(self, f: TrainingFacts) -> str | None:
        """One sentence that answers the question; the lines below give every row it came from."""
        memory_first = "memory" in self.s.intents and "cards" not in self.s.intents  # "how much memory per device": the GiB lead
        # "use zero3 instead": the stage the user chose leads (the plan keeps to it); a recipe row with another stage backs it
        own_setting = any(not self.keeps_setting_row(r) for r in f.recipes) and any(self.keeps_setting(p) for p in self.asked_plans(f))
        rules: list[Callable[[TrainingFacts], str | None]] = [
            self.headline_not_listed, self.headline_unsupported, *([self.headline_estimate] if memory_first or own_setting else []),
            partial(self.headline_recipe, first=True), self.headline_min_rows, self.headline_recipe,
            self.headline_method_fits_nowhere, self.headline_estimate, self.headline_nothing_fits,
        ]
        text = next((text for rule in rules if (text := rule(f))), None)
        if not text or not (length := self.row_length_first(f)):
            return text
        # each ask in the order asked: the row's length before its counts when the question asks it first
        # a table's name ("min card row", "最小卡数表") asks no count
        q = Reading.claiming(self.s.question.lower(), "table", *table_query.VOCAB.tables.values())
        at, count = q.search(INTENTS["row_length"]), q.search(ASKS_COUNT)
        return length + text if at and (count is None or at.start() <= count.start()) else text + self.space() + length.strip()

    def row_length_first(self, f: TrainingFacts) -> str:
        """"What sequence length is the min-card row written for, and how many cards?": the row's own length, a field of
        the row asked, leads its counts (the frame's default length is an assumption, not the row's)."""
        if "row_length" not in self.s.intents:
            return ""
        if asks_recipe(self.s) and f.recipes:
            lengths, table = sorted({r.seq_len_used or r.seq_len for r in f.recipes}), RECIPE_LABEL[self.lang]
        else:
            rows = [r for r in (f.rows or f.bound) if not self.s.method or r.strategy == self.s.method]
            lengths, table = sorted({r.seq_len for r in rows}), MIN_LABEL[self.lang]
        if not lengths:
            return ""
        only = f.min_call is not None and f.min_call.arg("seq_len") is None and len(lengths) == 1  # every row of the model
        return self.say("row_length_lead", table=table, model=self.s.model, method=self.method_name(self.s.method),
                        lengths=" / ".join(map(str, lengths))) + (self.say("row_length_only") if only else "") + self.say("period") + self.space()

    def space(self) -> str:
        return "" if self.zh else " "

    def headline_not_listed(self, f: TrainingFacts) -> str | None:
        """"Is X supported by MindSpeed-LLM?" and the vendor tables do not name X: say so first, then the
        estimate as an estimate (not listed is not the same as not supported)."""
        call = f.min_call
        if not self.asks_support() or f.rows or f.recipes or f.bound or call is None or call.error.code != "no_table_row":
            return None
        fw = self.s.framework or "MindSpeed-LLM / LLaMA-Factory"
        recipe_missing = any(r.error.code == "no_table_row" for r in self.r.of("training_recipe", TrainingRecipeResult, ok=False))
        # only the tables consulted: the recipe table is LLaMA-Factory's, so a MindSpeed-LLM question does not read it
        tables = self.say("headline_not_listed_or_the").join([MIN_LABEL[self.lang]] + [RECIPE_LABEL[self.lang]] * recipe_missing)
        line = self.say("not_listed", model=self.s.model, tables=tables, fw=fw)
        estimate = self.headline_estimate(f)
        return line + (self.say("by_the_estimate", estimate=estimate) if estimate else "")

    def asks_support(self) -> bool:
        """"Is X supported by …?": asked about support, not about the user's own devices (a verdict answers those)."""
        return "support" in self.s.intents and not self.e.devices

    def tables_size_it(self) -> bool:
        """The vendor rows answer the job: not a stage they do not size (DPO, PPO...) and not QLoRA, whose
        LoRA rows are only an upper bound (a 4-bit base needs less memory than LoRA's 16-bit one)."""
        return self.s.stage not in PREFERENCE_STAGES and self.s.method != "qlora"

    def table_rows_apply(self, f: TrainingFacts) -> list[MinCardsRow]:
        """The asked framework's rows, when the tables size this job."""
        return self.wanted_rows(f.rows) if self.tables_size_it() else []

    def headline_unsupported(self, f: TrainingFacts) -> str | None:
        """The framework asked is '-' in the minimum-card table (at the length asked, or at the shorter length that
        bounds it): that leads, before any estimate; a recipe-table row for the same job is named as a conflict."""
        s, pool = self.s, f.rows or f.bound
        wanted = self.wanted_rows(pool)
        if not (s.framework and wanted and all(not r.supported for r in wanted)):
            return None
        length = wanted[0].seq_len
        line = self.say("unsupported", model=s.model, fw=s.framework) + (
            self.say("unsupported_at", length=length, asked=f.asked) if length != f.asked else "")
        others = [r for r in pool if r.framework != s.framework and r.supported]
        if others:
            line += self.say("supported_instead", alt=self.say("semicolon").join(self.row_summary(r, with_strategy=True) for r in others))
        if s.framework == "LLaMA-Factory" and f.recipes:  # seeds 000 and 004 disagree: say so, do not pick one silently
            line += self.say("recipe_conflict", rows=self.say("semicolon").join(self.recipe_summary(r) for r in f.recipes))
        return line

    def headline_recipe(self, f: TrainingFacts, first: bool = False) -> str | None:
        """The recipe row as the headline. ``first``: ahead of the minimum-card rows, for LLaMA-Factory (or no framework),
        unless the question names LLaMA-Factory without asking for ZeRO/GA and the minimum-card table has its row."""
        if not f.recipes or not self.tables_size_it():
            return None
        if first and (self.s.framework not in (None, "LLaMA-Factory") or (
                (self.s.framework == "LLaMA-Factory" or self.e.facts.unit == "die")  # Snt9B23: the min-card table has its own
                and self.table_rows_apply(f) and not self.s.intents & {"zero", "ga"}  # DIE columns for a count
                and not asks_recipe(self.s))):  # "配方表给几台机器": the table the question names answers it
            return None
        # on Snt9B23 the recipe's setting runs on at least the minimum-card table's DIE count for the same job
        # (not when the recipe itself is asked for: then its own row is the answer)
        die_rows = {r.strategy: r for r in self.table_rows_apply(f)
                    if self.e.facts.unit == "die" and r.hardware == self.e.part and r.framework == "LLaMA-Factory" and r.supported and not asks_recipe(self.s)}
        return "; ".join(self.recipe_summary(r, die_rows.get(r.strategy)) for r in f.recipes) + self.say(
            "recipe_source", label=RECIPE_LABEL[self.lang])

    def headline_min_rows(self, f: TrainingFacts) -> str | None:
        wanted = self.table_rows_apply(f)
        if not wanted:
            return None
        multi = len({x.strategy for x in wanted}) > 1
        listed = self.say("listed_yes") if self.asks_support() and all(r.supported for r in wanted) else ""
        return listed + self.say("semicolon").join(self.row_summary(r, with_strategy=multi) for r in wanted) + self.say(
            "min_source", label=MIN_LABEL[self.lang], part=wanted[0].hardware)

    def asked_plans(self, f: TrainingFacts) -> list[PlanResult]:
        fitting = [p for p in self.free_plans(f) if p.fits and self.users_framework_plan(p)]
        return [p for p in fitting if not self.s.method or p.method == self.s.method]

    def users_framework_plan(self, p: PlanResult) -> bool:
        """The plan runs the framework the user named, or the one their DeepSpeed setting implies ("zero2",
        "offload"): another framework's plan is an alternative said in the lines, never what their job needs."""
        deepspeed = self.s.zero_stage is not None or bool(offload_said(self.s))
        if self.s.framework:
            return p.framework == self.s.framework
        return not deepspeed or p.zero_stage is not None

    def headline_method_fits_nowhere(self, f: TrainingFacts) -> str | None:
        """The method asked fits nowhere; an alternative may (said in the sentence)."""
        s = self.s
        failed = next((p for p in self.free_plans(f) if not p.fits and self.users_framework_plan(p)), None)
        if not (s.method and failed and not self.asked_plans(f)):
            return None
        name = self.method_name(s.method) + (f" {s.stage.upper()}" if s.stage and s.stage != "sft" else "")
        return self.say("estimate_plain", plans=f"{name}{' ' if self.lang == 'en' or name[-1].isascii() else ''}{self.no_fit_text(failed)}")

    def headline_estimate(self, f: TrainingFacts) -> str | None:
        # "memory per card on our 16": the plan on all of the user's devices (plan_training all_devices) gives the figure
        mine = [r.value for r in f.plans if r.value is not None and r.arg("all_devices") and r.value.fits
                and r.value.devices == r.arg("max_devices") and self.users_framework_plan(r.value)
                and (not self.s.method or r.value.method == self.s.method)] \
            if "memory" in self.s.intents and "cards" not in self.s.intents else []
        plans = mine or self.asked_plans(f) or [p for p in self.free_plans(f) if p.fits and self.users_framework_plan(p)]
        if not plans:
            return None
        checked = [p for p in plans if not implausible(p)]  # the plausibility check picks what is shown, before it is shown
        if not checked:
            return self.rejected_headline(f, plans[0])
        plans, s = checked, self.s
        many = len({p.method for p in plans}) > 1
        memory_first = "memory" in s.intents and "cards" not in s.intents  # "how much memory": the GiB per device first
        parts = [(self.method_name(p.method) + self.say("colon") if many else "")
                 + (self.memory_summary(p) if memory_first else
                    self.plan_summary(p) + self.say("bracketed", text=self.fw_name(p.framework, p.hardware)))
                 for p in plans]
        joined = self.say("semicolon").join(parts)
        if not memory_first:
            self.stated += plans
        if s.stage in PREFERENCE_STAGES:
            return self.say("headline_estimate_estimate_for", value=s.stage.upper(), joined=joined)
        bounded = self.estimate_within_bounds(f, joined)
        if bounded:
            return bounded
        if any(p.table for p in plans):  # the plan carries the vendor row; the lines below compare them
            return self.say("estimate_plain", plans=joined)
        return self.say("estimate_no_row", plans=joined)

    def rejected_headline(self, f: TrainingFacts, p: PlanResult) -> str:
        """The planner's count fails the plausibility check (asked.implausible): its slower setting on fewer devices
        leads when that one passes, else no count is given, only the floor the model states set."""
        alt, floor = self.plausible_fewer(p), weights_floor(p)
        devs = self.devices(p.devices, p.unit, p.hardware)
        if alt:
            shown = self.say("check_alternative", devs=self.devices(alt.devices, p.unit, p.hardware),
                             setting=assumption_zh(alt.setting.replace(" x ", " × "), TOOL_NOTE_ZH) if self.zh else alt.setting.replace(" x ", " × "),
                             total=f"{alt.total_gib:.1f}", per=self.per_device(p.unit, p.hardware), fw=self.fw_name(p.framework, p.hardware))
            picked = p.model_copy(update={"devices": alt.devices})
            line = self.estimate_within_bounds(f, shown, picked) or self.say("estimate_plain", plans=shown)
            return line + self.say("check_rejected_count", devs=devs)
        return self.say("check_no_count", devs=devs, floor=self.devices(floor, p.unit, p.hardware))

    def estimate_within_bounds(self, f: TrainingFacts, joined: str, shown: PlanResult | None = None) -> str | None:
        """The estimate with the vendor rows that bound it: shorter rows from below (no row at the length
        asked), LoRA rows from above (QLoRA)."""
        rows = [r for r in self.wanted_rows(f.bound) if r.supported and r.cards]
        if f.bound and rows:  # (a bound of '-' rows only is said by headline_unsupported)
            many = len({r.strategy for r in rows}) > 1  # LoRA and full: say which row is which
            listed = self.say("comma").join((f"{STRATEGY[self.lang][r.strategy]} " if many else "")
                                            + f"{r.framework} {self.devices(r.cards, r.unit)}" for r in rows)
            plans = [shown] if shown else [p for p in self.asked_plans(f) or self.free_plans(f) if p.fits]
            below = any(p.devices < (r.cards or 0) for p in plans
                        for r in rows if r.framework == p.framework)  # a longer job on fewer devices than the shorter row
            key = "bound_above_estimate" if below else "estimate_with_bound"
            return self.say(key, plans=joined, asked=f.asked, length=f.bound[0].seq_len, listed=listed)
        upper = [(r.framework, r.cards, r.unit) for r in self.wanted_rows(f.rows) if r.supported and r.cards] + [
            ("LLaMA-Factory", r.total_cards, "card") for r in f.recipes if r.total_cards]
        if self.s.method == "qlora" and upper:
            listed = self.say("comma").join(f"{fw} {self.devices(n, unit)}" for fw, n, unit in upper)
            return self.say("estimate_with_upper", plans=joined, listed=listed,
                            bits=self.s.weight_bits or TrainConfig().quant_bits)  # the base's bits as said, else the estimator's
        return None

    def headline_nothing_fits(self, f: TrainingFacts) -> str | None:
        if not f.plans or any(r.value and r.value.fits for r in f.plans):
            return None
        if all(r.value is None for r in f.plans):  # every estimate refused its arguments: nothing was sized
            return self.say("headline_estimate_refused")
        return self.say("headline_nothing_fits_no_setting_fits")

    # -- summaries -----------------------------------------------------------------------------
    def memory_summary(self, p: PlanResult) -> str:
        """'about **27.6 GiB per card** (LLaMA-Factory ZeRO-0 on 1 card)' from a plan_training result."""
        per = self.per_device(p.unit, p.hardware)
        devs = self.devices(p.devices, p.unit, p.hardware)
        setting = self.parallel(p.zero_stage, p.offload, p.tp, p.pp)
        fw = self.fw_name(p.framework, p.hardware)
        return self.say("memory_summary_about_gib_per", total_gib=float(self.point(p.memory)), per=per, fw=fw, setting=setting, devs=devs)
