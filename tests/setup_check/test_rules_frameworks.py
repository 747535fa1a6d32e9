"""The framework validity rules the fresh round 8 (F5) found missing, each pinned with a setup it refuses and a valid
one it leaves alone. Expected values are worked by hand from the frameworks' own checks (LLaMA-Factory 0.9.5
hparams/parser.py and finetuning_args.py, PEFT's LoRA layer, DeepSpeed's ZeRO config, Megatron's ParallelTransformer)
and the vendor pages (benchmark 5905029, preprocessing 91113 / 908106)."""

from __future__ import annotations

import json

import pytest

from assistant.errors import SizingError
from assistant.setup_check import read_setup
from assistant.setup_check.rules import SOURCES, SOURCES_ZH, check


def codes(fields: dict, task: str | None = "training") -> dict[str, object]:
    return {f.code: f for f in check(fields, task)}


# ---------------------------------------------------------------- LLaMA-Factory
def test_galore_with_deepspeed_is_refused_and_without_it_is_not():
    f = codes({"galore": "use_galore", "deepspeed_config": "examples/deepspeed/ds_z3_config.json", "method": "full"})
    g = f["lf_galore_deepspeed"]
    assert g.figures == {"galore": "use_galore", "ds": "examples/deepspeed/ds_z3_config.json"}
    assert "GaLore and APOLLO are incompatible with DeepSpeed" in g.source and "hparams/parser.py" in g.source
    assert "lf_galore_deepspeed" not in codes({"galore": "use_galore", "method": "full"})


def test_galore_with_lora_is_refused_and_with_full_is_not():
    assert codes({"galore": "use_apollo", "method": "lora"})["lf_galore_lora"].corrected == "finetuning_type: full"
    assert "lf_galore_lora" not in codes({"galore": "use_galore", "method": "full"})
    assert "lf_galore_lora" not in codes({"galore": "use_galore", "method": "freeze"})


@pytest.mark.parametrize("method", ["full", "freeze"])
def test_quantization_needs_an_adapter(method):
    f = codes({"quant_bits": 4, "method": method, "zero_stage": 2})["lf_quantization_type"]
    assert (f.value, f.valid, f.fix) == (method, "lora | oft", {"quant_bits": None})
    assert "Quantization is only compatible with the LoRA or OFT method" in f.source
    assert "lf_quantization_zero3" not in codes({"quant_bits": 8, "method": method, "zero_stage": 3})  # said once


@pytest.mark.parametrize("method", ["lora", "qlora", "oft"])
def test_quantization_with_an_adapter_is_valid(method):
    assert "lf_quantization_type" not in codes({"quant_bits": 4, "method": method})


@pytest.mark.parametrize("rank", [0, -8])
def test_lora_rank_below_one(rank):
    f = codes({"lora_rank": rank, "method": "lora"})["lora_rank_positive"]
    assert (f.value, f.corrected, f.fix) == (rank, "lora_rank: 8", {"lora_rank": 8})
    assert "peft/tuners/lora/layer.py" in f.source


def test_lora_rank_one_and_a_full_run_are_left_alone():
    assert "lora_rank_positive" not in codes({"lora_rank": 1, "method": "lora"})
    assert "lora_rank_positive" not in codes({"lora_rank": 0, "method": "full"})  # LLaMA-Factory ignores it for full


# ---------------------------------------------------------------- DeepSpeed
@pytest.mark.parametrize(("stage", "optimizer", "offload"), [(2, None, False), (1, None, False), (2, "cpu", True)])
def test_offload_param_below_zero3_does_nothing(stage, optimizer, offload):
    f = codes({"zero_stage": stage, "offload_param_device": "cpu", "offload_optimizer_device": optimizer})[
        "ds_offload_param_stage"]
    assert f.fix == {"offload": offload} and f.figures["variant"] == ("optimizer" if optimizer else "none")
    assert "Valid only with stage 3" in f.source


def test_offload_param_under_zero3_is_valid():
    assert "ds_offload_param_stage" not in codes({"zero_stage": 3, "offload_param_device": "cpu"})


def test_offload_param_in_a_pasted_json_is_read_with_its_stage():
    r, _ = read_setup('{"zero_optimization": {"stage": 2, "offload_param": {"device": "cpu", "pin_memory": true}}}')
    assert (r.settings["zero_stage"], r.settings["offload_param_device"]) == (2, "cpu")
    assert not any("offloads only" in n for n in r.notices)  # the rule speaks, not the ZeRO-3 notice


