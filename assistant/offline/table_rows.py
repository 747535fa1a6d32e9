"""The answer to a question over a whole vendor table (find_table_rows): how many rows and models match which filter
first, then the rows as a small table (or the models alone, when the question asks which models have no row),
each with the table's page and date."""

from __future__ import annotations

import re

from ..tools.table_filter import FindTableRowsResult, TableRowHit
from .results import Result
from .table_query import VOCAB
from .wording import STRATEGY, Writer

OP_WORDS = {"en": {"gt": "more than", "ge": "at least", "lt": "fewer than", "le": "at most", "eq": "exactly"},
            "zh": {"gt": "超过", "ge": "至少", "lt": "少于", "le": "至多", "eq": "正好"}}
VERSUS_WORDS = {"en": {"gt": "more than", "ge": "at least", "lt": "fewer than", "le": "at most", "eq": "the same as"},
                "zh": {"gt": "多于", "ge": "不少于", "lt": "少于", "le": "不多于", "eq": "等于"}}
OTHER_SIDE = {"framework": {"MindSpeed-LLM": "LLaMA-Factory", "LLaMA-Factory": "MindSpeed-LLM"},
              "hardware": {"Snt9B": "Snt9B23", "Snt9B23": "Snt9B"},
              "strategy": {"full": "lora", "lora": "full"}}
FEW_ROWS = 12  # a comparison's rows beyond its per-model answer are shown when there are at most this many
MOST_ROWS = 60  # more rows than this are listed per model, one line each, rather than as a table


