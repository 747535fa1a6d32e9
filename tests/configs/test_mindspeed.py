"""MindSpeed-LLM variables: the vendor's layout rules, and the env file as bash reads it."""

from __future__ import annotations

import subprocess

import pytest

from assistant.configs import mindspeed
from assistant.configs.plan import TrainingPlan, check_parallel_layout, nodes_for
from assistant.errors import SizingError


def _plan(**kw) -> TrainingPlan:
    base = dict(source="table", source_detail="test", framework="MindSpeed-LLM", hardware="snt9b", accelerator="npu",
                devices=16, nodes=2, per_node=8, tp=8, pp=2, cp=1, micro_batch=1, grad_accum=8, seq_len=4096)
    return TrainingPlan(**{**base, **kw})


@pytest.mark.parametrize("args,expected,why", [
    # (devices, per_node, seq_len, heads, kv_heads, layers) -> (TP, PP, CP)
    ((4, 8, 4096, 32, 8, 32), (4, 1, 1), "older ModelArts table: llama3-8b TP4 PP1 on 4 cards"),
    ((32, 8, 131072, 32, 8, 32), (8, 1, 4), "MindSpeed-LLM llama31 8B 128k script: 32 cards TP8 PP1 CP4"),
    ((16, 8, 4096, 64, 8, 80), (8, 2, 1), "PP = node count, TP 8 inside the node (vendor rule)"),
    ((32, 8, 4096, 64, 8, 80), (8, 4, 1), "llama2-70b: TP8 PP4 on 4 nodes (older ModelArts table)"),
    ((16, 8, 4096, 32, 4, 48), (4, 4, 1), "qwen3-30b-a3b has 4 KV heads: TP at most 4"),
    ((8, 8, 4096, 28, 4, 28), (4, 2, 1), "qwen2-7b: 28 heads / 4 KV heads allow TP 4"),
    ((8, 8, 4096, 32, 8, 30), (8, 1, 1), "PP must split the layers evenly: 30 layers, PP 1"),
])
def test_default_layout(args, expected, why):
    assert mindspeed.default_layout(*args) == expected, why


def test_layout_rules():
    check_parallel_layout(_plan(), 4096, 64, 8)
    with pytest.raises(SizingError, match="does not divide 16"):
        check_parallel_layout(_plan(tp=8, pp=3), 4096)
    with pytest.raises(SizingError, match="CP >= 2"):
        check_parallel_layout(_plan(), 65536)
    check_parallel_layout(_plan(tp=8, pp=1, cp=2), 65536)
    with pytest.raises(SizingError, match="KV heads"):
        check_parallel_layout(_plan(), 4096, 64, 4)


def test_whole_nodes():
    assert nodes_for(4, 8) == (1, 4)
    assert nodes_for(32, 8) == (4, 8)
    assert nodes_for(32, 16) == (2, 16)
    assert nodes_for(12, 8) == (2, 6)  # the same number of devices on each node
    with pytest.raises(SizingError):
        nodes_for(13, 8)


def _source(text: str, *names: str, env: dict | None = None) -> dict[str, str]:
    script = text + "\n" + "\n".join(f'echo "{n}=${n}"' for n in names)
    out = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=True, env=env or {"PATH": "/usr/bin:/bin"})
    return dict(line.split("=", 1) for line in out.stdout.splitlines())


def test_env_file_as_bash_reads_it():
    opts = mindspeed.MindSpeedOptions(model_id="qwen2.5-72b", method="lora", max_context=131072, heads=64, kv_heads=8,
                                      master_addr="10.0.0.1")
    text = mindspeed.render(opts, _plan(grad_accum=4), ["a header"])
    v = _source(text, "MODEL_NAME", "STAGE", "FINETUNING_TYPE", "DATA_TYPE", "TP", "PP", "CP", "MBS", "GBS", "SEQ_LEN",
                "MAX_PE", "NNODES", "NODE_RANK", "MASTER_ADDR", "LR", "MIN_LR", "NPUS_PER_NODE", "ORIGINAL_HF_WEIGHT")
    assert v["MODEL_NAME"] == "qwen2.5-72b" and v["STAGE"] == "sft" and v["FINETUNING_TYPE"] == "lora"
    assert (v["TP"], v["PP"], v["CP"], v["MBS"]) == ("8", "2", "1", "1")
    assert v["GBS"] == "4"  # MBS 1 x GA 4 x DP (16 / (8 x 2)) 1
    assert (v["SEQ_LEN"], v["MAX_PE"], v["NNODES"], v["NODE_RANK"], v["MASTER_ADDR"]) == ("4096", "131072", "2", "0", "10.0.0.1")
    assert float(v["LR"]) == 1e-4 and float(v["MIN_LR"]) == 1e-5
    assert v["DATA_TYPE"] == "AlpacaStyleInstructionHandler" and v["NPUS_PER_NODE"] == "8"
    assert v["ORIGINAL_HF_WEIGHT"] == "/home/ma-user/ws/model/qwen2.5-72b"


def test_gbs_is_divisible_by_mbs_times_dp():
    plan = _plan(devices=32, nodes=4, tp=8, pp=2, micro_batch=2, grad_accum=8)
    v = _source(mindspeed.render(mindspeed.MindSpeedOptions(model_id="m", master_addr="h"), plan), "GBS")
    assert int(v["GBS"]) == 32 and int(v["GBS"]) % (2 * plan.data_parallel) == 0


def test_multi_node_env_takes_node_rank_and_insists_on_master_addr():
    text = mindspeed.render(mindspeed.MindSpeedOptions(model_id="m"), _plan())
    v = _source(text, "NODE_RANK", "MASTER_ADDR", env={"PATH": "/usr/bin:/bin", "NODE_RANK": "1", "MASTER_ADDR": "10.1.1.1"})
    assert v == {"NODE_RANK": "1", "MASTER_ADDR": "10.1.1.1"}
    bad = subprocess.run(["bash", "-c", text], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert bad.returncode != 0 and "MASTER_ADDR" in bad.stderr


def test_single_node_env_defaults_to_localhost():
    plan = _plan(devices=8, nodes=1, per_node=8, tp=8, pp=1)
    v = _source(mindspeed.render(mindspeed.MindSpeedOptions(model_id="m"), plan), "MASTER_ADDR", "NNODES")
    assert v == {"MASTER_ADDR": "127.0.0.1", "NNODES": "1"}


@pytest.mark.parametrize("opts,match", [(dict(stage="dpo"), "STAGE pt or sft"), (dict(method="qlora"), "full or lora")])
def test_refusals(opts, match):
    with pytest.raises(SizingError, match=match):
        mindspeed.render(mindspeed.MindSpeedOptions(model_id="m", **opts), _plan())


def test_values_are_shell_quoted():
    opts = mindspeed.MindSpeedOptions(model_id="m", dataset="/data/my set; rm -rf /", master_addr="h")
    v = _source(mindspeed.render(opts, _plan()), "ORIGINAL_TRAIN_DATA_PATH")
    assert v["ORIGINAL_TRAIN_DATA_PATH"] == "/data/my set; rm -rf /"
