"""The one tool registry. Every front end (LangChain agent, MCP, REST, CLI) adapts this list.

A tool is a plain function ``fn(ctx, args) -> Result`` with a pydantic model for ``args`` and one
for the result; the first paragraph of its docstring is the description the LLM sees.
"""

from __future__ import annotations

import inspect
import json
import logging
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import SizingError, ToolError, validation_error

MAX_ARG_BYTES = 100_000
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Tool:
    name: str
    fn: Callable[..., BaseModel]
    args_model: type[BaseModel]
    result_model: type[BaseModel]
    description: str
    read_only: bool = True

    def arg_names(self) -> set[str]:
        names = set(self.args_model.model_fields)
        names |= {f.alias for f in self.args_model.model_fields.values() if f.alias}
        return names

    def input_schema(self) -> dict[str, Any]:
        return self.args_model.model_json_schema()

    def output_schema(self) -> dict[str, Any]:
        return self.result_model.model_json_schema()


class Registry:
    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def register(self, fn: Callable) -> Callable:
        """Decorator: read the argument and result models from the type hints."""
        hints = typing.get_type_hints(fn)
        params = list(inspect.signature(fn).parameters)
        if len(params) != 2:
            raise TypeError(f"tool {fn.__name__} must take (ctx, args)")
        doc = inspect.getdoc(fn) or ""
        description = doc.split("\n\n", 1)[0].replace("\n", " ").strip()
        tool = Tool(fn.__name__, fn, hints[params[1]], hints["return"], description)
        if tool.args_model.model_config.get("extra") != "forbid":
            # parse_args refuses unknown arguments; the schemas (MCP, OpenAPI) say so: additionalProperties false.
            tool.args_model.model_config["extra"] = "forbid"
            tool.args_model.model_rebuild(force=True)
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name} registered twice")
        self._tools[tool.name] = tool
        return fn

    def __iter__(self):
        return iter(self._tools.values())

    def __contains__(self, name: str) -> bool:
        return name in self._tools

    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> Tool:
        if name not in self._tools:
            raise SizingError("unknown_tool", f"There is no tool named {name!r}.", field="name", valid=self.names(), status=404)
        return self._tools[name]

    def schemas(self) -> list[dict[str, Any]]:
        return [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema(),
             "output_schema": t.output_schema(), "read_only": t.read_only}
            for t in self
        ]

    def parse_args(self, tool: Tool, args: Any) -> BaseModel:
        """Validate raw arguments (dict, JSON text or None) into the tool's argument model."""
        if args is None:
            args = {}
        if isinstance(args, str | bytes):
            if len(args) > MAX_ARG_BYTES:
                raise SizingError("too_large", f"Arguments are {len(args)} bytes; the limit is {MAX_ARG_BYTES}.")
            try:
                args = json.loads(args if args.strip() else "{}")
            except (ValueError, RecursionError) as e:
                raise SizingError("invalid_json", f"Arguments are not valid JSON: {e}", valid="a JSON object") from None
        if not isinstance(args, dict):
            raise SizingError("invalid_arguments", f"Arguments must be a JSON object, got {type(args).__name__}.", valid="a JSON object")
        known = tool.arg_names()
        unknown = sorted(str(k) for k in args if k not in known)
        if unknown:  # a misspelt argument must not silently fall back to its default
            raise SizingError("invalid_arguments", f"Unknown argument(s) {', '.join(map(repr, unknown))} for {tool.name}.",
                              field=unknown[0], valid=sorted(known))
        try:
            # Strict: no coercion (true is not 1, "1e3" is not 1000, "8" is not 8); an int still fills a float.
            return tool.args_model.model_validate(args, strict=True)
        except ValidationError as e:
            raise validation_error(e, tool.args_model) from None
        except RecursionError:
            raise SizingError("invalid_arguments", "Arguments are nested too deeply.") from None

    def call(self, name: str, args: Any, ctx) -> BaseModel:
        """Run a tool; never raises for bad input: returns the result model or a ToolError."""
        try:
            tool = self.get(name)
            return tool.fn(ctx, self.parse_args(tool, args))
        except SizingError as e:
            return e.to_model()
        except Exception as e:  # a bug must not take the chat or the API down with it
            log.exception("tool %s failed", name)
            return SizingError("internal_error", f"The tool {name} failed: {type(e).__name__}: {e}", status=500).to_model()

    def call_json(self, name: str, args: Any, ctx) -> dict[str, Any]:
        return self.call(name, args, ctx).model_dump(mode="json")


def is_error(result: BaseModel | dict) -> bool:
    if isinstance(result, ToolError):
        return True
    return isinstance(result, dict) and "error" in result and len(result) == 1


REGISTRY = Registry()
tool = REGISTRY.register
