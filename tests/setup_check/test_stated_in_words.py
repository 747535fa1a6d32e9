"""Values a user states inside a sentence around a paste or a command: a DeepSpeed example file named in the words
states its ZeRO stage and offload (LLaMA-Factory's examples/deepspeed/ds_z{0,2,3}[_offload]_config.json), a vLLM flag
with no value or a value that is no number is named (vLLM's argparse refuses the line), and a DIE count the part's own
job sizes allow is not refused (catalog job_devices, hiascend MindCluster: a job on one Snt9B23 server takes
1, 2, 4, … 16 DIE; seeds/004 lists 1 DIE rows for LLaMA-Factory)."""

from __future__ import annotations

from assistant.setup_check import read_setup
from assistant.setup_check.rules import check

OOM = ("RuntimeError: NPU out of memory. Tried to allocate 1.75 GiB (NPU 3; 60.97 GiB total capacity; "
       "58.90 GiB already allocated; 0 bytes free)")


def test_a_deepspeed_file_named_in_the_words_states_its_stage():
    out, _ = read_setup(f"llama3.1-70b lora 4096, llamafactory, 2 nodes x 8 910B, ds_z2_config.json. dies with:\n{OOM}")
    assert (out.settings["zero_stage"], out.settings["offload"]) == (2, False)
    out, _ = read_setup(f"qwen2.5-7b lora 用 ds_z3_offload_config.json 跑 8卡 爆了 {OOM}")
    assert (out.settings["zero_stage"], out.settings["offload"]) == (3, True)


def test_a_vllm_flag_without_a_value_or_with_letters_for_digits_is_named():
    out, _ = read_setup("帮我看下这条命令 vllm serve /models/qwen2.5-7b --tensor-parallel-size --max-model-len 32768 "
                        "--gpu-memory-utilization 0.9O")
    found = {f.key: f for f in out.findings if f.code == "vllm_flag_value"}
    assert found["--tensor-parallel-size"].figures["variant"] == "missing"
    bad = found["--gpu-memory-utilization"]
    assert (bad.value, bad.figures["variant"], bad.corrected) == ("0.9O", "number", "--gpu-memory-utilization 0.90")
    assert out.settings["max_model_len"] == 32768  # the well-formed flag is still read


def test_a_well_formed_vllm_line_has_no_value_finding():
    out, _ = read_setup("vllm serve Qwen/Qwen2.5-14B-Instruct --tensor-parallel-size 2 --gpu-memory-utilization 0.9")
    assert not [f for f in out.findings if f.code == "vllm_flag_value"]
    assert (out.settings["tp"], out.settings["gpu_memory_utilization"]) == (2, 0.9)


def test_a_die_count_the_part_allows_for_one_job_is_not_refused():
    snt9b23 = "1;2;4;6;8;10;12;14;16"  # catalog job_devices (MindCluster 7.3 dl_affinity_0007)
    assert "die_whole_cards" not in {f.code for f in check({"die_count": 1, "dies_per_card": 2, "job_devices": snt9b23})}
    f = {f.code: f for f in check({"die_count": 3, "dies_per_card": 2, "job_devices": snt9b23})}["die_whole_cards"]
    assert (f.figures["low"], f.figures["high"]) == (2, 4)


def test_a_process_the_user_sees_holding_memory_leads_the_oom_reading():
    # 41.20 + 2.00 of 60.97 GiB = 71 %: the job alone is not near full; the 40 GB python process holds the rest
    from assistant.tools.setup_changes import diagnose_oom
    text = ("npu-smi info 显示 NPU 0 上还挂着一个 python 进程占了 40GB，我新任务一起就 OOM：RuntimeError: NPU out of memory. "
            "Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity; 41.20 GiB already allocated)")
    out, _ = read_setup(text)
    assert out.oom is not None and out.oom.held_elsewhere_gib == 40.0
    d = diagnose_oom(out.oom)
    assert (d.cause, d.outside_gib, d.allocated_share) == ("held_elsewhere", 40.0, 0.709)
    alone, _ = read_setup(text.split("：", 1)[1])  # the message without the words: no process is known
    assert diagnose_oom(alone.oom).cause == "too_big"


def test_a_mindspeed_pp_said_in_words_gets_the_layer_list_not_a_refusal():
    # MindSpeed-LLM's DeepSeek-V3 conversion example: 61 layers on PP 4 as --num-layer-list 16,15,15,15; the vendor's
    # deepseek3/tune_deepseek3_671b_4k_lora_ptd runs TP 1 PP 4 EP 16 on 64 cards
    found = {f.code: f for f in check({"framework": "MindSpeed-LLM", "layers": 61, "tp": 1, "pp": 4, "devices": 64,
                                       "model_id": "deepseek-v3"}, "training")}
    assert "megatron_layers_pp" not in found
    assert found["mindspeed_layer_list"].corrected == "--num-layer-list 16,15,15,15"
    pasted = {f.code for f in check({"framework": "MindSpeed-LLM", "layers": 61, "pp": 4, "devices": 64,
                                     "pp_even_required": True}, "training")}
    assert "megatron_layers_pp" in pasted and "mindspeed_layer_list" not in pasted


def test_a_letter_o_for_a_zero_is_named_but_a_k_length_is_not():
    out, _ = read_setup("vllm serve /data/qwen2.5-32b --tensor-parallel-size 4 --max-model-len 32k "
                        "--gpu-memory-utilization O.95")
    found = {f.key: f for f in out.findings if f.code == "vllm_flag_value"}
    assert set(found) == {"--gpu-memory-utilization"} and found["--gpu-memory-utilization"].corrected.endswith(" 0.95")


def test_an_accumulation_stated_beside_an_oom_message_is_read():
    # "GA 2" beside the message is the run's accumulation: the global batch a remedy keeps is 4 x 2 x 8 = 64, not 4 x 1 x 8
    out, _ = read_setup(f"llama3-8b full, 8 cards, zero2, per_device_train_batch_size 4, GA 2. crashes at step 1:\n{OOM}")
    assert (out.settings["micro_batch"], out.settings["grad_accum"]) == (4, 2)
    out, _ = read_setup(f"qwen2.5-7b lora 8卡 micro 2 梯度累积 16 爆了 {OOM}")
    assert (out.settings["micro_batch"], out.settings["grad_accum"]) == (2, 16)
    out, _ = read_setup(f"step 0 就挂了，qwen2.5-7b 全参 8 卡 zero-2 长度 4k, bs 8 ga 4, 日志: {OOM}")
    assert (out.settings["micro_batch"], out.settings["grad_accum"]) == (8, 4)
    out, _ = read_setup(f"qwen2.5-7b lora 8 cards gbs 64 ga 8, crashed: {OOM}")  # the global batch is no micro batch
    assert "micro_batch" not in out.settings
