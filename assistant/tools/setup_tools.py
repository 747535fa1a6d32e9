"""check_setup: read a pasted config, command line or out-of-memory message and answer with what was
read, the per-device memory and verdict from the estimator (estimate_training_memory /
estimate_inference, called through the registry), the smallest change that fits with its file
(generate_config), and the vendor table row for the same job (min_cards).

The reading is assistant/setup_check (pure); the ladder of changes and the verdict are setup_changes.py."""

from __future__ import annotations

import re
import shlex
from typing import Any

from ..answer import source_as_known
from ..errors import SizingError, ToolError
from ..hf_config import read_config
from ..resolve import variant_of
from ..setup_check import Reading, read_setup
from ..setup_check.notices import notice
from ..wordings import Wordings
from .estimates import InferenceResult, TrainingMemoryResult
from .registry import REGISTRY, tool
from .setup_changes import SPEED_COST, diagnose_oom, oom_remedies, serving_ladder, training_ladder, verdict_of
from .setup_models import Assumed, Change, CheckSetupArgs, CheckSetupResult, ConfigFileOut, ReadSetting
from .setup_validity import check_any, check_serving, check_training

# Framework defaults a config leaves out (LLaMA-Factory 0.9.x / transformers TrainingArguments; MindSpeed-LLM).
LF_DEFAULTS = {"method": "lora", "stage": "sft", "seq_len": 2048, "micro_batch": 8, "grad_accum": 1, "zero_stage": 0}
MS_DEFAULTS = {"method": "full", "stage": "sft", "seq_len": 4096, "micro_batch": 1, "tp": 1, "pp": 1, "cp": 1}
VLLM_DEFAULTS = {"gpu_memory_utilization": 0.9, "tp": 1, "pp": 1}
# A DeepSpeed JSON pasted without the trainer's arguments: "auto" (or an absent key) is filled by the trainer from
# per_device_train_batch_size / gradient_accumulation_steps / cutoff_len, which the paste does not show. Those are
# unknown, not the trainer's defaults (Hugging Face's per_device_train_batch_size 8 would be invented): the estimate
# takes the vendor recipe tables' values (micro batch 1, GA 8, cutoff_len 4096) and says so.
TRAINER_FILLS = {"micro_batch": 1, "grad_accum": 8, "seq_len": 4096}
_TRAIN_FIELDS = ("method", "stage", "seq_len", "micro_batch", "devices", "zero_stage", "offload", "tp", "pp", "cp",
                 "precision", "recompute", "lora_rank", "lora_targets", "quant_bits", "framework", "grad_accum", "loss",
                 "optimizer", "compile", "activation_offload", "expandable_segments")
# Reported capacity / catalog memory of the same part: 64 GB Ascend cards report 60.97 GiB, 80 GB GPUs 79.2 GiB, a 48 GB
# L40S about 44.5 GiB.
CAPACITY_SHARE = (0.88, 1.0)  # a 32 GB Ascend card reports about 29.5 GiB (0.92), a T4 14.75 GiB; no two catalog sizes overlap
_TRAIN_KINDS = {"llamafactory_yaml", "deepspeed_json", "mindspeed", "launch_command", "framework_error"}


def _call(ctx, name: str, args: dict[str, Any]) -> dict[str, Any]:
    res = REGISTRY.call(name, args, ctx)
    if isinstance(res, ToolError):
        e = res.error
        raise SizingError(e.code, f"{name}: {e.message}", field=e.field, valid=e.valid)
    return res.model_dump()


def _try(ctx, name: str, args: dict[str, Any]) -> dict[str, Any] | None:
    res = REGISTRY.call(name, args, ctx)
    return None if isinstance(res, ToolError) else res.model_dump()


