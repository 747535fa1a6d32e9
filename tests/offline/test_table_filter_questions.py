"""Questions over a whole vendor table go to find_table_rows with the filter they state, and the answer lists the
matching rows (counted by hand from seeds/000 and seeds/004); two lengths around a change are both answered."""

from __future__ import annotations

import pytest


def table_call(ans):
    calls = [c for c in ans.tool_calls if c.name == "find_table_rows"]
    assert calls, ans.answer
    return calls[0].args


@pytest.mark.parametrize("q,args", [
    ("Which models in the minimum-card table need over 128 cards on Snt9B?",
     {"table": "min_cards", "hardware": "Snt9B", "cards": {"op": "gt", "value": 128}}),
    ("配方表里哪些行是 ZeRO-2 加 offload 的？", {"table": "recipes", "zero_stage": 2, "offload": True}),
    ("最小卡数表中 LlamaFactory 不超过 2 张卡的 LoRA 8192 有哪些", {"table": "min_cards", "framework": "LLaMA-Factory",
                                                            "strategy": "lora", "seq_len": 8192, "cards": {"op": "le", "value": 2}}),
    ("which models have no llama-factory entry at all in the min card table?",
     {"table": "min_cards", "framework": "LLaMA-Factory", "supported": False, "whole_model": True}),
    ("list recipe rows with GA 4", {"table": "recipes", "grad_accum": 4}),
    ("哪些模型在最新 vllm 表里 1 张卡就能跑？", {"table": "vllm", "vllm_table": "vllm-newest", "cards": {"op": "le", "value": 1}}),
    ("哪些模型 8 卡就能全参？", {"table": "min_cards", "strategy": "full", "cards": {"op": "le", "value": 8}}),
    ("which deepseek rows are in the min card table?", {"table": "min_cards", "family": "deepseek"}),
])
def test_filter_read_from_the_question(assistant, q, args):
    got = table_call(assistant.ask(q))
    assert {k: got.get(k) for k in args} == args


def test_more_than_128_cards_answer_lists_the_rows(assistant):
    # seeds/004 Snt9B: DeepSeek-V3 full 512 (MindSpeed); Qwen3-235B-A22B full 256 (MindSpeed) and 512 (LLaMA-Factory),
    # lora 256 (LLaMA-Factory); its MindSpeed lora 128 is not over 128
    ans = assistant.ask("Which models in the minimum-card table need over 128 cards on Snt9B?")
    assert ans.answer.startswith("**Answer:** **4 rows** (2 models)")
    for cell in ("512 cards", "256 cards"):
        assert cell in ans.answer
    assert "128 cards" not in ans.answer.split("\n", 1)[1]
    assert "2025-06-24" in ans.answer


def test_models_without_llama_factory_rows(assistant):
    # seeds/004: LLaMA-Factory '-' everywhere for deepseek-v3, mixtral-8x7b and qwen2-1.5b
    ans = assistant.ask("which models have no llama-factory entry at all in the min card table?")
    assert ans.answer.startswith("**Answer:** **3 models**")
    for m in ("deepseek-v3", "mixtral-8x7b", "qwen2-1.5b"):
        assert m in ans.answer


def test_a_named_model_is_no_table_query(assistant):
    ans = assistant.ask("which ZeRO stage does the recipe table give qwen2-7b lora?")
    assert not [c for c in ans.tool_calls if c.name == "find_table_rows"]


def test_lengths_before_and_after_a_change_are_both_answered(assistant):
    # seeds/000 Qwen2_vl 7B full: 4096 ZeRO-2 GA 8 1x8; 8192 ZeRO-2-Offload GA 8 1x8
    ans = assistant.ask("qwen2-vl-7b 全参，cutoff_len 从 4096 改到 8192，配方表里的 deepspeed 有什么变化？卡数会变吗")
    recipes = {c.args.get("seq_len") for c in ans.tool_calls if c.name == "training_recipe"}
    assert recipes == {4096, 8192}
    assert "ZeRO-2" in ans.answer and "offload" in ans.answer.lower()


def test_a_follow_up_changes_the_filter_not_the_table(assistant):
    # seeds/004 LoRA 4096 Snt9B, 1 card: LLaMA-Factory 10 models; MindSpeed-LLM llama3.2-1b, llama3.2-3b, qwen2-0.5b,
    # qwen2-1.5b, qwen2.5-0.5b
    from tests.offline.dialog import converse

    first, then = converse(assistant, "最小卡数表里 LoRA 4096 在 Snt9B 上 LlamaFactory 只要 1 张卡的模型有哪些", "那 MindSpeed 呢？")
    assert "**10 行**" in first.answer
    args = table_call(then)
    assert args["framework"] == "MindSpeed-LLM" and args["cards"] == {"op": "eq", "value": 1}
    assert "**5 行**" in then.answer and "qwen2-1.5b" in then.answer


