"""`sizing config` on the command line."""

from __future__ import annotations

import json

import yaml
from typer.testing import CliRunner

from assistant.frontends.cli import app

runner = CliRunner()


def _env(settings) -> dict[str, str]:
    return {"SIZING_CACHE_DIR": str(settings.resolved_cache_dir())}


def test_prints_the_yaml(settings):
    r = runner.invoke(app, ["config", "llama3-8b", "--method", "lora", "--seq-len", "8192", "--hardware", "snt9b",
                            "--format", "llamafactory_yaml"], env=_env(settings))
    assert r.exit_code == 0, r.output
    cfg = yaml.safe_load(r.stdout)
    assert (cfg["finetuning_type"], cfg["cutoff_len"], cfg["template"]) == ("lora", 8192, "llama3")
    assert "plan (table)" in r.stderr


def test_writes_the_file_and_its_deepspeed_json(settings, tmp_path):
    out = tmp_path / "cfg" / "job.yaml"
    r = runner.invoke(app, ["config", "qwen2-vl-7b", "-m", "full", "-s", "8192", "-o", str(out)], env=_env(settings))
    assert r.exit_code == 0, r.output
    assert yaml.safe_load(out.read_text())["deepspeed"] == "examples/deepspeed/ds_z2_offload_config.json"
    ds = json.loads((out.parent / "ds_z2_offload_config.json").read_text())
    assert ds["zero_optimization"]["stage"] == 2 and "offload_optimizer" in ds["zero_optimization"]
    assert r.stdout == ""


def test_json_and_overrides(settings):
    r = runner.invoke(app, ["config", "llama3-8b", "-f", "deepspeed_json", "--set", '{"zero_stage": 3, "offload": true}', "--json"],
                      env=_env(settings))
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["filename"] == "ds_z3_offload_config.json" and out["plan"]["overrides"] == ["offload", "zero_stage"]


def test_errors_exit_1_with_the_reason(settings):
    r = runner.invoke(app, ["config", "gpt-99-ultra"], env=_env(settings))
    assert r.exit_code == 1 and "Unknown model" in r.stderr
    r = runner.invoke(app, ["config", "llama3-8b", "--set", "[1]"], env=_env(settings))
    assert r.exit_code == 2
