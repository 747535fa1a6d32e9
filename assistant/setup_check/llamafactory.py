"""A LLaMA-Factory training YAML (or the same arguments on a launch line): what sizes memory, what
only the changed file keeps, what LLaMA-Factory has but the estimate does not use, and what it does
not have at all (listed, never guessed)."""

from __future__ import annotations

import difflib
import re
from typing import Any

import yaml

from ..configs.llamafactory_names import ARGUMENT_NAMES, FINETUNING_TYPES, STAGES
from ..errors import SizingError
from . import deepspeed
from .errors import yaml_error
from .reading import Finding, Reading
from .rules import SOURCES, SOURCES_ZH

# Arguments carried into the changed file unchanged; they do not change per-device memory.
KEPT = ("template", "dataset", "output_dir", "learning_rate", "num_train_epochs")
# llamafactory.extras.constants.QuantizationMethod (0.9.5); on-the-fly quantization (quantization_bit) takes bnb
# (4 or 8 bit), hqq (1-6 or 8) or eetq (8); gptq/awq/aqlm/... load models already quantized.
QUANT_METHODS = ("bnb", "gptq", "awq", "aqlm", "quanto", "eetq", "hqq", "mxfp4", "fp8")
QUANT_BITS = {"bnb": (4, 8), "hqq": (1, 2, 3, 4, 5, 6, 8), "eetq": (8,)}
ON_THE_FLY_DEFAULT = "bnb"  # ModelArguments.quantization_method's default: what quantization_bit alone quantizes with
_QUANT_ALIASES = {"bitsandbytes": "bnb", "bnb4": "bnb", "bnb8": "bnb", "nf4": "bnb", "llm.int8": "bnb"}
_OPTIM = {"adamw_torch": "adamw", "adamw_hf": "adamw", "adamw_torch_fused": "adamw", "adamw_apex_fused": "adamw",
          "adamw_8bit": "adamw_8bit", "adamw_bnb_8bit": "adamw_8bit", "paged_adamw_8bit": "paged_adamw_8bit"}


def parse(text: str) -> Any:
    try:
        return yaml.safe_load(text)  # safe_load: no tags, no objects, no code
    except yaml.YAMLError as e:
        raise yaml_error(e, "LLaMA-Factory YAML", text) from None


# A setting written without its colon: "cutoff_len 4096", "learning_rate = 1e-4" (one key, one value)
KEY_WITHOUT_COLON = re.compile(r"^(?P<indent>\s*)(?P<key>[A-Za-z_][\w.\-]*)(?:\s*=\s*|\s+)(?P<value>[^\s:=]+)\s*$")


# A setting whose colon was typed twice: "finetuning_type: : full", "cutoff_len:: 4096" (YAML: "mapping values are not
# allowed here")
DOUBLED_COLON = re.compile(r"^(?P<indent>\s*)(?P<key>[A-Za-z_][\w.\-]*)\s*:\s*:\s*(?P<value>[^:]*?)\s*$")


def parse_repaired(text: str) -> tuple[Any, list[tuple[int, str, str, str]]]:
    """The YAML, with each line that breaks YAML in a way people often paste read as they meant it, when the text then
    parses: (data, [(line number, fault code, the line as written, the corrected line)]), every faulty line said, not
    only the first the parser stops at. The faults (``line_faults``): a LLaMA-Factory argument without its colon or with it doubled, a tab
    or a stray indent before a top-level argument, a list or mapping never closed, a quote never closed. Malformed in
    any other way: the parser's error, naming the line."""
    loaded = True
    try:
        data = parse(text)
    except SizingError:
        loaded = False
    doubled = any((m := DOUBLED_COLON.match(line)) and m.group("key") in ARGUMENT_NAMES for line in text.splitlines())
    if loaded and not doubled:  # "key:: value" loads, as the key "key:": mended and said like the faults that stop it
        return data, []
    mended, repairs = mend(text)
    if not repairs:
        raise yaml_error_of(text)
    try:
        return yaml.safe_load(mended), repairs
    except yaml.YAMLError:
        raise yaml_error_of(text) from None


