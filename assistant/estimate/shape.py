"""Model shapes: from a catalog row, from a custom shape, or inferred from a raw parameter count."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class Shape:
    """What the memory formulas need to know about a transformer."""

    name: str
    params: float  # total parameters (count)
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    vocab: int
    ffn: int = 0  # dense MLP width (0 when every layer is MoE)
    head_dim: int = 0  # 0 -> hidden // heads
    tied: bool = False
    active_params: float = 0.0  # 0 -> params
    experts: int = 0
    experts_per_token: int = 0
    moe_ffn: int = 0
    shared_experts: int = 0
    dense_layers: int = 0  # DeepSeek first_k_dense_replace
    dense_ffn: int = 0
    kv_lora_rank: int = 0  # MLA (DeepSeek V2/V3)
    q_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    qk_nope_head_dim: int = 0
    v_head_dim: int = 0
    vision_params: float = 0.0
    sliding_window: int = 0  # tokens a sliding-window attention layer sees (0: none)
    sliding_layers: int = 0  # how many layers use it (Gemma 2: half, Gemma 3: 5 of 6, Mistral v0.1: all)
    native_weights: str = ""  # checkpoint precision when not bf16: "fp8" (DeepSeek-V3), "mxfp4-experts" (gpt-oss)
    inferred: tuple[str, ...] = field(default_factory=tuple)  # what was not given but assumed

    # -- derived sizes ----------------------------------------------------------------------------
    @property
    def hd(self) -> int:
        return self.head_dim or self.hidden // self.heads

    @property
    def is_moe(self) -> bool:
        return self.experts > 0

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def moe_layers(self) -> int:
        return self.layers - self.dense_layers if self.is_moe else 0

    @property
    def q_dim(self) -> int:
        if self.is_mla:
            return self.heads * (self.qk_nope_head_dim + self.qk_rope_head_dim)
        return self.heads * self.hd

    @property
    def kv_dim(self) -> int:
        """Width of K (= V) per token as the attention kernel sees it (GQA-aware)."""
        if self.is_mla:
            return self.heads * (self.qk_nope_head_dim + self.qk_rope_head_dim)
        return self.kv_heads * self.hd

    @property
    def embed_params(self) -> float:
        return float(self.vocab * self.hidden)

    @property
    def head_params(self) -> float:
        return 0.0 if self.tied else float(self.vocab * self.hidden)

    @property
    def expert_params(self) -> float:
        """Routed-expert weights over all MoE layers (the part expert parallelism splits)."""
        return float(self.moe_layers * self.experts * 3 * self.hidden * self.moe_ffn)

    @property
    def language_params(self) -> float:
        return self.params - self.vision_params

    @property
    def layer_params(self) -> float:
        """Average parameters of one transformer layer (language model, embeddings excluded)."""
        body = self.language_params - self.embed_params - self.head_params
        return max(body, 0.0) / self.layers

    @property
    def largest_module_params(self) -> float:
        return max(self.embed_params, self.head_params, self.layer_params)

    def ffn_for_activations(self) -> float:
        """MLP width a token passes through in one (average) layer: dense ffn, or top-k experts plus shared."""
        if not self.is_moe:
            return float(self.ffn)
        moe = self.moe_ffn * (self.experts_per_token + self.shared_experts)
        dense = self.dense_ffn or self.ffn
        return (moe * self.moe_layers + dense * self.dense_layers) / self.layers

    def lora_params(self, rank: int, targets: str = "all") -> float:
        """Trainable LoRA parameters: rank x (d_in + d_out) for every targeted linear layer.

        targets: 'all' (LLaMA-Factory's lora_target all: every linear except the LM head, MoE experts
        included), 'attention' (q,k,v,o) or a comma list of module names (q_proj, k_proj, v_proj,
        o_proj, gate_proj, up_proj, down_proj)."""
        h = self.hidden
        attn = {"q_proj": h + self.q_dim, "k_proj": h + self.kv_dim, "v_proj": h + self.kv_dim, "o_proj": self.q_dim + h}
        if self.is_mla:  # DeepSeek projection layout
            q = (h + self.q_lora_rank) + (self.q_lora_rank + self.q_dim) if self.q_lora_rank else h + self.q_dim
            kv_a = h + self.kv_lora_rank + self.qk_rope_head_dim
            kv_b = self.kv_lora_rank + self.heads * (self.qk_nope_head_dim + self.v_head_dim)
            attn = {"q_proj": q, "k_proj": kv_a, "v_proj": kv_b, "o_proj": self.heads * self.v_head_dim + h}
        wanted = _lora_modules(targets)
        per_layer_attn = sum(v for k, v in attn.items() if k in wanted)
        n_mlp = len({"gate_proj", "up_proj", "down_proj"} & wanted)
        total: float = per_layer_attn * self.layers
        if n_mlp:
            def mlp(f: int) -> float:
                return n_mlp * (h + f)

            if self.is_moe:
                total += self.moe_layers * mlp(self.moe_ffn) * (self.experts + self.shared_experts)
                total += self.dense_layers * mlp(self.dense_ffn or self.ffn)
            else:
                total += self.layers * mlp(self.ffn)
        return float(rank * total)


_ALL = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}


def _lora_modules(targets: str) -> set[str]:
    t = (targets or "all").strip().lower()
    if t == "all":
        return set(_ALL)
    if t in {"attention", "attn"}:
        return {"q_proj", "k_proj", "v_proj", "o_proj"}
    if t in {"mlp", "ffn"}:
        return {"gate_proj", "up_proj", "down_proj"}
    return {p.strip() for p in t.split(",") if p.strip()} & _ALL


def lora_targets_valid(targets: str) -> bool:
    return bool(_lora_modules(targets))


def _int(v: Any, default: int = 0) -> int:
    try:
        return default if v is None or (isinstance(v, float) and math.isnan(v)) else int(v)
    except (TypeError, ValueError):
        return default


def _float(v: Any, default: float = 0.0) -> float:
    try:
        f = float(v)
        return default if math.isnan(f) else f
    except (TypeError, ValueError):
        return default


def arch_of(row: dict[str, Any]) -> str:
    """"moe" for a catalog row with routed experts (Mixtral, Qwen3-30B-A3B, DeepSeek-V3's MLA MoE), else "dense": the
    filter of "which dense / MoE models" questions."""
    return "moe" if _int(row.get("experts")) else "dense"


def from_catalog(row: dict[str, Any]) -> Shape:
    """Build a Shape from a knowledge/catalog/models.csv row."""
    params = _float(row.get("params_b")) * 1e9
    tied = str(row.get("tied_embeddings")).lower() in {"true", "1"}
    return Shape(
        name=str(row["id"]), params=params, layers=_int(row.get("layers")), hidden=_int(row.get("hidden")),
        heads=_int(row.get("heads")), kv_heads=_int(row.get("kv_heads")) or _int(row.get("heads")),
        vocab=_int(row.get("vocab")), ffn=_int(row.get("ffn")), head_dim=_int(row.get("head_dim")), tied=tied,
        active_params=_float(row.get("active_params_b")) * 1e9 or params,
        experts=_int(row.get("experts")), experts_per_token=_int(row.get("experts_per_token")),
        moe_ffn=_int(row.get("moe_ffn")), shared_experts=_int(row.get("shared_experts")),
        dense_layers=_int(row.get("dense_layers")), dense_ffn=_int(row.get("dense_ffn")),
        kv_lora_rank=_int(row.get("kv_lora_rank")), q_lora_rank=_int(row.get("q_lora_rank")),
        qk_rope_head_dim=_int(row.get("qk_rope_head_dim")), qk_nope_head_dim=_int(row.get("qk_nope_head_dim")),
        v_head_dim=_int(row.get("v_head_dim")), vision_params=_float(row.get("vision_params_b")) * 1e9,
        sliding_window=_int(row.get("sliding_window")), sliding_layers=_int(row.get("sliding_layers")),
        native_weights=str(row.get("native_weights") or "").strip().lower(),
    )


# Shape inference from a raw parameter count. Dense decoder-only models published since 2023
# (Llama 2/3, Qwen2/2.5, Mistral, Yi) keep hidden/layers near 128 (4096/32, 5120/40, 8192/80) and a
# layer of ~12 h^2 parameters (GQA attention ~2.5 h^2 + SwiGLU MLP 3 h x 3.25 h ~ 9.75 h^2). Hence
# P ~ 12 h^3 / 128 -> h = cbrt(128 P / 12), rounded to a multiple of 128; layers = body / (12 h^2).
# Heads of 128 dims, 8 KV heads (GQA), vocab 152064 (a large modern vocabulary: conservative for
# the logits buffer). Small models tie their embeddings and keep them under 30 % of the count, as
# Qwen2.5-0.5B/1.5B and Llama-3.2-1B do.
INFER_VOCAB = 152064
INFER_KV_HEADS = 8
INFER_EMBED_SHARE = 0.3


def from_params(params_b: float, name: str | None = None) -> Shape:
    p = params_b * 1e9
    h = (128 * p / 12) ** (1 / 3)
    step = 512 if h >= 2048 else 128  # wide models: whole groups of 4 heads of 128, so 8 KV heads divide
    h = max(256, int(round(h / step)) * step)
    tied = 2 * INFER_VOCAB * h > INFER_EMBED_SHARE * p
    if INFER_VOCAB * h > INFER_EMBED_SHARE * p:
        h = max(128, int(INFER_EMBED_SHARE * p / INFER_VOCAB / 128) * 128)
    body = p - INFER_VOCAB * h * (1 if tied else 2)
    layers = max(1, round(body / (12 * h * h)))
    heads = max(1, h // 128)
    kv = max(k for k in (1, 2, 4, 8) if k <= min(heads, INFER_KV_HEADS) and heads % k == 0)
    ffn = int(round(((body / layers) - 2.5 * h * h) / (3 * h) / 128)) * 128
    return Shape(
        name=name or f"custom-{params_b:g}b", params=p, layers=layers, hidden=h, heads=heads, kv_heads=kv,
        vocab=INFER_VOCAB, ffn=max(ffn, h), tied=tied, active_params=p,
        inferred=("layers", "hidden", "ffn", "heads", "kv_heads", "vocab", "tied_embeddings"),
    )


def with_overrides(base: Shape, **kw: Any) -> Shape:
    """A custom shape: the catalog (or inferred) shape with some fields replaced; params recomputed
    from the shape when the caller changed the shape but not the count."""
    kw = {k: v for k, v in kw.items() if v is not None}
    if not kw:
        return base
    shape = replace(base, **kw)
    if shape.inferred:  # what the caller gave is no longer an assumption
        shape = replace(shape, inferred=tuple(f for f in shape.inferred if f not in kw))
    if "params" not in kw and set(kw) & {"layers", "hidden", "ffn", "vocab", "heads", "kv_heads"}:
        shape = replace(shape, params=count_params(shape), active_params=0.0)
    return shape


def count_params(s: Shape) -> float:
    """Parameters implied by a dense/MoE shape (SwiGLU MLP, GQA attention, untied head unless tied)."""
    h = s.hidden
    attn = h * s.q_dim + 2 * h * s.kv_heads * s.hd + s.q_dim * h
    if s.is_moe:
        mlp = (s.experts + s.shared_experts) * 3 * h * s.moe_ffn + h * s.experts
        body = s.moe_layers * (attn + mlp) + s.dense_layers * (attn + 3 * h * (s.dense_ffn or s.ffn))
    else:
        body = s.layers * (attn + 3 * h * s.ffn)
    return float(body + s.embed_params + (0 if s.tied else s.vocab * h) + s.vision_params)
