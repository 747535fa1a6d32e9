"""A pasted config, command or out-of-memory message in the chat: the planner calls check_setup with the
whole message and answers in the question's language, the verdict first; plain questions are untouched."""

from __future__ import annotations

from pathlib import Path

from assistant.offline.parse import clean_text
from assistant.offline.setup_answer import is_pasted_setup, question_language

FIXTURES = Path(__file__).parents[1] / "setup_check" / "fixtures"
YAML = (FIXTURES / "qwen7b_lora_sft_z2.yaml").read_text()
DS = (FIXTURES / "ds_z2_config.json").read_text()


def test_english_question_with_yaml_and_json(assistant):
    q = f"My LoRA run OOMs on 8×910B, config below.\n```yaml\n{YAML}```\n```json\n{DS}```\nWhat should I change?"
    a = assistant.ask(q)
    # the whole message, as the agent cleans every question (spaces collapsed; flat YAML and JSON read the same), with
    # what the words around it state ("on 8×910B")
    assert [c.name for c in a.tool_calls] == ["check_setup"]
    assert a.tool_calls[0].args == {"text": clean_text(q), "hardware": "snt9b", "devices": 8}
    r = a.tool_calls[0].result
    assert a.answer.startswith(f"**Does not fit: {r['training']['total_gib']:.1f} GiB per card needed, 61.0 GiB usable on snt9b**")
    assert "**Smallest change that fits: micro_batch 4 → 1, grad_accum 2 → 8 (global batch kept)**" in a.answer
    assert "per_device_train_batch_size: 1" in a.answer and "gradient_accumulation_steps: 8" in a.answer
    assert "1 card (ModelArts: 模型最小卡数配置, 2025-06-24)" in a.answer
    assert "Read but not used for memory:" in a.answer and "flash_attn" in a.answer


def test_chinese_question_with_an_oom_message(assistant):
    q = "昇腾910B 8卡训练显存不足，报错如下，怎么办？\n" + (FIXTURES / "oom_5491_npu.log").read_text()
    a = assistant.ask(q)
    assert [c.name for c in a.tool_calls] == ["check_setup"]
    assert a.answer.startswith("OOM 报错：**模型/配置太大**：NPU 2 已分配 59.57 / 60.97 GiB 时再申请 0.38 GiB（占容量 98%）")
    assert "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True" in a.answer
    assert "请把配置文件或启动命令一起贴上" in a.answer


def test_chinese_question_with_a_vllm_command(assistant):
    q = "这样启动 vLLM 放得下吗？\n```\nvllm serve Qwen/Qwen2.5-72B-Instruct --tensor-parallel-size 2 --max-model-len 32768\n```"
    a = assistant.ask(q)
    w = a.tool_calls[0].result["serving"]["weights_gib_per_device"]
    assert a.answer.startswith(f"**放不下：snt9b 2 卡（TP 2）上仅权重就占每卡 {w:.1f} GiB，超过 vLLM 可用的 54.9 GiB**")
    assert "**能放下的最小改动：tp 2 → 4**" in a.answer and "--tensor-parallel-size 4" in a.answer


def test_bad_yaml_in_the_chat_is_the_specific_error(assistant):
    a = assistant.ask("Is this OK?\n```yaml\nmodel_name_or_path: Qwen/Qwen2.5-7B\ncutoff_len: 4096: 8192\nstage: sft\n```")
    assert a.answer.startswith("I could not check this setup: The LLaMA-Factory YAML is not valid YAML at line")
    # a fault read as meant ("[4096" never closed: 4096) is named with its line; the file is checked as corrected
    a = assistant.ask("Is this OK?\n```yaml\nmodel_name_or_path: Qwen/Qwen2.5-7B\ncutoff_len: [4096\nstage: sft\n```")
    assert a.answer.startswith("**Line 2 of the YAML, `cutoff_len: [4096`, opens a list or mapping it never closes**")
    assert "cutoff_len: 4096\n```" in a.answer


def test_plain_questions_do_not_go_to_check_setup(assistant):
    for q in ("How many cards to LoRA fine-tune qwen2.5-7b at 4096 tokens?", "NPU out of memory with qwen2.5-72b lora, what to do?",
              "expandable_segments on, qwen2.5-7b full 8192 on 8 cards: enough?", "qwen2.5-72b 用 zero3 需要几张卡",
              "DeepSpeed json for llama2-13b full",
              # a quoted fragment without the figures is a troubleshooting question (the notes' remedies)
              "训练报 RuntimeError: NPU out of memory. Tried to allocate 1.04 GiB，用的 MindSpeed-LLM，怎么调"):
        assert not is_pasted_setup(q), q
    a = assistant.ask("How many cards to LoRA fine-tune qwen2.5-7b at 4096 tokens?")
    assert "check_setup" not in [c.name for c in a.tool_calls]


