"""The part of the memory a question asks for, stated first: the weights alone ("just the bf16 weights of X, and how
many cards to hold them", "权重本身多大") or the model states (weights + gradients + optimizer, "model states only,
no activations"). The reader marks which (intents ``weights_memory`` / ``states_memory``); the figures are the
estimator tools' own (estimate_inference's weights per device, the training breakdown's terms); only their sum and
the count of devices whose memory holds the weights are worked here, in the open."""

from __future__ import annotations

import math

from ..tools.estimate_models import MemoryBreakdown
from ..tools.estimates import InferenceResult, PlanResult, TrainingMemoryResult
from .serving import ServingBlocks


def weights_total_gib(r: InferenceResult) -> float:
    """The whole model's weights: the estimate's per-device weights times the devices they are split over."""
    return r.weights_gib_per_device * r.tp * r.pp


def devices_to_hold(weights_gib: float, capacity_gib: float) -> int:
    """The fewest devices whose memory holds the weights alone (nothing else: no KV cache, activations or runtime)."""
    return max(1, math.ceil(weights_gib / capacity_gib))


def states_gib(m: MemoryBreakdown) -> float:
    """Model states on one device: weights, gradients and optimizer states (no activations, logits or overhead)."""
    return m.weights_gib + m.gradients_gib + m.optimizer_gib


class ComponentBlocks(ServingBlocks):
    def component_first(self) -> list[str]:
        """The memory component asked, as the headline: the weights (with the devices that hold them) or the model
        states per device (with the total beside it). Empty when neither is asked or no tool gave the figure."""
        if self.headlined:
            return []
        intents = self.s.intents
        line = (self.weights_line() if "weights_memory" in intents else None) or (
            self.states_line() if "states_memory" in intents else None)
        return [self.lead(line), ""] if line else []

    def weights_line(self) -> str | None:
        r = next((c.value for c in self.r.of("estimate_inference", InferenceResult) if c.value), None)
        if r is None:
            return None
        total = weights_total_gib(r)
        capacity = r.budget_gib / r.gpu_memory_utilization  # what one device reports (the budget is a share of it)
        n = devices_to_hold(total, capacity)
        unit = self.unit_of(r.hardware)
        line = self.say("weights_first", gib=total, precision=self.precision(r), params=f"{r.shape.params_b:g}",
                        bytes=f"{total * 2**30 / (r.shape.params_b * 1e9):.2g}", n=self.devices(n, unit, r.hardware),
                        cap=capacity, part=self.hw_name(r.hardware))
        have = self.e.devices
        if have:  # the user's own devices (or "one 64G card"): held or not, by the weights alone
            line += self.say("weights_fit_yours" if n <= have else "weights_over_yours",
                             have=self.devices(have, unit, r.hardware), cap_all=have * capacity)
        return line

    def states_line(self) -> str | None:
        found = [(c.value, c.value.devices, c.value.zero_stage) for c in self.r.of("estimate_training_memory", TrainingMemoryResult)
                 if c.value] + [(p.memory, p.devices, p.zero_stage) for c in self.r.of("plan_training", PlanResult)
                                if (p := c.value) is not None and (not self.e.devices or p.devices == self.e.devices)]
        if not found:
            return None
        m, devices, zero = found[0]
        unit = self.unit_of(self.e.hardware)
        setup = (f"ZeRO-{zero}, " if zero is not None else "") + self.devices(devices, unit, self.e.hardware)
        return self.say("states_first", gib=states_gib(m), w=m.weights_gib, g=m.gradients_gib, o=m.optimizer_gib,
                        setup=setup, dev=self.per_device(unit, self.e.hardware).strip(), total=m.total_gib)
