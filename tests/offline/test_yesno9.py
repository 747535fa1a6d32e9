"""Yes/no and "is this sensible?" questions, and material appended to an answer checked against its lead (yesno9
helper, 2026-12-07; round 17 misses c2-06, c2-07, c6-07, c1-06, c3-01, c6-03b, c7-04.3).

A yes/no on a setting the user names leads with the verdict and the deciding numbers; a stage the user names is judged,
never proposed back as "the ZeRO stage"; a setting heavier than the vendor recipe's says it is more than needed and why;
the host RAM asked is the host RAM of the plan shown; a count the recipe table gives is the table's, not the user's.
Expected figures are read here from knowledge/tables (seeds 000 and 004) and the tools' own results, never copied from
an answer."""

from __future__ import annotations

import csv
from pathlib import Path

from tests.offline.dialog import converse
from tests.offline.dialog import lead_line as lead

TABLES = Path(__file__).resolve().parents[2] / "knowledge" / "tables"


def _rows(name: str) -> list[dict]:
    with (TABLES / name).open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def min_cards(model: str, strategy: str, seq_len: int, framework: str, hardware: str) -> int:
    return next(int(r["cards"]) for r in _rows("min_cards.csv") if (r["model_id"], r["strategy"], int(r["seq_len"]),
                                                                    r["framework"], r["hardware"]) == (model, strategy, seq_len, framework, hardware))


def recipe(model: str, strategy: str, seq_len: int) -> dict:
    return next(r for r in _rows("recipes_llamafactory.csv") if (r["model_id"], r["strategy"], int(r["cutoff_len"])) == (model, strategy, seq_len))


def calls(ans, tool):
    return [c for c in ans.tool_calls if c.name == tool]


def test_a_heavier_setting_than_the_recipe_runs_but_is_more_than_needed(assistant):
    # seed 000: llama3.1-8B LoRA 4096 runs with ZeRO-1, no offload, on 1 card
    row = recipe("llama3.1-8b", "lora", 4096)
    assert (row["zero_stage"], row["offload"], row["total_cards"]) == ("1", "false", "1")
    ans = assistant.ask("Does it make sense to use ZeRO-3 with offload for llama3.1-8b lora 4096 on one 910B?")
    first = lead(ans)
    (mem,) = [c for c in calls(ans, "estimate_training_memory") if c.args.get("offload")]
    assert first.startswith("**Answer:** **Yes**") and "more than the job needs" in first
    assert "ZeRO-1 on 1 card" in first and "saves nothing" in first
    assert f"about {mem.result['host_ram_gib']:,.0f} GiB of host RAM per node" in first
    assert "does not make your setting fit" not in ans.answer  # round 17 c2-07: the clause read backwards


def test_a_faster_setting_that_also_fits_is_named_beside_a_yes(assistant):
    answers = converse(assistant, "Qwen2.5-14B full fine-tune on A100 80GB, seq 4096, 2 GPUs only",
                       "what about zero3+offload on just those 2, sensible?")
    ans = answers[-1]
    (plan,) = [c for c in calls(ans, "plan_training") if c.args.get("max_devices") == 2]
    assert plan.result["fits"] and plan.result["zero_stage"] < 3  # the estimate's own faster setting on 2 GPUs
    assert "a faster setting fits too" in lead(ans) and f"ZeRO-{plan.result['zero_stage']}" in lead(ans)


def test_a_named_stage_with_a_yes_no_is_judged_not_proposed(assistant):
    # seed 004: qwen2.5-32b LoRA 8192 on Snt9B: LLaMA-Factory 16 cards
    need = min_cards("qwen2.5-32b", "lora", 8192, "LLaMA-Factory", "Snt9B")
    ans = assistant.ask("qwen2.5-32b lora 8k 用 ZeRO-2 放 4 张 910B 上，靠谱吗")
    first = lead(ans)
    assert first.startswith("**结论**：**按厂商表格不够**") and f"至少需要 {need} 张卡" in first and "你只有 4 张卡" in first
    assert "ZeRO-2" in first  # the stage named is the one judged
    assert "**ZeRO 配置**（估算" not in ans.answer  # no stage proposed beside the verdict
    ans = assistant.ask("Is it a good idea to do qwen2.5-72b lora 4k on 8 910B with zero3 offload to save cards?")
    need = min_cards("qwen2.5-72b", "lora", 4096, "LLaMA-Factory", "Snt9B")
    (mem,) = [c for c in calls(ans, "estimate_training_memory") if c.args.get("offload")]
    assert lead(ans).startswith("**Answer:** **Not by the vendor tables**") and f"at least {need} cards" in lead(ans)
    assert f"about {mem.result['host_ram_gib']:,.0f} GiB of host RAM per node" in lead(ans)
    assert "**ZeRO stage** (estimate" not in ans.answer


def test_the_recipe_named_beside_a_fit_question_is_no_match_question(assistant):
    # seed 000: llama3-70B LoRA 8192: ZeRO-3 on 2 nodes x 8 = 16 cards
    total = int(recipe("llama3-70b", "lora", 8192)["total_cards"])
    ans = assistant.ask("Snt9B 8卡跑 llama3-70b lora 8192，用配方表的 zero3，够吗？")
    first = lead(ans)
    assert "与配方不一致" not in first and first.startswith("**结论**：**按厂商表格不够**")
    assert f"至少需要 {total} 张卡" in first and "你只有 8 张卡" in first


