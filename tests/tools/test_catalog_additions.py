"""Models added to knowledge/catalog/models.csv (Llama 4, GLM-4.5, gpt-oss, Phi-4-mini, Gemma-3-270M,
Mistral-Small-3.1) and the same-shape aliases (Qwen3 2507 / Coder, Phi-4-mini-reasoning, Mistral-Small-3.2):
the shapes reproduce the published sizes, the common spellings resolve, and the tools plan them."""

from __future__ import annotations

from dataclasses import replace

import pytest

from assistant.configs import llamafactory_names
from assistant.estimate.shape import count_params, from_catalog
from assistant.resolve import squash

NEW = ["llama4-scout", "llama4-maverick", "glm4.5", "glm4.5-air", "gpt-oss-20b", "gpt-oss-120b", "phi4-mini",
       "gemma3-270m", "mistral-small-3.1-24b"]

# Published sizes from the model cards, in billions: (total, active, what the vendor counts as active).
# Vendors count "active" differently; each figure is compared with the same part of the shape:
#   language  top-k routed + shared experts, attention, embedding and LM head (vision tower excluded)
#   no_embed  the same without the embedding and the LM head (Zhipu: GLM-4.5 "32B active")
#   no_input  the same without the input embedding (OpenAI counts the unembedding, not the embedding)
PUBLISHED = {
    "llama4-scout": (109, 17, "language"),       # Meta card: 17B active / 109B total
    "llama4-maverick": (400, 17, "language"),    # Meta card: 17B active / 400B total
    "glm4.5": (355, 32, "no_embed"),             # Z.ai card: 355B total / 32B active
    "glm4.5-air": (106, 12, "no_embed"),         # Z.ai card: 106B total / 12B active
    "gpt-oss-20b": (20.9, 3.6, "no_input"),      # OpenAI model card: 20.9B total / 3.6B active
    "gpt-oss-120b": (116.8, 5.1, "no_input"),    # OpenAI model card: 116.8B total / 5.1B active
    "phi4-mini": (3.8, 3.8, "language"),         # Microsoft card: 3.8B
    "gemma3-270m": (0.27, 0.27, "language"),     # Google: 270M (170M embedding + 100M transformer)
    "mistral-small-3.1-24b": (24, 24, "language"),  # Mistral card: 24B
    "qwen3-30b-a3b": (30.5, 3.3, "language"),    # Qwen3-Coder-30B-A3B-Instruct card: 30.5B / 3.3B activated
    "qwen3-4b": (4.0, 4.0, "language"),          # Qwen3-4B-Instruct-2507 card: 4.0B
}
# Published figures are rounded (17B, 355B, 3.8B): 3% covers the rounding and the small terms the shape
# leaves out (norms, biases, attention sinks).
TOLERANCE = 0.03

# Exact totals of the models transformers 5.6 builds from these config values on the meta device (no
# weights; vision tower and projector included, GLM without attention biases). count_params leaves out
# norms and biases only, so it must agree within 0.1%.
BUILT = {
    "llama4-scout": 108_641_793_536,
    "llama4-maverick": 401_583_781_376,
    "glm4.5": 352_796_495_872,
    "glm4.5-air": 106_851_586_048,
    "gpt-oss-20b": 20_914_757_184,
    "gpt-oss-120b": 116_829_156_672,
    "phi4-mini": 3_836_021_760,
    "gemma3-270m": 268_098_176,
    "mistral-small-3.1-24b": 24_011_361_280,
}


def _shape(ctx, model_id):
    row = ctx.kb.model(model_id)
    assert row is not None, model_id
    return from_catalog(row)


def _active(s, convention: str) -> float:
    routed = count_params(replace(s, experts=s.experts_per_token)) if s.is_moe else count_params(s)
    routed -= s.vision_params
    if convention == "no_embed":
        return routed - s.embed_params - s.head_params
    if convention == "no_input":
        return routed - s.embed_params
    return routed


