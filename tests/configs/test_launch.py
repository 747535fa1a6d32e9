"""Launch scripts run by bash, with stand-ins for llamafactory-cli and the MindSpeed script that
print the environment and arguments they were started with."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from assistant.configs import launch
from assistant.configs.plan import TrainingPlan

SEEN = ["FORCE_TORCHRUN", "NNODES", "NODE_RANK", "MASTER_ADDR", "MASTER_PORT", "ASCEND_RT_VISIBLE_DEVICES",
        "PYTORCH_NPU_ALLOC_CONF", "CUDA_VISIBLE_DEVICES", "TP", "PP"]


def _plan(**kw) -> TrainingPlan:
    base = dict(source="table", source_detail="test", framework="LLaMA-Factory", hardware="snt9b", accelerator="npu",
                devices=1, nodes=1, per_node=1, zero_stage=2, micro_batch=1, grad_accum=8, seq_len=8192)
    return TrainingPlan(**{**base, **kw})


@pytest.fixture()
def run(tmp_path):
    """run(script_text, **env) -> list of (program, {var: value}, args) the script started."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    stub = "#!/bin/bash\n{ printf '%s|' \"$(basename \"$0\")\"; " + \
        " ".join(f'printf "{v}=%s;" "${{{v}-}}";' for v in SEEN) + " printf '|%s' \"$*\"; echo; } >> " + str(log) + "\n"
    for name in ("llamafactory-cli", "train.sh"):
        p = bin_dir / name
        p.write_text(stub)
        p.chmod(0o755)

    def _run(text: str, **env):
        script = tmp_path / "launch.sh"
        script.write_text(text)
        log.write_text("")
        full_env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), **env}
        proc = subprocess.run(["bash", str(script)], capture_output=True, text=True, env=full_env, cwd=tmp_path)
        calls = []
        for line in log.read_text().splitlines():
            prog, seen, args = line.split("|")
            calls.append((prog, dict(kv.split("=", 1) for kv in seen.rstrip(";").split(";")), args))
        return proc, calls

    return _run


def test_scripts_are_valid_bash(tmp_path):
    for plan in (_plan(), _plan(devices=32, nodes=4, per_node=8), _plan(framework="MindSpeed-LLM", devices=16, nodes=2, per_node=8)):
        p = tmp_path / "s.sh"
        p.write_text(launch.render(launch.LaunchOptions(config_file="x.yaml", model_id="m"), plan, ["h"]))
        assert subprocess.run(["bash", "-n", str(p)], capture_output=True).returncode == 0


def test_one_npu_node(run):
    text = launch.render(launch.LaunchOptions(config_file="llama3-8b_lora_sft_8192.yaml", model_id="llama3-8b"), _plan())
    assert "FORCE_TORCHRUN=1 llamafactory-cli train llama3-8b_lora_sft_8192.yaml" in text
    assert "ascendfactory-cli train llama3-8b_lora_sft_8192.yaml llama3-8b lora-8k" in text
    proc, calls = run(text)
    assert proc.returncode == 0, proc.stderr
    [(prog, env, args)] = calls
    assert prog == "llamafactory-cli" and args == "train llama3-8b_lora_sft_8192.yaml"
    assert env["FORCE_TORCHRUN"] == "1" and env["ASCEND_RT_VISIBLE_DEVICES"] == "0"
    assert env["PYTORCH_NPU_ALLOC_CONF"] == "expandable_segments:True"


def test_several_npu_nodes(run):
    plan = _plan(devices=32, nodes=4, per_node=8, zero_stage=3, offload=True)
    text = launch.render(launch.LaunchOptions(config_file="x.yaml", model_id="llama3-70b", method="full"), plan)
    for rank in range(4):
        assert f"FORCE_TORCHRUN=1 NNODES=4 NODE_RANK={rank} MASTER_ADDR=<master-ip> MASTER_PORT=29500 llamafactory-cli train x.yaml" in text
    assert "torchrun --nnodes 4 --node_rank 0 --nproc_per_node 8" in text
    proc, calls = run(text, NODE_RANK="2", MASTER_ADDR="10.0.0.1")
    assert proc.returncode == 0, proc.stderr
    [(_prog, env, args)] = calls
    assert (env["NNODES"], env["NODE_RANK"], env["MASTER_ADDR"], env["MASTER_PORT"]) == ("4", "2", "10.0.0.1", "29500")
    assert env["ASCEND_RT_VISIBLE_DEVICES"] == "0,1,2,3,4,5,6,7" and args == "train x.yaml"
    proc, calls = run(text)  # without NODE_RANK the script stops before launching anything
    assert proc.returncode != 0 and "NODE_RANK" in proc.stderr and not calls


