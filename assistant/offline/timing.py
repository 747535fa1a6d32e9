"""Training-time block of the answer: the vendor's formula first, then estimate_training_time's
number with its basis and every assumption, or, when no throughput is known (Ascend: no published
TPS table, no BF16 figure), the formula with the user's own numbers put in and how to measure TPS."""

from __future__ import annotations

import re
from typing import NamedTuple

from ..estimate.derived import MODEL_FREE
from ..tools.derived_tools import DerivedResult
from ..tools.tables import MinCardsResult, TrainingRecipeResult
from ..tools.time_tools import TrainingTimeResult
from .results import Result
from .wording import Writer

FORMULA = {
    "en": "ModelArts estimates training time as **Time = tokens / (TPS × N) / η**: TPS is the measured training throughput "
          "in tokens/s per card, N the number of cards, η the linear speed-up factor (typically ≥ 0.9).",
    "zh": "ModelArts 的训练时间估算公式为 **Time = tokens / (TPS × N) / η**：TPS 为每卡每秒训练的 token 数（实测吞吐），"
          "N 为卡数，η 为线性度（加速比，一般 ≥ 0.9）。",
}
NEEDS = {
    "en": "For a number, give the model, the training tokens (or samples × sequence length × epochs), the card count and, "
          "on Ascend, your measured TPS (the vendor's TPS table is not published).",
    "zh": "如需具体数字，请给出模型、训练 token 总数（或样本数 × 序列长度 × 轮数）、卡数；在昇腾上还需要实测的 TPS（厂商的 TPS 基准表未公开）。",
}
MEASURE = {
    "en": "Measure TPS by running a few hundred steps of the real job and reading tokens/s per card from the MindSpeed-LLM log "
          "(or LLaMA-Factory's train_runtime), then ask again with e.g. “TPS 1500”.",
    "zh": "TPS 的获取方法：用真实任务跑几百步，从 MindSpeed-LLM 日志（或 LLaMA-Factory 的 train_runtime）读出每卡 tokens/s，"
          "再带上例如“TPS 1500”重新提问。",
}


# What makes a "how long" a training's duration: training named, its data or throughput ("token 多久过期" asks how long an
# auth token stays valid, "ckpt 保存多久超时" a timeout: the training-time formula answers neither)
TRAINING_SUBJECT = re.compile(r"train|训练|微调|fine-?tun|pre-?train|预训练|epoch|(?<![a-z])tps(?![a-z])|吞吐|throughput|样本|samples?|数据集|"
                              r"dataset|iteration|迭代|(?<![a-z])steps?(?![a-z])|步", re.I)


# "等多久会超时", "how long before the save times out": the duration of a timeout, a limit the notes state
TIMEOUT_ASKED = re.compile(r"超时|time[\s-]?outs?|timed\s+out|times\s+out|过期|expire", re.I)
# the unit the run's length is asked in ("how many days of training?", "-> hours?", "要训几天", "几个小时")
DAYS_ASKED = re.compile(r"how\s+many\s+days|(?<![a-z])in\s+days(?![a-z])|(?:->|=>|→)\s*days?\s*[?？]|几天|多少天", re.I)
HOURS_ASKED = re.compile(r"how\s+many\s+(?:hours|hrs?)(?![a-z])|(?<![a-z])in\s+hours(?![a-z])|(?:->|=>|→)\s*(?:hours?|hrs?|h)\s*[?？]|几个?\s*小时|多少\s*(?:个)?\s*小时", re.I)


class _Devices(NamedTuple):
    """The device count a time is asked for, when the time tool returned no result to read it from."""

    devices: int
    unit: str
    hardware: str


