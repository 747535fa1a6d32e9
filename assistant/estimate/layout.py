"""The rules a parallel layout keeps against the model and the devices, in one place: every layout the planner tries, the
config generators write, the setup rules check and the answers offer passes these functions. Pure functions.

- Tensor parallel gives every rank the same number of attention heads: TP divides the query heads (Megatron's and vLLM's
  argument checks). Key/value heads: Megatron-Core needs whole query groups per rank (num_query_groups divisible by TP);
  vLLM's QKVParallelLinear also takes a TP that is a multiple of the KV heads, each rank then keeping a copy of one
  (num_kv_head_replicas = TP / KV heads, vllm/model_executor/layers/linear.py).
- A TP group stays inside one node (TP divides the devices per node: 1/2/4/8 on an 8-device server).
- TP x PP (x CP) divides the devices (Megatron's world-size check); data parallel is the rest, DP = devices / (TP x PP x
  CP), and it is the DP that enters GBS = MBS x DP x GA (the ModelArts MindSpeed-LLM pages' identity).
- PP divides the layers when the stages are even (Megatron's "num_layers must be divisible by
  pipeline_model_parallel_size"; MindSpeed-LLM's --num-layer-list writes an uneven split out).
"""

from __future__ import annotations

from collections.abc import Iterator


def tp_splits_heads(tp: int, heads: int | None, kv_heads: int | None, serving: bool = False) -> bool:
    """TP divides the attention heads, and the KV heads (Megatron), or is a multiple of them (vLLM: replicated)."""
    if tp < 1 or (heads and heads % tp):
        return False
    if not kv_heads or kv_heads % tp == 0:
        return True
    return serving and tp % kv_heads == 0


def kv_copies(tp: int, kv_heads: int | None) -> int:
    """Ranks sharing one key/value head in vLLM when TP exceeds the KV heads (1: each rank holds its own heads)."""
    return tp // kv_heads if kv_heads and tp > kv_heads and tp % kv_heads == 0 else 1


def tp_sizes(heads: int | None, kv_heads: int | None, per_node: int, serving: bool = False) -> list[int]:
    """The TPs a node can hold for this model: those that split a node evenly and split the heads (ascending)."""
    node = max(1, per_node)
    return [t for t in range(1, node + 1) if node % t == 0 and tp_splits_heads(t, heads, kv_heads, serving)] or [1]


def data_parallel(devices: int, tp: int = 1, pp: int = 1, cp: int = 1) -> int | None:
    """DP = devices / (TP x PP x CP), or None when the split does not divide the devices."""
    split = max(1, tp) * max(1, pp) * max(1, cp)
    return devices // split if devices and devices % split == 0 else None


def pp_splits_layers(pp: int, layers: int | None) -> bool:
    return not layers or layers % pp == 0


def layouts(devices: int, heads: int | None, kv_heads: int | None, layers: int | None, per_node: int, cp: int = 1,
            serving: bool = False) -> Iterator[tuple[int, int, int]]:
    """Every (TP, PP, DP) that keeps the rules above on ``devices``: least model parallelism first (TP before PP)."""
    found = []
    for tp in tp_sizes(heads, kv_heads, per_node, serving):
        for pp in range(1, devices // (tp * cp) + 1):
            dp = data_parallel(devices, tp, pp, cp)
            if dp and pp_splits_layers(pp, layers):
                found.append((tp * pp, pp, tp, dp))
    for _mp, pp, tp, dp in sorted(found):
        yield tp, pp, dp


def problems(tp: int, pp: int, devices: int | None, heads: int | None, kv_heads: int | None, layers: int | None,
             cp: int = 1, serving: bool = False) -> list[str]:
    """Which rules a layout breaks ("heads", "kv_heads", "devices", "layers"), in the order the frameworks check them."""
    out = []
    if heads and heads % tp:
        out.append("heads")
    elif not tp_splits_heads(tp, heads, kv_heads, serving):
        out.append("kv_heads")
    if devices and (tp * pp > devices if serving else data_parallel(devices, tp, pp, cp) is None):
        out.append("devices")
    if not serving and not pp_splits_layers(pp, layers):
        out.append("layers")
    return out
