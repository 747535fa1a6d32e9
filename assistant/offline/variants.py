""""X vs Y" answers: one block per compared model, framework or hardware part (the frame's variants),
each written over the calls made for it, with a one-line comparison of the fewest devices first."""

from __future__ import annotations

from typing import Any

from ..tools.estimates import InferenceResult, PlanResult, TrainingMemoryResult
from ..tools.tables import InferenceMinCardsResult
from . import spec
from .asked import asks_verdict, serving_parts_asked
from .frame import DEFAULT_HARDWARE, table_strategy
from .parse import Slots
from .route import Done
from .serving import kv_name, seqs
from .sizing import TrainingBlocks
from .vocab import DOUBLES, HALVES, HEADROOM_ASKED, MEMORY_SAVED_ASKED, NODES_ASKED, SAME_ASKED

SERVING_CHANGES = {"tp", "gpu_util"}  # serving settings a choice or a change compares by each one's KV room
SERVING_ARGS = {"tp": "max_devices", "gpu_util": "gpu_memory_utilization"}  # their estimate_inference arguments

COMPARED = (("models", "model"), ("frameworks", "framework"), ("hardwares", "hardware"), ("seq_lens", "seq_len"))


def variants(s: Slots) -> list[Slots]:
    """The frame's variants (one per compared model x framework x part), or one per model for a frame
    that has no ``variants`` yet."""
    split = getattr(s, "variants", None)
    if callable(split):
        return list(split())
    if len(s.models) < 2:
        return [s]
    return [s.model_copy(update={"model": m, "models": [], "intents": s.intents - {"compare"}}) for m in s.models]


def compares(s: Slots) -> bool:
    return any(len(getattr(s, many, None) or []) > 1 for many, _ in COMPARED) or bool(getattr(s, "changes", None))


def belongs(d: Done, v: Slots, s: Slots) -> bool:
    """A call made for variant ``v``: it names v's model, framework and part where those are compared
    (a call that does not name the framework, e.g. the minimum-card table, serves every framework; the
    vendor tables without a hardware argument describe Snt9B only)."""
    if len(s.models) > 1 and d.args.get("model") != v.model:
        return False
    for name in getattr(s, "changes", None) or {}:  # "GA 8 → 16": the calls made with this variant's value
        taking = (name, *(spec.BY_NAME[name].args if name in spec.BY_NAME else ()))  # a serving TP is max_devices
        if any(d.args.get(arg) is not None and d.args.get(arg) != getattr(v, name) for arg in taking):
            return False
        # a serving setting passed under the tool's own name ("tp 4" as estimate_inference's max_devices)
        if name in SERVING_ARGS and d.name == "estimate_inference" and d.args.get(SERVING_ARGS[name]) not in (None, getattr(v, name)):
            return False
        if name == "method" and d.args.get("strategy") not in (None, table_strategy(v.method)):
            return False  # the vendor tables' rows of this variant's method
    if len(getattr(s, "frameworks", None) or []) > 1 and d.args.get("framework") not in (None, v.framework):
        return False
    if len(getattr(s, "seq_lens", None) or []) > 1 and d.args.get("seq_len") not in (None, v.seq_len):
        return False
    if len(getattr(s, "hardwares", None) or []) > 1:
        if d.name == "list_hardware":
            return True  # the catalog serves every part compared (each variant shows its own row)
        hw = d.args.get("hardware")
        return hw in (v.hardware, v.effective().part) if hw else v.hardware == DEFAULT_HARDWARE
    return True


