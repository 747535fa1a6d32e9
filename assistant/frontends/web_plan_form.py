"""The Plan tab's forms and events (the views are in web_plan): training with its time estimate,
inference, and the page address that reopens a plan (``?plan=training&model=...``)."""

from __future__ import annotations

import json
from typing import Any

from . import web_plan
from .web_chart import memory_chart_html
from .web_plan import INFER_FIELDS, KV_CACHE_DTYPES, TRAIN_FIELDS, WEIGHT_BITS

PRECISIONS = [("bf16 mixed precision", "bf16"), ("fp16 mixed precision", "fp16"), ("fp32", "fp32"),
              ("pure bf16 (bf16 weights and optimizer)", "pure_bf16")]
HARDWARE_LABEL = "Hardware — pick one, or type a memory size such as “24 GB card”"


def _link_js(plan: str, names: list[str]) -> str:
    """Put the form's values in the page address (replaceState: no reload) and return the link."""
    return (f"(...v) => {{ const names = {json.dumps(names)}; const p = new URLSearchParams({{plan: '{plan}'}});"
            " names.forEach((n, i) => { if (v[i] !== null && v[i] !== undefined && v[i] !== '' && v[i] !== 0) p.set(n, v[i]); });"
            " history.replaceState(null, '', '?' + p.toString()); return location.href; }")


def _datalist_js(models: list[str]) -> str:
    """Suggest catalog names under the model boxes (a native datalist: Enter keeps what was typed,
    so an exact name is never replaced by a longer one that contains it)."""
    return (f"() => {{ setTimeout(() => {{ const dl = document.createElement('datalist'); dl.id = 'model-names';"
            f" for (const m of {json.dumps(models)}) {{ const o = document.createElement('option'); o.value = m; dl.appendChild(o); }}"
            " document.body.appendChild(dl);"
            " for (const id of ['plan-model', 'infer-model']) document.querySelector(`#${id} input`)?.setAttribute('list', 'model-names');"
            " }, 300); }")


def _chart(gr, elem_id: str):
    return gr.HTML("", elem_id=elem_id, padding=False)


def _model_inputs(gr, prefix: str, default: str | None):
    model = gr.Textbox(default, label="Model — a catalog name in any spelling (suggestions as you type)", lines=1, max_lines=1,
                       placeholder="e.g. qwen2.5-72b, Llama-3.1-8B-Instruct", elem_id=f"{prefix}-model")
    with gr.Accordion("Model not in the catalog: parameter count or config.json", open=False,
                      elem_id=f"{prefix}-custom") as custom:
        params = gr.Number(None, label="Parameters (billions)", elem_id=f"{prefix}-params")
        config = gr.Textbox(label="Paste a Hugging Face config.json (its shape is used)", lines=3, max_lines=12,
                            elem_id=f"{prefix}-config")
    return model, params, config, custom


