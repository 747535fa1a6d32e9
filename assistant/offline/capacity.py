""""Can I do it with the devices I have?": a direct yes or no, first, from the vendor tables'
minimum counts and the estimator's plan within the user's count (plan_training with max_devices)
against the plan without a cap (what the job needs)."""

from __future__ import annotations

import re

from .route import table_strategy
from .wording import Writer


class CapacityBlocks(Writer):
    def wanted_rows(self, rows: list[dict]) -> list[dict]:
        """The minimum-card rows of the framework asked (all frameworks when none was named)."""
        fw = self.s.framework
        return [r for r in rows if not fw or r["framework"] == fw]

    def setting(self, p: dict) -> str:
        """'ZeRO-3 + offload, ~29.4 GiB per GPU' from a plan_training result."""
        if p.get("zero_stage") is not None:
            par = f"ZeRO-{p['zero_stage']}" + (" + offload" if p.get("offload") else "")
        else:
            par = f"TP {p.get('tp')} × PP {p.get('pp')}" + (f" × CP {p['cp']}" if (p.get("cp") or 1) > 1 else "")
        par = f"{self.fw_name(p)} {par}"
        mem = (p.get("memory") or {}).get("total_gib")
        if isinstance(mem, int | float):
            per = self.per_device(p.get("unit"), p.get("hardware"))
            par += self.L(f", about {mem:.1f} GiB per {per}", f"，每{per}约 {mem:.1f} GiB")
        return par

    def have(self) -> str:
        """The user's count as they said it, with DIE beside cards on Snt9B23 ('16 cards (32 DIE)')."""
        have, s = self.e.devices, self.s
        if self.e.hardware == "snt9b23":
            if s.devices and s.device_unit == "card":
                return self.L(f"{s.devices} cards ({have} DIE)", f"{s.devices} 张卡（{have} DIE）")
            return self.devices(have, "DIE")
        return self.devices(have)

    def table_needs(self, strategy: str | None, recipes: list[dict], rows: list[dict]) -> list[tuple[str, int, str]]:
        """(who, devices, unit) for every vendor row of this strategy: minimum-card rows of the asked framework, recipe rows."""
        recipe = [(self.L("LLaMA-Factory recipe table", "LLaMA-Factory 配方表"), r["total_cards"], "card")
                  for r in recipes if strategy is None or r["strategy"] == strategy]
        # beside a recipe row, say which table a LLaMA-Factory minimum-card row comes from
        table = self.L(" minimum-card table", " 最小卡数表") if recipe else ""
        needs = [(r["framework"] + (table if r["framework"] == "LLaMA-Factory" else ""), r["cards"], r["unit"])
                 for r in self.wanted_rows(rows) if r["supported"] and r["cards"] and (strategy is None or r["strategy"] == strategy)]
        return needs + recipe

    def verdict(self, recipes: list[dict], rows: list[dict]) -> str | None:
        """One sentence per method: yes/no for the user's device count, said before any detail."""
        have = self.e.devices
        if not have:
            return None
        methods = [self.s.method] if self.s.method else self.e.strategies
        many = len(methods) > 1
        verdicts = [self.method_verdict(m, have, recipes, rows, many) for m in methods]
        parts = [p for p in verdicts if p]
        return (" " if not self.zh else "").join(parts) or None

    def method_verdict(self, method: str, have: int, recipes: list[dict], rows: list[dict], many: bool) -> str | None:
        plans = [d for d in self.results("plan_training") if d.args.get("method") == method]
        free = next((d.result for d in plans if not d.args.get("max_devices")), None)
        capped = [d.result for d in plans if d.args.get("max_devices")]
        fitting = next((p for p in capped if p.get("fits")), None)
        needs = self.table_needs(table_strategy(method), recipes, rows)
        yours = self.L(f"your {self.have()}", f"你的 {self.have()}")
        if self.zh and yours[-1].isascii() and yours[-1].isalnum():
            yours += " "  # "你的 8 DIE 可以放下"
        lead = f"{self.method_name(method)}{self.L(': ', '：')}" if many else ""
        sep = self.L("; ", "；")
        if needs:
            ok = [(w, self.devices(n, u)) for w, n, u in needs if n <= have]
            short = [(w, self.devices(n, u)) for w, n, u in needs if n > have]
            if ok:
                line = self.L(f"**Yes.** Your {self.have()} {'covers' if have == 1 else 'cover'} the vendor minimum for "
                              + ", ".join(f"{w} ({n})" for w, n in ok),
                              f"**够**。{yours}满足厂商最小卡数：" + "，".join(f"{w}（{n}）" for w, n in ok))
                if short:
                    line += self.L("; not for " + ", ".join(f"{w}, which needs {n}" for w, n in short),
                                   "；" + "，".join(f"{w} 需要 {n}" for w, n in short) + "，不够")
                return lead + line + self.L(".", "。")
            who, n, unit = min(needs, key=lambda x: x[1])
            line = self.L(f"**Not by the vendor tables**: they list at least {self.devices(n, unit)} ({who}), you have {self.have()}.",
                          f"**按厂商表格不够**：表格至少需要 {self.devices(n, unit)}（{who}），你只有 {self.have()}。")
            if fitting:
                line += self.L(f" The memory estimate does fit {yours} with {self.setting(fitting)} — below the vendor's tested "
                               "minimum, so unverified and slower than the table's setup.",
                               f"按显存估算，{yours}可以放下：{self.setting(fitting)}——低于厂商实测的最小卡数，未经验证，速度也会更慢。")
            elif capped:
                line += self.L(f" The estimate finds no setting that fits {yours} either.", f"按估算，{yours}也没有能放下的设置。")
            return lead + line
        if fitting:
            line = self.L(f"**Yes** (estimate): it fits {yours} with {self.setting(fitting)}",
                          f"**可以**（估算）：{yours}可以放下，{self.setting(fitting)}")
            if free and free.get("fits") and (free["devices"] != fitting["devices"] or free.get("offload") != fitting.get("offload")):
                line += self.L(f"{sep}the fastest setting uses {self.devices(free['devices'], free.get('unit'), free.get('hardware'))} "
                               f"with {self.setting(free)}",
                               f"{sep}最快的设置需要 {self.devices(free['devices'], free.get('unit'), free.get('hardware'))}，{self.setting(free)}")
            return lead + line + self.L(".", "。")
        if capped:
            line = self.L(f"**No** (estimate): nothing fits {yours}", f"**不够**（估算）：{yours}放不下")
            if free and free.get("fits"):
                line += self.L(f"{sep}it needs {self.devices(free['devices'], free.get('unit'), free.get('hardware'))} "
                               f"with {self.setting(free)}",
                               f"{sep}需要 {self.devices(free['devices'], free.get('unit'), free.get('hardware'))}，{self.setting(free)}")
            return lead + line + self.L(".", "。")
        return None

    # -- nothing fits at any count -------------------------------------------------------------
    def no_fit_why(self, p: dict) -> str | None:
        """Why a plan without a device limit fits nowhere, in one clause, when its result says so: PPO
        without ZeRO-3 (every device holds each model's weights), or a sequence whose activations and
        loss alone exceed a device (ZeRO splits model states only)."""
        notes = " ".join(str(n) for n in p.get("notes") or []).lower()
        if p.get("stage") == "ppo" and p.get("framework") == "LLaMA-Factory" and p.get("zero_stage") != 3:
            models = [("policy", "策略模型")] + [("reference", "参考模型")] * ("reference model" in notes) \
                + [("reward", "奖励模型")] * ("full reward model" in notes)
            en = ", ".join(m for m, _ in models[:-1]) + (" and " if len(models) > 1 else "") + models[-1][0]
            return self.L(f"PPO cannot use ZeRO-3 on ModelArts, so the weights of the {en} model{'s' if len(models) > 1 else ''} "
                          "are replicated on every device",
                          f"ModelArts 上 PPO 不能使用 ZeRO-3，{'、'.join(z for _, z in models)}的权重在每张卡上各存一份")
        m = re.search(r"alone take ([\d.]+) GiB", p.get("note") or "")
        if m:
            return self.L(f"at {p.get('seq_len')} tokens the activations and loss alone take {m.group(1)} GiB per device, and ZeRO "
                          "splits only the model states", f"序列长度 {p.get('seq_len')} 时，仅激活和 loss 每卡就要 {m.group(1)} GiB，"
                          "而 ZeRO 只切分模型状态")
        return None

    def no_fit_alternative(self, p: dict) -> str | None:
        """What does fit, as shown below it: MindSpeed-LLM, LoRA, or a shorter sequence (the tool's longest cutoff_len)."""
        alts = []
        for d in self.results("plan_training"):
            q = d.result
            if d.args.get("max_devices") or not q.get("fits"):
                continue
            devs = self.devices(q["devices"], q.get("unit") or "card", q.get("hardware"))
            if q.get("framework") != p.get("framework") and q.get("method") == p.get("method"):
                alts.append(self.L(f"{self.fw_name(q)} fits it on {devs} ({self.setting(q).split(' ', 1)[1]}, below)",
                                   f"{self.fw_name(q)} 可以放下：{devs}（{self.setting(q).split(' ', 1)[1]}，见下）"))
            elif q.get("method") != p.get("method") and q.get("framework") == p.get("framework"):
                what = self.method_name(q.get("method")) + (f" {str(q.get('stage')).upper()}" if q.get("stage") not in (None, "sft") else "")
                alts.append(self.L(f"{what} fits on {devs} (below)", f"{what}可以放下：{devs}（见下）"))
        m = re.search(r"at most (\d+) tokens per sequence fit", p.get("note") or "")
        if m:
            alts.append(self.L(f"a sequence of at most {m.group(1)} tokens (cutoff_len) fits", f"序列长度不超过 {m.group(1)}（cutoff_len）时可以放下"))
        return self.L("; ", "；").join(alts) or None

    def no_fit_text(self, p: dict) -> str:
        """'does not fit at any device count — <why>; <what fits instead>' (estimate)."""
        mem = p.get("memory") or {}
        why = self.no_fit_why(p)
        alt = self.no_fit_alternative(p)
        need = self.L(f"each device needs {mem.get('total_gib', 0):.1f} GiB of {mem.get('usable_gib', 0):.1f} even with the most "
                      "memory-saving setting", f"即使用最省显存的设置，每卡仍需 {mem.get('total_gib', 0):.1f} GiB，可用 "
                      f"{mem.get('usable_gib', 0):.1f} GiB")
        text = self.L(f"does not fit at any device count — {why or need}", f"在任何卡数下都放不下——{why or need}")
        if why:
            text += self.L(f" ({need})", f"（{need}）")
        if alt:
            text += self.L(". Instead: ", "。可改用：") + alt
        return text
