"""The vendor training tables as answer lines: the recipe table's row, the minimum-card table's rows
(grouped by strategy and length; a shorter row labelled as a lower bound, a LoRA row under QLoRA as an
upper bound), and where the two tables disagree."""

from __future__ import annotations

from ..tools.tables import MinCardsResult, MinCardsRow, TrainingRecipeResult
from . import table_query
from .capacity import CapacityBlocks, TrainingFacts
from .results import Result
from .wording import MIN_LABEL, RECIPE_LABEL, STRATEGY


class TableBlocks(CapacityBlocks):
    def recipe_unit(self) -> str:
        """The recipe table's "N*Ascend" is N cards on Snt9B and N DIE on Snt9B23 (tables_caveats.md)."""
        return "DIE" if self.e.facts.unit == "die" else "card"

    def recipe_summary(self, r: TrainingRecipeResult, on: MinCardsRow | None = None) -> str:
        """The row in one clause. ``on``: the minimum-card row of the same job on Snt9B23, whose DIE count the
        recipe's setting runs on when the recipe's own count is below it (2 DIE is Snt9B23's smallest unit)."""
        strat = STRATEGY[self.lang][r.strategy]
        zero = f"ZeRO-{r.zero_stage}，{self.offload_text(r.offload)}" if self.zh else f"ZeRO-{r.zero_stage}, {self.offload_text(r.offload)}"
        if on is not None and on.cards and r.total_cards and on.cards > r.total_cards:
            return self.say("recipe_summary_on_min", strat=strat, ds=r.deepspeed, zero=zero, ga=r.grad_accum,
                            devs=self.devices(on.cards, on.unit), min_label=MIN_LABEL[self.lang], part=on.hardware)
        return self.say("recipe_summary", strat=strat, nodes=self.nodes(r.nodes), per=r.cards_per_node,
                        per_unit=" DIE" if self.recipe_unit() == "DIE" else self.L("", " 卡"),
                        total=self.devices(r.total_cards, self.recipe_unit()), ds=r.deepspeed, zero=zero, ga=r.grad_accum)

    def recipe_lines(self, call: Result[TrainingRecipeResult]) -> list[str]:
        s, r = self.s, call.value
        if r is None:
            # the recipe table's silence is said when its columns are asked, its framework named, or the table itself
            if call.error.code == "no_table_row" and (s.intents & {"zero", "ga"} or s.framework == "LLaMA-Factory"
                                                      or table_query.names_table(s.question.lower(), "recipes")):
                return [self.say("recipe_no_row", label=RECIPE_LABEL[self.lang], model=s.model, strat=call.arg("strategy"))]
            return []
        self.cite(r.source or (r.rows[0].source if r.rows else None))
        strat = STRATEGY[self.lang][r.strategy]
        if not r.found:
            listed = sorted({x.cutoff_len for x in r.rows})
            return [self.say("recipe_no_row_at", label=RECIPE_LABEL[self.lang], strat=strat, seq=r.seq_len, listed=listed)]
        note = ""
        if r.seq_len_used and r.seq_len_used != r.seq_len:
            note = self.say("recipe_lines_answered_from_the", seq_len_used=r.seq_len_used)
        # the recipe rows count Snt9B cards (the part the catalog says they describe), read as DIE on a part counted
        # in DIE (Snt9B23); on another part they are the 910B's
        part = "" if "recipes" in self.e.facts.vendor_tables else self.say(
            "recipe_part_die" if self.e.facts.unit == "die" else "recipe_part")
        return [self.say("recipe_row", label=RECIPE_LABEL[self.lang], strat=strat, seq=r.seq_len_used, note=note,
                         nodes=self.nodes(r.nodes), per=self.devices(r.cards_per_node, self.recipe_unit()),
                         total=self.devices(r.total_cards, self.recipe_unit()), ds=r.deepspeed, stage=r.zero_stage, offload=self.offload_text(r.offload),
                         ga=r.grad_accum, template=r.template) + part]

    def row_summary(self, r: MinCardsRow, with_strategy: bool = False) -> str:
        strat = f"{STRATEGY[self.lang][r.strategy]} " if with_strategy else ""
        if not r.supported:
            return self.say("row_summary_not_supported", strat=strat, framework=r.framework)
        if r.unit == "DIE":
            extra = self.say("die_row_extra", physical=r.physical_cards, nodes=self.nodes(r.nodes))
        else:
            extra = self.nodes(r.nodes)
        return self.say("row_summary_text", strat=strat, framework=r.framework, devs=self.devices(r.cards, r.unit), extra=extra)

    def min_lines(self, f: TrainingFacts) -> list[str]:
        call = f.min_call
        if call is None or call.value is None:
            if call is not None and call.error.code == "no_table_row" and call.error.field == "strategy":
                # the model is listed, for another method only: said so, not "no data for it"
                return [self.say("min_no_row_strategy", label=MIN_LABEL[self.lang], model=self.s.model,
                                 strat=STRATEGY[self.lang].get(str(call.arg("strategy")), call.arg("strategy")),
                                 listed=self.say("semicolon").join(STRATEGY[self.lang].get(x, x) for x in call.error.valid or []))]
            if call is not None and call.error.code == "no_table_row":
                return [self.say("min_no_row", label=MIN_LABEL[self.lang], model=self.s.model)] + self.same_shape_rows()
            return [f"- {self.error_text(call)}"] if call else []
        rows = f.rows or f.bound
        if not rows:
            listed = sorted({r.seq_len for r in call.value.rows})
            return [self.say("min_no_row_at_listed" if listed else "min_no_row_at", label=MIN_LABEL[self.lang], seq=f.asked, listed=listed)]
        for row in rows:
            self.cite(row.source)
        return self.min_row_groups(rows, bound=not f.rows) + self.min_notes(f, call, rows)

    def same_shape_rows(self) -> list[str]:
        """The rows of a model with exactly this one's architecture (frame.same_shape): the same memory, so its row applies."""
        out = []
        for call in self.r.of("min_cards", MinCardsResult):
            twin = call.arg("model")
            if twin == self.s.model or twin not in self.s.same_shape or call.value is None or not call.value.rows:
                continue
            rows = [r for r in call.value.rows if r.seq_len == call.value.seq_len_used] or call.value.rows
            for r in rows:
                self.cite(r.source)
            mixed = len({r.strategy for r in rows}) > 1  # full and LoRA rows side by side: each says which it is
            items = self.say("semicolon").join(self.row_summary(r, with_strategy=mixed)
                                                for r in sorted(rows, key=lambda x: (x.strategy, x.framework)))
            out.append(self.say("same_shape_rows_has_the_same", twin=twin, value=rows[0].seq_len, value2=rows[0].hardware, items=items))
            break
        return out

    def min_notes(self, f: TrainingFacts, call: Result[MinCardsResult], rows: list[MinCardsRow]) -> list[str]:
        """Under the rows: which length answered, the table's own remarks (8-card practice, DIE)."""
        lines: list[str] = []
        used = call.value.seq_len_used if call.value else None
        if f.rows and used and call.arg("seq_len") and used != call.arg("seq_len"):
            lines.append(self.say("min_notes_no_token_row", value=call.arg('seq_len'), used=used))
        elif f.rows and call.arg("seq_len") is None and f.asked not in {r.seq_len for r in rows}:
            lines.append(self.say("min_notes_no_row_at", asked=f.asked, value=sorted({r.seq_len for r in rows})))
        if any(x.supported and x.cards and x.cards < 8 and x.unit == "card" for x in rows) and not self.is_gpu(None):
            lines.append(self.say("min_notes_the_table_notes"))
        if rows[0].hardware == "Snt9B23":
            lines.append(self.say("min_notes_on_snt_the"))
        return lines

    def min_row_groups(self, rows: list[MinCardsRow], bound: bool) -> list[str]:
        """One line per (strategy, length), the asked framework first; a shorter row is labelled a lower bound."""
        fw = self.s.framework
        groups: dict[tuple[str, int], list[MinCardsRow]] = {}
        for row in sorted(rows, key=lambda x: (x.strategy, x.seq_len, x.framework != (fw or x.framework), x.framework)):
            groups.setdefault((row.strategy, row.seq_len), []).append(row)
        lines = []
        for (strat, seq), group in groups.items():
            items = self.say("semicolon").join(self.row_summary(x) for x in group)
            label, hw = STRATEGY[self.lang][strat], group[0].hardware
            floor = self.say("min_row_groups_lower_bound_for", seq_len=self.e.seq_len) if bound else ""
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
                        f"uses {rec.total_cards} card{'s' * (rec.total_cards != 1)}, the minimum-card table lists {row.cards}. Both are shown; plan for "
                        f"{most} if memory is tight.",
                        f"- 注意：两张厂商表对 LLaMA-Factory {STRATEGY['zh'][rec.strategy]} 不一致：配方表为 {rec.total_cards} 张卡，"
                        f"最小卡数表为 {row.cards} 张。两者都列出；显存紧张时按 {most} 张规划。"))
        return out
