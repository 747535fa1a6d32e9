"""A long paste (a log of mostly blank lines, whitespace runs) is read in time linear in its length. A pattern that
starts with `\\s*` at a line start (`(?:^|\\n)\\s*…`, `^\\s*` under MULTILINE, or an optional word before `\\s*`) lets
`\\s*` run over every following blank line from each line start, which is quadratic: a 12 KB paste of blank lines took
over 100 s. The bounds below are generous guards against that backtracking, not speed targets."""

from __future__ import annotations

import time

from assistant.offline.numbers import offload
from assistant.offline.setup_answer import is_pasted_setup

OOM = "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n"


def _blank_lines(n: int) -> str:
    return "training died, log below\n" + "    \n" * n + OOM


def _cpu(fn, text: str) -> float:
    t = time.process_time()
    fn(text)
    return time.process_time() - t


def test_paste_detection_is_linear_on_blank_lines():
    # 24 KB of indented blank lines: each line start used to scan the rest of the blank run
    assert _cpu(is_pasted_setup, _blank_lines(4800)) < 1.0


def test_paste_detection_still_finds_a_config_after_blank_lines():
    assert is_pasted_setup("my config\n" + "   \n" * 50 + "  cutoff_len: 4096\n")
    assert is_pasted_setup("\n\n  TP=8 PP=2 MBS=1\n")
    assert is_pasted_setup("ds config:\nzero_optimization:\n\n  stage: 3\n")
    assert is_pasted_setup('{\n  "zero_optimization": {"stage": 3}\n}')
    assert not is_pasted_setup('see this\n{\n  "zero_optimization" is the key\n')


def test_offload_words_are_linear_on_whitespace():
    # ON_CPU began with an optional word and `\s*`, so every blank position scanned the whole run
    assert _cpu(offload, _blank_lines(4800)) < 1.0
    assert offload("参数和优化器全放 cpu") is True
    assert offload("放到cpu") is True


def test_a_long_mostly_blank_paste_is_answered_in_seconds(assistant):
    # 12 KB: below the log cut (setup_check.text.MAX_LINES) that shortens longer pastes, the worst size before
    t = time.process_time()
    answer = assistant.ask(_blank_lines(2400)).answer
    assert time.process_time() - t < 5.0
    assert "out of memory" in answer.lower() or "oom" in answer.lower()
