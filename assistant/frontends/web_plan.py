"""The "Plan" tab: a form that calls plan_training / estimate_inference (and the vendor tables beside
them) through the tool registry, and turns the results into markdown and a memory chart."""

from __future__ import annotations

import json
from typing import Any

from ..tools import REGISTRY

METHODS = ["lora", "qlora", "full", "freeze"]
FRAMEWORKS = ["LLaMA-Factory", "MindSpeed-LLM"]
# Memory fields that are not a part of the per-device sum (the total itself, limits, host memory).
NOT_COMPONENTS = {"total", "total_gib", "usable", "usable_gib", "capacity", "capacity_gib", "device_gib",
                  "device_memory_gib", "host", "host_gib", "host_ram_gib", "fits", "headroom_gib", "free_gib"}
CAPACITY_KEYS = ("usable_gib", "usable", "device_usable_gib", "capacity_gib", "device_memory_gib", "device_gib")


def model_choices(ctx) -> list[str]:
    res = REGISTRY.call_json("list_models", {}, ctx)
    return [m["id"] for m in res.get("models", [])]


def hardware_choices(ctx) -> list[tuple[str, str]]:
    res = REGISTRY.call_json("list_hardware", {}, ctx)
    return [(f"{h['name']} ({h['memory_gb']:g} GB/{h['unit']})", h["id"]) for h in res.get("hardware", [])]


def hardware_memory_gb(ctx, hw_id: str) -> float | None:
    row = ctx.kb.hardware_row(hw_id) if hw_id else None
    return float(row["memory_gb"]) if row and row.get("memory_gb") is not None else None


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
        return f"{v:.2f}".rstrip("0").rstrip(".")
    if isinstance(v, dict | list):
        return json.dumps(v, ensure_ascii=False, default=str)[:300]
    return "—" if v is None else str(v)


def kv_table(d: dict[str, Any], keys: list[str] | None = None) -> str:
    keys = [k for k in (keys or list(d)) if k in d and not isinstance(d[k], dict | list)]
    if not keys:
        return ""
    return "| field | value |\n|---|---|\n" + "\n".join(f"| {k} | {_fmt(d[k])} |" for k in keys)


