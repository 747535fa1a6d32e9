"""The setup reader on fixtures written for the project (tests/setup_check/fixtures): each value read
is the one the file says, with where it was read; unknown keys listed; bad YAML/JSON named by line."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from assistant.errors import SizingError
from assistant.setup_check import read_setup
from assistant.setup_check.text import MAX_LINES

FIXTURES = Path(__file__).parent / "fixtures"


def fixture(*names: str, fence: bool = True) -> str:
    parts = [(FIXTURES / n).read_text(encoding="utf-8") for n in names]
    return "\n".join(f"```\n{p}```" if fence else p for p in parts)


def test_llamafactory_yaml_with_its_deepspeed_json():
    r, _ = read_setup("This OOMs on 8 cards:\n" + fixture("qwen7b_lora_sft_z2.yaml", "ds_z2_config.json"))
    s = r.settings
    assert (s["model"], s["stage"], s["method"], s["seq_len"], s["micro_batch"], s["grad_accum"], s["lora_rank"],
            s["precision"], s["zero_stage"], s["offload"], s["devices"]) == (
        "/home/ma-user/ws/models/Qwen2.5-7B-Instruct", "sft", "lora", 8192, 4, 2, 16, "bf16", 2, False, 8)
    assert r.sources["zero_stage"] == "ds_z2_config.json: zero_optimization.stage 2"  # the JSON the YAML names
    assert r.sources["micro_batch"] == "YAML: per_device_train_batch_size: 4"
    assert r.kinds == ["llamafactory_yaml", "deepspeed_json"]
    # keys LLaMA-Factory has that do not change per-device memory are named, not dropped
    assert "YAML: flash_attn" in r.unused and "YAML: ddp_timeout" in r.unused and r.unknown == []


def test_zero3_json_without_the_yaml_saying_its_name_and_disabled_checkpointing():
    r, _ = read_setup(fixture("llama3_8b_full_sft_z3.yaml", "ds_z3_config.json"))
    assert (r.settings["zero_stage"], r.settings["offload"], r.settings["recompute"], r.settings["method"]) == (3, False, False, "full")
    assert r.sources["recompute"] == "YAML: disable_gradient_checkpointing: True"


def test_qlora_is_lora_plus_quantization_bit():
    r, _ = read_setup(fixture("qwen14b_qlora_4090.yaml"))
    assert (r.settings["method"], r.settings["quant_bits"]) == ("qlora", 4)
    assert "zero_stage" not in r.settings  # no deepspeed key: plain DDP, the tool assumes ZeRO-0 and says so


def test_dpo_with_zero3_offload_json():
    r, _ = read_setup(fixture("qwen72b_lora_dpo_z3_offload.yaml", "ds_z3_offload_config.json"))
    assert (r.settings["stage"], r.settings["zero_stage"], r.settings["offload"]) == ("dpo", 3, True)
    assert "offload_optimizer to cpu, offload_parameters to cpu" in r.sources["offload"]
    assert "YAML: pref_beta" in r.unused


def test_deepspeed_file_named_but_not_pasted_reads_llamafactory_example_names():
    r, _ = read_setup("model_name_or_path: Qwen/Qwen2.5-7B\nstage: sft\ndeepspeed: examples/deepspeed/ds_z3_offload_config.json\n")
    assert (r.settings["zero_stage"], r.settings["offload"]) == (3, True)
    assert r.sources["zero_stage"] == "deepspeed: examples/deepspeed/ds_z3_offload_config.json"
    r, _ = read_setup("model_name_or_path: Qwen/Qwen2.5-7B\nstage: sft\ndeepspeed: my_ds.json\n")
    assert "zero_stage" not in r.settings and "my_ds.json was named but not pasted" in r.notices[0]


def test_mindspeed_variable_block():
    r, _ = read_setup(fixture("mindspeed_qwen72b_full.sh", fence=False))
    s = r.settings
    assert (s["framework"], s["model"], s["method"], s["tp"], s["pp"], s["cp"], s["micro_batch"], s["global_batch"],
            s["seq_len"], s["per_node"], s["nodes"]) == ("MindSpeed-LLM", "Qwen2.5-72B", "full", 8, 4, 1, 2, 64, 8192, 8, 4)
    assert r.sources["tp"] == "TP=8" and "shell: MASTER_ADDR" in r.unused


def test_mindspeed_script_flags_use_its_variables():
    r, _ = read_setup(fixture("mindspeed_tune_script.sh", fence=False))
    s = r.settings
    # --tensor-model-parallel-size ${TP} with TP=2 set earlier in the script
    assert (s["tp"], s["pp"], s["seq_len"], s["micro_batch"], s["global_batch"], s["recompute"], s["expandable_segments"]) == (
        2, 2, 8192, 1, 128, True, True)
    assert s["model"] == "./model_weights/llama-3-8b-mcore/"


@pytest.mark.parametrize("line,expected", [
    ("vllm serve Qwen/Qwen2.5-72B-Instruct --tensor-parallel-size 4 --max-model-len 32768 --gpu-memory-utilization 0.95",
     {"model": "Qwen/Qwen2.5-72B-Instruct", "tp": 4, "max_model_len": 32768, "gpu_memory_utilization": 0.95}),
    ("python -m vllm.entrypoints.openai.api_server --model /models/Qwen2.5-7B-Instruct -tp 2 --max-model-len=8192 "
     "--kv-cache-dtype fp8 --quantization awq",
     {"model": "/models/Qwen2.5-7B-Instruct", "tp": 2, "max_model_len": 8192, "kv_cache_dtype": "fp8", "weight_bits": 4}),
    ("ASCEND_RT_VISIBLE_DEVICES=0,1 vllm serve /root/model/GLM-4-32B-0414 \\\n  -tp 2 \\\n  --max-model-len 1024 \\\n"
     "  --gpu-memory-utilization 0.6 --swap-space 16",
     {"model": "/root/model/GLM-4-32B-0414", "tp": 2, "max_model_len": 1024, "gpu_memory_utilization": 0.6, "per_node": 2}),
    # the question goes on after a value with a comma glued to it (fresh round 16 c2-03: '16384，一张' was a bad value)
    ("vllm serve Qwen2.5-14B-Instruct --gpu-memory-utilization 0.8 --max-model-len 16384，一张 64GB 的 910B 能起吗",
     {"model": "Qwen2.5-14B-Instruct", "max_model_len": 16384, "gpu_memory_utilization": 0.8}),
    ("vllm serve /m/qwen2.5-7b --max-model-len 8192, will it fit on one 4090?", {"model": "/m/qwen2.5-7b", "max_model_len": 8192}),
])
def test_vllm_command_lines(line, expected):
    r, _ = read_setup(line)
    assert "vllm_command" in r.kinds
    assert {k: r.settings.get(k) for k in expected} == expected


def test_deepspeed_launcher_with_llamafactory_arguments():
    """The shape of LLaMA-Factory issue #5322: deepspeed --num_gpus 8 --num_nodes 2 ... src/train.py --flags."""
    line = ("deepspeed --num_gpus 8 --num_nodes 2 --hostfile hostfile src/train.py \\\n--deepspeed examples/deepspeed/ds_z3_config.json "
            "\\\n--stage sft \\\n--model_name_or_path Qwen/Qwen2-57B-A14B \\\n--do_train \\\n--finetuning_type lora \\\n"
            "--per_device_train_batch_size 1 \\\n--gradient_accumulation_steps 8 \\\n--cutoff_len 4096 \\\n--bf16")
    r, _ = read_setup(line)
    s = r.settings
    assert (s["per_node"], s["nodes"], s["zero_stage"], s["method"], s["micro_batch"], s["grad_accum"], s["seq_len"]) == (
        8, 2, 3, "lora", 1, 8, 4096)


