"""Config generation tool (generate_config): LLaMA-Factory YAML, DeepSpeed JSON, MindSpeed-LLM
variables and launch scripts, built from a plan that comes from the vendor tables when they have
a row and from the estimator (plan_training) otherwise.

Other tools are called through the registry, so this module does not depend on how the table or
estimator tools are written, only on their published field names.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from ..configs import deepspeed, launch, llamafactory, mindspeed
from ..configs.plan import TrainingPlan, nodes_for
from ..errors import SizingError, ToolError
from .common import Framework, ModelName, SeqLen, _alias
from .registry import REGISTRY, tool

ConfigFormat = Annotated[
    Literal["llamafactory_yaml", "deepspeed_json", "mindspeed_env", "launch"],
    _alias({"yaml": "llamafactory_yaml", "llamafactory": "llamafactory_yaml", "llama-factory": "llamafactory_yaml",
            "llamafactory-yaml": "llamafactory_yaml", "deepspeed": "deepspeed_json", "json": "deepspeed_json",
            "ds": "deepspeed_json", "deepspeed-json": "deepspeed_json", "mindspeed": "mindspeed_env",
            "mindspeed-env": "mindspeed_env", "env": "mindspeed_env", "shell": "launch", "sh": "launch",
            "script": "launch", "command": "launch"}),
    Field(description="What to produce: llamafactory_yaml, deepspeed_json, mindspeed_env (export lines) or launch (commands)."),
]
Method = Annotated[
    Literal["lora", "qlora", "full", "freeze"],
    _alias({"全参": "full", "全量": "full", "full-finetune": "full", "full-ft": "full", "q-lora": "qlora"}),
    Field(description="Fine-tuning method; qlora = LoRA on a quantised base (quantization_bit)."),
]
Stage = Annotated[
    Literal["pt", "sft", "dpo", "kto", "rm", "ppo"],
    _alias({"pretrain": "pt", "pre-train": "pt", "reward": "rm"}),
    Field(description="Training stage as LLaMA-Factory names it (MindSpeed-LLM scripts take pt or sft)."),
]
SafeText = Annotated[str, Field(min_length=1, max_length=500, pattern=r"^[^\x00-\x1f\x7f]+$")]
_TABLE_STAGES = ("sft", "pt")  # stages whose memory the vendor rows describe


class GenerateConfigArgs(BaseModel):
    model: ModelName
    method: Method = "lora"
    seq_len: SeqLen = 4096
    hardware: str = Field("snt9b", min_length=1, max_length=100, description="Hardware in any spelling: snt9b, snt9b23 (910C), h100, a100 ...")
    framework: Framework | None = Field(None, description="Default: MindSpeed-LLM for mindspeed_env, else LLaMA-Factory.")
    format: ConfigFormat = "llamafactory_yaml"
    stage: Stage = "sft"
    template: str | None = Field(None, max_length=50, pattern=r"^[A-Za-z0-9_.\-]+$", description="LLaMA-Factory chat template; default from the model catalog.")
    lora_rank: int | None = Field(None, ge=1, le=1024, description="LoRA rank; default 8.")
    lora_target: str | None = Field(None, max_length=200, pattern=r"^[A-Za-z0-9_.,\-]+$", description="'all' or module names, comma-separated.")
    quantization_bit: Literal[2, 3, 4, 8] | None = Field(None, description="QLoRA bits (default 4).")
    dataset: SafeText | None = Field(None, description="LLaMA-Factory dataset names (comma-separated) or the MindSpeed data path.")
    output_dir: SafeText | None = Field(None, description="Where checkpoints go; default saves/<model>/<method>/<stage> (LLaMA-Factory) or a save_dir under the work folder (MindSpeed-LLM).")
    model_path: SafeText | None = Field(None, description="Local weights path; default the Hugging Face repo id.")
    micro_batch: int | None = Field(None, ge=1, le=1024, description="Sequences per device per step; default the plan's.")
    grad_accum: int | None = Field(None, ge=1, le=65536, description="Gradient accumulation steps; default the plan's.")
    global_batch: int | None = Field(None, ge=1, le=1_048_576, description="MindSpeed-LLM GBS; sets grad_accum = GBS / (MBS x DP).")
    zero_stage: int | None = Field(None, ge=0, le=3, description="DeepSpeed ZeRO stage 0-3 (LLaMA-Factory); default the plan's.")
    offload: bool | None = Field(None, description="DeepSpeed CPU offload of optimizer states (and parameters at ZeRO-3); default the plan's.")
    tp: int | None = Field(None, ge=1, le=256, description="Tensor parallel size (MindSpeed-LLM); default the plan's.")
    pp: int | None = Field(None, ge=1, le=256, description="Pipeline parallel size (MindSpeed-LLM); default the plan's.")
    cp: int | None = Field(None, ge=1, le=256, description="Context parallel size (MindSpeed-LLM); default the plan's.")
    learning_rate: float | None = Field(None, gt=0, le=1, description="Peak learning rate; default the recipe's.")
    epochs: float | None = Field(None, gt=0, le=1000, description="Training epochs; default the recipe's.")
    nnodes: int | None = Field(None, ge=1, le=4096, description="Nodes the launch script starts; default the plan's.")
    devices: int | None = Field(None, ge=1, le=65536, description="Devices the job uses in all (cards; DIE on Snt9B23), "
                                "e.g. the user's limit; default the plan's. Nodes follow from the part's devices per node.")
    master_addr: str | None = Field(None, max_length=253, pattern=r"^[A-Za-z0-9.:_\-]+$",
                                    description="Address of node 0 for a multi-node launch (host name or IP).")
    master_port: int = Field(29500, ge=1, le=65535, description="Port of node 0 for a multi-node launch.")
    yaml_keys: dict[str, str | int | float | bool] | None = Field(
        None, max_length=40, description="Further LLaMA-Factory arguments the user set, written into the YAML under their "
        "own names as given, e.g. {\"save_steps\": 1000, \"val_size\": 0.05, \"lora_alpha\": 32}; names LLaMA-Factory accepts.")
    tightest: bool = Field(False, description="Size an estimated plan on the point estimate (the tightest plan) instead of "
                           "the point x the planning margin 1.16 (the default on GPUs; Ascend plans follow the vendor-tested point).")


class ConfigFile(BaseModel):
    filename: str = Field(description="Suggested file name.")
    content: str = Field(description="The file's text.")
    format: str = Field(description="File kind: llamafactory_yaml, deepspeed_json, mindspeed_env or launch.")


class MemoryCheck(BaseModel):
    """The estimator's per-device memory for the plan as changed by hand (the plan itself was sized before the change)."""
    total_gib: float = Field(description="Point estimate of the allocator's pool on one device, GiB (estimate_training_memory).")
    low_gib: float = Field(description="Lower end of the likely range, GiB.")
    high_gib: float = Field(description="Upper end of the likely range, GiB.")
    usable_gib: float = Field(description="What one device reports as total capacity, GiB.")
    verdict: Literal["fits", "tight", "does_not_fit"] = Field(description="fits: the upper end fits; tight: the range crosses "
                                                              "the usable memory; does_not_fit: the lower end does not fit.")
    changed: list[str] = Field(description="The fields set by hand that the check covers.")


