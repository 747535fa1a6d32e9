"""LLM-facing tools. Each tool module registers its tools on ``REGISTRY`` when imported.

``REGISTRY`` (first access) imports every tool module; ``registry_for(name)`` imports only as many as
it takes to find one tool, so a one-shot ``sizing call`` does not pay for the estimator's and the
config generator's models when it asks a table."""

from __future__ import annotations

import importlib

from .registry import REGISTRY as _REGISTRY
from .registry import Registry, Tool, is_error

# The order tools are listed: table look-ups first, then the estimator, then config generation and time.
TOOL_MODULES = ("tables", "table_filter", "estimates", "configs", "time_tools", "fits_tools", "setup_tools", "derived_tools",
                "examples")


def _load(stop_at: str | None = None) -> Registry:
    for module in TOOL_MODULES:
        if stop_at is not None and stop_at in _REGISTRY:
            break
        importlib.import_module(f"{__name__}.{module}")
    return _REGISTRY


def registry_for(name: str) -> Registry:
    """The registry holding tool ``name`` (every tool when there is no such name, for the error's list)."""
    return _load(stop_at=name)


def __getattr__(attr: str) -> Registry:
    if attr == "REGISTRY":
        globals()["REGISTRY"] = _load()
        return _REGISTRY
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


__all__ = ["REGISTRY", "Registry", "Tool", "is_error", "registry_for"]
