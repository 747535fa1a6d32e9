"""The lead of a choice between two values about the last answer (either.py reads it): the value the vendor table
behind the answer holds, said directly ("**0.95**, not 0.9: …"), before the rows it comes from."""

from __future__ import annotations

from collections.abc import Callable

from ..tools.tables import InferenceMinCardsResult, VllmRow
from .wording import Writer


def fig(x: float) -> str:
    return f"{x:,.0f}" if x >= 512 else f"{x:g}"


class EitherBlocks(Writer):
    """The lead of a choice between two values: the value the vendor table behind the answer holds."""

    def either_first(self) -> list[str]:
        e = self.s.either
        if e is None:
            return []
        rows = [row for res in self.r.values("inference_min_cards", InferenceMinCardsResult) for row in res.rows if row.supported]
        if self.s.memory_gb:
            rows = [row for row in rows if row.memory_gb == self.s.memory_gb] or rows
        if not rows:
            return []
        value: Callable[[VllmRow], float | None] = (lambda row: row.gpu_memory_utilization) if e.slot == "gpu_util" else \
            (lambda row: row.max_model_len)
        held = {v for row in rows if (v := value(row)) is not None}
        matched = [v for v in e.values if v in held]
        where = self.L("; ", "；").join(
            dict.fromkeys(self.L(f"{row.table} ({row.memory_gb} GB cards): {fig(value(row) or 0)}",
                                 f"{row.table}（{row.memory_gb} GB 卡）：{fig(value(row) or 0)}") for row in rows))
        what = self.L("gpu-memory-utilization" if e.slot == "gpu_util" else "tested max-model-len",
                      "gpu-memory-utilization" if e.slot == "gpu_util" else "实测 max-model-len")
        said = dict(zip(e.values, e.texts, strict=True))
        if len(matched) == 1:
            v = matched[0]
            other = said[e.values[1] if v == e.values[0] else e.values[0]]
            yes = "" if not e.confirm else (self.L("Yes, ", "是的，") if v == e.values[0] else self.L("No, ", "不是，"))
            text = self.L(f"**{yes}{said[v]}**, not {other}: the ModelArts vLLM table's {what} ({where}).",
                          f"**{yes}{said[v]}**，不是 {other}：ModelArts vLLM 表格的 {what}（{where}）。")
        elif len(matched) == 2:
            text = self.L(f"**Both**, in different tables: {where}.", f"**两个都有**，出自不同的表：{where}。")
        else:
            text = self.L(f"**Neither**: the ModelArts vLLM table's {what} is {where}.",
                          f"**都不是**：ModelArts vLLM 表格的 {what} 是 {where}。")
        return [self.lead(text), ""]