class GenerateConfigResult(BaseModel):
    model_id: str = Field(description="Canonical catalog id of the model.")
    format: str = Field(description="The main file's kind, as asked: llamafactory_yaml, deepspeed_json, mindspeed_env or launch.")
    framework: str = Field(description="Training framework the file is for.")
    filename: str = Field(description="Suggested file name.")
    content: str = Field(description="The file's text.")
    plan: TrainingPlan = Field(description="The plan the file was built from, with its source.")
    companion_files: list[ConfigFile] = Field(default_factory=list, description="Files the main one refers to (DeepSpeed JSON, the YAML a launch script runs).")
    notes: list[str] = Field(default_factory=list, description="Caveats: where the numbers come from, values to check before running.")
    memory_check: MemoryCheck | None = Field(None, description="When fields that change memory were set by hand (devices, "
                                             "nodes, ZeRO stage, offload, micro batch, TP/PP/CP): the estimate for the plan "
                                             "as changed, since the table row or plan it started from no longer describes it.")


# ---------------------------------------------------------------- the plan
def _call(ctx, name: str, args: dict[str, Any]) -> dict[str, Any] | None:
    """Another tool's result as a dict, None when that tool is not registered; its error re-raised."""
    if name not in REGISTRY:
        return None
    res = REGISTRY.call(name, args, ctx)
    if isinstance(res, ToolError):
        e = res.error
        if e.code == "no_table_row":
            return None
        raise SizingError(e.code, e.message, field=e.field, valid=e.valid)
    return res.model_dump()


