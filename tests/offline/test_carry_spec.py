"""The conversation's carry-over specification (assistant/offline/carry.toml): every name it declares is a slot of
the frame or of slots.toml, or an intent the reader raises, and the words that refer back to the last answer."""

from __future__ import annotations

import pytest

from assistant.offline import spec
from assistant.offline.conversation import CARRY
from assistant.offline.frame import QuestionFrame
from assistant.offline.vocab import INTENTS

DERIVED_INTENTS = {"capacity", "kv", "throughput", "oom_asked"}  # raised by rules (intents.py, serving_words.py), not the table


def test_every_carried_slot_is_a_frame_attribute_or_a_stated_setting():
    for name in (*CARRY.carried, *CARRY.comparisons, *CARRY.comparisons.values(), *CARRY.follow_part,
                 *(s for slots in CARRY.resets.values() for s in slots), *(s for names in CARRY.stated_by.values() for s in names)):
        assert name in QuestionFrame.model_fields or name in spec.BY_NAME, name
    assert len(set(CARRY.carried)) == len(CARRY.carried)  # one policy per slot


def test_every_declared_intent_is_one_the_reader_raises():
    for name in (*CARRY.asked, *CARRY.domain, *CARRY.reported, *CARRY.on_last_count, *CARRY.stated_by, *CARRY.resets):
        assert name in INTENTS or name in DERIVED_INTENTS, name


def test_a_stated_setting_stays_behind_with_its_task():
    assert "lora_rank" in CARRY.task_slots["training"] and "zero_stage" in CARRY.task_slots["training"]
    assert "devices" not in CARRY.task_slots["training"] and "devices" in CARRY.carried  # a limit persists across tasks


@pytest.mark.parametrize("q, refers", [
    ("what does mindspeed need for the same?", True),
    ("ok and for full fine-tuning of it?", True),
    ("同样的配置用 MindSpeed 要几张卡", True),
    ("how long on those 16 cards?", True),
    ("what does ZeRO-3 offload move to the CPU?", False),
    ("is there a node limit on this cluster?", False),
    ("and what would I need to serve that?", True),
    ("Which ZeRO stage for full fine-tuning Llama-3-8B on our cluster today?", False),
])
def test_words_that_refer_back_to_the_last_answer(q, refers):
    assert bool(CARRY.refers_back.search(q.lower())) is refers


@pytest.mark.parametrize("q, persists", [
    ("已经 export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True 了还是不行", True),
    ("set per_device to 1 but still OOM", True),
    ("that didn't help, same error", True),
    ("改了 zero3 还是报错", True),
    ("那 per_device 改成 1 呢", False),
    ("and with 8k?", False),
])
def test_the_words_that_say_a_reported_problem_persists(q, persists):
    assert bool(CARRY.persists.search(q.lower())) is persists
