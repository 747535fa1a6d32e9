"""From parsed slots to tool calls: a first round chosen from what was asked, and at most one more
round when the first results call for it (no table row -> the estimator)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .parse import Slots

DEFAULT_SEQ_LEN = 4096
DEFAULT_HARDWARE = "snt9b"
# Catalog hardware ids that the vendor training/min-card tables cover, with the tables' column name.
TABLE_PARTS = {"snt9b": "Snt9B", "snt9b23": "Snt9B23"}
ASCEND = {"snt9b", "snt9b23", "snt9b-32g"}
TRAINING_INTENTS = {"cards", "zero", "ga", "support", "tp"}
OTHER_INTENTS = {"memory", "inference", "config", "troubleshoot", "compare", "time", "list_models", "list_hardware"}
NOTE_QUERY_CHARS = 400


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


@dataclass
class Effective:
    """The slots with defaults filled in, and which values were assumed rather than asked."""

    seq_len: int
    hardware: str
    part: str | None
    strategies: list[str]
    assumed: list[str] = field(default_factory=list)


def table_strategy(method: str | None) -> str | None:
    """The vendor tables know lora and full; QLoRA is answered from the LoRA rows (an upper bound)."""
    return {"lora": "lora", "qlora": "lora", "full": "full"}.get(method or "")


def effective(s: Slots) -> Effective:
    assumed = []
    if s.seq_len is None:
        assumed.append("seq_len")
    if s.hardware is None:
        assumed.append("hardware")
    hw = s.hardware or DEFAULT_HARDWARE
    st = table_strategy(s.method)
    strategies = [st] if st else ([] if s.method else ["lora", "full"])
    return Effective(s.seq_len or DEFAULT_SEQ_LEN, hw, TABLE_PARTS.get(hw), strategies, assumed)


def is_training_question(s: Slots) -> bool:
    return bool(s.intents & TRAINING_INTENTS) or not (s.intents & OTHER_INTENTS)


class Router:
    def __init__(self, arg_fields: dict[str, set[str]]):
        """arg_fields: tool name -> argument names it accepts (tools not registered are skipped)."""
        self.arg_fields = arg_fields

    def call(self, name: str, **args) -> list[Call]:
        if name not in self.arg_fields:
            return []
        fields = self.arg_fields[name]
        return [Call(name, {k: v for k, v in args.items() if v is not None and k in fields})]

    # -- round one -----------------------------------------------------------------------------
    def first(self, s: Slots) -> list[Call]:
        if s.unknown_model:
            return self.call("resolve_model", name=s.unknown_model)
        if "list_hardware" in s.intents and not s.model:
            return self.call("list_hardware")
        if not (s.model or s.params_b):
            if "list_models" in s.intents or (s.family and s.intents):
                return self.call("list_models", family=s.family, in_tables_only=not s.family)
            if s.family:
                return self.call("list_models", family=s.family)
            if s.on_topic:
                return self.call("search_notes", query=s.question[:NOTE_QUERY_CHARS], limit=3)
            return []
        e = effective(s)
        calls: list[Call] = []
        if "config" in s.intents:
            calls += self.config_calls(s, e)
        if "inference" in s.intents:
            calls += self.inference_calls(s, e)
        if "memory" in s.intents and "inference" not in s.intents and (
            s.params_b or s.devices or s.zero_stage is not None or "estimate" in s.intents or not s.intents & TRAINING_INTENTS
        ):
            calls += self.memory_calls(s, e)
        if "compare" in s.intents:
            calls += self.call("compare_hardware", model=s.model or self.shape_name(s), method=s.method or "lora", seq_len=e.seq_len)
        if is_training_question(s) and not ("config" in s.intents and not s.intents & TRAINING_INTENTS):
            calls += self.training_calls(s, e)
        if s.intents & {"troubleshoot", "time"}:
            calls += self.call("search_notes", query=s.question[:NOTE_QUERY_CHARS], limit=3)
        return calls

    @staticmethod
    def shape_name(s: Slots) -> str | None:
        return f"{s.params_b:g}B" if s.params_b else None

    def training_calls(self, s: Slots, e: Effective) -> list[Call]:
        calls: list[Call] = []
        if s.model and e.part:
            if s.framework != "MindSpeed-LLM" and e.part == "Snt9B":
                for st in e.strategies:
                    calls += self.call("training_recipe", model=s.model, strategy=st, seq_len=e.seq_len)
            if e.strategies:
                calls += self.call("min_cards", model=s.model, strategy=e.strategies[0] if len(e.strategies) == 1 else None,
                                   seq_len=e.seq_len, hardware=e.part)
        methods = [s.method] if s.method else e.strategies
        for method in methods:
            calls += self.call("plan_training", model=s.model or self.shape_name(s), params_b=s.params_b, method=method,
                               stage=s.stage, seq_len=e.seq_len, hardware=e.hardware, framework=s.framework,
                               max_devices=s.devices)
        return calls

    def memory_calls(self, s: Slots, e: Effective) -> list[Call]:
        return self.call("estimate_training_memory", model=s.model or self.shape_name(s), params_b=s.params_b,
                         method=s.method or "lora", stage=s.stage, seq_len=e.seq_len, devices=s.devices,
                         zero_stage=s.zero_stage, offload=s.offload, hardware=e.hardware)

    def inference_calls(self, s: Slots, e: Effective) -> list[Call]:
        if s.model and e.hardware in ASCEND:
            mem = s.memory_gb if s.memory_gb in (32, 64) else (32 if e.hardware == "snt9b-32g" else None)
            calls = self.call("inference_min_cards", model=s.model, max_model_len=s.seq_len, memory_gb=mem)
            if s.devices and s.seq_len is None:  # "max context on 4 cards": the estimator answers how much fits
                calls += self.estimate_inference(s, e)
            return calls
        return self.estimate_inference(s, e)

    def estimate_inference(self, s: Slots, e: Effective) -> list[Call]:
        return self.call("estimate_inference", model=s.model or self.shape_name(s), params_b=s.params_b,
                         max_model_len=e.seq_len, hardware=e.hardware, gpu_memory_utilization=0.9, devices=s.devices)

    def config_calls(self, s: Slots, e: Effective) -> list[Call]:
        fmt = s.config_format or "llamafactory_yaml"
        framework = s.framework or ("MindSpeed-LLM" if fmt == "mindspeed_env" else "LLaMA-Factory")
        return self.call("generate_config", model=s.model or self.shape_name(s), method=s.method or "lora", stage=s.stage,
                         seq_len=e.seq_len, hardware=e.hardware, framework=framework, format=fmt)

    # -- round two -----------------------------------------------------------------------------
    def more(self, s: Slots, done: list[Done]) -> list[Call]:
        names = {d.name for d in done}
        e = effective(s)
        calls: list[Call] = []
        for d in done:
            if d.name == "min_cards" and d.ok and not d.result.get("rows") and "seq_len" in e.assumed:
                calls += self.call("min_cards", **{k: v for k, v in d.args.items() if k != "seq_len"})
            if d.name == "inference_min_cards" and (not d.ok or d.result.get("cards") is None) and "estimate_inference" not in names:
                calls += self.estimate_inference(s, e)
        return calls