def _spread(devices: int, hw: dict[str, Any]) -> tuple[int, int, int, list[str]]:
    """(devices, nodes, per node): whole nodes, and Snt9B23's 2-DIE minimum parallel unit."""
    notes = []
    unit = int(hw.get("min_parallel_unit") or 1)
    if devices % unit:
        devices += unit - devices % unit
        notes.append(f"{hw['id']} allocates {unit} {hw['unit']}s at a time; rounded up to {devices}.")
    nodes, per_node = nodes_for(devices, int(hw["devices_per_node"]))
    return devices, nodes, per_node, notes


def _base(args: GenerateConfigArgs, framework: str, hw: dict[str, Any], **kw) -> dict[str, Any]:
    return dict(framework=framework, hardware=hw["id"], accelerator="npu" if hw.get("kind") == "npu" else "gpu",
                unit=hw.get("unit") or "card", seq_len=args.seq_len, **kw)


def _recipe_plan(ctx, args, model_id, hw) -> TrainingPlan | None:
    part = hw.get("table_part")  # the part's column in the vendor tables (catalog), None off the tables
    # The recipe rows are SFT runs; preference and RL stages hold a reference model too, so the estimator plans those.
    if part is None or args.method not in ("lora", "full") or args.stage not in _TABLE_STAGES:
        return None
    r = _call(ctx, "training_recipe", {"model": model_id, "strategy": args.method, "seq_len": args.seq_len})
    if not r or not r.get("found"):
        return None
    devices, nodes, per_node, notes = _spread(int(r["total_cards"]), hw)
    if part == "Snt9B23":
        notes.append("The recipe table counts Snt9B cards; on Snt9B23 each count is taken as DIE (1 DIE ~ 1 Snt9B card).")
    if r.get("note"):
        notes.append(r["note"])
    notes.append("The recipe table assumes per_device_train_batch_size 1 and NPU FlashAttention on.")
    row = f"{model_id} {args.method} cutoff_len {r['seq_len_used']}: {r['deepspeed']}, GA {r['grad_accum']}, " \
          f"{r['nodes']} x {r['cards_per_node']} cards"
    return TrainingPlan(**_base(args, "LLaMA-Factory", hw, source="table",
                                source_detail=f"ModelArts LLaMA-Factory recipe table, row {row} ({r['source']})",
                                devices=devices, nodes=nodes, per_node=per_node, zero_stage=r["zero_stage"],
                                offload=r["offload"], micro_batch=1, grad_accum=r["grad_accum"],
                                table_seq_len=r["seq_len_used"] if r["seq_len_used"] != args.seq_len else None,
                                notes=notes))


