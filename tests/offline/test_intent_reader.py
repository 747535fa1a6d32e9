"""The intent vocabulary's examples (tests/offline/readers/intents.yaml): the intents a question raises and the ones
it must not (a node word such as "servers" is no serving word)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

EXAMPLES = yaml.safe_load((Path(__file__).parent / "readers" / "intents.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["q"] for e in EXAMPLES])
def test_intent_examples(parse, example):
    intents = parse(example["q"]).intents
    assert set(example.get("has", [])) <= intents, intents
    assert not set(example.get("lacks", [])) & intents, intents
