"""Tool results read as the tools' own pydantic types. A `route.Done` holds the JSON a tool returned
(or the canonical error); the answer writers read it through the result model the tool registry
names for that tool, so a field is an attribute with a type, never a dict lookup."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from ..errors import ErrorBody
from .route import Done

T = TypeVar("T", bound=BaseModel)
NO_ERROR = ErrorBody(code="", message="")


@cache
def result_model(tool: str) -> type[BaseModel]:
    """The result model the tool registry declares for ``tool``."""
    from ..tools import REGISTRY  # the registry imports every tool module: once, on first use

    return REGISTRY.get(tool).result_model


@dataclass(frozen=True)
class Result(Generic[T]):
    """One tool call: its arguments and either its typed result or its error."""

    name: str
    args: dict[str, Any]
    value: T | None
    error: ErrorBody

    @property
    def ok(self) -> bool:
        return self.value is not None

    def arg(self, key: str) -> Any:
        return self.args.get(key)


def read(d: Done, kind: type[T]) -> Result[T]:
    """``d`` as ``kind``, which must be the model the registry declares for the tool that ran."""
    declared = result_model(d.name)
    if declared is not kind:
        raise TypeError(f"{d.name} returns {declared.__name__}, not {kind.__name__}")
    if not d.ok:
        return Result(d.name, d.args, None, ErrorBody.model_validate(d.error))
    return Result(d.name, d.args, kind.model_validate(d.result), NO_ERROR)


class Results:
    """Every call of one answer, each read once as its tool's type."""

    def __init__(self, done: list[Done]):
        self.done = done
        self._read: dict[tuple[int, type], Result[Any]] = {}

    def of(self, name: str, kind: type[T], ok: bool | None = True) -> list[Result[T]]:
        """The calls of tool ``name``, typed; only the successful ones unless ``ok`` is False/None."""
        out: list[Result[T]] = []
        for i, d in enumerate(self.done):
            if d.name != name or (ok is not None and d.ok != ok):
                continue
            key = (i, kind)
            if key not in self._read:
                self._read[key] = read(d, kind)
            out.append(self._read[key])
        return out

    def values(self, name: str, kind: type[T]) -> list[T]:
        """The successful results of tool ``name``."""
        return [r.value for r in self.of(name, kind) if r.value is not None]
