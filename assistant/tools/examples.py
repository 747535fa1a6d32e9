"""mindspeed_example: the settings of the Ascend/MindSpeed-LLM example scripts (knowledge/tables/mindspeed_examples.csv),
as the scripts set them. A question about "the example script's TP/PP/GBS" is answered from these rows, never from a
plan the estimator makes up; a model without a script is said to have none, with the models that have one.

No ``from __future__ import annotations`` here (see tables.py)."""

from pydantic import BaseModel, ConfigDict, Field

from .common import ModelName
from .registry import tool


class ExampleModel(BaseModel):
    model_config = ConfigDict(defer_build=True)


class MindSpeedExampleArgs(ExampleModel):
    model: ModelName
    method: str | None = Field(None, pattern=r"^(lora|full)$", description="lora or full; omit for every script of the model.")
    seq_len: int | None = Field(None, ge=1, le=10_000_000, description="Sequence length; omit for every script of the model.")


class ExampleScript(ExampleModel):
    script: str = Field(description="The script's path in Ascend/MindSpeed-LLM examples (family folder / name).")
    model_id: str = Field(description="Catalog id of the model.")
    stage: str = Field(description="pt (pretraining) or sft (fine-tuning), from the script's name.")
    method: str = Field(description="full or lora.")
    seq_len: int = Field(description="--seq-length the script sets.")
    hardware: str = Field(description="Snt9B (Atlas A2, 8 devices per node) or Snt9B23 (A3 scripts, 16 DIE per node).")
    devices: int = Field(description="NNODES x NPUS_PER_NODE of the script.")
    unit: str = Field(description="card, or die for the A3 scripts.")
    tp: int = Field(description="--tensor-model-parallel-size.")
    pp: int = Field(description="--pipeline-model-parallel-size.")
    cp: int | None = Field(None, description="--context-parallel-size, when the script sets it.")
    ep: int | None = Field(None, description="--expert-model-parallel-size, when the script sets it (MoE).")
    mbs: int = Field(description="--micro-batch-size.")
    gbs: int = Field(description="--global-batch-size.")
    dp: int = Field(description="Data parallel size = devices / (TP x PP x CP).")
    grad_accum: int = Field(description="Gradient accumulation = GBS / (MBS x DP).")
    source: str = Field(description="Where the values were read (repository snapshot).")


class MindSpeedExampleResult(ExampleModel):
    model_id: str = Field(description="Catalog id of the model asked about.")
    found: bool = Field(description="Whether a script matches the model (and method and length, when given).")
    scripts: list[ExampleScript] = Field(default_factory=list, description="The matching scripts; when none matches the "
                                         "method or length, every script of the model.")
    exact: bool = Field(False, description="Whether the scripts match the method and length asked (not only the model).")
    models_with_scripts: list[str] = Field(default_factory=list, description="Every model with an example script, when this one has none.")


def _script(r: dict) -> ExampleScript:
    cp = int(r["cp"]) if r.get("cp") is not None else None
    dp = int(r["devices"]) // (int(r["tp"]) * int(r["pp"]) * (cp or 1))
    return ExampleScript(**{**r, "cp": cp, "ep": int(r["ep"]) if r.get("ep") is not None else None, "dp": dp,
                            "grad_accum": int(r["gbs"]) // (int(r["mbs"]) * dp)})


@tool
def mindspeed_example(ctx, args: MindSpeedExampleArgs) -> MindSpeedExampleResult:
    """The MindSpeed-LLM example scripts' TP, PP, EP and batch for a model.

    Devices, TP, PP, CP, EP, micro and global batch and sequence length as the scripts set them, with DP and gradient
    accumulation derived. Only what the scripts set (a snapshot of the repository's examples); a model with no script gets found=false and the models that have one."""
    model_id = ctx.resolver.model_id(args.model)
    rows = [_script(r) for r in ctx.kb.mindspeed_examples(model_id)]
    if not rows:
        listed = sorted({r["model_id"] for r in ctx.kb.mindspeed_examples()})
        return MindSpeedExampleResult(model_id=model_id, found=False, models_with_scripts=listed)
    exact = [r for r in rows if (args.method is None or r.method == args.method) and (args.seq_len is None or r.seq_len == args.seq_len)]
    return MindSpeedExampleResult(model_id=model_id, found=True, scripts=exact or rows, exact=bool(exact))