class TimeBlocks(Writer):
    """Blocks for "how long will training take" questions."""

    def training_time(self) -> list[str]:
        serving = "inference" in self.s.intents and not ("train" in self.s.intents or self.s.method)
        if "time" not in self.s.intents or serving:  # a serving question's "timeout, how long" is not a training time
            return []
        calls = self.r.of("estimate_training_time", TrainingTimeResult, ok=None)
        # a run's time from its log, the tokens a window holds, the TPS a deadline needs: the formula worked
        if not calls and any(str(c.arg("quantity")) in MODEL_FREE and c.value for c in self.r.of("derive_quantity", DerivedResult)):
            return []  # the figure led with its formula (quantity_blocks.py): no formula left to fill in
        if not calls:
            if not (self.s.model or self.s.tokens or self.s.tps or self.s.method or TRAINING_SUBJECT.search(self.s.question)):
                return []  # a duration of something else (a token's validity, a timeout): the notes answer it
            if TIMEOUT_ASKED.search(self.s.question) and not (self.s.tokens or self.s.tps):
                return []  # "训练完保存 ckpt 时等多久会超时": a timeout's length, though training is named
            return [self.lead(FORMULA[self.lang]), "- " + NEEDS[self.lang], ""]
        lines: list[str] = []
        for call in calls:
            lines += self.time_result(call.value) if call.value else self.time_missing(call)
        return lines + [""]

    def duration(self, seconds: float) -> str:
        """The run's length in the unit the question asks ("how many days", "-> hours?", "几天"), else the one that reads
        best: minutes under an hour, hours under two days, days beyond."""
        hours = seconds / 3600
        if DAYS_ASKED.search(self.s.question) and hours >= 1:
            return self.say("duration_days_hours", days=hours / 24, hours=hours)
        if hours < 1:
            return self.say("duration_minutes", value=seconds / 60)
        if hours < 48 or HOURS_ASKED.search(self.s.question):
            return self.say("duration_hours", hours=hours)
        return self.say("duration_days", value=hours / 24)

    def time_result(self, r: TrainingTimeResult) -> list[str]:
        devs = self.devices(r.devices, r.unit, r.hardware)
        if self.s.origin("devices") == "last_answer":  # the job's count from the answer above, not one the user typed
            devs += self.say("devices_from_last_answer")
        tokens = f"{r.tokens:,.0f}"
        took = self.say("time_result_text", duration=self.duration(r.seconds))
        secs = self.say("time_result_text_2", seconds=r.seconds)
        sep = self.say("semicolon")
        if r.basis == "vendor_formula":
            head = self.say("time_result_for_tokens_on", took=took, secs=secs, tokens=tokens, devs=devs, tps_per_device=r.tps_per_device)
        else:
            head = self.say("time_result_rough_estimate_for", took=took, secs=secs, tokens=tokens, devs=devs)
        # a deadline asked, or (no deadline) fewer devices than the table's row ("如果只有 32 张呢"): said before the time
        first = self.deadline_line(r) or self.below_floor(r)
        lines = [self.lead(first), f"- {head}"] if first else [self.lead(head)]
        lines += [self.say("time_result_formula") + f"`{r.formula}`",
                 self.say("time_result_assumptions") + sep.join(r.assumptions if not self.zh else self.assumptions_zh(r))]
        total = self.s.settings.get("tps_total")
        if total and not self.s.tps and r.basis == "vendor_formula":  # "整机吞吐 9600": the division the TPS came from
            lines.append(self.say("time_rate_of_all", total=total, devs=devs, n=r.devices, per=r.tps_per_device))
        if r.basis == "flops_estimate":
            lines.append(self.say("time_result_implied_throughput_tokens", tps_per_device=r.tps_per_device))
        if self.zh:  # the tool's notes, said in Chinese
            lines.append("- 厂商的卡数规则：超过 8 张时向上取整为 8 的倍数，且不少于该模型的最小卡数；还需确认显存放得下。")
            if r.basis == "flops_estimate":
                lines.append("- 6·P·T 对应全参微调；LoRA 省去大部分权重梯度（约 4·P·T），所以对 LoRA 而言此估算偏长。")
        else:
            lines += [f"- {n}" for n in r.notes]
        self.cite(r.source)
        return lines

    def deadline_line(self, r: TrainingTimeResult) -> str:
        """The deadline the user stated, answered first: whether their own devices meet it, or the devices it needs."""
        d = r.deadline
        if d is None:
            return ""
        deadline = (self.say("deadline_days", value=d.hours / 24) if d.hours >= 48 and d.hours % 24 == 0
                    else self.say("deadline_hours", value=d.hours))
        needed = self.devices(d.devices_needed, r.unit, r.hardware)
        on_needed = self.duration(d.hours_on_needed * 3600)
        if self.s.origin("devices") in ("said", "conversation"):  # the user's own devices: do they meet it?
            took = self.duration(r.seconds)
            key = "deadline_meets" if d.meets else "deadline_misses"
            return self.say(key, devs=self.devices(r.devices, r.unit, r.hardware), took=took, deadline=deadline,
                            needed=needed, formula=d.formula, on_needed=on_needed)
        rule = self.say("deadline_rule_multiple" if d.devices_needed > 8 else "deadline_rule_up")
        return self.say("deadline_needs", needed=needed, deadline=deadline, formula=d.formula, rule=rule,
                        on_needed=on_needed) + self.table_floor(d.devices_needed, r)

    def below_floor(self, r: TrainingTimeResult | _Devices, key: str = "time_below_floor") -> str:
        """The user's own devices below the minimum-card row of the job's framework (of every framework when none is
        named): said before the time, which the formula gives for any count."""
        if self.s.origin("devices") not in ("said", "conversation") or self.below_minimum_said:
            return ""
        rows = [row for call in self.r.of("min_cards", MinCardsResult) if call.value and call.arg("model") in (None, self.s.model)
                for row in call.value.rows if row.supported and row.cards and self.s.framework in (None, row.framework)]
        if not rows or any((row.cards or 0) <= r.devices for row in rows):
            return ""
        recipe = next((c.value for c in self.r.of("training_recipe", TrainingRecipeResult) if c.value and c.value.found
                       and c.value.total_cards and c.value.total_cards <= r.devices), None)
        if recipe is not None:  # the two vendor tables disagree: the recipe table's row allows these devices
            return ""
        floors = self.say("semicolon").join(f"{self.fw_name(row.framework, r.hardware)} {self.devices(row.cards, row.unit, r.hardware)}"
                                            for row in rows)
        self.below_minimum_said = True
        return self.say(key, devs=self.devices(r.devices, r.unit, r.hardware), floors=floors)

    def table_floor(self, needed: int, r: TrainingTimeResult) -> str:
        """The vendor's rule also keeps the count at or above the minimum-card table's row (ModelArts 590604: 且不小于
        最小卡数): the frameworks whose row asks more than the deadline's count, with that row."""
        rows = [row for call in self.r.of("min_cards", MinCardsResult) if call.value and call.arg("model") in (None, self.s.model)
                for row in call.value.rows if row.supported and row.cards and row.cards > needed]
        if not rows:
            return ""
        floors = self.say("semicolon").join(f"{self.fw_name(row.framework, r.hardware)} {self.devices(row.cards, row.unit, r.hardware)}"
                                            for row in rows)
        return ("" if self.zh else " ") + self.say("deadline_table_floor", floors=floors)

    def assumptions_zh(self, r: TrainingTimeResult) -> list[str]:
        """The tool's assumptions from its own fields, worded in Chinese."""
        out = []
        if self.s.samples and not self.s.tokens:
            out.append("token 数 = 样本数 × 序列长度 × 轮数（定长数据，动态长度会更少）")
        if r.basis == "vendor_formula":
            if r.speedup is not None and r.devices > 1:
                given = self.s.settings.get("speedup")  # a stated scaling efficiency ("利用率只有 60%") stands in for the vendor's 0.9
                out.append(f"线性度 η = {r.speedup:g}" + ("（按你给出的实际效率，代替厂商的 0.9）" if given == r.speedup else ""))
            out.append(f"TPS 为你给出的每卡 {r.tps_per_device:g} tokens/s")
            return out
        k = r.flops_per_param_token
        factor = f"{k}·P·T" + ("（全重计算）" if k == 8 else "（不含重计算）")
        return out + [f"MFU {r.mfu or 0:g}（默认假设，实测通常为 0.3–0.5）",
                      f"每卡 BF16 峰值 {r.peak_tflops or 0:g} TFLOPS（硬件目录）", f"计算量 {factor}"]

    def time_missing(self, call: Result[TrainingTimeResult]) -> list[str]:
        err = call.error
        if err.code != "no_throughput":
            return [self.say("time_missing_training_time_not", message=self.error_text(call))]
        hw = self.hw_name(call.arg("hardware"))
        formula = re.search(r"Time = .*?\) s", err.message)
        lines = [self.lead(self.say("time_missing_no_time_estimate", hw=hw)),
            "- " + FORMULA[self.lang]]
        if formula:
            lines.append(self.say("time_missing_with_your_numbers") + f"`{formula.group(0)}`"
                         + self.say("time_missing_tps_your_measured"))
        lines.append("- " + MEASURE[self.lang])
        hw_id, devices = call.arg("hardware"), call.arg("devices")
        if devices and (floor := self.below_floor(_Devices(int(devices), self.unit_of(hw_id), hw_id), "time_missing_below_floor")):
            lines.append("- " + floor)  # the formula's N is the user's count: below the table's minimum, said once
        return lines
