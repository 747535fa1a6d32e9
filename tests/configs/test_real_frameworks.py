"""Generated configs checked by LLaMA-Factory's own argument parser and DeepSpeed's own config
class (see frameworks.py for how they run on CPU). Expected values are the vendor recipe-table
rows (knowledge/tables/recipes_llamafactory.csv, transcribed from seeds/000) or the override asked for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assistant.configs import deepspeed, llamafactory, llamafactory_names
from assistant.configs.plan import TrainingPlan

ZERO = [(0, False), (1, False), (1, True), (2, False), (2, True), (3, False), (3, True)]


def _generate(call, **args) -> dict:
    out = call("generate_config", **args)
    assert "error" not in out, out
    return out


def _write(tmp_path: Path, out: dict) -> Path:
    """Lay the files out as in a LLaMA-Factory checkout: the YAML at the top, DeepSpeed JSON under
    examples/deepspeed/ (the path the YAML names)."""
    files = [out] if out["format"] == "llamafactory_yaml" else []
    files += [f for f in out["companion_files"] if f["format"] == "llamafactory_yaml"]
    yaml_file = files[0]
    for comp in [out, *out["companion_files"]]:
        if comp["format"] == "deepspeed_json":
            p = tmp_path / deepspeed.EXAMPLES_DIR / comp["filename"]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(comp["content"])
    path = tmp_path / yaml_file["filename"]
    path.write_text(yaml_file["content"])
    return path


def _validate(frameworks, ctx, tmp_path, monkeypatch, out: dict):
    """Run both parsers; check what they parsed against the plan the tool reports."""
    plan = out["plan"]
    monkeypatch.chdir(tmp_path)
    cfg, (model_args, data_args, training_args, finetuning_args, _gen) = frameworks.check_yaml(_write(tmp_path, out))
    assert data_args.cutoff_len == plan["seq_len"]
    assert training_args.per_device_train_batch_size == plan["micro_batch"]
    assert training_args.gradient_accumulation_steps == plan["grad_accum"]
    if finetuning_args.stage != "pt":
        assert data_args.template in frameworks.templates
    ds_result = None
    if plan["zero_stage"] is not None:
        assert training_args.deepspeed == deepspeed.path(plan["zero_stage"], plan["offload"])
        ds_json = json.loads((tmp_path / training_args.deepspeed).read_text())
        hidden = (ctx.kb.model(out["model_id"]) or {}).get("hidden") or 4096
        filled, ds = frameworks.deepspeed_config(ds_json, training_args, hidden)
        assert ds.zero_optimization_stage == plan["zero_stage"]
        assert ds.train_micro_batch_size_per_gpu == plan["micro_batch"]
        assert ds.gradient_accumulation_steps == plan["grad_accum"]
        assert ds.train_batch_size == plan["micro_batch"] * plan["grad_accum"]  # one rank in the test
        assert ds.bfloat16_config.enabled == bool(training_args.bf16)
        offload_opt = ds.zero_config.offload_optimizer
        assert (offload_opt is not None and offload_opt.device == "cpu") == plan["offload"]
        if plan["zero_stage"] == 3:
            offload_param = ds.zero_config.offload_param
            assert (offload_param is not None and offload_param.device == "cpu") == plan["offload"]
        ds_result = (filled, ds)
    return cfg, (model_args, data_args, training_args, finetuning_args), ds_result


# ---------------------------------------------------------------- every ZeRO stage, LoRA and full
@pytest.mark.parametrize("method", ["lora", "full"])
@pytest.mark.parametrize("zero_stage,offload", ZERO, ids=[f"z{z}{'_offload' if o else ''}" for z, o in ZERO])
def test_every_zero_stage(frameworks, ctx, call, tmp_path, monkeypatch, method, zero_stage, offload):
    out = _generate(call, model="llama3-8b", method=method, seq_len=4096, zero_stage=zero_stage, offload=offload)
    assert out["plan"]["source"] == "table" and out["plan"]["zero_stage"] == zero_stage
    _cfg, (_m, _d, training_args, ft), _ds = _validate(frameworks, ctx, tmp_path, monkeypatch, out)
    assert ft.finetuning_type == method
    assert training_args.deepspeed.endswith(f"ds_z{zero_stage}{'_offload' if offload else ''}_config.json")


# ---------------------------------------------------------------- table rows, several models
TABLE_CASES = [
    # (args, expected from the recipe table: zero_stage, offload, grad_accum, devices)
    (dict(model="llama3-8b", method="lora", seq_len=8192), (2, False, 8, 1)),
    (dict(model="Qwen2-VL-7B", method="full", seq_len=8192), (2, True, 8, 8)),
    (dict(model="qwen2-vl-7b", method="lora", seq_len=4096), (0, False, 8, 1)),
    (dict(model="llama2-70b", method="lora", seq_len=8192), (3, True, 8, 16)),
    (dict(model="qwen1.5-72b", method="full", seq_len=8192), (3, True, 4, 32)),
    (dict(model="qwen1.5-4b", method="full", seq_len=4096), (1, False, 8, 4)),
    (dict(model="glm4-9b", method="full", seq_len=4096), (3, False, 8, 8)),
    (dict(model="yi-34b", method="lora", seq_len=8192), (3, False, 8, 4)),
    (dict(model="falcon2-11b", method="lora", seq_len=4096), (2, False, 8, 1)),
    (dict(model="qwen2-0.5b", method="full", seq_len=8192, hardware="snt9b23"), (0, False, 8, 2)),
]


@pytest.mark.parametrize("args,expected", TABLE_CASES, ids=[f"{a['model']}-{a['method']}-{a['seq_len']}" for a, _ in TABLE_CASES])
def test_table_rows_parse(frameworks, ctx, call, tmp_path, monkeypatch, args, expected):
    out = _generate(call, **args)
    zero, offload, ga, devices = expected
    plan = out["plan"]
    assert (plan["zero_stage"], plan["offload"], plan["grad_accum"], plan["devices"]) == (zero, offload, ga, devices)
    _cfg, (_m, data_args, _t, ft), _ds = _validate(frameworks, ctx, tmp_path, monkeypatch, out)
    assert data_args.template == ctx.kb.model(out["model_id"])["template"]
    assert ft.finetuning_type == args["method"]


def test_vision_language_full_freezes_the_vision_tower(frameworks, ctx, call, tmp_path, monkeypatch):
    out = _generate(call, model="qwen2-vl-7b", method="full", seq_len=8192)
    _cfg, (model_args, data_args, _t, ft), _ds = _validate(frameworks, ctx, tmp_path, monkeypatch, out)
    assert data_args.template == "qwen2_vl"
    assert ft.freeze_vision_tower and ft.freeze_multi_modal_projector and not ft.freeze_language_model
    assert model_args.image_max_pixels == 262144
    assert "mllm_demo" in data_args.dataset


@pytest.mark.parametrize("stage", ["pt", "sft", "dpo", "kto", "rm", "ppo"])
def test_every_stage(frameworks, ctx, call, tmp_path, monkeypatch, stage):
    out = _generate(call, model="llama3-8b", method="lora", seq_len=4096, stage=stage)
    _cfg, (_m, _d, _t, ft), _ds = _validate(frameworks, ctx, tmp_path, monkeypatch, out)
    assert ft.stage == stage
    if stage == "ppo":
        assert ft.reward_model and ft.reward_model_type == "lora"


def test_overrides_reach_the_parsed_arguments(frameworks, ctx, call, tmp_path, monkeypatch):
    out = _generate(call, model="llama3-8b", method="lora", seq_len=4096, lora_rank=64, lora_target="q_proj,v_proj",
                    micro_batch=2, grad_accum=16, learning_rate=2e-5, epochs=1.5, dataset="alpaca_zh_demo",
                    output_dir="/home/ma-user/ws/out dir")
    _cfg, (_m, data_args, training_args, ft), (filled, ds) = _validate(frameworks, ctx, tmp_path, monkeypatch, out)
    assert ft.lora_rank == 64 and ft.lora_target == ["q_proj", "v_proj"]
    assert training_args.learning_rate == pytest.approx(2e-5) and training_args.num_train_epochs == 1.5
    assert training_args.output_dir == "/home/ma-user/ws/out dir" and data_args.dataset == ["alpaca_zh_demo"]
    assert filled["train_batch_size"] == 32 and ds.train_batch_size == 32


# ---------------------------------------------------------------- generator-level cases (any plan)
def _plan(**kw) -> TrainingPlan:
    base = dict(source="estimate", source_detail="test plan", framework="LLaMA-Factory", hardware="snt9b", accelerator="npu",
                devices=8, nodes=1, per_node=8, zero_stage=2, offload=False, micro_batch=1, grad_accum=8, seq_len=4096)
    return TrainingPlan(**{**base, **kw})


def _options(ctx, model_id, **kw) -> llamafactory.LlamaFactoryOptions:
    m = ctx.kb.model(model_id)
    return llamafactory.LlamaFactoryOptions(model_id=model_id, model_path=m["hf_repo"], template=m["template"],
                                            vision=m["modality"] == "vision-language", **kw)


GENERATOR_CASES = [
    ("qwen3-30b-a3b", dict(method="full"), dict(zero_stage=3, offload=True, devices=32, nodes=4)),  # MoE
    ("qwen3-30b-a3b", dict(method="lora"), dict(zero_stage=3)),
    ("mixtral-8x7b", dict(method="lora"), dict(zero_stage=2, seq_len=32768)),  # MoE
    ("qwen2.5-72b", dict(method="qlora"), dict(zero_stage=2)),  # QLoRA = lora + quantization_bit
    ("qwen2.5-7b", dict(method="qlora", quantization_bit=8), dict(zero_stage=0, accelerator="gpu", hardware="a100-80g")),
    ("qwen2.5-7b", dict(method="freeze"), dict(zero_stage=1)),
    ("llama3.1-8b", dict(method="full", bf16=False), dict(zero_stage=2, accelerator="gpu", hardware="v100")),  # fp16 part
    ("qwen2.5-vl-7b", dict(method="lora", stage="dpo"), dict(zero_stage=2)),
    ("deepseek-r1-distill-qwen-7b", dict(method="full", stage="pt"), dict(zero_stage=3)),
    ("internvl2.5-8b", dict(method="full"), dict(zero_stage=3, offload=True)),
]


@pytest.mark.parametrize("model_id,opts,plan_kw", GENERATOR_CASES, ids=[f"{m}-{o['method']}-{o.get('stage', 'sft')}" for m, o, _ in GENERATOR_CASES])
def test_generator_output_parses(frameworks, ctx, tmp_path, monkeypatch, model_id, opts, plan_kw):
    plan = _plan(**plan_kw)
    o = _options(ctx, model_id, **opts)
    out = {"format": "llamafactory_yaml", "filename": llamafactory.filename(o, plan.seq_len), "model_id": model_id,
           "content": llamafactory.render(o, plan, ["generator test"]), "plan": plan.model_dump(),
           "companion_files": [{"filename": deepspeed.filename(plan.zero_stage, plan.offload), "format": "deepspeed_json",
                                "content": deepspeed.render(plan.zero_stage, plan.offload)}]}
    _cfg, (model_args, _d, training_args, ft), (_filled, ds) = _validate(frameworks, ctx, tmp_path, monkeypatch, out)
    if opts["method"] == "qlora":
        assert ft.finetuning_type == "lora" and model_args.quantization_bit == opts.get("quantization_bit", 4)
    if opts.get("bf16") is False:
        assert training_args.fp16 and not training_args.bf16 and ds.float16_config.enabled and not ds.bfloat16_config.enabled


# ---------------------------------------------------------------- the checks have teeth
@pytest.mark.parametrize("bad,message", [
    ({"finetuning_type": "qlora"}, "invalid choice"),
    ({"stage": "grpo"}, "invalid choice"),
    ({"lora_rank": "eight"}, "invalid int"),
    ({"use_fp8": True}, "not used"),
    ({"quantization_method": "bitsandbytes"}, "invalid choice"),
])
def test_parser_rejects_what_other_builders_emit(frameworks, ctx, call, tmp_path, monkeypatch, bad, message):
    out = _generate(call, model="llama3-8b", method="lora", seq_len=4096)
    monkeypatch.chdir(tmp_path)
    cfg = frameworks.read_yaml(_write(tmp_path, out))
    frameworks.parse_strict(cfg)  # ours passes
    with pytest.raises(ValueError, match=message):
        frameworks.parse_strict({**cfg, **bad})


def test_llamafactory_cross_field_rules_are_live(frameworks, call, tmp_path, monkeypatch):
    out = _generate(call, model="llama3-8b", method="full", seq_len=4096)
    monkeypatch.chdir(tmp_path)
    cfg = frameworks.read_yaml(_write(tmp_path, out))
    with pytest.raises(ValueError, match="Quantization is only compatible"):
        frameworks.train_args({**cfg, "quantization_bit": 4})


def test_deepspeed_rejects_a_broken_zero_block(frameworks, call, tmp_path, monkeypatch):
    out = _generate(call, model="llama3-8b", method="full", seq_len=4096, zero_stage=3)
    monkeypatch.chdir(tmp_path)
    _cfg, (_m, _d, training_args, _ft, _g) = frameworks.check_yaml(_write(tmp_path, out))
    good = json.loads(out["companion_files"][0]["content"])
    frameworks.deepspeed_config(good, training_args, 4096)
    bad = json.loads(json.dumps(good))
    bad["zero_optimization"]["offload_param"] = {"device": "disk"}
    with pytest.raises(Exception, match="device"):
        frameworks.deepspeed_config(bad, training_args, 4096)


def test_template_names_match_the_installed_llamafactory(frameworks):
    assert set(llamafactory_names.TEMPLATES) == frameworks.templates
    assert frameworks.versions["llamafactory"] == llamafactory_names.VERSION


def test_argument_names_match_the_installed_llamafactory():
    """check_setup lists a YAML key outside these names as unknown: they must be LLaMA-Factory's own."""
    import dataclasses

    from llamafactory.hparams import DataArguments, FinetuningArguments, GeneratingArguments, ModelArguments
    from llamafactory.hparams.training_args import TrainingArguments

    names = set()
    for cls in (ModelArguments, DataArguments, FinetuningArguments, GeneratingArguments, TrainingArguments):
        names |= {f.name for f in dataclasses.fields(cls)}
    assert set(llamafactory_names.ARGUMENT_NAMES) == names


