"""The slot specification's examples (tests/offline/readers/slots.yaml): each question read by the parser gives
exactly the slot values listed; a slot of the specification not listed is not read."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from assistant.offline import spec

EXAMPLES = yaml.safe_load((Path(__file__).parent / "readers" / "slots.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["q"] for e in EXAMPLES])
def test_slot_examples(parse, example):
    frame = parse(example["q"])
    read = {slot.name: spec.value_of(frame, slot.name) for slot in spec.SLOTS}
    assert {k: v for k, v in read.items() if v is not None} == pytest.approx(example["slots"])
    for span in frame.spans:  # every value read is a typed span over the words it was read from
        if span.slot in example["slots"]:
            assert span.value == pytest.approx(example["slots"][span.slot])
            # a value said in words ("no ZeRO at all": stage 0) is read from words; any other from its digits
            assert span.how == "vocabulary" or any(ch.isdigit() for ch in frame.question[span.start:span.end])
    assert [typed for typed, _ in frame.keys_read_as] == example.get("read_as", [])
    if "problems" in example:  # what the answer says is wrong: each listed words in its own sentence, nothing else
        assert len(frame.problems) == len(example["problems"]), frame.problems
        assert all(words in said for words, said in zip(example["problems"], frame.problems, strict=True))


def test_every_slot_has_an_example():
    named = {name for e in EXAMPLES for name in e["slots"]}
    assert {slot.name for slot in spec.SLOTS} <= named