def mend(text: str) -> tuple[str, list[tuple[int, str, str, str]]]:
    """The text with each faulty line mended (``line_faults``), and the repairs made."""
    lines = text.splitlines()
    repairs = []
    parent = False  # the line before ends in "key:" (its value is the indented block below)
    for i, line in enumerate(lines):
        fixed, codes = line_faults(line, parent)
        if codes:
            repairs += [(i + 1, code, line.strip(), fixed.strip()) for code in codes]
            lines[i] = fixed
        if line.strip() and not line.lstrip().startswith("#"):
            parent = bool(re.search(r":\s*(?:#.*)?$", fixed))
    return "\n".join(lines), repairs


def line_faults(line: str, parent: bool) -> tuple[str, list[str]]:
    """One line as meant, and the faults mended (finding codes, in the order met): a tab or a stray indent before a
    top-level LLaMA-Factory argument (YAML allows no tab in indentation; an argument indented under a plain value
    breaks the mapping), the argument's colon doubled or missing, a "[" or "{" never closed, a quote never closed."""
    codes = []
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    key = re.match(r"\s*([A-Za-z_][\w.\-]*)", line)
    top = bool(key and key.group(1) in ARGUMENT_NAMES and not parent)
    if "\t" in indent:
        codes.append("yaml_tab_indent")
        line = ("" if top else indent.replace("\t", "  ")) + line.lstrip(" \t")
    elif indent and top:
        codes.append("yaml_stray_indent")
        line = line.lstrip(" ")
    doubled = DOUBLED_COLON.match(line)
    if doubled and doubled.group("key") in ARGUMENT_NAMES:
        codes.append("yaml_doubled_colon")
        line = f"{doubled.group('indent')}{doubled.group('key')}: {doubled.group('value')}"
    m = KEY_WITHOUT_COLON.match(line)
    if m and m.group("key") in ARGUMENT_NAMES:
        codes.append("yaml_missing_colon")
        line = f"{m.group('indent')}{m.group('key')}: {m.group('value')}"
    body = re.sub(r"\s+#.*$", "", line)
    for opened, closed in (("[", "]"), ("{", "}")):
        if body.count(opened) > body.count(closed):
            codes.append("yaml_unclosed_bracket")
            single = re.match(rf"^(\s*[\w.\-]+:\s*){re.escape(opened)}\s*([^,\[\]{{}}\s]+)\s*$", body)
            # "cutoff_len: [4096": one value after the stray bracket is that value; a list ("[q_proj, v_proj") is closed
            line = single.group(1) + single.group(2) if single else line.rstrip() + closed * (body.count(opened) - body.count(closed))
    if body.count('"') % 2:
        codes.append("yaml_unclosed_quote")
        line = line.rstrip() + '"'
    return line, codes


def yaml_error_of(text: str) -> SizingError:
    """The parser's error on the text as written."""
    try:
        yaml.safe_load(text)
    except yaml.YAMLError as e:
        return yaml_error(e, "LLaMA-Factory YAML", text)
    return SizingError("invalid_yaml", "The LLaMA-Factory YAML is not valid YAML.", field="text")


def names_arguments(text: str) -> bool:
    """Whether the text has at least two lines 'name:' with a LLaMA-Factory argument name."""
    keys = {m.group(1) for m in re.finditer(r"^\s*([A-Za-z_]\w*)\s*:", text, re.MULTILINE)}
    return len(keys & ARGUMENT_NAMES) >= 2


def looks_like(data: Any) -> bool:
    return isinstance(data, dict) and len({str(k) for k in data} & ARGUMENT_NAMES) >= 2


def _bool(v: Any) -> bool | None:
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.lower() in ("true", "false"):
        return v.lower() == "true"
    return None


def _int(v: Any) -> int | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str) and v.strip().isdigit():
        return int(v)
    return None