def _lf_table_plan(ctx, args, model_id, hw) -> TrainingPlan | None:
    """No recipe row, but the minimum-card table lists LLaMA-Factory for the job: the vendor's tested count, with the
    estimator's setting (ZeRO stage, offload, batch) for it. A setting that fits on fewer devices fits on the table's
    count with more data parallelism; a row at a shorter length is only a floor, so the estimate's count can be more."""
    part = hw.get("table_part")
    if part is None or args.method not in ("lora", "full") or args.stage not in _TABLE_STAGES:
        return None
    r = _call(ctx, "min_cards", {"model": model_id, "strategy": args.method, "seq_len": args.seq_len,
                                 "framework": "LLaMA-Factory", "hardware": part})
    if not r or not r.get("supported") or not r.get("cards"):
        return None
    est = _estimate(ctx, args, model_id, hw, "LLaMA-Factory")
    if not est or not est.get("fits", True):
        return None
    devices, nodes, per_node, notes = _spread(max(int(r["cards"]), int(est["devices"])), hw)
    notes += [str(n) for n in r.get("notes") or []]
    used = r.get("seq_len_used") or args.seq_len
    return TrainingPlan(**_base(args, "LLaMA-Factory", hw, source="table",
                                source_detail=f"ModelArts minimum-card table, LLaMA-Factory {model_id} {args.method} SEQ_LEN "
                                              f"{used} on {part}: {r['cards']} {r['unit']} ({r['source']}); ZeRO stage, "
                                              f"offload and batch from the estimator (plan_training fits them on "
                                              f"{est['devices']}; the rest is data parallel)",
                                devices=devices, nodes=nodes, per_node=per_node, zero_stage=est.get("zero_stage"),
                                offload=bool(est.get("offload")), micro_batch=est.get("micro_batch") or 1,
                                grad_accum=est.get("grad_accum") or 1, table_seq_len=used if used != args.seq_len else None,
                                notes=notes))


def _estimate(ctx, args, model_id, hw, framework, max_devices: int | None = None) -> dict[str, Any] | None:
    """plan_training's answer for the same job (stage, LoRA rank, QLoRA bits, precision, batch)."""
    req: dict[str, Any] = {"model": model_id, "method": args.method, "stage": args.stage, "seq_len": args.seq_len,
                           "hardware": hw["id"], "framework": framework, "precision": "bf16" if _bf16(hw) else "fp16"}
    for ours, theirs in (("lora_rank", "lora_rank"), ("quantization_bit", "quant_bits"), ("micro_batch", "micro_batch"),
                         ("global_batch", "global_batch")):
        if getattr(args, ours) is not None:
            req[theirs] = getattr(args, ours)
    if max_devices:
        req["max_devices"] = max_devices
    if args.tightest:
        req["tightest"] = True
    return _call(ctx, "plan_training", req)


def _estimate_plan(ctx, args, model_id, hw, framework) -> TrainingPlan:
    p = _estimate(ctx, args, model_id, hw, framework)
    if p is None:
        raise SizingError("no_plan", f"No vendor table row covers {model_id} {args.method} at {args.seq_len} tokens on "
                          f"{hw['id']}, and the estimator (plan_training) is not available.", field="model")
    if not p.get("fits", True):
        why = p.get("note") or p.get("reason") or ""
        raise SizingError("does_not_fit", f"The estimator finds no setting that fits {model_id} {args.method} at "
                          f"{args.seq_len} tokens on {hw['id']}. {why[:1].upper()}{why[1:]}", field="seq_len")
    # plan_training already gives MindSpeed-LLM CP >= 2 beyond 32768 tokens (the vendor rule);
    # mindspeed.check() rejects a plan that does not.
    devices, cp = int(p["devices"]), p.get("cp") or 1
    devices, nodes, per_node, notes = _spread(devices, hw)
    notes += [str(n) for n in [p.get("note"), *(p.get("notes") or [])] if n][:6]
    assumptions = "; ".join(p.get("assumptions") or [])
    return TrainingPlan(**_base(args, framework, hw, source="estimate",
                                source_detail=f"estimate (plan_training: {p.get('reason') or 'smallest plan that fits'}"
                                              + (f"; {assumptions}" if assumptions else "") + ")",
                                devices=devices, nodes=nodes, per_node=per_node,
                                zero_stage=p.get("zero_stage") if framework == "LLaMA-Factory" else None,
                                offload=bool(p.get("offload")), tp=p.get("tp") or 1, pp=p.get("pp") or 1, cp=cp,
                                micro_batch=p.get("micro_batch") or 1, grad_accum=p.get("grad_accum") or 1, notes=notes))


