""""What fits" block of the answer: the largest model or the longest context on the user's devices,
from the what_fits tool. The figure leads; the plan the tool found for it (the planner's own result)
and the assumptions follow, so the number is never shown without the setting it holds for."""

from __future__ import annotations

from typing import Any

from ..resolve import variant_of
from ..tools.fits_tools import WhatFitsResult
from ..tools.tables import InferenceMinCardsResult, ModelInfo
from ..what_fits import MAX_CONTEXT
from .wording import Writer


class FitsBlocks(Writer):
    """Blocks for "what model can I fine-tune on X" and "what max context" questions."""

    def what_fits_block(self) -> list[str]:
        lines: list[str] = []
        calls = self.r.of("what_fits", WhatFitsResult, ok=None)
        # per-framework context searches: the longest first, since that answers "how long can it go"
        calls.sort(key=lambda c: -int(c.value.value or 0) if c.value is not None and c.value.goal == "context" else 0)
        for call in calls:
            if call.value is None:
                lines += [self.lead(self.say("what_fits_block_could_not_search", message=self.error_text(call))), ""]
                continue
            r = call.value
            where = self.devices(r.devices, (r.plan or {}).get("unit") or "card", r.hardware)
            where = f"{where}（{self.hw_name(r.hardware)}）" if self.zh else f"{where} ({self.hw_name(r.hardware)})"
            if r.value is None:
                fast = self.say("what_fits_block_without_offload") if r.offload_value else ""
                lines.append(self.lead(self.say("what_fits_block_no_catalog_model", where=where, fast=fast, tried=r.tried)
                                       if r.goal == "model" else
                                       self.say("what_fits_block_nothing_fits_on", where=where, tried=r.tried)))
            else:
                lines.append(self.lead(self.fits_lead(r, where)))
            if r.plan:
                lines.append(f"- {self.plan_line(r, r.plan)}")
            if r.offload_value and r.offload_plan:
                lines.append("- " + self.say("what_fits_block_slower_with_cpu", offload_value=r.offload_value)
                             + self.plan_line(r, r.offload_plan))
            lines.append("- " + self.say("what_fits_block_assumptions") + self.say("semicolon").join(self.fits_assumptions(r)))
            lines.append("")
        return lines

    def job(self, r: WhatFitsResult) -> str:
        if r.workload == "inference":
            conc = int((r.plan or {}).get("concurrency") or 1)  # "max-model-len for 16 concurrent": each of them that long
            return self.say("job_serving_concurrent", conc=conc) if conc > 1 else self.say("job_serving_with_vllm")
        method = self.method_name((r.plan or {}).get("method") or "lora")
        if len(self.r.of("what_fits", WhatFitsResult)) < 2:
            return method
        fw = (r.plan or {}).get("framework") or "LLaMA-Factory"  # searches per framework: each names its own
        return self.say("job_with", method=method, fw=fw)

    def fits_lead(self, r: WhatFitsResult, where: str) -> str:
        """The figure found, by the search's goal: the largest catalog model, the largest micro batch per device (serving:
        sequences of max-model-len at once), or the longest context and what limits it (the model or device memory)."""
        p = r.plan or {}
        length = p.get("seq_len") or p.get("max_model_len") or 0
        job = self.job(r)
        if self.zh:  # a space between Chinese and Latin text ("上 LoRA 微调"), none between Chinese
            job = (" " if job[:1].isascii() else "") + job + (" " if job[-1:].isascii() else "")
        n = 0 if r.goal == "model" else int(r.value or 0)  # the model search's value is a model id
        if r.goal == "batch" and r.workload == "inference":
            return self.say("biggest_batch_about_sequences_of", n=n, length=length, model=r.model, where=where)
        key = {"model": "fits_largest_model", "batch": "fits_biggest_batch"}.get(
            r.goal, "fits_context_model_limit" if r.limited_by == "model" else "fits_context_memory")
        tested = self.tested_length(r.devices) if self.headlined and r.workload == "inference" else 0
        if key == "fits_context_model_limit" and tested > n:
            # the vendor table's run (the headline above) goes past the model's own limit: both figures stand, and why
            return self.say("fits_context_below_tested", model=r.model, n=f"{n:,}", tested=f"{tested:,}", where=where,
                            memory_limit=self.memory_limit(r))
        ga = p.get("grad_accum")
        if r.model_limit_variant and key == "fits_context_model_limit":  # the variant whose own limit binds, by name
            key = "fits_context_variant_limit"
        # the variant the user named, or the one used when none is named (said as such)
        which = self.say("variant_named" if r.model_limit_variant_named else "variant_default", variant=r.model_limit_variant)
        return self.say(key, variant=which, job=job, where=where, length=length, value=r.value, model=r.model, n=f"{n:,}", memory_limit=self.memory_limit(r),
                        fast=self.say("largest_model_without_offload") if r.offload_value else "",
                        keep=self.say("biggest_batch_gradient_accumulation", ga=ga) if ga else "",
                        limit=(self.say("longest_context_variant_limit", model_limit=r.model_limit, variant=which)
                               if r.model_limit_variant else self.say("longest_context_the_model_itself", model_limit=r.model_limit))
                        if r.model_limit else "")

    def own_context(self) -> list[str]:
        """"The maximum context length of Qwen2.5-7B-Instruct?": the limit of the variant named (or the default one, said
        as such), the other variants' own limits beside it (model_variants.csv)."""
        if "model_context" not in self.s.intents:
            return []
        out: list[str] = []
        for m in self.r.values("resolve_model", ModelInfo):
            if not m.max_context:
                continue
            named = bool(m.context_variant and variant_of(self.s.model_text or ""))
            which = self.say("variant_named" if named else "variant_default", variant=m.context_variant) if m.context_variant \
                else self.say("own_context_config")
            others = [f"{name} {n:,}" for name, n in m.context_by_variant.items() if name != m.context_variant]
            out.append(self.lead(self.say("own_context", n=f"{m.max_context:,}", model=m.id, which=which)
                                 + (self.say("own_context_others", others=self.say("semicolon").join(others)) if others else "")))
            out.append("")
        return out

    def memory_limit(self, r: WhatFitsResult) -> str:
        """The length memory allows; the search's own ceiling is a lower bound, said as one."""
        m = r.memory_limit or 0
        return self.say("memory_limit_search_ceiling", n=m) if m >= MAX_CONTEXT else f"{m:,}"

    def tested_length(self, devices: int) -> int:
        """The longest max-model-len the ModelArts vLLM tables tested for the model on at most ``devices`` cards (0: none)."""
        rows = [row for call in self.r.of("inference_min_cards", InferenceMinCardsResult) if call.value for row in call.value.rows]
        return max((row.max_model_len or 0 for row in rows if row.supported and (row.cards or 0) <= devices), default=0)

    def plan_line(self, r: WhatFitsResult, p: dict[str, Any]) -> str:
        if "error" in p:
            return self.say("plan_line_plan", message=p['error'].get('message', ''))
        unit = p.get("unit") or "card"
        if r.workload == "inference":
            kv = p.get("kv_tokens_fit")
            if r.devices and (p.get("devices") or 0) < r.devices:  # the smallest layout serving the value, inside the user's count
                return self.say("plan_line_plan_estimate_inference_fewer", tp=p.get('tp'), max_model_len=p.get('max_model_len'), kv=kv,
                                devs=self.devices(p.get("devices"), unit, r.hardware), have=self.devices(r.devices, unit, r.hardware))
            return self.say("plan_line_plan_estimate_inference", tp=p.get('tp'), max_model_len=p.get('max_model_len'), kv=kv)
        setting = self.parallel(p.get("zero_stage"), p.get("offload"), p.get("tp"), p.get("pp"), p.get("cp"))
        per = (p.get("memory") or {}).get("total_gib")
        host = ((p.get("memory") or {}).get("host_ram_gib") or 0) if p.get("offload") else 0
        used = self.devices(p.get("devices"), unit, r.hardware)
        gib = self.say("plan_line_about_gib_per", per=per, per2=self.per_device(unit, r.hardware)) \
            if per else ""
        ram = self.say("plan_line_gib_host_ram", host=host) \
            if host else ""
        fw = self.fw_name(p.get("framework"), r.hardware)
        return self.say("plan_line_plan_plan_training", fw=fw, used=used, setting=setting, gib=gib, ram=ram)

    def fits_assumptions(self, r: WhatFitsResult) -> list[str]:
        """What the question left open and the search filled (one device, a part guessed from a memory size), then how
        each candidate was sized (the tool's assumptions; worded in Chinese for a Chinese answer)."""
        s, out = self.s, []
        unit = (r.plan or {}).get('unit') or 'card'
        if s.tp and r.workload == "inference":  # the stated TP sets the instance's devices (the tool's own line in English)
            if self.zh:
                out.append(self.say("fits_defaults_stated_tp", tp=s.tp, devs=self.devices(s.tp, unit, r.hardware)))
        elif not (s.devices or s.nodes):
            out.append(self.say("fits_defaults_one_device_give", devs=self.devices(r.devices, (r.plan or {}).get('unit') or 'card', r.hardware)))
        if s.hardware_guessed and s.memory_gb:
            out.append(self.say("fits_defaults_for_the_gb", part=self.hw_name(r.hardware), memory_gb=s.memory_gb))
        if not self.zh:
            return out + r.assumptions
        each = {"context": "每个长度", "batch": "每个 batch"}.get(r.goal, "每个规模")
        plan = r.plan or {}  # the serving settings the search used, from its plan (estimate_inference's own result)
        kv = plan.get("kv_cache_dtype") or "auto"
        bits = f"{self.s.weight_bits} 比特" if self.s.weight_bits else "模型原始精度"  # as the router passed it
        # no plan fits: the share the search was given (the user's, else vLLM's 0.9), never a default over the user's
        util = plan.get("gpu_memory_utilization") or self.s.gpu_util or 0.9
        out += [f"vLLM 推理，gpu-memory-utilization {util}，权重按{bits}"
               + (f"，KV cache 为 {kv.upper()}" if kv != "auto" else "") if r.workload == "inference" else
               f"{each}都用 plan_training 在这些卡内选的设置（ZeRO 阶段与 offload，或 TP/PP/CP）"]
        if r.goal == "model":
            out.append("“最大”指目录中能放下的生成式模型里参数最多的一个")
        return out
