"""A Hugging Face ``config.json`` read into the estimator's shape fields and a parameter count, for a
model that is not in the catalog. Pure functions over the parsed JSON; the count follows the module
layout of Llama-style decoders (attention with grouped KV heads, a gated MLP or routed experts,
embeddings tied or not) and DeepSeek's MLA attention, and leaves out norms and biases (well under
0.1 % of the total)."""

from __future__ import annotations

import json
from typing import Any

from .errors import SizingError

# config.json key(s) -> CustomShape field; the first key present wins
SHAPE_KEYS: dict[str, tuple[str, ...]] = {
    "layers": ("num_hidden_layers", "n_layer", "num_layers"),
    "hidden": ("hidden_size", "n_embd", "d_model"),
    "ffn": ("intermediate_size", "ffn_hidden_size", "n_inner"),
    "heads": ("num_attention_heads", "n_head"),
    "kv_heads": ("num_key_value_heads", "num_kv_heads", "multi_query_group_num"),
    "head_dim": ("head_dim",),
    "vocab": ("vocab_size", "padded_vocab_size"),
    "experts": ("n_routed_experts", "num_local_experts", "num_experts"),
    "experts_per_token": ("num_experts_per_tok", "moe_topk", "num_experts_per_token"),
    "moe_ffn": ("moe_intermediate_size",),
    "sliding_window": ("sliding_window",),
}


def _first(cfg: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((cfg[k] for k in keys if isinstance(cfg.get(k), int) and not isinstance(cfg.get(k), bool)), None)


def parse_config(text: str) -> dict[str, Any]:
    """The JSON object of a pasted config.json (a multimodal config's ``text_config`` when present)."""
    try:
        cfg = json.loads(text)
    except ValueError as e:
        raise SizingError("invalid_arguments", f"config.json is not valid JSON: {e}", field="config") from None
    if not isinstance(cfg, dict):
        raise SizingError("invalid_arguments", "config.json must be a JSON object", field="config")
    return cfg["text_config"] if isinstance(cfg.get("text_config"), dict) else cfg


def shape_from_config(cfg: dict[str, Any]) -> dict[str, int]:
    """The shape fields the estimator takes (CustomShape), from the keys the config has."""
    shape = {field: v for field, keys in SHAPE_KEYS.items() if (v := _first(cfg, keys)) is not None}
    if shape.get("heads") and shape.get("hidden") and "head_dim" not in shape:
        shape["head_dim"] = shape["hidden"] // shape["heads"]
    for field in ("layers", "hidden", "heads", "vocab"):
        if field not in shape:
            raise SizingError("invalid_arguments", f"config.json has no {field} ({' / '.join(SHAPE_KEYS[field])})",
                              field="config")
    return shape


def _attention_params(cfg: dict[str, Any], s: dict[str, int]) -> int:
    h, heads = s["hidden"], s["heads"]
    if cfg.get("kv_lora_rank"):  # DeepSeek MLA: low-rank query and key/value projections
        nope, rope, v_dim = cfg.get("qk_nope_head_dim", 128), cfg.get("qk_rope_head_dim", 64), cfg.get("v_head_dim", 128)
        q_rank, kv_rank = cfg.get("q_lora_rank"), cfg["kv_lora_rank"]
        q = h * q_rank + q_rank * heads * (nope + rope) if q_rank else h * heads * (nope + rope)
        return q + h * (kv_rank + rope) + kv_rank * heads * (nope + v_dim) + heads * v_dim * h
    hd, kv = s["head_dim"], s.get("kv_heads", heads)
    return 2 * h * heads * hd + 2 * h * kv * hd  # q and o; k and v


def param_count(cfg: dict[str, Any]) -> int:
    """Parameters of the decoder the config describes (embeddings, attention, MLP or experts)."""
    s = shape_from_config(cfg)
    h, layers = s["hidden"], s["layers"]
    embed = s["vocab"] * h * (1 if cfg.get("tie_word_embeddings", False) else 2)
    dense_mlp = 3 * h * s.get("ffn", 4 * h)  # gate, up and down projections
    experts = s.get("experts") or 0
    if experts:
        moe_ffn = s.get("moe_ffn") or s.get("ffn", 4 * h)
        shared = (cfg.get("n_shared_experts") or 0) * 3 * h * moe_ffn
        moe_mlp = experts * 3 * h * moe_ffn + shared + h * experts  # experts, shared experts, router
        dense_layers = int(cfg.get("first_k_dense_replace") or 0)
        mlp = dense_layers * dense_mlp + (layers - dense_layers) * moe_mlp
    else:
        mlp = layers * dense_mlp
    return embed + layers * _attention_params(cfg, s) + mlp


def read_config(text: str) -> tuple[dict[str, int], float]:
    """(shape fields, parameters in billions) from a pasted config.json."""
    cfg = parse_config(text)
    return shape_from_config(cfg), param_count(cfg) / 1e9
