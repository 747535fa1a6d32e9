"""How-to and pasted-text answers lead with the fact asked (fresh round 20 class D): a pasted launcher error leads with
its cause and fix, a Volcano "resource fit failed" event with the vendor's scheduler restart, numeric overflow is told
apart from out-of-memory, the direction of a weight conversion picks its output folder, and a request past the public
channel's 40 s limit gets a way forward. Facts are pinned to the vendor pages and upstream sources named in each case;
the questions are new wordings, not the round's."""

from __future__ import annotations

import pytest

from assistant.offline.vocab import OOM_NAMED


def lead_of(answer: str) -> str:
    paragraphs = answer.strip().split("\n\n")
    return next((p for p in paragraphs if p.startswith(("**Answer:**", "**结论**"))), paragraphs[0])


# LLaMA-Factory's argument checks (hparams parser): a deepspeed config outside a distributed launch raises "Please use
# `FORCE_TORCHRUN=1` to launch DeepSpeed training."; a plain python process "Please launch distributed training with
# `llamafactory-cli` or `torchrun`."
@pytest.mark.parametrize(("question", "words"), [
    ("llamafactory-cli train sft.yaml 直接报错\nValueError: Please use `FORCE_TORCHRUN=1` to launch DeepSpeed training.\n这是为什么",
     ["FORCE_TORCHRUN=1 llamafactory-cli train <yaml>", "deepspeed"]),
    ("got `ValueError: Please launch distributed training with llamafactory-cli or torchrun.` when running python src/train.py qwen.yaml",
     ["torchrun --nproc_per_node <N> src/train.py <yaml>", "plain Python process"]),
])
def test_a_pasted_launcher_error_leads_with_cause_and_fix(assistant, question, words):
    lead = lead_of(assistant.ask(question).answer)
    assert all(w in lead for w in words), lead
    assert "Which model" not in lead and "请给出模型名" not in lead


# 工作负载Pod异常 (modelarts_llm_train_c_5910043): Volcano contention; delete the scheduler pod in kube-system to restart it
@pytest.mark.parametrize("question", [
    "Warning FailedScheduling volcano 0/4 nodes are available: 4 node(s) resource fit failed. the cluster is idle, what now?",
    "事件：FailedScheduling  volcano  0/3 nodes are available: 3 node(s) resource fit failed，节点都空着，怎么处理",
])
def test_resource_fit_failed_leads_with_the_scheduler_restart(assistant, question):
    lead = lead_of(assistant.ask(question).answer)
    assert "kubectl delete pod -n kube-system ${pod_scheduler_name}" in lead, lead


# BF16和FP16说明 (seeds/002): BF16 avoids numeric overflow; FP16 tops out at 65504. Numeric overflow is no out-of-memory.
@pytest.mark.parametrize("question", ["为什么 fp16 训练容易溢出而 bf16 不太会", "fp16 的 loss 老是溢出成 nan，换 bf16 行不行"])
def test_numeric_overflow_is_not_answered_with_oom_remedies(assistant, question):
    answer = assistant.ask(question).answer
    assert "65504" in lead_of(answer) and "expandable_segments" not in answer and "npu-smi" not in answer, answer[:400]


def test_overflow_said_of_memory_is_still_oom():
    assert OOM_NAMED.search("lora 训练溢出了怎么办") and OOM_NAMED.search("训练时显存溢出，fp16")
    assert not OOM_NAMED.search("为啥 bf16 比 fp16 不容易溢出") and not OOM_NAMED.search("梯度上溢怎么办")


def test_overflow_skipping_steps_is_told_apart_from_oom(assistant):
    lead = lead_of(assistant.ask("日志里一直刷 OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768，是不是显存不够").answer)
    assert "65504" in lead and "OOM" in lead and "BF16" in lead, lead


# 权重转换 (modelarts_llm_train_90914): hf2hg writes converted_weights_TP${TP}PP${PP}; mg2hf (CONVERT_MG2HF=TRUE) writes
# saved_models/pretrain_hf/ at TP 1 / PP 1
@pytest.mark.parametrize(("question", "folder", "other"), [
    ("mg2hf 跑完之后 hf 格式的权重在哪个目录", "saved_models/pretrain_hf/", "converted_weights_TP"),
    ("when the megatron checkpoint is exported back to hugging face, which folder is it written to?", "saved_models/pretrain_hf/", "converted_weights_TP"),
    ("把 hf 权重转为 megatron 以后输出目录叫什么", "converted_weights_TP${TP}PP${PP}", "saved_models/pretrain_hf/"),
])
def test_the_direction_of_a_conversion_picks_its_folder(assistant, question, folder, other):
    lead = lead_of(assistant.ask(question).answer)
    assert folder in lead and lead.find(other) < 0 or lead.find(folder) < lead.find(other), lead


# inference-modelarts-0105 (40 s per request on the public channel, APIG); inference2.0-modelarts-0010 (a call's timeout
# within the values set at deployment); inference2.0-modelarts-0099 (ELB / VPCEP channels for production)
@pytest.mark.parametrize("question", ["each request to our online service needs about 90 seconds, how do we get around the gateway limit?",
                                      "在线服务公网调用一次推理要 3 分钟，超过 40 秒被断开了，有什么办法"])
def test_a_request_past_the_limit_gets_a_way_forward(assistant, question):
    lead = lead_of(assistant.ask(question).answer)
    assert "40 s" in lead and "ELB" in lead and "VPCEP" in lead, lead
