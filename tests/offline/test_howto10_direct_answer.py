"""Knowledge answers whose direct answer leads (helper howto10, round 18 c4-01, c4-02, c6-09, c7-08#3): the asked kind and
the user's own words choose the section and the sentence that lead, not the topic words alone.

- A size or duration the user states is placed in the row of a note's rule by ranges that holds it (seeds/002, the
  JupyterLab upload page: up to 100 MB uploads directly; over 100 MB and up to 50 GB goes through OBS).
- What the user says they already did (restarted the scheduler twice) leads no more: the note's next section does.
- "Where do I start" is answered by the section headed as the first step (`kubectl describe pod`).
- A fix asked for a quoted error leads with the FAQ item of that error, without the items of other problems; a sentence
  saying what does not help is no fix.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.answer import ChatTurn
from assistant.notes import range_rows
from assistant.offline.compose import flat
from assistant.offline.note_pick import about_done, done_clause, first_section
from assistant.tools.tables import NotePassage

from .answer_consistency import lead_of

NOTES = Path(__file__).resolve().parents[2] / "knowledge" / "notes"
UPLOAD_EN = (NOTES / "jupyterlab_upload.md").read_text(encoding="utf-8")
UPLOAD_ZH = (NOTES / "zh" / "jupyterlab_upload.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("q,text,row", [
    ("I need to move a 3 GB file into JupyterLab", UPLOAD_EN, "Over 100 MB and up to 50 GB"),
    ("a 40MB folder into the notebook?", UPLOAD_EN, "Up to 100 MB"),
    ("jupyterlab 传 100MB 的文件", UPLOAD_ZH, "不超过 100 MB"),  # the page: "不超过 100 MB" holds 100 MB itself
    ("jupyterlab 传 2G 的数据怎么传", UPLOAD_ZH, "超过 100 MB、不超过 50 GB"),
])
def test_a_stated_size_selects_the_row_of_a_rule_by_ranges(q, text, row):
    placed = range_rows(q, [text])
    assert len(placed) == 1 and placed[0].row.startswith(row), placed


def test_a_value_past_every_row_or_without_a_rule_is_not_placed():
    assert range_rows("upload an 80G checkpoint", [UPLOAD_EN]) == []  # past 50 GB: limit_checks says it is over
    assert range_rows("how do I upload a file", [UPLOAD_EN]) == []
    assert range_rows("3 GB file", ["- at most **12 MB** per request body"]) == []  # one bound alone is no rule by ranges


@pytest.mark.parametrize("q,said", [
    ("notebook 的 JupyterLab 里要传一个 3GB 的数据文件，怎么传", "**结论**：**你的 3GB：超过 100 MB、不超过 50 GB：通过 OBS 中转"),
    ("I need to get a 40 MB tokenizer folder into my notebook's JupyterLab, what's the simplest way?",
     "**Answer:** **Your 40 MB: Up to 100 MB: uploaded directly"),
])
def test_the_row_for_the_users_size_leads(assistant, q, said):
    assert assistant.ask(q).answer.startswith(said)


def test_the_limit_sentence_follows_the_verdict(assistant):
    """public access page: a request body may be at most 12 MB; that rule comes right after "your 20MB is over it"."""
    lead = lead_of(assistant.ask("my request payload is about 20MB of base64 images, will the ModelArts online service accept it?").answer)
    assert lead.startswith("**Your 20MB is over the 12 MB limit.** A request body (the payload) may be at most **12 MB**"), lead


@pytest.mark.parametrize("q,done", [
    ("I already deleted the volcano scheduler pod three times and the job is still Pending, what now?",
     "I already deleted the volcano scheduler pod three times"),
    ("restarted the scheduler twice, still pending", "restarted the scheduler twice"),
    ("重启了两次 scheduler 还是 pending，怎么办", "重启了两次 scheduler"),
    ("已经删过 scheduler pod 了，作业还是 Pending", "已经删过 scheduler pod 了"),
    ("怎么压测已经部署好的在线服务", None),  # a state the thing is in, not a remedy tried
    ("how do I benchmark my already deployed service?", None),
    ("how do I restart the scheduler?", None),
])
def test_what_the_user_already_did_is_read(q, done):
    assert done_clause(q) == done


def test_a_section_names_what_was_done_by_its_heading():
    assert about_done("restarted the scheduler twice", "Volcano resource contention: restart the scheduler pod")
    assert about_done("重启了两次 scheduler", "Volcano 资源争抢：重启 scheduler Pod")
    assert not about_done("restarted the scheduler twice", "What Pending means and the first command")


@pytest.mark.parametrize("q", [
    "restarted the scheduler twice, still pending",
    "I already deleted the volcano scheduler pod three times and the job is still Pending, what now?",
    "重启了两次 scheduler 还是 pending，怎么办",
])
def test_after_the_scheduler_restart_the_next_steps_lead(assistant, q):
    """pod_pending note: after the Volcano restart, a request above capacity stays Pending (MindCluster FAQ) and "not same
    node idle" needs Ascend Device Plugin reinstalled (MindX FAQ); the restart is not said again first."""
    lead = lead_of(assistant.ask(q).answer)
    assert not lead.lower().startswith(("list every pod", "restart", "the vendor names one cause", "if the training pod is still"))
    assert any(w in lead for w in ("requests more than", "Device Plugin")), lead