class VariantBlocks(TrainingBlocks):
    def per_variant(self) -> list[Any]:
        """A writer (of this writer's class) per variant, over that variant's calls only."""
        out = []
        for v in variants(self.s):
            calls = [d for d in self.done if belongs(d, v, self.s)]
            if calls:
                out.append(type(self)(v, calls, self.parts))
                out[-1].said_once = self.said_once  # a line every variant could write (a part's identity) is said once
        return out

    def compared(self) -> list[str]:
        writers = self.per_variant()
        if (batch := self.batch_changed(writers)) is not None:
            return batch
        compared = [one for many, one in COMPARED if len(getattr(self.s, many, None) or []) > 1]  # each variant by what differs
        # "enough for my 4 GPUs?" over parts: the yes/no on the user's devices, each part's, is what is compared
        # (so is "PP 2 or PP 4 on my 32 cards?": a layout's count is the table's whatever the layout, its memory is what differs)
        layout = bool(set(self.s.changes) & {"tp", "pp", "cp"}) and "inference" not in self.s.intents
        verdict = (asks_verdict(self.s) or layout) and bool(self.s.effective().devices) and all(w.verdict_on_devices() for w in writers)
        # "推荐的 zero 配置有啥区别", "GA for each": the setting asked is what is compared, each variant's; else the count
        settings = not verdict and bool(self.s.intents & {"zero", "ga"}) and all(w.compared_setting() for w in writers)
        # "qwen3-32b 的 kv 每 token 多少，为啥比 llama2-13b 小": the KV bytes per token asked first are what is compared
        kv = not (settings or verdict) and serving_parts_asked(self.s.question.lower())[:1] == ["kv"] and all(w.kv_per_token() for w in writers)
        # "TP4 or TP8?" when serving: the table's count is the model's, the same for each layout; each layout's estimate is
        # what differs (its devices and the KV cache room it leaves)
        served = not (settings or verdict or kv) and bool(set(self.s.changes) & {"tp", "pp"}) and all(w.served_layout() for w in writers)
        # each variant named by the settings that differ ("full 4096 / lora 4096": the method alone)
        changed = [name for name, values in self.s.changes.items() if len(set(values)) > 1] or list(self.s.changes)
        # like with like: when every variant has a minimum-card row, those rows are compared (not one side's recipe row)
        like = all(w.min_table_count() for w in writers)
        needs = [(" · ".join([self.method_name(w.s.method) if one == "method" else self.say(f"change_label_{one}", v=getattr(w.s, one))
                              for one in changed] +
                             [self.hw_name(getattr(w.s, one)) if one == "hardware" else str(getattr(w.s, one) or "") for one in compared]),
                  w.verdict_on_devices() if verdict else w.compared_setting() if settings else w.kv_per_token() if kv
                  else w.served_layout() if served else w.fewest(like))
                 for w in writers]
        listed = self.say("comma").join(f"{label} {n}" for label, n in needs if n)
        key = "compared_verdict" if verdict else "compared_setting" if settings else "compared_kv" if kv else \
            "compared_served" if served else "compared"
        more = self.count_difference(writers, [label for label, _ in needs], like) if key == "compared" else ""
        if headroom := self.headroom_compared(writers, [label for label, _ in needs]):
            listed, key, more = headroom, "compared_factor", ""  # "哪个余量大": the one with more free memory per device, first
        elif change := self.change_lead(writers, [label for label, _ in needs], like):
            listed, key, more = change, "compared_factor", ""  # "cutoff 拉到 8k，会不会涨": up, down or the same, first
        elif "kv_cache_dtype" in self.s.changes and (kv_lead := self.kv_change(writers)):
            listed, key, more = kv_lead, "compared_factor", ""  # "int8 kv 的话 token 容量翻倍吗": the KV room at each precision
        elif self.s.changes.keys() & SERVING_CHANGES and (served_lead := self.serving_change(writers, [label for label, _ in needs])):
            listed, key, more = served_lead, "compared_factor", ""  # "tp 用 4 还是 8": each layout's KV room and copies
        elif key != "compared_verdict" and (factor := self.factor_asked(writers, [label for label, _ in needs])):
            listed, key, more = factor, "compared_factor", ""  # "does the card count double?": yes or no first
        elif key != "compared_verdict" and (saved := self.memory_saved(writers, [label for label, _ in needs])):
            listed, key, more = saved, "compared_factor", ""  # "能省点显存吗": yes or no on the saving first
        if "grad_accum" in self.s.changes and key != "compared_factor" and (ga := self.ga_judged()):  # "GA 4 or 16?": the batch each gives, memory the same
            listed, key, more = ga, "compared_ga", ""
        same = self.same_asked(writers, like) if key == "compared" else ""  # "一样吗": yes or no first
        out = [self.lead(same + self.say(key, listed=listed, have=self.have() if verdict else "") + more), ""] if listed else []
        if not listed and (line := self.catalog_comparison()):  # "A2 vs A3: HBM per node?": the comparison leads
            out, listed = [self.lead(line), ""], line
        for i, w in enumerate(writers):
            w.headlined = bool(listed) or i > 0  # the comparison (else the first block's answer) is the headline
            out += w.body() + [""]
            for src in w.sources:
                self.cite(src)
        return out

    def batch_changed(self, writers: list[Any]) -> list[str] | None:
        """"GA 从 8 改成 16 会怎样", "micro batch 1 → 2, what changes?": what the change does leads (the global batch, the memory
        per device, the time per step: batch_change_line on the new value's block, against the old value), then that block
        alone (the old value's plan is the same job with the other figure); None when no batch figure changes, or a factor
        of the memory is asked ("显存会翻倍吗": factor_asked answers it with both estimates)."""
        changed = list(self.s.changes)
        if len(writers) != 2 or changed not in (["grad_accum"], ["micro_batch"]) or DOUBLES.search(self.s.question.lower()) \
                or self.s.alternatives:
            return None
        name, w = changed[0], writers[1]
        w.s.current[name] = self.s.changes[name][0]
        w.s.mark("said", name)
        if not (line := w.batch_change_line()):
            return None
        w.headlined = True
        out = [self.lead(line), "", *w.body()]
        for src in w.sources:
            self.cite(src)
        return out

    def verdict_on_devices(self) -> str | None:
        """This variant's yes/no on the user's devices with the setting they stated: the memory estimate on exactly those
        devices (training), or the serving estimate within them; else None."""
        have = self.e.devices
        m = next((x for x in self.r.values("estimate_training_memory", TrainingMemoryResult) if x.devices == have), None)
        if m is not None:
            setting = self.parallel(m.zero_stage, m.offload, m.tp, m.pp, m.cp, m.ep)
            return self.say("verdict_variant", word=self.say("verdict_" + m.verdict), setting=setting, gib=self.point(m),
                            usable=f"{m.usable_gib:.1f}", dev=self.per_device(m.unit, m.hardware))
        plan = next((r.value for r in self.r.of("plan_training", PlanResult) if r.value and r.arg("max_devices") == have), None)
        if plan is not None:  # no setting stated: the plan within the user's devices, the setting it found
            if not plan.fits:
                return self.say("verdict_variant_none", word=self.say("verdict_does_not_fit"))
            setting = self.parallel(plan.zero_stage, plan.offload, plan.tp, plan.pp, plan.cp, plan.ep)
            if have and plan.devices < have:  # the plan uses fewer than the user's devices: its verdict is on those ("on 2 GPUs")
                setting += self.say("setting_on", devs=self.devices(plan.devices, plan.unit, plan.hardware))
            estimate = self.say("verdict_variant", word=self.say("verdict_" + plan.verdict), gib=self.point(plan.memory), setting=setting,
                                usable=f"{plan.memory.usable_gib:.1f}", dev=self.per_device(plan.unit, plan.hardware))
            # a job the vendor table counts: its yes/no on the user's devices leads (as each variant's block says), the
            # estimate after it ("8192 行不行？不行的话 4096 呢": no by the table at 8192, yes at 4096)
            if have and isinstance(found := self.fewest_count(like=True), tuple) and found[3] == "table":
                return self.say("verdict_variant_table", word=self.say("verdict_table_" + ("yes" if have >= found[0] else "no")),
                                n=self.devices(found[0], found[1], found[2]), estimate=estimate)
            # no row at this length, but a shorter length's row already needs more than the user's devices: a no
            shorter = [(r.cards, r.unit) for r in self.wanted_rows(self.training_facts().bound) if r.supported and r.cards]
            if have and shorter and have < min(shorter)[0]:
                n, unit = min(shorter)
                return self.say("verdict_variant_bound", n=self.devices(n, unit, None), estimate=estimate)
            return estimate
        served = next((r.value for r in self.r.of("estimate_inference", InferenceResult) if r.value and r.arg("max_devices") == have), None)
        if served is not None:
            return self.say("verdict_variant_serving", word=self.say("verdict_fits" if served.fits else "verdict_does_not_fit"),
                            n=self.devices(served.devices, served.unit, served.hardware))
        return None

    def served_layout(self) -> str | None:
        """This layout's serving estimate: its devices and the KV cache room it leaves (estimate_inference within it)."""
        r = next((x.value for x in self.r.of("estimate_inference", InferenceResult) if x.value and x.value.fits), None)
        return self.say("served_layout", n=self.devices(r.devices, r.unit, r.hardware), tokens=f"{r.kv_tokens_fit:,}",
                        seqs=r.kv_tokens_fit // max(r.max_model_len, 1), len=r.max_model_len) if r else None

    def kv_per_token(self) -> str | None:
        """This variant's KV cache bytes per token with the formula's numbers (estimate_inference), else None."""
        r = next((x.value for x in self.r.of("estimate_inference", InferenceResult) if x.value), None)
        return self.say("kv_per_token_variant", per_token=r.kv_bytes_per_token / 1024, formula=r.kv_formula) if r else None

    def compared_setting(self) -> str | None:
        """This variant's DeepSpeed setting, accumulation and devices: the recipe table's row, else the estimate's plan."""
        f = self.training_facts()
        row = next((r for r in f.recipes if r.found and r.zero_stage is not None and r.total_cards), None)
        if row is not None:
            return self.say("setting_table", par=self.parallel(row.zero_stage, row.offload), ga=row.grad_accum,
                            n=self.devices(row.total_cards, "DIE" if self.e.facts.unit == "die" else "card"))
        plan = next((p for p in self.free_plans(f) if p.fits and p.zero_stage is not None), None)
        if plan is not None:
            return self.say("setting_estimate", par=self.parallel(plan.zero_stage, plan.offload), ga=plan.grad_accum,
                            n=self.devices(plan.devices, plan.unit, plan.hardware))
        return None

    def min_table_count(self) -> bool:
        """This variant's job has a count in the minimum-card table (a supported row of the framework asked)."""
        return any(r.supported and r.cards for r in self.wanted_rows(self.training_facts().rows))

    def fewest(self, like: bool = False) -> str | None:
        """This variant's fewest devices: the vendor rows' minimum, else the estimate's (training, else serving); a
        framework the minimum-card table marks '-' gets no count: it is not supported, whatever memory allows."""
        found = self.fewest_count(like)
        if found is None:
            return None
        if isinstance(found, str):  # "unsupported": the minimum-card table marks it '-'
            return self.say("fewest_unsupported")
        n, unit, hw, source = found
        return self.say(f"fewest_{source}", n=self.devices(n, unit, hw) + self.in_nodes(n, unit))

    def fewest_count(self, like: bool = False) -> tuple[int, str, str | None, str] | str | None:
        """The count behind ``fewest``: (devices, unit, part, "table" or "estimate"), or "unsupported"; ``like``: the
        minimum-card table's count only (the variants compared all have one)."""
        f = self.training_facts()
        asked = self.wanted_rows(f.rows or f.bound) if self.s.framework else []
        if asked and not any(r.supported for r in asked):
            return "unsupported"
        table = [(r.cards, r.unit) for r in self.wanted_rows(f.rows) if r.supported and r.cards]
        # the recipe table is LLaMA-Factory's (no count of MindSpeed-LLM's), and its cards are Snt9B's: on a part counted in
        # DIE the minimum-card table's own DIE rows (2 DIE the smallest unit) answer, the recipe's count only without them
        if self.s.framework != "MindSpeed-LLM" and not (table and (like or self.e.facts.unit == "die")):
            table += [(r.total_cards, self.recipe_unit()) for r in f.recipes if r.total_cards]
        table += [(r.cards, "card") for r in self.r.values("inference_min_cards", InferenceMinCardsResult) if r.cards]
        if table:
            n, unit = min(table)
            return n, unit, None, "table"
        fits = [(p.devices, p.unit, p.hardware) for p in self.free_plans(f) if p.fits]
        served = [r for r in self.r.of("estimate_inference", InferenceResult) if r.value and r.value.fits]
        # the estimate within the user's devices counts when it is the only one (it is the fewest that fit there too)
        unbounded = [r for r in served if not r.arg("max_devices")] or served
        fits += [(r.value.devices, r.value.unit, r.value.hardware) for r in unbounded if r.value]
        if fits:
            n, unit, hw = min(fits)
            return n, unit, hw, "estimate"
        return None

    def same_asked(self, writers: list[Any], like: bool = False) -> str:
        """"do the two give the same count?", "一样吗": yes or no on the two variants' fewest counts being equal, said
        before them; '' when not asked or a count is missing."""
        counts = [w.fewest_count(like) for w in writers]
        if not SAME_ASKED.search(self.s.question.lower()) or len(counts) != 2 or not all(isinstance(c, tuple) for c in counts):
            return ""
        (na, ua, *_), (nb, ub, *_) = counts
        if ua.lower() != ub.lower():
            return ""
        return self.say("compared_same_yes" if na == nb else "compared_same_no")

    def count_difference(self, writers: list[Any], labels: list[str], like: bool = False) -> str:
        """Two variants' fewest counts in one unit ("gemma3-27b vs internvl2.5-38b — which needs more, by how much?"):
        which needs more and the difference, said after the two counts; nothing when a count is missing."""
        counts = [w.fewest_count(like) for w in writers]
        if len(counts) != 2 or not all(isinstance(c, tuple) for c in counts):
            return ""
        (na, ua, *_), (nb, ub, *_) = counts
        if ua.lower() != ub.lower():
            return ""
        if na == nb:
            return self.say("compared_same", a=labels[0], b=labels[1])
        (big, nbig), (small, nsmall) = sorted(zip(labels, (na, nb), strict=True), key=lambda x: -x[1])
        if self.lang == "en" and not any(c.isdigit() or c.isupper() for c in big):
            big = big[:1].upper() + big[1:]  # "full fine-tuning" opens the sentence (a model id keeps its spelling)
        return self.say("compared_more", big=big, small=small, diff=self.devices(nbig - nsmall, ua),
                        ratio=f"{nbig / nsmall:.3g}")

    @staticmethod
    def served_estimate(w: Any) -> InferenceResult | None:
        """A variant's serving estimate: the layout searched within the devices (largest_layout), else the fitting one."""
        calls = w.r.of("estimate_inference", InferenceResult)
        return next((c.value for c in calls if c.value and c.arg("largest_layout")), None) or next(
            (c.value for c in calls if c.value and c.value.fits), None)

    def serving_change(self, writers: list[Any], labels: list[str]) -> str:
        """"tensor parallel 用 4 还是 8", "util 0.8 vs 0.9": each value's serving estimate side by side — its layout, the
        tokens its KV cache holds and the sequences of the length asked — and, on the user's devices, how many copies
        of each layout they run; the one with more KV room per copy named. '' when an estimate is missing."""
        found = [self.served_estimate(w) for w in writers]
        ests = [r for r in found if r is not None]
        if len(ests) != 2:
            return ""
        have = self.e.devices or 0
        parts = []
        for label, w, r in zip(labels, writers, ests, strict=True):
            copies = have // r.devices if r.fits and have >= 2 * r.devices else 0
            parts.append(self.say("serving_change_item", label=label, layout=w.layout(r), tokens=f"{r.kv_tokens_fit:,}",
                                  many=seqs(r.max_sequences_at_len, r.max_model_len, self.zh),
                                  copies=self.say("serving_change_copies", n=copies) if copies else "")
                         if r.fits else self.say("serving_change_none", label=label, layout=w.layout(r)))
        a, b = ests
        best = max(range(2), key=lambda i: (ests[i].fits, ests[i].kv_tokens_fit))
        return self.say("serving_change", items=self.say("semicolon").join(parts), best=labels[best],
                        util=f"{b.gpu_memory_utilization:g}", precision=writers[1].precision(b))

    def kv_change(self, writers: list[Any]) -> str:
        """"fp8 vs bf16 KV cache", "int8 kv 的话 token 容量是两倍吗": the tokens the KV cache holds at each precision (the
        estimate of each variant, on its layout), their ratio, and yes or no first when a factor is asked; '' when an
        estimate is missing."""
        ests = [r for r in (self.served_estimate(w) for w in writers) if r is not None]
        if len(ests) != 2 or not ests[0].kv_tokens_fit:
            return ""
        a, b = ests
        ratio = b.kv_tokens_fit / a.kv_tokens_fit
        q = self.s.question.lower()
        key = "kv_change"
        if DOUBLES.search(q):
            want = 0.5 if HALVES.search(q) else 2.0
            key = "kv_change_yes" if abs(ratio - want) <= 0.1 * want else "kv_change_no"
        where = writers[1].layout(b) + (self.say("kv_change_layouts", other=writers[0].layout(a)) if
                                        (a.devices, a.tp) != (b.devices, b.tp) else "")
        return self.say(key, a=kv_name(a), b=kv_name(b), ta=f"{a.kv_tokens_fit:,}", tb=f"{b.kv_tokens_fit:,}",
                        pa=f"{a.kv_bytes_per_token / 1024:g}", pb=f"{b.kv_bytes_per_token / 1024:g}", ratio=f"{ratio:.2f}",
                        where=where, util=f"{b.gpu_memory_utilization:g}", precision=writers[1].precision(b))

    def change_lead(self, writers: list[Any], labels: list[str], like: bool) -> str:
        """A follow-up asking whether the count changes with the value it changes (frame ``effect_of``, "bumping cutoff to
        8192, does that number go up?", "改成 4k 能省卡吗"): per pair of variants that differ only in that value, whether the
        fewest count goes up, down or stays, both counts beside it; '' when not asked or a count is missing."""
        if not self.s.effect_of:
            return ""
        many, asked = self.s.effect_of
        one = dict(COMPARED)[many]
        width = len(getattr(self.s, many) or [])
        if width != 2 or len(writers) % 2:
            return ""
        said = []
        for k in range(0, len(writers), 2):  # the changed slot varies fastest (frame.variants)
            pair = writers[k:k + 2]
            counts = [w.fewest_count(like) for w in pair]
            if not all(isinstance(c, tuple) for c in counts) or counts[0][1].lower() != counts[1][1].lower():
                return ""
            (na, ua, ha, sa), (nb, ub, hb, sb) = counts
            a, b = (str(getattr(w.s, one)) for w in pair)
            rest = labels[k].replace(a, "").strip(" ·") if len(writers) > 2 else ""
            if each := self.change_each(pair, asked, a, b, rest):
                said.append(each)  # "does either column change?": each trainer's count of the table, not only the fewest
                continue
            outcome = "same" if na == nb else "up" if nb > na else "down"
            yes = outcome != "same" if asked == "any" else outcome == asked  # ("same": yes when it stays)
            said.append(self.say(f"change_{outcome}", yes=self.say("change_yes" if yes else "change_no"), a=a, b=b,
                                 fa=self.say(f"fewest_{sa}", n=self.devices(na, ua, ha)), fb=self.say(f"fewest_{sb}", n=self.devices(nb, ub, hb)),
                                 ratio=f"{nb / na:.3g}" if na else "", rest=self.say("change_rest", rest=rest) if rest else ""))
            points = [w.plan_point() for w in pair] if "memory" in self.s.intents else []
            if points and all(points) and points[0][1] == points[1][1]:  # "占用有区别没": the memory per device of each too
                (ga, dev, na_, wa), (gb, _, nb_, wb) = points
                said[-1] += self.say("change_memory", a=a, b=b, fa=self.say("factor_memory", gib=f"{ga:.1f}", dev=dev) + self.say("saved_on", plan=wa, n=na_),
                                     fb=self.say("factor_memory", gib=f"{gb:.1f}", dev=dev) + self.say("saved_on", plan=wb, n=nb_))
        return self.say("semicolon").join(said)

    def change_each(self, pair: list[Any], asked: str, a: str, b: str, rest: str) -> str:
        """The change asked with no trainer named, where the minimum-card table has a column per trainer for both values
        ("cutoff doubled to 8192 — does either column change?"): each trainer's count from ``a`` to ``b``, the changed ones
        first, and yes or no on the change asked (any trainer's); '' when a trainer's column is missing for one value."""
        if self.s.framework:
            return ""
        cols = []
        for w in pair:
            col: dict[str, tuple[int, str]] = {}
            for r in w.wanted_rows(w.training_facts().rows):
                if r.supported and r.cards and (r.framework not in col or r.cards < col[r.framework][0]):
                    col[r.framework] = (r.cards, r.unit)
            cols.append(col)
        both = [fw for fw in cols[0] if fw in cols[1] and cols[0][fw][1].lower() == cols[1][fw][1].lower()]
        if len(both) < 2:
            return ""
        moves = {fw: "same" if cols[0][fw][0] == cols[1][fw][0] else "up" if cols[1][fw][0] > cols[0][fw][0] else "down" for fw in both}
        yes = (set(moves.values()) == {"same"}) if asked == "same" else any(
            m != "same" if asked == "any" else m == asked for m in moves.values())
        items = [self.say(f"change_each_{moves[fw]}", fw=fw, na=self.devices(cols[0][fw][0], cols[0][fw][1], None),
                          nb=self.devices(cols[1][fw][0], cols[1][fw][1], None), ratio=f"{cols[1][fw][0] / cols[0][fw][0]:.3g}")
                 for fw in sorted(both, key=lambda fw: moves[fw] == "same")]
        return self.say("change_each", yes=self.say("change_yes" if yes else "change_no"), a=a, b=b,
                        items=self.say("semicolon").join(items), rest=self.say("change_rest", rest=rest) if rest else "")

    def factor_asked(self, writers: list[Any], labels: list[str]) -> str:
        """"from 8k to 16k, does the card count double?", "减半吗": yes or no on the factor asked, from the two variants'
        fewest counts in the order written, then both counts; '' when no factor is asked or a count is missing."""
        q = self.s.question.lower()
        if DOUBLES.search(q) and "memory" in self.s.intents and len(writers) == 2 and all(w.memory_point() for w in writers):
            return self.memory_factor(writers, labels, 0.5 if HALVES.search(q) else 2.0)
        counts = [w.fewest_count() for w in writers]
        if not DOUBLES.search(q) or len(counts) != 2 or not all(isinstance(c, tuple) for c in counts):
            return ""
        (na, ua, ha, sa), (nb, ub, hb, sb) = counts
        if ua.lower() != ub.lower() or not na:
            return ""
        want = 0.5 if HALVES.search(q) else 2.0
        ratio = nb / na
        word = ("factor_yes" if abs(ratio - want) < 0.05 * want else
                "factor_more" if (ratio > want if want > 1 else ratio < want) else "factor_no")
        return self.say(word, a=labels[0], b=labels[1], fa=self.say(f"fewest_{sa}", n=self.devices(na, ua, ha)),
                        fb=self.say(f"fewest_{sb}", n=self.devices(nb, ub, hb)), ratio=f"{ratio:.3g}")

    def memory_point(self) -> tuple[float, str] | None:
        """This variant's memory per device, GiB, and what a device is called: the estimate of the setup asked, else the
        plan's."""
        m = next(iter(self.r.values("estimate_training_memory", TrainingMemoryResult)), None)
        if m is not None:
            return m.total_gib, self.per_device(m.unit, m.hardware)
        plan = next((p for p in self.r.values("plan_training", PlanResult) if p.fits), None)
        return (plan.memory.total_gib, self.per_device(plan.unit, plan.hardware)) if plan is not None else None

    def memory_saved(self, writers: list[Any], labels: list[str]) -> str:
        """"换成 MindSpeed-LLM 同样 8 张卡能省点显存吗": yes or no on the later setup needing less memory per device than the
        earlier one, both estimates and the difference beside it; '' when not asked or an estimate is missing."""
        if not MEMORY_SAVED_ASKED.search(self.s.question) or len(writers) != 2:
            return ""
        points = [w.plan_point() for w in writers]
        if not all(points):
            return ""
        (ga, dev, na, wa), (gb, dev_b, nb, wb) = points
        if dev != dev_b:
            return ""
        fa = self.say("factor_memory", gib=f"{ga:.1f}", dev=dev) + self.say("saved_on", plan=wa, n=na)
        fb = self.say("factor_memory", gib=f"{gb:.1f}", dev=dev) + self.say("saved_on", plan=wb, n=nb)
        if self.s.origin("model") == "conversation":  # a follow-up: the setup it moves to (the later one) is asked about
            return self.say("saved_yes" if gb < ga else "saved_no", a=labels[0], b=labels[1], diff=f"{abs(ga - gb):.1f}", fa=fa, fb=fb)
        # one question naming both ("does LoRA save memory vs full?"): the one that needs less, whichever was named first
        (small, fs, _), (big, fbig, _) = sorted(((labels[0], fa, ga), (labels[1], fb, gb)), key=lambda x: x[2])
        return self.say("saved_less", small=small, big=big, diff=f"{abs(ga - gb):.1f}", fs=fs, fbig=fbig)

    def headroom_compared(self, writers: list[Any], labels: list[str]) -> str:
        """"H100 80GB vs snt9b 64GB, 哪个余量大": each variant's free memory per device (usable minus the estimate its block
        states, headroom_point; Writer.headroom words it); '' when not asked or a variant has no estimate that fits."""
        if not HEADROOM_ASKED.search(self.s.question) or len(writers) < 2:
            return ""
        points = [w.headroom_point() for w in writers]
        if not all(points):
            return ""
        return self.headroom([(label, *point) for point, label in zip(points, labels, strict=True) if point])

    def headroom_point(self) -> tuple[float, float, str, str] | None:
        """This variant's memory per device as its block states it (stated_plan), the usable memory per device, what a
        device is called, and the layout and devices it is sized on; None without a plan that fits."""
        if (p := self.stated_plan()) is None:
            return None
        how = self.say("headroom_how", plan=self.parallel(p.zero_stage, p.offload, p.tp, p.pp, p.cp, p.ep),
                       n=self.devices(p.devices, p.unit, p.hardware))
        return float(self.point(p.memory)), p.memory.usable_gib, self.per_device(p.unit, p.hardware), how

    def stated_plan(self) -> PlanResult | None:
        """The plan this variant's block states: the one within the user's devices that fits, else any that fits."""
        plans = self.r.of("plan_training", PlanResult)
        fit = [r.value for r in plans if r.value and r.value.fits and r.arg("max_devices")] or [
            r.value for r in plans if r.value and r.value.fits]
        return fit[0] if fit else None

    def plan_point(self) -> tuple[float, str, str, str] | None:
        """This variant's memory per device as its block states it (stated_plan), with its device count and layout; None
        without one."""
        if (p := self.stated_plan()) is None:
            return None
        return (float(self.point(p.memory)), self.per_device(p.unit, p.hardware), self.devices(p.devices, p.unit, p.hardware),
                self.parallel(p.zero_stage, p.offload, p.tp, p.pp, p.cp, p.ep))

    def memory_factor(self, writers: list[Any], labels: list[str], want: float) -> str:
        """"GA 从 8 改成 16，显存会翻倍吗": yes or no on the factor asked of the memory per device, both figures beside it."""
        (ga, dev), (gb, _) = writers[0].memory_point(), writers[1].memory_point()
        ratio = gb / ga if ga else 0.0
        word = ("factor_yes" if abs(ratio - want) < 0.05 * want else
                "factor_more" if (ratio > want if want > 1 else ratio < want) else "factor_no")
        return self.say(word, a=labels[0], b=labels[1], fa=self.say("factor_memory", gib=f"{ga:.1f}", dev=dev),
                        fb=self.say("factor_memory", gib=f"{gb:.1f}", dev=dev), ratio=f"{ratio:.3g}")

    def in_nodes(self, n: int, unit: str) -> str:
        """" = 2 nodes" when nodes are asked ("how many Snt9B nodes, and how many Snt9B23 nodes?"): the variant's own
        devices per node (in its unit: 8 cards on Snt9B, 16 DIE on Snt9B23) from the hardware catalog."""
        per = self.e.per_node
        if not (per and NODES_ASKED.search(self.s.question.lower())) or (unit.lower() == "die") != (self.e.facts.unit == "die"):
            return ""
        return " = " + self.nodes(-(-n // per))