def find_breakdown(result: Any) -> dict[str, Any] | None:
    """The per-device memory dict in an estimator result: the first dict (searched breadth-first)
    that has a 'total' figure and at least two other numbers."""
    queue = [result]
    while queue:
        node = queue.pop(0)
        if isinstance(node, dict):
            nums = {k: v for k, v in node.items() if isinstance(v, int | float) and not isinstance(v, bool)}
            if any(k in nums for k in ("total", "total_gib")) and len(nums) >= 3:
                return node
            queue.extend(v for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            queue.extend(node)
    return None


def memory_chart_rows(breakdown: dict[str, Any] | None, capacity_gib: float | None) -> list[dict[str, Any]]:
    """Rows for a stacked bar chart: one bar stacks the estimate's components, the other bar is the
    device's usable memory, so a person sees at a glance whether the plan fits."""
    if not breakdown:
        return []
    rows = []
    for k, v in breakdown.items():
        if k in NOT_COMPONENTS or isinstance(v, bool) or not isinstance(v, int | float) or v <= 0:
            continue
        rows.append({"bar": "estimate per device", "part": k.removesuffix("_gib"), "GiB": round(float(v), 2)})
    cap = next((breakdown[k] for k in CAPACITY_KEYS if isinstance(breakdown.get(k), int | float)), None) or capacity_gib
    if cap:
        rows.append({"bar": "device capacity", "part": "usable memory", "GiB": round(float(cap), 2)})
    return rows


def plan_training_view(ctx, model: str, method: str, seq_len: Any, hardware: str, framework: str,
                       max_devices: Any) -> tuple[str, str, list[dict[str, Any]]]:
    """(plan markdown, vendor-table markdown, chart rows) for the training form."""
    args: dict[str, Any] = {"model": (model or "").strip(), "method": method, "seq_len": _int(seq_len),
                            "hardware": hardware, "framework": framework}
    if _int(max_devices):
        args["max_devices"] = _int(max_devices)
    args = {k: v for k, v in args.items() if v not in (None, "")}
    res = REGISTRY.call_json("plan_training", args, ctx)
    err = _error_md(res)
    if err:
        return err, "", []
    main = ["devices", "nodes", "per_node", "zero_stage", "offload", "tp", "pp", "micro_batch", "grad_accum"]
    extra = [k for k in res if k not in main and k != "table"]
    plan_md = "### Estimate\n" + kv_table(res, main + extra)
    table = res.get("table")
    if table:
        table_md = "### Vendor table\n" + kv_table(table if isinstance(table, dict) else {"row": table})
    else:
        table_md = "### Vendor table\nNo row in the vendor tables for this combination: the estimate stands alone."
    return plan_md, table_md, memory_chart_rows(find_breakdown(res), hardware_memory_gb(ctx, hardware))


def plan_inference_view(ctx, model: str, max_model_len: Any, hardware: str, utilization: Any,
                        concurrency: Any) -> tuple[str, str, list[dict[str, Any]]]:
    """(estimate markdown, vLLM-table markdown, chart rows) for the inference form."""
    args: dict[str, Any] = {"model": (model or "").strip(), "max_model_len": _int(max_model_len), "hardware": hardware}
    if utilization not in (None, ""):
        args["gpu_memory_utilization"] = float(utilization)
    if _int(concurrency):
        args["concurrency"] = _int(concurrency)
    args = {k: v for k, v in args.items() if v not in (None, "")}
    res = REGISTRY.call_json("estimate_inference", args, ctx)
    err = _error_md(res)
    est_md = err or "### Estimate\n" + kv_table(res)
    mem = hardware_memory_gb(ctx, hardware)
    tab_args = {"model": args.get("model", ""), "max_model_len": args.get("max_model_len")}
    if mem and int(mem) in (32, 64):
        tab_args["memory_gb"] = int(mem)
    tab = REGISTRY.call_json("inference_min_cards", {k: v for k, v in tab_args.items() if v}, ctx)
    if _error_md(tab):
        table_md = "### vLLM table\n" + (tab["error"]["message"])
    else:
        lines = ["### vLLM table", f"Fewest cards meeting the request: **{_fmt(tab.get('cards'))}**", "",
                 "| table | memory GB | cards | max-model-len | supported | source |", "|---|---|---|---|---|---|"]
        lines += [f"| {r['table']} | {r['memory_gb']} | {_fmt(r['cards'])} | {_fmt(r['max_model_len'])} | "
                  f"{_fmt(r['supported'])} | {r['source']} |" for r in tab.get("rows", [])]
        lines += [f"\n{n}" for n in tab.get("notes", [])]
        table_md = "\n".join(lines)
    return est_md, table_md, ([] if err else memory_chart_rows(find_breakdown(res), mem))


def _int(v: Any) -> int | None:
    try:
        return int(float(v)) if v not in (None, "") else None
    except (TypeError, ValueError):
        return None


def _chart(gr, elem_id: str):
    return gr.BarPlot(x="bar", y="GiB", color="part", title="Memory per device vs. usable device memory (GiB)",
                      x_title="", y_title="GiB", elem_id=elem_id, height=320)


def _frame(rows: list[dict[str, Any]]):
    import pandas as pd

    return pd.DataFrame(rows, columns=["bar", "part", "GiB"])


def render_plan_tab(ctx) -> None:
    """Build the training and inference forms inside the caller's Blocks context."""
    import gradio as gr

    models = model_choices(ctx)
    hardware = hardware_choices(ctx)
    hw_ids = [h for _, h in hardware]
    default_hw = next((h for h in hw_ids if h.lower() == "snt9b"), hw_ids[0] if hw_ids else None)
    default_model = "qwen2.5-72b" if "qwen2.5-72b" in models else (models[0] if models else None)

    def model_dropdown(elem_id: str):
        return gr.Dropdown(models, value=default_model, allow_custom_value=True, filterable=True, elem_id=elem_id,
                           label="Model (type to search; any spelling)")

    with gr.Tabs():
        with gr.Tab("Training · 训练", id="plan-training"), gr.Row():
            with gr.Column(scale=1, min_width=280):
                t_model = model_dropdown("plan-model")
                t_method = gr.Dropdown(METHODS, value="lora", label="Method", elem_id="plan-method")
                t_seq = gr.Number(4096, precision=0, minimum=1, label="Sequence length", elem_id="plan-seq")
                t_hw = gr.Dropdown(hardware, value=default_hw, label="Hardware", elem_id="plan-hw")
                t_fw = gr.Dropdown(FRAMEWORKS, value="LLaMA-Factory", label="Framework", elem_id="plan-fw")
                t_max = gr.Number(None, precision=0, minimum=0, label="Max devices (optional)", elem_id="plan-max")
                t_btn = gr.Button("Plan training", variant="primary", elem_id="plan-train")
            with gr.Column(scale=2):
                with gr.Row():
                    t_plan = gr.Markdown(elem_id="plan-result")
                    t_table = gr.Markdown(elem_id="plan-table")
                t_chart = _chart(gr, "plan-chart")
        with gr.Tab("Inference · 推理", id="plan-inference"), gr.Row():
            with gr.Column(scale=1, min_width=280):
                i_model = model_dropdown("infer-model")
                i_len = gr.Number(32768, precision=0, minimum=1, label="max-model-len (tokens)", elem_id="infer-len")
                i_hw = gr.Dropdown(hardware, value=default_hw, label="Hardware", elem_id="infer-hw")
                i_util = gr.Slider(0.5, 0.98, value=0.9, step=0.01, label="gpu-memory-utilization")
                i_conc = gr.Number(None, precision=0, minimum=0, label="Concurrent sequences (optional)")
                i_btn = gr.Button("Estimate inference", variant="primary", elem_id="plan-infer")
            with gr.Column(scale=2):
                with gr.Row():
                    i_est = gr.Markdown(elem_id="infer-result")
                    i_table = gr.Markdown(elem_id="infer-table")
                i_chart = _chart(gr, "infer-chart")

    def on_train(model, method, seq_len, hw, framework, max_devices):
        plan_md, table_md, rows = plan_training_view(ctx, model, method, seq_len, hw, framework, max_devices)
        return plan_md, table_md, _frame(rows)

    def on_infer(model, max_len, hw, util, concurrency):
        est_md, table_md, rows = plan_inference_view(ctx, model, max_len, hw, util, concurrency)
        return est_md, table_md, _frame(rows)

    t_btn.click(on_train, [t_model, t_method, t_seq, t_hw, t_fw, t_max], [t_plan, t_table, t_chart])
    i_btn.click(on_infer, [i_model, i_len, i_hw, i_util, i_conc], [i_est, i_table, i_chart])
