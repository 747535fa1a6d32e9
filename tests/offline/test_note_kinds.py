"""A how-to question asks for a kind of thing (a variable, a path, a command, a script, a flag); the notes' lead is the
fact that holds one, not a neighbour sharing the words (helper howto5). Facts pinned to the vendor pages as the notes
transcribe them: CONVERT_MG2HF=TRUE and saved_models/pretrain_hf/ (ModelArts weight conversion, 90914); the public
API's 40 s per request (inference-modelarts-0105); the checkpoint-save timeout at 36 minutes (保存ckpt时超时报错)."""

from __future__ import annotations

import pytest

from assistant.note_kinds import kinds_asked, kinds_held
from assistant.notes import limit_checks


@pytest.mark.parametrize("question, kinds", [
    ("训练完想把权重转回 huggingface 格式，要设哪个变量？转完的在哪个目录", ["variable", "path"]),
    ("llamafactory 两机训练，第二台机器的启动命令怎么写？", ["command"]),
    ("动态性能测试用哪个脚本？请求速率参数叫啥", ["script", "flag"]),
    ("where do the converted weights end up?", ["path"]),
    ("what is ZeRO-3?", []),
])
def test_kinds_asked(question, kinds):
    assert kinds_asked(question) == kinds


def test_kinds_held_by_a_fact():
    assert kinds_held("在运行脚本中设置 `CONVERT_MG2HF=TRUE`，输出在 `saved_models/pretrain_hf/` 下", ["variable", "path"]) == 2
    assert kinds_held("默认不会把训练后的权重转回 Hugging Face 格式。", ["variable", "path"]) == 0


def test_conversion_lead_holds_the_variable_and_the_folder(ctx):
    lead = ctx.kb.notes_index().lead("训练完想把权重转回 huggingface 格式，要设哪个变量？转完的在哪个目录", "launch_scripts.md", "zh")
    assert "CONVERT_MG2HF=TRUE" in lead.text and "saved_models/pretrain_hf/" in lead.text
    assert "MASTER_ADDR" not in lead.text  # the multi-node section's "要设置" is a neighbour


def test_public_timeout_lead_is_the_vendor_limit(ctx):
    lead = ctx.kb.notes_index().lead("my online service call fails after about 40 seconds. is there a timeout limit on the public endpoint?",
                                     "public_access.md", "en")
    assert "40 s" in lead.text and not lead.text.startswith("Note-writer")


def test_a_duration_said_as_when_it_failed_is_not_measured():
    limit = "the waiting ranks time out; keep the save within 36 minutes"
    assert limit_checks("the final checkpoint save times out after ~36 min", limit) == []
    assert limit_checks("保存 36 分钟后报超时", limit) == []
    assert [c.breaks for c in limit_checks("my save takes 50 minutes", limit)] == [True]


def test_option_picked_by_the_words_beside_it(assistant):
    answer = assistant.ask("动态性能测试用哪个脚本？请求速率参数叫啥").answer
    assert "`benchmark_parallel.py`**" not in answer.split("\n")[0]  # the static script was picked before
    assert "benchmark_serving.py" in answer.split("\n\n")[0]
