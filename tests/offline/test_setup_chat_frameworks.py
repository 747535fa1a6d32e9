"""Pasted setups that break a framework's own check (fresh round 8 F5) and the language of the answer (F8): the answer
leads with the rule broken by the user's value, names where the rule is written, and is in the language of the words
around the paste; a valid setup of the same kind gets no finding."""

from __future__ import annotations

import re

CJK = re.compile(r"[\u4e00-\u9fff]")

GALORE = """8 Snt9B cards, ok?
model_name_or_path: /data/Qwen2.5-7B-Instruct
stage: sft
finetuning_type: full
use_galore: true
galore_target: all
deepspeed: examples/deepspeed/ds_z2_config.json
cutoff_len: 4096
per_device_train_batch_size: 1
gradient_accumulation_steps: 8
bf16: true"""


def test_galore_with_deepspeed_leads_the_answer(assistant):
    a = assistant.ask(GALORE)
    assert a.answer.startswith("**`use_galore: true` together with DeepSpeed (`examples/deepspeed/ds_z2_config.json`) "
                               "is refused by LLaMA-Factory**")
    assert "hparams/parser.py" in a.answer and "Read but not used for memory: YAML: use_galore" not in a.answer


def test_galore_without_deepspeed_is_not_flagged(assistant):
    a = assistant.ask(GALORE.replace("deepspeed: examples/deepspeed/ds_z2_config.json\n", ""))
    assert "GaLore" not in a.answer and a.answer.startswith("**")


def test_quantization_with_full_in_chinese(assistant):
    q = ("8 张 Snt9B 这个 yaml 能跑吗\nmodel_name_or_path: /home/ma-user/Llama-3.1-8B\nstage: sft\nfinetuning_type: full\n"
         "quantization_bit: 4\ndeepspeed: examples/deepspeed/ds_z2_config.json\ntemplate: llama3\ncutoff_len: 8192\n"
         "per_device_train_batch_size: 1\ngradient_accumulation_steps: 8")
    a = assistant.ask(q)
    assert a.answer.startswith("**LLaMA-Factory 不允许 `quantization_bit: 4` 与 `finetuning_type: full` 同用**")
    assert "（规则出处：LLaMA-Factory 的参数解析（hparams/parser.py _verify_model_args" in a.answer
    assert "bitsandbytes" not in a.answer  # the NPU caveat is for an adapter run, not this refused one


def test_offload_param_under_zero2(assistant):
    q = ('qwen2.5-7b full 8192 on 8 910B with this ds json, any problem?\n{"train_micro_batch_size_per_gpu": 1, '
         '"gradient_accumulation_steps": 8, "bf16": {"enabled": true}, "zero_optimization": {"stage": 2, '
         '"offload_param": {"device": "cpu", "pin_memory": true}, "overlap_comm": false}}')
    a = assistant.ask(q)
    assert a.answer.startswith("**`offload_param` under ZeRO-2 does nothing**")
    assert "offload False (" in a.answer and "offload True" not in a.answer
    assert "DeepSpeed ZeRO-2 over data parallel" in a.answer  # the estimate runs without offload, as DeepSpeed does


def test_benchmark_backend_and_url_in_chinese(assistant):
    q = ("这个压测命令对吗\npython benchmark_parallel.py --backend vllm --url https://infer-app-modelarts-cn-southwest-2."
         "myhuaweicloud.com/v1/infers/xxx/v1/completions --app-code ABC123 --tokenizer /data/qwen2.5-7b --parallel-num "
         "1 4 8 --prompt-tokens 1024 --output-tokens 128")
    a = assistant.ask(q)
    assert [c.name for c in a.tool_calls] == ["check_setup"]
    assert a.answer.startswith("**`--backend vllm` 与 URL 不匹配**") and "`--backend openai`" in a.answer
    assert "（规则出处：ModelArts《语言模型推理性能测试》(modelarts_llm_infer_5905029" in a.answer


