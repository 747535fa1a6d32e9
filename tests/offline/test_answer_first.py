"""An answer from the notes leads with what was asked: the fix for "how do I fix", the number for "what is the
maximum", the pick for "which should I", each side of "A vs B" (assistant/offline/answer_first.py); and the
framework-choice note's counts are the vendor min-card table's own (seeds/004, knowledge/tables/min_cards.csv)."""

from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path

import pytest

from assistant.offline.answer_first import answer_first, both_sides, kind_asked
from assistant.tools.tables import NotePassage

ROOT = Path(__file__).resolve().parents[2]


def first_sentence(answer: str) -> str:
    line = answer.splitlines()[0].removeprefix("**Answer:** ").removeprefix("**结论**：")
    return re.split(r"(?<=[。！？])|(?<=[.!?])\s+(?=[A-Z`*])", line, maxsplit=1)[0]


@pytest.mark.parametrize("q,words", [
    # seeds/002 BF16和FP16说明: BF16 keeps the range and avoids overflow; the fix is to train in BF16
    ("my loss becomes NaN after a few hundred steps with fp16 on 910B, how do I fix it?", ["Use BF16"]),
    # LlamaFactory 附录:训练常见问题 (modelarts_llm_train_91248): comment out lines 180-184 of dynamic_module_utils.py
    ("ImportError: cannot import name flash_attn when running LLaMA-Factory on Ascend, how do I fix it?",
     ["comment out", "180", "dynamic_module_utils.py"]),
    # 通过公网访问通道的方式访问在线服务 (inference-modelarts-0105): request body at most 12 MB
    ("what is the maximum request body size when calling a ModelArts online service over the public network?", ["12 MB"]),
    # same page's authentication list: AK/SK signing only up to 12M, a Token above that
    ("AK/SK 认证调用在线服务，请求体最大多大？", ["AK/SK", "12M", "Token"]),
    # seeds/002 保存ckpt时超时报错: the vendor's fixes (disk I/O within 36 minutes, or ignore the error) lead
    ("ckpt 保存时多节点超时报错怎么解决？", ["厂商的办法", "36 分钟", "忽略"]),
    # seeds/002 离线训练安装包准备 (modelarts_llm_train_91016): download on a connected machine, MindSpeed at 4ea42a23
    ("离线环境没有网络，安装包要怎么准备？", ["联网的 Linux 机器", "ModelLink 取 8f50777", "MindSpeed 取 4ea42a23"]),
    # LlamaFactory 附录:训练常见问题 问题4: set barrier_timeout=3000 in torch's elastic agent api.py
    ("Error waiting on exit barrier, how do I fix it?", ["barrier_timeout=3000"]),
    # seeds/002 保存ckpt时超时报错: the wait times out after 36 minutes (not the start-up limit the note also names)
    ("what is the timeout before checkpoint saving fails on a multi-node job?", ["36 minutes"]),
    # 使用预置镜像制作自定义镜像用于训练模型: push to SWR, pick the preset framework with version "custom"
    ("how do I build a custom training image from a preset image?", ["SWR", "custom"]),
])
def test_the_answer_asked_is_the_first_sentence(assistant, q, words):
    first = first_sentence(assistant.ask(q).answer)
    assert all(w in first for w in words), first


def test_both_sides_of_a_difference_are_defined(assistant):
    """cutoff_len (LLaMA-Factory argument, default 2048) is defined before the sentence comparing it with vLLM's flag."""
    line = assistant.ask("what's the difference between cutoff_len and vllm --max-model-len?").answer.splitlines()[0]
    assert line.index("`cutoff_len` (default 2048)") < line.index("`--max-model-len`: that one is the serving context")