def _mindspeed_table_plan(ctx, args, model_id, hw, model) -> TrainingPlan | None:
    part = hw.get("table_part")
    if part is None or args.method not in ("lora", "full"):
        return None
    r = _call(ctx, "min_cards", {"model": model_id, "strategy": args.method, "seq_len": args.seq_len,
                                 "framework": "MindSpeed-LLM", "hardware": part})
    if not r or r.get("supported") is None:
        return None
    used = r.get("seq_len_used") or args.seq_len
    if not r["supported"]:
        raise SizingError("not_supported", f"The ModelArts minimum-card table marks MindSpeed-LLM {args.method} for "
                          f"{model_id} at {used} tokens on {part} as not supported ('-').", field="framework",
                          valid=["LLaMA-Factory"])
    devices, nodes, per_node, notes = _spread(int(r["cards"]), hw)
    notes += r.get("notes") or []
    tp, pp, cp = mindspeed.default_layout(devices, per_node, args.seq_len, model.get("heads"), model.get("kv_heads"), model.get("layers"))
    layout = "TP/PP/CP: largest TP within a node dividing the heads, PP for the rest (DP 1 at the minimum card count)"
    est = _estimate(ctx, args, model_id, hw, "MindSpeed-LLM", max_devices=devices)
    if est and est.get("fits") and est.get("tp") and est.get("pp"):
        e_tp, e_pp, e_cp = est["tp"], est["pp"], est.get("cp") or 1
        # A layout that fits on fewer devices also fits on the table's count with more data parallelism.
        if devices % (e_tp * e_pp * e_cp) == 0 and e_tp <= per_node:
            tp, pp, cp = e_tp, e_pp, e_cp
            layout = (f"TP/PP/CP from the estimator (plan_training fits TP{tp} PP{pp} CP{cp} on {est['devices']}); "
                      f"the rest of the table's {devices} devices is data parallel")
    return TrainingPlan(**_base(args, "MindSpeed-LLM", hw, source="table",
                                source_detail=f"ModelArts minimum-card table, MindSpeed-LLM {model_id} {args.method} SEQ_LEN "
                                              f"{used} on {part}: {r['cards']} {r['unit']} ({r['source']}); {layout}",
                                devices=devices, nodes=nodes, per_node=per_node, tp=tp, pp=pp, cp=cp,
                                micro_batch=1, grad_accum=8, table_seq_len=used if used != args.seq_len else None,
                                notes=notes))


def _apply_overrides(plan: TrainingPlan, args: GenerateConfigArgs, hw: dict[str, Any]) -> TrainingPlan:
    set_fields = {k for k in ("micro_batch", "grad_accum", "zero_stage", "offload", "tp", "pp", "cp", "nnodes", "global_batch",
                              "devices") if getattr(args, k) is not None}
    upd: dict[str, Any] = {k: getattr(args, k) for k in set_fields & {"micro_batch", "grad_accum", "zero_stage", "offload", "tp", "pp", "cp"}}
    if args.nnodes is not None and args.nnodes != plan.nodes:
        per_node = plan.per_node if plan.nodes > 1 or args.nnodes == 1 else int(hw["devices_per_node"])
        upd.update(nodes=args.nnodes, per_node=per_node, devices=args.nnodes * per_node)
    if args.devices is not None and args.devices != plan.devices:
        nodes, per_node = nodes_for(args.devices, int(hw["devices_per_node"]))
        upd.update(nodes=nodes, per_node=per_node, devices=args.devices)
    if plan.framework == "LLaMA-Factory" and upd.get("zero_stage") == 0 and "offload" not in upd:
        upd["offload"] = False  # stage 0 has nothing to offload
    new = plan.model_copy(update={**upd, "overrides": sorted(set_fields)})
    if args.global_batch is not None:
        per_step = new.micro_batch * new.data_parallel
        if per_step == 0 or args.global_batch % per_step:
            raise SizingError("invalid_arguments", f"global_batch {args.global_batch} is not divisible by MBS x DP = {per_step}.",
                              field="global_batch", valid=f"a multiple of {per_step}")
        new.grad_accum = args.global_batch // per_step
    if new.framework == "LLaMA-Factory" and new.zero_stage is not None:
        deepspeed.check(new.zero_stage, new.offload)
    if set_fields:
        # whose values these are is not the file's to say: a caller passes the user's own values and an earlier answer's
        # plan alike (the answer that carries the file says which is which)
        new.notes.append("Set on top of that plan: " + ", ".join(sorted(set_fields)) + " (the rest is the plan's).")
    return new


