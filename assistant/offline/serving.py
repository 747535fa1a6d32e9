"""Serving blocks of the answer: what was asked first — yes or no for the user's devices, how many
sequences fit, how much KV cache, how fast (no tool has a speed figure) or the fewest cards — then the
ModelArts vLLM table rows and the estimator's plan beside them. The weight precision is always said:
the one the user stated, or the checkpoint's own."""

from __future__ import annotations

import re

from .capacity import CapacityBlocks
from .route import Done, per_node
from .wording import VLLM_LABEL, t

GIB = 1024 ** 3


def quant_named(words: str | None) -> bool:
    """True when the precision words name more than a bit width ("awq int4", "w8a8"; not "4bit", "4比特")."""
    return bool(words and re.sub(r"[\d\s\-]+|bits?|比特|位", "", words))


def seqs(n: int, length: int, zh: bool) -> str:
    return f"{n} 条 {length} token 的序列" if zh else f"{n} sequence{'s' if n != 1 else ''} of {length}"


class ServingBlocks(CapacityBlocks):
    def inference(self) -> list[str]:
        tables = self.results("inference_min_cards", ok=None)
        ests = self.results("estimate_inference", ok=None)
        if not (tables or ests):
            return []
        rows, best = self.table_lines(tables)
        table_answer = self.table_answer(best) if best and not self.estimate_decides(tables, best) else None
        est = next((d for d in ests if d.ok and d.result.get("fits") and not d.args.get("largest_layout")), None)
        sizing = table_answer or (self.estimate_answer(est) if est else None)
        s = self.s
        lead = self.capacity_text(ests) if "capacity" in s.intents else None
        if self.e.devices:  # yes or no for the user's devices, before any detail (the vLLM tables measured 910B cards, not Snt9B23 DIE)
            sizing = self.serving_verdict(best if table_answer and self.e.hardware != "snt9b23" else None, ests) or sizing
        kv = self.kv_text(ests) if "kv" in s.intents else None
        out: list[str] = []
        if lead is None and "throughput" in s.intents:
            lead = self.throughput_text()
            out.append(self.L("**Sizing:** ", "**部署规模**：") + sizing if sizing else "")
        if lead is None and kv and not (s.intents & {"cards"} or self.e.devices):
            lead, kv = kv, None
        if lead is None and "memory" in s.intents and not self.e.devices:
            lead = self.memory_text(ests)
        lead = lead or sizing
        if lead:
            out.insert(0, t("answer", self.lang) + lead)
        if kv:
            out.append("- " + kv)
        if s.quant_text and s.weight_bits != 16 and tables and any(d.ok for d in tables):
            out.append(self.L(f"- The {VLLM_LABEL['en']} lists the published checkpoint (no quantised rows); "
                              + (f"the {s.weight_bits}-bit figures are the estimate's." if s.weight_bits else
                                 f"you said “{s.quant_text}” without a bit width — say int8/W8A8 or int4/AWQ for a quantised estimate."),
                              f"- {VLLM_LABEL['zh']}只列出原始权重（没有量化的行）；"
                              + (f"{s.weight_bits} 比特的结果来自估算。" if s.weight_bits else
                                 f"你提到“{s.quant_text}”但没有给出位宽，可说明 int8/W8A8 或 int4/AWQ 再估算。")))
        out += rows
        for d in ests:
            out += self.estimate_lines(d)
        return [x for x in out if x] + [""]

    # -- the vLLM tables -----------------------------------------------------------------------
    def estimate_decides(self, tables: list[Done], best: dict) -> bool:
        """The tables tested the published checkpoint at one utilisation, one sequence at a time: a
        stated precision, concurrency, or a memory size they lack is the estimate's question."""
        s = self.s
        return bool(s.weight_bits not in (None, 16) or (s.concurrency or 1) > 1
                    or any(not d.ok and d.args.get("memory_gb") for d in tables))

    def table_lines(self, tables: list[Done]) -> tuple[list[str], dict | None]:
        """Every row of the vLLM tables for the model, and the row that answers (fewest cards for the length)."""
        out: list[str] = []
        answer = None
        for d in tables:
            if not d.ok:
                mem = d.args.get("memory_gb")
                out.append(self.L(f"- {VLLM_LABEL['en']}: no row for {self.s.model}" + (f" on {mem} GB cards." if mem else "."),
                                  f"- {VLLM_LABEL['zh']}：没有 {self.s.model}" + (f" 在 {mem} GB 卡上" if mem else "") + " 的数据。"))
                continue
            r = d.result
            best = [row for row in r.get("rows", []) if row["supported"] and row["cards"] == r.get("cards")
                    and (not r.get("max_model_len") or (row["max_model_len"] or 0) >= r["max_model_len"])]
            if best and answer is None:
                answer = max(best, key=lambda x: x["max_model_len"] or 0)
            several_names = len({row["model"] for row in r.get("rows", [])}) > 1  # e.g. Qwen3-235B-A22B and its -2507 variants
            for row in r.get("rows", []):
                self.cite(row.get("source"))
                if several_names:
                    row = {**row, "table": f"{row['table']} ({row['model']})"}
                if not row["supported"]:
                    out.append(self.L(f"- {row['table']}, {row['memory_gb']} GB cards: not supported ('-').",
                                      f"- {row['table']}，{row['memory_gb']} GB 卡：不支持（“-”）。"))
                    continue
                out.append(self.L(
                    f"- {row['table']}, {row['memory_gb']} GB cards (gpu-memory-utilization {row['gpu_memory_utilization']}): "
                    f"{self.devices(row['cards'])}, tested max-model-len {row['max_model_len']}",
                    f"- {row['table']}，{row['memory_gb']} GB 卡（gpu-memory-utilization {row['gpu_memory_utilization']}）："
                    f"{row['cards']} 张卡，实测 max-model-len {row['max_model_len']}"))
            if r.get("max_model_len") and not best:
                longest = max((row["max_model_len"] or 0) for row in r.get("rows", []))
                out.append(self.L(f"  No table row was tested at {r['max_model_len']} tokens; the longest tested is {longest}.",
                                  f"  表中没有在 {r['max_model_len']} 个 token 上测试过的行，最长为 {longest}。"))
        return out, answer

    def table_answer(self, row: dict) -> str:
        n = self.devices(row["cards"])
        return self.L(f"**{n}** ({row['memory_gb']} GB) for vLLM serving, tested max-model-len "
                      f"{row['max_model_len']} ({VLLM_LABEL['en']} {row['table']}, gpu-memory-utilization {row['gpu_memory_utilization']}).",
                      f"vLLM 推理最少 **{n}**（{row['memory_gb']} GB 卡），实测 max-model-len {row['max_model_len']}"
                      f"（{VLLM_LABEL['zh']} {row['table']}，gpu-memory-utilization {row['gpu_memory_utilization']}）。")

    # -- the estimate --------------------------------------------------------------------------
    def precision(self, r: dict) -> str:
        """'weights 4-bit (awq int4, as you said)', or the checkpoint's own precision as the tool chose it."""
        s = self.s
        if s.weight_bits and s.quant_text:
            named = f"{s.quant_text}, " if quant_named(s.quant_text) else ""
            return self.L(f"weights {s.weight_bits}-bit ({named}as you said)",
                          f"权重 {s.weight_bits} 比特（按你说的" + (f"“{s.quant_text}”" if named else "") + "）")
        note = str((r.get("assumptions") or [""])[0]).lower()
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

    def layout(self, r: dict) -> str:
        """'**4 GPUs** (TP 4)', '**32 cards** (TP 8, PP 4; 4 nodes)' from an estimate_inference result."""
        par = f"TP {r['tp']}" + (f", PP {r['pp']}" if r.get("pp", 1) > 1 else "") if r.get("tp") else ""
        nodes = -(-r["devices"] // per_node(r.get("hardware") or self.e.hardware))
        if nodes > 1:
            par += self.L(f"; {self.nodes(nodes)}", f"；{self.nodes(nodes)}")
        return f"**{self.devices(r['devices'], r.get('unit'), r.get('hardware'))}**" + (self.L(f" ({par})", f"（{par}）") if par else "")

    def per_token(self, r: dict) -> str:
        return self.L(f"{r['kv_bytes_per_token'] / 1024:.0f} KiB per token", f"每 token {r['kv_bytes_per_token'] / 1024:.0f} KiB")

    def estimate_answer(self, d: Done) -> str:
        r = d.result
        conc = self.L(f" × {r['concurrency']} concurrent", f" × {r['concurrency']} 并发") if (r.get("concurrency") or 1) > 1 else ""
        return self.L(f"estimate: {self.layout(r)} for max-model-len {r['max_model_len']}{conc} on {r.get('hardware')} "
                      f"({self.precision(r)}; KV cache {self.per_token(r)}, room for {r['kv_tokens_fit']:,} tokens).",
                      f"估算：{self.layout(r)}，max-model-len {r['max_model_len']}{conc}，{r.get('hardware')}"
                      f"（{self.precision(r)}；KV cache {self.per_token(r)}，可容纳 {r['kv_tokens_fit']:,} 个 token）。")

    def estimate_lines(self, d: Done) -> list[str]:
        if not d.ok:
            return [self.L(f"- Inference estimate not available: {d.error.get('message')}", f"- 无法估算推理：{d.error.get('message')}")]
        r = d.result
        label = self.L(f"estimate; {self.precision(r)}; KV cache BF16; gpu-memory-utilization {r.get('gpu_memory_utilization')}",
                       f"估算；{self.precision(r)}；KV cache 为 BF16；gpu-memory-utilization {r.get('gpu_memory_utilization')}")
        cap = d.args.get("max_devices")
        within = self.L(f" within your {self.have()}", f"（在你的 {self.have()}以内）") if cap and cap == self.e.devices else ""
        head = self.L(f"- **Estimate{within}**", f"- **估算{within}**")
        many = seqs(r["max_sequences_at_len"], r["max_model_len"], self.zh)
        room = self.L(f"KV cache {self.per_token(r)}, room for {r['kv_tokens_fit']:,} tokens ({many})",
                      f"KV cache {self.per_token(r)}，可容纳 {r['kv_tokens_fit']:,} 个 token（{many}）")
        if d.args.get("largest_layout"):
            out = [head + self.L(f" ({label}): the largest layout is {self.layout(r)}; {room}.", f"（{label}）：最大的布局为 {self.layout(r)}；{room}。")]
        elif not r.get("fits", True):
            need = r["max_model_len"] * (r.get("concurrency") or 1)
            out = [head + self.L(f" ({label}): does not fit — {need:,} tokens of KV cache needed, room for "
                                 f"{r['kv_tokens_fit']:,} on {self.layout(r)}.",
                                 f"（{label}）：放不下——需要 {need:,} 个 token 的 KV cache，{self.layout(r)} 只能容纳 "
                                 f"{r['kv_tokens_fit']:,} 个。")]
        else:
            out = [head + self.L(f" ({label}): {self.layout(r)}, {room}.", f"（{label}）：{self.layout(r)}，{room}。")]
        if r.get("note") and not d.args.get("largest_layout"):  # (the largest layout's note is no finding)
            out.append(f"  {r['note']}")
        return out

    # -- what was asked ------------------------------------------------------------------------
    def needed(self, ests: list[Done]) -> str:
        """'; it needs **4 GPUs** (TP 4)' from the call without the user's cap, when there is one."""
        free = next((d.result for d in ests if d.ok and not d.args.get("max_devices")), None)
        if free is None:
            return ""
        if not free.get("fits"):
            return self.L(f"; it does not fit on {self.devices(free['devices'], free.get('unit'), free.get('hardware'))} either",
                          f"；{self.devices(free['devices'], free.get('unit'), free.get('hardware'))}也放不下")
        return self.L(f"; it needs {self.layout(free)}", f"；需要 {self.layout(free)}")

    def serving_verdict(self, row: dict | None, ests: list[Done]) -> str | None:
        """Yes or no for the user's devices: the vLLM table's minimum when the question is within what it
        tested, else the estimate within the user's devices (estimate_inference with max_devices)."""
        have = self.e.devices
        capped = next((d for d in ests if d.ok and d.args.get("max_devices") and not d.args.get("largest_layout")), None)
        yours = self.L(f"your {self.have()}", f"你的 {self.have()}" + (" " if self.have()[-1].isascii() else ""))
        est = ""
        if capped:
            r = capped.result
            conc = self.L(f" × {r['concurrency']} concurrent sequences", f" × {r['concurrency']} 条并发") if (r.get("concurrency") or 1) > 1 else ""
            many = seqs(r["max_sequences_at_len"], r["max_model_len"], self.zh)
            if r.get("fits"):
                est = self.L(f"it fits {yours} — {self.layout(r)}, max-model-len {r['max_model_len']}{conc}, {self.precision(r)}; "
                             f"KV cache room for {r['kv_tokens_fit']:,} tokens ({many})",
                             f"{yours}放得下——{self.layout(r)}，max-model-len {r['max_model_len']}{conc}，{self.precision(r)}；"
                             f"KV cache 可容纳 {r['kv_tokens_fit']:,} 个 token（{many}）")
            else:
                room = (self.L("the weights leave no room for the KV cache", "权重放下后没有 KV cache 的空间") if not r["kv_tokens_fit"] else
                        self.L(f"KV room for {r['kv_tokens_fit']:,} tokens, {r['max_model_len'] * (r.get('concurrency') or 1):,} needed",
                               f"KV cache 只能容纳 {r['kv_tokens_fit']:,} 个 token，需要 {r['max_model_len'] * (r.get('concurrency') or 1):,} 个"))
                est = self.L(f"max-model-len {r['max_model_len']}{conc} does not fit {yours}: {room} ({self.precision(r)})",
                             f"max-model-len {r['max_model_len']}{conc} 在{yours}上放不下：{room}（{self.precision(r)}）") + self.needed(ests)
        if row:
            n = row["cards"]
            tested = self.L(f"{self.devices(n)} ({row['memory_gb']} GB, tested max-model-len {row['max_model_len']}, "
                            f"{row['table']}, gpu-memory-utilization {row['gpu_memory_utilization']})",
                            f"{self.devices(n)}（{row['memory_gb']} GB 卡，实测 max-model-len {row['max_model_len']}，"
                            f"{row['table']}，gpu-memory-utilization {row['gpu_memory_utilization']}）")
            if n <= have:
                line = self.L(f"**Yes.** {yours[0].upper() + yours[1:]} {'covers' if have == 1 else 'cover'} the {VLLM_LABEL['en']} "
                              f"minimum for {self.s.model}: {tested}.",
                              f"**可以**。{yours}满足{VLLM_LABEL['zh']}中 {self.s.model} 的最少卡数：{tested}。")
                if capped and not capped.result.get("fits"):
                    line += self.L(f" The estimate disagrees: {est}.", f"但按估算：{est}。")
                return line
            line = self.L(f"**No, not by the {VLLM_LABEL['en']}**: it lists at least {tested} for {self.s.model}; you have {self.have()}.",
                          f"**按厂商表格不够**：{VLLM_LABEL['zh']}中 {self.s.model} 至少需要 {tested}，你只有 {self.have()}。")
            if capped and capped.result.get("fits"):
                line += self.L(f" The memory estimate does fit: {est} — below the vendor's tested minimum, so unverified.",
                               f"按显存估算可以放下：{est}——低于厂商实测的最少卡数，未经验证。")
            elif capped:
                line += self.L(f" The estimate agrees: {est}.", f"估算结论相同：{est}。")
            return line
        if not capped:
            return None
        if capped.result.get("fits"):
            return self.L(f"**Yes** (estimate): {est}.", f"**可以**（估算）：{est}。")
        return self.L(f"**No** (estimate): {est}.", f"**不够**（估算）：{est}。")

    def capacity_text(self, ests: list[Done]) -> str | None:
        """How many sequences of max_model_len fit at once: on the user's devices (the probe's largest
        layout within them) or on the fewest devices that hold one."""
        probe = next((d.result for d in ests if d.ok and d.args.get("largest_layout")), None)
        r = probe or next((d.result for d in ests if d.ok and d.result.get("fits")), None)
        if r is None:
            return None
        n, m, length = r["devices"], r["max_sequences_at_len"], r["max_model_len"]
        if probe and m < 1:
            return self.L(f"**No** (estimate): not even one {length}-token sequence fits your {self.have()} "
                          f"({self.precision(r)}; KV room for {r['kv_tokens_fit']:,} tokens){self.needed(ests)}.",
                          f"**不够**（估算）：你的 {self.have()}连一条 {length} token 的序列都放不下"
                          f"（{self.precision(r)}；KV cache 只能容纳 {r['kv_tokens_fit']:,} 个 token）{self.needed(ests)}。")
        if probe:
            where = self.L(f"on {self.layout(r)}" + (f" of your {self.have()} (tensor parallel must divide the attention heads)"
                                                     if n < self.e.devices else ""),
                           f"{self.layout(r)}" + (f"（你的 {self.have()}中；TP 须整除注意力头数）" if n < self.e.devices else ""))
        else:
            where = self.L(f"on the fewest devices that hold one, {self.layout(r)}; more devices hold more",
                           f"在能放下的最少设备 {self.layout(r)} 上；设备越多可容纳越多")
        return self.L(f"about **{m} concurrent sequences of {length} tokens** {where} — estimate, {self.precision(r)}: the KV cache "
                      f"holds {r['kv_tokens_fit']:,} tokens at {self.per_token(r)}. Shorter requests share that pool, so more of them "
                      "fit; vLLM's --max-num-seqs also caps how many run at once.",
                      f"约 **{m} 条 {length} token 的并发序列**，{where}——估算，{self.precision(r)}：KV cache 可容纳 "
                      f"{r['kv_tokens_fit']:,} 个 token（{self.per_token(r)}）。请求更短时共享同一 KV 池，可并发更多；"
                      "vLLM 的 --max-num-seqs 也会限制同时运行的请求数。")

    def kv_text(self, ests: list[Done]) -> str | None:
        r = next((d.result for d in ests if d.ok), None)
        if r is None:
            return None
        length = r["max_model_len"]
        conc = r.get("concurrency") if r.get("concurrency") not in (None, 1) else None
        one = r["kv_bytes_per_token"] * length / GIB
        many = self.L(f", **{one * conc:.1f} GiB** for {conc} at once", f"，{conc} 条并发约 **{one * conc:.1f} GiB**") if conc else ""
        return self.L(f"KV cache **{self.per_token(r)}** (`{r['kv_formula']}`) → **{one:.1f} GiB** for one {length}-token "
                      f"sequence{many}; on {self.layout(r)} there is room for {r['kv_tokens_fit']:,} tokens (estimate; KV cache in "
                      "BF16, split over the tensor-parallel devices).",
                      f"KV cache **{self.per_token(r)}**（`{r['kv_formula']}`）→ 一条 {length} token 的序列约 **{one:.1f} GiB**{many}；"
                      f"{self.layout(r)}可容纳 {r['kv_tokens_fit']:,} 个 token（估算；KV cache 为 BF16，按张量并行分摊到各设备）。")

    def memory_text(self, ests: list[Done]) -> str | None:
        """'How much memory to serve X': weights, workspace and KV cache per device of the plan."""
        d = next((d for d in ests if d.ok and d.result.get("fits")), None)
        if d is None:
            return None
        r = d.result
        weights = r["weights_gib_per_device"] * r["tp"] * r["pp"]
        return self.L(f"about **{weights:.0f} GiB of weights** in all ({self.precision(r)}), plus KV cache at {self.per_token(r)}. "
                      f"The estimate serves max-model-len {r['max_model_len']} on {self.layout(r)}: per device {r['weights_gib_per_device']:.1f} "
                      f"GiB weights, {r['activation_gib']:.1f} GiB activation workspace, {r['overhead_gib']:.1f} GiB overhead and "
                      f"{r['kv_cache_gib']:.1f} GiB KV cache within the {r['budget_gib']:.1f} GiB budget (gpu-memory-utilization "
                      f"{r['gpu_memory_utilization']}).",
                      f"权重共约 **{weights:.0f} GiB**（{self.precision(r)}），另加 KV cache（{self.per_token(r)}）。估算在 {self.layout(r)}上"
                      f"服务 max-model-len {r['max_model_len']}：每设备权重 {r['weights_gib_per_device']:.1f} GiB、激活工作区 "
                      f"{r['activation_gib']:.1f} GiB、框架开销 {r['overhead_gib']:.1f} GiB、KV cache {r['kv_cache_gib']:.1f} GiB，"
                      f"预算 {r['budget_gib']:.1f} GiB（gpu-memory-utilization {r['gpu_memory_utilization']}）。")

    def throughput_text(self) -> str:
        return self.L(f"no serving throughput figure (tokens/s) for {self.s.model or 'this model'} here: the ModelArts vLLM tables list "
                      "card counts and tested max-model-len only, and the estimator sizes memory, not speed. Measure it with the "
                      "vendor's benchmark tools (quoted from the notes below).",
                      f"这里没有 {self.s.model or '该模型'} 的推理吞吐（tokens/s）数据：ModelArts vLLM 推理表只给出卡数和实测 max-model-len，"
                      "估算工具只计算显存、不估算速度。可以用厂商的性能测试工具实测（见下方笔记摘录）。")
