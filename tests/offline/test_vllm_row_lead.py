"""The ModelArts vLLM table's cell leads a serving length question (fresh round 9, class 2): with no device count the
row (cards and tested max-model-len) comes first and the memory estimate after it; each memory column asked is
answered; a '–' cell is said as not tested or supported. Cells hand-typed from research/modelarts.md §1 (v0.7.2 table
modelarts_llm_infer_5902037 at utilisation 0.9; newest modelarts_llm_infer_5910003, 2025-11-19, at 0.95; the older
32 GB / 64 GB fragment)."""

from __future__ import annotations

from tests.offline.dialog import lead_line as lead


def test_a_max_model_len_question_without_a_count_leads_with_the_newest_cell(assistant):
    first = lead(assistant.ask("What max-model-len does ModelArts list for Qwen3-14B with vLLM on 910B?"))
    assert first.startswith("**Answer:** **32,768 tokens**")  # newest: Qwen3-14B 1/32
    assert "**1 card**" in first and "vllm-newest" in first and "0.95" in first and "estimate" not in first


def test_a_chinese_length_question_leads_with_the_cell_and_the_estimate_follows(assistant):
    ans = assistant.ask("qwen3-32b vllm 部署最大长度是多少")
    first = lead(ans)
    assert first.startswith("**结论**：**32,768 token**") and "**2 张卡**" in first  # newest: Qwen3-32B 2/32
    assert ans.answer.index("按显存估算") > ans.answer.index(first)


def test_both_memory_columns_asked_are_answered(assistant):
    ans = assistant.ask("DS-R1-Distill-Llama-70B 用 vllm，32G 卡和 64G 卡各要几张，max-model-len 多少")
    first = lead(ans)
    assert "**32 GB 卡：8 张卡，max-model-len 32,768**" in first  # v0.7.2: 8/32 on 32 GB
    assert "**64 GB 卡：4 张卡，max-model-len 65,536**" in first  # v0.7.2: 4/64 on 64 GB
    assert "64G" not in ans.answer.split("问题中未使用的数值")[-1] or "问题中未使用的数值" not in ans.answer


def test_both_memory_columns_of_the_older_fragment(assistant):
    ans = assistant.ask("baichuan2-13b 用 vllm 部署，32G 显存的卡要几张？64G 的呢，最大长度各多少")
    first = lead(ans)
    assert "**32 GB 卡：2 张卡，max-model-len 4,096**" in first and "**64 GB 卡：1 张卡，max-model-len 4,096**" in first
    assert "问题中未使用的数值" not in ans.answer


def test_a_dash_cell_is_said_as_not_tested_and_the_other_column_follows(assistant):
    first = lead(assistant.ask("Can Qwen2.5-VL-72B be served on the 32GB Ascend cards with vLLM? If not, what do the 64GB ones need?"))
    assert "**32 GB cards: '–'**" in first and "did not test or support" in first  # v0.7.2: qwen2.5-vl-72B –
    assert "**64 GB cards: 4 cards, max-model-len 32,768**" in first  # v0.7.2: 4/32 on 64 GB


def test_a_follow_up_on_the_32g_column_leads_with_its_cell(assistant):
    history = []
    for q in ["baichuan2-7b 用 vllm 部署要几张卡", "32G 的卡最大长度呢"]:
        ans = assistant.ask(q, history or None)
        history += [{"role": "user", "content": q}, {"role": "assistant", "content": ans.answer}]
    assert lead(ans).startswith("**结论**：**8,192 token**")  # older fragment: baichuan2-7b 1/8 on 32 GB


def test_more_max_num_seqs_than_the_kv_cache_holds_is_not_called_fits(assistant):
    """Qwen3-8B KV cache: 2 x 36 layers x 8 KV heads x 128 x 2 bytes = 144 KiB per token, 5.6 GiB per 40,960-token
    sequence: one 64 GB card holds a handful, never 100,000 (max-num-seqs is a cap, not a guarantee)."""
    first = assistant.ask("vllm serve Qwen3-8B --max-model-len 40960 --max-num-seqs 100000 on one 910B — can all 100000 run "
                          "at full length at once?").answer.splitlines()[0]
    assert first.startswith("**No, not all 100000 at once") and "Fits" not in first
    held = int(first.split("holds ")[1].split(" ")[0])
    assert 1 <= held <= 64 * 0.9 / 5.6


