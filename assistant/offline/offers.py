"""The layouts a refusal offers instead of the user's ("TP 8 x PP 2 does not divide 24 cards; layouts that fit 24: ..."),
each with its memory estimate on the user's devices and the vendor's minimum for the job: a rule checks divisibility
(estimate/layout.py), not memory, so a layout is offered as one that fits only when its estimate says so."""

from __future__ import annotations

from ..tools.estimates import InferenceResult, TrainingMemoryResult
from ..tools.tables import MinCardsResult
from .setup_answer import VERDICT
from .wording import MIN_LABEL, Writer


class OffersBlocks(Writer):
    """Under the refusal: the memory of each layout it offers, then the vendor minimum they are held against."""

    def offered_block(self) -> list[str]:
        s = self.s
        if not s.layout_offers:
            return []
        lines = self.training_offers() if s.layout_task != "serving" else self.serving_offers()
        return ["\n".join(lines)] if lines else []

    def training_offers(self) -> list[str]:
        offered = set(self.s.layout_offers)
        calls = [r for r in self.r.of("estimate_training_memory", TrainingMemoryResult)
                 if r.value and (r.value.tp, r.value.pp) in offered]
        if not calls:
            return []
        devs = self.devices(self.e.devices, self.unit_of(self.e.hardware), self.e.hardware)
        per = self.per_device(self.unit_of(self.e.hardware), self.e.hardware)
        lines = [self.say("offers_memory_head", devs=devs)]
        fitting = 0
        for c in calls:
            m = c.value
            assert m is not None
            fitting += m.verdict != "does_not_fit"
            lines.append(self.say("offer_training_line", tp=m.tp, pp=m.pp, dp=m.data_parallel, gib=f"{m.total_gib:.1f}",
                                  low=f"{m.low_gib:.1f}", high=f"{m.high_gib:.1f}", usable=f"{m.usable_gib:.1f}", per=per,
                                  verdict=VERDICT[m.verdict][self.lang]))
        if not fitting:
            lines.append(self.say("offers_none_fit", devs=devs))
        lines += self.vendor_minimum()
        return lines

    def vendor_minimum(self) -> list[str]:
        """The minimum-card row of MindSpeed-LLM (the framework TP and PP belong to) against the user's devices."""
        table = next((r for r in self.r.values("min_cards", MinCardsResult)), None)
        row = next((r for r in (table.rows if table else []) if r.framework == "MindSpeed-LLM" and r.cards), None)
        if row is None or not self.e.devices:
            return []
        have = self.e.devices
        key = "offers_min_covered" if (row.cards or 0) <= have else "offers_min_short"
        return [self.say(key, label=MIN_LABEL[self.lang], n=self.devices(row.cards, row.unit, self.e.hardware),
                         nodes=self.nodes(row.nodes or 1), method=self.method_name(row.strategy), seq=row.seq_len,
                         have=self.devices(have, self.unit_of(self.e.hardware), self.e.hardware))]

    def serving_offers(self) -> list[str]:
        offered = {tp * pp for tp, pp in self.s.layout_offers}
        seen: dict[tuple[int, int], InferenceResult] = {}
        for r in self.r.values("estimate_inference", InferenceResult):
            if r.tp * r.pp in offered:
                seen.setdefault((r.tp, r.pp), r)  # one line per layout, in the order offered
        ests = list(seen.values())
        if not ests:
            return []
        lines = [self.say("offers_serving_head", n=f"{self.e.seq_len:,}")]
        for r in ests:
            split = f"TP {r.tp}" + (f" × PP {r.pp}" if r.pp > 1 else "")
            lines.append(self.say("offer_serving_line" if r.fits else "offer_serving_short", split=split,
                                  w=f"{r.weights_gib_per_device:.1f}", budget=f"{r.budget_gib:.1f}",
                                  tokens=f"{r.kv_tokens_fit:,}", n=f"{r.max_model_len:,}"))
        if not any(r.fits for r in ests):
            lines.append(self.say("offers_serving_none"))
        return lines
