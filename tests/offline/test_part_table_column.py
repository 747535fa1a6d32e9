""""Which column of the vendor tables do I read?" for a part: the tables that have rows for it, under its column name
(the hardware catalog's table_part / vendor_tables; Atlas 800T A2 is Snt9B, 8 NPUs per server: seeds/004's Snt9B
column is 8 cards a node). Fresh round 19 c5-04 got "the notes do not cover this"."""

from __future__ import annotations


def test_the_column_and_the_node_of_a_part_named_by_its_server(assistant):
    lead = assistant.ask("our boxes are Atlas 800T A2. NPUs per box, and which column of the vendor tables do I read?").answer.splitlines()[0]
    assert lead.startswith("**Answer:** **ModelArts Snt9B")
    assert "8 cards per node" in lead and "minimum-card table (模型最小卡数配置) applies**: its rows are for Snt9B" in lead


def test_the_column_asked_in_chinese(assistant):
    lead = assistant.ask("910B3 对应厂商表格的哪一列？").answer.splitlines()[0]
    assert lead.startswith("**结论**：**ModelArts Snt9B") and "厂商最小卡数表（模型最小卡数配置）适用**：表中的行就是 Snt9B 的" in lead
