"""How-to and knowledge questions on the vendor's ModelArts pages reach the note that holds the fact, and a short
follow-up keeps the how-to topic (carry.toml [howto]). Expected facts are the pages' as transcribed in
../shared/research/modelarts_pages.md: the new console's call URL under 基本信息 > 调用信息 and the header
`Authorization: Bearer <API KEY>` (inference2.0-modelarts-0010), a Token valid 24 h (inference-modelarts-0097),
MindSpeed-LLM needing >= 64 GB per NPU (its supported_models.md), `--dataset-type` alpaca / sharegpt / custom and
`--epochs` default 5 (modelarts_llm_infer_5905029), `ASCEND_PROCESS_LOG_PATH` as the plog location (launch-script
guide), the fully custom boot command in /home/ma-user with the training command last (develop-modelarts-1416),
`kubectl delete -f config.yaml` and `kubectl delete vcjob` (modelarts_llm_train_c_5910043, dlug_installation_faq_025).
Steps per epoch are samples / global batch, worked by hand. Fresh round 10 class 2; helper set 2026-12-06-howto."""

from __future__ import annotations

import pytest

from assistant.notes import worked_formulas
from assistant.offline.conversation import CARRY
from assistant.offline.route import PRODUCES

from .dialog import converse, lead

WHICH_MODEL = ("Which model", "是哪个模型")


@pytest.mark.parametrize(("question", "facts"), [
    # no topic word of the public-access note, "inference" names the vLLM note: the header line answers outright
    ("After deploying with the new inference console, how do I authenticate my curl request? which header?",
     ("Authorization", "Bearer <API KEY>")),
    ("token 认证的 token 有效期多久", ("24 h",)),
    ("Can I run MindSpeed-LLM on 32GB NPUs?", ("64 GB",)),
    ("MindSpeed-LLM 能在 32G 的卡上跑吗", ("64 GB",)),
    ("动态测试的 --dataset-type 可以填哪些", ("alpaca", "sharegpt", "custom")),
    ("what does --epochs mean in benchmark_parallel.py", ("--epochs", "default 5")),
    ("where does the launch script put the plog files? which variable sets it", ("ASCEND_PROCESS_LOG_PATH",)),
    ("自定义镜像的启动命令我写成 cd code && python train.py && echo done，作业有超参和输出路径，这样可以吗",
     ("/home/ma-user", "最后一条命令")),
    ("how do I delete the training job pods I created from config.yaml", ("kubectl delete -f config.yaml",)),
])
def test_the_page_fact_leads(assistant, question, facts):
    answer = assistant.ask(question).answer
    assert not any(w in answer for w in WHICH_MODEL), answer[:300]
    first = lead(answer)
    assert all(f in first for f in facts), first[:500]


@pytest.mark.parametrize(("question", "worked"), [
    # SN // GBS (the launch script's whole-number arithmetic): 120000 / 256 = 468.75 → 468; 50000 / 128 = 390.625 → 390
    ("120k samples, global batch 256 — how many iterations per epoch?", "120,000 samples / global batch 256 = 468.75 → 468"),
    ("数据集 5 万条样本，GBS 128，一个 epoch 多少 step", "50,000 samples / global batch 128 = 390.625 → 390"),
])
def test_steps_per_epoch_are_worked_with_the_stated_samples_and_batch(assistant, question, worked):
    assert worked in lead(assistant.ask(question).answer)


@pytest.mark.parametrize(("turns", "facts", "not_said"), [
    (["新版控制台部署的在线服务怎么从公网调用", "header 怎么填"], ("Bearer <API KEY>",), ()),
    (["Pod 一直 Pending，describe 显示 Insufficient huawei.com/ascend-1980", "我申请了 32 张卡，集群一共才 16 张"],
     ("一直处于 Pending",), ("已记下",)),
    (["训练 pod 起不来，一直 Pending", "describe 里写的是 Insufficient huawei.com/ascend-1980，我申请了 16 张，集群只有 8 张",
      "那我把作业删掉重来，命令是什么"], ("kubectl delete",), ("已记下",)),
    (["How do I run the static benchmark with prompt 512 and output 128 at concurrency 1, 8 and 32?",
      "I also want 2048 input / 256 output", "how many rounds per concurrency level by default?"], ("default 5",), ()),
    (["In the MindSpeed launch script, what is SN?", "what about LOG_SAVE_PATH?",
      "and with SN 6400, GBS 64, 2 epochs how many iterations?"], ("6,400 samples / global batch 64 = 100 × 2 epochs = 200",), ()),  # SN 6400 read as the samples
    (["自定义镜像训练作业的 boot command 有什么要求", "那 conda 环境怎么激活"], ("conda run -n",), ()),
])
def test_a_follow_up_keeps_the_howto_topic(assistant, turns, facts, not_said):
    answer = converse(assistant, *turns)[-1].answer
    assert not any(w in answer for w in WHICH_MODEL + not_said), answer[:300]
    assert all(f in lead(answer) for f in facts), lead(answer)[:500]


