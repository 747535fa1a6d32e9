"""The task a question asks decides its answer (helper route12): a note's rule applied to the values the question states
of a model, one model's rows of a vendor table that pass a filter (every length, no setup of the user's invented), and a
follow-up that asks whether the job still takes offload, answered by the vendor row at the new length."""

from __future__ import annotations

import re

import pytest

from .dialog import last_answer


# NPU_Flash_Attn融合算子约束 (modelarts_llm_train_5901150): N1 a positive integer multiple of N2, D ≤ 512, N ≤ 2048
@pytest.mark.parametrize("question,lead", [
    # 32 = 4 × 8, 128 ≤ 512: within the limits
    ("fused attention check: llama3-8b is 32 q heads, 8 kv heads, head dim 128. will NPU_Flash_Attn kick in?",
     "within NPU_Flash_Attn's limits"),
    # 40 = 5 × 8 (the round-20 question's numbers)
    ("NPU_Flash_Attn: qwen2.5-14b 是 40 heads, 8 kv heads, head dim 128, 能用上吗", "在 NPU_Flash_Attn 的限制内"),
    # 40 / 6 is no integer: not used (a model the catalog lacks is only the values' owner)
    ("my model has 40 attention heads and 6 kv heads (qwen2.5-14b-ish custom), head_dim 128 — does the npu fused attention accept that?",
     "No: 40 query heads are not a multiple of 6 KV heads"),
])
def test_note_values_of_a_model_get_the_notes_rule(assistant, question, lead):
    ans = assistant.ask(question)
    first = ans.answer.split("\n")[0]
    assert lead in first, first
    assert [c.name for c in ans.tool_calls] == ["search_notes"] * len(ans.tool_calls)  # no card counts of the model


# ModelArts LLaMA-Factory recipe table (seeds/000): llama2-70b LoRA 4096 2×8 ZeRO-3, LoRA 8192 2×8 ZeRO-3-Offload,
# full 4096 and full 8192 4×8 ZeRO-3-Offload GA 4
def test_rows_of_one_model_that_need_several_nodes(assistant):
    text = assistant.ask("recipe 表里 llama2-70b 哪几行要多机？").answer
    assert "**4 行**" in text.split("\n")[0]
    assert text.count("2 × 8 = 16") == 2 and text.count("4 × 8 = 32") == 2


def test_rows_of_one_model_cover_every_length_and_invent_no_devices(assistant):
    # Yi 34B: full 4096 2×8, full 8192 4×8 (LoRA rows are one node: 1×2, 1×4)
    text = assistant.ask("In the LlamaFactory recipe table, which Yi-34B setups need more than one node?").answer
    assert "**2 rows**" in text.split("\n")[0]
    assert "2 × 8 = 16" in text and "4 × 8 = 32" in text and "1 × 2" not in text
    assert not re.search(r"[Yy]our \d+ cards", text)


def test_rows_of_one_model_with_offload(assistant):
    # qwen2-72b: LoRA 8192, full 4096 and full 8192 are ZeRO-3-Offload; LoRA 4096 is ZeRO-3 without offload
    text = assistant.ask("looking at the LF recipe sheet for Qwen2 72B: in which of its rows is CPU offload switched on?").answer
    assert "**3 rows**" in text.split("\n")[0]
    assert text.count("ZeRO-3-Offload") == 3


def test_one_node_of_eight_cards(assistant):
    # glm4-9b: full 4096 and full 8192 run 1×8 (LoRA 1×1)
    text = assistant.ask("glm4-9b 那几行配方里，哪些是要整机 8 卡的").answer
    assert "**2 行**" in text.split("\n")[0] and text.count("1 × 8 = 8") == 2
    assert "你的 8 张卡" not in text


def test_whether_offload_stays_is_answered_by_the_row_at_the_new_length(assistant):
    # recipe table: qwen2-72b LoRA 4096 is 2 nodes × 8, ZeRO-3 without offload, GA 8
    text = last_answer(assistant, "qwen2-72b lora 8192 要几张卡", "退回 4096 的话 offload 还要留着吗").answer
    lead = next(line for line in text.split("\n") if line.startswith("**结论**"))
    assert "16 张卡" in lead and "ZeRO-3（ZeRO-3，不开 offload）" in lead


def test_whether_offload_is_still_on_at_8192(assistant):
    # recipe table: llama3-70b full 8192 is 4 nodes × 8, ZeRO-3-Offload, GA 4
    text = last_answer(assistant, "llama3-70b full 4096 在 recipe 表里用的什么 zero", "换成 8192 呢，还开不开 offload").answer
    lead = next(line for line in text.split("\n") if line.startswith("**结论**"))
    assert "32 张卡" in lead and "ZeRO-3-Offload" in lead and "梯度累积 4" in lead


def test_rows_of_one_model_named_with_its_possessive(assistant):
    # llama3.1-70b: LoRA 4096 2×8 ZeRO-3 and LoRA 8192 2×8 ZeRO-3-Offload; the full rows are 4×8
    text = assistant.ask("which of llama3.1-70b's rows in the recipe table run on exactly 2 nodes?").answer
    assert "**2 rows**" in text.split("\n")[0] and text.count("2 × 8 = 16") == 2 and "4 × 8" not in text


def test_a_method_follow_up_asking_offload_keeps_the_job(assistant):
    # recipe table: qwen2-72b LoRA 4096 is 2 nodes × 8, ZeRO-3 without offload (full 4096 is ZeRO-3-Offload 4×8)
    text = last_answer(assistant, "qwen2-72b full 4096 要几张卡", "lora 的话还要开 offload 吗").answer
    lead = next(line for line in text.split("\n") if line.startswith("**结论**"))
    assert "qwen2-72b" in text.split("\n")[0] and "16 张卡" in lead and "不开 offload" in lead


def test_a_quoted_part_with_no_model_gets_the_catalog_facts(assistant):
    # hardware catalog: Snt9B23 (Atlas A3) has 16 DIE = 8 cards per node; no model is asked for
    text = assistant.ask("our cloud rep says we're getting 'A3' nodes. on ModelArts that's which flavor, and how many devices "
                         "will npu-smi list per node?").answer
    assert "Snt9B23" in text.split("\n")[0] and "16 DIE" in text and "Which model" not in text
