""""What does the MindSpeed-LLM example script set for X?" is answered with the script's own values (mindspeed_example,
research/modelarts.md §11), never with a plan of the estimator's; a model without a script is said to have none.
Round 13 c7-12: qwen3-30b-a3b's script is TP 4, PP 2, EP 2, MBS 4, GBS 64 on 16 cards."""

from __future__ import annotations


def tools(ans) -> set[str]:
    return {c.name for c in ans.tool_calls}


def test_the_scripts_values_lead_in_chinese(assistant):
    ans = assistant.ask("qwen3-30b-a3b 全参 4k，MindSpeed 官方示例脚本里 TP、PP、EP、MBS、GBS 是多少")
    lead = ans.answer.split("**结论**：", 1)[1].splitlines()[0]
    assert "**16 张卡**" in lead and "TP 4，PP 2，EP 2，MBS 4，GBS 64" in lead
    assert "梯度累积 = GBS 64 / (MBS 4 × DP 2) = 8" in ans.answer
    assert tools(ans) == {"mindspeed_example"} and "```" not in ans.answer  # no generated file beside the script


def test_the_scripts_values_lead_in_english(assistant):
    ans = assistant.ask("what TP/PP/MBS/GBS does the MindSpeed-LLM example script for qwen2.5-72b 4k full fine-tuning use?")
    lead = ans.answer.split("**Answer:**", 1)[1].splitlines()[0]
    assert "**32 cards**" in lead and "TP 8, PP 2, MBS 1, GBS 32" in lead


def test_no_script_is_said_and_no_plan_is_made_up(assistant):
    ans = assistant.ask("MindSpeed-LLM example script values for internlm2.5-20b full 4k — TP, PP, GBS?")
    assert "have none for **internlm2.5-20b**" in ans.answer and "TP 8" not in ans.answer
