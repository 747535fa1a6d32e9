"""Readers for the hand-typed seed transcriptions in tests/golden/*_seed.txt (independent of the
project's CSVs: these files were typed from the vendor documents, merged cells filled by hand)."""

from __future__ import annotations

from itertools import product
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden"
COLUMNS = [("MindSpeed-LLM", "Snt9B"), ("MindSpeed-LLM", "Snt9B23"), ("LLaMA-Factory", "Snt9B"), ("LLaMA-Factory", "Snt9B23")]


def _lines(name: str):
    for line in (GOLDEN / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            yield [c.strip() for c in line.split("|")]


def min_cards_rows():
    """(model spelling, strategy, seq_len, framework, hardware, cards or None)."""
    for model, strategies, seqs, ms, lf in _lines("min_cards_seed.txt"):
        cells = ms.split() + lf.split()
        for s, q in product(strategies.split("/"), seqs.split("/")):
            for (fw, hw), cell in zip(COLUMNS, cells, strict=True):
                yield model, s, int(q), fw, hw, None if cell == "-" else int(cell)


def min_cards_printed_lines():
    """{(model spelling, strategy, seq_len): printed line number (1-based) of the seed's table}."""
    out = {}
    for n, (model, strategies, seqs, _ms, _lf) in enumerate(_lines("min_cards_seed.txt"), 1):
        for s, q in product(strategies.split("/"), seqs.split("/")):
            out[(model, s, int(q))] = n
    return out


def recipe_rows():
    """(model spelling, template, strategy, cutoff_len, grad_accum, zero_stage, offload, nodes, per_node)."""
    for model, template, strategies, cuts, ga, ds, spec in _lines("recipes_seed.txt"):
        nodes, per_node = (int(x) for x in spec.split("x"))
        stage = int(ds.split("-")[1])
        for s, c in product(strategies.split("/"), cuts.split("/")):
            yield model, template, s, int(c), int(ga), stage, ds.endswith("Offload"), nodes, per_node
