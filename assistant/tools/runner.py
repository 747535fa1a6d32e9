"""One adapter from the tool registry to async servers (REST routes and MCP): runs the sync tool
off the event loop under a time limit and remembers results. Remembering is sound because tools
are pure functions of their arguments and of a knowledge base that is read-only for the life of
the process."""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import anyio
from pydantic import BaseModel

from ..errors import SizingError, ToolError
from .registry import REGISTRY, Registry

# A result is remembered only when its key is this small: bounded memory per entry.
MAX_CACHED_KEY_BYTES = 8_192


@dataclass(frozen=True)
class ToolOutcome:
    """One tool call's result (or canonical error), serialised lazily for REST (JSON text) and MCP
    (a dict)."""

    model: BaseModel

    @property
    def error_code(self) -> str | None:
        return self.model.error.code if isinstance(self.model, ToolError) else None

    @cached_property
    def json(self) -> str:
        return self.model.model_dump_json()

    @cached_property
    def data(self) -> dict[str, Any]:
        return self.model.model_dump(mode="json")


class ToolRunner:
    """Registry -> async call with a time limit and an LRU of results (see the module docstring)."""

    def __init__(self, ctx, registry: Registry = REGISTRY, *, timeout_s: float, cache_size: int = 0):
        self.ctx, self.registry, self.timeout_s, self.cache_size = ctx, registry, timeout_s, cache_size
        self._cache: OrderedDict[tuple[str, bytes], ToolOutcome] = OrderedDict()

    @staticmethod
    def _key(args: bytes | str | dict | None) -> bytes:
        if isinstance(args, str):
            args = args.encode()
        if isinstance(args, bytes):
            # An empty body means no arguments, as {} does; a literal null is another request (refused).
            return args if args.strip() else b"{}"
        try:
            return json.dumps(args, sort_keys=True, ensure_ascii=False).encode()
        except (TypeError, ValueError, RecursionError):
            return b""  # not cacheable; the registry reports what is wrong with it

    async def call(self, name: str, args: bytes | str | dict | None) -> ToolOutcome:
        key = (name, self._key(args)) if self.cache_size else None
        if key is not None and (hit := self._cache.get(key)) is not None:
            self._cache.move_to_end(key)
            return hit
        try:
            with anyio.fail_after(self.timeout_s):
                # abandon_on_cancel: a tool past its time limit keeps its thread, but the caller is freed.
                result = await anyio.to_thread.run_sync(self.registry.call, name, args, self.ctx, abandon_on_cancel=True)
        except TimeoutError:
            err = SizingError("timeout", f"The tool {name} did not finish within {self.timeout_s:g} s.", status=504)
            return ToolOutcome(err.to_model())
        outcome = ToolOutcome(result)
        if key is not None and key[1] and len(key[1]) <= MAX_CACHED_KEY_BYTES and outcome.error_code != "internal_error":
            self._cache[key] = outcome
            if len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return outcome