def test_a_family_narrows_the_rows(assistant):
    # seeds/004 LLaMA-Factory Snt9B, Qwen3 at 16 cards or more: qwen3-32b full 4096/8192 32, lora 8192 16; qwen3-30b-a3b full
    # 4096 32, full 8192 64, lora 4096/8192 32; qwen3-235b-a22b full 4096 512, lora 4096 256
    ans = assistant.ask("In the min card table, which qwen3 rows need at least 16 cards with LLaMA-Factory on Snt9B?")
    assert table_call(ans)["family"] == "qwen3"
    assert ans.answer.startswith("**Answer:** **9 rows** (3 models)")


def test_a_memory_size_is_no_card_count(assistant):
    # the vLLM v0.7.2 table's 32 GB column has '–' for Qwen2.5-VL-72B and InternVL2.5-38B
    args = table_call(assistant.ask("which models does the vllm v0.7.2 table list as not supported on 32GB cards?"))
    assert args.get("cards") is None and args["memory_gb"] == 32 and args["supported"] is False


@pytest.mark.parametrize("q,args", [
    # two columns of one row compared: the first named side's rows, each against its pair
    ("which models need more cards on MindSpeed than on LF in the minimum card table?",
     {"table": "min_cards", "framework": "MindSpeed-LLM", "versus": {"against": "framework", "op": "gt"}}),
    ("最小卡数表里 LLaMA-Factory 和 MindSpeed 卡数相同的有哪些?",
     {"table": "min_cards", "framework": "LLaMA-Factory", "versus": {"against": "framework", "op": "eq"}}),
    ("any rows where Snt9B23 takes more DIE than Snt9B takes cards?",
     {"table": "min_cards", "hardware": "Snt9B23", "versus": {"against": "hardware", "op": "gt"}}),
    ("which min card rows need 2 cards on Snt9B and 4 DIE on Snt9B23?",
     {"table": "min_cards", "hardware": "Snt9B", "cards": {"op": "eq", "value": 2},
      "versus": {"against": "hardware", "other": {"op": "eq", "value": 4}}}),
    # the recipe's spec, nodes x cards per node (a Chinese N机M卡 counts every card)
    ("which recipe rows are 4 nodes x 8 cards?", {"table": "recipes", "nodes": {"op": "eq", "value": 4}, "per_node": {"op": "eq", "value": 8}}),
    ("配方表里 1机8卡 的有哪些", {"table": "recipes", "nodes": {"op": "eq", "value": 1}, "cards": {"op": "eq", "value": 8}}),
    ("配方表里哪些是单机2卡的", {"table": "recipes", "nodes": {"op": "eq", "value": 1}, "per_node": {"op": "eq", "value": 2}}),
    # the vLLM table's count said with the card size
    ("which vllm rows need 4 x 64GB cards?", {"table": "vllm", "cards": {"op": "eq", "value": 4}, "memory_gb": 64}),
    ("vllm 表里哪些要 2 张 32G 卡", {"table": "vllm", "cards": {"op": "eq", "value": 2}, "memory_gb": 32, "vllm_table": None}),
])
def test_column_pairs_specs_and_sized_counts_read(assistant, q, args):
    got = table_call(assistant.ask(q))
    assert {k: got.get(k) for k in args} == args


def test_any_question_is_answered_yes_or_no_first(assistant):
    # seeds/000: ZeRO-3 on one card is Qwen1.5 14B LoRA (4096, 8192) only; no 1-node ZeRO-3-Offload row exists
    yes = assistant.ask("any single-card ZeRO-3 row in the recipe table?").answer
    assert yes.startswith("**Answer:** Yes. **2 rows** (1 model)") and "Qwen1.5 14B" in yes
    no = assistant.ask("配方表里有没有单机的 ZeRO-3 offload 配方?").answer
    assert no.startswith("**结论**：没有。")


def test_a_pair_shows_both_counts(assistant):
    # seeds/004 Snt9B: qwen2-7b full 4096 needs 4 cards with MindSpeed-LLM, 1 with LLaMA-Factory
    ans = assistant.ask("In the min-card table, which models need more cards with MindSpeed-LLM than with LLaMA-Factory?").answer
    # the models that pass, each with its counts and its pair's, lead; the 10 rows (at most 12) follow
    assert ans.startswith("**Answer:** **6 models**") and "qwen2-7b (4-8 cards; LLaMA-Factory: 1 card)" in ans.split("\n")[0]
    assert "| qwen2-7b | full | 4096 | MindSpeed-LLM | Snt9B | 4 cards (1 node); LLaMA-Factory: 1 card |" in ans


@pytest.mark.parametrize("q,lead", [("in the recipe table which rows have a bigger GA than cutoff_len?", "**Answer:** That comparison could not be read"),
                                    ("配方表里哪些行的梯度累积比卡数大?", "**结论**：这个比较无法读成")])
