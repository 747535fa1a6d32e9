"""Pasted logs, tool output, error messages and configs answered by what the paste shows (helper pastes8): the facts that
decide the answer are read into typed values and named in the lead.

Pinned to the vendor's pages (knowledge/notes, the seeds) and hand computations:
- the OOM page's step 1 (modelarts_llm_train_c_5910041): find leftover processes with `npu-smi info`, kill them; here the
  PIDs are the pasted table's own (771204 holds 57,600 MB on NPU 0);
- 保存ckpt时超时报错 (seeds/002): only some nodes save, the others wait and time out; the error can be ignored, the saved
  weights are not affected; keep disk I/O healthy (at most 60 GB per node within 36 minutes);
- LlamaFactory FAQ 问题4: "Error waiting on exit barrier", 300 s default, `barrier_timeout=3000`;
- seeds/000's Template column (llama3.1 -> llama3, Qwen2 -> qwen) and the catalog's template column (glm-4-9b -> glm4);
- LLaMA-Factory's configure_rope: a factor of ceil(cutoff_len / context) = ceil(16384 / 4096) = 4 for llama2-13b;
- MindSpeed-LLM 训练参数配置说明 (5901042): CP >= 2 when SEQ_LEN > 32768;
- vLLM's own start-up figures: a max seq len of 32,768 against 21,344 tokens of KV cache -> `--max-model-len 21344`."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.notes import parse_note
from assistant.offline import error_signature as es
from assistant.offline import pasted_output as po
from assistant.offline.parse import language

NOTES = Path(__file__).resolve().parents[2] / "knowledge" / "notes"

ROW = "+===========================+===============+====================================================+"
SMI = "\n".join([
    "+---------------------------+---------------+----------------------------------------------------+",
    "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
    "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |",
    ROW,
    "| 0     910B3               | OK            | 95.0        40                0    / 0             |",
    "| 0                         | 0000:C1:00.0  | 0           0    / 0          61020/ 65536         |",
    ROW,
    "| 1     910B3               | OK            | 95.1        41                0    / 0             |",
    "| 0                         | 0000:C2:00.0  | 0           0    / 0          3120 / 65536         |",
    ROW,
    "| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |",
    ROW,
    "| 0       0                 | 771204        | python                   | 57600                   |",
    ROW])


def test_process_rows_are_read_under_their_header():
    """The process table's rows ("| 0  0 | 771204 | python | 57600 |") are processes, not device-name lines."""
    t = po.read("上一个训练已经 Ctrl+C 了，新任务还是 OOM：\n" + SMI)
    assert isinstance(t, po.NpuSmiTable)
    assert [(p.npu, p.pid, p.name, p.memory_mb) for p in t.processes] == [(0, 771204, "python", 57600)]
    assert [d.npu for d in t.devices if d.held] == [0]  # 61,020 of 65,536 MB with AICore 0 (93%); NPU 1 is idle
    assert t.says_stopped


def test_the_pid_holding_memory_leads_with_the_kill_command():
    text = po.render(po.read("I stopped the last run with ctrl-c, the new one OOMs at once:\n" + SMI), "en")
    first = text.splitlines()[0]
    assert first.startswith("**PID 771204 (python, 57,600 MB on NPU 0) still holds the memory**")
    assert "You stopped the earlier run" in first
    assert "`kill -9 771204`" in text and "step 1" in text


def test_a_pasted_table_does_not_set_the_language():
    assert language("上一个训练已经停了，为啥还起不来？\n" + SMI) == "zh"


@pytest.mark.parametrize("text, expected", [
    ("save_model 时报 [Rank 9] Watchdog caught collective operation timeout: WorkHCCL(OpType=BROADCAST) ran for 1800731 "
     "milliseconds before timing out. 要紧吗", "ckpt_save_timeout"),
    ("rank0 was saving the checkpoint, others died with EI0002: The wait execution of the Notify register times out",
     "ckpt_save_timeout"),
    ("[ERROR] Error waiting on exit barrier. Elapsed: 300.01 seconds", "exit_barrier"),
    ("刚启动就挂：EI0006: Getting socket times out. 怎么办", "hccl_connect_timeout"),
    ("step 1200 then EI0002: The wait execution of the Notify register times out on rank 3", "notify_wait_timeout"),
    ("{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 1e-4, 'epoch': 0.1} 用的 fp16", "nan_loss"),
    ("my loss goes nan after 200 steps with fp16: true", "nan_loss"),
    # the words place the message outside saving, though they ask about checkpoints: the EI0002 section, not the save one
    ("EI0002: The wait execution of the Notify register times out during training step 1200 (not saving)\n这是保存 ckpt 的问题吗",
     "notify_wait_timeout"),
    ("EI0002: Notify Wait Timeout 不是在保存权重的时候，是训练到一半", "notify_wait_timeout"),
    ("User-specified max_model_len (65536) is greater than the derived max_model_len (max_position_embeddings=32768)",
     "vllm_derived_max_model_len"),
])
def test_error_signatures(text, expected):
    seen = es.read(text)
    assert seen is not None and seen.signature.id == expected


