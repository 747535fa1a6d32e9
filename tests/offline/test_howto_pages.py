"""How-to questions over the vendor's page index (class 4, howto14 helper set): each ask is answered from the note's
own sentence, in the order asked, in the question's language. Expected facts are the vendor pages' as the notes hold
them: the Pending page (modelarts_llm_train_c_5910043: `kubectl delete -f config.yaml` removes the pods created from
it) and Ascend's MindX FAQ (dlug_guide_03_000046: "not same node idle" is fixed by reinstalling Ascend Device Plugin,
not by restarting the Volcano scheduler); public access (inference-modelarts-0105: body at most 12 MB, 40 s per
request; 0097: a Token is valid 24 h, AK/SK only up to 12M); the LLM benchmark page (modelarts_llm_infer_5905029: the
dynamic test writes `benchmark_serving.csv`, the static one `benchmark_parallel.csv`); the launch-script page (weights
are not converted back to HF by default, `CONVERT_MG2HF=TRUE`); JupyterLab upload (100 MB direct, 100 MB-50 GB via
OBS); 1_preprocess_data.sh (GeneralPretrainHandler default, GeneralInstructionHandler for SFT)."""

from __future__ import annotations

import pytest

from assistant.offline import subquestions, tool_flags
from assistant.offline.answer_first import in_ask_order, kind_asked

from .dialog import converse, lead


def test_a_question_in_a_notes_own_words_is_answered_from_it(assistant):
    # no domain word ("pod", "config.yaml" only): the Pending note's own topic words make it a how-to question
    head = lead(converse(assistant, "config.yaml 建出来的那批 pod 怎么一次性删干净？")[0])
    assert "kubectl delete -f config.yaml" in head


@pytest.mark.parametrize(("question", "no", "fix"), [
    ("Would restarting the Volcano scheduler clear a 'not same node idle' event, does that fix it?", "**No**",
     "reinstall Ascend Device Plugin"),
    ("事件里是 not same node idle，重启 volcano 的 scheduler 能解决吗？", "**不能**", "重新安装 Ascend Device Plugin"),
])
def test_whether_a_way_helps_is_answered_no_first(assistant, question, no, fix):
    head = lead(converse(assistant, question)[0])
    assert head.startswith(no), head
    assert fix in head


@pytest.mark.parametrize(("question", "kind"), [
    ("how do I fix it?", "fix"),
    ("what do I do to fix it?", "fix"),
    ("does lowering gpu-memory-utilization help?", "helps"),
    ("Will raising HCCL_EXEC_TIMEOUT fix the error?", "helps"),
    ("调大超时能解决吗？", "helps"),
])
def test_whether_it_helps_is_its_own_kind(question, kind):
    assert kind_asked(question) == kind


@pytest.mark.parametrize(("question", "first", "then"), [
    ("What's the biggest request body the online service takes, and how many seconds may one request run?", "12 MB", "40 s"),
    ("Token 的有效期是多久？什么情况下要用 Token 而不用 AK/SK？", "24 h", "12M"),
    ("How long is a Token valid, and when should I pick a Token over AK/SK?", "24 h", "12M"),
])
def test_the_parts_are_answered_in_the_order_asked(assistant, question, first, then):
    head = lead(converse(assistant, question)[0])
    assert first in head and then in head, head
    assert head.index(first) < head.index(then), head


def test_in_ask_order_moves_only_the_first_parts_sentence():
    parts = ["how long is a Token valid", "when should I use a Token over AK/SK"]
    text = "AK/SK signing works up to 12M; use a Token above that. Token: valid for 24 h. (notes: X)"
    assert in_ask_order(text, parts) == "Token: valid for 24 h. AK/SK signing works up to 12M; use a Token above that. (notes: X)"
    assert in_ask_order(text, parts[:1]) == text


def test_a_later_part_keeps_the_topic_of_the_first(assistant):
    # "结果存哪" said of the dynamic test: its file, never the static test's beside it
    head = lead(converse(assistant, "动态性能测试的 --num-prompts 要怎么填？结果存到哪个 csv？")[0])
    assert "benchmark_serving.csv" in head and "benchmark_parallel.csv" not in head, head


