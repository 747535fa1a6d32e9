"""A config asked for with a device limit: the vendor table's row when its count fits the limit (the file
then is the table's plan), else the estimate's setting spread over all the user's devices, said as such.
Table counts are the hand-typed seeds (tests/seedfiles.py)."""

from __future__ import annotations

from tests.seedfiles import recipe_rows


def recipe(model: str, strategy: str, cutoff: int):
    return next(r for r in recipe_rows() if (r[0], r[2], r[3]) == (model, strategy, cutoff))


def config_call(ans):
    (call,) = [c for c in ans.tool_calls if c.name == "generate_config"]
    return call


def test_a_table_row_within_the_limit_is_the_config(assistant):
    *_, stage, offload, nodes, per_node = recipe("llama3.1 70B", "lora", 4096)  # 2 x 8, ZeRO-3
    ans = assistant.ask("llama3.1-70b lora yaml, I have 16 cards")
    call = config_call(ans)
    assert "devices" not in call.args and "zero_stage" not in call.args  # nothing set over the table's row
    plan = call.result["plan"]
    assert (plan["devices"], plan["zero_stage"], plan["offload"]) == (nodes * per_node, stage, offload)
    assert "from the ModelArts LLaMA-Factory recipe table" in ans.answer  # the table named: seeds 000 and 004 can differ


def test_a_limit_below_the_table_row_uses_all_the_users_devices(assistant):
    *_, nodes, per_node = recipe("llama3.1 8B", "full", 8192)  # 1 x 8 cards
    assert nodes * per_node > 4
    ans = assistant.ask("给我 llama3.1-8b 全参 8192 的 deepspeed 配置，我只有 4 张 910B")
    call = config_call(ans)
    assert call.args["devices"] == 4 and call.result["plan"]["devices"] == 4
    # the setting is the estimator's: the plan within 4 cards must fit by the memory tool
    plan = call.result["plan"]
    mem = [c for c in ans.tool_calls if c.name == "plan_training"][0].result
    assert mem["fits"] and (plan["zero_stage"], plan["offload"]) == (mem["zero_stage"], mem["offload"])
    assert "按估算在你的卡数内可行的设置" in ans.answer and "来自厂商表格" not in ans.answer.split("\n")[2]
