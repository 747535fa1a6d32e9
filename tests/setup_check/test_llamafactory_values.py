"""The values check_setup accepts for LLaMA-Factory are the installed LLaMA-Factory's own: finetuning_type's
Literal, the QuantizationMethod enum, and the bits each on-the-fly method takes (its quantization.py)."""

from __future__ import annotations

import dataclasses
import inspect
import typing

import pytest

from assistant.configs.llamafactory_names import FINETUNING_TYPES
from assistant.setup_check.llamafactory import QUANT_BITS, QUANT_METHODS

llamafactory = pytest.importorskip("llamafactory")


def test_quantization_methods_are_llamafactorys_enum():
    from llamafactory.extras.constants import QuantizationMethod

    assert tuple(m.value for m in QuantizationMethod) == QUANT_METHODS


def test_finetuning_types_are_llamafactorys_literal():
    from llamafactory.hparams import FinetuningArguments

    assert "finetuning_type" in {f.name for f in dataclasses.fields(FinetuningArguments)}
    hints = typing.get_type_hints(FinetuningArguments)
    assert set(typing.get_args(hints["finetuning_type"])) == set(FINETUNING_TYPES)


def test_bits_per_method_are_the_ones_quantization_py_checks():
    from llamafactory.model.model_utils import quantization

    source = inspect.getsource(quantization)
    assert "quantization_bit not in [8, 6, 5, 4, 3, 2, 1]" in source and QUANT_BITS["hqq"] == (1, 2, 3, 4, 5, 6, 8)
    assert "EETQ only accepts 8-bit quantization" in source and QUANT_BITS["eetq"] == (8,)
    assert "Bitsandbytes only accepts 4-bit or 8-bit quantization" in source and QUANT_BITS["bnb"] == (4, 8)
