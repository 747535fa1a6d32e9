"""LLaMA-Factory training YAML, laid out like the project's own ``examples/train_*`` files.

Only keys and values LLaMA-Factory (v0.9.x) accepts: QLoRA is ``finetuning_type: lora`` plus
``quantization_bit``; stages are pt|sft|rm|ppo|dpo|kto. The tests parse the output with
LLaMA-Factory's own argument parser.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..errors import SizingError
from . import deepspeed
from .llamafactory_names import ARGUMENT_NAMES, STAGES, TEMPLATES
from .llamafactory_names import VERSION as LLAMAFACTORY_VERSION
from .messages import PLAN_ERRORS
from .plan import TrainingPlan, comment_lines

METHODS = ("lora", "qlora", "full", "freeze")
QUANT_BITS = (2, 3, 4, 8)

# LLaMA-Factory's demo datasets (data/dataset_info.json): pairwise data for rm/dpo, kto-tagged
# data for kto, plain text for pt, image-text for vision-language models.
_DEFAULT_DATASET = {
    "pt": "c4_demo", "sft": "identity,alpaca_en_demo", "ppo": "identity,alpaca_en_demo",
    "rm": "dpo_en_demo", "dpo": "dpo_en_demo", "kto": "kto_en_demo",
}
_VISION_SFT_DATASET = "mllm_demo,identity,alpaca_en_demo"
# Learning rates of LLaMA-Factory's examples: LoRA 1e-4, full 1e-5, preference stages 5e-6.
_DEFAULT_LR = {"lora": 1.0e-4, "qlora": 1.0e-4, "freeze": 1.0e-5, "full": 1.0e-5}
_PREFERENCE_LR = 5.0e-6


@dataclass(frozen=True)
class LlamaFactoryOptions:
    model_id: str
    model_path: str
    template: str | None
    method: str = "lora"
    stage: str = "sft"
    vision: bool = False
    bf16: bool = True
    lora_rank: int = 8
    lora_target: str = "all"
    quantization_bit: int | None = None
    dataset: str | None = None
    output_dir: str | None = None
    learning_rate: float | None = None
    epochs: float = 3.0
    extra_notes: tuple[str, ...] = field(default=())
    extra: tuple[tuple[str, Any], ...] = ()  # the user's own arguments ("save_steps", 1000): written as given


def stem(model_id: str, method: str, stage: str, seq_len: int) -> str:
    """File-name stem shared by the YAML, the env file and the launch script of one job."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", model_id).strip("-")
    return f"{safe}_{method}_{stage}_{seq_len}"


def filename(opts: LlamaFactoryOptions, seq_len: int) -> str:
    return stem(opts.model_id, opts.method, opts.stage, seq_len) + ".yaml"


# Where LLaMA-Factory's examples put the arguments a user may add (examples/train_lora/*.yaml); any other goes to train.
EXTRA_SECTION = {
    "lora_alpha": "method", "lora_dropout": "method", "lora_target": "method", "additional_target": "method",
    "pref_beta": "method", "pref_loss": "method", "flash_attn": "model", "enable_liger_kernel": "model", "use_unsloth": "model",
    "max_samples": "dataset", "preprocessing_num_workers": "dataset", "dataloader_num_workers": "dataset", "packing": "dataset",
    "save_steps": "output", "save_strategy": "output", "save_total_limit": "output", "logging_steps": "output",
    "report_to": "output", "run_name": "output", "save_only_model": "output",
    "val_size": "eval", "eval_steps": "eval", "eval_strategy": "eval", "per_device_eval_batch_size": "eval",
}
# Arguments the plan itself writes (its batch, length, ZeRO file, method): an extra under these names would undo the plan
# the answer states, so each is refused with the tool argument that sets it.
PLAN_KEYS = {"per_device_train_batch_size": "micro_batch", "gradient_accumulation_steps": "grad_accum", "cutoff_len": "seq_len",
             "deepspeed": "zero_stage/offload", "finetuning_type": "method", "stage": "stage", "model_name_or_path": "model_path",
             "dataset": "dataset", "template": "template", "output_dir": "output_dir", "learning_rate": "learning_rate",
             "num_train_epochs": "epochs", "lora_rank": "lora_rank", "quantization_bit": "quantization_bit"}


