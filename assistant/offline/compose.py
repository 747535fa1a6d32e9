"""Write the answer from the tool results, in the question's language. Every number printed here is
read from a tool result, and each block names the table or estimate it came from."""

from __future__ import annotations

import re

from ..answer import source_as_known
from .parse import Slots
from .route import Done, is_family_prefix, is_training_question
from .serving import ServingBlocks, quant_named
from .sizing import TrainingBlocks
from .timing import TimeBlocks
from .wording import (
    METHOD,
    MIN_LABEL,
    PASSAGE_CHARS,
    RECIPE_LABEL,
    note_lead_in_zh,
    sentence_cut,
    t,
)


class Composer(TrainingBlocks, ServingBlocks, TimeBlocks):
    """The whole answer: header, the blocks for what was asked, sources, and the offer of a config."""

    def render(self) -> str:
        s = self.s
        if s.problems:
            return "\n\n".join(s.problems)
        if not self.done:
            return self.stated_devices() + t("clarify", self.lang)
        out: list[str] = []
        for d in self.results("resolve_model", ok=None):
            out += self.unknown_model(d)
        for d in self.results("list_models"):
            out += self.model_list(d)
        for d in self.results("list_hardware"):
            out += self.hardware_list(d)
        if s.model or s.params_b:
            out.append(self.header())
        out += self.training_time()
        notes = [line for d in self.results("search_notes") for line in self.notes(d)]
        if "troubleshoot" in s.intents:  # a problem report: the remedy first, the sizing after it
            out += notes
        for d in self.results("generate_config", ok=None):
            out += self.config(d)
        if "config" in s.intents and not s.model and s.params_b:
            out.append(self.L("A ready config names the model (its Hugging Face path and chat template), so it needs a model "
                              "from the catalog; name one for the file. The plan for this size is below.",
                              "配置文件要写明模型（Hugging Face 路径和对话模板），需要目录中的具体模型；给出模型名即可生成。"
                              "下面是这个规模的规划。"))
            out.append("")
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
            out.append(t("sources", self.lang) + self.L("; ", "；").join(self.sources))
        if s.model and is_training_question(s) and "config" not in s.intents and self.results("min_cards") + self.results("training_recipe"):
            out.append("")
            out.append(t("offer", self.lang))
        return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()

    def stated_devices(self) -> str:
        """What the user said they have, repeated before asking for the model: "You have 16 Snt9B cards." """
        e = self.e
        if not e.devices:
            return ""
        hw = {"snt9b": "Snt9B", "snt9b23": "Snt9B23"}.get(e.hardware, e.hardware)
        have = self.devices(e.devices, "die" if e.hardware == "snt9b23" else "card", e.hardware)
        return self.L(f"Noted: you have {have} ({hw}). ", f"已记下：你有 {have}（{hw}）。")

    def header(self) -> str:
        s, e = self.s, self.e
        serving = "inference" in s.intents and not ("train" in s.intents or s.method)
        training = is_training_question(s) or (bool(s.intents & {"config", "memory", "compare"}) and not serving)
        name = s.model or (self.shape_name() if s.shape else self.L(f"a {s.params_b:g}B model", f"{s.params_b:g}B 模型"))
        parts = [f"**{name}**"]
        if training or s.method:
            parts.append(self.method_name(s.method))
            if s.stage and s.stage != "sft" and not (s.stage == "pt" and s.method):
                parts.append(s.stage.upper())
        elif "inference" in s.intents:
            parts.append(self.L("inference", "推理"))
            if s.quant_text:
                bits = self.L(f"{s.weight_bits}-bit", f"{s.weight_bits} 比特")
                parts.append(bits + (self.L(f" ({s.quant_text})", f"（{s.quant_text}）") if quant_named(s.quant_text) else "")
                             if s.weight_bits else s.quant_text)
            if s.concurrency:
                parts.append(self.L(f"{s.concurrency} concurrent", f"并发 {s.concurrency}"))
        seq = self.L(f"{e.seq_len} tokens", f"序列长度 {e.seq_len}")
        if training or s.seq_len:
            parts.append(seq)
        hw = {"snt9b": "Snt9B", "snt9b23": "Snt9B23"}.get(e.hardware, e.hardware)
        parts.append(hw)
        if s.framework:
            parts.append(s.framework)
        line = " · ".join(p for p in parts if p)
        if s.length_from_count:
            n = s.length_from_count
            line += self.L(f" (read {n} as the sequence length, not a device count)", f"（{n} 按序列长度理解，不是卡数）")
        if s.model_read_as:
            line += self.L(f" (read “{s.model_read_as}” as {s.model})", f"（“{s.model_read_as}”按 {s.model} 理解）")
        if s.ignored_instruction:
            line += self.L(f" (ignored the instruction “{s.ignored_instruction}”: numbers come only from the tools)",
                           f"（已忽略问题中的指令“{s.ignored_instruction}”：数字只来自工具）")
        assumed = [seq] if "seq_len" in e.assumed and training else []
        if training and not (s.method or s.stage or s.intents & {"train", "inference", "config", "memory", "compare"}):
            # neither fine-tuning nor serving named ("how many H200 for DeepSeek-R1"): say how it was read
            assumed.insert(0, self.L("fine-tuning; for serving ask “serve …”", "微调；推理部署请问“部署 …”"))
        if "hardware" in e.assumed:  # "a 24GB GPU": sized as the catalog part with that memory
            assumed.append(self.L(f"{hw} for a {s.memory_gb} GB GPU", f"{hw} 代表 {s.memory_gb} GB 显卡") if s.hardware_guessed else hw)
        if assumed:
            line += self.L(f" (assumed: {', '.join(assumed)})", f"（默认：{'，'.join(assumed)}）")
        return line + "\n"

    def shape_name(self) -> str:
        """'a custom model (layers 80, hidden 8192; ≈ 68.5B parameters counted from this shape)': the count is the tool's."""
        given = self.L(", ", "，").join(f"{k} {v}" for k, v in (self.s.shape or {}).items())
        shape = next((d.result["shape"] for d in self.done if d.ok and isinstance(d.result.get("shape"), dict)), None)
        size = f"{self.s.params_b:g}B " if self.s.params_b and not self.s.shape_only else ""
        counted = self.L(f"; ≈ {shape['params_b']:.1f}B parameters counted from this shape, other fields inferred",
                         f"；按此结构约 {shape['params_b']:.1f}B 参数，其余字段为推断值") if shape else ""
        return self.L(f"a custom {size}model ({given}{counted})", f"自定义 {size}模型（{given}{counted}）")

    # -- unknown models and lists --------------------------------------------------------------
    def unknown_model(self, d: Done) -> list[str]:
        if d.ok:
            return []
        name = d.args.get("name", "")
        closest = [str(c) for c in (d.error.get("valid") or [])][:6]
        typed = self.s.model_text if name == self.s.unknown_model and self.s.model_text else name
        size = re.fullmatch(r"([a-z\u4e00-\u9fff]+)\s*[-_ ]?\s*(\d+(?:\.\d+)?b)", name.lower())
        same_size = [c for c in closest if size and re.search(rf"(?<![0-9.]){re.escape(size.group(2))}", c.lower())]
        if size and same_size:  # "llama 70b": a family and a size; the catalog models that match both
            return [t("which_size", self.lang, name=typed, closest=", ".join(same_size))]
        if is_family_prefix(name, closest):
            if any(x.args.get("family") == name for x in self.results("list_models")):
                return []  # the family list below asks which one
            return [t("which_size", self.lang, name=name, closest=", ".join(closest))]
        return [t("unknown", self.lang, name=typed, closest=", ".join(closest) or "-")]

    def model_list(self, d: Done) -> list[str]:
        models = d.result.get("models", [])
        fam = d.args.get("family")
        if fam and not models:
            return [self.L(f"No models of the family “{fam}” are in the catalog.", f"目录中没有“{fam}”系列的模型。")]
        ids = [m["id"] for m in models]
        fw = d.args.get("framework")
        if fw and not fam:
            return self.framework_list(d, fw, ids)
        if fam:
            head = self.L(f"“{fam}” is a family. Which model do you mean ({len(ids)} in the catalog):",
                          f"“{fam}”是一个模型系列，请问是哪一个（目录中共 {len(ids)} 个）：")
        else:
            head = self.L(f"Models with rows in the ModelArts vendor tables ({len(ids)}):",
                          f"ModelArts 厂商表格中有数据的模型（共 {len(ids)} 个）：")
        self.cite(self.L("the model catalog (model cards on Hugging Face) and the ModelArts tables",
                         "模型目录（Hugging Face 模型卡）与 ModelArts 表格"))
        return [head, ", ".join(ids), ""]

    def framework_list(self, d: Done, fw: str, ids: list[str]) -> list[str]:
        """Models a framework supports: the minimum-card table's rows with a card count (and the recipe table for LLaMA-Factory)."""
        strategy = d.args.get("strategy")
        what = METHOD[self.lang].get(strategy, strategy) if strategy else ""
        tables = self.L(f"{MIN_LABEL['en']}" + (f" or the {RECIPE_LABEL['en']}" if fw == "LLaMA-Factory" else ""),
                        f" {MIN_LABEL['zh']}" + (f"或 {RECIPE_LABEL['zh']}" if fw == "LLaMA-Factory" else ""))
        head = self.L(f"**{len(ids)} models** are supported for {what + ' with ' if what else ''}{fw} by the {tables} "
                      "(rows with a card count; '-' rows are not supported):",
                      f"{fw} {what + ' ' if what else ''}支持的模型共 **{len(ids)} 个**（依据{tables}中有卡数的行；“-”表示不支持）：")
        self.cite(self.L(f"{MIN_LABEL['en']}, {RECIPE_LABEL['en']}" if fw == "LLaMA-Factory" else MIN_LABEL["en"],
                         f"{MIN_LABEL['zh']}，{RECIPE_LABEL['zh']}" if fw == "LLaMA-Factory" else MIN_LABEL["zh"]))
        lines = [t("answer", self.lang) + head, ", ".join(ids)]
        lines += [f"- {n}" for n in d.result.get("notes") or []]
        return lines + [self.L("Ask about one of them for its card counts.", "可以继续问其中任一模型需要的卡数。"), ""]

    def hardware_list(self, d: Done) -> list[str]:
        lines = [self.L("Hardware in the catalog:", "目录中的硬件：")]
        for h in d.result.get("hardware", []):
            lines.append(f"- {h['id']}: {h['name']}, {h['memory_gb']:g} GB/{h['unit']}, {h['devices_per_node']} {h['unit']}/node")
            self.cite(h.get("source"))
        return lines + [""]

    def compare(self, d: Done) -> list[str]:
        if not d.ok:
            return [f"- {d.error.get('message')}"]
        plans = d.result.get("plans", [])
        lines = [self.L("**Hardware comparison** (estimate, plan_training on each part; fewest GB of device memory first):",
                        "**硬件对比**（估算：每种硬件上的 plan_training，按占用显存总量从少到多）：")]
        for p in plans:
            hw = p.get("hardware")
            if not p.get("fits"):
                lines.append(self.L(f"- {hw}: does not fit", f"- {hw}：放不下"))
                continue
            setting = f"ZeRO-{p['zero_stage']}" + (" + offload" if p.get("offload") else "") if p.get("zero_stage") is not None \
                else f"TP {p.get('tp')} × PP {p.get('pp')}"
            table = self.L(f"; table: {p['table_cards']}", f"；表格：{p['table_cards']}") if p.get("table_cards") else ""
            nodes, sep = self.nodes(p.get("nodes")), self.L(", ", "，")
            lines.append(f"- {hw}{self.L(': ', '：')}**{self.devices(p.get('devices'), p.get('unit'), hw)}**"
                         f"{self.L(f' ({nodes})', f'（{nodes}）')}{sep}{setting}{sep}"
                         f"{p.get('total_gib', 0):.1f}/{p.get('usable_gib', 0):.1f} GiB{table}")
        return lines + [""]

    # -- configs and notes ---------------------------------------------------------------------
    def config(self, d: Done) -> list[str]:
        if not d.ok:
            return [self.L(f"Could not generate the config: {d.error.get('message')}", f"无法生成配置：{d.error.get('message')}"), ""]
        c = d.result
        plan = c.get("plan") or {}
        lines = []
        if self.s.config_format in ("llamafactory_yaml", "deepspeed_json") and d.args.get("format") == "mindspeed_env":
            lines.append(self.L("MindSpeed-LLM has no YAML or DeepSpeed JSON; its config is the launch variables below "
                                "(ask for the LLaMA-Factory YAML to switch frameworks).",
                                "MindSpeed-LLM 没有 YAML 或 DeepSpeed JSON 配置，它的配置就是下面的启动环境变量"
                                "（如需 LLaMA-Factory 的 YAML，请说明换用 LLaMA-Factory）。"))
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
            self.cite(self.plan_source(plan))
            capped = next((x.args["max_devices"] for x in self.results("plan_training") if x.args.get("max_devices")), None)
            if plan.get("overrides") and capped:
                lines.append(self.L(f"- Set to the plan that fits your {capped} devices: {', '.join(plan['overrides'])}.",
                                    f"- 按你的 {capped} 张卡内可行的方案设置：{'，'.join(plan['overrides'])}。"))
            elif plan.get("overrides"):
                lines.append(self.L(f"- Set as you asked: {', '.join(plan['overrides'])}; the rest is the {kind}'s.",
                                    f"- 按你的要求设置：{'，'.join(plan['overrides'])}；其余来自{kind}。"))
        files = [c] + [f for f in c.get("companion_files") or [] if len(f.get("content", "")) <= 3000]
        for f in files:
            lang = {"llamafactory_yaml": "yaml", "deepspeed_json": "json", "mindspeed_env": "bash", "launch": "bash"}.get(f.get("format"), "")
            lines += [f"`{f.get('filename')}`" + self.L(":", "："), f"```{lang}", f.get("content", "").rstrip(), "```"]
        for n in (c.get("notes") or [])[:6]:
            lines.append(f"- {n}")
        return lines + [""]

    def plan_source(self, plan: dict) -> str:
        """A config plan's source as users know it: the vendor table's name, or "estimate" (never a file name)."""
        if plan.get("source") != "table":
            return self.L("estimate (plan_training, memory model)", "估算（plan_training 显存模型）")
        recipe = "recipe" in str(plan.get("source_detail") or "").lower()
        return (RECIPE_LABEL if recipe else MIN_LABEL)[self.lang]

    def notes(self, d: Done) -> list[str]:
        """Quote the most relevant note: notes are ranked by the summed score of their matching
        sections (a note about the topic matches in many sections; a stray word matches in one),
        then that note's two best sections are quoted with the source."""
        hits = d.result.get("results") or []
        cover = self.s.notes_cover
        if cover is not None and hits:
            hits = [h for h in hits if h["file"] in cover] or ([] if not (self.s.model or self.s.params_b) else hits)
            if not hits:
                return [t("not_covered", self.lang)]
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
        top = best[0]
        lines = [self.L("From the notes:", note_lead_in_zh(top["file"], top["title"], top["text"]))]
        for i, h in enumerate(best[:2]):
            passage = sentence_cut(h["text"], PASSAGE_CHARS if i == 0 else PASSAGE_CHARS * 2 // 3).replace("~", "≈")  # "~" renders as strikethrough
            quoted = "\n".join("> " + ln for ln in passage.splitlines())
            lines += [f"**{h['title']} — {h['heading']}**", quoted]
        source = source_as_known(best[0]["source"])
        lines += [self.L(f"(source: {source})", f"（来源：{source}）"), ""]
        return lines


def compose(s: Slots, done: list[Done]) -> str:
    try:
        return Composer(s, done).render()
    except (KeyError, TypeError, ValueError) as e:  # a result shape this writer does not know: still answer
        lines = [f"- {d.name}: {d.result}" for d in done]
        return "\n".join([f"(could not format the answer: {type(e).__name__}: {e})", *lines])[:8000]
