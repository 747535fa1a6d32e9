"""The "Plan" tab: forms that call plan_training, estimate_training_time and estimate_inference (and
the vLLM table) through the tool registry, showing the estimate for the named model, the vendor
table row below it, and a bar chart of the per-device memory against what the device offers. Every
figure shown is a tool's number. The form's values go into the page address, so a link reopens
the same plan."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ..answer import source_as_known
from ..errors import SizingError
from ..hf_config import read_config
from ..tools import REGISTRY

TOOL_HINT = re.compile(r"\s*Use estimate_inference[^.]*\.")
ESTIMATE_BAR, CAPACITY_BAR = "estimate per device", "usable per device (the limit)"
RANGE_BAR = "likely range of the estimate"
VERDICT_WORDS = {"fits": "fits", "tight": "tight", "does_not_fit": "does not fit"}
# What a memory figure stands for (the training result's `metric`): the point is the allocator's pool.
METRIC_WORDS = {"reserved": "the allocator's pool with the runtime beside it, what nvidia-smi and npu-smi show"}
# Memory fields that are not parts of the per-device sum (the total itself, its range, limits, host memory).
NOT_PARTS = {"total_gib", "usable_gib", "headroom_gib", "host_ram_gib", "fits", "host_ram_fits", "how",
             "allocated_gib", "reserved_gib", "low_gib", "high_gib", "verdict", "metric"}
# One colour per chart part, fixed, so the same term has the same colour in every plan.
PART_COLOURS = {"weights": "#4e79a7", "gradients": "#f28e2b", "optimizer": "#e15759", "activations": "#76b7b2",
                "logits": "#59a14f", "overhead": "#edc948", "KV cache for the context": "#b07aa1",
                "usable memory": "#9c9c9c", "memory x utilization": "#9c9c9c", "other": "#ff9da7",
                "range low end": "#d4d4d4", "likely range": "#9d7660",  # brown: not the gradients' orange
                "cached": "#bab0ac"}  # the pool's cached loss blocks (memory.cached_blocks): grey-brown, not "other"
LABELS = {"zero_stage": "DeepSpeed ZeRO stage", "offload": "CPU offload", "tp": "Tensor parallel (TP)",
          "pp": "Pipeline parallel (PP)", "cp": "Context parallel (CP)", "recompute": "Activation recompute",
          "distributed_optimizer": "Distributed optimizer", "micro_batch": "Micro batch per device",
          "grad_accum": "Gradient accumulation steps", "global_batch": "Global batch (sequences)",
          "max_model_len": "max-model-len (tokens)", "gpu_memory_utilization": "gpu-memory-utilization",
          "concurrency": "Sequences at max-model-len", "weight_bits": "Weight bits", "kv_cache_dtype": "KV cache precision",
          "kv_bytes_per_token": "KV cache bytes per token", "kv_bytes_per_token_per_device": "KV bytes per token per device",
          "kv_formula": "KV bytes formula", "weights_gib_per_device": "Weights per device (GiB)",
          "activation_gib": "Activations (GiB)", "overhead_gib": "Overhead (GiB)", "budget_gib": "vLLM memory budget (GiB)",
          "kv_cache_gib": "KV cache space (GiB)", "kv_tokens_fit": "Tokens of KV cache that fit",
          "max_sequences_at_len": "Sequences of max-model-len that fit"}
TRAIN_FIELDS = ["model", "params_b", "method", "stage", "seq_len", "micro_batch", "precision", "quant_bits",
                "hardware", "framework", "max_devices", "tokens_m", "tps"]
INFER_FIELDS = ["model", "params_b", "max_model_len", "weight_bits", "kv_cache_dtype", "hardware", "gpu_memory_utilization",
                "concurrency"]
KV_CACHE_DTYPES = [("the model's bf16 / fp16", "auto"), ("fp8 (GPUs)", "fp8"), ("int8 (Ascend)", "int8")]
WEIGHT_BITS = [("in the checkpoint's own precision", "native"), ("16-bit (bf16)", "16"), ("8-bit (W8A8 / FP8)", "8"), ("4-bit (AWQ / GPTQ)", "4")]


def schema_choices(tool: str, field: str) -> list:
    """Allowed values of an enum argument, read from the tool's own JSON schema."""
    props = REGISTRY.get(tool).input_schema().get("properties", {})
    spec = props.get(field, {})
    for option in [spec, *spec.get("anyOf", [])]:
        if "enum" in option:
            return list(option["enum"])
    return []


