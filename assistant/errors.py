"""The one error shape shared by tools, the CLI and the HTTP API."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ErrorBody(BaseModel):
    model_config = ConfigDict(defer_build=True)  # built on the first error, not at every start-up (`sizing call`)

    code: str = Field(description="Machine-readable kind: invalid_arguments, unknown_model, unknown_tool, not_found, ...")
    message: str = Field(description="What was wrong, in one sentence.")
    field: str | None = Field(None, description="The argument at fault, if one is.")
    valid: Any = Field(None, description="What would have been accepted (allowed values, a range, or closest matches).")


class ToolError(BaseModel):
    """Returned instead of a result when a call cannot be answered."""

    model_config = ConfigDict(defer_build=True)

    error: ErrorBody


class SizingError(Exception):
    """Raised inside the domain; turned into a ToolError at the tool boundary."""

    def __init__(self, code: str, message: str, *, field: str | None = None, valid: Any = None, status: int = 400):
        super().__init__(message)
        self.code, self.message, self.field, self.valid, self.status = code, message, field, valid, status

    def to_model(self) -> ToolError:
        return ToolError(error=ErrorBody(code=self.code, message=self.message, field=self.field, valid=self.valid))


BOUNDS = {"gt": ">", "ge": ">=", "lt": "<", "le": "<="}
# Input is validated strictly (no coercion): say which JSON type would have been accepted.
EXPECTED_TYPE = {
    "int_type": "an integer (a JSON number, not a string or true/false)",
    "int_from_float": "an integer (a JSON number without a fraction)",
    "float_type": "a number (a JSON number, not a string or true/false)",
    "string_type": "a string",
    "bool_type": "true or false",
}


def validation_error(exc) -> SizingError:
    """Turn a pydantic ValidationError into the canonical shape, naming the first bad field."""
    errs = exc.errors(include_url=False)
    first = errs[0] if errs else {}
    field = ".".join(str(p) for p in first.get("loc", ())) or None
    parts = []
    for e in errs[:5]:
        loc = ".".join(str(p) for p in e.get("loc", ())) or "arguments"
        parts.append(f"{loc}: {e.get('msg')}")
    valid = None
    ctx = first.get("ctx") or {}
    if "expected" in ctx:
        valid = ctx["expected"]
    elif bounds := [f"{sign} {ctx[k]}" for k, sign in BOUNDS.items() if k in ctx]:
        valid = " and ".join(bounds)
    elif first.get("type") in EXPECTED_TYPE:
        valid = EXPECTED_TYPE[first["type"]]
    return SizingError("invalid_arguments", "; ".join(parts) or "invalid arguments", field=field, valid=valid)