def test_language_is_the_question_not_the_paste():
    assert question_language(f"显存不够，帮我看看这个配置\n```yaml\n{YAML}```") == "zh"
    assert question_language(f"Please check this config\n```yaml\n{YAML}```") == "en"


def test_a_pasted_log_longer_than_a_question_keeps_its_oom_message_and_the_question(assistant):
    # 20,000 log lines (1.2 MB, past the 20,000-character question limit) with the OOM message and the question at the end:
    # the chat reads the lines that matter (the vendor sample: 56.45 of 60.97 GiB allocated, 1.04 GiB asked, 94 %)
    log = "\n".join(f"[rank0] step {i} loss 1.23 lr 1e-5 throughput 1234 tokens/s" for i in range(20000))
    log += ("\nRuntimeError: NPU out of memory. Tried to allocate 1.04 GiB (NPU 4; 60.97 GiB total capacity; 56.45 GiB "
            "already allocated; 56.45 GiB current active; 0.73 GiB free; 58.87 GiB reserved in total by PyTorch)\n为什么OOM")
    ans = assistant.ask(log)
    assert ans.notice and "20002 lines" in ans.notice
    assert "56.45 / 60.97 GiB" in ans.answer and "94%" in ans.answer and ans.answer.startswith("OOM 报错")


def test_the_words_around_a_paste_give_the_model_part_and_devices(assistant):
    # fresh round 3 (2026-12-04, p01/p02/p10): "2台8卡910B" is 16 cards, "8张910B" 8, and a model named only in the
    # question ("llama3-8b full … with this ds config") is the model the DeepSpeed JSON is sized for
    yaml_text = ("model_name_or_path: /data/glm-4-9b-chat\nstage: sft\nfinetuning_type: full\ncutoff_len: 8192\n"
                 "per_device_train_batch_size: 2\ngradient_accumulation_steps: 8\nbf16: true")
    for prose, devices in (("这个配置2台8卡910B够吗？", 16), ("8张910B，会不会OOM？", 8)):
        (call,) = [c for c in assistant.ask(prose + "\n" + yaml_text).tool_calls if c.name == "check_setup"]
        assert (call.args.get("devices"), call.args.get("hardware")) == (devices, "snt9b")
    ds = ('will this fit? llama3-8b full finetune, cutoff 4096, on 8x A100 40GB with this ds config:\n'
          '{\n  "train_micro_batch_size_per_gpu": 4,\n  "gradient_accumulation_steps": 2,\n  "bf16": {"enabled": true},\n'
          '  "zero_optimization": {"stage": 2}\n}')
    (call,) = [c for c in assistant.ask(ds).tool_calls if c.name == "check_setup"]
    assert (call.args.get("model"), call.args.get("hardware"), call.args.get("devices")) == ("llama3-8b", "a100-40g", 8)


def test_chinese_vllm_line_with_utilization_above_1_gets_the_fix_in_chinese(assistant):
    a = assistant.ask("vllm serve /home/ma-user/Qwen3-14B --tensor-parallel-size 1 --max-model-len 16384 "
                      "--gpu-memory-utilization 1.2\n单卡910B，这样能起来吗")
    assert a.answer.startswith("**`--gpu-memory-utilization 1.2` 超出 (0, 1] 范围**")
    assert "改为：\n```\n--gpu-memory-utilization 0.9\n```" in a.answer
    assert "Input should be" not in a.answer and "下面的估算按改正后的值计算" in a.answer


def test_chinese_yaml_with_pure_bf16_and_zero3_is_answered_in_chinese(assistant):
    a = assistant.ask("帮我看看这个yaml有没有问题\nmodel_name_or_path: /data/Qwen2.5-32B\nstage: sft\nfinetuning_type: full\n"
                      "deepspeed: examples/deepspeed/ds_z3_offload_config.json\npure_bf16: true\ncutoff_len: 4096\n"
                      "per_device_train_batch_size: 1\ngradient_accumulation_steps: 8")
    assert a.answer.startswith("**LLaMA-Factory 不允许 `pure_bf16: true` 与 DeepSpeed ZeRO-3 同用**")
    assert "改为：\n```\nbf16: true\n```" in a.answer and "rejects" not in a.answer


