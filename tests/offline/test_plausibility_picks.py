"""The one plausibility check (asked.implausible) picks the plan an answer shows, before it is shown: a plan that
fails it is not the headline (fresh round 5, class 6: "(implausible by the check below)" on the headline plan)."""

from __future__ import annotations

import math
import re

from tests.offline.dialog import lead_line as lead


def test_no_plausible_plan_gives_the_floor_of_the_model_states_not_a_count(assistant):
    # deepseek-v3: 671B parameters, LoRA keeps the 16-bit base: 671e9 x 2 B = 1,250 GiB over ZeRO-3; an A100-80G
    # usable 79.2 GiB per device (the usable memory the tool reports) holds a sixteenth of it: 16 GPUs at least
    floor = math.ceil(671e9 * 2 / 2**30 / 79.2)
    assert floor == 16
    ans = assistant.ask("How many A100 80GB for deepseek-v3 LoRA at 4096?")
    plan = next(c.result for c in ans.tool_calls if c.name == "plan_training")
    first = lead(ans)
    assert "implausible by the check below" not in ans.answer
    assert f"**{plan['devices']} GPUs**" not in first and f"{floor} GPUs" in first
    assert first.startswith("**Answer:** **No reliable count**")


def test_the_slower_plan_that_passes_leads_and_the_lines_below_name_the_same_count(assistant):
    ans = assistant.ask("How many 910B do I need for qwen2.5-72b full finetune at 16384 tokens?")
    plan = next(c.result for c in ans.tool_calls if c.name == "plan_training" and c.args.get("framework") == "MindSpeed-LLM")
    fewer = plan["fewer_devices"]
    first = lead(ans)
    assert "implausible by the check below" not in ans.answer
    assert f"({fewer['devices']} cards with" in first and f"({plan['devices']} cards) fails the plausibility check" in first
    # 004 has no 16384 row; its 8192-token rows (64 and 64 cards) bound a longer job from below
    assert "at least LLaMA-Factory 64 cards, MindSpeed-LLM 64 cards" in first
    instead = re.search(r"Instead: MindSpeed-LLM fits it on (\d+) cards", ans.answer)
    assert instead and int(instead.group(1)) == fewer["devices"]