def test_asked_kind_is_read_from_the_users_words():
    seen = es.read("[Rank 9] Watchdog caught collective operation timeout while saving the checkpoint. do I need to retrain?")
    assert seen is not None and "impact" in seen.asked


def test_every_signature_names_a_section_of_its_note_in_both_languages():
    """The same section (same place) of notes/ and notes/zh/, so the Chinese answer quotes what the English one does."""
    for sig in es.spec()[1]:
        en = [s.heading for s in parse_note(NOTES / sig.note, "en")]
        zh = [s.heading for s in parse_note(NOTES / "zh" / sig.note, "zh")]
        assert sig.heading["en"] in en and sig.heading["zh"] in zh, sig.id
        assert en.index(sig.heading["en"]) == zh.index(sig.heading["zh"]), sig.id


def test_save_timeout_answer_leads_with_the_vendor_verdict(assistant):
    ans = assistant.ask("两机 16 卡训完在 save_model 那一步，node1 刷这个：\n[E ProcessGroupHCCL.cpp:1015] [Rank 9] Watchdog caught "
                        "collective operation timeout: WorkHCCL(OpType=BROADCAST, Timeout(ms)=1800000) ran for 1800731 "
                        "milliseconds before timing out.\n模型会坏吗，要不要重训").answer
    lead = ans.split("\n\n")[0]
    assert "忽略这个报错" in lead and "不影响已经保存下来的权重" in lead  # seeds/002: the saved weights are fine
    assert "36 分钟" in lead and "磁盘 I/O" in lead  # the cause and the disk-IO fix in the lead, not only in a quote
    assert lead.index("忽略") < lead.index("磁盘 I/O")  # what is asked (does it matter) first


def test_exit_barrier_leads_with_its_own_fix(assistant):
    ans = assistant.ask("torch.distributed.elastic.agent.server.api: [ERROR] Error waiting on exit barrier. Elapsed: 300.0 "
                        "seconds\nhow do I get rid of it?").answer
    lead = ans.split("\n\n")[0]
    assert "300 s" in lead and "barrier_timeout=3000" in lead and "36 minutes" not in lead


def test_template_of_another_model_is_a_finding(assistant):
    ans = assistant.ask("check my yaml for 1 snt9b card:\nmodel_name_or_path: /m/Meta-Llama-3.1-8B-Instruct\nstage: sft\n"
                        "finetuning_type: lora\ntemplate: qwen\ncutoff_len: 2048\nper_device_train_batch_size: 1\n"
                        "gradient_accumulation_steps: 8").answer
    assert ans.startswith("**`template: qwen` is not llama3.1-8b's chat template: use `template: llama3`**")


def test_generic_template_on_a_chat_model(assistant):
    ans = assistant.ask("glm4 chat yaml 对吗？4 张 910B\nmodel_name_or_path: /data/glm-4-9b-chat\nstage: sft\nfinetuning_type: lora\n"
                        "template: default\ncutoff_len: 4096\nper_device_train_batch_size: 1").answer
    assert ans.startswith("**`template: default` 是通用模板，而这是 instruct/chat 模型：应写 `template: glm4`**")


def test_cutoff_beyond_context_needs_rope_scaling(assistant):
    ans = assistant.ask("is this yaml ok on 8 910B?\nmodel_name_or_path: /data/Llama-2-13b-hf\nstage: sft\nfinetuning_type: lora\n"
                        "template: llama2\ncutoff_len: 16384\nper_device_train_batch_size: 1\n"
                        "deepspeed: examples/deepspeed/ds_z3_config.json").answer
    assert ans.startswith("**`cutoff_len: 16384` is beyond llama2-13b's own context of 4096 tokens")
    assert "ceil(16384 / 4096) = 4" in ans and "rope_scaling: linear" in ans
    ok = assistant.ask("is this yaml ok on 8 910B?\nmodel_name_or_path: /data/Llama-2-13b-hf\nstage: sft\nfinetuning_type: lora\n"
                       "template: llama2\ncutoff_len: 16384\nrope_scaling: linear\nper_device_train_batch_size: 1\n"
                       "deepspeed: examples/deepspeed/ds_z3_config.json").answer
    assert "rope_scaling" not in ok.split("\n\n")[0]


