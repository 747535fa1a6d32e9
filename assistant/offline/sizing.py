"""Training-sizing blocks of the answer: the two vendor tables (recipe, minimum cards), where they
disagree, the user's own device count, and the estimator's plan and memory breakdown beside them.
The headline is the first rule of a short table that applies; the blocks under it follow in a fixed order."""

from __future__ import annotations

from collections.abc import Callable

from ..tools.estimates import PlanResult, TrainingMemoryResult
from ..tools.tables import MinCardsResult, MinCardsRow, TrainingRecipeResult
from .capacity import CapacityBlocks, TrainingFacts, shorter_rows
from .results import Result
from .wording import MIN_LABEL, RECIPE_LABEL, STRATEGY

PREFERENCE_STAGES = ("dpo", "kto", "ppo", "rm")  # the vendor tables size SFT/PT jobs only


class TrainingBlocks(CapacityBlocks):
    """Blocks for cards/nodes/ZeRO/GA questions: a one-line answer, then every row it came from."""

    def training_facts(self) -> TrainingFacts:
        recipe_calls = self.r.of("training_recipe", TrainingRecipeResult, ok=None)
        mins = self.r.of("min_cards", MinCardsResult)
        f = TrainingFacts(self.e.seq_len, [r.value for r in recipe_calls if r.value and r.value.found], [],
                          recipe_bound=[r.value for r in recipe_calls if r.value and not r.value.found],
                          plans=self.r.of("plan_training", PlanResult, ok=None))
        with_rows = [m for m in mins if m.value and m.value.rows]
        every_call = self.r.of("min_cards", MinCardsResult, ok=None)
        f.min_call = with_rows[0] if with_rows else (every_call[-1] if every_call else None)
        answered = mins[0].value if mins else None
        if answered and answered.rows:
            f.rows = answered.rows
        elif with_rows and with_rows[0].value:  # no row at the length asked: every listed length was fetched
            every = with_rows[0].value.rows
            f.bound = [] if "seq_len" in self.e.assumed else shorter_rows(every, f.asked)
            f.rows = every if "seq_len" in self.e.assumed else []
        return f

    def training(self) -> list[str]:
        f = self.training_facts()
        if not (f.recipes or f.recipe_bound or f.min_call or f.plans):
            return []
        body: list[str] = []
        verdict = self.verdict(f)  # "can I with my 16 cards?": yes or no before the details
        if verdict:
            body.append(self.lead(verdict))
        headline = self.training_headline(f)
        if headline:
            body.append(self.L("**Needed:** ", "**所需**：") + headline if verdict else self.lead(headline))
        if self.s.stage == "pt" and (f.recipes or f.rows or f.plans):
            body.append(self.pretrain_note(bool(f.recipes or f.rows)))
        body += self.zero_from_estimate(f)
        if self.s.stage in PREFERENCE_STAGES and (f.recipes or f.rows):
            body.append(self.L(f"- The vendor tables list SFT/PT jobs; {self.s.stage.upper()} needs more memory (a reference model, "
                               "paired sequences), so use the estimate below for it.",
                               f"- 厂商表格针对 SFT/PT；{self.s.stage.upper()} 需要更多显存（参考模型、成对序列），请以下方估算为准。"))
        for r in self.r.of("training_recipe", TrainingRecipeResult, ok=None):
            body += self.recipe_lines(r)
        if f.min_call:
            body += self.min_lines(f)
        body += self.disagreement(f)
        for p in f.plans:
            body += self.plan_lines(p, f)
        return body + [""]

    def pretrain_note(self, rows: bool) -> str:
        """Pre-training is sized like SFT: same memory per device for the same method and length."""
        per = self.per_device().strip()
        if rows:
            why = self.L("; the ModelArts minimum-card table covers SFT and PT alike, so the vendor rows below apply as they are",
                         "；ModelArts 最小卡数表同时覆盖 SFT 和 PT，下列厂商数据可直接使用")
        else:
            why = self.L(", so the estimate below applies", "，下方估算同样适用")
        return self.L(f"- Pre-training (stage `pt`) needs the same memory per {per} as SFT with the same method and sequence length{why}. "
                      "From scratch or continued, the device count is the same; the number of training tokens sets the time "
                      "(ask e.g. “how long on 100B tokens with 64 cards”).",
                      f"- 预训练（stage `pt`）每{per}显存与同方法、同序列长度的 SFT 相同{why}。"
                      "从头预训练与增量预训练所需卡数相同，训练时长取决于 token 总量（可以问“1000亿 token、64 张卡要多久”）。")

    def free_plans(self, f: TrainingFacts) -> list[PlanResult]:
        """The plans without the user's device cap (what the job needs)."""
        return [r.value for r in f.plans if r.value is not None and not r.arg("max_devices")]

    def zero_from_estimate(self, f: TrainingFacts) -> list[str]:
        """"Which ZeRO stage / GA" when the recipe table has no row: the minimum-card table gives cards only,
        so the stage comes from the estimate, said right under the card count."""
        if not self.s.intents & {"zero", "ga"} or f.recipes or not self.wanted_rows(f.rows) or self.s.framework == "MindSpeed-LLM":
            return []
        plan = next((p for p in self.free_plans(f) if p.fits and p.zero_stage is not None), None)
        if not plan:
            return []
        zero = self.parallel(plan.zero_stage, plan.offload)
        devs = self.devices(plan.devices, plan.unit, plan.hardware)
        return [self.L(f"- **ZeRO stage** (estimate; the recipe table has no row for this case): **{zero}**, gradient accumulation "
                       f"{plan.grad_accum}, on {devs} (LLaMA-Factory).",
                       f"- **ZeRO 配置**（估算；配方表中没有这个组合）：**{zero}**，梯度累积 {plan.grad_accum}，{devs}（LLaMA-Factory）。")]

    # -- the headline: the first rule that applies ---------------------------------------------
    def training_headline(self, f: TrainingFacts) -> str | None:
        """One sentence that answers the question; the lines below give every row it came from."""
        rules: list[Callable[[TrainingFacts], str | None]] = [
            self.headline_not_listed, self.headline_unsupported, self.headline_recipe_first, self.headline_min_rows, self.headline_recipe,
            self.headline_method_fits_nowhere, self.headline_estimate, self.headline_nothing_fits,
        ]
        return next((text for rule in rules if (text := rule(f))), None)

    def headline_not_listed(self, f: TrainingFacts) -> str | None:
        """"Is X supported by MindSpeed-LLM?" and the vendor tables do not name X: say so first, then the
        estimate as an estimate (not listed is not the same as not supported)."""
        call = f.min_call
        if not self.asks_support() or f.rows or f.recipes or f.bound or call is None or call.error.code != "no_table_row":
            return None
        fw = self.s.framework or "MindSpeed-LLM / LLaMA-Factory"
        recipe_missing = any(r.error.code == "no_table_row" for r in self.r.of("training_recipe", TrainingRecipeResult, ok=False))
        # only the tables consulted: the recipe table is LLaMA-Factory's, so a MindSpeed-LLM question does not read it
        tables = self.L(" or the ", "和 ").join([MIN_LABEL[self.lang]] + [RECIPE_LABEL[self.lang]] * recipe_missing)
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
        s, wanted = self.s, self.wanted_rows(f.rows)
        if not (s.framework and wanted and all(not r.supported for r in wanted)):
            return None
        others = [r for r in f.rows if r.framework != s.framework and r.supported]
        line = self.L(f"{s.model} with {s.framework} is **not supported** in the ModelArts minimum-card table ('-').",
                      f"{s.model} 在 {s.framework} 上**不支持**（ModelArts 最小卡数表中为“-”）。")
        if others:
            alt = self.L("; ", "；").join(self.row_summary(r, with_strategy=True) for r in others)
            line += self.L(f" Supported instead: {alt}.", f"可改用：{alt}。")
        return line

    def recipe_headline(self, f: TrainingFacts) -> str:
        return "; ".join(self.recipe_summary(r) for r in f.recipes) + self.L(f" ({RECIPE_LABEL['en']}).", f"（{RECIPE_LABEL['zh']}）。")

    def headline_recipe_first(self, f: TrainingFacts) -> str | None:
        """The recipe table leads for LLaMA-Factory (or no framework), unless the question names LLaMA-Factory
        without asking for ZeRO/GA and the minimum-card table has its row."""
        if not f.recipes or not self.tables_size_it() or self.s.framework not in (None, "LLaMA-Factory"):
            return None
        prefer_min = self.s.framework == "LLaMA-Factory" and self.table_rows_apply(f) and not self.s.intents & {"zero", "ga"}
        return None if prefer_min else self.recipe_headline(f)

    def headline_min_rows(self, f: TrainingFacts) -> str | None:
        wanted = self.table_rows_apply(f)
        if not wanted:
            return None
        multi = len({x.strategy for x in wanted}) > 1
        listed = self.say("listed_yes") if self.asks_support() and all(r.supported for r in wanted) else ""
        return listed + self.L("; ", "；").join(self.row_summary(r, with_strategy=multi) for r in wanted) + self.L(
            f" ({MIN_LABEL['en']}, {wanted[0].hardware}).", f"（{MIN_LABEL['zh']}，{wanted[0].hardware}）。")

    def headline_recipe(self, f: TrainingFacts) -> str | None:
        return self.recipe_headline(f) if f.recipes and self.tables_size_it() else None

    def asked_plans(self, f: TrainingFacts) -> list[PlanResult]:
        fitting = [p for p in self.free_plans(f) if p.fits]
        return [p for p in fitting if not self.s.method or p.method == self.s.method]

    def headline_method_fits_nowhere(self, f: TrainingFacts) -> str | None:
        """The method asked fits nowhere; an alternative may (said in the sentence)."""
        s = self.s
        failed = next((p for p in self.free_plans(f) if not p.fits), None)
        if not (s.method and failed and not self.asked_plans(f)):
            return None
        name = self.method_name(s.method) + (f" {s.stage.upper()}" if s.stage and s.stage != "sft" else "")
        return self.L(f"estimate: {name} {self.no_fit_text(failed)}.", f"估算：{name}{' ' if name[-1].isascii() else ''}{self.no_fit_text(failed)}。")

    def headline_estimate(self, f: TrainingFacts) -> str | None:
        plans = self.asked_plans(f) or [p for p in self.free_plans(f) if p.fits]
        if not plans:
            return None
        s = self.s
        many = len({p.method for p in plans}) > 1
        memory_first = "memory" in s.intents and "cards" not in s.intents  # "how much memory": the GiB per device first
        parts = [(self.method_name(p.method) + self.L(": ", "：") if many else "")
                 + (self.memory_summary(p) if memory_first else
                    self.plan_summary(p) + self.L(f" ({self.fw_name(p.framework, p.hardware)})", f"（{self.fw_name(p.framework, p.hardware)}）"))
                 for p in plans]
        joined = self.L("; ", "；").join(parts)
        if s.stage in PREFERENCE_STAGES:
            return self.L(f"estimate for {s.stage.upper()}: {joined}.", f"{s.stage.upper()} 估算：{joined}。")
        if f.bound:  # no row at the length asked; the shorter rows bound it from below (lines below)
            listed = self.L(", ", "，").join(f"{r.framework} {self.devices(r.cards, r.unit)}" for r in self.wanted_rows(f.bound)
                                              if r.supported and r.cards)
            return self.say("estimate_with_bound", plans=joined, asked=f.asked, length=f.bound[0].seq_len, listed=listed)
        upper = [(r.framework, r.cards, r.unit) for r in self.wanted_rows(f.rows) if r.supported and r.cards] + [
            ("LLaMA-Factory", r.total_cards, "card") for r in f.recipes if r.total_cards]
        if s.method == "qlora" and upper:  # the LoRA rows bound QLoRA from above
            listed = self.L(", ", "，").join(f"{fw} {self.devices(n, unit)}" for fw, n, unit in upper)
            return self.say("estimate_with_upper", plans=joined, listed=listed)
        if any(p.table for p in plans):  # the plan carries the vendor row; the lines below compare them
            return self.L(f"estimate: {joined}.", f"估算：{joined}。")
        return self.L(f"estimate: {joined} — no vendor table row for this case.", f"估算：{joined}——厂商表格中没有这个组合。")

    def headline_nothing_fits(self, f: TrainingFacts) -> str | None:
        if not f.plans or any(r.value and r.value.fits for r in f.plans):
            return None
        return self.L("no setting fits on the hardware asked (estimate); see below.", "按估算，所问硬件上没有能放下的方案，详见下文。")

    # -- summaries -----------------------------------------------------------------------------
    def memory_summary(self, p: PlanResult) -> str:
        """'about **27.6 GiB per card** (LLaMA-Factory ZeRO-0 on 1 card)' from a plan_training result."""
        per = self.per_device(p.unit, p.hardware)
        devs = self.devices(p.devices, p.unit, p.hardware)
        setting = self.parallel(p.zero_stage, p.offload, p.tp, p.pp)
        fw = self.fw_name(p.framework, p.hardware)
        return self.L(f"about **{p.memory.total_gib:.1f} GiB per {per}** ({fw} {setting} on {devs})",
                      f"每{per}约 **{p.memory.total_gib:.1f} GiB**（{fw} {setting}，{devs}）")

    def recipe_summary(self, r: TrainingRecipeResult) -> str:
        strat = STRATEGY[self.lang][r.strategy]
        zero = f"ZeRO-{r.zero_stage}，{self.offload_text(r.offload)}" if self.zh else f"ZeRO-{r.zero_stage}, {self.offload_text(r.offload)}"
        return self.L(f"{strat}: {self.nodes(r.nodes)} × {r.cards_per_node} = {self.devices(r.total_cards)}, "
                      f"DeepSpeed {r.deepspeed} ({zero}), gradient accumulation {r.grad_accum}",
                      f"{strat}：{r.nodes} 个节点 × 每节点 {r.cards_per_node} 卡 = {r.total_cards} 张卡，"
                      f"DeepSpeed {r.deepspeed}（{zero}），梯度累积 {r.grad_accum}")

    def recipe_lines(self, call: Result[TrainingRecipeResult]) -> list[str]:
        s, r = self.s, call.value
        if r is None:
            if call.error.code == "no_table_row" and (s.intents & {"zero", "ga"} or s.framework == "LLaMA-Factory"):
                return [self.L(f"- {RECIPE_LABEL['en']}: no row for {s.model} ({call.arg('strategy')}).",
                               f"- {RECIPE_LABEL['zh']}：没有 {s.model}（{call.arg('strategy')}）的数据。")]
            return []
        self.cite(r.source or (r.rows[0].source if r.rows else None))
        strat = STRATEGY[self.lang][r.strategy]
        if not r.found:
            listed = sorted({x.cutoff_len for x in r.rows})
            return [self.L(f"- {RECIPE_LABEL['en']} ({strat}): no row at {r.seq_len} tokens; it lists {listed}.",
                           f"- {RECIPE_LABEL['zh']}（{strat}）：没有序列长度 {r.seq_len} 的数据，表中只有 {listed}。")]
        note = ""
        if r.seq_len_used and r.seq_len_used != r.seq_len:
            note = self.L(f" (answered from the {r.seq_len_used}-token row)", f"（按表中 {r.seq_len_used} 的行回答）")
        if self.zh:
            return [f"- **{RECIPE_LABEL['zh']}**（{strat}，cutoff_len {r.seq_len_used}{note}）：{r.nodes} 个节点 × 每节点 "
                    f"{r.cards_per_node} 卡 = **{r.total_cards} 张卡**；DeepSpeed **{r.deepspeed}**（ZeRO-{r.zero_stage}，"
                    f"{self.offload_text(r.offload)}）；梯度累积 gradient_accumulation_steps **{r.grad_accum}**；模板 template `{r.template}`。"]
        return [f"- **{RECIPE_LABEL['en']}** ({strat}, cutoff_len {r.seq_len_used}{note}): {self.nodes(r.nodes)} × "
                f"{self.devices(r.cards_per_node)} = **{self.devices(r.total_cards)}**; DeepSpeed **{r.deepspeed}** "
                f"(ZeRO-{r.zero_stage}, {self.offload_text(r.offload)}); gradient_accumulation_steps **{r.grad_accum}**; "
                f"template `{r.template}`."]

    def row_summary(self, r: MinCardsRow, with_strategy: bool = False) -> str:
        strat = f"{STRATEGY[self.lang][r.strategy]} " if with_strategy else ""
        if not r.supported:
            return self.L(f"{strat}{r.framework}: **not supported** ('-')", f"{strat}{r.framework}：**不支持**（“-”）")
        if r.unit == "DIE":
            extra = self.L(f"{r.physical_cards} physical card(s), {self.nodes(r.nodes)} of 16 DIE",
                           f"{r.physical_cards} 张物理卡，{r.nodes} 个节点（每节点 16 DIE）")
        else:
            extra = self.nodes(r.nodes)
        return self.L(f"{strat}{r.framework}: **{self.devices(r.cards, r.unit)}** ({extra})",
                      f"{strat}{r.framework}：**{self.devices(r.cards, r.unit)}**（{extra}）")

    def min_lines(self, f: TrainingFacts) -> list[str]:
        call = f.min_call
        if call is None or call.value is None:
            if call is not None and call.error.code == "no_table_row":
                return [self.L(f"- {MIN_LABEL['en']}: no row for {self.s.model}.", f"- {MIN_LABEL['zh']}：没有 {self.s.model} 的数据。")]
            return [f"- {call.error.message}"] if call else []
        rows = f.rows or f.bound
        if not rows:
            listed = sorted({r.seq_len for r in call.value.rows})
            return [self.L(f"- {MIN_LABEL['en']}: no row at {f.asked} tokens" + (f" (it lists {listed})." if listed else "."),
                           f"- {MIN_LABEL['zh']}：没有序列长度 {f.asked} 的数据" + (f"（表中只有 {listed}）。" if listed else "。"))]
        for row in rows:
            self.cite(row.source)
        return self.min_row_groups(rows, bound=not f.rows) + self.min_notes(f, call, rows)

    def min_notes(self, f: TrainingFacts, call: Result[MinCardsResult], rows: list[MinCardsRow]) -> list[str]:
        """Under the rows: which length answered, the table's own remarks (8-card practice, DIE)."""
        lines: list[str] = []
        used = call.value.seq_len_used if call.value else None
        if f.rows and used and call.arg("seq_len") and used != call.arg("seq_len"):
            lines.append(self.L(f"  (no {call.arg('seq_len')}-token row; answered from the {used}-token row)",
                                f"  （表中没有 {call.arg('seq_len')}，按 {used} 的行回答）"))
        elif f.rows and call.arg("seq_len") is None and f.asked not in {r.seq_len for r in rows}:
            lines.append(self.L(f"  No row at {f.asked} tokens for this model; the table lists only {sorted({r.seq_len for r in rows})}.",
                                f"  该模型在表中没有序列长度 {f.asked} 的行，只有 {sorted({r.seq_len for r in rows})}。"))
        if any(x.supported and x.cards and x.cards < 8 and x.unit == "card" for x in rows):
            lines.append(self.L("  The table notes that jobs needing fewer than 8 cards are in practice run on 8.",
                                "  表格备注：少于 8 卡的任务实际按 8 卡运行。"))
        if rows[0].hardware == "Snt9B23":
            lines.append(self.L("  On Snt9B23 the unit is the DIE: 8 cards = 16 DIE per node; 2 DIE is the smallest parallel unit.",
                                "  Snt9B23 以 DIE 计：每节点 8 张卡 = 16 DIE，2 DIE 为最小并行单位。"))
        return lines

    def min_row_groups(self, rows: list[MinCardsRow], bound: bool) -> list[str]:
        """One line per (strategy, length), the asked framework first; a shorter row is labelled a lower bound."""
        fw = self.s.framework
        groups: dict[tuple[str, int], list[MinCardsRow]] = {}
        for row in sorted(rows, key=lambda x: (x.strategy, x.seq_len, x.framework != (fw or x.framework), x.framework)):
            groups.setdefault((row.strategy, row.seq_len), []).append(row)
        lines = []
        for (strat, seq), group in groups.items():
            items = self.L("; ", "；").join(self.row_summary(x) for x in group)
            label, hw = STRATEGY[self.lang][strat], group[0].hardware
            floor = self.L(f"; a lower bound for {self.e.seq_len} tokens", f"；是序列长度 {self.e.seq_len} 的下限") if bound else ""
            if self.s.method == "qlora":
                floor += self.say("upper_for_qlora")
            lines.append(self.L(f"- **{MIN_LABEL['en']}** ({label}, SEQ_LEN {seq}, {hw}{floor}): {items}.",
                                f"- **{MIN_LABEL['zh']}**（{label}，SEQ_LEN {seq}，{hw}{floor}）：{items}。"))
        return lines

    def disagreement(self, f: TrainingFacts) -> list[str]:
        out = []
        for rec in f.recipes:
            for row in f.rows:
                if (row.framework == "LLaMA-Factory" and row.strategy == rec.strategy and row.hardware == "Snt9B"
                        and row.supported and row.cards and rec.total_cards and row.cards != rec.total_cards):
                    most = max(rec.total_cards, row.cards)
                    out.append(self.L(
                        f"- Note: the two vendor tables disagree for LLaMA-Factory {STRATEGY['en'][rec.strategy]}: the recipe table "
                        f"uses {rec.total_cards} cards, the minimum-card table lists {row.cards}. Both are shown; plan for "
                        f"{most} if memory is tight.",
                        f"- 注意：两张厂商表对 LLaMA-Factory {STRATEGY['zh'][rec.strategy]} 不一致：配方表为 {rec.total_cards} 张卡，"
                        f"最小卡数表为 {row.cards} 张。两者都列出；显存紧张时按 {most} 张规划。"))
        return out

    # -- estimator blocks (plan_training, estimate_training_memory) ----------------------------
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
        return self.L(f"Estimate within your {devs}, {method}, {fw}", f"估算（在你的 {devs}{' ' if p.unit.lower() == 'die' else ''}以内，{method}，{fw}）")

    def plan_lines(self, call: Result[PlanResult], f: TrainingFacts) -> list[str]:
        p = call.value
        if p is None:
            return [self.L(f"- Estimate not available: {call.error.message}", f"- 无法估算：{call.error.message}")]
        if call.arg("max_devices") and self.capped_adds_nothing(call, f):
            return []  # the plan without a cap already fits the user's devices: shown once
        label, how = self.plan_label(call, p), self.estimate_label(p.assumptions, short=True)
        if not p.fits:
            return [self.no_fit_line(call, p, label, how)]
        out = [self.L(f"- **{label}** ({how}): {self.plan_summary(p)}.", f"- **{label}**（{how}）：{self.plan_summary(p)}。")]
        return out + self.table_comparison(p) + self.practice_lines(p) + self.fewer_line(call, p) + self.no_row_line(call, p, f)

    def no_fit_line(self, call: Result[PlanResult], p: PlanResult, label: str, how: str) -> str:
        mem = p.memory
        if mem.fits and not mem.host_ram_fits:
            return self.L(f"- **{label}**: does not fit — device memory would ({mem.total_gib:.1f} of {mem.usable_gib:.1f} GiB with "
                          f"offload), but offload needs {mem.host_ram_gib:,.0f} GiB of host RAM ({how}).",
                          f"- **{label}**：放不下——开启 offload 后每卡显存够用（{mem.total_gib:.1f}/{mem.usable_gib:.1f} GiB），"
                          f"但需要 {mem.host_ram_gib:,.0f} GiB 主机内存（{how}）。")
        if not call.arg("max_devices"):  # no device limit: it fits at no count; say why and what fits instead
            return self.L(f"- **{label}** ({how}): {self.no_fit_text(p)}.", f"- **{label}**（{how}）：{self.no_fit_text(p)}。")
        return self.L(f"- **{label}**: nothing fits — even {self.devices(p.devices, p.unit)} with the most memory-saving setting "
                      f"need {mem.total_gib:.1f} GiB per device of {mem.usable_gib:.1f} ({how}).",
                      f"- **{label}**：放不下——即使 {p.devices} 张卡并用最省显存的设置，每卡仍需 {mem.total_gib:.1f} GiB，"
                      f"可用 {mem.usable_gib:.1f} GiB（{how}）。")

    def table_comparison(self, p: PlanResult) -> list[str]:
        out = []
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

    def fewer_line(self, call: Result[PlanResult], p: PlanResult) -> list[str]:
        fewer = p.fewer_devices
        if fewer is None or call.arg("max_devices"):
            return []
        devs = self.devices(fewer.devices, p.unit, p.hardware)
        host = fewer.host_ram_gib_per_node
        ram = self.L(f", {host:,.0f} GiB host RAM per node", f"，每节点主机内存 {host:,.0f} GiB") if host else ""
        return [self.L(f"  Fewer devices, slower: {devs} with {fewer.setting} (about {fewer.total_gib:.1f} GiB per device{ram}).",
                       f"  更少的卡（更慢）：{devs}，{fewer.setting}（每卡约 {fewer.total_gib:.1f} GiB{ram}）。")]

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
        if not (p.practice and need and need < rec):
            return []
        need_s, rec_s = self.devices(need, p.unit, p.hardware), self.devices(rec, p.unit, p.hardware)
        return [self.L(
            f"  Why {rec_s}: device memory alone holds the job on {need_s}; ModelArts practice sizes a LoRA job at "
            f"about half of the same model's full fine-tuning devices, which gives {rec_s}. Plan with {rec_s} to match "
            f"the vendor's tested setup; {need_s} is the memory minimum (fits by the estimate, not run by the vendor).",
            f"  为什么是 {rec_s}：仅按显存 {need_s}即可放下；ModelArts 的做法是 LoRA 任务按同一模型全参微调卡数的一半左右配置，"
            f"即 {rec_s}。按 {rec_s}规划与厂商验证过的配置一致；{need_s}是显存下限（估算可放下，厂商未实测）。")]

    def memory(self, call: Result[TrainingMemoryResult]) -> list[str]:
        m = call.value
        if m is None:
            return [self.L(f"Memory estimate not available: {call.error.message}", f"无法估算显存：{call.error.message}"), ""]
        how = self.estimate_label(m.assumptions)
        lines = [self.lead(self.L(f"about **{m.total_gib:.1f} GiB per device** ({how}).", f"每卡约 **{m.total_gib:.1f} GiB**（{how}）。"))]
        parts = [f"{self.L(en, zh)} {v:.1f} GiB" for v, en, zh in (
            (m.weights_gib, "weights", "权重"), (m.gradients_gib, "gradients", "梯度"), (m.optimizer_gib, "optimizer states", "优化器状态"),
            (m.activations_gib, "activations", "激活"), (m.logits_gib, "logits/loss", "logits/loss"), (m.overhead_gib, "framework overhead", "框架开销"))]
        lines.append("- " + self.L(", ", "，").join(parts))
        lines.append(self.L(f"- Usable per device: {m.usable_gib:.1f} GiB → {'fits' if m.fits else 'does not fit'}.",
                            f"- 每卡可用 {m.usable_gib:.1f} GiB → {'放得下' if m.fits else '放不下'}。"))
        if m.host_ram_gib:
            lines.append(self.L(f"- Host RAM for offload: {m.host_ram_gib:.1f} GiB per node.", f"- offload 所需主机内存：每节点 {m.host_ram_gib:.1f} GiB。"))
        return lines + [""]