# Fields whose change moves per-device memory; grad_accum, global batch, learning rate and the like do not.
_MEMORY_FIELDS = ("devices", "nnodes", "zero_stage", "offload", "micro_batch", "tp", "pp", "cp")


def _memory_check(ctx, args: GenerateConfigArgs, model_id: str, plan: TrainingPlan) -> MemoryCheck | None:
    """estimate_training_memory for the plan as changed by hand: a row or plan sized for other settings says nothing
    about the file the user is about to run."""
    changed = [f for f in plan.overrides if f in _MEMORY_FIELDS]
    if not changed:
        return None
    req: dict[str, Any] = {"model": model_id, "method": args.method, "stage": args.stage, "seq_len": args.seq_len,
                           "hardware": plan.hardware, "framework": plan.framework, "devices": plan.devices,
                           "micro_batch": plan.micro_batch, "offload": plan.offload, "tp": plan.tp, "pp": plan.pp,
                           "cp": plan.cp, "grad_accum": plan.grad_accum}
    if plan.zero_stage is not None:
        req["zero_stage"] = plan.zero_stage
    for ours, theirs in (("lora_rank", "lora_rank"), ("quantization_bit", "quant_bits")):
        if getattr(args, ours) is not None:
            req[theirs] = getattr(args, ours)
    try:
        m = _call(ctx, "estimate_training_memory", req)
    except SizingError:  # a combination the estimator refuses is refused again, with its own field, by the file's checks
        return None
    if m is None:
        return None
    return MemoryCheck(total_gib=m["total_gib"], low_gib=m["low_gib"], high_gib=m["high_gib"], usable_gib=m["usable_gib"],
                       verdict=m["verdict"], changed=changed)


def _memory_note(check: MemoryCheck, plan: TrainingPlan) -> str:
    # tight with the whole range below the usable memory: only a case the estimate names beside the range (pinned
    # ZeRO-3 blocks, an attention fallback) crosses it
    crosses = check.high_gib > check.usable_gib
    words = {"fits": "fits", "does_not_fit": "does not fit",
             "tight": "is tight (the likely range crosses the usable memory)" if crosses else
                      "is tight (the likely range fits; a case beside it, such as pinned ZeRO-3 blocks, does not)"}
    return (f"With {', '.join(check.changed)} so set the estimate is {check.total_gib:.1f} GiB per {plan.unit} "
            f"(likely {check.low_gib:.1f}-{check.high_gib:.1f}) of {check.usable_gib:.1f} usable: it {words[check.verdict]}.")


def find_plan(ctx, args: GenerateConfigArgs, model_id: str, framework: str) -> TrainingPlan:
    hw = ctx.kb.hardware_row(ctx.resolver.hardware_id(args.hardware))
    if framework == "MindSpeed-LLM":
        if hw.get("kind") != "npu":
            raise SizingError("invalid_arguments", "MindSpeed-LLM runs on Ascend NPUs only.", field="hardware",
                              valid=["snt9b", "snt9b23"])
        plan = _mindspeed_table_plan(ctx, args, model_id, hw, ctx.kb.model(model_id) or {})
    else:
        plan = _recipe_plan(ctx, args, model_id, hw) or (
            _lf_table_plan(ctx, args, model_id, hw) if framework == "LLaMA-Factory" else None)
    plan = plan or _estimate_plan(ctx, args, model_id, hw, framework)
    return _apply_overrides(plan, args, hw)