@pytest.mark.parametrize("model_id", PUBLISHED)
def test_shape_reproduces_the_published_sizes(ctx, model_id):
    total, active, convention = PUBLISHED[model_id]
    s = _shape(ctx, model_id)
    assert count_params(s) / 1e9 == pytest.approx(total, rel=TOLERANCE)
    assert _active(s, convention) / 1e9 == pytest.approx(active, rel=TOLERANCE)


@pytest.mark.parametrize("model_id", BUILT)
def test_shape_matches_the_model_transformers_builds(ctx, model_id):
    assert count_params(_shape(ctx, model_id)) == pytest.approx(BUILT[model_id], rel=1e-3)


def test_maverick_interleaves_dense_and_moe_layers(ctx):
    # interleave_moe_layer_step 2: 24 MoE layers of 128 routed + 1 shared expert (8192 wide), 24 dense MLPs 16384 wide
    s = _shape(ctx, "llama4-maverick")
    assert (s.moe_layers, s.dense_layers) == (24, 24)
    h = 5120
    attn = 2 * h * 40 * 128 + 2 * h * 8 * 128
    moe_layer = attn + 129 * 3 * h * 8192 + h * 128
    dense_layer = attn + 3 * h * 16384
    by_hand = 24 * moe_layer + 24 * dense_layer + 2 * 202048 * h + s.vision_params
    assert count_params(s) == pytest.approx(by_hand, rel=1e-12)


SPELLINGS = {
    "meta-llama/Llama-4-Scout-17B-16E-Instruct": "llama4-scout",
    "llama4 scout": "llama4-scout",
    "Llama-4-Scout-17B-16E": "llama4-scout",
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct": "llama4-maverick",
    "llama 4 maverick": "llama4-maverick",
    "zai-org/GLM-4.5": "glm4.5",
    "GLM-4.5": "glm4.5",
    "GLM-4.5-Air": "glm4.5-air",
    "zai-org/GLM-4.5-Air-Base": "glm4.5-air",
    "智谱GLM-4.5-Air": "glm4.5-air",
    "openai/gpt-oss-20b": "gpt-oss-20b",
    "gpt-oss 20b": "gpt-oss-20b",
    "GPT-OSS-20B-Thinking": "gpt-oss-20b",
    "gpt-oss-120b": "gpt-oss-120b",
    "microsoft/Phi-4-mini-instruct": "phi4-mini",
    "Phi-4-mini-reasoning": "phi4-mini",
    "google/gemma-3-270m-it": "gemma3-270m",
    "gemma 3 270m": "gemma3-270m",
    "mistralai/Mistral-Small-3.1-24B-Instruct-2503": "mistral-small-3.1-24b",
    "Mistral-Small-3.1-24B-Base-2503": "mistral-small-3.1-24b",
    "mistral small 3.2": "mistral-small-3.1-24b",
    "Mistral-Small-3.2-24B-Instruct-2506": "mistral-small-3.1-24b",
    "Qwen/Qwen3-Coder-30B-A3B-Instruct": "qwen3-30b-a3b",
    "Qwen3-30B-A3B-Instruct-2507": "qwen3-30b-a3b",
    "Qwen3-235B-A22B-Instruct-2507": "qwen3-235b-a22b",
    "Qwen/Qwen3-4B-Instruct-2507": "qwen3-4b",
    "DeepSeek-R1": "deepseek-v3",
    "deepseek-ai/DeepSeek-V2.5": "deepseek-v2",
}


@pytest.mark.parametrize("name,expected", SPELLINGS.items())
def test_common_spellings_resolve(call, name, expected):
    assert call("resolve_model", name=name).get("id") == expected


def test_no_spelling_belongs_to_two_models(ctx):
    owner: dict[str, str] = {}
    for m in ctx.kb.models():
        for name in [m["id"], m["display_name"], m["hf_repo"], *str(m.get("aliases") or "").split(";")]:
            if name:
                key = squash(str(name))
                assert owner.setdefault(key, m["id"]) == m["id"], (key, owner[key], m["id"])


@pytest.mark.parametrize("model_id", NEW)
def test_template_is_registered_in_llamafactory(ctx, model_id):
    assert ctx.kb.model(model_id)["template"] in llamafactory_names.TEMPLATES


