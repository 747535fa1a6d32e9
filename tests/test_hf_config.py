"""A pasted Hugging Face config.json read into the estimator's shape and a parameter count, checked
against the parameter counts the model cards publish."""

from __future__ import annotations

import json

import pytest

from assistant.errors import SizingError
from assistant.hf_config import param_count, read_config

# meta-llama/Meta-Llama-3-8B config.json (the fields that set the size)
LLAMA3_8B = {"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "intermediate_size": 14336,
             "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128256,
             "tie_word_embeddings": False, "torch_dtype": "bfloat16"}
# Qwen/Qwen2.5-0.5B: tied embeddings, biases on q/k/v (left out of the count)
QWEN25_05B = {"hidden_size": 896, "intermediate_size": 4864, "num_attention_heads": 14, "num_hidden_layers": 24,
              "num_key_value_heads": 2, "vocab_size": 151936, "tie_word_embeddings": True}


def test_llama3_8b_shape_and_count():
    shape, params_b = read_config(json.dumps(LLAMA3_8B))
    assert shape == {"layers": 32, "hidden": 4096, "ffn": 14336, "heads": 32, "kv_heads": 8, "head_dim": 128,
                     "vocab": 128256}
    # by hand: embeddings 2 x 128256 x 4096 = 1,050,673,152; per layer q,o 2 x 4096^2 + k,v 2 x 4096 x 1024
    # = 41,943,040 and MLP 3 x 4096 x 14336 = 176,160,768; x 32 layers = 6,979,321,856 -> 8,029,995,008
    # (the model card's 8.03B adds 65 norms x 4096 = 266,240)
    assert param_count(LLAMA3_8B) == 8_029_995_008
    assert round(params_b, 2) == 8.03


def test_tied_embeddings_count_once():
    # Qwen2.5-0.5B model card: 0.49B parameters (0.36B without embeddings)
    total = param_count(QWEN25_05B)
    assert round(total / 1e9, 2) == 0.49
    assert round((total - 151936 * 896) / 1e9, 2) == 0.36


def test_moe_config_counts_every_expert():
    # mistralai/Mixtral-8x7B-v0.1: 46.7B parameters in total
    mixtral = {"hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_hidden_layers": 32,
               "num_key_value_heads": 8, "vocab_size": 32000, "num_local_experts": 8, "num_experts_per_tok": 2}
    shape, params_b = read_config(json.dumps(mixtral))
    assert shape["experts"] == 8 and shape["experts_per_token"] == 2
    assert round(params_b, 1) == 46.7


def test_bad_config_is_a_sizing_error():
    with pytest.raises(SizingError) as e:
        read_config("{not json")
    assert e.value.code == "invalid_arguments"
    with pytest.raises(SizingError, match="layers"):
        read_config(json.dumps({"hidden_size": 10}))