# ---------------------------------------------------------------- Megatron / MindSpeed-LLM
def test_pp_must_divide_the_layers():
    # 80 layers (llama3.1-70b, qwen2.5-72b), TP 8 x PP 3 on 24 cards: PP divides 80 -> 1 2 4 5 8 10 16; with TP 8 only
    # PP 1 divides 24 / 8 = 3 (DP 3); TP 4 x PP 2 also fits (DP 3)
    f = codes({"framework": "MindSpeed-LLM", "layers": 80, "tp": 8, "pp": 3, "devices": 24,
               "pp_even_required": True})["megatron_layers_pp"]  # a pasted script without --num-layer-list
    assert (f.value, f.figures["pp_options"], f.figures["options"]) == (3, "1 / 2 / 4 / 5 / 8 / 10 / 16",
                                                                        [(8, 1, 3), (4, 2, 3)])
    assert (f.corrected, f.fix) == ("PP=1", {"tp": 8, "pp": 1})
    assert "num_layers must be divisible by pipeline_model_parallel_size" in f.source


def test_pp_that_divides_the_layers_is_valid():
    # 32 layers (llama3.1-8b) with PP 4 on 8 cards; 64 layers with PP 8
    assert "megatron_layers_pp" not in codes({"framework": "MindSpeed-LLM", "layers": 32, "tp": 1, "pp": 4, "devices": 8})
    assert "megatron_layers_pp" not in codes({"layers": 64, "pp": 8})
    assert "megatron_layers_pp" not in codes({"framework": "LLaMA-Factory", "layers": 80, "pp": 3})


def test_a_layout_fixed_for_the_devices_also_divides_the_layers():
    # TP 8 x PP 4 = 32 on 24 cards: PP 3 would divide 24 / 8 but not 80 layers -> PP 1, and no second finding
    found = codes({"framework": "MindSpeed-LLM", "layers": 80, "tp": 8, "pp": 4, "devices": 24})
    assert found["parallel_exceeds_devices"].fix == {"tp": 8, "pp": 1} and "megatron_layers_pp" not in found


def test_the_megatron_assertion_is_read_from_a_pasted_log():
    r, _ = read_setup("fails at startup:\nAssertionError: num_layers (80) must be divisible by "
                      "pipeline_model_parallel_size (3)")
    assert (r.kinds, r.settings["layers"], r.settings["pp"]) == (["framework_error"], 80, 3)


# ---------------------------------------------------------------- vLLM
def test_tp_beyond_the_node_names_the_tps_that_fit():
    # 16 > 8 devices; 8 and 4 divide the 8 devices and qwen2.5-72b's 64 heads
    f = codes({"tp": 16, "devices": 8, "heads": 64}, "serving")["vllm_tp_devices"]
    assert (f.figures["n"], f.figures["fit_options"], f.fix) == (16, "8 / 4", {"tp": 8})
    assert "vllm_tp_devices" not in codes({"tp": 8, "devices": 8, "heads": 64}, "serving")


# ---------------------------------------------------------------- the vendor's benchmark script
@pytest.mark.parametrize(("backend", "url", "wanted"), [("vllm", "https://x/v1/infers/a/v1/completions", "openai"),
                                                        ("openai", "https://x/v1/infers/a/generate", "vllm")])
def test_backend_and_url_mismatch(backend, url, wanted):
    f = codes({"benchmark_backend": backend, "benchmark_url": url}, None)["benchmark_backend_url"]
    assert (f.corrected, f.figures["variant"]) == (f"--backend {wanted}", "url")
    assert "5905029" in f.source


def test_backend_outside_the_four():
    f = codes({"benchmark_backend": "sglang"}, None)["benchmark_backend_url"]
    assert (f.valid, f.figures["variant"]) == ("tgi | vllm | mindspore | openai", "value")


@pytest.mark.parametrize(("backend", "url"), [("openai", "https://x/v1/infers/a/v1/completions"),
                                              ("vllm", "https://x/v1/infers/a/generate"), ("vllm", None)])
def test_matching_backend_and_url_are_valid(backend, url):
    assert "benchmark_backend_url" not in codes({"benchmark_backend": backend, "benchmark_url": url}, None)


def test_backend_and_url_are_read_from_the_command():
    r, _ = read_setup("python benchmark_parallel.py --backend vllm --url https://h/v1/infers/x/v1/completions "
                      "--app-code A --parallel-num 1 4 --prompt-tokens 1024 --output-tokens 128")
    assert (r.settings["benchmark_backend"], r.settings["benchmark_url"]) == ("vllm", "https://h/v1/infers/x/v1/completions")


# ---------------------------------------------------------------- dataset preprocessing (MindSpeed-LLM / AscendSpeed)
@pytest.mark.parametrize(("path", "fixed"), [("/data/train.xlsx", "--input /data/train.csv"),
                                             ("/data/a.tsv", "--input /data/a.jsonl")])
def test_input_formats_the_preprocessing_does_not_read(path, fixed):
    f = codes({"data_input": path}, None)["preprocess_input_format"]
    assert (f.valid, f.corrected) == (".parquet, .csv, .json, .jsonl, .txt, .arrow", fixed)


@pytest.mark.parametrize("path", ["/data/alpaca.parquet", "/data/train.JSONL", "/data/sft_dir/", "/data/x.arrow"])
def test_input_formats_it_reads(path):
    assert "preprocess_input_format" not in codes({"data_input": path}, None)