def render_plan_tab(ctx, demo, main_tabs) -> None:
    """Build the training and inference forms inside the caller's Blocks context."""
    import gradio as gr

    models = web_plan.model_choices(ctx)
    hardware = web_plan.hardware_choices(ctx)
    hw_ids = [h for _, h in hardware]
    default_hw = "snt9b" if "snt9b" in hw_ids else (hw_ids[0] if hw_ids else None)
    default_model = "qwen2.5-72b" if "qwen2.5-72b" in models else None

    with gr.Tabs(overflow_behavior="wrap") as plan_tabs:
        with gr.Tab("Training · 训练", id="plan-training"), gr.Row():
            with gr.Column(scale=1, min_width=300):
                t_model, t_params, t_config, t_custom = _model_inputs(gr, "plan", default_model)
                t_method = gr.Dropdown(web_plan.schema_choices("plan_training", "method"), value="lora",
                                       label="Fine-tuning method", elem_id="plan-method")
                t_stage = gr.Dropdown(web_plan.schema_choices("plan_training", "stage"), value="sft",
                                      label="Training stage", elem_id="plan-stage")
                t_seq = gr.Number(4096, precision=0, label="Sequence length (tokens)", elem_id="plan-seq")
                t_mb = gr.Number(1, precision=0, label="Batch size per device (micro batch)", elem_id="plan-mb")
                t_prec = gr.Dropdown(PRECISIONS, value="bf16", label="Training precision", elem_id="plan-precision")
                t_bits = gr.Dropdown(web_plan.schema_choices("plan_training", "quant_bits"), value=4,
                                     label="QLoRA base weight bits (method qlora)", elem_id="plan-bits")
                t_hw = gr.Dropdown(hardware, value=default_hw, label=HARDWARE_LABEL, allow_custom_value=True,
                                   elem_id="plan-hw")
                t_fw = gr.Dropdown(web_plan.schema_choices("plan_training", "framework"), value="LLaMA-Factory",
                                   label="Framework", elem_id="plan-fw")
                t_max = gr.Number(None, precision=0, label="Most devices available (empty = no limit)",
                                  elem_id="plan-max")
                t_tokens = gr.Number(None, label="Training tokens, millions (for the time estimate)",
                                     elem_id="plan-tokens")
                t_tps = gr.Number(None, label="Measured tokens/s per device (needed on Ascend)",
                                  elem_id="plan-tps")
                t_btn = gr.Button("Plan training", variant="primary", elem_id="plan-train")
                t_link = gr.Textbox(label="Link to this plan", interactive=False, buttons=["copy"], elem_id="plan-link")
            with gr.Column(scale=2, min_width=320):
                t_chart = _chart(gr, "plan-chart")
                t_plan = gr.Markdown(elem_id="plan-result")
                t_table = gr.Markdown(elem_id="plan-table")
        with gr.Tab("Inference · 推理", id="plan-inference"), gr.Row():
            with gr.Column(scale=1, min_width=300):
                i_model, i_params, i_config, i_custom = _model_inputs(gr, "infer", default_model)
                i_len = gr.Number(32768, precision=0, label="max-model-len (tokens)", elem_id="infer-len")
                i_bits = gr.Dropdown(WEIGHT_BITS, value="native", label="Weight precision / quantization",
                                     elem_id="infer-bits")
                i_kv = gr.Dropdown(KV_CACHE_DTYPES, value="auto", label="KV cache precision (--kv-cache-dtype)",
                                   elem_id="infer-kv")
                i_hw = gr.Dropdown(hardware, value=default_hw, label=HARDWARE_LABEL, allow_custom_value=True,
                                   elem_id="infer-hw")
                i_util = gr.Slider(0.5, 0.98, value=0.9, step=0.01, label="gpu-memory-utilization", elem_id="infer-util")
                i_conc = gr.Number(1, precision=0, label="Concurrent sequences at max-model-len (batch)",
                                   elem_id="infer-conc")
                i_btn = gr.Button("Estimate inference", variant="primary", elem_id="plan-infer")
                i_link = gr.Textbox(label="Link to this plan", interactive=False, buttons=["copy"], elem_id="infer-link")
            with gr.Column(scale=2, min_width=320):
                i_chart = _chart(gr, "infer-chart")
                i_est = gr.Markdown(elem_id="infer-result")
                i_table = gr.Markdown(elem_id="infer-table")

        with gr.Tab("What fits · 能放下什么", id="plan-fits"), gr.Row():
            with gr.Column(scale=1, min_width=300):
                f_work = gr.Radio([("Training", "training"), ("Inference", "inference")], value="inference",
                                  label="Workload", elem_id="fits-workload")
                f_goal = gr.Radio(web_plan.GOALS, value="model", label="Find", elem_id="fits-goal")
                f_hw = gr.Dropdown(hardware, value=default_hw, label=HARDWARE_LABEL, allow_custom_value=True,
                                   elem_id="fits-hw")
                f_dev = gr.Number(8, precision=0, label="Devices you have", elem_id="fits-devices")
                f_model = gr.Textbox(default_model, label="Model (for the longest context or the biggest batch)",
                                     lines=1, max_lines=1, elem_id="fits-model")
                f_len = gr.Number(4096, precision=0, label="Context (tokens) for the largest model or batch",
                                  elem_id="fits-len")
                f_method = gr.Dropdown(web_plan.schema_choices("plan_training", "method"), value="lora",
                                       label="Fine-tuning method (training)", elem_id="fits-method")
                f_btn = gr.Button("Find what fits", variant="primary", elem_id="fits-run")
                f_link = gr.Textbox(label="Link to this answer", interactive=False, buttons=["copy"], elem_id="fits-link")
            with gr.Column(scale=2, min_width=320):
                f_out = gr.Markdown(elem_id="fits-result")
                f_chart = _chart(gr, "fits-chart")

    t_inputs = [t_model, t_params, t_method, t_stage, t_seq, t_mb, t_prec, t_bits, t_hw, t_fw, t_max, t_tokens, t_tps]
    i_inputs = [i_model, i_params, i_len, i_bits, i_kv, i_hw, i_util, i_conc]
    t_all, i_all = [*t_inputs, t_config], [*i_inputs, i_config]
    f_all, f_out_all = [f_work, f_goal, f_hw, f_dev, f_model, f_len, f_method], [f_out, f_chart]
    # Each number's least value is checked here, naming the field: Gradio's own check (``minimum=``) kept the
    # last result on screen under a red mark and said only "Value 0 is less than minimum value 1".
    minimums = {id(c): least for c, least in [(t_params, 0), (t_seq, 1), (t_mb, 1), (t_max, 0), (t_tokens, 0), (t_tps, 0),
                                              (i_params, 0), (i_len, 1), (i_conc, 1), (f_dev, 1), (f_len, 1)]}

    def below_minimum(comps: list, values: tuple) -> str | None:
        for c, v in zip(comps, values, strict=True):
            least = minimums.get(id(c))
            if least is not None and isinstance(v, int | float) and v < least:
                return (f"⚠️ **{c.label}**: {v:g} is not allowed; the least is {least:g}. "
                        "Change it and run again (the result shown before was cleared).")
        return None

    def on_fits(workload, goal, hw, devices, model, length, method):
        if bad := below_minimum(f_all, (workload, goal, hw, devices, model, length, method)):
            return bad, memory_chart_html([])
        form = {"workload": workload, "goal": goal, "hardware": hw, "devices": devices, "model": model,
                "seq_len": length, "method": method}
        md, rows = web_plan.what_fits_view(ctx, form)
        return md, memory_chart_html(rows)

    f_names = ["workload", "goal", "hardware", "devices", "model", "seq_len", "method"]
    f_btn.click(on_fits, f_all, f_out_all).then(None, f_all, f_link, js=_link_js("fits", f_names))

    t_names, i_names = [*TRAIN_FIELDS, "config"], [*INFER_FIELDS, "config"]

    def on_train(*values):
        if bad := below_minimum(t_all, values):
            return memory_chart_html([]), bad, ""
        md, table_md, rows = web_plan.plan_training_view(ctx, dict(zip(t_names, values, strict=True)))
        return memory_chart_html(rows), md, table_md

    def on_infer(*values):
        if bad := below_minimum(i_all, values):
            return memory_chart_html([]), bad, ""
        md, table_md, rows = web_plan.plan_inference_view(ctx, dict(zip(i_names, values, strict=True)))
        return memory_chart_html(rows), md, table_md

    t_out, i_out = [t_chart, t_plan, t_table], [i_chart, i_est, i_table]
    for trigger in (t_btn.click, t_model.submit):
        trigger(on_train, t_all, t_out).then(None, t_all, t_link, js=_link_js("training", t_names))
    for trigger in (i_btn.click, i_model.submit):
        trigger(on_infer, i_all, i_out).then(None, i_all, i_link, js=_link_js("inference", i_names))

    forms = {"training": (t_names, t_all, on_train), "inference": (i_names, i_all, on_infer),
             "fits": (f_names, f_all, on_fits)}

    def link_values(request) -> tuple[str, list[Any]] | None:
        """(which form, its values) from ``?plan=training|inference|fits&...`` in the page address, or None."""
        q = dict(request.query_params) if request else {}
        if q.get("plan") not in forms:
            return None
        names, comps, _ = forms[q["plan"]]
        return q["plan"], [_typed(c, q.get(name)) for c, name in zip(comps, names, strict=True)]

    def open_link(request: gr.Request):
        """Select the Plan tab and fill the form the address names (its results come next, once
        the tab is on screen: results sent to a tab not yet shown were lost)."""
        found, skip = link_values(request), gr.skip()
        if found is None:
            return [skip] * (len(t_all) + len(i_all) + len(f_all) + 4)
        kind, values = found
        fills = {k: [skip] * len(forms[k][1]) for k in forms}
        fills[kind] = [gr.update(value=v) if v is not None else skip for v in values]
        custom = gr.update(open=True) if kind != "fits" and (values[1] is not None or values[-1]) else skip
        return [gr.update(selected="plan"), gr.update(selected=f"plan-{kind}"), *fills["training"], *fills["inference"],
                *fills["fits"], custom if kind == "training" else skip, custom if kind == "inference" else skip]

    def show_link(request: gr.Request):
        found, skip = link_values(request), gr.skip()
        views = {"training": [skip] * 3, "inference": [skip] * 3, "fits": [skip] * 2}
        if found is not None:
            kind, values = found
            views[kind] = list(forms[kind][2](*values))
        return [*views["training"], *views["inference"], *views["fits"]]

    for fn in (open_link, show_link):
        fn.__annotations__["request"] = gr.Request  # Gradio injects the request by this annotation
    demo.load(open_link, None, [main_tabs, plan_tabs, *t_all, *i_all, *f_all, t_custom, i_custom],
              show_progress="hidden").then(show_link, None, [*t_out, *i_out, *f_out_all], show_progress="hidden")
    demo.load(None, js=_datalist_js(models))


def _typed(component, value: str | None) -> Any:
    """A value from the address in the type its component holds (numbers for Number and Slider)."""
    if value is None:
        return None
    if type(component).__name__ in ("Number", "Slider"):
        num = web_plan.number(value)
        return int(num) if num is not None and num.is_integer() and getattr(component, "precision", None) == 0 else num
    if type(component).__name__ == "Dropdown" and isinstance(component.choices[0][1] if component.choices else "", int):
        return web_plan.whole(value)
    return value
