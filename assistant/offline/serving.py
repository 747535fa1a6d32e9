"""Serving blocks of the answer: what was asked first — yes or no for the user's devices, how many
sequences fit, how much KV cache, how fast (no tool has a speed figure) or the fewest cards — then the
ModelArts vLLM table rows and the estimator's plan beside them. The weight precision is always said:
the one the user stated, or the checkpoint's own."""

from __future__ import annotations

import re

from ..estimate import layout
from ..tools.estimates import InferenceResult
from ..tools.fits_tools import WhatFitsResult
from ..tools.tables import InferenceMinCardsResult, ListModelsResult, VllmRow
from . import table_query
from .asked import WHY_ASKED, asks_table_length, asks_verdict, serving_parts_asked
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
        if not (tables or ests) or ("weights_memory" in self.s.intents and "inference" not in self.s.intents):
            return []  # the weights of a model being trained: their figure leads (component.py), no serving plan
        rows, best = self.table_lines(tables)
        searched = self.searched_context()
        # (the longest length searched on a memory size the tables have no row for: that search leads, fits.py)
        if (cells := self.memory_cells(tables)) and not (searched and self.unlisted_sizes(tables)):
            # "32G 的卡要几张？64G 的呢" / "on 32GB cards?" with a '–' cell: each memory column asked is the answer
            # the user's devices judged: the yes/no by the estimate within them leads, the columns asked under it (no
            # vendor row on the memory size said, the tables cannot judge them)
            verdict = self.serving_verdict(None, ests) if self.e.devices else self.fewest_verdict(ests, None)
            # "32G 的卡能同时跑几路": the sequences asked lead; "32G 的卡要几张" with no vendor row there: the estimate's count
            verdict = (self.capacity_text(ests) if "capacity" in self.s.intents else None) or verdict or self.unlisted_estimate(tables, ests)
            head = [self.lead(verdict), "- " + cells] if verdict else [self.lead(cells)]
            return [*head, *rows, *[line for r in ests for line in self.estimate_lines(r)], ""]
        if best and best.max_model_len and asks_table_length(self.s, searched, best.cards) and not (
                searched and self.row_off_frame(best)):
            # the table's tested length is the value asked: it leads; the yes/no for the devices (or the search) backs it
            lead = None if searched else self.serving_lead(tables, ests, best)[0]
            # another table's run on the same cards at another length (v0.7.2 64K at 0.9, newest 32K at 0.95): both stand
            others = {(r.table, r.max_model_len): r for c in tables if c.value for r in c.value.rows if r.supported
                      and (r.memory_gb, r.cards) == (best.memory_gb, best.cards) and r.max_model_len != best.max_model_len}
            also = "".join(self.say("table_length_other", version=r.table, util=r.gpu_memory_utilization, n=f"{r.max_model_len or 0:,}",
                                    devs=self.devices(r.cards)) for r in others.values())
            return [self.lead(self.say("table_length_first", n=f"{best.max_model_len:,}", model=self.s.model, devs=self.devices(best.cards), gb=best.memory_gb, table=VLLM_LABEL[self.lang], version=best.table, util=best.gpu_memory_utilization) + also), *(["- " + lead] if lead else []), *rows,
                    *[line for r in ests for line in self.estimate_lines(r)], ""]
        if searched:
            # "the longest context on my 8 Snt9B?": the search leads (the fits block); the table's tested lengths
            # follow for comparison, with no yes/no for devices the question did not ask about
            return [self.say("inference_for_comparison_the", value=VLLM_LABEL[self.lang])] + rows + [""]
        lead, sizing_line = self.serving_lead(tables, ests, best)
        out = [self.lead(lead)] if lead else []
        if cap := self.seqs_cap(ests):  # "--max-num-seqs 128": fewer full-length sequences fit than the cap leads
            out = [self.lead(cap[0]), *(["- " + lead] if lead else [])] if cap[1] else [*out, "- " + cap[0]]
        out += self.after_serving_lead()
        if sizing_line:
            out.append(self.say("inference_sizing") + sizing_line)
        out += self.serve_command(best, ests)
        if "kv" in self.s.intents and (kv := self.kv_text(ests)) and lead and not lead.startswith(kv) and kv != lead:
            out.append("- " + kv)
        out += self.quantised_note(tables)
        out += rows
        for r in ests:
            out += self.estimate_lines(r)
        return out + [""]

    def instances_text(self, ests: list[Result[InferenceResult]], best: VllmRow | None) -> str | None:
        """"How many instances fit on one node / my 8 cards?": the devices (the user's, else one node of the part) over the
        devices of one instance — the ones said per instance, else the vendor row's (when it ran the user's setting), else
        the estimate's fewest — with one instance's KV room beside it, and the other count when the table and the
        estimate disagree on one instance."""
        s = self.s
        est = next((r.value for r in ests if r.value), None)  # one instance, as the router sized it
        hw = est.hardware if est else self.e.hardware
        unit = "DIE" if self.unit_of(hw) == "die" else "card"
        pool = self.e.devices or self.node_size(hw)
        where = self.have() if self.e.devices else self.say("instances_one_node", devs=self.devices(pool, unit, hw))
        said = s.per_instance or s.tp
        if said:
            per, src = said, self.say("instances_per_yours")
        elif best and best.cards and not self.row_off_frame(best):
            per, src = best.cards, self.say("instances_per_table", version=best.table, util=best.gpu_memory_utilization,
                                            n=f"{best.max_model_len or 0:,}")
        elif est and est.fits:
            per, src = est.devices, self.say("instances_per_estimate", layout=self.layout(est))
        else:
            return None
        if said and est and not est.fits:  # one instance does not fit on the devices said of it
            return self.say("instances_none", per=self.devices(said, unit, hw), est=self.capped_text(est, ests, yours=self.devices(said, unit, hw)))
        n, left = pool // per, pool % per
        kv = self.say("instances_kv", tokens=est.kv_tokens_fit, many=seqs(est.max_sequences_at_len, est.max_model_len, self.zh),
                      util=est.gpu_memory_utilization, layout=self.layout(est)) if est and est.fits and est.devices == per else ""
        other = self.say("instances_by_estimate", n=pool // est.devices, layout=self.layout(est)) if (
            not said and est and est.fits and est.devices != per and est.devices <= pool) else ""
        return self.say("instances_lead", n=n, where=where, pool=self.devices(pool, unit, hw), per=self.devices(per, unit, hw),
                        src=src, left=self.say("instances_left", left=self.devices(left, unit, hw)) if left else "",
                        kv=kv, other=other, instances=self.L("instance" + ("s" if n != 1 else ""), "个实例"))

    def fewest_verdict(self, ests: list[Result[InferenceResult]], best: VllmRow | None) -> str | None:
        """"util 只能给到 0.75，还跑得起来吗" with no devices of the user's: the yes/no at the setting stated, on the fewest
        devices that hold it (the estimate without a cap), the vendor's row beside it (it ran another setting). None when
        no yes/no is asked or no such estimate ran."""
        free = next((r.value for r in ests if r.value and not r.arg("max_devices") and not r.arg("largest_layout")), None)
        if self.e.devices or free is None or not asks_verdict(self.s):
            return None
        yours = self.say("serving_at_setting", util=free.gpu_memory_utilization)
        line = self.say("serving_yes_by_estimate" if free.fits else "serving_no_by_estimate",
                        est=self.capped_text(free, ests, yours=yours), tp=self.tp_said(ests))
        if best and best.cards:
            line += self.say("serving_row_beside", devs=self.devices(best.cards), gb=best.memory_gb, version=best.table,
                             util=best.gpu_memory_utilization, n=f"{best.max_model_len or 0:,}")
        return line

    def row_off_frame(self, row: VllmRow) -> bool:
        """The vendor row was measured off the user's frame: on another memory size than the one asked ("32G 的卡" with
        only a 64 GB row), at another gpu-memory-utilization than the one stated (0.75 against the row's 0.95), or for more
        sequences at once than the one the vendor ran. Then the
        search on the user's own setting answers the longest length, and the row stays a comparison."""
        s = self.s
        return bool((s.memory_gb and row.memory_gb != s.memory_gb) or (s.concurrency or 1) > 1  # (one sequence tested)
                    or (s.gpu_util and abs(s.gpu_util - (row.gpu_memory_utilization or 0)) > 1e-6))

    def after_serving_lead(self) -> list[str]:
        """Lines a part asked after the serving figure adds right under it (the weights, component.py)."""
        return []

    def seqs_cap(self, ests: list[Result[InferenceResult]]) -> tuple[str, bool] | None:
        """"--max-num-seqs 128, KV cache 够吗": the user's cap set against the full-length sequences the KV cache holds,
        and whether fewer fit than the cap (a serve line asked for says it beside the command)."""
        cap = (self.s.file_values or {}).get("max_num_seqs")
        est = next((r.value for r in ests if r.value and r.value.fits), None)
        if not cap or not est or "config" in self.s.intents:
            return None
        short = est.max_sequences_at_len < int(cap)
        return self.say("max_num_seqs_short" if short else "max_num_seqs_all", cap=cap, seqs=est.max_sequences_at_len,
                        length=est.max_model_len), short

    @staticmethod
    def unlisted_sizes(tables: list[Result[InferenceMinCardsResult]]) -> list[int]:
        """The memory sizes asked that no supported vendor row has."""
        asked = list(dict.fromkeys(int(c.arg("memory_gb")) for c in tables if c.arg("memory_gb")))
        every = [r for c in tables if c.value for r in c.value.rows]
        return [m for m in asked if not any(r.supported and r.memory_gb == m for r in every)]

    def memory_cells(self, tables: list[Result[InferenceMinCardsResult]]) -> str | None:
        """The vendor's cell for each memory size asked, when two are asked or the one asked is '–' (the vendor did not
        test or support it there; then the other column's cells follow, as what the tables do list). None otherwise:
        one size with a row is the ordinary lead's."""
        asked = list(dict.fromkeys(int(c.arg("memory_gb")) for c in tables if c.arg("memory_gb")))
        every = {(r.table, r.memory_gb, r.cards, r.max_model_len, r.supported): r
                 for c in tables if c.value for r in c.value.rows}.values()
        unlisted = [m for m in asked if not any(r.supported and r.memory_gb == m for r in every)]
        if not asked or (len(asked) < 2 and not unlisted):
            return None
        shown = asked + sorted({r.memory_gb for r in every if r.supported} - set(asked)) if unlisted else asked
        cells = []
        for gb in shown:
            rows = [r for r in every if r.memory_gb == gb]
            ok = sorted((r for r in rows if r.supported), key=lambda r: (r.cards or 0, -(r.max_model_len or 0)))
            if ok:
                cells += [self.say("memory_cell", gb=gb, devs=self.devices(r.cards), n=f"{r.max_model_len:,}",
                                   version=r.table, util=r.gpu_memory_utilization) for r in ok]
            elif rows:
                cells.append(self.say("memory_cell_dash", gb=gb, version=rows[0].table, model=self.s.model))
            else:
                cells.append(self.say("memory_cell_none", gb=gb, model=self.s.model))
        return self.say("memory_cells_lead", cells=self.say("semicolon").join(cells), table=VLLM_LABEL[self.lang])

    def unlisted_estimate(self, tables: list[Result[InferenceMinCardsResult]], ests: list[Result[InferenceResult]]) -> str | None:
        """The one memory size asked has no vendor row (or a '–'): the estimate's fewest devices on that part is the count
        asked, said first and named as the estimate (None when two sizes are asked or no such estimate ran)."""
        asked = list(dict.fromkeys(int(c.arg("memory_gb")) for c in tables if c.arg("memory_gb")))
        est = next((r.value for r in ests if r.value and r.value.fits and not r.arg("max_devices")), None)
        if len(asked) != 1 or est is None or int(float((self.parts.get(est.hardware) or {}).get("memory_gb") or 0)) != asked[0]:
            return None
        return self.say("memory_unlisted_estimate", gb=asked[0], layout=self.layout(est), max_model_len=est.max_model_len,
                        conc=self.concurrent(est), precision=self.precision(est), kv_tokens_fit=est.kv_tokens_fit,
                        many=seqs(est.max_sequences_at_len, est.max_model_len, self.zh), util=est.gpu_memory_utilization,
                        kv=kv_name(est))

    def searched_context(self) -> bool:
        """The longest context on the user's devices was searched (what_fits with the context goal)."""
        return any(c.value is not None and c.value.goal == "context" for c in self.r.of("what_fits", WhatFitsResult, ok=None))

    def serving_lead(self, tables: list[Result[InferenceMinCardsResult]], ests: list[Result[InferenceResult]],
                     best: VllmRow | None) -> tuple[str | None, str | None]:
        """(headline, sizing line under it): the first rule that applies — how many sequences fit, no
        throughput figure, the KV cache, memory — else the sizing itself (yes/no for the user's devices first)."""
        s = self.s
        # the tables tested the published checkpoint at one utilisation, one sequence at a time: a stated precision,
        # concurrency, or a memory size they lack is the estimate's question
        estimate_decides = s.weight_bits not in (None, 16) or (s.concurrency or 1) > 1 or any(
            not r.ok and r.arg("memory_gb") for r in tables)
        table_answer = self.table_answer(best) if best and not estimate_decides else None
        est = next((r.value for r in ests if r.value and r.value.fits and not r.arg("largest_layout")), None)
        sizing = table_answer or (self.say("estimate_answer_estimate_for_max", layout=self.layout(est), max_model_len=est.max_model_len, conc=self.concurrent(est), hardware=self.hw_name(est.hardware), precision=self.precision(est), per_token=self.per_token(est), kv_tokens_fit=est.kv_tokens_fit) if est else None)
        if self.e.devices:  # yes or no for the user's devices (the vLLM tables measured 910B cards, not Snt9B23 DIE)
            sizing = self.serving_verdict(best if table_answer and self.unit_of(None) != "die" else None, ests) or sizing
        elif (best is None or estimate_decides or self.row_off_frame(best)) and (fewest := self.fewest_verdict(ests, best)):
            sizing = fewest
        if (not self.e.devices or sizing is None) and s.tp and (
                probe := next((r.value for r in ests if r.value and r.arg("largest_layout")), None)):
            # "tp=2 呢": the layout the user names is judged (yes or no on its TP devices), not a count nobody asked
            said = f"TP {s.tp}" + (f" × PP {s.pp}" if s.pp else "") + (" " if self.zh else "")
            sizing = self.say("serving_yes_by_estimate" if probe.fits else "serving_no_by_estimate",
                              est=self.capped_text(probe, ests, yours=said), tp=self.tp_said(ests))
        if "instances" in s.intents and (lead := self.instances_text(ests, best)):
            return lead, sizing if self.e.devices else None
        if "capacity" in s.intents and (lead := self.capacity_text(ests)):
            return lead, None
        # the part asked first leads with its own figure ("kv per token?", "which tensor-parallel-size?"); a yes/no or a
        # card count asked after it (or the user's devices judged) follows as the sizing line
        parts = serving_parts_asked(s.question.lower())
        if parts and parts[0] in ("kv", "tp") and (first := self.kv_lead(ests) if parts[0] == "kv" else self.tp_text(ests, best)):
            later = "verdict" in parts or self.e.devices or parts[0] == "tp"
            return first, (sizing if later and sizing != first else None)
        if "throughput" in s.intents:
            return self.say("no_throughput", model=s.model or self.say("this_model")), sizing
        judged = bool(self.e.devices or s.tp)  # the user's devices, or the layout they name ("tp=2 呢"): its yes/no leads
        if "kv" in s.intents and not s.intents & {"cards"} and (not judged or not sizing) and (kv := self.kv_text(ests)):
            return kv, None  # the KV room asked on the user's devices (the largest layout within them) leads when no yes/no does
        if "memory" in s.intents and not judged and "weights_memory" not in s.intents and (mem := self.memory_text(ests)):
            return mem, None
        return sizing, None

    def quantised_note(self, tables: list[Result[InferenceMinCardsResult]]) -> list[str]:
        s = self.s
        if not (s.quant_text and s.weight_bits != 16 and any(r.ok for r in tables)):
            return []
        return [self.say("quantised_bits" if s.weight_bits else "quantised_no_bits", table=VLLM_LABEL[self.lang],
                         bits=s.weight_bits, said=s.quant_text)]

    # -- the vLLM tables -----------------------------------------------------------------------
    def serve_command(self, best: VllmRow | None, ests: list[Result[InferenceResult]]) -> list[str]:
        """"Give me the vllm serve line": the command for the layout above, the estimate's (the TP, PP, length and
        utilisation it sized) or else the vendor row's (its cards as TP, its tested length, its utilisation)."""
        model = self.s.model
        if "config" not in self.s.intents or not model:
            return []
        est = next((r.value for r in ests if r.value and r.value.fits), None)
        if est:
            tp, pp, length, util = est.tp, est.pp, est.max_model_len, est.gpu_memory_utilization
            if not self.s.seq_len and best and best.max_model_len and (best.cards or 0) <= tp * (pp or 1):
                length = best.max_model_len  # no length said: the table's tested one on these cards, not the default
        elif best and best.cards and best.max_model_len:
            tp, pp, length, util = best.cards, 1, self.s.seq_len or best.max_model_len, best.gpu_memory_utilization
        else:
            return []
        # the user's own weights path, served name, host and port (file_values.toml) go into the line as written
        own = self.s.file_values or {}
        flags = [f"--served-model-name {own.get('served_model_name') or model}", f"--tensor-parallel-size {tp}"] + (
            [f"--pipeline-parallel-size {pp}"] if pp and pp > 1 else []) + [
            f"--max-model-len {length}", f"--gpu-memory-utilization {util:g}"] + (
            [f"--max-num-seqs {own['max_num_seqs']}"] if own.get("max_num_seqs") else []) + (
            [f"--host {own['host']}"] if own.get("host") else []) + ([f"--port {own['port']}"] if own.get("port") else [])
        path = own.get("model_path") or f"/path/to/{model}"
        # --max-num-seqs caps the sequences running at once; the KV cache decides how many of full length run together
        cap = [self.say("max_num_seqs_cap", cap=own["max_num_seqs"], seqs=est.max_sequences_at_len, length=length)] \
            if own.get("max_num_seqs") and est and est.max_sequences_at_len < int(own["max_num_seqs"]) else []
        return [self.say("serve_command_vllm_serve_for" if "model_path" not in own else "serve_command_vllm_serve_own_path"),
                "```bash", f"vllm serve {path} " + " ".join(flags), "```", *cap]

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
            out += [line for row in r.rows if (line := self.vllm_row_line(row, several_names)) not in out]  # a row once
            if r.max_model_len and not best:
                longest = max((row.max_model_len or 0) for row in r.rows)
                out.append(self.say("table_lines_no_table_row", max_model_len=r.max_model_len, longest=longest))
        # a table version the question names ("the v0.7.2 table and the newest one") that has no row for the model
        listed = {row.table for c in tables if c.value for row in c.value.rows}
        for version in table_query.vllm_versions_named(self.s.question.lower()):
            if tables and version not in listed:
                out.append(self.say("vllm_version_no_row", version=version, model=self.s.model))
        return out, answer

    def served_on(self, r: ListModelsResult, cards: int) -> list[str]:
        """The newest vLLM table's models at one card count, each with the max-model-len it tested (list_models
        serving_cards)."""
        source = self.table_source("vllm-newest", r.vllm_source or "")
        self.cite(source)
        if not r.models:
            return [self.lead(self.L(f"no model of the {source} is served on exactly {self.devices(cards)}.",
                                     f"{source}中没有正好用 {cards} 张卡的模型。")), ""]
        length = lambda n: f"{n // 1024}K" if n >= 1024 else str(n)  # noqa: E731  (the rerankers' 512)
        listed = [m.id + self.L(f" ({length(m.vllm_max_model_len)})", f"（{length(m.vllm_max_model_len)}）")
                  if m.vllm_max_model_len else m.id for m in r.models]
        return [self.lead(self.L(
            f"**{len(listed)} model{'s' if len(listed) > 1 else ''}** take{'' if len(listed) > 1 else 's'} **{self.devices(cards)}** (64 GB, gpu-memory-utilization 0.95) in the {source}, "
            f"with the max-model-len tested: " + ", ".join(listed) + ".",
            f"{source}中 **{cards} 张卡**（64 GB，gpu-memory-utilization 0.95）起步的模型共 **{len(listed)} 个**，括号内为实测 "
            f"max-model-len：" + "、".join(listed) + "。")), ""]

    def vllm_source(self, row: VllmRow) -> str:
        return self.table_source(row.table, row.source)

    def vllm_row_line(self, row: VllmRow, several_names: bool) -> str:
        self.cite(self.vllm_source(row))
        table = f"{row.table} ({row.model})" if several_names else row.table
        if not row.supported:
            return self.say("vllm_row_line_gb_cards_not", table=table, memory_gb=row.memory_gb)
        return self.L(f"- {table}, {row.memory_gb} GB cards (gpu-memory-utilization {row.gpu_memory_utilization}): "
                      f"{self.devices(row.cards)}, tested max-model-len {row.max_model_len}",
                      f"- {table}，{row.memory_gb} GB 卡（gpu-memory-utilization {row.gpu_memory_utilization}）："
                      f"{row.cards} 张卡，实测 max-model-len {row.max_model_len}")

    def table_answer(self, row: VllmRow) -> str:
        n = self.devices(row.cards)
        return self.L(f"**{n}** ({row.memory_gb} GB) for vLLM serving, tested max-model-len "
                      f"{row.max_model_len} ({VLLM_LABEL['en']} {row.table}, gpu-memory-utilization {row.gpu_memory_utilization}).",
                      f"vLLM 推理最少 **{n}**（{row.memory_gb} GB 卡），实测 max-model-len {row.max_model_len}"
                      f"（{VLLM_LABEL['zh']} {row.table}，gpu-memory-utilization {row.gpu_memory_utilization}）。") + self.on_die(row)

    def on_die(self, row: VllmRow) -> str:
        """On a part counted in DIE (Snt9B23), the table's 64 GB cards as DIE of the same memory, with the physical cards
        and whole nodes they take (the tables were measured on 910B cards, not on the DIE: said so)."""
        facts = self.e.facts
        if self.unit_of(None) != "die" or not row.cards or not facts.memory_gb or row.memory_gb != int(facts.memory_gb):
            return ""
        per_card, per_node = max(self.s.dies_per_card or 1, 2), self.e.per_node or 16
        return self.say("vllm_row_on_die", n=row.cards, part=facts.table_part or self.e.hardware, gb=row.memory_gb,
                        physical=-(-row.cards // per_card), nodes=self.nodes(-(-row.cards // per_node)))

    # -- the estimate --------------------------------------------------------------------------
    def precision(self, r: InferenceResult) -> str:
        """'weights 4-bit (awq int4, as you said)', or the checkpoint's own precision as the tool chose it."""
        s = self.s
        if s.weight_bits_each:  # "bf16 and int8": each estimate at its own precision, read back from its weights
            bits = weight_bits_of(r)
            return self.L(f"weights {bits}-bit (as you said)", f"权重 {bits} 比特（按你说的）")
        if s.weight_bits and s.quant_text:
            named = f"{s.quant_text}, " if quant_named(s.quant_text) else ""
            return self.L(f"weights {s.weight_bits}-bit ({named}as you said)",
                          f"权重 {s.weight_bits} 比特（按你说的" + (f"“{s.quant_text}”" if named else "") + "）")
        # the weights' part of the note only: "…; KV cache FP8" names the KV cache's precision, not the weights'
        note = str((r.assumptions or [""])[0]).lower().split("; kv cache")[0]
        if "converted" in note:  # Ascend has no FP8/MXFP4: the tool sizes such checkpoints in BF16
            native = self.say("precision_bf_converted_from")
        elif "mxfp4" in note:
            native = self.say("precision_mxfp_experts_the")
        else:
            native = "FP8" if "fp8" in note else "BF16"
        if "in fp16" in note:  # a device without BF16 (310P, T4, V100) serves the 16-bit checkpoint in FP16
            return self.say("precision_fp16_no_bf16")
        if s.quant_text:  # "量化" / "quantized" without a bit width
            return self.say("precision_weights_at_the_2", native=native, quant_text=s.quant_text)
        return self.say("precision_weights_at_the", native=native)

    def layout(self, r: InferenceResult) -> str:
        """'**4 GPUs** (TP 4)', '**32 cards** (TP 8, PP 4; 4 nodes)', '**112 cards** (28 instances × TP 4; 14 nodes)'
        from an estimate_inference result."""
        par = f"TP {r.tp}" + (f", PP {r.pp}" if r.pp > 1 else "") if r.tp else ""
        if r.replicas > 1:  # copies of one instance, each with its own KV cache
            par = self.say("layout_replicas", replicas=r.replicas, par=par)
        nodes = -(-r.devices // self.node_size(r.hardware))
        if nodes > 1:
            par += self.say("layout_text", nodes=self.nodes(nodes))
        return f"**{self.devices(r.devices, r.unit, r.hardware)}**" + (self.say("layout_text_2", par=par) if par else "")

    def per_token(self, r: InferenceResult) -> str:
        return self.say("per_token_kib_per_token", value=r.kv_bytes_per_token / 1024)

    def concurrent(self, r: InferenceResult, en: str = " concurrent", zh: str = " 并发") -> str:
        return self.L(f" × {r.concurrency}{en}", f" × {r.concurrency}{zh}") if r.concurrency > 1 else ""

    def estimate_lines(self, call: Result[InferenceResult]) -> list[str]:
        r = call.value
        if r is None:
            return [self.say("estimate_lines_inference_estimate_not", message=self.error_text(call))]
        label = self.say("estimate_lines_estimate_kv_cache", precision=self.precision(r), value=kv_name(r), gpu_memory_utilization=r.gpu_memory_utilization)
        cap = call.arg("max_devices")
        within = self.say("estimate_lines_within_your", have=self.have()) if cap and cap == self.e.devices else ""
        head = self.say("estimate_lines_estimate", within=within, label=label)
        many = seqs(r.max_sequences_at_len, r.max_model_len, self.zh)
        room = self.say("estimate_lines_kv_cache_room", per_token=self.per_token(r), kv_tokens_fit=r.kv_tokens_fit, many=many)
        if call.arg("largest_layout"):
            return [head + self.say("estimate_lines_the_largest_layout", layout=self.layout(r), room=room)]
        need = r.max_model_len * r.concurrency
        line = (head + self.say("estimate_lines_text", layout=self.layout(r), room=room) if r.fits else
                head + self.say("estimate_lines_does_not_fit", need=need, kv_tokens_fit=r.kv_tokens_fit, layout=self.layout(r)))
        seqs_line = [f"  {self.say('max_num_seqs_needed', n=r.max_num_seqs_needed)}"] if r.max_num_seqs_needed else []
        return [line] + seqs_line + ([f"  {self.L(r.note, assumption_zh(r.note, TOOL_NOTE_ZH))}"] if r.note else [])

    # -- what was asked ------------------------------------------------------------------------
    def needed(self, ests: list[Result[InferenceResult]]) -> str:
        """'; it needs **4 GPUs** (TP 4)' from the call without the user's cap, when there is one."""
        free = next((r.value for r in ests if r.value and not r.arg("max_devices")), None)
        if free is None:
            return ""
        if not free.fits:
            return self.say("needed_it_does_not", devs=self.devices(free.devices, free.unit, free.hardware))
        return self.say("needed_it_needs", layout=self.layout(free))

    def capped_text(self, r: InferenceResult, ests: list[Result[InferenceResult]], yours: str | None = None) -> str:
        """The estimate within the user's devices (or the layout they name: ``yours``), as a clause: it fits (layout,
        KV room) or why not."""
        yours = yours or self.L(f"your {self.have()}", f"你的 {self.have()}" + (" " if self.have()[-1].isascii() else ""))
        conc = self.concurrent(r, " concurrent sequences", " 条并发")
        if r.fits:
            many = seqs(r.max_sequences_at_len, r.max_model_len, self.zh)
            return self.say("capped_text_it_fits_max", yours=yours, layout=self.layout(r), max_model_len=r.max_model_len, conc=conc, precision=self.precision(r), kv_tokens_fit=r.kv_tokens_fit, many=many)
        need = r.max_model_len * r.concurrency
        room = (self.say("capped_text_the_weights_leave") if not r.kv_tokens_fit else
                self.say("capped_text_kv_room_for", kv_tokens_fit=r.kv_tokens_fit, need=need))
        return self.say("capped_text_max_model_len", max_model_len=r.max_model_len, conc=conc, yours=yours, room=room, precision=self.precision(r)) + self.needed(ests)

    def serving_verdict(self, row: VllmRow | None, ests: list[Result[InferenceResult]]) -> str | None:
        """Yes or no for the user's devices: the vLLM table's minimum when the question is within what it
        tested, else the estimate within the user's devices (estimate_inference with max_devices)."""
        capped = next((r.value for r in ests if r.value and r.arg("max_devices") and not r.arg("largest_layout")), None)
        est = self.capped_text(capped, ests) if capped else ""
        if row:
            return self.table_verdict(row, capped, est, ests)
        if capped is None:
            return None
        return self.say("serving_yes_by_estimate" if capped.fits else "serving_no_by_estimate", est=est, tp=self.tp_said(ests))

    def tp_said(self, ests: list[Result[InferenceResult]] | None) -> str:
        """The TP the user named, checked against the model's heads (estimate/layout.py) before the verdict on their
        devices: a TP the rules refuse is the answer on its own (the reader's layout check), so here it splits them."""
        s = self.s
        shape = next((r.value.shape for r in ests or [] if r.value), None)
        if not s.tp or s.tp <= 1 or shape is None or not ests or not layout.tp_splits_heads(s.tp, shape.heads, None if shape.mla else shape.kv_heads, True):
            return ""
        kv = "" if shape.mla or not shape.kv_heads else (
            self.say("serving_tp_kv_whole", kv=shape.kv_heads, kvper=shape.kv_heads // s.tp) if shape.kv_heads % s.tp == 0 else
            self.say("serving_tp_kv_copies", kv=shape.kv_heads, copies=layout.kv_copies(s.tp, shape.kv_heads)))
        per_node = self.e.per_node or 0
        nodes = self.say("serving_tp_nodes", tp=s.tp, nodes=-(-s.tp // per_node), per_node=per_node, pp=s.tp // per_node) if (
            per_node and s.tp > per_node and s.tp % per_node == 0) else ""
        return self.say("serving_tp_splits", tp=s.tp, heads=shape.heads, model=s.model or shape.model, per=shape.heads // s.tp,
                        kv=kv, nodes=nodes)

    def table_verdict(self, row: VllmRow, capped: InferenceResult | None, est: str,
                      ests: list[Result[InferenceResult]] | None = None) -> str:
        """Yes/no by the vLLM table's row, with the estimate beside it when it says otherwise (or agrees on a no)."""
        have, n, model = self.e.devices or 0, row.cards or 0, self.s.model
        tested = self.say("table_verdict_gb_tested_max", devs=self.devices(n), memory_gb=row.memory_gb, max_model_len=row.max_model_len, table=row.table, gpu_memory_utilization=row.gpu_memory_utilization)
        if n <= have:
            line = self.say("serving_yes_by_table", have=self.have(), cover="covers" if have == 1 else "cover",
                            table=VLLM_LABEL[self.lang], model=model, tested=tested, tp=self.tp_said(ests))
            if capped and not capped.fits:
                line += self.say("table_verdict_the_estimate_disagrees", est=est)
            return line
        line = self.say("serving_no_by_table", table=VLLM_LABEL[self.lang], tested=tested, model=model, have=self.have(),
                        tp=self.tp_said(ests))
        if capped and capped.fits:
            return line + self.say("table_verdict_the_memory_estimate", est=est)
        return line + (self.say("table_verdict_the_estimate_agrees", est=est) if capped else "")

    def capacity_text(self, ests: list[Result[InferenceResult]]) -> str | None:
        """How many sequences of max_model_len fit at once: on the user's devices (the probe's largest
        layout within them) or on the fewest devices that hold one."""
        probe = next((r.value for r in ests if r.value and r.arg("largest_layout")), None)
        r = probe or next((x.value for x in ests if x.value and x.value.fits), None)
        if r is None:
            return None
        n, m, length = r.devices, r.max_sequences_at_len, r.max_model_len
        if budget := self.s.settings.get("kv_budget_gb"):  # "with 60 GB of KV space": counted in the user's budget
            each = r.kv_bytes_per_token * length
            fit = int(budget * 1e9 // each)
            return self.L(f"about **{fit} concurrent sequences of {length} tokens** in your {budget:g} GB of KV cache — estimate: "
                          f"one sequence takes {length} × {self.per_token(r)} = {each / GIB:.2f} GiB, and {budget:g} GB / "
                          f"{each / 1e9:.2f} GB = {budget * 1e9 / each:.1f}. vLLM's --max-num-seqs also caps how many run at once.",
                          f"约 **{fit} 条 {length} token 的并发序列**，按你给 KV cache 的 {budget:g} GB 计——估算：一条序列占 "
                          f"{length} × {self.per_token(r)} = {each / GIB:.2f} GiB，{budget:g} GB ÷ {each / 1e9:.2f} GB = "
                          f"{budget * 1e9 / each:.1f}。vLLM 的 --max-num-seqs 也会限制同时运行的请求数。")
        if probe and m < 1:
            return self.say("capacity_text_no_estimate_not", length=length, have=self.have(), precision=self.precision(r), kv_tokens_fit=r.kv_tokens_fit, needed=self.needed(ests))
        fewer = probe and n < (self.e.devices or 0)
        if probe:
            where = self.L(f"on {self.layout(r)}" + (f" of your {self.have()} (tensor parallel must divide the attention heads)" if fewer else ""),
                           f"{self.layout(r)}" + (f"（你的 {self.have()}中；TP 须整除注意力头数）" if fewer else ""))
        else:
            where = self.say("capacity_text_on_the_fewest", layout=self.layout(r))
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
        many = self.say("kv_text_gib_for_at", value=one * conc, conc=conc) if conc else ""
        if self.e.devices and not self.s.seq_len and not conc:
            r = next((x.value for x in ests if x.value and x.arg("largest_layout")), r)  # the pool on all the devices
            # "how much KV cache do I get on my 4 GPUs": the pool the devices leave after the weights, no length of the
            # user's to measure it in, so the pool in GiB leads and the tokens it holds follow
            return self.say("kv_text_pool", total=r.kv_tokens_fit * r.kv_bytes_per_token / GIB, layout=self.layout(r),
                            per_device=r.kv_cache_gib, per_token=self.per_token(r), kv_formula=r.kv_formula,
                            kv_tokens_fit=r.kv_tokens_fit, one=one, length=length, value=kv_name(r))
        return self.say("kv_text_kv_cache_gib", per_token=self.per_token(r), kv_formula=r.kv_formula, one=one, length=length, many=many, layout=self.layout(r), kv_tokens_fit=r.kv_tokens_fit, value=kv_name(r))

    def kv_lead(self, ests: list[Result[InferenceResult]]) -> str | None:
        """The KV bytes per token, and why they are what they are when that is asked (the KV heads GQA keeps)."""
        kv = self.kv_text(ests)
        r = next((x.value for x in ests if x.value), None)
        if kv and r and WHY_ASKED.search(self.s.question) and (m := re.search(r"kv_heads\s+(\d+)", r.kv_formula)):
            kv += self.say("kv_why_gqa", kv_heads=m.group(1))
        return kv

    def tp_text(self, ests: list[Result[InferenceResult]], best: VllmRow | None) -> str | None:
        """"Which --tensor-parallel-size?": the estimate's layout (within the user's devices when they name them), with
        the vendor table's minimum beside it."""
        r = next((x.value for x in ests if x.value and x.value.fits and not x.arg("largest_layout")), None)
        if (r is None or not r.tp) and best and best.cards and not self.e.devices:
            # no estimate ran: the vendor row's cards are one tensor-parallel group (the serve line the answer offers)
            return self.say("tp_text_table_lead", tp=best.cards, model=self.s.model, devs=self.devices(best.cards),
                            version=best.table, util=best.gpu_memory_utilization, n=f"{best.max_model_len or 0:,}")
        if r is None or not r.tp:
            return None
        table = self.say("tp_text_table", devs=self.devices(best.cards), version=best.table) if best and best.cards else ""
        have = self.e.devices or 0
        spare = self.say("tp_text_replicas", have=have, n=have // (r.tp * r.pp)) if have >= 2 * r.tp * r.pp else ""
        return self.say("tp_text_lead", tp=r.tp, pp=self.say("tp_text_pp", pp=r.pp) if r.pp > 1 else "", model=self.s.model,
                        layout=self.layout(r), util=r.gpu_memory_utilization, table=table, spare=spare)

    def memory_text(self, ests: list[Result[InferenceResult]]) -> str | None:
        """'How much memory to serve X': weights, workspace and KV cache per device of the plan."""
        r = next((x.value for x in ests if x.value and x.value.fits), None)
        if r is None:
            return None
        weights = r.weights_gib_per_device * r.tp * r.pp
        # the memory asked is what the job needs: its KV cache for the sequences asked, not the room vLLM leaves for it
        kv_need = r.kv_bytes_per_token_per_device * r.max_model_len * max(r.concurrency, 1) / GIB
        need = r.weights_gib_per_device + kv_need + r.activation_gib + r.overhead_gib
        if self.s.seq_len and need <= r.budget_gib:  # (with no length said, the weights lead: the KV cache is per token)
            return self.say("memory_text_needed", need=need, layout=self.layout(r), weights_gib_per_device=r.weights_gib_per_device,
                            precision=self.precision(r), kv_need=kv_need, seqs=seqs(max(r.concurrency, 1), r.max_model_len, self.zh),
                            per_token=self.per_token(r), activation_gib=r.activation_gib, overhead_gib=r.overhead_gib,
                            budget_gib=r.budget_gib, util=r.gpu_memory_utilization, kv_tokens_fit=r.kv_tokens_fit, weights=weights)
        return self.say("memory_text_about_gib_of", weights=weights, precision=self.precision(r), per_token=self.per_token(r), max_model_len=r.max_model_len, layout=self.layout(r), weights_gib_per_device=r.weights_gib_per_device, activation_gib=r.activation_gib, overhead_gib=r.overhead_gib, kv_cache_gib=r.kv_cache_gib, budget_gib=r.budget_gib, gpu_memory_utilization=r.gpu_memory_utilization)


def kv_name(r: InferenceResult) -> str:
    """The KV cache precision the estimate was sized at: the weights' 16-bit type (BF16, FP16 on a device without
    BF16), or INT8 / FP8 as asked."""
    if r.kv_cache_dtype != "auto":
        return r.kv_cache_dtype.upper()
    return "FP16" if "in fp16" in str((r.assumptions or [""])[0]).lower() else "BF16"


def weight_bits_of(r: InferenceResult) -> int:
    """The weight precision an estimate was sized at, from its own weights: bytes per parameter x 8."""
    total = r.weights_gib_per_device * r.tp * r.pp * 2**30
    return max(1, round(8 * total / (r.shape.params_b * 1e9)))