# ---------------------------------------------------------------- model and hardware
def _model(ctx, r: Reading, args: CheckSetupArgs, assumed: list[Assumed]) -> tuple[str | None, dict[str, Any]]:
    """(catalog id or None, the estimator's model arguments)."""
    name = args.model or r.settings.get("model")
    if r.hf_config:
        shape, params_b = read_config(r.hf_config)
        assumed.append(Assumed(name="params_b", value=round(params_b, 2), why="config_json"))
        return None, {"params_b": round(params_b, 3), "shape": shape}
    if name:
        base = name.rstrip("/").rsplit("/", 1)[-1]
        for candidate in (name, base, re.sub(r"[-_](hf|mcore|megatron|tp\d+pp\d+)$", "", base, flags=re.IGNORECASE)):
            try:
                model_id = ctx.resolver.model_id(candidate)
                return model_id, {"model": model_id}
            except SizingError:
                continue
    if args.params_b:
        assumed.append(Assumed(name="params_b", value=args.params_b, why="params_b", detail=name or ""))
        return None, {"params_b": args.params_b}
    raise SizingError("unknown_model", f"The model {name!r} is not in the catalog. Give its size (params_b, e.g. 7) "
                      "or paste its config.json beside the setup." if name else "The text names no model. Give its name "
                      "or size (params_b), or paste its config.json.", field="params_b", valid="params_b or config.json")


def _hardware(ctx, r: Reading, args: CheckSetupArgs, words: list[str], assumed: list[Assumed]) -> str:
    if args.hardware:
        return args.hardware
    for w in words:
        try:
            return ctx.resolver.hardware_id(w)
        except SizingError:
            continue
    if r.oom:  # the capacity the message reports: an Ascend 64 GB card reports ~61 GiB
        same = [h for h in ctx.kb.hardware() if (h["kind"] == "npu") == (r.oom.platform == "npu")
                and CAPACITY_SHARE[0] <= r.oom.capacity_gib / h["memory_gb"] <= CAPACITY_SHARE[1]]
        if same:
            assumed.append(Assumed(name="hardware", value=same[0]["id"], why="capacity",
                                   detail=", ".join(h["id"] for h in same[1:4])))
            return same[0]["id"]
    if r.settings.get("accelerator") == "gpu":
        raise SizingError("no_hardware", "The setup runs on GPUs but does not say which; give hardware (e.g. a100, h100).",
                          field="hardware", valid="a catalog part: a100, h100, 4090, ...")
    assumed.append(Assumed(name="hardware", value="snt9b", why="no_part_named"))
    return "snt9b"


