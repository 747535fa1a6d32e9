"""The writer's block for the quantities a question asks besides a device count (quantity.py reads them): each one
first, with its value, the arithmetic that gives it and its source; the sizing blocks follow as support."""

from __future__ import annotations

from ..estimate.derived import CATALOG_FIGURES
from ..tools.derived_tools import DerivedResult
from . import batch_math
from .asked import nodes_of_devices_said
from .quantity import BY_NAME, where_asked
from .route import names_model
from .wording import TOOL_NOTE_ZH, Writer, assumption_zh


class QuantityBlocks(Writer):
    """The asked quantities first, each with its arithmetic and source; the sizing blocks follow."""

    def quantity_first(self) -> list[str]:
        """Each quantity asked, in the order asked, the first as the answer's lead: the derived ones, and the batch
        identity's figure (GA or the global batch, batch_math.py) when the question asks it beside them with no model."""
        items: list[tuple[int, str]] = []
        for call in self.r.of("derive_quantity", DerivedResult):
            d = call.value
            if d is None:
                continue
            at = where_asked(BY_NAME[d.quantity], self.s) if d.quantity in BY_NAME else None
            items.append((len(self.s.question) if at is None else at, self.quantity_line(d)))
        if items and not names_model(self.s) and (b := batch_math.solve(self.s)) is not None and (
                at := batch_math.asked_at(self.s, b)) is not None:
            items.append((at, batch_math.render_all(batch_math.scenarios(self.s) or [b], self.lang)))
        lines: list[str] = []
        for _, line in sorted(items, key=lambda x: x[0]):
            lines.append(self.lead(line) if not lines else line)
        if lines and (nodes := self.nodes_of_devices()):
            lines.append(nodes)
        return lines + [""] if lines else []

    def nodes_of_devices(self) -> str:
        """"…要几台机器": the nodes the stated devices fill, from the part's devices per node (hardware catalog), when
        the question asks them beside a quantity and names no model (route.nodes_of_devices_said)."""
        per, n = self.e.per_node, self.e.devices
        if not (per and n and nodes_of_devices_said(self.s)):
            return ""
        unit = "DIE" if self.e.facts.unit == "die" else "card"
        return self.L(f"**{self.nodes(-(-n // per))}**: {self.devices(n, unit)} / {self.devices(per, unit)} per node "
                      f"({self.hw_name()}, hardware catalog).",
                      f"**{-(-n // per)} 台机器**：{self.devices(n, unit)} / 每台 {self.devices(per, unit)}"
                      f"（{self.hw_name()}，硬件目录）。")

    def quantity_value(self, d: DerivedResult) -> str:
        v, zh = d.value, self.zh
        if d.unit == "params":
            short = f"{v / 1e9:.2f}B" if v >= 1e9 else f"{v / 1e6:.1f}M"
            return f"{v:,.0f}（约 {short}）" if zh else f"{v:,.0f} (about {short})"
        if d.unit == "bytes" and v < 1e8:  # a per-token KV cache (192 KiB), a small layer: in the binary unit it is exact in
            small = f"{v / 2**20:,.1f} MiB" if v >= 2**20 else f"{v / 2**10:,.0f} KiB"
            return f"{small}（{v:,.0f} 字节）" if zh else f"{small} ({v:,.0f} bytes)"
        if d.unit == "bytes":
            p = 2 if v < 1e9 else 1  # under a GB (a LoRA adapter's Adam states: 0.26 GB) one decimal says too little
            return f"{v / 1e9:.{p}f} GB（{v / 2**30:.{p}f} GiB）" if zh else f"{v / 1e9:.{p}f} GB ({v / 2**30:.{p}f} GiB)"
        if d.unit == "flops":
            return f"{v / 1e9:,.1f} GFLOPs（{v:.3g}）" if zh else f"{v / 1e9:,.1f} GFLOPs ({v:.3g})"
        if d.unit == "seconds":
            return f"{v / 3600:.1f} 小时（{v:,.0f} 秒）" if zh else f"{v / 3600:.1f} h ({v:,.0f} s)"
        if d.unit == "devices":
            return self.devices(int(v), d.device_unit)
        if d.unit == "tokens/s":
            return f"{v:,.0f} tokens/s"
        text = f"{v:,.0f}" if v == int(v) else f"{v:,.2f}".rstrip("0").rstrip(".")
        if d.unit == "layers" and v != int(v):  # an uneven split: the stages hold the two whole counts around it
            text = f"{int(v)}–{int(v) + 1}"
        if d.unit == "tokens":
            return f"{text} 个 token" if zh else f"{text} tokens"
        if d.unit == "samples":
            return f"{text} 条样本" if zh else f"{text} samples"
        if d.unit == "layers":
            return f"{text} 层" if zh else f"{text} layers"
        return text

    def quantity_line(self, d: DerivedResult) -> str:
        row = BY_NAME[d.quantity]
        per = {"per stage": "每个 stage", "per rank": "每个 rank", "per iteration": "每个 iteration", "per card": "每张卡",
               "per DIE": "每个 DIE", "per layer": "每层", "per token": "每个 token",
               "per step": "每步", "per epoch": "每个 epoch", "per device": "每张卡" if self.e.facts.unit != "die" else "每个 DIE"}.get(d.per, d.per) if self.zh else (
            f"per {'DIE' if self.e.facts.unit == 'die' else 'card'}" if d.per == "per device" else d.per)  # the part's own unit
        per = "" if self.zh and per and per[:1] in row.label["zh"] else per  # "每个 rank 的参数量" says it already
        head = f"**{row.label[self.lang]}{'（' + per + '）' if self.zh and per else ''}：{self.quantity_value(d)}**" if self.zh else (
            f"**{row.label['en']}: {self.quantity_value(d)}{' ' + per if per else ''}**")
        estimate = d.unit in ("params", "bytes")
        how = self.L("model catalog", "模型目录") if d.quantity in CATALOG_FIGURES else (
            self.L("estimate" if estimate else "arithmetic", "估算" if estimate else "计算"))
        said = row.note.get("zh") if self.zh else "; ".join(d.assumptions)
        tail = "; ".join(x for x in (how, said) if x) if not self.zh else "；".join(x for x in (how, said) if x)
        line = f"{head} = `{d.formula}`" + (f"（{tail}）" if self.zh and tail else f" ({tail})" if tail else "")
        self.cite(self.L(d.source, assumption_zh(d.source, TOOL_NOTE_ZH)))
        line += "。" if self.zh else "."
        if d.fits is not None and (row.fits if d.fits else row.over):  # "is a 1 TB disk enough?": the row's own yes/no leads
            line = (row.fits if d.fits else row.over)[self.lang] + " " + line  # type: ignore[index]
        elif d.fits is not None:  # "do 2 nodes hold it?", "够不够": the verdict on the memory said, right after its arithmetic
            line += self.say("quantity_fits" if d.fits else "quantity_over")
        return line
