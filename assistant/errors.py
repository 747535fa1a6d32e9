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


SCHEMA_KEYS = ("type", "enum", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "minLength", "maxLength",
               "pattern", "minItems", "maxItems")


def _schema_at(model, loc: tuple) -> tuple[dict, dict]:
    """(the JSON schema of the field at ``loc`` in ``model``, the schema of the object holding it)."""
    root = model.model_json_schema()
    defs = root.get("$defs", {})

    def deref(node: dict) -> dict:
        while "$ref" in node:
            node = defs.get(node["$ref"].rsplit("/", 1)[-1], {})
        for key in ("anyOf", "oneOf"):  # Optional[X]: the non-null branch
            branches = [deref(b) for b in node.get(key, []) if b.get("type") != "null"]
            if len(branches) == 1:
                return {**{k: v for k, v in node.items() if k != key}, **branches[0]}
        return node

    parent, node = root, deref(root)
    for part in loc:
        if isinstance(part, int):
            node = deref(node.get("items", {}))
            continue
        parent = node
        node = deref(node.get("properties", {}).get(str(part), {}))
    return node, parent


def _what_is_valid(model, first: dict) -> Any:
    """What would have been accepted, from the model's own schema, for errors pydantic gives no context for."""
    loc = tuple(first.get("loc", ()))
    if model is None or not loc:
        return None
    try:
        node, parent = _schema_at(model, loc)
    except Exception:  # a schema that cannot be built or walked: no hint rather than a crash
        return None
    if first.get("type") == "extra_forbidden":
        return sorted(parent.get("properties", {}))
    compact = {k: node[k] for k in SCHEMA_KEYS if k in node}
    if first.get("type") == "missing":
        return {"required": True, **compact} if compact else "required"
    return compact or None


def validation_error(exc, model=None) -> SizingError:
    """Turn a pydantic ValidationError into the canonical shape, naming the first bad field and what
    it accepts (from the error's context, else from ``model``'s JSON schema)."""
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
    elif "max_length" in ctx or "min_length" in ctx:
        limits = ([f"at least {ctx['min_length']}"] if "min_length" in ctx else []) + (
            [f"at most {ctx['max_length']}"] if "max_length" in ctx else [])
        valid = " and ".join(limits) + (" characters" if str(first.get("type", "")).startswith("string") else " items")
    elif "pattern" in ctx:
        valid = f"a string matching {ctx['pattern']}"
    elif first.get("type") in EXPECTED_TYPE:
        valid = EXPECTED_TYPE[first["type"]]
    if valid is None:
        valid = _what_is_valid(model, first)
    return SizingError("invalid_arguments", "; ".join(parts) or "invalid arguments", field=field, valid=valid)
