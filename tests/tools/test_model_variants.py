"""Each variant's own context (knowledge/catalog/model_variants.csv): Qwen2.5 -Instruct configs set 32,768 (YaRN for
longer), the base configs 131,072; glm-4-9b base 8,192, -chat 131,072 (catalog README; research/modelarts.md §12)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("model_id", ["qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b", "qwen2.5-72b", "qwen2-7b", "qwen2-72b"])
def test_qwen_instruct_is_the_default_context(ctx, model_id):
    row = ctx.kb.model(model_id)
    assert row["max_context"] == 32768 and row["context_variant"].endswith("-Instruct")
    assert {v["variant"]: v["max_context"] for v in ctx.kb.context_variants(model_id)} == {"base": 131072, "instruct": 32768}


def test_glm4_9b_variants(ctx):
    assert {v["variant"]: v["max_context"] for v in ctx.kb.context_variants("glm4-9b")} == {"base": 8192, "chat": 131072}


def test_a_model_with_one_limit_has_no_variant_named(ctx):
    row = ctx.kb.model("qwen3-8b")
    assert row["max_context"] == 40960 and "context_variant" not in row




def test_the_variant_a_spelling_names():
    from assistant.resolve import variant_of

    assert [variant_of(n) for n in ("Qwen2.5-7B-Instruct", "glm-4-9b-chat", "qwen2.5 7b base", "Qwen/Qwen2.5-7B", "gemma-2-9b-it",
                                    "qwen2.5-7b-instrcut")] == ["instruct", "chat", "base", None, "instruct", "instruct"]


def test_resolve_model_gives_the_named_variants_context(ctx, registry):
    out = registry.call_json("resolve_model", {"name": "glm-4-9b-chat"}, ctx)
    assert (out["max_context"], out["context_variant"]) == (131072, "glm-4-9b-chat")
    assert out["context_by_variant"] == {"glm-4-9b": 8192, "glm-4-9b-chat": 131072}


def test_an_xlm_roberta_models_context_is_its_position_slots_less_the_padding_offset(ctx, registry):
    """bge-reranker-v2-m3's config has max_position_embeddings 8194; XLM-R numbers positions from padding_idx + 1 = 2,
    so it holds 8192 tokens: the model card's limit and the newest vLLM table's measured max-model-len on 1 card."""
    out = registry.call_json("resolve_model", {"name": "bge-reranker-v2-m3"}, ctx)
    assert out["max_context"] == 8194 - 2