def check_extra(extra: tuple[tuple[str, Any], ...]) -> None:
    for key, _ in extra:
        if key in PLAN_KEYS:
            raise SizingError("invalid_arguments", f"{key} is set by the argument {PLAN_KEYS[key]}, not yaml_keys.",
                              field="yaml_keys", valid=PLAN_KEYS[key])
        if key not in ARGUMENT_NAMES:
            raise SizingError("invalid_arguments", f"LLaMA-Factory {LLAMAFACTORY_VERSION} has no argument {key!r}.", field="yaml_keys",
                              valid=difflib.get_close_matches(key, sorted(ARGUMENT_NAMES), n=5, cutoff=0.6))


def check_options(opts: LlamaFactoryOptions) -> None:
    """What can be refused before any plan exists: stage, method, template, quantisation, the user's extra arguments."""
    check_extra(opts.extra)
    if opts.stage not in STAGES:
        raise SizingError("invalid_arguments", f"LLaMA-Factory has no stage {opts.stage!r}.", field="stage", valid=list(STAGES))
    if opts.method not in METHODS:
        raise SizingError("invalid_arguments", f"Unknown method {opts.method!r}.", field="method", valid=list(METHODS))
    if opts.stage != "pt" and not opts.template:
        raise SizingError("no_template", f"{opts.model_id} has no LLaMA-Factory chat template in the catalog, "
                          "so it cannot be fine-tuned with a chat stage; pass template.", field="template")
    if opts.template and opts.template not in TEMPLATES:
        raise SizingError("unknown_template", f"Template {opts.template!r} is not a LLaMA-Factory {LLAMAFACTORY_VERSION} "
                          "template; pass template with one that is.", field="template",
                          valid=difflib.get_close_matches(opts.template, sorted(TEMPLATES), n=5, cutoff=0.3))
    if opts.quantization_bit is not None and opts.method != "qlora":
        raise SizingError("invalid_arguments", "Quantization is only compatible with LoRA (QLoRA).",
                          field="quantization_bit", valid="method qlora")


def check(opts: LlamaFactoryOptions, plan: TrainingPlan) -> None:
    check_options(opts)
    if opts.stage == "ppo" and plan.zero_stage == 3:
        raise SizingError("invalid_plan", PLAN_ERRORS.en("ppo_zero3"),
                          field="zero_stage", valid=[0, 1, 2])


def learning_rate(opts: LlamaFactoryOptions) -> float:
    if opts.learning_rate is not None:
        return opts.learning_rate
    if opts.stage in ("dpo", "kto"):
        return _PREFERENCE_LR
    return _DEFAULT_LR[opts.method]


def build(opts: LlamaFactoryOptions, plan: TrainingPlan) -> list[tuple[str, dict[str, Any]]]:
    """The YAML as (section, keys) pairs in the order of LLaMA-Factory's examples."""
    check(opts, plan)
    sections = [("model", _model_keys(opts, plan)), ("method", _method_keys(opts, plan)), ("dataset", _data_keys(opts, plan)),
                ("output", _output_keys(opts)), ("train", _train_keys(opts, plan))]
    return _with_extra(sections, opts.extra)


def _with_extra(sections: list[tuple[str, dict[str, Any]]], extra: tuple[tuple[str, Any], ...]) -> list[tuple[str, dict[str, Any]]]:
    """The user's own arguments, each replacing the default of the same name where it stands, or added to its section
    (an eval section after output, as in LLaMA-Factory's examples). Steps-based evaluation needs eval_strategy steps."""
    if not extra:
        return sections
    own = dict(extra)
    if "eval_steps" in own and "eval_strategy" not in own:
        own["eval_strategy"] = "steps"
    if "val_size" in own and "per_device_eval_batch_size" not in own:
        own["per_device_eval_batch_size"] = 1
    out = [(name, dict(keys)) for name, keys in sections]
    for key, value in own.items():
        home = next((keys for _, keys in out if key in keys), None)
        if home is None:
            section = EXTRA_SECTION.get(key, "train")
            if section not in (name for name, _ in out):
                out.append((section, {}))
            home = next(keys for name, keys in out if name == section)
        home[key] = value
    return out