def model_choices(ctx) -> list[str]:
    return sorted(m["id"] for m in REGISTRY.call_json("list_models", {}, ctx).get("models", []))


def hardware_choices(ctx) -> list[tuple[str, str]]:
    hw = REGISTRY.call_json("list_hardware", {}, ctx).get("hardware", [])
    return [(f"{h['name']} — {h['memory_gb']:g} GB per {h['unit']}", h["id"]) for h in hw]


def hardware_name(ctx, hw_id: str) -> str:
    """The part's name as its vendor writes it ("NVIDIA H100 80GB"), not the catalog id; a memory size
    typed into the box keeps the tool's own name for it."""
    names = {h["id"]: h["name"] for h in REGISTRY.call_json("list_hardware", {}, ctx).get("hardware", [])}
    return names.get(hw_id, hw_id)


def _run_form(ctx, tool: str, build: Callable[[dict[str, Any]], dict[str, Any]],
              form: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], str | None]:
    """(tool arguments, tool result, error markdown or None) for one form: a form value the tool
    cannot take and an error the tool returns read the same way."""
    try:
        args = build(form)
    except SizingError as e:
        return {}, {}, f"⚠️ **{e.code}**: {e.message}"
    res = REGISTRY.call_json(tool, args, ctx)
    return args, res, _error_md(res)


def _error_md(res: dict) -> str | None:
    err = res.get("error") if len(res) == 1 else None
    if not isinstance(err, dict):
        return None
    md = f"⚠️ **{err.get('code')}**: {err.get('message')}"
    if err.get("valid") not in (None, [], ""):
        md += f"\n\nValid: `{json.dumps(err['valid'], ensure_ascii=False, default=str)[:600]}`"
    return md


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:,.2f}".rstrip("0").rstrip(".")
    if isinstance(v, int):
        return f"{v:,}"
    return "—" if v is None else str(v).replace("|", "\\|")


def count(n: Any, unit: str) -> str:
    """"1 card", "32 cards", "1 node"."""
    return f"{_fmt(n)} {unit}" + ("" if n == 1 else "s")


def kv_table(d: dict[str, Any], keys: list[str]) -> str:
    rows = [f"| {LABELS.get(k, k)} | {_fmt(d[k])} |" for k in keys if k in d and not isinstance(d[k], dict | list)]
    return "| Setting | Value |\n|---|---|\n" + "\n".join(rows) if rows else ""


def _bullets(title: str, items: list[str]) -> str:
    return f"\n\n**{title}**\n" + "\n".join(f"- {i}" for i in items) if items else ""


def number(v: Any) -> float | None:
    try:
        return float(v) if v not in (None, "") else None
    except (TypeError, ValueError):
        return None


def whole(v: Any) -> int | None:
    f = number(v)
    return int(f) if f is not None else None


def sized_from(form: dict[str, Any]) -> str:
    """What the form sizes: "config" (a pasted config.json), "params" (a parameter count) or "name".
    A config or a count is something the user entered on purpose, so it wins over the name in the
    model box (which starts filled in)."""
    if str(form.get("config") or "").strip():
        return "config"
    return "params" if number(form.get("params_b")) else "name"


def model_args(form: dict[str, Any]) -> dict[str, Any]:
    """model / params_b / shape for a tool, from a pasted config.json (its shape, and its parameter
    count unless one is given), a raw parameter count (billions), or else the model name."""
    out: dict[str, Any] = {}
    source = sized_from(form)
    if source == "name":
        name = str(form.get("model") or "").strip()
        return {"model": name} if name else out
    if number(form.get("params_b")):
        out["params_b"] = number(form.get("params_b"))
    if source == "config":
        shape, params_b = read_config(str(form.get("config")).strip())
        out["shape"] = shape
        out.setdefault("params_b", round(params_b, 3))
    return out


def model_line(form: dict[str, Any], res: dict[str, Any]) -> str:
    """Which model was sized: the catalog model the name resolved to, or the pasted config.json or
    parameter count (and that a name left in the model box was not used)."""
    typed = str(form.get("model") or "").strip()
    source = sized_from(form)
    if source != "name":
        what = "the pasted config.json" if source == "config" else "the parameter count given"
        params = number(res.get("params_b") or form.get("params_b") or (res.get("shape") or {}).get("params_b"))
        size = f", {_fmt(params)}B parameters" if params else ""
        unused = f"; the name “{typed}” in the model box was not used" if typed else ""
        return f"**Model:** {res.get('model') or 'custom model'} (sized from {what}{size}{unused})"
    if res.get("model") and typed and typed.lower() != str(res["model"]).lower():
        return f"**Model:** {res['model']} (from “{typed}”)"
    if res.get("model"):
        return f"**Model:** {res['model']}"
    return f"**Model:** {_fmt(res.get('params_b') or form.get('params_b'))}B parameters"