def test_one_snt9b23_node_is_judged_by_the_parts_own_row(assistant):
    # seed 004: llama3.1-70b LoRA 4096 LLaMA-Factory on Snt9B23: 32 DIE; one node is 16 DIE (hardware.csv)
    need = min_cards("llama3.1-70b", "lora", 4096, "LLaMA-Factory", "Snt9B23")
    ans = assistant.ask("Snt9B23 单节点跑 llama3.1-70b lora 4096 用 llama-factory，够吗")
    first = lead(ans)
    assert first.startswith("**结论**：**按厂商表格不够**") and f"至少需要 {need} DIE" in first and "你只有 16 DIE" in first
    assert "两张厂商表结论不一致" not in first  # the Snt9B recipe's 2 x 8 is no yes for one 16-DIE node


def test_a_pasted_config_judged_gets_the_verdict_not_the_file(assistant):
    q = ("这个配置我想在 1 张 910B 上跑：model_name_or_path: /data/Meta-Llama-3-70B-Instruct finetuning_type: lora "
         "deepspeed: examples/deepspeed/ds_z3_offload_config.json cutoff_len: 8192，可行吗")
    ans = assistant.ask(q)
    total = int(recipe("llama3-70b", "lora", 8192)["total_cards"])
    assert not calls(ans, "generate_config")
    first = lead(ans)
    assert first.startswith("**结论**：**按厂商表格不够**") and f"至少需要 {total} 张卡" in first and "你只有 1 张卡" in first
    assert "来自ModelArts" not in first  # no plan credited to a table that says otherwise (round 17 c6-07)
    (mem,) = [c for c in calls(ans, "estimate_training_memory") if c.args.get("offload")]
    assert f"offload 每节点需要约 {mem.result['host_ram_gib']:,.0f} GiB 主机内存" in first


def test_the_tables_count_asked_why_is_not_the_users(assistant):
    # seed 000: Qwen1.5-14B LoRA 4096: ZeRO-3 on 1 card, GA 8; the table's values are "仅供参考" with FlashAttention on
    row = recipe("qwen1.5-14b", "lora", 4096)
    ans = assistant.ask("why does the recipe table put qwen1.5-14b lora on ZeRO-3 with just one card? what GA does it use?")
    assert "your 1 card" not in ans.answer and f"gradient accumulation {row['grad_accum']}" in lead(ans)
    why = next(line for line in ans.answer.splitlines() if line.startswith("- Why:"))
    assert "for reference" in why and "FlashAttention" in why and "saves no memory" in why
    ans = assistant.ask("配方表为什么 llama2-13b lora 只给 1 张卡？我们有 8 张，用 zero2 行吗")
    assert "你的 8 张卡" in lead(ans) and "原因：" in ans.answer


def test_the_full_context_is_a_length_not_the_method(assistant):
    ans = assistant.ask("KV cache size in GB for llama3.1-70b, one request at the full 128k context, bf16?")
    header = ans.answer.splitlines()[0]
    assert "full fine-tuning" not in header and "inference" in header


def test_the_host_ram_asked_is_the_plan_shown(assistant):
    answers = converse(assistant, "Qwen2.5-14B full fine-tune on 4x A100 80GB, seq 4096 — which ZeRO stage?",
                       "suppose only two of those A100s are free — still doable?", "how much cpu ram then?")
    ans = answers[-1]
    (plan,) = [c for c in calls(ans, "plan_training") if c.args.get("max_devices")]
    assert plan.args["max_devices"] == 2 and plan.result["offload"]
    setting = f"ZeRO-{plan.result['zero_stage']} + offload"
    assert lead(ans).startswith(f"**Answer:** about **{plan.result['memory']['host_ram_gib']:,.0f} GiB of host RAM per node** for {setting}")
    assert "2 GPUs" in lead(ans)
    # no other offload setting's figure shown beside it
    assert all(f"{c.result['host_ram_gib']:.1f} GiB per node" not in ans.answer for c in calls(ans, "estimate_training_memory")
               if c.result and c.result.get("zero_stage") != plan.result["zero_stage"])


def test_one_die_is_below_the_smallest_unit(assistant):
    need = min_cards("qwen2.5-7b", "lora", 4096, "LLaMA-Factory", "Snt9B23")
    ans = assistant.ask("could I get away with just one DIE of a Snt9B23 for a qwen2.5-7b lora, 4k?")
    first = lead(ans)
    assert "Not by the vendor tables" in first and f"at least {need} DIE" in first and "you have 1 DIE" in first
    assert "smallest parallel unit" in first and "no setting that fits" not in first


def test_nothing_fits_alone_is_not_said_against_the_vendor_row(assistant):
    # seed 004: glm4-9b full 4096 MindSpeed-LLM on Snt9B: 8 cards, the user's count
    need = min_cards("glm4-9b", "full", 4096, "MindSpeed-LLM", "Snt9B")
    ans = assistant.ask("glm4-9b 全参 4096 用 MindSpeed 8 卡，TP=1 PP=1 MBS=4，跑起来就挂：NPU out of memory. Tried to allocate "
                        "2.12 GiB (NPU 5; 60.97 GiB total capacity; 59.02 GiB already allocated)，咋整")
    assert f"此任务用 {need} 卡（你有 8 卡）就能跑" in ans.answer and "单独改其中任何一项" in ans.answer