def test_torchrun_and_llamafactory_cli():
    r, _ = read_setup("FORCE_TORCHRUN=1 NNODES=2 NODE_RANK=0 MASTER_ADDR=10.0.0.1 llamafactory-cli train qwen.yaml cutoff_len=16384")
    assert (r.settings["nodes"], r.settings["config_file"], r.settings["seq_len"]) == (2, "qwen.yaml", 16384)
    r, _ = read_setup("torchrun --nnodes 1 --nproc_per_node 4 src/train.py qwen.yaml")
    assert r.settings["per_node"] == 4


def test_npu_oom_message_of_llamafactory_issue_5491():
    r, _ = read_setup((FIXTURES / "oom_5491_npu.log").read_text())
    o = r.oom
    assert o is not None and o.platform == "npu" and o.device_index == 2
    # 386.00 MiB = 386/1024 GiB; 16.54 MiB free
    assert (o.tried_gib, o.capacity_gib, o.allocated_gib, o.reserved_gib, o.free_gib) == (
        round(386 / 1024, 3), 60.97, 59.57, 60.06, round(16.54 / 1024, 3))


def test_cuda_oom_message_new_format():
    r, _ = read_setup((FIXTURES / "oom_cuda_587.log").read_text())
    o = r.oom
    # reserved = allocated 75.31 + reserved-but-unallocated 1.83
    assert (o.platform, o.device_index, o.tried_gib, o.capacity_gib, o.allocated_gib, o.free_gib, o.in_use_gib) == (
        "cuda", 0, 1.96, 79.18, 75.31, 1.08, 78.09)
    assert o.reserved_gib == pytest.approx(75.31 + 1.83)


