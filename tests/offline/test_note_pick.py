"""The one fact a how-to question asks of a note leads the answer (note_pick.py): the listed option the question's words
single out, the step of a numbered vendor list asked by its place, the notes' worked example of how to set the named
variables, and a value at a limit said allowed. Expected facts are the vendor pages' as the notes hold them: DATA_TYPE
values of the ModelArts MindSpeed-LLM page (modelarts_llm_train_5901042), GeneralPretrainHandler for pretraining
(modelarts_llm_train_91113), the OOM lists of modelarts_llm_train_c_5910041 (MindSpeed-LLM: 1 npu-smi info, 2 TP/PP;
LLaMA-Factory: 1 expandable_segments), lora+ only for qwen1.5-7B (modelarts_llm_train_590620), D ≤ 512 (5901150).
Fresh round 9, class 1; lead-fact helper set."""

from __future__ import annotations

import pytest

from tests.offline.dialog import lead

from .dialog import converse


@pytest.mark.parametrize(("question", "option"), [
    ("What are the valid DATA_TYPE values in the MindSpeed launch script, and which one fits multi-turn ShareGPT-style data?",
     "SharegptStyleInstructionHandler"),
    ("My dataset is alpaca format (instruction/input/output). Which DATA_TYPE should I pick for the MindSpeed script?",
     "AlpacaStyleInstructionHandler"),
    ("mindspeed 预训练纯文本数据，DATA_TYPE 该选哪个？", "GeneralPretrainHandler"),
])
def test_the_option_the_question_describes_leads(assistant, question, option):
    first = lead(converse(assistant, question)[0]).splitlines()[0]
    assert f"`{option}`" in first and first.count("Handler`") == 1  # that option alone, before the list of all five


@pytest.mark.parametrize(("question", "step", "text"), [
    ("MindSpeed training OOMs — what does the vendor page say to check first, before touching TP/PP?", "Step 1 of 5", "npu-smi info"),
    ("mindspeed oom: after npu-smi info shows nothing left over, what's the next step?", "Step 2 of 5", "tensor-model-parallel-size"),
    ("LLaMA-Factory OOM on ascend: whats the very first thing the vendor says to do, before lowering batch size?", "Step 1 of 4",
     "expandable_segments:True"),
    ("MindSpeed 显存溢出，厂商建议第一步先做什么？", "第 1 步（共 5 步）", "npu-smi info"),
])
def test_the_step_asked_by_its_place_leads(assistant, question, step, text):
    first = lead(converse(assistant, question)[0]).splitlines()[0]
    assert first.startswith(f"**{step}**") and text in first


def test_how_to_set_the_named_variables_leads_with_the_worked_example(assistant):
    first = lead(converse(assistant, "多机训练的时候 MASTER_ADDR、NNODES、NODE_RANK 每台机器分别怎么设？")[0]).splitlines()[0]
    assert "只改 `NODE_RANK`" in first and "NODE_RANK=0" in first and "NODE_RANK=1" in first


def test_a_setting_a_note_restricts_is_answered_by_the_note_not_the_model_list(assistant):
    ans = converse(assistant, "Which models support LoRA+ (loraplus_lr_ratio) in the ModelArts LLaMA-Factory package?")[0]
    assert "list_models" not in {c.name for c in ans.tool_calls}
    assert "qwen1.5-7B" in lead(ans).splitlines()[0]


def test_a_value_at_the_limit_is_said_allowed(assistant):
    first = lead(converse(assistant, "NPU_Flash_Attn: my head_dim is exactly 512 — is that still allowed?")[0])
    assert first.startswith("**The numbers you gave are within NPU_Flash_Attn's limits (head_dim D = 512 ≤ 512); 512 itself is allowed")
