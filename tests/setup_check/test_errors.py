"""Malformed DeepSpeed JSON: the line where it breaks, and the file as meant when every fault has one fix (the JSON
counterpart of the YAML repair). Expected files are written by hand from the pasted ones."""

from __future__ import annotations

import json

import pytest

from assistant.errors import SizingError
from assistant.setup_check.deepspeed import parse
from assistant.setup_check.errors import repaired_json

TRAILING = """{
  "train_micro_batch_size_per_gpu": 1,
  "zero_optimization": {
    "stage": 3,
    "offload_optimizer": {"device": "cpu"},
  },
  "bf16": {"enabled": true}
}"""

MISSING = """{
  "train_micro_batch_size_per_gpu": 2
  "gradient_accumulation_steps": 4,
  "zero_optimization": {"stage": 2}
}"""


def _error(text: str) -> dict:
    with pytest.raises(SizingError) as e:
        parse(text)
    return e.value.valid  # type: ignore[return-value]


def test_trailing_comma_is_dropped():
    v = _error(TRAILING)
    assert (v["problem"], v["line"]) == ("trailing_comma", 5)
    assert json.loads(v["repaired"]) == {"train_micro_batch_size_per_gpu": 1,
                                         "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}},
                                         "bf16": {"enabled": True}}


def test_missing_comma_is_said_on_the_line_it_belongs_to_and_put_there():
    v = _error(MISSING)
    assert (v["problem"], v["line"]) == ("missing_comma", 2)  # after "…_per_gpu": 2, not at the next key
    assert json.loads(v["repaired"]) == {"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4,
                                         "zero_optimization": {"stage": 2}}


def test_python_dict_is_made_json():
    text = "{'train_micro_batch_size_per_gpu': 1, 'zero_optimization': {'stage': 2}, 'bf16': {'enabled': True}, 'x': None}"
    assert json.loads(repaired_json(text) or "") == {"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 2},
                                                     "bf16": {"enabled": True}, "x": None}


def test_several_faults_and_comments_are_all_mended():
    text = '{"a": 1 // the micro batch\n "b": [1, 2,],}'
    assert json.loads(repaired_json(text) or "") == {"a": 1, "b": [1, 2]}


def test_no_repair_when_a_fix_would_be_a_guess():
    assert repaired_json('{"a": 1, "b": ') is None  # cut off: what follows is unknown
    assert repaired_json("{'a': \"it's\"}") is None  # quotes of both kinds: which are the string's is a guess


def test_python_value_in_double_quoted_json_is_named_and_mended():
    v = _error('{\n  "zero_optimization": {"stage": 2, "overlap_comm": True},\n  "train_micro_batch_size_per_gpu": 1,\n}')
    assert (v["problem"], v["line"]) == ("python_literal", 2)
    assert json.loads(v["repaired"]) == {"zero_optimization": {"stage": 2, "overlap_comm": True},
                                         "train_micro_batch_size_per_gpu": 1}
