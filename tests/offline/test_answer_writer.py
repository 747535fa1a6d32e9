"""The answer writer's rules, each asked as a user would: a shorter table row bounds a longer sequence
from below; "X vs Y" answers both models; a support question says first whether the vendor lists the
model; the hardware comparison is sorted as it says and names devices by the catalog's kind; tool
results are read as the registry's types. Expected numbers come from the hand-typed seed
transcriptions (tests/seedfiles.py) or the tools themselves, never from the answer writer."""

from __future__ import annotations

import re

import pytest

from assistant.offline.results import Results, read
from assistant.offline.route import Done
from assistant.tools.estimates import PlanResult
from assistant.tools.tables import MinCardsResult
from tests.seedfiles import min_cards_rows


def answer_line(answer: str) -> str:
    return next(line for line in answer.splitlines() if line.startswith(("**Answer:**", "**结论**：")))


def seed_cards(model: str, strategy: str, seq: int, hw: str = "Snt9B") -> dict[str, int | None]:
    return {fw: cards for m, s, q, fw, h, cards in min_cards_rows() if (m, s, q, h) == (model, strategy, seq, hw)}


@pytest.mark.parametrize("question", ["qwen2.5 14b full 16384, 4 cards enough?", "qwen2.5-14b 全参 序列长度16384，4张卡够吗？"])
def test_a_shorter_row_that_already_needs_more_devices_answers_no(assistant, question):
    needs = seed_cards("qwen2.5-14b", "full", 8192)  # no 16384 row; the 8192 row is the nearest shorter one
    assert min(n for n in needs.values() if n) > 4
    ans = assistant.ask(question).answer
    head = answer_line(ans)
    assert head.startswith(("**Answer:** **No.**", "**结论**：**不够**")), head
    assert "8192" in head and "16384" in head
    for fw, n in needs.items():
        assert re.search(rf"{fw}:? \*?\*?{n} (cards|张卡)", head), (fw, n, head)
    # the offload estimate is offered only after the no, as an untested option; never a yes beside it
    assert re.search(r"untested option|未经验证", head)
    assert "**Yes" not in ans and "**可以**" not in ans and "**够**" not in ans


def test_a_longer_sequence_than_the_table_lists_shows_the_shorter_rows_as_a_lower_bound(assistant):
    ans = assistant.ask("qwen2.5-7b lora 32k tokens how many cards").answer
    needs = seed_cards("qwen2.5-7b", "lora", 8192)
    bound = next(line for line in ans.splitlines() if "SEQ_LEN 8192" in line)
    assert "lower bound for 32768" in bound
    for fw, n in needs.items():
        assert re.search(rf"{fw}: \*\*{n} cards?\*\*", bound), (fw, n, bound)
    assert "no row at 32768" in answer_line(ans)


def test_two_models_compared_are_answered_side_by_side(assistant):
    ans = assistant.ask("llama3-8b vs qwen2.5-7b lora, how many cards?").answer
    head = answer_line(ans)
    assert "llama3-8b" in head and "qwen2.5-7b" in head  # the one-line comparison comes first
    blocks = [line for line in ans.splitlines() if line.startswith("**llama3-8b**") or line.startswith("**qwen2.5-7b**")]
    assert len(blocks) == 2, ans
    assert ans.index("**llama3-8b**") < ans.index("**qwen2.5-7b**")
    assert ans.count("Sources:") == 1


def test_a_model_the_vendor_tables_do_not_list_is_said_first(assistant, call):
    assert call("min_cards", model="yi-34b")["error"]["code"] == "no_table_row"
    head = answer_line(assistant.ask("Is Yi-34B supported by MindSpeed-LLM?").answer)
    assert head.startswith("**Answer:** **yi-34b is not listed**"), head
    assert head.index("not listed") < head.index("estimate")


def test_a_listed_model_is_said_to_be_supported(assistant):
    needs = seed_cards("qwen2.5-7b", "lora", 4096)
    head = answer_line(assistant.ask("Is qwen2.5-7b supported by MindSpeed-LLM for LoRA?").answer)
    assert head.startswith("**Answer:** **Yes**, listed: "), head
    assert f"**{needs['MindSpeed-LLM']} cards**" in head


def test_hardware_comparison_is_sorted_as_it_says_and_names_npus_as_cards(assistant, ctx):
    ans = assistant.ask("compare hardware for qwen2.5-7b lora").answer
    lines = [line for line in ans.splitlines() if re.match(r"- [\w.-]+: \*\*", line)]
    totals = [float(m.group(1)) for line in lines if (m := re.search(r"= ([\d.]+) GB\*\*", line))]
    assert len(totals) == len(lines) > 5 and totals == sorted(totals)
    kinds = {h["id"]: h["kind"] for h in ctx.kb.hardware()}
    for line in lines:
        hw = line[2:].split(":")[0]
        if kinds[hw] == "npu":
            assert "GPU" not in line, line  # an Ascend card (also the Atlas 300I Duo) is a card
        else:
            assert "GPU" in line, line


