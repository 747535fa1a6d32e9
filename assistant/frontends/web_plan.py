"""The "Plan" tab: forms that call plan_training and estimate_inference (and the vLLM table) through
the tool registry, showing the estimate, the vendor table row beside it, and a bar chart of the
per-device memory against what the device offers. Every figure shown is a tool's number."""

from __future__ import annotations

import json
from typing import Any

from ..tools import REGISTRY

CHART_COLUMNS = ["bar", "part", "GiB"]
ESTIMATE_BAR, CAPACITY_BAR = "estimate per device", "usable per device"
# Memory fields that are not parts of the per-device sum (the total itself, limits, host memory).
NOT_PARTS = {"total_gib", "usable_gib", "headroom_gib", "host_ram_gib", "fits", "host_ram_fits", "how"}


def schema_choices(tool: str, field: str) -> list[str]:
    """Allowed values of an enum argument, read from the tool's own JSON schema."""
    props = REGISTRY.get(tool).input_schema().get("properties", {})
    spec = props.get(field, {})
    for option in [spec, *spec.get("anyOf", [])]:
        if "enum" in option:
            return list(option["enum"])
    return []


def model_choices(ctx) -> list[str]:
    return [m["id"] for m in REGISTRY.call_json("list_models", {}, ctx).get("models", [])]


def hardware_choices(ctx) -> list[tuple[str, str]]:
    hw = REGISTRY.call_json("list_hardware", {}, ctx).get("hardware", [])
    return [(f"{h['name']} — {h['memory_gb']:g} GB per {h['unit']}", h["id"]) for h in hw]


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
    return "—" if v is None else str(v).replace("|", "\\|")


def kv_table(d: dict[str, Any], keys: list[str]) -> str:
    rows = [f"| {k} | {_fmt(d[k])} |" for k in keys if k in d and not isinstance(d[k], dict | list)]
    return "| | |\n|---|---|\n" + "\n".join(rows) if rows else ""


def _bullets(title: str, items: list[str]) -> str:
    return f"\n\n**{title}**\n" + "\n".join(f"- {i}" for i in items) if items else ""


# ---------------------------------------------------------------- chart rows
def memory_chart_rows(memory: dict[str, Any] | None) -> list[dict[str, Any]]:
    """A plan's ``memory`` breakdown as rows for a stacked bar chart: one bar stacks the parts of
    the estimate, the other is the device's usable memory, so whether it fits is visible at a glance."""
    if not memory:
        return []
    rows = [{"bar": ESTIMATE_BAR, "part": k.removesuffix("_gib"), "GiB": round(float(v), 2)}
            for k, v in memory.items()
            if k not in NOT_PARTS and isinstance(v, int | float) and not isinstance(v, bool) and v > 0]
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
    rows.append({"bar": "vLLM budget per device", "part": "memory x utilization", "GiB": round(float(res["budget_gib"]), 2)})
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
    out += _bullets("Sources", sorted({r["citation"] for r in refs if r.get("citation")}))
    return out


def plan_training_view(ctx, model: str, method: str, stage: str, seq_len: Any, hardware: str, framework: str,
                       max_devices: Any) -> tuple[str, str, list[dict[str, Any]]]:
    """(estimate markdown, vendor-table markdown, chart rows) for the training form."""
    args = {"model": (model or "").strip(), "method": method, "stage": stage, "seq_len": _int(seq_len),
            "hardware": hardware, "framework": framework, "max_devices": _int(max_devices) or None}
    res = REGISTRY.call_json("plan_training", {k: v for k, v in args.items() if v not in (None, "")}, ctx)
    err = _error_md(res)
    if err:
        return err, "", []
    unit = res["unit"]
    cards = f" ({res['physical_cards']} physical cards)" if res.get("physical_cards") else ""
    head = (f"### Estimate: **{res['devices']} {unit}s**{cards} = {res['nodes']} node(s) × {res['per_node']}"
            + ("" if res["fits"] else " — **does not fit**"))
    mem = res["memory"]
    summary = (f"{res['framework']}, {res['method']} {res['stage']}, {res['seq_len']} tokens on {res['hardware']}: "
               f"{mem['total_gib']:.1f} of {mem['usable_gib']:.1f} GiB per device. {res['reason'][:1].upper()}{res['reason'][1:]}.")
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
        md += (f"\n\n**Fewer devices, slower:** {fewer['devices']} {unit}s with {fewer['setting']} "
               f"({fewer['total_gib']:.1f} GiB per device{host}).")
    md += _bullets("How each figure is computed", [f"{k}: {v}" for k, v in (mem.get("how") or {}).items()])
    md += _bullets("Assumptions", res.get("assumptions", []) + res.get("notes", []))
    return md, _table_refs_md(res), memory_chart_rows(mem)


