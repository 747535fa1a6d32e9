"""From parsed slots to tool calls: a first round chosen from what was asked, and at most one more
round when the first results call for it (no table row -> the estimator)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..estimate import layout
from ..estimate.constants import MINDSPEED_METHODS, MINDSPEED_STAGES
from ..note_kinds import kinds_asked
from ..resolve import variant_of
from ..tools.estimates import KV_8BIT
from . import (
    batch_math,
    error_signature,
    file_values,
    fused_attention,
    part_same,
    pasted_log,
    pasted_output,
    proposal,
    quantity,
    spec,
    subquestions,
    table_query,
    tool_flags,
)
from .asked import (
    WHY_ASKED,
    asks_host_ram,
    asks_offload_needed,
    asks_verdict,
    named_setting,
    nodes_of_devices_said,
    offload_said,
    serving_parts_asked,
    stages_offered,
)
from .conversation import solved_slot
from .frame import (  # noqa: F401  (defaults re-exported: the answer writer imports them from here)
    DEFAULT_HARDWARE,
    DEFAULT_SEQ_LEN,
    Effective,
    effective,
    table_strategy,
)
from .intents import VALIDITY
from .parse import Slots
from .serving_words import KV_PER_TOKEN_ASKED
from .spans import Reading
from .vocab import ASKS_COUNT, INTENTS, OOM_NAMED
from .vocab import NODES_ASKED as VOCAB_NODES_ASKED

TABLE_MEMORY_GB = (32, 64)  # the ModelArts vLLM tables' memory columns (GB per card)
TRAINING_INTENTS = {"cards", "zero", "ga", "support", "tp"}
OTHER_INTENTS = {"memory", "inference", "config", "troubleshoot", "compare", "time", "list_models", "list_hardware",
                 "hardware_facts"}
NOTE_QUERY_CHARS = 400
NOTE_HITS = 8  # passages fetched; the answer quotes the best note's best sections
# Query expansion for the notes: the words a person uses -> the words the notes use (both languages).
NOTE_TERMS = [
    # (memory named alone, "对显存有要求吗", is no out-of-memory report; nor "溢出" said of FP16's range)
    (OOM_NAMED, "out of memory OOM 显存溢出 remedies"),
    (re.compile(r"time[sd]?\s*out|超时|(?<![a-z])hang|卡住|barrier"), "timeout 超时"),
    (re.compile(r"requir|constraint|condition|need|limit|要求|条件|限制|约束|前提|需要什么"), "constraints 约束"),
    (re.compile(r"flash\s*-?att"), "FlashAttention NPU_Flash_Attn"),
    (re.compile(r"why|cause|reason|为什么|原因|为何"), "cause 原因"),
    (re.compile(r"fix|solve|avoid|what\s+should|解决|怎么办|处理|避免"), "remedies fix 解决"),
    (re.compile(r"differ|versus|(?<![a-z])vs(?![a-z])|compare|区别|差别|不同|对比"), "difference 区别"),
    (VALIDITY, "valid validity expire 有效期 过期"),  # a lifetime asked: the line that states one
]
TIME_TERMS = "training time formula 训练时间 TPS"
SPEED_TERMS = "vLLM benchmark 性能测试 throughput 吞吐 benchmark_parallel.py benchmark_serving.py"
TABLE_MAX_LEN = 32768  # the newest vLLM table stops at 32K for most models


@dataclass(frozen=True)
class Call:
    name: str
    args: dict[str, Any]


@dataclass
class Done:
    """A tool call that has run, with its JSON result (or the canonical error object)."""

    name: str
    args: dict[str, Any]
    result: dict[str, Any]

    @property
    def ok(self) -> bool:
        return "error" not in self.result

    @property
    def error(self) -> dict[str, Any]:
        return self.result.get("error") or {}


# "is fp8 kv cache supported on 910B?": the dtype's support is what is asked, so it is not swapped for the runtime's own
KV_SUPPORT_ASKED = re.compile(r"支持|(?<![a-z])(?:support\w*|available)(?![a-z])")


def runtime_kv_dtype(dtype: str | None, kind: str | None, question: str = "") -> str | None:
    """An 8-bit KV cache in the part's runtime's own dtype (KV_8BIT: fp8 on GPUs, int8 on Ascend); others as asked, and
    the dtype asked whether it is supported (the tool's refusal says it is not, the rest is sized without it)."""
    if dtype not in KV_8BIT.values() or KV_SUPPORT_ASKED.search(question.lower()):
        return dtype
    return KV_8BIT.get(kind or "", dtype)


def squashed(name: str) -> str:
    return re.sub(r"[^0-9a-z.]", "", name.lower())


def is_family_prefix(name: str, closest: list) -> bool:
    """True when every closest model starts with the name: "qwen3" names a family, not an unknown model."""
    key = squashed(name)
    return bool(key and closest) and all(squashed(str(c)).startswith(key) for c in closest)


def note_query(s: Slots) -> str:
    """The question without the model name (it would pull in table caveats), plus the notes' own words."""
    text = (s.topic_text or s.question)[:NOTE_QUERY_CHARS]
    if s.howto_before:  # a follow-up of a how-to topic: that topic's words too (carry.toml [howto])
        text = f"{text} {s.howto_before}"[:NOTE_QUERY_CHARS]
    extra = [words for rx, words in NOTE_TERMS if rx.search(text)]
    if "time" in s.intents:  # also when carried over from an earlier turn ("and with 16 cards?")
        extra.append(TIME_TERMS)
    if s.procedures_named:  # a procedure named ("转完可以直接拿去 vllm 推理吗"): its note is looked for by its title too
        extra.append(s.procedure_titles)
    if ORDER_ASKED.search(text.lower()):  # "rank … by", "按速度排个序": the notes' orders
        extra.append("order 顺序 排序")
    # serving speed: the vLLM benchmark tools (a training setting's speed, "ZeRO-3 vs ZeRO-2 + offload 哪个快", is not serving)
    if "throughput" in s.intents and not ("zero" in s.intents or s.zero_stage is not None or s.method or "train" in s.intents):
        extra.append(SPEED_TERMS)
    seen = {w.lower() for w in text.split()}
    terms: list[str] = []
    for w in (w for words in extra for w in words.split()):
        if w.lower() not in seen:
            seen.add(w.lower())
            terms.append(w)
    extra = terms
    # (not on a time question: the framework words would pull in other notes' training sections)
    if not s.intents & {"inference", "time"} and (s.method or "train" in s.intents) and not s.notes_cover:
        extra.append(s.framework or "training 训练 LLaMA-Factory MindSpeed-LLM")
    return " ".join([text, *extra]).strip() or s.question[:NOTE_QUERY_CHARS]


def beyond_tables(s: Slots, e: Effective) -> bool:
    """The vLLM tables give the fewest cards and a tested length for the published checkpoint; a longer
    context, a precision, concurrency, utilisation, the user's own devices, users or KV cache need the estimate."""
    return bool((s.seq_len or 0) > TABLE_MAX_LEN or s.weight_bits not in (None, 16) or s.concurrency or s.gpu_util
                or e.devices or s.intents & {"capacity", "kv", "memory"})


def is_training_question(s: Slots) -> bool:
    """Cards/ZeRO/GA for training: asked directly, or nothing else was asked. "How many cards to serve
    X" is an inference question unless training is named too."""
    if "inference" in s.intents and not ("train" in s.intents or s.method):
        return False
    others = s.intents & OTHER_INTENTS
    if "troubleshoot" in others and "problem" not in s.intents and s.method and asks_verdict(s):
        # "2×RTX 4090, qwen2.5-7b lora 4096 bf16, 行不行": a topic word (bf16, flash-attn) beside a job whose fit is asked
        # brings the notes after the plan, not instead of it
        others -= {"troubleshoot"}
    return bool(s.intents & TRAINING_INTENTS) or not others


# Prices and billing: no table or note has them (the notes search then says so). (A cost counted in memory units, "how much
# KV does one token cost in bf16 (KiB)?", is an amount of memory.)
COST = re.compile(r"(?<![a-z])(?:costs?(?![a-z])(?![^.?!]{0,30}(?:(?<![a-z])(?:bytes?|[kmgt]i?b)(?![a-z])|memory|显存))|price|pricing|billing|per\s+hour|"
                  r"how\s+much\s+money|cheap(?:er|est)?)(?![a-z])|"
                  r"价格|费用|多少钱|计费|收费|单价|便宜|划算|性价比")
def config_format(s: Slots) -> str:
    """The file asked for, in the framework of the conversation: "the yaml" after switching to MindSpeed-LLM
    means its launch variables (it has no YAML); "the env" with LLaMA-Factory means its launch script."""
    fmt = s.config_format or "llamafactory_yaml"
    if s.framework == "MindSpeed-LLM" and fmt in ("deepspeed_json", "llamafactory_yaml"):
        return "mindspeed_env"
    if s.framework == "LLaMA-Factory" and fmt == "mindspeed_env":
        return "launch"
    return fmt


SIZING_INTENTS = {"cards", "zero", "ga", "memory", "config", "inference", "tp", "capacity", "kv"}  # "time" alone: the formula note


def asks_for_sizing(s: Slots) -> bool:
    """A sizing question (cards, ZeRO, memory, a config...) or a bare statement of devices, with no
    problem to look up in the notes: it cannot be answered without a model."""
    if s.intents & {"troubleshoot", "compare", "list_models", "list_hardware", "time"} or COST.search(s.question.lower()):
        return False
    # "cards" is read from any device word ("Can I run MindSpeed-LLM on 32GB NPUs?"): a count asked makes it sizing
    counted = ASKS_COUNT.search(s.question.lower())
    return bool(s.intents & (SIZING_INTENTS - (set() if counted else {"cards"})) or s.devices or s.nodes)


class Router:
    def __init__(self, arg_fields: dict[str, set[str]]):
        """arg_fields: tool name -> argument names it accepts (tools not registered are skipped)."""
        self.arg_fields = arg_fields

    def call(self, tool: str, /, **args) -> list[Call]:
        """A call of ``tool`` with the arguments its schema accepts (None values left out)."""
        if tool not in self.arg_fields:
            return []
        fields = self.arg_fields[tool]
        return [Call(tool, {k: v for k, v in args.items() if v is not None and k in fields})]

    # -- round one -----------------------------------------------------------------------------
    def first(self, s: Slots) -> list[Call]:
        """Round one: the first rule of FIRST_ROUTES that applies to the frame gives the calls."""
        for applies, route in FIRST_ROUTES:
            if applies(s):
                calls = route(self, s)
                if s.unknown_model and s.params_b and calls and not any(c.name == "resolve_model" for c in calls):
                    calls = self.resolve_unknown(s) + calls  # said not in the catalog, then the estimate from the size said
                if route in ANSWERS_BESIDE_QUANTITIES and not any(c.name == "derive_quantity" for c in calls):
                    # "how many DIE is that, and what DP at TP 8 PP 2?": each quantity asked is worked out beside the part's
                    # facts or the notes, and leads where it was asked (quantity_blocks.py)
                    calls = self.quantity_calls(s, effective(s)) + calls
                return unique(calls)
        return []

    def resolve_unknown(self, s: Slots) -> list[Call]:
        return self.call("resolve_model", name=s.unknown_model)

    def refused(self, s: Slots) -> list[Call]:
        """Bad input or a layout the framework refuses: said, nothing sized on it; a model the catalog lacks beside it is
        looked up; the layouts the refusal offers instead are sized first (offered_layouts)."""
        return self.resolve_unknown(s) if s.unknown_model else self.offered_layouts(s)

    def offered_layouts(self, s: Slots) -> list[Call]:
        """Each layout a refusal offers, estimated on the user's devices (a divisibility rule says nothing of memory), and
        the vendor's minimum for the job it is held against, so the answer offers only what fits and says the rest."""
        e = effective(s)
        if not (s.layout_offers and s.model and e.devices) or s.problems != s.layout_refused:
            return []  # bad input besides the layout ("-8 cards"): nothing is sized
        calls: list[Call] = []
        if s.layout_task == "serving":
            for tp, pp in s.layout_offers:
                calls += self.call("estimate_inference", **self.model_args(s), max_model_len=e.seq_len, hardware=e.hardware,
                                   gpu_memory_utilization=s.gpu_util or 0.9, weight_bits=s.weight_bits,
                                   kv_cache_dtype=self.kv_dtype(s, e), max_devices=tp * pp, largest_layout=True)
            return calls + (self.call("inference_min_cards", model=s.model) if "vllm" in e.facts.vendor_tables else [])
        for tp, pp in s.layout_offers:
            calls += self.call("estimate_training_memory", **self.model_args(s), method=s.method or "lora", stage=s.stage,
                               seq_len=e.seq_len, devices=e.devices, tp=tp, pp=pp, cp=s.settings.get("cp"),
                               hardware=e.hardware, framework="MindSpeed-LLM", **batch_args(s), **trainer_args(s))
        if e.part and (strategy := table_strategy(s.method or "lora")):
            calls += self.call("min_cards", model=s.model, strategy=strategy, seq_len=e.seq_len, hardware=e.part)
        return calls

    def list_hardware(self, s: Slots) -> list[Call]:
        # "why does Snt9B23 count in DIE, and how many per node?": the catalog's facts, and the notes for the why
        why = self.notes(s) if WHY_ASKED.search(s.question.lower()) else []
        return self.call("list_hardware") + why

    def table_rows(self, s: Slots) -> list[Call]:
        """"which models in the min-card table need more than 64 cards with MindSpeed?": the table's rows that match, the
        frame's framework, method, length and part narrowing them (the minimum-card table's part: Snt9B unless one is named)."""
        q = s.table_query
        assert q is not None
        args: dict[str, Any] = {"table": q.table, "seq_len": s.seq_len, "whole_model": q.whole_model or None, "family": q.family,
                                "model": q.model, "arch": q.arch,
                                "params_b": {"op": q.params_b[0], "value": q.params_b[1]} if q.params_b else None}
        for name in ("zero_stage", "offload", "grad_accum", "grad_accum_not", "supported", "vllm_table", "extreme"):
            args[name] = getattr(q, name)
        for name in ("cards", "nodes", "per_node", "versus"):
            args[name] = getattr(q, name).model_dump(exclude_none=True) if getattr(q, name) else None
        if q.table != "vllm":
            args["strategy"] = table_strategy(s.method)
        if q.table == "min_cards":
            args["framework"] = q.framework or (None if len(s.frameworks) > 1 else s.framework)
            args["hardware"] = effective(s).part or "Snt9B"
            if q.versus:  # "more MindSpeed cards than LF cards": MindSpeed's rows, each against its LF pair
                args[q.versus.against] = q.this
        if q.table == "vllm" and s.memory_gb in (32, 64):
            args["memory_gb"] = s.memory_gb
        rows = self.call("find_table_rows", **args)
        # "…, and does qwen3-30b-a3b?": the model's own question is answered after the rows, as any question on it
        return rows + (self.each_variant(s) if s.table_then_model else [])

    def list_models(self, s: Slots) -> list[Call]:
        """"which models does MindSpeed-LLM support (for LoRA)": the framework's supported rows only;
        a family alone ("qwen 32b" unknown, "llama models"): the family's rows."""
        if "inference" in s.intents and s.devices and not s.family:  # "哪些模型要 4 张卡起步 (vLLM 表)": the table's rows at that count
            return self.call("list_models", in_tables_only=True, serving_cards=s.devices)
        size = {"op": s.params_bound[0], "value": s.params_bound[1]} if s.params_bound else None  # "models under 10B"
        if s.intents:
            return self.call("list_models", family=s.family, in_tables_only=not (s.family or s.model_arch or size), framework=s.framework,
                             strategy=table_strategy(s.method) if s.framework else None, arch=s.model_arch, params_b=size)
        return self.call("list_models", family=s.family, arch=s.model_arch, params_b=size)

    def notes(self, s: Slots) -> list[Call]:
        focus = (s.topic_text or s.question)[:NOTE_QUERY_CHARS]
        if s.procedures_named and not ASKS_WAY.search(focus) and not ASKS_SPECIFIC.search(focus):
            # a procedure named ("and after training, back to HF?") asks how to do it: the lead goes on to the fact that
            # says what to do, not only that it is not done by default
            focus = ("how to " if s.lang == "en" else "怎么 ") + focus
        # a question of several ("Pending 怎么排查？另外公网怎么访问？"): each sub-question searched on its own words too, so
        # each gets its own lead (compose.py part_leads); the search of the whole question backs them
        worked = quantity_parts(s)  # a part asking a quantity is worked out, not searched
        each = [c for p in subquestions.asked_apart(s.question) if p not in worked
                for c in self.call("search_notes", query=note_query(s.model_copy(update={  # the part's own words, not the other parts' topics
                    "question": p.text, "topic_text": "", "procedures_named": set(), "procedure_titles": ""})),
                                   limit=NOTE_HITS, lang=s.lang, focus=p.text)]
        return self.call("search_notes", query=note_query(s), limit=NOTE_HITS, lang=s.lang, focus=focus) + each

    def signature_notes(self, s: Slots) -> list[Call]:
        """A pasted error message whose signature names a note section (signatures.toml): the search that returns it,
        the user's question as the focus."""
        seen = error_signature.read_turn(s.question, s.howto_before)
        assert seen is not None
        return self.call("search_notes", query=error_signature.query(seen, s.lang), limit=NOTE_HITS, lang=s.lang,
                         focus=s.question[:NOTE_QUERY_CHARS])

    def time_only(self, s: Slots) -> list[Call]:
        """"10亿 token，8 张卡，TPS 1500": the vendor formula needs no model, and the formula note beside it."""
        return self.time_calls(s, effective(s)) + self.notes(s)

    def what_fits(self, s: Slots, e: Effective, goal: str) -> list[Call]:
        """The largest model or the longest context on the user's devices (one node's worth unless said)."""
        training = not serving(s)
        model = self.model_args(s) if goal != "model" else {}
        if goal == "context" and s.model and (variant := variant_of(s.model_text or "")):
            model = {"model": f"{s.model}-{variant}"}  # "glm-4-9b-chat": the chat config's own limit caps the search
        # the longest training context on Ascend: MindSpeed-LLM's context parallelism splits a sequence over cards
        # and goes further than LLaMA-Factory, so with no framework named both are searched
        both = training and goal == "context" and not (s.framework or s.stack) and bool(e.facts.vendor_tables)
        frameworks = [None, "MindSpeed-LLM"] if both else [(s.framework or s.stack) if training else None]
        # serving at a stated TP ("vllm tp 4"): one instance of that layout, on the user's devices or on tp of them
        trainer = trainer_args(s) if training else {"gpu_memory_utilization": s.gpu_util, "weight_bits": s.weight_bits,
                                                    "kv_cache_dtype": self.kv_dtype(s, e), "tp": s.tp,
                                                    # "max-model-len for 16 concurrent": the length all of them hold at once
                                                    "concurrency": s.concurrency if goal == "context" else None}
        devices = e.devices or (s.tp if s.tp and not training else 1)
        return [c for fw in frameworks for c in self.call(
            "what_fits", goal=goal, workload="training" if training else "inference", hardware=e.hardware,
            devices=max(devices, s.tp or 1) if not training else devices, method=(s.method or "lora") if training else None, framework=fw,
            seq_len=e.seq_len if goal in ("model", "batch") else None, **model, **trainer)]

    def largest_model(self, s: Slots) -> list[Call]:
        return self.what_fits(s, effective(s), "model")

    def max_context(self, s: Slots, e: Effective) -> list[Call]:
        return self.what_fits(s, e, "context")

    def pasted_log_calls(self, s: Slots) -> list[Call]:
        """A pasted log's own figures are derived in the answer with no tool; a PEFT parameter line of a named model is
        also set against the catalog: the adapter parameters of one rank on each target set PEFT uses (pasted_log)."""
        if isinstance(pasted_log.read(s.question), pasted_log.AdapterLine) and s.model:
            return [c for targets in pasted_log.ADAPTER_TARGETS
                    for c in self.call("derive_quantity", quantity="lora_params", model=s.model, lora_rank=1, lora_targets=targets)]
        return []

    def model_context(self, s: Slots) -> list[Call]:
        """The model's own context: the catalog entry of the variant the user wrote ("glm-4-9b-chat", "-Instruct")."""
        variant = variant_of(s.model_text or "")
        return self.call("resolve_model", name=f"{s.model}-{variant}" if variant else s.model)

    def each_variant(self, s: Slots) -> list[Call]:
        """"llama3-8b vs qwen2.5-7b lora", "LLaMA-Factory vs MindSpeed-LLM", "A100 vs 910B": one set of sizing
        calls per model, framework and part compared (comparing them is not comparing every catalog part)."""
        return [c for one in s.variants() for c in self.with_model(one)]

    def with_model(self, s: Slots) -> list[Call]:
        """A model (or a size) is named: every rule of MODEL_ROUTES that applies adds its calls, in order."""
        e = effective(s)
        if asks_max_batch(s):
            return self.what_fits(s, e, "batch")
        if asks_max_context(s) and serving(s) and "vllm" in e.facts.vendor_tables and s.model and e.devices:
            # "what max context on my 8 910B?": the search on the user's devices leads, the vLLM tables' tested
            # lengths beside it
            return self.max_context(s, e) + self.call("inference_min_cards", model=s.model)
        if asks_max_context(s) and not (serving(s) and "vllm" in e.facts.vendor_tables and s.model):
            # one search over the planning tools answers it, no default-length plan beside it; on Ascend the
            # vLLM tables' tested max-model-len comes first (round two searches when they have no row)
            if serving(s) and "cards" in s.intents and not e.devices:
                return self.estimate_inference(s, e)  # "how many cards, and what max context": the count first (round two)
            return self.max_context(s, e)
        return [c for applies, route in MODEL_ROUTES if applies(s) for c in route(self, s, e)]

    def quantity_calls(self, s: Slots, e: Effective) -> list[Call]:
        """The quantities asked besides a device count (quantities.toml): derive_quantity for each, in the order asked."""
        return [c for row in quantity.asked(s) for c in self.call("derive_quantity", **quantity.call_args(s, e, row))]

    def quantity_only(self, s: Slots) -> list[Call]:
        """Only such quantities are asked: they are the answer (the cards a deadline needs are estimate_training_time's,
        the vendor's formula, with its minimum-card row: route time_calls)."""
        return self.quantity_calls(s, effective(s))

    def example_calls(self, s: Slots, e: Effective) -> list[Call]:
        """The example scripts of the model, narrowed to the method and length the user said."""
        return self.call("mindspeed_example", model=s.model, method=table_strategy(s.method), seq_len=s.seq_len)

    def compare_calls(self, s: Slots, e: Effective) -> list[Call]:
        return self.call("compare_hardware", **self.model_args(s), method=s.method or "lora", seq_len=e.seq_len,
                         stage=s.stage, framework=s.framework)

    def note_calls(self, s: Slots, e: Effective) -> list[Call]:
        return self.notes(s)

    def part_note_calls(self, s: Slots, e: Effective) -> list[Call]:
        """"qwen2.5-72b 部署时 max-model-len 报错怎么解决？还有 benchmark_serving 怎么跑？": each how-to part of a question
        about a model is searched in the notes on its own words, beside the model's sizing (compose.py part_leads)."""
        return [c for p in knowledge_parts(s) for c in self.call(
            "search_notes", query=note_query(s.model_copy(update={"question": p.text, "topic_text": "", "procedures_named": set(),
                                                                   "procedure_titles": ""})), limit=NOTE_HITS, lang=s.lang, focus=p.text)]

    @staticmethod
    def shape_name(s: Slots) -> str | None:
        return f"{s.params_b:g}B" if s.params_b else None

    @staticmethod
    def model_args(s: Slots) -> dict[str, Any]:
        """A catalog model by name, or a raw size ("a 13B model") as params_b for the estimator, with the
        user's shape fields ("80 layers, hidden 8192") over the inferred ones."""
        if s.model:
            return {"model": s.model}
        return {"params_b": s.params_b, "shape": s.shape} if s.shape else {"params_b": s.params_b}

    def training_calls(self, s: Slots, e: Effective) -> list[Call]:
        calls: list[Call] = []
        if s.model and e.part:
            # the recipe table's "N*Ascend" counts Snt9B cards and Snt9B23 DIE alike (tables_caveats.md), so it
            # sizes both table parts; on any other part it is read only when asked for
            if s.framework != "MindSpeed-LLM":
                for st in e.strategies:
                    calls += self.call("training_recipe", model=s.model, strategy=st, seq_len=e.seq_len)
            if e.strategies:
                calls += self.call("min_cards", model=s.model, strategy=e.strategies[0] if len(e.strategies) == 1 else None,
                                   seq_len=e.seq_len, hardware=e.part)
        # the estimate beside the tables (they may disagree), or instead of them when they have no row;
        # with the user's device count, also the plan within it: "needed" against "what you have"
        for method in [s.method] if s.method else e.strategies:
            # a layout the user states on their devices is estimated as given (layout_calls); a plan of its own within
            # them would answer with another layout and another GA beside it
            for cap in ([None, e.devices] if e.devices and not stated_layout(s) else [None]):
                calls += self.call("plan_training", **self.model_args(s), method=method, stage=s.stage, seq_len=e.seq_len,
                                   hardware=e.hardware, framework=s.framework or s.stack, max_devices=cap, **on_all(s, cap), **batch_args(s),
                                   **trainer_args(s), **(stage_args(s) if not asks_verdict(s) or s.settings.get("fsdp") else {}))
        if "tp" in s.intents and not (s.tp or s.pp) and e.devices and s.framework != "MindSpeed-LLM" and s.model:
            # "TP PP 怎么切": TP and PP are MindSpeed-LLM's; its split within the devices beside the framework's own plan
            calls += self.call("plan_training", **self.model_args(s), method=s.method or "lora", stage=s.stage, seq_len=e.seq_len,
                               hardware=e.hardware, framework="MindSpeed-LLM", max_devices=e.devices, **on_all(s, e.devices),
                               **batch_args(s))
        for stage in stages_offered(s) if e.devices else []:  # "ZeRO-2 or ZeRO-3, which?": each stage on the devices
            calls += self.call("estimate_training_memory", **self.model_args(s), method=s.method or "lora", stage=s.stage,
                               seq_len=e.seq_len, devices=e.devices, zero_stage=stage, offload=False,
                               hardware=e.hardware, framework=s.framework or s.stack, **batch_args(s), **trainer_args(s))
        named = named_setting(s)
        if named and e.devices and not asks_memory(s):  # "zero2 行不行 on my 8 GPUs": that setting, estimated on them
            calls += self.call("estimate_training_memory", **self.model_args(s), method=s.method or "lora", stage=s.stage,
                               seq_len=e.seq_len, devices=e.devices, zero_stage=named.zero_stage, offload=named.offload,
                               hardware=e.hardware, framework=s.framework or s.stack, **batch_args(s), **trainer_args(s))
        return calls

    def host_ram_calls(self, s: Slots, e: Effective, fallback: bool = False) -> list[Call]:
        """"How much host RAM?": the offload setting (ZeRO-3 unless another stage is named) on the user's devices,
        or on one node, so the answer has a host-RAM figure per node to lead with. ``fallback``: the user judged a
        setting without offload and asks the host RAM in case they need it, so their "no offload" does not stop it."""
        if (s.offload is False and not fallback) or not (s.model or s.params_b):
            return []
        # CPU offload is DeepSpeed's: on a MindSpeed-LLM job (which keeps its states on the devices) the figure is the
        # one LLaMA-Factory's ZeRO-3 offload would need on the same devices (capacity.host_ram_first says so)
        framework = "LLaMA-Factory" if (s.framework or s.stack) == "MindSpeed-LLM" else s.framework or s.stack
        return self.call("estimate_training_memory", **self.model_args(s), method=s.method or "lora", stage=s.stage,
                         seq_len=e.seq_len, devices=e.devices or e.per_node, zero_stage=s.zero_stage or 3,
                         offload=True, hardware=e.hardware, framework=framework, **batch_args(s), **trainer_args(s))

    def time_calls(self, s: Slots, e: Effective) -> list[Call]:
        """Training time needs a token count and a model (or size) or a measured TPS (the vendor formula has no
        model term); the device count defaults to one node."""
        devices = e.devices or e.per_node
        tps, speedup = tps_per_device(s, devices)
        length = sample_length(s)
        if not (s.model or s.params_b or tps) or not (s.tokens or (s.samples and length)):
            return []
        # a follow-up changing the count of a job timed before ("如果只有 32 张呢"): the minimum-card row it is held against
        # (timing.py below_floor); a first question stating its cards asks no count, so no table is looked up
        floor = self.call("min_cards", model=s.model, strategy=e.strategies[0] if len(e.strategies) == 1 else None,
                          seq_len=e.seq_len, hardware=e.part) if (
            s.model and e.part and e.strategies and s.origin("model") == "conversation"
            and s.origin("devices") in ("said", "conversation")) else []
        if floor and s.framework in (None, "LLaMA-Factory") and len(e.strategies) == 1:  # the recipe table's row may allow fewer
            floor += self.call("training_recipe", model=s.model, strategy=e.strategies[0], seq_len=e.seq_len)
        return self.call("estimate_training_time", **self.model_args(s), tokens=s.tokens,
                         samples=s.samples if not s.tokens else None, seq_len=length if s.samples and not s.tokens else None,
                         epochs=s.epochs, devices=devices, hardware=e.hardware, tps=tps,
                         deadline_hours=s.settings.get("deadline_hours"), speedup=speedup) + floor

    def memory_calls(self, s: Slots, e: Effective) -> list[Call]:
        """A given setup (ZeRO stage, device count) is estimated as asked; otherwise the planner picks
        the setting and its result carries the memory breakdown."""
        if stated_layout(s):  # "TP 8 PP 2 on 16 cards, memory per card?": that layout's memory (and host RAM if asked)
            return (self.host_ram_calls(s, e) if asks_host_ram(s) else []) + self.layout_calls(s, e)
        if s.zero_stage is None and not s.offload:
            host = self.host_ram_calls(s, e) if asks_host_ram(s) else []  # "host RAM?": the offload setting's need too
            return host + self.call("plan_training", **self.model_args(s), method=s.method or "lora", stage=s.stage,
                             seq_len=e.seq_len, hardware=e.hardware, framework=s.framework or s.stack, max_devices=e.devices,
                             **on_all(s, e.devices), **batch_args(s), **trainer_args(s))
        named = named_setting(s)  # "zero3 不开 offload 放得下吗": the setting judged, offload as the judgement says
        offload = named.offload if named else s.offload
        judged: list[Call] = []
        # a yes/no on the user's devices: what fits them, and how many the job needs, beside it (not for the host RAM
        # of an offload setting the user has chosen: that figure is the answer)
        if named and e.devices and asks_verdict(s) and not (named.offload and asks_host_ram(s)):
            if s.model and e.part and s.framework != "MindSpeed-LLM" and s.method:  # the vendor's run of this job, if any
                judged += self.call("training_recipe", model=s.model, strategy=table_strategy(s.method), seq_len=e.seq_len)
            for cap in (e.devices, None):
                judged += self.call("plan_training", **self.model_args(s), method=s.method or "lora", stage=s.stage,
                                    seq_len=e.seq_len, hardware=e.hardware, framework=s.framework or s.stack, max_devices=cap,
                                    **on_all(s, cap),
                                    **batch_args(s), **trainer_args(s), **(stage_args(s) if s.settings.get("fsdp") else {}))
            if not offload and asks_host_ram(s):  # "…, and host RAM if I need offload": the offload setting's need too
                judged += self.host_ram_calls(s, e, fallback=True)
        judged += self.offload_needed_calls(s, e)
        for stage in stages_offered(s) if e.devices else []:  # "zero3 会更好吗" after ZeRO-2: the other stage on the devices
            if stage != s.zero_stage or offload:
                judged += self.call("estimate_training_memory", **self.model_args(s), method=s.method or "lora", stage=s.stage,
                                    seq_len=e.seq_len, devices=e.devices, zero_stage=stage, offload=False, hardware=e.hardware,
                                    framework=s.framework or s.stack, **batch_args(s), **trainer_args(s))
        return self.call("estimate_training_memory", **self.model_args(s), method=s.method or "lora", stage=s.stage,
                         seq_len=e.seq_len, devices=e.devices, offload=offload,  # offload needs a stage: ZeRO-3's
                         zero_stage=s.zero_stage if s.zero_stage is not None or not offload else 3,
                         hardware=e.hardware, framework=s.framework or s.stack, **batch_args(s), **trainer_args(s)) + judged

    def offload_needed_calls(self, s: Slots, e: Effective) -> list[Call]:
        """"Do I even need the offload?" (asked beside a memory question or another part, e.g. the global batch): the same
        stage without offload, on the user's devices."""
        if not (asks_offload_needed(s) and e.devices):
            return []
        return self.call("estimate_training_memory", **self.model_args(s), method=s.method or "lora", stage=s.stage,
                         seq_len=e.seq_len, devices=e.devices, offload=False, zero_stage=s.zero_stage if s.zero_stage is not None else 3,
                         hardware=e.hardware, framework=s.framework or s.stack, **batch_args(s), **trainer_args(s))

    def layout_calls(self, s: Slots, e: Effective) -> list[Call]:
        """The user's own TP x PP (x CP) on their devices (the reader checked that it divides them): its memory per device.
        "With TP 8, what PP?" (conversation.solved_slot): each value of the asked slot that divides the devices left by
        the stated one, so the answer can name the smallest that fits."""
        calls: list[Call] = []
        for tp, pp in layout_candidates(s, e.devices or 0, e.per_node):
            calls += self.call("estimate_training_memory", **self.model_args(s), method=s.method or "lora", stage=s.stage,
                               seq_len=e.seq_len, devices=e.devices, tp=tp, pp=pp, cp=s.settings.get("cp"), ep=s.settings.get("ep"),
                               hardware=e.hardware, framework=s.framework or "MindSpeed-LLM", **batch_args(s), **trainer_args(s))
        if calls and proposal.proposes_layout(s):  # "TP8 PP2 行吗": what the new split needs besides memory, from the notes
            calls += self.call("search_notes", query=proposal.SPEC.reconvert[s.lang], limit=1, lang=s.lang, focus=proposal.SPEC.reconvert[s.lang])
        return calls

    def inference_calls(self, s: Slots, e: Effective) -> list[Call]:
        if s.model and "vllm" in e.facts.vendor_tables:
            # the vLLM tables' memory columns: the one the user names, else the part's when it is the 32 GB one
            mem = s.memory_gb if s.memory_gb in TABLE_MEMORY_GB else (32 if e.facts.memory_gb == 32 else None)
            # "32G 的卡要几张？64G 的呢": each of the tables' memory columns named is looked up
            sizes: list[int | None] = [m for m in s.memory_sizes if m in TABLE_MEMORY_GB] if len(s.memory_sizes) > 1 else []
            calls = [c for m in (sizes or [mem]) for c in self.call("inference_min_cards", model=s.model,
                                                                     max_model_len=s.seq_len, memory_gb=m)]
            # the longest context: searched if no row; a TP the user states ("would tp=2 be enough?"): that layout estimated
            if (beyond_tables(s, e) or s.tp or "instances" in s.intents) and not asks_max_context(s):
                calls += self.estimate_inference(s, e)
            return calls
        return self.estimate_inference(s, e)

    @staticmethod
    def kv_dtype(s: Slots, e: Effective) -> str | None:
        """The KV cache precision as the part's runtime has it: an 8-bit KV cache asked in the other runtime's dtype ("int8
        kv cache" on a GPU, "fp8" on Ascend) is that runtime's own 8-bit cache (said in the answer, compose.read_as)."""
        return runtime_kv_dtype(s.kv_cache_dtype, e.facts.kind, s.question)

    def estimate_inference(self, s: Slots, e: Effective) -> list[Call]:
        """The user's precision (only when stated), concurrency, utilisation and devices. "How many users
        can 8 cards serve" asks for the largest layout within the user's devices (largest_layout), with
        the sequences it holds."""
        # the KV cache asked on the user's devices with no length of theirs ("how much KV cache do I get on 8 GPUs?",
        # "how many tokens fit in the KV cache on my 2 cards"): the pool of the largest layout within them, as vLLM given
        # all of them would have it; a yes/no on the KV cache ("kv cache 够吗") is judged on the layout that fits
        pool = (("kv" in serving_parts_asked(s.question) and bool(s.devices) and not s.seq_len)
                or ("kv" in s.intents and "cards" not in s.intents)) and not asks_verdict(s)
        probe = bool(("capacity" in s.intents or pool) and not s.concurrency and e.devices)
        # "how many instances fit on the node": one instance is sized (on the devices said of one, else the fewest); the
        # writer divides the devices by it
        one = s.per_instance or s.tp if "instances" in s.intents else None
        # "bf16 and int8 weights": one estimate per precision named, in the order typed
        return [c for bits in (list[int | None](s.weight_bits_each) or [s.weight_bits]) for c in self.call(
            "estimate_inference", **self.model_args(s), max_model_len=e.seq_len, hardware=e.hardware,
            gpu_memory_utilization=s.gpu_util or 0.9, concurrency=s.concurrency,
            weight_bits=bits, kv_cache_dtype=self.kv_dtype(s, e),
            max_devices=one if "instances" in s.intents else s.tp or e.devices,
            largest_layout=(bool(one) if "instances" in s.intents else probe or bool(s.tp)) or None,  # "tp=8 on 8 cards": TP 8
            # "tp 4 pp 2": that layout itself (a TP x PP the layout rules refused is said instead, before any call)
            given_tp=s.tp if s.tp and s.pp else None, given_pp=s.pp if s.tp and s.pp else None,
            # "--max-num-seqs 128": the sequences its profiling run samples; the answer sets the cap against the room
            max_num_seqs=(s.file_values or {}).get("max_num_seqs"))]

    def shared_card_calls(self, s: Slots, e: Effective) -> list[Call]:
        """"Could both share one card?" (two models named over two turns): each served alone on one device at its own
        smallest footprint (one sequence), so the answer can add the two up against the card (shared_card.py)."""
        return [c for model in (s.shares_with, s.model) for c in self.call(
            "estimate_inference", model=model, max_model_len=e.seq_len, hardware=e.hardware,
            gpu_memory_utilization=s.gpu_util or 0.9, weight_bits=s.weight_bits, kv_cache_dtype=self.kv_dtype(s, e), max_devices=1)]

    def config_calls(self, s: Slots, e: Effective) -> list[Call]:
        if not s.model:  # a config names the model (its Hugging Face path, chat template): a raw size gets the plan
            return self.training_calls(s, e)
        if stated_layout(s) and self.config_framework(s) == "MindSpeed-LLM":
            # the TP x PP the thread states on its devices ("按这个方案把环境变量写出来" after TP 8 PP 4 on 32 DIE): that layout
            return self.generate_config(s, e, tp=s.tp, pp=s.pp, devices=e.devices)
        if s.devices and not s.nodes and s.zero_stage is None:  # "on 2 nodes" in a config request is its nnodes
            # the user's device limit (said now or earlier): plan within it first; the config follows that plan (round two)
            # ("the ds_config with that offload": the plan keeps the offload the conversation chose)
            return self.call("plan_training", model=s.model, method=s.method or "lora", stage=s.stage, seq_len=e.seq_len,
                             hardware=e.hardware, framework=self.config_framework(s), max_devices=e.devices, **batch_args(s),
                             **stage_args(s))
        # a stage said with the user's devices ("8 张卡 ds_z2" pasted earlier): the file is for those devices, so the
        # global batch derived from them keeps the user's accumulation
        devices = e.devices if s.devices and not s.nodes and s.zero_stage is not None else None
        return self.generate_config(s, e, zero_stage=s.zero_stage, offload=s.offload, nnodes=s.nodes, devices=devices)

    @staticmethod
    def config_framework(s: Slots) -> str:
        return s.framework or ("MindSpeed-LLM" if s.config_format == "mindspeed_env" else "LLaMA-Factory")

    def generate_config(self, s: Slots, e: Effective, **setting: Any) -> list[Call]:
        return self.call("generate_config", model=s.model, method=s.method or "lora", stage=s.stage, seq_len=e.seq_len,
                         hardware=e.hardware, framework=self.config_framework(s), format=config_format(s),
                         **{**batch_args(s), **file_args(s, self.config_framework(s)), **setting})

    def config_within_devices(self, s: Slots, e: Effective, done: list[Done]) -> list[Call]:
        """The config for the user's devices: the vendor table's plan when its count fits them (the config
        follows the table, as the answer does); else the plan that fits, spread over all the user's devices
        (a ZeRO stage or a TP/PP layout that fits on fewer devices fits on more, only faster)."""
        if not asks_config(s) or not s.model or any(d.name == "generate_config" for d in done):
            return []
        for d in done:
            if d.name == "plan_training" and d.ok and d.args.get("max_devices") and d.result.get("fits"):
                p, limit = d.result, int(d.args["max_devices"])
                if table_fits(p, limit):
                    return self.generate_config(s, e)
                mindspeed = p.get("framework") == "MindSpeed-LLM"
                return self.generate_config(s, e, zero_stage=None if mindspeed else p.get("zero_stage"),
                                            offload=None if mindspeed else p.get("offload"),
                                            devices=spread(p, limit, mindspeed),
                                            tp=p.get("tp") if mindspeed else None, pp=p.get("pp") if mindspeed else None)
        return self.generate_config(s, e, zero_stage=s.zero_stage, offload=s.offload, nnodes=s.nodes)

    # -- round two -----------------------------------------------------------------------------
    def more(self, s: Slots, done: list[Done]) -> list[Call]:
        """Round two: what the first results call for, one handler per tool (MORE_ROUTES)."""
        e = effective(s)
        calls: list[Call] = self.config_within_devices(s, e, done)
        for d in done:
            handler = MORE_ROUTES.get(d.name)
            if handler:
                calls += handler(self, own_frame(s, d), e, d, done)
        return calls

    def last(self, s: Slots, done: list[Done]) -> list[Call]:
        """Round three, one chain only: "最长能开多少" with no devices said and no vendor row on the memory asked — round two
        found the count the model needs (estimate_inference), so the longest context is searched on that count."""
        if not asks_max_context(s) or effective(s).devices or any(d.name == "what_fits" for d in done) or (
                "cards" in s.intents or len(s.memory_sizes) > 1):
            return []  # (a count asked too, or two memory columns: the tables' rows and the count lead)
        if any(d.name == "inference_min_cards" and d.ok and d.args.get("memory_gb") == s.memory_gb
               and any(row.get("supported") for row in d.result.get("rows") or []) for d in done):
            return []  # the vendor's row on the memory asked gives the tested length
        count = next((d for d in reversed(done) if d.name == "estimate_inference" and d.ok and d.result.get("fits")
                      and not d.args.get("max_devices")), None)
        return self.max_context(s, replace(effective(s), devices=int(count.result["devices"]))) if count else []

    def family_of_unknown(self, s: Slots, e: Effective, d: Done, done: list[Done]) -> list[Call]:
        """"qwen3": not one model but the start of a family's names: list the whole family."""
        if not d.ok and is_family_prefix(d.args.get("name", ""), d.error.get("valid") or []):
            return self.call("list_models", family=d.args["name"], arch=s.model_arch,
                             params_b={"op": s.params_bound[0], "value": s.params_bound[1]} if s.params_bound else None)  # "dense qwen3 models": only those
        return []

    def plan_followed(self, s: Slots, e: Effective, d: Done, done: list[Done]) -> list[Call]:
        """Round two of a plan: another framework when nothing fits (plan_alternative), or the layouts on all of the
        user's devices when a MindSpeed-LLM plan within them splits fewer (all_devices_layouts)."""
        return self.plan_alternative(s, e, d, done) + self.all_devices_layouts(s, e, d)

    def all_devices_layouts(self, s: Slots, e: Effective, d: Done) -> list[Call]:
        """A MindSpeed-LLM plan within the user's devices whose TP x PP x CP does not divide them (16 cards of TP 8 x PP 2
        within 24): data parallel on the rest is no layout Megatron starts, so the layouts that do divide all of them
        (estimate/layout.py: heads, KV heads, layers, one node per TP group) are estimated, the most model parallel up to
        the plan's first; the answer offers the first that fits."""
        r = d.result
        have = int(d.args.get("max_devices") or 0)
        if not (d.ok and r.get("fits") and r.get("framework") == "MindSpeed-LLM" and have == e.devices and have > int(r["devices"])):
            return []
        tp, pp, cp = int(r.get("tp") or 1), int(r.get("pp") or 1), int(r.get("cp") or 1)
        if have % (tp * pp * cp) == 0:
            return []  # the plan's split divides them: data parallel on all of them is the same setting
        shape = r.get("shape") or {}
        kv = shape.get("heads") if shape.get("mla") else shape.get("kv_heads")
        options = sorted(((t, p) for t, p, _ in layout.layouts(have, shape.get("heads"), kv, shape.get("layers"), e.per_node or 8, cp)
                          if t * p <= tp * pp), key=lambda o: (-o[0] * o[1], -o[0]))[:2]  # most model parallel, TP first
        drop = ("max_devices", "global_batch", "grad_accum", "zero_stage", "offload", "tightest")
        args = {k: v for k, v in d.args.items() if k not in drop}
        return [c for t, p in options for c in self.call(
            "estimate_training_memory", **args, devices=have, tp=t, pp=p, cp=cp if cp > 1 else None,
            grad_accum=s.grad_accum, global_batch=None)]

    def plan_alternative(self, s: Slots, e: Effective, d: Done, done: list[Done]) -> list[Call]:
        """Nothing fits with DeepSpeed (no framework named): for pt/sft with full or LoRA the Megatron layout's TP/PP/CP
        (MindSpeed-LLM on Ascend, Megatron-LM on GPUs); otherwise, for full or freeze, LoRA (the ModelArts
        MindSpeed-LLM scripts take pt/sft with full or lora only; QLoRA gets no Megatron plan)."""
        if not d.ok or d.result.get("fits") or s.framework or d.args.get("framework") is not None:
            return []
        if d.args.get("stage") in (None, *MINDSPEED_STAGES) and d.args.get("method") in MINDSPEED_METHODS:
            deepspeed = ("zero_stage", "offload")  # a ZeRO stage the user chose is no Megatron setting
            return self.call("plan_training", **{k: v for k, v in d.args.items() if k not in deepspeed}, framework="MindSpeed-LLM")
        lora = {**d.args, "method": "lora"}
        if d.args.get("method") in ("full", "freeze") and not d.args.get("max_devices") and not any(
                x.name == "plan_training" and x.args == lora for x in done):
            return self.call("plan_training", **lora)
        return []

    def setting_refused(self, s: Slots, e: Effective, d: Done, done: list[Done]) -> list[Call]:
        """A trainer setting the user named that the framework refuses with the rest ("pure_bf16" with LLaMA-Factory's
        ZeRO-3): the same estimate with the tool's own default for it; the refusal is said beside it (plans.memory)."""
        field = d.error.get("field") if not d.ok else None
        if field not in trainer_args(s) or d.args.get(field) is None:
            return []
        return self.call(d.name, **{k: v for k, v in d.args.items() if k != field})

    def inference_need(self, s: Slots, e: Effective, d: Done, done: list[Done]) -> list[Call]:
        """Nothing fits the user's devices (or none holds a sequence at that length): how many it needs. "How many
        cards and what max context": the longest context on the count the estimate needs."""
        if d.ok and asks_max_context(s) and d.result.get("fits") and not d.args.get("max_devices"):
            return self.max_context(s, replace(e, devices=int(d.result["devices"])))
        if not d.ok and d.error.get("field") == "kv_cache_dtype" and d.args.get("kv_cache_dtype"):
            # "is fp8 kv cache supported on 910B?" beside the sizing asked: the refusal is said, the estimate follows at the
            # part's own KV precision
            return self.call(d.name, **{k: v for k, v in d.args.items() if k != "kv_cache_dtype"})
        if not d.ok or not d.args.get("max_devices"):
            return []
        short = not d.result.get("max_sequences_at_len") if d.args.get("largest_layout") else not d.result.get("fits")
        if not short:
            return []
        need = {k: v for k, v in d.args.items() if k not in ("max_devices", "largest_layout")}
        return self.call("estimate_inference", **{**need, "concurrency": s.concurrency})

    def min_cards_any_length(self, s: Slots, e: Effective, d: Done, done: list[Done]) -> list[Call]:
        """No row at this length: every listed length (a shorter row bounds a longer job). No row for the model:
        the rows of a model with exactly its architecture (same memory), said as such."""
        if d.ok and not d.result.get("rows"):
            return self.call("min_cards", **{k: v for k, v in d.args.items() if k != "seq_len"})
        if not d.ok and d.error.get("code") == "no_table_row" and d.args.get("model") == s.model and not s.models:
            return [c for twin in s.same_shape[:6] for c in self.call("min_cards", **{**d.args, "model": twin})]
        return []

    def inference_table_gap(self, s: Slots, e: Effective, d: Done, done: list[Done]) -> list[Call]:
        """No row for that memory size: the rows the tables do have; no card count: the estimate."""
        calls: list[Call] = []
        listed = d.ok and any(r.get("supported") for r in d.result.get("rows") or [])
        if d.args.get("memory_gb") and not listed and not any(x.name == "inference_min_cards" and not x.args.get("memory_gb")
                                                              for x in done):
            # no row, or a '–' cell, at that memory size: the rows the tables do have (the other column)
            calls += self.call("inference_min_cards", model=s.model)
        first = next((m for m in s.memory_sizes if m in TABLE_MEMORY_GB), None)
        if first is not None and d.args.get("memory_gb") not in (None, first):
            return calls  # the second memory size asked: the estimate follows the first only
        if (not d.ok or d.result.get("cards") is None) and not any(x.name in ("estimate_inference", "what_fits") for x in done):
            # the longest context on the user's devices; with none said ("and on the 32GB variant?" with no row there),
            # first the count it needs (inference_need then searches the longest context on that count), never one card
            calls += self.max_context(s, e) if asks_max_context(s) and e.devices else self.estimate_inference(s, e)
        elif asks_max_context(s) and not e.devices and not any(x.name == "what_fits" for x in done):
            # "最长能开多少" with no devices named: the longest context on the table's card count
            calls += self.max_context(s, replace(e, devices=int(d.result["cards"])))
        return calls


def trainer_args(s: Slots) -> dict[str, str | bool | None]:
    """The optimizer, loss, compilation and activation offloading the user named (None: the tools' defaults, AdamW and
    the framework's own)."""
    return {"optimizer": s.optimizer, "loss": s.loss, "compile": s.compile, "activation_offload": s.activation_offload,
            "expandable_segments": s.expandable_segments, "precision": s.precision, "attention": s.attention}


def stage_args(s: Slots) -> dict[str, int | bool]:
    """The DeepSpeed stage and offload the user chose for the job ("how many GPUs with ZeRO-3", "zero2 不开 offload 要几张"):
    the plan keeps to them. MindSpeed-LLM has no ZeRO stage; offload alone picks its stage among ZeRO-2 and ZeRO-3. A
    yes/no on the stage ("zero2 行不行") estimates that stage itself (named_setting); the plan beside it stays free, except
    under FSDP (slots.toml), whose sharding strategy is the trainer's: its plans keep to it."""
    if s.framework == "MindSpeed-LLM":
        return {}
    # "还开不开 offload": whether it takes offload is the question, so the plan is free to choose
    said = {"zero_stage": s.zero_stage, "offload": offload_said(s)}
    if said["offload"] and said["zero_stage"] in (0, 1):
        said["offload"] = None  # ZeRO-0/1 with offload is no planner setting: the stage said is kept, offload named unused
    return {k: v for k, v in said.items() if v is not None}


ON_COUNT = {"zero", "ga", "gbs", "memory", "tp"}  # quantities that change with the count they are on


def on_all(s: Slots, cap: int | None) -> dict[str, Any]:
    """A plan within the devices the user has ("we have 16 cards", not "at most 16": frame.devices_limit) asked for a
    quantity that depends on the count (the split, ZeRO stage, GA, memory per device) is made on all of them (plan_training
    all_devices). A bare yes/no ("enough?") keeps the fewest within them, the count that answers it."""
    own = s.origin("devices") != "last_answer"  # "TP PP 怎么切" after "16 DIE": the last answer's count split, not the user's
    return {"all_devices": True} if cap and own and not s.devices_limit and s.intents & ON_COUNT else {}


def batch_args(s: Slots) -> dict[str, float | None]:
    """The batch and adapter the user said (None when not: the tools' own defaults); the tools derive the accumulation
    from the batch. QLoRA's base bits are the precision the user named ("qlora 8bit"); each tool takes its own name."""
    bits = s.weight_bits if s.method == "qlora" and s.weight_bits in (2, 3, 4, 8) else None
    # an accumulation said with the user's devices is their global batch: GBS = micro batch x DP x GA, DP the devices over
    # the TP x PP (x CP) they said (24 cards at TP 4 x PP 2 with GA 32: 3 x 32 = 96, not 24 x 32)
    dp = users_data_parallel(s)
    derived = s.grad_accum * (s.micro_batch or 1) * dp if s.grad_accum and dp and not s.global_batch else None
    return {"micro_batch": s.micro_batch, "global_batch": s.global_batch or derived, "grad_accum": s.grad_accum,
            "keep_grad_accum": s.grad_accum if not (s.global_batch or derived) else None,
            "lora_rank": s.lora_rank,
            "quant_bits": bits, "quantization_bit": bits, "learning_rate": s.learning_rate, "epochs": s.epochs}


def users_data_parallel(s: Slots) -> int | None:
    """The data-parallel size of the user's own job: their devices over the TP x PP x CP they said (None when that does
    not divide them: the layout rule says so), else the DP they said. A MindSpeed-LLM job with no split said has no DP
    until its layout is chosen: the plan keeps the user's accumulation and its global batch follows its own DP."""
    if s.framework == "MindSpeed-LLM" and not (s.tp or s.pp or s.settings.get("dp")):
        return None
    split = (s.tp or 1) * (s.pp or 1) * int(s.settings.get("cp") or 1)
    if s.devices:
        return s.devices // split if s.devices % split == 0 else None
    dp = s.settings.get("dp")
    return int(dp) if dp else None


def file_args(s: Slots, framework: str) -> dict[str, Any]:
    """The values the user wrote for the file itself (file_values.toml): their paths, dataset, template, the master's
    address and port, and LLaMA-Factory arguments under their own names; a MindSpeed-LLM launch has no chat template or
    YAML, so those stay out of its call (and are named as unused)."""
    v = s.file_values or {}
    args: dict[str, Any] = {k: v.get(k) for k in ("model_path", "dataset", "output_dir", "master_addr")}
    args["master_port"] = v.get("port") if isinstance(v.get("port"), int) else None
    if framework != "MindSpeed-LLM":
        args["template"] = v.get("template")
        args["yaml_keys"] = file_values.yaml_keys(v) or None
    return {k: a for k, a in args.items() if a is not None}


def table_fits(plan: dict[str, Any], limit: int) -> bool:
    """The vendor row a config is built from (LLaMA-Factory: the recipe table; MindSpeed-LLM: the minimum-card
    table) is on the plan's result; True when it is supported and its count is within ``limit``."""
    source = "min_cards" if plan.get("framework") == "MindSpeed-LLM" else "recipes_llamafactory"
    rows = [plan.get("table") or {}, *(plan.get("table_also") or [])]
    return any(r.get("source") == source and r.get("supported") and (r.get("cards") or limit + 1) <= limit for r in rows)


def spread(plan: dict[str, Any], limit: int, mindspeed: bool) -> int:
    """All the user's devices when the plan's layout divides them (more data parallelism); else the plan's count."""
    unit = int(plan.get("tp") or 1) * int(plan.get("pp") or 1) * int(plan.get("cp") or 1) if mindspeed else 1
    return limit if limit % unit == 0 else int(plan["devices"])


def own_frame(s: Slots, d: Done) -> Slots:
    """The frame a call was made for: each model, framework and part of "X vs Y" has its own calls."""
    variants = s.variants()
    if len(variants) == 1:
        return s
    return next((v for v in variants if all(d.args.get(k) in (None, getattr(v, k)) for k in ("model", "framework", "hardware"))), s)


MORE_ROUTES: dict[str, Callable[[Router, Slots, Effective, Done, list[Done]], list[Call]]] = {
    "resolve_model": Router.family_of_unknown,
    "plan_training": Router.plan_followed,
    "estimate_training_memory": Router.setting_refused,
    "estimate_inference": Router.inference_need,
    "min_cards": Router.min_cards_any_length,
    "inference_min_cards": Router.inference_table_gap,
}


def unique(calls: list[Call]) -> list[Call]:
    """Each call once, in first-asked order."""
    seen: dict[str, Call] = {}
    for c in calls:
        seen.setdefault(c.name + json.dumps(c.args, sort_keys=True), c)
    return list(seen.values())


def names_model(s: Slots) -> bool:
    return bool(s.model or s.params_b)


# a setting's own key ("loraplus_lr_ratio", "flash_attn"): what the notes say of it limits the models, not the tables
SETTING_KEY = re.compile(r"(?<![a-z0-9_])[a-z]+(?:_[a-z0-9]+)+(?![a-z0-9_])")


def asks_table_rows(s: Slots) -> bool:
    """A question over a whole vendor table ("which recipe rows use ZeRO-0?", "哪些模型 MindSpeed 要 64 卡以上?"): its rows."""
    return s.table_query is not None and (not names_model(s) or s.table_query.model is not None or s.table_then_model)


def lists_models(s: Slots) -> bool:
    """"Which models support LoRA on LLaMA-Factory?": the vendor tables' list. "Which models support LoRA+
    (loraplus_lr_ratio)?" names a setting a note restricts: the note answers it."""
    if s.notes_named and SETTING_KEY.search(s.question.lower()):
        return False
    return not names_model(s) and bool("list_models" in s.intents or s.family)


def time_without_model(s: Slots) -> bool:
    """Tokens (or samples × length, each epoch) and a measured TPS: the vendor formula Time = tokens / (TPS × N) / η
    needs no model. A rate of all the devices together ("单机 8 卡整机吞吐 9600 tokens/s") is the TPS over them."""
    if names_model(s) or "time" not in s.intents or not (s.tokens or (s.samples and sample_length(s))):
        return False
    e = effective(s)
    return bool(tps_per_device(s, e.devices or e.per_node)[0])


def sample_length(s: Slots) -> int | None:
    """The tokens of one sample in the vendor's Tok_total = Seq_len × samples: the sequence length said (fixed-length
    data, padded or packed), else the data's average tokens per sample ("200k samples averaging 1500 tokens")."""
    return s.seq_len or spec.value_of(s, "sample_tokens")


# What a knowledge question may ask: a meaning, a difference, a rule, a way ("what is ZeRO-3", "PP must
# match what?", "训练脚本会怎么做"): a ZeRO stage, GA or script named that way is explained, not sized.
EXPLAINS = re.compile(r"what\s+(?:does|do|is|are|happens)|mean(?:s|ing)?(?![a-z])|explain|differen|(?<![a-z])vs(?![a-z])|match|"
                      r"how\s+(?:do|does|is|to|should)|when\s+(?:should|do|to|is)|rule\s+of\s+thumb|是什么|什么意思|含义|作用|解释|区别|一致|怎么|如何|怎样|"
                      # "是啥意思", "干嘛用的", "walk me through what the script does"
                      r"啥意思|是啥|干嘛|干啥|walk\s+(?:me\s+)?through|step\s+by\s+step|what\s+(?:the|this|that)\s+(?:[\w.-]+\s+){0,3}?does(?![a-z])|"
                      r"什么时候|何时|requirements?|constraints?|要求|限制|约束|"
                      # a place ("where does preprocessing write", "输出到哪个目录") or an order ("which is faster", "分别切分什么")
                      r"where\s+(?:does|do|is|are|should|can|will)|(?:which|what)\s+(?:directory|folder|path)|哪个目录|什么目录|哪个路径|"
                      r"在哪|哪里|哪儿|(?:faster|slower|quicker)(?![a-z])|what\s+order|更快|更慢|哪个快|哪个慢|顺序|分别")
# A meaning asked ("what does ZeRO-0 mean there", "这个参数什么意思"): a note's term explained even beside a job the user states
MEANING = re.compile(r"mean(?:s|ing)?(?![a-z])|explain|什么意思|啥意思|含义|意思是|解释一下|是指")
# Intents that ask an amount of a job (memory, KV cache, a ZeRO stage, GA): with a count ("how many",
# "几张"), they need a model when the question names what is sized (devices, memory, ZeRO, GA, batch).
AMOUNT_INTENTS = {"memory", "capacity", "kv", "zero", "ga"}
SIZED = re.compile(r"(?<![a-z])(?:cards?|npus?|gpus?|nodes?|devices?|dies?|memory|vram|hbm|zero|deepspeed|stage|ga|"
                   r"gradient\s+accumulation|batch)(?![a-z_])|卡|节点|机器|显存|内存|梯度累积")
# A config file asked for ("give me the yaml", "生成启动脚本"): a file for a job, which needs a model.
# (a past form or the user's own writing is what they did, not a request: "the pods I created from config.yaml", "启动命令我写成…")
PRODUCES = re.compile(r"(?<![a-z])(?:give|generate|write|create|produce|make)(?![a-z])|show\s+me|生成(?!的)|给我|(?<![我已只就都还])写(?!成|了|的|法|什么|哪)|给出|"
                      r"来一份|出一份|要一份")


REQUIREMENT = re.compile(r"requir|(?<![a-z])minimum|at\s+least|要求|门槛|最低|至少")
MEMORY_WORD = re.compile(r"memory|vram|hbm|显存|内存")
DEVICES_COUNTED = re.compile(r"how\s+many|几张|几卡|几个|几台|多少张|卡数|节点数")


# An order asked of options ("rank the ZeRO stages by memory saving", "几种 stage 按速度排个序"): a comparison the notes
# state, not an amount of a job, whatever quantity the order is by
ORDER_ASKED = re.compile(r"(?<![a-z])(?:rank(?:ed|ing)?|sort(?:ed)?|order(?:ed)?\s+(?:them\s+)?by|in\s+order\s+of|(?:fastest|slowest|most|least)"
                         r"\s+\w+\s+(?:to|first)|from\s+(?:fastest|slowest|most|least))(?![a-z])|排序|排个序|排一下|排列|按.{0,8}排|从快到慢|从慢到快|从高到低|从低到高")


def asks_amount(s: Slots) -> bool:
    """A count, memory, a ZeRO stage or GA of devices, memory or a batch ("how many cards", "几张卡", "which
    ZeRO stage"), or a config file to produce. "cards" and "inference" alone are not asked amounts: they are
    read from any mention of NPUs or serving ("NPU_Flash_Attn", "my vLLM service"); "请求体最大多少" asks a
    limit of a note's subject, and "what is ZeRO-3" explains."""
    q = s.question.lower()
    # (the command of a procedure's own script, "generate_dataset.py 命令咋写", is the note's, not a config of a job)
    if "config" in s.intents and PRODUCES.search(q) and not (s.procedures_named and not names_model(s)):
        return True
    explained = bool(EXPLAINS.search(q))
    if ORDER_ASKED.search(q) and not DEVICES_COUNTED.search(q) and not names_model(s):
        return False
    # "mindspeed 对单卡显存有要求吗", "minimum memory per NPU for mindspeed-llm": a framework's or part's requirement on
    # memory is a rule the notes state, not an amount of a job (unless devices are counted: "how many cards at minimum")
    if REQUIREMENT.search(q) and MEMORY_WORD.search(q) and not DEVICES_COUNTED.search(q):
        return False
    amounts = s.intents & (AMOUNT_INTENTS - ({"zero", "ga"} if explained else set()))
    # the KV cache's bytes asked ("glm4-9b per-token KV bytes? it has 2 kv heads"): sized in bytes, no device word needed
    kv_bytes = "kv" in amounts and bool(KV_PER_TOKEN_ASKED.search(q))
    return bool(amounts or ASKS_COUNT.search(q)) and bool(SIZED.search(q) or kv_bytes)


def knowledge_question(s: Slots) -> bool:
    """No model, no amount asked, and a note's topic named in the question's own words ("head_dim 576,
    does NPU_Flash_Attn support it?", "GBS vs MBS", "训练作业一直Pending怎么办"): answered from the notes."""
    # an amount asked of a documented tool's flags given values ("--request-rate 2 --num-prompts 600, how long?") is the
    # figure their meaning gives (tool_flags.py), no sizing
    return (not names_model(s) and bool(s.notes_named) and (not asks_amount(s) or bool(tool_flags.given(s.question)))
            and not s.intents & {"list_models", "list_hardware"})


# serving named in words ("maximum context length" alone reads as serving, but asks the model's own limit)
SERVED = re.compile(r"vllm|(?<![a-z])serv(?:e|ing)|deploy|部署|推理|服务", re.I)


def asks_model_context(s: Slots) -> bool:
    """"What is the maximum context length of Qwen2.5-7B-Instruct?", "glm-4-9b-chat 模型本身最长支持多少上下文": the model's
    own limit, with no job to size (no serving, method, devices, length or part named)."""
    return bool("model_context" in s.intents and s.model and not (
        SERVED.search(s.question) or s.method or s.devices or s.nodes or s.seq_len or s.hardware or s.memory_gb))


def knowledge_about_model(s: Slots) -> bool:
    """A how-to on a note's topic that names a model only as the example ("what does NPU_Flash_Attn require? my
    qwen2.5-7b has head_dim 128", "数据集预处理是怎么触发的？llama2-13b 举例"): no job is stated (no method, length,
    devices), nothing is asked in amounts and nothing is reported, so the notes answer it, not a sizing of the model."""
    # a card memory to serve on ("on the 32GB cards with vLLM", "32G 和 64G 分别") states a serving job, as a count does
    serving_memory = bool(s.memory_gb and "inference" in s.intents)
    # a place, flag, variable or script of the note asked ("where do the preprocessed files end up for qwen2-7b
    # pretraining?"): the job it states is the procedure's setting, no amount of it
    artifact = bool({"path", "flag", "variable", "script"} & set(kinds_asked(s.question)))
    job_stated = (s.method or s.seq_len or s.devices or s.nodes or s.zero_stage is not None or serving_memory
                  ) and not MEANING.search(s.question.lower()) and not artifact
    # a script or config named is a topic ("how does the launch script convert the weights?"); one asked for
    # ("give me the yaml") is an amount (asks_amount)
    # a vendor table named beside the model ("what do the v0.7.2 and newest vllm tables say for X?") asks the model's rows
    row_asked = table_query.names_table(s.question.lower()) and not MEANING.search(s.question.lower())
    # a yes/no on the topic ("is the dynamic benchmark supported for it?", "能做动态测试吗") asks the notes too, while no
    # part or serving job is named (those ask the tables: "does vllm support qwen3-8b on 910B?")
    q = s.question.lower()
    whether = bool(WHETHER.search(q)) and not (s.hardware or "inference" in s.intents)
    # the values a note's limits judge, stated of the model ("qwen2.5-14b 是 40 heads, 8 kv heads, head dim 128, 能用上吗"):
    # that note's rule applied to them
    judged = fused_attention.judged(s.question, s.notes_named)
    return (names_model(s) and bool(s.notes_named) and bool(EXPLAINS.search(q) or whether or judged) and not job_stated
            and not row_asked and not asks_amount(s) and not s.intents & {"problem", "oom_asked", "list_models", "list_hardware"})


WHETHER = re.compile(r"support|(?<![a-z])(?:can|could)\s+(?:i|we)(?![a-z])|possible|支持|能否|能不能|可不可以|能做|可以做")


def about_topic_with_example(s: Slots) -> bool:
    """"For a multimodal model like qwen2-vl, is the dynamic benchmark supported?": a knowledge or procedure question
    whose model is named only as the example, by a name the catalog does not resolve to one model (a family, a model
    it lacks): the notes answer it, no model is asked for."""
    if not s.unknown_model or s.model:
        return False
    as_model = s.model_copy(update={"model": s.unknown_model})
    return knowledge_about_model(as_model) or procedure_about_model(as_model)


# the intents whose tools answer a job's numbers: beside one of them, a hyperparameter is the user's own value
SIZING_INTENTS = {"cards", "zero", "ga", "memory", "time", "inference", "config", "troubleshoot", "problem", "kv", "capacity", "gbs"}


def asks_hyperparameter(s: Slots) -> bool:
    """"Recommended learning rate for LoRA on qwen2.5-7b?", "全参学习率设多少": a training hyperparameter no sizing tool
    computes, asked with nothing else of the job; the notes say what the vendor and the frameworks' examples use."""
    return "hyperparameter" in s.intents and not s.intents & SIZING_INTENTS and not asks_amount(s) and not (s.devices or s.nodes)


# a question that asks one thing of the procedure ("which commit", "where does it land", "多少"): its own words pick the fact
ASKS_SPECIFIC = re.compile(r"(?<![a-z])(?:which|what|where|when|who|can|could|does|do|is|are|should|will)(?![a-z])|哪|什么|啥|多少|几|吗|"
                           r"是否|能不能|可不可以")
ASKS_WAY = re.compile(r"(?<![a-z])how\s+(?:do|can|to|should)|怎么|如何|怎样")


def procedure_about_model(s: Slots) -> bool:
    """"How do I convert llama2-13b's HF weights for a 2-node MindSpeed run?", "then back to HF?": the question names a
    procedure a note tells how to do (front matter ``procedures``); the model and job it states are that procedure's
    setting, so the notes answer it, unless it asks an amount, a config file or reports a problem."""
    # (a script named is asked for, "llama2-13b lora 一键脚本", unless the question asks what it does or how it works)
    script_asked = "config" in s.intents and not EXPLAINS.search(s.question.lower())
    return (names_model(s) and bool(s.procedures_named) and not asks_amount(s) and not asks_count_of_job(s)
            and not script_asked and not s.intents & {"problem", "oom_asked", "tp", "memory", "kv", "capacity"})


def asks_count_of_job(s: Slots) -> bool:
    return bool(DEVICES_COUNTED.search(s.question.lower()))


def notes_without_model(s: Slots) -> bool:
    """No model and nothing to size, or a knowledge question ("how many cards?" without a model gets no
    call: the answer asks for one), or the form of a command or where something lands asked with no model ("两机训练，
    第二台的启动命令怎么写"): the notes write the command, no job is sized for it."""
    return not names_model(s) and (s.on_topic and not asks_for_sizing(s) or knowledge_question(s) or asks_form(s)
                                   or asks_note_kind(s))


def goes_on_about_topic(s: Slots) -> bool:
    """A follow-up of a how-to topic (conversation.on_howto set its words, carry.toml [howto]): the notes answer it, by
    the topic's words and its own, whatever words of its own name no note ("does that error damage the saved weights?"
    after the checkpoint-timeout answer)."""
    return bool(s.howto_before) and not names_model(s)


def asks_form(s: Slots) -> bool:
    """A command or a path asked (note_kinds.py), with the devices or nodes as the job's setting, not an amount asked."""
    return bool({"command", "path"} & set(kinds_asked(s.question))) and not asks_count_of_job(s) and on_topic_howto(s)


def asks_note_kind(s: Slots) -> bool:
    """A variable, command, flag or script asked by what it does, with no model and no job of devices or lengths stated
    ("which env var stops the allocator fragmenting?", "用什么命令看卡上的进程"): the thing a note names, not an amount of a
    job, whatever device or memory word describes what it does."""
    return (bool({"variable", "command", "flag", "script", "value"} & set(kinds_asked(s.question))) and s.on_topic
            and not (s.devices or s.nodes or s.params_b or s.seq_len or asks_count_of_job(s))
            and not s.intents & {"list_models", "list_hardware"})


def on_topic_howto(s: Slots) -> bool:
    return s.on_topic and not s.intents & {"list_models", "list_hardware", "memory", "zero", "ga", "cards"}


def layout_candidates(s: Slots, devices: int, per_node: int | None) -> list[tuple[int, int]]:
    """TP x PP to estimate: the stated one, or, when the turn asks one of them beside the other ("TP 设 8 的话 PP 该设多少"),
    every value of the asked one that divides the devices the stated one leaves, smallest first (TP within a node)."""
    tp, pp = s.tp or 1, s.pp or 1
    solved = solved_slot(s)
    rest = devices // (tp if solved == "pp" else pp) if solved and devices else 0
    if solved == "pp" and rest:
        return [(tp, n) for n in range(1, rest + 1) if rest % n == 0][:8]
    if solved == "tp" and rest:
        return [(n, pp) for n in range(1, min(rest, per_node or 8) + 1) if rest % n == 0][:8]
    return [(tp, pp)]


def stated_layout(s: Slots) -> bool:
    """A training question that states its own TP / PP on a device count: that layout is estimated as given."""
    # data-parallel trainers have no TP / PP; "pure data parallel" (TP 1, PP 1) is a layout of its own only on MindSpeed-LLM
    split = (s.tp or 1) * (s.pp or 1) > 1 or s.settings.get("ep") or s.framework == "MindSpeed-LLM"
    return bool((s.tp or s.pp or s.settings.get("ep")) and split and s.task() == "training" and effective(s).devices
                and s.framework in (None, "MindSpeed-LLM") and not s.stack)


def asks_memory(s: Slots) -> bool:
    """A memory question: with a size, a device count, a ZeRO stage or "estimate", or nothing else asked."""
    return "memory" in s.intents and "inference" not in s.intents and bool(
        s.params_b or s.devices or s.zero_stage is not None or "estimate" in s.intents or not s.intents & TRAINING_INTENTS)


def asks_training_plan(s: Slots) -> bool:
    """Cards/ZeRO/GA tables and plans, unless a memory question gives the whole setup (it wants that memory,
    not a plan) or a config request brings its own plan (the tables only when cards or GA are asked too:
    "DeepSpeed config" mentions DeepSpeed, which is not a ZeRO question)."""
    setup_given = asks_memory(s) and bool(s.devices and s.zero_stage is not None)
    config_only = "config" in s.intents and not s.intents & (TRAINING_INTENTS - {"zero"})
    return is_training_question(s) and not setup_given and not config_only


def parts_compared(s: Slots) -> bool:
    """"A2 和 A3 有什么区别", "H100 vs 910B?" with no model and nothing to size: the parts' own facts side by side."""
    return len(s.hardwares) >= 2 and not names_model(s) and not asks_for_sizing(s)


# What the parts are (memory, devices per node, a node's total, TFLOPS, precisions, the parallel unit: intents.toml)
PART_FACTS = {"part_ranks", "part_memory", "part_node", "part_total", "part_compute", "part_precision", "part_unit", "part_naming", "part_flavor",
              "part_topology", "part_job_devices", "part_cores", "part_host_ram", "part_power",
              "part_mixed_job", "part_table", "part_framework"}
# "what is modelarts.bm.arm.24u.192g.npu.1d910b?", "910B3 是什么": a part named and what it is asked (its whole row)
WHAT_IS = re.compile(r"what\s+(?:is|are|'s)|是什么|什么是|是啥|啥是")
# A job's need said of a part ("how many H100s do I need", "显存够吗"): a sizing question that lacks its model
NEEDS = re.compile(r"(?:do|would|will|should)\s+(?:i|we)\s+need|enough|(?<![a-z])fits?(?![a-z])|需要(?:几|多少)|要几|够|放得下|装得下|跑得")
# Something asked ("我们有两台机器，每台8张910B" states the user's devices: which model is the question to ask back)
QUESTION = re.compile(r"[?？]|吗|么|多少|几|什么|哪|怎么|如何|是否|是不是|区别|对比|还是|([\u4e00-\u9fff])[不没]\1|"  # "有没有", "支不支持"
                      r"(?<![a-z])(?:whats?|how|which|does|do|is|are|can|could|should|why|whether|difference|compare|vs)(?![a-z])")
JOB_INTENTS = {"config", "time", "train", "largest_model", "max_context", "max_batch", "list_models", "problem", "oom_asked"}


# a ModelArts flavour's name ("modelarts.bm.arm.48u.384g.npu.2d910b"): its NPU count and chip are in the name
FLAVOR = re.compile(r"(?:^|\.)npu\.\d+d[a-z0-9]+$", re.I)


# whether a precision is supported is asked ("支持 fp8 吗", "does it do FP8", "有没有 FP8"), beside a figure asked
SUPPORT_ASKED = re.compile(r"支持|有没有|能不能|能否|可以用|(?<![a-z])(?:support\w*|does\s+(?:it|the\s+\S+|\S+)\s+(?:do|have|run)|native\w*|can\s+(?:it|i|we))(?![a-z])")
# two precisions offered to choose from ("BF16 还是 FP16", "fp16 or bf16 for fine-tuning"): the notes' choice, not a support
PRECISIONS = re.compile(r"(?<![a-z0-9])(?:bf16|fp16|fp8|fp32|bfloat16|float16)(?![a-z0-9])")


def about_parts(s: Slots) -> bool:
    """What parts are, with no model and no job: the catalog's list, a part's node and DIE facts, or a property of
    the parts the question names ("910B vs H100 — HBM and FP16 TFLOPS?", "Snt9B23 一个节点 memory 总共多少 GB",
    "Snt9B23 上 tp 必须是偶数吗"), one part or several compared."""
    if names_model(s) or batch_asked(s):
        return False
    if asks_note_kind(s) and not s.hardware:  # "what command shows what holds memory on the NPUs": the note's command
        return False
    if converts_parts(s):
        return True
    if s.intents & {"list_hardware", "hardware_facts"} or parts_compared(s):
        return True
    if part_same.asked(s) and not (s.method or s.stage or s.seq_len or s.tokens):
        return True  # "Snt9b2 is the 910B3, right?", "一个 DIE 跟一张 910B 卡等价吗": the catalog's names and devices
    job = s.method or s.stage or s.seq_len or s.tokens or s.zero_stage is not None or s.intents & JOB_INTENTS
    if "part_ranks" in s.intents and not (s.method or s.seq_len or s.tokens):
        job = False  # "3 台机器的训练总共多少个 rank": a job's device count is the part's arithmetic, no sizing
    if "part_job_devices" in s.intents and not (s.method or s.stage or s.seq_len or s.tokens):
        job = False  # "can a single training job on Snt9B23 ask for 6 DIE?": the counts a job may take, no sizing
    q = s.question.lower()
    if job and "part_precision" in part_facts_asked(s) and not (s.method or s.stage or s.seq_len or s.tokens) \
            and not s.intents & JOB_INTENTS - {"train"} and SUPPORT_ASKED.search(q) \
            and len({p.replace("bfloat16", "bf16").replace("float16", "fp16") for p in PRECISIONS.findall(q)}) < 2:
        job = False  # "can I train in bf16 on a V100?": whether the part computes in that precision, no sizing
    framework = "part_framework" in s.intents and not (s.method or s.stage or s.seq_len or s.tokens)
    if framework:
        job = False  # "can I still train with MindSpeed-LLM on the 910A?": the framework's requirement on the part, no sizing
    flavour = bool(FLAVOR.search(s.hardware_text or "")) and not (s.method or s.stage or s.seq_len or s.tokens)
    if flavour:
        job = False  # "what card is modelarts.….npu.2d910b, how many?": the flavour's own NPUs are the count asked
    named = bool(s.hardwares or s.hardware_text) and not s.hardware_guessed
    q = s.question.lower()  # a price is no catalog property: the notes say what is not covered
    return (named and not job and bool(part_facts_asked(s) or WHAT_IS.search(q) or flavour) and bool(QUESTION.search(q))
            and not (NEEDS.search(q) and not (flavour or framework)) and not COST.search(q))


def part_facts_asked(s: Slots) -> set[str]:
    """The parts' properties asked; a precision word ("FP8", "bf16") is read as a precision, not as an intent; "one
    rank or two per card" asks the ranks of one card."""
    return (s.intents & PART_FACTS | ({"part_precision"} if s.quant_text else set())
            | ({"part_ranks"} if "part_rank_each" in s.intents else set()))


# ranks or a TP size asked of the devices said: the rank count's answer (part_facts.py fact_count), not a conversion
RANKS_ASKED = re.compile(r"rank|world[-_\s]?size|tp[-_\s]?size|tensor[-_\s]?parallel")


# a count written with its unit that the device reader leaves to the hardware answer ("24 physical cards"); one node or
# one card ("一台910C几张卡") is the part's own per-node fact (hardware_facts)
COUNT_SAID = re.compile(r"(?i)(?<![\d.])(?:[2-9]|\d{2,})\s*(?:physical\s+)?(?:cards?|dies?|nodes?|servers?)(?![a-z])|(?<![\d.])(?:[2-9]|\d{2,})\s*(?:张|台|个\s*die)")


# the part facts a conversion's words also read ("how many DIE", "same device count", "per node"); any other fact asked
# beside the counts ("…作为并行单位 OK 吗") is the part's own answer, which says the counts too
CONVERSION_FACTS = {"part_node", "part_total", "part_ranks", "part_naming"}


# the nodes asked ("how many A3 nodes", "几台"), beside the cards asked or instead of them
NODES_ASKED = re.compile(r"(?:几|多少)\s*(?:台|个节点|个服务器|个机器)|how\s+many\s+(?:\S+\s+){0,2}(?:nodes?|servers?|machines?|boxes)(?![a-z])")


def layout_devices(s: Slots) -> int | None:
    """"A3 上 PP=2 TP=8，要几张物理卡、几台机器": with no device count, a TP × PP said with the nodes (or a PP) asked is a
    count of devices, one per rank (no data parallel said). TP alone asks of the parallel unit (part_facts.fact_unit)."""
    if s.devices or s.nodes or not s.tp or not (s.pp or NODES_ASKED.search(s.question.lower())):
        return None
    return s.tp * (s.pp or 1)


# a node named ("a whole Snt9B23 server", "一整台", "Snt9B 一台是 8 卡吗"): a count of one node when no other is said
# each part's own node asked ("per node, Snt9B vs Snt9B23", "A2 跟 A3 每台分别几张卡"): their facts side by side, no node implied
PER_NODE_ASKED = re.compile(r"(?:per|each|every)\s+(?:node|server|machine|box)|每(?:个)?(?:台|节点|机)|分别|(?<![a-z])(?:versus|vs)(?![a-z])")
NODE_WORDS = re.compile(r"node|server|machine|(?<![a-z])box|节点|台|服务器|机器|单机|一机")


def converts_parts(s: Slots) -> bool:
    """"256 DIE on Snt9B23: how many nodes?", "4 Snt9B nodes = how many A3 nodes?": a count of a part stated and a count
    of another unit (or of another part) asked, no model and no job: the catalog's arithmetic, never "which model?"."""
    return ("part_convert" in s.intents and not RANKS_ASKED.search(s.question.lower()) and not names_model(s)
            # a memory asked across two parts ("4×H100 = how many 910B by memory") is a conversion by memory
            and not part_facts_asked(s) - CONVERSION_FACTS - ({"part_memory", "part_total"} if len(set(hardware_named(s))) > 1 else set())
            - ({"part_unit"} if layout_devices(s) else set())
            # (a method or stage named, "for MindSpeed pretraining", is what the devices are for: no job to size without a model)
            and not (s.seq_len or s.tokens)
            and bool(s.hardware_text) and not s.hardware_guessed and ((s.devices or 0) > 1 or (s.nodes or 0) > 1 or bool(COUNT_SAID.search(s.question))
                                                                      or bool(layout_devices(s))
                                                                      # "一台 A3 顶几台 910B": one node of a part in another's
                                                                      # ("一整台 A3", "a whole A3 server": a node count said or implied)
                                                                      or bool(s.nodes or s.devices or any(sp.slot == "said_nodes" for sp in s.spans)
                                                                              or NODE_WORDS.search(s.question.lower()) and not PER_NODE_ASKED.search(s.question.lower()))
                                                                      and len(set(hardware_named(s))) > 1))


def hardware_named(s: Slots) -> list[str]:
    """The catalog parts the question names, in the order written (the reader's spans)."""
    return [sp.value for sp in sorted(s.spans, key=lambda sp: sp.start) if sp.slot == "hardware" and sp.value]


def batch_asked(s: Slots) -> bool:
    """"64 DIE on Snt9B23, TP 8 PP 2, MBS 1, GBS 256: what GA?": the figure asked is the batch identity's, whatever
    part the devices are on (not the part's parallel unit)."""
    b = batch_math.solve(s)
    return b is not None and ("gbs" if b.asked == "global_batch" else "ga") in s.intents


def reads_pasted_log(s: Slots) -> bool:
    """A Trainer banner or a MindSpeed-LLM iteration line pasted: the numbers it implies (devices, steps, time left,
    tokens/s) are worked out from the log itself, with no tool, whatever model the log is of (pasted_log.py)."""
    return pasted_log.read(s.question) is not None and not s.problems


def reads_error_signature(s: Slots) -> bool:
    """A pasted error message of a known signature (signatures.toml): the note section it names answers it."""
    return error_signature.read_turn(s.question, s.howto_before) is not None and not s.problems


def reads_pasted_output(s: Slots) -> bool:
    """Tool output pasted as data (an `npu-smi info` table, `kubectl get pods`, a FailedScheduling event): its values
    give the diagnosis that leads (pasted_output.py), and the notes' remedies back it, whatever part or pod names it
    shows (a pod named "qwen-train-worker-0" is no model, an "910B3" row no hardware question)."""
    return pasted_output.read(s.question) is not None and not s.problems


def tps_per_device(s: Slots, devices: int | None) -> tuple[float | None, float | None]:
    """(TPS per device, speed-up factor η) for the vendor formula: the per-card rate said, with a stated scaling
    efficiency in place of η; or a rate of all the devices together ("整机吞吐 9600 tokens/s" on 8 cards) divided by
    them, which already holds the scaling (η 1)."""
    total = s.settings.get("tps_total")
    if s.tps or not total or not devices:
        return s.tps, s.settings.get("speedup")
    return total / devices, s.settings.get("speedup") or 1.0


def batch_sum_only(s: Slots) -> bool:
    """"16 cards, micro batch 2, global batch 256: what GA?" names no model: GBS = MBS x DP x GA is the answer."""
    return not names_model(s) and batch_math.solve(s) is not None


def only_quantities(s: Slots) -> bool:
    """The question asks quantities of quantities.toml and nothing else a tool answers: with their words blanked, no
    device count, yes/no, config or time is asked."""
    rows = quantity.asked(s)
    if not rows or s.intents & {"config", "compare"} or ("troubleshoot" in s.intents and troubleshoot_beyond_width(s.question)):
        return False
    rest = s.question
    for row in rows:
        rest = row.words.sub(lambda m: "§" * len(m.group(0)), rest)
    if (b := batch_math.solve(s)) is not None and batch_math.asked_at(s, b) is not None:
        # "DP 和 GA 分别是多少": the batch identity's figure is answered beside the quantities (quantity_blocks.py)
        rest = INTENTS["ga" if b.asked == "grad_accum" else "gbs"].sub(lambda m: "§" * len(m.group(0)), rest.lower())
    if any("§" not in rest[p.start:p.start + len(p.text)] for p in subquestions.asked_apart(s.question)):
        return False  # "GBS 是什么意思？另外 DP 是多少": a part asks no quantity (the notes answer it, the quantity beside)
    # "how many data-parallel replicas": the count word asks the quantity (ASKS_ITS reads the quantities' words as §)
    left = Reading.claiming(rest, "quantity_asked", ASKS_ITS, QUANTITY_WORDS)
    if nodes_of_devices_said(s):  # "64 DIE, TP 4 PP 4: DP? how many machines?": the nodes of the devices said, no sizing
        left.claim_all(VOCAB_NODES_ASKED, "nodes_asked")  # the same words nodes_of_devices_said reads
    rest = left.unread()
    return not (ASKS_COUNT.search(rest.lower()) or asks_verdict(s.model_copy(update={"question": rest})) or TIME_ASKED.search(rest))


def knowledge_parts(s: Slots) -> list[subquestions.Part]:
    """The sub-questions of a question about a model that ask how to do something or what a thing is, and no amount
    (no devices, memory, batch or quantity of quantities.toml): the notes answer them."""
    if not names_model(s):
        return []
    worked = quantity_parts(s)
    # (a part naming a note's procedure asks about it, also as a yes/no: "权重要不要重新转换")
    return [p for p in subquestions.asked_apart(s.question) if p not in worked and (ASKS_WAY.search(p.text.lower()) or
            MEANING.search(p.text.lower()) or p.start in s.procedure_parts) and not SIZED.search(p.text.lower())
            and not DEVICES_COUNTED.search(p.text.lower())]


def quantity_parts(s: Slots) -> list[subquestions.Part]:
    """The sub-questions that ask a quantity of quantities.toml or the batch identity's figure (worked out, not
    searched in the notes)."""
    at = [a for row in quantity.asked(s) for a, _ in quantity.spans_asked(row, s)] + [a for a in [batch_math.asked_at(s)] if a is not None]
    return [p for p in subquestions.asked_apart(s.question) if any(p.start <= a < p.start + len(p.text) for a in at)]


def quantities_beside_knowledge(s: Slots) -> bool:
    """A question of several parts, naming no model, with a quantity of quantities.toml asked in one part and no
    quantity in another: the notes answer that part and the quantity is worked out beside it (Router.first)."""
    parts = subquestions.asked_apart(s.question)
    if not parts or not quantity.asked(s) or names_model(s):
        return False
    return len(quantity_parts(s)) < len(parts)


# a precision said as the width a quantity is counted in ("the embedding matrix in bf16", "按 fp16 算"): a stated value,
# not the BF16/FP16 topic the troubleshooting intent reads in the bare word
PRECISION_AS_WIDTH = re.compile(r"(?:in|at|as|with|using|用|按|以)\s*(?:bf16|fp16|fp32|fp8|int8|int4|bfloat16|float16)(?![a-z0-9])", re.I)


def troubleshoot_beyond_width(question: str) -> bool:
    """The troubleshooting intent is still read once a precision said as a quantity's width is left out."""
    return bool(Reading.claiming(question.lower(), "precision", PRECISION_AS_WIDTH).search(INTENTS["troubleshoot"]))


QUANTITY_WORDS = re.compile("§+")  # (only_quantities marks the words of the quantities asked)
TIME_ASKED = re.compile(r"how\s+long|多久|多长时间|(?:training|run)\s+time", re.I)
# the count word before the quantity ("how many data-parallel replicas") or after it ("DP 是多少", "DP 等于几")
# ("how many GB do the AdamW optimizer states take": a memory unit asked of the quantity, however far in the clause)
ASKS_ITS = re.compile(r"(?:how\s+many|what(?:'s|\s+is)\s+the|(?:多少|几)\s*个?)[\w\s-]{0,12}?§+"
                      r"|how\s+(?:many|much)\s+(?:gi?b|mi?b|ti?b|bytes?|memory)(?![a-z])[^?.;!§]{0,40}?§+"
                      r"|§+\s*(?:应该|大概|一共|总共|最小|最少|分别|各自|各)?\s*(?:能|可以|可|要|得)?\s*(?:是|为|有|等于|取|设|设为|设成|"
                      # "TRAIN_ITERS 算出来多少", "默认 TRAIN_ITERS 会给多少": worked out from the figures said
                      r"(?:会|就)?\s*(?:算|给|得)\s*(?:出来|出|到)?\s*(?:是|的)?)?\s*(?:多少|几|多大)", re.I)


def asks_largest_model(s: Slots) -> bool:
    """"What model can I fine-tune on one A100?": no model named, the devices or the part are."""
    return "largest_model" in s.intents and not names_model(s) and not s.problems


def asks_max_context(s: Slots) -> bool:
    """"What max context?" with no length given (a length said is the user's, not a question)."""
    return "max_context" in s.intents and s.seq_len is None


def asks_max_batch(s: Slots) -> bool:
    """"What micro batch can I use?" with no batch given (a batch said is the user's, not a question)."""
    return "max_batch" in s.intents and s.micro_batch is None and s.global_batch is None


def serving(s: Slots) -> bool:
    return "inference" in s.intents and not ("train" in s.intents or s.method)


def asks_config(s: Slots) -> bool:
    """A training config file asked for: a serving frame's "give me the vllm serve line" is answered by the serving
    answer's command line, and a script named as a how-to's topic ("how does the launch script convert the weights?")
    by the notes."""
    return ("config" in s.intents and not serving(s) and not knowledge_about_model(s) and not procedure_about_model(s)
            and not asks_example_script(s))


def asks_example_script(s: Slots) -> bool:
    """The MindSpeed-LLM example scripts' own values are asked for a named model (LLaMA-Factory's examples are its YAMLs,
    answered by the config route)."""
    return "example_script" in s.intents and bool(s.model) and s.framework != "LLaMA-Factory" and not serving(s)


def asked(intent: str) -> Callable[[Slots], bool]:
    return lambda s: intent in s.intents


def answered_from_notes(s: Slots) -> bool:
    """Round one of this frame is the notes' search alone (a how-to or knowledge question, carry.toml [howto])."""
    route = next((route for applies, route in FIRST_ROUTES if applies(s)), None)
    return route is Router.notes or route is Router.signature_notes


# Round one, first match wins: bad input is answered by saying so, before any tool runs on a substituted value.
FIRST_ROUTES: list[tuple[Callable[[Slots], bool], Callable[[Router, Slots], list[Call]]]] = [
    # a model the catalog lacks beside the bad value is said too ("llama5-900b on 3.7 nodes"): one round, both faults
    (lambda s: bool(s.problems), Router.refused),
    (reads_pasted_output, Router.notes),  # pasted tool output: its diagnosis leads, the notes' remedies follow
    (reads_error_signature, Router.signature_notes),  # a pasted error message: the note section its signature names
    (about_topic_with_example, Router.notes),  # a family or unknown model named only as a how-to's example
    # a model the catalog lacks with its size said ("gpt-5-ultra 900B"): sized from that size below, the name looked up beside
    (lambda s: bool(s.unknown_model) and not s.params_b, Router.resolve_unknown),
    (asks_table_rows, Router.table_rows),
    # a pasted log's own figures (a Trainer banner, MindSpeed iteration lines): derived in the answer from the whole log,
    # before the quantity table reads single figures out of it
    (reads_pasted_log, Router.pasted_log_calls),  # a pasted log's own figures: derived in the answer
    (only_quantities, Router.quantity_only),  # "LoRA r=16 trainable params?", "DP of 64 DIE at TP 8 PP 2 CP 2?"
    (about_parts, Router.list_hardware),
    (lists_models, Router.list_models),
    (time_without_model, Router.time_only),
    (asks_largest_model, Router.largest_model),
    (batch_sum_only, lambda r, s: []),  # the user's own batch figures: the answer is their product, no tool
    # "MindSpeed 官方示例脚本里 TP/PP/GBS 是多少": the scripts' own values, no plan of the estimator's in their place
    # (a script named asks its values: a file of the estimator's beside them would contradict them)
    (asks_example_script, lambda r, s: r.example_calls(s, effective(s))),
    # "GBS 是什么意思？另外 64 张卡 TP 8 PP 2 的话 DP 是多少？": a part the notes answer, a quantity beside it (no model asked)
    (quantities_beside_knowledge, Router.notes),
    (notes_without_model, Router.notes),
    (goes_on_about_topic, Router.notes),
    (asks_model_context, Router.model_context),
    (knowledge_about_model, Router.notes),
    (asks_hyperparameter, Router.notes),
    (procedure_about_model, Router.notes),
    (names_model, Router.each_variant),
]
# First routes whose answer a quantity of quantities.toml asked in the same question joins (its own lead, in the order asked)
ANSWERS_BESIDE_QUANTITIES = (Router.list_hardware, Router.notes)
# With a model: every rule that applies adds its calls, in this order.
MODEL_ROUTES: list[tuple[Callable[[Slots], bool], Callable[[Router, Slots, Effective], list[Call]]]] = [
    (lambda s: bool(quantity.asked(s)), Router.quantity_calls),  # a quantity asked beside the sizing: stated first
    (asks_config, Router.config_calls),
    (lambda s: bool(s.shares_with) and "inference" in s.intents, Router.shared_card_calls),
    (lambda s: "inference" in s.intents and not s.shares_with, Router.inference_calls),
    (asks_memory, Router.memory_calls),
    (lambda s: stated_layout(s) and not asks_memory(s), Router.layout_calls),
    (lambda s: asks_host_ram(s) and not asks_memory(s) and "inference" not in s.intents, Router.host_ram_calls),
    # "lora vs full" compares no parts, nor "the older vLLM table vs the newest" with no part named; a serving question
    # ("32G npus vs the 64G ones" in the vLLM tables) is compared by its serving rows, not by compare_hardware's training plans
    (lambda s: "compare" in s.intents and not s.methods and "inference" not in s.intents
     and not (table_query.names_table(s.question.lower()) and not s.hardware),
     Router.compare_calls),
    (asks_training_plan, Router.training_calls),
    # "…, do I need the offload at all? and the global batch?": the offload half is answered whatever else is asked
    (lambda s: asks_offload_needed(s) and not asks_memory(s), Router.offload_needed_calls),
    (asked("time"), Router.time_calls),
    # a layout or amount asked about a procedure ("for the HF->megatron conversion what TP and PP?"): the plan, then the
    # notes on the procedure (what the conversion's TP/PP must match)
    (lambda s: bool(s.intents & {"troubleshoot", "time", "throughput"} or s.procedures_named), Router.note_calls),
    # "and the weights alone?" in a training thread: the serving estimate's weights figure (component.py leads with it)
    (lambda s: "weights_memory" in s.intents and "inference" not in s.intents, Router.estimate_inference),
    (lambda s: bool(knowledge_parts(s)), Router.part_note_calls),  # a how-to part beside the sizing: its own lead
]
