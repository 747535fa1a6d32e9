"""The LLaMA-Factory YAML generator on its own (the real parser runs in test_real_frameworks.py)."""

from __future__ import annotations

import pytest
import yaml

from assistant.configs import llamafactory
from assistant.configs.llamafactory_names import FINETUNING_TYPES, STAGES
from assistant.configs.plan import TrainingPlan
from assistant.errors import SizingError


def _plan(**kw) -> TrainingPlan:
    base = dict(source="table", source_detail="test", framework="LLaMA-Factory", hardware="snt9b", accelerator="npu",
                devices=8, nodes=1, per_node=8, zero_stage=2, offload=False, micro_batch=1, grad_accum=8, seq_len=8192)
    return TrainingPlan(**{**base, **kw})


def _opts(**kw) -> llamafactory.LlamaFactoryOptions:
    base = dict(model_id="llama3-8b", model_path="meta-llama/Meta-Llama-3-8B", template="llama3")
    return llamafactory.LlamaFactoryOptions(**{**base, **kw})


def _load(opts, plan) -> dict:
    return yaml.safe_load(llamafactory.render(opts, plan, ["header line"]))


@pytest.mark.parametrize("value", [1e-4, 5e-6, 2.5e-5, 1.0e-5, 3.0, 0.1, 180000000, True, False, "llama3", "a: b",
                                   "x # y", "true", "null", "8192", "identity,alpaca_en_demo", "/home/ma-user/ws/out dir"])
def test_scalars_read_back_unchanged(value):
    assert yaml.safe_load(f"k: {llamafactory.scalar(value)}") == {"k": value}


def test_lora_yaml_keys_and_values():
    cfg = _load(_opts(), _plan())
    assert cfg["finetuning_type"] == "lora" and cfg["lora_rank"] == 8 and cfg["lora_target"] == "all"
    assert cfg["cutoff_len"] == 8192 and cfg["template"] == "llama3" and cfg["stage"] == "sft"
    assert cfg["per_device_train_batch_size"] == 1 and cfg["gradient_accumulation_steps"] == 8
    assert cfg["deepspeed"] == "examples/deepspeed/ds_z2_config.json"
    assert cfg["bf16"] is True and "fp16" not in cfg
    assert cfg["learning_rate"] == 1e-4  # LLaMA-Factory's LoRA examples
    assert set(cfg) >= {"output_dir", "logging_steps", "save_steps", "report_to", "do_train", "dataset"}


def test_qlora_is_lora_plus_quantization_bit():
    cfg = _load(_opts(method="qlora", quantization_bit=4), _plan(zero_stage=0))
    assert cfg["finetuning_type"] == "lora" and cfg["quantization_bit"] == 4 and cfg["quantization_method"] == "bnb"
    assert cfg["double_quantization"] is False  # LLaMA-Factory's NPU QLoRA example
    assert cfg["finetuning_type"] in FINETUNING_TYPES


def test_full_on_a_part_without_bf16_uses_fp16():
    cfg = _load(_opts(method="full", bf16=False), _plan(accelerator="gpu", hardware="v100"))
    assert cfg["fp16"] is True and "bf16" not in cfg and "lora_rank" not in cfg
    assert cfg["learning_rate"] == 1e-5


def test_vision_language_keys():
    cfg = _load(_opts(model_id="qwen2-vl-7b", template="qwen2_vl", vision=True, method="full"), _plan())
    assert cfg["freeze_vision_tower"] is True and cfg["freeze_language_model"] is False
    assert cfg["image_max_pixels"] == 262144 and cfg["dataset"].startswith("mllm_demo")


@pytest.mark.parametrize("stage,dataset", [("pt", "c4_demo"), ("dpo", "dpo_en_demo"), ("rm", "dpo_en_demo"),
                                           ("kto", "kto_en_demo"), ("ppo", "identity,alpaca_en_demo")])
def test_stage_specific_keys(stage, dataset):
    cfg = _load(_opts(stage=stage), _plan())
    assert cfg["stage"] == stage and cfg["dataset"] == dataset and stage in STAGES
    assert ("template" in cfg) == (stage != "pt")
    if stage == "ppo":
        assert cfg["reward_model"] == "saves/llama3-8b/lora/reward"
    if stage in ("dpo", "kto"):
        assert cfg["learning_rate"] == 5e-6 and cfg["pref_beta"] == 0.1


def test_no_deepspeed_key_without_a_stage():
    assert "deepspeed" not in _load(_opts(), _plan(zero_stage=None))


@pytest.mark.parametrize("opts,plan_kw,code,field", [
    (dict(stage="grpo"), {}, "invalid_arguments", "stage"),
    (dict(method="qlora_plus"), {}, "invalid_arguments", "method"),
    (dict(template="baichuan2"), {}, "unknown_template", "template"),
    (dict(template=None), {}, "no_template", "template"),
    (dict(quantization_bit=4), {}, "invalid_arguments", "quantization_bit"),
    (dict(stage="ppo"), dict(zero_stage=3), "invalid_plan", "zero_stage"),
])
def test_refusals(opts, plan_kw, code, field):
    with pytest.raises(SizingError) as e:
        llamafactory.render(_opts(**opts), _plan(**plan_kw))
    assert (e.value.code, e.value.field) == (code, field)


def test_pretraining_needs_no_template():
    cfg = _load(_opts(template=None, stage="pt"), _plan())
    assert "template" not in cfg and cfg["stage"] == "pt"


def test_file_name():
    assert llamafactory.filename(_opts(), 8192) == "llama3-8b_lora_sft_8192.yaml"
    assert llamafactory.stem("DeepSeek-V3/R1", "full", "pt", 4096) == "DeepSeek-V3-R1_full_pt_4096"