def misspelled(key: str) -> str | None:
    """The one LLaMA-Factory argument a key not among them is a misspelling of ("finetunning_type", "lora_ranks"), or
    None (none close, or two equally close: "per_device_batch_size" is train's or eval's)."""
    if key in ARGUMENT_NAMES:
        return None
    close = difflib.get_close_matches(key, ARGUMENT_NAMES, 2, 0.85)
    return close[0] if len(close) == 1 else None


def mend_keys(data: dict[str, Any], out: Reading, name: str) -> dict[str, Any]:
    """Each misspelled argument read as the one it is close to, and said (LLaMA-Factory itself stops on a key it does
    not have); one whose meant argument is also set stays unknown."""
    mended: dict[str, Any] = {}
    for key, value in data.items():
        meant = misspelled(str(key))
        if meant and meant not in data:
            mended[meant] = value
            out.unknown.append(f"{name}: {key}")  # still listed as written; the finding says what it is read as
            out.findings.append(Finding(code="lf_misspelled_key", key=str(key), value=value, valid=meant,
                                        corrected=f"{meant}: {value}", applied=True, figures={"name": name},
                                        source=SOURCES["hf_extra_keys"], source_zh=SOURCES_ZH["hf_extra_keys"]))
        else:
            mended[key] = value
    return mended


def duplicate_keys(text: str) -> list[tuple[str, list[int], str]]:
    """Top-level keys written more than once: (key, their line numbers, the value of the last). yaml.safe_load keeps
    the last silently, so the earlier lines do nothing."""
    seen: dict[str, list[tuple[int, str]]] = {}
    for i, line in enumerate(text.splitlines(), 1):
        if m := re.match(r"([A-Za-z_][\w.\-]*)\s*:\s*(.*?)\s*(?:#.*)?$", line):
            seen.setdefault(m.group(1), []).append((i, m.group(2)))
    return [(k, [n for n, _ in v], v[-1][1]) for k, v in seen.items() if len(v) > 1]