def test_where_to_start_is_the_first_command(assistant):
    for q in ("our training pod on the ModelArts Lite k8s cluster has been Pending for an hour. what should I look at?",
              "The training job has sat in Pending since this morning. First thing to check?",
              "训练作业 pending 了半天，第一步先查什么？"):
        lead = lead_of(assistant.ask(q).answer)
        assert "kubectl describe pod ${pod_name}" in lead and "```" not in lead, lead


def test_first_section_needs_a_question_of_where_to_begin():
    passages = [NotePassage(title="t", heading=h, text="x", source="s", file="f.md", lang="en", summary="", score=1.0)
                for h in ("Volcano resource contention", "What Pending means and the first command")]
    assert first_section("pending, what should I look at?", passages) is passages[1]
    assert first_section("pending, restarted the scheduler, what next?", passages) is None
    assert first_section("what does pending mean", passages) is None


def test_a_one_line_code_block_becomes_inline_code():
    assert flat("Print the events with:\n\n```\nkubectl describe pod ${pod_name}\n```") == \
        "Print the events with: `kubectl describe pod ${pod_name}`"


def test_the_faq_item_of_the_quoted_error_leads_alone(assistant):
    """vLLM FAQ (modelarts_llm_infer_5906036): the max_model_len ValueError → export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1;
    the OOM item (lower --gpu-memory-utilization) is another problem."""
    lead = lead_of(assistant.ask("vllm 启动报错：ValueError: User-specified max_model_len (65536) is greater than the derived "
                                 "max_model_len (max_position_embeddings=32768)。怎么办").answer)
    # the error's signature names it first, then the FAQ item's fix
    assert "**`ValueError: User-specified max_model_len is greater than the derived max_model_len`** → `export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1`" in lead, lead
    assert "gpu-memory-utilization" not in lead


def test_a_sentence_saying_what_does_not_help_is_no_fix(assistant):
    """OOM note: in vLLM the training remedies do not apply; the vendor's inference FAQ says to lower
    --gpu-memory-utilization: that sentence leads."""
    lead = lead_of(assistant.ask("vllm 起服务报 NPU out of memory，怎么改参数").answer)
    assert lead.startswith("厂商的推理 FAQ 建议启动服务时调低 `--gpu-memory-utilization`"), lead


def test_a_follow_up_after_a_restart_is_not_the_first_command_again(assistant):
    history = [ChatTurn(role="user", content="my training pods are Pending with 实例调度失败, what do I do?"),
               ChatTurn(role="assistant", content="Run kubectl describe pod; restart the Volcano scheduler pod.")]
    lead = lead_of(assistant.ask("restarted the scheduler twice, still pending", history).answer)
    assert not lead.lower().startswith(("list every pod", "restart it")), lead


def test_a_can_i_question_gets_the_way_before_the_remark(assistant):
    """Preprocessing page (modelarts_llm_train_91113): `USER_PROCESSED_DATA_DIR`, when set, makes training load that folder
    and skip preprocessing; the note-writer's remark (redo it when the tokenizer or length changes) comes after it."""
    lead = lead_of(assistant.ask("can I reuse the preprocessed dataset from last run instead of tokenizing again? seq length is the same").answer)
    assert lead.startswith("`USER_PROCESSED_DATA_DIR`") and "skips preprocessing" in lead, lead
    assert lead.index("skips preprocessing") < lead.index("Note-writer's remark")


@pytest.mark.parametrize("q,said", [
    ("checkpoint save timed out on 4 nodes — is the checkpoint that did get written still usable?", "does not affect the weights"),
    ("保存权重超时报错了，已经存下来的权重会不会坏？", "不影响已经保存下来的权重"),
])
def test_whether_what_was_saved_is_affected_leads(assistant, q, said):
    """Save-timeout page (保存ckpt时超时报错): the error does not affect the weights actually saved; that leads a question
    about their state, before the disk I/O remedy."""
    lead = lead_of(assistant.ask(q).answer)
    assert said in lead[:120], lead
