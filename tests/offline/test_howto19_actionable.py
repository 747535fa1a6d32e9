"""How-to answers give the actionable detail the page has, in the question's language (helper howto19).

Pinned to the notes' vendor facts, written here by hand:
- oom.md (LlamaFactory 附录:训练常见问题 问题1; CANN envref PYTORCH_NPU_ALLOC_CONF): the value that eases fragmentation is
  `expandable_segments:True`, set as `export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True`.
- offline_package.md (DockerFile构建镜像(可选), modelarts_llm_train_5901136): `--build-arg install_type=` takes `all`
  (default), `modellink` or `llamafactory`: the page itself covers building the llamafactory part alone.
- custom_image.md: the image is pushed to SWR and chosen as "自定义" under the preset framework (develop-modelarts-0077);
  the build steps (Dockerfile FROM the preset image + pip install, docker build, docker push) are the note-writer's.
- checks.py: a sequence length of 0 is refused; a Chinese question is refused in Chinese.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.note_kinds import kinds_asked, kinds_held
from assistant.notes import load_notes
from assistant.offline.note_pick import line_naming
from assistant.offline.parse import language
from assistant.tools.tables import NotePassage

from .dialog import converse, lead

NOTES = Path(__file__).resolve().parents[2] / "knowledge" / "notes"


@pytest.mark.parametrize("question", ["PYTORCH_NPU_ALLOC_CONF 设成什么值能缓解显存碎片", "what value should HCCL_EXEC_TIMEOUT take?",
                                      "exact export line for the allocator env var?"])
def test_a_value_asked_is_a_kind_a_setting_with_its_value_holds(question):
    assert "value" in kinds_asked(question)
    assert kinds_held("`export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True`", ["value"])
    assert not kinds_held("`PYTORCH_NPU_ALLOC_CONF` controls the allocator", ["value"])
    assert not kinds_held("`max_split_size_mb:<value>` forbids splitting", ["value"])  # a placeholder is no value


def test_an_amount_to_set_is_no_value_looked_up():
    assert "value" not in kinds_asked("GA 设多少")  # worked out by the tools


@pytest.mark.parametrize("question", ["llama3-8b lora 的显存，cutoff_len=0, per_device_train_batch_size=1",
                                      "qwen2.5-7b 全参，gradient_accumulation_steps: 8，要几张卡"])
def test_settings_written_with_their_values_are_no_english_words(question):
    assert language(question.lower()) == "zh"


def test_english_words_around_settings_still_make_it_english():
    assert language("per_device_train_batch_size=2 cutoff_len=4096 qwen2.5-7b lora how many cards") == "en"


def _passages(file: str, lang: str = "en") -> list[NotePassage]:
    return [NotePassage(title=s.title, heading=s.heading, text=s.text, source=s.source, file=s.file, lang=s.lang,
                        summary=s.summary, score=1.0) for s in load_notes(NOTES) if s.file == file and s.lang == lang]


def test_the_pages_own_line_about_a_subject_it_does_not_declare_answers():
    passages = _passages("offline_package.md")
    line = line_naming("can I build the AscendFactory image with just the llamafactory part? which build arg",
                       ["LLaMA-Factory"], passages)
    assert line is not None and "install_type" in line and "llamafactory" in line
    # an offline install of LLaMA-Factory shares only the page's title words with that line: still another package's page
    assert line_naming("how do I install the llamafactory deps offline?", ["LLaMA-Factory"], passages) is None


def test_a_value_asked_of_a_named_variable_is_answered_from_the_notes(assistant):
    ans = converse(assistant, "PYTORCH_NPU_ALLOC_CONF 设成什么值能缓解显存碎片")[0]
    assert "expandable_segments:True" in lead(ans)
    assert "请问是哪个模型" not in ans.answer


def test_the_llamafactory_part_of_the_image_is_not_said_uncovered(assistant):
    ans = converse(assistant, "AscendFactory 的 Dockerfile 打镜像时只装 llamafactory 那部分行吗，build 参数怎么加")[0]
    assert "install_type" in lead(ans) and "不在笔记覆盖范围内" not in ans.answer
    en = converse(assistant, "building the AscendFactory image, can I get only the llamafactory part? what build arg")[0]
    assert "install_type" in lead(en) and "Not covered" not in en.answer


def test_custom_image_steps_are_listed_in_chinese(assistant):
    ans = converse(assistant, "预置的训练镜像缺个 pip 包，自己做个镜像的步骤是什么")[0].answer
    head = ans.split("以下摘自", 1)[0]
    assert "docker build" in head and "docker push" in head and "自定义" in head


def test_a_zero_length_beside_settings_is_refused_in_chinese(assistant):
    ans = converse(assistant, "qwen2.5-7b lora 显存，max_length=0，per_device_train_batch_size=2")[0].answer
    assert "不是有效的序列长度" in ans and "not a valid" not in ans
