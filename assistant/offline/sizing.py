"""Training-sizing blocks of the answer: the two vendor tables (recipe, minimum cards), where they
disagree, the user's own device count, and the estimator's plan and memory breakdown beside them."""

from __future__ import annotations

import re

from .capacity import CapacityBlocks
from .route import Done
from .wording import MIN_LABEL, RECIPE_LABEL, STRATEGY, t


class TrainingBlocks(CapacityBlocks):
    """Blocks for cards/nodes/ZeRO/GA questions: a one-line answer, then every row it came from."""

    def training(self) -> list[str]:
        recipes = self.results("training_recipe", ok=None)
        mins = [d for d in self.results("min_cards") if d.result.get("rows")] or self.results("min_cards", ok=None)
        plans = self.results("plan_training", ok=None)
        if not (recipes or mins or plans):
            return []
        body: list[str] = []
        found_recipes = [d.result for d in recipes if d.ok and d.result.get("found")]
        min_res = mins[-1].result if mins and mins[-1].ok else None
        rows = (min_res or {}).get("rows") or []

        verdict = self.verdict(found_recipes, rows)  # "can I with my 16 cards?": yes or no before the details
        if verdict:
            body.append(t("answer", self.lang) + verdict)
        headline = self.training_headline(found_recipes, rows)
        if headline:
            body.append((self.L("**Needed:** ", "**所需**：") if verdict else t("answer", self.lang)) + headline)
        if self.s.stage == "pt" and (found_recipes or rows or plans):
            body.append(self.pretrain_note(bool(found_recipes or rows)))
        body += self.zero_from_estimate(found_recipes, rows)
        if self.s.stage in ("dpo", "kto", "ppo", "rm") and (found_recipes or rows):
            body.append(self.L(f"- The vendor tables list SFT/PT jobs; {self.s.stage.upper()} needs more memory (a reference model, "
                               "paired sequences), so use the estimate below for it.",
                               f"- 厂商表格针对 SFT/PT；{self.s.stage.upper()} 需要更多显存（参考模型、成对序列），请以下方估算为准。"))
        for d in recipes:
            body += self.recipe_lines(d)
        if mins:
            body += self.min_lines(mins[-1])
            first = self.results("min_cards")[:1]
            if first and not first[0].result.get("rows") and first[0].args.get("seq_len") and mins[-1].result.get("rows"):
                listed = sorted({r["seq_len"] for r in mins[-1].result["rows"]})
                body.append(self.L(f"  No row at {first[0].args['seq_len']} tokens for this model; the table lists only {listed}.",
                                   f"  该模型在表中没有序列长度 {first[0].args['seq_len']} 的行，只有 {listed}。"))
        body += self.disagreement(found_recipes, rows)
        for d in plans:
            body += self.plan_lines(d, found_recipes, rows)
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

    def zero_from_estimate(self, recipes: list[dict], rows: list[dict]) -> list[str]:
        """"Which ZeRO stage / GA" when the recipe table has no row: the minimum-card table gives cards only,
        so the stage comes from the estimate, said right under the card count."""
        if not self.s.intents & {"zero", "ga"} or recipes or not self.wanted_rows(rows) or self.s.framework == "MindSpeed-LLM":
            return []
        plan = next((d.result for d in self.results("plan_training") if not d.args.get("max_devices") and d.result.get("fits")
                     and d.result.get("zero_stage") is not None), None)
        if not plan:
            return []
        zero = f"ZeRO-{plan['zero_stage']}" + (" + offload" if plan.get("offload") else "")
        devs = self.devices(plan["devices"], plan.get("unit") or "card", plan.get("hardware"))
        return [self.L(f"- **ZeRO stage** (estimate; the recipe table has no row for this case): **{zero}**, gradient accumulation "
                       f"{plan.get('grad_accum')}, on {devs} (LLaMA-Factory).",
                       f"- **ZeRO 配置**（估算；配方表中没有这个组合）：**{zero}**，梯度累积 {plan.get('grad_accum')}，{devs}（LLaMA-Factory）。")]

    def training_headline(self, recipes: list[dict], rows: list[dict]) -> str | None:
        """One sentence that answers the question; the lines below give every row it came from."""
        s = self.s
        wanted = self.wanted_rows(rows)
        min_source = self.L(f" ({MIN_LABEL['en']}, {{hw}}).", f"（{MIN_LABEL['zh']}，{{hw}}）。")
        if s.framework and wanted and all(not r["supported"] for r in wanted):
            others = [r for r in rows if r["framework"] != s.framework and r["supported"]]
            line = self.L(f"{s.model} with {s.framework} is **not supported** in the ModelArts minimum-card table ('-').",
                          f"{s.model} 在 {s.framework} 上**不支持**（ModelArts 最小卡数表中为“-”）。")
            if others:
                alt = self.L("; ", "；").join(self.row_summary(r, with_strategy=True) for r in others)
                line += self.L(f" Supported instead: {alt}.", f" 可改用：{alt}。")
            return line
        if s.stage in ("dpo", "kto", "ppo", "rm"):  # the tables size SFT/PT jobs: lead with the estimate
            recipes, wanted = [], []
        asks_recipe = bool(s.intents & {"zero", "ga"})
        prefer_min = s.framework == "LLaMA-Factory" and wanted and not asks_recipe
        if recipes and s.framework in (None, "LLaMA-Factory") and not prefer_min:
            return "; ".join(self.recipe_summary(r) for r in recipes) + self.L(f" ({RECIPE_LABEL['en']}).", f"（{RECIPE_LABEL['zh']}）。")
        if wanted:
            multi = len({x["strategy"] for x in wanted}) > 1
            return self.L("; ", "；").join(self.row_summary(r, with_strategy=multi) for r in wanted) + min_source.format(hw=wanted[0]["hardware"])
        if recipes:
            return "; ".join(self.recipe_summary(r) for r in recipes) + self.L(f" ({RECIPE_LABEL['en']}).", f"（{RECIPE_LABEL['zh']}）。")
        plans = [d.result for d in self.results("plan_training") if d.result.get("fits") and not d.args.get("max_devices")]
        asked = [p for p in plans if not s.method or p.get("method") == s.method]
        failed = next((d.result for d in self.results("plan_training") if d.ok and not d.args.get("max_devices")
                       and not d.result.get("fits")), None)
        if s.method and not asked and failed:  # the method asked fits nowhere; an alternative may (said in the sentence)
            name = self.method_name(s.method) + (f" {s.stage.upper()}" if s.stage and s.stage != "sft" else "")
            return self.L(f"estimate: {name} {self.no_fit_text(failed)}.",
                          f"估算：{name}{' ' if name[-1].isascii() else ''}{self.no_fit_text(failed)}。")
        plans = asked or plans
        if plans:
            many = len({p.get("method") for p in plans}) > 1
            parts = [(f"{self.method_name(p.get('method'))}: " if many else "") + self.plan_summary(p)
                     + self.L(f" ({self.fw_name(p)})", f"（{self.fw_name(p)}）") for p in plans]
            if "memory" in s.intents and "cards" not in s.intents:  # "how much memory": the GiB per device first
                parts = [(f"{self.method_name(p.get('method'))}: " if many else "") + self.memory_summary(p) for p in plans]
            if s.stage in ("dpo", "kto", "ppo", "rm"):
                return self.L(f"estimate for {s.stage.upper()}: {'; '.join(parts)}.", f"{s.stage.upper()} 估算：{'；'.join(parts)}。")
            if any(p.get("table") for p in plans):  # the plan carries the vendor row; the lines below compare them
                return self.L(f"estimate: {'; '.join(parts)}.", f"估算：{'；'.join(parts)}。")
            return self.L(f"estimate: {'; '.join(parts)} — no vendor table row for this case.",
                          f"估算：{'；'.join(parts)}——厂商表格中没有这个组合。")
        if self.results("plan_training") and not any(d.result.get("fits") for d in self.results("plan_training")):
            return self.L("no setting fits on the hardware asked (estimate); see below.", "按估算，所问硬件上没有能放下的方案，详见下文。")
        return None

    def memory_summary(self, p: dict) -> str:
        """'about **27.6 GiB per card** (LLaMA-Factory ZeRO-0 on 1 card)' from a plan_training result."""
        mem = (p.get("memory") or {}).get("total_gib")
        if not isinstance(mem, int | float):
            return self.plan_summary(p)
        per = self.per_device(p.get("unit"), p.get("hardware"))
        devs = self.devices(p["devices"], p.get("unit") or "card", p.get("hardware"))
        setting = (f"ZeRO-{p['zero_stage']}" + (" + offload" if p.get("offload") else "") if p.get("zero_stage") is not None
                   else f"TP {p.get('tp')} × PP {p.get('pp')}")
        return self.L(f"about **{mem:.1f} GiB per {per}** ({self.fw_name(p)} {setting} on {devs})",
                      f"每{per}约 **{mem:.1f} GiB**（{self.fw_name(p)} {setting}，{devs}）")

    def recipe_summary(self, r: dict) -> str:
        strat = STRATEGY[self.lang][r["strategy"]]
        if self.zh:
            return (f"{strat}：{r['nodes']} 个节点 × 每节点 {r['cards_per_node']} 卡 = {r['total_cards']} 张卡，"
                    f"DeepSpeed {r['deepspeed']}（ZeRO-{r['zero_stage']}，{self.offload_text(r['offload'])}），梯度累积 {r['grad_accum']}")
        return (f"{strat}: {self.nodes(r['nodes'])} × {r['cards_per_node']} = {self.devices(r['total_cards'])}, "
                f"DeepSpeed {r['deepspeed']} (ZeRO-{r['zero_stage']}, {self.offload_text(r['offload'])}), gradient accumulation {r['grad_accum']}")

    def recipe_lines(self, d: Done) -> list[str]:
        s = self.s
        if not d.ok:
            if d.error.get("code") == "no_table_row" and (s.intents & {"zero", "ga"} or s.framework == "LLaMA-Factory"):
                return [self.L(f"- {RECIPE_LABEL['en']}: no row for {s.model} ({d.args.get('strategy')}).",
                               f"- {RECIPE_LABEL['zh']}：没有 {s.model}（{d.args.get('strategy')}）的数据。")]
            return []
        r = d.result
        self.cite(r.get("source") or (r.get("rows") or [{}])[0].get("source"))
        strat = STRATEGY[self.lang][r["strategy"]]
        if not r.get("found"):
            listed = sorted({x["cutoff_len"] for x in r.get("rows", [])})
            return [self.L(f"- {RECIPE_LABEL['en']} ({strat}): no row at {r['seq_len']} tokens; it lists {listed}.",
                           f"- {RECIPE_LABEL['zh']}（{strat}）：没有序列长度 {r['seq_len']} 的数据，表中只有 {listed}。")]
        note = ""
        if r.get("seq_len_used") and r["seq_len_used"] != r["seq_len"]:
            note = self.L(f" (answered from the {r['seq_len_used']}-token row)", f"（按表中 {r['seq_len_used']} 的行回答）")
        if self.zh:
            return [f"- **{RECIPE_LABEL['zh']}**（{strat}，cutoff_len {r['seq_len_used']}{note}）：{r['nodes']} 个节点 × 每节点 "
                    f"{r['cards_per_node']} 卡 = **{r['total_cards']} 张卡**；DeepSpeed **{r['deepspeed']}**（ZeRO-{r['zero_stage']}，"
                    f"{self.offload_text(r['offload'])}）；梯度累积 gradient_accumulation_steps **{r['grad_accum']}**；模板 template `{r['template']}`。"]
        return [f"- **{RECIPE_LABEL['en']}** ({strat}, cutoff_len {r['seq_len_used']}{note}): {self.nodes(r['nodes'])} × "
                f"{self.devices(r['cards_per_node'])} = **{self.devices(r['total_cards'])}**; DeepSpeed **{r['deepspeed']}** "
                f"(ZeRO-{r['zero_stage']}, {self.offload_text(r['offload'])}); gradient_accumulation_steps **{r['grad_accum']}**; "
                f"template `{r['template']}`."]

    def row_summary(self, r: dict, with_strategy: bool = False) -> str:
        strat = f"{STRATEGY[self.lang][r['strategy']]} " if with_strategy else ""
        if not r["supported"]:
            return self.L(f"{strat}{r['framework']}: **not supported** ('-')", f"{strat}{r['framework']}：**不支持**（“-”）")
        unit = r["unit"]
        if unit == "DIE":
            extra = self.L(f"{r['physical_cards']} physical card(s), {self.nodes(r['nodes'])} of 16 DIE",
                           f"{r['physical_cards']} 张物理卡，{r['nodes']} 个节点（每节点 16 DIE）")
        else:
            extra = self.nodes(r["nodes"])
        extra = f"（{extra}）" if self.zh else f" ({extra})"
        return f"{strat}{r['framework']}{'：' if self.zh else ': '}**{self.devices(r['cards'], unit)}**{extra}"

    def min_lines(self, d: Done) -> list[str]:
        s = self.s
        if not d.ok:
            if d.error.get("code") == "no_table_row":
                return [self.L(f"- {MIN_LABEL['en']}: no row for {s.model}.", f"- {MIN_LABEL['zh']}：没有 {s.model} 的数据。")]
            return [f"- {d.error.get('message')}"]
        r = d.result
        rows = r.get("rows") or []
        if not rows:
            listed = next((m.group(0) for n in r.get("notes", []) if (m := re.search(r"\[[\d, ]+\]", n))), "")
            return [self.L(f"- {MIN_LABEL['en']}: no row at {d.args.get('seq_len')} tokens" + (f" (it lists {listed})." if listed else "."),
                           f"- {MIN_LABEL['zh']}：没有序列长度 {d.args.get('seq_len')} 的数据" + (f"（表中只有 {listed}）。" if listed else "。"))]
        for row in rows:
            self.cite(row.get("source"))
        fw_first = sorted(rows, key=lambda x: (x["strategy"], x["framework"] != (s.framework or x["framework"]), x["framework"]))
        hw = rows[0]["hardware"]
        seq = rows[0]["seq_len"]
        lines = []
        by_strategy: dict[str, list[dict]] = {}
        for row in fw_first:
            by_strategy.setdefault(row["strategy"], []).append(row)
        for strat, srows in by_strategy.items():
            items = self.L("; ", "；").join(self.row_summary(x) for x in srows)
            label = STRATEGY[self.lang][strat]
            lines.append(self.L(f"- **{MIN_LABEL['en']}** ({label}, SEQ_LEN {seq}, {hw}): {items}.",
                                f"- **{MIN_LABEL['zh']}**（{label}，SEQ_LEN {seq}，{hw}）：{items}。"))
        if r.get("seq_len_used") and d.args.get("seq_len") and r["seq_len_used"] != d.args["seq_len"]:
            lines.append(self.L(f"  (no {d.args['seq_len']}-token row; answered from the {r['seq_len_used']}-token row)",
                                f"  （表中没有 {d.args['seq_len']}，按 {r['seq_len_used']} 的行回答）"))
        if any(x["supported"] and x["cards"] and x["cards"] < 8 and x["unit"] == "card" for x in rows):
            lines.append(self.L("  The table notes that jobs needing fewer than 8 cards are in practice run on 8.",
                                "  表格备注：少于 8 卡的任务实际按 8 卡运行。"))
        if hw == "Snt9B23":
            lines.append(self.L("  On Snt9B23 the unit is the DIE: 8 cards = 16 DIE per node; 2 DIE is the smallest parallel unit.",
                                "  Snt9B23 以 DIE 计：每节点 8 张卡 = 16 DIE，2 DIE 为最小并行单位。"))
        return lines

    def disagreement(self, recipes: list[dict], rows: list[dict]) -> list[str]:
        out = []
        for rec in recipes:
            for row in rows:
                if (row["framework"] == "LLaMA-Factory" and row["strategy"] == rec["strategy"] and row["hardware"] == "Snt9B"
                        and row["supported"] and row["cards"] != rec["total_cards"]):
                    out.append(self.L(
                        f"- Note: the two vendor tables disagree for LLaMA-Factory {STRATEGY['en'][rec['strategy']]}: the recipe table "
                        f"uses {rec['total_cards']} cards, the minimum-card table lists {row['cards']}. Both are shown; plan for "
                        f"{max(rec['total_cards'], row['cards'])} if memory is tight.",
                        f"- 注意：两张厂商表对 LLaMA-Factory {STRATEGY['zh'][rec['strategy']]} 不一致：配方表为 {rec['total_cards']} 张卡，"
                        f"最小卡数表为 {row['cards']} 张。两者都列出；显存紧张时按 {max(rec['total_cards'], row['cards'])} 张规划。"))
        return out

    # -- estimator blocks (plan_training, estimate_training_memory, estimate_inference) --------
    def plan_summary(self, p: dict) -> str:
        """'64 cards (8 nodes × 8), ZeRO-3, micro batch 1, gradient accumulation 8, ~49.7 GiB per device'."""
        unit = p.get("unit") or "card"
        bits = [f"**{self.devices(p['devices'], unit)}**"
                + (f" ({self.nodes(p['nodes'])} × {p.get('per_node')})" if p.get("nodes") and not self.zh
                   else f"（{p['nodes']} 个节点 × 每节点 {p.get('per_node')}）" if p.get("nodes") else "")]
        if p.get("zero_stage") is not None:
            bits.append(f"ZeRO-{p['zero_stage']}" + (" + offload" if p.get("offload") else ""))
        if (p.get("tp") or 1) > 1 or (p.get("pp") or 1) > 1 or (p.get("cp") or 1) > 1:
            bits.append(f"TP {p.get('tp')} × PP {p.get('pp')}" + (f" × CP {p['cp']}" if (p.get("cp") or 1) > 1 else ""))
        if p.get("micro_batch"):
            bits.append(f"micro batch {p['micro_batch']}")
        if p.get("grad_accum"):
            bits.append(self.L(f"gradient accumulation {p['grad_accum']}", f"梯度累积 {p['grad_accum']}"))
        mem = (p.get("memory") or {}).get("total_gib") if isinstance(p.get("memory"), dict) else None
        if mem:
            bits.append(self.L(f"about {mem:.1f} GiB per device", f"每{self.per_device(unit, p.get('hardware'))}约 {mem:.1f} GiB"))
        return self.L(", ", "，").join(bits)

    def capped_adds_nothing(self, d: Done) -> bool:
        """True when the plan without a cap (same method and framework) fits within the user's devices."""
        cap = d.args.get("max_devices") or 0
        return any(x.result.get("fits") and x.result.get("devices", cap + 1) <= cap for x in self.results("plan_training")
                   if not x.args.get("max_devices") and x.args.get("method") == d.args.get("method")
                   and x.args.get("framework") == d.args.get("framework"))

    def plan_lines(self, d: Done, recipes: list[dict], rows: list[dict]) -> list[str]:
        if not d.ok:
            return [self.L(f"- Estimate not available: {d.error.get('message')}", f"- 无法估算：{d.error.get('message')}")]
        p = d.result
        method = p.get("method") or d.args.get("method")
        fw = self.fw_name(p)
        cap = d.args.get("max_devices")
        if cap and self.capped_adds_nothing(d):
            return []  # the plan without a cap already fits the user's devices: shown once
        label = self.L(f"Estimate, {self.method_name(method)}, {fw}", f"估算（{self.method_name(method)}，{fw}）")
        if cap:
            label = self.L(f"Estimate within your {self.devices(cap, p.get('unit') or 'card')}, {self.method_name(method)}, {fw}",
                           f"估算（在你的 {self.devices(cap, p.get('unit') or 'card')}"
                           f"{' ' if (p.get('unit') or '').lower() == 'die' else ''}以内，{self.method_name(method)}，{fw}）")
        if not p.get("fits", True):
            mem = p.get("memory") or {}
            if mem.get("fits") and mem.get("host_ram_fits") is False:
                return [self.L(f"- **{label}**: does not fit — device memory would ({mem.get('total_gib', 0):.1f} of "
                               f"{mem.get('usable_gib', 0):.1f} GiB with offload), but offload needs {mem.get('host_ram_gib', 0):,.0f} GiB "
                               f"of host RAM ({self.estimate_label(p, short=True)}).",
                               f"- **{label}**：放不下——开启 offload 后每卡显存够用（{mem.get('total_gib', 0):.1f}/"
                               f"{mem.get('usable_gib', 0):.1f} GiB），但需要 {mem.get('host_ram_gib', 0):,.0f} GiB 主机内存"
                               f"（{self.estimate_label(p, short=True)}）。")]
            if not cap:  # no device limit: it fits at no count; say why and what fits instead
                return [self.L(f"- **{label}** ({self.estimate_label(p, short=True)}): {self.no_fit_text(p)}.",
                               f"- **{label}**（{self.estimate_label(p, short=True)}）：{self.no_fit_text(p)}。")]
            return [self.L(
                f"- **{label}**: nothing fits — even {self.devices(p.get('devices'), p.get('unit') or 'card')} with the most "
                f"memory-saving setting need {mem.get('total_gib', 0):.1f} GiB per device of {mem.get('usable_gib', 0):.1f} "
                f"({self.estimate_label(p, short=True)}).",
                f"- **{label}**：放不下——即使 {p.get('devices')} 张卡并用最省显存的设置，每卡仍需 {mem.get('total_gib', 0):.1f} GiB，"
                f"可用 {mem.get('usable_gib', 0):.1f} GiB（{self.estimate_label(p, short=True)}）。")]
        out = [self.L(f"- **{label}** ({self.estimate_label(p, short=True)}): {self.plan_summary(p)}.",
                      f"- **{label}**（{self.estimate_label(p, short=True)}）：{self.plan_summary(p)}。")]
        refs = [t for t in [p.get("table"), *(p.get("table_also") or [])] if isinstance(t, dict)]
        for ref in refs:
            name = self.L("minimum-card table", "最小卡数表") if ref.get("source") == "min_cards" else self.L("recipe table", "配方表")
            if ref.get("cards") is not None and ref["cards"] != p["devices"]:
                more = self.L("the estimate is the more conservative", "估算更保守") if p["devices"] > ref["cards"] else \
                    self.L("the table is more conservative than memory requires", "表格比显存需求更保守")
                out.append(self.L(f"  The estimate and the {name} disagree: {p['devices']} vs {ref['cards']}; {more}. Both are shown.",
                                  f"  估算与{name}不一致：{p['devices']} 对 {ref['cards']}；{more}。两者都列出。"))
            elif ref.get("cards") is not None:
                out.append(self.L(f"  The estimate agrees with the {name} ({ref['cards']}).", f"  估算与{name}一致（{ref['cards']}）。"))
        out += self.practice_lines(p)
        fewer = p.get("fewer_devices")
        if isinstance(fewer, dict) and not cap:
            devs = self.devices(fewer["devices"], p.get("unit") or "card", p.get("hardware"))
            host = fewer.get("host_ram_gib_per_node") or 0
            ram = self.L(f", {host:,.0f} GiB host RAM per node", f"，每节点主机内存 {host:,.0f} GiB") if host else ""
            out.append(self.L(f"  Fewer devices, slower: {devs} with {fewer['setting']} (about {fewer['total_gib']:.1f} GiB per device{ram}).",
                              f"  更少的卡（更慢）：{devs}，{fewer['setting']}（每卡约 {fewer['total_gib']:.1f} GiB{ram}）。"))
        if not (recipes or refs or [r for r in rows if r["supported"]]):
            out.append(self.L("  The vendor tables have no row for this combination, so this is an estimate, not a vendor figure.",
                              "  厂商表格中没有这个组合的数据，以上为估算值，不是厂商数据。"))
        return out

    def practice_lines(self, p: dict) -> list[str]:
        """The memory need and the vendor practice, each with its reason, and which one to plan with: a
        LoRA plan on Ascend is raised from the memory minimum to about half of full fine-tuning's devices."""
        need, rec = p.get("memory_devices"), p.get("devices")
        if not (p.get("practice") and need and rec and need < rec):
            return []
        unit, hw = p.get("unit") or "card", p.get("hardware")
        need_s, rec_s = self.devices(need, unit, hw), self.devices(rec, unit, hw)
        return [self.L(
            f"  Why {rec_s}: device memory alone holds the job on {need_s}; ModelArts practice sizes a LoRA job at "
            f"about half of the same model's full fine-tuning devices, which gives {rec_s}. Plan with {rec_s} to match "
            f"the vendor's tested setup; {need_s} is the memory minimum (fits by the estimate, not run by the vendor).",
            f"  为什么是 {rec_s}：仅按显存 {need_s}即可放下；ModelArts 的做法是 LoRA 任务按同一模型全参微调卡数的一半左右配置，"
            f"即 {rec_s}。按 {rec_s}规划与厂商验证过的配置一致；{need_s}是显存下限（估算可放下，厂商未实测）。")]

    def memory(self, d: Done) -> list[str]:
        if not d.ok:
            return [self.L(f"Memory estimate not available: {d.error.get('message')}", f"无法估算显存：{d.error.get('message')}"), ""]
        m = d.result
        total = m.get("total_gib")
        lines = [t("answer", self.lang) + self.L(
            f"about **{total:.1f} GiB per device** ({self.estimate_label(m)}).",
            f"每卡约 **{total:.1f} GiB**（{self.estimate_label(m)}）。") if isinstance(total, int | float) else ""]
        parts = []
        for key, en, zh in (("weights_gib", "weights", "权重"), ("gradients_gib", "gradients", "梯度"),
                            ("optimizer_gib", "optimizer states", "优化器状态"), ("activations_gib", "activations", "激活"),
                            ("logits_gib", "logits/loss", "logits/loss"), ("overhead_gib", "framework overhead", "框架开销")):
            v = m.get(key)
            if isinstance(v, int | float):
                parts.append(f"{self.L(en, zh)} {v:.1f} GiB")
        if parts:
            lines.append("- " + self.L(", ", "，").join(parts))
        if m.get("usable_gib") is not None:
            fits = m.get("fits")
            lines.append(self.L(f"- Usable per device: {m['usable_gib']:.1f} GiB → {'fits' if fits else 'does not fit'}.",
                                f"- 每卡可用 {m['usable_gib']:.1f} GiB → {'放得下' if fits else '放不下'}。"))
        if m.get("host_ram_gib"):
            lines.append(self.L(f"- Host RAM for offload: {m['host_ram_gib']:.1f} GiB per node.", f"- offload 所需主机内存：每节点 {m['host_ram_gib']:.1f} GiB。"))
        return [x for x in lines if x] + [""]
