"""The part of the memory a question asks for, stated first: the weights alone ("just the bf16 weights of X, and how
many cards to hold them", "权重本身多大") or the model states (weights + gradients + optimizer, "model states only,
no activations"). The reader marks which (intents ``weights_memory`` / ``states_memory``); the figures are the
estimator tools' own (estimate_inference's weights per device, the training breakdown's terms); only their sum and
the count of devices whose memory holds the weights are worked here, in the open."""

from __future__ import annotations

import math
import re

from ..estimate import constants as C
from ..tools.derived_tools import DerivedResult
from ..tools.estimate_models import MemoryBreakdown
from ..tools.estimates import InferenceResult, PlanResult, TrainingMemoryResult
from .asked import kv_asked_before_weights
from .serving import ServingBlocks, weight_bits_of


def weights_total_gib(r: InferenceResult) -> float:
    """The whole model's weights: the estimate's per-device weights times the devices they are split over."""
    return r.weights_gib_per_device * r.tp * r.pp


def devices_to_hold(weights_gib: float, capacity_gib: float) -> int:
    """The fewest devices whose memory holds the weights alone (nothing else: no KV cache, activations or runtime)."""
    return max(1, math.ceil(weights_gib / capacity_gib))


def states_gib(m: MemoryBreakdown) -> float:
    """Model states on one device: weights, gradients and optimizer states (no activations, logits or overhead)."""
    return m.weights_gib + m.gradients_gib + m.optimizer_gib


# "total, and per card": the whole model's states (all devices together) are asked beside the share of one
TOTAL_ASKED = re.compile(r"(?<![a-z])total(?![a-z])|in\s+all|altogether|总共|一共|合计|总量|总的|全部加起来", re.I)


def full_states_bytes_per_param(megatron: bool) -> int:
    """Bytes of model states per trained parameter in bf16 mixed precision, as the estimator counts them: DeepSpeed
    keeps bf16 weight + bf16 gradient + fp32 gradient partition + fp32 master + Adam m and v (2+2+4+4+8 = 20);
    Megatron keeps bf16 weight + fp32 main grad + fp32 master and Adam (2+4+12 = 18)."""
    if megatron:
        return C.WEIGHT_BYTES["bf16"] + C.MEGATRON_MAIN_GRAD_BYTES + C.MEGATRON_OPTIMIZER_BYTES
    return (C.WEIGHT_BYTES["bf16"] + C.GRAD_BYTES["bf16"] + C.FP32_GRAD_BYTES["bf16"] + C.MASTER_BYTES["bf16"]
            + C.ADAM_BYTES["bf16"])


class ComponentBlocks(ServingBlocks):
    def component_first(self) -> list[str]:
        """The memory component asked, as the headline: the weights (with the devices that hold them) or the model
        states per device (with the total beside it). Empty when neither is asked or no tool gave the figure."""
        # a quantity asked beside it (quantity_blocks.py) led: the weights follow it rather than being dropped
        if self.headlined and not self.r.of("derive_quantity", DerivedResult):
            return []
        intents = self.s.intents
        if self.weights_after_kv():  # "KV cache 多大？权重多大？": the KV figure leads, the weights follow it (serving lead)
            return []
        line = (self.weights_line() if "weights_memory" in intents else None) or (
            self.states_line() if "states_memory" in intents else None)
        return [self.lead(line), ""] if line else []

    def weights_after_kv(self) -> bool:
        s = self.s
        return "weights_memory" in s.intents and "inference" in s.intents and kv_asked_before_weights(s.question.lower())

    def after_serving_lead(self) -> list[str]:
        line = self.weights_line() if self.weights_after_kv() else None
        return [line[:1].upper() + line[1:]] if line else []

    def precisions_first(self) -> list[str]:
        """"bf16 and int8 weights", "int8 跟 int4 各要几张": every precision named, one line each in the order typed, as the
        headline: its weights in total and the devices the estimate serves it on (each estimate_inference call's own)."""
        calls = [c.value for c in self.r.of("estimate_inference", InferenceResult) if c.value]
        if len(self.s.weight_bits_each) < 2 or len(calls) < 2:
            return []
        lines: list[str] = []
        for r in calls:
            total = weights_total_gib(r)
            line = self.say("precision_each", bits=weight_bits_of(r), gib=total, params=f"{r.shape.params_b:g}",
                            bytes=f"{total * 2**30 / (r.shape.params_b * 1e9):.2g}", layout=self.layout(r),
                            len=r.max_model_len, part=self.hw_name(r.hardware))
            lines.append(self.lead(line) if not lines else line)
        return lines + [""]

    def weights_line(self) -> str | None:
        r = next((c.value for c in self.r.of("estimate_inference", InferenceResult) if c.value), None)
        if r is None:
            return None
        total = weights_total_gib(r)
        capacity = r.budget_gib / r.gpu_memory_utilization  # what one device reports (the budget is a share of it)
        n = devices_to_hold(total, capacity)
        unit = self.unit_of(r.hardware)
        line = self.say("weights_first", gib=total, gb=total * 2**30 / 1e9, precision=self.precision(r), params=f"{r.shape.params_b:g}",
                        bytes=f"{total * 2**30 / (r.shape.params_b * 1e9):.2g}", n=self.devices(n, unit, r.hardware),
                        cap=capacity, part=self.hw_name(r.hardware))
        have = self.e.devices
        if have:  # the user's own devices (or "one 64G card"): held or not, by the weights alone
            key = "weights_fit_yours" if n <= have else "weights_over_yours"
            if key == "weights_fit_yours" and "inference" in self.s.intents and total > have * r.budget_gib:
                key = "weights_over_budget"  # served: vLLM's share of the memory is what the weights must fit in
            line += self.say(key, have=self.devices(have, unit, r.hardware), cap_all=have * capacity,
                             util=r.gpu_memory_utilization, budget=have * r.budget_gib)
        if self.s.disk_gb:  # "放 50G 的盘够不够": the weight files against the disk said (GB as the disk is sold)
            gb = total * 2**30 / 1e9
            line += self.say("weights_disk_fit" if gb <= self.s.disk_gb else "weights_disk_over", disk=self.s.disk_gb, gb=gb)
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
        line = self.say("states_first", gib=states_gib(m), w=m.weights_gib, g=m.gradients_gib, o=m.optimizer_gib,
                        setup=setup, dev=self.per_device(unit, self.e.hardware).strip(), total=m.total_gib)
        shapes = [c.value.shape for c in self.r.of("estimate_training_memory", TrainingMemoryResult) if c.value]
        shape = next(iter(shapes + [c.value.shape for c in self.r.of("plan_training", PlanResult) if c.value]), None)
        method = next((c.value.method for c in self.r.of("estimate_training_memory", TrainingMemoryResult) if c.value), self.s.method)
        if TOTAL_ASKED.search(self.s.question) and shape is not None and method == "full":
            # the total asked comes first: the whole model's states, from the bytes each parameter keeps
            b = full_states_bytes_per_param(zero is None)
            total = shape.params_b * 1e9 * b
            line = self.say("states_total", gb=total / 1e9, gib=total / 2**30, params=f"{shape.params_b:g}", b=b,
                            textbook=shape.params_b * 16, breakdown="2+4+12" if zero is None else "2+2+4+4+8") + " " + line[:1].upper() + line[1:]
        return line