def test_cuda_oom_message_old_format():
    r, _ = read_setup("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total "
                      "capacity; 14.56 GiB already allocated; 11.44 MiB free; 14.68 GiB reserved in total by PyTorch)")
    o = r.oom
    assert (o.tried_gib, o.capacity_gib, o.allocated_gib, o.reserved_gib) == (round(20 / 1024, 3), 15.78, 14.56, 14.68)


def test_vllm_startup_lines():
    r, _ = read_setup((FIXTURES / "vllm_startup.log").read_text())
    v = r.vllm_log
    assert (v.weights_gib, v.kv_cache_gib, v.kv_tokens, v.max_seq_len, v.kv_needed_gib) == (27.52, 9.87, 53903, 131072, 24.0)


def test_question_words_name_devices_and_hardware():
    r, words = read_setup("跑不起来，8卡 910B，配置如下：\n```yaml\nmodel_name_or_path: Qwen/Qwen2.5-7B\nstage: sft\n```")
    assert r.settings["devices"] == 8 and "910B" in words


# ---------------------------------------------------------------- bad input
def test_malformed_yaml_names_the_line():
    with pytest.raises(SizingError) as e:  # a fault no line-wise repair mends: the parser's error, with its line
        read_setup("```yaml\nmodel_name_or_path: Qwen/Qwen2.5-7B\nstage: sft\ncutoff_len: 4096: 8192\nlora_rank: 8\n```")
    assert e.value.code == "invalid_yaml" and "line" in e.value.message


def test_every_fault_of_a_malformed_yaml_is_named_and_the_file_mended():
    """Round 14 c8-04's class: several faults in one pasted YAML are each named with their line, not only the first
    the parser stops at, and the whole file is given back as meant (the rest checked on it)."""
    r, _ = read_setup("```yaml\nmodel_name_or_path Qwen/Qwen2.5-7B\nstage: sft\nfinetuning_type: lora\n"
                      "lora_target: [q_proj, v_proj\n\tper_device_train_batch_size: 2\ncutoff_len: [4096\n```")
    found = [(f.code, f.value) for f in r.findings]
    assert found[:4] == [("yaml_missing_colon", 1), ("yaml_unclosed_bracket", 4), ("yaml_tab_indent", 5),
                         ("yaml_unclosed_bracket", 6)]
    mended = next(f.corrected for f in r.findings if f.code == "yaml_fixed_file")
    assert yaml.safe_load(mended) == {"model_name_or_path": "Qwen/Qwen2.5-7B", "stage": "sft", "finetuning_type": "lora",
                                      "lora_target": ["q_proj", "v_proj"], "per_device_train_batch_size": 2, "cutoff_len": 4096}


def test_yaml_tags_are_refused_not_run():
    with pytest.raises(SizingError) as e:
        read_setup("```yaml\nmodel_name_or_path: !!python/object/apply:os.system ['touch /tmp/pwned']\nstage: sft\n```")
    assert e.value.code == "invalid_yaml" and "tag" in e.value.message
    assert not Path("/tmp/pwned").exists()


def test_malformed_json_names_the_line():
    with pytest.raises(SizingError) as e:
        read_setup('```json\n{\n  "zero_optimization": {"stage": 3,},\n  "bf16": {"enabled": true}\n}\n```')
    assert e.value.code == "invalid_json" and "line 2" in e.value.message


def test_unknown_keys_are_listed_and_a_misspelling_is_read_as_said():
    # mended without loss (issue 22): the key as written is listed, the one argument it is close to is named in a finding
    # and its value used; a key close to none, or to two (train's or eval's batch), is only listed
    r, _ = read_setup("```yaml\nmodel_name_or_path: Qwen/Qwen2.5-7B\nstage: sft\nper_device_train_bach_size: 3\n```")
    assert r.unknown == ["YAML: per_device_train_bach_size"] and r.settings["micro_batch"] == 3
    assert [(f.code, f.key, f.valid) for f in r.findings] == [
        ("lf_misspelled_key", "per_device_train_bach_size", "per_device_train_batch_size")]
    r, _ = read_setup("```yaml\nmodel_name_or_path: Qwen/Qwen2.5-7B\nstage: sft\nper_device_batch_size: 3\nfoo_bar: 1\n```")
    assert r.unknown == ["YAML: per_device_batch_size", "YAML: foo_bar"] and "micro_batch" not in r.settings