# ---------------------------------------------------------------- the files
def _header(args: GenerateConfigArgs, model_id: str, plan: TrainingPlan) -> list[str]:
    par = (f"TP {plan.tp} x PP {plan.pp} x CP {plan.cp}, DP {plan.data_parallel}" if plan.framework == "MindSpeed-LLM"
           else f"ZeRO-{plan.zero_stage}{'-Offload' if plan.offload else ''}")
    return [
        f"Generated by sizing-assistant: {model_id} {args.method} {args.stage}, {args.seq_len} tokens, {plan.hardware}, {plan.framework}",
        # A plan changed by hand is no longer the row or estimate it started from: say so on the same line.
        f"{'Started from' if plan.overrides else 'Plan'} ({plan.source}): {plan.source_detail}",
        f"{plan.nodes} node(s) x {plan.per_node} {plan.unit}(s) = {plan.devices}; {par}; "
        f"micro batch {plan.micro_batch} x grad accum {plan.grad_accum} x DP {plan.data_parallel} = global batch {plan.global_batch}",
        *plan.notes,
    ]


def _bf16(hw: dict[str, Any]) -> bool:
    """Ascend NPUs and GPUs with a BF16 rate in the catalog train in bf16; others in fp16."""
    return hw.get("kind") == "npu" or bool(hw.get("bf16_tflops"))


def _lf_options(args: GenerateConfigArgs, model_id: str, model: dict[str, Any], hw: dict[str, Any]) -> llamafactory.LlamaFactoryOptions:
    bf16 = _bf16(hw)
    return llamafactory.LlamaFactoryOptions(
        model_id=model_id, model_path=args.model_path or model.get("hf_repo") or model_id, template=args.template or model.get("template"),
        method=args.method, stage=args.stage, vision=model.get("modality") == "vision-language", bf16=bf16,
        lora_rank=args.lora_rank or 8, lora_target=args.lora_target or "all",
        quantization_bit=args.quantization_bit if args.method == "qlora" else None,
        dataset=args.dataset, output_dir=args.output_dir, learning_rate=args.learning_rate, epochs=args.epochs or 3.0,
        extra=tuple((args.yaml_keys or {}).items()))


def _zero_stage(plan: TrainingPlan) -> int:
    """The plan's ZeRO stage; every LLaMA-Factory plan has one (MindSpeed-LLM plans have none)."""
    if plan.zero_stage is None:
        raise SizingError("invalid_arguments", f"A {plan.framework} plan has no ZeRO stage, so no DeepSpeed config.",
                          field="zero_stage", valid=[0, 1, 2, 3])
    return plan.zero_stage


def _ds_file(plan: TrainingPlan) -> ConfigFile:
    stage = _zero_stage(plan)
    return ConfigFile(filename=deepspeed.filename(stage, plan.offload),
                      content=deepspeed.render(stage, plan.offload), format="deepspeed_json")


def _ds_note(plan: TrainingPlan) -> str:
    stage = _zero_stage(plan)
    name = deepspeed.path(stage, plan.offload)
    if deepspeed.is_upstream(stage, plan.offload):
        return f"{name} ships with LLaMA-Factory; the JSON here is the same shape."
    return f"LLaMA-Factory ships no {deepspeed.filename(stage, plan.offload)}: save this JSON as {name}."


