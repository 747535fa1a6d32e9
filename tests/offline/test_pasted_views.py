"""Pasted device views and configs answered on what they show (helper paste10, round 18 c6-06, c6-02, c8-06): an
`nvidia-smi` table and `npu-smi` / `nvidia-smi` figures said in words are device views (leftover process, busy, free);
a DeepSpeed JSON with no model says what it does; a YAML's first line without its colon is kept and named; a tab in
a YAML's indentation is reported as a tab. Figures are hand-computed from the pastes (52,113 / 81,920 = 63.6%;
58,000 / 65,536 = 88.5%; 3,100 / 65,536 = 4.7%; (81,920 - 78,000) / 1,024 = 3.8 GB free). DeepSpeed's facts:
ZeRO-2 splits optimizer states and gradients, ZeRO-3 also parameters; offload_param is read only by ZeRO-3
(deepspeed/runtime/zero/config.py)."""

from __future__ import annotations

from assistant.offline import pasted_output as po
from assistant.offline.parse import clean_text
from assistant.setup_check import text

NVIDIA_SMI = """nvidia-smi before launching my finetune, and it OOMs immediately. why?
|   0  NVIDIA A100-SXM...  On   | 00000000:07:00.0 Off |                    0 |
| N/A   33C    P0    62W / 400W |  52113MiB / 81920MiB |      0%      Default |
|   1  NVIDIA A100-SXM...  On   | 00000000:0B:00.0 Off |                    0 |
| N/A   31C    P0    60W / 400W |      4MiB / 81920MiB |      0%      Default |
| Processes:                                                                  |
|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |
|    0   N/A  N/A     33412      C   python                          52108MiB |"""


def test_nvidia_smi_table_is_read_per_gpu_with_its_processes():
    t = po.read(NVIDIA_SMI)
    assert isinstance(t, po.NpuSmiTable) and t.gpu and t.says_oom
    assert [(d.npu, d.aicore, d.hbm_used_mb, d.hbm_total_mb) for d in t.devices] == [(0, 0, 52113, 81920), (1, 0, 4, 81920)]
    assert [(p.npu, p.pid, p.name, p.memory_mb) for p in t.processes] == [(0, 33412, "python", 52108)]
    out = po.render(t, "en")
    assert out.startswith("**PID 33412 (python, 52,108 MiB on GPU 0) still holds the memory**")
    assert "GPU 0 52,113 / 81,920 MiB in use (64%), GPU-Util 0%" in out and "`kill -9 33412`" in out
    assert "`nvidia-smi`" in out and "npu-smi" not in out and "vendor's OOM page" not in out
    assert po.note_of(t) is None  # the Ascend OOM page is not a GPU's


def test_npu_smi_figures_said_in_words_name_the_leftover_process():
    t = po.read("npu-smi 看到 2 号卡 HBM 已经用了 58000/65536 MB，AICore 0%，进程 pid 40211 是 python，我还没开始跑任务，咋办")
    assert isinstance(t, po.NpuSmiTable) and not t.gpu
    assert [(d.npu, d.hbm_used_mb, d.hbm_total_mb) for d in t.devices] == [(2, 58000, 65536)]
    out = po.render(t, "zh")
    assert out.startswith("**PID 40211（python，58,000 MB，NPU 2） 还占着显存**")
    assert "58,000 / 65,536 MB（89%）" in out and "`kill -9 40211`" in out and "`npu-smi info`" in out
    assert "These" not in out  # the whole answer in the question's language


def test_figures_at_the_idle_level_say_the_device_is_free():
    t = po.read("I killed it and npu-smi now shows 3100 / 65536 MB on NPU 3. good to go?")
    out = po.render(t, "en")
    assert out.startswith("**Free: go ahead**: NPU 3 3,100 / 65,536 MB in use (5%)")
    assert "AICore" not in out  # the load was not said: not shown as 0%


def test_a_busy_gpu_says_how_little_is_left_for_a_second_job():
    out = po.render(po.read("我的 A100 80G 上 nvidia-smi 显示 78000MiB / 81920MiB，GPU-Util 100%，别人在跑吗？还能再起一个 vllm 吗"), "zh")
    assert out.startswith("**这些卡正在被使用**") and "GPU-Util 100%" in out and "3.8 GB" in out and "放不下" in out


def test_memory_units_question_is_no_device_view():
    assert po.read("npu-smi says 65536 MB but torch sees 60.97 GiB, where did the rest go?") is None


def test_deepspeed_json_without_a_model_says_what_it_does(assistant):
    a = assistant.ask('这个 ds 配置是 zero 几？参数有没有 offload？\n{"zero_optimization": {"stage": 3, "offload_optimizer": '
                      '{"device": "cpu", "pin_memory": true}, "offload_param": {"device": "none"}}, "bf16": {"enabled": "auto"}}')
    assert a.answer.startswith("**这份 DeepSpeed 配置是 ZeRO-3**（在数据并行的卡之间切分优化器状态、梯度和参数）；"
                               "优化器状态卸载到 cpu（`offload_optimizer.device cpu`）；参数没有卸载")
    assert "offloads only" not in a.answer  # no English remark in a Chinese answer