# ---------------------------------------------------------------- training
def _training_base(r: Reading, args: CheckSetupArgs, hw: dict[str, Any], assumed: list[Assumed]) -> dict[str, Any]:
    s = dict(r.settings)
    framework = s.get("framework") or "LLaMA-Factory"
    defaults = MS_DEFAULTS if framework == "MindSpeed-LLM" else LF_DEFAULTS
    for k, v in defaults.items():
        if k not in s:
            if k == "micro_batch" and r.oom and not r.kinds_of_config():  # a message alone: the recipe tables' 1
                s[k] = 1
                assumed.append(Assumed(name=k, value=1, why="recipe_default"))
                continue
            if k in TRAINER_FILLS and r.kinds_of_config() == ["deepspeed_json"]:  # "auto": the trainer's, not shown
                s[k] = TRAINER_FILLS[k]
                assumed.append(Assumed(name=k, value=s[k], why="trainer_fills"))
                continue
            s[k] = v
            assumed.append(Assumed(name=k, value=v, why="framework_default", detail=framework))
    per_node = s.get("per_node")
    if args.devices:
        s["devices"] = args.devices
    elif "devices" not in s:
        nodes = s.get("nodes") or 1
        if per_node:
            s["devices"] = nodes * per_node
        elif framework == "MindSpeed-LLM":
            s["devices"] = nodes * int(hw["devices_per_node"])
            assumed.append(Assumed(name="per_node", value=int(hw["devices_per_node"]), why="per_node_default"))
        else:
            s["devices"] = 1
            assumed.append(Assumed(name="devices", value=1, why="devices_not_given"))
    if framework == "MindSpeed-LLM":
        dp = max(s["devices"] // (s["tp"] * s["pp"] * s["cp"]), 1)
        if s.get("global_batch") and s.get("micro_batch", 1) > 0:  # MBS 0 is a finding (batch_positive), not a division
            s["grad_accum"] = max(s["global_batch"] // (s["micro_batch"] * dp), 1)
        s.pop("zero_stage", None)
        s.pop("offload", None)
    s["framework"] = framework
    return s


def _estimate_args(model_args: dict[str, Any], hw_id: str, s: dict[str, Any]) -> dict[str, Any]:
    out = {**model_args, "hardware": hw_id, **{k: s[k] for k in _TRAIN_FIELDS if s.get(k) is not None}}
    if out.get("framework") == "MindSpeed-LLM":
        out.pop("zero_stage", None)
        out.pop("offload", None)
    return out


def _file(ctx, model_id: str | None, hw_id: str, s: dict[str, Any], fmt: str) -> tuple[list[ConfigFileOut], str | None]:
    if model_id is None:
        return [], "No file: generate_config needs a catalog model (this one was sized from its size or config.json)."
    req: dict[str, Any] = {"model": model_id, "method": s["method"], "seq_len": s["seq_len"], "hardware": hw_id,
                           "framework": s["framework"], "format": fmt, "stage": s["stage"], "devices": s["devices"],
                           "micro_batch": s.get("micro_batch")}
    if s["framework"] == "MindSpeed-LLM":
        req.update(tp=s.get("tp"), pp=s.get("pp"), cp=s.get("cp"))
        dp = s["devices"] // (s["tp"] * s["pp"] * s["cp"])
        req["global_batch"] = s.get("global_batch") or s["micro_batch"] * s.get("grad_accum", 1) * dp
    else:
        req.update(zero_stage=s.get("zero_stage"), offload=s.get("offload"), grad_accum=s.get("grad_accum"),
                   lora_rank=s.get("lora_rank"), quantization_bit=s.get("quant_bits") if s["method"] == "qlora" else None)
        for key, arg in (("model", "model_path"), ("keep_template", "template"), ("keep_dataset", "dataset"), ("keep_output_dir", "output_dir"),
                         ("keep_learning_rate", "learning_rate"), ("keep_num_train_epochs", "epochs")):
            v = s.get(key)
            if isinstance(v, int | float) and not isinstance(v, bool) and arg in ("learning_rate", "epochs"):
                req[arg] = float(v)
            elif isinstance(v, str) and arg not in ("learning_rate", "epochs"):
                req[arg] = v
    req = {k: v for k, v in req.items() if v is not None}
    res = REGISTRY.call("generate_config", req, ctx)
    if isinstance(res, ToolError):
        return [], f"No file: generate_config refused it ({res.error.message})"
    d = res.model_dump()
    files = [ConfigFileOut(filename=d["filename"], content=d["content"], format=d["format"])]
    files += [ConfigFileOut(**f) for f in d["companion_files"]]
    return files, None


_UNSTATED = {"tp": 1, "pp": 1, "cp": 1, "recompute": True, "offload": False}  # a default that needs no mention


def _before(before: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    return {k: before.get(k, _UNSTATED.get(k)) for k in settings}


def _describe(kind: str, before: dict[str, Any], settings: dict[str, Any]) -> str:
    parts = []
    for k, v in settings.items():
        if before.get(k, _UNSTATED.get(k)) != v:
            parts.append(f"{k} {before.get(k)} -> {v}")
    extra = " (global batch kept)" if kind == "micro_batch" else ""
    return ", ".join(parts) + extra


# the vendor rows for the job a pasted setup describes, in both languages (assistant.wordings): the tool writes English
TABLE_LINES = Wordings({
    # the unsupported row first: the row's template would read its words as a count and unit
    "row_unsupported": {"en": "{framework} {model} {strategy} SEQ_LEN {seq} on {hardware}: not supported ('-') ({source})",
                        "zh": "{framework} {model} {strategy_zh} SEQ_LEN {seq}，{hardware}：不支持（表中为“-”）（{source}）"},
    "row": {"en": "{framework} {model} {strategy} SEQ_LEN {seq} on {hardware}: {cards} {unit} ({source})",
            "zh": "{framework} {model} {strategy_zh} SEQ_LEN {seq}，{hardware}：{cards} {unit_zh}（{source}）"},
    "recipe": {"en": "LLaMA-Factory recipe {model} {strategy} cutoff_len {seq}: {ds}, GA {ga}, {nodes} x {per} cards ({source})",
               "zh": "LLaMA-Factory 配方 {model} {strategy_zh} cutoff_len {seq}：{ds}，梯度累积 {ga}，{nodes} × {per} 张卡（{source}）"},
}, {"lora": "LoRA", "full": "全参", "card": "张卡", "cards": "张卡", "DIE": "个 DIE", "DIEs": "个 DIE"})


def _table(ctx, model_id: str | None, s: dict[str, Any], hw_id: str, result: dict[str, Any]) -> list[str]:
    part = (ctx.kb.hardware_row(hw_id) or {}).get("table_part")  # the part's column in the vendor tables
    if model_id is None or part is None or s["method"] not in ("lora", "full") or s["stage"] not in ("sft", "pt"):
        return []
    r = _try(ctx, "min_cards", {"model": model_id, "strategy": s["method"], "seq_len": s["seq_len"],
                                "framework": s["framework"], "hardware": part})
    out = []
    for row in (r or {}).get("rows", [])[:1]:
        if row["supported"] and row["seq_len"] == s["seq_len"]:
            result["table_min_devices"] = row["cards"]
        where = dict(framework=row["framework"], model=row["model"], strategy=row["strategy"], seq=row["seq_len"],
                     hardware=row["hardware"], source=source_as_known(row["source"]))
        out.append(TABLE_LINES.en("row", cards=row["cards"], unit=row["unit"] + "s" * (row["unit"] == "card" and row["cards"] != 1),
                                **where)
                   if row["supported"] else TABLE_LINES.en("row_unsupported", **where))
    rec = _recipe(ctx, model_id, s, hw_id)
    if rec:
        out.append(_recipe_line(model_id, s, rec))
    return out


def _recipe(ctx, model_id: str | None, s: dict[str, Any], hw_id: str) -> dict[str, Any] | None:
    """The LLaMA-Factory recipe row (seeds/000, Snt9B) for the same model, method and length, if the table has one."""
    if model_id is None or hw_id != "snt9b" or s["framework"] != "LLaMA-Factory" or s["method"] not in ("lora", "full") \
            or s["stage"] not in ("sft", "pt"):
        return None
    rec = _try(ctx, "training_recipe", {"model": model_id, "strategy": s["method"], "seq_len": s["seq_len"]})
    return rec if rec and rec.get("found") else None


def _recipe_line(model_id: str | None, s: dict[str, Any], rec: dict[str, Any]) -> str:
    return TABLE_LINES.en("recipe", model=model_id, strategy=s["method"], seq=rec["seq_len_used"], ds=rec["deepspeed"],
                          ga=rec["grad_accum"], nodes=rec["nodes"], per=rec["cards_per_node"], source=source_as_known(rec["source"]))


def _check_training(ctx, r: Reading, args: CheckSetupArgs, words: list[str], result: dict[str, Any]) -> None:
    assumed = result["assumed"]
    model_id, model_args = _model(ctx, r, args, assumed)
    hw_id = ctx.resolver.hardware_id(_hardware(ctx, r, args, words, assumed))
    hw = ctx.kb.hardware_row(hw_id)
    base = _training_base(r, args, hw, assumed)
    recipe = _recipe(ctx, model_id, base, hw_id) if "zero_stage" in r.settings else None  # a stage the user chose
    if recipe and recipe["seq_len_used"] != base["seq_len"]:
        recipe = None  # a row for another length is no rule for this one
    variant = variant_of(str(r.settings.get("model") or args.model or ""))
    row = ctx.kb.model(model_id, variant) if model_id else None
    s = check_training(r, base, {
        "accelerator_kind": hw["kind"], "part_training": hw.get("training"), "model_id": model_id,
        "layers": r.settings.get("layers") or int((row or {}).get("layers") or 0) or None,
        "recipe_zero_stage": (recipe or {}).get("zero_stage"), "recipe_offload": (recipe or {}).get("offload"),
        "recipe_devices": recipe["nodes"] * recipe["cards_per_node"] if recipe else None,
        "recipe_row": _recipe_line(model_id, base, recipe) if recipe else None,
        # the template and context the catalog gives the model (the variant the path names: -Instruct, -chat, base)
        "model_template": (row or {}).get("template") or None, "model_variant": variant,
        "max_context": int((row or {}).get("max_context") or 0) or None, "rope_scaling": r.settings.get("rope_scaling"),
        "keep_template": r.settings.get("keep_template")})
    est = _call(ctx, "estimate_training_memory", _estimate_args(model_args, hw_id, s))
    verdict = verdict_of(est)
    result.update(model=est["model"], hardware=hw_id, unit=hw["unit"], framework=s["framework"], verdict=verdict,
                  over_gib=round(est["total_gib"] - est["usable_gib"], 2), training=TrainingMemoryResult(**est),
                  table=_table(ctx, model_id, s, hw_id, result))
    if verdict != "does_not_fit":
        return

    def estimate(settings: dict[str, Any]) -> dict[str, Any] | None:
        return _try(ctx, "estimate_training_memory", _estimate_args(model_args, hw_id, settings))

    def plan() -> dict[str, Any] | None:
        req = {**model_args, "method": s["method"], "stage": s["stage"], "seq_len": s["seq_len"], "hardware": hw_id,
               "framework": s["framework"], "micro_batch": 1}
        if s.get("precision"):
            req["precision"] = s["precision"]
        gbs = s["micro_batch"] * s.get("grad_accum", 1) * max(s["devices"] // (s.get("tp", 1) * s.get("pp", 1) * s.get("cp", 1)), 1)
        p = _try(ctx, "plan_training", {**req, "global_batch": gbs}) or _try(ctx, "plan_training", req)
        return p if p and p["devices"] > s["devices"] else None

    found, tried = training_ladder(s, estimate, plan)
    result["tried"] = tried
    if found is None:
        return
    kind, settings, r2 = found
    new = {**s, **settings}
    fmt = "mindspeed_env" if s["framework"] == "MindSpeed-LLM" else (
        "deepspeed_json" if r.kinds == ["deepspeed_json"] else "llamafactory_yaml")
    files, why = _file(ctx, model_id, hw_id, new, fmt)
    result["change"] = Change(kind=kind, description=_describe(kind, s, settings), settings=settings, before=_before(s, settings),
                              total_gib=r2["total_gib"], usable_gib=r2["usable_gib"], verdict=verdict_of(r2),
                              host_ram_gib=r2.get("host_ram_gib", 0.0), speed_cost=SPEED_COST[kind], files=files,
                              file_note=why)


# ---------------------------------------------------------------- serving
_KV_DTYPES = {"auto": "auto", "fp8": "fp8", "fp8_e4m3": "fp8", "fp8_e5m2": "fp8", "int8": "int8"}


def _inference_args(model_args: dict[str, Any], hw_id: str, s: dict[str, Any]) -> dict[str, Any]:
    out = {**model_args, "hardware": hw_id, "max_model_len": s["max_model_len"],
           "gpu_memory_utilization": s["gpu_memory_utilization"], "max_devices": s["tp"] * s["pp"],
           "largest_layout": True, "kv_cache_dtype": s.get("kv_cache_dtype", "auto")}
    for k in ("max_num_seqs", "max_num_batched_tokens", "weight_bits"):
        if s.get(k):
            out[k] = s[k]
    return out


_VLLM_FLAG = {"tp": ("--tensor-parallel-size", "-tp"), "max_model_len": ("--max-model-len",),
              "kv_cache_dtype": ("--kv-cache-dtype",)}


def _vllm_command(command: str, change: dict[str, Any]) -> str:
    """The user's command with the changed flags' values replaced (or added): their other flags are kept."""
    words = shlex.split(command)
    for setting, value in change.items():
        names = _VLLM_FLAG[setting]
        for i, w in enumerate(words):
            if w in names and i + 1 < len(words):
                words[i + 1] = str(value)
                break
            if w.split("=", 1)[0] in names and "=" in w:
                words[i] = f"{w.split('=', 1)[0]}={value}"
                break
        else:
            words += [names[0], str(value)]
    out: list[str] = []
    line: list[str] = []
    for w in words:  # one flag per line
        if w.startswith("-") and line:
            out.append(" ".join(line))
            line = []
        line.append(shlex.quote(w))
    out.append(" ".join(line))
    return " \\\n  ".join(out) + "\n"


def _table_row(row: dict[str, Any]) -> str:
    return (f"ModelArts vLLM table: {row.get('cards')} cards for max_model_len {row.get('max_model_len')} at "
            f"gpu-memory-utilization {row.get('gpu_memory_utilization')} (cell {row.get('cell')}; "
            f"{source_as_known(str(row.get('source', '')))})")


def _check_serving(ctx, r: Reading, args: CheckSetupArgs, words: list[str], result: dict[str, Any]) -> None:
    assumed = result["assumed"]
    model_id, model_args = _model(ctx, r, args, assumed)
    hw_id = ctx.resolver.hardware_id(_hardware(ctx, r, args, words, assumed))
    hw = ctx.kb.hardware_row(hw_id)
    s = dict(r.settings)
    for k, v in VLLM_DEFAULTS.items():
        if k not in s:
            s[k] = v
            assumed.append(Assumed(name=k, value=v, why="vllm_default"))
    if "max_model_len" not in s:
        row = ctx.kb.model(model_id) if model_id else None
        s["max_model_len"] = int((row or {}).get("max_context") or 4096)
        assumed.append(Assumed(name="max_model_len", value=s["max_model_len"], why="model_context"))
    s["kv_cache_dtype"] = _KV_DTYPES.get(str(s.get("kv_cache_dtype", "auto")), "auto")
    s = check_serving(r, s, ctx.kb.model(model_id) if model_id else None, args.devices or r.settings.get("devices"))
    est = _call(ctx, "estimate_inference", _inference_args(model_args, hw_id, s))
    result.update(model=est["model"], hardware=hw_id, unit=hw["unit"], framework="vLLM", verdict=verdict_of(est),
                  over_gib=None, serving=InferenceResult(**est),
                  table=[_table_row(est["table"])] if est.get("table") else [])
    if est["fits"]:
        return

    def estimate(settings: dict[str, Any]) -> dict[str, Any] | None:
        return _try(ctx, "estimate_inference", _inference_args(model_args, hw_id, settings))

    found, tried = serving_ladder(s, estimate, hw["kind"] == "npu", int(hw["devices_per_node"]))
    result["tried"] = tried
    if found:
        kind, settings, r2 = found
        command = _vllm_command(r.command or f"vllm serve {model_id}", settings)
        result["change"] = Change(kind=kind, description=_describe(kind, s, settings), settings=settings,
                                  before=_before(s, settings),
                                  total_gib=r2["kv_cache_gib"], usable_gib=r2["budget_gib"], verdict=verdict_of(r2),
                                  speed_cost=SPEED_COST[kind],
                                  files=[ConfigFileOut(filename="serve.sh", content=command, format="vllm_command")])


# ---------------------------------------------------------------- the tool
def _kept_and_read(r: Reading) -> tuple[list[ReadSetting], list[str]]:
    read, kept = [], []
    for name, value in r.settings.items():
        if name.startswith("keep_"):
            kept.append(r.sources.get(name, name))
        elif name != "accelerator":
            read.append(ReadSetting(name=name, value=value, source=r.sources.get(name, "")))
    if r.deepspeed_file:
        read.append(ReadSetting(name="deepspeed_file", value=r.deepspeed_file, source=r.sources.get("deepspeed_file", "")))
    return read, kept


@tool
def check_setup(ctx, args: CheckSetupArgs) -> CheckSetupResult:
    """Check a pasted setup: a LLaMA-Factory YAML (+ DeepSpeed JSON), DeepSpeed JSON, MindSpeed-LLM variables or script, a vllm serve / torchrun / deepspeed / llamafactory-cli line, or an NPU/CUDA out-of-memory message; returns what was read and assumed (unused and unknown keys named), values the framework refuses at launch with what is valid and the corrected line, the per-device memory and verdict (fits / tight / does_not_fit), for an OOM whether it is too big or fragmenting and the vendor's remedies in order, the smallest change that fits with the changed file and its speed cost, and the vendor table row.

    Nothing in the text is run. Malformed YAML/JSON is an error naming the line; a model the catalog does not know needs params_b or its config.json pasted."""
    reading, words = read_setup(args.text)
    if not reading.kinds:
        raise SizingError("nothing_recognised", "The text holds no setup I can read: no LLaMA-Factory YAML, DeepSpeed "
                          "JSON, MindSpeed-LLM variables, vLLM / torchrun / deepspeed / llamafactory-cli command or "
                          "out-of-memory message.", field="text",
                          valid=["llamafactory_yaml", "deepspeed_json", "mindspeed", "vllm_command", "launch_command",
                                 "oom_message", "vllm_log", "benchmark_command"])
    read, kept = _kept_and_read(reading)
    kinds = set(reading.kinds)
    served = str(reading.settings.get("phase", "")).startswith("serving") and not kinds & _TRAIN_KINDS  # an OOM from a server
    kind = "serving" if "vllm_command" in kinds or served or ("vllm_log" in kinds and not kinds & _TRAIN_KINDS) else (
        "training" if kinds & _TRAIN_KINDS else "benchmark" if kinds == {"benchmark_command"} else
        "preprocess" if kinds == {"preprocess_command"} else "oom_only")
    result: dict[str, Any] = dict(kind=kind, recognised=list(reading.kinds), model=None, hardware=None, unit=None,
                                  framework=None, read=read, assumed=[], unused=reading.unused, kept=kept,
                                  unknown=reading.unknown, notices=reading.notices, verdict=None,
                                  oom=diagnose_oom(reading.oom) if reading.oom else None, vllm_log=reading.vllm_log)
    named = reading.settings.get("model") or reading.hf_config or args.model or args.params_b
    log = reading.vllm_log
    if kind == "oom_only" and named:  # the words around the message name the model: size the job they describe
        result["kind"] = kind = "training"
    if kind == "training" and named:
        _check_training(ctx, reading, args, words, result)
    elif kind == "serving" and named:
        _check_serving(ctx, reading, args, words, result)
    elif log and log.kv_needed_gib is not None and log.kv_cache_gib is not None:
        result.update(verdict="fits" if log.kv_needed_gib <= log.kv_cache_gib else "does_not_fit",
                      over_gib=round(log.kv_needed_gib - log.kv_cache_gib, 2))  # vLLM's own figures
    elif log and log.no_cache_memory:
        result["verdict"] = "does_not_fit"  # vLLM's own finding: nothing left for the KV cache
    elif kind in ("benchmark", "preprocess"):  # the lists the script pairs up, the preprocessing flags; nothing to size
        check_any(reading)
    elif kind != "oom_only":
        if kind == "training":  # validity needs no model: DeepSpeed's batch identity, TP x PP against the cards
            check_training(reading, {**reading.settings, "devices": args.devices or reading.settings.get("devices")})
        result["notices"] = [*reading.notices, notice("no_model")]
    if result["oom"] is not None:
        framework = "vLLM" if kind == "serving" else result.get("framework") or reading.settings.get("framework")
        result["oom"].remedies = oom_remedies(result["oom"], framework, reading.settings)
    result["findings"] = reading.findings
    _as_run(result["read"], reading)
    return CheckSetupResult(**result)


def _as_run(read: list[ReadSetting], r: Reading) -> None:
    """A setting the framework ignores or drops as written (offload_param below ZeRO-3): the read list shows the value it
    runs with, so the answer does not say 'offload True' beside 'nothing is offloaded'."""
    for f in r.findings:
        if not f.figures.get("as_run"):
            continue
        for x in read:
            if x.name in f.fix and f.fix[x.name] is not None and x.value != f.fix[x.name]:
                x.value, x.source = f.fix[x.name], f"{x.source}; as run: {f.key} ignored"