def _ms_options(args: GenerateConfigArgs, model_id: str, model: dict[str, Any]) -> mindspeed.MindSpeedOptions:
    return mindspeed.MindSpeedOptions(
        model_id=model_id, model_path=args.model_path, method=args.method, stage=args.stage,
        max_context=model.get("max_context"), heads=model.get("heads"), kv_heads=model.get("kv_heads"),
        dataset=args.dataset, output_dir=args.output_dir, learning_rate=args.learning_rate,
        master_addr=args.master_addr, master_port=args.master_port)


def _check_format(args: GenerateConfigArgs) -> str:
    framework = args.framework or ("MindSpeed-LLM" if args.format == "mindspeed_env" else "LLaMA-Factory")
    own = {"MindSpeed-LLM": ["mindspeed_env", "launch"], "LLaMA-Factory": ["llamafactory_yaml", "deepspeed_json", "launch"]}
    if args.format not in own[framework]:
        raise SizingError("invalid_arguments", f"Format {args.format} belongs to another framework than {framework}.",
                          field="format", valid=own[framework])
    return framework


@tool
def generate_config(ctx, args: GenerateConfigArgs) -> GenerateConfigResult:
    """Generate a training config file: LLaMA-Factory YAML, DeepSpeed JSON, MindSpeed-LLM launch variables, or the launch commands (one node and several), for a model, method and sequence length on given hardware.

    The numbers (cards, ZeRO stage, offload, grad accum, TP/PP) come from the ModelArts tables when they have a row, else from plan_training; the result carries the file name, its text and that plan with its source. Overrides (zero_stage, micro_batch, lora_rank, dataset, ...) are applied on top."""
    framework = _check_format(args)
    model_id = ctx.resolver.model_id(args.model)
    model = ctx.kb.model(model_id) or {}
    hw = ctx.kb.hardware_row(ctx.resolver.hardware_id(args.hardware))
    # Refuse what no plan can fix (stage, method, template) before planning.
    if framework == "MindSpeed-LLM":
        ms = _ms_options(args, model_id, model)
        mindspeed.check_options(ms)
    else:
        lf = _lf_options(args, model_id, model, hw)
        llamafactory.check_options(lf)
    plan = find_plan(ctx, args, model_id, framework)
    check = _memory_check(ctx, args, model_id, plan)
    header = _header(args, model_id, plan) + ([_memory_note(check, plan)] if check else [])
    notes: list[str] = [_memory_note(check, plan)] if check and check.verdict != "fits" else []
    companions: list[ConfigFile] = []
    stem = llamafactory.stem(model_id, args.method, args.stage, args.seq_len)
    if framework == "MindSpeed-LLM":
        main = ConfigFile(filename=f"{stem}_mindspeed_env.sh", content=mindspeed.render(ms, plan, header), format="mindspeed_env")
        if args.yaml_keys:
            notes.append("Not in the MindSpeed-LLM variables (LLaMA-Factory YAML arguments): " + ", ".join(args.yaml_keys) + ".")
        notes.append("TP/PP must match the Hugging Face -> Megatron weight conversion; re-convert when you change them.")
    else:
        main = ConfigFile(filename=llamafactory.filename(lf, args.seq_len), content=llamafactory.render(lf, plan, header),
                          format="llamafactory_yaml")
        if plan.zero_stage is not None:
            companions.append(_ds_file(plan))
            notes.append(_ds_note(plan))
    if args.format == "deepspeed_json":
        if plan.zero_stage is None:
            raise SizingError("invalid_plan", "The plan uses no DeepSpeed ZeRO stage.", field="zero_stage", valid=[0, 1, 2, 3])
        main, companions = companions[0], [main]
    elif args.format == "launch":
        lopts = launch.LaunchOptions(config_file=main.filename, model_id=model_id, method=args.method,
                                     master_addr=args.master_addr, master_port=args.master_port)
        companions = [main, *companions]
        main = ConfigFile(filename=f"{stem}_launch.sh", content=launch.render(lopts, plan, header), format="launch")
    return GenerateConfigResult(model_id=model_id, format=args.format, framework=framework, filename=main.filename,
                                content=main.content, plan=plan, companion_files=companions, notes=notes, memory_check=check)
