"""The filters a list of models or of table rows puts on the models themselves ("which dense models under 10B"): a
count compared, the catalog's architecture and size. No tools here, so both tool modules import it without changing the
order the registry lists the tools in."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..estimate.shape import arch_of

Op = Literal["lt", "le", "eq", "ge", "gt"]
OPS = {"lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "eq": lambda a, b: a == b,
       "ge": lambda a, b: a >= b, "gt": lambda a, b: a > b}


class Compare(BaseModel):
    """A count compared: {op: gt, value: 64} is "more than 64"."""

    model_config = ConfigDict(defer_build=True)

    op: Op = Field(description="lt (<), le (<=), eq (=), ge (>=) or gt (>).")
    value: int = Field(ge=0, le=100_000, description="The number compared against.")


def in_family(model_id: str, family: str) -> bool:
    """The catalog id is of the family named: it starts with the name and a dash ("qwen2": qwen2-7b, not qwen2.5-7b),
    or, for a name of letters alone, with the name and its version ("llama": llama3.1-8b; "qwen": qwen2.5-7b)."""
    if model_id.startswith(family + "-"):
        return True
    rest = model_id[len(family):] if model_id.startswith(family) else ""
    return family.isalpha() and rest[:1].isdigit()


# the size a model is named by ("llama2-70b": 70, "qwen3-30b-a3b": 30); a mixture named by its experts ("8x7b") has none
NAMED_SIZE = re.compile(r"(?<![\dx.])(\d+(?:\.\d+)?)b(?![a-z0-9])")


def named_size(m: dict[str, Any]) -> float | None:
    """The size in the model's name, the one people compare ("models under 70B" leaves llama2-70b out, whose config
    counts 68.98B); the catalog's count when the name has none."""
    mid = str(m.get("id") or "")
    if (found := NAMED_SIZE.search(mid)) and not re.search(r"\d+x\d", mid):
        return float(found.group(1))
    return float(m["params_b"]) if m.get("params_b") is not None else None


def model_passes(m: dict[str, Any], arch: str | None, params_b: Compare | None) -> bool:
    """A catalog model meets a list's filters on the model itself: dense or MoE, and its size compared (the size it is
    named by, else its total parameters)."""
    if arch and arch_of(m) != arch:
        return False
    return params_b is None or ((size := named_size(m)) is not None and OPS[params_b.op](size, params_b.value))
