"""The range around a memory estimate and the three-word verdict people plan with. Pure functions.

A training estimate is a point (total_gib: the allocator's pool on one device) and a range. The verdict is judged on
what the allocator cannot give back: the pool less the cached blocks it frees and retries with before an
out-of-memory error (memory.cached_blocks). The range around that figure is read off the estimator's own errors
after every modelled term (constants.RANGE_RATIO: the 10th and 90th percentile of measured / predicted over the
measured training peaks of the measurement files, like with like, so 8 measured peaks in 10 fall inside; `sizing calibrate` prints the percentiles it
measures). Where the inputs leave a mechanism open (the fused attention kernel on Ascend, memory.attention_unsure),
that is a second scenario, not a measured error: the range stays the measured one (training_range without it) and the
scenario's own upper end (its bytes added to the point, times the same ratio) is reported beside it (open_upper) and
judged by the verdict. Folding it into one range made "about 61 GiB, likely 56-124 GiB" (round 8 F6): an upper end
twice the point that no measured error supports.

The verdict: `fits` when the upper end fits the usable memory, `does_not_fit` when the lower end does not, `tight` in
between (the range crosses the usable memory). More memory can only move a verdict towards `fits`.
"""

from __future__ import annotations

from . import constants as C

VERDICTS = ("fits", "tight", "does_not_fit")


def training_range(point_gib: float, open_gib: float = 0.0) -> tuple[float, float]:
    """(low, high) GiB around a point; `open_gib`: bytes of a mechanism the inputs leave open, on the upper end only.
    The point always lies inside."""
    lo, hi = C.RANGE_RATIO
    return min(point_gib * lo, point_gib), max((point_gib + open_gib) * hi, point_gib)


def open_upper(point_gib: float, open_gib: float) -> float:
    """The upper end of the scenario where a mechanism the inputs leave open happens: its bytes on the point, times
    the measured ratio's upper end (its other terms err as measured). 0 when nothing is open."""
    return (point_gib + open_gib) * C.RANGE_RATIO[1] if open_gib > 0 else 0.0


def verdict(low_gib: float, high_gib: float, usable_gib: float) -> str:
    """fits | tight | does_not_fit for a range against the usable memory."""
    if high_gib <= usable_gib:
        return "fits"
    if low_gib > usable_gib:
        return "does_not_fit"
    return "tight"
