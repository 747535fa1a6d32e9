"""Values a generated file takes as the user wrote them (file_values.toml): paths, dataset and template names, the
master's address and port, vLLM's served name and port, LLaMA-Factory arguments under their own names. Each must appear
in the file, not a default in its place (round 13 c7-05: /data/Qwen2-72B-Instruct became Qwen/Qwen2-72B), and none is
named as unused. Expected values are the question's own words."""

from __future__ import annotations

import re

import yaml

from .dialog import converse


def files(ans) -> dict[str, str]:
    """Every fenced file of the answer by its language tag (the first of each)."""
    out: dict[str, str] = {}
    for lang, body in re.findall(r"```(\w+)\n(.*?)```", ans.answer, re.S):
        out.setdefault(lang, body)
    return out


def test_reader_takes_paths_names_and_arguments(parse):
    s = parse("write me a LLaMA-Factory yaml: model at /mnt/models/Qwen2.5-14B-Instruct, dataset my_sft_v2, template qwen, "
              "output_dir /mnt/out/q14b-lora, save_steps 1000, 8 Snt9B cards")
    assert s.model == "qwen2.5-14b" and s.devices == 8
    assert s.file_values == {"model_path": "/mnt/models/Qwen2.5-14B-Instruct", "dataset": "my_sft_v2", "template": "qwen",
                             "output_dir": "/mnt/out/q14b-lora", "save_steps": 1000}


def test_prose_after_dataset_or_template_is_no_value(parse):
    assert parse("how is the dataset preprocessing triggered? llama2-13b for example").file_values is None
    assert parse("which chat template for qwen2.5-7b lora? give me the yaml").file_values is None


def test_the_yaml_keeps_the_users_values_in_english(assistant):
    ans = assistant.ask("write me a LLaMA-Factory yaml: model at /mnt/models/Qwen2.5-14B-Instruct, lora rank 64, lora alpha "
                        "128, dataset my_sft_v2, template qwen, cutoff_len 6144, lr 5e-5, output_dir /mnt/out/q14b-lora, "
                        "8 Snt9B cards, zero2")
    cfg = yaml.safe_load(files(ans)["yaml"])
    assert (cfg["model_name_or_path"], cfg["dataset"], cfg["template"], cfg["output_dir"]) == (
        "/mnt/models/Qwen2.5-14B-Instruct", "my_sft_v2", "qwen", "/mnt/out/q14b-lora")
    assert (cfg["lora_rank"], cfg["lora_alpha"], cfg["cutoff_len"], cfg["learning_rate"]) == (64, 128, 6144, 5e-5)
    assert "Not used" not in ans.answer


def test_the_yaml_keeps_the_users_values_in_chinese(assistant):
    ans = assistant.ask("帮我生成 llamafactory 训练配置：模型路径 /home/ma-user/work/Llama-3.1-8B-Instruct，全参微调，数据集 "
                        "alpaca_zh_demo，cutoff_len 2048，学习率 1e-5，8 张 910B，输出目录 /home/ma-user/work/output/llama8b_full")
    cfg = yaml.safe_load(files(ans)["yaml"])
    assert (cfg["model_name_or_path"], cfg["dataset"], cfg["output_dir"]) == (
        "/home/ma-user/work/Llama-3.1-8B-Instruct", "alpaca_zh_demo", "/home/ma-user/work/output/llama8b_full")


def test_llamafactory_arguments_said_by_name_reach_the_yaml(assistant):
    ans = assistant.ask("glm4-9b lora yaml: model_name_or_path /data/glm-4-9b-chat, val_size 0.05, eval_steps 200, "
                        "save_steps 1000, logging_steps 5, warmup_ratio 0.03, 8 910B")
    cfg = yaml.safe_load(files(ans)["yaml"])
    assert (cfg["model_name_or_path"], cfg["val_size"], cfg["eval_steps"], cfg["save_steps"], cfg["logging_steps"],
            cfg["warmup_ratio"]) == ("/data/glm-4-9b-chat", 0.05, 200, 1000, 5, 0.03)
    assert "Not used" not in ans.answer


def test_the_mindspeed_variables_take_the_users_paths_and_master(assistant):
    ans = assistant.ask("MindSpeed-LLM launch env for qwen2.5-32b full 4k, 2 nodes x 8 Snt9B, TP 8 PP 2, MBS 1, GBS 128, "
                        "MASTER_ADDR 192.168.1.10, data at /data/train.jsonl, weights at /data/Qwen2.5-32B, save to /data/out/q32")
    env = files(ans)["bash"]
    for line in ("ORIGINAL_TRAIN_DATA_PATH=/data/train.jsonl", "ORIGINAL_HF_WEIGHT=/data/Qwen2.5-32B",
                 "OUTPUT_SAVE_DIR=/data/out/q32", "MASTER_ADDR=192.168.1.10", "TP=8", "PP=2", "GBS=128"):
        assert f"export {line}" in env


def test_the_launch_script_takes_the_master_address_and_port(assistant):
    ans = assistant.ask("launch command for qwen2.5-72b lora 4096 with LLaMA-Factory on 2 nodes of 8 Snt9B, master 10.0.0.5 port 29501")
    script = files(ans)["bash"]
    assert "MASTER_ADDR=10.0.0.5" in script and "MASTER_PORT=29501" in script
    assert "Not used" not in ans.answer


def test_the_vllm_serve_line_takes_the_users_path_name_and_port(assistant):
    ans = assistant.ask("vllm serve command for /models/Qwen2.5-32B-Instruct on 2 910B, max-model-len 16384, "
                        "gpu-memory-utilization 0.9, port 8080, served-model-name qwen32b")
    line = files(ans)["bash"].strip()
    assert line.startswith("vllm serve /models/Qwen2.5-32B-Instruct ")
    assert "--served-model-name qwen32b" in line and "--port 8080" in line and "--tensor-parallel-size 2" in line
    assert "Not used" not in ans.answer


def test_max_num_seqs_is_a_cap_not_a_load(assistant):
    # qwen3-8b on one 64 GB card at 32768 tokens: the vLLM table serves it on 1 card (vllm-newest); max-num-seqs only caps
    ans = assistant.ask("vllm 启动命令怎么写：模型 /home/ma-user/Qwen3-8B，单卡 910B，max-model-len 32768，显存利用率 0.85，max-num-seqs 64")
    line = files(ans)["bash"]
    assert "--tensor-parallel-size 1" in line and "--max-num-seqs 64" in line and "/home/ma-user/Qwen3-8B" in line
    assert "只是上限" in ans.answer


def test_a_follow_up_keeps_the_model_path_of_a_pasted_yaml(assistant):
    first, _, third = converse(
        assistant,
        "两台 910B 共 16 卡，这个配置对吗\nmodel_name_or_path: /data/Qwen2-72B-Instruct\nstage: sft\nfinetuning_type: lora\n"
        "cutoff_len: 4096\ndeepspeed: examples/deepspeed/ds_z3_config.json\nper_device_train_batch_size: 1\n"
        "gradient_accumulation_steps: 8",
        "序列长度拉到 8k 的话，配方要怎么改",
        "给我完整的 yaml",
    )
    cfg = yaml.safe_load(files(third)["yaml"])
    assert cfg["model_name_or_path"] == "/data/Qwen2-72B-Instruct" and cfg["cutoff_len"] == 8192
