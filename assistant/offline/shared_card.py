"""The lead for two models served on one card ("could both share one card?", "这俩能放同一张卡吗"): each model's smallest
footprint on one device (weights, vLLM's profiling peak and runtime overhead, the KV cache of one sequence), from its
estimate_inference result, added up against the card; with the --gpu-memory-utilization share each instance needs."""

from __future__ import annotations

import math

from ..tools.estimates import InferenceResult
from .wording import Writer

GIB = 2**30
COMBINED_UTILIZATION = 0.9  # the two instances' shares together: vLLM's default utilisation, the estimates' own
SHARE_STEP = 0.05  # a share is said rounded up to this step
HEADROOM = 1.1  # a share holds its footprint with a tenth to spare (vLLM's profiling peak varies between runs)


def footprint(r: InferenceResult) -> tuple[float, int]:
    """GiB one instance needs at the least (one sequence of its length, the model's own limit if shorter), and that
    length."""
    length = min(r.max_model_len, r.model_max_context or r.max_model_len)
    kv = r.kv_bytes_per_token_per_device * length / GIB
    return r.weights_gib_per_device + r.activation_gib + r.overhead_gib + kv, length


def share(need_gib: float, capacity_gib: float) -> float:
    return max(SHARE_STEP, math.ceil(need_gib * HEADROOM / capacity_gib / SHARE_STEP - 1e-9) * SHARE_STEP)


class SharedCardBlocks(Writer):
    """The two models' sum against one card, first."""

    def shared_card_first(self) -> list[str]:
        if not self.s.shares_with:
            return []
        results = {r.model: r for r in self.r.values("estimate_inference", InferenceResult) if r.tp * r.pp == 1}
        pair = [results.get(m or "") for m in (self.s.shares_with, self.s.model)]
        if any(r is None for r in pair):
            return []
        a, b = pair[0], pair[1]
        assert a is not None and b is not None
        capacity = a.budget_gib / a.gpu_memory_utilization
        (need_a, len_a), (need_b, len_b) = footprint(a), footprint(b)
        total, ceiling = need_a + need_b, COMBINED_UTILIZATION * capacity
        share_a, share_b = share(need_a, capacity), share(need_b, capacity)
        spare = round(COMBINED_UTILIZATION - share_a - share_b, 2)
        if spare > 0:  # the rest goes to the larger model's KV cache
            if need_a >= need_b:
                share_a = round(share_a + spare, 2)
            else:
                share_b = round(share_b + spare, 2)
        item = "shared_card_model"
        parts = [self.say(item, model=r.model, gib=need, weights=r.weights_gib_per_device, runtime=r.activation_gib + r.overhead_gib,
                          length=f"{length:,}") for r, need, length in ((a, need_a, len_a), (b, need_b, len_b))]
        key = "shared_card_yes" if total <= ceiling else "shared_card_no"
        line = self.say(key, parts=self.say("semicolon").join(parts), total=total, capacity=capacity, ceiling=ceiling,
                        util=COMBINED_UTILIZATION, model_a=a.model, model_b=b.model, share_a=f"{share_a:.2f}", share_b=f"{share_b:.2f}")
        return [self.lead(line), ""]
