"""Questions of several parts, and run arithmetic that needs no model (helper subq8, 2026-12-06): every sub-question gets
a lead of its own, in the order asked, and "which model?" is never asked of arithmetic on the user's own figures.
Figures are hand computations (GBS = MBS × DP × GA, DP = devices / (TP × PP); one epoch = SN / GBS rounded up, the
launch-script note; Tok_total = SEQ_LEN × samples × epochs, the vendor's training-time page) or the vendor's notes."""

from __future__ import annotations

import pytest

from assistant.offline.subquestions import asked_apart, parts

from .dialog import last_answer

WHICH_MODEL = ("Which model", "是哪个模型")
QUOTES = ("From the notes:", "以下摘自")


def before_quotes(text: str) -> str:
    """The answer's own sentences: what comes before the notes' quoted passages."""
    cut = [text.find(q) for q in QUOTES if q in text]
    return text[:min(cut)] if cut else text


@pytest.mark.parametrize(("question", "figures"), [
    # one rounding rule, the launch script's whole-number arithmetic (TRAIN_ITERS = SN / GBS * EPOCH in shell arithmetic):
    # 120000 / 128 = 937.5 → 937 steps in one epoch (a trainer that keeps the last partial batch rounds up)
    ("我手上有 120000 条训练样本, global batch 设 128, 那跑完一轮(epoch)大概要几个迭代?", ("937.5 → 937", "向上取整")),
    # GBS = 2 × 4 × 8 = 64; 50000 // 64 = 781 × 3 = 2,343; a trainer keeping each epoch's partial batch: 782 × 3 = 2,346
    # ("pbs" is the per-device batch)
    ("50k samples, 3 epochs, pbs 2, ga 8 on 4 gpus. how many optimizer steps in total?", ("global batch 64", "2,343", "782 × 3 = 2,346")),
    # the default TRAIN_ITERS asked: 9000 // 128 = 70 × 3 = 210 (the formula the answer names), beside 71 × 3 = 213 for a
    # trainer that keeps the last partial batch: one figure per rule, none contradicting it
    ("SN 9000, GBS 128, EPOCH 3, TRAIN_ITERS left unset: how many iterations does it run?", ("210", "71 × 3 = 213")),
    # 300000 // 256 = 1171 × 4 = 4,684 steps; 300000 × 4096 × 4 = 4,915,200,000 tokens
    ("训练集 30万条，每条按 4096 token 打包，4 个 epoch，GBS 256，总共多少步，总共多少 token？", ("4,684", "4,915,200,000")),
    # 256 × 8192 = 2,097,152 tokens per iteration
    ("seq len 8192 and GBS 256: how many tokens does each iteration consume?", ("2,097,152",)),
])
def test_run_arithmetic_needs_no_model(assistant, question, figures):
    answer = assistant.ask(question).answer
    assert not any(w in answer for w in WHICH_MODEL), answer[:300]
    assert all(f in before_quotes(answer) for f in figures), answer[:600]


@pytest.mark.parametrize(("question", "first", "second"), [
    # DP = 64 / (8 × 4) = 2; GA = 1024 / (1 × 2) = 512
    ("64 张卡 TP8 PP4 mbs1 gbs1024，DP 和 GA 分别是多少", "数据并行数（DP）：2", "梯度累积设为 512"),
    # DP = 16 / (2 × 2) = 4; GBS = 1 × 4 × 16 = 64
    ("16 张卡 TP 2 PP 2，DP 是多少？每张卡 micro batch 1，GA 16 的话 global batch 是多少？", "数据并行数（DP）：4", "全局 batch 为 64"),
    # GA asked first: 512 / (2 × 32 / 4) = 32, then DP 8
    ("what GA and what DP for gbs 512, mbs 2, 32 npus with tp 4?", "Gradient accumulation 32", "Data parallel size: 8"),
    # 64 devices / TP 4 = DP 16; samples per step = the global batch = 2 × 16 × 4 = 128
    ("8 nodes x 8 910B, tp 4. dp = ? and samples per optimizer step if mbs 2 ga 4?", "Data parallel size: 16", "Global batch 128"),
])
def test_each_quantity_asked_gets_its_lead_in_order(assistant, question, first, second):
    answer = assistant.ask(question).answer
    assert first in answer and second in answer, answer[:600]
    assert answer.index(first) < answer.index(second), answer[:600]