def _metric(mem: dict[str, Any]) -> str:
    """What the figure stands for: the pool (the point and its range), with the tensors alone beside it."""
    words = METRIC_WORDS.get(str(mem.get("metric")))
    if not words:
        return ""
    alloc = mem.get("allocated_gib")
    return f" (the figure is {words}" + (f"; the tensors alone {alloc:.1f} GiB)" if isinstance(alloc, int | float) else ")")


# ---------------------------------------------------------------- chart rows
def memory_chart_rows(memory: dict[str, Any] | None) -> list[dict[str, Any]]:
    """A plan's ``memory`` breakdown as rows for a stacked bar chart: one bar stacks the parts of
    the estimate, the other is the device's usable memory, so whether it fits is visible at a glance."""
    if not memory:
        return []
    rows = [{"bar": ESTIMATE_BAR, "part": k.removesuffix("_gib"), "GiB": round(float(v), 2)}
            for k, v in memory.items()
            if k not in NOT_PARTS and isinstance(v, int | float) and not isinstance(v, bool) and v > 0]
    if isinstance(memory.get("low_gib"), int | float) and isinstance(memory.get("high_gib"), int | float):
        low, high = float(memory["low_gib"]), float(memory["high_gib"])
        rows += [{"bar": RANGE_BAR, "part": "range low end", "GiB": round(low, 2)},
                 {"bar": RANGE_BAR, "part": "likely range", "GiB": round(high - low, 2)}]
    if isinstance(memory.get("usable_gib"), int | float):
        rows.append({"bar": CAPACITY_BAR, "part": "usable memory", "GiB": round(float(memory["usable_gib"]), 2)})
    return rows


def inference_chart_rows(res: dict[str, Any]) -> list[dict[str, Any]]:
    """Per-device memory for serving: weights, activations, overhead and the KV cache the requested
    context needs (the tool's bytes per token per device x max_model_len x concurrency), against the
    vLLM budget (memory x gpu-memory-utilization) the tool computed."""
    gib = 1024**3
    kv_needed = res["kv_bytes_per_token_per_device"] * res["max_model_len"] * res["concurrency"] / gib
    parts = [("weights", res["weights_gib_per_device"]), ("activations", res["activation_gib"]),
             ("overhead", res["overhead_gib"]), ("KV cache for the context", kv_needed)]
    rows = [{"bar": ESTIMATE_BAR, "part": name, "GiB": round(float(v), 2)} for name, v in parts if v > 0]
    rows.append({"bar": CAPACITY_BAR, "part": "memory x utilization", "GiB": round(float(res["budget_gib"]), 2)})
    return rows


# ---------------------------------------------------------------- training
def _table_refs_md(res: dict[str, Any]) -> str:
    refs = [r for r in [res.get("table"), *res.get("table_also", [])] if r]
    unit = res.get("unit", "card")
    head = "### Vendor table\n"
    if not refs:
        return head + "No vendor-table row for this combination: the estimate stands alone."
    lines = [f"| table | {unit}s | ZeRO | offload | grad accum | cell |", "|---|---|---|---|---|---|"]
    lines += [f"| {r['source']} | **{_fmt(r['cards']) if r.get('supported', True) else 'not supported'}** | "
              f"{_fmt(r.get('zero_stage'))} | {_fmt(r.get('offload'))} | {_fmt(r.get('grad_accum'))} | {_fmt(r.get('cell'))} |"
              for r in refs]
    out = head + "\n".join(lines)
    out += _bullets("Flagged", [f"{r['source']}: {r['flagged']}" for r in refs if r.get("flagged")])
    out += _bullets("Sources", sorted({source_as_known(r["citation"]) for r in refs if r.get("citation")}))
    return out


def training_args(form: dict[str, Any]) -> dict[str, Any]:
    args = {**model_args(form), "method": form.get("method"), "stage": form.get("stage"),
            "seq_len": whole(form.get("seq_len")), "hardware": form.get("hardware"), "framework": form.get("framework"),
            "max_devices": whole(form.get("max_devices")) or None, "micro_batch": whole(form.get("micro_batch")),
            "precision": form.get("precision")}
    if form.get("method") == "qlora":
        args["quant_bits"] = whole(form.get("quant_bits"))
    return {k: v for k, v in args.items() if v not in (None, "")}