def test_a_huge_log_is_cut_to_the_lines_that_matter():
    noise = "\n".join(f"step {i}: loss 1.23 lr 1e-5" for i in range(60_000))
    text = noise + "\n" + (FIXTURES / "oom_5491_npu.log").read_text()
    assert len(text) > 1_000_000
    r, _ = read_setup(text)
    assert r.oom is not None and r.oom.tried_gib == round(386 / 1024, 3)
    assert len(r.notices) == 1 and f"{len(text.splitlines())} lines" in r.notices[0]
    assert len(text.splitlines()) > MAX_LINES


@pytest.mark.parametrize(("question", "devices"), [("2台8卡910B够吗", 16), ("on 2 nodes of 8 cards", 16), ("4台8卡", 32),
                                                   ("on 2 nodes, 16 cards", 16), ("8张910B，会不会OOM", 8)])
def test_cards_in_the_question_per_node_times_nodes(question, devices):
    r, _ = read_setup(f"{question}\nexport TP=8\nexport PP=2")
    assert r.settings["devices"] == devices


def test_a_command_word_starting_a_sentence_is_prose():
    """'deepspeed throws an assertion …' is the question, not a launch line: its '8 GPUs' is read."""
    r, _ = read_setup('deepspeed throws an assertion on my 8 GPUs, why?\n{"train_batch_size": 256}')
    assert r.kinds == ["deepspeed_json"] and r.settings["devices"] == 8


@pytest.mark.parametrize(("question", "method", "seq_len"), [("qwen2-7b 全参 8192，4张910B", "full", 8192),
                                                             ("llama3-8b full finetune, cutoff 4096", "full", 4096),
                                                             ("qwen 32b qlora at 8k", "qlora", 8192),
                                                             ("glm4 lora, seq_len: 2048", "lora", 2048)])
def test_method_and_length_stated_beside_a_message(question, method, seq_len):
    msg = ("RuntimeError: NPU out of memory. Tried to allocate 1.00 GiB (NPU 0; 60.97 GiB total capacity; "
           "59.00 GiB already allocated; 0 bytes free)")
    r, _ = read_setup(f"{question}\n{msg}")
    assert (r.settings["method"], r.settings["seq_len"]) == (method, seq_len)


@pytest.mark.parametrize(("question", "seq_len"), [("qwen full, global batch 2048, 8192 tokens", 8192), ("GBS 1024, lora", None),
                                                   ("lora rank 16 at 4096", 4096)])
def test_a_batch_or_rank_is_not_a_length(question, seq_len):
    msg = ("RuntimeError: NPU out of memory. Tried to allocate 1.00 GiB (NPU 0; 60.97 GiB total capacity; "
           "59.00 GiB already allocated; 0 bytes free)")
    r, _ = read_setup(f"{question}\n{msg}")
    assert r.settings.get("seq_len") == seq_len


def test_a_doubled_colon_and_a_number_in_words_are_each_said_with_their_line():
    # Pasted without a fence: the stray indent, the missing colon and the doubled colon of a LLaMA-Factory file are
    # each a finding with its line; "eight thousand" loads as a string, which LLaMA-Factory's int cutoff_len refuses.
    r, _ = read_setup("check this:\ndeepspeed: examples/deepspeed/ds_z3_config.json\n  stage sft\n"
                      "finetuning_type: : full\ncutoff_len: eight thousand")
    found = [(f.code, f.key, f.value) for f in r.findings]
    assert found[:3] == [("yaml_stray_indent", "stage sft", 2), ("yaml_missing_colon", "stage sft", 2),
                         ("yaml_doubled_colon", "finetuning_type: : full", 3)]
    assert ("lf_not_a_whole_number", "cutoff_len", "eight thousand") in found
    assert (r.settings["stage"], r.settings["method"]) == ("sft", "full")
    assert "seq_len" not in r.settings  # not read from the words, and not listed as "read but not used" either
    assert not any("cutoff_len" in u for u in r.unused)


def test_a_doubled_colon_that_loads_is_still_said():
    # "key:: value" is valid YAML (the key "key:"), so the parser never stops on it; LLaMA-Factory would not get the key.
    r, _ = read_setup("```yaml\nmodel_name_or_path: Qwen/Qwen2.5-7B\nstage: sft\nfinetuning_type:: lora\n```")
    assert [(f.code, f.value, f.corrected) for f in r.findings][:1] == [
        ("yaml_doubled_colon", 3, "finetuning_type: lora")]
    assert r.settings["method"] == "lora" and r.sources["method"] == "YAML: finetuning_type: lora"
