"""`sizing config`: generate a LLaMA-Factory YAML, DeepSpeed JSON, MindSpeed-LLM variables or a
launch script from the command line (the generate_config tool underneath)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

FORMATS = "llamafactory_yaml | deepspeed_json | mindspeed_env | launch"


def config_cmd(
    model: Annotated[str, typer.Argument(help="Model in any spelling, e.g. llama3-8b, 'Qwen2.5-72B-Instruct'.")],
    method: Annotated[str, typer.Option("--method", "-m", help="lora | qlora | full | freeze.")] = "lora",
    seq_len: Annotated[int, typer.Option("--seq-len", "-s", help="Sequence length (cutoff_len / SEQ_LEN).")] = 4096,
    hardware: Annotated[str, typer.Option("--hardware", "--hw", help="snt9b, snt9b23, h100, a100 ...")] = "snt9b",
    fmt: Annotated[str, typer.Option("--format", "-f", help=FORMATS)] = "llamafactory_yaml",
    framework: Annotated[str | None, typer.Option("--framework", help="LLaMA-Factory or MindSpeed-LLM (default from the format).")] = None,
    stage: Annotated[str, typer.Option("--stage", help="pt | sft | dpo | kto | rm | ppo.")] = "sft",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write the file here (companion files beside it).")] = None,
    overrides: Annotated[str, typer.Option("--set", help="More arguments as JSON, e.g. '{\"zero_stage\": 3, \"lora_rank\": 16}'.")] = "{}",
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole result (plan, notes, companion files) as JSON.")] = False,
):
    """Generate a training config (YAML / DeepSpeed JSON / MindSpeed env / launch script) from the tables or the estimator."""
    from ..context import Context
    from ..tools import REGISTRY

    try:
        extra = json.loads(overrides)
    except ValueError as e:
        typer.echo(f"error: --set is not valid JSON: {e}", err=True)
        raise typer.Exit(2) from None
    if not isinstance(extra, dict):
        typer.echo("error: --set must be a JSON object", err=True)
        raise typer.Exit(2)
    args = {**extra, "model": model, "method": method, "seq_len": seq_len, "hardware": hardware, "format": fmt, "stage": stage}
    if framework:
        args["framework"] = framework
    out = REGISTRY.call_json("generate_config", args, Context.create())
    if "error" in out:
        err = out["error"]
        typer.echo(f"error: {err['message']}" + (f" Valid: {err['valid']}" if err.get("valid") else ""), err=True)
        raise typer.Exit(1)
    if as_json:
        sys.stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
    elif output is None:
        sys.stdout.write(out["content"])
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(out["content"], encoding="utf-8")
        written = [output]
        for comp in out["companion_files"]:
            path = output.parent / comp["filename"]
            if path != output:
                path.write_text(comp["content"], encoding="utf-8")
                written.append(path)
        for p in written:
            typer.echo(f"wrote {p}", err=True)
    plan = out["plan"]
    typer.echo(f"plan ({plan['source']}): {plan['source_detail']}", err=True)
    for note in out["notes"]:
        typer.echo(f"note: {note}", err=True)


def register(app: typer.Typer) -> None:
    app.command("config")(config_cmd)