def test_offload_param_below_zero3_is_said_to_do_nothing(assistant):
    a = assistant.ask('does offload_param do anything here? {"zero_optimization": {"stage": 2, "offload_param": '
                      '{"device": "cpu"}}, "bf16": {"enabled": true}}')
    assert "parameters are not offloaded: `offload_param.device cpu` is read only by ZeRO-3, so at ZeRO-2 it does nothing" in a.answer


def test_yaml_first_line_without_colon_is_kept():
    found, _ = text.blocks("is this fine?\nmodel_name_or_path /data/qwen2.5-7b\n  cutoff_len: 4096\n finetuning_type lora")
    assert found and found[0].text.splitlines()[0] == "model_name_or_path /data/qwen2.5-7b"


def test_indentation_is_kept_and_a_tab_reported(assistant):
    assert clean_text("ok?\nstage:   sft\n\tlora_rank: 8") == "ok?\nstage: sft\n\tlora_rank: 8"
    a = assistant.ask("is this fine?\nmodel_name_or_path /data/qwen2.5-7b\n  cutoff_len: 4096\n finetuning_type lora\n"
                      "\tper_device_train_batch_size: -1")
    assert a.answer.startswith("**Line 1 of the YAML, `model_name_or_path /data/qwen2.5-7b`, is missing its colon**")
    assert "**Line 4 of the YAML, `per_device_train_batch_size: -1`, is indented with a tab**" in a.answer
    assert "model_name_or_path: /data/qwen2.5-7b\ncutoff_len: 4096\nfinetuning_type: lora" in a.answer


def test_misspelled_argument_is_named_and_read_as_meant(assistant):
    a = assistant.ask("is my yaml ok?\nmodel_name_or_path: /models/llama3-8b\nstage: sft\nfinetunning_type: lora\n"
                      "per_device_train_batch_size: 2\ngradient_accumulation_step: 8\ncutoff_len: 4096")
    assert a.answer.startswith("**`finetunning_type` is not a LLaMA-Factory argument; you mean `finetuning_type`**")
    assert "**`gradient_accumulation_step` is not a LLaMA-Factory argument; you mean `gradient_accumulation_steps`**" in a.answer
    assert "grad_accum 8 (YAML: gradient_accumulation_steps: 8)" in a.answer  # the value written is used, not a default


def test_ambiguous_misspelling_is_left_unknown():
    from assistant.setup_check.llamafactory import misspelled
    assert misspelled("per_device_batch_size") is None  # train's or eval's: not guessed
    assert misspelled("cutoff_length") == "cutoff_len" and misspelled("cutoff_len") is None


def test_duplicate_key_says_which_value_is_used(assistant):
    a = assistant.ask("which learning_rate will llamafactory use here?\nmodel_name_or_path: Qwen/Qwen2.5-7B-Instruct\n"
                      "stage: sft\nlearning_rate: 1.0e-4\nfinetuning_type: lora\nlearning_rate: 5e-5")
    # yaml.safe_load keeps the last of a repeated key
    assert a.answer.startswith("**`learning_rate` is set 2 times (lines 3 and 5 of the YAML): the last one wins, so "
                               "LLaMA-Factory uses `learning_rate: 5e-5`**")


# Hardware questions with several asks, each from the catalog (knowledge/catalog/hardware.csv): Snt9B 64 GB, 8 cards a
# node, rows in the minimum-card table (vendor_tables min_cards); the 32 GB 910B4 row is inferred (its notes say "not
# verified") and has rows only in the vLLM tables.
def test_two_parts_compared_though_one_is_named_again(assistant):
    a = assistant.ask("910B3 和 910B4 分别多少显存？ModelArts 上 Snt9B 对应哪个？")
    assert "**ModelArts Snt9B (Ascend 910B class, Atlas A2)**：**每张卡 64 GB**" in a.answer
    assert "**ModelArts Snt9B 32 GB variant (Ascend 910B, 32 GB)**：**每张卡 32 GB**（910B4 按 32 GB 的 Snt9B（vLLM 表的 32GB 列）计，未经核实）" in a.answer


def test_inferred_size_asked_yes_or_no_is_hedged_not_asserted(assistant):
    a = assistant.ask("vLLM 最小卡数表里“32GB显存”那一列指的是什么卡？910B4 是 32G 吗")
    assert "**目录按此计，但未经核实**" in a.answer and "**对**" not in a.answer
    assert "Inferred row" not in a.answer  # the Chinese remark, not the English notes
    b = assistant.ask("is the 910B4 a 32GB card?")
    assert "**The catalog takes it so, not verified**: **32 GB per card**" in b.answer


def test_every_ask_of_a_part_is_answered(assistant):
    a = assistant.ask("we were told our pool is 'Snt9b B3'. still 8 cards a node, 64GB each, and does the min-card table apply to it?")
    assert a.answer.startswith("**Answer:** **Yes**: a ModelArts Snt9B (Ascend 910B class, Atlas A2) node has 8 cards.")
    assert "**64 GB per card**" in a.answer
    assert "**the vendor's minimum-card table (模型最小卡数配置) applies**: its rows are for Snt9B" in a.answer
    b = assistant.ask("910B4 能用最小卡数表吗？显存多少")
    assert "**厂商最小卡数表（模型最小卡数配置）不涵盖它**" in b.answer


