"""Each part of a multi-part question is answered, in the order asked: two frameworks asked in turn, and the whole
nodes with the devices left over (hand computations from the vendor tables and the hardware catalog)."""

from __future__ import annotations

from tests.offline.dialog import lead_line as lead


def test_frameworks_asked_in_turn_are_led_in_that_order(assistant):
    # seeds/004 llama3.1-8b lora 4096 Snt9B: LLaMA-Factory 1 card, MindSpeed-LLM 4 cards (the recipe row is LF's own)
    line = lead(assistant.ask("llama3.1-8b lora 4k on 910B: LF first, then MindSpeed - min cards?").answer)
    assert line.index("LLaMA-Factory") < line.index("MindSpeed-LLM")
    assert "LLaMA-Factory **1 card" in line and "MindSpeed-LLM **4 cards" in line


def test_second_framework_with_ne_is_answered_too(assistant):
    # seeds/004 qwen3-32b full 4096 Snt9B: MindSpeed-LLM 16, LLaMA-Factory 32
    line = lead(assistant.ask("qwen3-32b 全参 4096 在 910B 上 MindSpeed 最少几张？LlamaFactory 呢").answer)
    assert line.index("MindSpeed-LLM") < line.index("LLaMA-Factory")
    assert "16 张卡" in line and "32 张卡" in line


def test_whole_nodes_and_the_die_left(assistant):
    # Snt9B23: 16 DIE per node (catalog): 52 DIE = 3 whole nodes + 4 DIE
    line = lead(assistant.ask("I have 52 Snt9B23 DIE: how many whole nodes is that and how many DIE are left over?").answer)
    assert "**3 whole nodes** + **4 DIE left over**" in line
    zh = lead(assistant.ask("我手上 40 个 DIE，够凑几台完整的 Snt9B23？剩几个？").answer)
    assert "**2 台完整节点**" in zh and "**8 DIE**" in zh


def test_offload_half_answered_beside_the_global_batch(assistant):
    # GBS = 1 x 8 x 8 = 64 (hand computation); the offload half is the same ZeRO-3 without offload on the same 8 cards
    ans = assistant.ask("qwen2.5-7b full 4k on 8 910B with LLaMA-Factory, zero-3 + offload, mbs 1 GA 8 - "
                        "do I need the offload at all? and the global batch?")
    off = [c for c in ans.tool_calls if c.name == "estimate_training_memory" and c.args.get("offload") is False]
    assert off and off[0].args["devices"] == 8 and off[0].args["zero_stage"] == 3
    assert "Global batch 64" in ans.answer and "Offload needed?" in ans.answer
    # asked first, answered first: the offload half leads, the global batch follows it
    assert lead(ans.answer).startswith("**Answer:** **Offload needed?")
    assert ans.answer.index("Offload needed?") < ans.answer.index("Global batch 64")


def test_whether_the_table_lists_the_row_is_answered_before_the_count(assistant):
    # seeds/004: qwen3-32b lora 8192 is listed (MindSpeed-LLM Snt9B 8 cards); qwen2.5-14b has no 2048 row (4096: LF full 8)
    zh = assistant.ask("qwen3-32b lora 的 8192 在最小卡数表里有没有? MindSpeed 要几张").answer
    assert lead(zh).startswith("**结论**：**有**") and "**8 张卡**" in zh
    en = assistant.ask("is qwen2.5-14b full at 2048 listed in the min card table? how many cards with LLaMA-Factory?").answer
    assert lead(en).startswith("**Answer:** **No**") and "4096" in lead(en) and "**8 cards**" in en
