"""The range around a memory estimate and the three-word verdict people plan with. Pure functions.

A training estimate is a point (total_gib: the allocator's pool on one device, what an out-of-memory error is
judged on) and a range. The range is built per term from the estimator's own measured errors
(constants.STATES_BAND, VARIABLE_RANGE; `sizing calibrate` prints the errors they were read from):
- the model states (weights, gradients, optimizer states) are counted bytes; what they miss is a framework's
  own buffers and padding: ± STATES_BAND;
- the rest (activations, logits and loss buffers, and the runtime's pool: context, HCCL/NCCL buffers,
  fragmentation) is where the measurements scatter: each measured training peak implies a factor
  k = (measured - states) / that rest, and the range spans the spread of k over the measurement files.

The verdict: `fits` when the upper end fits the usable memory, `does_not_fit` when the lower end does not,
`tight` in between (the range crosses the usable memory). More memory can only move a verdict towards `fits`.
"""

from __future__ import annotations

from . import constants as C

VERDICTS = ("fits", "tight", "does_not_fit")


def training_range(states_gib: float, transient_gib: float, overhead_gib: float, kind: str) -> tuple[float, float]:
    """(low, high) GiB around states + transient + overhead; the point always lies inside."""
    point = states_gib + transient_gib + overhead_gib
    lo_k, hi_k = C.VARIABLE_RANGE.get(kind, C.VARIABLE_RANGE["gpu"])
    rest = transient_gib + overhead_gib
    low = states_gib * (1 - C.STATES_BAND) + rest * lo_k
    high = states_gib * (1 + C.STATES_BAND) + rest * hi_k
    return min(low, point), max(high, point)


def verdict(low_gib: float, high_gib: float, usable_gib: float) -> str:
    """fits | tight | does_not_fit for a range against the usable memory."""
    if high_gib <= usable_gib:
        return "fits"
    if low_gib > usable_gib:
        return "does_not_fit"
    return "tight"