def test_english_oom_question_gets_the_llamafactory_remedies(assistant):
    a = assistant.ask("RuntimeError: NPU out of memory. Tried to allocate 2.10 GiB (NPU 0; 60.97 GiB total capacity; "
                      "58.12 GiB already allocated; 0 bytes free). What should I try first with LLaMA-Factory?")
    assert "What to change, first to last:\n1. lower `per_device_train_batch_size`" in a.answer
    assert "`export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True`" in a.answer


def test_cuda_oom_with_model_and_batch_in_the_question_is_sized_with_the_cuda_setting(assistant):
    a = assistant.ask("training llama3.1-8b lora on a 4090, cutoff_len 4096, per_device_train_batch_size 4:\n"
                      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 0 has a total capacity "
                      "of 23.64 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 22.60 GiB "
                      "memory in use.\nwhy and what do I change?")
    r = a.tool_calls[0].result
    assert a.answer.startswith("Out-of-memory message: **too big**: CUDA 0 had 22.60 of 23.64 GiB in use")
    assert "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True" in a.answer and "PYTORCH_NPU" not in a.answer
    assert (r["training"]["seq_len"], r["training"]["micro_batch"], r["model"]) == (4096, 4, "llama3.1-8b")
    assert f"{r['training']['total_gib']:.1f} GiB per card needed" in a.answer


def test_two_nodes_of_eight_below_the_vendor_minimum_is_said(assistant):
    a = assistant.ask("这个配置2台8卡910B够吗？\nmodel_name_or_path: /home/ma-user/models/Qwen2.5-72B-Instruct\nstage: sft\n"
                      "finetuning_type: lora\nlora_rank: 16\nlora_target: all\ndeepspeed: examples/deepspeed/ds_z3_config.json\n"
                      "template: qwen\ncutoff_len: 8192\nper_device_train_batch_size: 1\ngradient_accumulation_steps: 8\n"
                      "bf16: true")
    r = a.tool_calls[0].result
    assert r["training"]["devices"] == 16
    # ModelArts minimum-card table (2025-06-24): LLaMA-Factory qwen2.5-72b LoRA 8192 on Snt9B = 32 cards
    assert r["table_min_devices"] == 32
    assert "**低于厂商最小卡数：最小卡数表中此任务为 32 卡，你只有 16 卡。**" in a.answer


def test_deepspeed_batch_mismatch_names_both_fixes(assistant):
    a = assistant.ask('deepspeed throws an assertion about train_batch_size on my 8 GPUs, why?\n{\n  "train_batch_size": 256,\n'
                      '  "train_micro_batch_size_per_gpu": 2,\n  "gradient_accumulation_steps": 8,\n'
                      '  "zero_optimization": {"stage": 3}\n}')
    # 2 x 8 x 8 = 128 != 256; 256 / (2 x 8) = 16
    assert a.answer.startswith("**`train_batch_size` 256 ≠ micro batch 2 × gradient accumulation 8 × data-parallel size 8 = 128**")
    assert 'Or keep 256 and set `"gradient_accumulation_steps": 16`' in a.answer
    assert 'Corrected line:\n```\n"train_batch_size": 128\n```' in a.answer


def test_chinese_error_is_chinese(assistant):
    a = assistant.ask("这个能跑吗\nmodel_name_or_path: /data/my-private-model\nfinetuning_type: lora\ncutoff_len: 4096")
    assert a.answer.startswith("无法检查这个配置：模型不在目录中") and "catalog" not in a.answer


def test_a_chinese_question_on_the_same_line_as_a_serve_command_is_answered_in_chinese(assistant):
    a = assistant.ask("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768 --gpu-memory-utilization 0.95 "
                      "这样在单卡 910B 上能起来吗").answer
    assert a.startswith("**放得下") or a.startswith("**放不下")


def test_chinese_words_before_an_oom_message_on_one_line_keep_the_answer_chinese(assistant):
    a = assistant.ask("训练报这个错怎么办：RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB "
                      "total capacity; 58.10 GiB already allocated; 0.50 GiB free) qwen2.5-7b 全参 4096，8 卡").answer
    assert a.startswith("OOM 报错")


def test_benchmark_lists_in_a_chinese_sentence(assistant):
    a = assistant.ask("跑性能测试 --prompt-tokens 1024 2048 4096 --output-tokens 512 --parallel-num 1 2 4 这样写对吗").answer
    assert a.startswith("**`--prompt-tokens` 有 3 个值（1024 2048 4096），`--output-tokens` 只有 1 个（512）**")
    assert "5905029" in a