def test_gpt2_bpe_needs_its_vocabulary_files():
    f = codes({"tokenizer_type": "GPT2BPETokenizer"}, None)["preprocess_tokenizer_type"]
    assert (f.figures["missing"], f.figures["variant"]) == ("--vocab-file --merge-file", "files")
    assert "preprocess_tokenizer_type" not in codes({"tokenizer_type": "GPT2BPETokenizer", "vocab_file": "v.json",
                                                     "merge_file": "m.txt"}, None)
    assert "preprocess_tokenizer_type" not in codes({"tokenizer_type": "PretrainedFromHF"}, None)
    assert codes({"tokenizer_type": "HFTokenizer"}, None)["preprocess_tokenizer_type"].figures["variant"] == "unknown"


def test_handler_for_the_data_purpose():
    f = codes({"handler_name": "GeneralPretrainHandler", "data_purpose": "sft"}, None)["preprocess_handler"]
    assert (f.corrected, f.figures["variant"]) == ("--handler-name GeneralInstructionHandler", "sft")
    assert codes({"handler_name": "GeneralInstructionHandler", "data_purpose": "pt"}, None)[
        "preprocess_handler"].corrected == "--handler-name GeneralPretrainHandler"
    assert "preprocess_handler" not in codes({"handler_name": "GeneralInstructionHandler", "data_purpose": "sft"}, None)
    assert "preprocess_handler" not in codes({"handler_name": "GeneralPretrainHandler", "data_purpose": "pt"}, None)
    assert "preprocess_handler" not in codes({"handler_name": "AlpacaStyleInstructionHandler"}, None)


def test_the_preprocessing_line_and_its_purpose_are_read():
    r, _ = read_setup("做 LoRA 微调前的数据预处理\nbash scripts/llama2/1_preprocess_data.sh --input /data/t.xlsx "
                      "--tokenizer-type GPT2BPETokenizer --handler-name GeneralPretrainHandler --seq-length 4096")
    assert "preprocess_command" in r.kinds
    assert {k: r.settings[k] for k in ("data_input", "tokenizer_type", "handler_name", "data_purpose")} == {
        "data_input": "/data/t.xlsx", "tokenizer_type": "GPT2BPETokenizer", "handler_name": "GeneralPretrainHandler",
        "data_purpose": "sft"}


def test_a_pretraining_line_is_read_as_pretraining():
    r, _ = read_setup("pretraining data, ok?\nbash scripts/llama2/1_preprocess_data.sh --input /data/c4.jsonl "
                      "--handler-name GeneralPretrainHandler")
    assert r.settings["data_purpose"] == "pt"  # the handler's own name is not the purpose


# ---------------------------------------------------------------- malformed JSON
@pytest.mark.parametrize(("text", "problem", "line", "column"), [
    ('{\n  "zero_optimization": {\n    "stage": 2,\n  }\n}', "trailing_comma", 3, 11),  # the column in the line as shown
    ('这个 json 有啥问题 {"zero_optimization": {"stage": 3,, "offload_optimizer": {"device": "cpu"}', "double_comma", 1, 35),
    ("{'zero_optimization': {'stage': 3}}", "single_quotes", 1, 2),
    ('{"zero_optimization": {"stage": 3}', "unclosed", 1, 35),  # 34 characters: it stops just after the last
])
def test_malformed_json_names_line_column_and_problem(text, problem, line, column):
    with pytest.raises(SizingError) as e:
        read_setup(text)
    assert e.value.code == "invalid_json"
    assert (e.value.valid["problem"], e.value.valid["line"], e.value.valid["column"]) == (problem, line, column)
    assert f"line {line}, column {column}" in e.value.message


def test_a_valid_json_is_read():
    r, _ = read_setup(json.dumps({"zero_optimization": {"stage": 3}, "train_micro_batch_size_per_gpu": 1}))
    assert r.settings["zero_stage"] == 3


# ---------------------------------------------------------------- sources in both languages
def test_every_rule_source_has_a_chinese_wording():
    assert set(SOURCES) == set(SOURCES_ZH)


# ---------------------------------------------------------------- the launcher's processes per node
def test_processes_per_node_against_the_devices_and_nodes_said():
    # torchrun: world size = nnodes x nproc-per-node; 16 cards on 2 nodes is 8 per node, NPROC_PER_NODE=16 starts 32
    f = codes({"per_node": 16, "devices": 16, "nodes": 2})["launch_per_node"]
    assert (f.figures["per"], f.figures["started"], f.corrected) == (8, 32, "NPROC_PER_NODE=8\nNNODES=2")
    assert "launch_per_node" not in codes({"per_node": 8, "devices": 16, "nodes": 2})
    assert codes({"per_node": 8, "devices": 12, "nodes": 2})["launch_per_node"].figures["per"] == 6  # 12 cards / 2 nodes