def test_size_asked_of_a_pasted_table_leads(assistant):
    a = assistant.ask("my job OOMs at 8k; here's npu-smi info, is this a 32GB card?\n"
                      "| 0     910B4               | OK            | 85.2        38                0    / 0             |\n"
                      "| 0                         | 0000:C1:00.0  | 0           0    / 0          2875 / 32768         |")
    assert a.answer.startswith("**Answer:** **Yes: these are 32 GB devices** (32,768 MB each in your table).")
    assert "Check for leftover processes" not in a.answer  # the notes' own lead would contradict "nothing holds them"


def test_deepspeed_config_written_as_yaml_is_read(assistant):
    a = assistant.ask("my colleague set param offload with stage 2 — does offload_param actually do anything here?\n\n"
                      "  zero_optimization:\n    stage: 2\n    offload_param: {device: cpu, pin_memory: true}\n"
                      "    contiguous_gradients: true\n  bf16: {enabled: true}")
    assert a.answer.startswith("**`offload_param` under ZeRO-2 does nothing**")
    assert "contiguous_gradients`**" not in a.answer


def test_node_total_is_a_nodes_whatever_count_is_said(assistant):
    # Snt9B23: 16 DIE per node x 64 GB = 1024 GB (catalog), though "一张卡" is also said
    a = assistant.ask("A3 的一张卡是几个 DIE，每个 DIE 多少 HBM，一台机器总共多少显存？")
    assert "整节点合计 16 × 64 GB = **1024 GB**" in a.answer and "128 GB**；**每张卡" not in a.answer
    b = assistant.ask("Snt9B23 one node: how many physical cards, how many DIE, total HBM, and is the smallest job 2 DIE?")
    assert "a node in all: 16 × 64 GB = **1024 GB**" in b.answer and "smallest unit of a parallel strategy" in b.answer


def test_load_said_before_its_word():
    t = po.read("gpu 0 shows 23500MiB / 24564MiB and 0% util in nvidia-smi even though I killed my script, whats holding it")
    assert t is not None and t.gpu and t.load_said and t.says_stopped and all(d.held for d in t.devices)


def test_tables_of_a_die_part_are_said_to_count_die(assistant):
    # seeds/004 (模型最小卡数配置): the Snt9B23 column counts DIE, 1 DIE = 1 Snt9B card, 2 DIE the smallest unit
    a = assistant.ask("A3 超节点：一台服务器 8 张卡是 16 个 die 吗？跑 vllm 的最小卡数表是按卡还是按 die 算")
    assert "每节点 16 个 DIE（8 张卡）" in a.answer and "表中按 DIE 计" in a.answer


def test_corrected_line_uses_the_key_as_written(assistant):
    a = assistant.ask("is this fine?\nmodel_name_or_path /data/qwen2.5-7b\n  cutoff_len: 4096\n finetuning_type lora\n"
                      "\tper_device_train_batch_size: -1")
    assert "Corrected line:\n```\nper_device_train_batch_size: 1\n```" in a.answer and "micro_batch: 1" not in a.answer
    b = assistant.ask("TP=2\nPP=1\nMBS=0\nGBS=64\nqwen2.5-7b on 8 cards ok?")  # MBS 0: a finding, not a crash
    assert "Corrected line:\n```\nMBS=1\n```" in b.answer
    assert "GBS 64 splits whole**: MBS 1 × DP 4 × GA 16 = 64" in b.answer  # 8 / (2 x 1) = 4; 64 / (1 x 4) = 16


def test_npu_smi_usages_view_is_a_device_view():
    # 91% of 65,536 MB = 59,638 MB in use at AICore 0%: held by a process
    t = po.read("npu-smi info -t usages -i 0 says:\n        HBM Capacity(MB)               : 65536\n"
                "        HBM Usage Rate(%)              : 91\n        Aicore Usage Rate(%)           : 0\nwhy is it 91% when nothing runs?")
    assert isinstance(t, po.NpuSmiTable) and [(d.npu, d.hbm_used_mb, d.hbm_total_mb, d.aicore) for d in t.devices] == [(0, 59638, 65536, 0)]
    assert po.render(t, "en").startswith("**Leftover processes hold the memory**: NPU 0 59,638 / 65,536 MB in use (91%), AICore 0%")


def test_node_affinity_event_is_labels_not_resources():
    e = po.read("kubectl describe pod 看到 Warning  FailedScheduling  0/2 nodes are available: 2 node(s) didn't match Pod's "
                "node affinity/selector. 怎么办")
    assert isinstance(e, po.SchedulingEvent) and e.resource == po.AFFINITY_RESOURCE
    out = po.render(e, "zh")
    assert out.startswith("**没有节点符合 Pod 的节点选择条件") and "2/2 个节点" in out and "--show-labels" in out
