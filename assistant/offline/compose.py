"""Write the answer from the tool results, in the question's language. Every number printed here is
read from a tool result, and each block names the table or estimate it came from."""

from __future__ import annotations

import re

from .parse import Slots
from .route import Done, Effective, effective, is_family_prefix, is_training_question

# ---------------------------------------------------------------- wording
W: dict[str, dict[str, str]] = {
    "clarify": {
        "en": "Which model, and what would you like to know: training cards/nodes, ZeRO stage, memory, inference cards, "
              "or a config file? For example: “How many cards to LoRA fine-tune qwen2.5-7b at 4096 tokens?”",
        "zh": "请问是哪个模型，想了解什么：训练卡数/节点数、ZeRO 配置、显存、推理卡数，还是配置文件？"
              "例如：“qwen2.5-7b LoRA 微调，序列长度 4096，需要几张卡？”",
    },
    "unknown": {
        "en": "I don't know the model “{name}”: it is not in the catalog, so there is no table row or shape for it. "
              "Closest known models: {closest}. Name one of these, or give the parameter count (e.g. “a 13B model”) for an estimate.",
        "zh": "未找到模型“{name}”：它不在模型目录中，没有对应的表格数据。最接近的已知模型：{closest}。"
              "请指定其中一个，或给出参数量（例如“13B 模型”）以便估算。",
    },
    "which_size": {
        "en": "“{name}” is a model family, not one model. Which one do you mean: {closest}?",
        "zh": "“{name}”是一个模型系列，不是具体模型。请问是哪一个：{closest}？",
    },
    "answer": {"en": "**Answer:** ", "zh": "**结论：**"},
    "sources": {"en": "Sources: ", "zh": "来源："},
    "assumed": {"en": "assumed", "zh": "默认"},
    "offer": {
        "en": "Ask “give me the yaml” (LLaMA-Factory), “the DeepSpeed json”, “the MindSpeed env” or “the launch command” for a ready config.",
        "zh": "需要配置文件可以继续问：“给我 yaml”（LLaMA-Factory）、“DeepSpeed json”、“MindSpeed 环境变量”或“启动命令”。",
    },
}
METHOD = {
    "en": {"lora": "LoRA", "qlora": "QLoRA", "full": "full fine-tuning", "freeze": "freeze (partial) fine-tuning", None: "LoRA and full"},
    "zh": {"lora": "LoRA 微调", "qlora": "QLoRA 微调", "full": "全参微调", "freeze": "冻结微调", None: "LoRA 与全参"},
}
STRATEGY = {"en": {"lora": "LoRA", "full": "full"}, "zh": {"lora": "LoRA", "full": "全参"}}
RECIPE_LABEL = {"en": "ModelArts LLaMA-Factory recipe table", "zh": "ModelArts LLaMA-Factory 配方表（NPU卡数、梯度累积值取值表）"}
MIN_LABEL = {"en": "ModelArts minimum-card table (2025-06-24)", "zh": "ModelArts 模型最小卡数表（2025-06-24）"}
VLLM_LABEL = {"en": "ModelArts vLLM inference table", "zh": "ModelArts vLLM 推理表"}
PASSAGE_CHARS = 900


def t(key: str, lang: str, **kw) -> str:
    return W[key][lang].format(**kw)


