"""Every answer to every eval question (single questions and conversation turns) checked for what
makes an answer untrustworthy whatever its numbers: a contradiction (yes and no; "fits" and
"nothing fits"; "agrees with the table" and "no table row"), `~` for "about" (strikethrough in
Markdown with GitHub extensions, which the web chat renders), English sentences inside an answer
to a Chinese question, and file names given as sources."""

from __future__ import annotations

import re

import pytest

from assistant.offline.parse import language

from .runner import Turn, run_file

FILES = ["dev_questions.yaml", "dev_questions2.yaml", "more_questions.yaml"]
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
CONTRADICTIONS = [  # pairs that cannot both be said in one answer
    (r"\*\*Yes\b", r"\*\*No\b"),
    (r"\bit fits your\b", r"\b(nothing fits|no setting fits)\b"),
    (r"\bagrees with the\b", r"\bhave no row for this combination\b"),
    (r"\*\*(可以|够)\*\*", r"\*\*(不可以|不够|不能)\*\*"),
    (r"估算与\S{0,8}一致", r"厂商表格中没有这个组合"),
    (r"\*\*Yes\b", r"\*\*Not by the vendor tables\b"),
    (r"\*\*(可以|够)\*\*", r"\*\*按厂商表格不够\*\*"),
    (r"\bagrees with the\b", r"no vendor table row for this case"),
    (r"\bis not listed\b", r"\*\*Yes\*\*, listed"),
]
# Six or more English words in a row: a sentence, not a name ("ModelArts LLaMA-Factory", "ZeRO-3 + offload").
ENGLISH_SENTENCE = re.compile(r"(?:\b[A-Za-z][a-z]+\b[ ,;:]+){5,}\b[A-Za-z][a-z]+\b")
SOURCE_FILE = re.compile(r"[\w\-/]+\.(?:csv|md|txt|yaml|json|py)\b")


@pytest.fixture(scope="module")
def turns(tmp_path_factory) -> list[Turn]:
    cache = tmp_path_factory.mktemp("cache")
    return [t for name in FILES for t in run_file(name, cache)]


def prose(answer: str) -> str:
    """The answer without code (configs, commands) and without quoted note passages."""
    text = CODE.sub(" ", answer)
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(">"))


def source_lines(answer: str) -> list[str]:
    return [line for line in prose(answer).splitlines() if re.match(r"\s*(Sources?:|来源：|\(source:|（来源：)", line)]


def test_no_contradictions(turns):
    bad = [f"{t.label[:100]!r}: {a} / {b}" for t in turns for a, b in CONTRADICTIONS
           if re.search(a, prose(t.answer)) and re.search(b, prose(t.answer))]
    assert not bad, "\n".join(bad)


def test_one_headline_per_answer(turns):
    """An answer leads with one headline; the blocks after it support it (no second "Answer:")."""
    bad = [f"{t.label[:100]!r}: {n} headlines" for t in turns
           if (n := len(re.findall(r"^(\*\*Answer:\*\*|\*\*结论\*\*：)", prose(t.answer), re.M))) > 1]
    assert not bad, "\n".join(bad)


def test_no_tilde_for_about(turns):
    bad = [f"{t.label[:100]!r}: {m.group(0)!r}" for t in turns for m in re.finditer(r".{0,20}~.{0,20}", prose(t.answer))]
    assert not bad, "\n".join(bad)


def test_chinese_answers_have_no_english_sentences(turns):
    bad = [f"{t.label[:100]!r}: {m.group(0)!r}" for t in turns if language(t.question) == "zh"
           for m in ENGLISH_SENTENCE.finditer(prose(t.answer))]
    assert not bad, "\n".join(bad)


def test_sources_are_named_not_file_names(turns):
    bad = [f"{t.label[:100]!r}: {line[:200]!r}" for t in turns for line in source_lines(t.answer) if SOURCE_FILE.search(line)]
    assert not bad, "\n".join(bad)


def test_chinese_answers_word_bullets_and_sources_in_chinese(turns):
    """A bullet or source line of an answer to a Chinese question holds Chinese words (the tools' notes are
    worded in Chinese, not passed through in English)."""
    bad = [f"{t.label[:100]!r}: {line[:160]!r}" for t in turns if language(t.question) == "zh"
           for line in prose(t.answer).splitlines()
           if line.startswith(("- ", "  ", "来源：")) and line.strip() and not re.search(r"[\u4e00-\u9fff]", line)]
    assert not bad, "\n".join(bad)