def plan_training_view(ctx, form: dict[str, Any]) -> tuple[str, str, list[dict[str, Any]]]:
    """(estimate markdown with the training time, vendor-table markdown, chart rows) for the training form."""
    args, res, err = _run_form(ctx, "plan_training", training_args, form)
    if err:
        return err, "", []
    unit = res["unit"]
    cards = f" ({count(res['physical_cards'], 'physical card')})" if res.get("physical_cards") else ""
    head = f"### Estimate: **{count(res['devices'], unit)}**{cards} = {count(res['nodes'], 'node')} × {res['per_node']}"
    if not res["fits"]:  # not "4,096 cards … does not fit": the count is where the search stopped, not a need
        limit = whole(form.get("max_devices"))
        head = (f"### Does not fit within **{count(limit, unit)}** (estimate)" if limit else
                f"### Does not fit on any number of {unit}s (estimate; tried up to {count(res['devices'], unit)})")
    mem = res["memory"]
    summary = (f"{model_line(form, res)} · {res['framework']}, {res['method']} {res['stage']}, {res['seq_len']:,} tokens "
               f"on {hardware_name(ctx, res['hardware'])}: about {mem['total_gib']:.1f} GiB, likely {mem['low_gib']:.1f}-{mem['high_gib']:.1f} "
               f"GiB (estimate) of {mem['usable_gib']:.1f} GiB per device — {VERDICT_WORDS[mem['verdict']]}{_metric(mem)}. "
               f"{res['reason'][:1].upper()}{res['reason'][1:]}.")
    keys = ["zero_stage", "offload", "tp", "pp", "cp", "recompute", "distributed_optimizer", "micro_batch",
            "grad_accum", "global_batch"]
    md = f"{head}\n\n{summary}\n\n{kv_table(res, keys)}"
    if res.get("note"):
        md += f"\n\n**Table vs estimate:** {res['note']}"
    if res.get("practice"):
        md += f"\n\n**Vendor practice:** {res['practice']}."
    fewer = res.get("fewer_devices")
    if fewer:
        host = f", {fewer['host_ram_gib_per_node']:,.0f} GiB host RAM per node" if fewer.get("host_ram_gib_per_node") else ""
        md += (f"\n\n**Fewer devices, slower:** {count(fewer['devices'], unit)} with {fewer['setting']} "
               f"({fewer['total_gib']:.1f} GiB per device{host}).")
    md += training_time_md(ctx, form, args, res)
    md += _bullets("How each figure is computed", [f"{k}: {v}" for k, v in (mem.get("how") or {}).items()])
    md += _bullets("Assumptions", res.get("assumptions", []) + res.get("notes", []))
    return md, _table_refs_md(res), memory_chart_rows(mem)


def training_time_md(ctx, form: dict[str, Any], args: dict[str, Any], plan: dict[str, Any]) -> str:
    """The estimate_training_time tool for the planned devices and the form's token count."""
    tokens_m = number(form.get("tokens_m"))
    if not tokens_m or not plan.get("fits"):
        return ""
    targs = {k: v for k, v in args.items() if k in ("model", "params_b")}
    targs.update(tokens=tokens_m * 1e6, devices=plan["devices"], hardware=plan["hardware"],
                 recompute=bool(plan.get("recompute")))
    if number(form.get("tps")):
        targs["tps"] = number(form.get("tps"))
    res = REGISTRY.call_json("estimate_training_time", targs, ctx)
    head = f"\n\n### Training time (estimate) for {tokens_m:,g} M tokens on {count(plan['devices'], plan['unit'])}\n"
    if _error_md(res):
        return head + res["error"]["message"]
    out = head + f"**{res['hours']:,.1f} hours** ({res['days']:,.2f} days). {res['formula']}."
    out += _bullets("Assumptions", res.get("assumptions", []) + res.get("notes", []))
    return out + (f"\n\nSource: {res['source']}" if res.get("source") else "")


# ---------------------------------------------------------------- inference
def inference_args(form: dict[str, Any]) -> dict[str, Any]:
    bits = str(form.get("weight_bits") or "")
    args = {**model_args(form), "max_model_len": whole(form.get("max_model_len")), "hardware": form.get("hardware"),
            "gpu_memory_utilization": number(form.get("gpu_memory_utilization")),
            "concurrency": whole(form.get("concurrency")) or None,
            "weight_bits": int(bits) if bits.isdigit() else None,
            "kv_cache_dtype": form.get("kv_cache_dtype") if form.get("kv_cache_dtype") != "auto" else None}
    return {k: v for k, v in args.items() if v not in (None, "")}