# ---------------------------------------------------------------- inference
def plan_inference_view(ctx, model: str, max_model_len: Any, hardware: str, utilization: Any,
                        concurrency: Any) -> tuple[str, str, list[dict[str, Any]]]:
    """(estimate markdown, vLLM-table markdown, chart rows) for the inference form."""
    args = {"model": (model or "").strip(), "max_model_len": _int(max_model_len), "hardware": hardware,
            "gpu_memory_utilization": float(utilization) if utilization not in (None, "") else None,
            "concurrency": _int(concurrency) or None}
    res = REGISTRY.call_json("estimate_inference", {k: v for k, v in args.items() if v not in (None, "")}, ctx)
    err = _error_md(res)
    if err:
        return err, "", []
    md = (f"### Estimate: **{res['devices']} {res['unit']}s** (TP {res['tp']} × PP {res['pp']})"
          + ("" if res["fits"] else " — **does not fit**")
          + f"\n\n{res['reason']}.\n\n"
          + kv_table(res, ["max_model_len", "gpu_memory_utilization", "concurrency", "kv_bytes_per_token",
                           "kv_bytes_per_token_per_device", "kv_formula", "weights_gib_per_device", "activation_gib",
                           "overhead_gib", "budget_gib", "kv_cache_gib", "kv_tokens_fit", "max_sequences_at_len"]))
    if res.get("note"):
        md += f"\n\n**Table vs estimate:** {res['note']}"
    md += _bullets("Assumptions", res.get("assumptions", []))
    return md, _vllm_table_md(ctx, res), inference_chart_rows(res)


def _vllm_table_md(ctx, res: dict[str, Any]) -> str:
    head = "### vLLM table (ModelArts, Ascend)\n"
    tab = REGISTRY.call_json("inference_min_cards", {"model": res["model"], "max_model_len": res["max_model_len"]}, ctx)
    if _error_md(tab):
        return head + tab["error"]["message"]
    lines = [f"Fewest cards tested at ≥ {res['max_model_len']} tokens: **{_fmt(tab.get('cards'))}**", "",
             "| table | GB per card | cards | max-model-len | utilization |", "|---|---|---|---|---|"]
    lines += [f"| {r['table']} | {r['memory_gb']} | {_fmt(r['cards'])} | {_fmt(r['max_model_len'])} | "
              f"{_fmt(r['gpu_memory_utilization'])} |" for r in tab.get("rows", [])]
    out = head + "\n".join(lines)
    out += _bullets("Notes", tab.get("notes", []))
    return out + _bullets("Sources", sorted({r["source"] for r in tab.get("rows", [])}))


def _int(v: Any) -> int | None:
    try:
        return int(float(v)) if v not in (None, "") else None
    except (TypeError, ValueError):
        return None


# ---------------------------------------------------------------- UI
def _chart(gr, elem_id: str):
    return gr.BarPlot(x="bar", y="GiB", color="part", title="Memory per device (GiB): estimate vs. what the device offers",
                      x_title=" ", y_title="GiB", color_title=" ", elem_id=elem_id, height=340)