def test_results_are_read_as_the_registry_types(call):
    done = [Done("min_cards", {"model": "qwen2.5-7b"}, call("min_cards", model="qwen2.5-7b")),
            Done("plan_training", {"model": "nope"}, call("plan_training", model="no-such-model-xyz"))]
    mins = Results(done).values("min_cards", MinCardsResult)
    assert mins and all(r.model_id == "qwen2.5-7b" for r in mins[0].rows)
    failed = Results(done).of("plan_training", PlanResult, ok=None)[0]
    assert not failed.ok and failed.error.code
    with pytest.raises(TypeError):
        read(done[0], PlanResult)  # min_cards does not return a plan


def test_qlora_reads_the_lora_rows_as_an_upper_bound(assistant, call):
    lora_rows = seed_cards("qwen2.5-72b", "lora", 4096)
    assert min(n for n in lora_rows.values() if n) > 8  # the LoRA rows alone would say no
    within = call("plan_training", model="qwen2.5-72b", method="qlora", seq_len=4096, max_devices=8)
    ans = assistant.ask("qwen2.5-72b qlora 4096, 8 cards enough?").answer
    head = answer_line(ans)
    assert not head.startswith("**Answer:** **Not by the vendor tables")  # an upper bound is not a minimum
    mem = within["memory"]
    # a plan whose range's upper end exceeds the usable memory is "Tight", never a plain "Yes" (round 3, class 8)
    word = ("**Yes**" if mem["high_gib"] <= mem["usable_gib"] else "**Tight**") if within["fits"] else "**No**"
    assert head.startswith(f"**Answer:** {word} (estimate)"), head
    assert "upper bound for QLoRA" in head
    assert "LoRA rows, an upper bound for QLoRA" in next(line for line in ans.splitlines() if "SEQ_LEN 4096" in line)


def test_a_config_after_a_device_limit_says_where_the_limit_came_from(assistant):
    from .dialog import converse

    first, config = converse(assistant, "I only have 8 cards. What do I need to full finetune qwen2.5-32b at 4096?",
                             "ok, give me the yaml")
    assert {c.args.get("max_devices") for c in config.tool_calls if c.name == "plan_training"} == {8}
    assert "fits your 8 cards, said earlier in the conversation" in config.answer
    head = answer_line(config.answer)
    assert config.answer.index(head) < config.answer.index("```")  # the answer first, the file after it


def test_a_method_the_question_left_open_is_said_as_assumed(assistant):
    ans = assistant.ask("how much memory per card to fine-tune qwen2.5-7b?")
    methods = {c.args.get("method") for c in ans.tool_calls if c.name in ("plan_training", "estimate_training_memory")}
    assert methods == {"lora"}  # sized as one method: the header names it and says it was assumed
    header = ans.answer.splitlines()[0]
    assert header.startswith("**qwen2.5-7b** · LoRA · ") and "(assumed: LoRA," in header, header


def test_two_frameworks_compared_get_one_block_each(assistant):
    needs = seed_cards("qwen2.5-7b", "lora", 4096)
    ans = assistant.ask("qwen2.5-7b lora: LLaMA-Factory vs MindSpeed-LLM, how many cards?").answer
    head = answer_line(ans)
    for fw, n in needs.items():
        assert re.search(rf"{fw} \*\*{n} cards? \(vendor table\)\*\*", head), (fw, n, head)
    headers = [line for line in ans.splitlines() if line.startswith("**qwen2.5-7b** ·")]
    assert [h.split(" · ")[4].split(" ")[0] for h in headers] == ["LLaMA-Factory", "MindSpeed-LLM"]


def test_two_parts_compared_name_each_device_by_its_kind(assistant, call):
    gpu = call("plan_training", model="qwen2.5-72b", method="lora", seq_len=4096, hardware="a100-80g")
    ans = assistant.ask("qwen2.5-72b lora on A100 vs 910B, how many?").answer
    head = answer_line(ans)
    assert f"A100 80GB **{gpu['devices']} GPUs (estimate)**" in head, head
    assert re.search(r"Snt9B \*\*\d+ cards \(vendor table\)\*\*", head), head
    assert "Hardware comparison" not in ans  # the two parts asked, not the whole catalog


def test_a_framework_the_table_marks_unsupported_gets_no_count_in_the_comparison(assistant):
    # seeds/004 (2025-06-24): gemma3-27b lora 4096: MindSpeed-LLM "-", LLaMA-Factory 16*Ascend; qwen2-1.5b: LLaMA-Factory
    # "-", MindSpeed-LLM 1*Ascend (Snt9B). An estimate for the "-" framework is no answer to "fewest cards" (round 7 s02, s20)
    head = answer_line(assistant.ask("gemma3-27b lora 4096 on Snt9B: fewest cards, MindSpeed-LLM vs LLaMA-Factory?").answer)
    assert "MindSpeed-LLM **not supported** ('-' in the minimum-card table; no count)" in head
    assert "LLaMA-Factory **16 cards (vendor table)**" in head and "(estimate)" not in head
    zh = answer_line(assistant.ask("qwen2-1.5b 全参 8192，Snt9B 上 MindSpeed 和 LLaMA-Factory 各最少几张卡？").answer)
    assert "LLaMA-Factory **不支持**（最小卡数表中为“-”，不给卡数）" in zh and "MindSpeed-LLM **1 张卡（厂商表格）**" in zh