def test_every_catalog_model_parses_or_is_refused(frameworks, ctx, call, tmp_path, monkeypatch):
    """LoRA at 4096 tokens for every model in the catalog: LLaMA-Factory's parser accepts the YAML,
    or generate_config refuses the model by name (unknown template, no plan) — never a YAML that
    fails at launch."""
    monkeypatch.chdir(tmp_path)
    parsed = refused = 0
    for m in ctx.kb.models():
        out = call("generate_config", model=m["id"], method="lora", seq_len=4096)
        if "error" in out:
            code = out["error"]["code"]
            if m.get("template") in frameworks.templates:
                assert code in ("no_plan", "does_not_fit"), (m["id"], out)
            else:
                assert code in ("unknown_template", "no_template"), (m["id"], out)
            refused += 1
            continue
        assert m["template"] in frameworks.templates
        _cfg, (_m, data_args, _t, _ft, _g) = frameworks.check_yaml(_write(tmp_path, out))
        assert data_args.template == m["template"]
        parsed += 1
    assert parsed >= 80, (parsed, refused)


@pytest.mark.parametrize("args,source", [
    # MoE, not in the recipe table: the minimum-card table's LLaMA-Factory count (seeds/004: 32*Ascend), the estimate's ZeRO
    (dict(model="qwen3-30b-a3b", method="lora", seq_len=4096), "table"),
    (dict(model="mixtral-8x7b", method="full", seq_len=8192), "estimate"),  # LLaMA-Factory '-' in the minimum-card table
    (dict(model="qwen2.5-32b", method="qlora", seq_len=4096), "estimate"),
    (dict(model="llama3.1-8b", method="lora", seq_len=16384, hardware="h100"), "estimate"),
], ids=lambda a: f"{a['model']}-{a['method']}-{a['seq_len']}" if isinstance(a, dict) else a)
def test_plans_off_the_recipe_table_parse(frameworks, ctx, call, tmp_path, monkeypatch, args, source):
    out = _generate(call, **args)
    assert out["plan"]["source"] == source
    _validate(frameworks, ctx, tmp_path, monkeypatch, out)