def _model_keys(opts: LlamaFactoryOptions, plan: TrainingPlan) -> dict[str, Any]:
    model: dict[str, Any] = {"model_name_or_path": opts.model_path}
    if opts.method == "qlora":
        model["quantization_bit"] = opts.quantization_bit or 4
        model["quantization_method"] = "bnb"
        if plan.accelerator == "npu":  # as in examples/train_qlora/qwen3_lora_sft_bnb_npu.yaml
            model["double_quantization"] = False
    if opts.vision:  # pixel budgets of LLaMA-Factory's multimodal examples
        model["image_max_pixels"] = 262144
        model["video_max_pixels"] = 16384
    model["trust_remote_code"] = True
    return model


def _method_keys(opts: LlamaFactoryOptions, plan: TrainingPlan) -> dict[str, Any]:
    lora = opts.method in ("lora", "qlora")
    method: dict[str, Any] = {"stage": opts.stage, "do_train": True,
                              "finetuning_type": "lora" if lora else opts.method}
    if lora:
        method["lora_rank"] = opts.lora_rank
        method["lora_target"] = opts.lora_target
    if opts.vision and opts.method == "full":  # train the language model, keep the vision tower frozen
        method.update(freeze_vision_tower=True, freeze_multi_modal_projector=True, freeze_language_model=False)
    if opts.stage in ("dpo", "kto"):
        method["pref_beta"] = 0.1
    if opts.stage == "dpo":
        method["pref_loss"] = "sigmoid"
    if opts.stage == "ppo":
        method["reward_model"] = f"saves/{opts.model_id}/{'lora' if lora else 'full'}/reward"
        method["reward_model_type"] = "lora" if lora else "full"
    if plan.zero_stage is not None:
        method["deepspeed"] = deepspeed.path(plan.zero_stage, plan.offload)
    return method


def _data_keys(opts: LlamaFactoryOptions, plan: TrainingPlan) -> dict[str, Any]:
    data: dict[str, Any] = {"dataset": opts.dataset or (_VISION_SFT_DATASET if opts.vision and opts.stage == "sft"
                                                         else _DEFAULT_DATASET[opts.stage])}
    if opts.stage != "pt":
        data["template"] = opts.template
    data.update(cutoff_len=plan.seq_len, overwrite_cache=True, preprocessing_num_workers=16, dataloader_num_workers=4)
    return data


def _output_keys(opts: LlamaFactoryOptions) -> dict[str, Any]:
    return {
        "output_dir": opts.output_dir or f"saves/{opts.model_id}/{opts.method}/{opts.stage}",
        "logging_steps": 10, "save_steps": 500, "plot_loss": True, "overwrite_output_dir": True,
        "save_only_model": False, "report_to": "none",
    }


def _train_keys(opts: LlamaFactoryOptions, plan: TrainingPlan) -> dict[str, Any]:
    return {
        "per_device_train_batch_size": plan.micro_batch,
        "gradient_accumulation_steps": plan.grad_accum,
        "learning_rate": learning_rate(opts),
        "num_train_epochs": float(opts.epochs),
        "lr_scheduler_type": "cosine",
        "warmup_ratio": 0.1,
        "bf16" if opts.bf16 else "fp16": True,
        "ddp_timeout": 180000000,
    }


def flat(opts: LlamaFactoryOptions, plan: TrainingPlan) -> dict[str, Any]:
    """All keys in one dict (what LLaMA-Factory reads from the file)."""
    return {k: v for _, keys in build(opts, plan) for k, v in keys.items()}


def scalar(value: Any) -> str:
    """One YAML scalar that OmegaConf and PyYAML both read back as the same value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = f"{value:.6g}"
        if "e" in text:  # YAML 1.1 floats need a dot before the exponent: 1.0e-04, not 1e-04
            mantissa, exp = text.split("e")
            text = f"{mantissa if '.' in mantissa else mantissa + '.0'}e{exp}"
        elif "." not in text:
            text += ".0"
        return text
    text = str(value)
    if yaml.safe_load(text) == text and "#" not in text and ": " not in text:
        return text
    return yaml.safe_dump(text, default_style='"').strip()


def render(opts: LlamaFactoryOptions, plan: TrainingPlan, header: list[str] | None = None) -> str:
    lines = comment_lines(header)
    for section, keys in build(opts, plan):
        if lines:
            lines.append("")
        lines.append(f"### {section}")
        lines.extend(f"{k}: {scalar(v)}" for k, v in keys.items())
    return "\n".join(lines) + "\n"