def test_short_chinese_parts_are_parts():
    assert len(subquestions.parts("训练完的权重默认会转回 HF 格式吗？要怎么打开？转完放在哪？")) == 3
    assert len(subquestions.parts("qwen2.5-7b 几张卡？对吧")) == 1


def test_the_default_asked_before_the_way_leads(assistant):
    head = lead(converse(assistant, "训练后的权重默认会导出成 HF 格式吗？要怎么开启？")[0])
    assert head.startswith("默认不会"), head
    assert "CONVERT_MG2HF=TRUE" in head


def test_a_modal_after_a_flag_is_no_value():
    assert tool_flags.given("Which --handler-name should SFT data use?") == []
    assert [g.values for g in tool_flags.given("--handler-name GeneralInstructionHandler ok?")] == [("GeneralInstructionHandler",)]


def test_the_handler_asked_by_its_flag_is_a_handler(assistant):
    head = lead(converse(assistant, "For SFT data, which --handler-name does 1_preprocess_data.sh want?")[0])
    assert "DATA_TYPE`**" not in head and "GeneralInstructionHandler" in head, head


def test_a_placed_range_row_is_said_once(assistant):
    head = lead(converse(assistant, "JupyterLab 里传一个 8GB 的文件，直接传可以吗？")[0])
    assert head.count("系统先将文件上传到 OBS，然后") == 1, head


def test_no_is_said_only_of_the_way_asked(assistant):
    # the note's "the training remedies do not apply" is not said of raising the utilisation: no verdict is made up,
    # the vendor's inference fix (lower `--gpu-memory-utilization`, Ascend-vLLM FAQ) leads
    head = lead(converse(assistant, "Will bumping --gpu-memory-utilization up help with an NPU out of memory error during vllm serving?")[0])
    assert not head.startswith("**No**"), head
    assert "lower `--gpu-memory-utilization`" in head, head


def test_a_sentence_going_on_from_the_moved_one_moves_with_it():
    parts = ["TRAIN_ITERS 默认多少", "SAVE_INTERVAL 呢"]
    text = "还有 `SAVE_INTERVAL`（10）和 `TRAIN_ITERS`。`TRAIN_ITERS` 默认为 `SN / GBS * EPOCH`。因此一个 epoch 是 `SN / GBS` 步。"
    assert in_ask_order(text, parts, "zh") == ("`TRAIN_ITERS` 默认为 `SN / GBS * EPOCH`。因此一个 epoch 是 `SN / GBS` 步。"
                                               "还有 `SAVE_INTERVAL`（10）和 `TRAIN_ITERS`。")


def test_a_part_asking_a_kind_the_first_sentence_lacks_moves_the_holding_sentence_up():
    # the first part asks for a variable; the first sentence names none, the second does: it leads. (This path used to
    # raise NameError: the word set of a sentence not holding the kind was never computed.)
    parts = ["which env variable turns the conversion on", "and where does the output go"]
    text = "The conversion runs after training. Set `CONVERT_MG2HF=TRUE` to turn it on. (notes: X)"
    assert in_ask_order(text, parts) == "Set `CONVERT_MG2HF=TRUE` to turn it on. The conversion runs after training. (notes: X)"


def test_a_sentence_holding_the_kind_of_another_thing_does_not_keep_the_front():
    # the first part asks FOO_ITERS's default; the first sentence holds a default too, but of BAR_PATH in a list
    parts = ["FOO_ITERS 不填默认多少", "BAZ 默认多少"]
    text = "还有 `BAR_PATH`（默认取 `X`）、`BAZ`（10）和 `FOO_ITERS`。`FOO_ITERS` 不设置时默认为 `A / B`。"
    assert in_ask_order(text, parts, "zh") == "`FOO_ITERS` 不设置时默认为 `A / B`。还有 `BAR_PATH`（默认取 `X`）、`BAZ`（10）和 `FOO_ITERS`。"
