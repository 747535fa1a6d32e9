"""The range and the GPU planning margin are the estimator's measured spread, not hand-picked numbers.

constants.RANGE_RATIO holds the 10th and 90th percentile, and PLAN_MARGIN["gpu"] the 75th, of measured / predicted
over the training peaks of the three measurement files together (the project's copy, then the two published-run
files of ../shared/eval, copied unchanged into tests/estimate/data). A change to the estimator moves that spread;
this test fails when the constants drift from it by more than 0.02, so they are re-read from `sizing calibrate -m`
(its "files together" range line) instead of going stale.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.estimate import constants as C
from assistant.estimate.measured import evaluate, load, ratio_spread, unique
from assistant.tools import registry_for

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "knowledge/catalog/measurements.csv",
         ROOT / "tests/estimate/data/measurements_dev.csv",
         ROOT / "tests/estimate/data/measurements_dev2.csv"]


def test_the_range_and_the_margin_are_the_measured_percentiles_of_the_three_files(ctx):
    results = [evaluate(load(p), lambda tool, args: registry_for(tool).call_json(tool, args, ctx)) for p in FILES]
    spread = ratio_spread(unique(results))
    assert spread is not None and spread["rows"] >= 50
    low, high = C.RANGE_RATIO
    assert spread["p10"] == pytest.approx(low, abs=0.02) and spread["p90"] == pytest.approx(high, abs=0.02)
    assert spread["p75"] == pytest.approx(C.PLAN_MARGIN["gpu"], abs=0.02)
    # Ascend plans size on the point: the vendor's tables are runs that happened at the point's counts
    assert C.PLAN_MARGIN["npu"] == 1.0