class TableRowsBlocks(Writer):
    def table_rows(self, call: Result[FindTableRowsResult]) -> list[str]:
        r = call.value
        if r is None:
            return [f"- {self.error_text(call)}"]
        if r.table == "vllm":  # each vLLM table by its page and date, in the answer's language
            for table, src in dict.fromkeys((h.vllm_table or "", h.source) for h in r.rows):
                self.cite(self.table_source(table, src))
        for src in [] if r.table == "vllm" and r.rows else r.sources or [r.title]:
            self.cite(src)
        label = self.say(f"table_rows_label_{r.table}")
        filters = self.filters_said(call)
        # "any single-card ZeRO-3 row?": yes or no first, then the rows that make it so
        yes_no = "" if self.s.table_query is None or not self.s.table_query.yes_no else self.say("table_rows_yes" if r.rows else "table_rows_no")
        if filters == self.say("table_rows_every") and self.compares(self.s.question.lower()):
            # a comparison asked but none read: say so rather than list the whole table as if it were the answer
            return [self.lead(self.say("table_rows_unread", label=label))]
        if not r.rows:
            return [self.lead(yes_no + self.say("table_rows_none", label=label, filters=filters))]
        if call.arg("whole_model"):
            head = self.say("table_rows_models", models=self.counted("model", len(r.models)), label=label, filters=filters)
            return [self.lead(yes_no + head), self.say("comma").join(r.models)]
        if (extreme := call.arg("extreme")) and r.rows[0].cards is not None:
            # "which model needs the most cards": the count itself first, then the rows that have it
            count = self.devices(r.rows[0].cards, r.rows[0].unit)
            every = filters == self.say("table_rows_every")  # no filter: the whole table's largest (smallest)
            head = self.say(f"table_rows_extreme_{extreme}{'_all' * every}", count=count, models=self.say("comma").join(r.models),
                            label=label, filters=filters)
            return [self.lead(yes_no + head), "", *(self.grid(r) if r.count <= MOST_ROWS else self.per_model(r))]
        if call.arg("versus"):
            # "which models need the same cards for full and LoRA": the models that pass, each with its count and its
            # pair's, are the answer; the rows follow only when they are few
            head = self.say("table_rows_models", models=self.counted("model", len(r.models)), label=label, filters=filters)
            return [self.lead(yes_no + head + self.L(" ", "") + self.say("comma").join(self.versus_counts(r)) + self.say("period")),
                    *(["", *self.grid(r)] if r.count <= FEW_ROWS else [])]
        head = self.say("table_rows_found", rows=self.counted("row", r.count), models=self.counted("model", len(r.models)),
                        label=label, filters=filters)
        return [self.lead(yes_no + head), "", *(self.grid(r) if r.count <= MOST_ROWS else self.per_model(r))]

    def versus_counts(self, r: FindTableRowsResult) -> list[str]:
        """Each model of a comparison's rows with its counts: "qwen3-8b (8 cards)" when its rows and their pairs all
        have one count, else "llama3.1-70b (32 vs full 64 cards)" (this side's counts, then the pair's)."""
        by: dict[str, list[TableRowHit]] = {}
        for h in r.rows:
            by.setdefault(h.model_id, []).append(h)
        out = []
        for m, hs in by.items():
            mine = sorted({h.cards for h in hs if h.cards is not None})
            theirs = sorted({h.other_cards for h in hs if h.other_cards is not None})
            if not mine:
                out.append(m)
                continue
            text = self.counts_text(mine, hs[0].unit)
            if theirs and theirs != mine:
                text += self.say("semicolon") + self.say("table_rows_versus_cell", other=self.side_name(hs[0].other or ""),
                                                         cell=self.counts_text(theirs, self.other_unit(hs[0])))
            out.append(self.L(f"{m} ({text})", f"{m}（{text}）"))
        return out

    @staticmethod
    def other_unit(h: TableRowHit) -> str:
        """The unit of a row's pair: DIE on Snt9B23, cards on Snt9B, else the row's own (the same part)."""
        return "DIE" if h.other == "Snt9B23" or h.other != "Snt9B" and h.unit == "DIE" else "card"

    def counts_text(self, ns: list[int], unit: str) -> str:
        """Counts as one ("8 cards") or a range ("8-16 cards")."""
        one = self.devices(ns[-1], unit)
        return one if len(ns) == 1 else re.sub(r"^\d+", f"{ns[0]}-{ns[-1]}", one)

    def side_name(self, value: str) -> str:
        """A pair's column value as the answer says it (a method in the answer's words, a framework or part as named)."""
        return STRATEGY[self.lang].get(value, value)

    @staticmethod
    def compares(text: str) -> bool:
        """The question compares something ("more … than", "比 … 少", "the same as")."""
        return any(rx.search(text) for rx in VOCAB.versus.values()) or bool(re.search(r"(?<![a-z])than(?![a-z])", text))

    def counted(self, what: str, n: int) -> str:
        return self.say(f"table_rows_one_{what}") if n == 1 else self.say(f"table_rows_n_{what}s", n=n)

    def filters_said(self, call: Result[FindTableRowsResult]) -> str:
        """The filters the rows were picked by, as the question's words would say them."""
        a, out = call.args, []
        if a.get("model"):
            out.append(str(a["model"]))
        if a.get("family"):
            out.append(self.say("table_rows_family", family=a["family"]))
        if a.get("arch"):  # "which dense models": only those models' rows
            out.append(self.say("table_rows_arch", arch=self.say(f"arch_{a['arch']}")))
        if size := a.get("params_b"):  # "models under 10B"
            out.append(self.say("table_rows_params", op=OP_WORDS[self.lang][size["op"]], n=size["value"]))
        if a.get("framework"):
            out.append(str(a["framework"]))
        if a.get("strategy"):
            out.append(STRATEGY[self.lang][a["strategy"]])
        if a.get("seq_len"):
            out.append(self.say("table_rows_len_vllm" if a["table"] == "vllm" else "table_rows_len", n=a["seq_len"]))
        if a.get("hardware"):
            out.append(str(a["hardware"]) + (" (DIE)" if a["hardware"] == "Snt9B23" else ""))
        if a.get("vllm_table"):
            out.append(str(a["vllm_table"]))
        if a.get("memory_gb"):
            out.append(f"{a['memory_gb']} GB")
        if a.get("zero_stage") is not None:
            out.append(f"ZeRO-{a['zero_stage']}")
        if a.get("offload") is not None:
            out.append(self.offload_text(a["offload"]))
        if a.get("grad_accum"):
            out.append(self.say("table_rows_ga", n=a["grad_accum"]))
        if a.get("grad_accum_not"):
            out.append(self.say("table_rows_ga_not", n=a["grad_accum_not"]))
        for name in ("cards", "nodes", "per_node"):
            if cmp := a.get(name):
                out.append(self.say(f"table_rows_{name}", op=OP_WORDS[self.lang][cmp["op"]], n=cmp["value"]))
        if v := a.get("versus"):
            other = self.side_name(OTHER_SIDE[v["against"]].get(str(a.get(v["against"])), ""))
            if v.get("op"):
                out.append(self.say("table_rows_versus", op=VERSUS_WORDS[self.lang][v["op"]], other=other))
            if o := v.get("other"):
                out.append(self.say("table_rows_versus_other", op=OP_WORDS[self.lang][o["op"]], n=o["value"], other=other))
        if a.get("supported") is False:
            out.append(self.say("table_rows_unsupported"))
        elif a.get("supported"):
            out.append(self.say("table_rows_supported"))
        return self.say("comma").join(out) or self.say("table_rows_every")

    def cards_cell(self, h: TableRowHit) -> str:
        if not h.supported or h.cards is None:
            cell = self.say("table_rows_dash")
        else:
            cell = self.devices(h.cards, h.unit) + (f" ({self.nodes(h.nodes)})" if h.nodes else "")
        if h.other:  # a row compared with its pair: the pair's count beside it
            unit = self.other_unit(h)
            pair = self.say("table_rows_dash") if h.other_cards is None else self.devices(h.other_cards, unit)
            cell += "; " + self.say("table_rows_versus_cell", other=self.side_name(h.other), cell=pair)
        return cell

    def grid(self, r: FindTableRowsResult) -> list[str]:
        """The rows as a markdown table, the columns of the table they come from."""
        if r.table == "recipes":
            head, rows = self.say("table_rows_head_recipes"), [
                f"| {h.model} | {STRATEGY[self.lang][h.strategy or 'lora']} | {h.seq_len} | {h.deepspeed} | {h.grad_accum} | "
                f"{h.nodes} × {h.cards_per_node} = {h.cards} |" for h in r.rows]
        elif r.table == "vllm":
            head, rows = self.say("table_rows_head_vllm"), [
                f"| {h.model} | {h.vllm_table} | {h.memory_gb} GB | {self.cards_cell(h)} | "
                f"{h.seq_len if h.supported else self.say('table_rows_dash')} | {h.gpu_memory_utilization} |" for h in r.rows]
        else:
            head, rows = self.say("table_rows_head_min"), [
                f"| {h.model_id} | {STRATEGY[self.lang][h.strategy or 'lora']} | {h.seq_len} | {h.framework} | {h.hardware} | "
                f"{self.cards_cell(h)} |" for h in r.rows]
        cols = head.count("|") - 1
        return [head, "|" + "---|" * cols, *rows]

    def per_model(self, r: FindTableRowsResult) -> list[str]:
        """Many rows: one line per model, its rows' cells in table order."""
        by: dict[str, list[TableRowHit]] = {}
        for h in r.rows:
            by.setdefault(h.model_id, []).append(h)
        return [f"- **{m}**: " + self.say("semicolon").join(
            f"{STRATEGY[self.lang][h.strategy or 'lora']} {h.seq_len} {h.framework or ''} {self.cards_cell(h)}".replace("  ", " ")
            for h in hs) for m, hs in by.items()]