@pytest.mark.parametrize(("question", "batch", "verdict"), [
    # GBS = 2 x 8 x 4 = 64; llama3-8b full on 8 Snt9B: 004 lists 8 cards for LLaMA-Factory, so a yes/no follows
    ("8 张 Snt9B 跑 llama3-8b full 4096, per_device_train_batch_size 2, GA 4, global batch 多大，够不够", "全局 batch 为 64", "**结论**"),
    # GBS = 1 x 16 x 8 = 128; qwen2.5-7b LoRA: 004 lists 4 cards, the 16 said are enough
    ("16 cards, qwen2.5-7b lora, micro batch 1 and GA 8: what's the global batch, and is 16 cards enough?", "Global batch 128", "**Answer:**"),
])
def test_a_global_batch_asked_before_the_yes_no_leads(assistant, question, batch, verdict):
    """The global batch asked before the yes/no (helper parts17) is the headline, and the verdict follows it."""
    answer = assistant.ask(question).answer
    assert answer.index(verdict) < answer.index(batch) < answer.index(verdict) + 40, answer[:600]


def test_part_facts_and_a_quantity_beside_them(assistant):
    """4 Snt9B23 nodes × 16 DIE = 64 DIE (hardware catalog); DP = 64 / (8 × 2) = 4."""
    answer = assistant.ask("4 nodes of Snt9B23 — how many DIE is that, and what DP do I get at TP 8 PP 2?").answer
    assert "**64 DIE**" in answer and "Data parallel size: 4" in answer, answer[:600]


@pytest.mark.parametrize(("question", "facts"), [
    # two pages: the Pending pod (kubectl describe) and public access (外网访问 on the new console)
    ("训练的 pod 一直 Pending 怎么排查？另外在线服务怎么开公网访问？", ("kubectl describe pod", "外网访问")),
    # launch-script note: the one-click script converts the weights; CONVERT_MG2HF=TRUE, saved_models/pretrain_hf, tokenizer files
    ("MindSpeed-LLM 训练前要先把 HF 权重转成 megatron 格式对吧？那训练完怎么再导出成 HF 格式？",
     ("权重转换", "CONVERT_MG2HF=TRUE", "saved_models/pretrain_hf", "tokenizer.json")),
    # launch-script note: LOG_SAVE_PATH, and CONVERT_MG2HF=TRUE for the weights back
    ("two things: where does the MindSpeed launch script put its logs, and how do i get huggingface weights back after training?",
     ("LOG_SAVE_PATH", "CONVERT_MG2HF=TRUE")),
])
def test_every_part_of_a_howto_gets_a_lead(assistant, question, facts):
    answer = assistant.ask(question).answer
    own = before_quotes(answer)
    assert all(f in own for f in facts), own[:900]


def test_a_part_the_notes_answer_beside_a_quantity(assistant):
    """DP = 64 / (8 × 2) = 4, and the launch-variables note says what GBS is."""
    own = before_quotes(assistant.ask("MindSpeed 里 GBS 是什么意思？另外 64 张卡 TP 8 PP 2 的话 DP 是多少？").answer)
    assert "数据并行数（DP）：4" in own and "global batch" in own, own[:600]


@pytest.mark.parametrize(("question", "figure"), [
    ("GBS 256, MBS 1, GA 多少?", "卡数"),
    ("GBS 128, 一个 epoch 多少步?", "训练样本数"),
    ("how many steps per epoch with 200k samples?", "the global batch"),
])
def test_a_missing_figure_is_asked_for_not_a_model(assistant, question, figure):
    answer = assistant.ask(question).answer
    assert not any(w in answer for w in WHICH_MODEL) and figure in answer, answer[:400]


def test_a_follow_up_solves_the_batch_on_the_devices_said_before(assistant):
    """32 devices / (TP 4 × PP 2) = DP 4; GA = 256 / (1 × 4) = 64."""
    answer = last_answer(assistant, "32 张 910B，TP 4 PP 2，DP 是多少", "目标全局批量 256、micro batch 取 1 的话，梯度累积步数该填几？").answer
    assert "梯度累积设为 64" in answer, answer[:400]


@pytest.mark.parametrize(("question", "expected"), [
    ("训练的 pod 一直 Pending 怎么排查？另外在线服务怎么开公网访问？", ["训练的 pod 一直 Pending 怎么排查", "在线服务怎么开公网访问"]),
    ("two things: where do the logs go, and how do I get HF weights back?", ["where do the logs go", "how do I get HF weights back"]),
    ("1M samples at gbs 256 - steps per epoch? and with SAVE_INTERVAL 500 how many checkpoints?",
     ["1M samples at gbs 256 - steps per epoch", "and with SAVE_INTERVAL 500 how many checkpoints"]),
    # a statement is the context of the question after it (or before it): one part
    ("What does NPU_Flash_Attn require? my deepseek-v3 head dim is 576", ["What does NPU_Flash_Attn require? my deepseek-v3 head dim is 576"]),
    ("I use MindSpeed-LLM. How do I convert back to HF?", ["I use MindSpeed-LLM. How do I convert back to HF"]),
])
def test_sub_questions_are_split_where_a_new_one_begins(question, expected):
    assert [p.text.strip() for p in parts(question)] == expected
    assert bool(asked_apart(question)) == (len(expected) > 1)
