"""Serving blocks of the answer: what was asked first — yes or no for the user's devices, how many
sequences fit, how much KV cache, how fast (no tool has a speed figure) or the fewest cards — then the
ModelArts vLLM table rows and the estimator's plan beside them. The weight precision is always said:
the one the user stated, or the checkpoint's own."""

from __future__ import annotations

import re

from ..tools.estimates import InferenceResult
from ..tools.fits_tools import WhatFitsResult
from ..tools.tables import InferenceMinCardsResult, VllmRow
from .asked import asks_table_length
from .capacity import CapacityBlocks
from .results import Result
from .wording import TOOL_NOTE_ZH, VLLM_LABEL, assumption_zh

GIB = 1024 ** 3


def quant_named(words: str | None) -> bool:
    """True when the precision words name more than a bit width ("awq int4", "w8a8"; not "4bit", "4比特")."""
    return bool(words and re.sub(r"[\d\s\-]+|bits?|比特|位", "", words))


def seqs(n: int, length: int, zh: bool) -> str:
    return f"{n} 条 {length} token 的序列" if zh else f"{n} sequence{'s' if n != 1 else ''} of {length}"


class ServingBlocks(CapacityBlocks):
    def inference(self) -> list[str]:
        tables = self.r.of("inference_min_cards", InferenceMinCardsResult, ok=None)
        ests = self.r.of("estimate_inference", InferenceResult, ok=None)
        if not (tables or ests):
            return []
        rows, best = self.table_lines(tables)
        searched = self.searched_context()
        if best and best.max_model_len and asks_table_length(self.s, searched):
            # the table's tested length is the value asked: it leads; the yes/no for the devices (or the search) backs it
            lead = None if searched else self.serving_lead(tables, ests, best)[0]
            return [self.lead(self.table_length(best)), *(["- " + lead] if lead else []), *rows,
                    *[line for r in ests for line in self.estimate_lines(r)], ""]
        if searched:
            # "the longest context on my 8 Snt9B?": the search leads (the fits block); the table's tested lengths
            # follow for comparison, with no yes/no for devices the question did not ask about
            return [self.L(f"{VLLM_LABEL[self.lang]}, for comparison (the lengths the vendor tested, not limits):",
                           f"{VLLM_LABEL[self.lang]}（厂商实测的长度，不是上限），供对照：")] + rows + [""]
        lead, sizing_line = self.serving_lead(tables, ests, best)
        out = [self.lead(lead)] if lead else []
        if sizing_line:
            out.append(self.L("**Sizing:** ", "**部署规模**：") + sizing_line)
        out += self.serve_command(best, ests)
        if "kv" in self.s.intents and (kv := self.kv_text(ests)) and kv != lead:
            out.append("- " + kv)
        out += self.quantised_note(tables)
        out += rows
        for r in ests:
            out += self.estimate_lines(r)
        return out + [""]

    def searched_context(self) -> bool:
        """The longest context on the user's devices was searched (what_fits with the context goal)."""
        return any(c.value is not None and c.value.goal == "context" for c in self.r.of("what_fits", WhatFitsResult, ok=None))

    def table_length(self, row: VllmRow) -> str:
        """'**32,768 tokens**: the tested max-model-len of qwen2.5-7b on 1 card (64 GB) in the ModelArts vLLM table …'."""
        return self.say("table_length_first", n=f"{row.max_model_len:,}", model=self.s.model, devs=self.devices(row.cards),
                        gb=row.memory_gb, table=VLLM_LABEL[self.lang], version=row.table, util=row.gpu_memory_utilization)

    def serving_lead(self, tables: list[Result[InferenceMinCardsResult]], ests: list[Result[InferenceResult]],
                     best: VllmRow | None) -> tuple[str | None, str | None]:
        """(headline, sizing line under it): the first rule that applies — how many sequences fit, no
        throughput figure, the KV cache, memory — else the sizing itself (yes/no for the user's devices first)."""
        s = self.s
        table_answer = self.table_answer(best) if best and not self.estimate_decides(tables) else None
        est = next((r.value for r in ests if r.value and r.value.fits and not r.arg("largest_layout")), None)
        sizing = table_answer or (self.estimate_answer(est) if est else None)
        if self.e.devices:  # yes or no for the user's devices (the vLLM tables measured 910B cards, not Snt9B23 DIE)
            sizing = self.serving_verdict(best if table_answer and self.e.hardware != "snt9b23" else None, ests) or sizing
        if "capacity" in s.intents and (lead := self.capacity_text(ests)):
            return lead, None
        if "throughput" in s.intents:
            return self.throughput_text(), sizing
        if "kv" in s.intents and not (s.intents & {"cards"} or self.e.devices) and (kv := self.kv_text(ests)):
            return kv, None
        if "memory" in s.intents and not self.e.devices and (mem := self.memory_text(ests)):
            return mem, None
        return sizing, None

    def quantised_note(self, tables: list[Result[InferenceMinCardsResult]]) -> list[str]:
        s = self.s
        if not (s.quant_text and s.weight_bits != 16 and any(r.ok for r in tables)):
            return []
        return [self.L(f"- The {VLLM_LABEL['en']} lists the published checkpoint (no quantised rows); "
                       + (f"the {s.weight_bits}-bit figures are the estimate's." if s.weight_bits else
                          f"you said “{s.quant_text}” without a bit width — say int8/W8A8 or int4/AWQ for a quantised estimate."),
                       f"- {VLLM_LABEL['zh']}只列出原始权重（没有量化的行）；"
                       + (f"{s.weight_bits} 比特的结果来自估算。" if s.weight_bits else
                          f"你提到“{s.quant_text}”但没有给出位宽，可说明 int8/W8A8 或 int4/AWQ 再估算。"))]

    # -- the vLLM tables -----------------------------------------------------------------------
    def estimate_decides(self, tables: list[Result[InferenceMinCardsResult]]) -> bool:
        """The tables tested the published checkpoint at one utilisation, one sequence at a time: a
        stated precision, concurrency, or a memory size they lack is the estimate's question."""
        s = self.s
        return bool(s.weight_bits not in (None, 16) or (s.concurrency or 1) > 1
                    or any(not r.ok and r.arg("memory_gb") for r in tables))

    def serve_command(self, best: VllmRow | None, ests: list[Result[InferenceResult]]) -> list[str]:
        """"Give me the vllm serve line": the command for the layout above, the estimate's (the TP, PP, length and
        utilisation it sized) or else the vendor row's (its cards as TP, its tested length, its utilisation)."""
        model = self.s.model
        if "config" not in self.s.intents or not model:
            return []
        est = next((r.value for r in ests if r.value and r.value.fits), None)
        if est:
            tp, pp, length, util = est.tp, est.pp, est.max_model_len, est.gpu_memory_utilization
        elif best and best.cards and best.max_model_len:
            tp, pp, length, util = best.cards, 1, self.s.seq_len or best.max_model_len, best.gpu_memory_utilization
        else:
            return []
        flags = [f"--served-model-name {model}", f"--tensor-parallel-size {tp}"] + (
            [f"--pipeline-parallel-size {pp}"] if pp and pp > 1 else []) + [
            f"--max-model-len {length}", f"--gpu-memory-utilization {util:g}"]
        return [self.L("`vllm serve` for this layout (the path is your copy of the weights):",
                       "按上面的部署规模，`vllm serve` 命令如下（路径换成你的权重目录）："),
                "```bash", f"vllm serve /path/to/{model} " + " ".join(flags), "```"]

    def table_lines(self, tables: list[Result[InferenceMinCardsResult]]) -> tuple[list[str], VllmRow | None]:
        """Every row of the vLLM tables for the model, and the row that answers (fewest cards for the length)."""
        out: list[str] = []
        answer = None
        for call in tables:
            r = call.value
            if r is None:
                mem = call.arg("memory_gb")
                out.append(self.L(f"- {VLLM_LABEL['en']}: no row for {self.s.model}" + (f" on {mem} GB cards." if mem else "."),
                                  f"- {VLLM_LABEL['zh']}：没有 {self.s.model}" + (f" 在 {mem} GB 卡上" if mem else "") + " 的数据。"))
                continue
            best = [row for row in r.rows if row.supported and row.cards == r.cards
                    and (not r.max_model_len or (row.max_model_len or 0) >= r.max_model_len)]
            if best and answer is None:
                answer = max(best, key=lambda x: x.max_model_len or 0)
            several_names = len({row.model for row in r.rows}) > 1  # e.g. Qwen3-235B-A22B and its -2507 variants
            out += [self.vllm_row_line(row, several_names) for row in r.rows]
            if r.max_model_len and not best:
                longest = max((row.max_model_len or 0) for row in r.rows)
                out.append(self.L(f"  No table row was tested at {r.max_model_len} tokens; the longest tested is {longest}.",
                                  f"  表中没有在 {r.max_model_len} 个 token 上测试过的行，最长为 {longest}。"))
        return out, answer

    def vllm_source(self, row: VllmRow) -> str:
        """'ModelArts vLLM inference table vllm-newest (page modelarts_llm_infer_5910003, updated 2025-11-19)', in the
        answer's language: the vendor page by its id and date, as the transcription names it."""
        page = re.search(r"modelarts_llm_infer_\d+", row.source)
        date = re.search(r"\d{4}-\d{2}-\d{2}", row.source)
        en = ", ".join(x for x in (f"page {page.group(0)}" if page else "", f"updated {date.group(0)}" if date else "") if x)
        zh = "，".join(x for x in (f"页面 {page.group(0)}" if page else "", f"{date.group(0)} 更新" if date else "") if x)
        return f"{VLLM_LABEL[self.lang]} {row.table}" + (self.L(f" ({en})", f"（{zh}）") if en else "")

    def vllm_row_line(self, row: VllmRow, several_names: bool) -> str:
        self.cite(self.vllm_source(row))
        table = f"{row.table} ({row.model})" if several_names else row.table
        if not row.supported:
            return self.L(f"- {table}, {row.memory_gb} GB cards: not supported ('-').", f"- {table}，{row.memory_gb} GB 卡：不支持（“-”）。")
        return self.L(f"- {table}, {row.memory_gb} GB cards (gpu-memory-utilization {row.gpu_memory_utilization}): "
                      f"{self.devices(row.cards)}, tested max-model-len {row.max_model_len}",
                      f"- {table}，{row.memory_gb} GB 卡（gpu-memory-utilization {row.gpu_memory_utilization}）："
                      f"{row.cards} 张卡，实测 max-model-len {row.max_model_len}")

    def table_answer(self, row: VllmRow) -> str:
        n = self.devices(row.cards)
        return self.L(f"**{n}** ({row.memory_gb} GB) for vLLM serving, tested max-model-len "
                      f"{row.max_model_len} ({VLLM_LABEL['en']} {row.table}, gpu-memory-utilization {row.gpu_memory_utilization}).",
                      f"vLLM 推理最少 **{n}**（{row.memory_gb} GB 卡），实测 max-model-len {row.max_model_len}"
                      f"（{VLLM_LABEL['zh']} {row.table}，gpu-memory-utilization {row.gpu_memory_utilization}）。")

    # -- the estimate --------------------------------------------------------------------------
    def precision(self, r: InferenceResult) -> str:
        """'weights 4-bit (awq int4, as you said)', or the checkpoint's own precision as the tool chose it."""
        s = self.s
        if s.weight_bits and s.quant_text:
            named = f"{s.quant_text}, " if quant_named(s.quant_text) else ""
            return self.L(f"weights {s.weight_bits}-bit ({named}as you said)",
                          f"权重 {s.weight_bits} 比特（按你说的" + (f"“{s.quant_text}”" if named else "") + "）")
        note = str((r.assumptions or [""])[0]).lower()
        if "converted" in note:  # Ascend has no FP8/MXFP4: the tool sizes such checkpoints in BF16
            native = self.L("BF16, converted from the FP8/MXFP4 checkpoint on Ascend", "BF16，昇腾上由 FP8/MXFP4 权重转换")
        elif "mxfp4" in note:
            native = self.L("MXFP4 experts, the rest BF16", "专家 MXFP4，其余 BF16")
        else:
            native = "FP8" if "fp8" in note else "BF16"
        if s.quant_text:  # "量化" / "quantized" without a bit width
            return self.L(f"weights at the checkpoint's own precision ({native}): you said “{s.quant_text}” without a bit width — "
                          "say int8/W8A8 or int4/AWQ for a quantised figure",
                          f"权重按模型原始精度（{native}）：你提到“{s.quant_text}”但没有给出位宽，可说明 int8/W8A8 或 int4/AWQ 再估算")
        return self.L(f"weights at the checkpoint's own precision ({native})", f"权重按模型原始精度（{native}）")

    def layout(self, r: InferenceResult) -> str:
        """'**4 GPUs** (TP 4)', '**32 cards** (TP 8, PP 4; 4 nodes)' from an estimate_inference result."""
        par = f"TP {r.tp}" + (f", PP {r.pp}" if r.pp > 1 else "") if r.tp else ""
        nodes = -(-r.devices // self.node_size(r.hardware))
        if nodes > 1:
            par += self.L(f"; {self.nodes(nodes)}", f"；{self.nodes(nodes)}")
        return f"**{self.devices(r.devices, r.unit, r.hardware)}**" + (self.L(f" ({par})", f"（{par}）") if par else "")

    def per_token(self, r: InferenceResult) -> str:
        return self.L(f"{r.kv_bytes_per_token / 1024:.0f} KiB per token", f"每 token {r.kv_bytes_per_token / 1024:.0f} KiB")

    def concurrent(self, r: InferenceResult, en: str = " concurrent", zh: str = " 并发") -> str:
        return self.L(f" × {r.concurrency}{en}", f" × {r.concurrency}{zh}") if r.concurrency > 1 else ""

    def estimate_answer(self, r: InferenceResult) -> str:
        conc = self.concurrent(r)
        return self.L(f"estimate: {self.layout(r)} for max-model-len {r.max_model_len}{conc} on {r.hardware} "
                      f"({self.precision(r)}; KV cache {self.per_token(r)}, room for {r.kv_tokens_fit:,} tokens).",
                      f"估算：{self.layout(r)}，max-model-len {r.max_model_len}{conc}，{r.hardware}"
                      f"（{self.precision(r)}；KV cache {self.per_token(r)}，可容纳 {r.kv_tokens_fit:,} 个 token）。")

    def estimate_lines(self, call: Result[InferenceResult]) -> list[str]:
        r = call.value
        if r is None:
            return [self.L(f"- Inference estimate not available: {call.error.message}", f"- 无法估算推理：{call.error.message}")]
        label = self.L(f"estimate; {self.precision(r)}; KV cache {kv_name(r)}; gpu-memory-utilization {r.gpu_memory_utilization}",
                       f"估算；{self.precision(r)}；KV cache 为 {kv_name(r)}；gpu-memory-utilization {r.gpu_memory_utilization}")
        cap = call.arg("max_devices")
        within = self.L(f" within your {self.have()}", f"（在你的 {self.have()}以内）") if cap and cap == self.e.devices else ""
        head = self.L(f"- **Estimate{within}** ({label})", f"- **估算{within}**（{label}）")
        many = seqs(r.max_sequences_at_len, r.max_model_len, self.zh)
        room = self.L(f"KV cache {self.per_token(r)}, room for {r.kv_tokens_fit:,} tokens ({many})",
                      f"KV cache {self.per_token(r)}，可容纳 {r.kv_tokens_fit:,} 个 token（{many}）")
        if call.arg("largest_layout"):
            return [head + self.L(f": the largest layout is {self.layout(r)}; {room}.", f"：最大的布局为 {self.layout(r)}；{room}。")]
        need = r.max_model_len * r.concurrency
        line = (head + self.L(f": {self.layout(r)}, {room}.", f"：{self.layout(r)}，{room}。") if r.fits else
                head + self.L(f": does not fit — {need:,} tokens of KV cache needed, room for {r.kv_tokens_fit:,} on {self.layout(r)}.",
                              f"：放不下——需要 {need:,} 个 token 的 KV cache，{self.layout(r)} 只能容纳 {r.kv_tokens_fit:,} 个。"))
        return [line] + ([f"  {self.L(r.note, assumption_zh(r.note, TOOL_NOTE_ZH))}"] if r.note else [])

    # -- what was asked ------------------------------------------------------------------------
    def needed(self, ests: list[Result[InferenceResult]]) -> str:
        """'; it needs **4 GPUs** (TP 4)' from the call without the user's cap, when there is one."""
        free = next((r.value for r in ests if r.value and not r.arg("max_devices")), None)
        if free is None:
            return ""
        if not free.fits:
            return self.L(f"; it does not fit on {self.devices(free.devices, free.unit, free.hardware)} either",
                          f"；{self.devices(free.devices, free.unit, free.hardware)}也放不下")
        return self.L(f"; it needs {self.layout(free)}", f"；需要 {self.layout(free)}")

    def capped_text(self, r: InferenceResult, ests: list[Result[InferenceResult]]) -> str:
        """The estimate within the user's devices, as a clause: it fits (layout, KV room) or why not."""
        yours = self.L(f"your {self.have()}", f"你的 {self.have()}" + (" " if self.have()[-1].isascii() else ""))
        conc = self.concurrent(r, " concurrent sequences", " 条并发")
        if r.fits:
            many = seqs(r.max_sequences_at_len, r.max_model_len, self.zh)
            return self.L(f"it fits {yours} — {self.layout(r)}, max-model-len {r.max_model_len}{conc}, {self.precision(r)}; "
                          f"KV cache room for {r.kv_tokens_fit:,} tokens ({many})",
                          f"{yours}放得下——{self.layout(r)}，max-model-len {r.max_model_len}{conc}，{self.precision(r)}；"
                          f"KV cache 可容纳 {r.kv_tokens_fit:,} 个 token（{many}）")
        need = r.max_model_len * r.concurrency
        room = (self.L("the weights leave no room for the KV cache", "权重放下后没有 KV cache 的空间") if not r.kv_tokens_fit else
                self.L(f"KV room for {r.kv_tokens_fit:,} tokens, {need:,} needed", f"KV cache 只能容纳 {r.kv_tokens_fit:,} 个 token，需要 {need:,} 个"))
        return self.L(f"max-model-len {r.max_model_len}{conc} does not fit {yours}: {room} ({self.precision(r)})",
                      f"max-model-len {r.max_model_len}{conc} 在{yours}上放不下：{room}（{self.precision(r)}）") + self.needed(ests)

    def serving_verdict(self, row: VllmRow | None, ests: list[Result[InferenceResult]]) -> str | None:
        """Yes or no for the user's devices: the vLLM table's minimum when the question is within what it
        tested, else the estimate within the user's devices (estimate_inference with max_devices)."""
        capped = next((r.value for r in ests if r.value and r.arg("max_devices") and not r.arg("largest_layout")), None)
        est = self.capped_text(capped, ests) if capped else ""
        if row:
            return self.table_verdict(row, capped, est)
        if capped is None:
            return None
        return self.say("serving_yes_by_estimate" if capped.fits else "serving_no_by_estimate", est=est)

    def table_verdict(self, row: VllmRow, capped: InferenceResult | None, est: str) -> str:
        """Yes/no by the vLLM table's row, with the estimate beside it when it says otherwise (or agrees on a no)."""
        have, n, model = self.e.devices or 0, row.cards or 0, self.s.model
        tested = self.L(f"{self.devices(n)} ({row.memory_gb} GB, tested max-model-len {row.max_model_len}, "
                        f"{row.table}, gpu-memory-utilization {row.gpu_memory_utilization})",
                        f"{self.devices(n)}（{row.memory_gb} GB 卡，实测 max-model-len {row.max_model_len}，"
                        f"{row.table}，gpu-memory-utilization {row.gpu_memory_utilization}）")
        if n <= have:
            line = self.say("serving_yes_by_table", have=self.have(), cover="covers" if have == 1 else "cover",
                            table=VLLM_LABEL[self.lang], model=model, tested=tested)
            if capped and not capped.fits:
                line += self.L(f" The estimate disagrees: {est}.", f"但按估算：{est}。")
            return line
        line = self.say("serving_no_by_table", table=VLLM_LABEL[self.lang], tested=tested, model=model, have=self.have())
        if capped and capped.fits:
            return line + self.L(f" The memory estimate does fit: {est} — below the vendor's tested minimum, so unverified.",
                                 f"按显存估算可以放下：{est}——低于厂商实测的最少卡数，未经验证。")
        return line + (self.L(f" The estimate agrees: {est}.", f"估算结论相同：{est}。") if capped else "")

    def capacity_text(self, ests: list[Result[InferenceResult]]) -> str | None:
        """How many sequences of max_model_len fit at once: on the user's devices (the probe's largest
        layout within them) or on the fewest devices that hold one."""
        probe = next((r.value for r in ests if r.value and r.arg("largest_layout")), None)
        r = probe or next((x.value for x in ests if x.value and x.value.fits), None)
        if r is None:
            return None
        n, m, length = r.devices, r.max_sequences_at_len, r.max_model_len
        if probe and m < 1:
            return self.L(f"**No** (estimate): not even one {length}-token sequence fits your {self.have()} "
                          f"({self.precision(r)}; KV room for {r.kv_tokens_fit:,} tokens){self.needed(ests)}.",
                          f"**不够**（估算）：你的 {self.have()}连一条 {length} token 的序列都放不下"
                          f"（{self.precision(r)}；KV cache 只能容纳 {r.kv_tokens_fit:,} 个 token）{self.needed(ests)}。")
        fewer = probe and n < (self.e.devices or 0)
        if probe:
            where = self.L(f"on {self.layout(r)}" + (f" of your {self.have()} (tensor parallel must divide the attention heads)" if fewer else ""),
                           f"{self.layout(r)}" + (f"（你的 {self.have()}中；TP 须整除注意力头数）" if fewer else ""))
        else:
            where = self.L(f"on the fewest devices that hold one, {self.layout(r)}; more devices hold more",
                           f"在能放下的最少设备 {self.layout(r)} 上；设备越多可容纳越多")
        seqs = "sequence" if str(m) == "1" else "sequences"
        return self.L(f"about **{m} concurrent {seqs} of {length} tokens** {where} — estimate, {self.precision(r)}: the KV cache "
                      f"holds {r.kv_tokens_fit:,} tokens at {self.per_token(r)}. Shorter requests share that pool, so more of them "
                      "fit; vLLM's --max-num-seqs also caps how many run at once.",
                      f"约 **{m} 条 {length} token 的并发序列**，{where}——估算，{self.precision(r)}：KV cache 可容纳 "
                      f"{r.kv_tokens_fit:,} 个 token（{self.per_token(r)}）。请求更短时共享同一 KV 池，可并发更多；"
                      "vLLM 的 --max-num-seqs 也会限制同时运行的请求数。")

    def kv_text(self, ests: list[Result[InferenceResult]]) -> str | None:
        r = next((x.value for x in ests if x.value), None)
        if r is None:
            return None
        length, conc = r.max_model_len, r.concurrency if r.concurrency > 1 else None
        one = r.kv_bytes_per_token * length / GIB
        many = self.L(f", **{one * conc:.1f} GiB** for {conc} at once", f"，{conc} 条并发约 **{one * conc:.1f} GiB**") if conc else ""
        return self.L(f"KV cache **{self.per_token(r)}** (`{r.kv_formula}`) → **{one:.1f} GiB** for one {length}-token "
                      f"sequence{many}; on {self.layout(r)} there is room for {r.kv_tokens_fit:,} tokens (estimate; KV cache in "
                      f"{kv_name(r)}, split over the tensor-parallel devices).",
                      f"KV cache **{self.per_token(r)}**（`{r.kv_formula}`）→ 一条 {length} token 的序列约 **{one:.1f} GiB**{many}；"
                      f"{self.layout(r)}可容纳 {r.kv_tokens_fit:,} 个 token（估算；KV cache 为 {kv_name(r)}，按张量并行分摊到各设备）。")

    def memory_text(self, ests: list[Result[InferenceResult]]) -> str | None:
        """'How much memory to serve X': weights, workspace and KV cache per device of the plan."""
        r = next((x.value for x in ests if x.value and x.value.fits), None)
        if r is None:
            return None
        weights = r.weights_gib_per_device * r.tp * r.pp
        return self.L(f"about **{weights:.0f} GiB of weights** in all ({self.precision(r)}), plus KV cache at {self.per_token(r)}. "
                      f"The estimate serves max-model-len {r.max_model_len} on {self.layout(r)}: per device {r.weights_gib_per_device:.1f} "
                      f"GiB weights, {r.activation_gib:.1f} GiB activation workspace, {r.overhead_gib:.1f} GiB overhead and "
                      f"{r.kv_cache_gib:.1f} GiB KV cache within the {r.budget_gib:.1f} GiB budget (gpu-memory-utilization "
                      f"{r.gpu_memory_utilization}).",
                      f"权重共约 **{weights:.0f} GiB**（{self.precision(r)}），另加 KV cache（{self.per_token(r)}）。估算在 {self.layout(r)}上"
                      f"服务 max-model-len {r.max_model_len}：每设备权重 {r.weights_gib_per_device:.1f} GiB、激活工作区 "
                      f"{r.activation_gib:.1f} GiB、框架开销 {r.overhead_gib:.1f} GiB、KV cache {r.kv_cache_gib:.1f} GiB，"
                      f"预算 {r.budget_gib:.1f} GiB（gpu-memory-utilization {r.gpu_memory_utilization}）。")

    def throughput_text(self) -> str:
        return self.L(f"no serving throughput figure (tokens/s) for {self.s.model or 'this model'} here: the ModelArts vLLM tables list "
                      "card counts and tested max-model-len only, and the estimator sizes memory, not speed. Measure it with the "
                      "vendor's benchmark tools (quoted from the notes below).",
                      f"这里没有 {self.s.model or '该模型'} 的推理吞吐（tokens/s）数据：ModelArts vLLM 推理表只给出卡数和实测 max-model-len，"
                      "估算工具只计算显存、不估算速度。可以用厂商的性能测试工具实测（见下方笔记摘录）。")


def kv_name(r: InferenceResult) -> str:
    """The KV cache precision the estimate was sized at: BF16 (the model's own), or INT8 / FP8 as asked."""
    return "BF16" if r.kv_cache_dtype == "auto" else r.kv_cache_dtype.upper()