# Maverick's MoE layers hold 16.3B parameters each; ZeRO-3 gathers them whole, so bf16 LoRA does not fit
# 64 GB cards at any count (as for DeepSeek-V3); it fits on H200 or as QLoRA.
PLANS = [dict(model=m, method="lora") for m in NEW if m != "llama4-maverick"] + [
    dict(model="llama4-maverick", method="lora", hardware="h200"),
    dict(model="llama4-maverick", method="qlora"),
    dict(model="gpt-oss-20b", method="full"),
    dict(model="glm4.5-air", method="full"),
]


@pytest.mark.parametrize("args", PLANS, ids=lambda a: "-".join(str(v) for v in a.values()))
def test_plan_training_fits(call, args):
    out = call("plan_training", seq_len=4096, **args)
    assert "error" not in out, out
    assert out["fits"] and out["devices"] >= 1 and out["memory"]["total_gib"] <= out["memory"]["usable_gib"]


# KV bytes per token in bf16 at max_model_len 8192, by hand: 2 (K and V) x layers x kv_heads x head_dim x 2 B;
# sliding-window layers hold only their window of the 8192 tokens (gpt-oss: half the layers, window 128;
# Gemma-3-270M: 15 of 18 layers, window 512).
KV_BYTES = {
    "llama4-scout": 2 * 48 * 8 * 128 * 2,
    "llama4-maverick": 2 * 48 * 8 * 128 * 2,
    "glm4.5": 2 * 92 * 8 * 128 * 2,
    "glm4.5-air": 2 * 46 * 8 * 128 * 2,
    "gpt-oss-20b": 2 * 8 * 64 * 2 * (12 + 12 * 128 / 8192),
    "gpt-oss-120b": 2 * 8 * 64 * 2 * (18 + 18 * 128 / 8192),
    "phi4-mini": 2 * 32 * 8 * 128 * 2,
    "gemma3-270m": 2 * 1 * 256 * 2 * (3 + 15 * 512 / 8192),
    "mistral-small-3.1-24b": 2 * 40 * 8 * 128 * 2,
}


@pytest.mark.parametrize("model_id", NEW)
def test_estimate_inference_fits(call, model_id):
    out = call("estimate_inference", model=model_id, max_model_len=8192)
    assert "error" not in out, out
    assert out["fits"] and out["kv_tokens_fit"] >= 8192
    assert out["kv_bytes_per_token"] == KV_BYTES[model_id]


# ---------------------------------------------------------------- hardware parts added for common questions
HARDWARE_SPELLINGS = {
    "t4": "t4-16g", "Tesla T4": "t4-16g", "v100": "v100-16g", "V100 16GB": "v100-16g", "v100 32gb": "v100-32g",
    "RTX 4060 Ti 16GB": "rtx4060ti-16g", "4080": "rtx4080-16g", "RTX A4000": "rtx-a4000-16g", "A10": "a10-24g",
    "L4": "l4-24g", "RTX 3090": "rtx3090-24g", "3090": "rtx3090-24g", "a6000": "rtx-a6000-48g", "B200": "b200-180g",
    "MI300X": "mi300x-192g", "Atlas 300I Duo": "atlas-300i-duo", "300i duo": "atlas-300i-duo", "Ascend 910": "ascend910a-32g",
    "snt9": "ascend910a-32g", "910B3": "snt9b", "910B4": "snt9b-32g", "910C": "snt9b23",
}


@pytest.mark.parametrize("name,expected", HARDWARE_SPELLINGS.items())
def test_hardware_spellings_resolve(ctx, name, expected):
    assert ctx.resolver.hardware_id(name) == expected


def test_every_hardware_row_has_memory_interconnect_and_source(ctx):
    from assistant.resolve import squash

    owner: dict[str, str] = {}
    for h in ctx.kb.hardware():
        assert float(h["memory_gb"]) > 0 and h["interconnect"] and h["source"] and h["aliases"], h["id"]
        for a in str(h["aliases"]).split(";"):
            assert owner.setdefault(squash(a), h["id"]) == h["id"], f"{a} names two parts"