def test_a_pasted_benchmark_line_answers_the_check_then_the_default_asked(assistant):
    # round 24 c4-06: "is that ok? and how many rounds if I leave epochs out": the pairing rule first (5905029), then
    # --epochs' default of 5 rounds per level (the inference_benchmark note), in the order asked
    a = assistant.ask("python benchmark_parallel.py --backend openai --host 10.0.0.5 --port 8080 --tokenizer /data/t "
                      "--parallel-num 1 8 --prompt-tokens 1024 2048 --output-tokens 256\nis this ok? how many rounds per "
                      "level if epochs is left out").answer
    assert a.startswith("**`--prompt-tokens` has 2 entries") and "--prompt-tokens 1024 2048 --output-tokens 256 256" in a
    assert a.index("Corrected line") < a.index("`--epochs` not given: the default 5 applies")
    assert "2 concurrency levels × 5 rounds = 10" in a


def test_a_yaml_with_another_zero_stage_than_the_recipe_names_it(assistant):
    # seeds/000: llama2-13b full, cutoff_len 8192 -> ZeRO-3
    a = assistant.ask("这个配置在 Snt9B 上用 8 卡跑全参有没有问题？\n```yaml\nmodel_name_or_path: /data/llama2-13b\nstage: sft\n"
                      "finetuning_type: full\ndeepspeed: examples/deepspeed/ds_z1_config.json\ncutoff_len: 8192\n"
                      "per_device_train_batch_size: 1\ngradient_accumulation_steps: 8\nbf16: true\n```").answer
    assert a.startswith("**你的配置与厂商配方表中同一任务不同：你用的是 ZeRO-1")
    assert "配方表用的是 ZeRO-3" in a.split("\n")[0]


def test_the_part_named_after_a_serve_command_on_the_same_line_is_the_users(assistant):
    a = assistant.ask("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 16384 --gpu-memory-utilization 0.9 "
                      "在单张 4090 上够不够")
    assert a.tool_calls[0].result["hardware"].startswith("rtx4090") and a.answer.startswith("**放")


def test_a_serve_line_with_the_question_after_it_generates_only_real_flags(assistant):
    # fresh round 7 s73 / s75: the question's words after the flags are not part of the command
    a = assistant.ask("vllm serve /models/Qwen2.5-32B-Instruct --tensor-parallel-size 1 --max-model-len 32768 "
                      "--gpu-memory-utilization 0.9  单张 910B 能起吗").answer
    assert "能起吗'" not in a and "'单张'" not in a and "--gpu-memory-utilization 0.9\n```" in a
    b = assistant.ask("vllm serve Qwen2.5-72B-Instruct --tensor-parallel-size 2 on 2x 910B -> ValueError: No available "
                      "memory for the cache blocks. what now?").answer
    assert "on 2x 910B" not in b.split("```bash")[-1] and "'->'" not in b


def test_the_layout_said_beside_an_oom_log_reaches_the_estimate(assistant):
    # fresh round 7 s71: TP 4 PP 2 stated beside the log; the estimate runs on them, not on TP 1 PP 1
    ans = assistant.ask("MindSpeed 训 qwen2.5-32b 全参，16 卡 TP 4 PP 2 MBS 2，报：RuntimeError: NPU out of memory. Tried to "
                        "allocate 768.00 MiB (NPU 1; 60.97 GiB total capacity; 59.40 GiB already allocated; 0 bytes free)，怎么改")
    (call,) = [c for c in ans.tool_calls if c.name == "check_setup"]
    read = {r["name"]: r["value"] for r in call.result["read"]}
    assert (read["tp"], read["pp"], read["devices"]) == (4, 2, 16)


def test_bf16_and_fp16_both_enabled_leads_the_answer(assistant):
    # fresh round 7 s74 class: DeepSpeed refuses both; it must be said first, not only in a quoted note
    a = assistant.ask("Is this ok for llama3.1-8b full on 8 910B?\n```json\n{\"zero_optimization\": {\"stage\": 3}, "
                      "\"bf16\": {\"enabled\": true}, \"fp16\": {\"enabled\": true}, \"train_micro_batch_size_per_gpu\": 1}\n```").answer
    assert a.startswith("**bf16 and fp16 are both enabled (bf16 + fp16)**")


def test_lora_plus_on_another_model_names_the_vendor_limit(assistant):
    # fresh round 7 s78: the guide (590620) allows DPO only for llama3 and lora+ only for qwen1.5-7B
    a = assistant.ask("这个 yaml 在 8 张 Snt9B 上跑行吗？\nmodel_name_or_path: /data/Qwen2.5-7B-Instruct\nstage: dpo\n"
                      "finetuning_type: lora\ndeepspeed: examples/deepspeed/ds_z2_config.json\ncutoff_len: 4096\n"
                      "loraplus_lr_ratio: 16.0").answer
    assert "DPO 训练只支持 llama3 系列" in a and "lora+（`loraplus_lr_ratio: 16.0`）只支持 qwen1.5-7B" in a