@pytest.mark.parametrize("q,lang", [
    ("LLaMA-Factory or MindSpeed-LLM on Snt9B, which should I choose for LoRA fine-tuning?", "en"),
    ("LLaMA-Factory 和 MindSpeed-LLM 有什么区别，我该选哪个？", "zh"),
])
def test_framework_choice_is_answered_from_its_note(assistant, q, lang):
    line = assistant.ask(q).answer.splitlines()[0]
    # seeds/004: llama3.1-70b full 4096 needs 32 Snt9B cards on MindSpeed-LLM, 64 on Llama-Factory; llama3.1-8b LoRA 4 vs 1
    assert "32" in line and "64" in line and "`llama3.1-8b`" in line
    assert ("Choose by model and method" if lang == "en" else "按模型和训练方式选") in line


def test_framework_choice_counts_are_the_min_card_tables():
    """The note's counts (82 rows with both, 27 fewer on MindSpeed-LLM, 10 fewer on LLaMA-Factory, 45 equal) recomputed
    from the vendor table's Snt9B column, and its examples are that table's rows."""
    rows = list(csv.DictReader((ROOT / "knowledge/tables/min_cards.csv").open(encoding="utf-8")))
    cards: dict[tuple[str, str, str], dict[str, int | None]] = {}
    for r in rows:
        if r["hardware"] == "Snt9B":
            cards.setdefault((r["model"], r["strategy"], r["seq_len"]), {})[r["framework"]] = \
                int(r["cards"]) if r["supported"] == "true" else None
    both = [v for v in cards.values() if len(v) == 2 and None not in v.values()]
    told = Counter("ms" if v["MindSpeed-LLM"] < v["LLaMA-Factory"] else "lf" if v["MindSpeed-LLM"] > v["LLaMA-Factory"]
                   else "eq" for v in both)
    assert (len(cards), len(both), told["ms"], told["lf"], told["eq"]) == (124, 82, 27, 10, 45)
    assert cards["llama3.1-70b", "full", "4096"] == {"MindSpeed-LLM": 32, "LLaMA-Factory": 64}
    assert cards["llama3.1-8b", "lora", "4096"] == {"MindSpeed-LLM": 4, "LLaMA-Factory": 1}
    assert cards["qwen2.5-7b", "lora", "4096"] == {"MindSpeed-LLM": 2, "LLaMA-Factory": 1}
    for lang in ("", "zh/"):
        note = (ROOT / f"knowledge/notes/{lang}framework_choice.md").read_text(encoding="utf-8")
        assert all(n in note for n in ("124", "82", "27", "10", "45", "32", "64"))


def passage(text: str, heading: str = "h") -> NotePassage:
    return NotePassage(title="t", heading=heading, text=text, source="s", file="f.md", lang="en", summary="", score=1.0)


def test_a_first_sentence_that_gives_the_fix_stays_first():
    lead = "Use BF16 for training. FP16 overflows above 65504."
    assert answer_first("loss is NaN with fp16, how do I fix it?", lead, [passage(lead)]) == lead


def test_the_number_asked_moves_first():
    lead = "Tick public access when deploying. A request body may be at most 12 MB."
    out = answer_first("what is the maximum request body size?", lead, [passage(lead)])
    assert out.startswith("A request body may be at most 12 MB.")


def test_a_side_defined_only_inside_a_comparison_gets_its_own_line():
    text = "- `cutoff_len` (default 2048): the most tokens one training sample may have.\n" \
           "- `cutoff_len` is not vLLM's `--max-model-len`: that one is the serving context."
    lead = "`cutoff_len` is not vLLM's `--max-model-len`: that one is the serving context."
    out = both_sides("cutoff_len vs --max-model-len, what's the difference?", lead, [passage(text)])
    assert out.startswith("`cutoff_len` (default 2048)") and out.endswith(lead)


@pytest.mark.parametrize("q,kind", [
    ("how do I fix it?", "fix"), ("训练报错怎么办", "fix"), ("which one should I use?", "choice"), ("该选哪个", "choice"),
    ("what is the maximum body size?", "limit"), ("请求体最大多大", "limit"), ("HCCL_EXEC_TIMEOUT vs HCCL_CONNECT_TIMEOUT", None),
])
def test_the_kind_asked(q, kind):
    assert kind_asked(q) == kind
