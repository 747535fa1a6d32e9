"""Questions in traditional Chinese characters are read as their simplified form (the reader's vocabulary is
simplified) and answered in traditional characters. Card counts are the hand-typed seed transcription's
(tests/golden/min_cards_seed.txt, seeds/004)."""

from __future__ import annotations

import pytest

from assistant.offline.script import Script
from tests.seedfiles import min_cards_rows


def cards(model: str, strategy: str, seq: int, framework: str) -> int | None:
    return next(c for m, s, q, fw, hw, c in min_cards_rows()
                if m == model and s == strategy and q == seq and fw == framework and hw == "Snt9B")


@pytest.fixture(scope="module")
def script():
    return Script()


def test_traditional_question_reads_as_its_simplified_twin(assistant):
    """"全參微調 … 幾張卡" is "全参微调 … 几张卡": the method (full) and the count asked are read the same, and the
    vendor's counts come back in traditional characters."""
    trad = assistant.ask("qwen2.5-72b 全參微調 4096 在 910B 上最少需要幾張卡？")
    simp = assistant.ask("qwen2.5-72b 全参微调 4096 在 910B 上最少需要几张卡？")
    assert [(c.name, c.args) for c in trad.tool_calls] == [(c.name, c.args) for c in simp.tool_calls]
    lf, ms = cards("qwen2.5-72b", "full", 4096, "LLaMA-Factory"), cards("qwen2.5-72b", "full", 4096, "MindSpeed-LLM")
    assert f"**{lf} 張卡**" in trad.answer and f"**{ms} 張卡**" in trad.answer
    assert "张" not in trad.answer and "結論" in trad.answer


def test_traditional_counts_and_units_are_read(assistant):
    """"兩台 Snt9B 機器" is two 8-card nodes: 16 cards, said back in traditional characters."""
    ans = assistant.ask("我有兩台 Snt9B 機器，llama3-8b lora 夠不夠")
    assert "16 張卡" in ans.answer and "夠" in ans.answer


def test_a_simplified_question_is_answered_in_simplified(assistant, script):
    ans = assistant.ask("qwen2.5-7b lora 4096 在 910B 上最少几张卡")
    assert not script.is_traditional(ans.answer) and "张卡" in ans.answer


@pytest.mark.parametrize("text", ["TP=8 PP=2 --max-model-len 32768 qwen2.5-72b", "显存溢出 梯度累积"])
def test_conversion_leaves_numbers_names_and_simplified_text_alone(script, text):
    assert script.simplified(text) == text and not script.is_traditional(text)


@pytest.mark.parametrize(("text", "simplified"), [("昇腾910C 全参", "昇腾910C 全参"), ("昇騰910B 訓練", "昇腾910B 训练")])
def test_characters_both_scripts_write_stay(script, text, simplified):
    """昇 (the Ascend brand, 昇腾) is written in both scripts: it is never read as 升."""
    assert script.simplified(text) == simplified


def test_a_follow_up_the_same_in_both_scripts_keeps_the_conversations_script(assistant):
    """"那 8192 呢？" is written the same in both scripts: the traditional first turn decides. The count is the seed's
    qwen2.5-32b full 8192 row."""
    first = "qwen2.5-32b 全參微調 4096 在昇騰 910B 上最少幾張卡？"
    ans = assistant.ask("那 8192 呢？", [{"role": "user", "content": first},
                                        {"role": "assistant", "content": assistant.ask(first).answer}])
    lf = cards("qwen2.5-32b", "full", 8192, "LLaMA-Factory")
    assert f"**{lf} 張卡**" in ans.answer and "张" not in ans.answer