def test_request_rates_and_num_prompts_pair_up(assistant):
    # fresh round 7 s77: 3 rates, 2 counts; 5905029: one --num-prompts per rate
    a = assistant.ask("python benchmark_serving.py --backend openai --dataset custom.json --dataset-type custom "
                      "--tokenizer /data/qwen2.5-7b --request-rate 1 2 4 --num-prompts 100 200   <- errors out, why?").answer
    assert a.startswith("**`--request-rate` has 3 values (1 2 4) but `--num-prompts` has 2 (100 200)**")


def test_a_setup_unlike_the_recipe_row_says_so_in_the_body(assistant):
    # fresh round 7 s70: seeds/000 Yi 34B lora 8192 is ZeRO-3 on 1 x 4 cards; the user has ZeRO-2 on 2 cards
    a = assistant.ask("2 snt9b cards, ok?\nmodel_name_or_path: /data/Yi-34B\nstage: sft\nfinetuning_type: lora\n"
                      "deepspeed: examples/deepspeed/ds_z2_config.json\ncutoff_len: 8192\nper_device_train_batch_size: 1").answer
    assert "you use ZeRO-2 on 2 cards; the recipe uses ZeRO-3 on 4 cards" in a.split("```")[0]


def test_a_global_batch_that_splits_whole_is_shown_split(assistant):
    # hand computation: 2 nodes x 8 = 16 cards; DP = 16 / (TP 4 x PP 1) = 4; GBS 60 / (MBS 1 x 4) = GA 15
    a = assistant.ask("qwen2.5-14b full, MindSpeed, 16 cards:\n```bash\nNNODES=2\nNPUS_PER_NODE=8\nTP=4\nPP=1\nMBS=1\n"
                      "GBS=60\nSEQ_LEN=4096\n```\n这样 GBS 设置对吗？").answer
    assert "**GBS 60 可以整除**：MBS 1 × DP 4 × GA 15 = 60" in a


def test_nodes_and_a_total_above_a_node_are_the_total(assistant):
    # "2 机 16 卡": 16 cards in all (no node holds more than 8); seeds/000 Yi 34B full 8192 is 4 x 8 = 32 cards
    a = assistant.ask("Yi-34B 全参 8192，我打算 2 机 16 卡，yaml 如下，行不行：\nmodel_name_or_path: /data/Yi-34B\nstage: sft\n"
                      "finetuning_type: full\ndeepspeed: examples/deepspeed/ds_z3_config.json\ncutoff_len: 8192\n"
                      "per_device_train_batch_size: 1\ngradient_accumulation_steps: 8").answer
    assert a.startswith("**你的配置与厂商配方表中同一任务不同：你用的是 ZeRO-3，16 张卡，配方表用的是 ZeRO-3，32 张卡**")


def test_a_json_object_with_the_question_after_it_on_its_line_is_read(assistant):
    # the object ends at its closing brace; "is this ok for … on 8 910b" is the question's own words
    ans = assistant.ask('{"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 8, "zero_optimization": '
                        '{"stage": 3}} is this ok for qwen2.5-14b full on 8 910b')
    assert "not valid" not in ans.answer and "zero_stage 3 (DeepSpeed JSON: zero_optimization.stage 3)" in ans.answer
    assert "devices 8 (question: 8 910b)" in ans.answer
    # a tight verdict whose point is above the usable memory never says a negative room to spare
    assert "to spare" not in ans.answer.split("\n", 1)[0] or "-" not in ans.answer.split("to spare")[0][-8:]


def test_a_json_object_cut_off_is_located(assistant):
    ans = assistant.ask('{"model": "qwen2.5-7b", "method": "lora", "devices": 8,')
    assert "line 1, column 56" in ans.answer and "ends before every bracket is closed" in ans.answer


def test_launch_variables_in_which_no_setup_is_recognised_are_a_question(assistant):
    # "SN=50000, GBS=128, EPOCH=3" looks like pasted variables, but check_setup recognises no setup in it: the reader
    # answers the question: TRAIN_ITERS defaulting to SN / GBS * EPOCH in the launch script's whole-number arithmetic,
    # 50000 // 128 = 390 (390.625) x 3 = 1,170
    a = assistant.ask("SN=50000, GBS=128, EPOCH=3 — what TRAIN_ITERS does the mindspeed launch script default to?")
    assert [c.name for c in a.tool_calls][0] == "check_setup" and "no setup I can read" not in a.answer
    assert "390.625 → 390" in a.answer.splitlines()[0] and "= 1,170" in a.answer.splitlines()[0]