def weight_label(bits: int | None) -> str:
    return next((label for label, value in WEIGHT_BITS if value == str(bits)), WEIGHT_BITS[0][0]) if bits else WEIGHT_BITS[0][0]


def plan_inference_view(ctx, form: dict[str, Any]) -> tuple[str, str, list[dict[str, Any]]]:
    """(estimate markdown, vLLM-table markdown, chart rows) for the inference form."""
    args, res, err = _run_form(ctx, "estimate_inference", inference_args, form)
    if err:
        return err, "", []
    md = (f"### Estimate: **{count(res['devices'], res['unit'])}** (TP {res['tp']} × PP {res['pp']})"
          + ("" if res["fits"] else " — **does not fit**")
          + f"\n\n{model_line(form, res)} on {hardware_name(ctx, res['hardware'])}, weights {weight_label(args.get('weight_bits'))}. "
          + f"{res['reason'][:1].upper()}{res['reason'][1:]}.\n\n"
          + kv_table(res, ["max_model_len", "gpu_memory_utilization", "concurrency", "weight_bits", "kv_bytes_per_token",
                           "kv_bytes_per_token_per_device", "kv_formula", "weights_gib_per_device", "activation_gib",
                           "overhead_gib", "budget_gib", "kv_cache_gib", "kv_tokens_fit", "max_sequences_at_len"]))
    warning = beyond_model_limit(ctx, res) if sized_from(form) == "name" else ""
    md = md.replace("\n\n", f"\n\n{warning}\n\n", 1) if warning else md
    if res.get("note"):
        md += f"\n\n**Table vs estimate:** {res['note']}"
    md += _bullets("Assumptions", res.get("assumptions", []))
    return md, _vllm_table_md(ctx, res if sized_from(form) == "name" else {}), inference_chart_rows(res)


def beyond_model_limit(ctx, res: dict[str, Any]) -> str:
    """A warning when max-model-len is longer than the model's own context (its config's
    max_position_embeddings, from resolve_model): vLLM refuses such a length unless RoPE scaling is
    configured, so the memory estimate alone would mislead."""
    info = REGISTRY.call_json("resolve_model", {"name": res["model"]}, ctx) if res.get("model") else {}
    limit = info.get("max_context") if isinstance(info, dict) else None
    if not isinstance(limit, int) or res["max_model_len"] <= limit:
        return ""
    return (f"⚠️ **{res['max_model_len']:,} tokens is beyond {res['model']}'s own limit of {limit:,} tokens** "
            "(max_position_embeddings in its config.json): vLLM refuses a longer max-model-len unless RoPE scaling "
            "(--rope-scaling) extends the model, and quality beyond the trained length is not assured. "
            "The memory estimate below is for the length asked.")


def _vllm_table_md(ctx, res: dict[str, Any]) -> str:
    head = "### vLLM table (ModelArts, Ascend)\n"
    if not res.get("model"):
        return head + "The vLLM tables list catalog models only."
    tab = REGISTRY.call_json("inference_min_cards", {"model": res["model"], "max_model_len": res["max_model_len"]}, ctx)
    if _error_md(tab):
        return head + tab["error"]["message"]
    lines = [f"Fewest cards tested at ≥ {res['max_model_len']:,} tokens: **{_fmt(tab.get('cards'))}**", "",
             "| table | GB per card | cards | max-model-len | utilization |", "|---|---|---|---|---|"]
    lines += [f"| {r['table']} | {r['memory_gb']} | {_fmt(r['cards'])} | {r['max_model_len']} | "
              f"{_fmt(r['gpu_memory_utilization'])} |" for r in tab.get("rows", [])]
    out = head + "\n".join(lines)
    # the tool's hint to an agent ("Use estimate_inference ...") is what the Estimate above already is
    out += _bullets("Notes", [TOOL_HINT.sub(" The estimate above covers it.", n) for n in tab.get("notes", [])])
    return out + _bullets("Sources", sorted({source_as_known(r["source"]) for r in tab.get("rows", [])}))


# ---------------------------------------------------------------- what fits
GOALS = [("the largest model", "model"), ("the longest context", "context"), ("the biggest batch", "batch")]


