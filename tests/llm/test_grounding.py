"""The grounding check on its own: which figures in an answer trace to a source and which do not."""

from __future__ import annotations

from assistant.llm.grounding import check, mark, without_marked

MIN_CARDS = {"model_id": "qwen2.5-72b", "cards": 32, "unit": "card", "seq_len": 4096, "supported": True,
             "source": "ModelArts: 模型最小卡数配置, 2025-06-24"}


def test_figures_from_the_tool_result_and_the_question_pass():
    q = "Minimum cards for Qwen2.5-72B LoRA at 4096 with LLaMA-Factory on Snt9B?"
    ans = "You need 32 cards for Qwen2.5-72B at 4,096 tokens (4k) on Snt9B (ModelArts table, 2025-06-24)."
    assert check(ans, texts=[q], results=[MIN_CARDS], tools_called=["min_cards"]).ok


def test_invented_figures_are_named():
    # the answers a 0.5B model gave with no tool call (issue 27)
    ans = "A Snt9B node costs approximately 0.18 dollars. You need 12 nodes."
    found = check(ans, texts=["how much is a Snt9B node?"], results=[])
    assert found.named() == ["0.18", "12"]


def test_identifiers_are_not_figures_but_list_numbers_and_zero_stages_are_checked_apart():
    ans = "1. Use ZeRO-3 on H100 or Snt9B with fp16.\n2. Keep llama3 as the template."
    found = check(ans, texts=["which stage?"], results=[{"deepspeed": "ZeRO-3-Offload"}], tools_called=["training_recipe"])
    assert found.ok  # 1./2. number a list; H100, Snt9B, fp16, llama3 are names; 3 comes from the tool
    assert check("Use ZeRO-2.", texts=["which stage?"], results=[{"deepspeed": "ZeRO-3"}]).named() == ["2"]


def test_rounded_and_percent_figures_trace_to_the_tool_value():
    result = {"total_gib": 74.23, "mfu": 0.4}
    assert check("About 74.2 GiB (74 GiB) per card at 40% MFU.", texts=[""], results=[result]).ok
    assert check("About 75.3 GiB.", texts=[""], results=[result]).named() == ["75.3"]


def test_support_claims_need_a_table_tool_this_turn():
    ans = "LLaMA-Factory does not support DeepSeek-V3 on ModelArts."
    found = check(ans, texts=["Does LLaMA-Factory support DeepSeek-V3 on ModelArts?"], results=[])
    assert [f.text for f in found.claims] == ["does not support"]
    assert check(ans, texts=["q"], results=[{"supported": False}], tools_called=["min_cards"]).ok
    assert not check("该模型不支持。", texts=["q"], results=[]).ok


def test_chinese_answer_numbers_next_to_characters_are_checked():
    found = check("需要64卡，即9个节点。", texts=["qwen2 72b 几张卡"], results=[{"cards": 64}])
    assert found.named() == ["9"]


def test_node_count_worked_out_from_the_device_count():
    # seed 004: qwen2.5-72b lora 4096 LLaMA-Factory on Snt9B = 32 cards; 8 cards (16 DIE on Snt9B23) per node
    ans = "32 cards, that is 4 nodes."
    assert check(ans, texts=["q"], results=[{"cards": 32}], per_node=[8, 16]).ok
    assert check("32 DIE, that is 2 nodes.", texts=["q"], results=[{"cards": 32}], per_node=[8, 16]).ok
    assert check("32 cards, that is 5 nodes.", texts=["q"], results=[{"cards": 32}], per_node=[8, 16]).named() == ["5"]


def test_mark_tags_each_failing_figure_where_it_stands():
    ans = "You need 12 nodes and 32 cards."
    found = check(ans, texts=["q"], results=[{"cards": 32}])
    assert mark(ans, found, chinese=False) == "You need 12 [not from a tool] nodes and 32 cards."
    assert mark("需要12个节点", check("需要12个节点", texts=["q"], results=[]), chinese=True) == "需要12［未经工具核实］个节点"


def test_figures_marked_in_an_earlier_answer_ground_nothing_later():
    earlier = "You need 12 [not from a tool] nodes and 32 cards."
    assert check("So 12 nodes.", texts=[without_marked(earlier)], results=[]).named() == ["12"]
    assert check("So 32 cards.", texts=[without_marked(earlier)], results=[]).ok


def test_a_date_is_one_figure():
    # the minimum-card table's page is dated 2025-06-24; its parts ground no "6" or "24"
    assert check("From the table of 2025-06-24.", texts=["q"], results=[MIN_CARDS]).ok
    assert check("You need 24 cards.", texts=["q"], results=[MIN_CARDS]).named() == ["24"]
    assert check("Table of 2025-07-01.", texts=["q"], results=[MIN_CARDS]).named() == ["2025-07-01"]
