"""The answer to "what does the MindSpeed-LLM example script set for X": the script's own values (mindspeed_example), with
DP and gradient accumulation derived from them; a model with no script is said to have none, never given a made-up plan
in its place (round 13 c7-12: an estimated TP 2 PP 1 MBS 1 instead of the script's TP 4 PP 2 EP 2 MBS 4 GBS 64)."""

from __future__ import annotations

from ..tools.examples import ExampleScript, MindSpeedExampleResult
from .results import Result
from .wording import Writer

SHOWN_OTHERS = 12  # models with a script named when the one asked has none


class ExampleBlocks(Writer):
    def example_scripts(self, call: Result[MindSpeedExampleResult]) -> list[str]:
        r = call.value
        if r is None:
            return [f"- {self.error_text(call)}"]
        if not r.found:
            others = ", ".join(r.models_with_scripts[:SHOWN_OTHERS]) + (" …" if len(r.models_with_scripts) > SHOWN_OTHERS else "")
            return [self.lead(self.say("example_none", model=r.model_id, others=others)), ""]
        first, *rest = r.scripts
        self.cite(first.source)
        head = self.say("example_found" if r.exact else "example_other", model=r.model_id, n=len(r.scripts))
        return [self.lead(head + " " + self.script_line(first)), *[f"- {self.script_line(x)}" for x in rest],
                self.say("example_derived", dp=first.dp, devices=first.devices, tp=first.tp, pp=first.pp, cp=first.cp or 1,
                         ga=first.grad_accum, gbs=first.gbs, mbs=first.mbs), ""]

    def script_line(self, x: ExampleScript) -> str:
        unit = self.say("unit_die") if x.unit == "die" else self.say("unit_card")
        extra = "".join(f"{self.say('comma')}{name} {v}" for name, v in (("CP", x.cp), ("EP", x.ep)) if v)
        return self.say("example_line", script=x.script, devices=x.devices, unit=unit, tp=x.tp, pp=x.pp, extra=extra,
                        mbs=x.mbs, gbs=x.gbs, seq=x.seq_len, method=x.method, stage=x.stage)
