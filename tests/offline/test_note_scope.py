"""A note's scope (helper howto10b): a note declares what its vendor page is about (front matter ``subject``); a question
naming another framework is told that scope first, then what the page's method gives.

- seeds/002 (the vendor page index) and knowledge/notes/offline_package.md: the offline-package page covers the
  ModelLink / MindSpeed package (`scripts/install.sh`, ModelLink at commit 8f50777); LLaMA-Factory's own dependencies
  are not on it.
- public_access.md (inference-modelarts-0097): a Token is valid for 24 h; a lifetime asked is no training time.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.notes import load_notes, note_topics, outside_scope, subject_notes

from .answer_consistency import lead_of

NOTES = Path(__file__).resolve().parents[2] / "knowledge" / "notes"


@pytest.fixture(scope="module")
def topics():
    return note_topics(load_notes(NOTES))


def test_subjects_are_declared_alike_in_both_languages(topics):
    for file in topics:
        en = [s.subjects for s in load_notes(NOTES) if s.file == file and s.lang == "en"][:1]
        zh = [s.subjects for s in load_notes(NOTES) if s.file == file and s.lang == "zh"][:1]
        assert en == zh, file


@pytest.mark.parametrize("q", ["install LLaMA-Factory deps offline", "离线装 llamafactory 的依赖", "llama factory offline pip"])
def test_another_framework_is_out_of_the_offline_pages_scope(topics, q):
    named, own = outside_scope(q, topics)["offline_package.md"]
    assert named == ("LLaMA-Factory",) and "ModelLink" in own
    # the LLaMA-Factory note names no offline install: it does not take the question over
    assert "llamafactory_on_ascend.md" not in subject_notes(q, topics)


def test_the_named_frameworks_note_takes_over_a_topic_it_holds(topics, assistant):
    q = "how does the launch script set MASTER_ADDR for a llamafactory multi node job?"
    assert "llamafactory_on_ascend.md" in subject_notes(q, topics)
    assert "(notes: LLaMA-Factory on ModelArts" in lead_of(assistant.ask(q).answer)


@pytest.mark.parametrize("q", ["MindSpeed-LLM 离线包怎么准备", "offline package for modellink", "no network, how to install deps?"])
def test_the_pages_own_subject_or_none_is_in_scope(topics, q):
    assert "offline_package.md" not in outside_scope(q, topics)


@pytest.mark.parametrize("q, not_covered", [
    ("our nodes have no internet, how do I install LLaMA-Factory requirements offline?", "Not covered for LLaMA-Factory"),
    ("离线环境下 llamafactory 的 pip 依赖怎么装？", "LLaMA-Factory 不在笔记覆盖范围内"),
])
def test_the_scope_leads_then_the_pages_method(assistant, q, not_covered):
    lead = lead_of(assistant.ask(q).answer)
    assert lead.startswith(f"**{not_covered}**")
    assert "ModelLink" in lead and ("install.sh" in lead or "8f50777" in lead)


def test_the_pages_own_framework_gets_no_scope_sentence(assistant):
    answer = assistant.ask("no network on the nodes, how do I prepare the MindSpeed-LLM offline package?").answer
    assert "Not covered" not in answer and "8f50777" in lead_of(answer)


@pytest.mark.parametrize("q", ["token 过几个小时失效", "token 多久过期？要不要每次都重新获取"])
def test_a_lifetime_asked_is_the_tokens_24_hours(assistant, q):
    answer = assistant.ask(q).answer
    assert "24 h" in lead_of(answer) and "Tok_total" not in answer


@pytest.mark.parametrize("q, first", [
    # public_access.md (inference-modelarts-0097): Token valid 24 h; APP never expires; AK/SK bodies up to 12M
    ("my auth token expired after a day, is that normal?", "**Token**: valid for **24 h**"),
    ("how many hours until an IAM token expires when calling my deployed model?", "**Token**: valid for **24 h**"),
    ("token 多久过期？要不要每次都重新获取", "**Token**：有效期 **24 h**"),
    ("APP 认证会过期吗", "**APP** 认证"),
])
def test_the_list_item_the_question_names_by_its_label_leads(assistant, q, first):
    assert lead_of(assistant.ask(q).answer).startswith(first)
