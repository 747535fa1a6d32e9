"""MindSpeed-LLM launch variables as used by the ModelArts training scripts (``export K=V`` lines).

Variable names are the ones in the ModelArts "训练参数配置说明" table (MODEL_NAME, STAGE,
FINETUNING_TYPE, DATA_TYPE, TP, PP, CP, MBS, GBS, SEQ_LEN, MAX_PE, LR, MIN_LR, NNODES, NODE_RANK,
MASTER_ADDR, WORK_DIR, ...). The layout rules are the vendor's: TP x PP divides the device count,
GBS divisible by MBS x DP, CP >= 2 beyond 32768 tokens.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from ..errors import SizingError
from ..estimate import constants as C
from ..estimate.layout import pp_splits_layers, tp_splits_heads
from .plan import TrainingPlan, check_parallel_layout, comment_lines

STAGES = C.MINDSPEED_STAGES
METHODS = C.MINDSPEED_METHODS
WORK_DIR = "/home/ma-user/ws"
CP_THRESHOLD = 32768  # vendor: use CP >= 2 when SEQ_LEN > 32768
_DATA_TYPE = {"pt": "GeneralPretrainHandler", "sft": "AlpacaStyleInstructionHandler"}
_DEFAULT_LR = {"lora": 1.0e-4, "full": 1.0e-5}


@dataclass(frozen=True)
class MindSpeedOptions:
    model_id: str
    model_path: str | None = None
    method: str = "lora"
    stage: str = "sft"
    max_context: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    dataset: str | None = None
    output_dir: str | None = None
    learning_rate: float | None = None
    master_addr: str | None = None  # None: 127.0.0.1 on one node; required from the environment on several
    master_port: int = 29500


def default_layout(devices: int, per_node: int, seq_len: int, heads: int | None = None,
                   kv_heads: int | None = None, layers: int | None = None) -> tuple[int, int, int]:
    """(TP, PP, CP) for a device count that is the minimum the model fits on: every device goes to
    model parallelism (DP 1). CP covers the sequence in 32K chunks; TP is the largest of 8/4/2/1
    that stays inside a node and divides the heads and KV groups; PP takes the rest (as the vendor
    says, PP usually equals the node count)."""
    cp = 1
    while seq_len > CP_THRESHOLD * cp and devices % (cp * 2) == 0:
        cp *= 2
    tp = 1
    for t in (8, 4, 2, 1):
        if t <= per_node and devices % (t * cp) == 0 and tp_splits_heads(t, heads, kv_heads):
            tp = t
            break
    pp = devices // (tp * cp)
    if not pp_splits_layers(pp, layers):  # Megatron splits layers evenly over stages: trade PP for DP
        pp = max(p for p in range(1, pp + 1) if (devices // (tp * cp)) % p == 0 and pp_splits_layers(p, layers))
    return tp, pp, cp


def check_options(opts: MindSpeedOptions) -> None:
    if opts.stage not in STAGES:
        raise SizingError("invalid_arguments", f"The ModelArts MindSpeed-LLM scripts take STAGE pt or sft, not {opts.stage!r}.",
                          field="stage", valid=list(STAGES))
    if opts.method not in METHODS:
        raise SizingError("invalid_arguments", f"MindSpeed-LLM FINETUNING_TYPE is full or lora, not {opts.method!r}.",
                          field="method", valid=list(METHODS))


def check(opts: MindSpeedOptions, plan: TrainingPlan) -> None:
    check_options(opts)
    check_parallel_layout(plan, plan.seq_len, opts.heads, opts.kv_heads)


def variables(opts: MindSpeedOptions, plan: TrainingPlan) -> list[tuple[str, str | int | float, str]]:
    """(name, value, comment) in the order of the ModelArts table."""
    check(opts, plan)
    run = f"{opts.model_id}_{opts.stage}_{opts.method}_{plan.seq_len}"
    lr = opts.learning_rate if opts.learning_rate is not None else _DEFAULT_LR[opts.method]
    max_pe = max(plan.seq_len, opts.max_context or 0)
    return [
        ("WORK_DIR", WORK_DIR, ""),
        ("ORIGINAL_TRAIN_DATA_PATH", opts.dataset or f"{WORK_DIR}/training_data/train.jsonl", "required: raw training data"),
        ("ORIGINAL_HF_WEIGHT", opts.model_path or f"{WORK_DIR}/model/{opts.model_id}", "required: Hugging Face weights"),
        ("OUTPUT_SAVE_DIR", opts.output_dir or f"{WORK_DIR}/save_dir/{run}", "required"),
        ("MODEL_NAME", opts.model_id, ""),
        ("STAGE", opts.stage, "pt | sft"),
        ("FINETUNING_TYPE", opts.method, "full | lora"),
        ("DATA_TYPE", _DATA_TYPE[opts.stage], "dataset handler; Sharegpt/MOSS handlers for other formats"),
        ("TP", plan.tp, "tensor parallel; must match the weight conversion"),
        ("PP", plan.pp, "pipeline parallel; must match the weight conversion"),
        ("CP", plan.cp, "context parallel; >= 2 when SEQ_LEN > 32768"),
        ("MBS", plan.micro_batch, "micro batch"),
        ("GBS", plan.global_batch, f"global batch = MBS x GA x DP = {plan.micro_batch} x {plan.grad_accum} x {plan.data_parallel}"),
        ("SEQ_LEN", plan.seq_len, ""),
        ("MAX_PE", max_pe, "max position embeddings"),
        ("LR", lr, ""),
        ("MIN_LR", lr / 10, ""),
        ("NPUS_PER_NODE", plan.per_node, ""),
        ("NNODES", plan.nodes, ""),
        ("NODE_RANK", Raw("${NODE_RANK:-0}"), "0 on the master node, 1..NNODES-1 on the others" if plan.nodes > 1 else ""),
        ("MASTER_ADDR", opts.master_addr or (Raw('"${MASTER_ADDR:?set MASTER_ADDR: the IP of the NODE_RANK=0 node}"')
                                             if plan.nodes > 1 else "127.0.0.1"),
         "IP of the NODE_RANK=0 node" if plan.nodes > 1 else ""),
        ("MASTER_PORT", opts.master_port, ""),
    ]


class Raw(str):
    """A value written as is (a shell default such as ${NODE_RANK:-0}), not quoted."""


def _value(v) -> str:
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, float):
        return f"{v:.6g}"
    return shlex.quote(str(v))


def render(opts: MindSpeedOptions, plan: TrainingPlan, header: list[str] | None = None) -> str:
    lines = comment_lines(header)
    for name, value, comment in variables(opts, plan):
        line = f"export {name}={_value(value)}"
        lines.append(f"{line}  # {comment}" if comment else line)
    lines.append("# TRAIN_ITERS / SAVE_INTERVAL: set for your data size; checkpoints saved = TRAIN_ITERS // SAVE_INTERVAL + 1")
    return "\n".join(lines) + "\n"