def test_a_comparison_not_read_lists_no_rows(assistant, q, lead):
    # two recipe columns compared (GA against cutoff_len or cards): no filter has them, so the table is not listed whole
    ans = assistant.ask(q).answer
    assert ans.startswith(lead) and "| Qwen" not in ans and "**96 rows**" not in ans


@pytest.mark.parametrize("q", ["vllm 最小卡数表里，64G 卡上需要 4 张的都有哪些模型",
                               "in the vLLM table, which models need 4 of the 64GB cards?"])
def test_vllm_table_named_with_min_card_words_is_the_vllm_table(assistant, q):
    # research/modelarts.md §1, newest table (modelarts_llm_infer_5910003, util 0.95): 4 cards / 32K for
    # DS-R1-Distill-Llama-70B, Llama3-70B, Llama3.1-70B, Qwen2-72B, Qwen2.5-72B
    ans = assistant.ask(q)
    args = table_call(ans)
    assert (args["table"], args["cards"], args.get("memory_gb")) == ("vllm", {"op": "eq", "value": 4}, 64)
    for m in ("DS-R1-Distill-Llama-70B", "Llama3-70B", "Llama3.1-70B", "Qwen2-72B", "Qwen2.5-72B"):
        assert m in ans.answer
    assert "5910003" in ans.answer


def test_a_users_own_count_filters_the_rows_it_can_run(assistant):
    # "I have 16 cards": the rows needing at most 16, not exactly 16
    assert table_call(assistant.ask("我有 16 张卡，最小卡数表里哪些模型能跑全参？"))["cards"] == {"op": "le", "value": 16}


def test_vllm_rows_in_chinese_name_their_page_in_chinese(assistant):
    ans = assistant.ask("最新 vllm 表里哪些模型要 2 张卡？")
    assert "来源：ModelArts vLLM 推理表 vllm-newest（页面 modelarts_llm_infer_5910003，2025-11-19 更新）" in ans.answer


@pytest.mark.parametrize("q", ["what do the v0.7.2 and newest vllm tables each say for qwen2.5-7b-instruct?",
                               "Llama3-8B in the older vLLM table vs the newest: max length each?"])
def test_a_table_version_without_the_models_row_says_so(assistant, q):
    # research/modelarts.md §1: the v0.7.2 table lists no Qwen2.5-7B and no Llama3-8B; the newest gives both 1 card / 32K
    ans = assistant.ask(q)
    assert [c.name for c in ans.tool_calls][0] == "inference_min_cards"
    assert "compare_hardware" not in [c.name for c in ans.tool_calls]
    assert "- vllm-v0.7.2: no row for" in ans.answer
    assert "tested max-model-len 32768" in ans.answer


def test_full_against_lora_rows_answered_with_the_models_and_their_count(assistant):
    # seeds/004 Snt9B: qwen3-0.6b, 1.7b, 4b, 8b, 14b need 8 cards for full and LoRA alike (both frameworks, both lengths);
    # qwen3-32b differs (full 16/32, LoRA 8/16); fresh round 17 c1-10 dumped 48 rows instead
    ans = assistant.ask("Which qwen3 dense sizes have the same card count for full and lora in the min-card table, and what is it?").answer
    lead = ans.split("\n")[0]
    assert lead.startswith("**Answer:** **5 models**")
    assert "qwen3-0.6b (8 cards), qwen3-1.7b (8 cards), qwen3-4b (8 cards), qwen3-8b (8 cards), qwen3-14b (8 cards)." in lead
    assert "qwen3-32b" not in ans and "| qwen3-0.6b |" not in ans  # 20 rows: the per-model answer stands alone


def test_lora_needing_more_cards_than_full_is_named(assistant):
    # seeds/004: qwen2-7b with LLaMA-Factory needs 1 card for full and 8 for LoRA (4096 and 8192) - the only such row pair
    ans = assistant.ask("is there any model where lora needs MORE cards than full finetuning in the min card table??").answer
    assert ans.startswith("**Answer:** Yes. **1 model**") and "qwen2-7b (8 cards; full: 1 card)" in ans.split("\n")[0]


def test_full_equal_lora_in_chinese_and_a_family_of_letters(assistant):
    # seeds/004 MindSpeed-LLM 8192 Snt9B: 13 models need as many cards for full as for LoRA (qwen2.5-32b: 16)
    zh = assistant.ask("最小卡数表里 MindSpeed 8192 的时候，哪些模型全参和 lora 卡数一样？").answer
    assert zh.startswith("**结论**：") and "共 **13 个模型**" in zh and "qwen2.5-32b（16 张卡）" in zh
    # "llama" names the llama3.x ids: llama3.1-70b (LoRA 16 vs full 32) and llama3.2-3b (1 vs 2) at 4096 with MindSpeed-LLM
    en = assistant.ask("which llama models need fewer cards for lora than full on mindspeed, 4096?").answer
    assert en.startswith("**Answer:** **2 models**")
    assert "llama3.1-70b (16 cards; full: 32 cards), llama3.2-3b (1 card; full: 2 cards)." in en.split("\n")[0]
