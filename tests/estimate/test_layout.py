"""The one layout validator (assistant/estimate/layout.py), pinned to the model catalog's heads (knowledge/catalog/
models.csv, from each model's config.json) and hand arithmetic: TP splits the query heads, and the KV heads (Megatron) or
a multiple of them (vLLM's QKVParallelLinear keeps copies), TP x PP divides the devices, DP = devices / (TP x PP)."""

from __future__ import annotations

from assistant.estimate import layout as L


def test_tp_against_query_and_kv_heads():
    # qwen2.5-14b: 40 heads, 8 KV heads. TP 3 divides neither; TP 8 both; TP 5 divides 40 but not 8
    assert not L.tp_splits_heads(3, 40, 8)
    assert L.tp_splits_heads(8, 40, 8)
    assert not L.tp_splits_heads(5, 40, 8) and not L.tp_splits_heads(5, 40, 8, serving=True)
    # glm4-9b: 32 heads, 2 KV heads. Megatron needs whole query groups per rank: TP 4 no; vLLM replicates: TP 4 yes
    assert not L.tp_splits_heads(4, 32, 2)
    assert L.tp_splits_heads(4, 32, 2, serving=True) and L.kv_copies(4, 2) == 2
    # llama3.2-3b: 24 heads, 8 KV heads. TP 6 divides 24, but 8 / 6 and 6 / 8 are not whole: no for either framework
    assert not L.tp_splits_heads(6, 24, 8) and not L.tp_splits_heads(6, 24, 8, serving=True)


def test_tp_sizes_per_node():
    # qwen2.5-7b: 28 heads, 4 KV heads, on an 8-device node: 1 / 2 / 4 (TP 7 and 14 split no node evenly)
    assert L.tp_sizes(28, 4, 8) == [1, 2, 4]
    # glm4-9b on an 8-device node: training 1 / 2, vLLM 1 / 2 / 4 / 8
    assert L.tp_sizes(32, 2, 8) == [1, 2]
    assert L.tp_sizes(32, 2, 8, serving=True) == [1, 2, 4, 8]


def test_data_parallel_is_devices_over_the_split():
    assert L.data_parallel(24, 4, 2) == 3  # 24 / (4 x 2)
    assert L.data_parallel(24, 8, 2) is None  # 16 does not divide 24
    assert L.data_parallel(64, 8, 2, 2) == 2  # CP counts too


def test_layouts_of_six_cards_for_qwen2_5_14b():
    # 6 cards, 40 heads, 8 KV heads, 48 layers: TP 3 and TP 6 are out (heads); TP 1 and 2 with every PP that divides
    # the rest and the layers
    got = list(L.layouts(6, 40, 8, 48, 8))
    assert (3, 1, 2) not in got and all(tp in (1, 2) for tp, _, _ in got)
    assert got[:3] == [(1, 1, 6), (2, 1, 3), (1, 2, 3)]


def test_problems_name_each_rule_broken():
    # llama3.1-70b (64 heads, 8 KV, 80 layers) at TP 8 x PP 3 on 16 cards: 24 does not divide 16, 3 does not divide 80
    assert L.problems(8, 3, 16, 64, 8, 80) == ["devices", "layers"]
    assert L.problems(3, 1, 8, 32, 8, 36) == ["heads", "devices"]
    assert L.problems(16, 1, 16, 64, 8, 64, serving=True) == []  # vLLM: 16 copies 8 KV heads twice
