"""An argument parser's refusal pasted with the question (setup_check/framework_errors.py): the argument it names and
the value it refused are read as that LLaMA-Factory argument, with the ``key: value`` arguments the words write, and the
YAML's own checks say what is valid. Expected values from LLaMA-Factory 0.9.5: finetuning_type is lora | oft | freeze |
full; quantization_method's default is bnb, which quantizes on the fly with 4 or 8 bits; an extra key stops
HfArgumentParser.parse_dict; the ZeRO stage is the DeepSpeed file's (examples/deepspeed/ds_z{0,2,3}_config.json)."""

from __future__ import annotations

from assistant.setup_check import read_setup


def findings(text: str) -> dict[str, object]:
    r, _ = read_setup(text)
    return {f.code: f for f in r.findings}


def test_invalid_choice_with_the_values_written_in_words():
    # LLaMA-Factory's wording of argparse's refusal, the YAML's lines quoted inline: bitsandbytes is bnb
    r, _ = read_setup("报错 invalid choice for quantization_method: 'bitsandbytes', yaml 里我写的 quantization_bit: 4 + "
                      "quantization_method: bitsandbytes, 该怎么改?")
    f = {x.code: x for x in r.findings}["lf_quantization_method"]
    assert (f.value, f.corrected) == ("bitsandbytes", "quantization_method: bnb")
    assert (r.settings["quant_method"], r.settings["quant_bits"]) == ("bnb", 4)


def test_argparse_invalid_choice_for_finetuning_type():
    f = findings("llamafactory-cli: error: argument --finetuning_type: invalid choice: 'qlora' "
                 "(choose from 'lora', 'oft', 'freeze', 'full')")["lf_finetuning_type"]
    assert (f.value, f.valid) == ("qlora", "lora | oft | freeze | full")
    assert f.corrected == "finetuning_type: lora\nquantization_bit: 4"  # QLoRA = LoRA + quantization_bit


def test_an_unknown_method_with_bits_set_is_the_default_on_the_fly_method():
    # 'gptq-int4' is no method; quantization_bit 4 quantizes on the fly, which bnb (the default) does at 4 bits
    r, _ = read_setup("ValueError: invalid choice for quantization_method: 'gptq-int4'，配置是 finetuning_type: lora, "
                      "quantization_bit: 4。我就是想要 4bit 的 lora")
    f = {x.code: x for x in r.findings}["lf_quantization_method"]
    assert f.corrected == "quantization_method: bnb" and r.settings["quant_bits"] == 4
    assert "lf_not_a_whole_number" not in {x.code for x in r.findings}  # "4。我就是想要" is 4


def test_template_that_does_not_exist_is_read_as_the_yaml_line():
    r, _ = read_setup("ValueError: Template qwen2.5 does not exist.")
    assert r.settings["keep_template"] == "qwen2.5"


def test_extra_keys_say_where_they_go():
    r, _ = read_setup("ValueError: Some keys are not used by the HfArgumentParser: ['num_gpus', 'zero_stage']\n"
                      "I put zero_stage: 3 and num_gpus: 8 in my yaml")
    by_key = {f.key: f for f in r.findings if f.code == "lf_key_elsewhere"}
    assert by_key["zero_stage"].corrected == "deepspeed: examples/deepspeed/ds_z3_config.json"
    assert (by_key["zero_stage"].figures["variant"], by_key["num_gpus"].figures["variant"]) == ("deepspeed", "launcher")
    assert not r.unknown


def test_a_yaml_pasted_indented_as_a_whole_is_its_file():
    # every line indented by two spaces: the file as written, not three stray indents
    r, _ = read_setup("will 3 bits work?\n  quantization_method: bnb\n  quantization_bit: 3\n  finetuning_type: lora\n")
    codes = {f.code for f in r.findings}
    assert "yaml_stray_indent" not in codes and "lf_quantization_bits" in codes  # bnb takes 4 or 8


def test_vllm_heads_message_is_read_as_the_servers_tp():
    r, _ = read_setup("ValueError: Total number of attention heads (28) must be divisible by tensor parallel size (8).")
    assert r.settings["tp"] == 8 and "vllm_log" in r.kinds
