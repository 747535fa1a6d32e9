"""The lead from the right passage of the right note, and a pasted config mended without loss (helper notelead9,
2026-12-07). Expected facts are the vendor pages' as the notes hold them: a service deployed on ModelArts is
benchmarked with `--url` (public API address + /v1/completions or /generate) and `--app-code` instead of --host/--port
(modelarts_llm_infer_91151); `GeneralInstructionHandler` for SFT and LoRA, `GeneralPretrainHandler` for pretraining,
`MOSSMultiTurnHandler` for multi-turn data (modelarts_llm_train_91113); the checkpoint-save timeout "does not affect the
weights that were saved" (保存ckpt时超时报错); a custom image is used by picking the preset framework and "自定义" as its
version (develop-modelarts-0077); PPO does not support ZeRO-3 (modelarts_llm_train_590620)."""

from __future__ import annotations

import re

import pytest
import yaml

from assistant.notes import answers_named, load_notes, without_negated
from assistant.offline.parse import language, language_words
from assistant.setup_check import read_setup
from assistant.setup_check.text import runs, setting_tail

from .dialog import converse
from .test_note_pick import lead


@pytest.mark.parametrize("question", [
    "想压测已经部署上线的在线服务（不是本地 host/port），benchmark 脚本参数该怎么给",
    "我们的 vLLM 服务已经在 ModelArts 上线了，用 benchmark_parallel.py 压它的时候地址怎么填？还要鉴权吗",
    "how do I point benchmark_serving.py at an endpoint that's already deployed on modelarts instead of localhost?",
])
def test_a_deployed_service_is_benchmarked_with_url_and_app_code(assistant, question):
    first = lead(converse(assistant, question)[0])
    assert "`--url`" in first and "`--app-code`" in first
    assert "--host <host>" not in first and "--num-scheduler-steps" not in first  # not the local example, not other flags


def test_how_to_run_the_static_test_leads_with_its_example(assistant):
    first = lead(converse(assistant, "vLLM 服务的性能怎么测", "静态测试怎么跑")[1])
    assert "python benchmark_parallel.py --backend openai" in first


@pytest.mark.parametrize(("question", "option"), [
    ("1_preprocess_data.sh 的 --handler-name 选 GeneralPretrainHandler 还是 GeneralInstructionHandler？我做 sft",
     "GeneralInstructionHandler"),
    ("数据集预处理：我做增量预训练，--handler-name 用 GeneralInstructionHandler 还是 GeneralPretrainHandler", "GeneralPretrainHandler"),
    ("for LoRA fine-tuning data, should the handler be GeneralPretrainHandler or GeneralInstructionHandler?",
     "GeneralInstructionHandler"),
    ("多轮对话数据做预处理，handler 该填哪个", "MOSSMultiTurnHandler"),
])
def test_the_option_that_fits_the_stated_job_is_chosen(assistant, question, option):
    ans = converse(assistant, question)[0]
    first = lead(ans).splitlines()[0]
    assert f"`{option}`" in first and first.count("Handler`") == 1  # one chosen, not both listed
    assert ("结论" in ans.answer) == bool(re.search(r"[\u4e00-\u9fff]", question))  # a mostly-Chinese question in Chinese


def test_code_names_are_no_english_words():
    q = "1_preprocess_data.sh 的 --handler-name 选 GeneralPretrainHandler 还是 GeneralInstructionHandler？我做 sft"
    assert language(q) == "zh" and language_words(q)[1] < language_words(q)[0]


def test_saved_weights_after_the_save_timeout_are_said_usable_without_the_exit_barrier(assistant):
    first = lead(converse(assistant, "多机训练完只有部分节点在存权重，其他节点等了半个多小时后报错退出，保存下来的权重还能用吗")[0])
    assert "不影响已经保存下来的权重" in first
    assert "300 s" not in first and "exit barrier" not in first  # another error's cause is not mixed in


@pytest.mark.parametrize("question", [
    "I want to add a few pip deps on top of a ModelArts preset PyTorch image for training. how do I build and use that custom image?",
    "自定义镜像推到 SWR 之后，创建训练作业时怎么选它",
])
def test_using_a_custom_image_leads_with_preset_framework_and_custom_version(assistant, question):
    first = lead(converse(assistant, question)[0])
    assert "自定义" in first and re.search(r"preset framework|预置框架", first)


def test_a_setting_the_user_wrote_is_not_the_value_asked(assistant):
    ans = converse(assistant, "llama3-8b 跑 ppo，finetuning_type: lora，deepspeed 用的 ds_z3_config.json，一直报错，哪里有问题")[0]
    assert ans.answer.startswith("**ModelArts LLaMA-Factory 的 PPO 不支持 ZeRO-3**")
    assert "**`finetuning_type: lora`**" not in ans.answer and "**`stage: ppo`**" not in ans.answer


def test_words_ruled_out_are_not_asked():
    assert "host" not in without_negated("压测已上线的服务（不是本地 host/port），参数怎么给")
    assert "localhost" not in without_negated("point it at the deployed endpoint instead of localhost?")
    assert "卡不够" in without_negated("是不是卡不够")  # "是不是" asks, it rules nothing out


def test_sections_say_what_they_answer_in_both_languages():
    sections = load_notes(__import__("pathlib").Path("knowledge/notes"))
    by = {(s.file, s.section_id, s.lang): s for s in sections}
    marked = [(f, i) for (f, i, lang), s in by.items() if lang == "en" and s.answers]
    assert marked  # the answers line is data of the section, not text of it
    for f, i in marked:
        en, zh = by[f, i, "en"], by[f, i, "zh"]
        assert en.answers == zh.answers and "<!--" not in en.text and "<!--" not in zh.text
    deployed = next(s for s in sections if s.file == "inference_benchmark.md" and s.lang == "en" and "deployed" in s.answers)
    assert answers_named("benchmark a deployed service", deployed.answers) and not answers_named("deploy vllm locally", deployed.answers)


def test_a_yaml_starting_on_the_question_line_keeps_its_first_setting():
    text = "yaml 哪里不对？ finetuning_type: lora\n  cutoff_len: 4096\n lora_rank: 16\ndeepspeed: [ds_z2_config.json"
    assert setting_tail("yaml 哪里不对？ finetuning_type: lora", "  cutoff_len: 4096") == "finetuning_type: lora"
    assert runs(text)[0].text.startswith("finetuning_type: lora\n")
    r, _ = read_setup(text)
    mended = next(f.corrected for f in r.findings if f.code == "yaml_fixed_file")
    assert yaml.safe_load(mended)["finetuning_type"] == "lora"
    assert set(yaml.safe_load(mended)) == {"finetuning_type", "cutoff_len", "lora_rank", "deepspeed"}  # every key the user wrote


def test_prose_ending_in_a_colon_word_is_not_a_setting():
    assert setting_tail("my question: why does this fail", "stage: sft") is None  # "question" is no LLaMA-Factory argument


def test_chinese_answer_has_no_english_notice(assistant):
    ans = converse(assistant, "帮我看看这个配置哪里不对 stage: sft\nfinetuning_type: lora\n cutoff_len: 2048\ndeepspeed: my_ds.json")[0]
    assert "was named but not pasted" not in ans.answer and "my_ds.json" in ans.answer
    assert "stage: sft" in ans.answer  # the first setting, on the question's line, is in the mended file