def read(data: dict[str, Any], out: Reading, name: str = "YAML") -> None:
    out.add_kind("llamafactory_yaml")
    out.put("framework", "LLaMA-Factory", name)
    data = mend_keys(data, out, name)
    used: set[str] = set()

    def take(key: str, setting: str, value: Any, shown: Any = None) -> None:
        if value is not None:
            out.put(setting, value, f"{name}: {key}: {data[key] if shown is None else shown}")
            used.add(key)

    for key, value in data.items():
        key = str(key)
        if key in WHOLE_NUMBER_ARGUMENTS and value is not None and _int(value) is None:
            _not_a_whole_number(key, value, out)
            used.add(key)  # said as a finding, not as "read but not used"
            continue
        if key == "model_name_or_path" and isinstance(value, str):
            take(key, "model", value)
        elif key == "stage" and isinstance(value, str) and value.lower() in STAGES:
            take(key, "stage", value.lower())
        elif key == "stage":
            _bad_stage(str(value), out)
            used.add(key)  # said as a finding, not as "read but not used"
            if str(value).lower() in PREF_LOSS_STAGES:  # a DPO-family loss: estimated as the DPO stage it runs under
                take(key, "stage", "dpo")
        elif key == "finetuning_type" and value in FINETUNING_TYPES:
            take(key, "method", "lora" if value == "oft" else value)
        elif key == "finetuning_type":
            _bad_finetuning_type(str(value), data, out)
            take(key, "method", "lora" if str(value).lower() in ("qlora", "lora") else
                 "full" if str(value).lower() in ("full", "fft", "all") else None)
        elif key == "quantization_method":
            take(key, "quant_method", _check_quant_method(str(value), data, out))
        elif key == "quantization_bit" and _int(value):
            take(key, "quant_bits", _int(value))
        elif key == "cutoff_len":
            take(key, "seq_len", _int(value))
        elif key == "per_device_train_batch_size":
            take(key, "micro_batch", _int(value))
        elif key == "gradient_accumulation_steps":
            take(key, "grad_accum", _int(value))
        elif key == "loraplus_lr_ratio" and value is not None:
            take(key, "loraplus", value)
        elif key in ("use_galore", "use_apollo") and _bool(value) is not None:
            used.add(key)
            if _bool(value):  # GaLore / APOLLO project the optimizer states: rules.py checks where LLaMA-Factory allows them
                take(key, "galore", key)
        elif key == "lora_rank":
            take(key, "lora_rank", _int(value))
        elif key == "rope_scaling" and value:
            take(key, "rope_scaling", str(value))
        elif key == "lora_target" and isinstance(value, str):
            take(key, "lora_targets", value)
        elif key in ("bf16", "fp16", "pure_bf16") and _bool(value):
            take(key, "precision", key)
            out.precisions.append(key)
        elif key in ("bf16", "fp16", "pure_bf16") and _bool(value) is False:
            used.add(key)
        elif key == "disable_gradient_checkpointing" and _bool(value) is not None:
            take(key, "recompute", not _bool(value))
        elif key == "enable_liger_kernel" and _bool(value) is not None:
            take(key, "loss", "fused" if _bool(value) else None)
            used.add(key)
        elif key == "optim" and str(value) in _OPTIM:
            take(key, "optimizer", _OPTIM[str(value)])
        elif key == "torch_compile" and _bool(value) is not None:
            take(key, "compile", _bool(value))
        elif key == "deepspeed":
            used.add(key)
            if isinstance(value, dict):
                deepspeed.read(value, out, f"{name}: deepspeed (inline)")
            elif isinstance(value, str):
                out.deepspeed_file = value
                out.sources["deepspeed_file"] = f"{name}: deepspeed: {value}"
        elif key in KEPT:
            out.put(f"keep_{key}", value, f"{name}: {key}")
            used.add(key)
    if "quant_bits" in out.settings and out.settings.get("method") == "lora":
        out.put("method", "qlora", f"{name}: finetuning_type: lora + quantization_bit: {out.settings['quant_bits']}")
    for key in data:
        key = str(key)
        if key in used:
            continue
        if key not in ARGUMENT_NAMES and _elsewhere(key, data[key], out):
            continue
        (out.unused if key in ARGUMENT_NAMES else out.unknown).append(f"{name}: {key}")


# Settings people put in the YAML that another file or the launcher owns (LLaMA-Factory stops on them, "Some keys are
# not used by the HfArgumentParser"): the ZeRO stage and DeepSpeed's own keys belong in the DeepSpeed JSON the YAML names
# (`deepspeed: ...`); the device and node counts are the launcher's (shell.LAUNCHER_FLAGS, the flags that set them).
DEEPSPEED_OWN = ("zero_stage", "zero_optimization", "offload_optimizer", "offload_param", "train_micro_batch_size_per_gpu",
                 "train_batch_size")


def _elsewhere(key: str, value: Any, out: Reading) -> bool:
    """A key another file or the launcher owns: said as a finding naming where it goes (with the user's value)."""
    from .shell import LAUNCHER_FLAGS  # shell reads launch lines with this module: imported when needed

    stage = _int(value)
    if key in DEEPSPEED_OWN:
        target = "deepspeed"
        corrected = f"deepspeed: examples/deepspeed/ds_z{stage}_config.json" if key == "zero_stage" and stage in (0, 2, 3) else ""
    elif key in LAUNCHER_FLAGS:
        target, corrected = "launcher", ""
    else:
        return False
    out.findings.append(Finding(code="lf_key_elsewhere", key=key, value="" if value is None else value, valid=target,
                                corrected=corrected, figures={"variant": target},
                                source=SOURCES["hf_extra_keys"], source_zh=SOURCES_ZH["hf_extra_keys"]))
    return True


# Preference losses LLaMA-Factory runs under `stage: dpo` with `pref_loss` (FinetuningArguments.pref_loss), not stages
PREF_LOSS_STAGES = ("orpo", "simpo", "ipo", "sigmoid", "hinge")