def _frame(rows: list[dict[str, Any]]):
    import pandas as pd

    return pd.DataFrame(rows, columns=CHART_COLUMNS)


def render_plan_tab(ctx) -> None:
    """Build the training and inference forms inside the caller's Blocks context."""
    import gradio as gr

    models = model_choices(ctx)
    hardware = hardware_choices(ctx)
    hw_ids = [h for _, h in hardware]
    default_hw = "snt9b" if "snt9b" in hw_ids else (hw_ids[0] if hw_ids else None)
    default_model = "qwen2.5-72b" if "qwen2.5-72b" in models else (models[0] if models else None)

    def model_dropdown(elem_id: str):
        return gr.Dropdown(models, value=default_model, allow_custom_value=True, filterable=True, elem_id=elem_id,
                           label="Model — type to search; any spelling or a name not listed")

    with gr.Tabs():
        with gr.Tab("Training · 训练", id="plan-training"), gr.Row():
            with gr.Column(scale=1, min_width=300):
                t_model = model_dropdown("plan-model")
                t_method = gr.Dropdown(schema_choices("plan_training", "method"), value="lora", label="Method",
                                       elem_id="plan-method")
                t_stage = gr.Dropdown(schema_choices("plan_training", "stage"), value="sft", label="Stage",
                                      elem_id="plan-stage")
                t_seq = gr.Number(4096, precision=0, minimum=1, label="Sequence length (tokens)", elem_id="plan-seq")
                t_hw = gr.Dropdown(hardware, value=default_hw, label="Hardware", elem_id="plan-hw")
                t_fw = gr.Dropdown(schema_choices("plan_training", "framework"), value="LLaMA-Factory",
                                   label="Framework", elem_id="plan-fw")
                t_max = gr.Number(None, precision=0, minimum=0, label="Max devices (0 = no limit)", elem_id="plan-max")
                t_btn = gr.Button("Plan training", variant="primary", elem_id="plan-train")
            with gr.Column(scale=2):
                t_chart = _chart(gr, "plan-chart")
                with gr.Row():
                    t_plan = gr.Markdown(elem_id="plan-result")
                    t_table = gr.Markdown(elem_id="plan-table")
        with gr.Tab("Inference · 推理", id="plan-inference"), gr.Row():
            with gr.Column(scale=1, min_width=300):
                i_model = model_dropdown("infer-model")
                i_len = gr.Number(32768, precision=0, minimum=1, label="max-model-len (tokens)", elem_id="infer-len")
                i_hw = gr.Dropdown(hardware, value=default_hw, label="Hardware", elem_id="infer-hw")
                i_util = gr.Slider(0.5, 0.98, value=0.9, step=0.01, label="gpu-memory-utilization")
                i_conc = gr.Number(1, precision=0, minimum=1, label="Concurrent sequences at max-model-len")
                i_btn = gr.Button("Estimate inference", variant="primary", elem_id="plan-infer")
            with gr.Column(scale=2):
                i_chart = _chart(gr, "infer-chart")
                with gr.Row():
                    i_est = gr.Markdown(elem_id="infer-result")
                    i_table = gr.Markdown(elem_id="infer-table")

    def on_train(model, method, stage, seq_len, hw, framework, max_devices):
        md, table_md, rows = plan_training_view(ctx, model, method, stage, seq_len, hw, framework, max_devices)
        return md, table_md, _frame(rows)

    def on_infer(model, max_len, hw, util, concurrency):
        md, table_md, rows = plan_inference_view(ctx, model, max_len, hw, util, concurrency)
        return md, table_md, _frame(rows)

    t_btn.click(on_train, [t_model, t_method, t_stage, t_seq, t_hw, t_fw, t_max], [t_plan, t_table, t_chart])
    i_btn.click(on_infer, [i_model, i_len, i_hw, i_util, i_conc], [i_est, i_table, i_chart])
