"""Write the answer from the tool results, in the question's language. Every number printed here is
read from a tool result (typed, see results.py), and each block names the table or estimate it came from."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import Any

from ..answer import source_as_known
from ..configs.messages import PLAN_ERRORS
from ..configs.plan import TrainingPlan
from ..note_kinds import kinds_asked, kinds_held
from ..notes import (
    limit_checks,
    range_rows,
    roundings,
    solved_formulas,
    subject_rx,
    tokenize,
    worked_formulas,
)
from ..tools.configs import ConfigFile, GenerateConfigResult
from ..tools.derived_tools import DerivedResult
from ..tools.estimate_support import generic_part
from ..tools.estimates import CompareHardwareResult, InferenceResult, PlanResult, TrainingMemoryResult
from ..tools.examples import MindSpeedExampleResult
from ..tools.table_filter import FindTableRowsResult
from ..tools.tables import (
    InferenceMinCardsResult,
    ListHardwareResult,
    ListModelsResult,
    MinCardsResult,
    ModelInfo,
    NotePassage,
    SearchNotesResult,
    TrainingRecipeResult,
)
from ..wordings import in_language
from . import (
    batch_math,
    checks,
    error_signature,
    fused_attention,
    memory_units,
    next_remedy,
    note_pick,
    part_ident,
    pasted_log,
    pasted_output,
    proposal,
    quantity,
    same_as,
    spec,
    stated,
    subquestions,
    tool_flags,
)
from .answer_first import (
    answer_first,
    each_named,
    held_first,
    in_ask_order,
    kind_asked,
    named_item_first,
    with_antecedent,
)
from .asked import (
    GBS_WORDS,
    WHY_ASKED,
    asks_host_ram,
    asks_table_length,
    asks_verdict,
    batch_asked_before_verdict,
    judges_grad_accum,
    offload_asked_first,
    sizing_asked_before_time,
)
from .capacity import Verdict, host_ram_usable_gib
from .component import ComponentBlocks
from .conversation import CARRY, solved_slot
from .either_lead import EitherBlocks
from .example_blocks import ExampleBlocks
from .fits import FitsBlocks
from .offers import OffersBlocks
from .parse import Slots
from .part_facts import PartFactsBlocks
from .quantity_blocks import QuantityBlocks
from .results import Result
from .route import (
    COST,
    Done,
    converts_parts,
    is_family_prefix,
    is_training_question,
    names_model,
    part_facts_asked,
    runtime_kv_dtype,
    table_strategy,
)
from .serving import quant_named
from .setup_answer import REMEDY
from .shared_card import SharedCardBlocks
from .table_rows import OP_WORDS, TableRowsBlocks
from .timing import TimeBlocks
from .variants import VariantBlocks, compares
from .vocab import ASKS_COUNT, NODES_ASKED
from .wording import (
    METHOD,
    MIN_LABEL,
    PASSAGE_CHARS,
    RECIPE_LABEL,
    STRATEGY,
    TOOL_NOTE_ZH,
    TRAINER_WORDS,
    assumption_zh,
    note_lead_in_zh,
    sentence_cut,
    t,
)

# Tool -> (its result type, which calls: failed (False), successful (True) or all (None), the renderer method).
RENDERERS: dict[str, tuple[type, bool | None, str]] = {
    "resolve_model": (ModelInfo, False, "unknown_model"),
    "list_models": (ListModelsResult, True, "model_list"),
    "find_table_rows": (FindTableRowsResult, None, "table_rows"),
    "list_hardware": (ListHardwareResult, True, "hardware_list"),
    "generate_config": (GenerateConfigResult, None, "config"),
    "estimate_training_memory": (TrainingMemoryResult, None, "memory"),
    "compare_hardware": (CompareHardwareResult, None, "compare"),
    "mindspeed_example": (MindSpeedExampleResult, None, "example_scripts"),
}
VALUE_ONLY = {"list_hardware"}  # renderers that take the result's value rather than the call
# Quantities a follow-up of an OOM report may ask besides device memory: the figure asked leads, not the OOM's estimate
OTHER_QUANTITIES = {"kv", "time", "config", "throughput", "host_ram"}
STEP_QUANTITIES = {"total_steps", "steps_per_epoch"}  # derive_quantity's step counts
SIZING_TOOLS = {"plan_training", "min_cards", "training_recipe", "estimate_inference", "inference_min_cards", "compare_hardware",
                "what_fits"}


LEAD_LABEL = re.compile(r"^\*\*(?:Answer:|结论)\*\*", re.M)
LEAD_AND_MARK = re.compile(LEAD_LABEL.pattern + r"(?:：|\s+)?", re.M)  # the label with what follows it ("**结论**：")


# a sentence opened by a short label and a colon ("原因：…", "Cause: …"): what the sentence is, named by the note
_LABEL = re.compile(r"^\*{0,2}([^\s：:，,。.*]{1,8})\*{0,2}[：:]")

class Composer(QuantityBlocks, VariantBlocks, ComponentBlocks, TimeBlocks, FitsBlocks, PartFactsBlocks, EitherBlocks,
               TableRowsBlocks, SharedCardBlocks, ExampleBlocks, OffersBlocks):
    """The whole answer: header, the blocks for what was asked, sources, and the offer of a config."""

    def render(self) -> str:
        s = self.s
        if s.problems:  # what the framework refuses is the answer; a model the catalog lacks and a vendor limit follow it
            unknown = [line for c in self.r.of("resolve_model", ModelInfo, ok=False) for line in self.unknown_model(c)]
            asks_again = [p for p in s.problems if p in checks.VALID.values()]  # "ask again with valid values": last
            said = [p for p in s.problems if p not in asks_again]
            return "\n\n".join([*said, *self.offered_block(), *unknown, *asks_again, *s.rule_notes])
        body = self.answer()
        if names_model(s) and (same := same_as.line(s, self.parts, self.zh)) and (label := LEAD_LABEL.search(body)):
            # "16 DIE of Snt9B23: the same as two Snt9B nodes?" beside the sizing: the two counts compared lead
            at = label.end() + (1 if body[label.end():label.end() + 1] in ("：", ":") else 0)
            body = body[:at] + ("" if self.zh else " ") + same + "\n" + body[at:].lstrip()
        if s.notes_after_lead:  # a yes/no or a time asked of the user's devices leads; the limit their count breaks follows
            parts = body.split("\n\n")
            at = next((i + 1 for i, part in enumerate(parts) if LEAD_LABEL.search(part)), 0)
            body = "\n\n".join([*parts[:at], *s.notes_after_lead, *parts[at:]])
        if link := self.link_line():  # "没有 nvlink": the plan's TP weighed against a PCIe link, after the lead
            body = self.after_lead(body, link)
        if quoted := self.quoted_count():  # "表里写 LF 要 32 张": the count quoted, set against the table's row, after the lead
            body = self.after_lead(body, quoted)
        notes = [n for n in s.rule_notes if n not in body]  # a finding the answer's own lead states is not said twice
        if not notes:
            return body
        # a vendor limit the values break leads; when it answers what the notes answer (no sizing asked: "HCCL_EXEC_TIMEOUT=600,
        # why does the save time out?"), the notes' text after it supports it, with no lead label of its own (one lead)
        if self.done and all(d.name == "search_notes" for d in self.done):
            body = LEAD_AND_MARK.sub("", body, count=1)
        return "\n\n".join([*notes, body])

    @staticmethod
    def after_lead(body: str, line: str) -> str:
        """``line`` put right after the lead's first line (the answer's own lead, not the notes quoted after it)."""
        parts = body.split("\n\n")
        lead_at = next((i for i, part in enumerate(parts) if LEAD_LABEL.search(part)), None)
        if lead_at is None:
            return "\n\n".join([line, body])
        lines = parts[lead_at].split("\n")
        parts[lead_at] = "\n".join([lines[0], line, *lines[1:]])
        return "\n\n".join(parts)

    def link_line(self) -> str:
        """No NVLink said (slots.toml ``nvlink`` 0): the tensor parallelism of the plans shown, which all-reduces in every
        layer, weighed against a PCIe link (the part's interconnect from the hardware catalog); none: only gradients cross it."""
        if spec.value_of(self.s, "nvlink") != 0:
            return ""
        serving = bool(self.r.values("estimate_inference", InferenceResult))
        shown = [r for name, kind in (("plan_training", PlanResult), ("estimate_inference", InferenceResult),
                                      ("estimate_training_memory", TrainingMemoryResult))
                 for r in self.r.values(name, kind)]
        # the plans on the user's own devices when they said how many (the lead's), else every plan shown
        own = [r for r in shown if self.e.devices and int(getattr(r, "devices", 0) or 0) <= self.e.devices] or shown
        tp = max((int(getattr(r, "tp", 1) or 1) for r in own), default=1)
        part = self.parts.get(self.e.hardware or "") or {}
        link = str(part.get("interconnect_zh" if self.zh else "interconnect") or "PCIe")
        key = "link_npu" if part.get("kind") == "npu" else "link_no_tp" if tp <= 1 else "link_tp_serving" if serving else "link_tp"
        return self.say(key, tp=tp, link=link)

    def quoted_count(self) -> str:
        """A device count the question quotes from the vendor's table, compared with the table's row of the framework
        asked (every framework's when none is): "as you quoted" or "not N"; '' when no row was looked up."""
        n = self.s.quoted.get("devices")
        rows = [row for res in self.r.values("min_cards", MinCardsResult) for row in res.rows
                if row.supported and row.cards and (self.s.framework in (None, row.framework))]
        if not n or not rows:
            return ""
        rows = list({row.framework: row for row in rows}.values())
        listed = self.say("comma").join(f"{row.framework} {self.devices(row.cards, row.unit, row.hardware.lower())}" for row in rows)
        same = any(row.cards == n for row in rows)
        return self.say("quoted_count_same" if same else "quoted_count_differs", n=int(n), listed=listed,
                        strategy=STRATEGY[self.lang].get(rows[0].strategy, rows[0].strategy), seq_len=rows[0].seq_len,
                        part=rows[0].hardware)

    def per_rank(self) -> dict[str, float]:
        """The catalog's LoRA parameters at rank 1 per target set, for a pasted PEFT line of a named model (route)."""
        return {str(r.arg("lora_targets")): r.value.value for r in self.r.of("derive_quantity", DerivedResult)
                if r.value is not None and r.arg("quantity") == "lora_params" and r.arg("lora_rank") == 1}

    def answer(self) -> str:
        s = self.s
        if (not self.done or isinstance(log := pasted_log.read(s.question), pasted_log.AdapterLine)) and (
                log := pasted_log.read(s.question)) and (derived := pasted_log.render(log, self.lang, s.question, self.per_rank(), s.model)):
            return derived
        if not self.done and not names_model(s) and (batches := batch_math.scenarios(s)):
            return batch_math.render_all(batches, self.lang, self.s.framework or self.s.stack)
        if not names_model(s) and (told := memory_units.answer(s.question, s.hardware if s.hardware_text else None, self.parts, self.zh)
                                   or part_ident.answer(s.question, self.parts, self.zh)):
            # a device's memory said in MiB beside GiB or GB ("65536 MB vs 60.97 GiB: where did the rest go?"): the units
            # and the runtime's reserve lead
            # "Snt9B or Snt9B23?" over a pasted npu-smi table (or its counts said in words): the part it is leads
            text, sources = told
            for src in sources:
                self.cite(src)
            return "\n".join([self.lead(text), "", t("sources", self.lang) + self.say("semicolon").join(self.sources)])
        diagnosis = ""  # pasted tool output read as data: its diagnosis is the answer's lead, the notes' remedies follow
        pasted = None
        if self.done and (pasted := pasted_output.read(s.question)) and (found := pasted_output.render(pasted, self.lang)):
            # the note whose remedy the diagnosis applies is its source, named as every notes lead names its note
            title = next((h.title for r in self.r.values("search_notes", SearchNotesResult) for h in r.results
                          if h.file == pasted_output.note_of(pasted)), None)
            diagnosis = self.lead(found + (self.say("notes_notes", title=title) if title else ""))
        if self.done and not diagnosis and (seen := error_signature.read_turn(s.question, s.howto_before)):
            # a pasted error message: the note section its signature names leads, the message's own line named
            passages = [p for r in self.r.values("search_notes", SearchNotesResult) for p in r.results]
            sec = error_signature.section(seen, passages, self.lang)
            if sec is not None and (said := error_signature.lead(seen, passages, self.lang)):
                diagnosis = self.lead(self.say("error_seen" if seen.line else "error_seen_before",
                                               heading=error_signature.title(seen, sec, self.lang), line=seen.line) + " " + said
                                      + self.say("notes_notes", title=sec.title))
        notes_only = all(d.name == "search_notes" for d in self.done)
        if notes_only and (wanted := self.figures_wanted()):
            if not self.done:
                return wanted
            # the notes' passages back it (their formula); the figures asked for lead
            return "\n".join([wanted, "", *self.notes_block(),
                              *(["", t("sources", self.lang) + self.say("semicolon").join(self.sources)] if self.sources else [])]).strip()
        if not self.done and s.part_stand_in and not names_model(s) and not s.params_b and not s.devices and s.memory_gb \
                and (part_facts_asked(s) or "cards" in s.intents):
            # "RTX 5090 32GB: how many per node in your catalog?": a fact of a part the catalog lacks (said above) is
            # only what the user stated; no model is needed to say so
            return self.say("pf_stand_in_facts", gb=f"{s.memory_gb:g}")
        if not self.done:
            e = self.e  # what the user said they have, repeated before asking for the model
            have = self.devices(e.devices, self.unit_of(e.hardware), e.hardware)
            return (self.say("noted_devices", have=have, part=self.hw_name(e.hardware)) if e.devices else "") + t("clarify", self.lang)
        # a count of one part converted to another ("8 张 A100 40G 换算成 910B 要几张") is one answer, not one per part
        out = self.compared() if compares(s) and self.per_variant() and not converts_parts(s) else self.ga_first(self.nodes_first(self.batch_after_lead(self.body())))
        if not [line for line in out if line.strip()]:
            return t("clarify", self.lang)
        out = self.oom_reported_first(out)
        out = self.next_remedy_first(out)
        out = self.proposal_first(out)
        out = self.batch_change_first(out)
        if diagnosis and pasted is not None and pasted_output.note_of(pasted) is None:
            return diagnosis  # no note covers what the paste shows: the diagnosis alone, no unrelated quote
        if diagnosis:
            # the diagnosis is the lead: the notes' own lead (a remedy the paste's figures may rule out: "kill leftover
            # processes" under "nothing holds the devices") is left out; their quoted passages follow
            label = self.say("answer")
            first = next((i for i, line in enumerate(out) if line.strip()), None)
            if first is not None and out[first].startswith(label):
                out = out[first + 1:]
            out = [diagnosis, "", *out]
        sized = any(d.name in SIZING_TOOLS for d in self.done)
        if sized and COST.search(s.question.lower()) and not asks_host_ram(s):  # no price is known here ("what does offload cost in RAM" asks memory)
            out = [self.say("no_prices"), ""] + out
        out += self.host_ram_check()
        # (a step count worked out from the data names the figures it left out, and why: tokens per sample without packing)
        steps = any(d.args.get("quantity") in STEP_QUANTITIES for d in self.results("derive_quantity"))
        if sized or self.results("generate_config", ok=None) or steps:
            out += self.not_used()
        if self.sources:
            out += ["", t("sources", self.lang) + self.say("semicolon").join(self.sources)]
        if s.model and is_training_question(s) and "config" not in s.intents and self.results("min_cards") + self.results("training_recipe"):
            out += ["", t("offer", self.lang)]
        return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()

    def body(self) -> list[str]:
        """The blocks in answer order; each is empty when its tools did not run. A problem report puts the
        notes' remedy first, the sizing after it."""
        # on a GPU the notes' remedies are the Ascend vendor's: the sizing on the user's part answers first
        # a quantity asked of a named model comes first unless the user reports a problem ("bf16" is a topic word)
        quantity = bool(self.s.model and self.s.intents & {"kv", "memory", "cards", "zero", "ga", "capacity", "config", "tp"})
        remedy_first = "troubleshoot" in self.s.intents and not self.on_gpu() and ("problem" in self.s.intents or not quantity)
        # "still OOM on 32 cards" with fewer devices than the vendor tables list: that shortfall is the first thing to say,
        # the notes' remedies follow it (round 10 c6-10)
        if remedy_first and self.below_vendor_minimum():
            remedy_first = False
        # "it OOMs on one card: why, and what first?": the estimate that nothing fits the user's devices is the why, so the
        # sizing verdict leads and the notes' remedies follow it
        if remedy_first and WHY_ASKED.search(self.s.question.lower()) and self.over_own_devices():
            remedy_first = False
        # a config that could not be written follows the sizing verdict (the verdict leads; the failure names how it differs)
        config_failed = bool(self.results("generate_config", ok=False)) and not self.results("generate_config")
        # "max context per the ModelArts table?": the table's tested length (serving block) before the search on the devices
        best = self.table_lines(self.r.of("inference_min_cards", InferenceMinCardsResult, ok=None))[1]
        table_first = self.searched_context() and best is not None and asks_table_length(self.s, True, best.cards) and not (
            self.row_off_frame(best))
        # "ok what about TP 4 PP 4 on those 16 cards?": a follow-up that changes the layout asks for that layout's estimate
        # first, not again for the vendor's count on the devices it keeps
        # ("what if 32 cards, same TP PP?", "用 32 张卡 TP 8 PP 4 可以吗" after a sizing answer: the layout on the devices
        # this turn names)
        kept_devices = self.s.origin("devices") not in ("said", None) or bool(CARRY.that_many.search(self.s.question.lower()))
        layout_said = self.s.origin("tp") == "said" or self.s.origin("pp") == "said"
        follow_up = "conversation" in self.s.origins.values() and self.s.origin("model") == "conversation"
        layout_first = bool(self.s.tp or self.s.pp) and bool(self.results("estimate_training_memory")) and (
            layout_said and kept_devices or follow_up and (layout_said or self.s.origin("devices") == "said"))
        # "which ZeRO stage and how long?": the plan asked first leads, the time follows it
        time_after = self.s.model is not None and sizing_asked_before_time(self.s.question)
        blocks: list[Callable[[], list[str]]] = [
            partial(self.rendered, "resolve_model"), self.table_rows_first, self.own_context,
            partial(self.rendered, "list_models"), self.hardware_why,
            self.either_first,  # "so 0.9, not 0.95?": the value asked about, before any block that leads
            self.shared_card_first,  # "could both share one card?": the two models' sum against the card
            *([self.inference] if table_first else []),
            *([] if self.s.shares_with and self.results("estimate_inference") else [self.what_fits_block, self.header_block]),
            partial(self.rendered, "mindspeed_example"), self.quantity_first, self.precisions_first, self.component_first, self.asked_first,
            *([partial(self.rendered, "estimate_training_memory")] if layout_first else []), *([] if time_after else [self.training_time]),
            self.notes_block if remedy_first else list, *([] if config_failed else [partial(self.rendered, "generate_config")]),
            self.config_needs_model, self.training, *([self.training_time] if time_after else []),
            *([partial(self.rendered, "generate_config")] if config_failed else []),
            *([] if layout_first else [partial(self.rendered, "estimate_training_memory")]),
            # two models on one card: their sum is the answer (shared_card_first); each one's own serving plan is not
            *([] if table_first or self.s.shares_with and self.results("estimate_inference") else [self.inference]),
            partial(self.rendered, "compare_hardware"), list if remedy_first else self.notes_block,
        ]
        return [line for block in blocks for line in block()]

    def oom_reported_first(self, out: list[str]) -> list[str]:
        """The user reports an out-of-memory error on this job and the estimate fits (or is tight): the estimate is no
        verdict on their run. The answer leads with that, the estimate's range against the usable memory, and the next
        step; the estimate's own lines follow as the comparison."""
        if not self.s.oom_reported or self.below_vendor_minimum():  # fewer devices than the vendor lists: that leads
            return out
        if asks_host_ram(self.s) or self.s.intents & OTHER_QUANTITIES:  # "开 offload 的话主机内存要多少": that figure leads
            return out
        # the figures the estimate's own lines print (the allocator's pool and its likely range), so the two agree
        mems = [(m.total_gib, m.low_gib, m.high_gib, m.usable_gib, m.verdict, m.devices, m.unit)
                for m in self.r.values("estimate_training_memory", TrainingMemoryResult)]
        mems += [(p.memory.total_gib, p.memory.low_gib, p.memory.high_gib, p.memory.usable_gib, p.verdict, p.devices, p.unit)
                 for p in self.r.values("plan_training", PlanResult) if p.fits and (not self.e.devices or p.devices <= self.e.devices)]
        mems.sort(key=lambda m: m[5] != self.e.devices)  # the estimate on the user's own device count first
        if not mems or mems[0][4] == "does_not_fit":
            return out
        total, low, high, usable, _, devices, unit = mems[0]
        smi = "nvidia-smi" if self.on_gpu() else "npu-smi info"
        unit_said = self.L(unit, "卡" if unit == "card" else unit)
        units = self.L(unit + ("s" if devices != 1 else ""), "张卡" if unit == "card" else unit)
        where = self.say("oom_reported_within" if high > usable else "oom_reported_beyond")
        # a follow-up saying it persists gets the next remedy as its lead (next_remedy_first): no generic next step here
        key = "oom_reported_estimate_only" if next_remedy.next_remedy(self.s) else "oom_reported_estimate"
        line = self.say(key, total=total, low=low, high=high, usable=usable, devices=devices,
                        unit=unit_said, units=units, smi=smi, where=where)
        label = self.say("answer")
        at = next((i for i, ln in enumerate(out) if ln.startswith(label)), None)
        if at is None:
            return [label + line, "", *out]
        return [*out[:at], label + line, out[at][len(label):], *out[at + 1:]]

    def proposal_first(self, out: list[str]) -> list[str]:
        """A split the turn proposes ("换成 TP4 PP4 行吗", "what if TP 2 PP 4?", carry.toml [proposal]): the verdict on it leads,
        with the rule it meets (TP × PP divides the devices; the rest is data parallel), its memory per device, the split
        it replaces, and what a new split needs besides memory (the notes' passage on the converted weights)."""
        s = self.s
        if not proposal.proposes_layout(s) or s.intents & {"ga", "gbs", "time", "config"} or solved_slot(s):
            return out
        m = next((m for m in self.r.values("estimate_training_memory", TrainingMemoryResult)
                  if m.tp == (s.tp or 1) and m.pp == (s.pp or 1)), None)
        if m is None:
            return out
        low, high = self.span(m)
        now = (s.current.get("tp", s.tp), s.current.get("pp", s.pp)) if s.current.keys() & proposal.LAYOUT else None
        if now is None and s.oom_split and s.oom_split[:2] != (m.tp, m.pp):
            now = s.oom_split[:2]
        replaced = self.say("proposal_replaces", split=f"TP {now[0] or 1} × PP {now[1] or 1}",
                            oom=self.say("proposal_replaced_oom") if s.oom_split else "") if now else ""
        kept = next((k for k in ("tp", "pp") if s.origin(k) == "last_answer" and k in s.current and s.current[k] != getattr(s, k)), None)
        if kept:  # "改成 PP4 呢" after TP 8 × PP 2 on 16 cards: the last answer's TP halved until the split divides them
            tp0, pp0 = (s.current["tp"], m.pp) if kept == "tp" else (m.tp, s.current["pp"])
            replaced += self.say("proposal_shrunk", tp=tp0, pp=pp0, n=tp0 * pp0, devs=self.devices(m.devices, m.unit, m.hardware),
                                 name=kept.upper(), value=getattr(s, kept))
        passages = [h for c in self.r.of("search_notes", SearchNotesResult) if c.value is not None and proposal.searched(c.arg("query"))
                    for h in c.value.results[:1] if not h.lead_is_summary and m.verdict != "does_not_fit"]
        weights = "".join(self.say("proposal_weights", fact=h.lead.strip(), title=h.title) for h in passages if h.lead.strip())
        line = self.say("proposal_layout", split=f"TP {m.tp} × PP {m.pp}" + (f" × CP {m.cp}" if m.cp > 1 else ""),
                        devs=self.devices(m.devices, m.unit, m.hardware), yes=self.say(f"proposal_{m.verdict}"),
                        mp=m.tp * m.pp * m.cp, dp=m.data_parallel, gib=self.point(m), per=self.per_device(m.unit, m.hardware),
                        low=low, high=high, usable=f"{m.usable_gib:.1f}", verdict=self.say("verdict_" + m.verdict)) + replaced + weights
        label = self.say("answer")
        at = next((i for i, ln in enumerate(out) if ln.startswith(label)), None)
        if at is None:
            return [label + line, "", *out]
        return [*out[:at], label + line, out[at][len(label):], *out[at + 1:]]

    def batch_change_first(self, out: list[str]) -> list[str]:
        """"梯度累积改成 16 会怎样", "per device batch 改成 4 显存会涨多少" (conversation.batch_changed): what the change does
        leads, against the value it replaces: the global batch before and after (GBS = micro batch x DP x GA), the memory
        per device (unchanged by the accumulation; the activations grow with the micro batch) and the time per step."""
        line = self.batch_change_line()
        return self.headline_first(out, line) if line else out

    def batch_change_line(self) -> str:
        """The sentence batch_change_first leads with ('' when the frame changes no batch figure or no plan was made)."""
        s = self.s
        changed = [n for n in ("grad_accum", "micro_batch") if n in s.current and getattr(s, n) not in (None, s.current[n])]
        if s.global_batch or "gbs" in s.intents or "ga" in s.intents and "grad_accum" not in changed:
            return ""  # a global batch kept, or the accumulation asked: batch_after_lead solves it on the changed figures
        plans = [r.value for r in self.r.of("plan_training", PlanResult) if r.value and r.arg("max_devices")]
        plans += [r.value for r in self.r.of("plan_training", PlanResult) if r.value and not r.arg("max_devices")]
        p = next((x for x in plans if x.fits), None) or next(iter(plans), None)
        if not changed or p is None:
            return ""
        devices, split = self.e.devices or p.devices, (p.tp or 1) * (p.pp or 1) * (p.cp or 1)
        if "batch_plan" in s.current and not self.e.devices:  # the plan the last answer led with (the recipe's 16 cards), on its devices
            devices, split = s.current["batch_plan"]
        if not devices or devices % split:
            return ""
        dp = devices // split
        mbs, ga = s.micro_batch or p.micro_batch or 1, s.grad_accum or p.grad_accum or 1
        mbs0, ga0 = s.current.get("micro_batch", mbs), s.current.get("grad_accum", ga)
        dev = self.per_device(p.unit, p.hardware)
        fits = p.fits and p.memory is not None
        mem = self.say("batch_change_mem", gib=self.point(p.memory), dev=dev, devs=self.devices(p.devices, p.unit, p.hardware),
                       setting=self.parallel(p.zero_stage, p.offload, p.tp, p.pp, p.cp, p.ep),
                       verdict=self.say("verdict_" + p.verdict)) if fits else self.say("batch_change_no_fit", mbs=mbs)
        key = "batch_change_ga" if changed == ["grad_accum"] else "batch_change_mbs"
        a, b = (ga0, ga) if key == "batch_change_ga" else (mbs0, mbs)
        return self.say(key, a=a, b=b, gbs_a=mbs0 * dp * ga0, gbs_b=mbs * dp * ga, mbs=mbs, ga=ga, dp=dp, dev=dev, mem=mem,
                        ratio=f"{b / a:.3g}", inv=f"{a / b:.3g}")

    def next_remedy_first(self, out: list[str]) -> list[str]:
        """A follow-up saying the out-of-memory error persists after remedies already applied: the next remedy in the
        vendor's order leads (next_remedy.py), what is in place is named and not suggested again."""
        nxt = next_remedy.next_remedy(self.s)
        if nxt is None:
            return out
        line = self.say("next_remedy", step=self.remedy_text(nxt.code, nxt.split),
                        done=self.say("next_remedy_done", done=self.say("comma").join(
                            self.say(f"remedy_label_{c}") for c in nxt.done)) if nxt.done else "",
                        then=self.say("next_remedy_then", then=self.say("semicolon").join(
                            self.remedy_text(c, None) for c in nxt.then)) if nxt.then else "",
                        check=self.say("next_remedy_check", smi="nvidia-smi" if self.on_gpu() else "npu-smi info") if nxt.check else "")
        label = self.say("answer")
        at = next((i for i, ln in enumerate(out) if ln.startswith(label)), None)
        if at is None:
            return [label + line, "", *out]
        return [*out[:at], label + line, out[at][len(label):], *out[at + 1:]]

    def remedy_text(self, code: str, split: tuple[int, int] | None) -> str:
        """One remedy in words: the TP × PP proposed on the user's devices, else the vendor list's wording."""
        devs = self.devices(self.e.devices, self.unit_of(self.e.hardware), self.e.hardware)
        if code == "tp_pp" and split:
            return self.say("next_remedy_split", tp=split[0], pp=split[1], tp0=self.s.tp or 1, pp0=self.s.pp or 1, devs=devs)
        if code == "more_devices" and next_remedy.framework_of(self.s) == "MindSpeed-LLM":
            return self.say("next_remedy_more_devices_megatron", devs=devs)
        zero = self.s.zero_stage
        upto = "ZeRO-1 → ZeRO-2 → ZeRO-3" if zero is None else " → ".join(f"ZeRO-{z}" for z in range(zero, 4))
        env = ("PYTORCH_CUDA_ALLOC_CONF" if self.on_gpu() else "PYTORCH_NPU_ALLOC_CONF") + "=expandable_segments:True"
        return REMEDY[code][self.lang].format(env=env, next=upto, value=None)

    def below_vendor_minimum(self) -> bool:
        """The user's devices are fewer than the vendor rows list for this training job."""
        if not (self.s.model and self.e.devices and is_training_question(self.s)) or not self.results("min_cards"):
            return False
        return Verdict(self, self.s.method, self.training_facts()).table_says_no

    # -- the header: what was answered, how the question was read, what was assumed --------------
    def header_block(self) -> list[str]:
        fits = self.results("what_fits", ok=None)  # its own lead names the model, devices and length
        if not (self.s.model or self.s.params_b) or fits:
            return []
        # a how-to, the model's own limit or its rows of a whole table ("the most cards deepseek-v3 needs"): no job
        if all(d.name in ("search_notes", "resolve_model", "find_table_rows") for d in self.done):
            return []
        return [self.header()]

    def headline_first(self, out: list[str], line: str) -> list[str]:
        """``line`` as the answer's headline, right under the header; the line that held the label keeps its words: a
        verdict ("**够**") as it is, a plan as what the job needs."""
        label = self.say("answer")
        out = [(x[len(label):] if x[len(label):].startswith("**") else self.say("needed") + x[len(label):])
               if x.startswith(label) else x for x in out]
        return out[:1] + ["", label + line, ""] + out[1:]

    def ga_first(self, out: list[str]) -> list[str]:
        """"那梯度累积相当于多少" / "same 16 cards but GBS 256" after a MindSpeed-LLM plan: the plan's accumulation is the
        headline (GBS = MBS x DP x GA, DP = devices / (TP x PP)), not the card count again, when the user's own figures
        do not already give it (batch_after_lead) and no count or ZeRO stage is asked."""
        s = self.s
        if "ga" not in s.intents or "zero" in s.intents or s.grad_accum or s.framework != "MindSpeed-LLM":
            return out
        if batch_math.solve(s, self.plan_layout()) is not None:
            return out  # the user's figures give it; batch_after_lead said it first
        plans = [r.value for r in self.r.of("plan_training", PlanResult) if r.value and r.value.fits and r.value.tp]
        capped = [p for p in plans if self.e.devices and p.devices == self.e.devices]
        if not (p := next(iter(capped + plans), None)):
            return out
        dp = p.devices // (p.tp * (p.pp or 1) * (p.cp or 1))
        line = self.say("ga_first_plan", ga=p.grad_accum, split=self.parallel(None, None, p.tp, p.pp, p.cp, p.ep), mbs=p.micro_batch,
                        dp=dp, devs=self.devices(p.devices, p.unit, p.hardware), gbs=p.global_batch)
        if "cards" in s.intents:  # "how many cards, and how to set GA?": the count leads, the accumulation right under it
            lead = self.say("answer")
            at = next((i + 1 for i, x in enumerate(out) if x.startswith(lead)), None)
            return out if at is None else out[:at] + [line] + out[at:]
        return self.headline_first(out, line)

    def nodes_first(self, out: list[str]) -> list[str]:
        """"And how many nodes is that?" after a plan on the user's devices: those devices in nodes, as the headline."""
        devices, per = self.e.devices, self.e.per_node
        if not (devices and per and self.s.origin("devices") == "conversation" and NODES_ASKED.search(self.s.question.lower())
                and self.header_block()):
            return out
        unit = "die" if self.s.device_unit == "die" or self.e.facts.unit == "die" else "card"
        nodes = -(-devices // per)  # a part-filled node is still a node
        line = self.L(f"**{self.devices(devices, unit)} = {self.nodes(nodes)}** ({per} per node on {self.hw_name()}).",
                      f"**{self.devices(devices, unit)} = {self.nodes(nodes)}**（{self.hw_name()} 每节点 {per} 个）。")
        return self.headline_first(out, line)

    def batch_after_lead(self, out: list[str]) -> list[str]:
        """The user's own batch figures (their product: the global batch), under the headline when the answer has one
        (a verdict or a count asked for comes first), else right under the header."""
        # again only when this turn changes one of the figures
        said = any(self.s.origin(n) == "said" for n in ("micro_batch", "grad_accum", "global_batch", "devices", "nodes"))
        # or the global batch is what this turn asks ("全局 batch 多少" after a plan): the figures from the conversation
        # no micro batch said: the recipes' 1, unless a MindSpeed-LLM plan's own accumulation answers (ga_first)
        assume = self.s.framework != "MindSpeed-LLM"
        # or the accumulation is what this turn asks ("那每步几个 micro batch?" after the figures were given)
        batch = batch_math.solve(self.s, self.plan_layout(), assume) if said or self.s.intents & {"gbs", "ga"} else None
        if batch is None and "gbs" in self.s.intents:
            batch = self.plan_batch()  # "几张卡？global batch 多大？" / "global batch 该设多少" of a job sized before: the plan's figures
        if not batch or not self.header_block() or self.results("what_fits", ok=None) or judges_grad_accum(self.s):
            return out  # ("is GA 16 a problem?": the judgement leads with the global batch it gives)
        if "gbs" not in self.s.intents and any(c.value and "global batch" in c.value.formula for c in self.r.of("derive_quantity", DerivedResult)):
            return out  # the quantity asked ("一步多少 token") works the global batch in its own arithmetic: stated once
        if not asks_verdict(self.s):  # their global batch is (part of) what was asked: right under the header
            line = batch_math.render(batch, self.lang, self.s.framework or self.s.stack)
            # "offload 有必要吗? global batch?", "几张卡？global batch 多大？": after the half asked first
            if "gbs" in self.s.intents and (offload_asked_first(self.s) or count_asked_before_batch(self.s.question)):
                after = next((i + 1 for i, x in enumerate(out) if x.startswith(self.say("answer"))), 1)
                return out[:after] + [line] + out[after:]
            # "全局 batch 多少": the figure asked is the answer, so it carries the headline's label (a GA asked stands right
            # under the header, before any headline)
            if "gbs" in self.s.intents:
                return self.headline_first(out, line)
            return out[:1] + ["", line, ""] + out[1:]
        if batch_asked_before_verdict(self.s):  # the global batch asked before the yes/no: its figure leads
            return self.headline_first(out, batch_math.render(batch, self.lang, self.s.framework or self.s.stack))
        lead = self.say("answer")
        at = next((i + 1 for i, line in enumerate(out) if line.startswith(lead)), None)
        if at is None:
            at = next((i + 1 for i, line in enumerate(out) if line.startswith("**")), 0)
        return out[:at] + [batch_math.render(batch, self.lang, self.s.framework or self.s.stack), ""] + out[at:]

    def plan_batch(self) -> batch_math.BatchSum | None:
        """The global batch of the plan this answer states (capped to the user's devices first), on the user's devices."""
        plans = [r.value for r in self.r.of("plan_training", PlanResult) if r.value and r.value.fits and r.arg("max_devices")]
        plans += [r.value for r in self.r.of("plan_training", PlanResult) if r.value and r.value.fits and not r.arg("max_devices")]
        p = next(iter(plans), None)
        if p is None or not p.micro_batch or not p.grad_accum:
            return None
        # the LLaMA-Factory recipe row the answer shows fixes the accumulation on its cards: the global batch on those
        # cards (the user's count, or none said) is worked on the row's figures, never on a plan's that contradicts it
        # (GA 8 shown, GA 4 used); on another count the plan keeps the row's global batch (plan_on_all)
        row = next((r.value for r in self.r.of("training_recipe", TrainingRecipeResult) if r.value and r.value.found
                    and r.value.grad_accum and r.value.total_cards), None)
        if (row is not None and row.grad_accum and row.total_cards and self.s.framework in (None, "LLaMA-Factory")
                and not self.s.tp and not self.s.pp and (self.e.devices or row.total_cards) == row.total_cards):
            return batch_math.of_recipe(self.s, row.grad_accum, row.total_cards)
        return batch_math.of_plan(self.s, p.micro_batch, p.grad_accum, self.e.devices or p.devices, (p.tp or 1, p.pp or 1))

    def plan_layout(self) -> tuple[int, int] | None:
        """TP x PP of the plan this answer states for the user's devices (the capped plan first, then the free one, then
        a memory estimate of a layout): the GA line divides by the same data parallelism the plan line uses."""
        have = self.s.devices or (self.s.nodes * (self.s.node_size or 8) if self.s.nodes else None)
        if self.s.oom_split and have and (grown := next_remedy.split_on_more_devices(self.s.oom_split, have, self.s.node_size)):
            return grown  # the split proposed after the one that ran out of memory (capacity.split_first)
        capped = [r.value for r in self.r.of("plan_training", PlanResult) if r.value and r.arg("max_devices")]
        free = [r.value for r in self.r.of("plan_training", PlanResult) if r.value and not r.arg("max_devices")]
        if "tp" in self.s.intents:  # "TP PP 怎么切": the split the answer leads with (split_first) is MindSpeed-LLM's
            capped.sort(key=lambda p: p.framework != "MindSpeed-LLM")
        layouts = [(p.tp, p.pp) for p in capped + free if p.fits] + [
            (m.tp, m.pp) for m in self.r.values("estimate_training_memory", TrainingMemoryResult) if m.verdict != "does_not_fit"]
        return next(((tp, pp) for tp, pp in layouts if have and have % (tp * pp) == 0), None)

    def host_ram_check(self) -> list[str]:
        """The host RAM the user has, against what the offload plans above need per node."""
        have = self.s.host_ram_gb
        if not have:
            return []
        needs = [(p.memory.host_ram_gib, p.devices) for p in self.r.values("plan_training", PlanResult) if p.offload] + [
            (p.fewer_devices.host_ram_gib_per_node, p.fewer_devices.devices) for p in self.r.values("plan_training", PlanResult)
            if p.fewer_devices and p.fewer_devices.offload] + [
            (m.value.host_ram_gib, int(m.arg("devices") or 1)) for m in self.r.of("estimate_training_memory", TrainingMemoryResult)
            if m.value and m.value.host_ram_gib]
        if not needs:
            return ["", self.say("host_ram_check_host_ram_your", have=have)]
        # the setting the user named (the verdict's) first: the line judges the same plan the lead does
        named = [(m.value.host_ram_gib, int(m.arg("devices") or 1)) for m in self.r.of("estimate_training_memory", TrainingMemoryResult)
                 if m.value and m.value.host_ram_gib and m.value.offload]
        need, n = named[0] if named else max(needs)
        enough = need <= host_ram_usable_gib(have)
        return ["", self.L(f"Host RAM: the offload setting above needs about {need:,.0f} GiB per node (on {n}); your {have} GB "
                           f"{'is enough' if enough else 'is not enough'} (about 90% of it usable).",
                           f"主机内存：上面的 offload 方案每节点约需 {need:,.0f} GiB（{n} 卡时）；你的 {have} GB "
                           f"{'够用' if enough else '不够'}（按约 90% 可用计）。")]

    def not_used(self) -> list[str]:
        """The numbers of the question that no slot took, named so nothing stated is dropped silently."""
        # the node counts "is that the same as 8 Snt9B nodes?" compares are used by that comparison (same_as.py)
        compared = [(sp.start, sp.end) for sp in self.s.spans if sp.slot == "said_nodes"] if same_as.line(self.s, self.parts, self.zh) else []
        # (a part of a node is said set aside before the answer, with why: checks.nodes_set_aside)
        aside = {n for t in checks.partial_nodes(self.s.question.lower()) for n in re.findall(r"\d+(?:\.\d+)?", t)}
        left = [f"“{m.text}”" + (self.say("not_used_text", why=why) if (why := spec.why_unused(self.s, m.start, m.end, self.lang) or (
                    self.say("version_unused") if stated.VERSION.fullmatch(m.text.lower()) else "")) else "")
                for m in stated.unused(self.s, [d.args for d in self.done]) if not any(a <= m.at < b for a, b in compared)
                and not set(re.findall(r"\d+(?:\.\d+)?", m.text)) & aside]
        if not left:
            return []
        return ["", self.say("not_used", values=self.say("enum").join(left))]

    def is_serving(self) -> bool:
        return "inference" in self.s.intents and not ("train" in self.s.intents or self.s.method)

    def is_training(self) -> bool:
        s = self.s
        return is_training_question(s) or (bool(s.intents & {"config", "memory", "compare"}) and not self.is_serving())

    def header(self) -> str:
        s = self.s
        name = s.model or (self.shape_name() if s.shape else self.say("header_model", params_b=s.params_b))
        parts = [f"**{name}**", *self.task_parts()]
        if self.is_training() or s.seq_len:
            parts.append(self.seq_words())
        parts.append(self.hw_name())
        if s.framework:
            parts.append(s.framework)
        # the optimizer, loss and trainer the user named: the plans and estimates below use them
        named = (s.stack if not s.framework else None, s.optimizer, s.loss, "compile" if s.compile else None,
                 "activation_offload" if s.activation_offload else None,
                 "expandable_segments" if s.expandable_segments else None, s.precision,
                 f"{s.attention}_attention" if s.attention else None, "fsdp" if s.settings.get("fsdp") else None)
        parts += [TRAINER_WORDS[v][self.lang] for v in named if v in TRAINER_WORDS]
        parts += spec.said_back(s, [d.args for d in self.done if d.ok], self.lang)  # "LoRA rank 64": seen to be used
        return " · ".join(p for p in parts if p) + self.read_as() + self.assumed() + self.beyond_context() + "\n"

    def beyond_context(self) -> str:
        """A length past the model's own context (the tools' model_max_context): said in the header, since every
        figure below assumes RoPE scaling that the user has to switch on."""
        limits = [r.model_max_context for r in self.r.values("plan_training", PlanResult)] + [
            r.model_max_context for r in self.r.values("estimate_inference", InferenceResult)]
        limit, n = next((x for x in limits if x), None), self.e.seq_len
        if not limit or n <= limit:
            return ""
        return self.say("beyond_context_tokens_is_beyond", n=n, model=self.s.model, limit=limit)

    def seq_words(self) -> str:
        return self.say("seq_words_tokens", seq_len=self.e.seq_len)

    def task_parts(self) -> list[str]:
        """'LoRA', 'full fine-tuning PT', or 'inference · 4-bit (awq) · 8 concurrent'."""
        s = self.s
        if self.is_training() or s.method:
            method = s.method or self.method_by_default()
            stage = s.stage.upper() if s.stage and s.stage != "sft" and not (s.stage == "pt" and method) else ""
            return [self.method_name(method), stage]
        if "inference" not in s.intents:
            return []
        parts = [self.say("task_parts_inference")]
        if s.quant_text:
            named = self.say("task_parts_text", quant_text=s.quant_text) if quant_named(s.quant_text) else ""
            # "bf16 and int8": every precision named, each sized
            bits = " / ".join(self.say("task_parts_bit", weight_bits=b) for b in (s.weight_bits_each or [s.weight_bits or 16]))
            parts.append(bits + named if s.weight_bits else s.quant_text)
        if s.concurrency:
            parts.append(self.say("task_parts_concurrent", concurrency=s.concurrency))
        return parts

    def read_as(self) -> str:
        """How words were read when not taken literally (the frame's origin says "read_as"), and an
        instruction written into the question that was not followed."""
        s, out = self.s, ""
        if s.origin("seq_len") == "read_as" and s.length_from_count:
            n = s.length_from_count
            out += self.say("read_as_read_as_the", n=n)
        if s.origin("model") == "read_as" and s.model_read_as:
            out += self.say("read_as_read_as", model_read_as=s.model_read_as, model=s.model)
        if s.origin("method") == "read_as" and s.method_read_as and s.method:
            out += self.say("read_as_read_as", model_read_as=s.method_read_as, model=self.method_name(s.method))
        if (kv := s.kv_cache_dtype) and (runtime := runtime_kv_dtype(kv, self.e.facts.kind, s.question)) != kv:
            # "int8 kv cache" on a GPU: sized with the runtime's own 8-bit KV cache, and said so
            out += self.say("read_as_kv_dtype", typed=kv, runtime=runtime, kind=self.say(f"kv_runtime_{self.e.facts.kind}"))
        for typed, slot in s.keys_read_as:  # "per_devcie 2": the setting whose key it was read as
            out += self.say("read_as_read_as", model_read_as=typed, model=slot.replace("_", " "))
        if s.ignored_instruction:
            out += self.say("read_as_ignored_the_instruction", ignored_instruction=s.ignored_instruction)
        return out

    def method_by_default(self) -> str | None:
        """The one method the calls used when the question named none ("memory to fine-tune X" is sized as
        LoRA); None when both were answered (the tables' LoRA and full rows)."""
        if self.s.method:
            return None
        names = {"plan_training", "estimate_training_memory", "generate_config", "training_recipe", "min_cards"}
        used = {d.args.get("method") or d.args.get("strategy") for d in self.done if d.name in names}
        return used.pop() if len(used) == 1 and None not in used else None

    def assumed(self) -> str:
        """The values filled by a default (the frame's origin says "default"), said as assumed."""
        s, training = self.s, self.is_training()
        assumed = [self.seq_words()] if training and s.origin("seq_len") == "default" else []
        if self.is_serving() and s.seq_len is None and self.results("estimate_inference"):  # the vLLM length it was sized at
            assumed.append(f"max-model-len {self.e.seq_len}")
        if training and (method := self.method_by_default()):
            assumed.insert(0, self.method_name(method))
        if training and not (s.method or s.stage or s.intents & {"train", "inference", "config", "memory", "compare"}):
            # neither fine-tuning nor serving named ("how many H200 for DeepSeek-R1"): say how it was read
            assumed.insert(0, self.say("assumed_fine_tuning_for"))
        if training and s.framework and s.origin("framework") == "default":  # TP / PP said, no framework: Megatron's
            assumed.append(self.say("assumed_framework_layout", framework=s.framework))
        if s.origin("hardware") == "default" and generic_part(s.hardware):  # "our 56GB GPUs": no catalog part has it
            assumed.append(self.L(f"a generic GPU with the {s.memory_gb} GB stated, no vendor table",
                                  f"按所述 {s.memory_gb} GB 的通用 GPU 估算，没有厂商表格") if self.is_gpu(s.hardware) else
                           self.L(f"a generic NPU with the {s.memory_gb} GB stated, no vendor table",
                                  f"按所述 {s.memory_gb} GB 的通用 NPU 估算，没有厂商表格"))
        elif s.origin("hardware") == "default":  # "a 24GB GPU": sized as the catalog part with that memory
            hw = self.hw_name()
            noun = self.say("assumed_gpu") if self.is_gpu(s.hardware) else self.say("assumed_card")
            article = "an" if str(s.memory_gb).startswith(("8", "11", "18")) else "a"  # "an 80 GB", "an 18 GB"
            assumed.append(self.L(f"{hw} for {article} {s.memory_gb} GB {noun}", f"{hw} 代表 {s.memory_gb} GB {noun}")
                           if s.hardware_guessed else hw)
        return self.say("ws_assumed", list=self.say("comma").join(assumed)) if assumed else ""

    def shape_name(self) -> str:
        """'a custom model (layers 80, hidden 8192; ≈ 68.5B parameters counted from this shape)': the count is the tool's."""
        given = self.say("comma").join(f"{k} {v}" for k, v in (self.s.shape or {}).items())
        shapes = [p.shape for p in self.r.values("plan_training", PlanResult)] + [
            r.shape for r in self.r.values("estimate_inference", InferenceResult)] + [
            m.shape for m in self.r.values("estimate_training_memory", TrainingMemoryResult)]
        shape = shapes[0] if shapes else None
        size = f"{self.s.params_b:g}B " if self.s.params_b and not self.s.shape_only else ""
        counted = self.say("shape_name_parameters_counted_from", params_b=shape.params_b) if shape else ""
        return self.say("shape_name_custom_model", size=size, given=given, counted=counted)

    # -- blocks over one tool each: one renderer per result type (RENDERERS) ---------------------
    def table_rows_first(self) -> list[str]:
        """The rows of a whole table's filter; with a model's own question after it ("…, and does X?"), that answer
        follows as a block of its own."""
        lines = self.rendered("find_table_rows")
        return lines + [""] if lines and self.s.table_then_model else lines

    def rendered(self, tool: str) -> list[str]:
        """Every result of ``tool`` through its renderer: the failed lookups of resolve_model, the successful
        lists, every call of the others (a failed one says why)."""
        kind, ok, name = RENDERERS[tool]
        render: Callable[[Any], list[str]] = getattr(self, name)
        calls: list[Result[Any]] = self.r.of(tool, kind, ok=ok)
        return [line for r in calls for line in render(r if tool not in VALUE_ONLY else r.value)]

    def over_own_devices(self) -> bool:
        """Every plan capped at the user's own devices found nothing that fits them (estimate)."""
        capped = [c.value for c in self.r.of("plan_training", PlanResult) if c.value and c.arg("max_devices") == self.e.devices]
        return bool(self.e.devices and capped) and not any(p.fits for p in capped)

    def hardware_why(self) -> list[str]:
        """The parts' facts, and for "why …?" the notes' sentence that gives the reason, right under the facts' lead."""
        lines = self.rendered("list_hardware")
        if not (lines and WHY_ASKED.search(self.s.question.lower())):
            return lines
        passages = [p for r in self.r.values("search_notes", SearchNotesResult) for p in r.results]
        if not (why := note_pick.why_sentence(self.s.question, passages)):
            return lines
        at = next((i + 1 for i, line in enumerate(lines) if line.startswith(self.say("answer"))), 1)
        return [*lines[:at], self.say("why_from_note", why=why, title=passages[0].title), *lines[at:]]

    def notes_block(self) -> list[str]:
        if self.r.values("list_hardware", ListHardwareResult) and not note_pick.why_sentence(
                self.s.question, [p for r in self.r.values("search_notes", SearchNotesResult) for p in r.results]):
            return []  # notes searched for the "why" beside a part's facts that give none: the facts answer alone
        asked = {p.text: p for p in subquestions.asked_apart(self.s.question)}
        calls = self.r.of("search_notes", SearchNotesResult)
        each = [(asked[c.arg("focus")], c.value) for c in calls if c.value is not None and c.arg("focus") in asked]
        calls = [c for c in calls if not proposal.searched(c.arg("query"))]  # said in the proposal's lead (proposal_first)
        lines = [line for c in calls if c.value is not None and c.arg("focus") not in asked for line in self.notes(c.value)]
        if each and not lines and self.headlined:  # only parts searched (beside a model's sizing): the first is quoted in full
            part, result = each.pop(0)
            lines = self.in_part_of(part, result)
        if each:
            lines = self.part_leads(lines, each)
        if lines and self.on_gpu() and self.s.notes_cover and "oom.md" in self.s.notes_cover and self.s.intents & {"problem", "memory"}:
            lines.insert(0, self.say("gpu_remedies"))
        return lines

    in_part = False  # rendering one sub-question's notes (its lead is written though another block led)
    note_file: str | None = None  # the note the whole question's notes answer was quoted from

    def in_part_of(self, part: subquestions.Part, result: SearchNotesResult) -> list[str]:
        """The notes found for one sub-question, rendered as they answer its own words."""
        own, self.s, self.in_part = self.s, self.s.model_copy(update={"question": part.text, "topic_text": ""}), True
        try:
            return self.notes(result)
        finally:
            self.s, self.in_part = own, False

    def figures_wanted(self) -> str:
        """Quantities asked that need no model but lack a figure (quantities.toml ``needs``; the batch identity's devices):
        the answer names each one and the figures it still needs, in the order asked, instead of asking for a model."""
        s = self.s
        asks = [(row.label[self.lang], need) for row, need in quantity.wanting(s)]
        if not asks and s.intents & {"ga", "gbs"} and not names_model(s) and (s.global_batch or s.grad_accum) and not (s.devices or s.nodes):
            asks = [(self.say("batch_identity"), ["devices"])]  # GA or GBS from the other two needs DP, so the devices
        if not asks:
            return ""
        lines = [self.say("quantity_needs", label=label, missing=self.say("comma").join(
            self.say(f"figure_{n}") if f"figure_{n}" in self.phrases else n for n in need)) for label, need in asks]
        return "\n".join([self.lead(lines[0]), *lines[1:]])

    def part_leads(self, lines: list[str], each: list[tuple[subquestions.Part, SearchNotesResult]]) -> list[str]:
        """A question of several parts: a lead for every part, in the order asked. The whole question's lead stands for
        the part whose own search opens with the same fact; another part gets the lead of the search on its own words,
        less the sentences already said. The passages quoted for the whole question follow."""
        label = self.say("answer")
        labelled = bool(lines) and lines[0].startswith(label)
        # (a quantity asked in another part led already: the notes' lead is the first of the parts they answer)
        main = lines[0][len(label):] if labelled else lines[0] if lines and lines[0] and self.headlined else None
        if main is None or main.startswith(self.L("From the notes:", "以下摘自")):
            return lines
        out: list[str] = []
        sources: list[str] = []
        # the parts of one question share its topic: each part is answered from the whole question's note while that note
        # holds a fact for it (the topic rule of notes()), not from a note that only shares a word ("how long … token":
        # the training-time note's token formulas after an answer on the service's tokens)
        topic = self.s.topic_note or self.note_file
        # the whole question's lead answers the parts in the order asked
        if kind_asked(self.s.question) != "helps":  # (a no said to "does it help?" answers the question whole)
            main = in_ask_order(main, [p.text for p in subquestions.asked_apart(self.s.question)], self.lang)
        for part, result in each:
            own, headlined, self.s = self.s, self.headlined, self.s.model_copy(
                update={"question": part.text, "topic_text": "", "topic_note": topic})
            self.headlined = False
            try:
                got = self.notes(result)
            finally:
                self.s, self.headlined = own, headlined

            lead = got[0][len(label):] if got and got[0].startswith(label) else ""
            # (a part naming a subject outside the page's own, "只装 llamafactory 那部分可以吗", that the whole question's lead
            # answers with the page's line naming it: that line answers the part, not another note about the subject)
            subject_said = any(subject_rx(n).search(part.text) and subject_rx(n).search(main)
                               for n in self.s.out_of_scope.get(self.note_file or "", ((), ()))[0])
            if subject_said or part_held(part.text, [p.text for p in subquestions.asked_apart(self.s.question)], main):
                # the whole question's lead holds the kind this part asks (its path, its default) said of the part's own
                # words: it answers the part; the part's own search, without the question's topic, may hold that kind of
                # another thing (the other direction's output folder)
                if main not in out:
                    out.append(main)
                continue
            said = [flat_text(x) for x in (main, *out)]
            # (a sentence said already of another thing, "结果写入 `benchmark_parallel.csv`" beside the whole question's
            # "结果写入 `benchmark_serving.csv`": the same fact of the thing the whole question is about, said)
            kinds = {same_fact(x) for y in (main, *out) for x in SENTENCE_END.split(y)}
            new = [x for x in SENTENCE_END.split(lead) if flat_text(NOTE_NAMED.sub("", x)) and not any(flat_text(NOTE_NAMED.sub("", x)) in s for s in said)
                   and same_fact(x) not in kinds]
            # (a part's sentence under a label the whole question's lead already gives, "原因：…" beside "原因：…": that
            # label's sentence in the lead answers the part; a second "cause" from another section would contradict it)
            labelled_in_main = {m.group(1) for x in SENTENCE_END.split(main) if (m := _LABEL.match(x.strip()))}
            if new and (m := _LABEL.match(new[0].strip())) and m.group(1) in labelled_in_main:
                new = []
            if not new or flat_text(lead)[:40] in flat_text(main):  # the whole question's lead answers this part
                if main not in out:
                    out.append(main)
            else:
                text = ("" if self.zh else " ").join(x.strip() for x in new)
                if (cite := NOTE_NAMED.search(lead)) and not NOTE_NAMED.search(text):  # each lead names its note
                    text += cite.group(0)
                out.append(text)
                sources.append(next((ln for ln in reversed(got) if ln.strip()), ""))
        # the note's summary follows the parts' own leads: a part's fact answers it directly, the summary around it
        # ("does it convert back to HF automatically? how do I get HF format?": the mg2hf fact, then the launch rules)
        summaries = {flat_text(p.summary)[:60] for r in self.r.values("search_notes", SearchNotesResult) for p in r.results if p.summary}
        if any(s_ and s_ in flat_text(main) for s_ in summaries) and any(x != main for x in out):
            out = [x for x in out if x != main] + [main]
        elif main not in out:
            out.insert(0, main)
        rest = lines[1:]
        return [(label if labelled else "") + out[0], *out[1:], *rest, *[s for s in dict.fromkeys(sources) if s and s not in rest]]

    def on_gpu(self) -> bool:
        """The question names a part that is not an Ascend NPU (the notes and vendor tables are Ascend's)."""
        return bool(self.s.hardware) and self.is_gpu(self.e.hardware)

    def config_needs_model(self) -> list[str]:
        s = self.s
        if not ("config" in s.intents and not s.model and s.params_b):
            return []
        return [self.say("config_needs_model"), ""]

    # -- unknown models and lists --------------------------------------------------------------
    def unknown_model(self, call: Result[ModelInfo]) -> list[str]:
        name = str(call.arg("name") or "")
        if call.error.code == "unsupported_model":  # an encoder-decoder model: refused by the tool, said as it says
            return [t("unsupported_model", self.lang, message=in_language(call.error.message, self.lang))]
        closest = [str(c) for c in (call.error.valid or [])][:6]
        typed = self.s.model_text if name == self.s.unknown_model and self.s.model_text else name
        size = re.fullmatch(r"([a-z\u4e00-\u9fff]+)\s*[-_ ]?\s*(\d+(?:\.\d+)?b)", name.lower())
        same_size = [c for c in closest if size and re.search(rf"(?<![0-9.]){re.escape(size.group(2))}", c.lower())]
        if size and same_size:  # "llama 70b": a family and a size; the catalog models that match both
            return [t("which_size", self.lang, name=typed, closest=", ".join(same_size))]
        if is_family_prefix(name, closest):
            if any(x.args.get("family") == name for x in self.results("list_models")):
                return []  # the family list below asks which one
            return [t("which_size", self.lang, name=name, closest=", ".join(closest))]
        if self.s.params_b and name == self.s.unknown_model and len(self.done) > 1:  # its size said: the estimate below uses it
            return [self.say("unknown_sized", name=typed, size=f"{self.s.params_b:g}", closest=", ".join(closest) or "-")]
        return [t("unknown", self.lang, name=typed, closest=", ".join(closest) or "-")]

    def model_list(self, call: Result[ListModelsResult]) -> list[str]:
        models = call.value.models if call.value else []
        fam, fw = call.arg("family"), call.arg("framework")
        if fam and not models and not call.arg("arch"):
            return [self.say("model_list_no_models_of", fam=fam)]
        ids = [m.id for m in models]
        if call.arg("serving_cards") and call.value:
            return self.served_on(call.value, int(call.arg("serving_cards")))
        if fw and not fam and call.value:
            return self.framework_list(call.value, fw, call.arg("strategy"), ids)
        if (arch := call.arg("arch")) or call.arg("params_b"):  # "which dense qwen3 models": the list asked, with its filter
            size = call.arg("params_b")
            head = self.say("model_list_of_arch", arch=self.say(f"arch_{arch}") if arch else "", fam=f" {fam}" if fam and arch else fam or "",
                            value=len(ids), size=self.say("model_list_params", op=OP_WORDS[self.lang][size["op"]], n=size["value"]) if size else "",
                            where=self.say("model_list_where_tables" if call.arg("in_tables_only") else "model_list_where_catalog"))
            if not ids:
                self.cite(self.say("model_list_the_model_catalog"))
                return [self.lead(head.rstrip(":：") + self.say("period"))]
        elif fam:
            head = self.say("model_list_is_family_which", fam=fam, value=len(ids))
        else:
            head = self.say("model_list_models_with_rows", value=len(ids))
        self.cite(self.say("model_list_the_model_catalog"))
        return [head, ", ".join(ids), ""]

    def framework_list(self, r: ListModelsResult, fw: str, strategy: str | None, ids: list[str]) -> list[str]:
        """Models a framework supports: the minimum-card table's rows with a card count (and the recipe table for LLaMA-Factory)."""
        what = METHOD[self.lang].get(strategy, strategy) if strategy else ""
        recipe = fw == "LLaMA-Factory"
        tables = self.L(f"{MIN_LABEL['en']}" + (f" or the {RECIPE_LABEL['en']}" if recipe else ""),
                        f" {MIN_LABEL['zh']}" + (f"或 {RECIPE_LABEL['zh']}" if recipe else ""))
        head = self.L(f"**{len(ids)} models** are supported for {what + ' with ' if what else ''}{fw} by the {tables} "
                      "(rows with a card count; '-' rows are not supported):",
                      f"{fw} {what + ' ' if what else ''}支持的模型共 **{len(ids)} 个**（依据{tables}中有卡数的行；“-”表示不支持）：")
        self.cite(self.L(f"{MIN_LABEL['en']}, {RECIPE_LABEL['en']}" if recipe else MIN_LABEL["en"],
                         f"{MIN_LABEL['zh']}，{RECIPE_LABEL['zh']}" if recipe else MIN_LABEL["zh"]))
        lines = [self.lead(head), ", ".join(ids)] + [f"- {self.L(n, assumption_zh(n, TOOL_NOTE_ZH))}" for n in r.notes]
        return lines + [self.say("framework_list_ask_about_one"), ""]

    def compare(self, call: Result[CompareHardwareResult]) -> list[str]:
        """Every part's plan, sorted as the heading says: parts that fit first, fewest GB of device memory
        in the plan (devices × GB per device) first; that total is shown on each line."""
        if call.value is None:
            return [f"- {self.error_text(call)}"]
        lines = [self.say("compare_hardware_comparison_estimate")]
        sep = self.say("comma")
        for p in sorted(call.value.plans, key=lambda x: (not x.fits, x.devices * x.memory_gb, x.hardware)):
            if not p.fits:
                lines.append(self.say("compare_does_not_fit", hardware=self.hw_name(p.hardware)))
                continue
            devs = self.devices(p.devices, p.unit, p.hardware)
            total = self.say("compare_gb_gb", devs=devs, memory_gb=p.memory_gb, value=p.devices * p.memory_gb)
            table = self.say("compare_table", table_cards=p.table_cards) if p.table_cards else ""
            per = self.per_device(p.unit, p.hardware)
            lines.append(f"- {p.hardware}{self.say('colon')}**{total}**{self.say('compare_text', nodes=self.nodes(p.nodes))}"
                         f"{sep}{self.parallel(p.zero_stage, p.offload, p.tp, p.pp)}{sep}"
                         + self.L(f"{p.total_gib:.1f} of {p.usable_gib:.1f} GiB per {per.strip()} used", f"每{per}用 {p.total_gib:.1f}/{p.usable_gib:.1f} GiB")
                         + table)
        if call.value.inference_only:
            lines.append(self.say("compare_inference_only", parts=self.say("comma").join(call.value.inference_only)))
        return lines + [""]

    # -- configs and notes ---------------------------------------------------------------------
    def config(self, call: Result[GenerateConfigResult]) -> list[str]:
        c = call.value
        if c is None:
            return self.config_failed(call)
        lines = self.config_plan(c.plan)  # the answer first; why the file is not the format asked, after it
        if self.s.config_format in ("llamafactory_yaml", "deepspeed_json") and call.arg("format") == "mindspeed_env":
            lines.append(self.say("config_mindspeed_llm_has"))
        files = [ConfigFile(filename=c.filename, content=c.content, format=c.format)] + [
            f for f in c.companion_files if len(f.content) <= 3000]
        for f in files:
            lang = {"llamafactory_yaml": "yaml", "deepspeed_json": "json", "mindspeed_env": "bash", "launch": "bash"}.get(f.format, "")
            lines += [f"`{f.filename}`" + self.say("config_text"), f"```{lang}", f.content.rstrip(), "```"]
        return lines + [f"- {self.L(n, assumption_zh(n, TOOL_NOTE_ZH))}" for n in c.notes[:6]] + [""]

    def config_failed(self, call: Result[GenerateConfigResult]) -> list[str]:
        """Why no config was written, in the answer's language; when the estimate fits the job nowhere while the vendor
        rows list it, that disagreement is named and the table is the one to plan with (one verdict per answer)."""
        e = call.error
        if e.code != "does_not_fit":
            return [self.say("config_failed", why=(PLAN_ERRORS.zh(e.message) if self.zh else None) or e.message), ""]
        f = self.training_facts()
        needs = self.table_needs(table_strategy(self.s.method), f.recipes, f.rows)
        line = self.say("config_no_fit", model=self.s.model, seq=self.e.seq_len, part=self.hw_name())
        if needs:
            line += self.say("config_no_fit_table", listed=self.need_list(needs))
        return [line] + ([f"> {e.message}"] if not self.zh else []) + [""]  # the estimator's own reasons are English

    def config_plan(self, plan: TrainingPlan) -> list[str]:
        """'1 node × 8 cards = 8 cards, ZeRO-3, … (from the vendor table)', and which fields were set by hand."""
        # which vendor table, by name: the recipe table and the minimum-card table can disagree on the count (seeds 000
        # and 004), so "the vendor table" alone reads as a contradiction of an earlier answer from the other one
        table = (RECIPE_LABEL if "recipe" in plan.source_detail.lower() else MIN_LABEL)[self.lang]
        kind = table if plan.source == "table" else self.say("config_plan_estimate")
        par = (self.parallel(None, None, plan.tp, plan.pp) if plan.framework == "MindSpeed-LLM"
               else self.parallel(plan.zero_stage, plan.offload))
        nodes, per, devs = self.nodes(plan.nodes), self.devices(plan.per_node, plan.unit), self.devices(plan.devices, plan.unit)
        capped = next((x.args["max_devices"] for x in self.results("plan_training") if x.args.get("max_devices")), None)
        basis = self.say("config_plan_from_the", kind=kind)
        if plan.source == "table" and "from the estimator" in plan.source_detail:  # the table's count, the estimate's setting
            basis = self.say("config_plan_count_from_the", kind=kind)
        listed = re.search(r": (\d+) (?:card|die|DIE)s? \(", plan.source_detail) if plan.source == "table" else None
        if {"devices", "nnodes"} & set(plan.overrides) and not capped and listed and int(listed.group(1)) != plan.devices:
            # the user's own count, not the table row's: the lead says whose count it is
            basis = self.say("config_plan_count_yours", kind=kind, listed=listed.group(1))
        if plan.overrides and capped:  # the table's row needs more devices than the user has: the estimate's setting
            basis = self.say("config_plan_the_estimate_setting") if plan.source == "table" \
                else self.say("config_plan_from_the_estimate")
        lines = [self.lead(self.say("config_plan_micro_batch_gradient", nodes=nodes, per=per, devs=devs, par=par, micro_batch=plan.micro_batch, grad_accum=plan.grad_accum, basis=basis))]
        # the source as users know it: the vendor table's name, or "estimate" (never a file name)
        self.cite(table if plan.source == "table" else self.say("plan_source_estimate_plan_training"))
        fields = [self.say(f"field_{f}") if f"field_{f}" in self.phrases else f for f in plan.overrides]
        if plan.overrides and capped:
            yours = self.devices(capped, plan.unit, plan.hardware)
            earlier = self.s.origin("devices") == "conversation"
            lines.append(self.L(f"- Set to the plan that fits your {yours}{', said earlier in the conversation' if earlier else ''}: "
                                f"{', '.join(fields)}.",
                                f"- 按你{'在前面对话中提到' if earlier else ''}的 {yours}内可行的方案设置：{'，'.join(fields)}。"))
        elif plan.overrides:
            # a stage or offload the last answer's plan stated (conversation.plan_adopted) is that plan's, not the user's
            named = dict(zip(plan.overrides, fields, strict=True))
            kept = [named[f] for f in plan.overrides if self.s.origin(f) == "last_answer"]
            asked = [name for name in named.values() if name not in kept]
            sep = self.L(", ", "，")
            whose = ([self.say("config_plan_asked", fields=sep.join(asked))] if asked else []) + \
                ([self.say("config_plan_kept", fields=sep.join(kept))] if kept else [])
            said = self.L("; ", "；").join(whose)
            lines.append(self.say("config_plan_whose", whose=said[:1].upper() + said[1:], kind=kind))
        return lines

    def notes(self, r: SearchNotesResult) -> list[str]:
        """Quote the most relevant note: notes are ranked by their best section's score plus their best
        fact's (the search weighs each query term by how rare it is), then the facts that answer lead and
        that note's two best sections are quoted with the source."""
        hits, cover = r.results, self.s.notes_cover
        if cover is not None and hits:
            hits = [h for h in hits if h.file in cover or title_overlap(h.title, self.s.question) >= 0.5
                    or answers_outright(h, hits, cover)] or ([] if not (self.s.model or self.s.params_b) else hits)
            if not hits:
                # (another block answered already, a sum worked out from the figures given: no note is no "not covered")
                return [] if self.headlined else [t("not_covered", self.lang)]
        if not hits:
            return [self.say("notes_nothing")]
        by_note: dict[str, list[NotePassage]] = {}
        for h in hits:
            by_note.setdefault(h.file, []).append(h)
        # a question worded like a note's title is about that note, whatever body words it shares with others, unless
        # another note holds a fact that matches the question clearly better ("original Ascend 910: FP16 TFLOPS?"
        # shares two title words with the BF16-vs-FP16 note; the hardware note has the sentence); else the
        # note whose best section (its other two at half weight) and best fact (sentence, bullet, table row) match best
        best_fact = max(h.lead_score for h in hits)
        ranked: list[NotePassage] = max(by_note.values(), key=lambda hs: (
            title_overlap(hs[0].title, self.s.question) >= 0.5 and hs[0].lead_score >= TITLE_FACT_SHARE * best_fact,
            hs[0].score + sum(h.score for h in hs[1:3]) / 2 + hs[0].lead_score))
        # a note holding the one fact that answers ("token 有效期多久": the Token line) over a note that shares the
        # question's common words in many sections ("多久" in every section of the training-time note)
        # (a problem the user reports keeps the note its topic names: "还是 OOM" with recompute flags pasted is the OOM
        # note's remedy list, not a note that mentions the flags)
        reported = "problem" in self.s.intents and cover is not None and ranked[0].file in cover
        decisive = max(by_note.values(), key=lambda hs: hs[0].lead_score)
        if not reported and decisive[0].lead_score >= max(MIN_DECISIVE_FACT, DECISIVE_FACT_RATIO * ranked[0].lead_score):
            ranked = decisive
        # a parameter the question names ("--dataset-type 可以填哪些") is answered by the note with a line about it
        about = [hs for hs in by_note.values() if marked_names(hs[0])]
        if about and not reported and not marked_names(ranked[0]):
            ranked = max(about, key=lambda hs: (hs[0].lead_score, hs[0].score))
        # the note whose procedure the question names ("HF 转 megatron 时 TP PP…": the conversion's note) answers it over
        # one that only shares its words (the parallelism note also says what TP and PP must match)
        doing = [hs for file, hs in by_note.items() if file in self.s.procedures_named]
        if doing and not reported and ranked[0].file not in self.s.procedures_named:
            ranked = max(doing, key=lambda hs: (hs[0].lead_score, hs[0].score))
        # a follow-up of a how-to topic ("NODE_RANK 呢" after MASTER_ADDR was answered from the launch-script note): the
        # note the topic's answer came from, while it holds a fact as good as half the best note's (and a line about the
        # parameter named, when one is)
        topic = by_note.get(self.s.topic_note or "")
        if (topic and topic is not ranked and not reported and topic[0].lead_score >= TOPIC_FACT_SHARE * best_fact
                and (not about or marked_names(topic[0]))):
            ranked = topic
        # a note about another framework than the one named ("MASTER_ADDR for a llamafactory job" from the MindSpeed-LLM
        # launch-script page): the note about the named framework answers, while it holds a fact as good as half the best
        own = [hs for file, hs in by_note.items() if file in self.s.subject_notes and (cover is None or file in cover)]
        # (unless a line of the page names it, about what is asked: install_type=llamafactory on the package's page)
        if (ranked[0].file in self.s.out_of_scope and own and not reported
                and note_pick.line_naming(self.s.question, self.s.out_of_scope[ranked[0].file][0], ranked) is None):
            mine = max(own, key=lambda hs: (hs[0].lead_score, hs[0].score))
            if mine[0].lead_score >= TOPIC_FACT_SHARE * ranked[0].lead_score:
                ranked = mine
        fit = partial(note_pick.passage_fit, framework=self.s.framework, serving="inference" in self.s.intents)
        best = sorted(ranked, key=fit, reverse=True)
        top = best[0]
        if not self.in_part:
            self.note_file = top.file
        lines = [self.L("From the notes:", note_lead_in_zh(top.file, top.title, top.text))]
        quoted = best[:2]
        # (a question of several parts: the part the notes answer gets its lead after the part another block led with)
        if top.summary and (not self.headlined or self.in_part or subquestions.asked_apart(self.s.question)):  # the summary leads
            # a question naming a parameter is answered by the note's lines about it, whatever section it quotes
            section = None if top.lead_names else self.answering_section(best, top.summary)
            # a term the user only mentions ("reserved >> allocated, exact export line?") leads no section whose line
            # lacks the kind of thing asked (a value, a command) while the note's best fact holds it
            if (section is not None and (kinds := kinds_asked(self.s.question)) and top.lead and not top.lead_is_summary
                    and not kinds_held(self.section_lead(section), kinds) and kinds_held(top.lead, kinds)):
                section = None
            if section is None and not top.lead_names:  # where to begin: the section headed as the first step
                section = note_pick.first_section(self.s.question, best)
            # what the user already did ("restarted the scheduler twice, still pending") leads no more: the next section
            if (done := note_pick.done_clause(self.s.question)) and any(note_pick.about_done(done, h.heading) for h in best[:1]):
                section = note_pick.after_done(done, best, self.s.topic_said or "") or section
                if section is not None:  # (the sections of what they did are quoted last)
                    others = [h for h in best if h is not section]
                    best = [section, *(h for h in others if not note_pick.about_done(done, h.heading)),
                            *(h for h in others if note_pick.about_done(done, h.heading))]
                    top = best[0]
            # else the facts of the note that best match the question's terms (rare terms weighing most), or its summary
            fact = top.lead if top.lead and not top.lead_is_summary else top.summary or top.lead
            lead = fact if section is None else self.section_lead(section)
            rows, every = table_rows_asked([h.text for h in best], self.s.question)
            if rows:  # "FP16 的指数位": that row leads; "… and why": the note's answer after it, without the table's rows
                rest = re.sub("|".join(map(re.escape, every)), " ", lead).strip() if WHY.search(self.s.question) else ""
                lead = rows + ("\n" + rest if rest else "")
            if section is not None:  # said once: the lead, then the other sections
                quoted = [h for h in best if h is not section][:2]
            elif not rows and self.s.howto_before and (
                    piece := note_pick.follow_up_fact(self.s.question, best, lead, lead == top.summary, self.s.topic_said)):
                # a follow-up of the how-to topic, in few words: the piece they ask leads, not the summary said before
                lead = piece
            # the lead found repeats what they already did ("restart it by deleting it" after "restarted it twice"): the
            # opening of the first section about something else, one the conversation has not said yet first
            if ((done := note_pick.done_clause(self.s.question)) and section is None and not rows and note_pick.about_done(done, lead[:160])
                    and (nxt := note_pick.after_done(done, best, self.s.topic_said or ""))):
                lead = self.section_lead(nxt)
                quoted = [h for h in best if h is not nxt][:2]
            # the page's own line about the subject named ("install_type=llamafactory" on the ModelLink package's page): it
            # answers first, and the page is not said to leave that subject out
            own_line = note_pick.line_naming(self.s.question, self.s.out_of_scope.get(top.file, ((), ()))[0], best)
            if own_line is not None and not flat_text(lead).startswith(key := flat_text(own_line)[:40]):
                rest = "\n".join(ln for ln in lead.splitlines() if key not in flat_text(ln))
                lead = own_line + ("\n" if "\n" in rest else "" if self.lang == "zh" else " ") + rest
            lead = with_antecedent(lead, best, self.lang)  # "When it is set, …": the sentence naming "it" first
            lead = each_named(self.s.question, lead, best, self.lang)  # "A 和 B 各自的 commit": B's line beside A's
            lead = named_item_first(self.s.question, lead)  # "which MindSpeed commit?": that item of the list first
            # the sentence holding the kind asked (a command, a path, …; where to begin: the command) first
            lead = held_first(self.s.question, lead, best, self.lang,
                              ["command"] if section is not None and section is note_pick.first_section(self.s.question, best) else ())
            picked = self.fact_picked(lead, best, r.results)
            # (the table's rows answer the part asked first, "BF16 有几个指数位"; the part after them, "为啥不容易溢出", follows)
            said = lead + "\n" + picked.strip() if rows and picked.strip() else picked + lead
            if not rows:  # the fix, the limit or the choice asked, first (answer_first.py)
                said = answer_first(self.s.question, said, best, self.lang, done=note_pick.done_clause(self.s.question))
                # a question of several parts: the sentence answering the part asked first leads (not before a no said
                # to "does it help?", which answers the question whole)
                if kind_asked(self.s.question) != "helps":
                    said = in_ask_order(said, [p.text for p in subquestions.asked_apart(self.s.question)], self.lang)
            # a size or duration they state placed in the note's rule by ranges ("3 GB": the 100 MB–50 GB row), first
            placed = range_rows(self.s.question, [h.text for h in best])
            said = limit_sentence_first(self.s.question, said, {r.said for r in placed}, self.lang)
            said = without_rows(said, [r.row for r in placed], self.lang)  # each placed row is said once, with their value
            # "一步步怎么排查": the note's step list, whole, after the lead (not only the section the lead opens)
            listed = note_pick.steps_listed(self.s.question, said, best)
            steps = [self.say("note_steps_listed", heading=listed[0]), *(f"{i}. {t}" for i, t in enumerate(listed[1], 1))] if listed else []
            lines = [self.lead(("" if own_line is not None else self.note_scope(top)) + self.note_verdict(top.file) + "".join(self.say("range_row", said=r.said, row=r.row) + " " for r in placed)
                               + self.limits_said(said, said + "\n" + (section or top).text, {r.said for r in placed}) + said
                               + self.say("notes_notes", title=top.title)),
                     *steps, "", *lines]
        for i, h in enumerate(quoted):
            passage = sentence_cut(h.text, PASSAGE_CHARS if i == 0 else PASSAGE_CHARS * 2 // 3).replace("~", "≈")  # "~" renders as strikethrough
            lines += [f"**{h.title} — {h.heading}**", "\n".join("> " + ln for ln in passage.splitlines())]
        source = source_as_known(top.source)
        return lines + [self.say("notes_source", source=source), ""]

    def fact_picked(self, lead: str, best: list[NotePassage], hits: list[NotePassage]) -> str:
        """The one fact the question asks of the note, before the note's lead: the option its words single out, the
        step asked by its place in a numbered list, or that no official figure exists (note_pick.py)."""
        q = self.s.question
        # the values the question gives a documented tool's flags: each said with its meaning (tool_flags.toml), not
        # the note's example command (round 17 c4-03)
        if flags := tool_flags.stated(q, self.lang):
            return "\n".join(flags) + "\n"
        # "A 还是 B？我做 sft": the option named that fits what the question states, before listing what each is for
        # (from the note chosen: another note's words beside the same names answer another question)
        if (named := note_pick.pick_named(q, best)) is not None:
            return self.say("note_pick_option", option=named) + "\n"
        if pairs := note_pick.key_values(q, best + [h for h in hits if h not in best]):  # "DPO 和 SFT 的 stage 分别怎么写"
            return self.say("note_key_values", pairs=self.say("semicolon").join(f"`{k}: {v}`" for k, v in pairs)) + "\n"
        if (option := note_pick.pick_option(q, lead, hits)) is not None:
            return self.say("note_pick_option", option=option) + "\n"
        if (step := note_pick.step_asked(q, best + [h for h in hits if h not in best])) is not None:
            text = sentence_cut(step.text, PASSAGE_CHARS // 2)
            return self.say("note_pick_step", n=step.number, total=step.total, heading=step.heading, text=text) + "\n"
        if (usage := note_pick.usage_paragraph(q, best + [h for h in hits if h not in best])) is not None:
            return sentence_cut(usage, PASSAGE_CHARS // 2) + "\n"
        if (said := note_pick.no_official(q, best + [h for h in hits if h not in best])) is not None:
            return self.say("note_no_official", text=said) + "\n"
        if parts := note_pick.parts_unanswered(q, lead, best):  # each part asked that the lead leaves out, in order
            # one paragraph with the lead: the parts asked, then what the note's lead says
            return " ".join(sentence_cut(p, PASSAGE_CHARS // 2).rstrip() for p in parts) + " "
        return ""

    def answering_section(self, best: list[NotePassage], summary: str) -> NotePassage | None:
        """The section that holds what the question quotes ('Error waiting on exit barrier', `max_model_len is
        greater…`) when the note's summary does not: the user asks about that text, so that section leads. The
        opening of the top section leads instead when it shares far more of the question's words than the summary
        ("convert the weights back to Hugging Face format" is one paragraph of the launch-script note), unless the
        user reports a problem (the note's remedy, its summary, leads). None: the summary leads."""
        low, question = summary.lower(), self.s.question.lower()
        # a heading that names a quoted message the question contains, quoted or not; the most specific (longest)
        # signature wins ("not same node idle" over "Insufficient" when an event holds both words)
        named = [(len(q.strip()), -i, h) for i, h in enumerate(best) for quote in note_pick.QUOTED.findall(h.heading) for q in quote
                 if q and q.strip().lower() in question and q.strip().lower() not in low]
        if named:
            return max(named, key=lambda n: n[:2])[2]
        quoted = note_pick.quoted_texts(self.s.question)
        for text in quoted:
            if len(text) >= 8 and text not in low:
                section = next((h for h in best if text in (h.heading + " " + h.text).lower()), None)
                if section is not None:
                    return section
        # a term the note defines (`60.97 GiB total capacity` is …) that the question types without quotes
        return next((h for h in best if any(c not in low for c in note_pick.code_asked(self.s.question, h.text))), None)

    def section_lead(self, section: NotePassage) -> str:
        """The lead taken from a section: the bullet or paragraph that holds the quoted text, else the section's opening."""
        question = self.s.question.lower()
        # a term the question types is led by the bullet that explains it (`term` …), before any text quoting it
        code = [f"`{c}`" for c in note_pick.code_asked(self.s.question, section.text)]
        quoted = note_pick.quoted_texts(self.s.question)
        in_heading = any(t in section.heading.lower() or section.heading.lower() in question for t in quoted)
        paras = re.split(r"\n\s*\n|\n(?=\s*(?:[-*]|\d+\.)\s)", section.text)
        for terms in ([code, quoted] if not in_heading else [code]):
            para = next((p for p in paras if any(t in p.lower() for t in terms if len(t) >= 8)), None)
            if para is not None:
                return flat(sentence_cut(para, PASSAGE_CHARS * 2 // 3))
        return flat(sentence_cut(section.text, PASSAGE_CHARS * 2 // 3))

    def limits_said(self, lead: str, whole: str | None = None, placed: set[str] | frozenset[str] = frozenset()) -> str:
        """The user's own sizes and durations measured against the limits the lead states ("60GB" against "up to
        50 GB"), and the lead's formulas worked with the values they gave, first: the rule applied to their
        numbers, not only quoted."""
        keys = {("max", True): "limit_over", ("max", False): "limit_within", ("min", True): "limit_short"}
        said = [self.say(keys[c.kind, c.breaks], said=c.said, limit=c.limit)
                for c in limit_checks(self.s.question, lead) if (c.kind, c.breaks) in keys and c.said not in placed]
        # a relation the estimator's table computes (derive_quantity, estimate/derived.py) was stated first with its one
        # rounding rule: the note's same formulas are not worked again by another arithmetic
        derived = any(c.value is not None for c in self.r.of("derive_quantity", DerivedResult))
        # the note's formula solved for the variable asked, from the result wanted ("6 checkpoints: what SAVE_INTERVAL?")
        said += [] if derived else [self.say("formula_solved", name=x.name, value=x.value, formula=x.formula, filled=x.filled, target=exact(x.target),
                          range=self.say("formula_solved_range", low=x.low, value=x.value, target=exact(x.target)) if x.low < x.value else "")
                 for x in solved_formulas(self.s.question, whole or lead, self.formula_values())]
        said += [] if derived else [self.say("formula_worked", formula=f, filled=filled, result=exact(result))  # the note's formula, their numbers
                 # the formulas of the whole paragraph the lead is cut from: a sentence cut off still counts
                 for f, filled, result in worked_formulas(self.s.question, whole or lead, self.formula_values())]
        said += [self.say(("rounding_worked_up" if r.up else "rounding_worked_down")
                          + ("_on" if r.scope and not r.named_in(self.s.question) else ""),
                          said=r.said, result=r.result, step=r.step, scope=r.scope)
                 for r in roundings(self.s.question, lead)]  # the note's rounding rule applied to the value they set
        return " ".join(said) + " " if said else ""

    def formula_values(self) -> dict[str, float]:
        """The notes' formula variables (`SN / GBS * EPOCH`) the user gave in their own words: the slots that hold them."""
        return {name: float(v) for name, slot in FORMULA_SLOTS.items() if (v := spec.value_of(self.s, slot)) is not None}

    def note_scope(self, top: NotePassage) -> str:
        """The note's scope first when its vendor page is about another framework or product than the one the question
        names (notes.outside_scope): what the page covers, that the named one is not covered, then the page's method."""
        named, subjects = self.s.out_of_scope.get(top.file, ((), ()))
        if not named or not subjects:
            return ""
        return self.say("note_scope", named=" / ".join(named), subjects=" / ".join(subjects[:3]), title=top.title)

    def note_verdict(self, note: str) -> str:
        """Yes or no first when the question states the numbers a note's limits judge, in an answer from the notes
        alone (a model named only as the example: "my qwen2.5-7b has head_dim 128")."""
        if note != FUSED_ATTENTION_NOTE or any(d.name != "search_notes" for d in self.done):
            return ""
        found = fused_attention.check(self.s.question)
        return f"**{found.text(self.lang)}** " if found else ""


# The launch-script variables of the notes' formulas and the frame slots that read them in words ("12 万条样本", "global
# batch 256", "3 个 epoch")
FORMULA_SLOTS = {"SN": "samples", "GBS": "global_batch", "EPOCH": "epochs", "MBS": "micro_batch",
                 "TRAIN_ITERS": "train_iters"}  # "总共跑 2000 个 iteration": the run's iterations
# a sentence with its end mark (the pieces a part's lead is cut into, to leave out what another lead said)
NOTE_NAMED = re.compile(r"\s*\(notes: (?:[^()]|\([^()]*\))*\)\s*$|（笔记：《[^》]*》）\s*$")  # the "(notes: title)" a lead ends with
SENTENCE_END = re.compile(r"(?<=[。！？])\s*(?=\S)|(?<=[。！？]\*\*)\s*(?=\S)|(?<=[.!?])\s+(?=\S)|(?<=[.!?]\*\*)\s+(?=\S)")
TOPIC_FACT_SHARE = 0.5  # the topic's note answers a follow-up while its best fact is this close to the best note's
TITLE_FACT_SHARE = 0.8  # a note named by its title still needs a fact this close to the best note's to be quoted
# A note whose topic words the question does not use is still quoted when one of its facts matches the question this
# well, and this many times better than any fact of the notes it does name ("how do I authenticate … which header?"
# names no word of the public-access note, whose API-key line answers it; "inference" names the vLLM note)
MIN_DECISIVE_FACT = 5.0
MARKED_NAME = re.compile(r"^--|_|\.(?:sh|py|json|ya?ml)$|-cli$")
OUTRIGHT_FACT_RATIO = 2.0
# Of the notes quoted, one whose best fact matches this many times better than the best-ranked note's leads instead
DECISIVE_FACT_RATIO = 1.5
FUSED_ATTENTION_NOTE = fused_attention.NOTE


def exact(x: float) -> str:
    """A worked value as it is, to three decimals at most: 3906.25, not 3906 (nor 3.906e+03)."""
    r = round(x, 3)
    return f"{int(r):,}" if r == int(r) else f"{r:,}"


def same_fact(sentence: str) -> str:
    """A sentence without its code values and marks: two sentences alike but for the file, flag or value in code say
    the same fact of different things."""
    return flat_text(re.sub(r"`[^`]*`", "`", NOTE_NAMED.sub("", sentence)))


def flat_text(text: str) -> str:
    """Text without its marks and spaces, to find one sentence inside another's rendering."""
    return re.sub(r"[*`>\s]", "", text)


def compose(s: Slots, done: list[Done], hardware: list[dict[str, Any]] | None = None) -> str:
    """The answer to ``s`` from the calls that ran; ``hardware`` is the hardware catalog (device nouns)."""
    try:
        return Composer(s, done, {h["id"]: h for h in hardware or []}).render()
    except (KeyError, TypeError, ValueError) as e:  # a result shape this writer does not know: still answer
        lines = [f"- {d.name}: {d.result}" for d in done]
        said = ("（无法排版这个回答：{e}；下面是工具的原始结果）" if s.lang == "zh" else "(could not format the answer: {e})")
        return "\n".join([said.format(e=f"{type(e).__name__}: {e}"), *lines])[:8000]


TITLE_STOP = frozenset(["the", "a", "an", "and", "or", "of", "on", "in", "for", "to", "from", "with", "its", "their", "how", "what", "why", "is", "are", "do", "does", "training"])


WHY = re.compile(r"\bwhy\b|为什么|为何|\bhow come\b", re.I)  # "how many" is not a why
TABLE_ROW = re.compile(r"^\s*(?:>\s*)?\|(.+)\|\s*$")


def table_rows_asked(texts: list[str], question: str) -> tuple[str, list[str]]:
    """The rows of a note's table whose first cell the question names ("FP16 的指数位是几位" → the FP16 row), each as
    'FP16: exponent 5; …' with the table's own column names, and every row of that table in the same form (the search's
    facts quote rows so); empty when the question names no row. The row asked is the answer, not the first row the
    search matched (round 7: the FP32 row led a question about BF16 and FP16)."""
    low = question.lower()
    for text in texts:
        rows = [[c.strip() for c in m.group(1).split("|")] for line in text.splitlines() if (m := TABLE_ROW.match(line))]
        rows = [r for r in rows if not all(set(c) <= set("-: ") for c in r)]  # drop the |---| rule
        if len(rows) < 2:
            continue
        head = rows[0][1:]
        cols = [i for i, h in enumerate(head) if column_named(h, low)]  # no column named ("bf16 or fp16?"): not a cell question
        facts = [(r[0].strip("*` "), r[1:]) for r in rows[1:]]
        asked = ["**" + key + "**: " + "; ".join(f"{shown(head[i])} {cells[i]}" for i in cols if i < len(cells) and cells[i]).replace("~", "≈")
                 for key, cells in facts
                 if cols and len(key) >= 3 and re.search(rf"(?<![a-z0-9]){re.escape(key.lower())}(?![a-z0-9])", low)]
        if asked:
            every = [f"{key}: " + "; ".join(f"{h} {c}" for h, c in zip(head, cells, strict=False) if c) for key, cells in facts]
            return (asked[0] if len(asked) == 1 else "\n" + "\n".join(f"- {line}" for line in asked)), every
    return "", []


def shown(header: str) -> str:
    """A Chinese header as the answer shows it: without the English gloss that only helps match it ("指数位（exponent）"
    → 指数位, "尾数位（小数部分，mantissa）" → 尾数位（小数部分）)."""
    if not re.search(r"[\u4e00-\u9fff]", header):
        return header

    def keep(m: re.Match[str]) -> str:
        inner = re.sub(r"[，,]?\s*[A-Za-z][A-Za-z ]*", "", m.group(1)).strip("，, ")
        return f"（{inner}）" if inner else ""
    return re.sub(r"[（(]([^）)]*)[）)]", keep, header)


def column_named(header: str, question: str) -> bool:
    """A table column the (lower-cased) question names: its header without the bracketed gloss ("尾数位（小数部分）" → 尾数位),
    or for a Latin header one of its words of five letters or more ("largest finite" → "largest")."""
    name = re.sub(r"\(.*?\)|（.*?）", "", header).strip().lower()
    # a Chinese header's English gloss names it too ("指数位（exponent）" for "BF16 的 exponent 几位")
    gloss = " ".join(re.findall(r"[（(]([^）)]*)[）)]", header.lower())) if re.search(r"[\u4e00-\u9fff]", name) else ""
    return bool(name) and (name in question or any(len(w) >= 5 and re.search(rf"\b{w}", question)
                                                   for w in re.findall(r"[a-z]+", name + " " + gloss)))


def flat(text: str) -> str:
    """A quoted section as one paragraph for the lead: its lines and bullets joined; a one-line code block as inline code."""
    text = re.sub(r"```[^\n]*\n\s*([^`\n]+?)\s*\n\s*```", r"`\1`", text)
    lines = [re.sub(r"^\s*(?:[-*]|\d+\.)\s+", "", ln).strip() for ln in text.splitlines()]
    return " ".join(ln for ln in lines if ln)


def title_words(text: str) -> set[str]:
    """Content words of a text: Latin words (a plural's s dropped) and Chinese character pairs."""
    low = text.lower()
    latin = {w.rstrip("s") for w in re.findall(r"[a-z][a-z0-9_-]{2,}", low) if w not in TITLE_STOP}
    cjk = re.findall(r"[\u4e00-\u9fff]+", low)
    return latin | {run[i:i + 2] for run in cjk for i in range(len(run) - 1)}


def marked_names(hit: NotePassage) -> list[str]:
    """The parameters the hit's lead is about that are written as names (a flag, a key with an underscore, a file:
    `--dataset-type`, `DATA_TYPE`), not a plain word a pasted log also uses ("lr 2.5e-5" is no question about `LR`)."""
    return [n for n in hit.lead_names if MARKED_NAME.search(n)]


def answers_outright(hit: NotePassage, hits: list[NotePassage], cover: set[str]) -> bool:
    """A note outside the ones the question names whose best fact answers it outright: a line about a parameter the
    question names (when no named note has one), or a fact that matches the question's words well (MIN_DECISIVE_FACT) and clearly better than the
    named notes' best facts (OUTRIGHT_FACT_RATIO)."""
    if not cover:  # a question naming no note's topic ("配额不够怎么申请") is not covered, whatever words a fact shares
        return False
    if marked_names(hit) and not any(marked_names(h) for h in hits if h.file in cover):
        return True  # its lead is the line about a parameter the question names (`--dataset-type`), no named note's is
    named = max((h.lead_score for h in hits if h.file in cover), default=0.0)
    return hit.lead_score >= max(MIN_DECISIVE_FACT, OUTRIGHT_FACT_RATIO * named)


def part_held(part: str, parts: list[str], lead: str) -> bool:
    """A sentence of ``lead`` holds every kind ``part`` asks (note_kinds: a path, a default, …) and two or more of the
    part's own words (those no other part of the question has)."""
    if not (asked := kinds_asked(part)):
        return False
    own = set(tokenize(part.lower(), unigrams=False)) - set().union(set(), *(tokenize(p.lower(), unigrams=False) for p in parts if p != part))
    return any(all(kinds_held(x, [k]) for k in asked) and len(own & set(tokenize(x.lower(), unigrams=False))) >= 2
               for x in SENTENCE_END.split(lead))


def title_overlap(title: str, question: str) -> float:
    """The share of a note title's content words that the question uses."""
    words = title_words(re.sub(r"\(.*?\)|（.*?）", " ", title))
    return len(words & title_words(question)) / len(words) if words else 0.0


def count_asked_before_batch(question: str) -> bool:
    """"几张卡？global batch 多大？": the device count is asked before the global batch, so the count keeps the lead's first
    line and the global batch follows it there."""
    q = question.lower()
    count, gbs = ASKS_COUNT.search(q), GBS_WORDS.search(q)
    return bool(count and gbs and count.start() < gbs.start())


def without_rows(said: str, rows: list[str], lang: str) -> str:
    """The lead less the sentences that only repeat a range row placed with the user's value before it."""
    if not rows or "\n" in said.strip():
        return said
    cite = NOTE_NAMED.search(said)
    body = said[:cite.start()] if cite else said
    sentences = [x.strip() for x in SENTENCE_END.split(body) if x and x.strip()]
    kept = [x for x in sentences if not any(flat_text(row) in flat_text(x) and len(flat_text(x)) <= len(flat_text(row)) + 4
                                            for row in rows)]
    if len(kept) == len(sentences):
        return said
    return ("" if lang == "zh" else " ").join(kept) + (cite.group(0) if cite else "")


def limit_sentence_first(question: str, said: str, placed: set[str], lang: str) -> str:
    """The lead with the sentence that states the limit a quantity of the question is measured against first ("20MB":
    "A request body may be at most **12 MB** …" before the call URL's sentences), so the verdict on their value is
    followed by the rule it comes from. Unchanged when no limit is checked or the first sentence states it."""
    checks = [c for c in limit_checks(question, said) if c.said not in placed]
    if not checks or "\n" in said.strip():
        return said
    sentences = [x.strip() for x in re.split(r"(?<=[。！？])|(?<=[.!?])\s+(?=[A-Z`*“\"(（])", said) if x and x.strip()]
    limit = r"\s*".join(re.escape(t) for t in checks[0].limit.split())
    at = next((i for i, x in enumerate(sentences) if re.search(limit, x.replace("*", ""))), None)
    if not at:  # none, or the first already
        return said
    return ("" if lang == "zh" else " ").join([sentences[at], *sentences[:at], *sentences[at + 1:]])