# LLaMA-Factory arguments typed int in its dataclasses (hparams/data_args.py, finetuning_args.py; transformers'
# TrainingArguments): HfArgumentParser refuses any other value ("eight thousand", "4k", 2.5)
WHOLE_NUMBER_ARGUMENTS = ("cutoff_len", "per_device_train_batch_size", "gradient_accumulation_steps", "lora_rank",
                          "lora_alpha", "quantization_bit", "max_samples", "preprocessing_num_workers", "save_steps",
                          "logging_steps")


def _not_a_whole_number(key: str, value: Any, out: Reading) -> None:
    """A whole-number argument written otherwise: said with what is valid; the estimate keeps its default for it."""
    out.findings.append(Finding(code="lf_not_a_whole_number", key=key, value=str(value), valid="a whole number",
                                source=SOURCES["lf_arguments"], source_zh=SOURCES_ZH["lf_arguments"]))


def _bad_stage(value: str, out: Reading) -> None:
    """stage outside LLaMA-Factory's Literal (pt | sft | rm | ppo | dpo | kto): said as a finding in the question's
    language, instead of the estimator's validation error. ORPO/SimPO are DPO-stage losses; GRPO and other online RL
    stages are not LLaMA-Factory's."""
    pref = value.lower() in PREF_LOSS_STAGES
    out.findings.append(Finding(code="lf_stage", key="stage", value=value, valid=" | ".join(STAGES), applied=pref,
                                corrected=f"stage: dpo\npref_loss: {value.lower()}" if pref else "",
                                figures={"pref_loss": pref}, source=SOURCES["lf_arguments"],
                                source_zh=SOURCES_ZH["lf_arguments"]))


def _bad_finetuning_type(value: str, data: dict[str, Any], out: Reading) -> None:
    """finetuning_type outside LLaMA-Factory's Literal: QLoRA is lora plus quantization_bit."""
    qlora = value.lower() == "qlora"
    corrected = "finetuning_type: lora" + ("" if data.get("quantization_bit") or not qlora else "\nquantization_bit: 4")
    if not qlora and value.lower() in ("full", "fft", "all"):
        corrected = "finetuning_type: full"
    elif not qlora and value.lower() != "lora":
        corrected = ""
    out.findings.append(Finding(code="lf_finetuning_type", key="finetuning_type", value=value,
                                valid=" | ".join(FINETUNING_TYPES), corrected=corrected, figures={"qlora": qlora},
                                source=SOURCES["lf_arguments"], source_zh=SOURCES_ZH["lf_arguments"]))


def _check_quant_method(value: str, data: dict[str, Any], out: Reading) -> str:
    """The method LLaMA-Factory would quantize with once the value is corrected; each fault said as a finding."""
    method = _QUANT_ALIASES.get(value.lower(), value.lower())
    bits = _int(data.get("quantization_bit"))
    if method not in QUANT_METHODS and bits in QUANT_BITS[ON_THE_FLY_DEFAULT]:  # "gptq-int4" with quantization_bit: 4:
        method = ON_THE_FLY_DEFAULT  # quantizing on the fly, which LLaMA-Factory does with its default method
    if value not in QUANT_METHODS:
        out.findings.append(Finding(code="lf_quantization_method", key="quantization_method", value=value,
                                    valid=" | ".join(QUANT_METHODS), applied=method in QUANT_METHODS,
                                    corrected=f"quantization_method: {method}" if method in QUANT_METHODS else "",
                                    source=SOURCES["lf_arguments"], source_zh=SOURCES_ZH["lf_arguments"]))
    if bits and method in QUANT_BITS and bits not in QUANT_BITS[method]:
        out.findings.append(Finding(code="lf_quantization_bits", key="quantization_bit", value=bits,
                                    valid=" | ".join(map(str, QUANT_BITS[method])), figures={"method": method},
                                    corrected=f"quantization_bit: {QUANT_BITS[method][0] if method == 'bnb' else QUANT_BITS[method][-1]}",
                                    source=SOURCES["lf_quant"], source_zh=SOURCES_ZH["lf_quant"]))
    return method