def test_a_matching_benchmark_command_is_said_to_be_fine(assistant):
    a = assistant.ask("Is this benchmark command right?\npython benchmark_parallel.py --backend openai --url "
                      "https://x/v1/infers/abc/v1/completions --app-code X --tokenizer /data/qwen2.5-7b --parallel-num 1 4 "
                      "--prompt-tokens 2048 --output-tokens 256")
    assert a.answer.startswith("**No problem found in the benchmark command**: `--backend openai` matches the URL ending "
                               "`/v1/completions`, 1 prompt length(s) paired with 1 output length(s), concurrency 1 4.")


def test_megatron_layers_assertion_is_explained_with_layouts(assistant):
    q = ("mindspeed llama3.1-70b lora 4096 on 3 nodes (24 cards), TP=8 PP=3, fails at startup:\nAssertionError: "
         "num_layers (80) must be divisible by pipeline_model_parallel_size (3)\nwhat do I change?")
    a = assistant.ask(q)
    assert a.answer.startswith("No: PP 3 does not divide the 80 layers of llama3.1-70b.")
    assert "Layouts that fit 24: TP 8 × PP 1 (DP 3), TP 4 × PP 2 (DP 3)." in a.answer
    assert "TP 8 × PP 3" not in a.answer.split("Read:")[0].replace("TP 8 × PP 3 =", "")


def test_preprocessing_line_in_chinese(assistant):
    q = ("做 SFT 的数据预处理这样写有问题吗\nbash scripts/llama2/1_preprocess_data.sh --input /data/train.xlsx "
         "--tokenizer-type GPT2BPETokenizer --handler-name GeneralPretrainHandler --seq-length 4096")
    a = assistant.ask(q)
    assert a.answer.startswith("**`--input /data/train.xlsx`：预处理不支持 .xlsx 格式**")
    assert "`--tokenizer-type GPT2BPETokenizer` 无法运行" in a.answer
    assert "指令数据要用 `GeneralInstructionHandler`" in a.answer
    prose = re.sub(r"`[^`]*`|\([^)]*\)|（[^）]*）|```.*?```|[A-Za-z_./\-]+", "", a.answer.split("读到：")[0], flags=re.S)
    assert len(CJK.findall(prose)) > 100  # a Chinese answer, not English lines with Chinese keys


def test_malformed_json_names_the_syntax_error_in_chinese(assistant):
    a = assistant.ask('这个 json 有啥问题 {"zero_optimization": {"stage": 3,, "offload_optimizer": {"device": "cpu"}, '
                      '"train_micro_batch_size_per_gpu": 1')
    assert a.answer.startswith("无法检查这个配置：JSON 格式有误，第 1 行第 35 列（{\"zero_optimization\": {\"stage\": 3,, "
                               "\"offload_optimizer\"")
    assert "：连续两个逗号（中间缺了一个值）；另有 2 个括号没有闭合。" in a.answer


def test_malformed_json_in_english(assistant):
    a = assistant.ask('what is wrong with my deepspeed config?\n```json\n{\n  "train_micro_batch_size_per_gpu": 1,\n'
                      '  "zero_optimization": {\n    "stage": 2,\n  }\n}\n```')
    assert a.answer.startswith("I could not check this setup: the pasted JSON is not valid at line 4, column 11 "
                               "(\"stage\": 2,): a comma right before a closing bracket (JSON allows no trailing comma). ")
    # one fix only (drop the comma): the whole file as meant follows, written by hand from the paste
    assert '```json\n{\n  "train_micro_batch_size_per_gpu": 1,\n  "zero_optimization": {\n    "stage": 2\n  }\n}\n```' in a.answer


