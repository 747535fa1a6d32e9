"""Whether a pasted setup is valid for its framework, beside whether it fits: the rules of setup_check/rules.py
(LLaMA-Factory, DeepSpeed, Megatron/MindSpeed-LLM, vLLM and the vendor's pages) applied to the settings as read plus
what the catalog and the vendor tables add (the model's family, heads and context, the recipe row). Where the
estimate cannot run on the value as written (pure_bf16 with ZeRO-3, a utilization above 1, TP x PP beyond the cards,
ZeRO-4) the corrected value is used and the finding says so."""

from __future__ import annotations

import re
from typing import Any

from ..setup_check.reading import Reading
from ..setup_check.rules import check

DEFAULT_UTILIZATION = 0.9  # vLLM's --gpu-memory-utilization default


# how a setting was written, from its source (Reading.sources): a YAML key, a flag, a shell variable, a JSON key
_WRITTEN = ((re.compile(r"^YAML[^:]*: ([A-Za-z_][\w.]*):"), "{}: {}"), (re.compile(r"flag (--[\w-]+)"), "{} {}"),
            (re.compile(r"(?<![\w-])([A-Z][A-Z0-9_]*)=\S"), "{}={}"), (re.compile(r"^DeepSpeed JSON: ([a-z_]+) "), '"{}": {}'))


def as_written(r: Reading, corrected: str) -> str:
    """A corrected line in the estimator's own name ("micro_batch: 1") in the key the user wrote instead
    ("per_device_train_batch_size: 1", "--micro-batch-size 1", "MBS=1"): no line the framework does not have."""
    m = re.fullmatch(r"([a-z_]+): (\S+)", corrected)
    if not m or m.group(1) not in r.sources:
        return corrected
    source = r.sources[m.group(1)]
    for rx, form in _WRITTEN:
        if w := rx.search(source):
            return form.format(w.group(1), m.group(2))
    return corrected


def _apply(r: Reading, s: dict[str, Any], fields: dict[str, Any], task: str) -> dict[str, Any]:
    s = dict(s)
    for f in check(fields, task):
        if any(x.code == f.code and x.key == f.key for x in r.findings):
            continue
        if f.corrected:
            f.corrected = as_written(r, f.corrected)
        r.findings.append(f)
        s.update(f.fix)
    return s


def check_training(r: Reading, s: dict[str, Any], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Findings on a training setup (added to r.findings); returns the settings the estimate can run on. ``extra``:
    what the catalog and tables know (accelerator_kind, model_id, model_family, recipe_zero_stage, recipe_row, ...)."""
    fields = {**s, **(extra or {}), "train_batch_size_in_json": "train_batch_size" in r.sources.get("global_batch", "") or None,
              # a pasted script or Megatron's own assertion runs the even split unless it writes the layers out
              "pp_even_required": bool({"mindspeed", "framework_error"} & set(r.kinds)) and not any(
                  "num-layer-list" in u or "noop-layers" in u for u in r.unused),
              "precisions_enabled": r.precisions or None, "recompute_flags": r.recompute_flags or None,
              # LLaMA-Factory runs DeepSpeed when the YAML (or launch line) names a config; a JSON pasted beside counts too
              "deepspeed_config": r.deepspeed_file or ("deepspeed_json" if "deepspeed_json" in r.kinds else None)}
    return _apply(r, s, fields, "training")


def check_serving(r: Reading, s: dict[str, Any], model: dict[str, Any] | None, devices: int | None) -> dict[str, Any]:
    """Findings on a vllm serve line; returns the settings the estimate can run on."""
    m = model or {}
    fields = {**s, "devices": devices, "max_context": int(m.get("max_context") or 0) or None,
              "heads": int(m.get("heads") or 0) or None, "kv_heads": int(m.get("kv_heads") or 0) or None,
              "model_id": m.get("id")}
    return _apply(r, s, fields, "serving")


def check_any(r: Reading) -> None:
    """Rules for neither training nor serving (a benchmark command's lists)."""
    _apply(r, {}, r.settings, "other")