def test_the_longest_lora_length_names_the_instruct_limit(assistant):
    """Qwen2.5-7B with no variant named: the -Instruct config's 32,768 is the model's own limit, not the base's 131,072."""
    ans = assistant.ask("一张 Snt9B 上 lora qwen2.5-7b，batch 1，cutoff_len 最长能设多少")
    assert "131,072" not in ans.answer and "32,768" in ans.answer and "Qwen2.5-7B-Instruct" in ans.answer


def test_two_tables_on_the_same_cards_are_both_said(assistant):
    first = lead(assistant.ask("QwQ-32B 在 64G 的 910B 上，v0.7.2 的表和最新的表给的卡数和 max-model-len 一样吗？"))
    assert "**65,536 token**" in first and "vllm-v0.7.2" in first  # v0.7.2: QwQ-32B 2/64 on 64 GB at 0.9
    assert "**32,768 token**" in first and "vllm-newest" in first and "卡数相同，长度不同" in first  # newest: 2/32 at 0.95


def test_the_own_context_of_the_variant_named(assistant):
    en = lead(assistant.ask("What is the maximum context length of Qwen2.5-7B-Instruct?"))
    assert en.startswith("**Answer:** **32,768 tokens**") and "Qwen2.5-7B 131,072" in en
    zh = lead(assistant.ask("glm-4-9b-chat 模型本身最长支持多少上下文"))
    assert zh.startswith("**结论**：**131,072 token**") and "glm-4-9b 8,192" in zh


def test_a_chat_variant_named_caps_the_search_at_its_own_limit(assistant):
    ans = assistant.ask("glm-4-9b-chat vllm 64G 最长能开多少")
    assert "模型自身的上限（按所问变体 glm-4-9b-chat 的配置）" in ans.answer and "8,192" not in ans.answer


def test_no_row_at_the_32g_column_estimates_the_fewest_cards(assistant):
    """Qwen2.5-32B has no 32 GB cell: the estimate on the 32 GB cards asked leads (labelled estimate), the 64 GB cell
    (newest 2/32) right under it as the tables' reference; the estimate sizes the fewest 32 GB cards, not one:
    32.5e9 x 2 bytes = 65 GB of weights over 32 GB x 0.9 per card needs 3, and TP must divide 40 heads and 8 KV heads: 4."""
    history = []
    for q in ["I want to serve Qwen2.5-32B-Instruct on 910B with vLLM — min cards and max-model-len?",
              "and if our cards are the 32GB variant?"]:
        ans = assistant.ask(q, history or None)
        history += [{"role": "user", "content": q}, {"role": "assistant", "content": ans.answer}]
    first = lead(ans)
    # the count asked on the 32 GB cards leads (the estimate, named so: fresh round 19 c7-07 #1 had it only in a bullet);
    # the vendor's cells follow right under it
    assert first.startswith("**Answer:** **32 GB cards**: **4 cards** (TP 4) by the estimate"), first
    cells = ans.answer.split(first, 1)[1].strip().splitlines()[0]
    assert "**32 GB cards: no row**" in cells and "**64 GB cards: 2 cards, max-model-len 32,768**" in cells
    assert "nothing fits on 1 card" not in ans.answer


def test_an_unlisted_memory_size_leads_with_its_estimate_in_chinese(assistant):
    """c2-08 (round 19): 910B 32G, qwen2.5-14b at 16k: no 32 GB row; the 32 GB estimate leads: 14.77e9 x 2 B = 29.5 GB of
    weights over 32 GB x 0.953 x 0.9 = 27.4 GiB per card needs 2 (TP 2 divides 40 heads, 8 KV heads); 64 GB row: 1 card."""
    first = lead(assistant.ask("910B 32G 的卡，vllm 部署 qwen2.5-14b，max-model-len 16k，要几张"))
    assert first.startswith("**结论**：**32 GB 卡**：**2 张卡**（TP 2）（估算")
