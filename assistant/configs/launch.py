"""Launch script for a generated config: one node or several, NPU or GPU.

LLaMA-Factory's multi-node convention (its README) is the same command on every node with only
NODE_RANK changed: ``FORCE_TORCHRUN=1 NNODES NODE_RANK MASTER_ADDR MASTER_PORT llamafactory-cli
train x.yaml``; DeepSpeed needs that torchrun launch even on one node. ModelArts' AscendFactory
package wraps it as ``ascendfactory-cli train <yaml> <model_name> <exp_name>``. MindSpeed-LLM
scripts read the variables of the env file (vendor example: ``MASTER_ADDR=.. NNODES=4 NODE_RANK=0
sh scripts/llama2/0_pl_sft_70b.sh``). Environment variables are the ones the notes recommend.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from .plan import TrainingPlan, comment_lines

LF_LAUNCHER = "\"$(python -c 'import llamafactory.launcher as m; print(m.__file__)')\""


@dataclass(frozen=True)
class LaunchOptions:
    config_file: str = ""  # the YAML (LLaMA-Factory) or env file (MindSpeed-LLM)
    model_id: str = ""
    method: str = "lora"
    master_addr: str | None = None  # None: the script insists on MASTER_ADDR from the environment
    master_port: int = 29500

    @property
    def shown_addr(self) -> str:
        return self.master_addr or "<master-ip>"


def environment(plan: TrainingPlan) -> list[str]:
    devices = ",".join(str(i) for i in range(plan.per_node))
    if plan.accelerator == "npu":
        lines = [
            f"export ASCEND_RT_VISIBLE_DEVICES={devices}  # the {plan.per_node} {plan.unit}(s) used on this node",
            "export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True  # less fragmentation (ModelArts OOM FAQ)",
        ]
        if plan.nodes > 1:
            lines.append("# export HCCL_EXEC_TIMEOUT=3600  # optional: slow multi-node checkpoint saves (see the ckpt_timeout note)")
        return lines
    return [
        f"export CUDA_VISIBLE_DEVICES={devices}  # the {plan.per_node} GPU(s) used on this node",
        "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True  # CUDA counterpart of the NPU allocator setting",
    ]


def _lf_command(opts: LaunchOptions, nnodes: int, rank: str | int, addr: str, port: str | int) -> str:
    cfg = shlex.quote(opts.config_file)
    if nnodes == 1:
        return f"FORCE_TORCHRUN=1 llamafactory-cli train {cfg}"
    return f"FORCE_TORCHRUN=1 NNODES={nnodes} NODE_RANK={rank} MASTER_ADDR={addr} MASTER_PORT={port} llamafactory-cli train {cfg}"


def exp_name(method: str, seq_len: int) -> str:
    """ModelArts experiment names look like lora-4k / full-8k."""
    return f"{method}-{seq_len // 1024}k" if seq_len % 1024 == 0 else f"{method}-{seq_len}"


def llamafactory(opts: LaunchOptions, plan: TrainingPlan) -> list[str]:
    cfg = shlex.quote(opts.config_file)
    lines = ["# Run from the LLaMA-Factory directory: the YAML's deepspeed path is relative to it."]
    if plan.nodes == 1:
        lines += ["", "# One node:", _lf_command(opts, 1, 0, "", "")]
    else:
        lines += [
            "",
            f"# {plan.nodes} nodes: run this script on every node, NODE_RANK=0 on the master (MASTER_ADDR), "
            f"1..{plan.nodes - 1} on the others.",
            f"NNODES={plan.nodes}",
            "NODE_RANK=${NODE_RANK:?set NODE_RANK: 0 on the master node, 1..NNODES-1 on the others}",
            (f"MASTER_ADDR=${{MASTER_ADDR:-{opts.master_addr}}}" if opts.master_addr
             else "MASTER_ADDR=${MASTER_ADDR:?set MASTER_ADDR: the IP of the NODE_RANK=0 node}"),
            f"MASTER_PORT=${{MASTER_PORT:-{opts.master_port}}}",
            _lf_command(opts, plan.nodes, "$NODE_RANK", "$MASTER_ADDR", "$MASTER_PORT"),
        ]
    nodes = plan.nodes if plan.nodes > 1 else 2
    lines += ["", "# The same command for each node, written out:" if plan.nodes > 1 else
              f"# Several nodes (e.g. {nodes}): the same command on every node, only NODE_RANK changes:"]
    for rank in range(nodes):
        lines.append("#   " + _lf_command(opts, nodes, rank, opts.shown_addr, opts.master_port))
    lines += ["", "# With torchrun directly (per node):"]
    lines.append(f"#   torchrun --nnodes {plan.nodes} --node_rank 0 --nproc_per_node {plan.per_node} "
                 f"--master_addr {(opts.master_addr or '127.0.0.1') if plan.nodes == 1 else opts.shown_addr} --master_port {opts.master_port} {LF_LAUNCHER} {cfg}")
    if plan.accelerator == "npu":
        lines += ["", "# On ModelArts with the AscendFactory package (<yaml> <model_name> <exp_name>):",
                  f"#   ascendfactory-cli train {cfg} {shlex.quote(opts.model_id)} {exp_name(opts.method, plan.seq_len)}"]
    return lines


def mindspeed(opts: LaunchOptions, plan: TrainingPlan) -> list[str]:
    cfg = shlex.quote(opts.config_file)
    lines = [
        f"source {cfg}  # the MindSpeed-LLM variables (TP, PP, MBS, GBS, SEQ_LEN, ...)",
        "TRAIN_SCRIPT=${TRAIN_SCRIPT:?path of the MindSpeed-LLM training script for this model in your ModelArts package}",
    ]
    if plan.nodes == 1:
        lines += ["", "# One node:", 'sh "$TRAIN_SCRIPT"']
    else:
        lines += [
            "",
            f"# {plan.nodes} nodes: run on every node with its NODE_RANK (0 on the master at MASTER_ADDR).",
            "NODE_RANK=${NODE_RANK:?set NODE_RANK: 0 on the master node, 1..NNODES-1 on the others}",
            'MASTER_ADDR="$MASTER_ADDR" NNODES="$NNODES" NODE_RANK="$NODE_RANK" sh "$TRAIN_SCRIPT"',
            "",
            "# Written out per node:",
        ]
        lines += [f"#   MASTER_ADDR={opts.shown_addr} NNODES={plan.nodes} NODE_RANK={r} sh \"$TRAIN_SCRIPT\""
                  for r in range(plan.nodes)]
    return lines


def render(opts: LaunchOptions, plan: TrainingPlan, header: list[str] | None = None) -> str:
    lines = ["#!/usr/bin/env bash", *comment_lines(header), "set -euo pipefail", ""]
    lines += environment(plan)
    lines += [""] + (mindspeed(opts, plan) if plan.framework == "MindSpeed-LLM" else llamafactory(opts, plan))
    return "\n".join(lines) + "\n"
