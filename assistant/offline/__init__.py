"""The offline planner: a deterministic LangChain chat model that reads Chinese or English
questions, calls the tools, and writes the answer from their results (parse -> route -> compose)."""

from .model import OfflinePlanner

__all__ = ["OfflinePlanner"]
