"""A question asking the batch identity's figure for two layouts on the same devices ("with pure DP? and with TP x
PP?") gets both, in the order asked (GBS = MBS x DP x GA, ModelArts MindSpeed-LLM pages). Fresh round 22 c2-03 gave
only the split's."""

from __future__ import annotations


def test_pure_dp_then_the_split(assistant):
    # pure DP: 24 x 1 x 2 = 48; TP 2 PP 3: DP = 24 / 6 = 4 -> 4 x 1 x 2 = 8
    answer = assistant.ask("24 NPUs, micro batch 1, GA 2: global batch with only data parallel, and with TP 2 PP 3?").answer
    assert answer.index("**Global batch 48**") < answer.index("**Global batch 8**")
    assert "data parallel 24 ×" in answer and "data parallel 4 (= devices / (TP 2 × PP 3))" in answer


def test_zh_split_named_first_keeps_its_order(assistant):
    # TP 4: DP = 32 / 4 = 8 -> 2 x 8 x 4 = 64; 纯数据并行: 2 x 32 x 4 = 256
    answer = assistant.ask("32 卡，MBS 2，梯度累积 4，TP=4 时 global batch 是多少？纯数据并行呢？").answer
    assert answer.index("全局 batch 为 64") < answer.index("全局 batch 为 256")


def test_one_layout_one_sum(assistant):
    # 16 x 2 x 8 = 256, no second layout asked
    answer = assistant.ask("16 cards, micro batch 2, grad accum 8, pure data parallel: global batch?").answer
    assert answer.count("Global batch") == 1 and "**Global batch 256**" in answer