def test_a_sizing_question_after_a_howto_is_sized(assistant):
    answers = converse(assistant, "新版在线服务怎么调用", "qwen2.5-7b lora 4096 需要几张卡")
    assert "search_notes" not in [c.name for c in answers[-1].tool_calls][:1]
    assert "卡" in lead(answers[-1].answer) and "公网" not in lead(answers[-1].answer)


@pytest.mark.parametrize("question", ["两张 RTX 4090 (24GB) 跑 qwen2.5-7b lora 4096 bf16，行不行",
                                      "Two RTX 3090s (24G each), llama3-8b LoRA at 2048, bf16 — feasible?"])
def test_a_topic_word_beside_a_job_whose_fit_is_asked_keeps_the_plan(assistant, question):
    ans = assistant.ask(question)
    assert "plan_training" in [c.name for c in ans.tool_calls]


def test_the_howto_topic_keeps_a_bounded_number_of_words():
    assert CARRY.howto_chars == 300


def test_a_formula_takes_values_read_in_words():
    text = "One epoch is `SN / GBS` iterations."
    assert worked_formulas("5 万条样本", text, {"SN": 50000, "GBS": 128}) == [("SN / GBS", "50000 / 128", 50000 / 128)]
    assert worked_formulas("5 万条样本", text, {"SN": 50000}) == []  # GBS not given: nothing is worked


@pytest.mark.parametrize(("text", "asks"), [
    ("how do i delete the pods i created from config.yaml", False),
    ("启动命令我写成 python train.py，可以吗", False),
    ("环境变量写什么", False),
    ("create a deepspeed config for it", True),
    ("给我写一份 yaml", True),
])
def test_a_file_is_asked_for_only_by_a_request(text, asks):
    assert bool(PRODUCES.search(text)) is asks


def test_a_question_naming_no_notes_topic_stays_not_covered(assistant):
    """Quotas are on no vendor page of the notes: a fact sharing only "910B" does not answer it."""
    answer = assistant.ask("我的ModelArts配额不够，怎么申请更多910B配额？").answer
    assert "笔记中没有涉及" in answer and "损失缩放" not in answer


def test_a_topic_word_with_an_ism_ending_names_the_note(assistant):
    # parallelism.md lists "pipeline parallel": "pipeline parallelism" names the same topic (no "which model?" fallback)
    ans = assistant.ask("what is pipeline parallelism?")
    assert [c.name for c in ans.tool_calls] == ["search_notes"]
    assert "pipeline" in ans.answer.lower() and "Which model" not in ans.answer


@pytest.mark.parametrize("q,fact", [
    ("What is the recommended learning rate for LoRA on qwen2.5-7b in the vendor docs?", "`1.0e-4` for LoRA"),
    ("qwen2.5-7b 全参学习率设多少合适", "全参 `1.0e-5`"),
    ("learning rate for lora?", "`1.0e-4` for LoRA"),
])
def test_a_hyperparameter_asked_is_answered_from_the_notes(assistant, q, fact):
    # LLaMA-Factory's examples (examples/train_lora: learning_rate 1.0e-4; train_full: 1.0e-5); no vendor page gives one
    ans = assistant.ask(q)
    assert [c.name for c in ans.tool_calls] == ["search_notes"]
    assert fact in ans.answer.split("\n\n")[0]


def test_a_hyperparameter_stated_beside_a_sizing_question_is_named_unused(assistant):
    ans = assistant.ask("qwen2.5-7b lora lr 2e-4, 8 cards enough?")
    assert "min_cards" in [c.name for c in ans.tool_calls]
    assert "“lr 2e-4”" in ans.answer.split("Not used from your question:", 1)[1]
