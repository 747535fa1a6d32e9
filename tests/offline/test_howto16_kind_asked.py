"""How-to questions with no model, answered by the kind of fact they ask (howto16 helper set). Expected facts are the
notes' transcriptions of the vendor pages: CANN's PYTORCH_NPU_ALLOC_CONF reference (`expandable_segments` defaults to
False), the MindSpeed OOM list (leftover processes found with `npu-smi info`), 1_preprocess_data.sh
(GeneralPretrainHandler is the default, GeneralInstructionHandler is for SFT/LoRA; `USER_PROCESSED_DATA_DIR` is absent by
default and skips preprocessing when set), the launch-script page (CONVERT_MG2HF=TRUE; after mg2hf copy tokenizer.json,
tokenizer_config.json, special_tokens_map.json), the benchmark page (static results in `benchmark_parallel.csv`)."""

from __future__ import annotations

import pytest

from assistant.note_kinds import kinds_asked, kinds_held
from assistant.offline import note_pick

from .dialog import converse, lead


@pytest.mark.parametrize("question", [
    "预训练那个 handler 参数不写的话用哪个？",
    "is USER_PROCESSED_DATA_DIR there out of the box?",
    "what's the default for --epochs in the static benchmark?",
    "If I don't set TRAIN_ITERS, what does it become?",
])
def test_a_default_asked_is_a_kind(question):
    assert "default" in kinds_asked(question)


@pytest.mark.parametrize("question", [
    "does the dynamic test write its results somewhere by default?",  # how it behaves, no setting's value asked
    "how many cards for qwen2.5-7b lora?",
])
def test_no_default_asked(question):
    assert "default" not in kinds_asked(question)


def test_a_non_default_value_states_no_default():
    asked = ["default"]
    assert not kinds_held("只要 `max_split_size_mb` 设成了非默认值，`expandable_segments` 就必须是 `False`。", asked)
    assert kinds_held("默认值是 `False`。", asked)


@pytest.mark.parametrize("question", [
    "how can I see which processes are holding the NPUs?",
    "whats the comand to list what runs on the cards",
    "how do I check 哪个进程占着卡",
])
def test_a_check_of_what_it_finds_asks_a_command(question):
    assert "command" in kinds_asked(question)


def test_if_i_set_supposes_nothing_done():
    assert note_pick.done_clause("if I set USER_PROCESSED_DATA_DIR, what changes?") is None
    assert note_pick.done_clause("I set HCCL_EXEC_TIMEOUT to 3600 and it still times out") is not None


def test_several_asked_is_no_single_option():
    assert note_pick.ASKS_SEVERAL.search("which files do I have to copy after mg2hf?")
    assert not note_pick.ASKS_SEVERAL.search("which one fits multi-turn ShareGPT-style data?")


@pytest.mark.parametrize(("question", "first", "absent"), [
    # the default's own sentence, not the rule about non-default values beside it
    ("torch_npu 的 expandable_segments 不配置的话默认开着吗", "`False`", "非默认值"),
    # the check asked with no model: the note's command, not the catalog's hardware list
    ("how can I see which processes are holding memory on my NPUs?", "npu-smi info", "Hardware in the catalog"),
    # a data kind for instruction tuning: the SFT handler singled out, not the multi-turn one
    ("指令微调的数据预处理，--handler-name 应该选哪一个", "GeneralInstructionHandler", "选 `MOSS"),
    # several files asked: the note's list, not one file picked out of it
    ("which files must I copy into the folder after the mg2hf conversion?", "tokenizer_config.json", "**Use `"),
    # "if I set it" supposes: the variable's own line, not the next section's flag list
    ("if I set USER_PROCESSED_DATA_DIR, what changes, and is it in the script already?", "skips preprocessing", "--output-prefix"),
])
def test_the_kind_asked_leads(assistant, question, first, absent):
    head = lead(converse(assistant, question)[0])
    assert first in head.split("\n")[0], head
    assert absent not in head, head


def test_a_title_with_brackets_keeps_its_cite_last(assistant):
    head = lead(converse(assistant, "after MindSpeed training, how do I get the HuggingFace weights out? is that automatic?")[0])
    assert not head.startswith("(notes:"), head
    assert "CONVERT_MG2HF=TRUE" in head