def sentence_cut(text: str, limit: int) -> str:
    """Cut at the last sentence or line end before ``limit`` characters."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    ends = [m.end() for m in re.finditer(r"[.。!?！？\n](?=\s|$)|[。；]", cut)]
    return (cut[: ends[-1]] if ends and ends[-1] > limit // 3 else cut).rstrip() + " …"


class Composer:
    def __init__(self, s: Slots, done: list[Done]):
        self.s, self.done, self.lang = s, done, s.lang
        self.e: Effective = effective(s)
        self.sources: list[str] = []
        self.zh = self.lang == "zh"

    # -- helpers -------------------------------------------------------------------------------
    def L(self, en: str, zh: str) -> str:
        return zh if self.zh else en

    def results(self, name: str, ok: bool | None = True) -> list[Done]:
        return [d for d in self.done if d.name == name and (ok is None or d.ok == ok)]

    def cite(self, source: str | None) -> None:
        if source and source not in self.sources:
            self.sources.append(source)

    def devices(self, n: int | None, unit: str = "card") -> str:
        if n is None:
            return "?"
        if unit == "DIE":
            return f"{n} DIE"
        return self.L(f"{n} card" + ("s" if n != 1 else ""), f"{n} 张卡")

    def nodes(self, n: int | None) -> str:
        return self.L(f"{n} node" + ("s" if n != 1 else ""), f"{n} 个节点") if n else ""

    # -- the answer ----------------------------------------------------------------------------
    def render(self) -> str:
        s = self.s
        if not self.done:
            return t("clarify", self.lang)
        out: list[str] = []
        for d in self.results("resolve_model", ok=None):
            out += self.unknown_model(d)
        for d in self.results("list_models"):
            out += self.model_list(d)
        for d in self.results("list_hardware"):
            out += self.hardware_list(d)
        if s.model or s.params_b:
            out.append(self.header())
        notes = [line for d in self.results("search_notes") for line in self.notes(d)]
        if "troubleshoot" in s.intents:  # a problem report: the remedy first, the sizing after it
            out += notes
        for d in self.results("generate_config", ok=None):
            out += self.config(d)
        out += self.training()
        for d in self.results("estimate_training_memory", ok=None):
            out += self.memory(d)
        out += self.inference()
        for d in self.results("compare_hardware", ok=None):
            out += self.compare(d)
        if "troubleshoot" not in s.intents:
            out += notes
        if not [line for line in out if line.strip()]:
            return t("clarify", self.lang)
        if self.sources:
            out.append("")
            out.append(t("sources", self.lang) + "; ".join(self.sources))
        if s.model and is_training_question(s) and "config" not in s.intents and self.results("min_cards") + self.results("training_recipe"):
            out.append("")
            out.append(t("offer", self.lang))
        return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()

    def header(self) -> str:
        s, e = self.s, self.e
        training = is_training_question(s) or bool(s.intents & {"config", "memory", "compare"})
        name = s.model or self.L(f"a {s.params_b:g}B model", f"{s.params_b:g}B 模型")
        parts = [f"**{name}**"]
        if training:
            parts.append(METHOD[self.lang][s.method])
            if s.stage and s.stage != "sft":
                parts.append(s.stage.upper())
        else:
            parts.append(self.L("inference", "推理"))
        seq = self.L(f"{e.seq_len} tokens", f"序列长度 {e.seq_len}")
        if training or s.seq_len:
            parts.append(seq)
        hw = {"snt9b": "Snt9B", "snt9b23": "Snt9B23"}.get(e.hardware, e.hardware)
        parts.append(hw)
        if s.framework:
            parts.append(s.framework)
        line = " · ".join(p for p in parts if p)
        assumed = [seq] if "seq_len" in e.assumed and training else []
        if "hardware" in e.assumed:
            assumed.append(hw)
        if assumed:
            line += f" ({t('assumed', self.lang)}: {', '.join(assumed)})"
        return line + "\n"

    # -- unknown models and lists --------------------------------------------------------------
    def unknown_model(self, d: Done) -> list[str]:
        if d.ok:
            return []
        name = d.args.get("name", "")
        closest = [str(c) for c in (d.error.get("valid") or [])][:6]
        if is_family_prefix(name, closest):
            if any(x.args.get("family") == name for x in self.results("list_models")):
                return []  # the family list below asks which one
            return [t("which_size", self.lang, name=name, closest=", ".join(closest))]
        return [t("unknown", self.lang, name=name, closest=", ".join(closest) or "-")]

    def model_list(self, d: Done) -> list[str]:
        models = d.result.get("models", [])
        fam = d.args.get("family")
        if fam and not models:
            return [self.L(f"No models of the family “{fam}” are in the catalog.", f"目录中没有“{fam}”系列的模型。")]
        ids = [m["id"] for m in models]
        if fam:
            head = self.L(f"“{fam}” is a family. Which model do you mean ({len(ids)} in the catalog):",
                          f"“{fam}”是一个模型系列，请问是哪一个（目录中共 {len(ids)} 个）：")
        else:
            head = self.L(f"Models with rows in the ModelArts vendor tables ({len(ids)}):",
                          f"ModelArts 厂商表格中有数据的模型（共 {len(ids)} 个）：")
        self.cite(self.L("model catalog (knowledge/catalog/models.csv) and the ModelArts tables",
                         "模型目录（knowledge/catalog/models.csv）与 ModelArts 表格"))
        return [head, ", ".join(ids), ""]

    def hardware_list(self, d: Done) -> list[str]:
        lines = [self.L("Hardware in the catalog:", "目录中的硬件：")]
        for h in d.result.get("hardware", []):
            lines.append(f"- {h['id']}: {h['name']}, {h['memory_gb']:g} GB/{h['unit']}, {h['devices_per_node']} {h['unit']}/node")
            self.cite(h.get("source"))
        return lines + [""]

    # -- training tables -----------------------------------------------------------------------
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

        headline = self.training_headline(found_recipes, rows)
        if headline:
            body.append(t("answer", self.lang) + headline)
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
        body += self.capacity_check(found_recipes, rows)
        for d in plans:
            body += self.plan_lines(d, found_recipes, rows)
        return body + [""]

    def wanted_rows(self, rows: list[dict]) -> list[dict]:
        fw = self.s.framework
        return [r for r in rows if not fw or r["framework"] == fw]

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
                alt = "; ".join(self.row_summary(r, with_strategy=True) for r in others)
                line += self.L(f" Supported instead: {alt}.", f" 可改用：{alt}。")
            return line
        asks_recipe = bool(s.intents & {"zero", "ga"})
        prefer_min = s.framework == "LLaMA-Factory" and wanted and not asks_recipe
        if recipes and s.framework in (None, "LLaMA-Factory") and not prefer_min:
            return "; ".join(self.recipe_summary(r) for r in recipes) + self.L(f" ({RECIPE_LABEL['en']}).", f"（{RECIPE_LABEL['zh']}）。")
        if wanted:
            multi = len({x["strategy"] for x in wanted}) > 1
            return "; ".join(self.row_summary(r, with_strategy=multi) for r in wanted) + min_source.format(hw=wanted[0]["hardware"])
        if recipes:
            return "; ".join(self.recipe_summary(r) for r in recipes) + self.L(f" ({RECIPE_LABEL['en']}).", f"（{RECIPE_LABEL['zh']}）。")
        return None

    def offload_text(self, offload: bool | None) -> str:
        if offload:
            return self.L("with offload to CPU", "开启 offload 卸载到 CPU")
        return self.L("no offload", "不开 offload")

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
            listed = ", ".join(n for n in r.get("notes", []) if "lists" in n)
            return [self.L(f"- {MIN_LABEL['en']}: no row at {d.args.get('seq_len')} tokens. {listed}",
                           f"- {MIN_LABEL['zh']}：没有序列长度 {d.args.get('seq_len')} 的数据。")]
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
            items = "; ".join(self.row_summary(x) for x in srows)
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

    def capacity_check(self, recipes: list[dict], rows: list[dict]) -> list[str]:
        have = self.s.devices
        if not have:
            return []
        needs = [(r["framework"], r["cards"]) for r in self.wanted_rows(rows) if r["supported"] and r["unit"] == "card"]
        needs += [(self.L("LLaMA-Factory (recipe table)", "LLaMA-Factory（配方表）"), r["total_cards"]) for r in recipes]
        if not needs:
            return []
        parts = []
        for fw, n in needs:
            ok = have >= n
            parts.append(self.L(f"{fw} needs {n}: {'enough' if ok else 'not enough'}",
                                f"{fw} 需要 {n} 张：{'够用' if ok else '不够'}"))
        return [self.L(f"- With your {self.devices(have)}: ", f"- 按你的 {have} 张卡：") + "; ".join(parts) + self.L(".", "。")]

    # -- estimator blocks (plan_training, estimate_training_memory, estimate_inference) --------
    def estimate_label(self, result: dict) -> str:
        assumptions = result.get("assumptions")
        if isinstance(assumptions, list):
            assumptions = "; ".join(str(a) for a in assumptions[:4])
        base = self.L("estimate", "估算")
        return f"{base}, {self.L('assumptions', '假设')}: {assumptions}" if assumptions else base

    def plan_lines(self, d: Done, recipes: list[dict], rows: list[dict]) -> list[str]:
        if not d.ok:
            return [self.L(f"- Estimate not available: {d.error.get('message')}", f"- 无法估算：{d.error.get('message')}")]
        p = d.result
        if not p.get("devices"):
            msg = p.get("note") or p.get("reason") or self.L("no plan fits", "没有可行方案")
            return [self.L(f"- **Estimate** ({self.estimate_label(p)}): {msg}", f"- **估算**（{self.estimate_label(p)}）：{msg}")]
        unit = p.get("unit") or ("DIE" if self.e.hardware == "snt9b23" else "card")
        bits = [f"**{self.devices(p['devices'], unit)}**"]
        if p.get("nodes"):
            bits.append(f"{self.nodes(p['nodes'])} × {p.get('per_node')}")
        if p.get("zero_stage") is not None:
            bits.append(f"ZeRO-{p['zero_stage']}" + (" + offload" if p.get("offload") else ""))
        if (p.get("tp") or 1) > 1 or (p.get("pp") or 1) > 1:
            bits.append(f"TP={p.get('tp')} PP={p.get('pp')}")
        if p.get("micro_batch"):
            bits.append(self.L(f"micro batch {p['micro_batch']}", f"micro batch {p['micro_batch']}"))
        if p.get("grad_accum"):
            bits.append(self.L(f"gradient accumulation {p['grad_accum']}", f"梯度累积 {p['grad_accum']}"))
        mem = (p.get("memory") or {}).get("total_gib") if isinstance(p.get("memory"), dict) else None
        if mem:
            bits.append(self.L(f"~{mem:.1f} GiB per device", f"每卡约 {mem:.1f} GiB"))
        method = p.get("method") or d.args.get("method")
        label = self.L(f"Estimate for {METHOD['en'].get(method, method)}", f"估算（{METHOD['zh'].get(method, method)}）")
        line = f"- **{label}** ({self.estimate_label(p)}): " + ", ".join(bits) + "."
        out = [line]
        if p.get("note"):
            out.append(f"  {p['note']}")
        table = p.get("table")
        if isinstance(table, dict) and table.get("cards") is not None and not (recipes or rows):
            out.append(self.L(f"  Table for comparison: {table.get('cards')} cards ({table.get('source', 'vendor table')}).",
                              f"  对照表格：{table.get('cards')} 张卡（{table.get('source', '厂商表格')}）。"))
        if not (recipes or [r for r in rows if r["supported"]]):
            out.append(self.L("  The vendor tables have no row for this combination, so this is an estimate, not a vendor figure.",
                              "  厂商表格中没有这个组合的数据，以上为估算值，不是厂商数据。"))
        return out

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
            lines.append("- " + ", ".join(parts))
        if m.get("usable_gib") is not None:
            fits = m.get("fits")
            lines.append(self.L(f"- Usable per device: {m['usable_gib']:.1f} GiB → {'fits' if fits else 'does not fit'}.",
                                f"- 每卡可用 {m['usable_gib']:.1f} GiB → {'放得下' if fits else '放不下'}。"))
        if m.get("host_ram_gib"):
            lines.append(self.L(f"- Host RAM for offload: {m['host_ram_gib']:.1f} GiB.", f"- offload 所需主机内存：{m['host_ram_gib']:.1f} GiB。"))
        return [x for x in lines if x] + [""]

    def inference(self) -> list[str]:
        tables = self.results("inference_min_cards", ok=None)
        ests = self.results("estimate_inference", ok=None)
        if not (tables or ests):
            return []
        out: list[str] = []
        for d in tables:
            if not d.ok:
                out.append(self.L(f"- {VLLM_LABEL['en']}: no row for {self.s.model}.", f"- {VLLM_LABEL['zh']}：没有 {self.s.model} 的数据。"))
                continue
            r = d.result
            if r.get("cards") is not None:
                out.append(t("answer", self.lang) + self.L(
                    f"**{self.devices(r['cards'])}** for vLLM serving" + (f" at {r['max_model_len']} tokens" if r.get("max_model_len") else "")
                    + f" ({VLLM_LABEL['en']}).",
                    f"vLLM 推理最少 **{self.devices(r['cards'])}**" + (f"（max-model-len {r['max_model_len']}）" if r.get("max_model_len") else "")
                    + f"（{VLLM_LABEL['zh']}）。"))
            for row in r.get("rows", []):
                self.cite(row.get("source"))
                if not row["supported"]:
                    out.append(self.L(f"- {row['table']}, {row['memory_gb']} GB cards: not supported ('-').",
                                      f"- {row['table']}，{row['memory_gb']} GB 卡：不支持（“-”）。"))
                    continue
                out.append(self.L(
                    f"- {row['table']}, {row['memory_gb']} GB cards (gpu-memory-utilization {row['gpu_memory_utilization']}): "
                    f"{self.devices(row['cards'])}, tested max-model-len {row['max_model_len']}",
                    f"- {row['table']}，{row['memory_gb']} GB 卡（gpu-memory-utilization {row['gpu_memory_utilization']}）："
                    f"{row['cards']} 张卡，实测 max-model-len {row['max_model_len']}"))
            for n in r.get("notes", []):
                out.append(f"  {n}")
        for d in ests:
            if not d.ok:
                out.append(self.L(f"- Inference estimate not available: {d.error.get('message')}", f"- 无法估算推理：{d.error.get('message')}"))
                continue
            r = d.result
            bits = []
            if r.get("devices"):
                bits.append(f"**{self.devices(r['devices'], r.get('unit') or 'card')}**")
            if r.get("kv_bytes_per_token"):
                bits.append(self.L(f"KV cache {r['kv_bytes_per_token'] / 1024:.0f} KiB/token", f"KV cache 每 token {r['kv_bytes_per_token'] / 1024:.0f} KiB"))
            if r.get("kv_tokens_fit"):
                bits.append(self.L(f"{r['kv_tokens_fit']} tokens of KV fit", f"可容纳 {r['kv_tokens_fit']} 个 token 的 KV"))
            out.append(self.L(f"- **Estimate** ({self.estimate_label(r)}): ", f"- **估算**（{self.estimate_label(r)}）：") + ", ".join(bits))
        return out + [""]

    def compare(self, d: Done) -> list[str]:
        if not d.ok:
            return [f"- {d.error.get('message')}"]
        lines = [self.L("**Hardware comparison (estimate):**", "**硬件对比（估算）：**")]
        for p in d.result.get("plans", []):
            lines.append(f"- {p.get('hardware')}: {p.get('devices')} {p.get('unit') or ''} ({self.nodes(p.get('nodes'))})")
        return lines + [""]

    # -- configs and notes ---------------------------------------------------------------------
    def config(self, d: Done) -> list[str]:
        if not d.ok:
            return [self.L(f"Could not generate the config: {d.error.get('message')}", f"无法生成配置：{d.error.get('message')}"), ""]
        c = d.result
        plan = c.get("plan") or {}
        lines = []
        if plan:
            kind = self.L("vendor table", "厂商表格") if plan.get("source") == "table" else self.L("estimate", "估算")
            par = (f"TP {plan.get('tp')} × PP {plan.get('pp')}" if plan.get("framework") == "MindSpeed-LLM"
                   else f"ZeRO-{plan.get('zero_stage')}" + (" + offload" if plan.get("offload") else ""))
            unit = plan.get("unit") or "card"
            lines.append(t("answer", self.lang) + self.L(
                f"{self.nodes(plan.get('nodes'))} × {self.devices(plan.get('per_node'), unit)} = **{self.devices(plan.get('devices'), unit)}**, "
                f"{par}, micro batch {plan.get('micro_batch')}, gradient accumulation {plan.get('grad_accum')} (from the {kind}).",
                f"{self.nodes(plan.get('nodes'))} × 每节点 {self.devices(plan.get('per_node'), unit)} = **{self.devices(plan.get('devices'), unit)}**，"
                f"{par}，micro batch {plan.get('micro_batch')}，梯度累积 {plan.get('grad_accum')}（来自{kind}）。"))
            self.cite(plan.get("source_detail"))
        files = [c] + [f for f in c.get("companion_files") or [] if len(f.get("content", "")) <= 3000]
        for f in files:
            lang = {"llamafactory_yaml": "yaml", "deepspeed_json": "json", "mindspeed_env": "bash", "launch": "bash"}.get(f.get("format"), "")
            lines += [f"`{f.get('filename')}`:", f"```{lang}", f.get("content", "").rstrip(), "```"]
        for n in (c.get("notes") or [])[:6]:
            lines.append(f"- {n}")
        return lines + [""]

    def notes(self, d: Done) -> list[str]:
        """Quote the most relevant note: notes are ranked by the summed score of their matching
        sections (a note about the topic matches in many sections; a stray word matches in one),
        then that note's two best sections are quoted with the source."""
        hits = d.result.get("results") or []
        if not hits:
            return [self.L("The notes have nothing on this.", "笔记中没有相关内容。")]
        by_note: dict[str, list[dict]] = {}
        for h in hits:
            by_note.setdefault(h["file"], []).append(h)
        best = max(by_note.values(), key=lambda hs: sum(h["score"] for h in hs[:3]))
        fw = (self.s.framework or "").lower()
        serving = "inference" in self.s.intents

        def fit(h: dict) -> tuple:  # the section about the user's framework and task first
            head = h["heading"].lower()
            return (bool(fw) and fw in head, serving or not re.search(r"vllm|inference|推理", head), h["score"])

        best = sorted(best, key=fit, reverse=True)
        lines = [self.L("From the notes:", "笔记中的相关内容（原文引用）：")]
        for i, h in enumerate(best[:2]):
            passage = sentence_cut(h["text"], PASSAGE_CHARS if i == 0 else PASSAGE_CHARS * 2 // 3)
            quoted = "\n".join("> " + ln for ln in passage.splitlines())
            lines += [f"**{h['title']} — {h['heading']}**", quoted]
        lines += [self.L(f"(source: {best[0]['source']})", f"（来源：{best[0]['source']}）"), ""]
        return lines


def compose(s: Slots, done: list[Done]) -> str:
    try:
        return Composer(s, done).render()
    except (KeyError, TypeError, ValueError) as e:  # a result shape this writer does not know: still answer
        lines = [f"- {d.name}: {d.result}" for d in done]
        return "\n".join([f"(could not format the answer: {type(e).__name__}: {e})", *lines])[:8000]
