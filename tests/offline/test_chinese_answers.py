"""Chinese answers read as Chinese around the numbers, and their bold renders: every answer is
rendered with a CommonMark parser (markdown-it-py) and no literal ``**`` may survive outside code.

CommonMark rule behind it: a closing ``**`` right after full-width punctuation and right before a CJK
letter is not right-flanking, so it does not close ("**结论：**答案" stays literal); punctuation
belongs outside the bold ("**结论**：答案")."""

from __future__ import annotations

import re

import pytest
from markdown_it import MarkdownIt

from assistant.agent import Assistant

MD = MarkdownIt("commonmark")
QUESTIONS_ZH = [
    "qwen2 72b 全参微调，序列长度4096，需要几个节点？",
    "用MindSpeed-LLM全参微调llama3.1-70b 8k 最少多少卡",
    "qwen2.5-72b 全参微调 我只有16张卡",
    "llama3.1-70b lora 8k, 我有16张卡，够吗？",
    "qwen2.5-72b lora 910C 我有8个DIE 够吗",
    "llama3-8b 全参 cutoff_len 4096，用哪个ZeRO？梯度累积多少？",
    "千问2.5-72B 推理需要几张卡",
    "LLaMA-Factory 支持 DeepSeek-V3 吗？",
    "LLaMA-Factory 支持哪些模型",
    "训练时间怎么估算",
    "qwen2.5-7b 训练 10亿 token 用 8张910B 要多久",
    "qwen2.5-7b 训练 10亿 token 用 8张H100 要多久",
    "训练出现OOM怎么办",
    "qwen2.5-14b 和 910C 对比",
    "一个13B模型 全参 ZeRO-3 8卡 显存多少",
    "给我 qwen2.5-72b lora 4096 的 MindSpeed 启动变量",
    "llama3.1-70b 在 H100 上全参需要几张卡",
    "gpt-99-ultra 微调要几张卡",
    "给我 qwen2.5-14b lora 的 yaml",
    "给我 qwen2-72b lora 8192 的 deepspeed json",
    "部署 deepseek-ai/DeepSeek-R1-Distill-Qwen-32B 推理最少几张卡",
    "qwen2.5-72b 推理 128k 上下文需要几张卡",
    "qwen2.5-72b 推理 8 并发 32k 需要几张卡",
    "llama3.1-70b 全参 32k 需要几张卡",
]


@pytest.fixture(scope="module")
def answers(ctx):
    a = Assistant(ctx)
    return {q: a.ask(q).answer for q in QUESTIONS_ZH}


def prose(answer: str) -> str:
    """The answer without code blocks, inline code and quoted note passages (those keep their source language)."""
    text = re.sub(r"```.*?```", "", answer, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    return "\n".join(line for line in text.splitlines() if not line.startswith(">"))


def test_the_commonmark_rule_this_file_guards():
    assert "**" in MD.render("**结论：**答案")  # punctuation inside the bold, a CJK letter after: not bold
    assert "<strong>结论</strong>：答案" in MD.render("**结论**：答案")


@pytest.mark.parametrize("q", QUESTIONS_ZH)
def test_bold_renders(answers, q):
    html = MD.render(answers[q])
    html = re.sub(r"<code>.*?</code>|<pre>.*?</pre>", "", html, flags=re.S)
    assert "**" not in html, (q, [line for line in html.splitlines() if "**" in line])


@pytest.mark.parametrize("q", QUESTIONS_ZH)
def test_chinese_wording_around_numbers(answers, q):
    text = prose(answers[q])
    assert re.search(r"[\u4e00-\u9fff]{4}", text.split("来源：")[0]), q
    # English glue the answer writer itself might leave between Chinese words and numbers
    for bad in ("(默认:", "(assumed", "估算, 假设:", "; MindSpeed", "; LLaMA", "nodes)", " cards", "per device", "From the notes"):
        assert bad not in text, (q, bad)


def test_chinese_questions_quote_the_chinese_notes(answers):
    """Chinese questions quote knowledge/notes/zh/ (the twins of the English notes), with a plain lead-in."""
    for q, title in (("训练出现OOM怎么办", "NPU 显存溢出（OOM）的处理办法"), ("训练时间怎么估算", "训练时间与卡数的估算")):
        lines = answers[q].splitlines()
        quote = next(i for i, line in enumerate(lines) if line.startswith(">"))
        lead = next(line for line in reversed(lines[:quote]) if not line.startswith("**"))
        assert lead == f"以下摘自笔记《{title}》，原文引用如下：", (q, lead)
        assert "笔记为英文" not in answers[q]


def test_english_note_lead_in_glosses_the_topic_in_chinese():
    from assistant.offline.wording import note_lead_in_zh

    lead = note_lead_in_zh("oom.md", "NPU out-of-memory remedies", "On Ascend NPUs an out-of-memory failure ...")
    assert lead == "以下摘自笔记《NPU out-of-memory remedies》，讲的是 NPU 显存溢出（OOM）的报错特征与处理办法；笔记为英文，原文引用如下："



@pytest.mark.parametrize("q", ["yi-34b 全参 8k 需要几个节点？", "mixtral 8x22b lora mindspeed 4k 最少多少卡",
                               "qwen2.5-72b 全参微调 我只有16张卡"])
def test_estimate_assumptions_are_worded_in_chinese(ctx, q):
    ans = Assistant(ctx).ask(q).answer
    assert "假设：" in ans
    for english in ("activations in", "usable memory", "reported capacity", "over data parallel", "distributed optimizer"):
        assert english not in ans, english


@pytest.mark.parametrize("q", QUESTIONS_ZH)
def test_every_bullet_and_source_is_worded_in_chinese(answers, q):
    """A bullet or a source line of a Chinese answer (the tools' notes, the vLLM table's page) has Chinese
    words in it, not a note passed through in English."""
    lines = [line for line in prose(answers[q]).splitlines() if line.startswith(("- ", "  ", "来源：")) and line.strip()]
    english = [line for line in lines if not re.search(r"[\u4e00-\u9fff]", line)]
    assert not english, (q, english)
