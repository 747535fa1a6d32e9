"""RL stages lead with the estimate (the vendor tables size SFT/PT jobs), and vLLM rows that differ
only by model variant name each say which variant they are."""

from __future__ import annotations

import re

import pytest


def headline(answer: str) -> str:
    return next(line for line in answer.splitlines() if line.startswith(("**Answer:**", "**结论**")))


@pytest.mark.parametrize("q", ["DPO on llama3-8b full, how many 910B cards?", "llama3-8b 全参 DPO 要几张卡"])
def test_dpo_headline_is_the_estimate_with_the_table_below(assistant, ctx, registry, q):
    ans = assistant.ask(q)
    plan = next(c for c in ans.tool_calls if c.name == "plan_training")
    assert plan.args.get("stage") == "dpo"
    head = headline(ans.answer)
    assert "DPO" in head and re.search(rf"\*\*{plan.result['devices']} (cards?|张卡)\*\*", head)
    # The SFT recipe row (seed 000: llama3 8B full = 1 node x 8 cards, ZeRO-2) is still shown, below.
    assert "ZeRO-2" in ans.answer and ans.answer.index("ZeRO-2") > ans.answer.index(head) + len(head)


def test_vllm_variant_rows_name_their_variant(assistant):
    ans = assistant.ask("Qwen3-235B-A22B inference on 910B how many cards")
    lines = [x for x in ans.answer.splitlines() if x.startswith("- vllm-newest")]
    # The newest vLLM table lists Qwen3-235B-A22B and its Thinking-2507 / Instruct-2507 variants at 16 cards / 64K.
    assert len(lines) == 3 and len(set(lines)) == 3
    assert all("16 cards" in x and "65536" in x for x in lines)
    assert any("Thinking-2507" in x for x in lines) and any("Instruct-2507" in x for x in lines)


@pytest.mark.parametrize("q", ["How much host RAM do I need for ZeRO-3 offload of llama3-70b full on 32 cards?",
                               "llama3-70b 全参 ZeRO-3 offload 32张卡 需要多少主机内存"])
def test_host_ram_question_gets_the_offload_estimate(assistant, q):
    ans = assistant.ask(q)
    (mem,) = [c for c in ans.tool_calls if c.name == "estimate_training_memory"]
    assert mem.args["zero_stage"] == 3 and mem.args["offload"] is True and mem.args["devices"] == 32
    ram = mem.result["memory"]["host_ram_gib"] if "memory" in mem.result else mem.result["host_ram_gib"]
    assert ram > 0 and f"{ram:.1f} GiB" in ans.answer