def test_cp_stated_in_words_is_checked(assistant):
    ans = assistant.ask("mindspeed-llm llama3-70b 128k pretraining on 64 910B, my vars: TP=8 PP=4 CP=1 SEQ_LEN=131072 MBS=1 "
                        "GBS=64. any issue?").answer
    assert ans.startswith("**`CP=1` is wrong for `SEQ_LEN=131072`**")


def test_vllm_start_up_failure_leads_with_the_logs_figures(assistant):
    ans = assistant.ask("my qwen2.5-14b server on one 910B never starts: ValueError: The model's max seq len (32768) is larger "
                        "than the maximum number of tokens that can be stored in KV cache (21344). Try increasing "
                        "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.").answer
    assert ans.startswith("**vLLM refuses to start: `--max-model-len` 32,768 is longer than the 21,344 tokens")
    assert "`--max-model-len 21344`" in ans
    assert "For comparison, the estimate" in ans  # the estimate's own verdict is no verdict on a run that failed


def test_no_cache_blocks_uses_the_users_flags(assistant):
    ans = assistant.ask("vllm serve 启动失败:\nINFO Loading model weights took 34.1 GB\nValueError: No available memory for the "
                        "cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.\nqwen2.5-32b, 2 张 "
                        "910B, tp 2, --gpu-memory-utilization 0.9, --max-num-batched-tokens 32768").answer
    lead = ans.split("\n\n")[0]
    assert lead.startswith("**vLLM 启动失败")
    assert "（现为 0.9）" in lead and "（现为 32768）" in lead and "（现为 2）" in lead
    assert "启动失败:'" not in ans  # the sentence is no model name


def test_serving_oom_under_load_is_not_a_training_oom(assistant):
    ans = assistant.ask("RuntimeError: NPU out of memory. Tried to allocate 4.00 GiB (NPU 0; 60.97 GiB total capacity; 55.20 GiB "
                        "already allocated; 2.10 GiB free)\n这是 vllm 推理服务在压测并发 64 的时候报的，llama3.1-8b 单卡").answer
    assert ans.startswith("推理服务运行中（有负载时）的 OOM 报错")
    assert "per_device_train_batch_size" not in ans
    assert "1. 调低 `--gpu-memory-utilization`" in ans  # the vendor's Ascend-vLLM FAQ first


def test_eval_oom_names_the_eval_batch(assistant):
    ans = assistant.ask("llamafactory qwen2.5-7b lora 8 卡 910B，训练正常跑了 1200 步，到 eval 的时候报 RuntimeError: NPU out of "
                        "memory. Tried to allocate 7.42 GiB (NPU 3; 60.97 GiB total capacity; 48.10 GiB already allocated; "
                        "6.01 GiB free)，per_device_eval_batch_size 8，咋整").answer
    assert ans.startswith("**这是评估（eval）时的溢出，不是训练步**（`per_device_eval_batch_size: 8`）")


def test_crashing_pod_is_not_a_scheduling_answer(assistant):
    ans = assistant.ask("kubectl get pods\nNAME               READY   STATUS             RESTARTS     AGE\n"
                        "llm-sft-master-0   0/1     CrashLoopBackOff   6 (2m ago)   14m\nwhy does it keep restarting?").answer
    assert "CrashLoopBackOff" in ans.splitlines()[0]
    assert "kubectl logs llm-sft-master-0 --previous" in ans
    assert "ZeRO" not in ans and "Pending" not in ans


def test_cp_beyond_32k_for_a_model_the_page_does_not_mark(assistant):
    """5901042 marks context parallel for Llama3 models: for a Qwen model the length is beyond what the vendor lists."""
    ans = assistant.ask("qwen2.5-7b 用 MindSpeed-LLM 跑 48k，8 卡，TP=2 PP=1 CP=1 SEQ_LEN=49152，这样配有问题吗").answer
    assert ans.startswith("**`SEQ_LEN=49152` 配 `CP=1` 超出了厂商对 qwen2.5-7b 给出的范围**")
    assert "TP 2 × PP 1 × CP 2 = 每个模型副本 4 张卡" in ans  # 2 x 1 x 2 = 4