def test_master_addr_given_is_the_default(run):
    plan = _plan(devices=16, nodes=2, per_node=8)
    text = launch.render(launch.LaunchOptions(config_file="x.yaml", master_addr="192.168.0.1", master_port=29600), plan)
    _proc, [(_p, env, _a)] = run(text, NODE_RANK="0")
    assert (env["MASTER_ADDR"], env["MASTER_PORT"]) == ("192.168.0.1", "29600")


def test_snt9b23_node_has_16_die(run):
    plan = _plan(hardware="snt9b23", unit="die", devices=32, nodes=2, per_node=16)
    _proc, [(_p, env, _a)] = run(launch.render(launch.LaunchOptions(config_file="x.yaml", master_addr="h"), plan), NODE_RANK="1")
    assert env["ASCEND_RT_VISIBLE_DEVICES"] == ",".join(str(i) for i in range(16))


def test_gpu_node(run):
    plan = _plan(hardware="h100-80g", accelerator="gpu", devices=8, per_node=8)
    text = launch.render(launch.LaunchOptions(config_file="x.yaml"), plan)
    assert "ASCEND" not in text and "ascendfactory-cli" not in text
    _proc, [(_p, env, _a)] = run(text)
    assert env["CUDA_VISIBLE_DEVICES"] == "0,1,2,3,4,5,6,7" and env["ASCEND_RT_VISIBLE_DEVICES"] == ""


def test_mindspeed_launch_sources_the_env_file(run, tmp_path):
    (tmp_path / "m_env.sh").write_text("export TP=8\nexport PP=2\nexport NNODES=2\nexport MASTER_ADDR=10.0.0.9\n")
    plan = _plan(framework="MindSpeed-LLM", zero_stage=None, devices=16, nodes=2, per_node=8, tp=8, pp=2)
    text = launch.render(launch.LaunchOptions(config_file="m_env.sh"), plan)
    assert "MASTER_ADDR=<master-ip> NNODES=2 NODE_RANK=1 sh" in text
    proc, calls = run(text, NODE_RANK="1", TRAIN_SCRIPT=str(tmp_path / "bin" / "train.sh"))
    assert proc.returncode == 0, proc.stderr
    [(prog, env, _a)] = calls
    assert prog == "train.sh"
    assert (env["TP"], env["PP"], env["NNODES"], env["NODE_RANK"], env["MASTER_ADDR"]) == ("8", "2", "2", "1", "10.0.0.9")


def test_exp_name():
    assert launch.exp_name("lora", 4096) == "lora-4k"
    assert launch.exp_name("full", 5000) == "full-5000"


def test_config_names_are_quoted(run):
    text = launch.render(launch.LaunchOptions(config_file="my cfg.yaml"), _plan())
    _proc, [(_p, _env, args)] = run(text)
    assert args == "train my cfg.yaml"


assert os.sep == "/" and Path("/bin/bash").exists()  # these tests need a POSIX shell


def test_header_comments_name_sources_as_users_know_them(call):
    """A config's header cites the vendor page by title and date, never the file it was transcribed into."""
    for args in ({"model": "qwen2.5-72b", "method": "full", "framework": "MindSpeed-LLM", "format": "mindspeed_env"},
                 {"model": "llama3.1-8b", "method": "lora", "format": "llamafactory_yaml"},
                 {"model": "qwen2.5-72b", "method": "full", "framework": "MindSpeed-LLM", "format": "launch"}):
        res = call("generate_config", **args)
        comments = [line for line in res["content"].splitlines() if line.startswith("# Plan")]
        assert comments and "ModelArts: " in comments[0], comments
        assert not re.search(r"[\w/-]+\.(txt|md|csv)\b", "\n".join(comments)), comments