def what_fits_args(form: dict[str, Any]) -> dict[str, Any]:
    goal = form.get("goal") if form.get("goal") in ("context", "batch") else "model"
    training = form.get("workload") == "training"
    args: dict[str, Any] = {"goal": goal, "workload": "training" if training else "inference",
                            "hardware": form.get("hardware"), "devices": whole(form.get("devices")) or 1}
    if goal != "model":
        name = str(form.get("model") or "").strip()
        if not name:
            raise SizingError("missing_model", "Name a model in the Model box to find its longest context or "
                              "biggest batch.", field="model")
        args["model"] = name
        args["seq_len"] = whole(form.get("seq_len")) or 4096
    else:
        args["seq_len"] = whole(form.get("seq_len")) or 4096
    if training:
        args["method"] = form.get("method") or "lora"
    return args


def _fits_plan_line(training: bool, plan: dict[str, Any]) -> str:
    """The plan the tool found, in one line: devices, setting, memory per device and host RAM when offloading."""
    devices = count(plan["devices"], plan["unit"])
    if not training:
        return (f"{devices} (TP {plan.get('tp')} × PP {plan.get('pp')}) serving at "
                f"{_fmt(plan.get('max_model_len'))} tokens; {plan.get('reason')}")
    mem = plan.get("memory") or {}
    setting = f"ZeRO-{plan.get('zero_stage')}" + (" + CPU offload" if plan.get("offload") else "")
    if (plan.get("tp") or 1) > 1 or (plan.get("pp") or 1) > 1:
        setting += f", TP {plan.get('tp')} × PP {plan.get('pp')}"
    host = (f", and about **{mem['host_ram_gib']:,.0f} GiB of host RAM** per node for the offloaded states"
            if plan.get("offload") and mem.get("host_ram_gib") else "")
    return (f"{devices}, {setting}, {plan.get('method')} at {_fmt(plan.get('seq_len'))} tokens: "
            f"{mem.get('total_gib', 0):.1f} of {mem.get('usable_gib', 0):.1f} GiB per device{host}")


def what_fits_view(ctx, form: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """(markdown, chart rows): the what_fits tool's answer for the form, as the chat gives it: for
    training the largest model without CPU offload first, then the larger one offload allows with
    its host RAM; a longest context capped by the model's own limit, saying which limit binds."""
    args, res, err = _run_form(ctx, "what_fits", what_fits_args, form)
    if err:
        return err, []
    training, goal, plan = res["workload"] == "training", res["goal"], res.get("plan")
    where = f"{res['devices']} × {hardware_name(ctx, res['hardware'])}"
    if res["value"] is None or not plan:
        what = dict((v, k) for k, v in GOALS)[goal].removeprefix("the ")
        fast = " without CPU offload" if res.get("offload_value") else ""
        md = f"### Nothing fits on {where}{fast}\n\nNo {what} fits (estimate, {res['tried']} plans tried)."
        if res.get("offload_value") and res.get("offload_plan"):
            md += (f"\n\n**With CPU offload (slower):** **{res['offload_value']}** — "
                   f"{_fits_plan_line(training, res['offload_plan'])}.")
        return md, []
    value = res["value"]
    if goal == "model":
        what = f"**{value}**" + (" without CPU offload" if training else "")
    elif goal == "context":
        what = f"**{value:,} tokens** for {res['model']}"
    else:
        what = (f"**{value:,}** {'sequences per device (micro batch)' if training else 'sequences at max-model-len'} "
                f"for {res['model']}")
    md = f"### On {where}: {what} (estimate)\n\n**Plan** ({res['plan_tool']}): {_fits_plan_line(training, plan)}."
    if goal == "context":
        memory, model = res.get("memory_limit"), res.get("model_limit")
        if res.get("limited_by") == "model":
            md += (f"\n\n**The model's own limit binds:** {res['model']} was trained for {model:,} tokens "
                   f"(max_position_embeddings in its config.json); memory alone would allow {memory:,}.")
        else:
            md += (f"\n\n**Memory binds:** {memory:,} tokens fit in device memory"
                   + (f"; the model's own limit is {model:,} (max_position_embeddings)." if model else "."))
    if res.get("offload_value") and res.get("offload_plan"):
        md += (f"\n\n**With CPU offload (slower):** **{res['offload_value']}** — "
               f"{_fits_plan_line(training, res['offload_plan'])}.")
    md += f"\n\nFound by asking {res['plan_tool']} {count(res['tried'], 'time')}."
    md += _bullets("Assumptions", [*res.get("assumptions", []), *list(plan.get("assumptions", []))[:6]])
    rows = memory_chart_rows(plan.get("memory")) if training else inference_chart_rows(plan)
    return md, rows