def test_valid_mixed_language_config_is_not_flagged_and_answered_in_chinese(assistant):
    q = ("llamafactroy 配置帮我 check 一下, 8卡 910B\nmodel_name_or_path: /data/Qwen2.5-7B-Instruct\nstage: sft\n"
         "finetuning_type: lora\nlora_rank: 16\nlora_target: all\ndeepspeed: examples/deepspeed/ds_z2_config.json\n"
         "cutoff_len: 4096\nper_device_train_batch_size: 1\ngradient_accumulation_steps: 8\nbf16: true")
    a = assistant.ask(q)
    assert a.answer.startswith("**放得下：每卡") and "规则出处" not in a.answer


def test_vllm_tp_beyond_a_single_node_in_words(assistant):
    a = assistant.ask("vllm tp 16 for qwen2.5-72b on a single 8-card snt9b node?")
    assert a.answer.startswith("No: TP 16 × PP 1 = 16 needs 16 devices, more than your 8 cards") and "8 / 4" in a.answer


def test_lora_rank_zero_in_words(assistant):
    a = assistant.ask("qwen3-8b lora，lora_rank 0，4096，1 张 910B 够吗")
    assert a.answer.startswith("“lora_rank 0”不是有效的 LoRA 秩：必须是 1 到 4096 的整数")


def test_invalid_choice_message_leads_with_the_valid_value(assistant):
    # LLaMA-Factory: quantization_method takes bnb (bitsandbytes), hqq, eetq on the fly
    a = assistant.ask("跑 train 报错 invalid choice for quantization_method: 'bitsandbytes', 我写的 quantization_bit: 4 + "
                      "quantization_method: bitsandbytes, 咋改")
    assert a.answer.startswith("**`quantization_method: bitsandbytes` 不是 LLaMA-Factory 的取值**")
    assert "quantization_method: bnb" in a.answer


def test_vllm_heads_message_answers_the_tp_that_divides(assistant):
    # qwen2.5-7b: 28 attention heads, 4 KV heads -> TP 1 / 2 / 4 on an 8-card node
    a = assistant.ask("vllm serving qwen2.5-7b on 8 cards fails:\nValueError: Total number of attention heads (28) must "
                      "be divisible by tensor parallel size (8).\nwhich tp?")
    assert a.answer.startswith("No: TP 8 does not divide the 28 attention heads") and "--tensor-parallel-size 4" in a.answer


def test_the_global_batch_asked_leads_a_recipe_difference(assistant):
    # 2 per device x GA 4 x 8 cards = 64; the recipe's ZeRO-2 (llama3.1-8b full 4096, seeds/000) is said after it
    a = assistant.ask("per_device_train_batch_size: 2\ngradient_accumulation_steps: 4\n"
                      "deepspeed: examples/deepspeed/ds_z3_config.json\nmodel_name_or_path: meta-llama/Llama-3.1-8B-Instruct\n"
                      "finetuning_type: full\ncutoff_len: 4096\non 8 cards what is the effective batch?")
    assert a.answer.startswith("**Global batch = 64**") and "the recipe uses ZeRO-2" in a.answer


def test_a_repaired_object_with_no_deepspeed_key_is_not_offered_as_the_file():
    # a trainer's log line ("{'loss': 1.03, 'epoch': 0.01,}") parses once repaired, but it is no config to correct
    from assistant.offline.setup_answer import _json_error
    from assistant.setup_check.errors import repaired_json

    log = "{'loss': 1.03, 'epoch': 0.01,}"
    assert repaired_json(log) == '{"loss": 1.03, "epoch": 0.01}'
    v = {"line": 1, "column": 30, "snippet": log, "problem": "trailing_comma", "repaired": repaired_json(log)}
    assert "```json" not in _json_error(v, "en")
    ds = '{"zero_optimization": {"stage": 3,}}'
    v = {"line": 1, "column": 35, "snippet": ds, "problem": "trailing_comma", "repaired": repaired_json(ds)}
    assert '```json\n{"zero_optimization": {"stage": 3}}\n```' in _json_error(v, "en")
