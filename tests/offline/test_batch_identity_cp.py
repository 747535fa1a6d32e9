"""Context parallel ranks share one replica's sequence, so the data parallel of the batch identity is devices / (TP x
PP x CP) (MindSpeed-LLM launch-script page: GBS = MBS x DP x GA). Fresh round 19 c3-03 divided by TP x PP only."""

from __future__ import annotations


def test_cp_divides_the_devices_before_the_accumulation(assistant):
    # DP = 64 / (4 x 4 x 2) = 2; GA = 256 / (1 x 2) = 128
    lead = assistant.ask("64 张卡, TP4 PP4 CP2, MBS 1, GBS 256 — GA 设多少").answer.splitlines()[0]
    assert lead.startswith("**梯度累积设为 128**") and "数据并行 2（= 卡数 / (TP 4 × PP 4 × CP 2)）" in lead


def test_cp_in_the_global_batch_from_the_accumulation(assistant):
    # DP = 32 / (2 x 2 x 2) = 4; GBS = 2 x 4 x 8 = 64
    answer = assistant.ask("32 NPUs, TP 2, PP 2, CP 2, micro batch 2, GA 8: what is the global batch?").answer
    assert "**Global batch 64**" in answer and "data parallel 4 (= devices / (TP 2 × PP 2 × CP 2))" in answer
